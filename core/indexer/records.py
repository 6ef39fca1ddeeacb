"""Records: a session turned into what the index stores, and back.

Every text is redacted whole before it is capped, so no cut can split a
secret into pieces the redactor no longer recognises; a message keeps at most
``INDEXED_TEXT_BYTES`` and a tool text ``TOOL_TEXT_BYTES``. ``NewSegments``
writes such records into as many new segments as their number needs.
"""

from __future__ import annotations

from pathlib import Path

from ..bookkeeping import Location
from ..ending import is_answer, resumed_ask
from ..index import SegmentRef, SegmentWriter, SessionMeta, edited_paths, remove_segments
from ..keys import EDIT_TOOLS
from ..lines import chat_began, cut, one_line, own_words
from ..model import Message, Session, ToolCall, cap_text
from ..redact import scrub, scrub_value
from ..settled import only_next_steps, only_progress, prose_and_code
from ..text import lend_terms, lent_terms
from ..topic import summarised_part

TYPE_CHECKING = False  # typing's own, without importing typing (a hook's refresh builds records)
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

INDEXED_TEXT_BYTES = 64 * 1024
TOOL_TEXT_BYTES = 16 * 1024
#: A segment being written is closed at this many docs (few segments keep search fast; a writer's memory is
#: bounded by ``index.writer.RUN_DOCS`` whatever a segment's size).
SEGMENT_MAX_DOCS = 2_000_000
#: How many of the files an answer's code was for its conclusion names.
CODE_FILES = 3
#: How many characters of the ask a session's ``asked`` keeps, and of its first ask where a later one resumed it.
ASKED_CHARS, BEGAN_CHARS = 200, 100


def _capped(value: object) -> object:
    """Tool-call arguments with every string capped at 16 KiB (a marker says what was left out)."""
    if isinstance(value, str):
        return cap_text(value, TOOL_TEXT_BYTES)
    if isinstance(value, dict):
        return {k: _capped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_capped(v) for v in value]
    return value


def indexable(session: Session, on: bool, stored: int = 0) -> tuple[SessionMeta, list[Message]]:
    """The session as stored: every text redacted whole when redaction is ``on``, then a message capped at 64 KiB
    and a tool text at 16 KiB; but its first ``stored`` messages, which are as the index stores them (a grown
    transcript's earlier messages, read back from the index: ``reads.read_changes``), taken as they are. Redaction
    and the caps leave a stored text as it is, so this is what redacting them again gave, without the cost of it,
    which grew with the session rather than with the change."""

    def redact(text: str) -> str:
        return scrub(text) if on else text

    messages = session.messages[:stored]
    for m in session.messages[stored:]:
        calls = [
            ToolCall(
                name=c.name,
                args=_capped(scrub_value(c.args) if on else c.args),  # type: ignore[arg-type]
                result=cap_text(redact(c.result), TOOL_TEXT_BYTES) if c.result is not None else None,
                exit_code=c.exit_code,
            )
            for c in m.tool_calls
        ]
        messages.append(
            Message(
                role=m.role, text=cap_text(redact(m.text), INDEXED_TEXT_BYTES), timestamp=m.timestamp, tool_calls=calls
            )
        )
    title = _title(session, messages, redact)
    asked, concluded, files, after_part = digest(messages, session.project_dir, session.started, title)
    meta = SessionMeta(
        id=session.id,
        source=session.source,
        # (a project with no folder here is named from what a store says, a remote window's host among it: redacted
        # as text is, review57d F6; a folder's own name stays, as its path does)
        project=session.project if session.project_dir else redact(session.project),
        project_dir=session.project_dir,
        project_from=session.project_from,
        title=title,
        started=session.started,
        updated=session.updated,
        origin=session.origin,
        asked=asked,
        concluded=concluded,
        files=files,
        untimed_lead=session.untimed_lead,
        after_part=after_part,
    )
    return meta, messages


def _title(session: Session, stored: list[Message], redact: Callable[[str], str]) -> str:
    """The session's title, redacted whole before it was cut too: a title taken from the first question is its first
    line cut at 80 characters (``one_line``), which may cut a secret in two and leave a piece no rule knows ("the api
    token is 8f14…"), so such a title is taken again from the question as stored (``stored``: redacted)."""
    for raw, kept in zip(session.messages, stored, strict=True):
        if raw.role == "user" and (opening := one_line(raw.text)):
            return one_line(kept.text) if session.title == opening else redact(session.title)
    return redact(session.title)


