"""A Cursor store that is there but cannot be read this time keeps its sessions; only one gone from disk loses them.

README: "A refresh … drops it only when its file is gone from disk"; "a FIFO, a
device … or a folder under a store's name is skipped at once"; "--full … if a
Cursor store that sessions were read from cannot be read at that moment … keeps
the index as it was and exits 1".

"Cannot be read this time": something else in a store's place (a FIFO, a folder,
a link loop, a link to /dev/zero or to nowhere), or a folder above it this user
cannot search (mode 000: those cases run deja as a user that permissions stop,
for root in a user namespace: harness.as_user). Every store is written by deja's
writers under the fake HOME.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import Run, Sample, at_mode_000, run_deja, user

from deja.core.indexer import refresh
from deja.core.readers.chatstore import UNREADABLE_STORE
from deja.core.sample import WEB_COMPOSER, WEB_MERGED_COMPOSER
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_user_message,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

CWD = "/work/api"
NOT_REBUILT = "deja: the index was not rebuilt: "


def index(*args: str, run: Run = run_deja) -> dict[str, Any]:
    ran = run("index", "--json", *args)
    assert ran.returncode == 0, ran.stderr
    return orjson.loads(ran.stdout)


def found(word: str, run: Run = run_deja) -> bool:
    ran = run("search", word)
    assert ran.returncode == 0, ran.stderr
    return "No session matches" not in ran.stdout


def _store_chat(root: Path, chat_id: str, word: str) -> Path:
    """A chat read from its store alone (no transcript): its store.db."""
    chat_dir = chat_dir_for(root, CWD, chat_id)
    messages = [store_user_message(f"a question about {word}"), store_assistant_message("an answer")]
    write_chat_store(chat_dir, cwd=CWD, name=f"Chat {chat_id}", messages=messages)
    return chat_dir / "store.db"


def _transcribed_chat(root: Path, chat_id: str, word: str) -> Path:
    """A chat with a transcript and a store: its transcript."""
    path = transcript_path(root, CWD, chat_id)
    write_transcript(path, [user_turn(f"a question about {word}"), assistant_turn("an answer")])
    write_chat_store(
        chat_dir_for(root, CWD, chat_id),
        cwd=CWD,
        messages=[store_user_message(f"a question about {word}"), store_assistant_message("an answer")],
    )
    return path


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()


def _link_loop(path: Path) -> None:
    path.symlink_to(path.name)


def _link_to_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _link_to_nowhere(path: Path) -> None:
    path.symlink_to(path.parent / "no-such-file")


IN_ITS_PLACE: list[Callable[[Path], None]] = [_fifo, _folder, _link_loop, _link_to_zero, _link_to_nowhere]


@pytest.mark.parametrize("put", IN_ITS_PLACE, ids=lambda put: put.__name__.strip("_"))
def test_something_else_in_a_stores_place_keeps_its_session(cli_root: Path, put: Callable[[Path], None]) -> None:
    store = _store_chat(cli_root, "s1", "platypus")
    _store_chat(cli_root, "s2", "wombat")
    assert index()["sessions"] == 2
    store.unlink()
    put(store)
    result = index()
    assert (result["sessions"], result["removed"], result["unreadable_kept"]) == (2, 0, 1)
    assert found("platypus")
    assert orjson.loads(run_deja("doctor", "--json").stdout)["skipped"] == {UNREADABLE_STORE: 1}
    ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert found("platypus") and found("wombat")


def test_a_store_truly_gone_still_drops_its_session(cli_root: Path) -> None:
    store = _store_chat(cli_root, "s1", "platypus")
    _store_chat(cli_root, "s2", "wombat")
    index()
    store.unlink()
    result = index()
    assert (result["sessions"], result["removed"], result["unreadable_kept"]) == (1, 1, 0)
    assert not found("platypus")


def test_a_link_loop_in_a_chat_folders_place_keeps_its_sessions(cli_root: Path) -> None:
    """A folder above the stores that cannot be searched (here a link loop: ELOOP), as root can test it."""
    _store_chat(cli_root, "s1", "platypus")
    _transcribed_chat(cli_root, "t1", "wombat")
    assert index()["sessions"] == 2
    bucket = chat_dir_for(cli_root, CWD, "s1").parent
    bucket.rename(cli_root / "aside")  # (out of the walk: under chats/ it would be a bucket of its own)
    _link_loop(bucket)
    result = index()
    assert (result["sessions"], result["removed"]) == (2, 0) and result["unreadable_kept"] >= 1
    assert found("platypus") and found("wombat")
    assert run_deja("index", "--full").returncode == 1


@pytest.mark.parametrize("put", [_fifo, _folder], ids=["fifo", "folder"])
def test_something_else_in_an_editor_databases_place_keeps_its_chats(
    sample: Sample, put: Callable[[Path], None]
) -> None:
    first = index()
    db = sample.history.ide_root / "globalStorage" / "state.vscdb"
    db.unlink()
    put(db)
    result = index()
    assert (result["sessions"], result["removed"], result["unreadable_kept"]) == (first["sessions"], 0, 1)
    assert found("footer")
    ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert WEB_COMPOSER in run_deja("sessions", "--json").stdout


def test_a_cli_root_at_mode_000_keeps_the_index_on_a_rebuild(cli_root: Path) -> None:
    _store_chat(cli_root, "s1", "platypus")
    _transcribed_chat(cli_root, "t1", "wombat")
    assert index()["sessions"] == 2
    with at_mode_000(cli_root):
        ran = user("index", "--full", "--json")
        assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
        assert orjson.loads(ran.stdout)["sessions"] == 2
        result = index(run=user)
        assert (result["sessions"], result["removed"]) == (2, 0)
        assert found("platypus", user) and found("wombat", user)


@pytest.mark.parametrize("level", ["chats", "bucket"])
def test_a_chats_folder_at_mode_000_keeps_its_sessions(cli_root: Path, level: str) -> None:
    _store_chat(cli_root, "s1", "platypus")
    _transcribed_chat(cli_root, "t1", "wombat")
    assert index()["sessions"] == 2
    bucket = chat_dir_for(cli_root, CWD, "s1").parent
    with at_mode_000(cli_root / "chats" if level == "chats" else bucket):
        result = index(run=user)
        assert (result["sessions"], result["removed"]) == (2, 0) and result["unreadable_kept"] >= 1
        assert found("platypus", user) and found("wombat", user)


def test_an_editor_folder_at_mode_000_keeps_its_chats(sample: Sample) -> None:
    first = index()
    with at_mode_000(sample.history.ide_root / "globalStorage"):
        result = index(run=user)
        assert (result["sessions"], result["removed"]) == (first["sessions"], 0)
        assert found("footer", user)


def test_one_chat_folder_at_mode_000_does_not_stop_the_refresh_of_the_others(cli_root: Path) -> None:
    """It was read as a failure to write the index ("is DEJA_HOME writable?") and stopped every refresh."""
    _transcribed_chat(cli_root, "t1", "platypus")
    other = _transcribed_chat(cli_root, "t2", "wombat")
    assert index()["sessions"] == 2
    with at_mode_000(chat_dir_for(cli_root, CWD, "t1")):
        with other.open("a") as transcript:
            transcript.write(orjson.dumps(user_turn("and the quokka?")).decode() + "\n")
        ran = user("index")
        assert ran.returncode == 0, ran.stderr
        assert "DEJA_HOME" not in ran.stderr
        assert found("quokka", user) and found("platypus", user)


@pytest.mark.unit
def test_a_cursor_file_it_cannot_read_is_never_blamed_on_deja_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence, should a Cursor path's PermissionError reach the command: named, not DEJA_HOME."""
    from deja.interfaces.fastpath import unwritable

    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    cursor = unwritable(PermissionError(13, "Permission denied", str(tmp_path / "chats" / "store.db")))
    own = unwritable(PermissionError(13, "Permission denied", str(tmp_path / "deja" / "index")))
    assert (
        cursor
        == f"cannot read {tmp_path}/chats/store.db (Permission denied): give your user access to it, or move it away"
    )
    assert own.startswith("cannot write the index (") and own.endswith("is DEJA_HOME writable?")


