"""Query features: --role, --re, --session, the phrase fallback, and schema_version on every --json envelope."""

from __future__ import annotations

import json
import time
from pathlib import Path

from harness import Sample, index_cli_root, run_deja

from deja.core.sample import API_CACHE_CHAT, API_CHAT, INFRA_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def _ids(sample: Sample, *args: str) -> list[str]:
    done = run_deja("search", *args, "--json", env=sample.env)
    assert done.returncode == 0, done.stderr
    return [hit["session_id"] for hit in json.loads(done.stdout)["hits"]]


def test_role_keeps_matches_in_that_part_of_a_session(indexed_sample: Sample) -> None:
    # "reclaimed" is only in what `docker builder prune` printed; "prune" only in the command and the answer.
    assert _ids(indexed_sample, "reclaimed", "--role", "tool") == [INFRA_CHAT]
    assert _ids(indexed_sample, "reclaimed", "--role", "user") == []
    assert _ids(indexed_sample, "docker builder prune", "--role", "command") == [INFRA_CHAT]
    assert _ids(indexed_sample, "locale", "--role", "edit") == [API_CACHE_CHAT]


def test_an_unknown_role_is_a_usage_error(indexed_sample: Sample) -> None:
    done = run_deja("search", "cache", "--role", "robot", env=indexed_sample.env)
    assert done.returncode == 2 and "--role 'robot'" in done.stderr


def test_re_keeps_candidates_whose_text_matches(indexed_sample: Sample) -> None:
    assert API_CHAT in _ids(indexed_sample, "pytest")
    assert _ids(indexed_sample, "pytest", "--re", r"\d+ passed") == [API_CHAT]
    bad = run_deja("search", "pytest", "--re", "(", env=indexed_sample.env)
    assert bad.returncode == 2 and "not a regular expression" in bad.stderr


def test_re_that_backtracks_for_ever_is_stopped_and_says_so(tmp_path: Path) -> None:
    """``(Z+Z+)+Y`` over forty Zs backtracks for ever inside one text: the timer stops it, not the check between
    candidates."""
    cli_root = tmp_path / "cursor-agent"
    answer = assistant_turn("The sensor log printed " + "Z" * 40 + " before the crash.")
    write_transcript(
        transcript_path(cli_root, "/work/iot", "c-sensor"), [user_turn("why did the sensor crash?"), answer]
    )
    env = index_cli_root(tmp_path, cli_root)
    started = time.monotonic()
    done = run_deja("search", "sensor", "--re", "(Z+Z+)+Y", "--json", env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 15
    assert json.loads(done.stdout)["notice"] == "--re stopped after 1 s; later candidates were not checked"
    text = run_deja("search", "sensor", "--re", "(Z+Z+)+Y", env=env, timeout=30)  # (not "drop the filter to see …")
    assert text.stdout == "--re stopped after 1 s; later candidates were not checked\n"


def test_session_searches_inside_one_session(indexed_sample: Sample) -> None:
    assert len(_ids(indexed_sample, "cache")) > 1
    assert _ids(indexed_sample, "cache", "--session", API_CACHE_CHAT[:8]) == [API_CACHE_CHAT]
    missing = run_deja("search", "cache", "--session", "nope", env=indexed_sample.env)
    assert missing.returncode == 1 and "no session 'nope'" in missing.stderr


def test_a_phrase_with_no_exact_match_falls_back_to_its_words_and_says_so(indexed_sample: Sample) -> None:
    done = run_deja("search", '"locale cache key"', env=indexed_sample.env)
    assert done.returncode == 0
    assert done.stdout.startswith('no exact match for "locale cache key"; showing sessions with all its words')
    assert API_CACHE_CHAT in done.stdout
    exact = run_deja("search", '"cache key"', env=indexed_sample.env)
    assert "no exact match" not in exact.stdout and API_CACHE_CHAT in exact.stdout


def test_every_json_envelope_starts_with_its_schema_version(indexed_sample: Sample) -> None:
    for args in (
        ("search", "cache"),
        ("sessions",),
        ("show", API_CHAT),
        ("stats",),
        ("index",),
        ("doctor",),
        ("files", "cache"),
        ("how", "pytest"),
    ):
        done = run_deja(*args, "--json", env=indexed_sample.env)
        assert done.stdout.startswith('{\n  "schema_version": 1,'), (args, done.stdout[:80], done.stderr)
