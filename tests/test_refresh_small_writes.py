"""A refresh of one grown chat writes each file once: its bookkeeping shard goes straight to its new name (no
copy set aside and renamed, as a full build's are), and what it records is what the next refresh reads."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness import index_chats, run_deja

from deja.core.bookkeeping import Bookkeeping, State, read_record
from deja.core.index import SEGMENT_GRACE_SECONDS, Index, index_dir, read_manifest
from deja.core.indexer import refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

pytestmark = pytest.mark.unit

CHAT = "00000000-0000-4000-8000-0000000000f1"
FIRST = ["Why does the uploader retry forever?", "Its backoff never grows."]


def test_a_refresh_of_one_grown_chat_renames_no_shard_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    more = [user_turn("And the zeppelin queue?"), assistant_turn("It drains once the backoff grows.")]
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/shop", CHAT),
        [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *more],
    )
    renamed: list[str] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        renamed.append(os.path.basename(src))
        real_replace(src, dst)

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", replace)
        assert refresh(tmp_path / "deja", only_chat_ids={CHAT}).updated == 1
    assert not [name for name in renamed if name.startswith(".shard-")]
    home = tmp_path / "deja"
    assert [hit.session_id for hit in search(Index.open(home), "zeppelin").hits] == [CHAT]
    assert refresh(home, only_chat_ids={CHAT}).updated == 0  # the shard written holds the chat as read


def test_a_retired_segment_past_its_grace_goes_whole_without_importing_shutil(tmp_path: Path) -> None:
    """A segment's folder (files only) is emptied by hand; one holding a folder as well goes through ``shutil``."""
    flat, nested = tmp_path / "seg-flat", tmp_path / "seg-nested"
    for folder in (flat, nested / "inner"):
        folder.mkdir(parents=True)
        (folder / "postings.bin").write_bytes(b"x")
    for folder in (flat, nested):
        os.utime(folder, (0, 0))
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from deja.core.index.writer import remove_stale_segments\n"
        f"remove_stale_segments(Path({str(tmp_path)!r}), [], grace_seconds=60)\n"
        "print('shutil' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "True"  # the nested one needed it
    assert not flat.exists() and not nested.exists()
    flat.mkdir()
    (flat / "docs.bin").write_bytes(b"x")
    os.utime(flat, (0, 0))
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"
    assert not flat.exists()


def _ask_more(tmp_path: Path, *questions: str) -> None:
    """The chat ``CHAT`` grown by a turn for each of ``questions`` (its transcript written again whole)."""
    more = [record for asked in questions for record in (user_turn(asked), assistant_turn("Noted."))]
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/shop", CHAT), [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *more]
    )


def _retired(folder: Path) -> set[Path]:
    """The segment folders no manifest names now, each dated past its grace."""
    live = {ref.name for ref in read_manifest(folder).segments}
    past = time.time() - SEGMENT_GRACE_SECONDS - 1
    retired = {path for path in folder.glob("seg-*") if path.name not in live}
    for path in retired:
        os.utime(path, (past, past))
    return retired


def _bookkeeping(folder: Path) -> tuple[set[str], set[str]]:
    """The bookkeeping files on disk, and those the manifest's state names (itself among them)."""
    manifest = read_manifest(folder)
    state = read_record(folder / manifest.state, State)
    named = {name for name in state.shards if name} | {Path(manifest.state).name}
    return {path.name for path in (folder / "state").iterdir()}, named


