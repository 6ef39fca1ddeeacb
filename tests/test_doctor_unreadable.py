"""``deja doctor`` on cursor-agent files it cannot read: it names them and says how to make them readable, and never
stops on one (README: "Errors: one line … never a traceback").

A store's name that cannot even be probed (here a link to a name too long for the file system, which root meets
too) crashed doctor: ``Path.is_file`` raises for it. Mode 000 is met by deja run as a user that permissions stop
(for root, in a user namespace: harness.as_user).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from harness import Run, at_mode_000, run_deja, user

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


def _store_chat(root: Path, chat_id: str) -> Path:
    """A chat read from its store alone: its folder."""
    chat_dir = chat_dir_for(root, CWD, chat_id)
    messages = [store_user_message(f"a question in {chat_id}"), store_assistant_message("an answer")]
    write_chat_store(chat_dir, cwd=CWD, name=f"Chat {chat_id}", messages=messages)
    return chat_dir


def _transcript(root: Path, chat_id: str) -> Path:
    path = transcript_path(root, CWD, chat_id)
    write_transcript(path, [user_turn(f"a question in {chat_id}"), assistant_turn("an answer")])
    return path


def doctor(run: Run = run_deja) -> tuple[str, dict]:
    """doctor's screen and its JSON report, each checked to have run without a traceback."""
    ran, as_json = run("doctor"), run("doctor", "--json")
    for done in (ran, as_json):
        assert done.returncode in (0, 1) and "Error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    return ran.stdout, orjson.loads(as_json.stdout)


def test_a_store_whose_name_cannot_be_probed_does_not_stop_doctor(cli_root: Path) -> None:
    _store_chat(cli_root, "readable")
    odd = _store_chat(cli_root, "odd") / "store.db"
    assert run_deja("index").returncode == 0
    odd.unlink()
    odd.symlink_to("x" * 300)  # stat: ENAMETOOLONG, which Path.is_file raises
    screen, report = doctor()
    assert report["unreadable_chats"] == {"unreadable store.db": 1}
    assert "1 chat store" in screen


def test_doctor_names_a_chat_folder_it_may_not_read_and_the_chmod_that_fixes_it(cli_root: Path) -> None:
    _store_chat(cli_root, "readable")
    folder = _store_chat(cli_root, "hidden")
    assert run_deja("index").returncode == 0
    with at_mode_000(folder):
        assert user("index").returncode == 0
        screen, report = doctor(user)
        assert report["unreadable_files"] == [str(folder)]
        assert report["unreadable_chats"] == {"store.db this user may not read": 1}
        assert f"deja may not read {folder}: permission denied" in screen
        assert f"fix: chmod -R u+rX {folder}" in " ".join(screen.split())
        assert "deja index --full" not in screen  # (it refuses while a store it read from cannot be read)


def test_doctor_names_a_store_and_a_transcript_it_may_not_read(cli_root: Path) -> None:
    store = _store_chat(cli_root, "hidden") / "store.db"
    transcript = _transcript(cli_root, "transcribed")
    assert run_deja("index").returncode == 0
    with at_mode_000(store), at_mode_000(transcript):
        screen, report = doctor(user)
        assert report["unreadable_files"] == sorted([str(store), str(transcript)])
        assert "deja index --full" not in screen
        assert f"chmod u+r {store} {transcript}" in " ".join(screen.split())  # (files: no -R, trial23 F7.6)


def test_doctor_names_a_chats_folder_that_hides_every_store(cli_root: Path) -> None:
    _store_chat(cli_root, "one")
    assert run_deja("index").returncode == 0
    with at_mode_000(cli_root / "chats"):
        _, report = doctor(user)
        assert report["unreadable_files"] == [str(cli_root / "chats")]


def test_forbidden_is_nothing_for_a_readable_or_missing_file(tmp_path: Path) -> None:
    from deja.core.regular_files import forbidden

    (tmp_path / "readable").write_text("x")
    assert forbidden(tmp_path / "readable") == forbidden(tmp_path / "missing") == ""
    os.mkfifo(tmp_path / "fifo")
    assert forbidden(tmp_path / "fifo") == ""  # (unreadable, but not for want of permission)


