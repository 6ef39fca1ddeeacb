"""Escapes read as the characters they stand for: one reader, for redaction and for the hooks' frame.

A secret's name and value, or deja's frame tag, may come spelt with escapes: a URL's ``%3D``, a JSON or C string's
``\\u003d`` and ``\\x3d``, HTML's ``&#61;``, ``&#x3D;`` and ``&equals;``. Redaction reads the separators among them
(``redaction.unescaped``), the frame every character a model would read (``hooks/call.neutralise``); both read them
here, so a spelling one of them takes the other takes too (``password&#61;…`` was read by the frame and kept by
redaction: escape44). With ``str``'s methods: hooks load this module, and no ``re``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (hooks load this module); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

#: The named HTML entities read: brackets, slashes, separators, quotes and blanks (``&nbsp;`` as the blank it shows,
#: ``&shy;`` as nothing). Any other is left as written (``&copy;``, C's ``&x;``) unless a caller reads more
#: (``escapes``' ``named``).
NAMED_ENTITIES = {
    "lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'", "nbsp": " ", "shy": "", "sol": "/",
    "bsol": "\\", "hyphen": "\u2010", "dash": "\u2010", "ndash": "\u2013", "mdash": "\u2014", "minus": "\u2212",
    "lowbar": "_", "period": ".", "colon": ":", "semi": ";", "equals": "=", "excl": "!", "num": "#", "percnt": "%",
    "lpar": "(", "rpar": ")", "comma": ",", "plus": "+", "ast": "*", "verbar": "|", "Tab": "\t", "NewLine": "\n",
    "AMP": "&", "LT": "<", "GT": ">", "QUOT": '"',
}  # fmt: skip
#: Those a browser also reads without their semicolon (``&lt``, ``&AMP``).
BARE_ENTITIES = ("nbsp", "quot", "amp", "lt", "gt", "QUOT", "AMP", "LT", "GT")
_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
#: What starts an escape.
_MARKS = "%&\\"


def escapes(
    text: str, wanted: Callable[[str], bool], named: Callable[[str], str | None] = NAMED_ENTITIES.get
) -> Iterator[tuple[int, int, str]]:
    """Each escape of ``text`` whose character ``wanted`` takes, as (start, end, character), left to right.

    Each is read once, not again in what it makes (``&amp;quot;`` is ``&quot;``: a caller wanting that read reads
    the text it makes again), and an escape not wanted is stepped over whole. The walk steps from one mark (``&``,
    ``%``, ``\\``) to the next, each looked for again only once passed: one pass over the text."""
    upcoming = {mark: text.find(mark) for mark in _MARKS}
    at = 0
    while True:
        for mark, found in upcoming.items():
            if -1 < found < at:
                upcoming[mark] = text.find(mark, at)
        at = min((found for found in upcoming.values() if found != -1), default=-1)
        if at == -1:
            return
        escape = escape_at(text, at, named)
        if escape is None:
            at += 1
            continue
        character, end = escape
        if wanted(character):
            yield at, end, character
        at = end


def escape_at(text: str, at: int, named: Callable[[str], str | None] = NAMED_ENTITIES.get) -> tuple[str, int] | None:
    """The character the escape at ``at`` stands for and where it ends; None where none starts (``text[at]`` is
    ``%``, ``&`` or ``\\``): a URL's ``%XX`` (a run of them spelling one UTF-8 character), ``\\uXXXX``, ``\\xXX``,
    ``\\UXXXXXXXX``, HTML's ``&#NN;`` and ``&#xNN;`` (its semicolon optional; 128 to 159 as Windows-1252 reads
    them, as a browser shows them: ``&#139;`` is ``‹``) and a named entity ``named`` knows.

    A URL escaped twice, ``%25`` and the ``XX`` of an ASCII character (``%253D`` is ``=``: a query string put in
    another, a redirect's ``next=``), is read through both at once, and no deeper (``%25253D`` reads ``%3D``): a
    secret's name and value in one kept them as one word (trial44 F1), and reading on until no escape is left is
    what let nested ``&amp;amp;…`` reach the recursion limit (c4ce44a). ``100%25`` is ``100%``. So is HTML escaped
    twice, an ``&`` reference and the one it starts (``&amp;#61;`` and ``&amp;quot;`` are ``=`` and ``"``; ``&amp;amp;#61;``
    reads ``&#61;``), a page's source showing an escaped config."""
    char = text[at]
    if char == "%":
        code = _hex_run(text, at + 1, 2)
        if code == 0x25 and (twice := _hex_run(text, at + 3, 2)) is not None and twice < 0x80:
            return chr(twice), at + 5
        return _utf8_run(text, at) if code is not None and code >= 0x80 else _as_char(code, at + 3)
    if char == "\\":
        width = {"u": 4, "x": 2, "U": 8}.get(text[at + 1 : at + 2])
        return _as_char(_hex_run(text, at + 2, width), at + 2 + width) if width else None
    read = _reference_at(text, at, named)
    if read is not None and read[0] == "&" and (inner := _reference_at(text, read[1] - 1, named)) is not None:
        return inner
    return read


def _reference_at(text: str, at: int, named: Callable[[str], str | None]) -> tuple[str, int] | None:
    """The character HTML's reference at ``at`` stands for and where it ends (``escape_at``), ``text[at]`` read as
    its ``&`` whatever it is: the ``;`` of an ``&amp;`` that starts a second one."""
    if text[at + 1 : at + 2] == "#":
        hexadecimal = text[at + 2 : at + 3] in ("x", "X")
        first = end = at + 3 if hexadecimal else at + 2
        while end < len(text) and end - first < 64 and text[end] in (_HEX if hexadecimal else _DIGITS):
            end += 1
        if end == first:
            return None
        code = int(text[first:end], 16 if hexadecimal else 10)
        if 0x80 <= code <= 0x9F:
            code = ord(bytes([code]).decode("cp1252", "replace"))
        return _as_char(code, end + 1 if text[end : end + 1] == ";" else end)
    end = at + 1
    while end < len(text) and end - at <= 32 and text[end].isalnum():
        end += 1
    name = text[at + 1 : end]
    if text[end : end + 1] == ";" and (entity := named(name)) is not None:
        return entity, end + 1
    bare = next((b for b in BARE_ENTITIES if name.startswith(b)), None)
    return (NAMED_ENTITIES[bare], at + 1 + len(bare)) if bare else None


def surrogate_pair_at(text: str, at: int) -> tuple[str, int] | None:
    """The character a JSON string's pair of surrogate escapes from ``at`` stands for (``\\ud83d\\udd11``, how
    ``ensure_ascii`` writes a character past U+FFFF) and where the pair ends; None where no pair starts. ``escape_at``
    reads neither half alone; redaction asks what comes before a token with it (``redaction.escape_ending``)."""
    if text[at : at + 2] != "\\u" or text[at + 6 : at + 8] != "\\u":
        return None
    high, low = _hex_run(text, at + 2, 4), _hex_run(text, at + 8, 4)
    if high is None or low is None or not (0xD800 <= high <= 0xDBFF and 0xDC00 <= low <= 0xDFFF):
        return None
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)), at + 12


