"""cursor-agent's per-chat store: ``chats/<md5 of cwd>/<chat id>/{meta.json, store.db}``.

The transcript holds every turn but no tool results; the store holds the
results. deja reads the store for those alone (and the chat's name), then pairs
each transcript tool call with the store's call of the same tool and arguments.

``store.db`` is content-addressed: ``blobs(id, data)`` with id = sha256 hex of the
data, and a ``meta`` row of hex-encoded JSON naming ``latestRootBlobId``. The
root is protobuf whose repeated field 1 lists the message blobs' raw digests in
order; each message is Vercel AI SDK JSON (cursor-formats.md §3). The meta row
of newer builds also holds ``blobEncryptionKey``, which is never kept.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import orjson

from ..model import Message, cap_text, one_line
from ..regular_files import check_regular_database, read_regular

UNREADABLE_STORE = "unreadable store.db"
MALFORMED_ROOT = "malformed store root"
MISSING_BLOB = "store blob missing"
DIGEST_MISMATCH = "store blob digest mismatch"
NOT_A_MESSAGE = "store child not a message"

#: Their results are the MCP servers' own descriptions, not work done in the chat.
#: A chat's meta.json holds a title and a few fields; one larger than this is not Cursor's.
META_BYTES = 1 << 20
_SKIPPED_RESULTS = frozenset({"GetMcpTools", "GetDynamicTools"})

#: Older builds' snake_case names whose current name is not their CamelCase spelling.
_RENAMED_TOOLS = {
    "run_terminal_cmd": "Shell",
    "run_terminal_command": "Shell",
    "run_terminal_command_v2": "Shell",
    "read_file": "Read",
    "search_replace": "StrReplace",
    "edit_file": "Edit",
    "delete_file": "Delete",
    "list_dir": "LS",
    "grep_search": "Grep",
    "glob_file_search": "Glob",
    "codebase_search": "SemanticSearch",
}
_SNAKE_CASE = re.compile(r"[a-z]+(?:_[a-z]+)*")
_PLACEHOLDER_TITLES = frozenset({"", "new agent", "new chat", "new composer", "untitled"})


class ChatMeta(msgspec.Struct):
    """A chat's ``meta.json``."""

    cwd: str = ""
    title: str = ""
    created: datetime | None = None
    updated: datetime | None = None
    #: The folder above the chat is md5(cwd): the cwd is the one cursor-agent files the chat under.
    verified: bool = False


class StoreToolResult(msgspec.Struct):
    """One tool call of the store with its result, keyed for pairing with a transcript call."""

    #: The tool name, normalised (:func:`normalise_tool_name`).
    name: str
    #: The call's arguments as sorted-key JSON (:func:`canonical_args`).
    args_key: str
    #: The result text; a Shell result without Cursor's framing.
    text: str
    #: A Shell call's exit status.
    exit_code: int | None = None


class StoreChat(msgspec.Struct):
    #: The chat's name in the store ("New Agent" until cursor-agent names it).
    name: str = ""
    #: Tool calls that have a result, in message order.
    tool_results: list[StoreToolResult] = []


def find_chat_dirs(root: Path) -> dict[str, Path]:
    """Chat id → its ``root/chats/<hash>/<id>`` folder (the first bucket holding it wins)."""
    chats: dict[str, Path] = {}
    for bucket in _dir_entries(os.path.join(root, "chats")):
        for chat in _dir_entries(bucket.path):
            if chat.name not in chats:
                chats[chat.name] = Path(chat.path)
    return chats


def _dir_entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return sorted((e for e in found if e.is_dir()), key=lambda e: e.name)
    except OSError:
        return []


