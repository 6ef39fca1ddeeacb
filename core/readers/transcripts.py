"""cursor-agent's JSONL transcripts: ``projects/<encoded cwd>/agent-transcripts/``.

A line is ``{"role", "message": {"content"}}`` (string or Anthropic-style parts)
or a control record (``turn_ended``, ``{"type": "error"}``), which is skipped.
Records carry no time: a user turn's text starts with a ``<timestamp>`` block,
read here and carried forward to the turns after it (see :func:`read_transcript`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..dates import MONTHS
from ..folders import utf8_named
from ..lean_msgspec import msgspec
from ..model import MAX_MESSAGE_BYTES, Message, ToolCall, cap_text, human_size
from ..patterns import Lazy
from ..regular_files import capped_lines, check_regular, open_regular
from ..text import user_query
from . import jsonvalue

MALFORMED_LINE = "malformed transcript line"
OVERLONG_LINE = "transcript line too long to read"
#: A transcript line (one JSON record) longer than this is never held whole, so memory stays bounded: its record is
#: read from its head and its tail, ``OVERLONG_KEPT`` bytes each (``_spliced``), where they join.
MAX_LINE_BYTES = 32 << 20
#: As much of an over-long line's head, and of its tail, as a message keeps (``cap_text``'s 1 MiB in all).
OVERLONG_KEPT = MAX_MESSAGE_BYTES // 2
#: How far past the tail's cut a join is looked for: an escape it cut into is at most 12 bytes (``\\ud83d\\udd11``).
_ESCAPE_REACH = 13

_TRANSCRIPTS = "agent-transcripts"
_SUBAGENTS = "subagents"


class TranscriptFile(msgspec.Struct, gc=False):
    """A transcript a walk found. A Struct, made in C: a ``NamedTuple``'s ``__new__`` is a Python call, one per chat on
    every walk (a sixth of ``scan_transcripts``' instructions at 10k sessions)."""

    path: str
    #: The chat ``cursor-agent --resume`` takes (a subagent's parent chat).
    chat_id: str
    #: The chat id, or ``<parent>/<child>`` for a subagent (a child may reuse its parent's id).
    session_id: str
    stat: os.stat_result


def scan_transcripts(
    root: str | Path, include_subagents: bool, unsearchable: list[str] | None = None
) -> Iterator[TranscriptFile]:
    """Every transcript under ``root/projects/*/agent-transcripts/``, in a stable order.

    Nested ``<id>/<id>.jsonl`` and flat ``<id>.jsonl``; ``<id>/subagents/*.jsonl``
    only with ``include_subagents``. Nothing else in a project folder is visited
    (agent-tools, mcps and terminals hold far more files than the transcripts).
    One ``stat`` per transcript and plain strings: a refresh walks every chat.
    ``unsearchable`` gets each chat folder (``<id>``) this user may not search, whose transcript the walk
    cannot see (``unreadable.unlisted_folders`` takes them from here: no second look at every chat folder).
    """
    for project in _entries(os.path.join(root, "projects")):
        if not project.is_dir():
            continue
        inner = os.path.join(project.path, _TRANSCRIPTS)
        for entry in _entries(inner):
            if entry.name.endswith(".jsonl"):
                found = _regular_file(entry.path)
                if found:
                    chat_id = entry.name[: -len(".jsonl")]
                    yield TranscriptFile(entry.path, chat_id, chat_id, found)
            elif entry.is_dir():
                nested = f"{entry.path}{os.sep}{entry.name}.jsonl"  # (os.path.join's path, without its 2 µs a chat)
                found = _regular_file(nested, unsearchable, inner)
                if found:
                    yield TranscriptFile(nested, entry.name, entry.name, found)
                if include_subagents:
                    for child in _entries(os.path.join(entry.path, _SUBAGENTS)):
                        found = _regular_file(child.path) if child.name.endswith(".jsonl") else None
                        if found:
                            yield TranscriptFile(
                                child.path, entry.name, f"{entry.name}/{child.name[: -len('.jsonl')]}", found
                            )


def find_transcripts(root: Path, include_subagents: bool) -> Iterator[Path]:
    """Every transcript under ``root`` (see :func:`scan_transcripts`)."""
    for found in scan_transcripts(root, include_subagents):
        yield Path(found.path)


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return sorted((e for e in found if utf8_named(e.path, e.name)), key=lambda e: e.name)
    except OSError:
        return []


def _regular_file(path: str, unsearchable: list[str] | None = None, above: str = "") -> os.stat_result | None:
    """``path``'s status if it is a regular file; else None, and its folder joins ``unsearchable`` when this user
    may not search it (but may search ``above``, the folder above that, which is otherwise named instead). A refusal
    in a folder this user may search is the file's own (a link into a folder it may not search), which the folder's
    chmod would not mend (review42b M2)."""
    try:
        return check_regular(path)
    except PermissionError:
        folder = os.path.dirname(path)
        if unsearchable is not None and os.access(above, os.X_OK) and not os.access(folder, os.X_OK):
            unsearchable.append(folder)
        return None
    except OSError:
        return None


def is_subagent(transcript: str | Path) -> bool:
    """True for ``agent-transcripts/<id>/subagents/<child>.jsonl``."""
    parent, _ = os.path.split(str(transcript))
    above, folder = os.path.split(parent)
    return folder == _SUBAGENTS and os.path.basename(os.path.dirname(above)) == _TRANSCRIPTS


def _stem(transcript: str) -> str:
    name = os.path.basename(transcript)
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else os.path.splitext(name)[0]


def chat_id_of(transcript: str | Path) -> str:
    """The chat id ``cursor-agent --resume`` takes; a subagent transcript belongs to its parent's chat."""
    transcript = str(transcript)
    if is_subagent(transcript):
        return os.path.basename(os.path.dirname(os.path.dirname(transcript)))
    return _stem(transcript)


def session_id_of(transcript: str | Path) -> str:
    """The session id: the chat id, or ``<parent>/<child>`` for a subagent (a child may reuse its parent's id)."""
    transcript = str(transcript)
    return f"{chat_id_of(transcript)}/{_stem(transcript)}" if is_subagent(transcript) else _stem(transcript)


def project_slug_of(transcript: Path) -> str:
    """The encoded project folder a transcript sits in (the part above ``agent-transcripts``)."""
    for folder in transcript.parents:
        if folder.name == _TRANSCRIPTS:
            return folder.parent.name
    return ""


# --- <timestamp> blocks ----------------------------------------------------

_LEADING_STAMP = Lazy(globals(), "_LEADING_STAMP", r"\A\s*<timestamp>(.*?)</timestamp>[ \t]*\n?", re.S)
_STAMP = Lazy(
    globals(),
    "_STAMP",
    r"(?:[A-Za-z]+,\s*)?"  # weekday
    r"(?P<month>[A-Za-z]+)\.?\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4}),?\s+"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>[AaPp]\.?[Mm]\.?)?"
    r"(?:\s*\(\s*UTC\s*(?:(?P<sign>[+\-\u2212])\s*(?P<hours>\d{1,2})(?::?(?P<minutes>\d{2}))?)?\s*\))?",
)


