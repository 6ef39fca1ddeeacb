"""Writing one immutable segment: records, docs, sessions, terms and impact-ordered postings."""

import collections
import contextlib
import heapq
import os
import struct
import time
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC
from itertools import chain, compress, groupby, islice
from operator import attrgetter, itemgetter, ne, not_, sub
from pathlib import Path
from stat import S_ISDIR
from typing import IO, Any, BinaryIO, NamedTuple

from .. import faults, keys
from ..dates import date_keys
from ..fields import MESSAGE_KINDS, acted_on, field_texts
from ..lean_msgspec import msgspec
from ..model import Message
from ..private import DIR_MODE, open_private, private_dir
from ..text import forget_cached_terms
from ..text import terms as text_terms
from . import format as layout
from .format import (
    DICT_SESSIONS,
    DOC_ROW,
    K1,
    KEYED_POSTING,
    KIND_ASSISTANT,
    KIND_SHIFT,
    KIND_TITLE,
    KIND_USER,
    KIND_WEIGHT,
    MAX_RUN,
    ROW_CHECK_AT,
    ROW_CRC_BELOW,
    RUNS,
    SESSION_ROW,
    SOURCE_CODES,
    TAIL_GAPS,
    TAIL_SKIP,
    WBITS,
    WHOLE_LISTS_DOCS,
    WORD_POSTINGS_KEPT,
    B,
    deflater,
    dictionary,
    doc_width,
    filed_paths,
    name_hash,
    row_crc,
    stream_checks,
    term_row,
)
from .records import FileSum, SegmentRef, SessionMeta, StoredMessage, stored


def _count_with_counter(counts: dict[Any, int], items: Iterable[Any]) -> None:
    """Add one to ``counts`` for each of ``items``, through ``Counter``'s public API."""
    for item, count in Counter(items).items():
        counts[item] = counts.get(item, 0) + count


#: Counts items into a dict (a doc's terms, a word's impacts, a segment's doc shapes): ``collections._count_elements``,
#: the loop ``Counter`` counts with (C in CPython), called without ``Counter``'s checks (2 µs a doc, 2M docs at 100k
#: sessions). It is private to ``collections``: where a Python has no such name, ``_count_with_counter`` counts the
#: same through ``Counter``.
count_into: Callable[[dict[Any, int], Iterable[Any]], None] = getattr(
    collections, "_count_elements", _count_with_counter
)


def _doc_terms(message: Message, lent: dict[str, list[str]]) -> list[str]:
    """The terms of ``message``'s doc text (``fields.doc_text``): its text's (from ``lent`` when worked out already),
    then those of what its tool calls acted on. ``doc_text`` joins the two by a line's end, and a text's terms are
    those of its pieces between blanks, in order (``text.terms``), so they are the same terms as the whole's."""
    found = lent.pop(message.text, None)
    if found is None:
        found = text_terms(message.text)
    extra = acted_on(message)
    return found + text_terms("\n".join(extra)) if extra else found


def _derived_title(title: str, messages: list[Message]) -> bool:
    """A title cut from the first question, in whatever case, adds nothing to search but a second copy of it
    (counted twice, its words outranked better answers: coding benchmark reporting half R@1 83.9% -> 87.1%)."""
    first = next((m.text for m in messages if m.role == "user" and m.text.strip()), "")
    head = title.rstrip("…").strip().lower()
    return bool(head) and " ".join(first.split()).lower().startswith(head)


#: A run file's entry head: term length, whether it is a key, postings count; then the term and, for a key,
#: its docs (u32) and times (f64), for a word its packed postings (u64: doc << 16 | count).
_RUN_HEAD = struct.Struct("<IBI")
_NO_VALUES = array("d")
#: Postings kept in memory before they go to a run file: bounds a build's memory, whatever the segment's size.
RUN_DOCS = 50_000


#: A run file's entry of at least this many bytes is read only when its term is merged (``_RunEntry.arrays``):
#: every run's next entry waits in the merge, and a common word's, read there, would be its whole postings.
_EAGER_BYTES = 1 << 16
#: A word's (impact, doc) pair's impact: what its postings are sorted by (``_best``).
_IMPACT = itemgetter(0)
#: How many of a word's pairs its tail takes in at a time (``_tail``).
_TAIL_CHUNK = 65_536


class _RunEntry(NamedTuple):
    """A term's postings in one run file: read with its head when small, else where they are in the file."""

    term: bytes
    keyed: bool
    postings: int
    loaded: tuple[array, array] | None
    fd: int
    offset: int

    def arrays(self) -> tuple[array, array]:
        """The docs and values (none for a word: its counts are in its docs)."""
        if self.loaded is not None:
            return self.loaded
        docs, values = (array("I"), array("d")) if self.keyed else (array("Q"), array("d"))
        size = self.postings * docs.itemsize
        data = os.pread(self.fd, size + (self.postings * values.itemsize if self.keyed else 0), self.offset)
        docs.frombytes(data[:size])
        values.frombytes(data[size:])
        return docs, values


