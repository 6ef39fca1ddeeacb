"""The Cursor IDE reader, against real SQLite databases built in tmp_path and one real user's database."""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import shared_path
from harness import run_deja

from deja.core.model import Session
from deja.core.readers import vscdb
from deja.core.readers.ide import composer_fingerprints, read_ide_database
from deja.core.writers.ide import (
    ComposerHeader,
    as_blob,
    bubble_key,
    composer_key,
    encode_value,
    put_values,
    write_state_vscdb,
    write_workspace_json,
)

pytestmark = pytest.mark.unit

T0 = 1784278800000  # 2026-07-17 09:00:00 UTC, in ms
CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
REAL_DB = ("realdata", "slevin48-cursor-history", "state.vscdb")


def at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def read(path: Path, **kwargs) -> tuple[dict[str, Session], Counter[str]]:
    problems: Counter[str] = Counter()
    sessions = {s.id: s for s in read_ide_database(path, problems=problems, **kwargs)}
    return sessions, problems


def texts(session: Session) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in session.messages]


def chat_panel(*tabs: dict) -> dict:
    return {CHAT_PANEL: {"tabs": list(tabs)}}


def composer(cid: str, bubble_ids: list[str] | None = None, **fields) -> dict:
    data = {"_v": 10, "composerId": cid, "createdAt": T0, "lastUpdatedAt": T0 + 60_000, **fields}
    if bubble_ids is not None:
        data["fullConversationHeadersOnly"] = [{"bubbleId": b, "type": 1} for b in bubble_ids]
    return data


# --- composers and bubbles --------------------------------------------------


def test_composer_with_bubbles_reads_roles_texts_title_and_every_kind_of_time(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1", "b2", "b3", "b4"], name="Fix cache invalidation")},
        bubbles={
            "c1": {
                "b1": {"_v": 3, "type": 1, "text": "Why is this stale?", "timestamp": T0 + 1000},
                "b2": {
                    "_v": 3,
                    "type": 2,
                    "text": "",
                    "rawText": "The key omits the locale.",
                    "createdAt": "2026-07-23T09:15:15.288Z",
                },
                "b3": {
                    "_v": 2,
                    "type": 1,
                    "text": "Add it then.",
                    "timingInfo": {"clientStartTime": 165658.8, "clientRpcSendTime": T0 + 9_000_000_000},
                },
                "b4": {"_v": 2, "type": 3, "text": "Done: the key now has the locale."},
            }
        },
    )
    sessions, problems = read(db)

    session = sessions["c1"]
    assert session.source == "cursor-ide"
    assert session.origin == str(db)
    assert session.title == "Fix cache invalidation"
    assert texts(session) == [
        ("user", "Why is this stale?"),
        ("assistant", "The key omits the locale."),
        ("user", "Add it then."),
        ("assistant", "Done: the key now has the locale."),
    ]
    assert [m.timestamp for m in session.messages] == [
        at(T0 + 1000),
        datetime(2026, 7, 23, 9, 15, 15, 288000, tzinfo=UTC),
        at(T0 + 9_000_000_000),  # clientRpcSendTime, not the monotonic clientStartTime
        at(T0),  # no time of its own: the composer's createdAt
    ]
    assert session.started == at(T0)
    assert session.updated == at(T0 + 9_000_000_000)
    assert not problems


def test_bubble_created_at_may_be_milliseconds(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hello", "createdAt": T0 + 5000}}},
    )
    sessions, _ = read(db)
    assert sessions["c1"].messages[0].timestamp == at(T0 + 5000)


def test_without_bubble_times_the_session_spans_the_composer_times(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1", "b2"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}, "b2": {"type": 2, "text": "hello"}}},
    )
    session = read(db)[0]["c1"]
    assert (session.started, session.updated) == (at(T0), at(T0 + 60_000))