def test_a_search_right_after_a_turn_leaves_retired_segments_to_the_refreshes_nobody_waits_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read's refresh never waits on unlinking: segments whose grace is over, and the bookkeeping the previous
    manifest named, stay after ``deja search``; the catch-up a hook starts in the background removes them once it
    finds a turn to read, and a walk (the one a read starts when due, ``deja index``) whether or not it finds one."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    folder = index_dir(tmp_path / "deja")
    _ask_more(tmp_path, "And the zeppelin queue?")
    assert "zeppelin" in run_deja("search", "zeppelin").stdout.lower()
    retired = _retired(folder)
    assert retired  # the build's segment, its one chat written anew
    _ask_more(tmp_path, "And the zeppelin queue?", "What of the walrus?")
    assert "walrus" in run_deja("search", "walrus").stdout.lower()
    assert all(path.is_dir() for path in retired)  # the read left them, past their grace as they are
    on_disk, named = _bookkeeping(folder)
    assert named < on_disk  # the two searches' previous bookkeeping, left too
    live = {ref.name for ref in read_manifest(folder).segments}
    left = [path for path in folder.glob("seg-*/*") if path.parent.name not in live]
    left += [folder / "state" / name for name in on_disk - named]
    doctor = json.loads(run_deja("doctor", "--json").stdout)["index"]
    assert doctor["dropped_bytes"] == sum(path.stat().st_size for path in left)  # said apart from the index's size
    _ask_more(tmp_path, "And the zeppelin queue?", "What of the walrus?", "And the narwhal?")
    background = [sys.executable, "-m", "deja.core.indexer"]
    subprocess.run([*background, "catch-up"], check=True)
    assert not any(path.exists() for path in retired)
    on_disk, named = _bookkeeping(folder)
    assert on_disk == named
    live = {ref.name for ref in read_manifest(folder).segments}
    assert {path.name for path in folder.glob("seg-*")} > live  # the second search's retired one: in its grace
    _ask_more(tmp_path, "And the zeppelin queue?", "What of the walrus?", "And the narwhal?", "And the orca?")
    assert "orca" in run_deja("search", "orca").stdout.lower()
    assert _bookkeeping(folder)[1] < _bookkeeping(folder)[0]
    left = _retired(folder)
    subprocess.run(background, check=True)  # a walk, which finds nothing changed
    assert not any(path.exists() for path in left)
    on_disk, named = _bookkeeping(folder)
    assert on_disk == named
    assert {path.name for path in folder.glob("seg-*")} == {ref.name for ref in read_manifest(folder).segments}


def test_a_reader_that_read_the_manifest_before_a_refresh_still_opens_its_segments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refresh that removes retired segments (here the session-end ingest's, of named chats) keeps those it
    retires itself for their grace: a search that read the previous manifest just before still opens them."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    folder = index_dir(tmp_path / "deja")
    before = read_manifest(folder)
    _ask_more(tmp_path, "And the zeppelin queue?")
    assert refresh(tmp_path / "deja", only_chat_ids={CHAT}).updated == 1
    assert {ref.name for ref in read_manifest(folder).segments}.isdisjoint(ref.name for ref in before.segments)
    old = Index(folder, before)
    assert [hit.session_id for hit in search(old, "backoff").hits] == [CHAT]
    assert not search(old, "zeppelin").hits


def test_a_search_that_turns_redaction_on_removes_the_unredacted_segments_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read's refresh removes no retired segment but these: built without redaction, they hold what it hides."""
    monkeypatch.setenv("DEJA_NO_REDACT", "1")
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    folder = index_dir(tmp_path / "deja")
    unredacted = set(folder.glob("seg-*"))
    monkeypatch.delenv("DEJA_NO_REDACT")
    ran = run_deja("search", "backoff")
    assert ran.returncode == 0 and "backoff" in ran.stdout.lower(), ran.stderr
    assert unredacted and not any(path.exists() for path in unredacted)
    assert {path.name for path in folder.glob("seg-*")} == {ref.name for ref in read_manifest(folder).segments}


def test_a_search_after_one_turn_loads_no_shutil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``shutil`` (with ``bz2`` and ``lzma``) is for a rebuild that keeps the old index's files (``carry``) and a
    walk of every chat (``deja index``), not for the refresh a read makes of one turn."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    more = [user_turn("And the zeppelin queue?"), assistant_turn("It drains once the backoff grows.")]
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/shop", CHAT),
        [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *more],
    )
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted({'shutil', 'bz2', 'lzma'} & set(sys.modules)), file=sys.stderr))\n"
        "from deja.interfaces.fastpath import run\n"
        "sys.exit(run(['search', 'zeppelin', '--json']))\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "zeppelin" in ran.stdout.lower()  # (the refresh read the turn)
    assert ran.stderr.strip() == "[]"