def test_the_readable_command_quotes_each_path_that_nothing_above_hides(tmp_path: Path) -> None:
    """The one chmod every entrypoint gives (config, index, doctor): a path nothing hides stands for itself."""
    from deja.core.regular_files import readable_command

    (tmp_path / "a chat").mkdir()
    assert readable_command([str(tmp_path / "a chat"), str(tmp_path / "gone")], own=[str(tmp_path)]) == (
        f"chmod -R u+rX '{tmp_path / 'a chat'}' {tmp_path / 'gone'}"
    )


def test_the_readable_command_gives_a_file_no_recursion(tmp_path: Path) -> None:
    """``chmod -R u+rX …/state.vscdb`` was the fix for one unreadable file: -R and X mean nothing to a file (trial23
    F7.6)."""
    from deja.core.regular_files import readable_command

    (tmp_path / "chats").mkdir()
    store = tmp_path / "state.vscdb"
    store.write_text("")
    assert readable_command([str(store)]) == f"chmod u+r {store}"
    assert readable_command([str(store), str(tmp_path / "chats")], own=[str(tmp_path)]) == (
        f"chmod u+r {store} && chmod -R u+rX {tmp_path / 'chats'}"
    )


def test_a_store_locked_this_time_is_not_offered_a_full_rebuild_that_refuses(cli_root: Path) -> None:
    """A cursor-agent store held by an exclusive lock: doctor's fix is to read it again once free, not `deja index
    --full`, which refuses while a store it read from cannot be read (trialL D4)."""
    import sqlite3

    _store_chat(cli_root, "c-free")
    store = _store_chat(cli_root, "c-held") / "store.db"
    _transcript(cli_root, "c-held")  # (a chat without one is counted apart, with its own fix)
    assert run_deja("index").returncode == 0
    holder = sqlite3.connect(store)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("INSERT INTO meta VALUES ('held', 'x')")
        os.utime(store)  # (the refresh looks again at what changed)
        assert "(locked)" in run_deja("index").stderr
        assert run_deja("index", "--full").returncode == 1
        screen, report = doctor()
    finally:
        holder.close()
    fixes = " ".join(problem["fix"] for problem in report["problems"] if problem["area"] == "history")
    assert "run `deja index` again: what was locked" in fixes and "--full" not in fixes, screen


def test_doctor_gives_a_damaged_chat_store_the_mv_and_says_what_goes_with_it(cli_root: Path) -> None:
    """A store the index could not read and that reads as damaged now gets ``deja index``'s way out, and what moving
    it away drops: a chat its transcript holds keeps its session, a chat read from its store alone loses it. The
    generic "quit Cursor" advice, which no damaged file heeds, is left to the stores that may be locked (trial47 F4)."""
    _transcript(cli_root, "t1")
    beside = _store_chat(cli_root, "t1") / "store.db"
    alone = _store_chat(cli_root, "s1") / "store.db"
    assert run_deja("index").returncode == 0
    for store in (beside, alone):
        store.write_bytes(b"garbage, not SQLite" * 300)
    assert run_deja("index").returncode == 0
    out, report = doctor(lambda *args: run_deja(*args, env={**os.environ, "COLUMNS": "1000"}))
    fixes = {p["message"]: p["fix"] for p in report["problems"]}
    kept = "is damaged: no read mends it, and the index keeps what it read from it before"
    assert fixes[f"{beside} {kept}"] == (
        f"mv {beside} {beside}.damaged  (a damaged file stays so; `deja index` then reads on without it, and without "
        "its tool output and title, not its session, which its transcript holds)"
    )
    assert fixes[f"{alone} {kept}"] == (
        f"mv {alone} {alone}.damaged  (a damaged file stays so; `deja index` then reads on without it, and without "
        "its session)"
    )
    assert "quit Cursor" not in out and "without a transcript that deja cannot read" not in out, out
    assert f"fix: mv {beside} {beside}.damaged" in out


