"""Turning text into index terms: words (Snowball-stemmed, accents folded), identifiers whole and in parts.

The same function tokenises documents at build time and queries at search time,
so whatever one does the other matches.

A raw token is what ``RAW_PATTERN`` finds. A hook loads no ``re`` (with the ``enum``, ``functools`` and
``collections`` it imports, about 3 ms of a hook's 12 of starting Python), so text is scanned with ``str``'s own
methods (``_scan``), which find exactly what the pattern finds (``tests/test_text_scan.py`` checks both on every
code point and on many random strings); where ``re`` is loaded anyway (a build, the CLI) the compiled pattern is
used: on prose it is about a third faster.
"""

from __future__ import annotations

import sys
from itertools import chain

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator

#: A raw token: letters, digits and the joiners that hold identifiers and paths together. A token that begins with
#: underscores begins at the first of them (``(?<!_)``): tried inside a long run of them, the pattern backtracked
#: over the rest of the run at every start (quadratic: 17 s for a 20,000-underscore line), and a token can never
#: start inside a run anyway (it would have started at the run's first underscore).
RAW_PATTERN = r"[^\W_]+(?:[_./\-:#@][^\W_]+)*|(?<!_)_+[^\W_]+(?:[_./\-:#@][^\W_]+)*"
#: What joins letters and digits into one token (``src/app.py``, ``cache_key``, ``a@b``).
JOINERS = "_./-:#@"
#: The ASCII characters, and those of them ``str.isalnum`` says are letters or digits.
_ASCII = bytes(range(128))
_ASCII_ALNUM = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def ascii_spaces(keep: str = "") -> dict[int, str]:
    """A ``str.translate`` table: every ASCII character that is neither a letter, a digit nor in ``keep``, as a space.

    Made by ``bytes.translate``, not a comprehension asking each of the 128 characters: 0.1 M instructions less for
    each such table at the start of every hook."""
    return dict.fromkeys(_ASCII.translate(None, _ASCII_ALNUM + keep.encode("ascii")), " ")


def ascii_bytes(table: dict[int, str]) -> bytes:
    """An :func:`ascii_spaces` table for ``bytes.translate`` (:func:`with_spaces`): every byte as itself but the
    ASCII characters ``table`` makes spaces."""
    return bytes.maketrans(bytes(table), b" " * len(table))


def with_spaces(text: str, table: bytes) -> str:
    """``text.translate`` of the :func:`ascii_spaces` table ``table`` was made from (:func:`ascii_bytes`), read as
    bytes: ``str.translate`` looks each character up in a dict, about 1,000 instructions a character of a text that
    is not all ASCII (0.2 M for a prompt of 200 characters with one ``…``), where a 256-byte table costs a few. A
    character past ASCII is UTF-8 bytes of 0x80 and over, which the table keeps as they are (a lone surrogate too,
    passed through), so every text comes back as ``str.translate`` gives it."""
    if text.isascii():
        return text.encode("ascii").translate(table).decode("ascii")
    return text.encode("utf-8", "surrogatepass").translate(table).decode("utf-8", "surrogatepass")


#: Every ASCII character that is neither a letter, a digit nor a joiner, as a space: what ``_scan`` splits at.
_APART = ascii_spaces(JOINERS)
#: ``_APART`` for ``bytes.translate``: every byte as itself but those ``_APART`` makes spaces (``_apart``).
_APART_BYTES = ascii_bytes(_APART)
#: Every ASCII character that is neither a letter nor a digit, as a space: an identifier's chunks (``letter_runs``).
_NOT_ALNUM = ascii_spaces()
#: ``_NOT_ALNUM`` for ``with_spaces``.
_NOT_ALNUM_BYTES = ascii_bytes(_NOT_ALNUM)
#: How ``terms`` finds raw tokens: chosen at its first call (``_finder``).
_FINDERS: list[Callable[[str], list[str]]] = []

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
    import unicodedata  # (here: an ASCII text, nearly every query and search page, needs none of it)

    return "".join(c for c in unicodedata.normalize("NFKD", raw) if not unicodedata.combining(c))


def _apart(text: str) -> str:
    """``text.translate(_APART)``, through a 256-byte table (``with_spaces``): four times faster than
    ``str.translate`` for an ASCII text (a quarter of ``terms``' time, a build's busiest tokenising step), and many
    times for any other."""
    return with_spaces(text, _APART_BYTES)


def _scan(text: str) -> list[str]:
    """The raw tokens of ``text``, as ``re.findall(RAW_PATTERN, text)`` finds them, without ``re``: the text is cut
    at every character that cannot be in a token, and a piece that is not all letters and digits is read by
    ``_joined`` (one of two in prose, where a word ends a sentence or a path names a file)."""
    found: list[str] = []
    for piece in _apart(text).split():
        if piece.isalnum():
            found.append(piece)
        else:
            _joined(piece, found)
    return found