def test_deja_index_called_in_a_process_that_collects_freezes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a process ``entry.main`` started without the cycle collector freezes what its imports made
    (``fastpath.collect_from_now``); one that collects (typer's commands, a caller in-process) keeps collecting."""
    from deja.interfaces.fastpath import index_command

    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    more = [user_turn("And the zeppelin queue?"), assistant_turn("It drains once the backoff grows.")]
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/shop", CHAT),
        [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *more],
    )
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        index_command(json=True)
        assert '"updated": 1' in capsys.readouterr().out
        assert gc.isenabled() and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


@pytest.mark.skipif(os.name == "nt", reason="folder descriptors (O_NOFOLLOW) are POSIX's")
def test_removing_a_segment_folder_never_follows_a_link_put_in_its_place(tmp_path: Path) -> None:
    """A segment's folder swapped for a symlink after the check that it is a folder: the link's target is left
    alone (emptying it through the link would unlink files outside the index)."""
    from deja.core.index.writer import remove_segment_folder

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    link = tmp_path / "index" / "seg-20260101000000-abcdef01"
    link.parent.mkdir()
    link.symlink_to(outside, target_is_directory=True)
    remove_segment_folder(link)
    assert (outside / "keep.txt").read_text() == "mine"


def _recorded_chat_dir(home: Path, chat_id: str) -> str | None:
    directory = index_dir(home)
    record = Bookkeeping(directory, read_record(directory / read_manifest(directory).state, State)).chat(chat_id)
    assert record is not None and record.cli is not None
    return record.cli.chat_dir


def test_a_chat_folder_found_by_a_refresh_of_its_chat_is_the_one_a_walk_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that appears for a chat recorded without one, in two buckets: the first by name, as a walk picks."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    home, cli = tmp_path / "deja", tmp_path / "cli"
    assert _recorded_chat_dir(home, CHAT) is None
    folders = sorted(chat_dir_for(cli, cwd, CHAT) for cwd in ("/work/shop", "/work/elsewhere", "/work/third"))
    for folder in reversed(folders):
        write_chat_store(folder, cwd=None, messages=[])
    refresh(home, only_chat_ids={CHAT})
    assert _recorded_chat_dir(home, CHAT) == str(folders[0])
    refresh(home, full=True)
    assert _recorded_chat_dir(home, CHAT) == str(folders[0])


WALKED_CHAT = "00000000-0000-4000-8000-0000000000f1"
WALKED_FIRST = ["Why does the uploader retry forever?", "Its backoff never grows."]


def _grow_walked(tmp_path: Path, *questions: str) -> None:
    """The chat ``CHAT`` grown by a turn for each of ``questions`` (its transcript written again whole)."""
    more = [record for asked in questions for record in (user_turn(asked), assistant_turn("Noted."))]
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/shop", WALKED_CHAT),
        [user_turn(WALKED_FIRST[0]), assistant_turn(WALKED_FIRST[1]), *more],
    )


def _searches_after_turns(tmp_path: Path, words: list[str]) -> Path:
    """The index folder after a ``deja search`` right after each of a turn naming each of ``words``; the segments
    those searches retired dated past their grace."""
    folder = index_dir(tmp_path / "deja")
    asked: list[str] = []
    for word in words:
        asked.append(f"And the {word}?")
        _grow_walked(tmp_path, *asked)
        ran = run_deja("search", word)
        assert ran.returncode == 0 and word in ran.stdout.lower(), ran.stderr
    live = {ref.name for ref in read_manifest(folder).segments}
    past = time.time() - SEGMENT_GRACE_SECONDS - 1
    for path in folder.glob("seg-*"):
        if path.name not in live:
            os.utime(path, (past, past))
    return folder