def test_headers_give_the_order_drop_orphans_and_skip_missing_bubbles(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["u1", "a1", "gone", "u2", "a2"])},
        bubbles={
            "c1": {
                # stored in an order unlike the conversation, with times that disagree too
                "a2": {"type": 2, "text": "second answer", "timestamp": T0 + 1},
                "u1": {"type": 1, "text": "first question", "timestamp": T0 + 40},
                "u2": {"type": 1, "text": "second question", "timestamp": T0 + 2},
                "a1": {"type": 2, "text": "first answer", "timestamp": T0 + 30},
                "old": {"type": 2, "text": "an answer regenerated away", "timestamp": T0 + 35},
            }
        },
    )
    sessions, problems = read(db)
    assert texts(sessions["c1"]) == [
        ("user", "first question"),
        ("assistant", "first answer"),
        ("user", "second question"),
        ("assistant", "second answer"),
    ]
    assert not problems


def test_without_headers_bubbles_are_ordered_by_time_then_by_insertion(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", fullConversationHeadersOnly=[])},
        bubbles={
            "c1": {
                "zz": {"type": 1, "text": "untimed first"},  # falls back to createdAt = T0
                "yy": {"type": 2, "text": "untimed second"},
                "bb": {"type": 2, "text": "answer", "timestamp": T0 + 2000},
                "aa": {"type": 1, "text": "question", "timestamp": T0 + 1000},
            }
        },
    )
    sessions, _ = read(db)
    assert [m.text for m in sessions["c1"].messages] == ["untimed first", "untimed second", "question", "answer"]


def test_unnamed_composer_is_titled_by_its_first_user_line(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["a0", "b1"])},
        bubbles={
            "c1": {
                "a0": {"type": 2, "text": "How can I help?"},
                "b1": {"type": 1, "text": "\n  rename   the   footer  component\nand its tests"},
            }
        },
    )
    assert read(db)[0]["c1"].title == "rename the footer component"


def test_name_comes_from_the_composer_headers_table_when_composer_data_has_none(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "something"}}},
        composer_headers=[ComposerHeader("c1", value={"name": "Header title"})],
    )
    assert read(db)[0]["c1"].title == "Header title"


@pytest.mark.parametrize(
    "header",
    [
        ComposerHeader("c1", last_updated_at=T0 + 7_200_000),
        ComposerHeader("c1", recency=T0 + 7_200_000),
        ComposerHeader("c1", last_updated_at=T0 + 60_000, recency=T0 + 7_200_000),
    ],
    ids=["lastUpdatedAt", "recency", "newest"],
)
def test_a_chat_whose_bubbles_carry_no_time_is_as_recent_as_its_header_says(tmp_path: Path, header) -> None:
    """cursor-drift-2026.md §4: a 3.x composer's ``lastUpdatedAt`` often stays its ``createdAt``; the header row's
    ``lastUpdatedAt``/``recency`` is the newer signal when no bubble has a time (``deja sessions`` orders by it)."""
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1", "b2"], lastUpdatedAt=T0)},
        bubbles={"c1": {"b1": {"type": 1, "text": "go"}, "b2": {"type": 2, "text": "gone"}}},
        composer_headers=[header],
    )
    session = read(db)[0]["c1"]
    assert (session.started, session.updated) == (at(T0), at(T0 + 7_200_000))


def test_streaming_leftovers_and_empty_composers_give_nothing(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={
            "c1": composer("c1", ["b1", "b2"]),
            "draft": composer("draft", [], text="half-typed input box"),
        },
        bubbles={"c1": {"b1": {"type": 1, "text": "go"}, "b2": {"type": 2, "text": "", "rawText": ""}}},
    )
    sessions, problems = read(db)
    assert list(sessions) == ["c1"]
    assert texts(sessions["c1"]) == [("user", "go")]
    assert not problems


@pytest.mark.parametrize("version", [3, 10, 13])
def test_composer_versions_read_alike(tmp_path: Path, version: int) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": {**composer("c1", ["b1", "b2"]), "_v": version}},
        bubbles={"c1": {"b1": {"_v": 2, "type": 1, "text": "ping"}, "b2": {"_v": 3, "type": 2, "text": "pong"}}},
    )
    assert texts(read(db)[0]["c1"]) == [("user", "ping"), ("assistant", "pong")]


