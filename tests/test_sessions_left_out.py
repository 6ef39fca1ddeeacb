"""What a full page of ``deja sessions`` (and the MCP ``recent`` tool) says it left out: the sessions of the same
filters past the page, counted from the index's rows without decoding a session (a period's 10,000 sessions took
a fifth of a second to decode, one by one, for a number)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from harness import point_at_sample

from deja.core import library
from deja.core.index import Codec, Index
from deja.core.index.records import STRUCTS, SessionMeta
from deja.core.indexer import refresh
from deja.core.library import newest_sessions, sessions_left_out
from deja.core.writers.cursor_agent import assistant_turn, user_turn


def test_the_sessions_a_filtered_page_leaves_out_are_counted_without_decoding_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = point_at_sample(tmp_path, monkeypatch)
    refresh(sample.home)
    newest = max(sample.history.cli_root.rglob("*.jsonl"), key=lambda path: path.stat().st_mtime)
    with newest.open("ab") as transcript:  # a second segment, and the chat's first copy deleted in the first
        transcript.write(orjson.dumps(user_turn("one more question")) + b"\n")
        transcript.write(orjson.dumps(assistant_turn("one more answer")) + b"\n")
    refresh(sample.home)
    decoded: list[bytes] = []

    def session(data: bytes) -> SessionMeta:
        decoded.append(data)
        return STRUCTS.session(data)

    index = Index.open(sample.home, Codec(STRUCTS.manifest, session, STRUCTS.message, STRUCTS.damage))
    assert len(index.segments) == 2 and index.session_count == 7
    moments = sorted(meta.updated.timestamp() for _, _, meta in index.sessions() if meta.updated)
    half = moments[3]
    filters: list[dict] = [
        {"project": "api"},
        {"project": "web"},
        {"source": "cursor-cli"},
        {"source": "cursor-ide"},
        {"since": half},
        {"since": moments[-1]},
        {"project": "api", "source": "cursor-cli", "since": moments[0]},
    ]
    counts = []
    for given in filters:
        listed = len(newest_sessions(index, limit=100, **given))
        decoded.clear()
        counts.append(sessions_left_out(index, 1, **given))
        assert not decoded, given
        assert counts[-1] == listed - 1, given
    assert counts == [2, 1, 3, 2, 3, 0, 1]
    # A moment a second or a minute after a session's: the index's times of day are float32 days (about 2.8 minutes
    # a step), so its lookup also finds the sessions just before; each is told by its own time.
    for moment in moments[1:]:
        for after in (1.0, 60.0):
            listed = len(newest_sessions(index, limit=100, since=moment + after))
            assert sessions_left_out(index, 0, since=moment + after) == listed, (moment, after)
            assert sessions_left_out(index, 0, source="cursor-cli", since=moment + after) == len(
                newest_sessions(index, limit=100, source="cursor-cli", since=moment + after)
            )
    # A source filter looks no further than the newest SOURCE_SCAN_LIMIT sessions, for the page as for the count.
    monkeypatch.setattr(library, "SOURCE_SCAN_LIMIT", 4)
    for source in ("cursor-cli", "cursor-ide"):
        listed = len(newest_sessions(index, limit=100, source=source))
        decoded.clear()
        assert sessions_left_out(index, 1, source=source) == listed - 1 < counts[filters.index({"source": source})]
        assert not decoded
