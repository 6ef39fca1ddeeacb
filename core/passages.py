"""The passages a hit of a person's or an agent's search shows (a hook's search shows none: ``search._collect`` loads
this module only for a search that shows some), and when their messages were written, read from as few of them as
those passages need.

A chat's messages are indexed in the order they were written, so their times grow through it (``model.fill_times``
takes the first and the last as its start and end) except where a reader had no time to give: a message carrying
none is stamped with its chat's creation time, which is the chat's start (``readers.ide._session``,
``readers.cursor_agent``'s store-only chat), or has none. Such a time is not the message's own: a passage must not
claim that day (review47e L4), nor end the search for the first message of a window (review47e L5)."""

from __future__ import annotations

from itertools import chain, islice

from .fields import FIELD_ROLE, KIND_ASSISTANT, KIND_COMMAND, MESSAGE_KINDS, acted_on, kind_text
from .lines import stretch
from .search import SNIPPET_CHARS, Snippet, closing_answer, densest_window, passage_docs, term_hits

TYPE_CHECKING = False  # (as core.search: typing not imported at run time)

if TYPE_CHECKING:
    from collections.abc import Iterator
    from datetime import datetime

    from .index import Segment
    from .index.records import SessionMeta
    from .model import Message


class Written:
    """One chat's message times, each decoded once, from its records inflated once (the passages read from the same
    ``records`` after: review47e M1)."""

    def __init__(self, segment: Segment, ordinal: int, meta: SessionMeta) -> None:
        self.segment, self.meta = segment, meta
        self.records = segment.inflating(ordinal)
        self._stamps: dict[int, datetime | None] = {}

    def number(self, doc: int) -> int:
        """The number in its chat (0 first) of the message a doc was built from."""
        return self.segment.message_doc(doc, self.meta) - self.meta.first_doc

    def first_since(self, since: datetime) -> int:
        """The number of the chat's first message written at ``since`` or later (the count of its messages when
        none was; 0, nothing read, for a chat begun since then), found by halving: a resumed chat of thousands of
        messages is read at a dozen, not at each match since then (review47e M1). The messages before its first
        one dated after its start are of its start; a later one without a time of its own goes with the next one
        that has one (review47e L5)."""
        start = self.meta.started
        if start is not None and start >= since:
            return 0
        # The last message read first: the records inflated to their end in one step (the passages since then are
        # near it), not in a dozen steps further each, each copying all inflated before.
        if self.meta.messages:
            self._stamp(self.meta.messages - 1)
        if (lead := self._next_dated(0)) is None:
            return self.meta.messages
        low, high = lead[0], self.meta.messages
        while low < high:
            middle = (low + high) // 2
            dated = self._next_dated(middle)
            if dated is None or dated[1] >= since:
                high = middle
            else:  # (those from the middle up to it have no time of their own: they go before, with it)
                low = dated[0] + 1
        return low

    def own(self, number: int, when: datetime | None) -> datetime | None:
        """``when``, the time message ``number`` is indexed with (its caller decoded it), or None when it is not its
        own: its chat's start given to a message after one dated later (a bubble with no time in a chat of dated
        ones), or to every message of a chat updated later (a chat none of whose messages has a time). The first
        messages of a dated chat do carry its start, but for those a reader stamped with it before its first dated
        one (``SessionMeta.untimed_lead``: a chat begun in a Cursor that kept no message's time, review47k L3)."""
        self._stamps[number], start = when, self.meta.started
        if number < self.meta.untimed_lead:
            return None
        if when is None or when != start:
            return when
        last = self.meta.messages - 1
        if self._not_start(last) is None and self._not_start(0) is None:
            # (no time of its own at either end: a chat of none, read at its ends, not at every message: a search of
            # three such chats of 3,000 messages took 2 s, review47k H1; the last read first inflates them at once)
            return None if self.meta.updated is not None and self.meta.updated > start else when
        if any(self._not_start(before) for before in range(number - 1, -1, -1)):
            return None
        if self._next_dated(number) is not None or self.meta.updated is None or self.meta.updated <= start:
            return when
        return None

    def _next_dated(self, number: int) -> tuple[int, datetime] | None:
        """The first message from ``number`` on with a time other than its chat's start (one a reader did not stamp
        it with): its number and time."""
        for later in range(number, self.meta.messages):
            if (when := self._not_start(later)) is not None:
                return later, when
        return None

    def _not_start(self, number: int) -> datetime | None:
        """Message ``number``'s time when it is one other than its chat's start (which a reader may have stamped
        it with), else None."""
        when = self._stamp(number)
        return when if when != self.meta.started else None

    def _stamp(self, number: int) -> datetime | None:
        """Message ``number``'s time as indexed."""
        if number not in self._stamps:
            doc = self.meta.first_doc + number
            self._stamps[number] = next(self.segment.messages_along([doc], self.records)).timestamp
        return self._stamps[number]


