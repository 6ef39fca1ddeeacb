"""sessionStart: this project's recent sessions, so the agent starts where the last ones ended."""

from __future__ import annotations

from deja.core.keys import project_key
from deja.hooks.call import HookCall, frame
from deja.hooks.describe import heading

BUDGET = 2048
SESSIONS = {"safe": 3, "aggressive": 6}


def session_start(call: HookCall) -> str:
    if call.mode == "off" or not call.project_dir:
        return ""
    index = call.index()
    if index is None:
        return ""
    wanted = SESSIONS[call.mode]
    lines = [f"Recent sessions in this project ({call.project_dir}), newest first:"]
    shown: set[str] = set()
    for _, segment, doc in index.newest(project_key(call.project_dir), limit=wanted + 4):
        meta = segment.session(segment.doc(doc)[0])
        if meta.id in call.conversation_ids or meta.id in shown:
            continue
        shown.add(meta.id)
        lines.append(heading(meta.title or meta.asked, meta.project, meta.updated, meta.id))
        if meta.asked:
            lines.append(f"  asked: {meta.asked}")
        if meta.concluded:
            lines.append(f"  concluded: {meta.concluded}")
        if meta.files:
            lines.append(f"  files: {', '.join(meta.files[:5])}")
        if len(shown) >= wanted:
            break
    if not shown:
        return ""
    lines.append("Ask deja for more: the MCP tools search/show, or `deja search WORDS`.")
    return frame(lines, BUDGET)
