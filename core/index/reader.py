"""Reading the index: segments mapped from disk, and one generation of them as an ``Index``.

A lookup binary-searches each segment's term table through ``mmap`` and reads
only the head of each postings list, so its cost does not grow with the index.
"""

from __future__ import annotations

import _struct as struct  # (``struct`` is this C module re-exported: one module file fewer to load)
import mmap
import zlib
from _operator import le
from itertools import accumulate, chain, compress, islice, repeat

from .. import faults, folders, keys, oscalls
from ..fields import KIND_TITLE, MESSAGE_KINDS
from . import format as layout
from .format import (
    DOC_ROW,
    INDEX,
    KEYED_POSTING,
    KIND_SHIFT,
    ORDINAL_MASK,
    ROW_CRC_BELOW,
    RUNS,
    SESSION_ROW,
    TAIL_GAPS,
    TAIL_SKIP,
    TERM_ROW,
    Codec,
    Doc,
    IndexForbidden,
    IndexUnreadable,
    Inflating,
    SessionKeys,
    default_codec,
    doc_width,
    inflate,
    read_manifest,
    row_crc,
    tail_blocks,
)

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (and collections.abc, pathlib: a hook reads the index with paths as strings)
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any

    from _typeshed import StrPath

    from ..model import Message
    from .records import Manifest, SegmentRef, SessionMeta


def _map(path: str) -> mmap.mmap | bytes:
    with open(path, "rb") as f:
        if oscalls.fstat(f.fileno()).st_size == 0:
            return b""
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


class SegmentMissing(IndexUnreadable):
    """A segment file the manifest names is gone (retired by a newer manifest, or deleted)."""


#: What reading a damaged file raises (besides what its codec's decoding raises): each becomes one
#: IndexUnreadable naming the file.
_DAMAGE = (struct.error, ValueError, IndexError, OverflowError, zlib.error, TypeError)  # type: ignore[attr-defined]  # (typeshed's _struct lacks the error it defines)
#: The files of offsets a segment reads other files by: a byte flipped there fails the read of another file.
OFFSET_FILES = ("sessions.idx", "docs.bin")
#: The first term after every key (keys start with ``keys.PREFIX``): where the words' postings begin.
_AFTER_KEYS = bytes([ord(keys.PREFIX) + 1])
#: Where a ``SESSION_ROW`` holds its project and directory hashes (its third and fourth fields, 8 bytes together).
_HASHES_AT = 12
#: Past one doc in this many whose top byte is the last doc's, ``max`` over a list's docs costs less than finding
#: and comparing those one by one (``Segment._past_last``): about 15 ns a doc against 1 us a find.
_MAX_BEATS_FIND = 64
#: A ``TERM_ROW``'s first two fields, where its term is: all a probe of ``_lower_bound`` reads of the row.
_TERM_SPAN = struct.Struct(TERM_ROW.format[:3])


def _inflated(packed: bytes) -> bytes:
    """A raw deflate stream that ``packed`` holds exactly: one that ends early, or runs on, is damage."""
    inflater = zlib.decompressobj(layout.WBITS)
    raw = inflater.decompress(packed)
    if not inflater.eof or inflater.unused_data:
        raise ValueError("a deflate stream that is not its bytes")
    return raw


