"""Full-build benchmark alone: source MB per CPU second and per wall second, peak RSS, index share.

    python bench/bench_build.py [--sizes 1000,10000] [--history PATH --home PATH]

Builds each generated history (``bench/out/hist-N``, made by ``bench_index``'s
``history_for``) into a fresh ``bench/out/build-N`` home in a child process, so
the peak memory is the build's own (the largest of the build and its parts).
``--history`` builds one given history instead (read only: the shared 100k one)
into ``--home``. The load average is printed beside every figure: the machine
is shared, and a wall figure means little without it. ``mb_per_s_idle`` is what
the wall figure would be on idle cores: the builder's own CPU, then its parts'
side by side, one a core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import OUT, _build_in_child, history_for  # noqa: E402
from generate import source_bytes  # noqa: E402

from deja.core.index import Index  # noqa: E402
from deja.core.sample import SampleHistory  # noqa: E402


def build_figures(history: SampleHistory, home: Path) -> dict:
    """Build ``history`` into an empty ``home`` and say how fast, how big and how much memory."""
    from deja.core.indexer.parts import MAX_WORKERS
    from deja.core.parallel import cores

    os.environ.update(history.environment(home))
    shutil.rmtree(home, ignore_errors=True)
    load_before = os.getloadavg()[0]
    build = _build_in_child(home)
    src = source_bytes(history)
    return {
        "sessions": build["sessions"],
        "source_mb": src / 1e6,
        "wall_s": build["wall_s"],
        "cpu_s": build["cpu_s"],
        "mb_per_cpu_s": src / 1e6 / build["cpu_s"],
        "mb_per_wall_s": src / 1e6 / build["wall_s"],
        "cpu_parent_s": build["cpu_parent_s"],
        "cpu_parts_s": build["cpu_parts_s"],
        # What the wall figure would be on idle cores: the parent's CPU, then the parts side by side (as even as
        # the split by chat id makes them), one a core.
        "mb_per_s_idle": src / 1e6 / (build["cpu_parent_s"] + build["cpu_parts_s"] / min(cores(), MAX_WORKERS)),
        "peak_rss_mb": build["peak_rss_mb"],
        "rss_parent_mb": build["peak_rss_parent_mb"],
        "rss_parts_mb": build["peak_rss_parts_mb"],
        "index_share": Index.open(home).size_bytes() / src,
        "load_before": load_before,
        "load_after": build["load"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--history", type=Path, help="a generated history to build instead (never written to)")
    parser.add_argument("--home", type=Path, help="where --history's index goes")
    args = parser.parse_args()
    if args.history:
        root = args.history
        history = SampleHistory(ide_root=root / "cursor" / "User", cli_root=root / "cursor-agent", projects={})
        runs = {root.name: build_figures(history, args.home or OUT / f"build-{root.name}")}
    else:
        runs = {size: build_figures(history_for(int(size)), OUT / f"build-{size}") for size in args.sizes.split(",")}
    rows = list(next(iter(runs.values())).keys())
    print(f"{'':16}" + "".join(f"{name:>14}" for name in runs))
    for row in rows:
        print(f"{row:16}" + "".join(f"{runs[name][row]:14.2f}" for name in runs))
    if len(runs) > 1:  # issue 15's memory target: the largest history's peak at most 1.5 times the 10k one's
        small, large = next(iter(runs)), list(runs)[-1]
        ratio = runs[large]["peak_rss_mb"] / runs[small]["peak_rss_mb"]
        print(f"peak RSS {large} / {small}: {ratio:.2f}× (issue 15's target, ≤ 1.5×, is for --sizes 10000,100000)")


if __name__ == "__main__":
    main()
