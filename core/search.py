"""Ranking sessions for a query: BM25 over messages, grouped into sessions.

Each doc is scored with BM25 (user turns, titles and tool commands weigh
more: ``index.KIND_WEIGHT``, ``index.doc_text``); a message's doc and its field
docs (what its commands printed, their errors, its edits) add up to one turn,
which borrows a share of its neighbouring turns' scores. A session scores its
best turn plus a share of its next two, scaled by how many of the query's terms
it holds and by a mild recency factor. In an index of more than ``FULL_READ_DOCS`` docs, a term has only the
head of its postings read (highest impact first, up to a budget spread over the
segments by size), so cost stays flat as the index grows; in a smaller index
every term is read whole. The constants were tuned on LoCoMo (``bench/locomo.py``).
"""

from __future__ import annotations

import math
import time
from _operator import (
    add,
    itemgetter,
    mul,
    or_,
    truediv,
)  # (``operator``'s C half, which the interpreter has built in)
from itertools import chain, compress, islice, repeat

from .dates import dated_words, local_period, relative_dates, split_dates
from .fields import (
    KIND_ASSISTANT,
    KIND_COMMAND,
    KIND_EDIT,
    KIND_ERROR,
    KIND_OUTPUT,
    KIND_TITLE,
    KIND_USER,
    MESSAGE_KINDS,
    kind_text,
)
from .index import WHOLE_LISTS_DOCS, Index, Segment, SessionKeys, name_hash
from .index.format import KIND_SHIFT, ORDINAL_MASK
from .keys import is_folder
from .lines import own_words, stretch
from .record import Record
from .remembered import Remembered
from .text import (
    composed,
    hex_letters,
    identifier_parts,
    normalise,
    phrases,
    random_pairs,
    sharp_s_spellings,
    spellings,
    term_positions,
    terms,
)
from .thesaurus import RELATED_WEIGHT, Compound, closed_compounds, related, says_spaced

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (datetime loads at run time where a hit's time is read: a prompt that recalls nothing never)
    import re
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from datetime import datetime

    from .index import SessionMeta
    from .model import Message
    from .search_filters import Admitted, RegexClock

#: In an index of at most this many docs every term is read whole: reading everything costs little there (7 ms of
#: ``deja search``'s 42 at 1k sessions), and no posting is cut, so a small index is ranked exactly: a budget of
#: 4,096 there changed the first result of 34 of 100 generated queries at 1k (``index.WHOLE_LISTS_DOCS``).
FULL_READ_DOCS = WHOLE_LISTS_DOCS
#: The most postings of one key (a date) read to find the sessions it names.
FULL_READ = 4096
#: Past FULL_READ, how many postings a term may contribute (its highest-impact ones), spread over the segments
#: by their size: what keeps a search's cost flat as the index grows.
POSTINGS_BUDGET = 1024
#: Below this idf a term is common (in more than about a twentieth of messages).
COMMON_IDF = 3.0
#: How many sessions, by their totals, are shortlisted to be ranked in full (``_Ranking``; a person's or an agent's
#: search also takes as many more by their docs' mean score).
RERANK = 64
SECOND_BEST_SHARE = 0.35
#: A turn's score borrows this share of its neighbours': answers sit next to their questions. 0.2 when a field doc
#: was its own turn; with turns (``_turns``) 0.1 is better on both LoCoMo halves (tuning 76.7% -> 77.1%, reporting
#: 75.3% -> 75.8%) and the same on the coding benchmark.
NEIGHBOUR_SHARE = 0.1
#: Sessions are scaled by (share of query terms held within TURN_WINDOW consecutive messages) ** WINDOW_COORD:
#: the terms of an answer sit together. Tuned on LoCoMo's tuning half: R@1 75.6% without, 76.3% with 3 and 0.5
#: (76.9% with COORD lowered to 0.25 as well: within noise, so COORD stays); the coding benchmark's tuning half is
#: unchanged by it (75.0%).
#: Tried there and left out, as both tuning halves got worse: pivoted session-length normalisation (b = 0.1:
#: LoCoMo 75.4%, coding 71.9%) and reciprocal-rank fusion of the best-turn and the session rankings (k = 5 to 60:
#: LoCoMo 75.1%, coding reporting 71.0%).
TURN_WINDOW = 3
WINDOW_COORD = 0.5
#: A query term that is only a part of an identifier the index holds whole weighs this much of its idf:
#: the session naming ``per_customer_limit`` outranks those that say "per", "customer" and "limit" apart.
PART_WEIGHT = 0.5
#: Sessions are scaled by (share of query terms they hold) ** COORD.
COORD = 0.5
SNIPPET_CHARS = 240
#: How far down a session's matching docs a passage holding a query word the passages before it lack is looked for
#: (``_covering``).
COVER_LOOKAHEAD = 16
#: How much of a recalled question's own words its densest stretch is taken from (``_side``).
ASK_WORDS = 4096
#: The most a session's recency scales it by, for work of today (``recency``).
RECENCY_BOOST = 0.15
#: A session from the day, month or year a query names is scaled by this. Day and month tuned on LoCoMo's
#: tuning half (R@1 74.1% at 1.3/1.1, 75.7% at 3.0/2.2, flat beyond); the year has no benchmark: kept mild.
DATE_BOOST = {"day": 3.0, "month": 2.0, "year": 1.05}
#: What a session from a date the query names scores before its boost when no word of the query matched it.
DATE_ONLY_SCORE = 1e-3
#: How many of its first word's postings (its highest-impact ones, spread over the segments by size) a compound's
#: closed word (``rollback``) reads the text of, to find the chats saying its two words side by side (``rolled back``):
#: the index holds no word's positions, and reading a doc's text costs it its session's records inflated (about
#: 25 µs a doc: at 5k generated sessions ``timeout`` searched in 5 ms where it took 2 without the check; 256 changed
#: nothing more of the gate benchmarks' prompts than 128).
SPACED_DOCS = 128
#: With quoted phrases, how many candidates are checked to count the total.
PHRASE_COUNT_LIMIT = 500
#: How far from a session's best message its question and answer are looked for.
TURN_DOCS = 30


class Snippet(Record):
    role: str
    text: str
    timestamp: datetime | None = None


class Hit(Record):
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
    #: The best doc in that segment that is no title (-1 when only the title matched): the turn the hook shows when
    #: the title matched best but the chat's first question is about something else (``best_turn``).
    said: int = -1


class SearchResult(Record):
    query: str
    total: int
    hits: list[Hit]
    #: Each query term found in the index, with its idf (how rare it is).
    idf: dict[str, float] = {}
    #: What the user should know about how the results were found (a phrase fallback, a cut-short ``--re``).
    notice: str = ""
    #: The query's words no session holds in any form searched for, as typed (``kubernetes``): the results were
    #: found without them.
    unmatched: list[str] = []


class Filters(Record):
    project: str | None = None
    source: str | None = None
    since: datetime | None = None
    #: Only sessions last updated before this moment (``--until``, ``dates.parse_until``).
    until: datetime | None = None
    exclude_ids: frozenset[str] = frozenset()
    #: Only docs of these kinds (see ``ROLE_KINDS``); empty: every kind.
    kinds: frozenset[int] = frozenset()
    #: Only inside this session (an id or a unique prefix of one).
    session_id: str | None = None
    #: Only those of the query's candidate sessions that match this regular expression anywhere.
    pattern: str | None = None
    #: Derived from ``project`` once, not per candidate: 0 for a folder, whose sessions (with those of the folders
    #: below it) are looked up by key instead (``search_filters._in_tree``).
    project_hash: int = 0

    @property
    def active(self) -> bool:
        return bool(self.project or self.source or self.since or self.until or self.kinds or self.session_id)

    def __post_init__(self) -> None:
        # 0 is the hash of "no project": a project that spells as nothing (the root folder ``/``) matches no session
        if self.project and not is_folder(self.project):
            self.project_hash = name_hash(self.project) or -1


def query_terms(query: str) -> tuple[list[str], list[str]]:
    """(unique terms, phrases) of a query; phrase words count as terms too (new lists on every call: callers add
    to them).

    A number split off an identifier of the query (the ``2`` of ``hunter2``) is not a term: alone it would match
    every session that says "2". The identifier whole and its words are; a number typed on its own is too. The
    letters split off a hex run (``a3f9c21e``, ``hex_letters``) go the same way: the hash whole is the term, and so
    does a single letter split off a mixed-case token (the ``q`` of a request id ``qZkPfTvW`` matched ``pytest -q``,
    trial9 F13), and two split off a random-looking one (a pasted password ``Zq8vN3pLw2Rt`` matched sessions
    through ``Rt`` and ``Lw``, trial10 F7: ``random_pairs``); a letter typed on its own stays one.
    """
    terms, phrases = _LAST_QUERY(query)
    return list(terms), list(phrases)


def _query_terms(query: str) -> tuple[list[str], list[str]]:
    """``query_terms``, worked out."""
    found, rest = phrases(query)
    seen: dict[str, None] = {}
    for part in [rest, *found]:
        digits = any(c.isdigit() for c in part)  # (a hash and a generated token hold digits)
        hexes, pairs = (hex_letters(part), random_pairs(part)) if digits else (set(), set())
        split_off = {
            term
            for term in identifier_parts(part)
            if term.isdigit() or term in hexes or len(term) == 1 or term in pairs
        }
        for term in terms(part):
            if term not in split_off:
                seen.setdefault(term, None)
    return list(seen), [normalise(p) for p in found]


#: The last query's terms and phrases (``query_terms``): the prompt hook asks them of its prompt twice, its gate
#: first and then ``search`` (0.67 M instructions of a recalling prompt's 116 M at 1k sessions). Typed as what it
#: answers, so that mypy checks its callers (a ``Remembered`` answers ``Any``: a generic one would need ``typing``).
_LAST_QUERY: Callable[[str], tuple[list[str], list[str]]] = Remembered(_query_terms, 1)


def recency(updated: float, now: float) -> float:
    """A small boost for recent work: up to +RECENCY_BOOST, halving every 30 days."""
    if updated <= 0:
        return 1.0
    age_days = max(0.0, (now - updated) / 86400)
    return 1.0 + RECENCY_BOOST * 0.5 ** (age_days / 30)


SessionPair = tuple[int, int]
#: Search keys a doc as one int, its segment's number above its own (``doc_key_bits``), and a session as its segment's
#: number above its ordinal (``KIND_SHIFT`` bits): ints hash faster than pairs, thousands a search.


def doc_key_bits(index: Index) -> int:
    """How many bits a doc key gives the doc below its segment's number: as few as the largest segment needs. Keys
    that small stay one-digit ints (below 2**30) while the segments' count fits the bits left, and their shifts,
    masks and hashes take CPython's fast path: keyed above 32 bits, a later segment's docs took a recalling prompt
    2.3% more instructions at 1k sessions."""
    return max(segment.ref.docs for segment in index.segments).bit_length() if index.segments else 0


def _session_key(seg_i: int, ordinal: int) -> int:
    return seg_i << KIND_SHIFT | ordinal


def session_pair(session: int) -> SessionPair:
    """(segment number, ordinal) of a session's key."""
    return session >> KIND_SHIFT, session & ORDINAL_MASK


def _doc_keys(seg_i: int, docs: Sequence[int], bits: int) -> Iterable[int]:
    """The keys of ``docs`` of segment ``seg_i`` (the first segment's are the docs themselves), made with ``bits``
    (``doc_key_bits``). Or'd by ``or_`` with the segment's base repeated: the base's own ``__or__`` is a slot wrapper,
    which packs each call's argument in a tuple (a recalling prompt's hook at 1k sessions, half of whose 18.6k
    postings are a later segment's: 1.35 M instructions more)."""
    return map(or_, repeat(seg_i << bits), docs) if seg_i else docs


class DocScores:
    """Every candidate doc's score, keyed (``doc_key_bits``) in the order each was first matched, and the query terms
    each matched (bit masks: as written, and only through another word, ``thesaurus.related``).

    A postings list is added whole, at C speed: each doc's score so far (0 for a doc not scored yet) plus its weighted
    impact (each doc's scores add up in the order the lists came, as a running sum per posting would). A doc's masks
    are not kept per posting either: each list keeps the docs it matched, and the masks are worked out only for the
    docs ranking looks at (``masks``), a few hundred of the thousands read.
    """

    __slots__ = ("scores", "bits", "runs", "_lists", "_masks")

    def __init__(self, bits: int) -> None:
        self.scores: dict[int, float] = {}
        #: How the keys are made (``doc_key_bits``): a key's segment number is ``key >> bits``.
        self.bits = bits
        #: (where it ends in ``scores``, segment number) of each run of keys of one segment, in order: ``_group`` reads
        #: a run's docs against its segment, not working each key's segment out of it (a list is of one segment).
        self.runs: list[tuple[int, int]] = []
        #: (the term's bit, whether it matched only nearly, the docs the list matched)
        self._lists: list[tuple[int, bool, list[int]]] = []
        self._masks: dict[int, tuple[int, int]] = {}

    def add(self, keys: list[int], weighted: Iterable[float], flag: int, near: bool, seg_i: int) -> None:
        """Add one postings list of segment ``seg_i`` (its docs' keys, each doc once, and their weighted impacts,
        which may run on past them) as matching ``flag``."""
        scores = self.scores
        # A doc scored before keeps its place, and a new one comes after, in the list's order. (Built as a dict and
        # merged, the docs it shared with the lists before it summed in Python, a list cost a third more.)
        summed = map(add, weighted, map(scores.get, keys, repeat(0.0)))
        scores.update(zip(keys, summed, strict=True))
        self._lists.append((flag, near, keys))
        self._ran(seg_i)

    def date_only(self, seg_i: int, doc: int) -> None:
        """Make a doc of segment ``seg_i`` a candidate, at ``DATE_ONLY_SCORE`` if no word matched it."""
        self.scores.setdefault(seg_i << self.bits | doc, DATE_ONLY_SCORE)
        self._ran(seg_i)

    def _ran(self, seg_i: int) -> None:
        """Note that the keys added last, if any, are of segment ``seg_i`` (``runs``)."""
        end, runs = len(self.scores), self.runs
        if runs and runs[-1][1] == seg_i:
            runs[-1] = (end, seg_i)
        elif end > (runs[-1][0] if runs else 0):
            runs.append((end, seg_i))

    def masks(self, docs: Iterable[int]) -> list[tuple[int, int]]:
        """Each doc's (mask as written, mask nearly), in order; worked out once per doc, for all ``docs`` at once."""
        docs = list(docs)
        known = self._masks
        todo = set(docs).difference(known)
        if todo:
            written, nearly = dict.fromkeys(todo, 0), dict.fromkeys(todo, 0)
            for flag, near, found in self._lists:
                into = nearly if near else written
                for doc in todo.intersection(found):
                    into[doc] |= flag
            masks = zip(written.values(), nearly.values(), strict=True)  # (both made in ``todo``'s order)
            known.update(zip(todo, masks, strict=True))
        return [known[doc] for doc in docs]


def _score_docs(
    index: Index,
    query: list[str],
    filters: Filters,
    parts: dict[str, str] | None = None,
    others: dict[str, list[tuple[str, float]]] | None = None,
    gained: frozenset[str] = frozenset(),
    budget: int | None = None,
    known: dict[int, int] | None = None,
    spelt: dict[str, str] | None = None,
    compounds: dict[str, Compound] | None = None,
    common_budget: int | None = None,
) -> tuple[DocScores, dict[str, float], set[str]]:
    """Every candidate doc's score and the query terms it matched (``DocScores``, keyed ``seg_i << bits | doc``:
    ``doc_key_bits``), each term's idf, and the terms some doc holds, as written or nearly.

    ``parts`` maps a term that is only part of an identifier to the identifier (see ``text.identifier_parts``);
    ``others`` a term to the other words it also looks for, with their share of its weight
    (``thesaurus.related``): a doc holding one of them holds the term ``near``ly, which ranks it but is not a
    match as written (the idfs are of the terms as written). Terms from ``gained`` on match only nearly.
    ``budget``: the most postings a term may read (see ``search``), ``common_budget`` a common term (a quarter of
    ``budget`` at most, its default). With ``known`` (``search_filters.known_docs``), only the docs
    it holds are scored. ``spelt`` maps a term stemmed from a word typed in lowercase to the word, which the index
    holds unstemmed when a text wrote it in mixed case (``text.spellings``): matched as written too, its idf the
    term's where the stem is in no doc. ``compounds`` maps a term that is a compound's closed word (``rollback``) to
    the compound (``thesaurus.closed_compounds``): a doc saying its two words side by side (``rolled back``) holds the
    term nearly, at ``RELATED_WEIGHT`` of its first word's idf or of its own, the lower (a spaced match outranked the
    closed word: "check out the docs" came before "git checkout main", review41b H1, review41c H1).
    """
    scores = DocScores(doc_key_bits(index))
    idfs: dict[str, float] = {}
    reached: set[str] = set()
    parts = parts or {}
    others = others or {}
    spelt = spelt or {}
    compounds = compounds or {}
    if index.total_docs <= FULL_READ_DOCS:
        own = 0
    elif known is not None or filters.active:
        from .search_filters import filtered_budget

        own = filtered_budget(index, filters, known)
    else:
        own = POSTINGS_BUDGET
    budget = own if budget is None else min(budget, own or budget)
    common = budget // 4 if common_budget is None or not budget else min(budget // 4, common_budget)
    budgets = (budget, common)
    admitted = None
    if known is not None:
        from .search_filters import Admitted

        admitted = Admitted(index, known)
    for bit, term in enumerate(query):
        part = PART_WEIGHT if parts.get(term) in idfs else 1.0
        if term not in gained and (
            idf := _add_postings(index, term, part, 1 << bit, False, filters, scores, budgets, admitted)
        ):
            idfs[term] = idf
        if (word := spelt.get(term)) and (
            idf := _add_postings(index, word, part, 1 << bit, False, filters, scores, budgets, admitted)
        ):
            idfs.setdefault(term, idf)
        alternatives = [(term, 1.0)] if term in gained else others.get(term, ())
        # Another word for it weighs at most its share of the word's own idf (of its commonest other word's when no doc
        # holds it): at its own, a rare "ship" put "Shipping estimate shows NaN" above every chat saying "deploy"
        # (trial49 F3).
        ceiling = None if term in gained or not alternatives else idfs.get(term) or _commonest(index, alternatives)
        for alternative, share in alternatives:
            if _add_postings(
                index, alternative, share * part, 1 << bit, True, filters, scores, budgets, admitted, None, ceiling
            ):
                reached.add(term)
        if (compound := compounds.get(term)) and _add_postings(
            index, compound.first, part * RELATED_WEIGHT, 1 << bit, True, filters, scores, budgets, admitted, compound
        ):
            reached.add(term)
    return scores, idfs, reached.union(idfs)


#: The most indexed runs of Chinese or Japanese text one word of a query is looked for inside (each a term of its own):
#: every sentence is a run, so 100 chats saying a word each held it in 200 runs, and at 64 a search found 64 of them
#: and said nothing (review48a M2). Past it a search says so (``_runs_cut``).
RUNS_HOLDING = 1024
#: The first bytes of the UTF-8 of kana and CJK ideographs (U+3000 to U+9FFF): their runs' stretch of a segment's terms.
_UNSPACED_BYTES = (b"\xe3", b"\xea")


class _Otherwise:
    """The other terms each word of a query is also looked for as, with their share of its weight (``terms``), and
    the words whose runs ``RUNS_HOLDING`` cut (``cut``)."""

    __slots__ = ("cut", "terms")

    def __init__(self) -> None:
        self.terms: dict[str, list[tuple[str, float]]] = {}
        self.cut: list[str] = []


def _written_otherwise(index: Index, text: str, words: list[str], scan: bool) -> _Otherwise:
    """The terms each of ``words`` (``text``'s) is also looked for as: the runs of Chinese or Japanese that hold it
    (``_runs_holding``, when ``scan``), at its whole weight, and its spelling with ``ß`` or ``ss``
    (``text.sharp_s_spellings``) at ``_other_spelling_share``."""
    found = _runs_holding(index, words) if scan else _Otherwise()
    for word, other in sharp_s_spellings(text).items():
        if word in words and other not in words:
            found.terms.setdefault(word, []).append((other, _other_spelling_share(index, word, other)))
    return found


def _other_spelling_share(index: Index, word: str, other: str) -> float:
    """The share of ``word``'s weight its other spelling ``other`` gets: ``RELATED_WEIGHT``, of the rarer one's idf
    at most, so that the chat saying the word as typed comes first. The other spelling is the index's term for it,
    stemmed as the index stems it (``Grösse`` is ``gross``), and an English chat saying "gross margin" holds that
    term too: at the whole weight it came before the chat saying "Größe" (review48a M1)."""
    own, theirs = _df(index, word), _df(index, other)
    if not own or not theirs:
        return RELATED_WEIGHT
    return RELATED_WEIGHT * min(1.0, index.idf(own) / index.idf(theirs))


def _runs_holding(index: Index, words: list[str]) -> _Otherwise:
    """For each word of the query in kana or CJK ideographs, the indexed runs that hold it inside them (the first
    ``RUNS_HOLDING`` in their order as bytes, the word named in ``cut`` when there were more): text written without
    spaces is indexed a run at a time, so ``超时`` was a term no session held where one said "支付接口返回超时错误"
    (trial48 F10). The index is as it was: the runs are found among its terms."""
    found = _Otherwise()
    for word in words:
        if not all("\u3040" <= c <= "\u9fff" for c in word):
            continue
        runs = {run for seg in index.segments for run in seg.terms_holding(word, *_UNSPACED_BYTES, RUNS_HOLDING + 1)}
        runs.discard(word)
        if len(runs) > RUNS_HOLDING:
            found.cut.append(word)
        if runs:
            found.terms[word] = [(run, 1.0) for run in sorted(runs)[:RUNS_HOLDING]]
    return found


def _runs_cut(cut: list[str]) -> str:
    """The notice of a search whose words ``cut`` were looked for in the first ``RUNS_HOLDING`` runs holding them."""
    said = " / ".join(f'"{word}"' for word in cut)
    return (
        f"{said} {'is' if len(cut) == 1 else 'are'} inside more than {RUNS_HOLDING:,} runs of indexed text; only the first {RUNS_HOLDING:,} were "
        "searched, so sessions may be missing: add words or a filter"
    )


def _add_postings(
    index: Index,
    term: str,
    weight: float,
    flag: int,
    near: bool,
    filters: Filters,
    scores: DocScores,
    budgets: tuple[int, int],
    admitted: Admitted | None,
    saying: Compound | None = None,
    ceiling: float | None = None,
) -> float:
    """Add ``term``'s postings, at ``weight`` times its idf (``ceiling`` at most, when given), to ``scores`` (as
    matching ``flag`` as written, or ``near``ly); its idf (0 when the index lacks it). It reads ``budgets`` postings at most (a rare term's, a common
    term's; 0: every one), and keeps only the docs ``admitted`` holds (when given): of those it reads every posting,
    its head's and its tail's (``Segment.tail``), so that a filter finds every session it admits that holds the word
    (a project's chats that said "deploy" less than ten big chats of other projects had no posting read, and a
    filter to the project found none of them). With ``saying``, only the docs whose text says the compound's two
    words side by side, of the first ``SPACED_DOCS`` (spread over the segments) it reads; its idf only when one does."""
    found = [(i, seg, *seg.lookup(term)) for i, seg in enumerate(index.segments)]
    df = sum(df for *_, df in found)  # every doc holding it, though a segment may keep only its best postings
    if df == 0:
        return 0.0
    idf = index.idf(df)
    # (a spaced compound weighs no more than its closed word: in a project saying "checkout" often, "check out the
    # docs" came first at "check"'s idf, review41c H1)
    taken = idf if saying is None else min(idf, index.idf(_df(index, saying.closed)))
    weight *= taken if ceiling is None else min(taken, ceiling)
    kinds = filters.kinds
    # A common term decides little of the ranking: it reads less far.
    term_budget = budgets[idf < COMMON_IDF]
    bits = doc_key_bits(index)
    said = False
    for i, segment, p_off, count, holding in found:
        if not count:
            continue
        whole = admitted if saying is None else None  # every posting of the admitted docs: the head and the tail
        share = max(64, math.ceil(term_budget * segment.ref.docs / index.total_docs)) if budgets[0] else count
        if saying is not None:
            share = min(share, max(16, math.ceil(SPACED_DOCS * segment.ref.docs / index.total_docs)))
        docs, impacts, lengths = segment.impact_runs(p_off, count if whole is not None else min(count, share))
        if admitted is not None:
            docs, impacts, lengths = admitted.held(i, docs, impacts, lengths)
        if whole is not None and count < holding:
            tail_docs, tail_impacts = segment.tail(p_off, count, holding, whole.spans(i))
            docs, impacts, lengths = [*docs, *tail_docs], impacts + tail_impacts, lengths + b"\x01" * len(tail_docs)
        if kinds:
            from .search_filters import of_kinds

            docs, impacts, lengths = of_kinds(segment, kinds, docs, impacts, lengths)
        if saying is not None:
            docs, impacts, lengths = _saying(segment, saying, docs, impacts, lengths)
            said = said or bool(docs)
        # Each run's weighted impact as a 1-tuple repeated (``zip`` of one list makes them, ``mul`` repeats them, in
        # C): a ``repeat`` a run parsed its arguments by keyword.
        weighted: Iterable[float] = chain.from_iterable(map(mul, zip([weight * impact for impact in impacts]), lengths))
        scores.add(list(_doc_keys(i, docs, bits)), weighted, flag, near, i)
    return idf if saying is None or said else 0.0


def _commonest(index: Index, alternatives: Iterable[tuple[str, float]]) -> float | None:
    """The idf of the commonest of ``alternatives`` some doc holds (None: none does): what a word no doc holds is taken
    to weigh, its other words weighing no more than their share of it (at their own, "release" put a rare "ship"'s
    chat above every one saying "deploy", trial49 F3)."""
    held = [df for df in (_df(index, term) for term, _ in alternatives) if df]
    return index.idf(max(held)) if held else None


def _df(index: Index, term: str) -> int:
    """How many docs hold ``term``."""
    return sum(segment.lookup(term)[2] for segment in index.segments)


def _saying(
    segment: Segment, compound: Compound, docs: Sequence[int], impacts: list[float], lengths: bytes
) -> tuple[list[int], list[float], bytes]:
    """The postings of the docs whose text says ``compound``'s two words side by side, each its own run."""
    kept = [
        (doc, impact)
        for doc, impact in zip(docs, chain.from_iterable(map(repeat, impacts, lengths)), strict=False)
        if says_spaced(normalise(kind_text(segment.message(doc), segment.kind(doc))), compound)
    ]
    return [doc for doc, _ in kept], [impact for _, impact in kept], bytes([1]) * len(kept)


def _date_boosts(
    index: Index, dates: list[tuple[str, str]], doc_scores: DocScores, known: dict[int, int] | None
) -> dict[int, float]:
    """Session key -> boost, for the sessions from ``dates``.

    A session from then that no word matched becomes a candidate through its first message of that day (when
    ``known``, if given, holds it). A day, month or year is the asker's own (``local_period``): the index files each
    UTC day's first message, so where a UTC day straddles the period's edge, a session is from then when that
    message came before the period ended and the session was still updated after it began.
    """
    boosts: dict[int, float] = {}
    bits = doc_key_bits(index)
    for key, precision in dates:
        factor = DATE_BOOST[precision]
        keys, bounds = local_period(key) or ({key: True}, None)
        for i, segment in enumerate(index.segments):
            for filed, whole in keys.items():
                p_off, count, _ = segment.lookup(filed)
                postings: Iterable[tuple[int, int, float]] = segment.postings(p_off, 0, min(count, FULL_READ))
                if known is not None:
                    postings = compress(
                        postings, map(known.__contains__, _doc_keys(i, [d for d, _, _ in postings], bits))
                    )
                for doc, ordinal, days in postings:
                    if not whole and bounds and not _within(segment, doc, ordinal, days * 86400, *bounds(days)):
                        continue
                    session = _session_key(i, ordinal)
                    doc_scores.date_only(i, doc)
                    if boosts.get(session, 0.0) < factor:
                        boosts[session] = factor
    return boosts


def _within(segment: Segment, doc: int, ordinal: int, first: float, start: float, end: float) -> bool:
    """Whether a session whose first message of a UTC day, ``doc``, came at ``first`` had messages in [start, end).

    ``first`` is the posting's time, a float32 of days: a minute or two off at today's dates. Within that of an edge
    the message's own time decides, so a message of 23:59 is of the day it was written on (a datetime loaded only
    then)."""
    if min(abs(first - start), abs(first - end)) <= first * 2**-23:  # a float32 is off by half a unit in the last place
        stamp = segment.message(doc).timestamp
        first = stamp.timestamp() if stamp else first
    return first < end and (first >= start or segment.session_keys(ordinal).updated >= start)


def densest_window(text: str, wanted: set[str], width: int = SNIPPET_CHARS, near: frozenset[str] = frozenset()) -> str:
    """The stretch of ``text`` about ``width`` long holding the most query terms; where it holds none, the most of
    ``near``, the terms the query also looks for (``_Query.near``)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    if not near:
        return stretch(flat, term_hits(flat, wanted), width)
    positions = list(term_positions(flat))  # (read once for both sets)
    hits = [start for start, found in positions if not wanted.isdisjoint(found)]
    return stretch(flat, hits or [start for start, found in positions if not near.isdisjoint(found)], width)


def term_hits(flat: str, wanted: set[str]) -> list[int]:
    """Where the tokens of ``flat`` holding a ``wanted`` term start (folding whitespace changes no token)."""
    return [start for start, found in term_positions(flat) if not wanted.isdisjoint(found)]


def _phrase_ok(segment: Segment, docs: Iterable[int], wanted: list[str]) -> bool:
    if not wanted:
        return True
    text = " ".join(normalise(kind_text(segment.message(doc), segment.doc(doc)[1])) for doc in docs)
    return all(p in text for p in wanted)


#: What ``--role`` names, as the doc kinds it keeps.
ROLE_KINDS = {
    "user": frozenset({KIND_USER}),
    "assistant": frozenset({KIND_ASSISTANT}),
    "tool": frozenset({KIND_OUTPUT, KIND_ERROR}),
    "command": frozenset({KIND_COMMAND}),
    "edit": frozenset({KIND_EDIT}),
}
#: ``--re`` stops checking candidates after this long (and says so): a pattern cannot stall a search.
REGEX_SECONDS = 1.0


def _group(
    index: Index,
    doc_scores: DocScores,
    filters: Filters,
    only: frozenset[SessionPair] | None,
    known: dict[int, int] | None,
) -> dict[int, list]:
    """Each candidate session's total score and docs, by key, as one list, ``[total, doc, doc, …]``, filters checked
    on the fixed-width keys only. A session's docs and its running total come in the order its docs were first
    matched. ``known``: the docs a search's filters admit, worked out before it scored
    (``search_filters.known_docs``), the only ones it scored."""
    if known is not None or only is not None or filters.active:
        from .search_filters import group_filtered

        return group_filtered(index, doc_scores, filters, only, known)
    # One list a session: one dict lookup a doc, where a dict of totals beside one of docs took three (a recalling
    # prompt's 11.4k candidate docs at 1k sessions: 2.15 -> 1.96 ms). Not split in two once every doc is in: only
    # the shortlisted sessions' docs are read (``_Ranking``), and splitting all of them took a quarter of the time.
    groups: dict[int, list] = {}
    rejected: set[int] = set()
    admitted = _admission(index)
    mask = (1 << doc_scores.bits) - 1
    items = iter(doc_scores.scores.items())
    start = 0
    for end, seg_i in doc_scores.runs:  # a run of one segment's docs: its heads and its sessions' base are known
        heads, base = index.segments[seg_i].heads, seg_i << KIND_SHIFT
        for doc, score in islice(items, end - start):
            session = base | heads[doc & mask] & ORDINAL_MASK
            group = groups.get(session)
            if group is not None:
                group[0] += score
                group.append(doc)
            elif admitted is None or session not in rejected and admitted(session):
                groups[session] = [score, doc]
            else:
                rejected.add(session)
        start = end
    return groups


def _admission(index: Index) -> Callable[[int], bool] | None:
    """Whether a session (by key) is live; None when every session is (no session deleted: a hook's search, most of
    the time, asks nothing of each candidate)."""
    deleted = [segment.deleted for segment in index.segments]
    if not any(deleted):
        return None
    return lambda session: session & ORDINAL_MASK not in deleted[session >> KIND_SHIFT]


#: A session's turn borrows at most twice NEIGHBOUR_SHARE of the best message's score (``_turns``), and a session
#: counts its best turn whole and the next two at SECOND_BEST_SHARE: its best message's score weighs at most this
#: much in its score (``_Ranking._bound``).
BEST_TURN_BOUND = 1 + 2 * NEIGHBOUR_SHARE * (1 + 2 * SECOND_BEST_SHARE)
#: A thousandth more than the bound: rounding never makes a session outscore its own bound.
ROUNDING_MARGIN = 1.001

_Ranked = tuple[float, SessionPair, list[tuple[float, int]]]


class _Ranking:
    """The shortlisted sessions, best first: (score, key, their docs' (score, doc) best first), each ranked in full
    only when it may come next.

    The shortlist is the RERANK (or more) sessions of the highest totals and, when ``dense`` (a person's or an
    agent's search, not a hook's), as many more of the highest mean score a doc: a session scores its three best
    turns, not all it matched, so a long chat saying one query word often can outtotal a short one holding them
    all (trial49 F2), and no cheap bound on a session outside the shortlist is tight enough to widen it exactly
    (one from its total took nearly every session in at 1.5k sessions: search 2.6 times slower). Ranking a session in full (its turns, its
    window of terms) is most of a search's work after scoring, and a hook asks for five sessions. Each shortlisted
    session gets a cheap bound on its score (``_bound``); sessions are ranked in full from the highest bound down,
    and the best ranked one is given out once it outscores every bound not ranked yet, which no session left can
    beat. The order is exactly that of ranking every shortlisted session and sorting them by score, ties in
    shortlist order (a session whose bound ties the best is ranked before the best is given out); iterating again
    gives the same sessions without ranking them twice.
    """

    def __init__(
        self,
        index: Index,
        grouped: dict[int, list],
        doc_scores: DocScores,
        words: list[str],
        dated: dict[int, float],
        shortlist_size: int,
        now: float,
        dense: bool = False,
    ):
        totals = dict(zip(grouped, map(itemgetter(0), grouped.values()), strict=True))  # (``[total, doc, …]``)
        for session, factor in dated.items():
            if session in totals:
                totals[session] *= factor
        # Only the sessions whose messages could make the cut are ranked in full.
        # (``heapq.nlargest`` as its documentation defines it: a sort, in C, without loading ``heapq``)
        by_total = sorted(totals.items(), key=itemgetter(1), reverse=True)
        shortlist = [session for session, _ in by_total[:shortlist_size]]
        if dense and len(by_total) > shortlist_size:
            # A total sums every doc a session matched: a long chat saying one query word often outtotals a short
            # one holding them all in its title, which ranks far above it in full (trial49 F2: "Deploy key
            # rotation" was 79th by total and first in full). The sessions of the best docs on average come too.
            rest = by_total[shortlist_size:]
            others = list(map(itemgetter(0), rest))
            means = map(truediv, map(itemgetter(1), rest), map(len, map(grouped.__getitem__, others)))
            shortlist += [
                session for _, session in sorted(zip(means, others, strict=True), reverse=True)[:shortlist_size]
            ]
        members = {session: grouped[session][1:] for session in shortlist}
        self._index, self._doc_scores, self._words, self._dated = index, doc_scores, words, dated
        masks = iter(doc_scores.masks(doc for session in shortlist for doc in members[session]))  # all at once
        #: The query terms each shortlisted session's docs hold, as written or nearly (``_bound``), from those masks:
        #: asked session by session, each asked ``masks`` again (0.19 of a recalling prompt's 1.7 ms here at 1k).
        self._held: dict[int, int] = {}
        for session in shortlist:
            held = 0
            for written, nearly in islice(masks, len(members[session])):
                held |= written | nearly
            self._held[session] = held
        scores = doc_scores.scores
        self._sessions = [
            (session, [(scores[doc], doc) for doc in members[session]], recency(self._keys(session).updated, now))
            for session in shortlist
        ]
        #: (bound, shortlist position) of the sessions not ranked yet, the highest bound last (the first on a tie).
        self._unranked = sorted(
            ((self._bound(*session), position) for position, session in enumerate(self._sessions)),
            key=lambda pair: (pair[0], -pair[1]),
        )
        #: (-score, shortlist position, ranked), kept sorted: a few dozen at most, so a sort rather than a heap
        self._waiting: list[tuple[float, int, _Ranked]] = []
        self._given: list[_Ranked] = []

    def __iter__(self) -> Iterator[_Ranked]:
        yield from self._given
        while (ranked := self._next()) is not None:
            self._given.append(ranked)
            yield ranked

    def _next(self) -> _Ranked | None:
        waiting, unranked = self._waiting, self._unranked
        while unranked and (not waiting or -waiting[0][0] <= unranked[-1][0]):
            _, position = unranked.pop()
            waiting.append((-(ranked := self._rank(*self._sessions[position]))[0], position, ranked))
            waiting.sort()  # (no two share a position: the ranked sessions themselves are never compared)
        return waiting.pop(0)[2] if waiting else None

    def _keys(self, session: int) -> SessionKeys:
        seg_i, ordinal = session_pair(session)
        return self._index.segments[seg_i].session_keys(ordinal)

    def _bound(self, session: int, docs: list[tuple[float, int]], recent: float) -> float:
        """The most ``_rank`` can score the session: its three best messages' scores (a message's with its field
        docs', which share its place in the records) as if each borrowed the most from its neighbours, times the
        share of the query's terms it holds (``_rank``'s two covers are each at most that share), its recency and
        its date boost."""
        positions = self._index.segments[session >> KIND_SHIFT].positions
        by_message: dict[int, float] = {}
        mask = (1 << self._doc_scores.bits) - 1
        for score, doc in docs:
            position = positions[doc & mask]
            by_message[position] = by_message.get(position, 0.0) + score
        best = sorted(by_message.values(), reverse=True)[:3] + [0.0, 0.0]
        bound = BEST_TURN_BOUND * best[0] + SECOND_BEST_SHARE * (best[1] + best[2])
        if self._words:
            bound *= self._held[session].bit_count() / len(self._words)
        return bound * recent * self._dated.get(session, 1.0) * ROUNDING_MARGIN

    def _rank(self, session: int, docs: list[tuple[float, int]], recent: float) -> _Ranked:
        """One session ranked in full."""
        key = session_pair(session)
        segment = self._index.segments[key[0]]
        bits = self._doc_scores.bits
        turns, scored = _turns(segment, key, [(score, doc & (1 << bits) - 1) for score, doc in docs])
        total = turns[0] + SECOND_BEST_SHARE * sum(turns[1:3])
        if self._words:
            masks = self._doc_scores.masks(key[0] << bits | doc for _, doc in scored)
            held = 0
            for written, nearly in masks:
                held |= written | nearly
            total *= (held.bit_count() / len(self._words)) ** COORD
            total *= (_window_cover(segment, scored, masks) / len(self._words)) ** WINDOW_COORD
        return total * recent * self._dated.get(session, 1.0), key, scored


def _turns(
    segment: Segment, key: SessionPair, scored: list[tuple[float, int]]
) -> tuple[list[float], list[tuple[float, int]]]:
    """A session's matching docs as turns: each turn's score, best first, and the docs, the best turn's first.

    A message's doc and its field docs (what its commands printed, the errors, its edits) score together as one
    turn, and a message's turn borrows NEIGHBOUR_SHARE of the message turns next to it; the title is a turn of
    its own. Scored apart, a message and what its command printed each had to win alone, and a field doc's
    neighbours were the field docs of other messages.
    """
    said: dict[int, float] = {}  # message doc -> its score
    fields: dict[int, list[tuple[float, int]]] = {}  # message doc -> the docs of its turn, when it has field docs
    titles: list[tuple[float, int]] = []
    meta = None
    heads = segment.heads
    for score, doc in scored:
        kind = heads[doc] >> KIND_SHIFT
        if kind in MESSAGE_KINDS:
            said[doc] = score
        elif kind == KIND_TITLE:
            titles.append((score, doc))
        else:
            meta = meta or segment.session(key[1])
            fields.setdefault(segment.message_doc(doc, meta), []).append((score, doc))
    own = said  # from here on: message doc -> its turn's score
    for message, docs in fields.items():
        total = sum(score for score, _ in docs)
        if message in own:
            docs.append((own[message], message))
        own[message] = own.get(message, 0.0) + total
    ranked = [(total + NEIGHBOUR_SHARE * (own.get(m - 1, 0.0) + own.get(m + 1, 0.0)), m) for m, total in own.items()]
    ranked += titles
    ranked.sort(reverse=True)
    if not fields:
        return [total for total, _ in ranked], ranked
    docs = []
    for total, message in ranked:
        docs += sorted(fields[message], reverse=True) if message in fields else [(total, message)]
    return [total for total, _ in ranked], docs


def _window_cover(segment: Segment, scored: list[tuple[float, int]], masks: list[tuple[int, int]]) -> int:
    """The most query terms any TURN_WINDOW consecutive matching messages hold together (field docs count with
    their message); ``masks`` are ``scored``'s docs' (as written, nearly)."""
    by_message: dict[int, int] = {}
    positions = segment.positions
    for (_, doc), (written, nearly) in zip(scored, masks, strict=True):
        position = positions[doc]
        by_message[position] = by_message.get(position, 0) | written | nearly
    masks_in_order = [by_message[p] for p in sorted(by_message)]
    best = 0
    for i in range(len(masks_in_order)):
        mask = 0
        for m in masks_in_order[i : i + TURN_WINDOW]:
            mask |= m
        if mask.bit_count() > best:
            best = mask.bit_count()
    return best


def _mask(doc_scores: DocScores, key: SessionPair, scored: list[tuple[float, int]]) -> int:
    """The query terms ``scored``'s docs (of the session ``key``) hold as written."""
    mask = 0
    for written, _ in doc_scores.masks(key[0] << doc_scores.bits | doc for _, doc in scored):
        mask |= written
    return mask


class _Query(Record):
    """What a search looks for, worked out once."""

    words: list[str]
    phrases: list[str]
    #: A mask of the terms every phrase's words make up (the fallback when no phrase matches exactly).
    phrase_mask: int = 0
    pattern: re.Pattern | None = None
    #: Each term's idf, in ``words``' order (0 for one no doc holds): which passages ``_covering`` puts forward.
    idfs: list[float] = []
    #: The other terms the words also look for (related words, other spellings: ``thesaurus.related``), where a
    #: passage's window goes when it holds none of the words as written: a chat found by "safari" through "browser"
    #: showed its answer's first lines, which held neither (trial57b G5).
    near: frozenset[str] = frozenset()


def _wanted(
    segment: Segment,
    key: SessionPair,
    scored: list[tuple[float, int]],
    query: _Query,
    phrases: bool,
    clock: RegexClock | None,
) -> bool:
    """Whether a candidate holds the query's exact phrases (when ``phrases``) and, anywhere, matches its ``--re``
    (checked on ``clock``, which a search has only with one)."""
    if phrases and not _phrase_ok(segment, [d for _, d in scored], query.phrases):
        return False
    return clock is None or query.pattern is None or clock.matches(segment, key[1], query.pattern)


def period_alone(query: str, now: float | None = None) -> str:
    """The days, months or years ``query`` names when it names nothing else ("yesterday", "what did I do last week"),
    as they read (``2026-12-04``, ``2026-11-30 to 2026-12-06``), else "": such a search asks for the sessions active
    then, and one that finds none must say the period had none, not that its words matched nothing (trial43 F4)."""
    named_relatively, asked = relative_dates(query, now or time.time())
    dates, undated = split_dates(asked)
    if not (dates := dates + named_relatively) or query_terms(undated)[0]:
        return ""
    spans = sorted({key.rpartition(":")[2] for key, _ in dates})
    return spans[0] if len(spans) == 1 else f"{spans[0]} to {spans[-1]}"


def search(
    index: Index,
    query: str,
    *,
    filters: Filters | None = None,
    limit: int = 10,
    snippets: int = 2,
    now: float | None = None,
    budget: int | None = None,
    common_budget: int | None = None,
    relative: bool = False,
    phrases_veto: bool = False,
) -> SearchResult:
    """The sessions best matching ``query``; see the module docstring for how they are ranked.

    A small index is read whole, a large one as far as ``POSTINGS_BUDGET`` says. ``budget``, when given, caps that
    at so many postings a term (its highest-impact ones, a quarter of that for a common term, spread over the
    segments by size) whatever the index's size: a hook runs on every prompt and keeps its cost flat that way.
    ``common_budget``, when given, caps a common term's read further (the prompt hook's). ``relative``: the query's "yesterday", "last week" and the like name days too (a person's or an agent's
    search, not a prompt's). ``phrases_veto``: a quoted phrase no session holds, nor all its words, still finds
    nothing, where a person's or an agent's search drops it and says so (the prompt hook: a title no session holds,
    in a one-line question, says the history cannot answer it).
    """
    filters = filters or Filters()
    now = now or time.time()
    named_relatively, asked = relative_dates(query, now) if relative else ([], query)
    dates, undated = split_dates(asked)
    dates += named_relatively
    # A query of dates alone asks for the sessions from then; otherwise a date's words count as words too
    # (dropping them cost 0.2 pt of R@1 on LoCoMo's tuning half), but for a relative date's, which name no content.
    text = undated if dates and not query_terms(undated)[0] else asked
    words, wanted_phrases = query_terms(text)
    others, gained = related(text, words)
    # (not a hook's: the scan of the runs grows with the index, review48a M3)
    otherwise = _written_otherwise(index, text, words, scan=budget is None)
    for word, alternatives in otherwise.terms.items():
        others.setdefault(word, []).extend(alternatives)
    words += gained
    only: frozenset[SessionPair] | None = None
    known: dict[int, int] | None = None
    if filters.active:  # (a hook's search has none: the filters' code is not loaded)
        from .search_filters import admitted_keys, known_docs

        only = admitted_keys(index, filters)
        known = known_docs(index, filters, only)
    doc_scores, idfs, reached = _score_docs(
        index,
        words,
        filters,
        identifier_parts(text),
        others,
        frozenset(gained),
        budget,
        known,
        spellings(text),
        closed_compounds(words) if budget is None else {},  # (a hook's: no text read, review41b M5)
        common_budget,
    )
    dated = _date_boosts(index, dates, doc_scores, known)
    grouped = _group(index, doc_scores, filters, only, known)
    narrowing = bool(wanted_phrases or filters.pattern)
    size = max(RERANK, 4 * limit, PHRASE_COUNT_LIMIT if narrowing else 0)
    ranked = _Ranking(index, grouped, doc_scores, words, dated, size, now, dense=budget is None)
    rarity = [idfs.get(word, 0.0) for word in words]
    near = frozenset(term for alternatives in others.values() for term, _ in alternatives)
    wanted = _Query(
        words, wanted_phrases, _phrase_mask(words, wanted_phrases), _compiled(filters.pattern), rarity, near
    )
    result, excluded = _collect(index, ranked, doc_scores, wanted, filters, limit, snippets, exact=True)
    if wanted_phrases and not result.hits:
        # A phrase no session holds, nor all its words, stops being required: the rest of the query still finds
        # (a path quoted in a pasted error is another machine's, and vetoed every session: trial17 F1).
        notices = []
        held = wanted_phrases if phrases_veto else _held_phrases(index, ranked, doc_scores, wanted, filters)
        if dropped := [p for p in wanted_phrases if p not in held]:
            them = "it" if len(dropped) == 1 else "them"
            notices.append(
                f'no session holds "{" / ".join(dropped)}" or all {"its" if them == "it" else "their"} words; '
                f"showing the best matches without requiring {them}"
            )
            wanted = _Query(words, held, _phrase_mask(words, held), wanted.pattern, rarity, near)
            narrowing = bool(held or filters.pattern)
            result, excluded = _collect(index, ranked, doc_scores, wanted, filters, limit, snippets, exact=True)
        if held and not result.hits:
            result, excluded = _collect(index, ranked, doc_scores, wanted, filters, limit, snippets, exact=False)
            notices.append(f'no exact match for "{" / ".join(held)}"; showing sessions with all its words')
        if result.hits:
            result.notice = "; ".join([*notices, result.notice] if result.notice else notices)
    if otherwise.cut:
        result.notice = "; ".join(filter(None, [result.notice, _runs_cut(otherwise.cut)]))
    result.idf, result.query = idfs, query
    result.unmatched = _unmatched(text, words, reached, dated_words(asked) if dates else frozenset())
    if not narrowing:
        result.total = len(grouped) - excluded
    return result


def _unmatched(text: str, words: list[str], reached: set[str], dated: frozenset[str]) -> list[str]:
    """The words of ``text`` (each as typed, its punctuation left off) whose query terms (``words``) no doc holds in
    any form searched for (``reached``: as written, through another word, side by side): a word giving no term (a
    stopword) is none of them, nor one of a date the query names (``dated``, lowercased), read as that date."""
    if reached.issuperset(words):
        return []
    found: dict[str, None] = {}
    for chunk in text.split():
        held = [term for term in terms(chunk) if term in words]
        word = chunk.strip(".,;:!?()[]{}'\"`")
        if held and not reached.intersection(held) and word.lower() not in dated:
            found.setdefault(word, None)
    return list(found)


def _phrase_mask(words: list[str], wanted: list[str]) -> int:
    """The query terms ``wanted``'s phrases are made of, as a mask of ``words``."""
    return sum(1 << words.index(t) for p in wanted for t in terms(p) if t in words)


def _held_phrases(index: Index, ranked: _Ranking, doc_scores: DocScores, query: _Query, filters: Filters) -> list[str]:
    """The phrases of ``query`` some candidate not excluded holds all the words of, anywhere in its docs."""
    wanted = {phrase: _phrase_mask(query.words, [phrase]) for phrase in query.phrases}
    held: set[str] = set()
    for _, (seg_i, ordinal), scored in ranked:
        if index.segments[seg_i].session(ordinal).id in filters.exclude_ids:
            continue
        mask = _mask(doc_scores, (seg_i, ordinal), scored)
        held.update(phrase for phrase, needs in wanted.items() if mask & needs == needs)
        if len(held) == len(wanted):
            break
    return [phrase for phrase in query.phrases if phrase in held]


def _compiled(pattern: str | None) -> re.Pattern | None:
    """``--re``'s pattern compiled (``re`` loaded only for it: a hook's search has none), its accents composed as the
    text it is matched with is (a pattern typed composed missed text spelt decomposed, and one pasted decomposed
    matched nothing: trial11 F5, review14 R14-2)."""
    if pattern is None:
        return None
    import re

    return re.compile(composed(pattern))


def _collect(
    index: Index,
    ranked: _Ranking,
    doc_scores: DocScores,
    query: _Query,
    filters: Filters,
    limit: int,
    snippets: int,
    exact: bool,
) -> tuple[SearchResult, int]:
    """Hits from the ranked candidates that pass the phrase, ``--re`` and exclusion checks; how many do; how many
    were excluded."""
    hits: list[Hit] = []
    matching = excluded = 0
    wanted_terms = set(query.words)
    narrowing = bool(query.phrases or query.pattern)
    notice = ""
    clock: RegexClock | None = None
    if query.pattern is not None:  # (``--re``'s code loaded for it alone)
        from .search_filters import RegexClock

        clock = RegexClock(REGEX_SECONDS, armed=True)
    if snippets:  # (the passages' code loaded only by a search that shows some: a hook's shows none)
        from .passages import shown
    try:
        for position, (score, (seg_i, ordinal), scored) in enumerate(ranked):
            if len(hits) >= limit and (not narrowing or position >= PHRASE_COUNT_LIMIT):
                break
            segment = index.segments[seg_i]
            if not exact and _mask(doc_scores, (seg_i, ordinal), scored) & query.phrase_mask != query.phrase_mask:
                continue
            try:
                if narrowing and not _wanted(segment, (seg_i, ordinal), scored, query, exact, clock):
                    continue
            except TimeoutError:
                notice = f"--re stopped after {REGEX_SECONDS:g} s; later candidates were not checked"
                break
            meta = segment.session(ordinal) if len(hits) < limit else None
            if meta is not None and meta.id in filters.exclude_ids:
                excluded += 1
                continue
            matching += 1
            if meta is None:
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
                    snippets=shown(
                        segment,
                        ordinal,
                        meta,
                        scored if filters.since else _covering(segment, scored, doc_scores, seg_i, query, snippets),
                        wanted_terms,
                        snippets,
                        filters.since,
                        not hits,
                        query.near,
                    )
                    if snippets
                    else [],
                    messages=meta.messages,
                    matched=_matched(query.words, scored[:3], doc_scores, (seg_i, ordinal)),
                    best=(seg_i, scored[0][1]),
                    said=next(passage_docs(segment, scored), -1),
                )
            )
    finally:
        if clock is not None:
            clock.disarm()
    return SearchResult(query="", total=matching, hits=hits, notice=notice), excluded


