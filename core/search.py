"""Ranking sessions for a query: BM25 over messages, grouped into sessions.

Each message is scored with BM25 (user turns, titles and tool commands weigh
more: ``index.KIND_WEIGHT``, ``index.doc_text``) plus a share of its
neighbours' scores. A session scores its best message plus a share of its next
two, scaled by how many of the query's terms it holds and by a mild recency
factor. Only the head of each term's postings is read, so cost stays flat as
the index grows. The constants were tuned on LoCoMo (``bench/locomo.py``).
"""

from __future__ import annotations

import heapq
import math
import re
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from operator import itemgetter

import msgspec

from .index import (
    KIND_ASSISTANT,
    KIND_TITLE,
    KIND_USER,
    SOURCE_CODES,
    WORD_POSTINGS_KEPT,
    Index,
    Segment,
    SessionMeta,
    doc_text,
    name_hash,
)
from .model import Message
from .text import normalise, phrases, term_positions, terms

#: How many postings a term may contribute, spread over the segments.
POSTINGS_BUDGET = 1024
#: With a filter, a term may read this many more before giving up on the filter.
FILTERED_BUDGET = WORD_POSTINGS_KEPT  # as far as a segment keeps a word's postings
#: Below this idf a term is common (in more than about a twentieth of messages).
COMMON_IDF = 3.0
#: How many sessions are ranked in full (the rest can't reach the top).
RERANK = 64
SECOND_BEST_SHARE = 0.35
#: A turn's score borrows this share of its neighbours': answers sit next to their questions.
NEIGHBOUR_SHARE = 0.2
#: Sessions are scaled by (share of query terms they hold) ** COORD.
COORD = 0.5
SNIPPET_CHARS = 240
#: With quoted phrases, how many candidates are checked to count the total.
PHRASE_COUNT_LIMIT = 500
#: How far from a session's best message its question and answer are looked for.
TURN_DOCS = 30


class Snippet(msgspec.Struct):
    role: str
    text: str
    timestamp: datetime | None = None


class Hit(msgspec.Struct):
    session_id: str
    source: str
    project: str
    project_dir: str
    title: str
    started: datetime | None
    updated: datetime | None
    score: float
    snippets: list[Snippet] = []
    messages: int = 0
    #: The query terms this session's best messages hold.
    matched: list[str] = []
    #: (segment number, doc) of the best message, for hooks that read around it.
    best: tuple[int, int] = (0, 0)


class SearchResult(msgspec.Struct):
    query: str
    total: int
    hits: list[Hit]
    #: Each query term found in the index, with its idf (how rare it is).
    idf: dict[str, float] = {}


class Filters(msgspec.Struct):
    project: str | None = None
    source: str | None = None
    since: datetime | None = None
    exclude_ids: frozenset[str] = frozenset()
    #: Derived from ``project`` once, not per candidate.
    project_hash: int = 0

    @property
    def active(self) -> bool:
        return bool(self.project or self.source or self.since)

    def __post_init__(self) -> None:
        self.project_hash = name_hash(self.project) if self.project else 0

    def admits(self, keys: tuple[int, int, int, float]) -> bool:
        project_hash, dir_hash, source, updated = keys
        if self.project and self.project_hash not in (project_hash, dir_hash):
            return False
        if self.source and SOURCE_CODES.get(self.source, -1) != source:
            return False
        return not (self.since and updated < self.since.timestamp())


def query_terms(query: str) -> tuple[list[str], list[str]]:
    """(unique terms, phrases) of a query; phrase words count as terms too."""
    found, rest = phrases(query)
    seen: dict[str, None] = {}
    for part in [rest, *found]:
        for term in terms(part):
            seen.setdefault(term, None)
    return list(seen), [normalise(p) for p in found]


def recency(updated: float, now: float) -> float:
    """A small boost for recent work: up to +15%, halving every 30 days."""
    if updated <= 0:
        return 1.0
    age_days = max(0.0, (now - updated) / 86400)
    return 1.0 + 0.15 * 0.5 ** (age_days / 30)


class _Scored:
    """One message's running score, the query terms it matched (a bit mask) and its session."""

    __slots__ = ("score", "mask", "ordinal")

    def __init__(self, score: float, mask: int, ordinal: int):
        self.score, self.mask, self.ordinal = score, mask, ordinal


