"""A walk killed on the way does not keep ``deja index`` from walking.

A read that finds a walk due starts one in a detached process and stamps ``walk-started`` first, so the reads
meanwhile start no other. That stamp is written before the walk reads anything: a walk killed on the way left it
saying a walk was under way, and ``deja index`` too skipped the walk for a minute, so a turn appended to a chat
the freshness record does not check one by one stayed unindexed ("0 added, 0 updated").
"""

from __future__ import annotations

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
