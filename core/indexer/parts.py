"""Reading a plan's chats and writing them into new segments: on every core when there are many.

A full build of a large history is CPU work per chat (reading, redacting,
tokenising) with nothing shared between chats, so the plan is cut by chat id
into one part per core (``deja.core.parallel``); each part writes segments of
its own and sends back only what the refresh records. A small refresh stays in
one process, where forking would cost more than it saves.
"""

import contextlib
import gc
import os
import struct
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from ..bookkeeping import Bookkeeping, ChatState, Location, shard_of
from ..index import Index, SegmentRef
from ..lean_msgspec import msgspec
from ..private import open_private
from ..readers import Projects
from ..readers.projects import CWD_CACHE
from .plan import Plan
from .reads import Placements, Unread, read_changes
from .records import NewSegments

#: A plan reading at least this many chats is split over the cores.
PARALLEL_MIN_CHATS = 400
MAX_WORKERS = 4
#: A part sends its chats' records to its spill file every this many chats: its memory does not grow with them.
SPILL_EVERY = 2048
#: A spill file frame's head: the bookkeeping shard its chats are recorded in, and its length.
_FRAME = struct.Struct("<BI")


class Written(msgspec.Struct):
    """What reading and writing (a part of) a plan gave: new segments, where each session went, what to record."""

    segments: list[SegmentRef] = []
    where: dict[str, Location] = {}
    #: Every chat read, empty ones included: what the bookkeeping records of it (``where`` is set later).
    chats: dict[str, ChatState] = {}
    unread: Unread = msgspec.field(default_factory=Unread)
    #: Problems counted on the way (a part's own, added to the refresh's).
    problems: dict[str, int] = {}
    #: The parts' files of the ``where`` and ``chats`` they wrote out on the way (``_Spill``), read back by the parent.
    spilled: list[str] = []

    def shards(self) -> Iterator[tuple[int, dict[str, Location], dict[str, ChatState]]]:
        """``where`` and ``chats``, spilled or not, one bookkeeping shard at a time, in shard order.

        A big build's parent holds one shard's records at a time, not a record of every chat; the spill files
        are removed once read.
        """
        frames = _frames(self.spilled)
        held = _by_shard(self.where, self.chats)
        with contextlib.ExitStack() as stack:
            files = {path: stack.enter_context(open(path, "rb")) for path in self.spilled}
            for number in sorted(frames.keys() | held.keys()):
                records = held.pop(number, _Records({}, {}))
                for path, offset, length in frames.get(number, []):
                    files[path].seek(offset)
                    more = _RECORDS.decode(files[path].read(length))
                    records.where.update(more.where)
                    records.chats.update(more.chats)
                yield number, records.where, records.chats
        for path in self.spilled:
            os.unlink(path)


class _Records(msgspec.Struct):
    """The ``where`` and ``chats`` of some chats of one bookkeeping shard, as a spill file frame holds them."""

    where: dict[str, Location]
    chats: dict[str, ChatState]


#: A spill file frame's decoder, made once at import (see ``index.records._MANIFEST``).
_RECORDS = msgspec.msgpack.Decoder(_Records)


def _by_shard(where: dict[str, Location], chats: dict[str, ChatState]) -> dict[int, _Records]:
    """``where`` and ``chats`` cut by the bookkeeping shard each chat is recorded in."""
    cut: dict[int, _Records] = {}
    for sid, chat in chats.items():
        records = cut.setdefault(shard_of(sid), _Records({}, {}))
        records.chats[sid] = chat
        if sid in where:
            records.where[sid] = where[sid]
    return cut


