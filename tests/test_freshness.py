"""A change in Cursor's stores is seen by the next search, without a walk over every chat.

The rule (README, "Freshness"): at once for a new turn in any of the most recently
written chats, for a new chat, for the editor's databases and for the chat the
session-end hook ingested; within ``WALK_SECONDS`` for anything else, by a full
walk a read starts in the background.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import Sample, run_deja

from deja.core.index import index_dir, read_manifest
from deja.core.indexer import catch_up, freshness, glance, refresh
from deja.core.sample import API_CHAT, INFRA_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import write_state_vscdb

NEW_CHAT = "f7e5a0c1-2b3d-4e5f-8a9b-0c1d2e3f4a5b"


def _append_turn(transcript: Path, question: str, answer: str) -> None:
    with transcript.open("ab") as f:
        f.write(orjson.dumps(user_turn(question)) + b"\n")
        f.write(orjson.dumps(assistant_turn(answer)) + b"\n")


def _transcript(sample: Sample, project: str, chat_id: str) -> Path:
    return transcript_path(sample.history.cli_root, str(sample.history.projects[project]), chat_id)


def _search_ids(sample: Sample, *words: str) -> list[str]:
    result = run_deja("search", *words, "--json", env=sample.env)
    assert result.returncode == 0, result.stderr
    return [hit["session_id"] for hit in orjson.loads(result.stdout)["hits"]]


def _record(sample: Sample) -> freshness.Freshness:
    found = freshness.load(index_dir(sample.home))
    assert found is not None
    return found


def test_a_turn_appended_to_a_recent_chat_is_found_by_the_next_search(indexed_sample: Sample) -> None:
    sample = indexed_sample
    assert API_CHAT in _record(sample).hot
    _append_turn(_transcript(sample, "api", API_CHAT), "why does the zeppelin queue stall?", "A missing ack.")
    assert _search_ids(sample, "zeppelin") == [API_CHAT]


def test_a_new_chat_is_found_by_the_next_search(indexed_sample: Sample) -> None:
    sample = indexed_sample
    write_transcript(
        _transcript(sample, "infra", NEW_CHAT),
        [user_turn("the walrus deploy keeps timing out"), assistant_turn("Raise the health check grace period.")],
    )
    assert _search_ids(sample, "walrus") == [NEW_CHAT]


def test_a_new_chat_in_a_new_project_is_found_by_the_next_search(indexed_sample: Sample, tmp_path: Path) -> None:
    sample = indexed_sample
    project = tmp_path / "brand-new-project"
    project.mkdir()
    write_transcript(
        transcript_path(sample.history.cli_root, str(project), NEW_CHAT),
        [user_turn("set up the narwhal pipeline"), assistant_turn("Added a workflow for it.")],
    )
    assert _search_ids(sample, "narwhal") == [NEW_CHAT]


def test_a_new_composer_in_the_editor_is_found_by_the_next_search(indexed_sample: Sample) -> None:
    sample = indexed_sample
    database = sample.history.ide_root / "globalStorage" / "state.vscdb"
    composer = "c0ffee00-1a2b-4c3d-8e9f-0a1b2c3d0999"
    now = int(time.time() * 1000)
    write_state_vscdb(
        database,
        composers={
            composer: {
                "composerId": composer,
                "name": "Okapi migration",
                "createdAt": now,
                "lastUpdatedAt": now,
                "fullConversationHeadersOnly": [{"bubbleId": "b1", "type": 1}],
            }
        },
        bubbles={composer: {"b1": {"type": 1, "text": "plan the okapi schema migration"}}},
    )
    assert _search_ids(sample, "okapi") == [composer]


def test_nothing_changed_writes_nothing(indexed_sample: Sample) -> None:
    sample = indexed_sample
    before = read_manifest(index_dir(sample.home))
    assert _search_ids(sample, "docker")[0] == INFRA_CHAT
    assert read_manifest(index_dir(sample.home)) == before


def test_an_old_chat_resumed_is_found_once_the_background_walk_ran(
    indexed_sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside the hot chats an appended turn waits for the full walk, which a search starts when one is due."""
    sample = indexed_sample
    monkeypatch.setattr(freshness, "HOT_CHATS", 1)
    refresh(sample.home)  # the record now checks one chat one by one
    hot = _record(sample).hot
    cold = INFRA_CHAT if API_CHAT in hot else API_CHAT
    assert cold not in hot
    _append_turn(_transcript(sample, "infra" if cold == INFRA_CHAT else "api", cold), "the ibex cron?", "Hourly.")

    assert catch_up(sample.home).updated == 0  # not one of the hot chats, and no walk due: not seen yet
    assert _search_ids(sample, "ibex") == []

    directory = index_dir(sample.home)
    record = _record(sample)
    stale = msgspec.structs.replace(record, walked_at=time.time() - freshness.WALK_SECONDS - 1)
    freshness.save(directory, stale)
    assert _search_ids(sample, "ibex") == []  # this search answers at once and starts the walk
    deadline = time.monotonic() + 60
    while _record(sample).walked_at == stale.walked_at and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _record(sample).walked_at > stale.walked_at
    assert _search_ids(sample, "ibex") == [cold]