def _run_entries(run: BinaryIO) -> Iterator[_RunEntry]:
    """A run file's entries, in term order; a large entry's postings are skipped over, to be read by ``arrays``."""
    fd = run.fileno()
    while head := run.read(_RUN_HEAD.size):
        length, keyed, count = _RUN_HEAD.unpack(head)
        term = run.read(length)
        docs, values = (array("I"), array("d")) if keyed else (array("Q"), array("d"))
        size = count * docs.itemsize + (count * values.itemsize if keyed else 0)
        if size >= _EAGER_BYTES:
            yield _RunEntry(term, bool(keyed), count, None, fd, run.tell())
            run.seek(size, os.SEEK_CUR)
            continue
        docs.frombytes(run.read(count * docs.itemsize))
        values.frombytes(run.read(size - count * docs.itemsize))
        yield _RunEntry(term, bool(keyed), count, (docs, values), fd, 0)


def _best(pairs: Iterator[tuple[float, int]], kept: int | None) -> list[tuple[float, int]]:
    """``sorted(pairs, reverse=True)[:kept]`` (every pair when ``kept`` is None) of a word's (impact, doc) pairs
    given in descending doc order, each doc once.

    That order lets the sort compare impacts alone: a stable sort keeps the docs of equal impacts descending, as
    comparing pairs would (three times faster: a pair's comparison asks its impacts' equality first). With
    ``kept``, it holds ``kept`` and a chunk, not every posting of a word like "the": each chunk is sorted with
    the best so far (C's sort: ``heapq.nlargest`` loops in Python) and cut again; once ``kept`` are held, only
    what beats the last of them is sorted in (most of a common word's later postings don't; a later pair's
    doc is lower, so it beats the last only by its impact, and is sorted in after the held pairs of its impact).
    """
    if kept is None:
        return sorted(pairs, key=_IMPACT, reverse=True)
    best: list[tuple[float, int]] = []
    while chunk := list(islice(pairs, 4 * kept)):
        if len(best) == kept:
            chunk = list(filter(best[-1].__lt__, chunk))
        best = sorted(best + chunk, key=_IMPACT, reverse=True)[:kept]
    return best


def _merged_runs(runs: list[Path]) -> Iterator[tuple[bytes, bool, list[_RunEntry]]]:
    """Every term of the runs once, in order, with its entry in each run that has it (in run order: docs ascend)."""
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(run, "rb")) for run in runs]
        merged = heapq.merge(*map(_run_entries, files), key=attrgetter("term"))
        for term, group in groupby(merged, key=attrgetter("term")):
            entries = list(group)
            yield term, entries[0].keyed, entries


def _joined(entries: list[_RunEntry]) -> tuple[array, array]:
    """A term's docs and values from every run, in one array each."""
    docs, values = entries[0].arrays()
    for entry in entries[1:]:
        more_docs, more_values = entry.arrays()
        docs.extend(more_docs)
        values.extend(more_values)
    return docs, values


def _word_postings(pairs: list[tuple[float, int]], width: int) -> bytes:
    """A word's postings, best first, as ``format`` lays them out: its impact runs, then its docs."""
    if not pairs:
        return RUNS.pack(0)
    halves, lengths = _impact_runs(list(map(_IMPACT, pairs)))
    docs = _narrowed(array("I", map(itemgetter(1), pairs)).tobytes(), width)
    return RUNS.pack(len(halves)) + struct.pack(f"<{len(halves)}H", *halves) + lengths + docs


def _tail(impacts: Iterator[tuple[float, int]], head: list[tuple[float, int]], own: array) -> bytes:
    """A word's postings that its head (``head``: its best ``WORD_POSTINGS_KEPT``) leaves out, given in ascending doc
    order, as ``format`` lays them out after the head: each block's first doc and end (``TAIL_SKIP``), then the
    blocks of ``TAIL_BLOCK`` postings deflated (``_tail_block``). ``own``: each doc's own impact's float16 bits
    (``_own_impacts``).

    Doc order, so that a filtered search finds the postings of the docs it admits by halving the blocks' first docs
    (``Segment.tail``): a project's chats said a common word at impacts lower than the head's last, and a filter to
    that project found none of them. A posting is about a byte (a doc gap, and no impact when it is its doc's own,
    deflated), where a u16 doc and a float16 impact took 4 (11% of the index at 10k sessions). A chunk of pairs at a
    time, each block deflated as soon as it is whole: a common word's millions are never one list of tuples, nor
    held as docs and impacts (12 bytes a posting, 20 MB for a word of every doc of a part of a 100k build).
    """
    headed = set(map(itemgetter(1), head))
    docs, values = array("I"), array("d")
    size = layout.TAIL_BLOCK  # (read here, as the reader reads it: a test cuts blocks of a few postings)
    skips, blocks = bytearray(), bytearray()

    def cut(end: int) -> None:
        """Deflate the whole blocks among the first ``end`` postings held, and forget them."""
        for start in range(0, end, size):
            part = values[start : start + size]
            halves = array("H", struct.pack(f"<{len(part)}e", *part))
            gaps, flagged = _tail_block(docs[start : start + size], halves, own)
            blocks.extend(gaps)
            skips.extend(TAIL_SKIP.pack(docs[start], len(blocks), len(blocks) + len(flagged)))
            blocks.extend(flagged)
        del docs[:end], values[:end]

    while chunk := list(islice(impacts, _TAIL_CHUNK)):
        left = list(compress(chunk, map(not_, map(headed.__contains__, map(itemgetter(1), chunk)))))
        docs.extend(map(itemgetter(1), left))
        values.extend(map(_IMPACT, left))
        cut(len(docs) - len(docs) % size)
    cut(len(docs))
    return bytes(skips + blocks)


