"""Each benchmark's figures as JSON under ``bench/out/``, read back by ``run_all.py`` for its one table.

A file holds ``{size: {figure: value}}`` (sizes as strings, as JSON keys are); a benchmark
writes its own file whole at the end of its run, so a table never mixes two runs of one benchmark.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

import orjson

OUT = Path(__file__).resolve().parent / "out"
#: The keys of a file's stamp, beside its sizes (which are digits, so ``read`` leaves these out).
WRITTEN, LOAD = "written", "load"


def write(bench: str, by_size: Mapping[int, Mapping[str, object]]) -> Path:
    """``bench/out/<bench>.json``, stamped with when it was written and the load average then (a figure from a
    shared machine means little without it); returns its path."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{bench}.json"
    stamp = {WRITTEN: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), LOAD: os.getloadavg()[0]}
    path.write_bytes(orjson.dumps({**stamp, **by_size}, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS))
    return path


def stamp(bench: str) -> tuple[str, float] | None:
    """When ``write`` wrote ``bench``'s file and the 1-minute load average then; None if it has no stamp."""
    try:
        found = orjson.loads((OUT / f"{bench}.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    written, load = found.get(WRITTEN), found.get(LOAD)
    return (written, float(load)) if isinstance(written, str) and isinstance(load, int | float) else None


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