def _covering(
    segment: Segment, scored: list[tuple[float, int]], doc_scores: DocScores, seg_i: int, query: _Query, count: int
) -> list[tuple[float, int]]:
    """``scored`` (a session's matching docs, best first) with each of its first ``count`` passages holding a rare
    query term (``COMMON_IDF`` or more) the passages before it lack, in a message's own words, where one of the next
    ``COVER_LOOKAHEAD`` does; the best passage stays first. A chat matched "checkout rounding" through its title, and
    showed the tests it ran on the checkout and their failure, none of the answers saying what the rounding was
    (trial56); a common word ("problem") or a command's or its output's match puts no weaker passage forward
    (review57a F1, F2). (Not with ``--since``: the passages written since then come first, ``passages``.)"""
    passages = list(islice(passage_docs(segment, scored), COVER_LOOKAHEAD + count))
    rare = sum(1 << bit for bit, idf in enumerate(query.idfs) if idf >= COMMON_IDF)
    if count < 2 or len(passages) < 2 or not rare:
        return scored
    held = [written | nearly for written, nearly in doc_scores.masks(seg_i << doc_scores.bits | d for d in passages)]
    order, covered = [0], held[0]
    left = list(range(1, len(passages)))
    while left and len(order) < count:
        adds = (i for i in left if held[i] & rare & ~covered and segment.kind(passages[i]) in MESSAGE_KINDS)
        pick = next(adds, left[0])
        left.remove(pick)
        order.append(pick)
        covered |= held[pick]
    first = [passages[i] for i in order]
    if first == passages[: len(first)]:
        return scored
    score = {doc: value for value, doc in scored}
    chosen = set(first)
    return [*((score[doc], doc) for doc in first), *(pair for pair in scored if pair[1] not in chosen)]


