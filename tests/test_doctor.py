"""`deja doctor`: a healthy machine, an empty one and a broken one, as text and as JSON."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import Sample, console_script, path_with, run_deja
from typer.testing import CliRunner

from deja.core.bookkeeping import State
from deja.core.index import MANIFEST, index_dir, read_manifest
from deja.core.indexer import refresh
from deja.core.readers.chatstore import EMPTY_ROOT
from deja.core.readers.transcripts import MALFORMED_LINE
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import bubble_key, composer_data, composer_key, put_values
from deja.installers import install
from deja.interfaces.cli import app

T0 = datetime(2026, 7, 26, 10, 6, tzinfo=UTC)


def doctor_json() -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    return result.exit_code, orjson.loads(result.stdout)


def fixes(report: dict) -> dict[str, str]:
    return {p["message"]: p["fix"] for p in report["problems"]}


def _aware(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, value
    return parsed


def test_a_healthy_machine_exits_0_with_nothing_to_fix(sample: Sample, tmp_path: Path) -> None:
    """Installed and checked by one ``deja`` script, whatever the developer's PATH holds."""
    script = console_script(tmp_path / "bin")
    env = {**sample.env, "PATH": path_with(script)}
    for key, variable in (
        ("home", "DEJA_HOME"),
        ("cursor_root", "DEJA_CURSOR_ROOT"),
        ("cursor_cli_root", "DEJA_CURSOR_CLI_ROOT"),
        ("hook_server", "DEJA_HOOK_SERVER"),  # (off in tests but their own: conftest)
    ):
        # In the config file as well, so Cursor's hooks, started without this shell, see the same history.
        assert run_deja("config", "set", key, env[variable], env=env, script=script).returncode == 0
    assert run_deja("install", "cursor-auto", env=env, script=script).returncode == 0
    assert run_deja("index", env=env, script=script).returncode == 0

    text = run_deja("doctor", env=env, script=script)
    assert text.returncode == 0, text.stdout + text.stderr
    out = text.stdout
    for section in ("Cursor history", "Index", "Wiring"):
        assert f"\n{section}\n" in f"\n{out}"
    assert "3 chats in 2 databases" in out
    assert "4 transcripts" in out and "4 chat stores" in out
    assert "cursor-agent chats read from their store alone (no transcript): 1" in out
    assert "7 sessions, 25 messages" in out and "up to date" in out
    assert (
        "projects: 2 from workspaceProjectDir, 1 from composerHeaders, 4 from meta.json cwd; "
        "0 sessions without a project"
    ) in out
    assert "ok     Cursor: deja's hooks are in" in out
    assert "warn" not in out and "ERROR" not in out and "fix:" not in out
    assert out.rstrip().endswith("deja can see and serve your history.")

    report = orjson.loads(run_deja("doctor", "--json", env=env, script=script).stdout)
    assert report["healthy"] is True and report["problems"] == []
    assert report["chats_without_transcript"] == 1 and report["skipped"] == {}
    assert report["unreadable_chats"] == {}
    kinds = {}
    for store in report["stores"]:
        kinds[store["kind"]] = kinds.get(store["kind"], 0) + store["count"]
        assert store["bytes"] > 0 and store["unreadable"] == ""
        _aware(store["newest"])
    assert kinds == {"cursor-ide": 3, "cli-transcripts": 4, "cli-chat-stores": 4}
    index = report["index"]
    assert index["state"] == "ok" and index["sessions"] == 7 and index["stale"] is False
    assert index["project_signals"] == {"workspaceProjectDir": 2, "composerHeaders": 1, "meta.json cwd": 4}
    assert index["without_project"] == 0
    assert index["path"] == str(index_dir(sample.home)) and index["bytes"] > 0
    _aware(index["built_at"])
    assert {f["level"] for f in report["wiring"]} == {"ok"}


def test_the_editors_chat_count_leaves_out_drafts_and_subagent_threads(sample: Sample) -> None:
    # trialM F3: doctor counted every composer, so "5 chats" beside `deja stats`' 3 editor sessions read as 2 lost
    created = int(datetime(2026, 5, 1, tzinfo=UTC).timestamp() * 1000)
    thread = composer_data("c-thread", [("b1", 1)], created_at=created, name="Explore the repo")
    thread["subagentInfo"] = {"parentComposerId": "c-parent"}
    with sqlite3.connect(sample.history.ide_root / "globalStorage" / "state.vscdb") as conn:
        put_values(
            conn,
            "cursorDiskKV",
            {
                composer_key("c-draft"): composer_data("c-draft", [], created_at=created),
                composer_key("c-thread"): thread,
                bubble_key("c-thread", "b1"): {"bubbleId": "b1", "type": 1, "text": "look around"},
            },
        )
    conn.close()
    out = run_deja("doctor", env=sample.env).stdout
    assert "3 chats (and 2 empty drafts or subagent threads) in 2 databases" in out, out
    with sqlite3.connect(sample.history.ide_root / "globalStorage" / "state.vscdb") as conn:
        conn.execute("DELETE FROM cursorDiskKV WHERE key = ?", (composer_key("c-thread"),))
    conn.close()
    out = run_deja("doctor", env=sample.env).stdout  # (one: "1 empty drafts" read wrong: trial45 F5)
    assert "3 chats (and 1 empty draft or subagent thread) in 2 databases" in out, out