def parse_stamp(text: str) -> datetime | None:
    """The time in a ``<timestamp>`` block's text, aware, or None when unreadable.

    ``[Weekday, ]Mon D, YYYY, H:MM AM|PM[ (UTC±H[:MM])]``: full or short month names;
    the offset is kept as written and is UTC when absent; a 24-hour clock is read
    when AM/PM is missing.
    """
    match = _STAMP.fullmatch(text.strip())
    if not match:
        return None
    name = match["month"].lower()
    month = next((i for i, full in enumerate(MONTHS, 1) if len(name) >= 3 and full.startswith(name)), None)
    hour = int(match["hour"])
    if match["half"]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match["half"][0] in "Pp" else 0)
    offset = timedelta()
    if match["sign"]:
        offset = timedelta(hours=int(match["hours"]), minutes=int(match["minutes"] or 0))
        if offset >= timedelta(hours=24):
            return None
        offset = offset if match["sign"] == "+" else -offset
    if month is None:
        return None
    try:
        return datetime(
            int(match["year"]), month, int(match["day"]), hour, int(match["minute"]), tzinfo=timezone(offset)
        )
    except ValueError:
        return None


def clean_user_text(text: str) -> tuple[str, datetime | None]:
    """A user turn's text without Cursor's wrappers, and the time its ``<timestamp>`` block gives.

    A leading ``<timestamp>`` block is removed even when unreadable. The
    ``<user_query>`` body comes first; any other text of the record (such as an
    ``<attached_files>`` block) is kept after it, so it stays searchable without
    becoming the question a title is made from.
    """
    when = None
    stamp = _LEADING_STAMP.match(text)
    if stamp:
        when = parse_stamp(stamp[1])
        text = text[stamp.end() :]
    cut = user_query(text)
    if cut is None:
        return text.strip(), when
    before, query, after = cut
    query, rest = query.strip(), (before + after).strip()
    return (f"{query}\n\n{rest}" if rest and query else query or rest), when


