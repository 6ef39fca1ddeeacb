"""cursor-agent's per-chat store: ``chats/<md5 of cwd>/<chat id>/`` (or ``acp-sessions/<id>/``) with ``meta.json`` and ``store.db``.

The store holds the whole conversation. Where a transcript exists, it is the
session and the store adds what it lacks: the tool results (paired with each
transcript call by tool and arguments), the turns only the store holds
(``cursor_agent.with_store_turns``) and the chat's name. Where none does, the
store's conversation is the session (:mod:`.conversation`).

``store.db`` is content-addressed: ``blobs(id, data)`` with id = sha256 hex of the
data, and a ``meta`` row of hex-encoded JSON naming ``latestRootBlobId``. The
root is protobuf whose repeated field 1 lists the message blobs' raw digests in
order; each message is Vercel AI SDK JSON (read by :mod:`.conversation`). The meta row
of newer builds also holds ``blobEncryptionKey``, which is never kept. A child
is a message blob, or a protobuf node carrying the message JSON in field 4 and
its time (epoch ms) in field 26.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..digests import folder_md5, sha256_hex
from ..lean_msgspec import msgspec
from ..lines import first_line, one_line
from ..model import Message
from ..regular_files import read_regular, subfolders
from . import jsonvalue
from .conversation import Child, canonical_args, normalise_tool_name, store_conversation
from .pairing import Pass, call_target, pair_calls, target_of, whole_call
from .vscdb import note_failed_read, read_whole

UNREADABLE_STORE = "unreadable store.db"
MALFORMED_ROOT = "malformed store root"
MISSING_BLOB = "store blob missing"
DIGEST_MISMATCH = "store blob digest mismatch"
NOT_A_MESSAGE = "store child not a message"
EMPTY_ROOT = "store root lists no message"

#: A chat's meta.json holds a title and a few fields; one larger than this is not Cursor's.
META_BYTES = 1 << 20

_PLACEHOLDER_TITLES = frozenset({"", "new agent", "new chat", "new composer", "untitled"})


#: A store read with no timeout would wait 5 s on a lock; cursor-agent's writes are shorter.
_BUSY_TIMEOUT_SECONDS = 0.5
ACP_FOLDER = "acp-sessions"
STORE_DB = "store.db"


class ChatMeta(msgspec.Struct):
    """A chat's ``meta.json``."""

    cwd: str = ""
    title: str = ""
    created: datetime | None = None
    updated: datetime | None = None
    #: The folder above the chat is md5(cwd): the cwd is the one cursor-agent files the chat under.
    verified: bool = False
    #: False when cursor-agent says the chat never had a conversation (it writes no store.db then).
    has_conversation: bool = True

    @property
    def project_dir(self) -> str:
        """The ``cwd`` when it is trusted (``trusted_cwd``); else ""."""
        return trusted_cwd(self.cwd, self.verified)


def preamble_folder(chat_dir: Path, workspace: str) -> str:
    """The folder a store's ``Workspace Path:`` line names, when it may place a chat whose ``meta.json`` has no
    ``cwd``: the chat is filed under its md5, or (``acp-sessions``, filed under no folder's md5) it exists. Filed
    under another folder's md5, the chat is that folder's (``Projects.settle``), not the line's."""
    verified = bool(workspace) and folder_md5(workspace) == chat_dir.parent.name
    return trusted_cwd(workspace, verified) if verified or is_acp_chat(chat_dir) else ""


def trusted_cwd(cwd: str, verified: bool) -> str:
    """``cwd`` when a chat's ``meta.json`` may be believed: the chat is filed under its md5 (``verified``), or it
    is a directory that exists; else ""."""
    return cwd if cwd and (verified or os.path.isdir(cwd)) else ""


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
    #: The meta row's ``createdAt``.
    created: datetime | None = None
    #: Tool calls that have a result, in message order.
    tool_results: list[StoreToolResult] = []
    #: The conversation.
    messages: list[Message] = []
    #: A message's time was known (a ``<timestamp>`` block or a node's time).
    dated: bool = False
    #: The folder the ``<user_info>`` preamble names (``Workspace Path:``), or "".
    workspace: str = ""
    #: The store could not be read this time (locked, not a database, no meta row): nothing above is known.
    unreadable: bool = False


def find_chat_dirs(root: Path) -> dict[str, str]:
    """Chat id → its ``root/chats/<hash>/<id>`` or ``root/acp-sessions/<id>`` folder (the first one found wins), as a
    string: a walk finds every chat each time, and a ``Path`` for each cost more than its folder's listing."""
    chats: dict[str, str] = {}
    for folder in chat_folders(root):
        for chat in subfolders(folder):
            chats.setdefault(chat.name, chat.path)
    return chats


def newest_chat_dir(first: Path, *others: Path) -> Path:
    """Of one chat's folders under several roots, the copy written last: a chat resumed after cursor-agent's root
    moved (``XDG_CONFIG_HOME`` or ``CURSOR_CONFIG_DIR`` set since) grows in the new root while the old copy stays
    behind, and reading the old one would drop the later turns. Written last is meta.json's ``updatedAtMs``
    (cursor-agent's own record, kept by a copy or a backup), then the store's own files' modification time; on a
    tie, the first. A copy holding a ``store.db`` comes before one without: cursor-agent writes ``meta.json`` when
    a chat starts and the store only once it talks, so a later ``meta.json`` alone holds nothing to read."""
    return max((first, *others), key=_written) if others else first


