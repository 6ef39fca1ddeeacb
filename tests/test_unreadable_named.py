"""What `deja index` could not read is named (README: "one line on stderr naming the file"), and a chat whose
transcript cannot be read is read from its store, which holds the whole conversation (drift §10).

A transcript root can read: a link to ``/proc/self/mem`` in its place (a regular file by ``stat``, whose read
fails with EIO); mode 000 (the trial's case: ``chmod 644`` back changes no time a check sees), read by deja run as
a user that permissions stop (for root, in a user namespace: harness.as_user).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest
from harness import Run, run_deja, user

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
from deja.core.writers.ide import composer_data, composer_key, write_state_vscdb, write_workspace

CWD = "/work/web"


@contextmanager
def locked(*stores: Path) -> Iterator[None]:
    """Each store held by another connection's exclusive lock (rollback journal) until the block ends."""
    holders = []
    for store in stores:
        setup = sqlite3.connect(store)
        setup.execute("PRAGMA journal_mode=DELETE")
        setup.close()
        holder = sqlite3.connect(store, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        holders.append(holder)
    try:
        yield
    finally:
        for holder in holders:
            holder.execute("ROLLBACK")
            holder.close()


def _store_chat(root: Path, chat_id: str) -> Path:
    chat_dir = chat_dir_for(root, CWD, chat_id)
    write_chat_store(
        chat_dir, cwd=CWD, messages=[store_user_message("nginx upstream okapi"), store_assistant_message("raise it")]
    )
    return chat_dir / "store.db"


def test_a_rebuild_that_cannot_read_a_store_names_it_and_why(cli_root: Path) -> None:
    store = _store_chat(cli_root, "s1")
    assert run_deja("index").returncode == 0
    with locked(store):
        ran = run_deja("index", "--full")
    assert ran.returncode == 1
    assert ran.stderr == (
        f"deja: the index was not rebuilt: {store} (locked) could not be read this time, and a rebuild would lose "
        "what was read from it before, which is kept as it was; run it again once it can be read\n"
    )


def test_two_stores_it_cannot_read_name_the_first_and_count_the_other(cli_root: Path) -> None:
    first, second = _store_chat(cli_root, "s1"), _store_chat(cli_root, "s2")
    assert run_deja("index").returncode == 0
    with locked(first, second):
        ran = run_deja("index", "--full")
    assert ran.returncode == 1
    assert ran.stderr.startswith(f"deja: the index was not rebuilt: {first} (locked) and 1 more Cursor store could ")
    assert ran.stderr.endswith(
        "lose what was read from them before, which is kept as it was; run it again once they can be read\n"
    )


def _chat_with_a_store(root: Path) -> Path:
    """A chat with a transcript and a readable store; the transcript has one more turn than the store."""
    transcript = transcript_path(root, CWD, "t1")
    write_transcript(
        transcript, [user_turn("vite hmr pangolin"), assistant_turn("restart vite"), user_turn("and the quokka?")]
    )
    write_chat_store(
        chat_dir_for(root, CWD, "t1"),
        cwd=CWD,
        name="Store is readable",
        messages=[store_user_message("vite hmr pangolin"), store_assistant_message("restart vite")],
    )
    return transcript


def _found(word: str, run: Run = run_deja) -> bool:
    ran = run("search", word)
    assert ran.returncode == 0, ran.stderr
    return "No session matches" not in ran.stdout


def _first_index_reads_the_store(said: str, run: Run = run_deja) -> None:
    ran = run("index")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("1 session, 2 messages indexed")
    assert "No Cursor chats found" not in ran.stdout + ran.stderr
    assert said in ran.stderr
    assert ran.stderr.count("could not be read") == 1, ran.stderr
    assert _found("pangolin", run) and not _found("quokka", run)


def test_a_transcript_it_cannot_read_is_read_from_its_store_then_from_itself_once_it_can(cli_root: Path) -> None:
    transcript = _chat_with_a_store(cli_root)
    aside = transcript.with_name("aside")
    transcript.rename(aside)
    transcript.symlink_to("/proc/self/mem")
    _first_index_reads_the_store(f"{transcript} (not readable) could not be read this time")
    transcript.unlink()
    aside.rename(transcript)
    ran = run_deja("index")
    assert ran.returncode == 0 and "could not be read" not in ran.stderr, ran.stderr
    assert _found("quokka")


def test_a_transcript_at_mode_000_is_read_from_its_store_then_from_itself_once_it_can(cli_root: Path) -> None:
    """The trial's case: after ``chmod 644`` no time a check looks at has moved; the next `deja index` reads it."""
    transcript = _chat_with_a_store(cli_root)
    transcript.chmod(0)
    try:
        _first_index_reads_the_store(
            f"{transcript} (permission denied) could not be read: nothing was read from it before; make it readable: "
            f"chmod u+r {transcript}, then `deja index`",  # (a file: no -R, trial23 F7.6)
            user,
        )
    finally:
        transcript.chmod(0o644)
    ran = user("index")
    assert ran.returncode == 0 and "could not be read" not in ran.stderr, ran.stderr
    assert _found("quokka", user)


def test_a_transcript_another_user_owns_is_given_with_the_chown_its_chmod_cannot_do(cli_root: Path) -> None:
    """A ``chmod u+r`` of a file another user owns (Cursor once run with ``sudo``) fails, and would give its owner,
    not this user, the read: the line gives the ``sudo chown`` first. Made for real as root alone (a user cannot give
    a file away), read by deja as uid 1000 in a user namespace, to which the file's owner is another user."""
    import os

    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    transcript = _chat_with_a_store(cli_root)
    os.chown(transcript, 4242, -1)
    transcript.chmod(0)
    try:
        _first_index_reads_the_store(
            f"{transcript} (permission denied) could not be read: nothing was read from it before; make it readable: "
            f'sudo chown "$USER" {transcript} && chmod u+r {transcript}, then `deja index`',
            user,
        )
    finally:
        transcript.chmod(0o644)


def test_whose_a_file_is_comes_from_its_stat(tmp_path: Path) -> None:
    """The choice between ``chmod`` and ``sudo chown`` (``private.owned_by_another``), fed real stats: a file this
    user made, and one another user owns (given away as root; else the root folder, root's)."""
    import os

    from deja.core.private import owned_by_another

    mine = tmp_path / "mine"
    mine.write_text("x")
    assert not owned_by_another(os.stat(mine))
    theirs = Path("/")
    if os.geteuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.write_text("x")
        os.chown(theirs, 4242, -1)
    assert owned_by_another(os.stat(theirs))


def test_chats_it_could_not_read_are_not_said_to_be_missing(cli_root: Path) -> None:
    """A first build whose only chat is locked: the chat is there (named above), not "No Cursor chats found"."""
    store = _store_chat(cli_root, "s1")
    with locked(store):
        ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("0 sessions, 0 messages indexed") and len(ran.stdout.splitlines()) == 1
    assert "No Cursor chats found" not in ran.stdout
    assert f"{store} (locked) could not be read this time" in ran.stderr


def test_a_rebuild_that_meets_a_damaged_store_names_the_way_out_and_takes_it(cli_root: Path) -> None:
    """A truncated store never reads again: waiting is no way out (trial10 F5), moving it away is, and the rebuild
    then goes ahead without its sessions; the others stay."""
    store = _store_chat(cli_root, "s1")
    _store_chat(cli_root, "s2")
    assert run_deja("index").returncode == 0
    with store.open("r+b") as damaged:
        damaged.truncate(store.stat().st_size // 2)
    ran = run_deja("index", "--full")
    assert ran.returncode == 1
    assert ran.stderr == (
        f"deja: the index was not rebuilt: {store} (damaged) could not be read this time, and a rebuild would lose "
        "what was read from it before, which is kept as it was; a damaged "
        f"file stays so: move it away (mv {store} {store}.damaged) and run it again, to rebuild without its session\n"
    )
    store.rename(f"{store}.damaged")
    again = run_deja("index", "--full")
    assert again.returncode == 0, again.stderr
    listed = run_deja("sessions").stdout
    assert "s2" in listed and "s1" not in listed, listed


def test_a_refresh_that_meets_a_damaged_store_names_the_way_out_not_a_read_to_come(cli_root: Path) -> None:
    """A damaged store was promised a read "by the next `deja index`", run after run (review12 R5): the line says it
    stays so and how to drop it, and what was read from it before is kept until then."""
    store = _store_chat(cli_root, "s1")
    assert run_deja("index").returncode == 0
    with store.open("r+b") as damaged:
        damaged.truncate(store.stat().st_size // 2)
    ran = run_deja("index")
    assert ran.returncode == 0
    assert ran.stderr.startswith(
        f"{store} (damaged) could not be read this time: what was read from it before is kept; a damaged file stays "
        f"so: move it away (mv {store} {store}.damaged) to drop this line and its session\n"
    ), ran.stderr


def _damage(store: Path) -> None:
    with store.open("r+b") as damaged:
        damaged.truncate(store.stat().st_size // 2)


def test_a_damaged_store_never_read_blocks_no_rebuild_once_the_one_read_before_is_moved_away(cli_root: Path) -> None:
    """A new chat's store damaged before any read, beside one read before and damaged since: the rebuild is refused
    for the one read before, named first, and moving it away as told let the rebuild go ahead no more (review12 R5b:
    "a rebuild would lose the sessions read from it" was said of the new store, which held none, while the session
    lost was that of a store no longer there, which no refusal keeps)."""
    old = _store_chat(cli_root, "s1")
    _store_chat(cli_root, "s2")
    assert run_deja("index").returncode == 0
    new = _store_chat(cli_root, "s0")  # (read before s1 by a rebuild, which reads chats in order)
    _damage(new)
    _damage(old)
    ran = run_deja("index", "--full")
    assert ran.returncode == 1
    assert ran.stderr == (  # (the new store, which held no session, is none of those it "would lose", nor "1 more")
        f"deja: the index was not rebuilt: {old} (damaged) could not be read this time, and a rebuild would lose what "
        "was read from it before, which is kept as it was; a damaged "
        f"file stays so: move it away (mv {old} {old}.damaged) and run it again, to rebuild without its session\n"
    )
    old.rename(f"{old}.damaged")
    again = run_deja("index", "--full")
    assert again.returncode == 0, again.stderr
    assert again.stderr.startswith(
        f"{new} (damaged) could not be read this time: nothing was read from it before; a damaged file stays so: "
        f"move it away (mv {new} {new}.damaged) to drop this line\n"
    ), again.stderr
    listed = run_deja("sessions").stdout
    assert "s2" in listed and "s1" not in listed and "s0" not in listed, listed


def _editor_chats(db: Path, *composer_ids: str) -> None:
    """An editor database holding a chat per id (a question and its answer), as Cursor keeps it."""
    write_state_vscdb(
        db,
        composers={cid: composer_data(cid, [("q", 1), ("a", 2)], created_at=1_780_000_000_000) for cid in composer_ids},
        bubbles={
            cid: {"q": {"type": 1, "text": f"okapi question {cid}"}, "a": {"type": 2, "text": "an answer"}}
            for cid in composer_ids
        },  # fmt: skip
    )


def _deleted_in_cursor(db: Path, composer_id: str) -> None:
    """The chat deleted in Cursor: its rows go, the database stays (and reads)."""
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM cursorDiskKV WHERE key = ? OR key LIKE ?", (composer_key(composer_id), f"bubbleId:{composer_id}:%"))  # fmt: skip
    conn.close()


@pytest.mark.parametrize("read_before", [False, True])
def test_an_editor_chat_deleted_in_cursor_holds_no_rebuild_back(cli_root: Path, tmp_path: Path, read_before: bool) -> None:  # fmt: skip
    """An editor chat deleted in a database deja reads, while another store cannot be read: ``--full`` counted the
    deleted chat as a session it would lose, and refused (twins32), though no refusal keeps it (the next refresh
    drops it). A rebuild goes ahead without it; one that would lose the sessions of the store it cannot read (read
    before, damaged since) is still refused, naming that store."""
    db = tmp_path / "no-ide" / "globalStorage" / "state.vscdb"
    _editor_chats(db, "e-kept", "e-gone")
    store = _store_chat(cli_root, "s1")
    if not read_before:
        store.rename(tmp_path / "s1-store.db")  # (it comes back, damaged, after the index is built)
    assert run_deja("index").returncode == 0
    if not read_before:
        (tmp_path / "s1-store.db").rename(store)
    _damage(store)
    _deleted_in_cursor(db, "e-gone")
    ran = run_deja("index", "--full")
    listed = run_deja("sessions").stdout
    if read_before:
        assert ran.returncode == 1 and ran.stderr.startswith(f"deja: the index was not rebuilt: {store} (damaged) could not"), ran.stderr  # fmt: skip
        assert "s1" in listed, listed  # (kept as it was; the refresh a command runs drops the deleted chat)
    else:
        assert ran.returncode == 0, ran.stderr
        assert ran.stderr.startswith(f"{store} (damaged) could not be read this time: nothing was read from it before")
        assert "e-kept" in listed and "e-gone" not in listed and "s1" not in listed, listed


@pytest.mark.parametrize("value", ["{not json", "null"])
def test_an_editor_chat_its_database_no_longer_yields_holds_no_rebuild_back(cli_root: Path, tmp_path: Path, value: str) -> None:  # fmt: skip
    """An editor chat whose row is still in the database but no longer decodes: the next refresh drops it, as a
    deleted one, yet ``--full`` counted it as a session it would lose and refused, blaming a new store that never
    held a session ("would lose the sessions read from it before") (review18 R18-5)."""
    db = tmp_path / "no-ide" / "globalStorage" / "state.vscdb"
    _editor_chats(db, "e-kept", "e-bad")
    assert run_deja("index").returncode == 0
    store = _store_chat(cli_root, "s1")
    _damage(store)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (value, composer_key("e-bad")))
    conn.close()
    ran = run_deja("index", "--full")
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.startswith(f"{store} (damaged) could not be read this time: nothing was read from it before")
    listed = run_deja("sessions").stdout
    assert "e-kept" in listed and "e-bad" not in listed, listed


WORKSPACE = "aaaa1111bbbb2222cccc3333dddd4444"
EDITOR_CHAT = "c0ffee00-0000-4000-8000-0000000000f3"
T0 = 1_796_000_000_000


def _editor_chat_in_a_workspace(tmp_path: Path) -> tuple[Path, Path]:
    """An editor chat its workspace's database lists, so its folder comes from that workspace's ``workspace.json``:
    that file, and the folder it names."""
    user_root, folder = tmp_path / "no-ide", tmp_path / "code" / "web"
    folder.mkdir(parents=True)
    write_workspace(user_root, WORKSPACE, folder=str(folder), all_composers=[EDITOR_CHAT])
    bubbles = {"b1": {"type": 1, "text": "the footer wombat is missing"}, "b2": {"type": 2, "text": "Add it back."}}
    write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={EDITOR_CHAT: composer_data(EDITOR_CHAT, [("b1", 1), ("b2", 2)], created_at=T0, name="Footer")},
        bubbles={EDITOR_CHAT: bubbles},
    )
    return user_root / "workspaceStorage" / WORKSPACE / "workspace.json", folder


def _project_dir(run: Run) -> str:
    listed = run("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    return next(s["project_dir"] for s in orjson.loads(listed.stdout)["sessions"] if s["id"] == EDITOR_CHAT)


def test_a_workspace_json_it_may_not_read_is_named_with_its_chmod_not_called_malformed(
    cli_root: Path, tmp_path: Path
) -> None:
    """It was counted as "malformed workspace.json" (doctor: Cursor passes them over too), with no fix and no word
    from `deja index` (trial57 F3): now it is named as an unreadable database is, and the chat keeps its folder."""
    from test_doctor_unreadable import doctor

    workspace_json, folder = _editor_chat_in_a_workspace(tmp_path)
    assert run_deja("index").returncode == 0
    workspace_json.chmod(0)
    try:
        ran = user("index", "--full")
        assert ran.returncode == 0, ran.stderr
        assert (
            (
                f"{workspace_json} (permission denied) could not be read: what was read from it before is kept; make it "
                f"readable: chmod u+r {workspace_json}, then `deja index --full`"  # (trial58b B1: a plain one may not place)
            )
            in ran.stderr
        )
        assert _project_dir(user) == str(folder)
        screen, report = doctor(user)
        assert report["unreadable_files"] == [str(workspace_json)]
        assert "malformed" not in screen and report["skipped"] == {}
        assert f"chmod u+r {workspace_json}" in " ".join(screen.split())
    finally:
        workspace_json.chmod(0o644)
    ran = user("index")
    assert ran.returncode == 0 and "could not be read" not in ran.stderr, ran.stderr


def test_a_chat_placed_while_its_workspace_json_could_not_be_read_is_placed_once_it_can(
    cli_root: Path, tmp_path: Path
) -> None:
    """chmod moves no time a refresh's signature sees: the file is recorded as absent while it cannot be read, so
    the first `deja index` after the chmod places its workspace's chats again."""
    workspace_json, folder = _editor_chat_in_a_workspace(tmp_path)
    workspace_json.chmod(0)
    try:
        ran = user("index")
        assert ran.returncode == 0, ran.stderr
        assert f"{workspace_json} (permission denied) could not be read: nothing was read from it before" in ran.stderr
        assert _project_dir(user) == ""
    finally:
        workspace_json.chmod(0o644)
    ran = user("index")
    assert ran.returncode == 0 and "could not be read" not in ran.stderr, ran.stderr
    assert _project_dir(user) == str(folder)