#: Cursor's marker for redacted thinking at the end of assistant text, which says nothing a reader can use.
REDACTED_THINKING = Lazy(globals(), "REDACTED_THINKING", r"(?:\s*\[REDACTED\])+\s*\Z")


def without_redacted_thinking(text: str) -> str:
    """``text`` without a trailing ``REDACTED_THINKING`` marker, asked of this module's own name (compiled in place
    on first use: a reader that imported the name would ask ``re``'s cache on every text) and only where the marker
    is (its regex scans every position of a text)."""
    return REDACTED_THINKING.sub("", text) if "[REDACTED]" in text else text


def _parts(content: Any, role: str) -> tuple[list[str], list[ToolCall]]:
    """The text parts and ``tool_use`` calls of a record's content (string or parts).

    Assistant text loses a trailing ``[REDACTED]``: Cursor's marker for redacted
    thinking, which says nothing a reader can use.
    """
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts: list[str] = []
    calls: list[ToolCall] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            text = part["text"]
            if role == "assistant":
                text = without_redacted_thinking(text)
            if text.strip():
                texts.append(text)
        elif kind == "tool_use" and role == "assistant" and isinstance(part.get("name"), str):
            args = part.get("input")
            calls.append(ToolCall(name=part["name"], args=args if isinstance(args, dict) else {}))
    return texts, calls


class TranscriptRead(msgspec.Struct):
    messages: list[Message]
    #: Byte offset after the last line consumed: resume from here when the file grows.
    end: int
    #: The last readable ``<timestamp>`` block so far (None if none): pass it as ``carry`` when resuming.
    last_timestamp: datetime | None


