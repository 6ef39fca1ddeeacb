"""Search's fast paths give exactly what the plain computation gives: scores added a postings list at a time equal a
running sum per posting, bit for bit and in the same order; sessions ranked lazily under score bounds come out in the
order of ranking every shortlisted session, and no session ever outscores its bound."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from deja.core import search as search_module
from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import DocScores, Filters, _group, _Ranking, _score_docs, query_terms
from deja.core.text import identifier_parts
from deja.core.thesaurus import related
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

PROJECT = "/home/dev/src/shop"
#: Few words, so that sessions share them in every field and ties, neighbours and field docs abound.
WORDS = [
    "cache",
    "invalidation",
    "redis",
    "timeout",
    "retry",
    "deploy",
    "migration",
    "postgres",
    "index",
    "query",
    "slow",
    "flaky",
    "test",
    "worker",
    "queue",
    "kafka",
    "consumer",
    "lag",
    "memory",
    "leak",
    "docker",
    "build",
    "image",
    "auth",
    "token",
    "refresh",
    "login",
]
QUERIES = [
    "redis cache timeout",
    "why is the deploy migration slow",
    "flaky test retry in the worker queue",
    "kafka consumer lag after deploy",
    "memory leak in the docker image build",
    "auth token refresh fails at login",
    "postgres index for the slow query",
    "cache",
    "the",
    "speed up the build",
    "redis timeout retry deploy postgres",
]


def _chat(cli: Path, rng: random.Random, n: int) -> None:
    """A chat of a few turns on a few shared words: questions, answers, a Shell call with its output (some failing)
    and an edit, so that a session's turns hold field docs beside their messages."""
    chat_id = f"5e5510e0-0000-4000-8000-{n:012d}"
    topic = rng.sample(WORDS, 4)

    def said(k: int) -> str:
        return " ".join(rng.choice(topic + WORDS[:6]) for _ in range(k))

    records: list[dict] = []
    store: list[dict] = []
    for turn in range(rng.randint(2, 5)):
        ask, answer = f"{said(6)}?", f"{said(12)}."
        command, output = f"make {rng.choice(topic)}", f"{said(8)}\nerror: {said(4)}" if turn % 2 else said(10)
        edit = {"path": f"src/{rng.choice(topic)}.py", "old_string": said(3), "new_string": said(5)}
        records += [user_turn(ask), assistant_turn(answer, tool_use("Shell", {"command": command}))]
        records += [assistant_turn(said(5), tool_use("StrReplace", edit))]
        store += [
            {"role": "user", "content": [{"type": "text", "text": ask}]},
            {"role": "assistant", "content": [tool_call_part(f"s{turn}", "Shell", {"command": command})]},
            tool_result_message(f"s{turn}", "Shell", shell_result_text(output, turn % 2)),
            {"role": "assistant", "content": [tool_call_part(f"e{turn}", "StrReplace", edit)]},
            tool_result_message(f"e{turn}", "StrReplace", "The file has been updated."),
        ]
    write_transcript(transcript_path(cli, PROJECT, chat_id), records)
    write_chat_store(chat_dir_for(cli, PROJECT, chat_id), cwd=PROJECT, messages=store, stale_root=False)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    """120 chats in two segments: 90 indexed first, then 30 more by a refresh."""
    root = tmp_path_factory.mktemp("exact")
    cli, home = root / "cli", root / "deja"
    (root / "no-ide").mkdir()
    rng = random.Random(15)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(root))
        patch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli))
        patch.setenv("DEJA_CURSOR_ROOT", str(root / "no-ide"))
        for n in range(90):
            _chat(cli, rng, n)
        refresh(home)
        for n in range(90, 120):
            _chat(cli, rng, n)
        refresh(home)
        opened = Index.open(home)
    assert len(opened.segments) >= 2
    return opened


def _scored(index: Index, query: str) -> tuple[list[str], DocScores]:
    words, _ = query_terms(query)
    others, gained = related(query, words)
    words += gained
    scores, *_ = _score_docs(index, words, Filters(), identifier_parts(query), others, frozenset(gained), 4096)
    return words, scores


