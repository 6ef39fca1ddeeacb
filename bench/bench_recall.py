"""The prompt hook's recall in-process: CPU time per prompt of ``recall_for`` (search, gate, blocks), no start-up.

    python bench/bench_recall.py --home DEJA_HOME [--prompts 123] [--runs 3] [--profile]

The prompts are what the index's own sessions first asked (``asked``), taken evenly through the index: each is
about something the history holds, so most recall, as the ``hook-prompt`` row of ``bench_hooks.py`` does. The
index is read as a hook reads it (``light.LIGHT``, no msgspec). Printed: the least of ``--runs`` passes over the
prompts, per prompt, in total and split into search and the rest; with ``--profile``, cProfile's top functions of
one pass.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

from deja.core.index import Index
from deja.core.index.light import LIGHT
from deja.core.search import Filters, search
from deja.hooks.prompt import COMMON_POSTINGS_READ, GATES, POSTINGS_READ, recall_for


def prompts_of(index: Index, count: int) -> list[str]:
    """What ``count`` sessions spread evenly through the index first asked."""
    sessions = [(segment, ordinal) for segment in index.segments for ordinal in range(segment.ref.sessions)]
    step = max(1, len(sessions) // count)
    asked = [segment.session(ordinal).asked for segment, ordinal in sessions[::step]]
    return [text for text in asked if text.strip()][:count]


def one_pass(index: Index, prompts: list[str]) -> tuple[float, float, int]:
    """(CPU seconds of recall_for over every prompt, of its search alone, how many prompts recalled)."""
    started = time.process_time()
    recalled = sum(bool(recall_for(index, p, "safe", exclude=set(), seen=set()).lines) for p in prompts)
    whole = time.process_time() - started
    started = time.process_time()
    limit = GATES["safe"].sessions + 2
    for p in prompts:
        search(
            index,
            p,
            filters=Filters(),
            limit=limit,
            snippets=0,
            budget=POSTINGS_READ,
            common_budget=COMMON_POSTINGS_READ,
        )
    return whole, time.process_time() - started, recalled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="the DEJA_HOME whose index is read (never written)")
    parser.add_argument("--prompts", type=int, default=123)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions of one pass")
    args = parser.parse_args()
    index = Index.open(args.home, LIGHT)
    prompts = prompts_of(index, args.prompts)
    passes = [one_pass(index, prompts) for _ in range(args.runs)]
    whole, searched, recalled = min(passes)
    n = len(prompts)
    print(
        f"{index.session_count} sessions, {n} prompts ({recalled} recall), least of {args.runs} passes: "
        f"recall_for {1000 * whole / n:.2f} ms CPU a prompt, its search {1000 * searched / n:.2f} ms, "
        f"the rest {1000 * (whole - searched) / n:.2f} ms"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(one_pass, index, prompts)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