def _matched(words: list[str], scored: list[tuple[float, int]], doc_scores: DocScores, key: SessionPair) -> list[str]:
    """The query terms the docs ``scored`` (of the session ``key``) hold as written."""
    mask = _mask(doc_scores, key, scored)
    return [term for bit, term in enumerate(words) if mask >> bit & 1]


def passage_docs(segment: Segment, scored: list[tuple[float, int]]) -> Iterator[int]:
    """The docs of ``scored``, in that order, titles left out (a title is no passage)."""
    return (doc for _, doc in scored if segment.kind(doc) != KIND_TITLE)


def best_terms(index: Index, hit: Hit, wanted: set[str]) -> set[str]:
    """The ``wanted`` terms the hit's single best doc holds (the field of the message it indexes)."""
    segment = index.segments[hit.best[0]]
    return set(terms(kind_text(segment.message(hit.best[1]), segment.doc(hit.best[1]).kind))) & wanted


def best_turn(index: Index, hit: Hit, wanted: set[str], width: int = SNIPPET_CHARS) -> list[Snippet]:
    """The hit's best turn, each side cut to ``width`` characters (:func:`_side`): the question the best message
    belongs to and the answer to it.

    When the title matched best, the title stands for the chat, not for a turn: the turn shown is the one whose own
    words hold most of what was ``wanted``, of the best matching message's turn and the first question's (the one
    Cursor names a chat after), the first question on a tie. The session's last answer ("what it concluded") may be
    about something else altogether (a chat on a Stripe webhook that ended on rotating a token), and so may a later
    message that shares a word of the prompt with the first question (a review found "the nightly job fails"
    recalled for a Stripe prompt through "fails"); but a chat that opened on a lint fix showed that fix for a prompt
    its title and its flaky-test turn both answered (trial48b F1).
    """
    segment = index.segments[hit.best[0]]
    doc = hit.best[1]
    ordinal, kind = segment.doc(doc)
    meta = segment.session(ordinal)
    if kind == KIND_TITLE:
        doc = _first_question(segment, meta)
        if doc < 0:
            return []
        if hit.said >= 0:
            doc = _holding_more(segment, meta, (doc, hit.said), wanted)
        kind = segment.kind(doc)
    if kind not in (KIND_USER, KIND_ASSISTANT):
        # A match in what a command printed or an edit wrote: the turn that ran it, and that turn's best answer.
        doc = _question_of(segment, meta, segment.message_doc(doc))
        kind = segment.kind(doc)
    messages = segment.messages_at([d for d in _exchange(segment, meta, doc, kind) if d is not None])  # (inflated once)
    return [
        Snippet(role=m.role, text=_side(m, wanted, width), timestamp=m.timestamp) for m in messages if m.text.strip()
    ]