#: A walk (``python -m deja.core.indexer``, as a read starts it) that notes, each time it removes a segment's
#: folder, whether the writer lock is held then (an ``flock`` on a new descriptor of ``index/.lock`` fails while any
#: other open description of it holds the lock, this process's own included).
_WALK_WATCHING_THE_LOCK = """
import fcntl, json, os, sys
lock, held = sys.argv[1], []
def watch(event, args):
    if event == "os.rmdir" and os.path.basename(str(args[0])).startswith("seg-"):
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)
sys.addaudithook(watch)
from deja.core.indexer.driver import refresh
refresh()
print(json.dumps(held))
"""


@pytest.mark.skipif(os.name == "nt", reason="flock is POSIX's")
def test_a_walk_removes_the_retired_segments_after_it_lets_the_writer_lock_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search after a turn takes no lock (timeout 0) and answers from the index as it stands while another deja
    holds it: a walk that removed every read's leftovers under the lock kept it 3.75 s for 100 of them on a busy
    disk (review57b F1)."""
    index_chats(tmp_path, monkeypatch, {WALKED_CHAT: WALKED_FIRST})
    folder = _searches_after_turns(tmp_path, ["zeppelin", "walrus", "narwhal"])
    retired = [
        path for path in folder.glob("seg-*") if path.name not in {r.name for r in read_manifest(folder).segments}
    ]
    assert len(retired) >= 3  # each search's grown chat written anew, the one before left
    ran = subprocess.run(
        [sys.executable, "-c", _WALK_WATCHING_THE_LOCK, str(folder / ".lock")],
        capture_output=True,
        text=True,
        check=True,
    )
    held = json.loads(ran.stdout.strip().splitlines()[-1])
    assert len(held) >= len(retired)  # (the walk removed them: the premise)
    assert not any(held), held  # none while a search after a turn would find the lock taken


def test_a_terminal_only_user_s_leftovers_go_with_the_walk_a_search_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no hook and no MCP server, the only sweeper is the detached walk a read starts once the last one is a
    minute old (here made a minute old by dating the record's walk back): it removes the retired segments past
    their grace and the old bookkeeping (review57b F4)."""
    index_chats(tmp_path, monkeypatch, {WALKED_CHAT: WALKED_FIRST})
    folder = _searches_after_turns(tmp_path, ["zeppelin", "walrus"])
    expired = [
        path for path in folder.glob("seg-*") if path.name not in {r.name for r in read_manifest(folder).segments}
    ]
    assert expired
    record = json.loads((folder / "freshness.json").read_text())
    record["walked_at"] -= 3600
    (folder / "freshness.json").write_text(json.dumps(record))
    (folder / "walk-started").unlink(missing_ok=True)
    assert "zeppelin" in run_deja("search", "zeppelin").stdout.lower()  # nothing changed: the walk is started
    deadline = time.time() + 60
    while any(path.exists() for path in expired) and time.time() < deadline:
        time.sleep(0.2)
    assert not any(path.exists() for path in expired)
    while _bookkeeping(folder)[0] != _bookkeeping(folder)[1] and time.time() < deadline:
        time.sleep(0.2)
    on_disk, named = _bookkeeping(folder)
    assert on_disk == named


def _bookkeeping(folder: Path) -> tuple[set[str], set[str]]:
    """The bookkeeping files on disk, and those the manifest's state names (itself among them)."""
    manifest = read_manifest(folder)
    state = read_record(folder / manifest.state, State)
    named = {name for name in state.shards if name} | {Path(manifest.state).name}
    return {path.name for path in (folder / "state").iterdir()}, named
