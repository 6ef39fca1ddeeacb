"""A Cursor 3.x-shaped cursor-agent install, seen through the CLI as a user sees it.

Transcripts under the data root (``CURSOR_DATA_DIR``), chats under the config root
(``XDG_CONFIG_HOME/cursor`` or ``CURSOR_CONFIG_DIR``): chats kept only in their
``store.db`` (protobuf root, hex meta row, node times, tool calls with results and
Shell exit codes), an ``acp-sessions`` chat, a chat with both a transcript and a
store, and one whose store is garbage. Every file is written by deja's writers.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import run_deja

from deja.core import paths
from deja.core.readers.chatstore import UNREADABLE_STORE
from deja.core.writers.cursor_agent import (
    acp_dir_for,
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)

UTC2 = timezone(timedelta(hours=2))
T0 = datetime(2026, 10, 5, 9, 30, tzinfo=UTC2)
B_CREATED = datetime(2026, 10, 1, 8, 0, tzinfo=UTC)
C_CREATED = datetime(2026, 10, 2, 8, 0, tzinfo=UTC)


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


class Install:
    def __init__(self, home: Path, data: Path, config: Path):
        self.home, self.data, self.config = home, data, config
        self.api = home / "code" / "api"
        self.gone = home / "code" / "gone"  # never created: its chats are filed under its md5
        self.acp_app = home / "code" / "acp-app"
        self.api.mkdir(parents=True)
        self.acp_app.mkdir(parents=True)


def _store_only_with_node_times(install: Install) -> None:
    api = str(install.api)
    pytest_run = {"command": "pytest tests/test_retry.py -q --count 5"}
    suite = {"command": "pytest -q"}
    messages: list[dict[str, Any]] = [
        *store_preamble(api),
        store_user_message("the retry test is flaky, fix it", T0),
        store_assistant_message(None, tool_call_part("c0", "GetMcpTools", {})),
        tool_result_message("c0", "GetMcpTools", "playwright: browser_navigate, browser_click"),
        store_assistant_message("Running it a few times.", tool_call_part("c1", "Shell", pytest_run)),
        tool_result_message("c1", "Shell", shell_result_text("F....\n1 failed, 4 passed in 2.10s", exit_code=1)),
        store_assistant_message(None, tool_call_part("c2", "Read", {"path": "tests/test_retry.py"})),
        tool_result_message("c2", "Read", "     1|def test_retry():\n     2|    time.sleep(0.1)"),
        store_assistant_message(
            "The test sleeps on the real clock; it now uses a fake clock.",
            tool_call_part(
                "c3", "StrReplace", {"path": "tests/test_retry.py", "old_string": "time", "new_string": "clock"}
            ),
        ),
        tool_result_message("c3", "StrReplace", "The file tests/test_retry.py has been updated."),
        store_assistant_message(None, tool_call_part("c4", "Shell", pytest_run)),
        tool_result_message("c4", "Shell", shell_result_text("5 passed in 0.40s")),
        store_user_message("thanks, also run the whole suite", T0 + timedelta(minutes=10)),
        store_assistant_message("All 120 tests pass.", tool_call_part("c5", "Shell", suite)),
        tool_result_message(
            "c5",
            "Shell",
            "",
            providerOptions={
                "cursor": {"highLevelToolCallResult": {"output": {"success": {"exitCode": 0, "stdout": "120 passed"}}}}
            },
        ),
    ]
    times: list[int | None] = [None] * len(messages)
    times[7] = _ms(T0 + timedelta(seconds=30))  # "Running it a few times."
    times[16] = _ms(T0 + timedelta(minutes=12))  # "All 120 tests pass."
    write_chat_store(
        chat_dir_for(install.config, api, "a-store"),
        cwd=api,
        messages=messages,
        message_times=times,
        name="Fix the flaky retry test",
        encryption_key="c2VjcmV0LWtleS1uZXZlci1rZXB0",
    )


def _store_only_undated(install: Install) -> None:
    gone = str(install.gone)
    write_chat_store(
        chat_dir_for(install.config, gone, "b-gone"),
        cwd=gone,
        title="Migrate settings to pydantic v2",
        created_ms=_ms(B_CREATED),
        updated_ms=_ms(B_CREATED + timedelta(minutes=5)),
        messages=[
            *store_preamble(gone),
            store_user_message("move the settings to pydantic v2"),
            store_assistant_message("Replaced BaseSettings with pydantic-settings."),
        ],
    )
    # A chat whose meta.json names a folder it is not filed under, which does not exist either:
    # only the md5 folder it is filed under says where it ran.
    write_chat_store(
        chat_dir_for(install.config, str(install.api), "c-unverified"),
        cwd="/nowhere/at/all",
        meta_times=False,
        created_ms=_ms(C_CREATED),
        messages=[store_user_message("what does this repo do?"), store_assistant_message("It is a price API.")],
    )


def _acp_and_transcribed(install: Install) -> None:
    write_chat_store(
        acp_dir_for(install.config, "d-acp"),
        cwd=str(install.acp_app),
        title="Wire the ACP client",
        meta_times=False,
        messages=[
            store_user_message("connect the editor over ACP", T0 + timedelta(days=1)),
            store_assistant_message("The client now speaks ACP over stdio."),
        ],
    )
    api = str(install.api)
    lint = {"command": "ruff check ."}
    write_transcript(
        transcript_path(install.data, api, "e-both"),
        [
            user_turn("lint the api", T0 + timedelta(days=2)),
            assistant_turn("Linting.", tool_use("Shell", lint)),
            assistant_turn("Two unused imports; both removed."),
            turn_ended(),
        ],
    )
    write_chat_store(
        chat_dir_for(install.config, api, "e-both"),
        cwd=api,
        name="Lint the api",
        messages=[
            store_user_message("lint the api", T0 + timedelta(days=2)),
            store_assistant_message("Linting.", tool_call_part("l1", "Shell", lint)),
            tool_result_message("l1", "Shell", shell_result_text("Found 2 errors.", exit_code=1)),
            store_assistant_message("Two unused imports; both removed."),
        ],
    )
    garbled = chat_dir_for(install.config, api, "f-garbled")
    garbled.mkdir(parents=True)
    (garbled / "store.db").write_bytes(b"\x00this is not a database" * 200)


@pytest.fixture
def install(fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Install:
    """Cursor 3.x: transcripts under CURSOR_DATA_DIR, chats under $XDG_CONFIG_HOME/cursor."""
    data, xdg = fake_home / "cursor-data", fake_home / ".config"
    monkeypatch.setenv("CURSOR_DATA_DIR", str(data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    made = Install(fake_home, data, xdg / "cursor")
    _store_only_with_node_times(made)
    _store_only_undated(made)
    _acp_and_transcribed(made)
    return made


def deja_json(*args: str) -> Any:
    ran = run_deja(*args, "--json")
    assert ran.returncode == 0, ran.stderr
    return orjson.loads(ran.stdout)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _calls(message: dict[str, Any]) -> list[tuple[str, str | None, int | None]]:
    return [(c["name"], c["result"], c["exit_code"]) for c in message["tool_calls"]]


def test_every_chat_of_the_install_is_one_session_in_its_project(install: Install) -> None:
    indexed = run_deja("index")
    assert indexed.returncode == 0, indexed.stderr
    assert indexed.stdout.startswith("5 sessions")
    listed = deja_json("sessions")["sessions"]
    assert sorted(s["id"] for s in listed) == ["a-store", "b-gone", "c-unverified", "d-acp", "e-both"]
    by_id = {s["id"]: s for s in listed}

    a = by_id["a-store"]
    assert (a["project"], a["project_dir"], a["title"]) == ("api", str(install.api), "Fix the flaky retry test")
    assert (_time(a["started"]), _time(a["updated"]), a["messages"]) == (T0, T0 + timedelta(minutes=12), 5)

    b = by_id["b-gone"]
    assert (b["project"], b["project_dir"]) == ("gone", str(install.gone))  # verified by its md5 folder
    assert b["title"] == "Migrate settings to pydantic v2"  # meta.json's title: the store's name is "New Agent"
    assert (_time(b["started"]), _time(b["updated"])) == (B_CREATED, B_CREATED + timedelta(minutes=5))

    c = by_id["c-unverified"]
    # Its meta.json's cwd is untrusted, but its chats/<md5>/ folder is the md5 of api, a folder other chats name.
    assert (c["project"], c["project_dir"], c["project_from"]) == ("api", str(install.api), "chat folder")
    assert c["title"] == "what does this repo do?"
    assert _time(c["started"]) == _time(c["updated"]) == C_CREATED  # the store's own createdAt

    d = by_id["d-acp"]
    assert (d["project"], d["project_dir"], d["title"]) == ("acp-app", str(install.acp_app), "Wire the ACP client")
    assert _time(d["started"]) == T0 + timedelta(days=1)

    e = by_id["e-both"]
    assert (e["project"], e["title"], e["messages"]) == ("api", "Lint the api", 3)


def test_a_store_only_chat_shows_its_turns_tools_results_and_times(install: Install) -> None:
    assert run_deja("index").returncode == 0
    shown = deja_json("show", "a-store")
    messages = shown["messages"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "the retry test is flaky, fix it"),
        ("assistant", "Running it a few times."),
        ("assistant", "The test sleeps on the real clock; it now uses a fake clock."),
        ("user", "thanks, also run the whole suite"),
        ("assistant", "All 120 tests pass."),
    ]  # no system prompt, no <user_info>/<rules>/<agent_skills>, no GetMcpTools
    assert _calls(messages[1]) == [
        ("Shell", "F....\n1 failed, 4 passed in 2.10s", 1),
        ("Read", "     1|def test_retry():\n     2|    time.sleep(0.1)", None),
    ]
    assert _calls(messages[2]) == [
        ("StrReplace", "The file tests/test_retry.py has been updated.", None),
        ("Shell", "5 passed in 0.40s", 0),
    ]
    assert _calls(messages[4]) == [("Shell", "120 passed", 0)]
    assert messages[1]["tool_calls"][0]["args"] == {"command": "pytest tests/test_retry.py -q --count 5"}
    assert [_time(m["timestamp"]) for m in messages] == [
        T0,
        T0 + timedelta(seconds=30),  # the node's own time
        T0 + timedelta(seconds=30),
        T0 + timedelta(minutes=10),
        T0 + timedelta(minutes=12),
    ]
    text = run_deja("show", "a-store").stdout
    assert "⚙ Shell pytest tests/test_retry.py -q --count 5\n    exit 1\n    F...." in text


def test_undated_acp_and_transcribed_chats_read_as_cursor_writes_them(install: Install) -> None:
    assert run_deja("index").returncode == 0
    b = deja_json("show", "b-gone")["messages"]
    assert [(m["role"], m["text"], _time(m["timestamp"])) for m in b] == [
        ("user", "move the settings to pydantic v2", B_CREATED),
        ("assistant", "Replaced BaseSettings with pydantic-settings.", B_CREATED),
    ]
    d = deja_json("show", "d-acp")
    assert [m["text"] for m in d["messages"]] == [
        "connect the editor over ACP",
        "The client now speaks ACP over stdio.",
    ]
    e = deja_json("show", "e-both")
    assert e["session"]["id"] == "e-both"
    assert [(m["role"], m["text"]) for m in e["messages"]] == [
        ("user", "lint the api"),
        ("assistant", "Linting."),
        ("assistant", "Two unused imports; both removed."),
    ]
    assert _calls(e["messages"][1]) == [("Shell", "Found 2 errors.", 1)]  # the transcript's call, the store's result
    refused = run_deja("resume", "d-acp")
    assert refused.returncode == 1 and "Agent Client Protocol" in refused.stderr
    resumed = run_deja("resume", "a-store")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip().endswith(
        f"cd {install.api} && CURSOR_CONFIG_DIR={install.config} cursor-agent --resume a-store"
    )


def test_the_encryption_key_never_reaches_the_index(install: Install) -> None:
    assert run_deja("index").returncode == 0
    index = install.home / ".cache" / "deja"
    for path in index.rglob("*"):
        if path.is_file():
            assert b"c2VjcmV0LWtleS1uZXZlci1rZXB0" not in path.read_bytes(), path


def test_doctor_counts_store_only_chats_and_names_the_one_it_cannot_read(install: Install) -> None:
    assert run_deja("index").returncode == 0
    report = deja_json("doctor")
    assert report["cli_roots"] == [str(install.data), str(install.config), str(install.home / ".cursor")]
    assert report["chats_without_transcript"] == 4
    assert report["unreadable_chats"] == {UNREADABLE_STORE: 1}
    # a store that is garbage is damaged, not locked: doctor names it and gives deja index's mv line (trial47 F4)
    (warning,) = [p for p in report["problems"] if "damaged" in p["message"]]
    assert warning["level"] == "warn"
    assert warning["message"].startswith(f"{install.config / 'chats'}") and "/f-garbled/store.db" in warning["message"]
    assert warning["fix"].startswith("mv ") and warning["fix"].split()[2].endswith("/f-garbled/store.db.damaged")
    assert not [p for p in report["problems"] if "cannot read" in p["message"]]
    text = run_deja("doctor").stdout
    assert "cursor-agent chats read from their store alone (no transcript): 4" in text
    assert f"  cursor-agent  {install.data}\n                1 transcript" in text


# --- where the roots are --------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, ["~/.cursor"]),
        ({"XDG_CONFIG_HOME": "~/xdg"}, ["~/.cursor", "~/xdg/cursor"]),
        # Every folder cursor-agent may have kept chats in is read (split roots): the variable set now, and the
        # folders a chat written before it was set (or after it is unset) is in.
        ({"CURSOR_CONFIG_DIR": "~/cfg", "XDG_CONFIG_HOME": "~/xdg"}, ["~/.cursor", "~/cfg", "~/xdg/cursor"]),
        ({"CURSOR_DATA_DIR": "~/data", "CURSOR_CONFIG_DIR": "~/cfg"}, ["~/data", "~/cfg", "~/.cursor"]),
        ({"CURSOR_DATA_DIR": "~/data", "DEJA_CURSOR_CLI_ROOT": "~/one"}, ["~/one"]),
    ],
)
def test_the_cursor_agent_roots(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: list[str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value.replace("~", str(fake_home)))
    assert paths.cli_roots() == [Path(p.replace("~", str(fake_home))) for p in expected]
    # Installers write where Cursor reads its config, which XDG_CONFIG_HOME does not move.
    assert paths.cursor_config_dir() == Path(env.get("CURSOR_CONFIG_DIR", "~/.cursor").replace("~", str(fake_home)))


def test_chats_under_cursor_config_dir_and_transcripts_under_home_are_both_read(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = fake_home / "cursor-config"
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(config))
    project = fake_home / "web"
    project.mkdir()
    write_transcript(transcript_path(fake_home / ".cursor", str(project), "t1"), [user_turn("old transcript chat", T0)])
    write_chat_store(
        chat_dir_for(config, str(project), "s1"),
        cwd=str(project),
        name="Store only",
        messages=[store_user_message("a store-only question", T0), store_assistant_message("answer")],
    )
    assert run_deja("index").returncode == 0
    listed = {s["id"]: s for s in deja_json("sessions")["sessions"]}
    assert {sid: (s["project"], s["title"]) for sid, s in listed.items()} == {
        "t1": ("web", "old transcript chat"),
        "s1": ("web", "Store only"),
    }


@pytest.mark.parametrize("command", [("index",), ("search", "store only question")])
def test_a_cursor_agent_root_that_appears_later_is_read_by_the_next_command(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """``CURSOR_CONFIG_DIR`` (or ``XDG_CONFIG_HOME``) set after the last walk names a root that walk never saw: the
    next search or ``deja index`` reads it then, not a minute later."""
    project = fake_home / "web"
    project.mkdir()
    write_transcript(transcript_path(fake_home / ".cursor", str(project), "t1"), [user_turn("old transcript chat", T0)])
    assert run_deja("index").returncode == 0
    config = fake_home / "cursor-config"
    write_chat_store(
        chat_dir_for(config, str(project), "s1"),
        cwd=str(project),
        name="Store only",
        messages=[store_user_message("a store only question", T0), store_assistant_message("answer")],
    )
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(config))
    assert run_deja(*command).returncode == 0
    assert {s["id"] for s in deja_json("sessions")["sessions"]} == {"t1", "s1"}


def test_a_shell_and_cursor_that_see_different_roots_do_not_take_turns_walking(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shell with ``CURSOR_CONFIG_DIR`` and Cursor without it: once a walk has seen the shell's extra root, a walk
    from Cursor's side does not make the shell's next search walk again."""
    from deja.core.indexer.glance import RECORD

    record = fake_home / ".cache" / "deja" / "index" / RECORD
    project = fake_home / "web"
    project.mkdir()
    write_transcript(transcript_path(fake_home / ".cursor", str(project), "t1"), [user_turn("old transcript chat", T0)])
    config = fake_home / "cursor-config"
    write_chat_store(chat_dir_for(config, str(project), "s1"), cwd=str(project), name="Store only", messages=[])
    shell = {**os.environ, "CURSOR_CONFIG_DIR": str(config)}
    assert run_deja("index", "--full").returncode == 0  # Cursor's side: no CURSOR_CONFIG_DIR
    assert run_deja("search", "transcript", env=shell).returncode == 0  # the shell's extra root: walked once
    assert run_deja("index", "--full").returncode == 0  # Cursor's side walks again
    walked = orjson.loads(record.read_bytes())["walked_at"]
    assert run_deja("search", "transcript", env=shell).returncode == 0
    assert orjson.loads(record.read_bytes())["walked_at"] == walked
