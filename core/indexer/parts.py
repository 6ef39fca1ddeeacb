"""Reading a plan's chats and writing them into new segments: on every core when there are many.

A full build of a large history is CPU work per chat (reading, redacting,
tokenising) with nothing shared between chats, so the plan is cut by chat id
into one part per core (``deja.core.parallel``); each part writes segments of
its own and sends back only what the refresh records. A small refresh stays in
one process, where forking would cost more than it saves.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from ..bookkeeping import Bookkeeping, ChatState, Location
from ..index import Index, SegmentRef
from ..private import open_private
from ..readers import Projects
from .plan import Plan
from .reads import Unread, read_changes
from .records import NewSegments

#: A plan reading at least this many chats is split over the cores.
PARALLEL_MIN_CHATS = 400
MAX_WORKERS = 4
#: A part sends its chats' records to its spill file every this many chats: its memory does not grow with them.
SPILL_EVERY = 2048
_FRAME = struct.Struct("<I")


class Written(msgspec.Struct):
    """What reading and writing (a part of) a plan gave: new segments, where each session went, what to record."""

    segments: list[SegmentRef] = []
    where: dict[str, Location] = {}
    #: Every chat read, empty ones included: what the bookkeeping records of it (``where`` is set later).
    chats: dict[str, ChatState] = {}
    unread: Unread = msgspec.field(default_factory=Unread)
    #: Problems counted on the way (a part's own, added to the refresh's).
    problems: dict[str, int] = {}
    #: A part's file of the ``where`` and ``chats`` it wrote out on the way (``_Spill``), read back by the parent.
    spilled: str = ""


class _Records(msgspec.Struct):
    """A batch of a part's ``where`` and ``chats``, as its spill file holds them."""

    where: dict[str, Location]
    chats: dict[str, ChatState]


class _Spill:
    """A part's ``where`` and ``chats`` written to a file as they grow, so a part of a big build holds a batch of them.

    The file is named as every temp of the index is (``.<name>.<pid>.tmp``), so a killed build's is swept.
    """

    def __init__(self, directory: Path, number: int):
        self.path = directory / f".part-{number}.{os.getpid()}.tmp"
        self._file = open_private(self.path, "wb")

    def write(self, out: Written, writer: NewSegments) -> None:
        """Send what ``out`` and ``writer`` hold of the chats so far to the file, and forget it."""
        data = msgspec.msgpack.encode(_Records(where=writer.where, chats=out.chats))
        self._file.write(_FRAME.pack(len(data)) + data)
        writer.where, out.chats = {}, {}

    def close(self) -> None:
        self._file.close()


def _spilled(path: Path) -> Iterator[_Records]:
    """The batches a part's spill file holds, in the order it wrote them; the file is removed once read."""
    decoder = msgspec.msgpack.Decoder(_Records)
    with open(path, "rb") as spill:
        while head := spill.read(_FRAME.size):
            yield decoder.decode(spill.read(_FRAME.unpack(head)[0]))
    path.unlink()


def write_changes(
    plan: Plan,
    book: Bookkeeping,
    index: Index | None,
    problems: Counter[str],
    directory: Path,
    progress: Callable[[int, int], None] | None,
) -> Written:
    """Read and write what the plan names: on every core when it is big enough, else in this process."""
    projects = Projects.of_this_machine(problems)
    total = plan.chats_to_read()
    done = 0

    def report(chats: int) -> None:
        nonlocal done
        done += chats
        if progress:
            progress(done, total)

    workers = _workers(total)
    if workers < 2:
        return _write_part(plan, book, index, problems, projects, directory, report)
    from .. import parallel

    parts = _split(plan, workers)

    def work(number: int, tell: Callable[[int], None]) -> Written:
        before = Counter(problems)
        spill = _Spill(directory, number)
        written = _write_part(parts[number], book, index, problems, projects, directory, tell, spill)
        written.problems = dict(Counter(problems) - before)
        return written

    # A part that fails stops the others; what they wrote is named by no manifest and goes as a killed build's would.
    return _joined(parallel.run_parts(work, workers, report), problems)


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
    directory: Path,
    report: Callable[[int], None],
    spill: _Spill | None = None,
) -> Written:
    """Read what ``plan`` names and write it into new segments (a writer's memory stays bounded as they grow).

    With a ``spill`` (a part of a parallel build), the chats' records go to its file as they grow.
    """
    out = Written()
    writer = NewSegments(directory)
    try:
        for read in read_changes(plan, book, index, problems, out.unread, projects):
            if read.session is not None:  # read as empty: recorded, not indexed
                writer.add(projects.settle(read.session))
            out.chats[read.id] = ChatState(ide_db=plan.owners.get(read.id), cli=read.cli)
            report(1)
            if spill is not None and len(out.chats) >= SPILL_EVERY:
                spill.write(out, writer)
        writer.flush()
        if spill is not None:
            spill.write(out, writer)
            spill.close()
            out.spilled = str(spill.path)
    except BaseException:
        writer.abandon()
        raise
    out.segments, out.where = writer.done, writer.where
    return out


def _split(plan: Plan, parts: int) -> list[Plan]:
    """``plan`` cut into ``parts`` by chat id; a chat the editor and cursor-agent both hold stays in one part."""

    def part_of(chat_id: str) -> int:
        return zlib.crc32(chat_id.encode("utf-8", "surrogatepass")) % parts

    cut = [msgspec.structs.replace(plan, ide_reads={}, cli_reads={}, cli_appends={}) for _ in range(parts)]
    for db, ids in plan.ide_reads.items():
        for chat_id in ids:
            cut[part_of(chat_id)].ide_reads.setdefault(db, set()).add(chat_id)
    for chat_id, chat in plan.cli_reads.items():
        cut[part_of(chat_id)].cli_reads[chat_id] = chat
    for chat_id, chat in plan.cli_appends.items():
        cut[part_of(chat_id)].cli_appends[chat_id] = chat
    return cut


def _joined(parts: list[Written], problems: Counter[str]) -> Written:
    """The parts' results as one, their problems added to ``problems``."""
    out = Written()
    for part in parts:
        out.segments += part.segments
        for records in _spilled(Path(part.spilled)) if part.spilled else [_Records(part.where, part.chats)]:
            out.where.update(records.where)
            out.chats.update(records.chats)
        out.unread.kept |= part.unread.kept
        out.unread.databases.update(part.unread.databases)
        out.unread.stores += part.unread.stores
        problems.update(part.problems)
    return out
