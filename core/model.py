"""The one model every Cursor store is read into.

The index, search, hooks and MCP server see only these types; they know nothing
about where a session came from beyond its ``source``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

Role = Literal["user", "assistant"]
Source = Literal["cursor-ide", "cursor-cli"]

#: A parsed message is capped at 1 MiB of UTF-8.
MAX_MESSAGE_BYTES = 1 << 20


class ToolCall(msgspec.Struct, omit_defaults=True):
    name: str
    args: dict[str, Any] = {}
    result: str | None = None
    exit_code: int | None = None


class Message(msgspec.Struct, omit_defaults=True):
    role: Role
    text: str
    timestamp: datetime | None = None
    tool_calls: list[ToolCall] = []


class Session(msgspec.Struct, omit_defaults=True):
    id: str
    source: Source
    project: str = ""
    project_dir: str = ""
    #: Which signal gave ``project_dir`` (one of ``deja.core.readers.projects.SIGNALS``); "" when none did.
    project_from: str = ""
    title: str = ""
    started: datetime | None = None
    updated: datetime | None = None
    #: The file the session was read from (a state.vscdb or a transcript).
    origin: str = ""
    messages: list[Message] = []


def cap_text(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """Cut ``text`` to ``limit`` bytes of UTF-8 (the 1 MiB message cap by default) on a character boundary."""
    if len(text) * 4 <= limit:
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


def one_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of ``text``, trimmed to ``limit`` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


def fill_times(session: Session) -> None:
    """Set ``started``/``updated`` from the first and last message times, where known."""
    times = [m.timestamp for m in session.messages if m.timestamp is not None]
    if times:
        session.started = min(times)
        session.updated = max(times)
