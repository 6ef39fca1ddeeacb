"""When an indexed chat's messages were written, read from as few of them as a search's passages need.

A chat's messages are indexed in the order they were written, so their times grow through it (``model.fill_times``
takes the first and the last as its start and end) except where a reader had no time to give: a message carrying
none is stamped with its chat's creation time, which is the chat's start (``readers.ide._session``,
``readers.cursor_agent``'s store-only chat), or has none. Such a time is not the message's own: a passage must not
claim that day (review47e L4), nor end the search for the first message of a window (review47e L5)."""

from __future__ import annotations

TYPE_CHECKING = False  # (as core.search: typing not imported at run time)

if TYPE_CHECKING:
    from datetime import datetime

    from .index import Segment
    from .index.records import SessionMeta


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