def _written_since(written: Written, scored: list[tuple[float, int]], since: datetime) -> Iterator[int]:
    """The docs of ``scored`` (best first, titles left out) that are of messages written ``since`` or later, when any
    are; else all of them.

    A search ``--since`` admits a chat by when it was last updated, and a chat resumed since then showed its best
    passages of before under its new date (trial47 F2: "what did I do about the webhook since Monday" answered with a
    turn of the week before). A chat whose matches all came before shows them still, each saying when
    (``views.search_text``): it was updated since then, and its words matched. A chat begun since then is all
    written inside (nothing read). The docs are given as they are taken: a hit of a thousand matched docs shows two.
    """
    meta, first = written.meta, written.first_since(since)
    if first in (0, meta.messages):
        return passage_docs(written.segment, scored)
    position = written.segment.position
    starts = position(meta.first_doc + first)  # (the docs of a message share its record's position)
    inside = (doc for doc in passage_docs(written.segment, scored) if position(doc) >= starts)
    found = next(inside, None)
    return passage_docs(written.segment, scored) if found is None else chain((found,), inside)


def _snippets(
    written: Written,
    scored: list[tuple[float, int]],
    wanted: set[str],
    count: int,
    since: datetime | None,
    near: frozenset[str],
) -> list[Snippet]:
    """The session's first ``count`` best docs' snippets (titles left out), each text shown once (a chat may say the
    same thing twice, and a tool-only message's snippet is often its command's: the next best doc takes the place
    of a repeat), the records inflated once (``written.records``, which ``since`` is found in first: a search
    ``--since`` shows the passages written since then, :func:`_written_since`). Each is dated by its message's own
    time (``Written.own``).

    Two snippets of one message, or two of what commands printed, whose words one holds all of the other's are a
    repeat too: a command's error lines are lines of its output, and read as its output twice with the words
    reordered (trial9 F10), as does the same failure printed by two runs (trial11 F1)."""
    segment = written.segment
    docs = passage_docs(segment, scored) if since is None else _written_since(written, scored, since)
    out: list[Snippet] = []
    shown: list[tuple[int, str, set[str]]] = []  # each snippet shown: its message's position, its role, its words
    while len(out) < count and (batch := list(islice(docs, count - len(out)))):
        for doc, message in zip(batch, segment.messages_at(batch, written.records), strict=True):
            kind = segment.kind(doc)
            snippet = _snippet(message, kind, wanted, near)
            position, said = segment.position(doc), set(snippet.text.split())
            if not any(_repeats(position, snippet.role, said, *before) for before in shown):
                shown.append((position, snippet.role, said))
                out.append(snippet.replace(timestamp=written.own(written.number(doc), message.timestamp)))
    return out


#: A query's terms that ask how something was fixed ("how did we fix …", "what solved …", "the workaround for …").
FIX_TERMS = frozenset({"fix", "solv", "resolv", "workaround"})


