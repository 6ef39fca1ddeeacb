"""Build real cursor-agent CLI history, for tests and the shipped sample history.

Two stores per chat, laid out as cursor-agent lays them out (README "What deja reads"; read back by
``readers/transcripts.py`` and ``readers/chatstore.py``):

- the JSONL transcript ``projects/<encoded cwd>/agent-transcripts/<id>/<id>.jsonl``
  (under the data root, ``$CURSOR_DATA_DIR``);
- the chat folder ``chats/<md5 of cwd>/<id>/`` (or ``acp-sessions/<id>/``, under the
  config root) holding ``meta.json`` and a SQLite ``store.db`` whose blobs are
  content-addressed (id = sha256 hex of the bytes), with a protobuf root blob
  listing the message blobs (or nodes carrying a message and its time) in order.

A chat may have either store, or both.

Records are plain dicts so a test can write any shape, malformed ones included;
the helpers below build the common ones.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ..readers.projects import slug_of

#: 2026-07-26T10:06:00Z, the default creation time of a written chat.
DEFAULT_CREATED_MS = 1785060360000


# --- transcripts -----------------------------------------------------------


def encode_project_path(cwd: str) -> str:
    """Cursor's project folder name (``projects/<slug>``): every run of characters outside [A-Za-z0-9] becomes one
    '-', leading and trailing ones trimmed, as cursor-agent 2026.10 writes it (``/tmp/code/café-app`` is
    ``tmp-code-caf-app``, ``/tmp/code/支付服务`` is ``tmp-code``: its parent's)."""
    return slug_of(cwd)


def transcript_path(cli_root: Path, cwd: str, chat_id: str, *, nested: bool = True) -> Path:
    """Where cursor-agent writes a chat's transcript: nested ``<id>/<id>.jsonl`` or the older flat ``<id>.jsonl``."""
    folder = cli_root / "projects" / encode_project_path(cwd) / "agent-transcripts"
    return folder / chat_id / f"{chat_id}.jsonl" if nested else folder / f"{chat_id}.jsonl"


def write_transcript(path: Path, records: Iterable[dict[str, Any] | str]) -> Path:
    """Write ``records`` as JSONL, one per line; a ``str`` is written as the raw line (for corrupt lines)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        for record in records:
            out.write(record.encode() if isinstance(record, str) else orjson.dumps(record))
            out.write(b"\n")
    return path


def format_stamp(when: datetime) -> str:
    """``when`` as Cursor writes it in a ``<timestamp>`` block: ``Sunday, Jul 26, 2026, 1:06 PM (UTC+3)``."""
    offset = when.utcoffset()
    zone = ""
    if offset is not None:
        minutes = int(offset.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        hours, rest = divmod(abs(minutes), 60)
        zone = f" (UTC{sign}{hours}{f':{rest:02d}' if rest else ''})"
    hour = when.hour % 12 or 12
    return f"{when:%A}, {when:%b} {when.day}, {when.year}, {hour}:{when:%M} {when:%p}{zone}"


def user_turn(query: str, stamp: datetime | str | None = None) -> dict[str, Any]:
    """A user record as cursor-agent writes it: ``<timestamp>…</timestamp>`` (when given), then ``<user_query>``.

    ``stamp`` is an aware datetime, or the block's literal text (to write odd or unreadable stamps).
    """
    text = f"<user_query>\n{query}\n</user_query>"
    if stamp is not None:
        literal = format_stamp(stamp) if isinstance(stamp, datetime) else stamp
        text = f"<timestamp>{literal}</timestamp>\n{text}"
    return {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}


def tool_use(name: str, input: dict[str, Any]) -> dict[str, Any]:
    """A transcript ``tool_use`` part: Cursor's have a name and input but no id."""
    return {"type": "tool_use", "name": name, "input": input}


def assistant_turn(text: str | None = None, *tool_uses: dict[str, Any]) -> dict[str, Any]:
    """An assistant record with an optional text part followed by ``tool_use`` parts."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text is not None else []
    parts.extend(tool_uses)
    return {"role": "assistant", "message": {"content": parts}}


def turn_ended(status: str = "success") -> dict[str, Any]:
    return {"type": "turn_ended", "status": status}


# --- the chat store --------------------------------------------------------


def chat_dir_for(cli_root: Path, cwd: str, chat_id: str) -> Path:
    """``chats/<md5 hex of cwd>/<chat_id>``: where cursor-agent keeps a chat's ``meta.json`` and ``store.db``."""
    return cli_root / "chats" / hashlib.md5(cwd.encode(), usedforsecurity=False).hexdigest() / chat_id


def acp_dir_for(config_root: Path, chat_id: str) -> Path:
    """``acp-sessions/<chat_id>``: a chat started through the Agent Client Protocol."""
    return config_root / "acp-sessions" / chat_id


def blob_id(data: bytes) -> str:
    """A store blob's id: the lowercase sha256 hex of its bytes."""
    return hashlib.sha256(data).hexdigest()


def tool_call_part(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A Vercel AI SDK ``tool-call`` part, as in an assistant message of the store."""
    return {"type": "tool-call", "toolCallId": call_id, "toolName": name, "args": args}


def tool_result_message(call_id: str, name: str, result: Any, **extra: Any) -> dict[str, Any]:
    """A store ``tool`` message holding one ``tool-result`` part; ``extra`` adds message fields (``providerOptions``)."""
    part: dict[str, Any] = {"type": "tool-result", "toolCallId": call_id, "toolName": name, "result": result}
    if isinstance(result, str):
        part["experimental_content"] = [{"type": "text", "text": result}]
    return {"role": "tool", "id": call_id, "content": [part], **extra}


def store_user_message(query: str, stamp: datetime | str | None = None) -> dict[str, Any]:
    """A store ``user`` message holding a question as cursor-agent stores it (the transcript's text, as parts)."""
    text = user_turn(query, stamp)["message"]["content"][0]["text"]
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "providerOptions": {"cursor": {"requestId": blob_id(text.encode())[:36]}},
    }


def store_assistant_message(text: str | None = None, *calls: dict[str, Any]) -> dict[str, Any]:
    """A store ``assistant`` message: reasoning, an optional text part, then ``tool-call`` parts."""
    parts: list[dict[str, Any]] = [{"type": "reasoning", "text": "", "signature": "sig"}]
    if text is not None:
        parts.append({"type": "text", "text": text})
    parts.extend(calls)
    return {"role": "assistant", "id": "1", "content": parts}


def store_preamble(cwd: str) -> list[dict[str, Any]]:
    """What a store holds before the first question: the system prompt, ``<user_info>``, ``<rules>`` and skills."""
    return [
        {"role": "system", "content": "You are an AI coding assistant, powered by Composer."},
        {
            "role": "user",
            "content": f"<user_info>\nOS Version: linux 6.8\nShell: bash\nWorkspace Path: {cwd}\n</user_info>",
        },
        {
            "role": "user",
            "content": "<rules>\n<always_applied_workspace_rule>Use pytest.</always_applied_workspace_rule>\n</rules>",
        },
        {"role": "user", "content": '<agent_skills>\n<skill name="deja-history"/>\n</agent_skills>'},
    ]


def shell_result_text(output: str, exit_code: int = 0, *, millis: int = 51) -> str:
    """A Shell tool result framed as cursor-agent frames it (``readers/conversation.py`` takes the frame off)."""
    return (
        f"Exit code: {exit_code}\n\nCommand output:\n\n```\n{output}\n```\n\n"
        f"Command completed in {millis} ms.\n\nShell state (cwd, env vars) persists for subsequent calls."
    )


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, wire: int, payload: bytes | int) -> bytes:
    """One protobuf field; ``payload`` is a varint value (wire 0) or raw bytes (wires 1, 2, 5)."""
    key = _varint(number << 3 | wire)
    if wire == 0:
        assert isinstance(payload, int)
        return key + _varint(payload)
    assert isinstance(payload, bytes)
    return key + (_varint(len(payload)) + payload if wire == 2 else payload)


def encode_root(children: list[str], *, cwd: str = "/", extra_fields: bool = True) -> bytes:
    """A root blob: repeated field 1 holding each child's raw 32-byte digest, in order.

    ``extra_fields`` surrounds the list with fields a reader must skip, as in real
    roots (varint 10, a nested token breakdown 5, strings 9/21/22) plus a 64-bit, a
    32-bit and a field-2 digest that points at nothing.
    """
    listing = b"".join(_field(1, 2, bytes.fromhex(child)) for child in children)
    if not extra_fields:
        return listing
    breakdown = (
        _field(1, 0, 12315) + _field(2, 0, 200000) + _field(3, 2, _field(1, 2, b"system_prompt") + _field(3, 0, 480))
    )
    before = _field(10, 0, 1) + _field(5, 2, breakdown) + _field(7, 1, DEFAULT_CREATED_MS.to_bytes(8, "little"))
    after = (
        _field(2, 2, hashlib.sha256(b"not a blob").digest())
        + _field(9, 2, f"file://{cwd}".encode())
        + _field(21, 2, _field(1, 2, cwd.encode()) + _field(2, 2, b"main"))
        + _field(22, 2, b"cli")
        + _field(8, 5, (7).to_bytes(4, "little"))
    )
    return before + listing + after


def encode_node(message: dict[str, Any], millis: int) -> bytes:
    """A tree node carrying one message (field 4, its JSON) and its time (field 26, epoch ms)."""
    return _field(4, 2, orjson.dumps(message)) + _field(26, 0, millis)


def write_chat_store(
    chat_dir: Path,
    *,
    cwd: str | None,
    messages: Sequence[dict[str, Any] | str | bytes],
    name: str = "New Agent",
    meta_hex: bool = True,
    extra_root_fields: bool = True,
    title: str | None = None,
    created_ms: int = DEFAULT_CREATED_MS,
    stale_root: bool = True,
    root_tail: bytes = b"",
    encryption_key: str | None = None,
    updated_ms: int | None = None,
    meta_times: bool = True,
    message_times: Sequence[int | None] | None = None,
) -> list[str]:
    """Write ``meta.json`` and ``store.db`` for one chat; return the message blob ids in order.

    Each message is stored as a blob under its sha256 id: a dict as JSON, a str as
    UTF-8 text, bytes as they are. ``cwd=None`` leaves it out of ``meta.json``.
    ``meta_hex`` stores the meta row as hex of its JSON (as cursor-agent does) rather
    than plain JSON. ``stale_root`` also keeps an earlier root listing all but the
    last message, as real stores do. ``root_tail`` is appended to the latest root's
    bytes (to write a malformed protobuf). ``encryption_key`` writes a
    ``blobEncryptionKey`` into the meta row, as newer builds do. ``meta_times=False``
    leaves the times out of ``meta.json`` (as in ``acp-sessions``); ``updated_ms``
    is its ``updatedAtMs`` (a minute after creation by default). A dict message
    whose ``message_times`` entry is set is stored as a node carrying its time.
    """
    chat_dir.mkdir(parents=True, exist_ok=True)
    meta_file: dict[str, Any] = {"schemaVersion": 1}
    if meta_times:
        meta_file["createdAtMs"] = created_ms
        meta_file["hasConversation"] = True
        meta_file["updatedAtMs"] = created_ms + 60_000 if updated_ms is None else updated_ms
    if cwd is not None:
        meta_file["cwd"] = cwd
    if title is not None:
        meta_file["title"] = title
    (chat_dir / "meta.json").write_bytes(orjson.dumps(meta_file))

    times = message_times or [None] * len(messages)
    blobs = [_child_bytes(m, when) for m, when in zip(messages, times, strict=True)]
    ids = [blob_id(b) for b in blobs]
    roots = [encode_root(ids[:-1], cwd=cwd or "/", extra_fields=extra_root_fields)] if stale_root and ids else []
    roots.append(encode_root(ids, cwd=cwd or "/", extra_fields=extra_root_fields) + root_tail)

    meta: dict[str, Any] = {
        "agentId": chat_dir.name,
        "latestRootBlobId": blob_id(roots[-1]),
        "name": name,
        "mode": "default",
        "createdAt": created_ms,
        "lastUsedModel": "composer-2-fast",
    }
    if encryption_key is not None:
        meta["blobEncryptionKey"] = encryption_key
    meta_json = orjson.dumps(meta)
    meta_value = meta_json.hex() if meta_hex else meta_json.decode()

    store_db = chat_dir / "store.db"
    store_db.unlink(missing_ok=True)
    db = sqlite3.connect(store_db)
    try:
        db.execute("PRAGMA synchronous=OFF")  # a written test or sample store needs no crash safety
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA user_version=1")
        db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        rows = {blob_id(b): b for b in [*blobs, *roots]}
        db.executemany("INSERT INTO blobs (id, data) VALUES (?, ?)", rows.items())
        db.execute("INSERT INTO meta (key, value) VALUES ('0', ?)", (meta_value,))
        db.commit()
    finally:
        db.close()
    return ids


def _child_bytes(message: dict[str, Any] | str | bytes, millis: int | None) -> bytes:
    if isinstance(message, bytes):
        return message
    if isinstance(message, str):
        return message.encode()
    return orjson.dumps(message) if millis is None else encode_node(message, millis)
