"""What only a search with filters runs (``--project``, ``--source``, ``--since``, ``--until``, ``--role``,
``--session``, ``--re``; the MCP tools' and the work commands' filters): which sessions and docs they admit, how far
such a search reads a term's postings, and ``--re``'s check of a candidate within its time.

Apart from ``search``, which loads it only for a search with filters: a hook's recall has none (it leaves out the
sessions it was asked to, once ranked: ``Filters.exclude_ids``), and loading this code (its compiled form, the class
of ``--re``'s clock) cost every recalling prompt about 0.6 M instructions for nothing (``valgrind``, 1k sessions).
"""

from __future__ import annotations

import math
import time
from _operator import not_, or_  # (``operator``'s C half, which the interpreter has built in)
from itertools import chain, compress, repeat

# (``search.POSTINGS_BUDGET`` and ``search.FULL_READ_DOCS`` read at each call: a plain search's budgets, which a
# test may change there)
from . import search
from .fields import doc_text, field_texts
from .index import SOURCE_CODES, WORD_POSTINGS_KEPT
from .index.format import KIND_SHIFT, ORDINAL_MASK
from .keys import tree_key
from .search import Filters, doc_key_bits, session_pair
from .text import composed

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Sequence

    from .index import Index, Segment
    from .search import DocScores, SessionPair


#: With a filter, a term may read up to this many (``filtered_budget``: as many as the filter's share calls for).
FILTERED_BUDGET = WORD_POSTINGS_KEPT  # as far as a segment keeps a word's postings
#: How many sessions' rows a source or since filter is tried on to know the share it admits (``filtered_budget``):
#: a share known to a few hundredths, for a few tenths of a millisecond at 100k sessions.
SHARE_SAMPLE = 1024


def filtered_budget(index: Index, filters: Filters, known: dict[int, int] | None) -> int:
    """How many postings a term of a filtered search may read: as many as a plain search reads for each one the
    filter lets through, so that it ranks from as deep a pool, up to ``FILTERED_BUDGET``; that, when the docs it may
    score are ``known`` (``known_docs``).

    A source, since or until filter's share of the sessions is known from a sample of their rows (``_admitted_share``): one
    admitting every session reads what a plain search reads and answers the plain search's answer, filtered (at
    ``FILTERED_BUDGET`` it read eight times as far, for twice a plain search's CPU at 100k sessions, and its first
    hit differed from the plain search's in most generated queries at 10k though the filter turned none away); one
    admitting an eighth or less reads ``FILTERED_BUDGET``, as before. A project filter scores only its sessions' docs
    (``known_docs``), whose postings lie anywhere in a term's list: it reads ``FILTERED_BUDGET``, as does a role or
    session filter."""
    if known is not None or filters.project or filters.kinds or filters.session_id:
        return FILTERED_BUDGET
    share = _admitted_share(index, filters)
    plain = search.POSTINGS_BUDGET
    return FILTERED_BUDGET if share * FILTERED_BUDGET <= plain else math.ceil(plain / share)


