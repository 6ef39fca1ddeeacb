"""Retrieval on a coding history: search R@1, R@5 and MRR, and the prompt gate, on a tuning, a reporting and a blind set.

The history and its questions come from ``bench/coding_data.py`` (seeded, six
projects sharing their vocabulary, look-alike incidents, buried answers). It is
indexed with the normal refresh; every question is asked verbatim through
``deja.core.search.search`` and through the prompt hook's ``recall_for``.

- search: the rank of the session holding the answer, for answerable questions
  (by kind: the symptom, or what a command printed);
- gate, answerable: the right session is among those injected;
- gate, unanswerable: anything at all is injected (it should stay silent);
- gate, near misses: anything injected for an answerable question asked with its answer's session left out of the
  search, the history holding its look-alikes only (it should stay silent): hard negatives for every half, the
  tuning half's among them, that nobody wrote.

Constants are tuned on the tuning half only. The reporting half has been read
(its misses were printed during earlier rounds), so the blind set
(``coding_data.BLIND``, written without running search or the gate on it) is
the honest measure; its misses are never listed.

    python bench/coding_history.py [--modes safe,aggressive] [--show-misses]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from coding_data import CodingHistory, Question, build  # noqa: E402

from deja.core.index import Index  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402
from deja.core.search import Filters, search  # noqa: E402
from deja.hooks.prompt import recall_for  # noqa: E402

#: The question sets reported; only the first two can have their misses listed
#: (``--show-misses``): the blind set is never looked at question by question.
HALVES = ("tuning", "reporting", "blind")


def ranks(index: Index, questions: list[Question]) -> tuple[dict[int, int | None], dict[int, str]]:
    """Each answerable question's 1-based rank of its session in the top 10 (or None), and what ranked first."""
    found: dict[int, int | None] = {}
    first: dict[int, str] = {}
    for i, q in enumerate(questions):
        if not q.gold:
            continue
        hits = search(index, q.text, limit=10, snippets=0).hits
        found[i] = next((r for r, hit in enumerate(hits, 1) if hit.session_id == q.gold), None)
        first[i] = f"{hits[0].title} {hits[0].matched}" if hits else "nothing"
    return found, first


def search_table(questions: list[Question], found: dict[int, int | None]) -> list[str]:
    lines = [f"{'search':<22} {'R@1':>7} {'R@5':>7} {'MRR':>6} {'n':>4}"]
    for half in HALVES:
        groups: dict[str, list[int | None]] = defaultdict(list)
        for i, rank in found.items():
            if questions[i].half == half:
                groups["all"].append(rank)
                groups[questions[i].kind].append(rank)
        for kind in ("all", "symptom", "printed"):
            rows = groups[kind]
            n = len(rows) or 1
            r1 = 100 * sum(r == 1 for r in rows) / n
            r5 = 100 * sum(r is not None and r <= 5 for r in rows) / n
            mrr = sum(1 / r for r in rows if r) / n
            lines.append(f"{half + ' ' + kind:<22} {r1:6.1f}% {r5:6.1f}% {mrr:6.3f} {len(rows):4d}")
    return lines


def gate_table(index: Index, questions: list[Question], mode: str) -> list[str]:
    """Right session injected (answerable), anything injected (unanswerable), and anything injected for an answerable
    question asked with its answer's session left out of the history (a near miss: its look-alikes are all there),
    per half."""
    right: dict[str, list[bool]] = defaultdict(list)
    noisy: dict[str, list[bool]] = defaultdict(list)
    near: dict[str, list[bool]] = defaultdict(list)
    for q in questions:
        shown = recall_for(index, q.text, mode, exclude=set(), seen=set()).session_ids
        if q.gold:
            right[q.half].append(q.gold in shown)
            near[q.half].append(bool(recall_for(index, q.text, mode, exclude={q.gold}, seen=set()).session_ids))
        else:
            noisy[q.half].append(bool(shown))
    lines = []
    for half in HALVES:
        r, n, m = right[half], noisy[half], near[half]
        lines.append(
            f"gate {mode:<10} {half:<9} right session {100 * sum(r) / (len(r) or 1):5.1f}% of {len(r):<3}"
            f"  any injection on unanswerable {100 * sum(n) / (len(n) or 1):5.1f}% of {len(n):<3}"
            f"  on near misses {100 * sum(m) / (len(m) or 1):5.1f}% of {len(m)}"
        )
    return lines


def misses(
    index: Index, questions: list[Question], found: dict[int, int | None], first: dict[int, str], half: str
) -> list[str]:
    """The questions not ranked first: the answer's session (title, the query terms it holds) and what won."""
    lines = []
    for i, rank in found.items():
        q = questions[i]
        if rank == 1 or q.half != half:
            continue
        gold = search(index, q.text, limit=1, snippets=0, filters=Filters(session_id=q.gold)).hits
        held = f"{gold[0].title} {gold[0].matched}" if gold else "(no query term)"
        lines.append(f"  rank {rank}: [{q.kind}] {q.text}\n    answer: {held}\n    first:  {first[i]}")
    return lines


def gate_misses(index: Index, questions: list[Question], mode: str, half: str) -> list[str]:
    """The prompts the gate got wrong: silent or off-target on answerable ones, speaking on unanswerable ones."""
    lines = []
    for q in questions:
        if q.half != half:
            continue
        recall = recall_for(index, q.text, mode, exclude=set(), seen=set())
        shown = recall.session_ids
        if (q.gold and q.gold not in shown) or (not q.gold and shown):
            top = search(index, q.text, limit=2, snippets=0)
            seen = "; ".join(f"{h.title[:50]} {h.matched} {h.score:.2f}" for h in top.hits)
            what = "missed" if q.gold else "spoke"
            lines.append(f"  {what} ({len(shown)} shown): {q.text}\n    top: {seen}\n    gate: {recall.why}")
    return lines


def run(built: CodingHistory, home: Path, modes: list[str], show_misses: str | None) -> None:
    started = time.perf_counter()
    refresh(home)
    index = Index.open(home)
    answerable = sum(bool(q.gold) for q in built.questions)
    print(
        f"{built.sessions} sessions, {index.message_count} messages indexed in {time.perf_counter() - started:.1f} s; "
        f"{answerable} answerable and {len(built.questions) - answerable} unanswerable questions"
    )
    found, first = ranks(index, built.questions)
    print("\n".join(search_table(built.questions, found)))
    for mode in modes:
        print("\n".join(gate_table(index, built.questions, mode)))
    if show_misses:
        print(f"\nmisses ({show_misses} half):")
        print("\n".join(misses(index, built.questions, found, first, show_misses)))
        for mode in modes:
            print(f"\ngate {mode}, wrong ({show_misses} half):")
            print("\n".join(gate_misses(index, built.questions, mode, show_misses)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default="safe,aggressive")
    parser.add_argument("--show-misses", choices=HALVES[:2], default=None, help="list the questions not ranked first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deja-coding-") as tmp:
        work = Path(tmp)
        built = build(work / "history")
        os.environ.update(built.history.environment(work / "home"))
        run(built, work / "home", args.modes.split(","), args.show_misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