def digest(
    messages: list[Message], project_dir: str, started: datetime | None, title: str = "", max_files: int = 8
) -> tuple[str, str, list[str], int]:
    """What a session asked (:func:`_asked`), what it concluded last, the files it edited, newest first, and how many
    of its messages follow the part its summary was read from (0: none).

    The ask is read from the messages up to the last answer: a chat resumed after a gap whose new ask has no answer
    yet (the agent still at work, the turn cancelled) pairs its last answer with the ask before it, not with the new
    one (review47c). A long chat whose title names a later turn than its first is summarised by that part
    (``topic.summarised_part``): its ask and the last answer in it, not the chores before and after it (trial48b F5)."""
    files: list[str] = []
    for message in reversed(messages):
        for call in message.tool_calls:
            if call.name in EDIT_TOOLS:
                for path in edited_paths(call.args, project_dir)[:1]:
                    if path not in files:
                        files.append(path)
        if len(files) >= max_files:
            break
    if (part := summarised_part(messages, title)) is not None:
        ask, answer, end = part
        return (
            own_words(messages[ask].text, ASKED_CHARS),
            _conclusion(messages[answer].text),
            files[:max_files],
            (len(messages) - end),
        )
    last = next(
        (at for at in range(len(messages) - 1, -1, -1) if is_answer(messages[at])),
        None,
    )
    concluded = "" if last is None else _conclusion(messages[last].text)
    asked = _asked(messages if last is None else messages[: last + 1], started)
    return asked, concluded, files[:max_files], 0


def _asked(messages: list[Message], started: datetime | None) -> str:
    """The ask the session's last answer answers, in its own words (``lines.own_words``: a config pasted in it
    is one line of it): its first, or in a chat resumed after a gap the ask that resumed it (``ending.resumed_ask``), followed
    by ``(chat began DATE: FIRST ASK)``, as ``deja wip`` gives its task. A chat resumed days later on another problem
    paired its first question with the later fix (trial47 F1)."""
    first = next((m.text for m in messages if m.role == "user" and m.text.strip()), "")
    if (resumed := resumed_ask(messages)) is None:
        return own_words(first, ASKED_CHARS)
    return f"{own_words(resumed.text, ASKED_CHARS)}  {chat_began(started, first, BEGAN_CHARS)}"


def _conclusion(text: str, limit: int = 300) -> str:
    """What an answer concluded, on one line of at most ``limit`` characters: its prose. An answer with code blocks is
    said by its prose after the last block (where it sums up the change; else its prose before the first), after the
    files the code was for: an editor chat's last answer, "I'll help you apply dark mode … Here are the necessary
    changes: ```scss:src/global.scss …", was cut mid-code, its summary after the code never shown (trial21 F5). An
    answer that is only a line of progress ("Checking.": ``settled.only_progress``) or only names the agent's next
    step ("Let me look at the worker's logs.": ``settled.only_next_steps``) concluded nothing: "" (trial53 F2,
    review53h: the session-start block gave it as the outcome of a session stopped mid-work), nor does one that only
    acknowledges ("Understood.", "Got it.": review55a F4), as ``deja wip`` settles nothing of either."""
    if only_progress(text) or only_next_steps(text):
        return ""
    prose, files = prose_and_code(text.replace("[REDACTED]", " "))
    said = next((part for part in (prose[-1], prose[0]) if part.strip()), "")
    if files:
        named = ", ".join(files[:CODE_FILES]) + (
            f" and {len(files) - CODE_FILES} more" if len(files) > CODE_FILES else ""
        )
        said = f"Code for {named}. {said}"
    return cut(" ".join(said.split()), limit, words=True)


def session_from_index(meta: SessionMeta, messages: list[Message]) -> Session:
    """A stored session as a ``Session`` again (already redacted and capped), for a resumed read or a merge."""
    return Session(
        id=meta.id,
        source=meta.source,  # type: ignore[arg-type]
        project=meta.project,
        project_dir=meta.project_dir,
        project_from=meta.project_from,
        title=meta.title,
        started=meta.started,
        updated=meta.updated,
        origin=meta.origin,
        messages=messages,
    )


class NewSegments:
    """Writes changed sessions into as many new segments as their size needs, and where each one went."""

    def __init__(self, directory: Path, redacting: bool):
        self.directory = directory
        self.done: list[SegmentRef] = []
        self.current: SegmentWriter | None = None
        self.where: dict[str, Location] = {}
        #: The refresh's one decision (it reads the settings once): what the manifest swapped in records.
        self.redacting = redacting

    def add(self, session: Session, stored: int = 0) -> None:
        """Write ``session``, whose first ``stored`` messages are as the index stores them (``indexable``)."""
        if self.current is None:
            self.current = SegmentWriter(self.directory)
        lend_terms()  # (the terms its summary reads, its writer takes: ``text.lent_terms``)
        try:
            meta, messages = indexable(session, self.redacting, stored)
        finally:
            lent = lent_terms()
        self.current.add(meta, messages, lent)
        self.where[session.id] = Location(self.current.name, self.current.session_count - 1)
        if self.current.doc_count >= SEGMENT_MAX_DOCS:
            self.flush()

    def flush(self) -> None:
        if self.current is not None:
            self.done.append(self.current.finish())
            self.current = None

    def abandon(self) -> None:
        """Remove what was written: a refresh that failed leaves no segment behind."""
        if self.current is not None:
            self.current.abandon()
        remove_segments(self.directory, [ref.name for ref in self.done])
