"""What a common word's cut list costs a filtered search: the index's bytes, the postings past each word's head,
the answers of the bench's searches without a filter (to compare byte for byte with another deja's), and the
sessions a project filter finds with the CPU it takes.

    python bench/filtered_tail.py HISTORY_ROOT DEJA_HOME --answers plain.json [--runs 7]

HISTORY_ROOT is a folder ``bench/generate.py`` wrote (``python bench/generate.py HISTORY_ROOT --sessions 10000``);
the index in DEJA_HOME is built from it first when it has none. Run it with each deja's own interpreter, on an index
that deja built, and compare the two ``--answers`` files with ``cmp`` (the unfiltered answers must be the same
bytes) and the printed figures: what each project-filtered search found is in the file too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import query_for  # noqa: E402

from deja.core.index import Index  # noqa: E402
from deja.core.index.format import TERM_ROW  # noqa: E402
from deja.core.sample import SampleHistory  # noqa: E402
from deja.core.search import Filters, SearchResult, search  # noqa: E402

#: Every search's "now": after the generated history's last chat, so recency ranks as it would have.
NOW = 1.9e9
#: Words said in most generated chats (cut in a segment of 165k docs), then some of the bench's queries.
WORDS = ["the", "and", "to", "deploy", "error", "test"]
PROJECTS = 10
QUERIES = 300


def tail_postings(index: Index) -> int:
    """The postings past every word's head, in all segments: its docs in all less those its head keeps."""
    tails = 0
    for segment in index.segments:
        rows = segment._term_idx  # noqa: SLF001  (read as the reader reads it: each term's kept and holding)
        for at in range(0, len(rows), TERM_ROW.size):
            kept, holding = TERM_ROW.unpack_from(rows, at)[4:]
            tails += holding - kept
    return tails


def answers(result: SearchResult) -> dict:
    """A search's answer as the CLI's JSON would hold it, for a byte-for-byte comparison."""
    hits = [[h.session_id, h.score, h.project, [[s.role, s.text] for s in h.snippets], h.matched] for h in result.hits]
    return {"total": result.total, "notice": result.notice, "hits": hits}


def least_cpu(index: Index, query: str, filters: Filters, runs: int) -> tuple[float, SearchResult]:
    """The least CPU of ``runs`` runs of one search (the machine is shared: the least is the steadiest), and its
    answer."""
    best, result = float("inf"), None
    for _ in range(runs):
        started = time.process_time()
        result = search(index, query, filters=filters, limit=10, now=NOW)
        best = min(best, time.process_time() - started)
    assert result is not None
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("history", type=Path)
    parser.add_argument("home", type=Path)
    parser.add_argument("--answers", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    history = SampleHistory(
        ide_root=args.history / "cursor" / "User", cli_root=args.history / "cursor-agent", projects={}
    )
    os.environ.update(history.environment(args.home))
    if not (args.home / "index" / "manifest.msgpack").exists():
        from deja.core.indexer import refresh

        refresh(args.home, full=True)
    index = Index.open(args.home)
    rng = random.Random(7)
    queries = [query_for(rng) for _ in range(QUERIES)]
    plain = [answers(search(index, query, limit=10, now=NOW)) for query in queries]
    projects = sorted({meta.project for _, _, meta in index.sessions()})[:PROJECTS]
    cpu, filtered = [], []
    for project in projects:
        for query in WORDS + queries[:10]:
            spent, result = least_cpu(index, query, Filters(project=project), args.runs)
            cpu.append(spent)
            filtered.append({"query": query, "project": project, **answers(result)})
    args.answers.write_text(json.dumps({"plain": plain, "filtered": filtered}))
    cpu.sort()
    figures = {
        "index_bytes": index.size_bytes(),
        "tail_postings": tail_postings(index),
        "filtered_searches": len(cpu),
        "filtered_found": sum(answer["total"] for answer in filtered),
        "filtered_cpu_ms_median": round(1000 * cpu[len(cpu) // 2], 2),
        "filtered_cpu_ms_p90": round(1000 * cpu[int(0.9 * len(cpu))], 2),
        "filtered_cpu_ms_max": round(1000 * cpu[-1], 2),
        "load": os.getloadavg()[0],
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
