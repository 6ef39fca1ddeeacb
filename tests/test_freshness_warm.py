"""Between two whole checks the freshness check looks only at the warm part of its record (the newest hot chats,
the folders changed last, the editor's databases), and what a person does while working is still seen by the
next search; a change elsewhere waits for the next whole check, at most ``glance.WHOLE_SECONDS`` later.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest
from harness import Sample, run_deja

from deja.core.index import index_dir
from deja.core.indexer import catch_up, glance, refresh
from deja.core.sample import API_CHAT, INFRA_CHAT
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import composer_data, write_state_vscdb

NEW_CHAT = "0badc0de-2b3d-4e5f-8a9b-0c1d2e3f4a5b"


def _search_ids(sample: Sample, *words: str) -> list[str]:
    result = run_deja("search", *words, "--json", env=sample.env)
    assert result.returncode == 0, result.stderr
    return [hit["session_id"] for hit in orjson.loads(result.stdout)["hits"]]


def _date_whole_check(sample: Sample, when: float) -> Path:
    stamp = index_dir(sample.home) / glance.WHOLE_STAMP
    stamp.touch()
    os.utime(stamp, (when, when))
    return stamp


@pytest.fixture
def between_whole_checks(indexed_sample: Sample) -> Sample:
    """The index caught up, and its last whole check dated an hour ahead: every check meanwhile is a warm one."""
    assert _search_ids(indexed_sample, "docker")[0] == INFRA_CHAT
    _date_whole_check(indexed_sample, time.time() + 3600)
    return indexed_sample


def _project(sample: Sample, name: str) -> str:
    return str(sample.history.projects[name])


def test_a_turn_appended_to_the_chat_in_use_is_found_by_the_next_search(between_whole_checks: Sample) -> None:
    sample = between_whole_checks
    transcript = transcript_path(sample.history.cli_root, _project(sample, "api"), API_CHAT)
    with transcript.open("ab") as f:
        f.write(orjson.dumps(user_turn("why does the zeppelin queue stall?")) + b"\n")
        f.write(orjson.dumps(assistant_turn("A missing ack.")) + b"\n")
    assert _search_ids(sample, "zeppelin") == [API_CHAT]


def test_a_new_chat_is_found_by_the_next_search(between_whole_checks: Sample) -> None:
    sample = between_whole_checks
    write_transcript(
        transcript_path(sample.history.cli_root, _project(sample, "infra"), NEW_CHAT),
        [user_turn("the walrus deploy keeps timing out"), assistant_turn("Raise the health check grace period.")],
    )
    assert _search_ids(sample, "walrus") == [NEW_CHAT]


def test_a_new_chat_store_is_found_by_the_next_search(between_whole_checks: Sample) -> None:
    sample = between_whole_checks
    cwd = _project(sample, "api")
    write_chat_store(
        chat_dir_for(sample.history.cli_root, cwd, NEW_CHAT),
        cwd=cwd,
        messages=[
            *store_preamble(cwd),
            store_user_message("the capybara importer drops rows"),
            store_assistant_message("Batch size overflowed."),
        ],
    )
    assert _search_ids(sample, "capybara") == [NEW_CHAT]


def test_a_new_row_in_the_editors_database_is_found_by_the_next_search(between_whole_checks: Sample) -> None:
    sample = between_whole_checks
    composer = "c0ffee00-1a2b-4c3d-8e9f-0a1b2c3d0abc"
    now = int(time.time() * 1000)
    write_state_vscdb(
        sample.history.ide_root / "globalStorage" / "state.vscdb",
        composers={composer: composer_data(composer, [("b1", 1)], created_at=now, name="Okapi migration")},
        bubbles={composer: {"b1": {"type": 1, "text": "plan the okapi schema migration"}}},
    )
    assert _search_ids(sample, "okapi") == [composer]


def test_a_turn_in_a_chat_outside_the_warm_ones_waits_for_the_next_whole_check(
    between_whole_checks: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = between_whole_checks
    directory = index_dir(sample.home)
    cold = _turn_in_a_cold_chat(directory, monkeypatch)

    assert glance.check(directory).unchanged  # a warm check: not seen yet

    stamp = _date_whole_check(sample, time.time() - glance.WHOLE_SECONDS)
    found = glance.check(directory)
    assert found.changed and found.targets == {cold}
    assert time.time() - stamp.stat().st_mtime < glance.WHOLE_SECONDS  # dated now: the next checks are warm ones


def test_a_new_chat_in_a_folder_outside_the_warm_ones_waits_for_the_next_whole_check(
    between_whole_checks: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = between_whole_checks
    directory = index_dir(sample.home)
    monkeypatch.setattr(glance, "WARM_FOLDERS", 0)  # only the roots' projects/ and chats/ folders stay warm
    _new_chat_in_infra(sample)
    assert glance.check(directory).unchanged

    _date_whole_check(sample, time.time() - glance.WHOLE_SECONDS)
    assert NEW_CHAT in glance.check(directory).targets


def test_without_the_date_of_a_whole_check_the_check_is_whole(
    between_whole_checks: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first check, or one in an index folder this user may not write to (no date kept): every check is whole."""
    sample = between_whole_checks
    directory = index_dir(sample.home)
    monkeypatch.setattr(glance, "WARM_FOLDERS", 0)
    _new_chat_in_infra(sample)
    (directory / glance.WHOLE_STAMP).unlink()
    assert NEW_CHAT in glance.check(directory).targets


