"""Run every benchmark in one go and print their tables.

    python bench/run_all.py            # 1k and 10k sessions
    python bench/run_all.py --large    # also 100k sessions (about 2 GB of generated history)

Generated histories and indexes are kept under ``bench/out/`` (git-ignored) and reused.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="include the 100k-session history")
    args = parser.parse_args()
    sizes = "1000,10000,100000" if args.large else "1000,10000"
    pair = "1000,100000" if args.large else "1000,10000"
    runs = [
        ("redaction cost per MB", ["bench_redact.py"]),
        ("read throughput", ["bench_read.py", "--sizes", "10000,100000" if args.large else "1000,10000"]),
        ("index build, refresh and search", ["bench_index.py", "--sizes", sizes]),
        ("crash safety and damage checks", ["bench_durability.py", "--sizes", sizes]),
        ("LoCoMo retrieval", ["locomo.py"]),
        ("hook latency", ["bench_hooks.py", "--sizes", pair]),
        ("hook-prompt precision", ["bench_prompt_precision.py"]),
        ("MCP server", ["bench_mcp.py", "--sessions", pair, "--workdir", str(HERE / "out" / "mcp")]),
        (
            "memory over a one-line transcript",
            ["bench_long_line.py", "--megabytes", "1,200,2000" if args.large else "1,200"],
        ),
        ("project resolution", ["bench_projects.py"]),
    ]
    failed = []
    for title, command in runs:
        print(f"\n== {title}: python bench/{' '.join(command)}", flush=True)
        if subprocess.run([sys.executable, str(HERE / command[0]), *command[1:]]).returncode:
            failed.append(title)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
