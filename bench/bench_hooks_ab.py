"""The recall hooks of this checkout against those of another commit, in one paired run, both installed as a user
installs them (not editable), against the same index and ``python -c pass``.

    python bench/bench_hooks_ab.py --baseline c303389 [--sizes 1000] [--runs 10]
        [--history 100000=DIR --home 100000=DEJA_HOME]

The baseline is ``git archive``d into ``bench/out/ab-<commit>`` and installed into a virtual environment of its own
(``bench/out/user-venv-<commit>``); this checkout is ``bench_hooks.py``'s ``bench/out/user-venv``. Each round spawns
the floor and every row of both installs, interleaved, so the machine's load hits them alike; the rows are
``bench_hooks.py``'s recall hooks (``hook-prompt`` that recalls, with no match, and ``hook-tool`` for a Task). ``--home``
reads an index already built (never written, but for the hooks' own conversation state) instead of building one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_hooks import (  # noqa: E402
    FLOOR,
    OUT,
    REPO,
    Spawn,
    find_target,
    history_at,
    index_home,
    installed_commands,
    payloads,
    spawn,
    user_install,
    with_config_file,
)

from deja.core.index import Index  # noqa: E402
from deja.hooks.call import STARTED, HookCall  # noqa: E402

ROWS = ("hook-prompt", "hook-prompt (no match)", "hook-tool Task")


def baseline_install(commit: str) -> Path:
    """``commit`` of this repository installed (not editable) into a virtual environment of its own; its bin."""
    source, venv = OUT / f"ab-{commit}", OUT / f"user-venv-{commit}"
    if not (source / "pyproject.toml").exists():
        source.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    if not (venv / "bin" / "deja").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", str(source)], check=True)
    return venv / "bin"


def bench_size(size: int, runs: int, installs: dict[str, Path], home: Path) -> dict[str, list[Spawn]]:
    env = with_config_file(home)
    target = find_target(Index.open(home))
    cases: dict[str, tuple[list[str], dict]] = {FLOOR: ([str(installs["this"] / "python"), "-c", "pass"], {})}
    for name, bin_dir in installs.items():
        commands = installed_commands(bin_dir)
        for label, (command, payload) in payloads(target).items():
            if label in ROWS:
                cases[f"{label} [{name}]"] = (commands[command], payload)
    timed: dict[str, list[Spawn]] = {label: [] for label in cases}
    for run in range(runs + 1):  # the first round warms the page cache and is not counted
        for label, (argv, payload) in cases.items():
            stdin = b""
            if payload:
                conversation = f"ab-{os.urandom(4).hex()}-{size}-{run}"
                # cursor-agent names a main conversation's transcript in its tool events (a subagent's: none)
                transcript = f"/bench/agent-transcripts/{conversation}/{conversation}.jsonl"
                payload = {**payload, "conversation_id": conversation, "transcript_path": transcript}
                HookCall(payload, "").remember([STARTED])  # as if its sessionStart had come
                stdin = json.dumps(payload).encode()
            result = spawn(argv, stdin, env)
            if run:
                timed[label].append(result)
    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--history", action="append", default=[], metavar="SIZE=DIR")
    parser.add_argument("--home", action="append", default=[], metavar="SIZE=DEJA_HOME")
    args = parser.parse_args()
    given = {int(size): Path(folder) for size, folder in (item.split("=", 1) for item in args.history)}
    homes = {int(size): Path(folder) for size, folder in (item.split("=", 1) for item in args.home)}
    installs = {"this": user_install(), args.baseline: baseline_install(args.baseline)}
    for size in (int(s) for s in args.sizes.split(",")):
        if size in homes:
            os.environ.update(history_at(size, given).environment(homes[size]))
        home = homes.get(size) or index_home(size, given)
        timed = bench_size(size, args.runs, installs, home)
        floor = statistics.median(s.seconds for s in timed[FLOOR])
        floor_cpu = statistics.median(s.cpu_seconds for s in timed[FLOOR])
        print(f"\n{size} sessions, {args.runs} paired runs; load {os.getloadavg()[0]:.1f} at the end")
        print(f"{'':40}{'median ms':>10}{'x floor':>9}{'cpu ms':>9}{'cpu x':>7}  answered")
        for label, spawns in timed.items():
            median = statistics.median(s.seconds for s in spawns)
            cpu = statistics.median(s.cpu_seconds for s in spawns)
            answered = "yes" if all(s.answered for s in spawns) else "no"
            print(
                f"{label:40}{1000 * median:10.1f}{median / floor:9.2f}{1000 * cpu:9.1f}{cpu / floor_cpu:7.2f}  {answered}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
