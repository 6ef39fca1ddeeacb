"""preCompact / sessionEnd: ingest the closing conversation so the next session can recall it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson

from .call import HookCall, log, request_build

#: How long to wait for another writer before handing the ingest to a background process.
LOCK_SECONDS = 3.0
#: Set in that background process: it waits longer for the lock, but never without a bound.
WAIT_VARIABLE = "DEJA_INGEST_WAIT"
#: How long that background process waits before giving up (the next refresh picks the chat up anyway).
BACKGROUND_LOCK_SECONDS = 300.0


def session_end(call: HookCall) -> str:
    from ..core.index import MANIFEST, index_dir

    if call.event.lower() == "precompact":
        call.forget()  # the compacted conversation no longer holds what it was shown
    ids = set(call.conversation_ids)
    transcript = call.payload.get("transcript_path")
    if isinstance(transcript, str) and transcript.endswith(".jsonl"):
        ids.add(Path(transcript).stem)
    if not (index_dir(call.home) / MANIFEST).exists():
        request_build(call.home)
        return ""
    from ..core.indexer import refresh

    in_background = os.environ.get(WAIT_VARIABLE) == "1"
    wait = BACKGROUND_LOCK_SECONDS if in_background else LOCK_SECONDS
    try:
        result = refresh(call.home, only_chat_ids=ids, lock_timeout=wait)
    except TimeoutError:
        if in_background:
            log(
                f"{call.event}: the index stayed locked for {wait:.0f} s; gave up on {sorted(ids)} until the next refresh"
            )
        else:
            log(
                f"{call.event}: the index stayed locked for {wait:.0f} s; a background process will ingest {sorted(ids)}"
            )
            _ingest_later(call.payload)
        return ""
    log(f"{call.event}: ingested {sorted(ids)}: {result.added} added, {result.updated} updated")
    return ""


def _ingest_later(payload: dict) -> None:
    """The same hook, detached, with the same payload, waiting for the writer lock."""
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "deja.interfaces.entry", "hook-session-end"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, WAIT_VARIABLE: "1"},
            start_new_session=True,
            close_fds=True,
        )
        stdin = process.stdin
        assert stdin is not None  # stdin=PIPE
        stdin.write(orjson.dumps(payload))
        stdin.close()
    except OSError as exc:
        log(f"cannot start a background ingest: {exc}")