def test_an_empty_machine_says_what_to_do_and_exits_1(fake_home: Path) -> None:
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 1
    out = result.stdout
    assert "nothing there" in out
    assert "no Cursor chats found" in out and "deja config set cursor_root PATH" in out and "deja demo" in out
    assert "no index at" in out and "fix: deja index" in out
    assert out.rstrip().endswith("each fix is above.")

    code, report = doctor_json()
    assert code == 1 and report["healthy"] is False
    assert report["stores"] == [] and report["chats_without_transcript"] == 0 and report["unreadable_chats"] == {}
    assert report["index"]["state"] == "missing"
    assert any(p["level"] == "error" and p["fix"] == "deja index" for p in report["problems"])
    assert all(p["fix"] for p in report["problems"])
    assert not (fake_home / ".cache" / "deja" / "index").exists(), "doctor must not build the index"


def test_no_hooks_and_no_server_is_a_warning_not_recall_when_the_agent_asks(fake_home: Path, tmp_path: Path) -> None:
    """trial44b F5: before any install doctor said `ok  Cursor: no deja hooks in …; recall comes only when the agent
    asks`, beside the warning that no MCP server is there for the agent to ask."""
    (fresh,) = [line.split() for line in _doctor_lines() if "no deja hooks in" in line]
    assert fresh[0] == "warn" and "recall" not in fresh, fresh

    install("cursor", deja_path=str(console_script(tmp_path / "bin")))

    (server_only,) = [line for line in _doctor_lines() if "no deja hooks in" in line]
    assert server_only.split()[0] == "ok" and server_only.endswith("recall comes only when the agent asks")


def _doctor_lines() -> list[str]:
    return CliRunner().invoke(app, ["doctor"]).stdout.splitlines()


def test_a_broken_machine_names_each_problem_and_its_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ide_root, cli_root, home = tmp_path / "Cursor" / "User", tmp_path / "cursor-agent", tmp_path / "deja"
    for name, value in (("DEJA_CURSOR_ROOT", ide_root), ("DEJA_CURSOR_CLI_ROOT", cli_root), ("DEJA_HOME", home)):
        monkeypatch.setenv(name, str(value))
    project = tmp_path / "api"
    project.mkdir()
    corrupt_db = ide_root / "globalStorage" / "state.vscdb"
    corrupt_db.parent.mkdir(parents=True)
    corrupt_db.write_bytes(b"this is not a database" * 100)
    write_transcript(
        transcript_path(cli_root, str(project), "chat-ok"),
        [
            user_turn("why is the cache stale?", T0),
            '{"role": "assistant", "message": {',
            assistant_turn("The key omits the locale."),
        ],
    )
    write_chat_store(chat_dir_for(cli_root, str(project), "chat-ok"), cwd=str(project), messages=[])
    write_chat_store(chat_dir_for(cli_root, str(project), "chat-untranscribed"), cwd=str(project), messages=[])
    refresh(home)

    code, report = doctor_json()
    assert code == 1 and report["healthy"] is False
    assert report["chats_without_transcript"] == 0
    assert report["unreadable_chats"] == {EMPTY_ROOT: 1}
    assert report["skipped"][MALFORMED_LINE] == 1
    db = next(s for s in report["stores"] if s["kind"] == "cursor-ide")
    assert db["path"] == str(corrupt_db) and "not a database" in db["unreadable"]
    found = fixes(report)
    unreadable = next(m for m in found if str(corrupt_db) in m)
    assert report["problems"][0]["level"] == "error"
    assert found[unreadable].startswith(f"mv {corrupt_db} {corrupt_db}.damaged  (a damaged file stays so")
    assert not [m for m in found if MALFORMED_LINE in m], "a damaged line reads the same again: no fix to offer"
    unread = next(m for m in found if "deja cannot read:" in m)
    assert unread.startswith("1 cursor-agent chat without a transcript") and f"1 × {EMPTY_ROOT}" in unread
    assert "deja index" in found[unread]
    assert report["index"]["state"] == "ok"

    text = CliRunner().invoke(app, ["doctor"]).stdout
    assert "read from their store alone" not in text, "a count of none says nothing"
    assert f"ERROR  deja cannot read {corrupt_db}" in text
    assert (
        f"passed over, empty or damaged in Cursor's own files (Cursor passes them over too): 1 × {MALFORMED_LINE}"
        in text
    )
    assert text.count("not a database") == 1, "the unreadable database is reported once, by path"
    assert text.count("fix: ") == len(report["problems"])

    # Then the index's manifest is damaged too.
    (index_dir(home) / MANIFEST).write_bytes(b"\x00garbage")
    code, report = doctor_json()
    assert code == 1 and report["index"]["state"] == "damaged"
    damaged = next(m for m in fixes(report) if MANIFEST in m)
    assert "corrupt" in damaged and fixes(report)[damaged] == "deja index"
    assert f"{index_dir(home)}: damaged" in CliRunner().invoke(app, ["doctor"]).stdout

    refresh(home, full=True)
    code, report = doctor_json()
    assert report["index"]["state"] == "ok"
    # The rebuild could not read the damaged database, nor carry its sessions over from the damaged index it kept.
    kept = [p for p in report["problems"] if p["area"] == "index"]
    assert [p["level"] for p in kept] == ["warn"] and "-kept-" in kept[0]["message"], kept