def _admitted_share(index: Index, filters: Filters) -> float:
    """The share of the index's sessions ``filters`` admit, from every so many rows of each segment (``SHARE_SAMPLE``
    in all); 0 for an index of none."""
    step = max(1, index.session_count // SHARE_SAMPLE)
    tried = admitted = 0
    for seg_i, segment in enumerate(index.segments):
        rows = range(0, segment.ref.sessions, step)
        tried += len(rows) - len(segment.deleted.intersection(rows))
        admitted += len(admitted_ordinals(segment, seg_i, filters, None, rows))
    return admitted / tried if tried else 0.0


class Admitted:
    """The docs a filtered search scores (``known_docs``: doc key -> session key), as each segment's own numbers
    (``segment_docs``) and as the runs their sessions make in it (``spans``), worked out when first asked."""

    __slots__ = ("_docs", "_index", "_spans", "_segment_docs")

    def __init__(self, index: Index, docs: dict[int, int]) -> None:
        self._docs = docs
        self._index = index
        self._spans: list[list[tuple[int, int]]] | None = None
        self._segment_docs: dict[int, set[int]] = {}

    def spans(self, seg_i: int) -> list[tuple[int, int]]:
        """The runs of docs (start, end past it), ascending, of the admitted sessions of segment ``seg_i``: each
        session's docs run from its first doc to the next session's (``Segment.session_docs``), and every one of them is admitted.
        Worked out for every segment at once."""
        if self._spans is None:
            segments = self._index.segments
            self._spans = [[] for _ in segments]
            for session in sorted(set(self._docs.values())):
                seg_i_of, ordinal = session_pair(session)
                run = segments[seg_i_of].session_docs(ordinal)
                self._spans[seg_i_of].append((run.start, run.stop))
        return self._spans[seg_i]

    def segment_docs(self, seg_i: int) -> set[int]:
        """The admitted docs of segment ``seg_i``, as its own numbers: a word's head is checked against them before
        its docs are keyed (a filtered search reads it whole, 8,192 postings a segment)."""
        found = self._segment_docs.get(seg_i)
        if found is None:
            found = self._segment_docs[seg_i] = set(chain.from_iterable(range(*span) for span in self.spans(seg_i)))
        return found

    def held(
        self, seg_i: int, docs: Sequence[int], impacts: list[float], lengths: bytes
    ) -> tuple[list[int], list[float], bytes]:
        """The postings (of segment ``seg_i``) of the admitted docs, each its own run (``_held``)."""
        return _held(docs, impacts, lengths, self.segment_docs(seg_i))


def _held(
    docs: Sequence[int], impacts: list[float], lengths: bytes, admitted: set[int]
) -> tuple[list[int], list[float], bytes]:
    """The postings of the docs ``admitted`` holds, each its own run, at C speed."""
    holds = list(map(admitted.__contains__, docs))
    kept = list(compress(docs, holds))
    return kept, list(compress(chain.from_iterable(map(repeat, impacts, lengths)), holds)), b"\x01" * len(kept)


def of_kinds(
    segment: Segment, kinds: frozenset[int], docs: Sequence[int], impacts: list[float], lengths: bytes
) -> tuple[list[int], list[float], bytes]:
    """The postings of docs of ``kinds`` only, each its own run (``--role``: the CLI's, never a hook's)."""
    kept = [
        (doc, impact)
        for doc, impact in zip(docs, chain.from_iterable(map(repeat, impacts, lengths)), strict=False)
        if segment.kind(doc) in kinds
    ]
    return [doc for doc, _ in kept], [impact for _, impact in kept], bytes([1]) * len(kept)


def group_filtered(
    index: Index,
    doc_scores: DocScores,
    filters: Filters,
    only: frozenset[SessionPair] | None,
    known: dict[int, int] | None,
) -> dict[int, list]:
    """``search._group`` for a search with filters: the same sessions, totals and docs, in the same order.

    A filtered search reads up to ``FILTERED_BUDGET`` postings a term: thousands of docs of thousands of sessions.
    Which docs belong to admitted sessions is worked out at C speed (``known``, else ``_sessions_of``), and only
    those docs are summed, in the order they were scored."""
    scores = doc_scores.scores
    session_of = _sessions_of(index, scores, filters, only) if known is None else known
    groups: dict[int, list] = {}
    for doc, score in compress(scores.items(), map(session_of.__contains__, scores)):
        session = session_of[doc]
        group = groups.get(session)
        if group is None:
            groups[session] = [score, doc]
        else:
            group[0] += score
            group.append(doc)
    return groups


#: A project filter naming at most this many sessions in a segment has them, and their docs, worked out once per
#: index (``_named``); one naming more has each candidate session checked instead (``_sessions_of``). Their docs
#: (some forty a session) cost about 0.1 us each to key, and leaving out the docs of other projects saves about as
#: much for each of the tens of thousands of postings a filtered search reads: past a thousand sessions, a search
#: of its own (the CLI's) would pay more than it saves.
NAMED_MOST = 1024


#: How many projects' sessions and docs an index keeps worked out (``Index.named``): those an agent's searches keep
#: naming (a project of a few hundred sessions keeps some ten thousand docs, about a megabyte).
NAMED_KEPT = 8


def known_docs(index: Index, filters: Filters, only: frozenset[SessionPair] | None) -> dict[int, int] | None:
    """Every doc of every session the filters admit (doc key -> session key), when a session id or a project
    naming few sessions (``_named``) says which they are before a word is read: a filtered search then scores those
    docs only (a project filter turns away all but a few hundredths of the thousands of docs a filtered search
    reads), and every posting of them, a word's tail's too (``search._add_postings``); so, when it admits few
    sessions, does a source, since or until filter (``_few_admitted``). None otherwise: each candidate session is
    checked once scored (``_sessions_of``)."""
    if only is not None:
        return _docs_of(index, [{o for n, o in only if n == i} for i in range(len(index.segments))], filters, only)
    if not filters.project_hash and (filters.source or filters.since or filters.until):
        return _few_admitted(index, filters)
    named = _named(index, filters.project_hash) if filters.project_hash else None
    if named is None:
        return None
    ordinals, docs = named
    if not (filters.source or filters.since or filters.until):
        return docs
    segments = zip(index.segments, ordinals, strict=True)
    admitted = [
        admitted_ordinals(segment, seg_i, filters, None, kept) for seg_i, (segment, kept) in enumerate(segments)
    ]
    if all(len(passed) == len(kept) for passed, kept in zip(admitted, ordinals, strict=True)):
        return docs  # none of the project's sessions turned away: its docs as kept, not worked out again (2 ms at 10k)
    return _docs_of(index, admitted, Filters(), None)


def _few_admitted(index: Index, filters: Filters) -> dict[int, int] | None:
    """Every doc of the sessions a source, since or until filter admits when they are few (``NAMED_MOST`` at most), in an
    index not read whole: a word's tail holds such a filter's docs as it holds a project's, and every posting of
    them is read (``search._add_postings``). None for a filter admitting more (it reads as far as its share calls for:
    ``filtered_budget``), or every session (it answers the plain search's answer). A sample of the sessions
    (``_admitted_share``) rules out most of those before each session is checked."""
    if index.total_docs <= search.FULL_READ_DOCS or _admitted_share(index, filters) * index.session_count > NAMED_MOST:
        return None
    segments = enumerate(index.segments)
    admitted = [
        admitted_ordinals(segment, seg_i, filters, None, range(segment.ref.sessions)) for seg_i, segment in segments
    ]
    passed = sum(map(len, admitted))
    if passed > NAMED_MOST or passed == index.session_count:
        return None
    return _docs_of(index, admitted, Filters(), None)


def _named(index: Index, project_hash: int) -> tuple[list[frozenset[int]], dict[int, int]] | None:
    """Each segment's ordinals of the live sessions whose project or directory hash is ``project_hash``
    (``Segment.sessions_named``), and their docs (``_docs_of``), found once per index (``Index.named``); None when a
    segment has more than ``NAMED_MOST``."""
    if project_hash not in index.named:
        live: list[frozenset[int]] = []
        for segment in index.segments:
            named = segment.sessions_named(project_hash, NAMED_MOST)
            if named is None:
                break
            live.append(frozenset(named - segment.deleted))
        whole = len(live) == len(index.segments)
        index.named[project_hash] = (live, _docs_of(index, live, Filters(), None)) if whole else None
        if len(index.named) > NAMED_KEPT:
            del index.named[next(iter(index.named))]
    return index.named[project_hash]


def _docs_of(
    index: Index, ordinals: Sequence[Iterable[int]], filters: Filters, only: frozenset[SessionPair] | None
) -> dict[int, int]:
    """Every doc (doc key -> session key) of those of each segment's ``ordinals`` the filters admit (``admitted_ordinals``),
    each session's docs the run from its first doc to the next session's (``Segment.session_docs``)."""
    docs: dict[int, int] = {}
    bits = doc_key_bits(index)
    for seg_i, (segment, named) in enumerate(zip(index.segments, ordinals, strict=True)):
        for ordinal in admitted_ordinals(segment, seg_i, filters, only, named):
            run = segment.session_docs(ordinal)
            docs.update(
                dict.fromkeys(range(seg_i << bits | run.start, seg_i << bits | run.stop), seg_i << KIND_SHIFT | ordinal)
            )
    return docs


def _sessions_of(
    index: Index, scores: dict[int, float], filters: Filters, only: frozenset[SessionPair] | None
) -> dict[int, int]:
    """The scored docs of the sessions the filters admit (doc key -> session key): each segment's docs mapped to
    their sessions, and the sessions checked once each (``admitted_ordinals``), at C speed (``map``, ``compress``)."""
    from bisect import bisect_left  # (here: a hook's search has no filter)

    keys = sorted(scores)
    session_of: dict[int, int] = {}
    bits = doc_key_bits(index)
    for seg_i, segment in enumerate(index.segments):
        seg_keys = keys[bisect_left(keys, seg_i << bits) : bisect_left(keys, seg_i + 1 << bits)]
        docs = map(((1 << bits) - 1).__and__, seg_keys) if seg_i else seg_keys
        ordinals = list(map(ORDINAL_MASK.__and__, map(segment.heads.__getitem__, docs)))
        admitted = admitted_ordinals(segment, seg_i, filters, only, ordinals)
        if admitted:
            keep = list(map(admitted.__contains__, ordinals))
            sessions = map((seg_i << KIND_SHIFT).__or__, compress(ordinals, keep))
            session_of.update(zip(compress(seg_keys, keep), sessions, strict=True))
    return session_of


def admitted_ordinals(
    segment: Segment, seg_i: int, filters: Filters, only: frozenset[SessionPair] | None, ordinals: Iterable[int]
) -> set[int]:
    """Those of ``ordinals`` (of segment ``seg_i``) whose sessions are live, in ``only`` (when given) and pass the
    project, source, since and until filters, read from ``Segment.session_columns``."""
    live = set(ordinals) - segment.deleted
    if only is not None:
        live &= {ordinal for number, ordinal in only if number == seg_i}
    project_hashes, dir_hashes, sources, updated, _ = segment.session_columns()
    kept: Iterable[int] = live
    if filters.project_hash:
        kept = list(kept)
        wanted = filters.project_hash.__eq__
        named = map(wanted, map(project_hashes.__getitem__, kept))
        kept = compress(kept, map(or_, named, map(wanted, map(dir_hashes.__getitem__, kept))))
    if filters.source:
        kept = list(kept)
        kept = compress(kept, map(SOURCE_CODES.get(filters.source, -1).__eq__, map(sources.__getitem__, kept)))
    if filters.since:  # (``not updated < since`` rather than ``updated >= since``, whatever a damaged row holds)
        kept = list(kept)
        kept = compress(kept, map(not_, map(filters.since.timestamp().__gt__, map(updated.__getitem__, kept))))
    if filters.until:
        kept = list(kept)
        kept = compress(kept, map(filters.until.timestamp().__gt__, map(updated.__getitem__, kept)))
    return set(kept)


def admitted_keys(index: Index, filters: Filters) -> frozenset[SessionPair] | None:
    """The (segment number, ordinal) of the sessions ``--session`` and a project given as a folder admit (both, when
    both are given), None when neither is: the filters ``admitted_ordinals`` does not read from a segment's columns,
    given to it as its ``only``."""
    only = _session_keys(index, filters.session_id) if filters.session_id else None
    if filters.project and not filters.project_hash:
        tree = _in_tree(index, filters.project)
        only = tree if only is None else only & tree
    return only


def _session_keys(index: Index, session_id: str) -> frozenset[SessionPair]:
    """The (segment number, ordinal) of the sessions ``session_id`` names (an id or a unique prefix)."""
    numbers = {id(segment): i for i, segment in enumerate(index.segments)}
    return frozenset((numbers[id(segment)], ordinal) for segment, ordinal, _ in index.find(session_id))


def _in_tree(index: Index, folder: str) -> frozenset[SessionPair]:
    """The (segment number, ordinal) of the sessions that ran in ``folder`` or a folder below it."""
    numbers = {id(segment): i for i, segment in enumerate(index.segments)}
    found = index.newest(tree_key(folder), limit=index.session_count, scan_limit=index.session_count)
    return frozenset((numbers[id(segment)], segment.doc(doc).ordinal) for _, segment, doc in found)


#: Of each candidate doc, this much text is matched against ``--re``.
REGEX_CHARS = 65_536


class RegexClock:
    """``--re``'s time limit. Past ``deadline`` no more candidates are checked; and where the process can take a
    signal (the CLI's main thread), a timer interrupts a pattern that backtracks for ever inside one text
    (``(Z+Z+)+Y``), which a check between candidates never gets to."""

    __slots__ = ("deadline", "matching", "_armed", "_previous")

    def __init__(self, seconds: float, armed: bool):
        self.deadline = time.perf_counter() + seconds
        self.matching = False
        self._armed = False
        self._previous: Callable[..., object] | int | None = None
        if armed:
            import signal

            try:
                self._previous = signal.signal(signal.SIGALRM, self._ring)
            except (ValueError, AttributeError):  # not the main thread; no SIGALRM (Windows)
                return
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def _ring(self, signum: int, frame: object) -> None:
        if self.matching:  # the regex engine checks for signals as it goes: the match stops here
            raise TimeoutError

    def check(self) -> None:
        if time.perf_counter() > self.deadline:
            raise TimeoutError

    def matches(self, segment: Segment, ordinal: int, pattern: re.Pattern) -> bool:
        """Whether session ``ordinal`` of ``segment`` matches ``pattern`` anywhere: its messages, what their commands
        printed and their edits (``REGEX_CHARS`` of each), its title."""
        self.check()
        meta = segment.session(ordinal)
        self.matching = True
        try:
            for message in segment.messages(meta):
                for text in (doc_text(message), *field_texts(message).values()):
                    if pattern.search(composed(text[:REGEX_CHARS])):
                        return True
            return bool(pattern.search(composed(meta.title)))
        finally:
            self.matching = False

    def disarm(self) -> None:
        if self._armed:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
