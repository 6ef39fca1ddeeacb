"""The JSON value of a stored record, kept when a byte of it is not UTF-8 or a string holds half an emoji.

Cursor stores what the user typed; a Latin-1 byte pasted from an old file (``caf\\xe9``) makes the whole
value invalid UTF-8, which ``orjson`` refuses. JavaScript cuts strings by UTF-16 unit (``text.slice(0, n)`` through
an emoji, as a truncated Shell output or a streamed answer is), and ``JSON.stringify`` writes the half left as a
lone escape (``"\\ud83d"``): valid JSON, which ``orjson`` refuses too. Dropping the value would drop the user's
message (or a failed command's output and exit code) with it, so such bytes and halves are replaced (U+FFFD) and
the rest is read as usual. The half is replaced in the JSON text, before it is parsed, so no string read here ever
holds a surrogate, which every writer after (the index's msgpack, UTF-8 output) would refuse.

A string holding a raw control character (a NUL, an ESC: a writer that did not escape it) is not strict JSON either;
it is read as Python's ``json`` reads it with ``strict=False``, the character kept as text (trial19 F6: the line was
dropped without a word). The output escapes or takes out such characters as it does escaped ones.

The first values a process reads (``SCANNER_READS``) are read by the standard library's C scanner (``cjson.reader``), set to
read numbers as orjson reads them, and by orjson only where that reading may differ from orjson's (a byte that is not
UTF-8, an escaped UTF-16 half, text the scanner refuses): a refresh of one turn reads a few lines, and importing
orjson (which brings ``json`` and ``dataclasses``) cost it more than reading them.
"""

from __future__ import annotations

from typing import Any

from ..cjson import lone_surrogates_replaced, reader

#: How many values a process reads with the scanner before it reads with orjson, three times as fast (2 against 7 us
#: a transcript line of 400 bytes): importing orjson (about 3 ms) costs what the scanner's slower reading of some 600
#: such lines costs, so a refresh of a few turns never imports it, and a build, which reads millions, soon does.
SCANNER_READS = 1000
_scanner_reads = 0
#: How deep orjson reads arrays and objects nested: it refuses a value nested deeper.
ORJSON_DEPTH = 1024


class NotJson(ValueError):
    """The text is not JSON, even read loosely (orjson's reason)."""


def loads(raw: bytes | str) -> Any:
    """``raw``'s JSON value, bytes that are not UTF-8 and lone surrogate escapes replaced; raises ``NotJson`` when
    it is not JSON.

    The fast path is ``strict_loads`` (the scanner, or orjson); the text is decoded and scanned only when orjson
    refuses it.
    """
    try:
        return strict_loads(raw)
    except NotJson:
        import orjson

        text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")
        text = lone_surrogates_replaced(text)
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as refused:
            if min(text, default=" ") >= " ":  # no raw control character: nothing a loose read would take
                raise NotJson(str(refused)) from None
            return _with_raw_controls(text, refused)


def strict_loads(raw: bytes | str) -> Any:
    """``orjson.loads(raw)``, by the scanner where its reading is orjson's (bytes, among a process's first
    ``SCANNER_READS``); raises ``NotJson`` (orjson's reason) where orjson refuses it."""
    global _scanner_reads
    if isinstance(raw, bytes) and _scanner_reads < SCANNER_READS:
        _scanner_reads += 1
        try:
            return _scanned(raw)
        except (ValueError, RecursionError, StopIteration, SystemError):  # (orjson says what it makes of it)
            pass
    import orjson

    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as refused:
        raise NotJson(str(refused)) from None


def _scanned(raw: bytes) -> Any:
    """``raw``'s value as orjson reads it, by the C scanner; ValueError where orjson might read it otherwise or
    refuse it: bytes that are not UTF-8 (``UnicodeDecodeError``), an escaped UTF-16 half (orjson refuses a lone one),
    text that is not one JSON value with numbers orjson reads (``_as_orjson_int``, ``_finite``), text that may be
    nested deeper than ``ORJSON_DEPTH`` (the scanner of Python 3.12 and later reads thousands deep, past orjson's
    limit, where 3.11's stopped short of it: a line a hook read, the build refused: pyver53)."""
    text = raw.decode("utf-8")
    if "\\ud" in text or "\\uD" in text:
        raise ValueError("an escaped UTF-16 half")
    value = _read(text)
    if len(text) > 2 * ORJSON_DEPTH and _deeper_than_orjson_reads(value):  # (shorter text cannot be nested so deep)
        raise ValueError("nested deeper than orjson reads")
    return value


def _deeper_than_orjson_reads(value: Any) -> bool:
    """Whether ``value`` holds arrays or objects nested more than ``ORJSON_DEPTH`` deep: a walk over its containers
    alone, which the scanner has just made (counting the text's brackets cost most of what its reading did)."""
    containers = [(value, 1)] if isinstance(value, (dict, list)) else []
    while containers:
        container, depth = containers.pop()
        if depth > ORJSON_DEPTH:
            return True
        for item in container.values() if isinstance(container, dict) else container:
            if isinstance(item, (dict, list)):
                containers.append((item, depth + 1))
    return False


def _with_raw_controls(text: str, refused: ValueError) -> Any:
    """``text``'s value read with raw control characters allowed in its strings; ``NotJson`` (``refused``'s reason)
    when it is not JSON even so. (``json`` is imported here only: a hook's reads of well-formed lines never load it,
    nor ``re`` with it.)"""
    import json

    try:
        return json.loads(
            text, strict=False, parse_constant=_no_constant, parse_int=_as_orjson_int, parse_float=_finite
        )
    except (ValueError, RecursionError):  # (RecursionError: nested deeper than orjson's limit, which it refused)
        raise NotJson(str(refused)) from None


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity``: not JSON, and orjson refuses them."""
    raise ValueError(name)


def _as_orjson_int(digits: str) -> int | float:
    """An integer as orjson reads it: past 64 bits a float, which the index's msgpack can write (an int past 64 bits
    stopped every ``deja index`` and search at the write: review40a M2)."""
    number = int(digits)
    if -(2**63) <= number < 2**64:
        return number
    try:
        return float(number)
    except OverflowError:  # (past a double's range, 309 digits: orjson refuses it, and so does this read)
        raise ValueError(digits) from None


def _finite(digits: str) -> float:
    """A number as orjson reads it: one too large for a double (``1e400``) is refused, not infinity."""
    number = float(digits)
    if number in (float("inf"), float("-inf")):
        raise ValueError(digits)
    return number


_read = reader(_as_orjson_int, _finite)