def test_old_disk_kv_composer_with_inline_conversation(tmp_path: Path) -> None:
    """Cursor 0.4x kept the conversation inside composerData, with no bubble rows."""
    inline = [
        {"type": 1, "bubbleId": "x", "text": "inline question"},
        {"type": 2, "bubbleId": "y", "text": "inline answer"},
    ]
    db = write_state_vscdb(tmp_path / "state.vscdb", composers={"c1": composer("c1", _v=1, conversation=inline)})
    assert texts(read(db)[0]["c1"]) == [("user", "inline question"), ("assistant", "inline answer")]


# --- bad values -------------------------------------------------------------


def test_null_blob_and_malformed_values_are_counted_and_skipped(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={
            "good": composer("good", ["b1", "b2", "b3", "b4", "b5", "b6"], name="Survivor"),
            "blob": as_blob(composer("blob", ["b1"], name="Stored as a BLOB")),
            "null": None,
            "broken": '{"composerId": "broken", "name": ',
            "list": [1, 2],
        },
        bubbles={
            "good": {
                "b1": as_blob({"type": 1, "text": "bytes are fine"}),
                "b2": None,
                "b3": "{not json",
                "b4": b"\xff\xfe not utf-8",
                "b5": {"text": "no type at all"},
                "b6": {"type": 2, "text": "still here"},
            },
            "blob": {"b1": {"type": 1, "text": "from a blob composer"}},
        },
        disk_kv={"agentKv:blob:abc": b"\x00\x01 binary", "checkpointId:good:k1": "not json"},
    )
    sessions, problems = read(db)
    assert sorted(sessions) == ["blob", "good"]
    assert texts(sessions["good"]) == [("user", "bytes are fine"), ("assistant", "still here")]
    assert sessions["blob"].title == "Stored as a BLOB"
    assert problems == Counter(
        {
            "ide: null composer": 1,
            "ide: malformed composer": 2,
            "ide: null bubble": 1,
            "ide: malformed bubble": 3,
        }
    )


# --- tool calls -------------------------------------------------------------


def test_tool_calls_ride_on_their_bubble_message(tmp_path: Path) -> None:
    terminal = {
        "tool": 15,
        "name": "run_terminal_cmd",
        "status": "completed",
        "rawArgs": '{"command": "pytest -q"}',
        "params": '{"command": "pytest -q", "requireUserApproval": true}',
        "result": '{"output": "3 passed\\n", "exitCode": 0}',
        "userDecision": "accepted",
    }
    read_file = {"name": "read_file", "params": {"target_file": "app.py"}, "result": {"contents": "print('hi')\n"}}
    raw_args_only = {"name": "grep_search", "rawArgs": '{"query": "TODO"}', "result": "no matches"}
    rejected = {
        "name": "run_terminal_cmd",
        "params": '{"command": "rm -rf build"}',
        "result": '{"rejected": true}',
        "userDecision": "rejected",
    }
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["u", "t1", "t2", "t3", "t4"])},
        bubbles={
            "c1": {
                "u": {"type": 1, "text": "run the tests"},
                "t1": {"type": 2, "text": "Running them.", "toolFormerData": terminal},
                "t2": {"type": 2, "text": "", "toolFormerData": read_file},
                "t3": {"type": 2, "text": "", "toolFormerData": raw_args_only},
                "t4": {"type": 2, "text": "", "toolFormerData": rejected},
            }
        },
    )
    sessions, problems = read(db)
    messages = sessions["c1"].messages
    assert [(m.role, m.text, len(m.tool_calls)) for m in messages] == [
        ("user", "run the tests", 0),
        ("assistant", "Running them.", 1),
        ("assistant", "", 1),
        ("assistant", "", 1),
        ("assistant", "", 1),
    ]
    ran, opened, searched, refused = (m.tool_calls[0] for m in messages[1:])
    assert (ran.name, ran.args, ran.result, ran.exit_code) == (
        "run_terminal_cmd",
        {"command": "pytest -q", "requireUserApproval": True},
        "3 passed\n",
        0,
    )
    assert (opened.name, opened.args, opened.result) == ("read_file", {"target_file": "app.py"}, "print('hi')\n")
    assert (searched.args, searched.result) == ({"query": "TODO"}, "no matches")
    assert (refused.args, refused.result, refused.exit_code) == ({"command": "rm -rf build"}, None, None)
    assert not problems


