"""Each benchmark's figures as JSON under ``bench/out/``, read back by ``run_all.py`` for its one table.

A file holds ``{size: {figure: value}}`` (sizes as strings, as JSON keys are); a benchmark
writes its own file whole at the end of its run, so a table never mixes two runs of one benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import orjson

OUT = Path(__file__).resolve().parent / "out"


def write(bench: str, by_size: Mapping[int, Mapping[str, object]]) -> Path:
    """``bench/out/<bench>.json``; returns its path."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{bench}.json"
    path.write_bytes(orjson.dumps(by_size, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS))
    return path


def read(bench: str) -> dict[int, dict[str, object]]:
    """What ``write`` left for ``bench``, by size; empty when the benchmark has not run (or its file is unreadable)."""
    try:
        found = orjson.loads((OUT / f"{bench}.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return {int(size): figures for size, figures in found.items() if size.isdigit() and isinstance(figures, dict)}


def percentile(values: list[float], p: float) -> float:
    """The value at fraction ``p`` of ``values`` sorted (nearest rank, rounding down): every benchmark's p50 and p95."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]
