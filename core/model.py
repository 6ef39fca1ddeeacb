"""The one model every Cursor store is read into.

The index, search, hooks and MCP server see only these types; they know nothing
about where a session came from beyond its ``source``.
"""

from datetime import datetime
from typing import Any, Literal

from .lean_msgspec import msgspec
from .patterns import Lazy

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
    #: Which signal gave ``project_dir`` (one of ``deja.core.readers.projects.SIGNALS``); "" when none did. A signal
    #: with no ``project_dir`` named a remote window's folder (``deja.core.readers.remote``): ``project`` says it.
    project_from: str = ""
    title: str = ""
    started: datetime | None = None
    updated: datetime | None = None
    #: The file the session was read from (a state.vscdb or a transcript).
    origin: str = ""
    messages: list[Message] = []
    #: How many of ``messages``, first, a reader stamped with the chat's creation time for want of one of their own,
    #: before the first that has one (``index.records.SessionMeta.untimed_lead``).
    untimed_lead: int = 0


#: Room kept for the elision marker: "\n[… 999.9 MB elided …]\n" and then some.
_MARKER_ROOM = 48
_MARKER = Lazy(globals(), "_MARKER", r"\n\[… ([0-9.]+) (bytes|KB|MB|GB) elided …\]\n".encode())
_UNITS = {"bytes": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3}
#: How far back (or forward) from a cut a line or word boundary is looked for.
_BOUNDARY_REACH = 4096


def cap_text(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """``text`` in at most ``limit`` bytes of UTF-8 (1 MiB by default), saying what was left out.

    A longer text keeps its head and its tail (an error usually sits at the end of
    a log) around a marker such as ``[… 1.4 MB elided …]``. Each cut falls on a
    line or word boundary near the limit where there is one, so no token is split
    into a fragment (redaction sees secrets whole), and never inside a character.
    """
    if len(text) * 4 <= limit:
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    if limit <= 2 * _MARKER_ROOM:
        return data[: _char_start(data, limit)].decode("utf-8", "surrogatepass")
    half = (limit - _MARKER_ROOM) // 2
    head_end = _boundary_before(data, half)
    tail_start = _boundary_after(data, len(data) - half)
    marker = f"\n[… {human_size(_elided_size(data[head_end:tail_start]))} elided …]\n"
    return (
        data[:head_end].decode("utf-8", "surrogatepass") + marker + data[tail_start:].decode("utf-8", "surrogatepass")
    )


def is_elision_line(line: str) -> bool:
    """Whether ``line`` is the marker ``cap_text`` put where it left text out (``[… 1.4 MB elided …]``): a view that
    shortens a stored text again keeps it, so what the index never held is still said."""
    return "elided" in line and _MARKER.fullmatch(f"\n{line}\n".encode("utf-8", "surrogatepass")) is not None


def _elided_size(middle: bytes) -> int:
    """How much of the original text ``middle`` stands for: a text capped twice counts what the first cap left out."""
    middle = middle[1:] if middle[:1] in (b"\n", b" ") else middle  # the separators the marker's newlines replace
    middle = middle[:-1] if middle[-1:] in (b"\n", b" ") else middle
    size = len(middle)
    for earlier in _MARKER.finditer(middle):
        size += round(float(earlier.group(1)) * _UNITS[earlier.group(2).decode()]) - len(earlier.group(0))
    return size


def _char_start(data: bytes, at: int) -> int:
    """``at``, moved back to the first byte of the UTF-8 character it falls in."""
    while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
        at -= 1
    return at


def _boundary_before(data: bytes, at: int) -> int:
    """The end of the last line (else word) that ends by ``at``, if one is near; else ``at`` on a character."""
    low = max(0, at - _BOUNDARY_REACH)
    for sep in (b"\n", b" "):
        found = data.rfind(sep, low, at)
        if found > 0:
            return found
    return _char_start(data, at)


def _boundary_after(data: bytes, at: int) -> int:
    """The start of the first line (else word) that starts from ``at``, if one is near; else ``at`` on a character."""
    high = min(len(data), at + _BOUNDARY_REACH)
    for sep in (b"\n", b" "):
        found = data.find(sep, at, high)
        if found >= 0:
            return found + 1
    return _char_start(data, at)


def human_size(size: int) -> str:
    """``size`` bytes as people read it: ``812 bytes``, ``64.0 KB``, ``1.4 MB``."""
    if size < 1000:
        return f"{size} bytes"
    value = size / 1000
    for unit in ("KB", "MB"):
        if value < 999.95:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def fill_times(session: Session) -> None:
    """Set ``started``/``updated`` from the first and last message times, where known."""
    times = [m.timestamp for m in session.messages if m.timestamp is not None]
    if times:
        session.started = min(times)
        session.updated = max(times)