def read_transcript(
    path: Path,
    *,
    start: int = 0,
    carry: datetime | None = None,
    after: Sequence[Message] = (),
    problems: Counter[str] | None = None,
) -> TranscriptRead:
    """Read a transcript from byte ``start``, one line at a time.

    A message is one user or assistant record with text, capped at 1 MiB. A
    record holding only tool calls adds them to the assistant message of the same
    turn, or opens an empty-text one when the turn has none yet. Tool arguments
    are kept whole: a Write's ``contents`` is the only record of a created file.

    Times: each message takes the latest readable ``<timestamp>`` block at or
    before it (``carry`` is the one before ``start``). Messages before the first
    block take the first block's time (the nearest known; they were no later).
    A transcript with no readable block at all gives every message the file's
    modification time. So resuming from a previous read's ``end`` with its
    ``last_timestamp`` as ``carry`` and its messages as ``after`` gives what a full
    read gives: a tool-only record right at ``start`` joins the last of ``after``
    when that is its turn's assistant message (extended in place), and the new
    messages are returned.

    Lines are consumed through their newline. An unterminated last line is
    consumed only when it is already a whole JSON object; otherwise it is being
    written and is left for the next read. Malformed lines are counted in
    ``problems`` under :data:`MALFORMED_LINE` and skipped; a line over
    :data:`MAX_LINE_BYTES` is read from its head and tail (``_spliced``), or
    passed over (:data:`OVERLONG_LINE`) when they do not join, so memory stays
    bounded whatever the file holds. Anything but a regular file
    raises :class:`OSError` at once instead of blocking.
    """
    messages: list[Message] = []
    undated: list[Message] = []
    stamp = carry
    # The current turn's last assistant message: a user message opens a new turn.
    turn: Message | None = after[-1] if after and after[-1].role == "assistant" else None
    end = start
    with open_regular(path) as lines:
        lines.seek(start)
        for line, size in capped_lines(lines, MAX_LINE_BYTES, keep=OVERLONG_KEPT):
            record = _load(line) if size == len(line) else _spliced(line, size)
            if not line.endswith(b"\n") and not isinstance(record, dict):
                break
            end += size
            if record is None:
                if problems is not None and (line.strip() or size != len(line)):
                    problems[MALFORMED_LINE if size == len(line) else OVERLONG_LINE] += 1
                continue
            role = record.get("role") if isinstance(record, dict) else None
            if role not in ("user", "assistant"):
                continue
            message = record.get("message")
            texts, calls = _parts(message.get("content") if isinstance(message, dict) else None, role)
            text = "\n".join(texts)
            if role == "user":
                text, when = clean_user_text(text)
                if when is not None:
                    stamp = when
                    for earlier in undated:
                        earlier.timestamp = when
                    undated.clear()
                if not text:
                    continue
                turn = None
                new = Message(role="user", text=cap_text(text), timestamp=stamp)
            elif not text and calls and turn is not None:
                turn.tool_calls.extend(calls)
                continue
            elif not text and not calls:
                continue
            else:
                new = turn = Message(role="assistant", text=cap_text(text), timestamp=stamp, tool_calls=calls)
            messages.append(new)
            if stamp is None:
                undated.append(new)
        if undated:
            mtime = datetime.fromtimestamp(os.fstat(lines.fileno()).st_mtime, tz=UTC)
            for message in undated:
                message.timestamp = mtime
    return TranscriptRead(messages=messages, end=end, last_timestamp=stamp)


def _spliced(line: bytes, size: int) -> Any:
    """The record of an over-long line of ``size`` bytes from ``line``, its head and tail (``OVERLONG_KEPT`` each):
    joined by the elision marker ``cap_text`` puts where it leaves text out, inside the JSON string both cut into (a
    pasted log, a Write's ``contents``), so the message keeps its question and its end (trial49 F4). None when they
    do not join (the cuts fall in two values), as for a malformed line."""
    head, tail = _whole_escapes(line[:OVERLONG_KEPT]), line[OVERLONG_KEPT:]
    skip = next((at for at, byte in enumerate(tail) if not 0x80 <= byte < 0xC0), len(tail))  # (inside a character)
    for start in range(skip, min(skip + _ESCAPE_REACH, len(tail))):
        elided = human_size(size - len(head) - (len(tail) - start))
        marker = msgspec.json.encode(f"\n[… {elided} elided …]\n")[1:-1]
        record = _load(head + marker + tail[start:])
        if isinstance(record, dict):
            return record
    return None


def _whole_escapes(head: bytes) -> bytes:
    """``head`` cut before a last escape (``\\u00e9``, ``\\n``) and a last character it may cut into."""
    at = head.rfind(b"\\", max(0, len(head) - _ESCAPE_REACH))
    if at != -1:
        while at and head[at - 1] == 0x5C:  # (a run of escaped backslashes: cut before all of it)
            at -= 1
        head = head[:at]
    end = len(head)
    while end and 0x80 <= head[end - 1] < 0xC0:
        end -= 1
    return head[: end - 1] if end and head[end - 1] >= 0xC0 else head[:end]


