"""Cursor folders and editor databases this user may not read (trial16 F1-F4): `deja index` and `deja doctor` name
them with the chmod that makes them readable. Run as a user that permissions stop (root, in a user namespace)."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import as_user, locked

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import ComposerHeader, composer_data, write_state_vscdb, write_workspace_json

WHEN = 1796000000000


class History:
    """Two cursor-agent chats (alpha, beta) and one editor chat (gamma) under a fake HOME."""

    def __init__(self, home: Path) -> None:
        self.cli = home / ".cursor"
        self.ide = home / ".config/Cursor/User"
        for name in ("alpha", "beta"):
            cwd = home / "code" / name
            cwd.mkdir(parents=True)
            write_transcript(
                transcript_path(self.cli, str(cwd), f"{name}0000-0000-4000-8000-000000000001"),
                [user_turn(f"{name} question about the {name}-gizmo"), assistant_turn(f"{name} answer")],
            )
        self.beta = next((self.cli / "projects").glob("*beta"))
        self.database = self.ide / "globalStorage/state.vscdb"
        write_state_vscdb(
            self.database,
            composers={"ccc1": composer_data("ccc1", [("b1", 1)], created_at=WHEN, name="gamma editor chat")},
            bubbles={"ccc1": {"b1": {"type": 1, "text": "gamma-gizmo editor question", "createdAt": WHEN}}},
            composer_headers=[ComposerHeader("ccc1", workspace_id="w1", created_at=WHEN)],
        )
        write_workspace_json(self.ide / "workspaceStorage/w1", folder=(home / "code/alpha").as_uri())
        self.env = {
            **os.environ,
            "HOME": str(home),
            "DEJA_CURSOR_ROOT": str(self.ide),
            "DEJA_CURSOR_CLI_ROOT": str(self.cli),
            "DEJA_HOME": str(home / "deja"),
        }

    def indexed_transcripts(self) -> list[str]:
        return sorted(str(path) for path in (self.cli / "projects").glob("*/agent-transcripts/*/*.jsonl"))

    def deja(self, *args: str) -> tuple[int, str, str]:
        ran = as_user(self.env, *args)
        return ran.returncode, ran.stdout, ran.stderr


@pytest.fixture
def history(tmp_path: Path) -> Iterator[History]:
    made = History(tmp_path / "home")
    yield made
    for folder in (made.beta, made.ide / "globalStorage", made.database):
        folder.chmod(0o700)


def _chmod(path: Path) -> str:
    return f"chmod -R u+rX {shlex.quote(str(path))}"


def _chmod_file(path: Path) -> str:
    """A file's: ``-R`` and ``X`` mean nothing to one (trial23 F7.6)."""
    return f"chmod u+r {shlex.quote(str(path))}"


def test_a_folder_above_cursors_own_is_given_back_alone(history: History) -> None:
    """``~/.config`` at mode 000 hides Cursor's folder: a recursive chmod (or ``sudo chown -R``) of it would open or
    take every other program's files in it (review43c L2); Cursor's own folder is still opened whole."""
    config = history.ide.parent.parent
    history.env["XDG_CONFIG_HOME"] = str(config.parent / "xdg")  # (deja's config file elsewhere)
    del history.env["DEJA_CURSOR_ROOT"]  # (Cursor's folder found where it is: a setting naming it is refused)
    config.chmod(0)
    try:
        code, _, err = history.deja("index")
    finally:
        config.chmod(0o755)
    assert code == 0, err
    assert err.splitlines()[-1].endswith(f"make it readable: chmod u+rx {shlex.quote(str(config))}, then `deja index`")
    history.ide.parent.chmod(0)
    try:
        code, _, err = history.deja("index")
    finally:
        history.ide.parent.chmod(0o755)
    assert err.splitlines()[-1].endswith(f"make it readable: {_chmod(history.ide.parent)}, then `deja index`"), err
    history.ide.parent.chmod(0)
    try:
        code, out, err = history.deja("doctor")  # (it stopped on a PermissionError from Cursor's logs folder)
    finally:
        history.ide.parent.chmod(0o755)
    assert code == 1 and "Error" not in err and f"fix: {_chmod(history.ide.parent)}, then `deja index`" in out, err


