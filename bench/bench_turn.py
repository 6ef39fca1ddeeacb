"""After one appended turn: ``deja index`` and ``deja search`` as whole processes, paired against other installs.

    python bench/bench_turn.py --size 1000 [--rounds 9] [--against /path/to/another/venv/bin|GIT-REV ...]

Each round appends a turn to the most recently written chat of the history ``bench_index.py`` generated and indexed
under ``bench/out/`` (build it first: ``python bench/bench_index.py --sizes N``), then runs, for this checkout
installed as a user installs it (``bench_hooks.user_install``) and for each ``--against`` environment in turn,
``python -c pass``, ``deja index`` after a turn and ``deja search`` after a turn (an ``--against`` that is a git
revision is installed by ``bench_hooks.install_for``, as a user installs it). It prints the medians of wall and CPU
time (the process's own user and system time, which a loaded machine disturbs less) and each as a ratio to that
environment's ``python -c pass`` in the same run: A/B comparisons of installs built from two commits, interleaved.
The last full walk is dated just before each run, so no walk falls due while measured (``bench_index``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from bench_hooks import install_for, process_ms  # noqa: E402
from bench_index import OUT, _append_turn, _newest_transcript, _walked_just_now, history_for, user_bin  # noqa: E402

from deja.core.index import index_dir  # noqa: E402

KINDS = ("pass", "index", "search")


def measure(size: int, bins: list[Path], rounds: int) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """(wall, CPU) of every run, by environment and kind, interleaved round by round."""
    home = OUT / f"home-{size}"
    env = {**os.environ, **history_for(size).environment(home)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: the installed bytecode is used
    os.environ.update(env)
    assert (index_dir(home) / "manifest.msgpack").exists(), (
        f"build it first: python bench/bench_index.py --sizes {size}"
    )
    transcript = _newest_transcript(home)
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {str(b): {kind: [] for kind in KINDS} for b in bins}
    for _ in range(rounds):
        for bin_dir in bins:
            mine = runs[str(bin_dir)]
            _walked_just_now(index_dir(home))
            mine["pass"].append(process_ms([str(bin_dir / "python"), "-c", "pass"], env))
            _append_turn(transcript)
            mine["index"].append(process_ms([str(bin_dir / "deja"), "index", "--json"], env))
            _append_turn(transcript)
            mine["search"].append(process_ms([str(bin_dir / "deja"), "search", "retry", "uploader", "--json"], env))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--against", action="append", default=[], help="another environment's bin folder, or a revision"
    )
    args = parser.parse_args()
    bins = [user_bin(), *(install_for(other) for other in args.against)]
    runs = measure(args.size, bins, args.rounds)
    print(f"{args.size} sessions, {args.rounds} rounds, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'environment':48} {'run':7} {'wall ms':>8} {'× pass':>7} {'CPU ms':>7} {'× pass':>7}")
    for bin_dir, kinds in runs.items():
        base_wall = figures.percentile([w for w, _ in kinds["pass"]], 0.5)
        base_cpu = figures.percentile([c for _, c in kinds["pass"]], 0.5)
        for kind in KINDS:
            wall = figures.percentile([w for w, _ in kinds[kind]], 0.5)
            cpu = figures.percentile([c for _, c in kinds[kind]], 0.5)
            print(f"{bin_dir:48} {kind:7} {wall:8.0f} {wall / base_wall:7.1f} {cpu:7.1f} {cpu / base_cpu:7.1f}")


if __name__ == "__main__":
    main()
