"""A Cursor store that cannot be read this time keeps its sessions; only one that is gone or empty loses them.

Locks are real (``BEGIN EXCLUSIVE`` held by another connection), damage is real
(the file overwritten with garbage), and every store is written by deja's writers.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import Sample, locked, run_deja

from deja.core.sample import API_EDITOR_COMPOSER, WEB_COMPOSER, WEB_MERGED_COMPOSER
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import write_state_vscdb

CWD = "/work/api"


def kept_note(store: Path, why: str) -> str:
    """What `deja index` says of one store it could not read: the file, why, and that its sessions are kept; until
    the next read, or for a damaged one, which no read mends, until it is moved away."""
    if why == "damaged":
        return (
            f"{store} (damaged) could not be read this time: what was read from it before is kept; a damaged file "
            f"stays so: move it away (mv {store} {store}.damaged) to drop this line and its session"
        )
    return (
        f"{store} ({why}) could not be read this time: what was read from it before is kept, "
        "and it is read again by the next `deja index` (by deja on its own within a minute)"
    )


def index() -> dict[str, Any]:
    ran = run_deja("index", "--json")
    assert ran.returncode == 0, ran.stderr
    return orjson.loads(ran.stdout)


def index_text() -> tuple[str, str]:
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    return ran.stdout, ran.stderr


def shown(session_id: str) -> list[str]:
    ran = run_deja("show", session_id, "--json")
    assert ran.returncode == 0, ran.stderr
    return [m["text"] for m in orjson.loads(ran.stdout)["messages"]]


def session_ids() -> set[str]:
    return {s["id"] for s in orjson.loads(run_deja("sessions", "--json").stdout)["sessions"]}


def _store_chat(root: Path, chat_id: str, *answers: str) -> Path:
    chat_dir = chat_dir_for(root, CWD, chat_id)
    messages = [store_user_message(f"question of {chat_id}")] + [store_assistant_message(a) for a in answers]
    write_chat_store(chat_dir, cwd=CWD, name=f"Chat {chat_id}", messages=messages)
    return chat_dir / "store.db"


@pytest.mark.parametrize("journal", ["DELETE", "WAL"])
def test_a_locked_store_keeps_its_session_until_it_can_be_read(cli_root: Path, journal: str) -> None:
    store = _store_chat(cli_root, "s1", "first answer")
    _store_chat(cli_root, "s2", "other chat")
    assert index()["sessions"] == 2
    _store_chat(cli_root, "s1", "first answer", "second answer")
    with locked(store, journal):
        result = index()
        assert result["sessions"] == 2 and result["removed"] == 0
        if journal == "DELETE":  # a rollback journal's exclusive lock shuts readers out
            assert result["unreadable_kept"] == 1
            assert shown("s1") == ["question of s1", "first answer"]  # as it was
        else:  # a WAL database stays readable under a writer's lock: read as committed
            assert result["unreadable_kept"] == 0
            assert shown("s1") == ["question of s1", "first answer", "second answer"]
    again = index()
    assert again["unreadable_kept"] == 0 and again["sessions"] == 2
    assert shown("s1") == ["question of s1", "first answer", "second answer"]


def test_a_garbled_store_keeps_its_session_and_only_a_gone_or_empty_one_drops_it(cli_root: Path) -> None:
    store = _store_chat(cli_root, "s1", "the answer")
    empty = _store_chat(cli_root, "s2", "another answer")
    assert index()["sessions"] == 2
    store.write_bytes(b"\x00garbage, not SQLite" * 300)
    out, err = index_text()
    assert "0 removed" in out and kept_note(store, "damaged") in err
    assert shown("s1") == ["question of s1", "the answer"]
    write_chat_store(empty.parent, cwd=CWD, messages=[], stale_root=False)  # really empty: its root lists nothing
    result = index()
    assert (result["removed"], result["unreadable_kept"]) == (1, 1)
    assert session_ids() == {"s1"}
    store.unlink()  # really gone
    result = index()
    assert (result["removed"], result["unreadable_kept"], result["sessions"]) == (1, 0, 0)


def test_a_transcribed_chat_whose_store_turns_unreadable_keeps_its_results(cli_root: Path) -> None:
    path = transcript_path(cli_root, CWD, "t1")
    records = [user_turn("run the tests"), assistant_turn("Running.", tool_use("Shell", {"command": "pytest"}))]
    write_transcript(path, records)
    chat_dir = chat_dir_for(cli_root, CWD, "t1")
    store_messages: list[dict[str, Any]] = [
        store_user_message("run the tests"),
        store_assistant_message("Running.", tool_call_part("x1", "Shell", {"command": "pytest"})),
        tool_result_message("x1", "Shell", shell_result_text("3 failed", exit_code=1)),
    ]
    write_chat_store(chat_dir, cwd=CWD, name="Run the tests", messages=store_messages)
    assert index()["sessions"] == 1

    def result_of_first_call() -> tuple[str | None, int | None]:
        data = orjson.loads(run_deja("show", "t1", "--json").stdout)
        call = data["messages"][1]["tool_calls"][0]
        return call["result"], call["exit_code"]

    assert result_of_first_call() == ("3 failed", 1)
    write_transcript(path, [*records, assistant_turn("Three tests fail on the locale.")])
    (chat_dir / "store.db").write_bytes(b"garbage" * 500)
    result = index()
    assert (result["updated"], result["removed"], result["unreadable_kept"]) == (0, 0, 1)
    assert result_of_first_call() == ("3 failed", 1)  # kept as it was, results and all
    write_chat_store(chat_dir, cwd=CWD, name="Run the tests", messages=store_messages)
    result = index()
    assert (result["updated"], result["unreadable_kept"]) == (1, 0)
    assert shown("t1")[-1] == "Three tests fail on the locale."
    assert result_of_first_call() == ("3 failed", 1)


def _touch_global_db(sample: Sample) -> Path:
    """Write to the editor's global database, so the next refresh must look at it again."""
    db = sample.history.ide_root / "globalStorage" / "state.vscdb"
    write_state_vscdb(db, item_table={"workbench.panel.height": {"value": 300}})
    return db


