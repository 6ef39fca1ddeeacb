"""The after-turn benchmark appends to a file of its own, never to the history it was pointed at.

``bench_turn.py --from-env`` measures an index built elsewhere, over a history a person points it at: a hard-linked
copy of the shared 100k history, a copy made of symbolic links, or that history itself. Each round appends a turn
(``bench_index._append_turn``); the shared history must read the same afterwards, however the copy was made.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bench_index import _append_turn  # noqa: E402

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript  # noqa: E402


def _shared_transcript(tmp_path: Path) -> Path:
    shared = transcript_path(
        tmp_path / "shared" / "cursor-agent", "/home/me/code/api", "c0ffee00-0000-4000-8000-000000000001"
    )
    return write_transcript(shared, [user_turn("why is the cache stale"), assistant_turn("the key lacked the locale")])


@pytest.mark.parametrize("copied_as", ["hard links", "symbolic links"])
def test_appending_a_turn_leaves_the_history_it_copies_as_it_was(tmp_path: Path, copied_as: str) -> None:
    shared = _shared_transcript(tmp_path)
    before = shared.read_bytes()
    mine = tmp_path / "mine" / shared.relative_to(tmp_path / "shared")
    mine.parent.mkdir(parents=True)
    (os.link if copied_as == "hard links" else os.symlink)(shared, mine)

    _append_turn(mine)
    _append_turn(mine)

    assert shared.read_bytes() == before
    grown = mine.read_bytes()
    assert grown.startswith(before)
    assert grown.count(b"flaky retry in the uploader") == 2
    assert not mine.is_symlink()
