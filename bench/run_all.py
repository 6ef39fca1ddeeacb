"""Run every benchmark in one go, print their tables, and end with one table of the issue-15 figures.

    python bench/run_all.py            # 1k and 10k sessions
    python bench/run_all.py --large    # also 100k sessions (about 2 GB of generated history)
    python bench/run_all.py --summary  # only the last table, from the figures the benchmarks left

Generated histories and indexes are kept under ``bench/out/`` (git-ignored) and reused. Each
benchmark writes its figures to ``bench/out/<bench>.json`` (``figures.py``); the last table reads
them, so a figure no benchmark measured prints as "—".
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
from pathlib import Path

import figures
from generate import SOURCE_NOTE

HERE = Path(__file__).resolve().parent
MISSING = "—"

#: The summary's rows: what is shown, which benchmark's file and figure hold it (a ``/`` path reaches into a figure
#: that is a table), how it is written, and issue 15's target for it.
SUMMARY: list[tuple[str, str, str, str, str]] = [
    ("python -c pass (the hooks' floor)", "bench_hooks", "pass_ms", "{:.1f} ms", ""),
    ("hook-prompt that recalls", "bench_hooks", "rows/hook-prompt/median_ms", "{:.0f} ms", "< 48 ms at 1k"),
    ("hook-prompt ÷ pass", "bench_hooks", "hook_prompt_x_pass", "{:.1f}×", "≤ 2×"),
    ("slowest hook ÷ pass", "bench_hooks", "hook_worst_x_pass", "{:.1f}×", "≤ 2×"),
    ("deja search, nothing changed", "bench_index", "cli_search_p50_ms", "{:.0f} ms", ""),
    ("deja search ÷ pass, nothing changed", "bench_index", "cli_search_x_pass", "{:.1f}×", "≤ 3×"),
    ("deja search ÷ pass, after one turn", "bench_index", "cli_search_after_turn_x_pass", "{:.1f}×", "≤ 4×"),
    ("  served by the hook server (wall ÷ pass)", "bench_search_served", "unchanged_served_x_pass", "{:.1f}×", "≤ 3×"),
    ("  served, after one turn (wall ÷ pass)", "bench_search_served", "after_a_turn_served_x_pass", "{:.1f}×", "≤ 4×"),
    ("search in-process, p50 wall", "bench_index", "search_p50_ms", "{:.1f} ms", ""),
    ("search in-process, p50 CPU", "bench_index", "search_cpu_p50_ms", "{:.1f} ms", ""),
    (
        "deja index after one turn (walks every chat)",
        "bench_index",
        "index_after_turn_ms",
        "{:.0f} ms",
        "≤ 150 ms at 100k",
    ),
    ("  its CPU (user and system)", "bench_index", "index_after_turn_cpu_ms", "{:.0f} ms", ""),
    ("  its CPU ÷ pass", "bench_index", "index_after_turn_x_pass", "{:.1f}×", ""),
    ("  in-process CPU (the refresh alone)", "bench_index", "index_after_turn_in_process_cpu_ms", "{:.0f} ms", ""),
    ("refresh after one turn (in-process)", "bench_index", "refresh_one_turn_stat_pass_ms", "{:.0f} ms", ""),
    ("MCP search, real history, slowest arrival", "bench_mcp_history", "slowest_ms", "{:.0f} ms", "≤ 50 ms"),
    ("MCP search (synthetic index, p50)", "bench_mcp", "search_p50_ms", "{:.1f} ms", ""),
    ("MCP start → first tools/list", "bench_mcp", "startup_ms", "{:.0f} ms", ""),
    ("  of it the SDK's import", "bench_mcp", "sdk_import_ms", "{:.0f} ms", ""),
    ("  deja's own share (CPU)", "bench_mcp", "deja_startup_cpu_ms", "{:.0f} ms", "≤ 100 ms"),
    ("full build, source MB/s", "bench_index", "mb_per_s", "{:.1f}", "≥ 20"),
    ("full build, source MB per CPU second", "bench_index", "mb_per_cpu_s", "{:.1f}", ""),
    ("full build, load average at its end", "bench_index", "build_load", "{:.1f}", ""),
    ("full build, CPU", "bench_index", "build_cpu_s", "{:.1f} s", ""),
    ("full build, peak RSS", "bench_index", "build_peak_rss_mb", "{:.0f} MiB", "100k ≤ 1.5× 10k"),
    ("index size ÷ source", "bench_index", "index_share", "{:.0%}", "≤ 25%"),
    ("files deja left in Cursor's folders", "bench_index", "companions_created", "{:.0f}", "0"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="include the 100k-session history")
    parser.add_argument("--summary", action="store_true", help="print only the summary of the figures already written")
    args = parser.parse_args()
    sizes = [1000, 10000, 100000] if args.large else [1000, 10000]
    failed = [] if args.summary else run_benchmarks(sizes, args.large)
    print_summary(sizes)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


def run_benchmarks(size_list: list[int], large: bool) -> list[str]:
    """Every benchmark in turn, its own table printed as it goes; the titles of those that failed."""
    sizes = ",".join(map(str, size_list))
    runs = [
        ("redaction cost per MB", ["bench_redact.py"]),
        ("read throughput", ["bench_read.py", "--sizes", "10000,100000" if large else "1000,10000"]),
        ("index build, refresh and search", ["bench_index.py", "--sizes", sizes]),
        ("crash safety and damage checks", ["bench_durability.py", "--sizes", sizes]),
        ("LoCoMo retrieval", ["locomo.py"]),
        ("hook latency", ["bench_hooks.py", "--sizes", sizes]),
        ("deja search served by the hook server", ["bench_search_served.py", "--sizes", sizes]),
        ("hook-prompt precision", ["bench_prompt_precision.py"]),
        # A synthetic index at 1k and 10k (an empty Cursor folder: in-server latency and start-up); at 100k the
        # real history and the index bench_index built, where the freshness check sees a real Cursor folder.
        ("MCP server", ["bench_mcp.py", "--sessions", "1000,10000", "--workdir", str(HERE / "out" / "mcp")]),
        *([("MCP search on the real 100k history", ["bench_mcp.py", "--history", "100000"])] if large else []),
        (
            "memory over a one-line transcript",
            ["bench_long_line.py", "--megabytes", "1,200,2000" if large else "1,200"],
        ),
        ("project resolution", ["bench_projects.py"]),
    ]
    failed = []
    for title, command in runs:
        print(f"\n== {title}: python bench/{' '.join(command)}", flush=True)
        if subprocess.run([sys.executable, str(HERE / command[0]), *command[1:]]).returncode:
            failed.append(title)
    return failed


def print_summary(sizes: list[int]) -> None:
    """One table: each figure at each size, its largest ÷ smallest size and its target, from ``bench/out/*.json``;
    then when each benchmark wrote its figures and the machine's load then."""
    benches = sorted({bench for _, bench, _, _, _ in SUMMARY})
    found = {bench: figures.read(bench) for bench in benches}
    first, last = sizes[0], sizes[-1]
    ratio = f"{last // 1000}k ÷ {first // 1000}k"
    print(f"\n== issue-15 figures (bench/out/*.json; {SOURCE_NOTE})")
    print(f"{'figure':42}" + "".join(f"{f'{size // 1000}k':>11}" for size in sizes) + f"{ratio:>11}  target")
    for label, bench, key, form, target in SUMMARY:
        values = [_value(found[bench], size, key) for size in sizes]
        cells = [MISSING if value is None else form.format(value) for value in values]
        small, large = values[0], values[-1]
        ratio_cell = f"{large / small:.2f}" if small and large is not None else MISSING
        print(f"{label:42}" + "".join(f"{cell:>11}" for cell in cells) + f"{ratio_cell:>11}  {target}")
    stamps = {bench: figures.stamp(bench) for bench in benches}
    written = [f"{bench} {stamp[0]}, load {stamp[1]:.1f}" for bench, stamp in stamps.items() if stamp]
    print(f"written (1-minute load average then; {os.cpu_count()} cores): " + ("; ".join(written) or MISSING))


def _value(by_size: dict[int, dict[str, object]], size: int, key: str) -> float | None:
    """The figure at ``key`` (``a/b/c`` reaches into nested tables), or None when it is not a finite number."""
    value: object = by_size.get(size, {})
    for part in key.split("/"):
        value = value.get(part) if isinstance(value, dict) else None
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


if __name__ == "__main__":
    sys.exit(main())
