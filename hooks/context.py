"""sessionStart: this project's recent sessions, so the agent starts where the last ones ended.

Cursor does not always send ``sessionStart``: a resumed cursor-agent chat and
``/new`` start without one. So the first prompt or tool event of a conversation
deja has no state for carries the same block (:func:`with_opening`), within that
event's budget and after its own answer. Either way a conversation gets it once.
"""

from __future__ import annotations

from ..core.keys import labels_apart, sessions_key
from .call import STARTED, HookCall, fit, frame, frame_lines, frame_room, said_key
from .describe import heading, outcome

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from ..core.index import Index, SessionMeta

    #: A session to list: its digest, when it was updated (seconds since the epoch), and how it stopped when that
    #: was on a failed command (``failed_at_end``; "" when not).
    Recent = tuple[SessionMeta, float, str]

BUDGET = 2048
SESSIONS = {"safe": 3, "aggressive": 6}
FOOTER = "Ask deja for more: the MCP tools search/show, or `deja search WORDS`."
#: Below this many bytes a session's block says too little to be worth it.
SESSION_BYTES = 120
#: A detail line (``asked:``, ``concluded:``, ``files:``) is never cut shorter than this: "asked: Why does th…"
#: says nothing. A session that cannot have its heading whole and its details this long waits for a later event.
READABLE_LINE = 60
#: How a block's detail lines begin.
ASKED, CONCLUDED = "  asked: ", "  concluded: "
WAITING = "a readable block does not fit in what this event's budget leaves; the next event gives it"
GIVEN = "with the session-start block"


def session_start(call: HookCall) -> str:
    if call.mode == "off":
        return call.silent("recall is off")
    if call.started():
        return call.silent("this conversation was given the session-start block already")
    lines, why = recent_lines(call, frame_room(BUDGET))
    return frame(lines, BUDGET) if lines else call.silent(why)


def with_opening(call: HookCall, text: str, budget: int) -> str:
    """``text`` (an event's framed answer, or "") with the session-start block added in the room it leaves, for an
    event that is owed it (:meth:`HookCall.owed_opening`: the first of a conversation not given the block yet)."""
    own = frame_lines(text)
    lines, why = recent_lines(call, frame_room(budget, *own), shown="\n".join(own))
    if not lines:
        call.notes.append(f"no session-start block: {why}")
        return text
    call.notes.append(GIVEN)
    return frame([*own, *lines], budget)