def test_deja_index_looks_at_the_whole_record_whenever_it_runs(
    between_whole_checks: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deja index`` (a walk of every chat) is asked to bring everything up to date: no warm check."""
    sample = between_whole_checks
    directory = index_dir(sample.home)
    _turn_in_a_cold_chat(directory, monkeypatch)
    assert catch_up(sample.home).updated == 0  # a read's check between whole checks: not seen yet
    assert refresh(sample.home, verify=True).updated == 1


def _new_chat_in_infra(sample: Sample) -> None:
    """A new cursor-agent chat in the infra project's folder."""
    write_transcript(
        transcript_path(sample.history.cli_root, _project(sample, "infra"), NEW_CHAT),
        [user_turn("the walrus deploy keeps timing out")],
    )


def _turn_in_a_cold_chat(directory: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """With one warm chat, a turn appended to the other sample chat (the cold one): its id."""
    monkeypatch.setattr(glance, "WARM_CHATS", 1)
    record = glance.load_raw(directory)
    assert record is not None and {API_CHAT, INFRA_CHAT} <= record["hot"].keys()
    (warm,) = glance._warm_chats(record["hot"])
    cold = INFRA_CHAT if warm == API_CHAT else API_CHAT
    with Path(record["hot"][cold]["transcript"]).open("ab") as f:
        f.write(orjson.dumps(user_turn("the ibex cron?")) + b"\n")
    return cold


def test_a_check_between_whole_checks_reads_the_record_no_further_than_its_warm_chats(
    between_whole_checks: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hot chats come last in the record, the newest first: a warm check decodes the first ``WARM_CHATS`` of
    them and stops there (the rest are most of the record's bytes), and a whole check still reads it all."""
    directory = index_dir(between_whole_checks.home)
    monkeypatch.setattr(glance, "WARM_CHATS", 1)
    whole = glance.load_raw(directory)
    assert whole is not None and len(whole["hot"]) > 1
    assert list(whole)[-1] == "hot"  # as the refresh wrote it
    newest = dict(list(whole["hot"].items())[:1])
    assert glance.load_raw(directory, whole=False) == {**whole, "hot": newest}

    record = directory / glance.RECORD
    text = record.read_bytes()
    second = text.index(orjson.dumps(list(whole["hot"])[1]))  # the second hot chat's key
    record.write_bytes(text[: second + 10])  # the record cut off inside the second hot chat
    assert glance.load_raw(directory, whole=False) == {**whole, "hot": newest}  # never read there
    assert glance.load_raw(directory) is None  # a whole check reads it all, and finds it damaged


def test_a_record_an_earlier_deja_wrote_with_its_roots_last_is_read_whole(
    between_whole_checks: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = index_dir(between_whole_checks.home)
    monkeypatch.setattr(glance, "WARM_CHATS", 1)
    whole = glance.load_raw(directory)
    assert whole is not None
    earlier = {name: value for name, value in whole.items() if name != "roots"} | {"roots": whole["roots"]}
    (directory / glance.RECORD).write_bytes(orjson.dumps(earlier))
    assert glance.load_raw(directory, whole=False) == earlier  # every hot chat: read whole
    assert glance.check(directory).unchanged
