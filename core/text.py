"""Turning text into index terms: words (Snowball-stemmed, accents folded), identifiers whole and in parts.

The same function tokenises documents at build time and queries at search time,
so whatever one does the other matches.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from itertools import chain

# A raw token: letters, digits and the joiners that hold identifiers and paths together.
_RAW = re.compile(r"[^\W_]+(?:[_./\-:#@][^\W_]+)*|_+[^\W_]+(?:[_./\-:#@][^\W_]+)*", re.UNICODE)
#: An identifier's chunks and their camel-case pieces: compiled when a first identifier is split (``_splitters``), not
#: as the module loads: a prompt of plain words, tokenised by its hook, never splits one (0.25 ms).
_SPLITTERS: list[tuple[re.Pattern[str], re.Pattern[str]]] = []

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "s",
        "t",
        "let",
        "lets",
        "get",
        "got",
        "im",
        "ive",
        "id",
        "ill",
        "youre",
        "dont",
        "didnt",
        "doesnt",
        "cant",
        "wont",
        "isnt",
        "arent",
        "wasnt",
        "yes",
        "ok",
        "okay",
        "please",
        "thanks",
        "thank",
        "hi",
        "hey",
        "oh",
        "really",
        "like",
        "just",
        "one",
        "two",
        # What is left of a contraction split at its apostrophe ("wasn't" -> "wasn", "t").
        "wasn",
        "weren",
        "didn",
        "doesn",
        "don",
        "couldn",
        "wouldn",
        "shouldn",
        "hasn",
        "haven",
        "hadn",
        "aren",
        "won",
        "ll",
        "re",
        "ve",
    ]
)

#: Words Snowball would merge with a different word that a coding history keeps apart
#: (``locale`` is not ``local``, ``customer`` not ``custom``, ``production`` not ``product``).
STEM_EXCEPTIONS = {
    "locale": "locale",
    "locales": "locale",
    "customer": "customer",
    "customers": "customer",
    "production": "production",
}
_STEMMER: list = []
#: Short forms developers write for the same thing, indexed and searched as the long form.
SAME_AS = {
    "db": "database",
    "dbs": "databases",
    "repo": "repository",
    "repos": "repositories",
    "env": "environment",
    "envs": "environments",
    "config": "configuration",
    "configs": "configurations",
    "prod": "production",
    "deps": "dependencies",
    "pg": "postgres",
    "postgresql": "postgres",
}


def stem(word: str) -> str:
    """The English Snowball stem of a lowercase word (PyStemmer), so "painted" meets "painting" and "described" "describe".

    The stemmer is created on first use: the prompt hook pays for it only when it has words to stem.
    """
    word = SAME_AS.get(word, word)
    if len(word) <= 3 or not word.isalpha():
        return word
    found = STEM_EXCEPTIONS.get(word)
    if found is not None:
        return found
    if not _STEMMER:
        import Stemmer  # PyStemmer: one small C extension, imported in under a millisecond

        _STEMMER.append(Stemmer.Stemmer("english"))
    return _STEMMER[0].stemWord(word)


def fold(raw: str) -> str:
    """``raw`` without accents (``Séverine`` -> ``Severine``), for documents and queries alike."""
    if raw.isascii():
        return raw
    return "".join(c for c in unicodedata.normalize("NFKD", raw) if not unicodedata.combining(c))


def _splitters() -> tuple[re.Pattern[str], re.Pattern[str]]:
    if not _SPLITTERS:
        part = re.compile(r"[^\W_]+", re.UNICODE)
        camel = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+", re.UNICODE)
        _SPLITTERS.append((part, camel))
    return _SPLITTERS[0]


def _parts(raw: str) -> list[str]:
    part, camel = _splitters()
    parts = []
    for chunk in part.findall(raw):
        pieces = camel.findall(chunk) or [chunk]
        if len(pieces) > 1:
            parts.append(chunk.lower())
        parts.extend(p.lower() for p in pieces)
    return parts


def token_terms(raw: str) -> list[str]:
    """The terms of one raw token (a word, a number, an identifier, as ``terms`` finds them): what ``terms`` makes of
    a text that is that token alone, without its pattern or its cache (the thesaurus's few hundred words, tokenised
    by every hook that searches, cost 1 ms through ``terms`` and a fifth of that here)."""
    raw = fold(raw)
    if raw.isalpha() and (raw.islower() or raw[1:].islower() or raw.isupper()):
        word = raw.lower()
        stemmed = stem(word)
        # "getting" is as empty as "get": a stopword's other forms are stopwords too.
        return [] if word in STOPWORDS or stemmed in STOPWORDS else [stemmed]
    parts = _parts(raw)
    whole = raw.lower()
    if parts == [whole]:  # a number, an acronym, a word with digits: itself, unstemmed
        return [] if whole in STOPWORDS else [whole]
    return [whole] + [stem(part) for part in parts if part not in STOPWORDS and part != whole]


class _TermCache(dict[str, list[str]]):
    """Raw tokens' terms, computed on a token's first lookup (``__missing__``) and kept.

    Raw tokens repeat endlessly across a history; their terms are computed once. About 320 bytes an entry: the
    cap empties the cache when full, so a build's memory is the same at 100k sessions as at 10k (ids and hashes
    never repeat; words come back).
    """

    def __missing__(self, raw: str) -> list[str]:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        found = self[raw] = token_terms(raw)
        return found


_CACHE = _TermCache()
_CACHE_LIMIT = 50_000


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order, repeats kept (term frequency matters).

    A plain word yields its stem. An identifier (``fetchUser``, ``cache_key``,
    ``src/app.py``) yields itself whole, lowercased, and each of its parts.
    """
    # Every token looked up and joined without a Python step per token (a build's hot loop): a token not in the
    # cache is the only one that costs a call.
    return list(chain.from_iterable(map(_CACHE.__getitem__, _RAW.findall(text))))