def read_chat_meta(chat_dir: Path) -> ChatMeta | None:
    """The chat's ``meta.json``, or None when it is missing or not a JSON object."""
    try:
        data = orjson.loads(read_regular(chat_dir / "meta.json", META_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    cwd, title = data.get("cwd"), data.get("title")
    cwd = cwd if isinstance(cwd, str) else ""
    title = title if isinstance(title, str) else ""
    md5 = hashlib.md5(cwd.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()
    return ChatMeta(
        cwd=cwd,
        title=title,
        created=_from_ms(data.get("createdAtMs")),
        updated=_from_ms(data.get("updatedAtMs")),
        verified=bool(cwd) and md5 == chat_dir.parent.name,
    )


def _from_ms(value: Any) -> datetime | None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def read_store(store_db: Path, problems: Counter[str] | None = None, *, with_results: bool = True) -> StoreChat:
    """The chat's name and tool results from its ``store.db``; empty when unreadable.

    Opened read-only through SQLite (so a pending WAL is read too), the tree
    walked from ``latestRootBlobId`` only: earlier roots are kept in the store
    and list a prefix of the same messages. A child whose bytes do not hash to
    its id, or that is missing, is counted in ``problems`` and skipped.
    ``with_results=False`` reads the name alone.
    """
    problems = Counter() if problems is None else problems
    try:
        check_regular_database(store_db)
        db = sqlite3.connect(f"{store_db.resolve().as_uri()}?mode=ro", uri=True)
    except (sqlite3.Error, OSError):
        problems[UNREADABLE_STORE] += 1
        return StoreChat()
    try:
        row = db.execute("SELECT value FROM meta ORDER BY key != '0' LIMIT 1").fetchone()
        named = _name_and_root(row[0] if row else None)
        if named is None:
            problems[UNREADABLE_STORE] += 1
            return StoreChat()
        name, root_id = named
        if not with_results or not root_id:
            return StoreChat(name=name)
        return StoreChat(name=name, tool_results=_tool_results(_messages(db, root_id, problems)))
    except sqlite3.Error:
        problems[UNREADABLE_STORE] += 1
        return StoreChat()
    finally:
        db.close()


def _messages(db: sqlite3.Connection, root_id: str, problems: Counter[str]) -> Iterator[dict[str, Any]]:
    """The root's children in order, each a JSON object; one at a time, as stores run to 100 MB."""
    root = _blob(db, root_id, problems)
    for child in root_children(root or b"", problems):
        data = _blob(db, child, problems)
        if data is None:
            continue
        message = _json_object(data)
        if message is None:
            problems[NOT_A_MESSAGE] += 1
        else:
            yield message


def _name_and_root(value: Any) -> tuple[str, str] | None:
    """``name`` and ``latestRootBlobId`` from the meta row, and nothing else (it may hold a key).

    The row is hex of UTF-8 JSON as cursor-agent writes it; plain JSON is read too.
    """
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    try:
        raw = bytes.fromhex(value.strip())
    except ValueError:
        raw = value.encode()
    meta = _json_object(raw)
    if meta is None:
        return None
    name, root_id = meta.get("name"), meta.get("latestRootBlobId")
    return (name if isinstance(name, str) else "", root_id.lower() if isinstance(root_id, str) else "")


def _json_object(data: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _blob(db: sqlite3.Connection, blob_id: str, problems: Counter[str]) -> bytes | None:
    """The blob's bytes when present and hashing to ``blob_id``."""
    row = db.execute("SELECT data FROM blobs WHERE id = ?", (blob_id,)).fetchone()
    if row is None or row[0] is None:
        problems[MISSING_BLOB] += 1
        return None
    data = row[0].encode() if isinstance(row[0], str) else bytes(row[0])
    if hashlib.sha256(data).hexdigest() != blob_id:
        problems[DIGEST_MISMATCH] += 1
        return None
    return data


class _Malformed(Exception):
    pass


def root_children(root: bytes, problems: Counter[str] | None = None) -> list[str]:
    """The hex ids in a root blob's repeated field 1 (length 32), in order.

    Every other field is skipped by its wire type. Field 2 also carries 32-byte
    values in some tree nodes, but it is not the message list of the roots read
    so far, so it is not followed. A malformed field ends the walk: the ids
    before it are kept and ``problems`` counts :data:`MALFORMED_ROOT`.
    """
    children = []
    try:
        for number, value in _fields(root):
            if number == 1 and isinstance(value, bytes) and len(value) == 32:
                children.append(value.hex())
    except _Malformed:
        if problems is not None:
            problems[MALFORMED_ROOT] += 1
    return children


def _fields(data: bytes) -> Iterator[tuple[int, bytes | int]]:
    """Protobuf wire format: (field number, varint value or raw bytes) for each field."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed
        if wire == 0:
            value, pos = _varint(data, pos)
            yield number, value
            continue
        if wire == 2:
            size, pos = _varint(data, pos)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
        else:
            raise _Malformed
        if pos + size > len(data):
            raise _Malformed
        yield number, data[pos : pos + size]
        pos += size


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise _Malformed


# --- tool calls and their results -------------------------------------------


def normalise_tool_name(name: str) -> str:
    """A tool name as current builds spell it: ``run_terminal_cmd`` → ``Shell``, ``todo_write`` → ``TodoWrite``."""
    if name in _RENAMED_TOOLS:
        return _RENAMED_TOOLS[name]
    if _SNAKE_CASE.fullmatch(name):
        return "".join(word.capitalize() for word in name.split("_"))
    return name


def canonical_args(args: Any) -> str:
    """A call's arguments as sorted-key JSON, so equal arguments compare equal however they were ordered."""
    return orjson.dumps(args if isinstance(args, dict) else {}, option=orjson.OPT_SORT_KEYS).decode()


def _tool_results(messages: Iterable[dict[str, Any]]) -> list[StoreToolResult]:
    """Each assistant ``tool-call`` joined by ``toolCallId`` to its ``tool-result``, in call order."""
    calls: list[tuple[str, str, str]] = []
    results: dict[str, tuple[str, int | None]] = {}
    for message in messages:
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, dict):
                continue
            call_id, name = part.get("toolCallId"), part.get("toolName")
            if not isinstance(call_id, str) or not isinstance(name, str):
                continue
            name = normalise_tool_name(name)
            if name in _SKIPPED_RESULTS:
                continue
            if part.get("type") == "tool-call" and message.get("role") == "assistant":
                calls.append((call_id, name, canonical_args(part.get("args"))))
            elif part.get("type") == "tool-result":
                results.setdefault(call_id, _result(name, part, message))
    return [
        StoreToolResult(name=name, args_key=key, text=results[call_id][0], exit_code=results[call_id][1])
        for call_id, name, key in calls
        if call_id in results
    ]


def _result(name: str, part: dict[str, Any], message: dict[str, Any]) -> tuple[str, int | None]:
    """A result's text and (for Shell) exit status.

    The text is ``result`` (a string or ``{type: "text"}`` parts), else
    ``experimental_content``. For Shell, what the text lacks is taken from the
    message's ``providerOptions.cursor.highLevelToolCallResult.output``
    (``success`` or ``failure``: ``exitCode``, ``stdout``/``stderr``).
    """
    text = _text_of(part.get("result")) or _text_of(part.get("experimental_content"))
    if name != "Shell":
        return cap_text(text), None
    output, exit_code = split_shell_output(text)
    outcome = _dig(message, "providerOptions", "cursor", "highLevelToolCallResult", "output")
    outcome = _dig(outcome, "success") or _dig(outcome, "failure")
    outcome = outcome if isinstance(outcome, dict) else {}
    if exit_code is None and isinstance(outcome.get("exitCode"), int):
        exit_code = outcome["exitCode"]
    if not output:
        output = "\n".join(s for s in (outcome.get("stdout"), outcome.get("stderr")) if isinstance(s, str) and s)
    return cap_text(output), exit_code


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            p["text"]
            for p in value
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    return ""


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


_UNTRUSTED = re.compile(
    r"\A\s*<cursor_untrusted_data_redacted\b[^>]*>\n?(.*?)\n?</cursor_untrusted_data_redacted>\s*\Z", re.S
)
_EXIT_CODE = re.compile(r"^Exit code: (-?\d+)[ \t]*$", re.M)
_OUTPUT_FENCE = re.compile(r"^Command output:[ \t]*\n\s*```[^\n]*\n", re.M)
_FRAMING = re.compile(
    r"(?:Exit code: -?\d+|Command output:|Command completed in .*|Shell state .*persists.*"
    r"|Current directory: .*|This command ran outside the sandbox.*)\s*"
)


def split_shell_output(text: str) -> tuple[str, int | None]:
    """A Shell result's printed output without Cursor's framing, and its ``Exit code``.

    The output is the fenced block after ``Command output:`` (up to the last
    fence); without a fence, the text less its framing lines. An
    ``<cursor_untrusted_data_redacted>`` wrapper is removed first.
    """
    wrapped = _UNTRUSTED.match(text)
    if wrapped:
        text = wrapped[1]
    code = _EXIT_CODE.search(text)
    exit_code = int(code[1]) if code else None
    fence = _OUTPUT_FENCE.search(text)
    if fence:
        body = text[fence.end() :]
        close = body.rfind("```")
        if close >= 0:
            return body[:close].removesuffix("\n"), exit_code
        text = body
    kept = [line for line in text.split("\n") if not _FRAMING.fullmatch(line)]
    return "\n".join(kept).strip("\n"), exit_code


def attach_tool_results(messages: list[Message], results: list[StoreToolResult]) -> int:
    """Give each transcript tool call the result of the store's call with the same tool and arguments.

    Transcript calls carry no id and the store has calls the transcript lacks
    (GetDynamicTools…), so pairing is by (normalised name, sorted-key arguments),
    the earliest unused store call first. Returns how many calls were paired.
    """
    waiting: dict[tuple[str, str], deque[StoreToolResult]] = {}
    for result in results:
        waiting.setdefault((result.name, result.args_key), deque()).append(result)
    paired = 0
    for message in messages:
        for call in message.tool_calls:
            queue = waiting.get((normalise_tool_name(call.name), canonical_args(call.args)))
            if queue:
                result = queue.popleft()
                call.result, call.exit_code = result.text, result.exit_code
                paired += 1
    return paired


def chat_title(store: StoreChat | None, meta: ChatMeta | None, messages: list[Message]) -> str:
    """The store's name unless a placeholder ("New Agent"…), else meta.json's title, else the first question."""
    for name in (store.name if store else "", meta.title if meta else ""):
        if name.strip().lower() not in _PLACEHOLDER_TITLES:
            return name.strip()
    return next((one_line(m.text) for m in messages if m.role == "user" and one_line(m.text)), "")
