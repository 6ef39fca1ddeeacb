"""How a session ended: on an answer, or on a command that failed after its last answer.

The index keeps a session's last answer as what it ``concluded``. A session that stopped on a failed command
has, as its last answer, the statement of intent written before it ("Upgrading the image and running the
migration."): shown as what it concluded or settled, it reads as done what failed (trialI F10). So the hooks,
``wip`` and ``ctx`` ask here, from the session's last messages as the index holds them (no rebuild needed).

A chat resumed after a gap (``resumes``) is a new day's work: its ask is the task (``resumed_ask``), and what
followed an error said before it ends there (``failures.what_followed``), so its answer is no conclusion of it.
"""

from __future__ import annotations

from .errors import error_lines
from .fields import KIND_ASSISTANT, KIND_COMMAND, KIND_TITLE, KIND_USER, MESSAGE_KINDS
from .index.light import micros
from .keys import SHELL_TOOLS

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from .index import Segment, SessionMeta
    from .model import Message

#: A question asked at least this long after the message before it resumes the chat (seconds): a new day's work,
#: whose ask is the task a digest gives, not the chat's first of weeks ago (trial20 F18), and which no error said
#: before it led to (trial48 F1, F2).
RESUMED_AFTER = 6 * 3600


def resumes(message: Message, before: Message | None) -> bool:
    """Whether ``message`` resumed its chat: a question (the user's, with text) asked ``RESUMED_AFTER`` or more
    after ``before``, the dated message before it; False where either time is unknown."""
    if before is None or message.role != "user" or not message.text.strip():
        return False
    gap = apart(message, before)
    return gap is not None and gap >= RESUMED_AFTER


def apart(later: Message, earlier: Message) -> float | None:
    """The seconds from ``earlier``'s time to ``later``'s; None where either is unknown. Read from the light reader's
    undecoded stamps where both records hold one (``light.micros``: a hook asking makes no datetime, and loads no
    ``_datetime`` module), else as a difference of datetimes: the same seconds either way."""
    first, second = micros(earlier), micros(later)
    if first is not None and second is not None:
        return (second - first) / 1_000_000
    if earlier.timestamp is None or later.timestamp is None:
        return None
    return (later.timestamp - earlier.timestamp).total_seconds()


def seconds(message: Message) -> float | None:
    """``message``'s time in seconds since the epoch, as ``datetime.timestamp`` says it; None for none. From the light
    reader's undecoded stamp where it holds one (``light.micros``: no datetime made), else from its datetime."""
    stamp = micros(message)
    if stamp is not None:
        return stamp / 1_000_000
    return message.timestamp.timestamp() if message.timestamp else None


def resumed_ask(messages: list[Message]) -> Message | None:
    """The question that resumed the chat last (``resumes``), an undated message passed over; None when the chat was
    never so resumed."""
    found: Message | None = None
    before: Message | None = None
    for message in messages:
        if message.timestamp is None:
            continue
        if resumes(message, before):
            found = message
        before = message
    return found


#: How many of a session's last messages are read for how it ended (empty ones are skipped).
LAST_MESSAGES = 3


def failed_at_end(segment: Segment, meta: SessionMeta) -> str:
    """:func:`stopped_after` of the session's last messages, read from ``segment``; its records are inflated only
    when its last message ran a command (most sessions end on an answer, and the session-start block names several)."""
    last = meta.first_doc + meta.messages - 1
    if meta.messages <= 0 or not _ran_a_command(segment, meta, last):
        return ""
    return stopped_after(segment.messages_at(list(range(max(meta.first_doc, last - LAST_MESSAGES + 1), last + 1))))


def _ran_a_command(segment: Segment, meta: SessionMeta, last: int) -> bool:
    """Whether message doc ``last`` ran a Shell command, from the doc rows alone (:func:`_field_docs`: a message's
    fields share its span)."""
    start = segment.position(last)
    for doc in reversed(_field_docs(segment, meta)):
        kind = segment.kind(doc)
        if kind == KIND_COMMAND and segment.position(doc) == start:
            return True
        if kind not in MESSAGE_KINDS and kind != KIND_TITLE and segment.position(doc) < start:
            return False  # past the last message's fields
    return False


def _field_docs(segment: Segment, meta: SessionMeta) -> range:
    """The docs of the session's fields (commands, edits, tool output), from the doc rows alone: they follow its
    message docs, in message order, up to the next session's first doc (``Segment.session_docs``)."""
    after = meta.first_doc + meta.messages
    return range(after, segment.session_docs(segment.doc(after - 1).ordinal).stop)


def is_answer(message: Message) -> bool:
    """Whether ``message`` is an answer the session can be said to have concluded with: the assistant's, with text
    that is not only a redacted thought (``[REDACTED]``)."""
    return message.role == "assistant" and message.text.strip() not in ("", "[REDACTED]")


def last_answer_doc(segment: Segment, meta: SessionMeta) -> int:
    """The message doc of the answer (:func:`is_answer`) whose conclusion the index keeps as what the session
    ``concluded``: its last, or the last of the part its title names (before the ``after_part`` messages that follow
    it: ``topic.summarised_part``); -1 for none. Which message it is, not its text: a next answer "Done." is a prefix
    of a later "Done. The CI database role had no password…", and the failure hook took the one for the other
    (review47a M1). The session's records are inflated once, from that answer back."""
    last = meta.first_doc + meta.messages - 1 - meta.after_part
    docs = [doc for doc in range(last, meta.first_doc - 1, -1) if segment.kind(doc) == KIND_ASSISTANT]
    return next(
        (doc for doc, message in zip(docs, segment.messages_along(docs), strict=True) if is_answer(message)), -1
    )


