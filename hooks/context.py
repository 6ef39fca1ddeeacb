"""sessionStart: this project's recent sessions, so the agent starts where the last ones ended."""

from __future__ import annotations

from ..core.index import SessionMeta
from ..core.keys import project_key
from .call import HookCall, frame, frame_room, headed
from .describe import heading

BUDGET = 2048
SESSIONS = {"safe": 3, "aggressive": 6}
FOOTER = "Ask deja for more: the MCP tools search/show, or `deja search WORDS`."


def session_start(call: HookCall) -> str:
    if call.mode == "off" or not call.project_dir:
        return ""
    index = call.index()
    if index is None:
        return ""
    wanted = SESSIONS[call.mode]
    seen = call.seen()
    recent: list[SessionMeta] = []
    for _, segment, doc in index.newest(project_key(call.project_dir), limit=wanted + 4):
        meta = segment.session(segment.doc(doc).ordinal)
        if meta.id in call.conversation_ids or f"s:{meta.id}" in seen or any(m.id == meta.id for m in recent):
            continue
        recent.append(meta)
        if len(recent) >= wanted:
            break
    if not recent:
        return ""
    header = f"Recent sessions in this project ({call.project_dir}), newest first:"
    room = frame_room(BUDGET, header, FOOTER) // len(recent)
    lines = [header]
    for meta in recent:
        details = [f"  asked: {meta.asked}"] if meta.asked else []
        details += [f"  concluded: {meta.concluded}"] if meta.concluded else []
        details += [f"  files: {', '.join(meta.files[:5])}"] if meta.files else []
        lines += headed(heading(meta.title or meta.asked, meta.project, meta.updated, meta.id), details, room)
    call.remember([f"s:{meta.id}" for meta in recent])
    return frame([*lines, FOOTER], BUDGET)
