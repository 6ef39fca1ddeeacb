"""preCompact / sessionEnd: ingest the closing conversation so the next session can recall it."""

from __future__ import annotations

from pathlib import Path

from deja.hooks.call import HookCall, log, request_build

LOCK_SECONDS = 10.0


def session_end(call: HookCall) -> str:
    from deja.core.index import MANIFEST, index_dir

    ids = set(call.conversation_ids)
    transcript = call.payload.get("transcript_path")
    if isinstance(transcript, str) and transcript.endswith(".jsonl"):
        ids.add(Path(transcript).stem)
    if not (index_dir(call.home) / MANIFEST).exists():
        request_build(call.home)
        return ""
    from deja.core.indexer import refresh

    try:
        result = refresh(call.home, only_chat_ids=ids, lock_timeout=LOCK_SECONDS)
    except TimeoutError:
        log(f"{call.event}: the index stayed locked for {LOCK_SECONDS:.0f} s; a background build will ingest {sorted(ids)}")
        request_build(call.home)
        return ""
    log(f"{call.event}: ingested {sorted(ids)}: {result.added} added, {result.updated} updated")
    return ""
