"""What ``deja index`` holds per chat while it walks every chat (issue 15: 2.3 s in-process at 100k sessions).

The walk finds every chat (a ``CliChat``) and decodes every chat's record (``ChatState``, ``CliState``): at 100k
sessions about 440,000 objects, which the cycle collector, on during a refresh (``fastpath.collect_from_now``),
swept again and again: decoding the records took twice as long with it on. None of them can hold a reference
cycle (strings, numbers, times and each other), so none is tracked by it.
"""

from __future__ import annotations

import gc
from pathlib import Path

import orjson
import pytest
from harness import index_chats, run_deja

from deja.core.bookkeeping import Bookkeeping, read_record
from deja.core.history import find_cli_chats
from deja.core.index import index_dir, read_manifest
from deja.core.writers.cursor_agent import transcript_path, user_turn


def test_the_walks_records_are_not_swept_by_the_cycle_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, {"cold": ["how do we rotate keys?", "With kms."], "hot": ["hello", "hi"]})
    directory = index_dir(tmp_path / "deja")
    book = Bookkeeping.recorded(directory, read_manifest(directory).state)
    records = [book.chat(chat.id) for chat in find_cli_chats()]
    assert len(records) == 2
    for record in records:
        assert record is not None and record.cli is not None and record.where is not None
        assert not gc.is_tracked(record)
        assert not gc.is_tracked(record.cli)
        assert not gc.is_tracked(record.cli.sig)
        assert not gc.is_tracked(record.where)
    assert not any(gc.is_tracked(chat) for chat in find_cli_chats())
    assert read_record(directory / read_manifest(directory).state, type(book.state)) == book.state
    # and the walk still finds what changed: a turn appended to a chat is indexed by the next ``deja index``
    with transcript_path(tmp_path / "cli", "/work/shop", "cold").open("ab") as transcript:
        transcript.write(orjson.dumps(user_turn("and the narwhal certificates?")) + b"\n")
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    assert orjson.loads(ran.stdout)["updated"] == 1
    assert "narwhal" in run_deja("search", "narwhal").stdout
