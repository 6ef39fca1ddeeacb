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

This is the one measure of ``deja search`` with nothing changed: ``bench_index`` (and so ``run_all``) takes its
``cli_search_*`` figures from ``unchanged_search`` here (the CPU ratio), and times its after-a-turn searches with
the same ``search_argv`` and ``bench_hooks.process_ms``.
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


FLOOR = "python -c pass"


def search_argv(bin_dir: Path, text: str) -> list[str]:
    """``deja search`` of three words as a person types it (text output: ``--json`` would import ``json`` too)."""
    return [str(bin_dir / "deja"), "search", *text.split()]


def measure(home: Path, bins: list[Path], runs: int) -> dict[str, list[tuple[float, float]]]:
    env = {**os.environ, "DEJA_HOME": str(home)}
    rng = random.Random(7)
    texts = [query_for(rng) for _ in range(runs)]
    floor = [str(bins[0] / "python"), "-c", "pass"]
    found: dict[str, list[tuple[float, float]]] = {}
    for text in texts:
        jobs = [(FLOOR, floor)] + [(str(b.parent), search_argv(b, text)) for b in bins]
        random.shuffle(jobs)
        for name, argv in jobs:
            found.setdefault(name, []).append(process_ms(argv, env))
    return found


def medians(found: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    """name -> median wall and CPU ms, and each as a multiple of ``python -c pass``'s in the same run."""
    median = figures.percentile
    floor_wall = median([wall for wall, _ in found[FLOOR]], 0.5)
    floor_cpu = median([cpu for _, cpu in found[FLOOR]], 0.5)
    out = {}
    for name, times in found.items():
        wall, cpu = median([w for w, _ in times], 0.5), median([c for _, c in times], 0.5)
        out[name] = {"wall_ms": wall, "cpu_ms": cpu, "wall_x_pass": wall / floor_wall, "cpu_x_pass": cpu / floor_cpu}
    return out


def unchanged_search(home: Path, bins: list[Path], runs: int) -> dict[str, dict[str, float]]:
    """``deja search`` of each install against ``python -c pass``, interleaved, nothing changed (``medians``)."""
    with WalkedAhead(home):
        process_ms(search_argv(bins[0], "warm up"), {**os.environ, "DEJA_HOME": str(home)})
        return medians(measure(home, bins, runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a DEJA_HOME whose index is up to date")
    parser.add_argument("--venv", action="append", help="an environment deja is installed in, or a revision (repeat)")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    bins = [install_for(other) for other in args.venv] if args.venv else [user_install()]
    found = unchanged_search(args.home, bins, args.runs)
    print(f"{args.runs} rounds, load average {os.getloadavg()[0]:.1f}; median ms (× python -c pass)")
    for name, m in found.items():
        print(
            f"{name:60} wall {m['wall_ms']:7.1f} ({m['wall_x_pass']:4.2f}×)   CPU {m['cpu_ms']:6.1f} ({m['cpu_x_pass']:4.2f}×)"
        )


if __name__ == "__main__":
    main()
