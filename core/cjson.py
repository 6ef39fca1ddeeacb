"""JSON read and written by the stdlib's C half (``_json``), without importing ``json`` itself.

``json`` compiles six regular expressions as it loads (about 1 ms, a third of a ``deja search``'s freshness
check at 1k sessions), and orjson's import (``dataclasses``, ``inspect``, ``uuid``) costs more still; a hook
(the payload on stdin, its answer on stdout) and the freshness check (``indexer.glance``'s record) each read
JSON on every call, so both read it here: the same values ``json.loads`` makes, the same bytes ``json.dumps``
writes. Two readings:

- strict (the hooks'): as a host writes JSON, so UTF-8 with no NaN or Infinity and no lone surrogate; any
  other text raises ValueError, saying why as ``json.loads`` would;
- lenient (``strict=False``, deja's own files): exactly ``json.loads``'s reading (NaN, lone surrogates), and
  text the scanner does not read whole goes to ``json.loads`` itself, which says why it is not JSON.
"""

from __future__ import annotations

from _json import encode_basestring, make_encoder, make_scanner

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

#: The whitespace JSON allows between tokens.
SPACE = " \t\n\r"


def load_json(data: bytes | str, strict: bool = True) -> Any:
    """``data`` parsed as JSON (see the module's docstring for the two readings); raises ValueError."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    if not strict:
        return _lenient(text)
    try:
        value, end = _scanned(_strict_scan, text, _start(text))
    except StopIteration as missing:  # (as json.loads says it)
        raise ValueError(f"Expecting value: char {missing.value}") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if text[end:].strip(SPACE):
        raise ValueError(f"more than one JSON value: extra data at character {end}")
    if _escapes_a_surrogate(text):
        dump_json(value)  # a lone surrogate raises UnicodeEncodeError (a ValueError) here
    return value


def load_host_json(text: str) -> Any:
    """``load_json(text)``, each lone UTF-16 half escaped in it read as U+FFFD: a JavaScript host cuts strings by
    UTF-16 unit (half an emoji at a prompt's or a command output's cut) and ``JSON.stringify`` writes the half left
    as ``"\\ud83d"``. Refused, it made a hook's whole event "not a JSON object" and the hook silent (review49e L2);
    replaced in the text, no string read holds a surrogate any writer after (the log, the index) would refuse."""
    try:
        return load_json(text)
    except ValueError:
        mended = lone_surrogates_replaced(text)
        if mended is text:
            raise
        return load_json(mended)


def _lenient(text: str) -> Any:
    """``json.loads(text)``; ``json`` itself is imported only for text the scanner does not read whole."""
    try:
        value, end = _lenient_scan(text, _start(text))
    except (StopIteration, ValueError, RecursionError, SystemError):  # (see ``_scanned`` for SystemError)
        pass
    else:
        if not text[end:].strip(SPACE):
            return value
    import json

    return json.loads(text)


def load_json_head(data: bytes | str, last: str, items: int) -> dict[str, Any] | None:
    """The JSON object in ``data`` with its member ``last`` (an object too) read only as far as its first ``items``
    members, the rest of the text not read at all; None where the text is not laid out as that expects (an object,
    ``last`` an object too), for ``load_json(strict=False)`` to read whole. The members before ``last`` are read as
    ``json.loads`` reads them; a member after it is never seen, so it must be the object's last.

    The freshness record's hot chats (256, the newest first) are most of its bytes, and most checks look at the
    first 16 only (``glance.load_raw``): read whole, the record cost a search at 1k sessions about as much as
    the rest of the check."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    found: dict[str, Any] = {}
    try:
        at = _past(text, _start(text), "{")
        while True:
            key, at = _member_key(text, at)
            if key == last:
                found[key] = _head(text, at, items)
                return found
            found[key], at = _lenient_scan(text, at)
            at = _past(text, at, ",")
    except (StopIteration, ValueError, IndexError, RecursionError, SystemError):  # (SystemError: see ``_scanned``)
        return None


def _member_key(text: str, at: int) -> tuple[str, int]:
    """A member's key at ``at``, and where its value starts (past the colon)."""
    key, at = _lenient_scan(text, at) if text[at] == '"' else (None, at)
    if not isinstance(key, str):
        raise ValueError("not a member's key")
    return key, _past(text, at, ":")


def _head(text: str, at: int, items: int) -> dict[str, Any]:
    """The first ``items`` members of the object at ``at``."""
    at = _past(text, at, "{")
    head: dict[str, Any] = {}
    if text[at] == "}":
        return head
    while len(head) < items:
        key, at = _member_key(text, at)
        head[key], at = _lenient_scan(text, at)
        at = _blanks_end(text, at)
        if text[at] == "}":
            break
        at = _past(text, at, ",")
    return head


def _past(text: str, at: int, char: str) -> int:
    """Where the next token starts after ``char``, which must come next (blanks around it are skipped)."""
    at = _blanks_end(text, at)
    if text[at] != char:
        raise ValueError(f"not {char!r} at character {at}")
    return _blanks_end(text, at + 1)


def _start(text: str) -> int:
    """Where the value starts, past any leading whitespace (without copying the rest, as ``lstrip`` would)."""
    return _blanks_end(text, 0)


def _blanks_end(text: str, at: int) -> int:
    """Where the whitespace at ``at`` ends (``at`` itself when there is none)."""
    while at < len(text) and text[at] in _SPACE_CHARS:
        at += 1
    return at