def _written(chat_dir: Path) -> tuple[bool, datetime, int]:
    meta = read_chat_meta(chat_dir)
    updated = (meta.updated if meta else None) or datetime.fromtimestamp(0, tz=UTC)
    times = {}
    for name in (STORE_DB, STORE_DB + "-wal"):
        try:
            times[name] = os.stat(chat_dir / name).st_mtime_ns
        except OSError:
            continue
    return STORE_DB in times, updated, max(times.values(), default=0)


def chat_folders(root: str | Path) -> list[str]:
    """The folders of ``root`` that hold chats, in the order they are searched: every ``chats/<hash>`` bucket by
    name, then ``acp-sessions``. A chat id found in two of them is the first one's (``find_chat_dirs``)."""
    return [*(bucket.path for bucket in subfolders(os.path.join(root, "chats"))), os.path.join(root, ACP_FOLDER)]


def is_acp_chat(chat_dir: Path) -> bool:
    """A chat started through the Agent Client Protocol (``acp-sessions/<id>``), which ``--resume`` does not list."""
    return chat_dir.parent.name == ACP_FOLDER


def read_chat_meta(chat_dir: Path) -> ChatMeta | None:
    """The chat's ``meta.json``, or None when it is missing or not a JSON object."""
    try:
        data = jsonvalue.strict_loads(read_regular(chat_dir / "meta.json", META_BYTES))
    except (OSError, jsonvalue.NotJson):
        return None
    if not isinstance(data, dict):
        return None
    cwd, title = data.get("cwd"), data.get("title")
    cwd = cwd if isinstance(cwd, str) else ""
    title = title if isinstance(title, str) else ""
    md5 = folder_md5(cwd)
    return ChatMeta(
        cwd=cwd,
        title=title,
        created=_from_ms(data.get("createdAtMs")),
        updated=_from_ms(data.get("updatedAtMs")),
        verified=bool(cwd) and md5 == chat_dir.parent.name,
        has_conversation=data.get("hasConversation") is not False,
    )


