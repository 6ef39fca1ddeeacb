"""Every hook of this checkout against another revision's, in one interleaved run: what a change to the hooks gained.

    python bench/bench_hooks_ab.py --against GIT-REV [--sizes 1000,100000] [--runs 10]
        [--row LABEL ...] [--history 100000=DIR] [--home 100000=DEJA_HOME]

Both are installed as a user installs them (``pip install``, not editable): this checkout into
``bench/out/user-venv`` (``bench_hooks.user_install``), the other side by ``bench_hooks.install_for`` (a git
revision, ``git archive``d and installed into ``bench/out/user-venv-<commit>``, or a virtual environment deja is
installed in). Each runs the command its own ``deja install cursor-auto`` writes into ``hooks.json``, on
``bench_hooks.py``'s payloads; every round runs both environments' ``python -c pass`` and every hook of both, one
after the other, so machine noise hits both alike (the first round warms the page cache and is not counted).
``--row`` keeps only the rows named (repeat it; ``hook-prompt``, ``hook-prompt (no match)``, ``hook-tool Task``…,
the labels printed); by default every hook runs. The index is ``bench_hooks.index_home``'s, built once, or with
``--home`` one built before (the hooks write their own conversation state into it, and ``hook-session-end``'s
detached ingest may bring it up to date). Prints the median wall and CPU ms of each, each over its own
environment's ``python -c pass``, and ``*`` where a hook did not answer every time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_hooks import (  # noqa: E402
    FLOOR,
    Spawn,
    Target,
    find_target,
    history_at,
    in_conversation,
    index_home,
    install_for,
    installed_commands,
    payloads,
    spawn,
    stop_hook_server,
    user_install,
    with_config_file,
)

from deja.core.index import Index  # noqa: E402

Cases = dict[str, tuple[str, dict[str, Any]]]


def home_for(size: int, given: dict[int, Path], homes: dict[int, Path]) -> Path:
    """The DEJA_HOME whose index the hooks read at ``size``: the one ``--home`` names, else one built once."""
    if size in homes:
        os.environ.update(history_at(size, given).environment(homes[size]))
        return homes[size]
    return index_home(size, given)


def bench_size(runs: int, installs: dict[str, Path], cases: Cases, env: dict[str, str]) -> dict[tuple, list[Spawn]]:
    """(install, row) -> its timed spawns, every round running every row of every install, interleaved."""
    commands = {name: installed_commands(bin_dir) for name, bin_dir in installs.items()}
    token = os.urandom(4).hex()
    timed: dict[tuple, list[Spawn]] = {}
    number = 0
    for run in range(runs + 1):  # the first round warms the page cache and is not counted
        spawns = [
            (name, FLOOR, spawn([str(bin_dir / "python"), "-c", "pass"], b"", env))
            for name, bin_dir in installs.items()
        ]
        for label, (command, payload) in cases.items():
            for name in installs:
                number += 1
                stdin = in_conversation(label, command, payload, f"ab-{token}-{number}")
                spawns.append((name, label, spawn(commands[name][command], stdin, env)))
        for name, label, result in spawns if run else []:
            timed.setdefault((name, label), []).append(result)
    return timed


def cell(spawns: list[Spawn], floor: list[Spawn], hook: bool) -> str:
    """Median wall ms, × the floor's, median CPU ms, × the floor's; ``*`` if any spawn went unanswered."""
    wall, cpu = (statistics.median(getattr(s, f) for s in spawns) for f in ("seconds", "cpu_seconds"))
    floor_wall, floor_cpu = (statistics.median(getattr(s, f) for s in floor) for f in ("seconds", "cpu_seconds"))
    mark = "*" if hook and not all(s.answered for s in spawns) else " "
    return f"{1000 * wall:15.1f}{wall / floor_wall:5.2f}{1000 * cpu:6.1f}{cpu / floor_cpu:5.2f}{mark}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="GIT-REV", help="the revision (or venv) to compare with")
    parser.add_argument("--sizes", default="1000", help="comma-separated history sizes")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--row", action="append", default=[], metavar="LABEL", help="run only this row (repeat)")
    parser.add_argument("--history", action="append", default=[], metavar="SIZE=DIR")
    parser.add_argument("--home", action="append", default=[], metavar="SIZE=DEJA_HOME")
    args = parser.parse_args()
    given = {int(size): Path(folder) for size, folder in (item.split("=", 1) for item in args.history)}
    homes = {int(size): Path(folder) for size, folder in (item.split("=", 1) for item in args.home)}
    labels = list(payloads(Target("", "", "", "", "", "", "")))  # the labels are the same whatever the history
    unknown = sorted(set(args.row) - set(labels))
    if unknown:
        parser.error(f"no row {unknown[0]!r}; the rows are: {', '.join(labels)}")
    installs = {"checkout": user_install(), args.against: install_for(args.against)}
    for size in (int(s) for s in args.sizes.split(",")):
        home = home_for(size, given, homes)
        cases = payloads(find_target(Index.open(home)))
        cases = {label: case for label, case in cases.items() if not args.row or label in args.row}
        timed = bench_size(args.runs, installs, cases, with_config_file(home))
        stop_hook_server(home)
        print(f"\n{size} sessions, {args.runs} runs, load average {os.getloadavg()[0]:.1f} at the end")
        print(f"{'':28}" + " | ".join(f"{name[:12]:>12} ms    x cpu ms    x" for name in installs))
        for label in [FLOOR, *cases]:
            print(
                f"{label:28}"
                + " | ".join(cell(timed[(name, label)], timed[(name, FLOOR)], label != FLOOR) for name in installs)
            )


if __name__ == "__main__":
    main()
