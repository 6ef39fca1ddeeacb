"""After one appended turn: ``deja index`` and ``deja search`` as whole processes, paired against other installs.

    python bench/bench_turn.py --size 1000 [--rounds 9] [--bare] [--from-env] [--against /path/to/another/venv/bin|GIT-REV ...]

Each round appends a turn to the most recently written chat of the history ``bench_index.py`` generated and indexed
under ``bench/out/`` (build it first: ``python bench/bench_index.py --sizes N``), then runs, for this checkout
installed as a user installs it (``bench_hooks.user_install``) and for each ``--against`` environment in turn,
``python -c pass``, ``deja index`` after a turn and ``deja search`` after a turn (an ``--against`` that is a git
revision is installed by ``bench_hooks.install_for``, as a user installs it). It prints the medians of wall and CPU
time (the process's own user and system time, which a loaded machine disturbs less) and each as a ratio to that
environment's ``python -c pass`` in the same run: A/B comparisons of installs built from two commits, interleaved.
The last full walk is dated just before each run, so no walk falls due while measured (``bench_index``).
With deja's hooks installed, Cursor's ``stop`` hook ingests each turn as it ends, so the read after it finds nothing
changed: ``stop`` is that hook's own process after a turn (its command as that environment's ``deja install
cursor-auto`` writes it, run as Cursor runs it, ``sh -c``; an install from before the ``stop`` hook gives the same
command for ``sessionEnd``), and ``hooked`` the ``deja search`` after it, once the detached ingest it starts has
logged its end (that wait is not timed). ``search`` stays the figure of a turn appended while no hook is installed.
``--bare`` appends to a chat that has a transcript and no chat store instead (refreshed once first, so the check
watches it): in a generated history its folder is not on disk, so a refresh files it under the folder a chat's
``meta.json`` names (``Projects.settle``), the path that read every chat's ``meta.json`` before ``index/chat-cwds``.
``--from-env`` measures the index ``DEJA_HOME`` names, of the history ``DEJA_CURSOR_ROOT`` and
``DEJA_CURSOR_CLI_ROOT`` name, instead of ``bench/out``'s (a copy of an index built elsewhere, its history's paths
unchanged; the transcript appended to is replaced by a copy of its own before the first append, whatever the copy
of the history is made of, hard links or symbolic links: ``bench_index._append_turn``, so a shared history is never
written through).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from bench_hooks import install_for, process_ms, spawn  # noqa: E402
from bench_index import OUT, _append_turn, _newest_transcript, _walked_just_now, history_for, user_bin  # noqa: E402

from deja.core.index import Index, index_dir  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402

KINDS = ("pass", "index", "search", "stop", "hooked")
#: How long the detached ingest a ``stop`` hook starts may take before the bench gives up on it.
INGEST_SECONDS = 300.0


def stop_command(bin_dir: Path) -> str:
    """The command ``deja install cursor-auto`` of ``bin_dir``'s deja writes for Cursor's ``stop`` (for an install
    from before that hook, the same command it writes for ``sessionEnd``), installed into a scratch HOME."""
    with tempfile.TemporaryDirectory(prefix="bench-turn-home-") as scratch:
        env = {
            **os.environ,
            "HOME": scratch,
            "DEJA_HOME": os.path.join(scratch, "deja"),  # (the install ledger: not the measured index's home)
            "XDG_CONFIG_HOME": os.path.join(scratch, ".config"),
            "PATH": os.pathsep.join([str(bin_dir), os.defpath]),  # (install names the ``deja`` on PATH)
        }
        subprocess.run([str(bin_dir / "deja"), "install", "cursor-auto"], env=env, check=True, capture_output=True)
        hooks = json.loads(Path(scratch, ".cursor", "hooks.json").read_text())["hooks"]
    [entry] = hooks.get("stop") or hooks["sessionEnd"]
    return entry["command"]


def stop_payload(transcript: Path) -> bytes:
    """What Cursor sends ``stop`` at the end of a turn in the chat of ``transcript``."""
    chat = transcript.stem
    event = {"hook_event_name": "stop", "conversation_id": chat, "generation_id": "bench", "status": "completed"}
    return json.dumps({**event, "loop_count": 0, "transcript_path": str(transcript)}).encode()


def hook_then_ingested(command: str, payload: bytes, env: dict[str, str], home: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of the hook's own process (``sh`` and the hook: the detached ingest it starts is not its
    child), then, untimed, the wait for that ingest's line in ``hooks.log`` (the hook logs one line, the ingest
    another)."""
    log = home / "hooks.log"
    before = _lines(log)
    done = spawn(["sh", "-c", command], payload, env)
    deadline = time.monotonic() + INGEST_SECONDS
    while _lines(log) < before + 2:
        if time.monotonic() > deadline:
            raise SystemExit(f"the stop hook's ingest never logged its end in {log}")
        time.sleep(0.02)
    return 1000 * done.seconds, 1000 * done.cpu_seconds