def _score_docs(
    index: Index, query: list[str], filters: Filters
) -> tuple[dict[tuple[int, int], _Scored], dict[str, float]]:
    """Every candidate message's score, keyed by (segment number, doc), and each term's idf."""
    scores: dict[tuple[int, int], _Scored] = {}
    idfs: dict[str, float] = {}
    budget = FILTERED_BUDGET if filters.active else POSTINGS_BUDGET
    for bit, term in enumerate(query):
        found = [(i, seg, *seg.lookup(term)) for i, seg in enumerate(index.segments)]
        df = sum(df for *_, df in found)
        if df == 0:
            continue
        idf = idfs[term] = index.idf(df)
        flag = 1 << bit
        # A common term decides little of the ranking: it reads a quarter as far.
        term_budget = budget if idf >= COMMON_IDF else budget // 4
        for i, segment, p_off, count, _ in found:
            if not count:
                continue
            share = max(64, math.ceil(term_budget * segment.ref.docs / index.total_docs))
            for doc, ordinal, impact in segment.postings(p_off, 0, min(count, share)):
                entry = scores.get((i, doc))
                if entry is None:
                    scores[(i, doc)] = _Scored(idf * impact, flag, ordinal)
                else:
                    entry.score += idf * impact
                    entry.mask |= flag
    return scores, idfs


def densest_window(text: str, wanted: set[str], width: int = SNIPPET_CHARS) -> str:
    """The stretch of ``text`` about ``width`` long holding the most query terms."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    hits = [start for start, found in term_positions(flat) if not wanted.isdisjoint(found)]
    if not hits:
        return flat[: width - 1].rstrip() + "…"
    best_start, best_count, j = hits[0], 0, 0
    for i, start in enumerate(hits):
        while hits[j] < start - width + 40:
            j += 1
        if i - j + 1 > best_count:
            best_count, best_start = i - j + 1, hits[j]
    start = max(0, best_start - 40)
    space = flat.rfind(" ", 0, start + 1)
    start = space + 1 if start and space >= 0 else start
    window = flat[start : start + width]
    return ("…" if start else "") + window.strip() + ("…" if start + width < len(flat) else "")


def _phrase_ok(segment: Segment, docs: Iterable[int], wanted: list[str]) -> bool:
    if not wanted:
        return True
    text = " ".join(normalise(segment.message(doc).text) for doc in docs)
    return all(p in text for p in wanted)


def search(
    index: Index,
    query: str,
    *,
    filters: Filters | None = None,
    limit: int = 10,
    snippets: int = 2,
    now: float | None = None,
) -> SearchResult:
    filters = filters or Filters()
    now = now or time.time()
    words, wanted_phrases = query_terms(query)
    doc_scores, idfs = _score_docs(index, words, filters)

    # Group message scores into sessions, checking filters on the fixed-width keys only.
    per_session: dict[tuple[int, int], list[tuple[float, int]]] = {}
    totals: dict[tuple[int, int], float] = {}
    rejected: set[tuple[int, int]] = set()
    filtered = filters.active
    for (seg_i, doc), entry in doc_scores.items():
        key = (seg_i, entry.ordinal)
        scored = per_session.get(key)
        if scored is None:
            if key in rejected:
                continue
            segment = index.segments[seg_i]
            if entry.ordinal in segment.deleted or (
                filtered and not filters.admits(segment.session_keys(entry.ordinal))
            ):
                rejected.add(key)
                continue
            scored = per_session[key] = []
            totals[key] = 0.0
        scored.append((entry.score, doc))
        totals[key] += entry.score

    # Only the sessions whose messages could make the cut are ranked in full.
    shortlist = heapq.nlargest(max(RERANK, 4 * limit), totals.items(), key=itemgetter(1))
    ranked = []
    for key, _ in shortlist:
        scored = per_session[key]
        if len(scored) > 1:
            own = {doc: score for score, doc in scored}
            scored = [
                (score + NEIGHBOUR_SHARE * (own.get(doc - 1, 0.0) + own.get(doc + 1, 0.0)), doc)
                for score, doc in scored
            ]
        scored.sort(reverse=True)
        total = scored[0][0] + SECOND_BEST_SHARE * sum(s for s, _ in scored[1:3])
        if words:
            mask = 0
            for _, doc in scored:
                mask |= doc_scores[(key[0], doc)].mask
            total *= (bin(mask).count("1") / len(words)) ** COORD
        updated = index.segments[key[0]].session_keys(key[1]).updated
        ranked.append((total * recency(updated, now), key, scored))
    ranked.sort(key=lambda r: r[0], reverse=True)

    wanted_terms = set(words)
    hits: list[Hit] = []
    matching = 0 if wanted_phrases else len(per_session)
    for position, (score, (seg_i, ordinal), scored) in enumerate(ranked):
        if len(hits) >= limit and (not wanted_phrases or position >= PHRASE_COUNT_LIMIT):
            break
        segment = index.segments[seg_i]
        if wanted_phrases:
            if not _phrase_ok(segment, (d for _, d in scored), wanted_phrases):
                continue
            matching += 1
        if len(hits) >= limit:
            continue
        meta = segment.session(ordinal)
        if meta.id in filters.exclude_ids:
            matching -= 1
            continue
        hits.append(
            Hit(
                session_id=meta.id,
                source=meta.source,
                project=meta.project,
                project_dir=meta.project_dir,
                title=meta.title,
                started=meta.started,
                updated=meta.updated,
                score=round(score, 4),
                snippets=_snippets(segment, scored, wanted_terms, snippets),
                messages=meta.messages,
                matched=_matched(words, scored[:3], doc_scores, seg_i),
                best=(seg_i, scored[0][1]),
            )
        )
    return SearchResult(query=query, total=matching, hits=hits, idf=idfs)


def _matched(
    words: list[str], scored: list[tuple[float, int]], doc_scores: dict[tuple[int, int], _Scored], seg_i: int
) -> list[str]:
    mask = 0
    for _, doc in scored:
        entry = doc_scores.get((seg_i, doc))
        mask |= entry.mask if entry else 0
    return [term for bit, term in enumerate(words) if mask >> bit & 1]


def _snippets(segment: Segment, scored: list[tuple[float, int]], wanted: set[str], count: int) -> list[Snippet]:
    out: list[Snippet] = []
    for _, doc in scored:
        if len(out) >= count:
            break
        if segment.doc(doc).kind == KIND_TITLE:
            continue
        message: Message = segment.message(doc)
        # The message's own words, unless the match is only in its tool calls' commands and paths.
        own = message.text if not wanted.isdisjoint(terms(message.text)) else doc_text(message)
        out.append(Snippet(role=message.role, text=densest_window(own, wanted), timestamp=message.timestamp))
    return out


def best_terms(index: Index, hit: Hit, wanted: set[str]) -> set[str]:
    """The ``wanted`` terms the hit's single best message holds (its text, tool commands and paths)."""
    return set(terms(doc_text(index.segments[hit.best[0]].message(hit.best[1])))) & wanted