def test_a_locked_editor_database_keeps_its_chats(sample: Sample) -> None:
    first = index()
    assert {WEB_COMPOSER, WEB_MERGED_COMPOSER} <= session_ids()
    db = _touch_global_db(sample)
    with locked(db, "DELETE"):
        out, err = index_text()
    assert "0 removed" in out and kept_note(db, "locked") in err
    assert {WEB_COMPOSER, WEB_MERGED_COMPOSER} <= session_ids()
    assert index()["sessions"] == first["sessions"]
    assert shown(WEB_COMPOSER)[0] == "why is the footer missing on mobile?"


def test_a_garbled_editor_database_keeps_its_chats_and_a_deleted_one_drops_them(sample: Sample) -> None:
    first = index()
    db = sample.history.ide_root / "globalStorage" / "state.vscdb"
    saved = db.read_bytes()
    db.write_bytes(b"\x00garbage" * 2000)
    result = index()
    assert (result["removed"], result["unreadable_kept"], result["sessions"]) == (0, 1, first["sessions"])
    assert shown(WEB_COMPOSER)[0] == "why is the footer missing on mobile?"
    db.write_bytes(saved)
    assert index()["unreadable_kept"] == 0
    db.unlink()  # really gone: the footer and rate-limit chats go; the merged one keeps its transcript side
    result = index()
    assert result["removed"] == 2 and not {WEB_COMPOSER, API_EDITOR_COMPOSER} & session_ids()


def test_an_editor_database_with_overwritten_pages_is_named_damaged_not_waited_for(sample: Sample) -> None:
    """A table's own page overwritten (its schema and its unique key's index read, its rows do not: SQLite says
    "malformed"): `deja index` and a refused `--full` name it damaged and give the `mv` doctor gives, never "read
    again" or "once it can be read", which no run mends; what was read from it is kept (trial49 F5). A count of the
    table reads only its index, so the verdict is the refresh's own read's (review49d H1)."""
    first = index()
    db = sample.history.ide_root / "globalStorage" / "state.vscdb"
    _overwrite_data_page(db, "cursorDiskKV")
    out, err = index_text()
    assert "0 removed" in out and err.startswith(f"{db} (damaged) could not be read this time: what was read"), err
    assert f"move it away (mv {db} {db}.damaged)" in err and "read again" not in err
    ran = run_deja("index", "--full")
    assert ran.returncode == 1 and ran.stderr.startswith(f"{NOT_REBUILT}{db} (damaged) could not be read"), ran.stderr
    assert f"move it away (mv {db} {db}.damaged) and run it again" in ran.stderr
    assert "once it can be read" not in ran.stderr
    assert index()["sessions"] == first["sessions"]
    assert shown(WEB_COMPOSER)[0] == "why is the footer missing on mobile?"


NOT_REBUILT = "deja: the index was not rebuilt: "


