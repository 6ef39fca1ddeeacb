"""Every prompt of both gate benchmarks through the prompt hook's recall, recorded, so that a change to search can
show it left what the gate decides untouched.

    python bench/gate_diff.py --out bench/out/gate-before.jsonl                # on the code before the change
    python bench/gate_diff.py --out bench/out/gate-after.jsonl --against bench/out/gate-before.jsonl

Each record is one (benchmark, index, mode, prompt) and what ``recall_for`` made of it: the sessions injected, why
(the gate's figures, rounded as the hook prints them) and the lines injected. The prompts are those the gate
benchmarks ask: ``bench/coding_history.py``'s questions against its history, and ``bench/bench_prompt_precision.py``'s
LoCoMo questions against their own conversation and, as asked and with the names swapped, against every other one.
The clock that search's recency and the headings' "days ago" read is pinned, so two runs on the same day or months
apart differ only by the code. With ``--against``, every prompt whose record differs is printed, then their count.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_prompt_precision import ADVERSARIAL, prepare  # noqa: E402
from coding_data import build  # noqa: E402
from locomo import DEFAULT_DATA  # noqa: E402

from deja.core import search as search_module  # noqa: E402
from deja.core.index import Index  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402
from deja.hooks import describe  # noqa: E402
from deja.hooks.prompt import recall_for  # noqa: E402

#: 2026-12-01 00:00 UTC: what ``time.time()`` says to search and to the headings while the prompts are asked.
PINNED_NOW = 1_796_083_200.0

Prompt = tuple[str, str, Index, str]  # benchmark, index name, index, prompt


class _PinnedClock:
    """``time`` as search and the headings use it, with ``time()`` held at PINNED_NOW."""

    perf_counter = staticmethod(time.perf_counter)
    strftime = staticmethod(time.strftime)
    localtime = staticmethod(time.localtime)

    @staticmethod
    def time() -> float:
        return PINNED_NOW


def coding_prompts(work: Path) -> Iterator[Prompt]:
    built = build(work / "history")
    os.environ.update(built.history.environment(work / "home"))
    refresh(work / "home")
    index = Index.open(work / "home")
    for q in built.questions:
        yield "coding", "coding", index, q.text


def locomo_prompts(work: Path, data: Path) -> Iterator[Prompt]:
    conversations = prepare(data, work)
    indexes = {c.name: Index.open(c.home) for c in conversations}
    for c in conversations:
        for q in c.questions:
            if q.category != ADVERSARIAL and q.gold:
                yield "locomo", c.name, indexes[c.name], q.text
            for other in conversations:
                if other is not c:
                    yield "locomo", other.name, indexes[other.name], q.text
                    yield "locomo", other.name, indexes[other.name], c.renamed(q.text, other)


def records(prompts: list[Prompt], modes: list[str]) -> Iterator[dict[str, object]]:
    for mode in modes:
        for benchmark, name, index, prompt in prompts:
            recall = recall_for(index, prompt, mode, exclude=set(), seen=set())
            yield {
                "key": [benchmark, name, mode, prompt],
                "sessions": recall.session_ids,
                "why": recall.why,
                "lines": recall.lines,
            }


def compare(now: dict[str, dict[str, object]], before_path: Path) -> int:
    """Print every prompt whose record differs from ``before_path``'s (or is in only one); their count."""
    before = {}
    with before_path.open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            before[json.dumps(record["key"])] = record
    changed = 0
    for key in sorted(before.keys() | now.keys()):
        if before.get(key) != now.get(key):
            changed += 1
            print(f"changed: {key}\n  before: {before.get(key)}\n  after:  {now.get(key)}")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the records (JSON lines)")
    parser.add_argument("--against", type=Path, help="records of an earlier run to compare with")
    parser.add_argument("--modes", default="safe,aggressive")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of LoCoMo conversation JSON files")
    args = parser.parse_args()
    search_module.time = describe.time = _PinnedClock  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="deja-gate-diff-") as tmp:
        work = Path(tmp)
        prompts = list(coding_prompts(work / "coding"))
        if args.data.is_dir() and any(args.data.glob("*.json")):
            prompts += locomo_prompts(work / "locomo", args.data)
        else:
            print(f"LoCoMo data not found at {args.data}: only the coding benchmark's prompts are asked")
        started = time.perf_counter()
        now = {}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", encoding="utf-8") as f:
            for record in records(prompts, args.modes.split(",")):
                f.write(json.dumps(record) + "\n")
                now[json.dumps(record["key"])] = record
        print(f"{len(now)} prompts asked in {time.perf_counter() - started:.1f} s, recorded in {args.out}")
    if args.against:
        print(f"{compare(now, args.against)} of {len(now)} prompts recall differently than in {args.against}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
