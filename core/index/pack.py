"""Writing msgpack without msgspec: the bytes ``msgspec.msgpack.encode`` writes for the same plain values.

The other half of ``light`` (which reads what msgspec wrote): a small record written where a process has no other
use for msgspec need not pay for its import (about 15 ms of CPU, more than starting Python). Only what deja
writes is understood: nil, booleans, integers in msgpack's range, floats (always 64-bit, as msgspec writes them),
strings, bytes, arrays (lists, tuples), maps and timezone-aware datetimes (the timestamp extension, in the
smallest of its three forms). Each is written in the smallest form msgpack has for it, as msgspec does, so the
same value gives the same bytes whichever wrote it (``tests/test_pack.py`` compares them over generated values).
"""

from __future__ import annotations

import sys
from struct import Struct

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from datetime import datetime

_U8, _U16, _U32, _U64 = Struct(">B"), Struct(">H"), Struct(">I"), Struct(">Q")
_I8, _I16, _I32, _I64 = Struct(">b"), Struct(">h"), Struct(">i"), Struct(">q")
_F64 = Struct(">d")
#: The timestamp extension's 96-bit body: nanoseconds, then seconds (signed).
_STAMP96 = Struct(">Iq")


def packb(value: object) -> bytes:
    """``value`` as msgpack, byte for byte what msgspec writes; TypeError for a value of another kind,
    OverflowError for an integer outside msgpack's range (as msgspec raises)."""
    out = bytearray()
    _pack(value, out)
    return bytes(out)


def _pack(value: object, out: bytearray) -> None:
    if value is None:
        out.append(0xC0)
    elif value is True or value is False:
        out.append(0xC3 if value else 0xC2)
    elif type(value) is int:
        _int(value, out)
    elif type(value) is str:
        _sized(value.encode("utf-8"), out, 0xA0, 32, (0xD9, 0xDA, 0xDB))
    elif type(value) is float:
        out.append(0xCB)
        out += _F64.pack(value)
    elif isinstance(value, list | tuple):
        _header(len(value), out, 0x90, 16, (None, 0xDC, 0xDD))
        for item in value:
            _pack(item, out)
    elif isinstance(value, dict):
        _header(len(value), out, 0x80, 16, (None, 0xDE, 0xDF))
        for key, item in value.items():
            _pack(key, out)
            _pack(item, out)
    elif isinstance(value, bytes | bytearray | memoryview):
        _sized(bytes(value), out, None, 0, (0xC4, 0xC5, 0xC6))
    else:
        _other(value, out)


def _other(value: object, out: bytearray) -> None:
    """An int or str subclass as its base type (msgspec writes an ``IntEnum`` as its value), or a datetime."""
    if isinstance(value, int):
        _int(int(value), out)
    elif isinstance(value, str):
        _pack(str(value), out)
    elif isinstance(value, float):
        _pack(float(value), out)
    elif _is_aware_datetime(value):
        _timestamp(value, out)  # type: ignore[arg-type]
    else:
        raise TypeError(f"Encoding objects of type {type(value).__name__} is unsupported")


def _int(value: int, out: bytearray) -> None:
    if value >= 0:
        if value < 0x80:
            out.append(value)
        elif value <= 0xFF:
            out.append(0xCC)
            out += _U8.pack(value)
        elif value <= 0xFFFF:
            out.append(0xCD)
            out += _U16.pack(value)
        elif value <= 0xFFFFFFFF:
            out.append(0xCE)
            out += _U32.pack(value)
        elif value <= 0xFFFFFFFFFFFFFFFF:
            out.append(0xCF)
            out += _U64.pack(value)
        else:
            raise OverflowError("can't serialize ints < -2**63 or > 2**64 - 1")
    elif value >= -32:
        out.append(value & 0xFF)
    elif value >= -0x80:
        out.append(0xD0)
        out += _I8.pack(value)
    elif value >= -0x8000:
        out.append(0xD1)
        out += _I16.pack(value)
    elif value >= -0x80000000:
        out.append(0xD2)
        out += _I32.pack(value)
    elif value >= -0x8000000000000000:
        out.append(0xD3)
        out += _I64.pack(value)
    else:
        raise OverflowError("can't serialize ints < -2**63 or > 2**64 - 1")


def _header(n: int, out: bytearray, fixed: int | None, fixed_below: int, wide: tuple[int | None, int, int]) -> None:
    """The type byte and length of a string, bytes, array or map of ``n`` items: the fixed form below
    ``fixed_below``, else the 8-, 16- or 32-bit length form (``wide``; an array and a map have no 8-bit one)."""
    if fixed is not None and n < fixed_below:
        out.append(fixed | n)
    elif n <= 0xFF and wide[0] is not None:
        out.append(wide[0])
        out += _U8.pack(n)
    elif n <= 0xFFFF:
        out.append(wide[1])
        out += _U16.pack(n)
    elif n <= 0xFFFFFFFF:
        out.append(wide[2])
        out += _U32.pack(n)
    else:
        raise OverflowError("Can't encode values longer than 2**32 - 1")


def _sized(data: bytes, out: bytearray, fixed: int | None, fixed_below: int, wide: tuple[int, int, int]) -> None:
    _header(len(data), out, fixed, fixed_below, wide)
    out += data


def _is_aware_datetime(value: object) -> bool:
    """Whether ``value`` is a datetime with a time zone (one can exist only once ``datetime`` is imported)."""
    module = sys.modules.get("datetime")
    return module is not None and isinstance(value, module.datetime) and value.utcoffset() is not None


def _timestamp(value: datetime, out: bytearray) -> None:
    """The timestamp extension (type -1): 32-bit seconds, else 34-bit seconds with 30-bit nanoseconds, else 96-bit."""
    offset = value.utcoffset()
    assert offset is not None
    days = value.toordinal() - 719163  # days since 1970-01-01
    seconds = days * 86400 + value.hour * 3600 + value.minute * 60 + value.second - int(offset.total_seconds())
    nanoseconds = value.microsecond * 1000
    if seconds >> 34 == 0:
        if nanoseconds == 0 and seconds >> 32 == 0:
            out += b"\xd6\xff"
            out += _U32.pack(seconds)
        else:
            out += b"\xd7\xff"
            out += _U64.pack(nanoseconds << 34 | seconds)
    else:
        out += b"\xc7\x0c\xff"
        out += _STAMP96.pack(nanoseconds, seconds)