def _overwrite_data_page(db: Path, table: str) -> None:
    """Garble the cells of ``table``'s root page (a leaf: the sample's tables are small), past its page header,
    leaving every other page, its unique key's index among them, as it was."""
    with sqlite3.connect(db) as conn:
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        (index_root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (table,)
        ).fetchone()
    conn.close()
    assert root != index_root
    with db.open("r+b") as file:
        file.seek((root - 1) * page_size + 100)
        file.write(b"\x00garbage" * ((page_size - 200) // 8))


def _crash_mid_write(db: Path) -> None:
    """A writer killed mid-transaction after spilling pages into the file: a hot rollback journal beside it, as a
    Cursor crash or a power cut leaves one (Cursor's state.vscdb is in rollback mode)."""
    crash = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA cache_size=2')\n"
        "c.execute('BEGIN')\n"
        "for i in range(3000):\n"
        "    c.execute('INSERT INTO ItemTable(key, value) VALUES (?, ?)', (f'zz{i}', 'x' * 500))\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", crash, str(db)], check=True)
    assert Path(f"{db}-journal").stat().st_size > 0


def test_an_editor_database_a_crash_left_mid_write_is_never_moved_away(sample: Sample) -> None:
    """A hot journal beside Cursor's state.vscdb: deja opens it read-only and cannot roll it back; Cursor does when it
    next opens it. `deja index`, a refused `--full` and doctor say so, and never advise moving Cursor's own file
    away, which would throw its state away (review49d M1); once rolled back it reads again."""
    first = index()
    db = sample.history.ide_root / "globalStorage" / "state.vscdb"
    _crash_mid_write(db)
    out, err = index_text()
    assert "0 removed" in out and err.startswith(f"{db} (left mid-write by Cursor) could not be read this time"), err
    assert "open Cursor once and it repairs it; deja reads it after" in err
    ran = run_deja("index", "--full")
    assert ran.returncode == 1 and "open Cursor once and it repairs it" in ran.stderr, ran.stderr
    doctor = run_deja("doctor")
    assert f"{db} cannot be read: left mid-write by Cursor" in doctor.stdout, doctor.stdout
    for said in (err, ran.stderr, doctor.stdout):
        assert "mv " not in said and "damaged" not in said
    sqlite3.connect(db).execute("SELECT count(*) FROM ItemTable").fetchone()  # (Cursor opening it: rolled back)
    assert index()["sessions"] == first["sessions"]
    assert shown(WEB_COMPOSER)[0] == "why is the footer missing on mobile?"


def test_a_full_rebuild_that_cannot_read_the_editor_database_keeps_the_index(sample: Sample) -> None:
    first = index()
    db = _touch_global_db(sample)
    with locked(db, "DELETE"):
        ran = run_deja("index", "--full")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert {WEB_COMPOSER, WEB_MERGED_COMPOSER} <= session_ids()
    assert shown(WEB_COMPOSER)[0] == "why is the footer missing on mobile?"
    again = run_deja("index", "--full", "--json")
    assert again.returncode == 0, again.stderr
    assert orjson.loads(again.stdout)["sessions"] == first["sessions"]


def test_a_full_rebuild_that_cannot_read_a_chat_store_keeps_the_index(cli_root: Path) -> None:
    store = _store_chat(cli_root, "s1", "first answer")
    _store_chat(cli_root, "s2", "other chat")
    assert index()["sessions"] == 2
    with locked(store, "DELETE"):
        ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert orjson.loads(ran.stdout)["not_rebuilt"] is True
    assert session_ids() == {"s1", "s2"} and shown("s1") == ["question of s1", "first answer"]


def test_a_full_rebuild_that_cannot_read_the_store_beside_a_transcript_keeps_the_index(cli_root: Path) -> None:
    """The chat would come back from its transcript alone, without the store's title and the command's output."""
    chat_dir = chat_dir_for(cli_root, CWD, "c1")
    write_transcript(
        transcript_path(cli_root, CWD, "c1"),
        [user_turn("why does quuxmigrate fail?"), assistant_turn("Running it.", tool_use("Shell", {"command": "./m"}))],
    )
    write_chat_store(
        chat_dir,
        cwd=CWD,
        name="Quux migrate exit 3",
        messages=[
            store_user_message("why does quuxmigrate fail?"),
            store_assistant_message("Running it.", tool_call_part("t1", "Shell", {"command": "./m"})),
            tool_result_message("t1", "Shell", shell_result_text("Error: table zebra missing", exit_code=3)),
        ],
    )
    index()

    def shown_chat() -> str:
        return run_deja("show", "c1").stdout

    assert "Quux migrate exit 3" in shown_chat() and "table zebra missing" in shown_chat()
    with locked(chat_dir / "store.db", "DELETE"):
        ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 1 and ran.stderr.startswith(NOT_REBUILT), ran.stderr
    assert "Quux migrate exit 3" in shown_chat() and "table zebra missing" in shown_chat()


