"""``deja search`` as a whole process, nothing changed: one or more installs of deja against ``python -c pass``.

    python bench/bench_cli_search.py --home DEJA_HOME [--venv DIR|GIT-REV ...] [--runs 21]

Each round runs ``python -c pass`` and ``deja search <three words>`` of every ``--venv`` (a virtual environment
deja is installed in as a user installs it, not editable, or a git revision that ``bench_hooks.install_for``
installs so; default: ``bench/out/user-venv``, which ``bench_hooks.user_install`` makes from this checkout) in a
shuffled order, so that two installs (main and a
branch, say) are compared in one interleaved run on a machine other work keeps busy. The index under ``--home``
is read, never written: its last full walk is dated ahead for the run (and back after), so no read starts one;
the roots are taken from the environment (``DEJA_CURSOR_ROOT``, ``DEJA_CURSOR_CLI_ROOT``), as the index was
built. Printed: the median wall and CPU time (the process's user and system time, steadier under load) of each,
and each as a multiple of ``python -c pass``'s, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from bench_hooks import install_for, process_ms, user_install  # noqa: E402
from generate import query_for  # noqa: E402

from deja.core.index import index_dir  # noqa: E402
from deja.core.indexer.glance import RECORD  # noqa: E402


class WalkedAhead:
    """The record's last full walk dated a day ahead while measured, so that no read starts a walk; restored."""

    def __init__(self, home: Path):
        self.path = index_dir(home) / RECORD
        self.kept = self.path.read_bytes()

    def __enter__(self) -> None:
        record = json.loads(self.kept)
        record["walked_at"] = time.time() + 86400
        self.path.write_bytes(json.dumps(record).encode())

    def __exit__(self, *_: object) -> None:
        self.path.write_bytes(self.kept)


def measure(home: Path, bins: list[Path], runs: int) -> dict[str, list[tuple[float, float]]]:
    env = {**os.environ, "DEJA_HOME": str(home)}
    rng = random.Random(7)
    texts = [query_for(rng) for _ in range(runs)]
    floor = [str(bins[0] / "python"), "-c", "pass"]
    found: dict[str, list[tuple[float, float]]] = {}
    for text in texts:
        jobs = [("python -c pass", floor)] + [(str(b.parent), [str(b / "deja"), "search", *text.split()]) for b in bins]
        random.shuffle(jobs)
        for name, argv in jobs:
            found.setdefault(name, []).append(process_ms(argv, env))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a DEJA_HOME whose index is up to date")
    parser.add_argument("--venv", action="append", help="an environment deja is installed in, or a revision (repeat)")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    bins = [install_for(other) for other in args.venv] if args.venv else [user_install()]
    with WalkedAhead(args.home):
        process_ms([str(bins[0] / "deja"), "search", "warm", "up"], {**os.environ, "DEJA_HOME": str(args.home)})
        found = measure(args.home, bins, args.runs)
    median = figures.percentile
    floor_wall = median([wall for wall, _ in found["python -c pass"]], 0.5)
    floor_cpu = median([cpu for _, cpu in found["python -c pass"]], 0.5)
    print(f"{args.runs} rounds, load average {os.getloadavg()[0]:.1f}; median ms (× python -c pass)")
    for name, times in found.items():
        wall, cpu = median([w for w, _ in times], 0.5), median([c for _, c in times], 0.5)
        print(f"{name:60} wall {wall:7.1f} ({wall / floor_wall:4.2f}×)   CPU {cpu:6.1f} ({cpu / floor_cpu:4.2f}×)")


if __name__ == "__main__":
    main()
