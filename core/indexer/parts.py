"""Reading a plan's chats and writing them into new segments: on every core when there are many.

A full build of a large history is CPU work per chat (reading, redacting,
tokenising) with nothing shared between chats, so the plan is cut by chat id
into one part per core (``deja.core.parallel``); each part writes segments of
its own and sends back only what the refresh records. A small refresh stays in
one process, where forking would cost more than it saves.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import msgspec

from .. import parallel
from ..bookkeeping import Bookkeeping, ChatState, Location
from ..index import Index, SegmentRef
from ..readers import Projects
from .plan import Plan
from .reads import Unread, read_changes
from .records import NewSegments

#: A plan reading at least this many chats is split over the cores.
PARALLEL_MIN_CHATS = 400
MAX_WORKERS = 4


class Written(msgspec.Struct):
    """What reading and writing (a part of) a plan gave: new segments, where each session went, what to record."""

    segments: list[SegmentRef] = []
    where: dict[str, Location] = {}
    #: Every chat read, empty ones included: what the bookkeeping records of it (``where`` is set later).
    chats: dict[str, ChatState] = {}
    unread: Unread = msgspec.field(default_factory=Unread)
    #: Problems counted on the way (a part's own, added to the refresh's).
    problems: dict[str, int] = {}


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

    workers = min(parallel.cores(), MAX_WORKERS)
    if total < PARALLEL_MIN_CHATS or workers < 2 or not parallel.can_fork():
        return _write_part(plan, book, index, problems, projects, directory, report)
    parts = _split(plan, workers)

    def work(number: int, tell: Callable[[int], None]) -> Written:
        before = Counter(problems)
        written = _write_part(parts[number], book, index, problems, projects, directory, tell)
        written.problems = dict(Counter(problems) - before)
        return written

    # A part that fails stops the others; what they wrote is named by no manifest and goes as a killed build's would.
    return _joined(parallel.run_parts(work, workers, report), problems)


def _write_part(
    plan: Plan,
    book: Bookkeeping,
    index: Index | None,
    problems: Counter[str],
    projects: Projects,
    directory: Path,
    report: Callable[[int], None],
) -> Written:
    """Read what ``plan`` names and write it into new segments (a writer's memory stays bounded as they grow)."""
    out = Written()
    writer = NewSegments(directory)
    try:
        for read in read_changes(plan, book, index, problems, out.unread, projects):
            if read.session is not None:  # read as empty: recorded, not indexed
                writer.add(projects.settle(read.session))
            out.chats[read.id] = ChatState(ide_db=plan.owners.get(read.id), cli=read.cli)
            report(1)
        writer.flush()
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
        out.where.update(part.where)
        out.chats.update(part.chats)
        out.unread.kept |= part.unread.kept
        out.unread.databases.update(part.unread.databases)
        out.unread.stores += part.unread.stores
        problems.update(part.problems)
    return out