def test_a_first_build_that_cannot_read_a_chat_store_indexes_the_rest(cli_root: Path) -> None:
    store = _store_chat(cli_root, "s1", "first answer")
    _store_chat(cli_root, "s2", "other chat")
    with locked(store, "DELETE"):
        result = index()  # nothing was read before: nothing to keep, so the build goes ahead without it
    assert result["sessions"] == 1 and result["unreadable_kept"] == 1


def test_deja_index_reads_a_store_it_could_not_read_as_soon_as_it_can(cli_root: Path) -> None:
    """A new chat's store locked during a refresh: once the lock is gone nothing of the chat has changed, so the
    cheap check saw nothing to read, and the chat stayed out of the index until the walk a minute later, while the
    line said it is read again on the next run (trialN F12). ``deja index`` tries it again."""
    _store_chat(cli_root, "s1", "first answer")
    assert index()["sessions"] == 1
    store = _store_chat(cli_root, "s2", "the wombat answer")
    with locked(store, "DELETE"):
        assert index()["unreadable_kept"] == 1
    again = index()
    assert again["sessions"] == 2 and again["added"] == 1 and again["unreadable_kept"] == 0
    assert shown("s2") == ["question of s2", "the wombat answer"]


def test_a_store_never_read_before_is_not_said_to_be_kept(cli_root: Path) -> None:
    """A new chat's store locked at its first sighting, alone or beside its transcript: the line said "what was read
    from it before is kept" of a store nothing was read from (trial9 F5); one read before still says it."""
    read = _store_chat(cli_root, "s1", "first answer")
    assert index()["sessions"] == 1
    alone = _store_chat(cli_root, "s2", "the wombat answer")
    with locked(alone, "DELETE"):
        said = index_text()[1]
    assert said.startswith(
        f"{alone} (locked) could not be read this time: nothing was read from it before; it is read by the next "
        "`deja index` (by deja on its own within a minute)\n"
    ), said
    beside = _store_chat(cli_root, "s3", "the aardvark answer")
    write_transcript(transcript_path(cli_root, CWD, "s3"), [user_turn("question of s3"), assistant_turn("partly")])
    _store_chat(cli_root, "s1", "first answer", "second answer")
    with locked(beside, "DELETE"), locked(read, "DELETE"):
        said = index_text()[1]
    assert "s3" in session_ids()  # (its transcript's turns are in)
    assert "could not be read this time: what was read from 1 of them before is kept (1 never read yet), and they" in (
        said
    ), said
    _store_chat(cli_root, "s1", "first answer", "second answer", "third")
    with locked(read, "DELETE"):
        assert kept_note(read, "locked") in index_text()[1]


def test_a_lock_once_released_is_no_longer_reported(sample: Sample) -> None:
    index()
    db = _touch_global_db(sample)
    with locked(db, "DELETE"):
        index_text()
    assert "database locked" in run_deja("doctor").stdout
    _touch_global_db(sample)
    out, err = index_text()
    assert "could not be read" not in err
    assert "database locked" not in run_deja("doctor").stdout


def test_a_refresh_of_other_chats_still_reports_a_store_it_did_not_try_again(cli_root: Path, tmp_path: Path) -> None:
    """The session-end hook refreshes its own chat only: a garbled store elsewhere stays in doctor's report."""
    from deja.core.indexer import refresh
    from deja.core.readers.chatstore import UNREADABLE_STORE

    store = _store_chat(cli_root, "s1", "the answer")
    _store_chat(cli_root, "s2", "another answer")
    index()
    store.write_bytes(b"\x00garbage, not SQLite" * 300)
    index()

    def skipped() -> dict[str, int]:
        return orjson.loads(run_deja("doctor", "--json").stdout)["skipped"]

    assert skipped().get(UNREADABLE_STORE) == 1
    _store_chat(cli_root, "s2", "another answer", "and more")
    refresh(tmp_path / "deja", only_chat_ids={"s2"})
    assert skipped().get(UNREADABLE_STORE) == 1