def test_a_first_index_names_the_folders_it_may_not_list_and_doctor_names_each_and_fails(history: History) -> None:
    history.beta.chmod(0)
    (history.ide / "globalStorage").chmod(0)
    for _ in range(2):  # the first index, and every one after it
        code, out, err = history.deja("index")
        assert code == 0, err
        assert out.startswith("1 session, 2 messages indexed")
        assert err.splitlines() == [
            f"deja may not list {history.ide / 'globalStorage'} and 1 more folder (permission denied): the chats in "
            "them are not indexed (the index keeps what it read from them before); make them readable: "
            f"{_chmod(history.ide / 'globalStorage')} {_chmod(history.beta)[len('chmod -R u+rX ') :]}, then `deja "
            "index`"
        ]
    code, out, _ = history.deja("index", "--json")
    assert json.loads(out)["unreadable_folders"] == [str(history.ide / "globalStorage"), str(history.beta)]
    code, out, _ = history.deja("doctor")
    assert code == 1
    lines = out.splitlines()
    said = next(i for i, line in enumerate(lines) if "may not read" in line)
    assert (
        lines[said]
        .split("deja may not read ", 1)[1]
        .startswith(f"{history.ide / 'globalStorage'}, {history.beta}: permission denied")
    )
    assert f"fix: {_chmod(history.ide / 'globalStorage')} {history.beta}" in lines[said + 1]
    code, out, _ = history.deja("doctor", "--json")
    assert code == 1
    report = json.loads(out)
    assert report["unreadable_files"] == [str(history.ide / "globalStorage"), str(history.beta)]
    assert not report["healthy"]


def test_an_editor_database_this_user_may_not_read_is_permission_denied_with_its_chmod(history: History) -> None:
    history.database.chmod(0)
    line = (
        f"{history.database} (permission denied) could not be read: nothing was read from it before; make it "
        f"readable: {_chmod_file(history.database)}, then `deja index`"
    )
    for _ in range(2):  # waiting never mends it: no "read by the next deja index (within a minute)"
        code, out, err = history.deja("index")
        assert code == 0, err
        assert out.startswith("2 sessions, 4 messages indexed")
        assert err.splitlines() == [line]  # (the database, named, is no "unreadable record skipped" too)
    code, out, _ = history.deja("doctor")
    assert code == 1  # (its chats are missing from the index, as for a folder deja may not list)
    assert "integrity_check" not in out and f"deja cannot read {history.database}" not in out
    lines = out.splitlines()
    said = next(i for i, line in enumerate(lines) if "may not read" in line)
    assert lines[said].split("deja may not read ", 1)[1].startswith(f"{history.database}: permission denied")
    assert f"fix: {_chmod_file(history.database)}" in lines[said + 1]


def test_editor_folders_and_databases_unreadable_after_an_index_are_named_with_their_chmod(history: History) -> None:
    code, out, err = history.deja("index")
    assert (code, err) == (0, "") and out.startswith("3 sessions, 5 messages indexed")
    history.database.chmod(0)  # (its size and time unchanged: the index keeps its chats, read again once it changes)
    code, out, _ = history.deja("doctor", "--json")
    report = json.loads(out)
    assert report["unreadable_files"] == [str(history.database)]
    assert not any("integrity_check" in problem["fix"] for problem in report["problems"])
    history.database.chmod(0o600)
    (history.ide / "globalStorage").chmod(0)
    code, out, _ = history.deja("doctor")
    assert code == 1
    assert f"deja may not read {history.ide / 'globalStorage'}: permission denied" in out
    assert f"fix: {_chmod(history.ide / 'globalStorage')}" in out
    code, out, _ = history.deja("doctor", "--json")
    assert json.loads(out)["unreadable_files"] == [str(history.ide / "globalStorage")]


def test_an_editor_database_made_unreadable_after_an_index_is_named_by_every_index_with_its_chmod(
    history: History,
) -> None:
    """chmod 000 moves no time a stat sees: `deja index` named the database only once Cursor wrote to it, while doctor
    named it at once. Each `deja index` names it as it names one never read, and keeps its chats."""
    code, out, err = history.deja("index")
    assert (code, err) == (0, "") and out.startswith("3 sessions, 5 messages indexed")
    history.database.chmod(0)
    for _ in range(2):
        code, out, err = history.deja("index")
        assert code == 0 and out.startswith("3 sessions, 5 messages indexed"), err
        assert err.splitlines() == [
            f"{history.database} (permission denied) could not be read: what was read from it before is kept; make "
            f"it readable: {_chmod_file(history.database)}, then `deja index`"
        ]
    code, out, _ = history.deja("search", "gamma-gizmo")
    assert code == 0 and "gamma editor chat" in out
    history.database.chmod(0o600)
    code, out, err = history.deja("index")
    assert (code, err) == (0, "") and out.startswith("3 sessions, 5 messages indexed")