def _from_ms(value: Any) -> datetime | None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def read_store(store_db: Path, problems: Counter[str] | None = None) -> StoreChat:
    """The chat's name, its whole conversation and its tool results from its ``store.db``.

    Opened by :func:`.vscdb.read_whole` (a pending WAL is read too, no file is
    left beside the store, a store changed under the read is read again), the tree
    walked from ``latestRootBlobId`` only: earlier roots are kept in the store
    and list a prefix of the same messages. A child whose bytes do not hash to
    its id, or that is missing, is counted in ``problems`` and skipped. The
    conversation is read whole even beside a transcript: the store is a full
    source (cursor-drift-2026 §10) and may hold turns the transcript lacks. A
    store that cannot be read (locked, not a database, no meta row) is counted
    and comes back ``unreadable``.
    """
    problems = Counter() if problems is None else problems
    seen: Counter[str] = Counter()

    def read(db: sqlite3.Connection) -> StoreChat | None:
        seen.clear()  # a read that is retried counts its problems once
        row = db.execute("SELECT value FROM meta ORDER BY key != '0' LIMIT 1").fetchone()
        meta = _store_meta(row[0] if row else None)
        if meta is None:
            return None
        found = StoreChat(name=meta.name, created=meta.created)
        if meta.root_id:
            found.messages, found.dated, found.workspace = store_conversation(_children(db, meta.root_id, seen))
            found.tool_results = _tool_results(found.messages)
        return found

    try:
        found = read_whole(store_db, read, _BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error as error:
        note_failed_read(store_db, error)
        found = None
    except (OSError, ValueError):
        found = None
    if found is None:
        problems[UNREADABLE_STORE] += 1
        return StoreChat(unreadable=True)
    problems.update(seen)
    return found


def store_problem(store_db: Path) -> str:
    """Why a store holds nothing deja can read, or "" when its latest root lists messages (doctor's check).

    Reads the meta row and the root alone, not the messages.
    """

    def read(db: sqlite3.Connection) -> str:
        row = db.execute("SELECT value FROM meta ORDER BY key != '0' LIMIT 1").fetchone()
        meta = _store_meta(row[0] if row else None)
        if meta is None:
            return UNREADABLE_STORE
        root = _blob(db, meta.root_id, Counter()) if meta.root_id else None
        return "" if root_children(root or b"") else EMPTY_ROOT

    try:
        return read_whole(store_db, read, _BUSY_TIMEOUT_SECONDS)
    except (sqlite3.Error, OSError, ValueError):
        return UNREADABLE_STORE


class _StoreMeta(msgspec.Struct):
    name: str
    root_id: str
    created: datetime | None


def _children(db: sqlite3.Connection, root_id: str, problems: Counter[str]) -> Iterator[Child]:
    """The root's children in order, each a JSON object with its node's time if it has one.

    One at a time, as stores run to 100 MB.
    """
    root = _blob(db, root_id, problems)
    for child in root_children(root or b"", problems):
        data = _blob(db, child, problems)
        if data is None:
            continue
        found = _child_message(data)
        if found is None:
            problems[NOT_A_MESSAGE] += 1
        else:
            yield found


def _child_message(data: bytes) -> Child | None:
    """A message blob's JSON, or a node's field 4 (the message JSON) with its field 26 (epoch ms)."""
    if data[:1] == b"{":
        message = _json_object(data)
        return (message, None) if message is not None else None
    embedded: bytes | None = None
    millis: int | None = None
    try:
        for number, value in _fields(data):
            if number == 4 and isinstance(value, bytes):
                embedded = value
            elif number == 26 and isinstance(value, int):
                millis = value
    except _Malformed:
        return None
    message = _json_object(embedded) if embedded else None
    return (message, _from_ms(millis)) if message is not None else None


def _store_meta(value: Any) -> _StoreMeta | None:
    """``name``, ``latestRootBlobId`` and ``createdAt`` from the meta row, and nothing else (it may hold a key).

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
    name, root_id, created = meta.get("name"), meta.get("latestRootBlobId"), meta.get("createdAt")
    if isinstance(created, str) and created.strip().isdigit():
        created = int(created)
    return _StoreMeta(
        name=name if isinstance(name, str) else "",
        root_id=root_id.lower() if isinstance(root_id, str) else "",
        created=_from_ms(created),
    )


def _json_object(data: bytes) -> dict[str, Any] | None:
    try:
        value = jsonvalue.loads(data)
    except jsonvalue.NotJson:
        return None
    return value if isinstance(value, dict) else None


def _blob(db: sqlite3.Connection, blob_id: str, problems: Counter[str]) -> bytes | None:
    """The blob's bytes when present and hashing to ``blob_id``."""
    row = db.execute("SELECT data FROM blobs WHERE id = ?", (blob_id,)).fetchone()
    if row is None or row[0] is None:
        problems[MISSING_BLOB] += 1
        return None
    data = row[0].encode() if isinstance(row[0], str) else bytes(row[0])
    if sha256_hex(data) != blob_id:
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


def _tool_results(messages: Iterable[Message]) -> list[StoreToolResult]:
    """Each of the conversation's tool calls that has a result (joined by ``toolCallId`` as the store was read),
    in call order, keyed for pairing with a transcript's calls."""
    return [
        StoreToolResult(
            name=normalise_tool_name(call.name),
            args_key=canonical_args(call.args),
            text=call.result,
            exit_code=call.exit_code,
        )
        for message in messages
        for call in message.tool_calls
        if call.result is not None
    ]


def attach_tool_results(messages: list[Message], results: list[StoreToolResult], stored_calls: int = 0) -> int:
    """Give each transcript tool call the result of the store's call with the same tool and arguments.

    Transcript calls carry no id and the store has calls the transcript lacks
    (GetDynamicTools…), so pairing is by (normalised name, sorted-key arguments),
    the earliest unused store call first. A call left over is then paired by what it acted on, only where as many
    such calls are left on each side (``Pass.even``: else which result is whose is a guess, and no result is
    better than another call's). Returns how many calls were paired.

    The first ``stored_calls`` calls are a grown chat's, read back from the index: each still pairs (so that the
    calls after it pair as a whole read pairs them), but one that has a result keeps it, the index's copy of this
    same result, redacted and capped; the raw one put back made its message differ from the stored one, which was
    then redacted again on every read of the chat (``indexer.reads._as_stored``, review39a L7).
    """
    calls = [call for message in messages for call in message.tool_calls]
    passes = (Pass(whole_call, _result_call), Pass(target_of, _result_target, even=True))
    pairs = pair_calls(calls, results, passes)
    for at, result_at in pairs.items():
        if at < stored_calls and calls[at].result is not None:
            continue
        result = results[result_at]
        calls[at].result, calls[at].exit_code = result.text, result.exit_code
    return len(pairs)


def _result_call(result: StoreToolResult) -> tuple[str, str]:
    """A store call as ``pairing.whole_call`` keys a transcript's (the store keeps it normalised already)."""
    return result.name, result.args_key


def _result_target(result: StoreToolResult) -> tuple[str, str] | None:
    return call_target(result.name, jsonvalue.strict_loads(result.args_key.encode()))


def chat_title(store: StoreChat | None, meta: ChatMeta | None, messages: list[Message]) -> str:
    """The store's name unless a placeholder ("New Agent"…), else meta.json's title, else the first question's first
    line (``lines.first_line``: a paste's, its own words); on one line, as an editor chat's name is (``ide``): a title
    holding a newline printed over three lines in ``deja sessions``, a search hit's header and the hooks' context
    (trial46 F5)."""
    for name in (store.name if store else "", meta.title if meta else ""):
        if (flat := " ".join(name.split())).lower() not in _PLACEHOLDER_TITLES:
            return flat
    return next((first_line(m.text) for m in messages if m.role == "user" and one_line(m.text)), "")
