"""Turning text into index terms: words, identifiers and their parts, lightly stemmed.

The same function tokenises documents at build time and queries at search time,
so whatever one does the other matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A raw token: letters, digits and the joiners that hold identifiers and paths together.
_RAW = re.compile(r"[^\W_]+(?:[_./\-:#@][^\W_]+)*|_+[^\W_]+(?:[_./\-:#@][^\W_]+)*", re.UNICODE)
_PART = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+", re.UNICODE)

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
    ]
)

_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """A light suffix stripper: enough to meet "painted" with "painting" and "describe" with "described"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        base = word[: -len(suffix)]
        if not word.endswith(suffix) or len(base) < (4 if suffix == "ly" else 3):
            continue
        if suffix in ("ies", "ied"):
            return base + "y"
        if suffix == "s" and base.endswith(("s", "u", "i")):
            return word  # class, status, analysis
        if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "lsz":
            base = base[:-1]  # running -> run
        word = base
        break
    if word.endswith("er") and len(word) >= 6:
        word = word[:-2]  # "painter", "painters" and "paint" meet; so do "encounter" and "encountered"
    # "describe" and "described" meet at "describ"; "make" and "making" at "mak".
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def _parts(raw: str) -> list[str]:
    parts = []
    for chunk in _PART.findall(raw):
        pieces = _CAMEL.findall(chunk) or [chunk]
        if len(pieces) > 1:
            parts.append(chunk.lower())
        parts.extend(p.lower() for p in pieces)
    return parts


def _raw_terms(raw: str) -> list[str]:
    if raw.isalpha() and (raw.islower() or raw[1:].islower()):
        word = raw.lower()
        return [] if word in STOPWORDS else [stem(word)]
    parts = _parts(raw)
    whole = raw.lower()
    if parts == [whole]:  # a number, an acronym, a word with digits: itself, unstemmed
        return [] if whole in STOPWORDS else [whole]
    return [whole] + [stem(part) for part in parts if part not in STOPWORDS and part != whole]


# Raw tokens repeat endlessly across a history; their terms are computed once.
_CACHE: dict[str, list[str]] = {}
_CACHE_LIMIT = 500_000


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order, repeats kept (term frequency matters).

    A plain word yields its stem. An identifier (``fetchUser``, ``cache_key``,
    ``src/app.py``) yields itself whole, lowercased, and each of its parts.
    """
    out: list[str] = []
    cache = _CACHE
    for raw in _RAW.findall(text):
        found = cache.get(raw)
        if found is None:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            found = cache[raw] = _raw_terms(raw)
        out.extend(found)
    return out


def term_positions(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each raw token's start in ``text`` with its terms (what snippets look for)."""
    cache = _CACHE
    for match in _RAW.finditer(text):
        raw = match.group()
        found = cache.get(raw)
        if found is None:
            found = _raw_terms(raw)
        yield match.start(), found


def phrases(query: str) -> tuple[list[str], str]:
    """Split a query into its quoted phrases and the rest."""
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