def test_the_session_end_log_gives_the_chmod_for_a_database_this_user_may_not_read(history: History) -> None:
    """The session-end ingest's log line said such a database was "read again by the next refresh", which no refresh
    does: it gives the chmod, as `deja index` does."""
    code, _, err = history.deja("index")
    assert (code, err) == (0, "")
    [transcript] = [name for name in history.indexed_transcripts() if "alpha" in name]
    with open(transcript, "ab") as more:  # (a turn to ingest: with nothing changed, the ingest stops at the check)
        more.write(json.dumps(user_turn("one more alpha question")).encode() + b"\n")
    history.database.chmod(0)
    chat = Path(transcript).stem
    payload = {"hook_event_name": "sessionEnd", "conversation_id": chat, "transcript_path": transcript}
    ended = as_user({**history.env, "DEJA_INGEST_WAIT": "1"}, "hook-session-end", input=json.dumps(payload))
    assert (ended.returncode, ended.stdout) == (0, ""), ended.stderr
    code, out, _ = history.deja("hooks", "log")
    [line] = [line for line in out.splitlines() if f"ingested {chat}" in line]
    assert line.endswith(
        f"ingested {chat}: 0 added, 1 updated; {history.database} (permission denied) could not be read: kept as it "
        f"was; make it readable: {_chmod_file(history.database)}, then `deja index`"
    ), line


def test_a_damaged_editor_database_gets_one_fix_from_index_and_doctor(history: History) -> None:
    damaged = history.ide / "workspaceStorage/w2/state.vscdb"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"SQLite format 3\0" + bytes(range(256)) * 12)
    moved = f"mv {damaged} {damaged}.damaged"
    code, _, err = history.deja("index")
    assert code == 0
    assert f"{damaged} (damaged) could not be read this time: " in err
    assert f"move it away ({moved}) to drop this line" in err
    code, out, _ = history.deja("doctor")
    assert code == 1
    # (nothing was read from it: "its chats go with it" was said of a database never read, review47k L2)
    assert f"fix: {moved}  (a damaged file stays so; `deja index` then reads on without it)\n" in out
    assert "sqlite3" not in out


def test_doctor_says_a_damaged_editor_database_read_before_takes_its_sessions_with_it(history: History) -> None:
    code, _, err = history.deja("index")
    assert (code, err) == (0, "")
    history.database.write_bytes(b"SQLite format 3\0" + bytes(range(256)) * 12)
    moved = f"mv {history.database} {history.database}.damaged"
    code, out, _ = history.deja("doctor")
    assert code == 1
    assert (
        f"fix: {moved}  (a damaged file stays so; `deja index` then reads on without it, and without its sessions)\n"
        in out
    )


def test_a_refused_rebuild_names_the_mv_for_a_damaged_database_named_after_a_locked_one(history: History) -> None:
    damaged = history.ide / "workspaceStorage/w2/state.vscdb"
    write_state_vscdb(
        damaged,
        composers={"ddd1": composer_data("ddd1", [("d1", 1)], created_at=WHEN, name="delta editor chat")},
        bubbles={"ddd1": {"d1": {"type": 1, "text": "delta-gizmo editor question", "createdAt": WHEN}}},
    )
    code, out, err = history.deja("index")
    assert (code, err) == (0, "") and out.startswith("4 sessions")  # (its chat read: a session a rebuild would lose)
    with damaged.open("r+b") as cut:
        cut.truncate(damaged.stat().st_size // 2)
    with locked(history.database):
        code, _, err = history.deja("index", "--full")
    assert code == 1
    assert err.splitlines() == [
        f"deja: the index was not rebuilt: {history.database} (locked) and 1 more Cursor store could not be read this "
        "time, and a rebuild would lose what was read from them before, which is kept as it was; run it "
        f"again once they can be read; {damaged} is damaged, and a damaged file stays so: move it away (mv {damaged} "
        f"{damaged}.damaged) and run it again, to rebuild without its sessions"
    ]


@pytest.mark.parametrize("how", ["locked", "mode 000"])
def test_a_rebuild_refused_for_a_database_read_before_is_refused_before_anything_is_built(
    history: History, how: str
) -> None:
    """The plan takes every editor database's fingerprints before a chat is read: one the live index read sessions
    from that cannot be read then makes the refusal known, and `deja index --full` read and built every other chat
    before it refused. DEJA_FAULT kills deja at the first session a build writes: the refusal comes first."""
    code, _, err = history.deja("index")
    assert (code, err) == (0, "")
    env = {**history.env, "DEJA_FAULT": "segment-session"}
    if how == "locked":
        with locked(history.database):
            ran = as_user(env, "index", "--full")
        why, fix = "locked", ""
    else:
        history.database.chmod(0)
        ran = as_user(env, "index", "--full")
        why, fix = "permission denied", f"; make it readable: {_chmod_file(history.database)}, then `deja index --full`"  # fmt: skip
    assert ran.returncode == 1, ran
    assert ran.stderr.splitlines() == [
        f"deja: the index was not rebuilt: {history.database} ({why}) could not be read this time, and a rebuild "
        "would lose what was read from it before, which is kept as it was; run it again once it can be "
        f"read{fix}"
    ]


def test_a_refused_rebuild_neither_names_nor_counts_a_damaged_database_never_read(history: History) -> None:
    """A damaged database that never gave a session is none a rebuild would lose: it was counted among "1 more"
    and named with its mv, though moving it away let the rebuild go ahead no sooner."""
    code, _, err = history.deja("index")
    assert (code, err) == (0, "")
    damaged = history.ide / "workspaceStorage/w2/state.vscdb"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"SQLite format 3\0" + bytes(range(256)) * 12)
    with locked(history.database):
        code, _, err = history.deja("index", "--full")
    assert code == 1
    assert err.splitlines() == [
        f"deja: the index was not rebuilt: {history.database} (locked) could not be read this time, and a rebuild "
        "would lose what was read from it before, which is kept as it was; run it again once it can be read"
    ]