def shown(
    segment: Segment,
    ordinal: int,
    meta: SessionMeta,
    scored: list[tuple[float, int]],
    wanted: set[str],
    count: int,
    since: datetime | None,
    first: bool,
    near: frozenset[str] = frozenset(),
) -> list[Snippet]:
    """A hit's ``count`` snippets (:func:`_snippets`); of the first hit of a query that asks how something was fixed
    (``FIX_TERMS``), the last of them is the answer that closed its best passage's turn (``closing_answer``) unless
    one shown is from it: the best passages were the question and the diagnosis ("`COPY . /app` before the pip
    install busts the cache"), not "Fixed: requirements.txt is copied first…" (trial48b F6). ``count`` is 1 or more:
    ``search._collect`` loads this module only for a search that shows passages."""
    shown = _snippets(Written(segment, ordinal, meta), scored, wanted, count, since, near)
    if not first or not wanted & FIX_TERMS or not shown:
        return shown
    doc = next(passage_docs(segment, scored), -1)
    if doc < 0:
        return shown
    if segment.kind(doc) not in MESSAGE_KINDS:
        doc = segment.message_doc(doc)
    closing = closing_answer(segment, meta, doc, doc if segment.kind(doc) == KIND_ASSISTANT else doc + 1)
    if closing is None:
        return shown
    answer = segment.message(closing)
    flat = " ".join(answer.text.split())
    if any(snippet.text.strip("…").strip() in flat for snippet in shown):  # (one shown is of it already)
        return shown
    text = densest_window(flat, wanted, near=near)
    return [*shown[: count - 1], Snippet(role=answer.role, text=text, timestamp=answer.timestamp)]


def _repeats(position: int, role: str, said: set[str], shown_at: int, shown_role: str, shown_said: set[str]) -> bool:
    """Whether a snippet (its message's ``position``, ``role`` and words) says what one shown said: the same words,
    or, of one message or of two tools' output, all of its words or all of the shown one's."""
    if said == shown_said:
        return True
    alike = position == shown_at or role == shown_role == "tool"
    return alike and (said <= shown_said or shown_said <= said)


def _snippet(message: Message, kind: int, wanted: set[str], near: frozenset[str]) -> Snippet:
    """The passage of ``message`` a hit shows: where the query's words are (``near``: the terms they also look for,
    where neither its words nor what its calls acted on hold one: a path a call wrote that holds the word as written,
    ``src/safari.js``, is the passage, not a related word in its prose, review58c F1)."""
    if kind not in MESSAGE_KINDS:  # what a command printed, an error line, an edit: the part that matched
        text = kind_text(message, kind)
        text = densest_window(_one_a_line(text) if kind == KIND_COMMAND else text, wanted, near=near)
        return Snippet(role=FIELD_ROLE[kind], text=text, timestamp=message.timestamp)
    # The message's own words, unless the match is only in its tool calls' commands and paths; its terms are
    # found once, for both. A message of tool calls alone says nothing itself: its snippet is the tool's.
    flat = " ".join(message.text.split())
    hits = term_hits(flat, wanted)
    if not hits:  # (its words as its other snippets give them, then what its calls acted on: trial43 F11)
        text = densest_window(" · ".join(part for part in (flat, *acted_on(message)) if part), wanted, near=near)
    else:
        text = flat if len(flat) <= SNIPPET_CHARS else stretch(flat, hits, SNIPPET_CHARS)
    role = message.role if flat or not message.tool_calls else "tool"
    return Snippet(role=role, text=text, timestamp=message.timestamp)


def _one_a_line(text: str) -> str:
    """``text``'s lines on one line, apart: a turn's two commands (``pytest -q`` then ``pytest -q`` again) read as
    one command with its arguments twice when their line break became a space (trial9 F3)."""
    return " · ".join(line for line in text.splitlines() if line.strip()) if "\n" in text else text
