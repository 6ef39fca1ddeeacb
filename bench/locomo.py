"""LoCoMo retrieval through deja's production path: R@1, R@5 and MRR per category.

Each LoCoMo session is written as one cursor-agent chat (turns as
``Speaker: text``, the session's date in the ``<timestamp>`` block), indexed
with the normal refresh, and every question is asked verbatim through
``deja.core.search.search``. A question's gold sessions are those its evidence
names. Method: ``../shared/bench-data/README.md``.

    python bench/locomo.py [--data ../shared/bench-data/locomo] [--limit-conversations N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import orjson

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

#: ``shared/bench-data/locomo`` beside the checkout (or beside the folder of worktrees holding it).
DEFAULT_DATA = next(
    (p / "shared" / "bench-data" / "locomo" for p in Path(__file__).resolve().parents[1:4] if (p / "shared").is_dir()),
    Path(__file__).resolve().parents[2] / "shared" / "bench-data" / "locomo",
)
HALVES = ("tuning", "reporting")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def session_numbers(conversation: dict) -> list[int]:
    return sorted(int(k.split("_")[1]) for k in conversation if k.startswith("session_") and k.count("_") == 1)


def session_date(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` as an aware datetime (LoCoMo gives no zone: UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def chat_id(conversation_name: str, number: int) -> str:
    return f"locomo-{conversation_name}-s{number:02d}"


def write_conversation(conversation: dict, name: str, cli_root: Path) -> dict[str, int]:
    """Write every session of one LoCoMo conversation as a cursor-agent chat; chat id -> session number."""
    first_speaker = conversation["speaker_a"]
    chats = {}
    for number in session_numbers(conversation):
        when = session_date(conversation[f"session_{number}_date_time"])
        records = []
        stamped = False
        for turn in conversation[f"session_{number}"]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn["speaker"] == first_speaker:
                records.append(user_turn(text, None if stamped else when))
                stamped = True
            else:
                records.append(assistant_turn(text))
        cid = chat_id(name, number)
        write_transcript(transcript_path(cli_root, "/locomo/" + name, cid), records)
        chats[cid] = number
    return chats


def half_of(files: list[Path], file: Path) -> str:
    """Conversations alternate between the tuning half and the reporting half, in file-name order."""
    return HALVES[sorted(files).index(file) % 2]


def gold_sessions(question: dict) -> set[int]:
    gold = set()
    for evidence in question.get("evidence") or []:
        for part in str(evidence).replace(";", " ").split():
            if part.startswith("D") and ":" in part:
                try:
                    gold.add(int(part[1:].split(":")[0]))
                except ValueError:
                    continue
    return gold


def evaluate(data: Path, limit_conversations: int | None = None) -> dict:
    files = sorted(data.glob("*.json"))[:limit_conversations]
    per_category: dict[tuple[str, str], list[tuple[bool, bool, float]]] = defaultdict(list)
    latencies = []
    for file in files:
        conversation = orjson.loads(file.read_bytes())
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            os.environ["DEJA_CURSOR_CLI_ROOT"] = str(root / "cli")
            os.environ["DEJA_CURSOR_ROOT"] = str(root / "no-ide")
            chats = write_conversation(conversation, file.stem, root / "cli")
            refresh(root / "home")
            index = Index.open(root / "home")
            for question in conversation["qa"]:
                gold = gold_sessions(question)
                if not gold:
                    continue
                started = time.perf_counter()
                hits = search(index, str(question["question"]), limit=10, snippets=0).hits
                latencies.append(time.perf_counter() - started)
                ranks = [i for i, hit in enumerate(hits, 1) if chats.get(hit.session_id) in gold]
                first = ranks[0] if ranks else None
                row = (first == 1, first is not None and first <= 5, 1 / first if first else 0.0)
                category = CATEGORIES.get(question["category"], str(question["category"]))
                per_category[(half_of(files, file), category)].append(row)
    return {"per_category": per_category, "latencies": latencies, "conversations": len(files)}


def summarise(rows: list[tuple[bool, bool, float]]) -> tuple[float, float, float, int]:
    n = len(rows) or 1
    return (
        100 * sum(r[0] for r in rows) / n,
        100 * sum(r[1] for r in rows) / n,
        sum(r[2] for r in rows) / n,
        len(rows),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit-conversations", type=int, default=None)
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"skipped: LoCoMo data not found at {args.data} (it ships with CI's shared/ folder)")
        return 0
    result = evaluate(args.data, args.limit_conversations)
    print(f"LoCoMo over {result['conversations']} conversations, lexical search only")
    print(f"{'category':<12} {'R@1':>7} {'R@5':>7} {'MRR':>6} {'n':>5}   (tuning half | reporting half)")
    everything: list[tuple[bool, bool, float]] = []
    for name in [*CATEGORIES.values(), "total"]:
        cells = []
        for half in HALVES:
            if name == "total":
                rows = [r for (h, _), found in result["per_category"].items() if h == half for r in found]
            else:
                rows = result["per_category"].get((half, name), [])
                everything += rows
            r1, r5, mrr, n = summarise(rows)
            cells.append(f"{r1:6.1f}% {r5:6.1f}% {mrr:6.3f} {n:5d}")
        print(f"{name:<12} {cells[0]}   | {cells[1]}")
    r1, r5, mrr, n = summarise(everything)
    print(f"{'all':<12} {r1:6.1f}% {r5:6.1f}% {mrr:6.3f} {n:5d}")
    lat = sorted(result["latencies"])
    if lat:
        print(f"search latency p50 {1000 * lat[len(lat) // 2]:.2f} ms, p95 {1000 * lat[int(len(lat) * 0.95)]:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
