"""What ``deja index`` promises a person who runs it: every chat read as it is now (trial19).

F1: a turn appended to a chat outside the newest the cheap check looks at was left out by a ``deja index`` run
within a minute of the last walk ("0 updated"), until a later walk. F3: a transcript emptied for a moment (cursor-agent
rewrites a resumed chat's whole file) dropped its session at once. F4: a ``deja index`` waiting for another deja
said nothing for minutes. F5: ``deja mcp`` with its stdin closed ended in a traceback.
"""

from __future__ import annotations

import os
import select
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import ENTRY, index_chats, run_deja

from deja.core.index import index_dir
from deja.core.indexer import LOCK_NAME, freshness
from deja.core.indexer.lock import WriterLock
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.interfaces.fastpath import _say_waiting

CHATS = {"cold": ["how do we rotate keys?", "With kms."], "hot": ["hello", "hi"]}


def _as_in_a_big_history(tmp_path: Path) -> None:
    """The last walk a second ago, and "cold" not among the chats checked one by one (as one of thousands)."""
    directory = index_dir(tmp_path / "deja")
    record = freshness.load(directory)
    assert record is not None and "cold" in record.hot
    hot = {sid: chat for sid, chat in record.hot.items() if sid != "cold"}
    freshness.save(directory, msgspec.structs.replace(record, walked_at=time.time(), hot=hot))


def test_deja_index_reads_a_turn_appended_to_an_old_chat_right_after_a_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, CHATS)
    _as_in_a_big_history(tmp_path)
    with transcript_path(tmp_path / "cli", "/work/shop", "cold").open("ab") as transcript:
        transcript.write(orjson.dumps(user_turn("and the narwhal certificates?")) + b"\n")
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    assert orjson.loads(ran.stdout)["updated"] == 1
    assert "narwhal" in run_deja("search", "narwhal").stdout


@pytest.mark.parametrize("changed", ["store.db", "meta.json"])
def test_deja_index_reads_an_old_chat_whose_folder_alone_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str
) -> None:
    """The walk compares each chat folder's files with its record one by one (``plan._store_unchanged``): a chat
    whose transcript is as it was and whose ``store.db`` or ``meta.json`` was written since is read again."""
    folder = chat_dir_for(tmp_path / "cli", "/work/shop", "cold")
    write_chat_store(folder, cwd="/work/shop", messages=["how do we rotate keys?"], name="Key rotation")
    index_chats(tmp_path, monkeypatch, CHATS)
    _as_in_a_big_history(tmp_path)
    if changed == "store.db":
        (folder / "store.db").unlink()
        write_chat_store(folder, cwd="/work/shop", messages=["how do we rotate keys?"], name="Narwhal certificates")
    else:
        later = (folder / "meta.json").stat().st_mtime_ns + 5_000_000_000
        os.utime(folder / "meta.json", ns=(later, later))
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    assert orjson.loads(ran.stdout)["updated"] == 1
    if changed == "store.db":
        assert "Narwhal certificates" in run_deja("sessions").stdout


def test_a_transcript_emptied_for_a_moment_keeps_its_session_until_it_is_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, CHATS)
    path = transcript_path(tmp_path / "cli", "/work/shop", "cold")
    path.write_bytes(b"")  # cursor-agent rewriting the resumed chat: emptied, not yet written
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    assert orjson.loads(ran.stdout)["removed"] == 0
    assert "rotate keys" in run_deja("show", "cold").stdout
    assert "rotate keys" in run_deja("search", "rotate keys").stdout
    write_transcript(path, [user_turn("how do we rotate keys?"), assistant_turn("With kms, and the okapi alias.")])
    ran = run_deja("index", "--json")
    assert orjson.loads(ran.stdout)["updated"] == 1, ran.stdout
    assert "okapi" in run_deja("show", "cold").stdout


def test_reads_while_a_transcript_stays_empty_find_nothing_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review39a M1: the emptied chat was found changed by every read, which loaded the indexer and refreshed."""
    index_chats(tmp_path, monkeypatch, CHATS)
    transcript_path(tmp_path / "cli", "/work/shop", "cold").write_bytes(b"")
    assert run_deja("index").returncode == 0
    code = (
        "import sys\n"
        "from deja.interfaces.fastpath import run\n"
        "code = run(['search', 'rotate keys', '--json'])\n"
        "print('deja.core.indexer.driver' in sys.modules, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "rotate keys" in ran.stdout and ran.stderr.strip() == "False", ran.stderr


def test_a_chat_whose_folder_goes_is_still_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, CHATS)
    path = transcript_path(tmp_path / "cli", "/work/shop", "cold")
    path.unlink()
    path.parent.rmdir()
    ran = run_deja("index", "--json")
    assert orjson.loads(ran.stdout)["removed"] == 1, ran.stdout


def test_deja_index_says_soon_that_it_waits_for_another_deja(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, CHATS)
    with WriterLock(index_dir(tmp_path / "deja") / LOCK_NAME, 0):
        waiting = subprocess.Popen([*ENTRY, "index"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert waiting.stderr is not None
        assert select.select([waiting.stderr], [], [], 30)[0], "deja index said nothing while it waited"
        assert waiting.stderr.readline() == "waiting for another deja writing the index to finish …\n"
        time.sleep(0.3)
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    assert "after waiting" in out and "for another deja writing the index" in out


def test_a_wait_of_a_moment_for_another_deja_says_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """As a hook's ingest holds the index for a moment: the line was said on any wait, even of 50 ms (review39a L5)."""
    held = WriterLock(tmp_path / LOCK_NAME, 0).__enter__()
    threading.Timer(0.3, held.__exit__, (None, None, None)).start()
    with WriterLock(tmp_path / LOCK_NAME, 60, waiting=_say_waiting) as lock:
        pass
    assert lock.waited >= 0.25
    assert capfd.readouterr().err == ""


def test_deja_mcp_with_its_stdin_closed_says_so_in_one_line_and_refreshes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, CHATS)
    turns = [user_turn("hello"), assistant_turn("hi"), user_turn("and the retry budget?")]
    write_transcript(transcript_path(tmp_path / "cli", "/work/shop", "hot"), turns)
    index = index_dir(tmp_path / "deja")
    before = {path: path.stat().st_mtime_ns for path in index.rglob("*")}
    # (its stderr is a pipe the refresher child would inherit: run returns once that child, had it started, ended)
    ran = subprocess.run(f"exec {shlex.join(ENTRY)} mcp <&-", shell=True, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 1, ran.stderr
    assert (
        ran.stderr == "deja mcp: its stdin is closed; it speaks JSON-RPC on stdin: let Cursor start it from mcp.json\n"
    )
    after = {path: path.stat().st_mtime_ns for path in index.rglob("*")}
    assert after == before, "deja mcp refused to serve, yet its refresher read the grown chat into the index"