def test_a_store_written_after_the_build_marks_the_index_stale_without_failing(indexed_sample: Sample) -> None:
    built = read_manifest(index_dir(indexed_sample.home)).built_at
    transcript = next(indexed_sample.history.cli_root.glob("projects/*/agent-transcripts/*/*.jsonl"))
    os.utime(transcript, (built + 5, built + 5))
    code, report = doctor_json()
    assert report["index"]["stale"] is True
    assert not any(p["area"] == "index" for p in report["problems"])
    assert "stale: Cursor wrote since" in CliRunner().invoke(app, ["doctor"]).stdout


def test_skipped_records_outlive_a_refresh_that_reads_something_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_root, home = tmp_path / "cursor-agent", tmp_path / "deja"
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli_root))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    broken = transcript_path(cli_root, "/work/api", "broken")
    write_transcript(broken, [user_turn("first question", T0), "{not json", assistant_turn("an answer")])
    refresh(home)
    write_transcript(
        transcript_path(cli_root, "/work/api", "clean"), [user_turn("another question", T0), assistant_turn("ok")]
    )
    refresh(home)

    def persisted() -> dict[str, int]:
        directory = index_dir(home)
        state = (directory / read_manifest(directory).state).read_bytes()
        return msgspec.msgpack.decode(state, type=State).problems

    assert persisted() == {MALFORMED_LINE: 1}
    broken.unlink()
    refresh(home, full=True)
    assert persisted() == {}


def test_an_empty_workspace_database_is_no_problem_and_a_locked_one_a_warning(indexed_sample: Sample) -> None:
    """A new window's 0-byte ``state.vscdb`` holds no chats, and nothing is wrong with it; a database Cursor holds
    locked while doctor looks is a warning that needs nothing done, not a damaged file to check."""
    import sqlite3

    folder = indexed_sample.history.ide_root / "workspaceStorage" / "new-window"
    folder.mkdir(parents=True)
    (folder / "state.vscdb").write_bytes(b"")
    code, report = doctor_json()
    assert code == 0 and not [p for p in report["problems"] if "new-window" in p["message"]], report["problems"]

    db = indexed_sample.history.ide_root / "globalStorage" / "state.vscdb"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, report = doctor_json()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    locked = next(p for p in report["problems"] if str(db) in p["message"])
    assert locked["level"] == "warn" and "locked by another program" in locked["message"]
    assert "integrity_check" not in locked["fix"]


def test_the_index_size_leaves_out_the_segments_a_refresh_replaced(sample: Sample) -> None:
    """trial23 F7.11: doctor said 1.6 MB for a 250 KB index, counting the segments a refresh had replaced, which
    stay a minute for readers that opened the manifest before: its size is the index's, and they are said apart."""
    assert run_deja("index").returncode == 0
    _, before = doctor_json()
    assert "more in what a refresh replaced" not in run_deja("doctor").stdout
    assert run_deja("index", "--full").returncode == 0  # (the segments it replaced stay for a minute)
    _, after = doctor_json()
    size = after["index"]["bytes"]
    assert 0.8 * before["index"]["bytes"] < size < 1.2 * before["index"]["bytes"], (before["index"], after["index"])
    assert (before["index"]["dropped_bytes"], after["index"]["dropped_bytes"] > 0.5 * size) == (0, True), after
    said = next(
        line for line in run_deja("doctor").stdout.splitlines() if "sessions, 7" in line or "7 sessions" in line
    )
    assert (
        "more in what a refresh replaced, removed by the next background refresh or deja index, a segment once a minute old)"
        in said
    ), said