def _joined(piece: str, found: list[str]) -> None:
    """The tokens of ``piece`` (letters, digits, joiners, perhaps other non-ASCII characters), appended to ``found``:
    runs of letters and digits, each joined to the next by one joiner; a token starting at underscores takes them
    (``_private``), anything else ends a token."""
    end, i = len(piece), 0
    while i < end:
        start = i
        if piece[i] == "_":
            while i < end and piece[i] == "_":
                i += 1
            if i == end or not piece[i].isalnum():
                continue  # underscores with no letter or digit after them: no token
        elif not piece[i].isalnum():
            i += 1
            continue
        while i < end and piece[i].isalnum():
            i += 1
        while i + 1 < end and piece[i] in JOINERS and piece[i + 1].isalnum():
            i += 1
            while i < end and piece[i].isalnum():
                i += 1
        found.append(piece[start:i])


def _finder() -> Callable[[str], list[str]]:
    """``_scan``, or the compiled pattern's ``findall`` where ``re`` is loaded already (the same tokens)."""
    if not _FINDERS:
        if "re" in sys.modules:
            import re

            _FINDERS.append(re.compile(RAW_PATTERN).findall)
        else:
            _FINDERS.append(_scan)
    return _FINDERS[0]


def letter_runs(raw: str) -> list[str]:
    """The runs of letters and digits in ``raw`` (``re.findall(r"[^\\W_]+", raw)``)."""
    pieces = with_spaces(raw, _NOT_ALNUM_BYTES).split()
    if all(map(str.isalnum, pieces)):
        return pieces
    # (only a piece holding a character ``_NOT_ALNUM`` does not space, ``…`` or ``’``, is read a character at a time:
    # read whole, a prompt's one ellipsis cost every word of it that)
    return [
        run
        for piece in pieces
        for run in ((piece,) if piece.isalnum() else "".join(c if c.isalnum() else " " for c in piece).split())
    ]


def _camel(chunk: str) -> list[str]:
    """A chunk's camel-case pieces, as ``re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\\d+|[^\\W\\d_a-zA-Z]+",
    chunk)`` finds them: ``HTTPServer`` -> ``HTTP``, ``Server``; ``v2beta`` -> ``v``, ``2``, ``beta``."""
    if chunk.isascii() and (chunk.isdigit() or chunk.isalpha() and chunk.islower()):
        return [chunk]
    pieces: list[str] = []
    end, i = len(chunk), 0
    while i < end:
        start, c = i, chunk[i]
        if "A" <= c <= "Z":
            while i < end and "A" <= chunk[i] <= "Z":
                i += 1
            if i < end and "a" <= chunk[i] <= "z":
                if i - start > 1:  # an acronym before a word: ``HTTPServer``'s ``HTTP``
                    i -= 1
                else:
                    while i < end and "a" <= chunk[i] <= "z":
                        i += 1
        elif "a" <= c <= "z":
            while i < end and "a" <= chunk[i] <= "z":
                i += 1
        elif c.isdecimal():
            while i < end and chunk[i].isdecimal():
                i += 1
        else:  # any other letter or digit (not an ASCII letter, not a decimal digit)
            while i < end and _other(chunk[i]):
                i += 1
            if i == start:
                i += 1
                continue
        pieces.append(chunk[start:i])
    return pieces


def _other(c: str) -> bool:
    return c.isalnum() and not c.isdecimal() and not ("a" <= c <= "z" or "A" <= c <= "Z")


def _parts(raw: str) -> list[str]:
    parts = []
    for chunk in letter_runs(raw):
        pieces = _camel(chunk) or [chunk]
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


class _PieceCache(dict[str, list[str]]):
    """A text's pieces (what ``str.split`` leaves of it once ``_APART`` made spaces of the ASCII characters no token
    holds) with the terms of the raw tokens in each, computed on a piece's first lookup and kept.

    Every raw token lies inside one piece, and a piece's tokens are those the pattern finds in the whole text there
    (a token's look-behind sees a space at a piece's start either way): so a text's terms are its pieces' terms,
    joined. Splitting is about three times faster than the pattern, and most pieces are a token already seen
    (a word, a path; a word that ends a sentence takes its full stop with it). Capped as ``_TermCache`` is.
    """

    def __missing__(self, piece: str) -> list[str]:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        if piece.isalnum():  # one token, its terms' list shared with the token cache (``_scan``'s test)
            found = self[piece] = _CACHE[piece]
            return found
        bare = unmarked(piece)
        if bare.isalnum():
            found = self[piece] = _CACHE[bare]
        else:
            found = self[piece] = list(chain.from_iterable(map(_CACHE.__getitem__, _finder()(bare))))
        return found