def test_tool_call_without_a_name_is_counted(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["u", "t"])},
        bubbles={
            "c1": {
                "u": {"type": 1, "text": "go"},
                "t": {"type": 2, "text": "", "toolFormerData": {"tool": 5}},
            }
        },
    )
    sessions, problems = read(db)
    assert texts(sessions["c1"]) == [("user", "go")]
    assert problems == Counter({"ide: malformed tool call": 1})


def test_cursor_3s_name_less_tool_call_form_is_no_damage(tmp_path: Path) -> None:
    """``{"additionalData": {"status": "error"}}`` is a third of real toolFormerData (drift §5): not counted, so
    neither ``deja index`` nor doctor reports damage that ``deja index --full`` could never clear."""
    name_less = {"additionalData": {"status": "error"}}
    db = write_state_vscdb(
        tmp_path / "User" / "globalStorage" / "state.vscdb",
        composers={"c1": composer("c1", ["u", "e1", "e2", "a"])},
        bubbles={
            "c1": {
                "u": {"type": 1, "text": "rename the helper"},
                "e1": {"type": 2, "text": "", "toolFormerData": name_less},
                "e2": {"type": 2, "text": "Trying again.", "toolFormerData": name_less},
                "a": {"type": 2, "text": "Renamed."},
            }
        },
    )
    sessions, problems = read(db)
    assert texts(sessions["c1"]) == [
        ("user", "rename the helper"),
        ("assistant", "Trying again."),
        ("assistant", "Renamed."),
    ]
    assert not problems
    (tmp_path / "cli").mkdir()
    env = {**os.environ, "DEJA_HOME": str(tmp_path / "deja"), "DEJA_CURSOR_ROOT": str(tmp_path / "User")}
    env["DEJA_CURSOR_CLI_ROOT"] = str(tmp_path / "cli")
    for command in (("index",), ("index", "--full"), ("doctor",)):
        ran = run_deja(*command, env=env)
        assert "unreadable" not in ran.stdout + ran.stderr and "malformed" not in ran.stdout, (command, ran.stdout)


# --- project ----------------------------------------------------------------


def _precedence_fixture(user_root: Path, sources: int) -> Path:
    """A global DB whose composer has only the ``sources`` weakest of its six project sources."""
    storage = user_root / "workspaceStorage"
    write_workspace_json(storage / "ws-table", folder="file:///src/from-headers-table")
    write_workspace_json(storage / "ws-item", folder="file:///src/from-headers-item")
    bubble = {"type": 1, "text": "hello"}
    data = composer("c1", ["b1"])
    headers: list[ComposerHeader] = []
    item_table = {}
    if sources >= 6:
        bubble["workspaceProjectDir"] = "/src/from-bubble"
    if sources >= 5:
        data["workspaceIdentifier"] = {"id": "ws-x", "uri": {"fsPath": "/src/from-identifier", "scheme": "file"}}
    if sources >= 4:
        headers.append(ComposerHeader("c1", workspace_id="ws-table", value={"name": "n"}))
    if sources >= 3:
        entry = {"composerId": "c1", "workspaceIdentifier": {"id": "ws-item"}}
        item_table["composer.composerHeaders"] = {"allComposers": [entry]}
    if sources >= 2:
        data["trackedGitRepos"] = [{"repoPath": "/src/from-git"}]
    if sources >= 1:
        bubble["workspaceUris"] = ["file:///src/from-workspace-uris"]
    return write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={"c1": data},
        bubbles={"c1": {"b1": bubble}},
        item_table=item_table,
        composer_headers=headers,
    )


@pytest.mark.parametrize(
    ("sources", "project_dir", "signal"),
    [
        (6, "/src/from-bubble", "workspaceProjectDir"),
        (5, "/src/from-identifier", "workspaceIdentifier"),
        (4, "/src/from-headers-table", "composerHeaders"),
        (3, "/src/from-headers-item", "composerHeaders"),
        (2, "/src/from-git", "trackedGitRepos"),
        (1, "/src/from-workspace-uris", "workspaceUris"),
        (0, "", ""),
    ],
)
def test_project_dir_precedence_in_a_global_database(
    tmp_path: Path, sources: int, project_dir: str, signal: str
) -> None:
    db = _precedence_fixture(tmp_path / "User", sources)
    session = read(db)[0]["c1"]
    assert (session.project_dir, session.project_from) == (project_dir, signal)
    assert session.project == project_dir.rsplit("/", 1)[-1]