def forget_cached_terms() -> None:
    """Empty the cache: a segment's final merge tokenises nothing, and would hold it beside its own memory."""
    _CACHE.clear()


def term_positions(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each raw token's start in ``text`` with its terms (what snippets look for)."""
    for match in _RAW.finditer(text):
        yield match.start(), _CACHE[match.group()]


def identifier_parts(text: str) -> dict[str, str]:
    """Terms ``text`` holds only as parts of identifiers, each with the whole identifier's term.

    ``per_customer_limit`` gives ``{"per": "per_customer_limit", "custom…": …}``; a part that is also a word
    of its own in ``text`` is left out.
    """
    parts: dict[str, str] = {}
    own: set[str] = set()
    for raw in _RAW.findall(text):
        found = token_terms(raw)
        if len(found) > 1:
            for part in found[1:]:
                parts.setdefault(part, found[0])
        else:
            own.update(found)
    return {part: whole for part, whole in parts.items() if part not in own}


def phrases(query: str) -> tuple[list[str], str]:
    """Split a query into its quoted phrases and the rest (a query without a quote, as most prompts are, compiles
    no pattern for it).

    A quote left open (``"deploy ssh``) starts no phrase: the words after it are searched as words, rather than
    the query losing them all.
    """
    if '"' not in query:
        return [], query
    if query.count('"') % 2:
        head, _, tail = query.rpartition('"')
        query = f"{head} {tail}"
    found = re.findall(r'"([^"]+)"', query)
    rest = re.sub(r'"[^"]*"?', " ", query)
    return [p.strip() for p in found if p.strip()], rest


def normalise(text: str) -> str:
    """Lowercase with runs of whitespace folded: the form phrases are matched in."""
    return " ".join(text.lower().split())


def one_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of ``text``, trimmed to ``limit`` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


#: What a terminal would act on rather than print: an escape sequence (CSI, the OSC that sets a window title,
#: the other string commands, a lone ESC and its letter), then any other C0 or C1 control and DEL. A string
#: command missing its terminator ends at the line's end, so it cannot swallow the rest of the output.
_TERMINAL_CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


def for_terminal(text: str) -> str:
    """``text`` with every control character but newline and tab taken out, with the escape sequences they start.

    Stored chats hold what tools printed and what users pasted: a colour code, a title-setting OSC, a NUL.
    The CLI prints its text through this (``fastpath.echo``), so none of it reaches a terminal or a pipe.
    """
    return _TERMINAL_CONTROLS.sub("", text) if not text.isprintable() else text


_RAW_IN_JSON = re.compile(r"[\x7f-\x9f]")


def json_escaped_controls(json_text: str) -> str:
    """JSON text with DEL and the C1 controls, which JSON encoders leave raw, written as ``\\u`` escapes.

    Lossless (a parser reads the same string back) and, with the C0 controls the encoders already escape, no
    control character of a stored chat reaches a terminal through ``--json`` either.
    """
    return _RAW_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", json_text)