def unmarked(text: str) -> str:
    """``text`` without the combining marks composing left (``composed``): Hindi's vowel signs and viramas, Hebrew's
    points, Arabic's vowels. A mark is no letter, so a word holding one was cut at it into letters (``नमस्ते`` into
    ``नमस`` and ``त``, which matched every text holding a lone ``त``; pointed ``שָׁלוֹם`` into three pieces that
    unpointed ``שלום``, as Hebrew is typed, never found: review11 R7). Without them a word is one term, its letters,
    as typed with its marks or without (a Hindi word's vowel signs go with them: ``शांति`` is ``शत``). The scripts
    written without a space between words keep theirs (``_UNSPACED`` lists their blocks: Thai, Lao, Tibetan,
    Myanmar, Khmer, Javanese, Balinese and others): a sentence of them without its marks would be one term, which
    no word of it finds (review15 F1)."""
    if text.isascii():
        return text
    bare = text.translate(_MARKS)
    return text if len(bare) == len(text) else bare


class _Marks(dict[int, "int | None"]):
    """``str.translate``'s table for ``unmarked``: a combining mark's code point -> None, any other's -> itself, each
    worked out on its first lookup and kept (a text's few distinct characters, not the 8,000 of the blocks that
    hold marks: building those cost a hook 11.5 M instructions, review15 F10)."""

    def __missing__(self, code: int) -> int | None:
        from unicodedata import category

        mark = category(chr(code))[0] == "M" and not any(start <= code < end for start, end in _UNSPACED)
        found = self[code] = None if mark else code
        return found


#: The blocks of the scripts of South-East Asia, written without a space between words: Thai to Myanmar, Khmer, the
#: Tai scripts, Buginese to Lepcha (Balinese, Sundanese, Batak), Javanese, Myanmar's extensions, Cham and Tai Viet
#: (review16 R16-2: a Javanese sentence was one term).
_UNSPACED = ((0x0E00, 0x10A0), (0x1780, 0x1800), (0x1950, 0x1AB0), (0x1B00, 0x1C50), (0xA980, 0xAAE0))
_MARKS = _Marks()