class Segment:
    """One segment opened for reading; every file is mapped, nothing is loaded whole."""

    def __init__(self, directory: StrPath, ref: SegmentRef, codec: Codec | None = None):
        self.ref = ref
        self.codec = codec or default_codec()
        self._damage: tuple[type[Exception], ...] = (*_DAMAGE, *self.codec.damage)
        #: The segment's folder.
        self.path = oscalls.join(directory, ref.name)
        self._mapped: dict[str, mmap.mmap | bytes] = {}
        self._terms = self._open("terms.bin")
        self._term_idx = self._open("terms.idx")
        self._postings = self._open("postings.bin")
        self._docs = self._open("docs.bin")
        self._records_file = self._open("records.bin")
        self._sessions = self._open("sessions.bin")
        self._session_idx = self._open("sessions.idx")
        self._dict_file = self._open("dicts.bin")
        #: The sessions' deflate dictionary, read when first needed (``_dictionary``).
        self._zdict: bytes | None = None
        #: Each doc's own impact, read when a tail is first read (``_own_impact``).
        self._own: tuple[tuple[float, ...], memoryview] | None = None
        if len(self._docs) != ref.docs * DOC_ROW.size or len(self._session_idx) != ref.sessions * SESSION_ROW.size:
            raise IndexUnreadable(f"segment {self.path} is truncated")
        self._doc_width = doc_width(ref.docs)
        #: The top byte of the last doc's number (-1 in a segment of none): a doc's above it is past the last
        #: (``_past_last``), and the bytes up to it, which ``bytes.translate`` leaves out. (Worked out once the files
        #: are known to hold ``ref.docs`` docs: a manifest naming 2**32 of them made it no byte, review42b M1.)
        self._last_top = (ref.docs - 1) >> 8 * (self._doc_width - 1)
        self._tops_within = bytes(range(self._last_top + 1))
        self._doc_rows = memoryview(self._docs if self._docs else b"").cast("I")
        #: Each doc's first u32 (its session ordinal | its kind << KIND_SHIFT), a strided view: no copy, one index
        #: per posting (search groups thousands of scored docs into sessions through it).
        self.heads = self._doc_rows[::3]
        #: Each doc's second u32 (``position``), a strided view the same way: ranking reads it for every doc of a
        #: shortlisted session.
        self.positions = self._doc_rows[1::3]
        self.n_terms = len(self._term_idx) // TERM_ROW.size
        self.deleted = frozenset(ref.deleted)
        self._keys_end = -1
        #: Each session's project and directory hashes (``sessions.idx``'s bytes 12 to 20 of each row), packed
        #: (``sessions_named``).
        self._hashes: bytes | None = None
        #: Each session's first doc (``session_columns``' fifth), kept once asked for (``session_docs``).
        self._first_docs: memoryview[int] | None = None
        #: Whether sessions.idx was checked whole against the checksum written with it (``_rows_checked``): from then
        #: on a row's own check (``_row``) is not asked again.
        self._rows_whole = False

    def _open(self, name: str) -> mmap.mmap | bytes:
        """A file of the segment, mapped, and as long as the manifest says it was written."""
        path = oscalls.join(self.path, name)
        try:
            mapped = _map(path)
        except FileNotFoundError:
            raise SegmentMissing(f"{path} is missing") from None
        except PermissionError:
            raise IndexForbidden(oscalls.dirname(self.path)) from None
        except OSError as exc:
            raise IndexUnreadable(f"{path} is unreadable: {exc.strerror or exc}") from None
        written = self.ref.files.get(name)
        if written is not None and len(mapped) != written.size:
            raise IndexUnreadable(f"{path} is damaged: {len(mapped)} bytes where {written.size} were written")
        self._mapped[name] = mapped
        return mapped

    def _damaged(self, name: str, exc: Exception) -> IndexUnreadable:
        """``name`` is damaged, or the file of offsets that led there (a docs.bin row naming a session past the
        last: review52c F3)."""
        name = self._first_damaged((name, *OFFSET_FILES)) or name
        return IndexUnreadable(f"{oscalls.join(self.path, name)} is damaged ({type(exc).__name__}: {exc})")

    def verify(self) -> None:
        """Check every byte against the checksums written with the segment (what ``deja index`` and doctor do)."""
        if name := self._first_damaged(tuple(self.ref.files)):
            raise self._unlike_written(name)

    def _unlike_written(self, name: str) -> IndexUnreadable:
        """The file ``name`` does not match the checksum written with it. Its times are set to now: ``deja index``
        reads whole again only a file whose size, times or inode moved since it last read it whole
        (``indexer.checked``), and a file that rotted under the same stamps was vouched for again, so the
        ``deja index`` the message asks for (or a hook starts) mended nothing (review57c F2)."""
        import contextlib  # (met once in a damaged index's life: loaded then)
        import os

        path = oscalls.join(self.path, name)
        with contextlib.suppress(OSError):
            os.utime(path)
        return IndexUnreadable(f"{path} is damaged: its checksum does not match what was written")

    def _term_at(self, i: int) -> tuple[bytes, int, int, int]:
        """Term ``i``: (term, postings offset, postings kept, docs holding it)."""
        try:
            t_off, t_len, p_low, p_high, count, df = TERM_ROW.unpack_from(self._term_idx, i * TERM_ROW.size)
        except _DAMAGE as exc:
            raise self._damaged("terms.idx", exc) from None
        p_off = p_low | p_high << 32
        # A posting takes at least a doc number: ``_doc_width`` bytes (a word's) or more (a key's).
        if t_off + t_len > len(self._terms) or p_off + count * self._doc_width > len(self._postings):
            raise IndexUnreadable(
                f"{oscalls.join(self.path, 'terms.idx')} is damaged: term {i} points past the end of the segment"
            )
        return self._terms[t_off : t_off + t_len], p_off, count, df

    def _lower_bound(self, key: bytes) -> int:
        """The position of the first term not below ``key`` (binary search over the mapped table).

        A probe reads a row and its term's bytes only, without ``_term_at``'s checks: a recalling prompt's terms make
        some 500 probes, and the checks cost 1.2 M of its search's 97 M instructions at 1k sessions. Every row probed
        is inside ``terms.idx`` (``n_terms`` counts its whole rows), and a damaged row's slice is only short or empty:
        it can misplace the search, not break it, and the term it lands on is checked by ``_term_at`` as it is read."""
        rows, terms, row_at, width = self._term_idx, self._terms, _TERM_SPAN.unpack_from, TERM_ROW.size
        lo, hi = 0, self.n_terms
        while lo < hi:
            mid = (lo + hi) // 2
            t_off, t_len = row_at(rows, mid * width)
            if terms[t_off : t_off + t_len] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def terms_holding(self, piece: str, low: bytes, high: bytes, most: int) -> list[str]:
        """Up to ``most`` of the terms from ``low`` up to ``high`` (the first bytes of a script's letters) that hold
        ``piece`` inside them. A segment's terms lie one after another in their sorted order, so those of a script
        are one stretch of ``terms.bin``, searched as bytes rather than read term by term."""
        key = piece.encode("utf-8")
        first, end = self._lower_bound(low), self._lower_bound(high)
        if first >= end:
            return []
        rows, row_at, width, terms = self._term_idx, _TERM_SPAN.unpack_from, TERM_ROW.size, self._terms
        last_off, last_len = row_at(rows, (end - 1) * width)
        stop = last_off + last_len
        found: list[str] = []
        row, at = first, terms.find(key, row_at(rows, first * width)[0], stop)
        while at >= 0 and len(found) < most:
            row = self._row_holding(at, row, end)
            t_off, t_len = row_at(rows, row * width)
            if at + len(key) <= t_off + t_len:  # (not a match across two terms' bytes)
                found.append(bytes(terms[t_off : t_off + t_len]).decode("utf-8", "replace"))
                at = terms.find(key, t_off + t_len, stop)
            else:
                at = terms.find(key, at + 1, stop)
        return found

    def _row_holding(self, offset: int, lo: int, hi: int) -> int:
        """The row, from ``lo`` up to ``hi``, whose term's bytes hold ``offset`` of ``terms.bin``."""
        rows, row_at, width = self._term_idx, _TERM_SPAN.unpack_from, TERM_ROW.size
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if row_at(rows, mid * width)[0] <= offset:
                lo = mid
            else:
                hi = mid
        return lo

    def lookup(self, term: str) -> tuple[int, int, int]:
        """(postings offset, postings kept, docs holding it) of ``term``, or (0, 0, 0).

        A common word keeps only its best postings (``WORD_POSTINGS_KEPT``); the
        number of docs holding it, which its idf needs, is kept whole.
        """
        key = term.encode("utf-8")
        i = self._lower_bound(key)
        if i < self.n_terms:
            found, p_off, count, df = self._term_at(i)
            if found == key:
                return p_off, count, df
        return 0, 0, 0

    def _keyed(self, p_off: int) -> bool:
        """The keys' postings come first in ``postings.bin``, (doc, time) pairs; the words' are laid out otherwise."""
        if self._keys_end < 0:
            i = self._lower_bound(_AFTER_KEYS)
            self._keys_end = self._term_at(i)[1] if i < self.n_terms else len(self._postings)
        return p_off < self._keys_end

    def postings(self, p_off: int, start: int, stop: int) -> list[tuple[int, int, float]]:
        """Entries ``start`` to ``stop`` of a postings list: (doc, session ordinal, impact or time), best first."""
        heads = self.heads
        try:
            if self._keyed(p_off):
                size = KEYED_POSTING.size
                pairs = KEYED_POSTING.iter_unpack(self._postings[p_off + start * size : p_off + stop * size])
                return [(doc, heads[doc] & ORDINAL_MASK, days) for doc, days in pairs]
            pairs = islice(self._word_postings(p_off, stop), start, None)
            return [(doc, heads[doc] & ORDINAL_MASK, impact) for doc, impact in pairs]
        except _DAMAGE as exc:
            raise self._damaged("postings.bin", exc) from None

    def files_session(self, p_off: int, count: int, ordinal: int) -> bool:
        """Whether a key's postings (``lookup``'s offset and count) hold session ``ordinal`` at the time it was
        updated, as a key filed under a session's first doc does (a folder's tree, a project). Found by a binary
        search on that time, a key's postings being newest first: some twenty reads whatever the key's length, where
        reading a monorepo's list whole would cost its thousands of postings."""
        size, postings, unpack = KEYED_POSTING.size, self._postings, KEYED_POSTING.unpack_from
        updated = self.session_keys(ordinal).updated
        days = KEYED_POSTING.unpack(KEYED_POSTING.pack(0, updated / 86400))[1]
        lo = self.postings_after(p_off, count, updated)  # the first posting not newer than the session
        try:
            for at in range(p_off + lo * size, p_off + count * size, size):  # the postings of that time, a few
                doc, posted = unpack(postings, at)
                if posted != days:
                    return False
                if self.heads[doc] & ORDINAL_MASK == ordinal:
                    return True
        except _DAMAGE as exc:
            raise self._damaged("postings.bin", exc) from None
        return False

    def postings_after(self, p_off: int, count: int, seconds: float, at: bool = False) -> int:
        """How many of a key's postings (``lookup``'s offset and count; newest first) were posted after ``seconds``
        (epoch), or at it too when ``at``, as their float32 of days reads it: a binary search, some twenty reads
        whatever the key's length. With ``at``, every posting whose exact time is ``seconds`` or later is among them
        (rounding keeps order), and perhaps a few of a minute or two before."""
        size, postings, unpack = KEYED_POSTING.size, self._postings, KEYED_POSTING.unpack_from
        days = KEYED_POSTING.unpack(KEYED_POSTING.pack(0, seconds / 86400))[1]
        lo, hi = 0, count
        try:
            while lo < hi:
                mid = (lo + hi) // 2
                posted = unpack(postings, p_off + mid * size)[1]
                if posted > days or at and posted == days:
                    lo = mid + 1
                else:
                    hi = mid
        except _DAMAGE as exc:
            raise self._damaged("postings.bin", exc) from None
        return lo

    def impact_runs(self, p_off: int, stop: int) -> tuple[Sequence[int], list[float], bytes]:
        """A word's postings list's first ``stop`` docs (at most as many as it keeps), and their impacts as runs: each
        run's value and each run's length (the last run read may run on past ``stop``). Search weighs a run of
        postings with one product and builds its scores with dict and zip over whole lists, not posting by posting
        in Python. (A key's list, of times, is read by ``postings``.)"""
        try:
            runs = self._word_runs(p_off, stop)
        except _DAMAGE as exc:
            raise self._damaged("postings.bin", exc) from None
        return runs

    def tail(
        self, p_off: int, kept: int, holding: int, spans: Iterable[tuple[int, int]]
    ) -> tuple[list[int], list[float]]:
        """The docs, and their impacts, of a word's postings past its head (``lookup``'s offset, postings kept and
        docs holding it) that lie in ``spans`` (ascending runs of docs, each a start and an end past it).

        The tail is in doc order, in deflated blocks of ``TAIL_BLOCK`` postings (``writer._tail``): a span's blocks
        are found by halving the blocks' first docs, and each block a filter's spans touch is inflated once, so a
        project's few hundred sessions cost the blocks they lie in, not the word's whole tail.
        """
        from bisect import bisect_left, bisect_right  # (here: a hook's search has no filter)

        data, left = self._postings, holding - kept
        docs: list[int] = []
        impacts: list[float] = []
        try:
            runs = RUNS.unpack_from(data, p_off)[0]
            blocks = tail_blocks(left)
            at = p_off + RUNS.size + 3 * runs + kept * self._doc_width
            skips = struct.unpack_from(f"<{3 * blocks}I", data, at)
            firsts, ends, at = skips[0::3], (0, *skips[2::3]), at + blocks * TAIL_SKIP.size
            read: dict[int, tuple[list[int], bytes, tuple[float, ...]]] = {}
            for start, end in spans:
                for block in range(max(0, bisect_right(firsts, start) - 1), bisect_left(firsts, end)):
                    if block not in read:
                        postings = min(layout.TAIL_BLOCK, left - block * layout.TAIL_BLOCK)
                        gaps, stop = data[at + ends[block] : at + skips[3 * block + 1]], at + ends[block + 1]
                        impacts_of = data[at + skips[3 * block + 1] : stop]
                        read[block] = self._tail_block(gaps, impacts_of, firsts[block], postings)
                    block_docs, flags, others = read[block]
                    lo, hi = bisect_left(block_docs, start), bisect_left(block_docs, end)
                    other = flags.count(1, 0, lo)
                    for doc, flag in zip(block_docs[lo:hi], flags[lo:hi], strict=True):
                        impacts.append(others[other] if flag else self._own_impact(doc))
                        other += flag
                    docs += block_docs[lo:hi]
            if docs and max(docs) >= self.ref.docs:
                raise IndexError("a posting names a doc past the segment's last")
        except _DAMAGE as exc:
            raise self._damaged("postings.bin", exc) from None
        return docs, impacts

    @staticmethod
    def _tail_block(
        gaps_of: bytes, impacts_of: bytes, first: int, postings: int
    ) -> tuple[list[int], bytes, tuple[float, ...]]:
        """A tail's block inflated (its two streams): its ``postings`` docs (from its ``first``), whether each one's
        impact is other than its doc's own, and those impacts (``writer._tail_block``)."""
        gaps, impacts = _inflated(gaps_of), _inflated(impacts_of)
        sums = islice(accumulate(gaps, initial=first), 1, None)
        docs = list(compress(sums, map((255).__ne__, gaps)) if 255 in gaps else sums)  # (most blocks: no 255)
        flags, others = impacts[:postings], impacts[postings:]
        if len(docs) != postings or len(flags) != postings or len(others) != 2 * flags.count(1):
            raise ValueError("a tail's block holds other than its postings")
        return docs, flags, struct.unpack(f"<{len(others) // 2}e", others)

    def _own_impact(self, doc: int) -> float:
        """A doc's impact at a count of one, from the table that ends postings.bin in a segment holding a tail
        (``writer._own_table``), read when first needed."""
        if self._own is None:
            data = self._postings
            end = len(data) - TAIL_GAPS.size
            start = end - TAIL_GAPS.unpack_from(data, end)[0]
            if start < 0:
                raise ValueError("the docs' own impacts start before postings.bin")
            distinct = TAIL_GAPS.unpack_from(data, start)[0]
            values = struct.unpack_from(f"<{distinct}e", data, start + TAIL_GAPS.size)
            codes = memoryview(_inflated(data[start + TAIL_GAPS.size + 2 * distinct : end]))
            codes = codes.cast("B" if distinct <= 256 else "H")
            if len(codes) != self.ref.docs:
                raise ValueError("the docs' own impacts are not one a doc")
            self._own = values, codes
        values, codes = self._own
        return values[codes[doc]]

    def _word_postings(self, p_off: int, stop: int) -> Iterator[tuple[int, float]]:
        """A word's first ``stop`` (at most as many as it keeps) docs and impacts."""
        docs, values, lengths = self._word_runs(p_off, stop)
        return zip(docs, chain.from_iterable(map(repeat, values, lengths)), strict=False)  # the last run may run on

    def _word_runs(self, p_off: int, stop: int) -> tuple[Sequence[int], list[float], bytes]:
        """A word's first ``stop`` docs, and its impact runs' values and lengths: the runs are read only as far as
        they can cover ``stop``."""
        data = self._postings
        runs = RUNS.unpack_from(data, p_off)[0]
        values_at = p_off + RUNS.size
        lengths_at = values_at + 2 * runs
        lengths = data[lengths_at : lengths_at + min(runs, stop)]  # enough runs: each holds at least one posting
        # Only the runs that cover ``stop``: a common word's runs are a few postings long, and its first 140 runs
        # held some 800 postings where search read 140 (each run's value unpacked and weighed for nothing).
        read = next(compress(range(1, len(lengths) + 1), map(le, repeat(stop), accumulate(lengths))), len(lengths))
        values = list(struct.unpack_from(f"<{read}e", data, values_at))
        lengths = lengths[:read]
        docs_at, width = lengths_at + runs, self._doc_width
        packed = data[docs_at : docs_at + width * stop]
        if len(packed) != width * stop:
            raise ValueError(f"{stop} postings past the end")
        if width != 3:  # little-endian u16s or u32s, read in place
            docs = memoryview(packed).cast("H" if width == 2 else "I").tolist()
        else:
            wide = bytearray(4 * stop)  # little-endian u24s widened to u32s
            for i in range(width):
                wide[i::4] = packed[i::width]
            docs = memoryview(wide).cast("I").tolist()
        if self._past_last(packed, docs):  # each doc checked to be the segment's, as ``postings`` does
            raise IndexError("a posting names a doc past the segment's last")
        return docs, values, lengths

    def _past_last(self, packed: bytes, docs: list[int]) -> bool:
        """Whether a doc of ``docs`` (read from ``packed``, little-endian numbers of ``_doc_width`` bytes) is past the
        segment's last doc. Each doc's top byte is asked at C speed (``bytes.translate`` leaves those above the last
        doc's), and only the docs whose top byte is the last doc's are compared whole: ``max`` over the numbers
        compared every one in Python, 3 M instructions of a recalling prompt's hook at 1k sessions (of 173 M). Where
        many share it (a fifth of a segment of 165k docs: its last doc's top byte is 2), ``max`` is the cheaper: a
        filtered search reads a word's 8,192 postings whole, and comparing some 1,600 of them one by one cost it 1.3
        ms a list."""
        width, last, top = self._doc_width, self.ref.docs - 1, self._last_top  # (at most 255: ``doc_width``)
        if last < 0:
            return bool(docs)
        tops = packed[width - 1 :: width]
        if tops.translate(None, self._tops_within):
            return True
        if tops.count(top) * _MAX_BEATS_FIND > len(docs):
            return max(docs) > last
        at = tops.find(top)
        while at >= 0:
            if docs[at] > last:
                return True
            at = tops.find(top, at + 1)
        return False

    def doc(self, doc: int) -> Doc:
        """The session ordinal and kind of a doc."""
        try:
            row = self._doc_rows[3 * doc]
        except _DAMAGE as exc:
            raise self._damaged("docs.bin", exc) from None
        return Doc((row & ORDINAL_MASK, row >> KIND_SHIFT))

    def kind(self, doc: int) -> int:
        """A doc's kind: ``doc(doc).kind`` without building the pair (ranking asks it of every candidate doc)."""
        try:
            return self._doc_rows[3 * doc] >> KIND_SHIFT
        except _DAMAGE as exc:
            raise self._damaged("docs.bin", exc) from None

    def _dictionary(self) -> bytes:
        """The sessions' deflate dictionary (empty in a segment written without one), checked against the checksum
        it was written with when first read: every session inflates against it, and a damaged one gives other bytes
        (at most 32 KiB, once a segment a process)."""
        if self._zdict is None:
            if self._first_damaged(("dicts.bin",)):
                raise self._unlike_written("dicts.bin")
            self._zdict = bytes(self._dict_file)
        return self._zdict

    def _deflated(self, ordinal: int, records: bool) -> tuple[bytes, bytes]:
        """Session ``ordinal``'s part of sessions.bin, and its part of records.bin when ``records`` (else b""), each
        checked against the CRC-32 its row holds (``format.stream_checks``): raw deflate holds no checksum, and a
        flipped byte inflated to other messages with no error (review51c F1)."""
        row = self._row(ordinal)
        (meta_off, meta_length), (off, length), (meta_crc, both_crc) = row[:2], row[6:8], row[9:]
        meta = self._sessions[meta_off : meta_off + meta_length]
        block = self._records_file[off : off + length] if records else b""
        found = zlib.crc32(meta)
        if found == meta_crc and (not records or zlib.crc32(block, found) == both_crc):
            return meta, block
        read = "sessions.bin" if found != meta_crc else "records.bin"
        name = self._first_damaged((*OFFSET_FILES, read)) or read
        raise IndexUnreadable(
            f"{oscalls.join(self.path, name)} is damaged: session {ordinal} does not match the checksum it was written with"
        )

    def _first_damaged(self, names: tuple[str, ...]) -> str:
        """The first of the files ``names`` whose bytes do not match the checksum written with them, "" for none: a
        session's checksums fail alike when its row's offsets (sessions.idx, docs.bin) are the flipped bytes, and
        the file to name is the one damaged, not the one read (review52c F3). Only asked once a check has failed."""
        for name in names:
            written = self.ref.files.get(name)
            if written is not None and zlib.crc32(self._mapped.get(name) or self._open(name)) != written.crc:
                return name
        return ""

    def _records(self, ordinal: int, upto: int | None) -> tuple[bytes, int]:
        """A session's records inflated (only as far as their first ``upto`` bytes, if given), and its first doc."""
        first_doc = self._row(ordinal)[8]
        records = self.inflating(ordinal)
        try:
            return (records.upto(upto) if upto else records.whole()), first_doc
        except _DAMAGE as exc:
            raise self._damaged("records.bin", exc) from None

    def _decoded(self, raw: bytes, start: int, end: int) -> Message:
        try:
            return self.codec.message(raw[start:end])
        except self._damage as exc:
            raise self._damaged("records.bin", exc) from None

    def message(self, doc: int) -> Message:
        """One doc's message: its session's records are inflated only as far as it ends."""
        return self.messages_at([doc])[0]

    def message_holding(self, doc: int, needles: list[bytes], folded: bool = False) -> Message | None:
        """One doc's message when its record holds every one of ``needles`` (a record's strings are its text's UTF-8
        bytes as written, so a text holding a string holds its bytes), else None, without decoding it: a caller
        that wants only messages quoting given names (``failures.past_failures``, up to 200 candidates a failed
        command) decodes just those that may. ``folded``: the needles are ASCII and lowercase, looked for as in
        ``text.lower()`` (``_folded``)."""
        record = self.record(doc)
        held = _folded(record) if folded and needles else record
        return self._decoded(record, 0, len(record)) if all(needle in held for needle in needles) else None

    def record(self, doc: int, records: Inflating | None = None) -> bytes:
        """One doc's record, undecoded; ``records``: its session's (``inflating``), when a caller looks into several
        of them (``failures.asked_failure``) and would inflate them once."""
        rows = self._doc_rows
        try:
            ordinal, start, end = rows[3 * doc] & ORDINAL_MASK, rows[3 * doc + 1], rows[3 * doc + 2]
        except _DAMAGE as exc:
            raise self._damaged("docs.bin", exc) from None
        if records is None:
            return self._records(ordinal, end)[0][start:end]
        try:
            return records.upto(end)[start:end]
        except _DAMAGE as exc:
            raise self._damaged("records.bin", exc) from None

    def messages_at(self, docs: list[int], records: Inflating | None = None) -> list[Message]:
        """The messages of ``docs``, all of one session, in that order: its records are inflated once, as far as
        the last of them ends (a search's snippets of one session cost one inflation, not one each)."""
        return list(self.messages_along(docs, records))

    def messages_along(self, docs: Iterable[int], records: Inflating | None = None) -> Iterator[Message]:
        """The messages of ``docs``, all of one session, in that order, each decoded when it is reached: the
        session's records are inflated once, only as far as the messages reached so far end (``failures.what_followed``
        reads up to 30 messages after a failure, and stops at the command that fixed it). ``records``: the session's
        (``inflating``), when a caller reads it in several steps (a search ``--since`` finds where the window
        starts, then reads the passages) and would inflate it once."""
        rows = self._doc_rows
        for doc in docs:
            try:
                ordinal, start, end = rows[3 * doc] & ORDINAL_MASK, rows[3 * doc + 1], rows[3 * doc + 2]
            except _DAMAGE as exc:
                raise self._damaged("docs.bin", exc) from None
            try:
                records = records or self.inflating(ordinal)
                raw = records.upto(end)
            except _DAMAGE as exc:
                raise self._damaged("records.bin", exc) from None
            yield self._decoded(raw, start, end)

    def inflating(self, ordinal: int) -> Inflating:
        """A session's records, to inflate as far as they are read (``Inflating``), after its meta's part of their
        stream."""
        meta, block = self._deflated(ordinal, records=True)
        try:
            return Inflating(meta, block, self._dictionary())
        except _DAMAGE as exc:
            raise self._damaged("sessions.bin", exc) from None

    def messages(self, meta: SessionMeta) -> list[Message]:
        """A session's messages in order (its title doc left out)."""
        if not meta.n_docs:
            return []
        raw, first_doc = self._records(self.doc(meta.first_doc).ordinal, None)
        rows, out = self._doc_rows, []
        try:
            for doc in range(first_doc, first_doc + meta.messages):
                out.append(self._decoded(raw, rows[3 * doc + 1], rows[3 * doc + 2]))
        except IndexError as exc:  # (a session row naming docs past the last: review51c F3, a bare IndexError)
            raise self._damaged("sessions.idx", exc) from None
        return out

    def position(self, doc: int) -> int:
        """Where a doc's message starts in its session's records: the docs built from one message share it, and it
        grows through a session (compare positions within one session only)."""
        try:
            return self._doc_rows[3 * doc + 1]
        except _DAMAGE as exc:
            raise self._damaged("docs.bin", exc) from None

    def message_doc(self, doc: int, meta: SessionMeta | None = None) -> int:
        """The message doc a field doc was built from (found by their shared record); any other doc itself.

        ``meta`` is the doc's session, when the caller has it decoded already."""
        ordinal, kind = self.doc(doc)
        if kind in MESSAGE_KINDS or kind == KIND_TITLE:
            return doc
        off = self.position(doc)
        meta = meta or self.session(ordinal)
        lo, hi = meta.first_doc, meta.first_doc + meta.messages - 1
        while lo < hi:  # message docs of a session are in record order
            mid = (lo + hi + 1) // 2
            if self.position(mid) <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def session_keys(self, ordinal: int) -> SessionKeys:
        """What filters look at, without decoding the session."""
        return SessionKeys(self._row(ordinal)[2:6])

    def _row(self, ordinal: int) -> tuple[Any, ...]:
        """Session ``ordinal``'s row of sessions.idx (``SESSION_ROW``'s fields), refused unless it holds its own check
        (``format.ROW_CRC_BELOW``: a flipped byte of its time read as another day, review52c F2) at its place
        (``format.row_crc``), until the file has been checked whole (``_rows_checked``). About 0.3 us a row: a hook reads a few rows, not the file."""
        at = ordinal * SESSION_ROW.size
        row = self._session_idx[at : at + SESSION_ROW.size]
        try:
            fields = SESSION_ROW.unpack(row)
        except _DAMAGE as exc:
            raise self._damaged("sessions.idx", exc) from None
        if not self._rows_whole and row_crc(row, ordinal) >= ROW_CRC_BELOW:
            raise self._unlike_written("sessions.idx")
        return fields

    def _rows_checked(self) -> memoryview:
        """sessions.idx, checked whole against the checksum written with it once a segment a process (as the
        dictionary is, ``_dictionary``): what reads every row's fields at once (``session_columns``,
        ``sessions_named``) would otherwise check each row it uses, thousands a filtered search (about 1 ms at 100k
        sessions, 5.6 MB, where 4,000 rows checked one by one take about as long)."""
        if not self._rows_whole:
            # (a manifest holding no checksum of it checks nothing whole: refused, not taken as checked, which would
            # turn every row's own check off as well: review53b F2)
            if "sessions.idx" not in self.ref.files or self._first_damaged(("sessions.idx",)):
                raise self._unlike_written("sessions.idx")
            self._rows_whole = True
        return memoryview(self._session_idx)

    def session_columns(
        self,
    ) -> tuple[memoryview[int], memoryview[int], memoryview[int], memoryview[float], memoryview[int]]:
        """``session_keys`` of every session at once, and where its docs start: its project and directory hashes,
        source, updated time and first doc as five columns indexed by ordinal, strided views of ``sessions.idx`` (no
        copy, no decoding; the rows' fields at their offsets in ``SESSION_ROW``, little-endian as ``heads``): what a
        filtered search checks its thousands of candidates against, at an index each rather than an unpacked row.
        The file is checked whole first (``_rows_checked``)."""
        return self._columns(self._rows_checked())

    @staticmethod
    def _columns(
        rows: memoryview,
    ) -> tuple[memoryview[int], memoryview[int], memoryview[int], memoryview[float], memoryview[int]]:
        """``session_columns`` of the rows ``rows``, unchecked."""
        words, width = rows.cast("I"), SESSION_ROW.size // 4
        return (
            words[3::width],
            words[4::width],
            rows[20 :: 4 * width],
            rows.cast("d")[3 :: width // 2],
            words[11::width],
        )

    def session_docs(self, ordinal: int) -> range:
        """Every doc of session ``ordinal``: its messages, then its fields (commands, edits, tool output), up to the
        next session's first doc, or the segment's end for its last session. The one rule for where a session's docs
        end, which the failure hook's "last message ran a command" (``ending``) and a filtered search's admitted runs
        (``search``) both read; the column is kept on the segment, as a filtered search asks for up to 1,024
        sessions a segment and ``session_columns`` builds its views anew at each call. Until the file is checked
        whole the two rows read are checked (``_row``): the failure hook asks one session's, not every row's."""
        first_docs = self._first_docs
        if first_docs is None:
            first_docs = self._first_docs = self._columns(memoryview(self._session_idx))[4]
        if not self._rows_whole:
            self._row(ordinal)
            if ordinal + 1 < len(first_docs):
                self._row(ordinal + 1)
        end = first_docs[ordinal + 1] if ordinal + 1 < len(first_docs) else self.ref.docs
        return range(first_docs[ordinal], end)

    def sessions_named(self, name_hash: int, most: int) -> set[int] | None:
        """The ordinals of the sessions whose project or directory hash (``session_keys``) is ``name_hash``, found by
        searching each session's two hashes, packed together once per segment (a sixth of ``sessions.idx``), for its
        bytes (only a find at a hash's offset counts); None once there are more than ``most``. A hash no row can hold
        (the root folder's, -1: ``search.Filters``) names none."""
        if not (0 <= name_hash < 1 << 32 and self.ref.sessions):
            return set()
        if self._hashes is None:  # (read as u64s, every row's from its first hash to the last row's second)
            rows, width = self._rows_checked(), SESSION_ROW.size
            self._hashes = rows[_HASHES_AT : len(rows) - width + _HASHES_AT + 8].cast("Q")[:: width // 8].tobytes()
        hashes, needle = self._hashes, name_hash.to_bytes(4, "little")
        found: set[int] = set()
        at = hashes.find(needle)
        while at >= 0:
            if at % 4 == 0:
                found.add(at // 8)
                if len(found) > most:
                    return None
            at = hashes.find(needle, at + 1)
        return found

    def session(self, ordinal: int) -> SessionMeta:
        meta = self._deflated(ordinal, records=False)[0]
        try:
            return self.codec.session(inflate(meta, self._dictionary()))
        except self._damage as exc:
            raise self._damaged("sessions.bin", exc) from None

    def with_prefix(self, prefix: str) -> Iterator[tuple[str, int, int]]:
        """(term, postings offset, count) of every term starting with ``prefix``, in order."""
        key = prefix.encode("utf-8")
        for i in range(self._lower_bound(key), self.n_terms):
            term, p_off, count, _ = self._term_at(i)
            if not term.startswith(key):
                return
            try:
                text = term.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise self._damaged("terms.bin", exc) from None
            yield text, p_off, count

    def live_sessions(self) -> Iterator[tuple[int, SessionMeta]]:
        for ordinal in range(self.ref.sessions):
            if ordinal not in self.deleted:
                yield ordinal, self.session(ordinal)


class Index:
    """A read-only view of one generation of the index."""

    def __init__(self, directory: StrPath, manifest: Manifest, codec: Codec | None = None):
        self.directory = directory
        self.manifest = manifest
        self.segments = [Segment(directory, ref, codec) for ref in manifest.segments]
        self.total_docs = sum(ref.docs for ref in manifest.segments) or 1
        #: Project hash -> each segment's ordinals of the live sessions it names (``Segment.sessions_named``) and their
        #: docs as search keys them, or None when it names too many to keep (``search_filters._named``): found by a
        #: project-filtered search once for as long as this generation is read (a server's calls share it; a new
        #: manifest is opened as a new Index, which starts without it).
        self.named: dict[int, tuple[list[frozenset[int]], dict[int, int]] | None] = {}
        #: A folder's name -> the folders of that name sessions ran below (``project_names._folders_above``), by their
        #: spelling: worked out once a generation, as ``named`` is, when ``--project`` first names a folder by name.
        self.names_above: dict[str, dict[str, str]] | None = None

    @classmethod
    def open(cls, home: StrPath, codec: Codec | None = None) -> Index:
        """The index the manifest names now, its records decoded by ``codec`` (msgspec Structs by default).

        A segment can vanish between reading the manifest and mapping it (a
        reader paused past the grace period of a rebuild); the newest manifest
        names only live segments, so it is read once more.
        """
        directory = oscalls.join(home, INDEX)  # (``index_dir``'s folder, for a home given as a string too)
        manifest = read_manifest(directory, codec)
        faults.point("reader-read-manifest")
        try:
            return cls(directory, manifest, codec)
        except SegmentMissing:
            newest = read_manifest(directory, codec)
            if newest == manifest:
                raise
            return cls(directory, newest, codec)

    def verify(self) -> None:
        """Read every byte of every segment against its checksum; raise IndexUnreadable naming a damaged file."""
        for segment in self.segments:
            segment.verify()

    @property
    def session_count(self) -> int:
        return sum(ref.sessions - len(ref.deleted) for ref in self.manifest.segments)

    @property
    def message_count(self) -> int:
        return sum(ref.messages - ref.deleted_messages for ref in self.manifest.segments)

    def idf(self, df: int) -> float:
        import math  # (here: a hook that searches nothing, a file's or a command's, loads no math, 0.4 M instructions)

        return math.log(1 + (self.total_docs - df + 0.5) / (df + 0.5))

    def sessions(self) -> Iterator[tuple[Segment, int, SessionMeta]]:
        for segment in self.segments:
            for ordinal, meta in segment.live_sessions():
                yield segment, ordinal, meta

    def find(self, prefix: str) -> list[tuple[Segment, int, SessionMeta]]:
        """Live sessions whose id starts with ``prefix`` (an exact id wins outright, and a chat wins over its own
        subagents, whose ids ``<parent>/<child>`` start with its id: ``deja show a0000001`` is the parent)."""
        found: list[tuple[Segment, int, SessionMeta]] = []
        key = keys.session_key(prefix)
        for segment in self.segments:
            for term, p_off, count in segment.with_prefix(key):
                for _, ordinal, _ in segment.postings(p_off, 0, count):
                    if ordinal in segment.deleted:
                        continue
                    hit = (segment, ordinal, segment.session(ordinal))
                    if term == key:
                        return [hit]
                    found.append(hit)
        return _chat_of_subagents(found) or found

    def newest(
        self, key: str, limit: int, scan_limit: int = 2000, since: float = 0.0, until: float = 0.0
    ) -> list[tuple[float, Segment, int]]:
        """The newest live docs filed under an exact ``key`` (see ``deja.core.keys``): (days, segment, doc); only those
        posted at ``since`` (epoch seconds) or after when given, give or take the minute or two of a posting's float32
        (``Segment.postings_after``: the caller checks the exact time), and only those of sessions updated before
        ``until`` when given, read from the first posted before it: an early ``--until`` on a long history reaches
        its sessions however many came after (review48f M2).

        A key's postings are newest first, so each segment's are read a few more than ``limit`` at a time, only as
        far as it takes to find ``limit`` live ones: a hook asking for a project's three newest sessions touches a
        few pages of a 100k-session index, not the pages of thousands of docs.
        """
        found: list[tuple[float, Segment, int]] = []
        order: dict[int, int] = {}  # a segment's place: the later of two written, the newer its sessions
        step = limit + 16
        for place, segment in enumerate(self.segments):
            order[id(segment)] = place
            p_off, count, _ = segment.lookup(key)
            start = segment.postings_after(p_off, count, until) if until else 0
            taken, stop = 0, min(count, start + scan_limit)
            if since:  # (a period's sessions: read as far as its first moment, not the whole list)
                stop = min(stop, segment.postings_after(p_off, count, since, at=True))
            while taken < limit and start < stop:
                for doc, ordinal, days in segment.postings(p_off, start, min(stop, start + step)):
                    if ordinal in segment.deleted or until and segment.session_keys(ordinal).updated >= until:
                        continue  # (posted in until's float32 step: updated at it or just after)
                    found.append((days, segment, doc))
                    taken += 1
                    if taken >= limit:
                        break
                start += step
        # A posting's time is float32 days (to about three minutes now): two docs that tie go by their sessions'
        # exact times (``sessions.idx``), then the later segment first (a segment's place is no age once
        # compaction has merged older ones into a new one; within a segment, postings are in exact order).
        found.sort(
            key=lambda item: (item[0], item[1].session_keys(item[1].doc(item[2]).ordinal).updated, order[id(item[1])]),
            reverse=True,
        )
        return found[:limit]

    def nearest_project(self, folder: str, at_home: bool | None = None) -> str:
        """``folder``, when a session ran in it or a folder below it (a monorepo opened at its root); else the nearest
        folder above it that a session ran in itself, within its repository (never above a folder holding ``.git``)
        and looking no higher than below the home folder (the project of every folder below it, which no session
        there means; ``folders.home_spellings``: a home that is a link too); "" when there is none. The walk names
        folders as given (``oscalls.dirname``) and stops at the home folder so spelt, or at any folder that is the
        home folder as the index spells it (``keys.spelt_homes``: reached through a link to it, whose sessions are
        the home folder's: small33's ``~/h/proj/src`` with ``h`` a link to ``~``), before asking for its sessions.

        People open Cursor and run ``deja wip`` at a project's ``src/`` (trial9 F15). A folder above is asked for its
        own sessions: one that only a sibling's sessions ran below (``shop`` seen from ``shop/web/src`` when only
        ``shop/api`` had one) is not this folder's project; nor is ``~/code``, where a session once ran, that of a
        new repository in it (review11 R1). The home folder, and a folder above it, is a project by the sessions opened
        there only: every project ran below it (trial20 F9). ``at_home`` says whether ``folder`` is that home folder or
        above it (``keys.holds_home``), when the caller has asked already (``library.wip_project``: once a ``deja wip``).
        """
        if not folder:
            return folder
        if at_home is None:
            at_home = keys.holds_home(keys.project_spelling(folder), keys.spelt_homes())
        if at_home:  # (its own sessions, if any)
            return folder if self.newest(keys.sessions_key(folder, below=False), limit=1) else ""
        if self.newest(keys.sessions_key(folder), limit=1):
            return folder
        stops = {spelled.rstrip("/") + "/" for spelled in folders.home_spellings()}
        homes = keys.spelt_homes()
        while (above := oscalls.dirname(folder)) != folder and not any(
            spelled.startswith(above.rstrip("/") + "/") for spelled in stops
        ):
            if oscalls.exists(oscalls.join(folder, ".git")) or keys.project_spelling(above) in homes:
                return ""  # (a repository's root: a folder, or a file in a worktree)
            if self.newest(keys.sessions_key(above, below=False), limit=1):
                return above
            folder = above
        return ""

    def tree(self, folder: str) -> Tree:
        """The sessions that ran in ``folder`` or a folder below it, asked a session at a time (``Tree``)."""
        return Tree(keys.tree_key(folder))

    def size_bytes(self) -> int:
        total = 0
        for segment in self.segments:
            with oscalls.scandir(segment.path) as files:
                total += sum(f.stat().st_size for f in files)
        return total


def _chat_of_subagents(found: list[tuple[Segment, int, SessionMeta]]) -> list[tuple[Segment, int, SessionMeta]]:
    """The one chat among ``found`` when all the others are its subagents (``<its id>/<child>``), else nothing."""
    chats = [hit for hit in found if "/" not in hit[2].id]
    if len(found) < 2 or len(chats) != 1:
        return []
    own = chats[0][2].id + "/"
    return chats if all(hit is chats[0] or hit[2].id.startswith(own) for hit in found) else []


class Tree:
    """The sessions filed under a folder's ``keys.tree_key`` (those that ran in it or a folder below it), asked a
    session at a time: a hook meets a few sessions (a command's latest runs, an error's past sessions) and asks of
    each whether it is this project's, where reading the folder's whole list would cost a monorepo's thousands of
    postings on every call. A folder's sessions are all in the tree or all out, so each folder (its
    ``SessionKeys.dir_hash``) is looked up once."""

    def __init__(self, key: str) -> None:
        self._key = key
        self._lists: dict[int, tuple[int, int]] = {}  # id(segment) -> the key's postings there (offset, count)
        self._folders: dict[int, bool] = {}

    def holds(self, segment: Segment, ordinal: int) -> bool:
        folder = segment.session_keys(ordinal).dir_hash
        held = self._folders.get(folder)
        if held is None:
            found = self._lists.get(id(segment))
            if found is None:
                p_off, count, _ = segment.lookup(self._key)
                found = self._lists[id(segment)] = (p_off, count)
            held = self._folders[folder] = bool(found[1]) and segment.files_session(*found, ordinal)
        return held


def _folded(record: bytes) -> bytes:
    """A record's bytes holding every ASCII run its text's ``str.lower()`` holds: ASCII letters lowercased, and the
    two letters outside ASCII that ``lower()`` turns into ASCII ones (İ into i and a combining dot, the Kelvin
    sign into k) turned so; every other letter lowercases to letters outside ASCII, which no ASCII needle holds."""
    return record.lower().replace("\u0130".encode(), "i\u0307".encode()).replace("\u212a".encode(), b"k")