def test_workspace_database_takes_its_own_workspace_json_before_git_repos(tmp_path: Path) -> None:
    workspace = tmp_path / "User" / "workspaceStorage" / "0a1b2c"
    write_workspace_json(workspace, folder="file:///home/me/shop")
    db = write_state_vscdb(
        workspace / "state.vscdb",
        composers={"c1": composer("c1", ["b1"], trackedGitRepos=[{"repoPath": "/home/me/other"}])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
    )
    session = read(db)[0]["c1"]
    assert (session.project_dir, session.project) == ("/home/me/shop", "shop")


def test_header_uri_is_used_before_mapping_its_workspace_id(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "User" / "globalStorage" / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
        item_table={
            "composer.composerHeaders": {
                "allComposers": [
                    {
                        "composerId": "c1",
                        "workspaceIdentifier": {"id": "nowhere", "uri": {"external": "file:///srv/api%20v2"}},
                    }
                ]
            }
        },
    )
    session = read(db)[0]["c1"]
    assert (session.project_dir, session.project) == ("/srv/api v2", "api v2")


def _hex(host: dict[str, object]) -> str:
    """A remote's host as Cursor may name it: its JSON, hex-encoded."""
    return json.dumps(host, separators=(",", ":")).encode().hex()


#: A dev container's name: its local folder and its configuration file.
DEV_CONTAINER = {"hostPath": "/home/me/app", "configFile": {"path": "/home/me/app/.devcontainer/devcontainer.json"}}


@pytest.mark.parametrize(
    ("workspace_json", "project_dir", "project"),
    [
        ({"folder": "file:///home/u/my%20proj"}, "/home/u/my proj", "my proj"),
        ({"folder": "file:///c%3A/Users/me/Mobile%20Chat"}, "c:/Users/me/Mobile Chat", "Mobile Chat"),
        # a remote window's folder is no folder here: its project names the folder and where it is (trial57 F2)
        ({"folder": "vscode-remote://ssh-remote%2Bbuildbox/home/u/svc"}, "", "svc (buildbox)"),
        (
            {"folder": "vscode-remote://ssh-remote+" + _hex({"hostName": "buildbox", "user": "me"}) + "/home/u/svc"},
            "",
            "svc (buildbox)",
        ),
        (
            {"folder": "vscode-remote://ssh-remote%2B%7B%22hostName%22%3A%22buildbox%22%7D/home/u/svc"},
            "",
            "svc (buildbox)",
        ),
        (
            {"folder": "vscode-remote://dev-container%2B" + _hex(DEV_CONTAINER) + "/workspaces/app"},
            "",
            "app (dev container)",
        ),
        (
            {"folder": "vscode-remote://attached-container%2B" + _hex({"containerName": "/pg-dev"}) + "/srv/db"},
            "",
            "db (container pg-dev)",
        ),
        ({"folder": "vscode-remote://wsl%2BUbuntu-22.04/home/me/web%20app"}, "", "web app (WSL Ubuntu-22.04)"),
        ({"folder": "vscode-remote://tunnel%2Bhomelab/srv/app"}, "", "app (tunnel homelab)"),
        # (a user part left out: a gateway's user form can carry a token, review57d F6)
        ({"folder": "vscode-remote://ssh-remote%2Bws%23tok3n@gw.example:2222/srv/app"}, "", "app (gw.example:2222)"),
        ({"workspace": "vscode-remote://ssh-remote%2Bbuildbox/home/u/mono/mono.code-workspace"}, "", "mono (buildbox)"),
        ({"folder": "file://fileserver/share/team"}, "//fileserver/share/team", "team"),
        ({"workspace": "file:///home/u/mono/mono.code-workspace"}, "/home/u/mono", "mono"),
    ],
)
def test_workspace_json_uris_are_decoded(
    tmp_path: Path, workspace_json: dict[str, str], project_dir: str, project: str
) -> None:
    workspace = tmp_path / "workspaceStorage" / "f00d"
    write_workspace_json(workspace, **workspace_json)
    db = write_state_vscdb(
        workspace / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
    )
    session = read(db)[0]["c1"]
    assert (session.project_dir, session.project) == (project_dir, project)


def test_a_composers_own_remote_uri_object_names_where_it_ran(tmp_path: Path) -> None:
    """VS Code's URI object of a remote window: ``fsPath`` is the remote path, which names no folder here."""
    uri = {
        "$mid": 1,
        "fsPath": "/home/u/svc",
        "external": "vscode-remote://ssh-remote%2Bbuildbox/home/u/svc",
        "path": "/home/u/svc",
        "scheme": "vscode-remote",
        "authority": "ssh-remote+buildbox",
    }
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1"], workspaceIdentifier={"id": "ws", "uri": uri})},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
    )
    session = read(db)[0]["c1"]
    assert (session.project_dir, session.project, session.project_from) == ("", "svc (buildbox)", "workspaceIdentifier")


