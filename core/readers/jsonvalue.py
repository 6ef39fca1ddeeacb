"""The JSON value of a stored record, kept when a byte of it is not UTF-8.

Cursor stores what the user typed; a Latin-1 byte pasted from an old file (``caf\\xe9``) makes the whole
value invalid UTF-8, which ``orjson`` refuses. Dropping the value would drop the user's message with it, so
such bytes are replaced (U+FFFD) and the rest is read as usual.
"""

from __future__ import annotations

from typing import Any

import orjson


def loads(raw: bytes | str) -> Any:
    """``raw``'s JSON value, bytes that are not UTF-8 replaced; raises ``orjson.JSONDecodeError`` when it is not JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        if isinstance(raw, str):
            raise
        return orjson.loads(bytes(raw).decode("utf-8", "replace"))
