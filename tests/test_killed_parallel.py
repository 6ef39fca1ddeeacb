"""A refresh killed on the multi-process path (400+ chats: ``parts``) leaves no record saying it read anything.

README: "A build or refresh killed at any point … leaves the previous index and its bookkeeping whole". The
freshness record, the bookkeeping and the manifest are written after the parts' segments, by the parent, in that
order (``driver._swap``, then ``freshness.record_*``): killed before the swap, every one of them is as it was, so
the next walk reads again what the killed one had read. (``test_faults`` kills the one-process path.)
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import ENTRY

from deja.core.index import MANIFEST, index_dir
from deja.core.indexer import freshness, refresh
from deja.core.indexer.parts import PARALLEL_MIN_CHATS
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

pytestmark = pytest.mark.faults

CWD = "/work/shop"
CHATS = PARALLEL_MIN_CHATS + 20


def _chat_id(number: int) -> str:
    return f"{number:08x}-0000-4000-8000-000000000000"


@pytest.fixture
def big(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``CHATS`` indexed chats; the first one written long ago, so the freshness record does not check it."""
    root, home = tmp_path / "cli", tmp_path / "deja"
    (tmp_path / "no-ide").mkdir()
    for number in range(CHATS):
        path = transcript_path(root, CWD, _chat_id(number))
        write_transcript(path, [user_turn(f"question {number}"), assistant_turn(f"answer {number}")])
    os.utime(transcript_path(root, CWD, _chat_id(0)), (1_600_000_000, 1_600_000_000))
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(root))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_HOME", str(home))
    refresh(home)
    return root, home


def _deja(*args: str, fault: str = "") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "DEJA_FAULT": fault} if fault else dict(os.environ)
    return subprocess.run([*ENTRY, *args], env=env, capture_output=True, timeout=120)


def _records(home: Path) -> dict[str, bytes]:
    directory = index_dir(home)
    return {name: (directory / name).read_bytes() for name in (MANIFEST, freshness.RECORD)}


@pytest.mark.parametrize("point", ["segment-file@1", "before-manifest-swap"])
def test_a_parallel_rebuild_killed_leaves_every_record_as_it_was(big: tuple[Path, Path], point: str) -> None:
    root, home = big
    with transcript_path(root, CWD, _chat_id(0)).open("ab") as transcript:
        transcript.write(orjson.dumps(user_turn("and the zebracorn?")) + b"\n")
    before = _records(home)
    killed = _deja("index", "--full", fault=point)
    # A part killed (segment-file): its parent fails in one line, exit 1; the parent killed: SIGKILL.
    assert killed.returncode == (1 if point.startswith("segment") else -signal.SIGKILL), killed.stderr
    assert b"Traceback" not in killed.stderr
    assert _records(home) == before
    record = freshness.load(index_dir(home))
    assert record is not None
    freshness.save(index_dir(home), msgspec.structs.replace(record, walked_at=1.0))  # a walk is due
    assert orjson.loads(_deja("index", "--json").stdout)["messages"] == 2 * CHATS + 1
    assert b"zebracorn" in _deja("search", "zebracorn").stdout