def test_a_transcript_that_cannot_be_reached_is_not_read_again_from_its_store_alone(cli_root: Path) -> None:
    """Its store is found, its transcript hidden (here ``projects`` a link loop; mode 000 hides it the same way):
    the chat stays as read from its transcript, not re-read from the store without it."""
    _transcribed_chat(cli_root, "t1", "platypus")
    assert index()["sessions"] == 1
    projects = cli_root / "projects"
    projects.rename(cli_root / "aside")
    _link_loop(projects)
    result = index()
    # a ``projects`` that leads nowhere is a folder away this time, its sessions kept as read before (fixd49)
    assert (result["sessions"], result["updated"], result["removed"]) == (1, 0, 0)
    assert result["roots_away"] == {str(projects): 1}
    assert found("platypus")


def test_doctor_names_what_it_cannot_read_under_a_cursor_folder_at_mode_000(cli_root: Path, fake_home: Path) -> None:
    _store_chat(cli_root, "s1", "platypus")
    index()
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    (cursor / "hooks.json").write_text("{}")
    with at_mode_000(cursor), at_mode_000(cli_root):
        ran = user("doctor")
    assert ran.returncode == 1 and "Traceback" not in ran.stderr and "Error:" not in ran.stderr, ran.stderr
    assert f"{cursor}/hooks.json: cannot read it (Permission denied)" in ran.stdout