_PIECES = _PieceCache()


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order, repeats kept (term frequency matters).

    A plain word yields its stem. An identifier (``fetchUser``, ``cache_key``,
    ``src/app.py``) yields itself whole, lowercased, and each of its parts.
    """
    # Every piece looked up and joined without a Python step per piece (a build's hot loop): a piece not in the
    # cache is the only one that costs a call.
    found = list(chain.from_iterable(map(_PIECES.__getitem__, _apart(composed(text)).split())))
    lent = _LENT  # (read once: another thread's ``lent_terms`` may take it meanwhile, and a text's terms are its own)
    if lent is not None and lent.room > 0:
        lent[text] = found
        lent.room -= len(found)
        return found.copy()
    return found


class _Lent(dict[str, list[str]]):
    """What ``terms`` worked out while a session was made ready to write (``lend_terms``), for its writer to take
    (``lent_terms``) rather than tokenise the same texts again: a session's summary reads the words of its asks and
    answers (``topic``) before its writer indexes them (a third of a build's tokenising). ``room``: how many more
    terms it may hold (a session of many long messages is held only up to it)."""

    room = 0


_LENT: _Lent | None = None
#: The most terms a ``_Lent`` holds (2 MiB of a list's pointers: a session of about a megabyte of text; a longer one is
#: lent its first texts' terms only).
LENT_TERMS = 1 << 18


def lend_terms() -> None:
    """Have ``terms`` remember what it works out, until ``lent_terms`` takes it."""
    global _LENT
    _LENT = _Lent()
    _LENT.room = LENT_TERMS


def lent_terms() -> dict[str, list[str]]:
    """What ``terms`` worked out since ``lend_terms`` (text -> its terms), remembered no longer."""
    global _LENT
    lent, _LENT = _LENT, None
    return {} if lent is None else lent


def composed(text: str) -> str:
    """``text`` with each letter written as a base and combining marks (``e`` and U+0301: macOS file names, text
    copied from them, some tools' output) composed into one (NFC): a mark is no letter, so ``défilement`` spelt so
    was the tokens ``de`` and ``filement``, which no query typed on a keyboard finds (trial10 F9)."""
    if text.isascii():  # (nearly every text: it needs no ``unicodedata``)
        return text
    import unicodedata

    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def forget_cached_terms() -> None:
    """Empty the caches: a segment's final merge tokenises nothing, and would hold them beside its own memory."""
    _CACHE.clear()
    _PIECES.clear()


def term_positions(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each raw token's start in ``text`` with its terms (what snippets look for), the tokens those of the text
    without its marks (``unmarked``), as the index cut it (a snippet of a Hindi or pointed Hebrew word fell back to
    the message's start: review15 F2).

    Each token is looked for from where the one before it ended: what lies between holds no letter or digit, so
    the first place it is found is where it starts."""
    bare = unmarked(text)
    # (where each character of ``bare`` is in ``text``, when marks were taken out)
    origin = range(len(text)) if bare is text else [i for i, c in enumerate(text) if _MARKS[ord(c)] is not None]
    at = 0
    for raw in _finder()(bare):
        at = bare.find(raw, at)
        yield origin[at], _CACHE[raw]
        at += len(raw)


def spellings(text: str) -> dict[str, str]:
    """Each stemmed term of a plain lowercase word of ``text`` that stemming changed, with the word as written
    (``{"oomkil": "oomkilled"}``): the index holds a mixed-case word whole and unstemmed (``OOMKilled`` is
    ``oomkilled``, ``oom`` and ``kill``), so the word typed in lowercase is looked for as written too (``deja search
    oomkilled`` found nothing where ``OOMKilled`` found the chat: trial20)."""
    found: dict[str, str] = {}
    for term, word in _stemmed_words(text):
        found.setdefault(term, word)
    return found


def written_forms(text: str, term: str) -> list[str]:
    """Each plain lowercase word of ``text`` that stems to ``term``, once, in order (``cached`` and ``cache`` for
    ``cach``): ``spellings`` keeps the first alone."""
    return list(dict.fromkeys(word for stemmed, word in _stemmed_words(text) if stemmed == term))


def _stemmed_words(text: str) -> Iterator[tuple[str, str]]:
    """The term and the word as written (folded, lowercase) of each plain word of ``text`` that stemming changed."""
    for raw in _finder()(text):
        word = fold(raw).lower()
        if word.isalpha() and (stemmed := _CACHE[raw]) and stemmed[0] != word and len(stemmed) == 1:  # (``terms``')
            yield stemmed[0], word


def sharp_s_spellings(text: str) -> dict[str, str]:
    """The term of each plain word of ``text`` written with ``ß`` or ``ss``, with the term of its other spelling
    (``{"gross": "große"}`` for ``grosse``): the index keeps ``ß`` as written, and folding it would change every
    index's terms, so ``grosse`` missed ``Größe`` and ``größe`` missed ``Grösse`` (trial48 F10). An English word's
    ``ß`` spelling (``paßword``) is a term no index of English holds: it finds nothing more.

    A text whose lowercase holds neither ``ß`` nor ``ss`` has no such word (``str.lower`` lowers each character on
    its own, and only ``s``, ``S``, ``ß`` and ``ẞ`` lower to either): most prompts, read without a second pass over
    their words."""
    lowered = text.lower()
    if "ß" not in lowered and "ss" not in lowered:
        return {}
    found: dict[str, str] = {}
    for raw in _finder()(text):
        lowered = raw.lower()
        other = lowered.replace("ß", "ss") if "ß" in lowered else lowered.replace("ss", "ß")
        if other == lowered:
            continue
        own, theirs = _CACHE[raw], token_terms(other)
        if len(own) == len(theirs) == 1 and own != theirs:
            found.setdefault(own[0], theirs[0])
    return found


def identifier_parts(text: str) -> dict[str, str]:
    """Terms ``text`` holds only as parts of identifiers, each with the whole identifier's term.

    ``per_customer_limit`` gives ``{"per": "per_customer_limit", "custom…": …}``; a part that is also a word
    of its own in ``text`` is left out.
    """
    parts: dict[str, str] = {}
    own: set[str] = set()
    for raw in _finder()(text):
        found = _CACHE[raw]  # (the terms ``terms`` gave the token: a search asks for both)
        if len(found) > 1:
            for part in found[1:]:
                parts.setdefault(part, found[0])
        else:
            own.update(found)
    return {part: whole for part, whole in parts.items() if part not in own}


def random_pairs(text: str) -> set[str]:
    """The two-letter terms split off a random-looking token of ``text``: mixed case with digits in two places or
    more, as a generated password or key is (``Zq8vN3pLw2Rt``'s ``zq``, ``lw``, ``rt``), which alone match sessions
    holding other tokens with those letters (trial10 F7). ``AmazonEC2FullAccess``, ``UI2Toolkit`` and ``ec2`` keep
    theirs: a session may spell them otherwise, and only the piece finds it."""
    found: set[str] = set()
    for raw in _finder()(text):
        runs = sum(1 for at, c in enumerate(raw) if c.isdigit() and (at == 0 or not raw[at - 1].isdigit()))
        if runs >= 2 and not raw.islower() and not raw.isupper():
            found.update(term for term in token_terms(raw)[1:] if len(term) == 2)
    return found


#: The shortest run of hex digits read as a hash or an id (``a3f9c21e``; git's short hashes have 7).
HEX_RUN = 7


def hex_letters(text: str) -> set[str]:
    """The terms of the letters split off a hex run of ``text`` (a hash or an id: ``a3f9c21e``'s ``a``, ``f``,
    ``c``, ``e``), which alone would match every session saying "a" or "#f0e0c0" (``query_terms`` drops them).

    A hex run is a run of at least ``HEX_RUN`` hex digits whose digits come in two places or more: ``deadbeef1`` and
    ``cafe2bad`` are words with a number, and keep their words.
    """
    found: set[str] = set()
    for raw in _finder()(text):
        for chunk in letter_runs(fold(raw)):
            if _hex_run(chunk.lower()):
                found.update(stem(piece.lower()) for piece in _camel(chunk) if piece.isalpha())
    return found


def _hex_run(chunk: str) -> bool:
    if len(chunk) < HEX_RUN or chunk.strip("0123456789abcdef"):
        return False
    digit_runs = sum(1 for i, c in enumerate(chunk) if c.isdigit() and (i == 0 or not chunk[i - 1].isdigit()))
    return digit_runs >= 2


def phrases(query: str) -> tuple[list[str], str]:
    """Split a query into its quoted phrases and the rest (a query without a quote, as most prompts are, compiles
    no pattern for it).

    A quote left open (``"deploy ssh``) starts no phrase: the words after it are searched as words, rather than
    the query losing them all. A query of several lines is a paste (a log, a traceback), whose quotes are its text,
    not phrases typed to narrow a search: a traceback's ``File "/Users/me/app.py"`` is the path on the machine it
    was pasted from, which held only the sessions that named that path, not the one where CI met the same error.
    """
    if '"' not in query or "\n" in query.strip():
        return [], query
    import re  # (here: a query without a quote never loads it)

    if query.count('"') % 2:
        head, _, tail = query.rpartition('"')
        query = f"{head} {tail}"
    found = re.findall(r'"([^"]+)"', query)
    rest = re.sub(r'"[^"]*"?', " ", query)
    return [p.strip() for p in found if p.strip()], rest


def normalise(text: str) -> str:
    """Lowercase with runs of whitespace folded, accents composed (``composed``) and the marks left taken out
    (``unmarked``): the form phrases are matched in (a phrase typed with an accent was no exact match in text spelt
    decomposed, trial11 F5; one typed unpointed none in pointed Hebrew, review15 F3)."""
    return " ".join(unmarked(composed(text)).lower().split())


#: What a terminal would act on rather than print: a C0 control but newline and tab, DEL, a C1 control, and the
#: bidirectional overrides and isolates, which make a line read otherwise than it is (a title that shows ``exe.txt``
#: for ``txt.exe``, "Trojan Source"). An escape sequence that starts with one (ESC, ``\x1b``) goes with it. With them
#: the invisible format characters that carry no letter of ordinary text, which a person cannot see and a model
#: reads (review45b M5): the directional marks (ALM, LRM, RLM), the word joiner and invisible operators, the
#: deprecated format controls, a byte order mark inside a text and the interlinear annotation marks. The joiners
#: that shape a script or an emoji (ZWJ, ZWNJ) and the variation selectors stay; so does the zero-width space.
_CONTROL_CHARS = "".join(
    map(
        chr,
        [
            *range(0x09),
            *range(0x0B, 0x20),
            *range(0x7F, 0xA0),
            0x061C,
            0x200E,
            0x200F,
            *range(0x202A, 0x202F),
            *range(0x2060, 0x2065),
            *range(0x2066, 0x2070),
            0xFEFF,
            *range(0xFFF9, 0xFFFC),
        ],
    )
)
#: The tag characters (U+E0000 to U+E007F): invisible copies of ASCII that spell a hidden instruction to a model
#: ("ASCII smuggling", review45b M5). Taken out as the controls are, but looked for only in a text holding a
#: character of their plane (``_TAGS_FROM``): a search for each in every text would cost 128 passes.
_TAGS = "".join(map(chr, range(0xE0000, 0xE0080)))
_TAGS_FROM = "\U000e0000"
#: The controls ``for_terminal`` takes out with nothing in their place: a carriage return becomes a newline.
_TAKEN_OUT = _CONTROL_CHARS.replace("\r", "")
#: The controls a terminal moves its cursor for, and what ``for_terminal`` and ``as_seen`` read each as: a vertical tab,
#: a form feed and NEL go down a line, a backspace back over a character; read as nothing, they joined what a person
#: sees apart, and ``DB_PASSWORD=…\\x0bPATH=/usr/bin`` lost its ``PATH`` to the secret before it (review47i L3).
_MOVES_THE_CURSOR = {"\x0b": "\n", "\x0c": "\n", "\x85": "\n", "\x08": " "}
#: The bytes of a CSI sequence (``ESC [``) before its final one, which is one of ``_CSI_FINAL``.
_CSI_PARAMETERS = "0123456789:;<=>?"
_CSI_INTERMEDIATES = " !\"#$%&'()*+,-./"
_CSI_FINAL = frozenset(map(chr, range(0x40, 0x7F)))
#: The letters after ESC that open a string command (OSC, which sets a window title; DCS, SOS, PM, APC).
_STRING_COMMANDS = frozenset("]PX^_")


def for_terminal(text: str) -> str:
    """``text`` with every control character but newline and tab taken out, with the escape sequences they start,
    and the invisible format characters a model would read (``_CONTROL_CHARS``, ``_TAGS``); a carriage return, alone or before a newline, is a newline (``10%\\r20%`` is not ``10%20%``).

    Stored chats hold what tools printed and what users pasted: a colour code, a title-setting OSC, a NUL, a
    right-to-left override. Every output deja gives passes through here: the CLI's (``fastpath.echo``), the hooks'
    context and the MCP tools' text, so none of it reaches a terminal, a pipe or the model. Text holding none of
    ``_CONTROL_CHARS`` is returned as it is, found with ``str``'s own search; from the rest the sequences are cut at
    each ESC and each control held is replaced with nothing, with no ``re``: a hook loads none
    (``tests/test_hook_imports.py``). (``str.translate`` with a table took 0.26 s for 2 MB of text past ASCII
    holding one override; a ``replace`` for each control the text holds, 0.03 s.)
    """
    if text.isprintable():
        return text
    if max(text) >= _TAGS_FROM:
        text = _tags_out(text)
    if not any(map(text.__contains__, _CONTROL_CHARS)):
        return text
    if "\x1b" in text:
        text = _sequences_out(text)
    for control in filter(text.__contains__, _MOVES_THE_CURSOR):
        text = text.replace(control, _MOVES_THE_CURSOR[control])
    for control in filter(text.__contains__, _TAKEN_OUT):
        text = text.replace(control, "")
    if "\r" in text:  # a lone CR (an old Mac's line end, a progress bar's redraw) keeps its lines apart: review44d L5
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _tags_out(text: str) -> str:
    """``text`` without the tag characters it holds (``_TAGS``)."""
    for tag in filter(text.__contains__, _TAGS):
        text = text.replace(tag, "")
    return text


def _sequences_out(text: str) -> str:
    """``text`` without its escape sequences: a CSI (``ESC [ … m``), a string command up to its BEL or ``ESC \\``
    (or the line's end, so a command missing its terminator cannot swallow the rest of the output), or ESC and the
    one printable ASCII character after it. Each piece between two ESCs is read once, by ``str``'s methods."""
    first, *pieces = text.split("\x1b")
    kept = [first]
    string_open = False  # the last piece was a string command that ran up to this ESC: ``ESC \\`` may end it
    for piece in pieces:
        if not piece:  # ESC ESC: this one alone, taken out (and any string command before it ended)
            string_open = False
            continue
        if string_open and piece[:1] == "\\":
            kept.append(piece[1:])
            string_open = False
            continue
        rest, string_open = _after_escape(piece)
        kept.append(rest)
    return "".join(kept)


def _after_escape(piece: str) -> tuple[str, bool]:
    """What of ``piece`` (the text after an ESC, up to the next) is not the escape sequence it starts, and whether
    that sequence is a string command left open at ``piece``'s end."""
    kind = piece[:1]
    if kind == "[":
        tail = piece[1:].lstrip(_CSI_PARAMETERS).lstrip(_CSI_INTERMEDIATES)
        return (tail[1:], False) if tail[:1] in _CSI_FINAL else (piece[1:], False)
    if kind in _STRING_COMMANDS:
        body = piece[1:]
        bell, newline = body.find("\x07"), body.find("\n")
        if bell >= 0 and (newline < 0 or bell < newline):
            return body[bell + 1 :], False
        return (body[newline:], False) if newline >= 0 else ("", True)
    return (piece[1:], False) if " " <= kind <= "~" else (piece, False)


#: What a terminal draws as nothing inside a word, though ``for_terminal`` keeps it for the text it shapes (an emoji's
#: or a script's joiners, a soft hyphen): the soft hyphen, the Mongolian vowel separator, the zero-width space and
#: joiners. Each is a format character, as every character ``for_terminal`` takes out is a control or one: none is
#: printable (``str.isprintable``), which ``holds_unseen`` asks first.
_DRAWN_AS_NOTHING = "\u00ad\u180e\u200b\u200c\u200d"
#: Each character a person reading a terminal does not see: those ``for_terminal`` takes out and those drawn as
#: nothing; looked for by ``holds_unseen`` (the ASCII ones alone in an ASCII text).
_UNSEEN = _TAKEN_OUT + _DRAWN_AS_NOTHING
_UNSEEN_ASCII = "".join(c for c in _UNSEEN if c.isascii())
#: What ``as_seen`` takes out: a run of those characters and tag characters (an ESC read with the sequence it opens,
#: as ``_sequences_out`` reads it: a colour code's CSI, ``ESC [ … m``; a string command such as an OSC hyperlink up to
#: its BEL or ``ESC \\``, or the line's end; ``ESC 7``, ``ESC ( B``: review47i M1) with a printable ASCII character
#: or a blank on either side of it, asked of each run found (asked in the pattern, a long run with none after it was
#: read again from each of its characters). It starts with a class of characters, which ``re`` looks for in one pass
#: in C: a run in a group was tried at each character, and read a Persian chat's text, full of joiners, at half the
#: speed of its redaction.
_UNSEEN_CLASS = f"[{_UNSEEN}{_TAGS_FROM}-{_TAGS[-1]}]"
_ESCAPE_SEQUENCE = "(?<=\x1b)(?:\\[[0-?]*[ -/]*[@-~]|[]PX^_][^\x07\x1b\n]*+(?:\x07|\x1b\\\\)?|[ -/]*[0-~])"
#: The run's repeat is an atomic group, not the possessive ``*+`` it is the same as: CPython before 3.11.5 (Debian 12's
#: 3.11.2) loops forever on a lookbehind that fails inside a possessive repeat, and ``deja index`` hung at the first
#: chat with a zero-width space beside a quote (a browser console's pasted HTML), its memory growing by gigabytes.
_UNSEEN_RUN = f"{_UNSEEN_CLASS}(?>(?:{_ESCAPE_SEQUENCE}|{_UNSEEN_CLASS})*)"


def as_seen(text: str) -> tuple[str, list[int]]:
    """``text`` as a person reads it on a terminal where what is not seen there (``_UNSEEN``, tag characters, an
    escape sequence) has a printable ASCII character or a blank on either side, and where each of its characters (and
    its end) was in ``text``; ``("", [])`` for a text that holds none.

    What the redaction rules read too: ``AKIA\\u200bIOSF…``, a ``ghp_`` token with a word joiner inside or a password
    after ``mysql -p`` with an RLM in it were no secret to them, and ``deja show`` printed them whole (review47a M2);
    nor was ``password\\u2060 is …`` or ``KEY=\\u200b …``, the character beside a blank (review47i H1). Only next
    to ASCII, as every secret the rules find is written: the joiners of an emoji or a Persian word, a flag's tags
    join no such word, and such a text is not read twice. A text without such a character pays a ``str`` test or two
    (``holds_unseen``); one with them, a pass of ``re``."""
    if not holds_unseen(text):
        return "", []
    import re

    parts: list[str] = []
    where: list[int] = []
    done = 0
    for found in re.finditer(_UNSEEN_RUN, text):
        start, end = found.span()
        if " " <= text[start - 1 : start] <= "~" or " " <= text[end : end + 1] <= "~":
            drawn = _drawn_for(found.group())
            parts.append(text[done:start] + drawn)
            where += range(done, start + len(drawn))
            done = found.end()
    if not parts:
        return "", []
    parts.append(text[done:])
    return "".join(parts), [*where, *range(done, len(text) + 1)]


def _drawn_for(run: str) -> str:
    """What a terminal draws for a run ``as_seen`` takes out: a line break where a control in it moves the cursor down,
    a blank where one moves it back (``_MOVES_THE_CURSOR``), else nothing."""
    moves = [_MOVES_THE_CURSOR[control] for control in filter(run.__contains__, _MOVES_THE_CURSOR)]
    return max(moves, default="")


def holds_unseen(text: str) -> bool:
    """Whether ``text`` may hold a character of ``_UNSEEN`` (or a tag character), asked with ``str``'s own tests: an
    ASCII text is looked through for the ASCII ones (a ``memchr`` each); past ASCII, none is printable, and a text
    whose only characters that are not are its line ends, tabs and no-break spaces (most texts) is answered by a pass
    or two (a test for each of ``_UNSEEN`` took 24 ms a megabyte of code holding an ellipsis, 50 ms one of Persian).
    """
    if text.isprintable():
        return False
    if text.isascii():
        return any(map(text.__contains__, _UNSEEN_ASCII))
    for blank in _NOT_PRINTABLE_BLANKS:
        text = text.replace(blank, "")
    return not text.isprintable()


#: The blanks ``str.isprintable`` is false for that a text past ASCII often holds: a line's end, a tab, the no-break
#: spaces (French puts one before a colon) and the ideographic space.
_NOT_PRINTABLE_BLANKS = "\n\t\r\u00a0\u202f\u3000"


#: ``escaped``'s table: each character ``for_terminal`` takes out, and newline and tab, as a backslash escape (past
#: ASCII as ``\\u``: bash's ``$'\\x85'`` is a byte, not the character). Made at its first use (``_escapes``): no
#: hook escapes a name, and making it cost each 0.26 M instructions.
_ESCAPES: dict[int, str] = {}


def _escapes() -> dict[int, str]:
    if not _ESCAPES:
        _ESCAPES.update(
            (
                code,
                "\\n" if code == 10 else "\\t" if code == 9 else f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}",
            )
            for code in map(ord, _CONTROL_CHARS + "\n\t")
        )
    return _ESCAPES


def escaped(name: str) -> str:
    """``name`` (a folder's) with each character a terminal would act on, and each that ends or splits a row
    (newline, tab), written as its escape (``\\n``, ``\\x1b``, ``\\u202e``): a listing keeps one row per record, and
    names the folder there is, where ``for_terminal`` would take an escape sequence out of it (trial17)."""
    if name.isprintable():
        return name
    return name.translate(_escapes())


def user_query(text: str) -> tuple[str, str, str] | None:
    """A user record's text cut around the ``<user_query>`` block cursor-agent wraps the prompt in: what comes before
    it, its body (from the first ``<user_query>`` to the last ``</user_query>``) and what comes after; None when it
    holds no such block. (The transcript and store readers and the tool hooks' ``transcript_prompt`` all cut here.)"""
    start, end = text.find("<user_query>"), text.rfind("</user_query>")
    if not 0 <= start < end:
        return None
    return text[:start], text[start + len("<user_query>") : end], text[end + len("</user_query>") :]


def shell_word(text: str) -> str:
    """``text`` as one word a POSIX shell reads back as it is (``shlex.quote``). One holding a character that
    ``for_terminal`` takes out (an escape sequence's ESC and BEL), or a newline, is written as what ``printf`` makes
    of those characters' bytes as octal escapes (``"$(printf '…\\033]0;…\\007name')"``), on one line: quoted whole,
    the line named another folder once the output lost the sequence (trial17). (Newlines it ends with stay as they
    are, quoted after it: ``$(…)`` drops them, and named another folder, review39b L2.)"""
    import shlex

    if not any(map(text.__contains__, _CONTROL_CHARS)) and ("\n" not in text or text.endswith("\n")):
        return shlex.quote(text)
    body = text.rstrip("\n")
    literal = {"%": "%%", "\\": "\\\\"}
    escaping = _CONTROL_CHARS + "\n"
    form = "".join(
        "".join(f"\\{byte:03o}" for byte in char.encode()) if char in escaping else literal.get(char, char)
        for char in body
    )
    ends = text[len(body) :]
    return f'"$(printf {shlex.quote(form)})"' + (shlex.quote(ends) if ends else "")


#: What ``json_escaped_controls`` escapes: each character ``for_terminal`` takes out (a JSON encoder has written the C0
#: controls among them as escapes already) and the tag characters.
_RAW_IN_JSON = f"[{_CONTROL_CHARS}{_TAGS_FROM}-{_TAGS[-1]}]"


def json_escaped_controls(json_text: str) -> str:
    """JSON text with each character ``for_terminal`` takes out of text written as its ``\\u`` escape (a tag character
    as its surrogate pair, as JSON spells a character past U+FFFF): DEL, the C1 controls, the bidirectional ones and
    the invisible format characters, which JSON encoders leave raw.

    Every ``--json`` output (``deja show``, ``search``, ``sessions``, ``export``'s stdout and file alike) so keeps a
    message's text as stored, for a program to read back, and holds nothing a terminal would act on or a person could
    not see: ``for_terminal``, which the output then passes through, finds nothing left to take out. Escaped only
    in part, an RLM or a BOM went raw to the terminal from ``show --json`` and was taken out of ``export --json``'s
    text by that cleaning (review46f M1).
    """
    import re

    return re.sub(_RAW_IN_JSON, _json_escape, json_text)


def _json_escape(found: re.Match[str]) -> str:
    """The one character ``found`` as JSON's ``\\u`` escape, or the two of its surrogate pair past U+FFFF."""
    code = ord(found.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