def _holding_more(segment: Segment, meta: SessionMeta, docs: tuple[int, int], wanted: set[str]) -> int:
    """The doc of ``docs`` whose turn (its question and answer, in their own words) holds more of ``wanted``, the
    first on a tie."""
    held = []
    for doc in docs:
        kind = segment.kind(doc)
        if kind not in (KIND_USER, KIND_ASSISTANT):
            doc = _question_of(segment, meta, segment.message_doc(doc))
            kind = segment.kind(doc)
        turn = [d for d in _exchange(segment, meta, doc, kind) if d is not None]
        held.append(len(wanted & set().union(*(terms(m.text) for m in segment.messages_at(turn)))))
    return docs[0] if held[0] >= held[1] else docs[1]


def _side(message: Message, wanted: set[str], width: int) -> str:
    """A side of a recalled turn in ``width`` characters: its densest stretch, of a question's own words
    (``lines.own_words``, as ``deja wip`` gives a task, up to ``ASK_WORDS`` of them): a pasted ``.env`` or compose
    file under it took most of a prompt block's room (trial47 F3), and a long question cut from its start lost the
    words the prompt matched (review47c)."""
    text = own_words(message.text, ASK_WORDS) if message.role == "user" else message.text
    return densest_window(text, wanted, width)


def _first_question(segment: Segment, meta: SessionMeta) -> int:
    """The session's first user message doc (its first message when it has none; -1 when it has no message)."""
    first = meta.first_doc
    found = next((d for d in range(first, first + min(meta.messages, TURN_DOCS)) if segment.kind(d) == KIND_USER), -1)
    return found if found >= 0 or not meta.messages else first


