"""Every hook of this checkout against another's, in one interleaved run: what a change to the hooks gained.

    python bench/ab_hooks.py --against GIT-REV [--size 1000] [--runs 10] [--history 100000=/path/to/hist-100000]

Both are installed as a user installs them (``pip install``, not editable): this checkout into
``bench/out/user-venv`` as ``bench_hooks.py`` does, the other revision (``git archive`` of it) into
``bench/out/against-venv``. Each runs the command its own ``deja install cursor-auto`` writes into ``hooks.json``,
on ``bench_hooks.py``'s payloads and index; every round runs both environments' ``python -c pass`` and every hook
of both, one after the other, so machine noise hits both alike. Prints the median wall and CPU ms of each, and each
over its own environment's ``python -c pass``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_hooks  # noqa: E402
from bench_hooks import FLOOR, OUT, REPO, Spawn, spawn  # noqa: E402

from deja.core.index import Index  # noqa: E402
from deja.hooks.call import STARTED, HookCall  # noqa: E402
from deja.hooks.run import OPENERS  # noqa: E402


def install_revision(revision: str, venv: Path = OUT / "against-venv") -> Path:
    """``revision`` of this repository installed (not editable) into ``venv``; its bin folder."""
    with tempfile.TemporaryDirectory() as scratch:
        archive = Path(scratch) / "source.tar"
        subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), revision], check=True)
        source = Path(scratch) / "source"
        with tarfile.open(archive) as tar:
            tar.extractall(source, filter="data")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", str(source)], check=True)
    return venv / "bin"


def stdin_for(label: str, command: str, payload: dict[str, Any], token: str, number: int) -> bytes:
    """The payload in a conversation of its own (that had its session start), as ``bench_hooks.py`` sends it."""
    if "hook-session-end" not in label:
        conversation = f"ab-{token}-{number}"
        transcript = f"/bench/agent-transcripts/{conversation}/{conversation}.jsonl"
        payload = {**payload, "conversation_id": conversation, "transcript_path": transcript}
        if command in OPENERS and "first event" not in label:
            HookCall(payload, "").remember([STARTED])
    return json.dumps(payload).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="GIT-REV", help="the revision to compare with (main…)")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--history", action="append", default=[], metavar="SIZE=DIR")
    args = parser.parse_args()
    given = {int(size): Path(folder) for size, folder in (item.split("=", 1) for item in args.history)}
    venvs = {args.against: install_revision(args.against), "checkout": bench_hooks.user_install()}
    home = bench_hooks.index_home(args.size, given)
    cases = bench_hooks.payloads(bench_hooks.find_target(Index.open(home)))
    env = bench_hooks.with_config_file(home)
    commands = {name: bench_hooks.installed_commands(bin_dir) for name, bin_dir in venvs.items()}
    token = os.urandom(4).hex()
    timed: dict[tuple[str, str], list[Spawn]] = {}
    number = 0
    for run in range(args.runs + 1):  # the first round warms the page cache and is not counted
        spawns = []
        for name, bin_dir in venvs.items():
            spawns.append((name, FLOOR, spawn([str(bin_dir / "python"), "-c", "pass"], b"", env)))
        for label, (command, payload) in cases.items():
            for name in venvs:
                number += 1
                stdin = stdin_for(label, command, payload, token, number)
                spawns.append((name, label, spawn(commands[name][command], stdin, env)))
        for name, label, result in spawns if run else []:
            timed.setdefault((name, label), []).append(result)
    print(f"{args.size} sessions, {args.runs} runs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'':28}" + " | ".join(f"{name[:12]:>12} ms    x  cpu    x" for name in venvs))
    for label in [FLOOR, *cases]:
        cells = []
        for name in venvs:
            wall, cpu = (
                statistics.median(getattr(s, f) for s in timed[(name, label)]) for f in ("seconds", "cpu_seconds")
            )
            floor_wall, floor_cpu = (
                statistics.median(getattr(s, f) for s in timed[(name, FLOOR)]) for f in ("seconds", "cpu_seconds")
            )
            cells.append(f"{1000 * wall:15.1f}{wall / floor_wall:5.2f}{1000 * cpu:5.1f}{cpu / floor_cpu:5.2f}")
        print(f"{label:28}" + " | ".join(cells))


if __name__ == "__main__":
    main()