def test_a_store_read_whole_again_by_a_refresh_of_its_chat_takes_its_count_off(cli_root: Path, tmp_path: Path) -> None:
    """trialH F7: two garbled stores, one healed and read again by a refresh of its chat alone (what a read or
    ``deja index`` does between walks): its count goes, the other's stays, and with both healed nothing is left."""
    from deja.core.indexer import refresh
    from deja.core.readers.chatstore import UNREADABLE_STORE

    stores = [_store_chat(cli_root, sid, f"the answer of {sid}") for sid in ("s1", "s2")]
    index()
    for store in stores:
        store.write_bytes(b"\x00garbage, not SQLite" * 300)
    index()

    def skipped() -> dict[str, int]:
        return orjson.loads(run_deja("doctor", "--json").stdout)["skipped"]

    assert skipped() == {UNREADABLE_STORE: 2}
    _store_chat(cli_root, "s1", "the answer of s1", "healed")
    refresh(tmp_path / "deja", only_chat_ids={"s1"})
    assert skipped() == {UNREADABLE_STORE: 1}
    assert shown("s1") == ["question of s1", "the answer of s1", "healed"]
    _store_chat(cli_root, "s2", "the answer of s2", "healed")
    refresh(tmp_path / "deja", only_chat_ids={"s2"})
    assert skipped() == {}
    assert "unreadable" not in index_text()[1]
    assert "index skipped" not in run_deja("doctor").stdout


def test_a_full_rebuild_goes_ahead_when_the_store_it_cannot_read_never_held_a_session(sample: Sample) -> None:
    first = index()
    garbage = sample.history.ide_root / "workspaceStorage" / "broken" / "state.vscdb"
    garbage.parent.mkdir(parents=True)
    garbage.write_bytes(b"\x00garbage, not SQLite" * 300)
    ran = run_deja("index", "--full", "--json")
    assert ran.returncode == 0, ran.stderr
    result = orjson.loads(ran.stdout)
    assert result["not_rebuilt"] is False and result["sessions"] == first["sessions"]


def test_a_damaged_store_beside_a_transcript_is_moved_away_without_its_session(cli_root: Path) -> None:
    """``deja index`` says what moving a damaged store away drops: for a chat its transcript holds, the tool output
    and the title only the store held, not the session ("to drop its sessions" was said of one that stayed: trial47
    F4). Moved away as told, the rebuild keeps the session, read from the transcript."""
    path = transcript_path(cli_root, CWD, "t1")
    write_transcript(
        path, [user_turn("run the tests"), assistant_turn("Running.", tool_use("Shell", {"command": "pytest"}))]
    )
    chat_dir = chat_dir_for(cli_root, CWD, "t1")
    write_chat_store(chat_dir, cwd=CWD, name="Run the tests", messages=[
        store_user_message("run the tests"),
        store_assistant_message("Running.", tool_call_part("x1", "Shell", {"command": "pytest"})),
        tool_result_message("x1", "Shell", shell_result_text("3 failed", exit_code=1)),
    ])  # fmt: skip
    assert index()["sessions"] == 1
    before = orjson.loads(run_deja("show", "t1", "--json").stdout)
    assert (before["session"]["title"], before["messages"][1]["tool_calls"][0]["result"]) == (
        "Run the tests",
        "3 failed",
    )
    store = chat_dir / "store.db"
    store.write_bytes(b"garbage" * 500)
    _, err = index_text()
    assert err == (
        f"{store} (damaged) could not be read this time: what was read from it before is kept; a damaged file stays "
        f"so: move it away (mv {store} {store}.damaged) to drop this line and its tool output and title, not its "
        "session, which its transcript holds\n"
    )
    store.rename(f"{store}.damaged")
    rebuilt = run_deja("index", "--full")
    assert rebuilt.returncode == 0, rebuilt.stderr
    data = orjson.loads(run_deja("show", "t1", "--json").stdout)
    assert [m["text"] for m in data["messages"]] == ["run the tests", "Running."]
    assert data["messages"][1]["tool_calls"][0]["result"] is None  # ("3 failed", the store's alone, went with it)
    assert data["session"]["title"] == "run the tests"  # (its first question: "Run the tests" was the store's)


#: What a chat's store may hold beyond its transcript's one turn (a chat continued where only the store is
#: written): a later turn, or a later answer to that turn.
STORE_ALONE = {
    "a later turn": ["now fix the flaky one", "Fixed the flaky test."],
    "a later answer": ["All 12 pass now."],
}