def stopped_after(messages: list[Message]) -> str:
    """``stopped after `pg_upgrade --check` failed: FATAL: …`` when the session's last event is a Shell command that
    failed after its last answer; "" when it ended any other way (an answer, a success, another tool, a question).

    An assistant message holds its text before its calls (a text written after a call is a message of its own), so
    a last message whose last call failed stopped on that failure, whatever text it holds.
    """
    for message in reversed(messages):
        if not message.text.strip() and not message.tool_calls:
            continue
        calls = message.tool_calls
        if message.role != "assistant" or not calls or calls[-1].name not in SHELL_TOOLS or not calls[-1].exit_code:
            return ""
        command = calls[-1].args.get("command")
        error = " ".join(next(iter(error_lines(calls[-1].result or "", limit=1)), "").split())
        named = f"`{' '.join(command.split())[:120]}`" if isinstance(command, str) else "its last command"
        return f"stopped after {named} failed" + (f": {error}" if error else f" (exit {calls[-1].exit_code})")
    return ""


def unfinished(segment: Segment, meta: SessionMeta) -> bool:
    """Whether the session stopped in the middle of its work: on a command that failed after its last answer
    (:func:`failed_at_end`), on an ask not answered, or on edits no answer followed (the agent stopped, or was
    stopped, at work). ``deja wip`` takes such a session over a newer settled question (:func:`settled_question`)."""
    if meta.messages <= 0:
        return False
    last = meta.first_doc + meta.messages - 1
    if segment.kind(last) == KIND_USER or failed_at_end(segment, meta):
        return True
    return bool(meta.files) and not is_answer(segment.messages_at([last])[0])


def settled_question(segment: Segment, meta: SessionMeta) -> bool:
    """Whether the session was a question settled by an answer: it holds messages (an editor chat whose messages
    Cursor keeps elsewhere says nothing of how it ended), edited nothing and did not stop unfinished
    (:func:`unfinished`). "How do I profile memory in python" answered today is no work in progress beside yesterday's
    export whose test run failed (trial48b F8), though its answer ran ``python --version`` or ends "Would you like a
    short example?" (review49e H1). An investigation whose commands led to an answer asking leave to make the change
    (:func:`offers_a_change`: "Want me to make that change?") left its work to do, and is no settled question
    (review49b M2)."""
    if meta.messages <= 0 or meta.files or unfinished(segment, meta):
        return False
    if not offers_a_change(segment.messages_at([meta.first_doc + meta.messages - 1])[0].text):
        return True
    return not any(segment.kind(doc) == KIND_COMMAND for doc in _field_docs(segment, meta))


#: How the last sentence of an answer asking leave to make a change opens (:func:`offers_a_change`).
OFFER_OPENERS = (
    "want me to ",
    "do you want me to ",
    "would you like me to ",
    "shall i ",
    "should i ",
    "ok to ",
    "okay to ",
)
#: How a last sentence asking leave opens when it need not be a question ("Let me know if you'd like me to apply it.",
#: "If you want, I can apply it."), and how one that says "if you want" or the like anywhere in it opens ("I can apply
#: this if you want?": fixw49b).
LEAVE_OPENERS = (
    "let me know if you'd like me to ",
    "let me know if you would like me to ",
    "let me know if you want me to ",
    "if you'd like, i can ",
    "if you want, i can ",
    "if you like, i can ",
)
IF_YOU_WANT_OPENERS = ("i can ", "i could ")
#: The first word after an ``OFFER_OPENERS`` that makes it an offer to change something, not to say more.
CHANGE_VERBS = frozenset({
    "add", "apply", "change", "commit", "create", "delete", "edit", "fix", "go", "implement", "make", "patch", "proceed",
    "push", "remove", "rename", "refactor", "revert", "switch", "update", "write",
})  # fmt: skip
#: The ``CHANGE_VERBS`` that after a ``LEAVE_OPENERS`` or ``IF_YOU_WANT_OPENERS`` (said in passing, no question asked)
#: offer to say more unless "ahead" follows: "Let me know if you'd like me to go into more detail", "If you want, I can
#: write a short example" (review50a M3: review49e H1's offer to say more, in other words).
SAY_MORE_VERBS = frozenset({"go", "write"})
#: A word after the verb that makes such a sign-off a general one, no change in hand: "Let me know if you'd like me to
#: make any other changes!" (Cursor's stock closer: review50a M3).
ANY_CHANGE = frozenset({"any", "anything", "further", "more", "other"})


def offers_a_change(answer: str) -> bool:
    """Whether ``answer`` ends asking leave to make a change ("Want me to make that change?", "Shall I apply it?",
    "Let me know if you'd like me to apply it.", "I can apply this if you want?"): the work is still to do. An offer
    to say more ("Would you like a short example?", "Want me to explain the flags?") ends many an answered question
    and leaves nothing undone."""
    text = answer.rstrip()
    body = text.rstrip("?.!")
    cut = max(body.rfind(mark) for mark in (". ", "! ", "? ", "\n"))
    sentence = " ".join(body[cut + 1 :].lower().replace("\u2019", "'").split())
    openers = (
        (OFFER_OPENERS if text.endswith("?") else ())
        + LEAVE_OPENERS
        + (IF_YOU_WANT_OPENERS if " if you " in f"{sentence} " else ())
    )
    opener = next((opener for opener in openers if sentence.startswith(opener)), "")
    words = sentence[len(opener) :].split(maxsplit=2)
    if not opener or not words or words[0] not in CHANGE_VERBS:
        return False
    if opener in OFFER_OPENERS:
        return True
    after = words[1] if len(words) > 1 else ""
    return (words[0] not in SAY_MORE_VERBS or after == "ahead") and after not in ANY_CHANGE