@pytest.mark.parametrize(
    ("stored", "project_dir", "project"),
    [
        ("c:\\Users\\ydebray\\Documents\\mobilechat", "c:\\Users\\ydebray\\Documents\\mobilechat", "mobilechat"),
        ("/c%3A/Users/me/web%20app", "c:/Users/me/web app", "web app"),
        ("/work/api/", "/work/api/", "api"),
    ],
)
def test_windows_and_encoded_paths_give_a_sensible_project(
    tmp_path: Path, stored: str, project_dir: str, project: str
) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi", "workspaceProjectDir": stored}}},
    )
    session = read(db)[0]["c1"]
    assert (session.project_dir, session.project) == (project_dir, project)


def test_malformed_workspace_json_is_counted(tmp_path: Path) -> None:
    workspace = tmp_path / "workspaceStorage" / "bad"
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text("{folder:")
    db = write_state_vscdb(
        workspace / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
    )
    sessions, problems = read(db)
    assert sessions["c1"].project == ""
    assert problems == Counter({"ide: malformed workspace.json": 1})


# --- legacy ItemTable chats -------------------------------------------------


def test_legacy_item_table_composers_and_chat_tabs(tmp_path: Path) -> None:
    workspace = tmp_path / "workspaceStorage" / "1234"
    write_workspace_json(workspace, folder="file:///home/me/ionic-app")
    composers = {
        "allComposers": [
            {
                "composerId": "k1",
                "name": "Sidebar",
                "createdAt": T0,
                "lastUpdatedAt": T0 + 9000,
                "conversation": [
                    {"type": 1, "bubbleId": "1", "text": "add a sidebar"},
                    {"type": 2, "bubbleId": "2", "text": "\n\nHere is a sidebar."},
                ],
            },
            {"type": "head", "composerId": "h1", "name": "only a head", "createdAt": T0},
        ],
        "selectedComposerId": "k1",
    }
    chat = {
        "tabs": [
            {
                "tabId": "tab-1",
                "chatTitle": "Python server",
                "lastSendTime": T0 + 50_000,
                "bubbles": [
                    {"type": "user", "messageType": 2, "id": "q", "text": "how to serve files with python?"},
                    {"type": "ai", "messageType": 3, "id": "a", "text": "", "rawText": "python -m http.server"},
                    {"type": "user", "messageType": 2, "id": "draft", "text": ""},
                ],
            },
            {"tabId": "tab-2", "lastSendTime": T0, "bubbles": [{"type": "user", "text": "untitled tab question"}]},
        ]
    }
    db = write_state_vscdb(
        workspace / "state.vscdb",
        item_table={
            "composer.composerData": composers,
            CHAT_PANEL: chat,
            "cursorAuth/accessToken": "secret-token",
        },
        with_disk_kv=False,
    )
    sessions, problems = read(db)

    assert sorted(sessions) == ["k1", "tab-1", "tab-2"]
    sidebar = sessions["k1"]
    assert (sidebar.title, sidebar.project) == ("Sidebar", "ionic-app")
    assert texts(sidebar) == [("user", "add a sidebar"), ("assistant", "Here is a sidebar.")]
    assert (sidebar.started, sidebar.updated) == (at(T0), at(T0 + 9000))

    tab = sessions["tab-1"]
    assert tab.title == "Python server"
    assert texts(tab) == [("user", "how to serve files with python?"), ("assistant", "python -m http.server")]
    assert tab.updated == at(T0 + 50_000)
    # (its last send is no time of its messages nor its start: trial43 F11)
    assert tab.started is None and [m.timestamp for m in tab.messages] == [None, None]
    assert sessions["tab-2"].title == "untitled tab question"
    assert not problems