class _Spill:
    """A part's ``where`` and ``chats`` written to a file as they grow, so a part of a big build holds a batch of them.

    Each batch goes as one frame per bookkeeping shard, so the parent records the chats a shard at a time
    (``Written.shards``). The file is named as every temp of the index is (``.<name>.<pid>.tmp``), so a killed
    build's is swept.
    """

    def __init__(self, directory: Path, number: int):
        self.path = directory / f".part-{number}.{os.getpid()}.tmp"
        self._file = open_private(self.path, "wb")

    def write(self, out: Written, writer: NewSegments) -> None:
        """Send what ``out`` and ``writer`` hold of the chats so far to the file, and forget it."""
        for number, records in sorted(_by_shard(writer.where, out.chats).items()):
            data = msgspec.msgpack.encode(records)
            self._file.write(_FRAME.pack(number, len(data)) + data)
        writer.where, out.chats = {}, {}
        from .. import parallel  # a spill is a part's: multiprocessing is imported already

        gc.collect()  # the part's only collection (``_collect_at_spills``)
        parallel.release_free_memory()

    def close(self) -> None:
        self._file.close()


def _frames(paths: list[str]) -> dict[int, list[tuple[str, int, int]]]:
    """Where each shard's frames are in the spill files: shard -> (file, offset, length), in the order written."""
    found: dict[int, list[tuple[str, int, int]]] = {}
    for path in paths:
        with open(path, "rb") as spill:
            while head := spill.read(_FRAME.size):
                number, length = _FRAME.unpack(head)
                found.setdefault(number, []).append((path, spill.tell(), length))
                spill.seek(length, os.SEEK_CUR)
    return found


def write_changes(
    plan: Plan,
    book: Bookkeeping,
    index: Index | None,
    problems: Counter[str],
    directory: Path,
    progress: Callable[[int, int], None] | None,
    redacting: bool,
    placements: Placements,
) -> Written:
    """Read and write what the plan names: on every core when it is big enough, else in this process; redacted or
    not as ``redacting`` says (decided once per refresh: what its manifest records); a chat read with no project
    keeps the one ``placements`` says the index had placed it in."""
    projects = Projects.of_this_machine(problems, cwd_cache=directory / CWD_CACHE)
    total = plan.chats_to_read()
    done = 0

    def report(chats: int) -> None:
        nonlocal done
        done += chats
        if progress:
            progress(done, total)

    workers = _workers(total)
    if workers < 2:
        return _write_part(plan, book, index, problems, projects, placements, directory, report, redacting)
    from .. import parallel

    parts = _split(plan, workers)
    # Every chat the plan reads is handed to its part in a file, so the parts, forked below, do not start with a
    # copy of every chat of the history (the editor's ids are 10 MiB at 100k chats), nor does this process hold
    # one while they work; each part reads back its own.
    plan.cli_reads, plan.ide_reads, plan.owners = {}, {}, {}
    for number, part in enumerate(parts):
        part.move_reads(directory / f".reads-{number}.{os.getpid()}.tmp")

    def work(number: int, tell: Callable[[int], None]) -> Written:
        _collect_at_spills()
        parts[number].load_ide_reads()
        before = Counter(problems)
        spill = _Spill(directory, number)
        written = _write_part(
            parts[number], book, index, problems, projects, placements, directory, tell, redacting, spill
        )
        written.problems = dict(Counter(problems) - before)
        return written

    # A part that fails stops the others; what they wrote is named by no manifest and goes as a killed build's would.
    try:
        return _joined(parallel.run_parts(work, workers, report), problems)
    finally:
        for part in parts:
            os.unlink(part.reads_file)


def _collect_at_spills() -> None:
    """Have this part's garbage collector run only when it spills (``_Spill.write``), over its own objects.

    What a part allocates (messages, postings, the final merge's pairs) is freed by reference counting; the
    collector, run every 700 allocations, walked the young ones again and again, and now and then every object
    the part held (its caches): about 3% of a part's CPU at 10k sessions. What the part inherited from the
    builder is frozen, never walked; a cycle made on the way is freed at the next spill, every ``SPILL_EVERY`` chats.
    """
    gc.freeze()
    gc.disable()