def best_turn(index: Index, hit: Hit, wanted: set[str], width: int = SNIPPET_CHARS) -> list[Snippet]:
    """The hit's best turn, each side cut to its densest ``width`` characters: the question the best message
    belongs to and the answer to it; when the best match is the session's title, what it first asked
    (role ``asked``) and what it concluded (role ``concluded``)."""
    segment = index.segments[hit.best[0]]
    doc = hit.best[1]
    ordinal, kind = segment.doc(doc).ordinal, segment.doc(doc).kind
    meta = segment.session(ordinal)
    sides: list[tuple[str, str, datetime | None]]
    if kind == KIND_TITLE:
        sides = [("asked", meta.asked, None), ("concluded", meta.concluded, None)]
    else:
        messages = [segment.message(d) for d in _exchange(segment, meta, doc, kind, wanted) if d is not None]
        sides = [(m.role, m.text, m.timestamp) for m in messages]
    return [
        Snippet(role=role, text=densest_window(text, wanted, width), timestamp=when)
        for role, text, when in sides
        if text.strip()
    ]


def _exchange(
    segment: Segment, meta: SessionMeta, doc: int, kind: int, wanted: set[str]
) -> tuple[int | None, int | None]:
    """The question ``doc`` belongs to and the answer to it: the assistant message of that turn holding the most
    of what is wanted (the last one on a tie, where a turn usually settles things)."""
    first, end = meta.first_doc, meta.first_doc + meta.n_docs
    if kind == KIND_ASSISTANT:
        question = next(
            (d for d in range(doc - 1, max(first, doc - TURN_DOCS) - 1, -1) if segment.doc(d).kind == KIND_USER), None
        )
        return question, doc
    answer, most = None, -1
    for d in range(doc + 1, min(end, doc + TURN_DOCS)):
        next_kind = segment.doc(d).kind
        if next_kind == KIND_USER:
            break
        text = segment.message(d).text if next_kind == KIND_ASSISTANT else ""
        found = len(set(terms(text)) & wanted) if text.strip() else -1
        if found >= 0 and found >= most:
            answer, most = d, found
    return doc, answer


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """``30d``, ``12h``, ``2w`` or ``YYYY-MM-DD`` as an aware datetime; ValueError otherwise."""
    value = value.strip()
    match = re.fullmatch(r"(\d+)\s*([hdwmy])", value.lower())
    now = now or datetime.now(UTC)
    if match:
        amount, unit = int(match.group(1)), match.group(2)
        days = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "y": 365}[unit] * amount
        return datetime.fromtimestamp(now.timestamp() - days * 86400, tz=UTC)
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.astimezone()