def _chat_with_more_in_its_store(cli_root: Path, more: list[str]) -> Path:
    """A chat whose transcript holds one turn, which its store holds followed by ``more`` (a question, then answers,
    or answers alone); its store's path."""
    write_transcript(transcript_path(cli_root, CWD, "t1"), [user_turn("run the tests"), assistant_turn("Running.")])
    chat_dir = chat_dir_for(cli_root, CWD, "t1")
    later = [store_user_message(text) if text.startswith("now") else store_assistant_message(text) for text in more]
    messages = [store_user_message("run the tests"), store_assistant_message("Running."), *later]
    write_chat_store(chat_dir, cwd=CWD, name="Run the tests", messages=messages)
    return chat_dir / "store.db"


@pytest.mark.parametrize("more", STORE_ALONE.values(), ids=STORE_ALONE.keys())
def test_a_damaged_store_holding_messages_its_transcript_lacks_says_they_go_with_it(
    cli_root: Path, more: list[str]
) -> None:
    """Moving away a damaged store whose chat has messages its transcript lacks drops them too, and the line says
    so ("not its session" was said of a chat that lost its second turn: review47f M1). Moved away as told, the
    session is the transcript's turn alone."""
    store = _chat_with_more_in_its_store(cli_root, more)
    assert index()["sessions"] == 1
    assert shown("t1") == ["run the tests", "Running.", *more]
    store.write_bytes(b"garbage" * 500)
    _, err = index_text()
    assert err == (
        f"{store} (damaged) could not be read this time: what was read from it before is kept; a damaged file stays "
        f"so: move it away (mv {store} {store}.damaged) to drop this line and its tool output, its title and the "
        "messages its transcript lacks (its transcript keeps the rest)\n"
    )
    store.rename(f"{store}.damaged")
    index_text()
    assert shown("t1") == ["run the tests", "Running."]


def test_a_full_rebuild_refused_for_a_damaged_store_says_one_thing_of_what_goes(cli_root: Path) -> None:
    """``deja index --full`` refused for a damaged store beside a transcript said a rebuild "would lose the sessions
    read from it", to "run it again once it can be read", then "to rebuild without … not its session" (review47f L2):
    a damaged file is never read again, and what goes is what was read from it."""
    store = _chat_with_more_in_its_store(cli_root, STORE_ALONE["a later turn"])
    index()
    store.write_bytes(b"garbage" * 500)
    ran = run_deja("index", "--full")
    assert ran.returncode == 1
    assert ran.stderr == (
        f"deja: the index was not rebuilt: {store} (damaged) could not be read this time, and a rebuild would lose "
        f"what was read from it before, which is kept as it was; a damaged file stays so: move it away (mv {store} "
        f"{store}.damaged) and run it again, to rebuild without its tool output, its title and the messages "
        "its transcript lacks (its transcript keeps the rest)\n"
    )


def test_a_damaged_store_never_read_named_beside_one_read_before_loses_nothing(cli_root: Path) -> None:
    """``deja index`` names the first damaged store; what moving it away drops is that store's: nothing, for a new
    chat's store never read, though another damaged store was read before ("and its session": review47f M2)."""
    _store_chat(cli_root, "ffff0001", "an answer")
    index()
    _store_chat(cli_root, "00000001", "an answer")
    for chat_id in ("ffff0001", "00000001"):
        (chat_dir_for(cli_root, CWD, chat_id) / "store.db").write_bytes(b"garbage" * 500)
    _, err = index_text()
    store = chat_dir_for(cli_root, CWD, "00000001") / "store.db"
    assert err == (
        f"{store} (damaged) and 1 more Cursor store could not be read this time: what was read from them before is "
        f"kept; a damaged file stays so: move it away (mv {store} {store}.damaged) to drop it from this line\n"
    )


def test_doctor_names_a_chat_store_damaged_only_in_a_table_page_as_deja_index_does(cli_root: Path) -> None:
    """A store.db whose blobs' page is overwritten (its unique key's index intact): a count of the table reads that
    index alone, so doctor, which used it, did not name the store while `deja index` did (fixd49). Doctor now reads it
    as the refresh does."""
    store = _store_chat(cli_root, "s1", "the answer")
    assert index()["sessions"] == 1
    _overwrite_data_page(store, "blobs")
    assert kept_note(store, "damaged") in index_text()[1]
    doctor = run_deja("doctor").stdout
    assert f"mv {store} {store}.damaged" in " ".join(doctor.split()), doctor