def _workers(total: int) -> int:
    """How many processes write a plan of ``total`` chats: one for a small one (without even importing
    multiprocessing, ~6 ms of a refresh after one turn), else one per core up to ``MAX_WORKERS``."""
    if total < PARALLEL_MIN_CHATS:
        return 1
    from .. import parallel

    return min(parallel.cores(), MAX_WORKERS) if parallel.can_fork() else 1


def _write_part(
    plan: Plan,
    book: Bookkeeping,
    index: Index | None,
    problems: Counter[str],
    projects: Projects,
    placements: Placements,
    directory: Path,
    report: Callable[[int], None],
    redacting: bool,
    spill: _Spill | None = None,
) -> Written:
    """Read what ``plan`` names and write it into new segments (a writer's memory stays bounded as they grow).

    With a ``spill`` (a part of a parallel build), the chats' records go to its file as they grow. A chat read
    with no project keeps the one ``placements`` says the index had placed it in.
    """
    out = Written()
    writer = NewSegments(directory, redacting)
    # The editor's chats not read yet, forgotten as they are read. A set of the editor chats read besides held a
    # part's share of the history's editor ids to the final merge, in strings of its own (3.6 MiB at 100k sessions).
    ide_unread = set().union(*plan.ide_reads.values())
    try:
        for read in read_changes(plan, book, index, problems, out.unread, projects):
            if read.session is not None:  # read as empty: recorded, not indexed
                writer.add(placements.keep(projects.settle(read.session), projects.shared_folders), read.stored)
            out.chats[read.id] = ChatState(ide_db=_owner(plan, read.id), cli=read.cli)
            ide_unread.discard(read.id)
            report(1)
            if spill is not None and len(out.chats) >= SPILL_EVERY:
                spill.write(out, writer)
        # An editor chat with no message is not yielded: recorded with its database, so it is not read again.
        for sid in sorted(ide_unread - out.unread.kept):
            out.chats[sid] = ChatState(ide_db=_owner(plan, sid))
        writer.flush()
        if spill is not None:
            spill.write(out, writer)
            spill.close()
            out.spilled = [str(spill.path)]
    except BaseException:
        writer.abandon()
        raise
    out.segments, out.where = writer.done, writer.where
    return out


def _owner(plan: Plan, chat_id: str) -> str | None:
    """The database holding ``chat_id``: the plan's ``owners`` say, or for a part, the ``ide_reads`` it is in."""
    return plan.owners.get(chat_id) or next((db for db, ids in plan.ide_reads.items() if chat_id in ids), None)


def _split(plan: Plan, parts: int) -> list[Plan]:
    """``plan`` cut into ``parts`` by chat id; a chat the editor and cursor-agent both hold stays in one part."""

    def part_of(chat_id: str) -> int:
        return zlib.crc32(chat_id.encode("utf-8", "surrogatepass")) % parts

    # Without ``owners``: a part finds a chat's database in its ``ide_reads`` (``_owner``).
    cut = [msgspec.structs.replace(plan, ide_reads={}, cli_reads={}, cli_appends={}, owners={}) for _ in range(parts)]
    for db, ids in plan.ide_reads.items():
        for chat_id in ids:
            cut[part_of(chat_id)].ide_reads.setdefault(db, set()).add(chat_id)
    for chat_id, chat in plan.cli_reads.items():
        cut[part_of(chat_id)].cli_reads[chat_id] = chat
    for chat_id, chat in plan.cli_appends.items():
        cut[part_of(chat_id)].cli_appends[chat_id] = chat
    return cut


def _joined(parts: list[Written], problems: Counter[str]) -> Written:
    """The parts' results as one (their records stay in their spill files), their problems added to ``problems``."""
    out = Written()
    for part in parts:
        out.segments += part.segments
        out.spilled += part.spilled
        out.unread.kept |= part.unread.kept
        out.unread.databases.update(part.unread.databases)
        out.unread.stores += part.unread.stores
        out.unread.new += part.unread.new
        out.unread.chats.update(part.unread.chats)
        out.unread.files += part.unread.files
        problems.update(part.problems)
    return out