def test_newer_workspace_databases_without_chats_give_nothing(tmp_path: Path) -> None:
    """Cursor 3.0 moved the chat index to globalStorage: a workspace DB keeps only selections."""
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        item_table={
            "composer.composerData": {"selectedComposerIds": ["c9"], "hasMigratedComposerData": True},
            "aiService.prompts": [{"text": "a prompt without its chat", "commandType": 4}],
        },
    )
    assert read(db) == ({}, Counter())
    assert composer_fingerprints(db) == {}


def test_disk_kv_wins_over_an_item_table_copy_of_the_same_composer(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"same": composer("same", ["b1"], name="current")},
        bubbles={"same": {"b1": {"type": 1, "text": "current text"}}},
        item_table={
            "composer.composerData": {
                "allComposers": [{"composerId": "same", "name": "stale", "conversation": [{"type": 1, "text": "old"}]}]
            }
        },
    )
    sessions = list(read_ide_database(db))
    assert [(s.id, s.title) for s in sessions] == [("same", "current")]
    assert set(composer_fingerprints(db)) == {"same"}


# --- incremental reads ------------------------------------------------------


def test_only_ids_reads_just_those_composers(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"want": composer("want", ["b1"]), "other": composer("other", ["b1"])},
        bubbles={"want": {"b1": {"type": 1, "text": "wanted"}}, "other": {"b1": "{broken"}},
        item_table=chat_panel({"tabId": "t", "bubbles": [{"type": "user", "text": "tab"}]}),
    )
    sessions, problems = read(db, only_ids={"want"})
    assert list(sessions) == ["want"]
    assert not problems  # the other composer's broken bubble was never read

    sessions, _ = read(db, only_ids={"t"})
    assert list(sessions) == ["t"]


def test_fingerprints_change_with_the_chat_and_drop_deleted_ones(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1"]), "c2": composer("c2", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}, "c2": {"b1": {"type": 1, "text": "yo"}}},
        item_table=chat_panel({"tabId": "t", "bubbles": []}),
    )
    before = composer_fingerprints(db)
    assert set(before) == {"c1", "c2", "t"}
    assert composer_fingerprints(db) == before

    conn = sqlite3.connect(db)  # Cursor answers in c1: first the new bubble, then the composer row
    try:
        put_values(conn, "cursorDiskKV", {bubble_key("c1", "b2"): {"type": 2, "text": "hello"}})
        conn.commit()
        after_bubble = composer_fingerprints(db)
        answered = composer("c1", ["b1", "b2"], lastUpdatedAt=T0 + 99_000)
        put_values(conn, "cursorDiskKV", {composer_key("c1"): answered})
        put_values(conn, "ItemTable", chat_panel({"tabId": "t", "bubbles": [{"type": "user", "text": "new"}]}))
        conn.execute("DELETE FROM cursorDiskKV WHERE key = ?", (composer_key("c2"),))
        conn.commit()
    finally:
        conn.close()
    after = composer_fingerprints(db)

    assert after_bubble["c1"] != before["c1"]
    assert after["c1"] not in (before["c1"], after_bubble["c1"])
    assert after["t"] != before["t"]
    assert "c2" not in after
    assert texts(read(db, only_ids={"c1"})[0]["c1"]) == [("user", "hi"), ("assistant", "hello")]


# --- opening the database ---------------------------------------------------