def _running_sums(index: Index, query: str) -> tuple[dict[int, float], dict[int, tuple[int, int]]]:
    """What ``_score_docs`` computes, posting by posting: each doc's running score in the order first matched, and
    its masks (as written, nearly)."""
    words, _ = query_terms(query)
    others, gained = related(query, words)
    words += gained
    parts, idfs = identifier_parts(query), {}
    bits = search_module.doc_key_bits(index)  # (as search keys a doc: its segment's number above it)
    scores: dict[int, float] = {}
    masks: dict[int, tuple[int, int]] = {}

    def add(term: str, weight: float, flag: int, near: bool, ceiling: float | None = None) -> float:
        found = [(i, seg, *seg.lookup(term)) for i, seg in enumerate(index.segments)]
        df = sum(f[-1] for f in found)
        if not df:
            return 0.0
        idf = index.idf(df)
        taken = idf if ceiling is None else min(idf, ceiling)  # (another word's: the word's own idf at most)
        budget = 4096 if idf >= search_module.COMMON_IDF else 1024
        for i, segment, p_off, count, _ in found:
            share = max(64, -(-budget * segment.ref.docs // index.total_docs))
            for doc, _, impact in segment.postings(p_off, 0, min(count, share)) if count else []:
                key = i << bits | doc
                scores[key] = scores.get(key, 0.0) + weight * taken * impact
                written, nearly = masks.get(key, (0, 0))
                masks[key] = (written, nearly | flag) if near else (written | flag, nearly)
        return idf

    for bit, term in enumerate(words):
        part = search_module.PART_WEIGHT if parts.get(term) in idfs else 1.0
        if term not in gained and (idf := add(term, part, 1 << bit, False)):
            idfs[term] = idf
        if term in gained:
            add(term, part, 1 << bit, True)
            continue
        alternatives = others.get(term, [])
        # (a word no doc holds weighs as its commonest other word some doc holds)
        held = [sum(seg.lookup(other)[2] for seg in index.segments) for other, _ in alternatives]
        ceiling = idfs.get(term) or (index.idf(max(held)) if any(held) else None)
        for alternative, share in alternatives:
            add(alternative, share * part, 1 << bit, True, ceiling)
    return scores, masks


@pytest.mark.parametrize("query", QUERIES)
def test_scores_added_a_list_at_a_time_equal_a_running_sum_per_posting(index: Index, query: str) -> None:
    _, scores = _scored(index, query)
    expected, masks = _running_sums(index, query)
    assert list(scores.scores.items()) == list(expected.items())  # the same floats, in the same order
    assert scores.masks(expected) == [masks[key] for key in expected]


def test_sessions_ranked_lazily_come_in_the_order_of_ranking_them_all(index: Index) -> None:
    now = time.time()
    pruned = 0
    borrowed = False
    for query in QUERIES:
        words, scores = _scored(index, query)
        ranking = _Ranking(index, _group(index, scores, Filters(), None, None), scores, words, {}, 64, now)
        every = [ranking._rank(*session) for session in ranking._sessions]
        bounds = {position: bound for bound, position in ranking._unranked}
        assert all(ranked[0] <= bounds[position] for position, ranked in enumerate(every)), query
        expected = sorted(every, key=lambda ranked: ranked[0], reverse=True)
        first_five = [ranked for ranked, _ in zip(ranking, range(5), strict=False)]
        pruned += len(ranking._unranked) > 0  # asked for five, some sessions were never ranked in full
        assert first_five == expected[:5], query
        assert list(ranking) == expected, query  # asked again and on to the end
        with pytest.MonkeyPatch.context() as patch:  # what a bound that forgot the neighbours' share would say
            patch.setattr(search_module, "BEST_TURN_BOUND", 1.0)
            patch.setattr(search_module, "ROUNDING_MARGIN", 1.0)
            borrowed |= any(ranked[0] > ranking._bound(*ranking._sessions[i]) for i, ranked in enumerate(every))
    assert pruned, "no query let the ranking stop early: the laziness went untested"
    assert borrowed, "no session borrowed from its neighbours: a bound without their share went untested"


@pytest.mark.parametrize("query", QUERIES)
def test_search_gives_what_ranking_every_shortlisted_session_gives(
    index: Index, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    fast = search_module.search(index, query, limit=5, snippets=0, now=now, budget=4096)
    monkeypatch.setattr(search_module, "BEST_TURN_BOUND", float("inf"))  # every session ranked before the first
    whole = search_module.search(index, query, limit=5, snippets=0, now=now, budget=4096)
    assert fast == whole


def test_doc_keys_of_every_segment_stay_single_digit_ints(index: Index) -> None:
    """A doc's key puts its segment's number just above the largest segment's docs (``doc_key_bits``), not above 32
    bits: keys below 2**30 are one-digit ints, whose shifts, masks and hashes take CPython's fast path."""
    keys = [key for query in QUERIES for key in _scored(index, query)[1].scores]
    assert any(key >> search_module.doc_key_bits(index) for key in keys)  # a later segment's docs among them
    assert max(keys) < 2**30


@pytest.mark.parametrize("query", QUERIES)
def test_sessions_grouped_a_run_at_a_time_equal_grouping_key_by_key(index: Index, query: str) -> None:
    """``_group`` reads the scored docs a run of one segment at a time (``DocScores.runs``): the same sessions, docs
    and totals, in the same order, as working each key's segment out of the key."""
    _, scores = _scored(index, query)
    bits = search_module.doc_key_bits(index)
    members: dict[int, list[int]] = {}
    totals: dict[int, float] = {}
    for key, score in scores.scores.items():
        segment = index.segments[key >> bits]
        session = search_module._session_key(key >> bits, segment.doc(key & (1 << bits) - 1).ordinal)
        totals[session] = totals.get(session, 0.0) + score
        members.setdefault(session, []).append(key)
    assert [end for end, _ in scores.runs][-1:] == ([len(scores.scores)] if scores.scores else [])  # every key in a run
    grouped = _group(index, scores, Filters(), None, None)
    assert [(session, group[1:]) for session, group in grouped.items()] == list(members.items())
    assert [(session, group[0]) for session, group in grouped.items()] == list(totals.items())


def test_a_postings_read_unpacks_only_the_impact_runs_it_reaches(index: Index) -> None:
    """``Segment.impact_runs`` gives a list's first docs with the fewest runs that cover them (a common word's first
    140 runs held some 800 postings where search read 140), their impacts those of the list read whole."""
    for segment in index.segments:
        for term in ("cache", "deploy", "test", "redis", "the"):
            p_off, count, _ = segment.lookup(term)
            if not count:
                continue
            every, values, lengths = segment.impact_runs(p_off, count)
            impacts = [value for value, length in zip(values, lengths, strict=True) for _ in range(length)]
            for stop in sorted({1, 2, 3, count // 3, count // 2, count - 1, count} - {0}):
                docs, values, lengths = segment.impact_runs(p_off, stop)
                assert list(docs) == list(every[:stop])
                assert sum(lengths[:-1]) < stop <= sum(lengths), (term, stop)
                read = [value for value, length in zip(values, lengths, strict=True) for _ in range(length)]
                assert read[:stop] == impacts[:stop]


def test_a_query_asked_again_gets_its_terms_without_working_them_out_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prompt hook asks ``query_terms`` of its prompt twice (its gate, then search): the second time costs no
    tokenising, and each caller gets lists of its own to add to."""
    query = 'why does "redis cache" time out after deploy_v2?'
    words, found = query_terms(query)
    words.append("added by a caller")
    worked_out: list[str] = []
    monkeypatch.setattr(search_module, "phrases", lambda text: worked_out.append(text) or ([], text))
    assert query_terms(query) == (words[:-1], found)
    assert worked_out == []
    query_terms("another query")
    assert worked_out == ["another query"]
