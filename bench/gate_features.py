"""What the prompt gate sees for each prompt of both gate benchmarks' TUNING halves, one JSON line a prompt, so that
a rule can be designed and tuned on them away from the hook (and never on the reporting halves or the blind set).

    python bench/gate_features.py OUT.jsonl

A line holds the prompt's terms with their weight in what it asks (``Asked``), and for the first sessions search
gives the gate: the score, the terms matched, the terms of the best message; and the gate's own decisions (the
sessions ``recall_for`` shows per mode), with ``label``: the sessions that answer it ([] when none does). Each
answerable prompt is asked a second time with its answer's sessions left out of the search (``coding-without``,
``locomo-without``): a near miss, the history holding its look-alikes and not its answer, where the gate should
stay silent.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_prompt_precision import ADVERSARIAL, prepare  # noqa: E402
from coding_data import build  # noqa: E402
from locomo import DEFAULT_DATA  # noqa: E402

from deja.core.fields import doc_text, field_texts  # noqa: E402
from deja.core.index import Index  # noqa: E402
from deja.core.index.format import KIND_TITLE  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402
from deja.core.search import Filters, Hit, best_terms, query_terms, search  # noqa: E402
from deja.core.text import terms  # noqa: E402
from deja.hooks.prompt import COMMON_POSTINGS_READ, GATES, POSTINGS_READ, Asked, recall_for  # noqa: E402

#: benchmark, index, prompt, the sessions answering it, the sessions left out of the search
Asking = tuple[str, Index, str, list[str], frozenset[str]]


def turn_terms(index: Index, hit: Hit, wanted: set[str]) -> tuple[set[str], int]:
    """The ``wanted`` terms the hit's best turn holds (its best doc's message, with what its commands printed, their
    errors and its edits; the title alone when the title matched best), and the best doc's kind."""
    segment = index.segments[hit.best[0]]
    kind = segment.kind(hit.best[1])
    doc = segment.message_doc(hit.best[1])
    message = segment.message(doc)
    if segment.kind(doc) == KIND_TITLE:
        return set(terms(message.text)) & wanted, kind
    found = set(terms(doc_text(message))) & wanted
    for text in field_texts(message).values():
        found.update(set(terms(text)) & wanted)
    return found, kind


def row(index: Index, prompt: str, exclude: frozenset[str] = frozenset()) -> dict:
    """The gate's inputs for ``prompt``: what it asks and the first sessions search gives."""
    words, _ = query_terms(prompt)
    result = search(
        index,
        prompt,
        filters=Filters(exclude_ids=exclude),
        limit=GATES["safe"].sessions + 2,
        snippets=0,
        budget=POSTINGS_READ,
        common_budget=COMMON_POSTINGS_READ,
    )
    asked = Asked(prompt, words, result, index.idf(0))
    hits = [
        {
            "id": hit.session_id,
            "score": hit.score,
            "matched": hit.matched,
            "best": sorted(best_terms(index, hit, set(words))),
            "turn": sorted(turn_terms(index, hit, set(words))[0]),
            "kind": turn_terms(index, hit, set(words))[1],
        }
        for hit in result.hits
    ]
    shown = {mode: recall_for(index, prompt, mode, exclude=set(exclude), seen=set()).session_ids for mode in GATES}
    return {
        "prompt": prompt,
        "weights": asked.weights,
        "idf": {t: result.idf.get(t) for t in words},
        "docs": index.total_docs,
        "hits": hits,
        "shown": shown,
    }


def coding(work: Path) -> Iterator[Asking]:
    built = build(work / "history")
    os.environ.update(built.history.environment(work / "home"))
    refresh(work / "home")
    index = Index.open(work / "home")
    for q in built.questions:
        if q.half == "tuning":
            yield "coding", index, q.text, [q.gold] if q.gold else [], frozenset()
            if q.gold:  # a near miss: the same question with its answer's session left out of the history
                yield "coding-without", index, q.text, [], frozenset([q.gold])


def locomo(work: Path) -> Iterator[Asking]:
    conversations = prepare(DEFAULT_DATA, work)
    indexes = {c.name: Index.open(c.home) for c in conversations}
    for c in conversations:
        if c.half != "tuning":
            continue
        for q in c.questions:
            if q.category != ADVERSARIAL and q.gold:
                yield "locomo", indexes[c.name], q.text, sorted(q.gold), frozenset()
                yield "locomo-without", indexes[c.name], q.text, [], frozenset(q.gold)
            for other in conversations:
                if other is not c:
                    yield "locomo", indexes[other.name], q.text, [], frozenset()


def main() -> int:
    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="deja-gate-") as tmp, out.open("w", encoding="utf-8") as sink:
        for source in (coding, locomo):
            for bench, index, prompt, gold, exclude in source(Path(tmp) / source.__name__):
                sink.write(json.dumps({"bench": bench, "label": gold, **row(index, prompt, exclude)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