_SPACE_CHARS = frozenset(SPACE)


def _escapes_a_surrogate(text: str) -> bool:
    """Whether ``text`` holds ``\\uD800``…``\\uDFFF``, an escape that may decode to a lone surrogate (a pair is
    fine: ``load_json`` then encodes the value to see). A scan, not a pattern: no hook need load ``re``."""
    at = text.find("\\u")
    while at >= 0:
        if text[at + 2 : at + 3] in _D and text[at + 3 : at + 4] in _SURROGATE_SECOND:
            return True
        at = text.find("\\u", at + 2)
    return False


_D = frozenset("dD")
_SURROGATE_SECOND = frozenset("89abcdefABCDEF")


def _scanned(scan: Any, text: str, start: int) -> tuple[Any, int]:
    """The value at ``start`` and where it ends; JSONDecodeError (a ValueError) where the JSON is malformed."""
    try:
        return scan(text, start)
    except SystemError:  # Python 3.11's scanner reports an error through json.decoder, but only finds it if loaded
        import json.decoder  # noqa: F401

        return scan(text, start)


def reader(parse_int: Callable[[str], Any], parse_float: Callable[[str], Any]) -> Callable[[str], Any]:
    """A strict reading of one JSON value (no NaN or Infinity, no raw control character in a string) whose numbers
    ``parse_int`` and ``parse_float`` make of their digits. The reading raises ValueError where the text is not one
    JSON value, or what the scanner raises (StopIteration, RecursionError; SystemError where ``json.decoder`` is not
    loaded: ``_scanned``), for the caller to read such text some other way. An escaped UTF-16 half is read as it is.
    """
    settings = _Strict()
    settings.parse_int, settings.parse_float = parse_int, parse_float
    scan = make_scanner(settings)  # type: ignore[arg-type]  # (as below)

    def read(text: str) -> Any:
        value, end = scan(text, _start(text))
        if text[end:].strip(SPACE):
            raise ValueError(f"more than one JSON value: extra data at character {end}")
        return value

    return read


def dump_json(value: Any, sort_keys: bool = False) -> bytes:
    """``value`` as compact UTF-8 JSON: ``json.dumps(value, ensure_ascii=False, separators=(",", ":"),
    sort_keys=sort_keys)``, by the C encoder ``json`` uses."""
    encode = make_encoder({}, _not_json, encode_basestring, None, ":", ",", sort_keys, False, True)  # (one a call, as
    # json.dumps makes: the {} is where it marks the lists and objects it is inside, to refuse a cycle)
    return "".join(encode(value, 0)).encode("utf-8")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _Lenient:
    """The decoder settings ``_json``'s scanner reads: ``json.loads``'s own."""

    strict = True  # (control characters in strings: refused, as json.loads refuses them)
    object_hook = None
    object_pairs_hook = None
    parse_float: Any = float
    parse_int: Any = int
    parse_constant: Any = float  # NaN, Infinity and -Infinity, as ``json`` reads them


class _Strict(_Lenient):
    """``json.loads``'s settings, and no NaN or Infinity."""

    parse_constant = staticmethod(_no_constant)


_lenient_scan = make_scanner(_Lenient())  # type: ignore[arg-type]  # (typeshed: a scanner; C reads these of any)
_strict_scan = make_scanner(_Strict())  # type: ignore[arg-type]


#: What a lone UTF-16 half becomes: the escape of U+FFFD, the same length as the escape it replaces.
REPLACEMENT = "\\ufffd"


def lone_surrogates_replaced(text: str) -> str:
    """``text`` (JSON) with every ``\\uXXXX`` escape of a UTF-16 half that is not part of a pair (``lone_surrogates``)
    replaced by ``REPLACEMENT``."""
    parts: list[str] = []
    done = 0
    for at in lone_surrogates(text):
        parts += [text[done:at], REPLACEMENT]
        done = at + 6
    return "".join([*parts, text[done:]]) if parts else text


def lone_surrogates(text: str) -> Iterator[int]:
    """Where each ``\\uXXXX`` escape of a UTF-16 half that is not part of a pair starts in ``text`` (JSON), left to
    right: ``json`` reads one as a character UTF-8 cannot encode. A pair (``\\ud83d\\ude80``, an emoji) and an escaped
    backslash (``\\\\ud83d``) are none. The hooks replace them (``load_host_json``), the installers refuse a file
    holding one, which they could not write back.

    Backslashes occur in valid JSON only inside strings, each opening one escape, so walking them left to right
    reads every escape once.
    """
    at = text.find("\\")
    while at != -1:
        if text[at + 1 : at + 2] != "u":
            at = text.find("\\", at + 2)
            continue
        unit = _unit(text, at)
        if unit is None or not 0xD800 <= unit <= 0xDFFF:
            at = text.find("\\", at + 6)
            continue
        if unit <= 0xDBFF and 0xDC00 <= (_unit(text, at + 6) or 0) <= 0xDFFF:
            at = text.find("\\", at + 12)  # a high half and its low half: one character
            continue
        yield at
        at = text.find("\\", at + 6)


def _unit(text: str, at: int) -> int | None:
    """The UTF-16 unit of the ``\\uXXXX`` escape at ``at``, or None when there is none there."""
    if text[at : at + 2] != "\\u":
        return None
    try:
        return int(text[at + 2 : at + 6], 16)
    except ValueError:
        return None