def _hex_run(text: str, start: int, width: int) -> int | None:
    digits = text[start : start + width]
    return int(digits, 16) if len(digits) == width and _HEX.issuperset(digits) else None


def _as_char(code: int | None, end: int) -> tuple[str, int] | None:
    """The character ``code`` names and ``end``; None when it names none (a surrogate, past U+10FFFF)."""
    if code is None or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), end


def _utf8_run(text: str, at: int) -> tuple[str, int] | None:
    """The character a run of URL escapes spells in UTF-8 (``%E2%80%90``), from ``at``, and where the run ends."""
    data = bytearray()
    end = at
    while text[end : end + 1] == "%" and (code := _hex_run(text, end + 1, 2)) is not None and len(data) < 4:
        data.append(code)
        end += 3
        try:
            return data.decode("utf-8"), end
        except UnicodeDecodeError:
            continue
    return None


def surrogates_escaped(message: str) -> str:
    """``message`` with each byte a path that is not UTF-8 held (``/home/jos\\udce9``, as Python reads it) as
    ``\\xe9``, as ``folders.not_utf8_root`` shows it, and any other lone surrogate as ``\\udXXX``: no UTF-8 file
    takes one: written to the hooks' log, one raised out of the hook, which exited 1 with a traceback (review49c H1);
    doctor printed the byte itself (names49)."""
    try:
        return message.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # (a surrogate that stands for no byte: escaped first, the bytes' ones as above)
        return surrogates_escaped(
            "".join(c if _a_byte(c) else c.encode("utf-8", "backslashreplace").decode() for c in message)
        )


def _a_byte(character: str) -> bool:
    """Whether ``character`` is no surrogate, or one standing for a byte that is not UTF-8 (``surrogateescape``)."""
    return not "\ud800" <= character <= "\udfff" or "\udc80" <= character <= "\udcff"
