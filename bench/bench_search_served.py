"""``deja search`` answered by the resident hook server against in its own process, paired, one install.

    python bench/bench_search_served.py [--sizes 1000] [--runs 15]

A ``deja search`` hands its call to the hook server where one runs (``hook_client.PERSONS``): the server's child
has loaded what a search loads, the indexer too, which a search right after a turn needs to refresh the index
first. Each round, for this checkout installed as a user installs it (``bench_hooks.user_install``), runs
``python -c pass`` and the same ``deja search`` served (``DEJA_HOOK_SERVER=1``, a server started for the run) and
in its own process (``DEJA_HOOK_SERVER=0``), in a shuffled order, once with nothing changed and once right after a
turn appended to the newest chat (``bench_index._append_turn``; its last full walk dated just before, so no walk
falls due). Printed: medians of wall time, each a multiple of ``python -c pass``'s in the same run (the target is
wall time: a served call's work is the server's child's), and of CPU, where a served call's is its own process's
and its child's (the server's ``cutime``).

The index of each size is ``bench_hooks.index_home``'s (the generated history, indexed once, shared with the other
benches); the turns appended are written to copies of the chat's transcript, never through to a shared history.
The wall-time ratios go to ``bench/out/bench_search_served.json`` for ``run_all.py``'s table.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from bench_hooks import index_home, process_ms, stop_hook_server, user_install  # noqa: E402
from bench_index import _append_turn, _newest_transcript, _walked_just_now  # noqa: E402

from deja.core.index import index_dir  # noqa: E402

SEARCH = ["search", "retry", "uploader", "--json"]
KINDS = ("pass", "served", "own")


def start_server(bin_dir: Path, env: dict[str, str], home: Path) -> int:
    """A hook server for ``home``, started as a hook starts one; its pid once its socket answers."""
    site = next((bin_dir.parent / "lib").glob("python3*/site-packages"))
    launcher = site / "deja" / "interfaces" / "hook.py"
    subprocess.Popen(
        [str(bin_dir / "python"), "-I", "-S", str(launcher), "serve-hooks"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    socket = home / "hook-server.sock"
    for _ in range(100):
        if socket.exists():
            return int((home / "hook-server.lock").read_text().strip())
        time.sleep(0.1)
    raise SystemExit(f"no hook server started for {home}")


def children_cpu_of(pid: int) -> float:
    """CPU ms of every child process ``pid`` has waited for (``/proc``'s ``cutime`` and ``cstime``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1000 / os.sysconf("SC_CLK_TCK")


def transcript_records(transcript: Path) -> int:
    """How many records (lines) a transcript holds: about its chat's messages."""
    with transcript.open("rb") as lines:
        return sum(1 for _ in lines)


def measure(bin_dir: Path, home: Path, runs: int) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """(wall ms, CPU ms) of each run by case (nothing changed, after a turn) and kind, interleaved.

    The chat grown is put back as it was after the run: each turn adds two records to the history the bench reads
    (``bench_index._append_turn``), and a search after a turn refreshes that chat whole, so kept, the figures after
    a turn grew with it from run to run (about 10 µs a message of the refresh at 1k, stop 58; 228 records at stop
    59, 360 at stop 60) and no two runs compared."""
    env = {**os.environ, "DEJA_HOME": str(home)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: the installed bytecode is used
    stop_hook_server(home)
    time.sleep(1.5)
    server = start_server(bin_dir, {**env, "DEJA_HOOK_SERVER": "1"}, home)
    transcript = _newest_transcript(home)
    as_it_was = transcript.read_bytes()
    grown_from = transcript_records(transcript)
    runs_by: dict[str, dict[str, list[tuple[float, float]]]] = {
        case: {kind: [] for kind in KINDS} for case in ("unchanged", "after a turn")
    }
    deja = [str(bin_dir / "deja"), *SEARCH]
    try:
        for kind in ("served", "own"):  # (a first call of each: the page cache warm, the index refreshed)
            process_ms(deja, {**env, "DEJA_HOOK_SERVER": "1" if kind == "served" else "0"})
        for _ in range(runs):
            for case in ("unchanged", "after a turn"):
                order = list(KINDS)
                random.shuffle(order)
                for kind in order:
                    _walked_just_now(index_dir(home))
                    if case == "after a turn" and kind != "pass":
                        _append_turn(transcript)
                    argv = [str(bin_dir / "python"), "-c", "pass"] if kind == "pass" else deja
                    served = {"DEJA_HOOK_SERVER": "1" if kind == "served" else "0"}
                    before = children_cpu_of(server)
                    wall, cpu = process_ms(argv, {**env, **served})
                    runs_by[case][kind].append((wall, cpu + children_cpu_of(server) - before))
    finally:
        stop_hook_server(home)
        grown_to = transcript_records(transcript)
        transcript.write_bytes(as_it_was)
    print(f"the chat grown: {grown_from} records, {grown_to} by the last turn, put back to {grown_from}")
    return runs_by


def report(size: int, runs_by: dict[str, dict[str, list[tuple[float, float]]]]) -> dict[str, float]:
    """Print the medians of each case and kind; the wall-time ratios ``run_all.py`` shows."""
    print(f"{size} sessions, load average {os.getloadavg()[0]:.1f}")
    print(f"{'':<14}{'kind':<8}{'wall ms':>9}{'÷ pass':>8}{'CPU ms':>9}{'÷ pass':>8}")
    ratios = {}
    for case, kinds in runs_by.items():
        floor_wall = statistics.median(w for w, _ in kinds["pass"])
        floor_cpu = statistics.median(c for _, c in kinds["pass"])
        for kind, samples in kinds.items():
            wall = statistics.median(w for w, _ in samples)
            cpu = statistics.median(c for _, c in samples)
            print(f"{case:<14}{kind:<8}{wall:9.1f}{wall / floor_wall:7.2f}x{cpu:9.1f}{cpu / floor_cpu:7.2f}x")
            ratios[f"{'_'.join(case.split())}_{kind}_x_pass"] = wall / floor_wall
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="comma-separated history sizes (sessions)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    bin_dir = user_install()
    by_size = {}
    for size in (int(each) for each in args.sizes.split(",")):
        by_size[size] = report(size, measure(bin_dir, index_home(size), args.runs))
    figures.write("bench_search_served", by_size)


if __name__ == "__main__":
    main()
