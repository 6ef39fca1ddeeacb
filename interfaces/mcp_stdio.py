"""The MCP server's stdio transport: the SDK's, plus an answer to every line it cannot read.

The SDK's stdio transport drops a line that is not a JSON-RPC message (bad
JSON, a lone surrogate escape such as ``"\\ud800"``, a request without a
method) without a reply, so the client waits forever for the answer to its
request. Here each such line gets a JSON-RPC error, ``-32700`` when it is not
JSON at all and ``-32600`` when it is JSON but not a valid message, carrying the
request's id whenever one can be read from it, and the server goes on serving.

Lines are read here, each checked once so that a line the SDK will refuse is
remembered, and handed to the SDK's transport, which refuses it and writes every
reply. A blank line is no message: it is passed over, unanswered (the SDK reads
stdin here, so here is where it is left out). A line longer than ``MAX_LINE_CHARS`` is passed over as it streams
instead of being held.

Replies go out through the SDK's own stdout, which points fd 1 at stderr while
serving, so that no handler or child writes onto the wire.

When stdin ends, the SDK cancels every request still being handled, so a client
that writes its last requests and closes its end (a script piping JSON-RPC lines)
lost their answers without a word. The server is told of the end only once every
request read has been answered (or cancelled by the client).
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
#: The whitespace JSON allows around a value: a line of these alone is blank.
JSON_BLANKS = " \t\r\n"


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
        """The next line that is a message or meant as one: a blank one (``\\n`` between messages, ``"   "``) is no
        message and gets no reply; it was answered ``-32700`` for a request nobody sent (trial58 T8). Blank as JSON
        reads it: spaces, tabs and line ends alone."""
        line = super().readline(MAX_LINE_CHARS + 1)
        while line and not line.strip(JSON_BLANKS) and len(line) <= MAX_LINE_CHARS:
            line = super().readline(MAX_LINE_CHARS + 1)
        if len(line) > MAX_LINE_CHARS:
            while not line.endswith("\n") and (line := super().readline(1 << 20)):
                pass
            self.refused.append(None)
            return "\n"  # not a message, so the SDK refuses it in its turn
        if line and not _is_message(line):
            self.refused.append(line)
            return "\n"  # (one the SDK would take as something else, too, is refused in its turn)
        return line


def _is_message(line: str) -> bool:
    """Whether the SDK reads ``line`` as the message it is. A request whose id is neither a string nor a number
    (``"id": {}``) reads as a notification, which nothing answers: the client would wait for ever."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:
        return False
    if isinstance(message, types.JSONRPCNotification) and '"id"' in line:
        with suppress(ValueError, RecursionError):
            return "id" not in json.loads(line)
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


class _Answers:
    """The replies' stream, keeping count of the requests read and not yet answered, so that the end of stdin
    reaches the server (which cancels what it is still handling) only when none is left."""

    def __init__(self, wire: ObjectSendStream[SessionMessage]) -> None:
        self.wire = wire
        self.unanswered: set[str | int] = set()
        self._settled = anyio.Event()

    def read(self, message: SessionMessage) -> None:
        """Note a request read from the client, and forget one the client cancelled (it gets no answer)."""
        item = message.message
        if isinstance(item, types.JSONRPCRequest):
            self.unanswered.add(item.id)
        elif isinstance(item, types.JSONRPCNotification) and item.method == "notifications/cancelled":
            self._settle((item.params or {}).get("requestId"))

    async def send(self, message: SessionMessage, /) -> None:
        """Write a reply; an answer settles its request even when the wire is gone (nothing is left to wait for)."""
        try:
            await self.wire.send(message)
        finally:
            if isinstance(message.message, types.JSONRPCResponse | types.JSONRPCError):
                self._settle(message.message.id)

    def _settle(self, request_id: object) -> None:
        if request_id in self.unanswered:
            self.unanswered.discard(request_id)
            self._settled.set()

    async def until_all_answered(self) -> None:
        while self.unanswered:
            self._settled = anyio.Event()
            await self._settled.wait()

    async def aclose(self) -> None:
        await self.wire.aclose()

    async def __aenter__(self) -> _Answers:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@asynccontextmanager
async def answering_stdio() -> AsyncIterator[tuple[ObjectReceiveStream[SessionMessage | Exception], _Answers]]:
    """The SDK's stdio streams, with every refused line answered instead of passed on, and the end of stdin held
    back from the server until every request read has its answer."""
    refused: deque[str | None] = deque()
    stdin = anyio.wrap_file(_RememberingLines(sys.stdin.buffer, refused))
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        answers = _Answers(write_stream)

        async def relay() -> None:
            async with to_server:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        answers.read(item)
                        await to_server.send(item)
                        continue
                    reply = error_reply(refused.popleft()) if refused else None
                    if reply is not None:
                        await write_stream.send(SessionMessage(reply))
                await answers.until_all_answered()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            yield from_wire, answers
            tasks.cancel_scope.cancel()
