"""Peak memory of `deja index` and `deja search` over a transcript of one huge line.

    python bench/bench_long_line.py [--megabytes 200,1000,2000]

For each size, a cursor-agent transcript is written sparsely (a short first
turn, then one assistant line of that many bytes, then one more turn) beside a
small chat, and `deja index` then `deja search` run on it as processes; the
figure is each one's peak resident memory (``ru_maxrss`` of the child). The
target: flat, whatever the line's length (a line over the reader's cap is
passed over as it streams, never held).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def _write_history(root: Path, megabytes: int) -> dict[str, str]:
    cli_root, project = root / "cursor", root / "code" / "api"
    project.mkdir(parents=True)
    (root / "ide").mkdir()
    write_transcript(
        transcript_path(cli_root, str(project), "small000-chat"), [user_turn("hello zebra"), assistant_turn("hi")]
    )
    huge = transcript_path(cli_root, str(project), "huge0000-chat")
    huge.parent.mkdir(parents=True, exist_ok=True)
    head = orjson.dumps(user_turn("the first line mentions giraffes")) + b"\n"
    with huge.open("wb") as out:
        out.write(head + b'{"role":"assistant","message":{"content":[{"type":"text","text":"')
        out.seek(len(head) + (megabytes << 20))
        out.write(b'"}]}}\n' + orjson.dumps(user_turn("and the last one okapis")) + b"\n")
    return {
        **os.environ,
        "DEJA_HOME": str(root / "deja"),
        "DEJA_CURSOR_CLI_ROOT": str(cli_root),
        "DEJA_CURSOR_ROOT": str(root / "ide"),
    }


def _peak_mib(env: dict[str, str], *args: str) -> tuple[float, float, int]:
    """Peak RSS (MiB) and seconds of one `deja ARGS` process, and its exit status."""
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)\n"
    )
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", script, sys.executable, "-m", "deja.interfaces.entry", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    kib = int(out[0]) if sys.platform != "darwin" else int(out[0]) // 1024
    return kib / 1024, time.perf_counter() - started, int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", default="1,200,1000", help="comma-separated line lengths in MiB")
    sizes = [int(size) for size in parser.parse_args().megabytes.split(",")]
    print(f"{'line MiB':>9} {'index MiB':>10} {'index s':>8} {'search MiB':>11} {'search s':>9}")
    for megabytes in sizes:
        with tempfile.TemporaryDirectory() as folder:
            env = _write_history(Path(folder), megabytes)
            index_mib, index_s, index_rc = _peak_mib(env, "index")
            search_mib, search_s, search_rc = _peak_mib(env, "search", "okapis")
            failed = "" if index_rc == search_rc == 0 else f"  (exit {index_rc}/{search_rc})"
            print(f"{megabytes:>9} {index_mib:>10.0f} {index_s:>8.2f} {search_mib:>11.0f} {search_s:>9.2f}{failed}")


if __name__ == "__main__":
    main()