def _tail_block(docs: array, halves: array, own: array) -> tuple[bytes, bytes]:
    """One block of a word's tail as two deflated streams: its docs as gaps in bytes (a 255 adds 255 and names no
    doc); a byte a posting saying whether its impact is other than its doc's own (``halves`` against ``own``), then
    those impacts. (One stream of the three took 6% more bytes: their bytes are unlike.)"""
    steps = list(map(sub, docs, chain(docs[:1], docs)))  # (in C: most blocks have no gap of 255 or more)
    gaps = (
        bytes(steps) if max(steps) < 255 else b"".join(b"\xff" * (step // 255) + bytes((step % 255,)) for step in steps)
    )
    flags = bytes(map(ne, halves, map(own.__getitem__, docs)))
    return _deflated(gaps), _deflated(flags + array("H", compress(halves, flags)).tobytes())


def _deflated(raw: bytes | bytearray) -> bytes:
    """``raw`` as a raw deflate stream, at the most deflate does (a tail is small beside the records)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, WBITS)
    return packer.compress(raw) + packer.flush()


def _own_impacts(at_one: list[float], shapes: array) -> array:
    """Each doc's impact at a count of one (its shape's), as float16 bits: what most tail postings' impact is.

    Packed a chunk of docs at a time: packing every doc's float in one call took an argument a doc (a tuple of 8
    bytes a doc, and its copies as it grew: a brief 34 MB more in a part of a 100k build, its peak)."""
    own = array("H")
    for start in range(0, len(shapes), _TAIL_CHUNK):
        part = shapes[start : start + _TAIL_CHUNK]
        own.frombytes(struct.pack(f"<{len(part)}e", *map(at_one.__getitem__, part)))
    return own


def _own_table(own: array) -> bytes:
    """Each doc's own impact as ``format`` lays it at the end of postings.bin: how many distinct ones (a
    ``TAIL_GAPS``), they (float16 bits), each doc's among them (a byte, or 2 past 256 of them) deflated, and the
    length of it all. A segment's docs have a few hundred shapes: a code a doc deflates to 0.7 byte, where its
    float16 deflated took 0.9."""
    values = sorted(set(own))
    number = {value: code for code, value in enumerate(values)}
    codes = array("B" if len(values) <= 256 else "H", map(number.__getitem__, own))
    table = TAIL_GAPS.pack(len(values)) + array("H", values).tobytes() + _deflated(codes.tobytes())
    return table + TAIL_GAPS.pack(len(table))


def _impact_runs(impacts: list[float]) -> tuple[list[int], bytearray]:
    """Impacts sorted best first, as float16 runs: each run's impact (its float16's bits), and its length (at most
    ``MAX_RUN``)."""
    # Every impact is made float16 in one C call, and the bits are counted in C in the order met: equal ones are side
    # by side (sorted, and rounding keeps the order), so each one's count is its run. Counting the floats first, then
    # making each distinct one float16 and adding up those that round alike in Python, hashed every float (a float's
    # hash is worked out again each time) and took a Python step per distinct impact: 12 of a word's 16 at 1k sessions.
    runs: dict[int, int] = {}
    count_into(runs, memoryview(struct.pack(f"<{len(impacts)}e", *impacts)).cast("H"))
    if max(runs.values()) <= MAX_RUN:  # most words: no run to cut
        return list(runs), bytearray(runs.values())
    values, lengths = [], bytearray()
    for value, length in runs.items():
        for start in range(0, length, MAX_RUN):
            values.append(value)
            lengths.append(min(length - start, MAX_RUN))
    return values, lengths


def _narrowed(words: bytes, width: int) -> bytes:
    """Little-endian u32s in their low ``width`` bytes (each fits: ``format.doc_width``)."""
    out = bytearray(len(words) // 4 * width)
    for i in range(width):
        out[i::width] = words[i::4]
    return bytes(out)


def session_row(ordinal: int, *fields: int | float) -> bytes:
    """Session ``ordinal``'s row of sessions.idx: ``SESSION_ROW``'s ``fields``, and in its three padding bytes what
    brings the row's CRC-32, begun from its ordinal (``format.row_crc``), below ``ROW_CRC_BELOW``, which every read of
    the row checks (format 24). A CRC is linear: a row's CRC with padding is its CRC with none XOR what that padding
    alone flips, whatever the CRC was begun from, and each bit of the padding that flips one bit of the CRC's top 24
    is known (``_PADDING_FLIPPING``)."""
    row = SESSION_ROW.pack(*fields)
    padding, above = 0, row_crc(row, ordinal) >> _KEPT_BITS
    for bit, flipping in enumerate(_PADDING_FLIPPING):
        if above >> bit & 1:
            padding ^= flipping
    return row[:ROW_CHECK_AT] + padding.to_bytes(3, "little") + row[ROW_CHECK_AT + 3 :]


def _padding_flipping() -> tuple[int, ...]:
    """For each of the 24 bits above ``ROW_CRC_BELOW`` of a row's CRC-32, the padding (bytes 21 to 23 as a number)
    that flips that bit alone: what each padding bit flips, solved for single bits by Gaussian elimination over
    GF(2) (24 bits onto 24: one to one at that place of the row; a KeyError here if a layout made it not)."""
    empty = bytes(SESSION_ROW.size)

    def flips(padding: int) -> int:
        row = empty[:ROW_CHECK_AT] + padding.to_bytes(3, "little") + empty[ROW_CHECK_AT + 3 :]
        return (zlib.crc32(row) ^ zlib.crc32(empty)) >> _KEPT_BITS

    found: dict[int, tuple[int, int]] = {}  # by the highest bit it flips: (the bits it flips, the padding)
    for bit in range(24):
        flipped, padding = flips(1 << bit), 1 << bit
        for top in sorted(found, reverse=True):
            if flipped >> top & 1:
                flipped, padding = flipped ^ found[top][0], padding ^ found[top][1]
        found[flipped.bit_length() - 1] = (flipped, padding)
    for top in sorted(found):  # (each left flipping its highest bit alone, the lower ones first)
        flipped, padding = found[top]
        for low in range(top):
            if flipped >> low & 1:
                flipped, padding = flipped ^ found[low][0], padding ^ found[low][1]
        found[top] = (flipped, padding)
    return tuple(found[bit][1] for bit in range(24))


#: The bits of a row's CRC-32 below ``ROW_CRC_BELOW``, which its padding leaves as they fall.
_KEPT_BITS = ROW_CRC_BELOW.bit_length() - 1
_PADDING_FLIPPING = _padding_flipping()


class _SegmentFile:
    """A segment file being written: 0600, its size and CRC-32 kept as it grows, on disk before it is named."""

    def __init__(self, path: Path):
        self.name = path.name
        self._file = open_private(path, "wb")
        self.size = 0
        self.crc = 0

    def write(self, data: bytes | bytearray) -> None:
        self._file.write(data)
        self.size += len(data)
        self.crc = zlib.crc32(data, self.crc)

    def done(self) -> FileSum:
        """Everything is written: handed to the system (the manifest naming it syncs it), and its size and CRC-32."""
        self._file.flush()
        return FileSum(self.size, self.crc)

    def fileno(self) -> int:
        return self._file.fileno()

    def close(self) -> None:
        self._file.close()

    def discard(self) -> None:
        _thrown_away(self._file)


def _opened(folder: Path, names: Iterable[str]) -> list[_SegmentFile]:
    """A segment's files ``names`` in ``folder``, opened, or none: an open that fails (too many files open, a used-up
    quota of inodes) closes those opened before it, which nothing else holds to close (review55b W3)."""
    files: list[_SegmentFile] = []
    try:
        for name in names:
            files.append(_SegmentFile(folder / name))
    except BaseException:
        for out in files:
            out.discard()
        raise
    return files


def _close(files: list[_SegmentFile]) -> None:
    """Close a segment's files, written and handed to the system but not synced: the manifest that names the
    segment syncs them with its own in one wait (``driver._swap``), where a sync here waited once more."""
    for out in files:
        out.close()
    for _ in files:
        faults.point("segment-file")


def _thrown_away(file: IO[Any]) -> None:
    """Close ``file`` of a segment being removed, what its buffer holds lost with it. A write that failed (a
    file-size limit, a full disk) fails again as the buffer is flushed on closing, and the file is closed all the
    same: raised, it stopped the closing of the segment's other files, and each failed again as the process exited
    (``Exception ignored in: <_io.BufferedWriter …>`` after the error's line, on Python 3.13)."""
    with contextlib.suppress(OSError):
        file.close()


#: Docs whose lengths and kinds are held in memory before they go to their files.
_DOC_CHUNK = 1 << 16


class _DocFiles:
    """A segment's per-doc lengths (u32) and kinds (u8), written as they come and read back a chunk at a time
    by the final merge: a writer holds no array that grows with its docs but the shapes it merges with."""

    def __init__(self, segment: Path):
        self._paths = (segment / "doc-lengths.tmp", segment / "doc-kinds.tmp")
        #: Opened by the first ``write``: a segment of fewer than ``_DOC_CHUNK`` docs (a refresh after a turn)
        #: never makes them.
        self._files: list[IO[Any]] = []
        self.count = 0

    def write(self, lengths: array, kinds: array) -> None:
        """Append ``lengths`` and ``kinds`` to their files and empty them."""
        if not self._files:
            self._open()
        self.count += len(kinds)
        for values, out in zip((lengths, kinds), self._files, strict=True):
            values.tofile(out)
            del values[:]

    def _open(self) -> None:
        """Both files, or neither: the first is closed when the second cannot be opened (as ``_opened``)."""
        try:
            for path in self._paths:
                self._files.append(open_private(path, "wb"))
        except BaseException:
            self.discard()
            self._files = []
            raise

    def chunks(self) -> Iterator[tuple[array, array]]:
        """The lengths and kinds written, in order, ``_DOC_CHUNK`` docs at a time."""
        for out in self._files:
            out.flush()
        with open(self._paths[0], "rb") as lengths, open(self._paths[1], "rb") as kinds:
            while data := lengths.read(_DOC_CHUNK * 4):
                yield array("I", data), array("B", kinds.read(len(data) // 4))

    def close(self) -> None:
        for out in self._files:
            out.close()

    def discard(self) -> None:
        """Close the files of a segment being removed (``_thrown_away``)."""
        for out in self._files:
            _thrown_away(out)

    def remove(self) -> None:
        self.close()
        for path in self._paths if self._files else ():
            path.unlink()


class _Held(NamedTuple):
    """A session waiting for its segment's dictionaries: its records and meta (msgpack) and its ``sessions.idx``
    row but for where those two go (project and directory hashes, source, time updated, first doc)."""

    records: bytes
    meta: bytes
    row: tuple[int, int, int, float, int]


class SegmentWriter:
    """Builds one segment from sessions given in order; ``finish`` writes it to disk."""

    def __init__(self, parent: Path):
        self.name = f"seg-{time.strftime('%Y%m%d%H%M%S')}-{os.urandom(4).hex()}"
        self.path = parent / self.name
        private_dir(parent)
        os.mkdir(self.path, DIR_MODE)
        os.chmod(self.path, DIR_MODE)
        # They stay open across add() calls until finish(); a context manager cannot span them. Every file a
        # session's rows go to is written as it comes: a writer holds no per-doc or per-session rows but two arrays.
        # One that cannot be opened leaves no folder (no writer is made, whose ``abandon`` would remove it).
        try:
            files = _opened(self.path, ("records.bin", "sessions.bin", "docs.bin", "sessions.idx", "dicts.bin"))
        except BaseException:
            remove_segment_folder(self.path)
            raise
        self._records, self._sessions, self._docs, self._session_idx, self._dict_file = files
        self._doc_rows = bytearray()  # the session's doc rows, written to docs.bin together when it is added
        self._held: list[_Held] = []
        #: What deflates a session's meta and records against the segment's dictionary, once made (``_write_held``)
        self._deflate: Callable[[bytes, bytes], tuple[bytes, bytes]] | None = None
        self._record_off = 0
        self._session_off = 0
        self._rows_written = 0  # (the ordinal of the next row: ``session_row`` binds each to its place)
        #: The latest docs' lengths and kinds; every ``_DOC_CHUNK`` docs they go to their files (``_DocFiles``).
        self._doc_lengths = array("I")
        self._doc_kinds = array("B")
        self._doc_files = _DocFiles(self.path)
        #: term -> its postings so far, each doc << 16 | its count in the doc (one array per term: memory is per posting).
        self._tf: dict[str, array] = {}
        self._keyed: dict[str, tuple[array, array]] = {}
        #: Postings already written out (``_spill``), merged by ``finish``; the first doc not in them.
        self._runs: list[Path] = []
        self._run_start = 0
        self._sessions_added = 0
        self.message_count = 0

    @property
    def session_count(self) -> int:
        return self._sessions_added

    @property
    def doc_count(self) -> int:
        return self._doc_files.count + len(self._doc_kinds)

    def _add_doc(self, ordinal: int, kind: int, span: tuple[int, int], found: list[str]) -> None:
        """Add a doc whose message is at ``span`` (start, end) of its session's records once inflated, and whose
        text's terms are ``found``."""
        doc = self.doc_count
        self._doc_rows += DOC_ROW.pack(ordinal | kind << KIND_SHIFT, *span)
        self._doc_lengths.append(len(found))
        self._doc_kinds.append(kind)
        tf = self._tf
        counts: dict[str, int] = {}
        count_into(counts, found)
        # One posting per term (the build's busiest loop): a plain loop, which Python 3.11 specialises, is a quarter
        # faster than the chain of maps it replaced (0.32 against 0.47 s for a 3k build's 1.5M postings), and finds
        # a new term's array in the same lookup.
        at = doc << 16
        for term, count in counts.items():
            postings = tf.get(term)
            if postings is None:
                postings = tf[term] = array("Q")
            postings.append(at | (count if count <= 0xFFFF else 0xFFFF))

    def _add_key(self, key: str, doc: int, when: float) -> None:
        entry = self._keyed.get(key)
        if entry is None:
            # Exact times (float64) so newest-first order is exact; the posting stores them as float32 days.
            entry = self._keyed[key] = (array("I"), array("d"))
        entry[0].append(doc)
        entry[1].append(when / 86400)

    def _add_tool_keys(self, doc: int, message: Message, when: float, project_dir: str) -> None:
        for call in message.tool_calls:
            if call.name in keys.SHELL_TOOLS:
                command = call.args.get("command")
                if isinstance(command, str):
                    for key in keys.command_keys(command):
                        self._add_key(key, doc, when)
                if call.exit_code and call.result:
                    for key in keys.error_keys(call.result, command if isinstance(command, str) else ""):
                        self._add_key(key, doc, when)
            elif call.name in keys.EDIT_TOOLS:
                for path in filed_paths(call.args, project_dir):
                    self._add_key(keys.path_key(path), doc, when)

    def add(self, meta: SessionMeta, messages: list[Message], lent: dict[str, list[str]] | None = None) -> None:
        """Add a session whose messages are already redacted and capped; ``lent``: terms of some of their texts,
        worked out already (``text.lent_terms``)."""
        lent = lent or {}
        ordinal = self.session_count
        meta.first_doc = self.doc_count
        encode = msgspec.msgpack.encode
        updated = meta.updated.timestamp() if meta.updated else 0.0
        raw = bytearray()  # the session's records, msgpack back to back, compressed below as one block
        # Field docs come after the session's messages and title, so a range of its message docs holds messages only.
        fields: list[tuple[tuple[int, int], int, str]] = []
        days: set[object] = set()
        for message in messages:
            kind = KIND_USER if message.role == "user" else KIND_ASSISTANT
            doc = self.doc_count
            span = (len(raw), len(raw) + len(record := encode(stored(message))))
            raw += record
            self._add_doc(ordinal, kind, span, _doc_terms(message, lent))
            written = message.timestamp or meta.started or meta.updated  # (an old Chat tab knows its last time only)
            if written is not None and written.tzinfo is not None:
                # A transcript's stamp keeps the offset it was written in; the index files UTC days, which is what
                # dates.local_period reads for a day the person names (trialN F1: 01:30 at UTC+12 was the next day).
                written = written.astimezone(UTC)
            if written is not None and written.date() not in days:  # each day's first message carries its date
                days.add(written.date())
                for key in date_keys(written):
                    self._add_key(key, doc, written.timestamp())
            if message.tool_calls:
                when = message.timestamp.timestamp() if message.timestamp else updated
                self._add_tool_keys(doc, message, when, meta.project_dir)
                fields.extend((span, field, text) for field, text in field_texts(message).items())
        self._add_key(keys.ALL_SESSIONS_KEY, meta.first_doc, updated)
        for place in {meta.project_dir, meta.project} - {""}:
            self._add_key(keys.project_key(place), meta.first_doc, updated)
        for key in keys.tree_keys(meta.project_dir):
            self._add_key(key, meta.first_doc, updated)
        if meta.title and not _derived_title(meta.title, messages):
            span = (len(raw), len(raw) + len(record := encode(StoredMessage("user", meta.title))))
            raw += record
            self._add_doc(ordinal, KIND_TITLE, span, text_terms(meta.title))
        meta.n_docs = self.doc_count - meta.first_doc
        meta.messages = len(messages)
        for span, field, text in fields:
            self._add_doc(ordinal, field, span, text_terms(text))
        self.message_count += len(messages)
        self._docs.write(self._doc_rows)
        self._doc_rows.clear()
        row = (
            name_hash(meta.project),
            name_hash(meta.project_dir),
            SOURCE_CODES.get(meta.source, 0),
            updated,
            meta.first_doc,
        )
        self._store(_Held(bytes(raw), encode(meta), row))
        self._add_key(keys.session_key(meta.id), meta.first_doc, updated)
        self._sessions_added += 1
        self._spill_if_full()
        faults.point("segment-session")

    def _store(self, held: _Held) -> None:
        """Write a session's meta and records, deflated, once the segment's dictionary is made from its first
        ``DICT_SESSIONS`` sessions (they are held until then)."""
        if self._deflate is not None:
            self._write_session(held, self._deflate)
            return
        self._held.append(held)
        if len(self._held) >= DICT_SESSIONS:
            self._write_held(with_dicts=True)

    def _write_held(self, with_dicts: bool) -> None:
        """Make the dictionary (``format.dictionary``) of the held sessions, or none, and write those sessions."""
        metas, records = (b"".join(held.meta for held in self._held), b"".join(held.records for held in self._held))
        zdict = dictionary(metas, records) if with_dicts else b""
        self._dict_file.write(zdict)
        self._deflate = deflater(zdict)
        for held in self._held:
            self._write_session(held, self._deflate)
        self._held.clear()

    def _write_session(self, held: _Held, deflate: Callable[[bytes, bytes], tuple[bytes, bytes]]) -> None:
        record, block = deflate(held.meta, held.records)
        self._records.write(block)
        self._sessions.write(record)
        project, directory, source, updated, first_doc = held.row
        self._session_idx.write(
            session_row(
                self._rows_written,
                self._session_off,
                len(record),
                project,
                directory,
                source,
                updated,
                self._record_off,
                len(block),
                first_doc,
                *stream_checks(record, block),
            )
        )
        self._session_off += len(record)
        self._record_off += len(block)
        self._rows_written += 1

    def _spill(self) -> None:
        """Write the postings gathered so far to a run file, sorted by term, and forget them: memory stays bounded."""
        if not self._tf and not self._keyed:
            return
        path = self.path / f"run-{len(self._runs)}.tmp"
        with open_private(path, "wb") as out:
            for encoded, keyed, docs, values in self._gathered():
                out.write(_RUN_HEAD.pack(len(encoded), keyed, len(docs)))
                out.write(encoded)
                out.write(docs.tobytes())
                out.write(values.tobytes())
        self._runs.append(path)
        self._tf.clear()
        self._keyed.clear()

    def _gathered(self) -> Iterator[tuple[bytes, bool, array, array]]:
        """The postings gathered since the last spill, by term in order: (term, whether a key, docs, values)."""
        for term in sorted(self._tf.keys() | self._keyed.keys()):
            keyed = term in self._keyed
            docs, values = self._keyed[term] if keyed else (self._tf[term], _NO_VALUES)
            yield term.encode("utf-8"), keyed, docs, values

    def _in_memory(self) -> Iterator[tuple[bytes, bool, list[_RunEntry]]]:
        """What ``_merged_runs`` gives for one run, from the postings in memory: a segment that never spilled
        (every small refresh's) writes no run file to read back."""
        for encoded, keyed, docs, values in self._gathered():
            yield encoded, keyed, [_RunEntry(encoded, keyed, len(docs), (docs, values), -1, 0)]

    def _spill_if_full(self) -> None:
        """Called after each session: past ``RUN_DOCS`` docs in memory, they go to a run file (and past
        ``_DOC_CHUNK``, their lengths and kinds to theirs)."""
        if len(self._doc_kinds) >= _DOC_CHUNK:
            self._doc_files.write(self._doc_lengths, self._doc_kinds)
        if self.doc_count - self._run_start >= RUN_DOCS:
            self._spill()
            self._run_start = self.doc_count

    def finish(self) -> SegmentRef:
        if self._deflate is None:
            self._write_held(with_dicts=False)
        files = {name: out.done() for name, out in self._open_files().items()}
        if self._runs:
            self._spill()
        merged = _merged_runs(self._runs) if self._runs else self._in_memory()
        forget_cached_terms()
        doc_count = self.doc_count
        chunks = self._doc_chunks()
        # The shapes replace the lengths and the kinds: 2 bytes a doc (4 past 65,536 shapes) while the runs merge,
        # where a length factor per doc took 8.
        shapes, weights, norm = _doc_shapes(chunks)
        k1_plus_1 = K1 + 1
        # A shape's impact at a count of one (most postings: 77% at 1k sessions), worked out as the loop below
        # works out any count's, so it is the same float.
        at_one = [weight * 1 * k1_plus_1 / (1 + factor) for weight, factor in zip(weights, norm, strict=True)]
        kept = WORD_POSTINGS_KEPT if doc_count > WHOLE_LISTS_DOCS else None

        def impacts_of(entries: list[_RunEntry], last_first: bool = True) -> Iterator[tuple[float, int]]:
            """A word's (impact, doc) pairs, last doc first (the order ``_best`` sorts them from), or first doc first
            (the order of its tail)."""
            postings = (
                chain.from_iterable(reversed(entry.arrays()[0]) for entry in reversed(entries))
                if last_first
                else chain.from_iterable(entry.arrays()[0] for entry in entries)
            )
            # Inlined (each posting is doc << 16 | tf): this runs once per posting of the segment.
            return (
                (
                    at_one[shapes[d := p >> 16]]
                    if p & 0xFFFF == 1
                    else weights[s := shapes[d := p >> 16]] * (t := p & 0xFFFF) * k1_plus_1 / (t + norm[s]),
                    d,
                )
                for p in postings
            )

        width = doc_width(doc_count)
        own = array("H")  # each doc's own impact, made when a first word has a tail
        written = _opened(self.path, ("postings.bin", "terms.bin", "terms.idx"))
        postings, terms, term_idx = written
        try:
            # A word's postings are read a run at a time as its impacts are made (a common word's are millions).
            for encoded, keyed, entries in merged:
                packed: bytes | bytearray
                if keyed:
                    docs, values = _joined(entries)
                    pairs = sorted(zip(values, docs, strict=True), reverse=True)
                    packed = bytearray(len(pairs) * KEYED_POSTING.size)
                    for i, (when, doc) in enumerate(pairs):
                        KEYED_POSTING.pack_into(packed, i * KEYED_POSTING.size, doc, when)
                else:
                    pairs = _best(impacts_of(entries), kept)
                    packed = _word_postings(pairs, width)
                encoded = encoded[:65535]
                holding = sum(entry.postings for entry in entries)
                if not keyed and len(pairs) < holding:
                    own = own or _own_impacts(at_one, shapes)
                    packed += _tail(impacts_of(entries, last_first=False), pairs, own)
                term_idx.write(term_row(terms.size, len(encoded), postings.size, len(pairs), holding))
                terms.write(encoded)
                postings.write(packed)
            if own:  # each doc's own impact, for the tails' postings that have it
                postings.write(_own_table(own))
            files.update((out.name, out.done()) for out in written)
            _close([*self._open_files().values(), *written])  # (one that fails leaves these three to the except)
        except BaseException:
            for out in written:  # (the segment's other files are the caller's to discard: ``abandon``)
                out.discard()
            raise
        for run in self._runs:
            run.unlink()
        self._doc_files.remove()
        return SegmentRef(
            name=self.name,
            sessions=self.session_count,
            docs=doc_count,
            messages=self.message_count,
            files=files,
        )

    def _doc_chunks(self) -> Callable[[], Iterator[tuple[array, array]]]:
        """Every doc's lengths and kinds, a chunk at a time: from their files once a chunk went there, else the
        arrays in memory."""
        if self._doc_files.count:
            self._doc_files.write(self._doc_lengths, self._doc_kinds)
            return self._doc_files.chunks
        held = (self._doc_lengths, self._doc_kinds)
        return lambda: iter([held])

    def _open_files(self) -> dict[str, _SegmentFile]:
        files = (self._records, self._sessions, self._docs, self._session_idx, self._dict_file)
        return {out.name: out for out in files}

    def abandon(self) -> None:
        for out in self._open_files().values():
            out.discard()
        self._doc_files.discard()
        remove_segment_folder(self.path)


def _doc_shapes(chunks: Callable[[], Iterator[tuple[array, array]]]) -> tuple[array, list[float], list[float]]:
    """Each doc's shape (its kind and length: few of them, whatever the number of docs), and each shape's
    kind weight and BM25 length factor: a field kind against its own average length, messages and titles together.

    A doc's factor is its shape's, computed as it would be for the doc itself, so the impacts are the same as
    with a factor per doc, at 2 bytes a doc instead of 8 while a big segment's postings merge. The docs' lengths
    and kinds are read twice from their files, a chunk at a time (``chunks``): to count each shape's docs, then
    to number each doc's shape.
    """
    # Each shape's docs, counted in C, the shapes in the order first met: what numbers them.
    counts: dict[tuple[int, int], int] = {}
    for lengths, kinds in chunks():
        count_into(counts, zip(kinds, lengths, strict=True))
    totals: dict[int, list[int]] = {}
    for (kind, dl), docs in counts.items():
        group = totals.setdefault(kind if kind not in MESSAGE_KINDS and kind != KIND_TITLE else -1, [0, 0])
        group[0] += dl * docs
        group[1] += docs
    average = {group: (total / count) or 1.0 for group, (total, count) in totals.items()}
    numbered = {shape: number for number, shape in enumerate(counts)}
    shapes = array("H" if len(numbered) <= 0x10000 else "I")
    for lengths, kinds in chunks():
        shapes.extend(map(numbered.__getitem__, zip(kinds, lengths, strict=True)))
    # Lists, not arrays: the merge reads a shape's weight and factor once a posting, and an array makes a new float
    # of its double at each read, where a list hands over the one it holds (the same value).
    weights = [float(KIND_WEIGHT[kind]) for kind, _ in numbered]
    norm = [
        K1 * (1 - B + B * dl / average[kind if kind not in MESSAGE_KINDS and kind != KIND_TITLE else -1])
        for kind, dl in numbered
    ]
    return shapes, weights, norm


#: How long a segment no manifest names stays on disk: a reader that has just read the previous manifest
#: maps its segments well within this, and one that is slower retries on the newest manifest.
SEGMENT_GRACE_SECONDS = 60.0


def retire_segments(directory: Path, previous: Iterable[str], live: Iterable[str]) -> None:
    """Start the grace period of the segments the next manifest drops (a folder's time says when it was dropped)."""
    for name in set(previous) - set(live):
        with contextlib.suppress(OSError):
            os.utime(directory / name)


def remove_segments(directory: Path, names: Iterable[str]) -> None:
    """Delete segments no manifest has named yet (a build whose result is not kept): no reader can have them."""
    for name in names:
        remove_segment_folder(directory / name)


def remove_stale_segments(directory: Path, live: Iterable[str], grace_seconds: float = SEGMENT_GRACE_SECONDS) -> None:
    """Delete what no manifest names once its grace period is over: retired segments, a killed build's strays."""
    remove_left(stale_segments(directory, live, grace_seconds))


def stale_segments(directory: Path, live: Iterable[str], grace_seconds: float = SEGMENT_GRACE_SECONDS) -> list[str]:
    """The paths of what no manifest names (``live``: what the manifest on disk names) whose grace period is over:
    retired segments, a killed build's strays, found under the writer lock (``remove_left`` may delete them once
    it is let go: no writer adopts a name, and no reader's manifest names them)."""
    keep = set(live)
    now = time.time()
    try:
        with os.scandir(directory) as found:
            children = [entry for entry in found if entry.name not in keep and _segment_or_temporary(entry.name)]
    except OSError:
        return []
    stale = []
    for child in children:
        try:
            if now - child.stat(follow_symlinks=False).st_mtime > grace_seconds:
                stale.append(child.path)
        except OSError:
            pass
    return stale


def remove_left(paths: Iterable[str]) -> None:
    """Delete each of ``paths``: a segment's folder with its files, or a file (errors ignored: another sweep may
    have been first)."""
    for path in paths:
        try:
            if S_ISDIR(os.lstat(path).st_mode):
                remove_segment_folder(Path(path))
            else:
                os.unlink(path)
        except OSError:
            pass


def segments_and_temporaries(directory: Path) -> set[str]:
    """The names of the index folder's segments and temp files (none when it cannot be listed)."""
    try:
        return {name for name in os.listdir(directory) if _segment_or_temporary(name)}
    except OSError:
        return set()


def remove_failed_writes(directory: Path, before: set[str], live: Iterable[str]) -> None:
    """Delete the segments and temps a failed refresh wrote (not in ``before``, named by no manifest: ``live``
    is what the manifest now on disk names). A disk that filled up would keep each failed try's half-written
    segment until a later refresh's sweep, and each try would eat more of what room is left. Called under the
    writer lock: no other writer made them, and no reader has a manifest naming them."""
    for name in segments_and_temporaries(directory) - before - set(live):
        if name.startswith("seg-"):
            remove_segment_folder(directory / name)
        else:
            with contextlib.suppress(OSError):
                os.unlink(directory / name)


def _segment_or_temporary(name: str) -> bool:
    """A segment's folder (``seg-*``) or a temp file (``.*.tmp``), as ``glob`` would match them (without its
    pattern compiled)."""
    return name.startswith("seg-") or (name.startswith(".") and name.endswith(".tmp") and len(name) >= 5)


def remove_segment_folder(folder: Path) -> None:
    """Delete a segment's folder and its files, whatever is left of it (errors ignored, as ``shutil.rmtree``'s
    ``ignore_errors``). A segment's folder holds files only: emptied by hand, without importing ``shutil`` (with
    ``bz2`` and ``lzma``, about 2 ms), which a sweep pays whenever a retired segment's grace has ended;
    anything else in it (a folder someone put there) is left to ``shutil``. Where the system can, the folder is
    opened without following a symlink and emptied through that descriptor, so a link put in its place between a
    check and the removal is never followed (``rmtree`` refuses one too)."""
    try:
        if os.name == "nt" or not hasattr(os, "O_NOFOLLOW"):  # (no folder descriptors there)
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
            return
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            _empty(handle)
        finally:
            os.close(handle)
        os.rmdir(folder)
    except IsADirectoryError:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    except OSError:
        return


def _empty(handle: int) -> None:
    """Unlink every file of the folder open as ``handle``; a folder inside it raises IsADirectoryError."""
    with os.scandir(handle) as found:
        for entry in found:
            if entry.is_dir(follow_symlinks=False):
                raise IsADirectoryError(entry.name)
            os.unlink(entry.name, dir_fd=handle)
