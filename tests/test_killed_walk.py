"""A walk killed on the way does not keep ``deja index`` from walking.

A read that finds a walk due starts one in a detached process and stamps ``walk-started`` first, so the reads
meanwhile start no other. That stamp is written before the walk reads anything: a walk killed on the way left it
saying a walk was under way, and ``deja index`` too skipped the walk for a minute, so a turn appended to a chat
the freshness record does not check one by one stayed unindexed ("0 added, 0 updated").
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import index_chats, run_deja

from deja.core.index import index_dir
from deja.core.indexer import freshness, glance
from deja.core.writers.cursor_agent import transcript_path, user_turn


def test_deja_index_walks_when_a_walk_started_since_never_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, {"cold": ["how do we rotate keys?", "With kms."], "hot": ["hello", "hi"]})
    directory = index_dir(tmp_path / "deja")
    record = freshness.load(directory)
    assert record is not None and "cold" in record.hot
    # The last walk finished two minutes ago; "cold" is not among the chats checked one by one (as in a big history).
    hot = {sid: chat for sid, chat in record.hot.items() if sid != "cold"}
    freshness.save(directory, msgspec.structs.replace(record, walked_at=time.time() - 120, hot=hot))
    (directory / glance.WALK_STAMP).write_bytes(b"")  # a detached walk started just now, then was killed
    with transcript_path(tmp_path / "cli", "/work/shop", "cold").open("ab") as transcript:
        transcript.write(orjson.dumps(user_turn("and the zebracorn certificates?")) + b"\n")
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    assert orjson.loads(ran.stdout)["updated"] == 1
    assert "zebracorn" in run_deja("search", "zebracorn").stdout


def test_deja_index_walks_when_it_was_killed_on_its_walk_and_an_older_walk_recorded_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trialH F11: a turn appended to an old chat, a ``deja index`` killed on the walk that would have read it, and
    meanwhile a walk begun before the turn was appended (a background one a read started) records itself: its record
    is a few seconds old, and the next ``deja index`` must still read the turn (it walks every chat each time)."""
    index_chats(tmp_path, monkeypatch, {"cold": ["how do we rotate keys?", "With kms."], "hot": ["hello", "hi"]})
    directory = index_dir(tmp_path / "deja")
    record = freshness.load(directory)
    assert record is not None
    hot = {sid: chat for sid, chat in record.hot.items() if sid != "cold"}  # (as in a big history)
    freshness.save(directory, msgspec.structs.replace(record, walked_at=time.time() - 120, hot=hot))
    begun_before_the_turn = time.time()
    with transcript_path(tmp_path / "cli", "/work/shop", "cold").open("ab") as transcript:
        transcript.write(orjson.dumps(user_turn("and the zebracorn certificates?")) + b"\n")
    monkeypatch.setenv("DEJA_FAULT", "before-manifest-swap")  # killed on its walk, having read the turn
    assert run_deja("index").returncode == -signal.SIGKILL
    monkeypatch.delenv("DEJA_FAULT")
    # The walk begun before the turn was appended finishes now: it did not see the turn, and says it walked.
    freshness.save(directory, msgspec.structs.replace(record, walked_at=begun_before_the_turn, hot=hot))
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    assert orjson.loads(ran.stdout)["updated"] == 1
    assert "zebracorn" in run_deja("search", "zebracorn").stdout