def test_a_refused_rebuild_gives_the_chmod_for_a_database_this_user_may_not_read(history: History) -> None:
    code, _, err = history.deja("index")
    assert (code, err) == (0, "")
    history.database.chmod(0)
    code, _, err = history.deja("index", "--full")
    assert code == 1
    assert err.splitlines() == [
        f"deja: the index was not rebuilt: {history.database} (permission denied) could not be read this time, and a "
        "rebuild would lose what was read from it before, which is kept as it was; run it again once it can "
        f"be read; make it readable: {_chmod_file(history.database)}, then `deja index --full`"
    ]


def test_a_folder_hiding_chats_read_before_is_named_once_with_its_chmod(history: History) -> None:
    code, _, err = history.deja("index")
    assert (code, err) == (0, "")
    transcript = next(name for name in history.indexed_transcripts() if "beta" in name)
    history.beta.chmod(0)
    code, out, err = history.deja("index")
    assert code == 0 and out.startswith("3 sessions, 5 messages indexed")
    assert err.splitlines() == [
        f"{transcript} (permission denied) could not be read: what was read from it before is kept; make it "
        f"readable: {_chmod(history.beta)}, then `deja index`",
    ]  # (the transcript, named, is no "unreadable record skipped" too)


def _chat_folder(history: History) -> Path:
    """beta's chat folder under its project's ``agent-transcripts/``, which holds its transcript."""
    return next((history.beta / "agent-transcripts").iterdir())


def test_a_chat_folder_this_user_may_search_but_not_list_hides_nothing(history: History) -> None:
    """Its transcript is read by name: `deja index` and doctor named the folder as one hiding chats, and asked for a
    chmod, while its chat was indexed."""
    chat = _chat_folder(history)
    chat.chmod(0o300)
    try:
        code, out, err = history.deja("index", "--json")
        assert code == 0, err
        report = json.loads(out)
        assert (report["sessions"], report["unreadable_folders"]) == (3, [])
        code, out, err = history.deja("search", "beta-gizmo")
        assert code == 0 and "beta question" in out, err
        code, out, _ = history.deja("doctor", "--json")
        assert json.loads(out)["unreadable_files"] == []
    finally:
        chat.chmod(0o700)


def test_a_chat_folder_this_user_may_not_search_is_named_by_index_and_doctor(history: History) -> None:
    """`deja index` takes the chat folders it may not search from its walk (no second look at every chat folder)."""
    chat = _chat_folder(history)
    chat.chmod(0o600)
    try:
        code, out, err = history.deja("index")
        assert code == 0 and out.startswith("2 sessions, 3 messages indexed"), err
        assert err.splitlines() == [
            f"deja may not list {chat} (permission denied): the chats in it are not indexed (the index keeps what it "
            f"read from it before); make it readable: {_chmod(chat)}, then `deja index`"
        ]
        code, out, _ = history.deja("index", "--json")
        assert json.loads(out)["unreadable_folders"] == [str(chat)]
        code, out, _ = history.deja("doctor", "--json")
        assert code == 1 and json.loads(out)["unreadable_files"] == [str(chat)]
    finally:
        chat.chmod(0o700)


def test_a_transcript_linked_into_a_folder_this_user_may_not_search_names_no_chat_folder(
    history: History, tmp_path: Path
) -> None:
    """``stat`` follows the link: the refusal is the link target's folder's, and the chat folder's chmod would mend
    nothing (review42b M2)."""
    chat = _chat_folder(history)
    transcript = chat / f"{chat.name}.jsonl"
    hidden = tmp_path / "elsewhere" / "hidden"
    hidden.mkdir(parents=True)
    (hidden / "t.jsonl").write_bytes(transcript.read_bytes())
    transcript.unlink()
    transcript.symlink_to(hidden / "t.jsonl")
    assert history.deja("index")[0] == 0
    hidden.chmod(0)
    try:
        code, out, err = history.deja("index", "--json")
        assert code == 0 and json.loads(out)["unreadable_folders"] == [], err
        assert str(chat) + " (permission denied)" not in err and "chmod -R" not in err, err
    finally:
        hidden.chmod(0o700)