def test_deja_index_walks_when_a_walk_is_due(indexed_sample: Sample, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = indexed_sample
    monkeypatch.setattr(freshness, "HOT_CHATS", 1)
    refresh(sample.home)
    cold = INFRA_CHAT if API_CHAT in _record(sample).hot else API_CHAT
    _append_turn(_transcript(sample, "infra" if cold == INFRA_CHAT else "api", cold), "the ibex cron?", "Hourly.")
    directory = index_dir(sample.home)
    stale = msgspec.structs.replace(_record(sample), walked_at=time.time() - freshness.WALK_SECONDS - 1)
    freshness.save(directory, stale)
    assert refresh(sample.home, verify=True).updated == 1


def test_the_chat_the_session_end_hook_ingested_joins_the_hot_ones(
    indexed_sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = indexed_sample
    monkeypatch.setattr(freshness, "HOT_CHATS", 1)
    refresh(sample.home)
    cold = INFRA_CHAT if API_CHAT in _record(sample).hot else API_CHAT
    _append_turn(_transcript(sample, "infra" if cold == INFRA_CHAT else "api", cold), "the ibex cron?", "Hourly.")
    assert refresh(sample.home, only_chat_ids={cold}).updated == 1  # what the hook does for the chat that ended
    assert list(_record(sample).hot) == [cold]
    assert _search_ids(sample, "ibex") == [cold]


def test_deja_index_reads_an_index_file_whole_again_once_it_changed(indexed_sample: Sample) -> None:
    """`deja index` does not re-read files that passed and did not change since; a changed one it reads whole."""
    sample = indexed_sample
    assert run_deja("index", env=sample.env).returncode == 0  # every byte read, and remembered
    directory = index_dir(sample.home)
    segment = directory / read_manifest(directory).segments[0].name / "records.bin"
    segment.write_bytes(bytes(len(segment.read_bytes())))  # same size, every byte zero
    again = run_deja("index", env=sample.env)
    assert again.returncode == 0 and str(segment) in again.stderr  # found, named, rebuilt


def test_the_check_reads_the_record_a_refresh_writes_without_msgspec(indexed_sample: Sample) -> None:
    """``glance`` decodes the JSON record with the stdlib: the same fields, as plain values."""
    directory = index_dir(indexed_sample.home)
    assert glance.load_raw(directory) == orjson.loads(orjson.dumps(msgspec.to_builtins(_record(indexed_sample))))
    assert glance.check(directory).unchanged


def test_a_damaged_freshness_record_makes_the_next_read_refresh_in_full(indexed_sample: Sample) -> None:
    sample = indexed_sample
    directory = index_dir(sample.home)
    (directory / freshness.RECORD).write_bytes(b'{"walked_at": 1.0, "ide": {')
    assert glance.check(directory).manifest is None  # only a full refresh can tell what changed
    _append_turn(_transcript(sample, "api", API_CHAT), "why does the zeppelin queue stall?", "A missing ack.")
    assert _search_ids(sample, "zeppelin") == [API_CHAT]
    assert glance.check(directory).unchanged  # and the refresh wrote a whole record again


def test_the_record_an_earlier_deja_kept_goes_with_the_next_walk(indexed_sample: Sample) -> None:
    directory = index_dir(indexed_sample.home)
    (directory / freshness.OLD_RECORD).write_bytes(b"\x80")  # the msgpack record of an earlier version
    refresh(indexed_sample.home)
    assert not (directory / freshness.OLD_RECORD).exists()
    assert glance.check(directory).unchanged


def test_a_record_of_another_shape_makes_the_next_read_refresh_in_full(indexed_sample: Sample) -> None:
    """A ``freshness.json`` another deja wrote in another layout: the read refreshes in full, never a traceback."""
    sample = indexed_sample
    directory = index_dir(sample.home)
    record = orjson.loads((directory / freshness.RECORD).read_bytes())
    record["folders"] = {
        path: {"kind": kind, "ctime_ns": str(when)} for path, (kind, when) in record["folders"].items()
    }
    (directory / freshness.RECORD).write_bytes(orjson.dumps(record))
    assert glance.check(directory).manifest is None
    _append_turn(_transcript(sample, "api", API_CHAT), "why does the zeppelin queue stall?", "A missing ack.")
    assert _search_ids(sample, "zeppelin") == [API_CHAT]
    indexed = run_deja("index", env=sample.env)
    assert indexed.returncode == 0 and indexed.stderr == "", indexed.stderr


def test_a_record_whose_roots_are_of_another_shape_makes_the_next_read_walk(indexed_sample: Sample) -> None:
    directory = index_dir(indexed_sample.home)
    record = orjson.loads((directory / freshness.RECORD).read_bytes())
    record["roots"] = 7
    (directory / freshness.RECORD).write_bytes(orjson.dumps(record))
    assert glance.check(directory).manifest is None
    assert _search_ids(indexed_sample, "pytest")
    assert glance.check(directory).unchanged  # the walk wrote the record anew


def test_a_walk_that_cannot_start_leaves_the_search_answering(indexed_sample: Sample) -> None:
    """An index folder deja cannot write to (here: its walk stamp is a folder) still answers a search."""
    sample = indexed_sample
    directory = index_dir(sample.home)
    stamp = directory / glance.WALK_STAMP
    stamp.mkdir()
    long_ago = time.time() - 2 * freshness.WALK_SECONDS
    os.utime(stamp, (long_ago, long_ago))
    stale = msgspec.structs.replace(_record(sample), walked_at=time.time() - freshness.WALK_SECONDS - 1)
    freshness.save(directory, stale)
    assert glance.check(directory).walk_due
    glance.start_walk(directory)  # says nothing, raises nothing
    assert _search_ids(sample, "cache")
