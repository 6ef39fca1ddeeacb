"""The indexed words a misspelt one most likely means, for a search that found nothing ("did you mean …?").

The index keeps its words as sorted terms (Snowball stems, and identifiers whole) in each segment's ``terms.bin``:
that is the vocabulary, at no cost on disk. A typed word is stemmed as the index stems it and compared with the
terms that start with its letter and are about as long (a typo in a word's first letter is the rarer kind, and the
sorted terms give that letter's run at once); the nearest are told as a word the sessions wrote them (a stem such as
``celeri`` read back as ``celery`` from a message holding it: the written form nearest the typed word, offered only
when it is near that word too, ``_near_as_written``). Only the search that found nothing asks: a hit pays
nothing for it (trial48b F11).

A segment keeps a deleted chat's terms until a compaction writes it again, so a term is offered only once a live
session the search's filters admit holds it: else a client's name or a missed secret that only a chat deleted in
Cursor held would come back on the terminal and in the MCP tool's notice (review48f H1, L4). Each filter counts, as
the search would apply it: a word offered under ``--session``, ``--role``, ``--re`` or a project given as a folder
that only other sessions or messages held sent the user on to a search that found nothing again (review48g).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .index import Index, Segment
from .text import fold, stem, written_forms

if TYPE_CHECKING:
    from .search import Filters

#: A word shorter than this gets no suggestion: one letter off a three-letter word is most of the vocabulary's.
SHORTEST_SPELLED = 4
#: From this length a word may be two letters off the one meant (``preflite`` for ``preflight``), below it one.
TWO_OFF_FROM = 7
#: How many of a term's best postings are read to find the word as a session wrote it.
WRITTEN_TRIED = 5
#: How many of the nearest terms are checked for a live, admitted session holding them, nearest first.
CANDIDATES_TRIED = 5
#: How many of a term's postings are read first while looking for a live, admitted one (twice as many each time
#: after: a word's postings are decoded from the start).
POSTINGS_READ = 64


def nearest_word(index: Index, word: str, filters: Filters | None = None) -> str:
    """The indexed word nearest ``word`` in spelling (``SHORTEST_SPELLED``, ``TWO_OFF_FROM``), the one more docs hold
    among those as near, as a session wrote it; "" when none is near enough. Only a term a live session holds is
    offered, one ``filters`` admit when given (``_as_written``), and with a ``--re`` pattern only a word a search
    with ``filters`` finds (``_found_with``)."""
    from .search import Filters
    from .search_filters import admitted_keys

    typed = fold(word).lower()
    if len(typed) < SHORTEST_SPELLED or not typed.isalpha():
        return ""
    wanted = stem(typed)
    most = 2 if len(typed) >= TWO_OFF_FROM else 1
    best: dict[str, tuple[int, int]] = {}  # term: (distance, docs holding it)
    for segment in index.segments:
        for term, _, _ in segment.with_prefix(wanted[0]):
            if abs(len(term) - len(wanted)) > most or term == wanted:
                continue
            far = distance(wanted, term, most)
            if far <= most:
                held = best.get(term, (far, 0))[1] + segment.lookup(term)[2]
                best[term] = (far, held)
    if not best:
        return ""
    filters = filters or Filters()
    only = admitted_keys(index, filters)
    for term in sorted(best, key=lambda t: (best[t][0], -best[t][1], t))[:CANDIDATES_TRIED]:
        if (written := _as_written(index, term, filters, only, typed)) and _near_as_written(typed, written, most):
            return written if _found_with(index, written, filters) else ""
    return ""


def _near_as_written(typed: str, written: str, most: int) -> bool:
    """Whether the word a session wrote is near the typed one as words, not only as stems: a stem drops a suffix
    (``pagination``'s ``pagin``), and a short stem two letters off it (``pin``) was offered as ``pins`` for
    ``pagination`` (audit60 F4). One letter more is allowed for the suffix a stem leaves out (``preflite``,
    ``preflight``). A nearer term turned down here lets a farther one be offered only when that one is near as
    written too (``retreive`` is told ``retrieves``, not ``receives``: ``_as_written`` gives the nearest form)."""
    return distance(typed, written, most + 1) <= most + 1


def _found_with(index: Index, word: str, filters: Filters) -> bool:
    """Whether a search for ``word`` with ``filters`` finds a session, asked only of a search with a ``--re`` pattern,
    which no column of a segment answers (the other filters are checked on the docs: ``_admitted_docs``), and only of
    the word to be offered: matching a pattern may take ``search.REGEX_SECONDS``."""
    from .search import search

    return filters.pattern is None or bool(search(index, word, filters=filters, limit=1, snippets=0).hits)


def _as_written(index: Index, term: str, filters: Filters, only: frozenset[tuple[int, int]] | None, typed: str) -> str:
    """``term`` as a message of a live session ``filters`` admit (of ``only``, when given:
    ``search_filters.admitted_keys``) wrote it (a stem's word: ``celeri`` is ``celery``), the form nearest ``typed``
    of those its best docs write (``cach`` is ``caching`` in one message and ``cache`` in another: ``cahce`` is
    near the second, review61a F1), else the term itself when such a session holds it in no plain word; "" when no
    such session holds it."""
    forms: dict[str, None] = {}
    held = False
    for seg_i, segment in enumerate(index.segments):
        for doc in _admitted_docs(segment, seg_i, term, filters, only):
            forms.update(dict.fromkeys(written_forms(segment.message(doc).text, term)))
            held = True
    if not forms:
        return term if held else ""
    return min(forms, key=lambda form: distance(typed, form, len(typed) + len(form)))  # (folded: ``written_forms``)


def _admitted_docs(
    segment: Segment, seg_i: int, term: str, filters: Filters, only: frozenset[tuple[int, int]] | None
) -> list[int]:
    """Up to ``WRITTEN_TRIED`` of the docs holding ``term`` in ``segment`` whose sessions are live and admitted (and,
    with ``--role``, of the kinds it keeps), best first, ``POSTINGS_READ`` postings first and twice as many each time
    after: a term most sessions hold is decided by its first few."""
    from .search_filters import admitted_ordinals

    p_off, count, _ = segment.lookup(term)
    start, stop = 0, POSTINGS_READ
    while start < count:
        postings = segment.postings(p_off, start, min(count, stop))
        admitted = admitted_ordinals(segment, seg_i, filters, only, {o for _, o, _ in postings})
        docs = [doc for doc, ordinal, _ in postings if ordinal in admitted]
        if docs := [doc for doc in docs if not filters.kinds or segment.kind(doc) in filters.kinds]:
            return docs[:WRITTEN_TRIED]
        start, stop = stop, 2 * stop
    return []


def distance(one: str, other: str, most: int) -> int:
    """The edit distance between ``one`` and ``other`` (letters inserted, deleted, replaced, or two beside each other
    swapped), or ``most + 1`` once it is sure to be more than ``most``."""
    before: list[int] = []
    row = list(range(len(other) + 1))
    for i, a in enumerate(one, 1):
        current = [i]
        for j, b in enumerate(other, 1):
            cost = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (a != b))
            if i > 1 and j > 1 and a == other[j - 2] and one[i - 2] == b:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        if min(current) > most:
            return most + 1
        before, row = row, current
    return row[-1]