def _lines(log: Path) -> int:
    try:
        return log.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _bare_transcript(home: Path) -> Path:
    """The transcript of a chat with no chat store that the index filed through another store's folder, made one
    the freshness record checks (a refresh of it alone), so that each turn appended to it is seen."""
    index = Index.open(home)
    found = next(
        meta
        for segment in reversed(index.segments)
        for _, meta in segment.live_sessions()
        if meta.source == "cursor-cli" and meta.project_from == "transcript folder" and meta.origin.endswith(".jsonl")
    )
    transcript = Path(found.origin)
    _append_turn(transcript)
    refresh(home, only_chat_ids={found.id})
    return transcript


def measure(
    size: int, bins: list[Path], rounds: int, bare: bool = False, from_env: bool = False
) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """(wall, CPU) of every run, by environment and kind, interleaved round by round."""
    home = Path(os.environ["DEJA_HOME"]) if from_env else OUT / f"home-{size}"
    env = {**os.environ, **({} if from_env else history_for(size).environment(home))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: the installed bytecode is used
    os.environ.update(env)
    assert (index_dir(home) / "manifest.msgpack").exists(), (
        f"build it first: python bench/bench_index.py --sizes {size}"
    )
    transcript = _bare_transcript(home) if bare else _newest_transcript(home)
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {str(b): {kind: [] for kind in KINDS} for b in bins}
    hooks = {bin_dir: stop_command(bin_dir) for bin_dir in bins}
    search = ["search", "retry", "uploader", "--json"]
    for _ in range(rounds):
        for bin_dir in bins:
            mine = runs[str(bin_dir)]
            _walked_just_now(index_dir(home))
            mine["pass"].append(process_ms([str(bin_dir / "python"), "-c", "pass"], env))
            _append_turn(transcript)
            mine["index"].append(process_ms([str(bin_dir / "deja"), "index", "--json"], env))
            _append_turn(transcript)
            mine["search"].append(process_ms([str(bin_dir / "deja"), *search], env))
            _append_turn(transcript)
            mine["stop"].append(hook_then_ingested(hooks[bin_dir], stop_payload(transcript), env, home))
            mine["hooked"].append(process_ms([str(bin_dir / "deja"), *search], env))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--against", action="append", default=[], help="another environment's bin folder, or a revision"
    )
    parser.add_argument("--bare", action="store_true", help="append to a chat with a transcript and no chat store")
    parser.add_argument("--from-env", action="store_true", help="the index and history the DEJA_* variables name")
    args = parser.parse_args()
    bins = [user_bin(), *(install_for(other) for other in args.against)]
    runs = measure(args.size, bins, args.rounds, args.bare, args.from_env)
    chat = "a chat with no store, " if args.bare else ""
    print(f"{args.size} sessions, {chat}{args.rounds} rounds, load average {os.getloadavg()[0]:.1f} at the end")
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
