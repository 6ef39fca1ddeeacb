"""``deja search`` as a short process: no cycle collection while it only reads, collection again before a refresh;
the freshness record read without importing ``json``.

``entry.main`` turns the cycle collector off for a search (it allocates little, and exits at once after its
answer); ``fastpath.open_index`` turns it back on when the cheap check finds a change, since a refresh reads and
allocates as much as a history holds.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from harness import Sample, deja_imports, run_deja

from deja.core.index import index_dir
from deja.core.index.light import LIGHT
from deja.core.indexer import glance
from deja.core.sample import API_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn
from deja.interfaces import fastpath


@pytest.fixture
def collector_off() -> Iterator[None]:
    """As ``entry.main`` starts ``deja search``; a refresh it runs freezes what exists (``collect_from_now``), which
    is given back after, so later tests start from a collector as pytest keeps it."""
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


def _append_turn(sample: Sample) -> None:
    transcript = transcript_path(sample.history.cli_root, str(sample.history.projects["api"]), API_CHAT)
    with Path(transcript).open("ab") as f:
        f.write(orjson.dumps(user_turn("why does the zeppelin queue stall?")) + b"\n")
        f.write(orjson.dumps(assistant_turn("A missing ack.")) + b"\n")


def test_an_unchanged_index_is_opened_without_turning_collection_back_on(
    indexed_sample: Sample, collector_off: None
) -> None:
    index = fastpath.open_index(codec=LIGHT)
    assert index.session_count
    assert not gc.isenabled()


def test_a_refresh_runs_with_collection_on(indexed_sample: Sample, collector_off: None) -> None:
    _append_turn(indexed_sample)
    index = fastpath.open_index(codec=LIGHT)
    assert gc.isenabled()
    assert [meta.id for _, _, meta in index.find(API_CHAT)] == [API_CHAT]


def test_a_search_right_after_a_turn_finds_it_and_one_with_nothing_changed_answers_alike(
    indexed_sample: Sample,
) -> None:
    """Through the console entry (collector off, exit at once): the turn is found, and the next search, which
    finds nothing changed, prints the same bytes."""
    _append_turn(indexed_sample)
    refreshed = run_deja("search", "zeppelin", "--json", env=indexed_sample.env)
    unchanged = run_deja("search", "zeppelin", "--json", env=indexed_sample.env)
    assert refreshed.returncode == unchanged.returncode == 0, refreshed.stderr + unchanged.stderr
    assert [hit["session_id"] for hit in orjson.loads(refreshed.stdout)["hits"]] == [API_CHAT]
    assert refreshed.stdout == unchanged.stdout


def test_a_search_that_finds_nothing_changed_reads_the_record_without_importing_json(indexed_sample: Sample) -> None:
    """The check reads ``freshness.json`` with ``json``'s C half; ``json`` itself (six patterns compiled as it
    loads) is left to ``--json`` output."""
    run_deja("search", "pytest", env=indexed_sample.env)  # any catch-up done first
    printed, loaded = deja_imports(indexed_sample.env, "search", "pytest")
    assert "pytest" in printed.lower()
    assert "deja.core.indexer.glance" in loaded
    assert not {"json", "json.decoder", "deja.core.library"} & loaded


def test_a_search_right_after_a_turn_loads_the_indexer_but_not_the_editors_reader_nor_the_checksums_record(
    indexed_sample: Sample,
) -> None:
    """A turn appended to a cursor-agent chat while the editor's databases are as they were is refreshed without
    importing ``readers.ide`` (no database is read) or ``indexer.checked`` (only ``deja index`` verifies the index's
    files); the turn is found all the same. A change to a database still loads the reader: the editor's tests."""
    assert list(indexed_sample.history.ide_root.rglob("state.vscdb"))  # (the sample has editor databases)
    _append_turn(indexed_sample)
    printed, loaded = deja_imports(indexed_sample.env, "search", "zeppelin", "--json")
    assert [hit["session_id"] for hit in orjson.loads(printed)["hits"]] == [API_CHAT]
    assert {"deja.core.indexer.driver", "deja.core.readers.cursor_agent"} <= loaded  # (it did refresh)
    assert not {"deja.core.readers.ide", "deja.core.indexer.checked", "deja.core.index.pack"} & loaded


def test_the_record_is_read_as_json_reads_it(indexed_sample: Sample) -> None:
    record = (index_dir(indexed_sample.home) / glance.RECORD).read_bytes()
    assert glance.load_raw(index_dir(indexed_sample.home)) == json.loads(record)
    for damaged in (record[:-1], record + b" x", b"", b"\xff", b"[1, 2]"):
        (index_dir(indexed_sample.home) / glance.RECORD).write_bytes(damaged)
        assert glance.load_raw(index_dir(indexed_sample.home)) is None