def _question_of(segment: Segment, meta: SessionMeta, doc: int) -> int:
    """The user message a message doc answers (itself when it is one; the doc itself when none is near)."""
    for d in range(doc, max(meta.first_doc, doc - TURN_DOCS) - 1, -1):
        if segment.doc(d).kind == KIND_USER:
            return d
    return doc


def _exchange(segment: Segment, meta: SessionMeta, doc: int, kind: int) -> tuple[int | None, int | None]:
    """The question ``doc`` belongs to and the answer that closed its turn: the turn's last assistant message with
    text. The answer holding most of what was wanted was often the agent's opening line ("Running the tests.", which
    named the command whose output matched) and left out how the turn ended; and a match in a message of tool calls
    alone (no text) showed no answer at all (trial21 F3)."""
    first = meta.first_doc
    question = (
        doc
        if kind == KIND_USER
        else next(
            (d for d in range(doc - 1, max(first, doc - TURN_DOCS) - 1, -1) if segment.kind(d) == KIND_USER), None
        )
    )
    return question, closing_answer(segment, meta, doc, doc if kind == KIND_ASSISTANT else doc + 1)


def closing_answer(segment: Segment, meta: SessionMeta, doc: int, first: int) -> int | None:
    """The answer that closed the turn message doc ``doc`` is in: the turn's last assistant message with text, up to
    the next question, and no earlier than doc ``first``; None when there is none. A recalled turn shows it, and so
    does ``deja fix`` after an error a chat holds: the first answer after the error was the agent's next step ("The
    browser sends an OPTIONS preflight… Let me see what comes back."), not how the turn ended (trial48b F6)."""
    end = meta.first_doc + meta.n_docs
    turn_end = next((d for d in range(doc + 1, end) if segment.kind(d) == KIND_USER), end)
    return next(
        (
            d
            for d in range(turn_end - 1, first - 1, -1)
            if segment.kind(d) == KIND_ASSISTANT and segment.message(d).text.strip()
        ),
        None,
    )
