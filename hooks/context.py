"""sessionStart: this project's recent sessions, so the agent starts where the last ones ended.

Cursor does not always send ``sessionStart``: a resumed cursor-agent chat and
``/new`` start without one. So the first prompt or tool event of a conversation
deja has no state for carries the same block (:func:`with_opening`), within that
event's budget and after its own answer. Either way a conversation gets it once.
"""

from __future__ import annotations

from ..core.keys import project_key
from .call import STARTED, HookCall, frame, frame_lines, frame_room, headed
from .describe import heading

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from ..core.index import Index, SessionMeta

BUDGET = 2048
SESSIONS = {"safe": 3, "aggressive": 6}
FOOTER = "Ask deja for more: the MCP tools search/show, or `deja search WORDS`."
#: Below this many bytes a session's block says too little to be worth it.
SESSION_BYTES = 120


def session_start(call: HookCall) -> str:
    if call.mode == "off":
        return call.silent("recall is off")
    if call.started():
        return call.silent("this conversation was given the session-start block already")
    lines, why = recent_lines(call, frame_room(BUDGET))
    return frame(lines, BUDGET) if lines else call.silent(why)


def with_opening(call: HookCall, text: str, budget: int) -> str:
    """``text`` (an event's framed answer, or "") with the session-start block added in the room it leaves,
    when this is the first event of a conversation that was not given the block yet."""
    if call.mode == "off" or not call.state_id() or call.started():
        return text
    own = frame_lines(text)
    lines, why = recent_lines(call, frame_room(budget, *own))
    if not lines:
        call.notes.append(f"no session-start block: {why}")
        return text
    call.notes.append("with the session-start block")
    return frame([*own, *lines], budget)


def recent_lines(call: HookCall, room: int) -> tuple[list[str], str]:
    """This project's newest sessions, as many as fit ``room`` bytes; or no lines and why.

    The conversation counts as started once the block is given, or once there is nothing to give (no other
    session in the project); an event with no room left for it leaves it to the conversation's next event.
    """
    if not call.project_dir:
        return [], "no project folder in the payload"
    index = call.index()
    if index is None:
        return [], "no index yet"
    header = f"Recent sessions in this project ({call.project_dir}), newest first:"
    room -= len(header.encode()) + len(FOOTER.encode()) + 2
    if room < SESSION_BYTES:
        return [], "no room left in this event's budget; the next event gives it"
    call.remember([STARTED])
    recent = _recent(call, index, min(SESSIONS[call.mode], room // SESSION_BYTES))
    if not recent:
        return [], "no other session in this project"
    lines = [header]
    for meta in recent:
        details = [f"  asked: {meta.asked}"] if meta.asked else []
        details += [f"  concluded: {meta.concluded}"] if meta.concluded else []
        details += [f"  files: {', '.join(meta.files[:5])}"] if meta.files else []
        lines += headed(
            heading(meta.title or meta.asked, meta.project, meta.updated, meta.id), details, room // len(recent)
        )
    call.remember([f"s:{meta.id}" for meta in recent])
    return [*lines, FOOTER], ""


def _recent(call: HookCall, index: Index, wanted: int) -> list[SessionMeta]:
    """Up to ``wanted`` of this project's newest sessions, leaving out this conversation and those it was shown."""
    if wanted <= 0:
        return []
    seen = call.seen()
    recent: list[SessionMeta] = []
    for _, segment, doc in index.newest(project_key(call.project_dir), limit=wanted + 4):
        meta = segment.session(segment.doc(doc).ordinal)
        if meta.id in call.conversation_ids or f"s:{meta.id}" in seen or any(m.id == meta.id for m in recent):
            continue
        recent.append(meta)
        if len(recent) >= wanted:
            break
    return recent