def test_rows_still_in_the_wal_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "Application Support #1 ?50%"
    folder.mkdir()
    db = write_state_vscdb(folder / "state.vscdb")
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.executemany(
            "INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)",
            [
                (composer_key("live"), encode_value(composer("live", ["b1"], name="Written while open"))),
                (bubble_key("live", "b1"), encode_value({"type": 1, "text": "only in the WAL"})),
            ],
        )
        writer.commit()
        assert Path(f"{db}-wal").stat().st_size > 0

        sessions, problems = read(db)
        assert texts(sessions["live"]) == [("user", "only in the WAL")]
        assert sessions["live"].title == "Written while open"
        assert not problems
        assert set(composer_fingerprints(db)) == {"live"}
    finally:
        writer.close()


def test_a_file_that_is_not_sqlite_is_counted(tmp_path: Path) -> None:
    bogus = tmp_path / "state.vscdb"
    bogus.write_bytes(b"this is not a database, just some text " * 200)
    problems: Counter[str] = Counter()
    assert list(read_ide_database(bogus, problems=problems)) == []
    assert composer_fingerprints(bogus, problems) == {}
    assert problems == Counter({"ide: not a database": 2})


def test_missing_file_and_tableless_database_are_counted(tmp_path: Path) -> None:
    empty = tmp_path / "empty.vscdb"
    conn = sqlite3.connect(empty)
    conn.execute("CREATE TABLE other (x)")
    conn.close()
    problems: Counter[str] = Counter()
    assert list(read_ide_database(tmp_path / "absent.vscdb", problems=problems)) == []
    assert list(read_ide_database(empty, problems=problems)) == []
    assert problems == Counter({"ide: unreadable database": 1, "ide: no chat tables": 1})
    assert not (tmp_path / "absent.vscdb").exists()


def test_a_locked_database_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
    )
    monkeypatch.setattr(vscdb, "BUSY_TIMEOUT_SECONDS", 0.05)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        problems: Counter[str] = Counter()
        assert list(read_ide_database(db, problems=problems)) == []
        assert problems == Counter({"ide: database locked": 1})
    finally:
        holder.close()


def test_reading_never_writes_the_database(tmp_path: Path) -> None:
    db = write_state_vscdb(
        tmp_path / "store" / "state.vscdb",
        composers={"c1": composer("c1", ["b1"])},
        bubbles={"c1": {"b1": {"type": 1, "text": "hi"}}},
    )
    before = db.read_bytes()
    assert [s.id for s in read_ide_database(db)] == ["c1"]
    assert composer_fingerprints(db).keys() == {"c1"}
    assert db.read_bytes() == before
    assert [p.name for p in db.parent.iterdir()] == ["state.vscdb"]  # no journal left behind


# --- a real user's database -------------------------------------------------


def test_real_legacy_workspace_database() -> None:
    """slevin48/cursor-history: a Cursor 0.42 workspace DB with ItemTable-only chats (2024-11)."""
    sessions, problems = read(shared_path(*REAL_DB))
    assert not problems

    # 26 inline composers (19 unnamed) and 5 Chat panel tabs, all with messages
    assert len(sessions) == 31
    assert sum(len(s.messages) for s in sessions.values()) == 82 + 44  # 5 tabs end with an empty draft bubble
    assert all(
        m.role == ("user" if i % 2 == 0 else "assistant") for s in sessions.values() for i, m in enumerate(s.messages)
    )

    settings = sessions["a76419da-5045-4dcb-a1d4-307eab526a30"]
    assert settings.title == "create settings page that enables to enter OpenAI API key,"
    assert len(settings.messages) == 14
    assert settings.messages[0].text.startswith("create settings page that enables to enter OpenAI API key")
    assert settings.started == datetime(2024, 11, 17, 3, 55, 37, 24000, tzinfo=UTC)

    unnamed = sessions["090e988a-b2e3-4fcc-84e0-62a9401ae6ea"]
    assert unnamed.title == "add the following elements to the sidebar:"
    assert unnamed.messages[1].text.startswith("Based on your request, I'll help structure a sidebar")

    tab = sessions["f73a2965-5b2c-403b-a625-d347ab7107a1"]
    assert tab.title == "Running a Local Python Server via CLI"
    assert tab.messages[0].text.startswith("how to run a local server with python")
    assert tab.updated == datetime(2024, 11, 17, 3, 33, 39, 726000, tzinfo=UTC)

    assert composer_fingerprints(shared_path(*REAL_DB)).keys() == sessions.keys()
