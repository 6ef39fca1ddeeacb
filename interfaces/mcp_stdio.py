"""The MCP server's stdio transport: the SDK's, plus an answer to every line it cannot read.

The SDK's stdio transport drops a line that is not a JSON-RPC message (bad
JSON, a lone surrogate escape such as ``"\\ud800"``, a request without a
method) without a reply, so the client waits forever for the answer to its
request. Here each such line gets a JSON-RPC error, ``-32700`` when it is not
JSON at all and ``-32600`` when it is JSON but not a valid message, carrying the
request's id whenever one can be read from it, and the server goes on serving.

Lines are read here, each checked once so that a line the SDK will refuse is
remembered, and handed to the SDK's transport, which refuses it and writes every
reply. A line longer than ``MAX_LINE_CHARS`` is passed over as it streams
instead of being held.

Replies go out through the SDK's own stdout, which points fd 1 at stderr while
serving, so that no handler or child writes onto the wire.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

#: The longest refused line whose id is looked for (a longer one gets ``"id": null``).
ID_SEARCH_BYTES = 1 << 20
#: No request is this long: a longer line is answered ``-32600`` without being held.
MAX_LINE_CHARS = 16 << 20


class _RememberingLines(TextIOWrapper):
    """stdin as text lines, remembering each line the SDK will refuse, in order."""

    def __init__(self, raw: Any, refused: deque[str | None]) -> None:
        super().__init__(raw, encoding="utf-8", errors="replace")
        self.refused = refused

    def close(self) -> None:
        """Leave stdin open: the buffer is the process's, not this wrapper's (as the SDK's own wrapper does)."""
        with suppress(ValueError):
            self.detach()

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]  # TextIOWrapper reads text lines
        line = super().readline(MAX_LINE_CHARS + 1)
        if len(line) > MAX_LINE_CHARS:
            while not line.endswith("\n") and (line := super().readline(1 << 20)):
                pass
            self.refused.append(None)
            return "\n"  # not a message, so the SDK refuses it in its turn
        if line and not _is_message(line):
            self.refused.append(line)
        return line


def _is_message(line: str) -> bool:
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:
        return False
    return True


def error_reply(line: str | None) -> types.JSONRPCError | None:
    """The JSON-RPC error that answers a refused ``line`` (None: one too long to hold); None for a notification."""
    if line is None:
        return _error(None, types.INVALID_REQUEST, f"Invalid request: longer than {MAX_LINE_CHARS >> 20} MiB")
    if len(line) > ID_SEARCH_BYTES:
        return _error(None, types.INVALID_REQUEST, "Invalid request: too long to look for its id")
    try:
        value = json.loads(line)
    except ValueError:
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    except RecursionError:
        return _error(None, types.PARSE_ERROR, "Parse error: the JSON is nested too deeply to read")
    request_id = value.get("id") if isinstance(value, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    if request_id is None and isinstance(value, dict) and "method" in value and "id" not in value:
        return None
    return _error(request_id, types.INVALID_REQUEST, "Invalid request: not a JSON-RPC message MCP can read")


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


@asynccontextmanager
async def answering_stdio() -> AsyncIterator[
    tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]
]:
    """The SDK's stdio streams, with every refused line answered instead of passed on."""
    refused: deque[str | None] = deque()
    stdin = anyio.wrap_file(_RememberingLines(sys.stdin.buffer, refused))
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with to_server:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        await to_server.send(item)
                        continue
                    reply = error_reply(refused.popleft()) if refused else None
                    if reply is not None:
                        await write_stream.send(SessionMessage(reply))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            yield from_wire, write_stream
            tasks.cancel_scope.cancel()