def test_a_folder_it_can_search_but_not_list_keeps_its_sessions(cli_root: Path) -> None:
    """Mode 0111: each store is still there and readable by name, but the walk cannot list the folder."""
    _store_chat(cli_root, "s1", "platypus")
    _transcribed_chat(cli_root, "t1", "wombat")
    assert index()["sessions"] == 2
    chats, projects = cli_root / "chats", cli_root / "projects"
    for folder in (chats, projects):
        folder.chmod(0o111)
    try:
        result = index(run=user)
        assert (result["sessions"], result["removed"], result["updated"]) == (2, 0, 0)
        assert user("index", "--full").returncode == 1
        assert found("platypus", user) and found("wombat", user)
    finally:
        for folder in (chats, projects):
            folder.chmod(0o755)


def test_a_subagent_no_longer_read_is_still_left_out(cli_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its transcript is still there and readable, but subagents are no longer read: it goes, as asked."""
    parent = transcript_path(cli_root, CWD, "p1")
    write_transcript(parent, [user_turn("the parent's question"), assistant_turn("ok")])
    child = parent.parent / "subagents" / "c1.jsonl"
    child.parent.mkdir()
    write_transcript(child, [user_turn("the subagent's zebracorn task"), assistant_turn("done")])
    monkeypatch.setenv("DEJA_INCLUDE_SUBAGENTS", "1")
    assert index()["sessions"] == 2
    monkeypatch.delenv("DEJA_INCLUDE_SUBAGENTS")
    walked = refresh(Path(os.environ["DEJA_HOME"]))  # a walk over every chat, as `deja index` makes once a minute
    assert (walked.sessions, walked.removed, walked.unreadable_kept) == (1, 1, 0)
    assert not found("zebracorn")


def _folder_instead(path: Path, aside: Path) -> Callable[[], None]:
    """A folder put in ``path``'s place (the file kept at ``aside``); what puts the file back."""
    path.rename(aside)
    path.mkdir()

    def put_back() -> None:
        path.rmdir()
        aside.rename(path)

    return put_back


def test_a_folder_in_a_transcripts_place_stops_a_full_rebuild(cli_root: Path, tmp_path: Path) -> None:
    """The chat also has a store: rebuilt from it alone it would lose what only its transcript holds (a trust
    trial's find: ``--full`` exited 0 without the quokka, and the refresh after the transcript came back kept it
    lost)."""
    transcript = _transcribed_chat(cli_root, "t1", "platypus")
    with transcript.open("a") as more:
        more.write(orjson.dumps(user_turn("and the quokka?")).decode() + "\n")
    _store_chat(cli_root, "s2", "wombat")
    first = index()
    put_back = _folder_instead(transcript, tmp_path / "aside.jsonl")
    assert index()["unreadable_kept"] == 1 and found("quokka")
    ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert str(transcript) in ran.stderr
    assert found("quokka") and found("wombat")
    put_back()
    assert index()["messages"] == first["messages"]
    assert found("quokka") and found("platypus")


def test_a_folder_in_an_editor_chats_transcripts_place_stops_a_full_rebuild(sample: Sample, tmp_path: Path) -> None:
    """The editor's database holds the chat too, but not the Write call only its transcript holds."""
    first = index()
    transcript = transcript_path(sample.history.cli_root, str(sample.history.projects["web"]), WEB_MERGED_COMPOSER)
    put_back = _folder_instead(transcript, tmp_path / "aside.jsonl")
    ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert orjson.loads(ran.stdout)["messages"] == first["messages"]
    put_back()
    assert index()["messages"] == first["messages"]
    assert "ThemeToggle.tsx" in run_deja("show", WEB_MERGED_COMPOSER).stdout


def test_a_cli_root_at_mode_000_is_said_to_be_unreadable_with_its_chmod_not_not_there(cli_root: Path) -> None:
    """A root that is there but may not be listed: said as a folder this user may not list, with the chmod (or chown),
    never as one not there (review49d L2: "not there: a disk not mounted", beside the line giving the chmod)."""
    _transcribed_chat(cli_root, "t1", "wombat")
    assert index()["sessions"] == 1
    with at_mode_000(cli_root):
        ran = user("index")
        doctor = " ".join(user("doctor").stdout.split())
    assert ran.returncode == 0 and "not there" not in ran.stderr, ran.stderr
    assert ran.stderr == (
        f"deja may not list {cli_root} (permission denied): the chats in it are not indexed (the index keeps what it "
        f"read from it before); make it readable: chmod -R u+rX {cli_root}, then `deja index`\n"
    )
    assert f"deja may not read {cli_root}: permission denied" in doctor and f"chmod -R u+rX {cli_root}" in doctor, (
        doctor
    )
    assert "not there" not in doctor and "mount the disk" not in doctor