def block_first(call: HookCall, own: list[str], budget: int) -> tuple[list[str], int | None, str]:
    """The session-start block for an event whose own answer (``own``, its lines) may give way to it, the room that
    answer is left when the block was rendered first (None: ``own`` stands as it is) and the note for hooks.log.

    The block goes in the room ``own`` leaves, as for any event. Where that is too little for a readable block, it is
    rendered first in half the frame (the answer keeps room for its sessions too), and the answer is made again in
    the room the block measurably left. A conversation whose prompts each filled the recall never got the block
    (trial53 F3); sizing a room for the block before rendering it sized it for a session the block then skipped
    (review53d F2). A block that needs more than half the frame waits again: given the whole frame, it left the
    recall no room, and the session the prompt asked about was in neither (review54a A1).
    """
    rooms = [frame_room(budget, *own), frame_room(budget) // 2]
    lines, why, given_in = _first_block(call, rooms, "\n".join(own))
    if not lines:
        return [], None, f"no session-start block: {why}"
    if given_in == 0:
        return lines, None, GIVEN
    left = frame_room(budget, *lines)
    return lines, left, f"{GIVEN}, which had no room after the recall: rendered first, it left {left} bytes"


def recent_lines(call: HookCall, room: int, shown: str = "") -> tuple[list[str], str]:
    """This project's newest sessions, as many as fit ``room`` bytes; or no lines and why. A session the event's
    own answer ``shown`` already heads (its ```deja show <id>``` heading) is not listed again.

    The conversation counts as started once the block is given, or once there is nothing to give (no other
    session in the project); an event with no room left for it leaves it to the conversation's next event.
    """
    lines, why, _ = _first_block(call, [room], shown)
    return lines, why


def _first_block(call: HookCall, rooms: list[int], shown: str) -> tuple[list[str], str, int]:
    """:func:`recent_lines` in the first of ``rooms`` with room for a readable block, and which room that was; or
    no lines, why, and the room that ended the search. The sessions are read once, as many as the largest room
    lists, and each room lists the newest of them it has room for: ``block_first`` tries two rooms, and reading the
    index's newest sessions and their metas again for the second was the same work twice.
    """
    if not call.project_dir:
        return [], call.why_no_project(), 0
    index = call.index()
    if index is None:
        return [], "no index to read", 0
    folders = call.project_folders(index)
    header = (
        f"Recent sessions in this project ({folders[0]}), newest first:"
        if len(folders) < 2
        # (each session names its project; "newest first" was not true: each folder's newest comes before the rest)
        else "Recent sessions in this workspace's folders, the newest of each folder first:"
    )
    rooms = [room - len(header.encode()) - len(FOOTER.encode()) - 2 for room in rooms]
    wanted = [min(SESSIONS[call.mode], max(room, 0) // SESSION_BYTES) for room in rooms]  # (0: no room for one)
    recent: list[Recent] | None = None  # (read when a room first has room for a session)
    for place, room in enumerate(rooms):
        if not wanted[place]:
            continue
        if recent is None:
            recent = _recent(call, index, folders, max(wanted), shown)
        if not recent:
            call.remember([STARTED])
            return [], "no other session in this project", place
        blocks = _readable_blocks(recent[: wanted[place]], room, call.project_dirs)
        if blocks:
            call.remember(
                [STARTED, *(f"s:{meta.id}" for meta, _ in blocks), *(_said(meta, block) for meta, block in blocks)]
            )
            return [header, *(line for _, block in blocks for line in block), FOOTER], "", place
    return [], WAITING, len(rooms) - 1


def _readable_blocks(recent: list[Recent], room: int, roots: list[str]) -> list[tuple[SessionMeta, list[str]]]:
    """The newest sessions whose blocks fit ``room`` at their readable minimum, sharing the rest of it.

    A block is its heading whole and each detail line at least ``READABLE_LINE`` bytes (or whole, if shorter):
    fragments would tell the agent nothing, so a session that does not fit so is left out, not squeezed.
    """
    chosen: list[tuple[SessionMeta, str, list[str]]] = []
    used = 0
    labels = labels_apart({meta.project_dir for meta, _, _ in recent if meta.project_dir}, roots)
    for meta, updated, stopped in recent:
        where = labels.get(meta.project_dir, meta.project)
        head = fit(heading(meta.title or meta.asked, where, updated, meta.id), room)
        details = _details(meta, stopped)
        need = len(head.encode()) + 1 + sum(min(len(line.encode()), READABLE_LINE) + 1 for line in details)
        if used + need > room:
            break
        chosen.append((meta, head, details))
        used += need
    lines = [line for _, _, details in chosen for line in details]
    heads = sum(len(head.encode()) + 1 for _, head, _ in chosen)
    cut = iter(_shared(lines, room - heads))
    return [(meta, [head, *(next(cut) for _ in details)]) for meta, head, details in chosen]


def _said(meta: SessionMeta, block: list[str]) -> str:
    """The mark of the ``asked:`` and ``concluded:`` texts ``block`` printed of ``meta``'s session (``said_key``)."""
    asked = next((line[len(ASKED) :] for line in block if line.startswith(ASKED)), "")
    concluded = next((line[len(CONCLUDED) :] for line in block if line.startswith(CONCLUDED)), "")
    return said_key(meta.id, asked, concluded)


def _details(meta: SessionMeta, stopped: str) -> list[str]:
    """``asked:``, then ``concluded:`` (or, for a session that stopped on a failed command, that: its last answer
    was written before the failure), then ``files:``."""
    from ..core.index import in_project

    details = [f"{ASKED}{meta.asked}"] if meta.asked else []
    details += [f"  {ended}"] if (ended := outcome(meta.concluded, stopped)) else []
    files = [in_project(path, meta.project_dir) for path in meta.files[:5]]
    return details + ([f"  files: {', '.join(files)}"] if files else [])


def _shared(lines: list[str], room: int) -> list[str]:
    """``lines`` cut to fit ``room`` bytes: each keeps its readable minimum, and the room beyond those goes to the
    lines that want it, shortest want first, so a short line's unused share goes to a long one."""
    sizes = [len(line.encode()) for line in lines]
    allotted = [min(size, READABLE_LINE) for size in sizes]
    left = room - sum(allotted) - len(lines)
    wanting = sorted(range(len(lines)), key=lambda i: sizes[i] - allotted[i])
    for k, i in enumerate(wanting):
        more = max(min(sizes[i] - allotted[i], left // (len(wanting) - k)), 0)
        allotted[i] += more
        left -= more
    return [fit(line, size) for line, size in zip(lines, allotted, strict=True)]


def _recent(call: HookCall, index: Index, folders: list[str], wanted: int, shown: str) -> list[Recent]:
    """Up to ``wanted`` of the newest sessions of the workspace's ``folders`` (each root of a multi-root workspace:
    trialM F10), leaving out this conversation, those it was shown and those ``shown`` heads; each with the time it
    was updated (seconds since the epoch, from ``sessions.idx``). A folder above a workspace root
    (``HookCall.project_folders``) gives its own sessions: those below it ran in a sibling of the root (``shop/api``
    seen from ``shop/lib``), which is not this project, as for ``deja wip`` (trial10 F3)."""
    if wanted <= 0:
        return []
    from ..core.ending import failed_at_end  # (here: a tool event that gives no block never loads it)

    seen = call.seen()
    # As many postings as it takes to pass every session this conversation was shown or is (a conversation whose
    # first events recalled the project's newest sessions is owed the block still: with a fixed 4 more, it was told
    # there is no other session; review55b F2), and 4 more: still bounded by what this conversation holds.
    passed = len(call.conversation_ids) + shown.count("`deja show ") + sum(key[:2] == "s:" for key in seen)
    recent: list[Recent] = []
    firsts: list[Recent] = []  # each folder's newest: a root of a multi-root workspace is never crowded out
    for folder in folders:
        taken = 0
        for _, segment, doc in index.newest(
            sessions_key(folder, folder in call.project_dirs), limit=wanted + passed + 4
        ):
            ordinal = segment.doc(doc).ordinal
            meta = segment.session(ordinal)
            if (
                meta.id in call.conversation_ids
                or f"s:{meta.id}" in seen
                or f"`deja show {meta.id}`" in shown
                or any(m.id == meta.id for m, _, _ in (*firsts, *recent))
            ):
                continue
            found = (meta, segment.session_keys(ordinal).updated, failed_at_end(segment, meta))
            (recent if taken else firsts).append(found)
            taken += 1
            if taken >= wanted:
                break
    firsts.sort(key=lambda item: -item[1])
    recent.sort(key=lambda item: -item[1])  # then the rest, newest first, as one project's are
    return (firsts + recent)[:wanted]