def _load(line: bytes) -> Any:
    """The line's JSON value, or None for a blank or malformed line. A UTF-8 BOM before it is skipped like
    whitespace: a file that went through a Windows editor or PowerShell's ``Out-File`` starts with one (trial17 F9)."""
    try:
        return jsonvalue.loads(line.removeprefix(b"\xef\xbb\xbf"))
    except jsonvalue.NotJson:
        return None


# --- the encoded project folder --------------------------------------------

_MAX_SEGMENTS = 24
#: How many folders in a row whose names encode to nothing (``文档/项目``) a slug's decode enters.
_MAX_UNNAMED_RUN = 2


def _encoded(name: str) -> str:
    """``name`` as Cursor encodes it, with runs of dashes made one (builds differ on collapsing them)."""
    return re.sub(r"-+", "-", re.sub(r"[^A-Za-z0-9]", "-", name))


def outermost(folders: list[str]) -> str:
    """Of the folders one slug encodes, the one every other lies below; "" when there is none, or several side by
    side (``my-app`` and ``my_app``). Below a folder lie only the folders of its slug whose names encode to nothing
    (``文档``): a chat nearly always ran in the project's root (one whose own files say the unnamed folder is placed
    there first: ``projects.unnamed_folder``; review38b H1)."""
    if not folders:
        return ""
    top = min(folders, key=len)
    inside = top.rstrip("/") + "/"
    return top if all(folder == top or folder.startswith(inside) for folder in folders) else ""


def slug_folders(slug: str) -> list[Path]:
    """Every existing directory whose path Cursor encoded as ``slug``.

    The encoding is lossy ('/', '-', '.', '_', space and non-ASCII all become '-', runs of them one '-', trimmed at
    both ends: cursor-agent's ``projects/<slug>``), so it is matched against what exists: each step lists a
    directory and enters every entry whose own encoding begins the rest of the slug. ``~/code/my-app``,
    ``~/code/my_app`` and ``~/code/my app`` all encode as ``…-code-my-app``: each is one of the folders found, and
    which one a chat ran in is for what the chat says to decide (``projects.slug_folder``). A folder whose name has
    no ASCII letter or digit (``日本語 プロジェクト``) encodes to nothing, so its slug is its parent's: both are found.
    Below such a folder the rest of the slug is still looked for, since ``a/文档/b`` encodes as ``a-b``; at most two
    of them in a row are entered, so a tree of CJK-named folders (``~/文档``, ``~/下载``) is not walked whole for
    every slug under it. At most 24 segments are walked, from ``/`` (a Windows drive letter is not decoded).
    """
    rest = _encoded("-" + slug.strip("-")).rstrip("-")
    return _walk(Path("/"), rest, _MAX_SEGMENTS, _MAX_UNNAMED_RUN)


def _piece(name: str) -> str:
    """A folder name as it appears in a slug after the '-' before it ('' for a name with no ASCII letter or digit)."""
    return _encoded("-" + name).rstrip("-")


def _walk(folder: Path, rest: str, depth: int, unnamed_run: int) -> list[Path]:
    """The directories at or below ``folder`` that ``rest`` (starting with '-', or empty for ``folder`` itself)
    encodes. ``unnamed_run``: how many more folders in a row whose names encode to nothing may be entered."""
    found = [] if rest else [folder]
    if depth == 0 or (not rest and not unnamed_run):
        return found
    try:
        entries = [e.name for e in os.scandir(folder) if e.is_dir()]
    except OSError:
        return found
    for name in entries:
        piece = _piece(name)
        if not piece:
            if unnamed_run:
                found += _walk(folder / name, rest, depth - 1, unnamed_run - 1)
        elif rest == piece or rest.startswith(piece + "-"):
            found += _walk(folder / name, rest[len(piece) :], depth - 1, _MAX_UNNAMED_RUN)
    return found
