"""preCompact / sessionEnd: ingest the closing conversation so the next session can recall it.

cursor-agent exits a second or two after sending ``sessionEnd`` and takes the
hook's process group with it, so the hook only hands the work on: it starts a
detached process (a session and process group of its own, stdio closed) that
runs this hook again with ``DEJA_INGEST_WAIT=1``, and returns at once. That
process waits for the index's writer lock (a bounded while: the next refresh
picks the chat up anyway) and ingests. Where the OS can fork, the hook starts it
with ``os.fork`` and ``os.execv``: ``subprocess`` would cost it ``threading``,
``selectors``, ``signal`` and ``locale`` (about 2 ms) to start one process.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .call import HookCall, dump_json, request_build

#: Set in the detached process: it ingests, waiting for the writer lock.
WAIT_VARIABLE = "DEJA_INGEST_WAIT"
#: How long that process waits for the lock before giving up (the next refresh picks the chat up anyway).
BACKGROUND_LOCK_SECONDS = 300.0
#: What the detached process needs of the payload (the rest can be megabytes of nothing it reads).
KEPT_FIELDS = ("hook_event_name", "conversation_id", "session_id", "transcript_path", "cursor_version")


def session_end(call: HookCall) -> str:
    if os.environ.get(WAIT_VARIABLE) == "1":
        return _ingest(call)
    if call.event.lower() == "precompact":
        call.forget()  # the compacted conversation no longer holds what it was shown
    if not call.conversation_ids and not isinstance(call.payload.get("transcript_path"), str):
        return call.silent("no conversation id or transcript to ingest")
    pid = _ingest_later(call.payload)
    if pid is None:
        return call.silent("could not start the background ingest")
    return call.silent(f"ingesting in a background process (pid {pid})")


def _ingest(call: HookCall) -> str:
    from ..core.index import MANIFEST, index_dir
    from ..core.indexer import refresh

    ids = set(call.conversation_ids)
    transcript = call.payload.get("transcript_path")
    if isinstance(transcript, str) and transcript.endswith(".jsonl"):
        ids.add(Path(transcript).stem)
    if not (index_dir(call.home) / MANIFEST).exists():
        request_build(call.home)
        return call.silent("no index yet; requested a build")
    try:
        result = refresh(call.home, only_chat_ids=ids, lock_timeout=BACKGROUND_LOCK_SECONDS)
    except TimeoutError:
        return call.silent(
            f"the index stayed locked for {BACKGROUND_LOCK_SECONDS:.0f} s; gave up on {', '.join(sorted(ids))} until the next refresh"
        )
    return call.silent(f"ingested {', '.join(sorted(ids))}: {result.added} added, {result.updated} updated")


def _ingest_later(payload: dict) -> int | None:
    """This hook again, detached from the caller, with the payload's ids; its pid, or None when it cannot start."""
    kept = dump_json({k: payload[k] for k in KEPT_FIELDS if k in payload})
    argv = [sys.executable, "-m", "deja.interfaces.entry", "hook-session-end"]
    env = {**os.environ, WAIT_VARIABLE: "1"}
    try:
        return _spawned(argv, env, kept) if hasattr(os, "fork") else _popen(argv, env, kept)
    except OSError:
        return None


def _spawned(argv: list[str], env: dict[str, str], stdin: bytes) -> int:
    """``argv`` started as ``subprocess.Popen(start_new_session=True, close_fds=True)`` would, ``stdin`` on its
    standard input and its output to the null device; its pid."""
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # the child: nothing here may return into the hook
        try:
            os.setsid()
            os.dup2(read, 0)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.closerange(3, _open_max())
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(read)
    with open(write, "wb") as pipe:
        pipe.write(stdin)
    return pid


def _open_max() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (AttributeError, ValueError, OSError):
        return 256


def _popen(argv: list[str], env: dict[str, str], stdin: bytes) -> int:
    """The same through ``subprocess``, where the OS cannot fork (Windows)."""
    import subprocess

    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    if process.stdin is not None:
        process.stdin.write(stdin)
        process.stdin.close()
    return process.pid