def test_doctor_says_a_damaged_store_never_read_loses_nothing_when_moved_away(cli_root: Path) -> None:
    """A chat's store damaged before deja ever read it gave the index nothing: doctor said the index "keeps what it
    read from it before" and that moving it away loses "its session", of an index with no session (review47f M2)."""
    store = _store_chat(cli_root, "s1") / "store.db"
    store.write_bytes(b"garbage, not SQLite" * 300)
    assert run_deja("index").returncode == 0
    assert orjson.loads(run_deja("sessions", "--json").stdout)["sessions"] == []
    _, report = doctor(lambda *args: run_deja(*args, env={**os.environ, "COLUMNS": "1000"}))
    fixes = {p["message"]: p["fix"] for p in report["problems"]}
    assert fixes[f"{store} is damaged: no read mends it, and nothing was read from it before"] == (
        f"mv {store} {store}.damaged  (a damaged file stays so; `deja index` then reads on without it)"
    )


def test_a_damaged_store_moved_away_as_told_leaves_doctor_nothing_to_warn_of(cli_root: Path) -> None:
    """A chat read from its store alone, whose store was damaged and moved away as deja told: doctor went on
    warning of a chat with "no store.db and no transcript", and told to close cursor-agent (review47f L1)."""
    store = _store_chat(cli_root, "s1") / "store.db"
    assert run_deja("index").returncode == 0
    store.write_bytes(b"garbage, not SQLite" * 300)
    assert run_deja("index").returncode == 0
    store.rename(f"{store}.damaged")
    assert run_deja("index").returncode == 0
    out, report = doctor(lambda *args: run_deja(*args, env={**os.environ, "COLUMNS": "1000"}))
    assert report["unreadable_chats"] == {}
    assert "no store.db and no transcript" not in out and "close cursor-agent" not in out, out


def test_several_damaged_stores_are_each_told_their_own_way_out_and_doctor_caps_them(cli_root: Path) -> None:
    """fix47h: with five damaged stores `deja index` said moving the one it names away "drops this line", which four
    more keep; doctor gave a finding to every one, as many as there were. It names the first few and counts the rest,
    as its other long lists end."""
    stores = [_store_chat(cli_root, f"s{n}") / "store.db" for n in range(5)]
    assert run_deja("index").returncode == 0
    for store in stores:
        store.write_bytes(b"garbage, not SQLite" * 300)
    ran = run_deja("index")
    assert ran.returncode == 0
    (line,) = ran.stderr.splitlines()
    assert " and 4 more Cursor stores could not be read this time: what was read from them before is kept" in line
    assert line.endswith(".damaged) to drop it from this line and its session"), line
    _, report = doctor(lambda *args: run_deja(*args, env={**os.environ, "COLUMNS": "1000"}))
    named = [p["message"] for p in report["problems"] if "is damaged: no read mends it" in p["message"]]
    assert named == [
        f"{store} is damaged: no read mends it, and the index keeps what it read from it before"
        for store in sorted(map(str, stores))[:3]
    ]
    (rest,) = [p for p in report["problems"] if p["message"].startswith("and ")]
    assert rest["message"] == "and 2 more chat stores damaged likewise", rest


def test_a_store_unreadable_by_permission_since_mended_is_not_said_to_be_locked(cli_root: Path) -> None:
    """A store a refresh met at mode 000, its mode given back since: the refresh said `chmod u+r`, and doctor's fix
    then said only "once nothing holds them", a lock's fix for a permission's failure (trial52 F4). The count does
    not keep why the refresh could not read it, so the fix names both causes."""
    _store_chat(cli_root, "c-free")
    store = _store_chat(cli_root, "c-hidden") / "store.db"
    _transcript(cli_root, "c-hidden")  # (a chat without one is counted apart, with its own fix)
    assert run_deja("index").returncode == 0
    os.utime(store, (store.stat().st_atime, store.stat().st_mtime + 5))  # (the refresh looks again at what changed)
    with at_mode_000(store):
        assert f"chmod u+r {store}" in " ".join(user("index").stderr.split())
    screen, report = doctor(user)
    fix = next(p["fix"] for p in report["problems"] if "the index skipped" in p["message"])
    assert "locked or not readable" in fix and "--full" not in fix, screen
