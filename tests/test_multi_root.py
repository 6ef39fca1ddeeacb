"""A multi-root workspace (a ``workspace.json`` naming a ``.code-workspace`` file) files each chat under the folder
of the workspace it worked in, else its first folder, not under the folder holding the file, which is usually a
parent of many repositories (trialM F1: every chat of the workspace became a project ``code``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
from harness import run_deja

from deja.core.readers.code_workspace import plain_json
from deja.core.writers.ide import (
    ComposerHeader,
    composer_data,
    tool_former_data,
    write_state_vscdb,
    write_workspace_json,
)

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms

#: As VS Code writes and allows it: comments, a trailing comma, a folder relative to the file and one absolute.
WORKSPACE_FILE = """{
  // the two services
  "folders": [
    {"path": "multi-a"},
    /* the one with the tapir */ {"path": "./multi-b", "name": "B, // not a comment"},
    {"path": "%s"},
  ],
  "settings": {"files.exclude": {"**/.git": true,},},
}
"""


def _chat(cid: str, words: str, bubble_extra: dict[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    composer = composer_data(cid, [("u", 1), ("a", 2)], created_at=T0, name=f"{words} chat")
    bubbles = {
        "u": {"type": 1, "text": f"question about {words}", "createdAt": T0 + 1000},
        "a": {"type": 2, "text": f"answer about {words}", "createdAt": T0 + 2000, **bubble_extra},
    }
    return composer, bubbles


def test_a_chat_is_filed_under_the_workspace_folder_it_worked_in(fake_home: Path, tmp_path: Path) -> None:
    code = tmp_path / "code"
    outside = tmp_path / "elsewhere" / "multi-c"
    for folder in (code / "multi-a", code / "multi-b" / "src", outside):
        folder.mkdir(parents=True)
    workspace_file = code / "multi.code-workspace"
    workspace_file.write_text(WORKSPACE_FILE % outside)
    user = fake_home / ".config" / "Cursor" / "User"
    write_workspace_json(user / "workspaceStorage" / "ws-multi", workspace=workspace_file.as_uri())
    edit = tool_former_data("edit_file", {"target_file": str(code / "multi-b" / "src" / "tapir.py")}, {"diff": ""})
    in_b = _chat("in-b", "tapir", {"toolFormerData": edit})
    in_c = _chat("in-c", "heron", {"codeBlocks": [{"uri": {"fsPath": str(outside / "x.py")}}]})
    nowhere = _chat("nowhere", "okapi", {})
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={"in-b": in_b[0], "in-c": in_c[0], "nowhere": nowhere[0]},
        bubbles={"in-b": in_b[1], "in-c": in_c[1], "nowhere": nowhere[1]},
        composer_headers=[ComposerHeader(cid, workspace_id="ws-multi") for cid in ("in-b", "in-c", "nowhere")],
    )
    assert run_deja("index").returncode == 0
    done = run_deja("sessions", "--json")
    folders = {s["id"]: s["project_dir"] for s in orjson.loads(done.stdout)["sessions"]}
    assert folders == {"in-b": str(code / "multi-b"), "in-c": str(outside), "nowhere": str(code / "multi-a")}

    found = run_deja("search", "tapir", "--project", str(code / "multi-b"), "--json")
    assert [hit["session_id"] for hit in orjson.loads(found.stdout)["hits"]] == ["in-b"], found.stdout


def test_comments_and_trailing_commas_are_taken_out_strings_kept() -> None:
    text = '{"a": "x // y, /* z */",  // c\n "b": [1, 2, /* d */ ], }'
    assert orjson.loads(plain_json(text)) == {"a": "x // y, /* z */", "b": [1, 2]}


def test_a_workspace_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Editors on Windows save ``.code-workspace`` files with a BOM, which JSON parsers refuse (review8b)."""
    from deja.core.readers.code_workspace import workspace_file_folders

    workspace = tmp_path / "shop.code-workspace"
    workspace.write_bytes(b"\xef\xbb\xbf" + b'{"folders": [{"path": "api"}, {"path": "web"},]}')
    assert workspace_file_folders(str(workspace)) == [str(tmp_path / "api"), str(tmp_path / "web")]


def test_session_start_in_a_multi_root_workspace_lists_each_roots_work(tmp_path: Path, cli_root: Path) -> None:
    """sessionStart with several ``workspace_roots`` lists the recent work of each (trialM F10: only the first root
    was looked at, so a workspace whose first folder had no session got nothing)."""
    from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

    roots = [tmp_path / "code" / name for name in ("multi-a", "multi-b", "multi-c")]
    for root in roots:
        root.mkdir(parents=True)
    for chat_id, root, words in (("c-b", roots[1], "bison grazing"), ("c-c", roots[2], "crane migration")):
        write_transcript(transcript_path(cli_root, str(root), chat_id), [user_turn(words), assistant_turn("Done.")])
    write_transcript(transcript_path(cli_root, str(tmp_path / "other"), "c-x"), [user_turn("x"), assistant_turn("y")])
    assert run_deja("index").returncode == 0
    payload = {"conversation_id": "c-now", "hook_event_name": "sessionStart", "workspace_roots": list(map(str, roots))}
    ran = run_deja("hook-context", input=orjson.dumps(payload).decode())
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    said = orjson.loads(ran.stdout)["additional_context"]
    assert "`deja show c-b`" in said and "`deja show c-c`" in said and "c-x" not in said, said
    assert len(said.encode()) <= 2048  # the one block's budget, whatever the roots


def test_session_start_names_apart_roots_of_one_last_name(tmp_path: Path, cli_root: Path) -> None:
    """Roots ``a/x/svc`` and ``b/x/svc`` (or ``work/api`` and ``legacy/api``) are each named by as much of their
    path as tells them apart, as the other hooks name another project of this one's name (review8b F-C)."""
    from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

    roots = [tmp_path / "a" / "x" / "svc", tmp_path / "b" / "x" / "svc", tmp_path / "c" / "web"]
    for n, root in enumerate(roots):
        root.mkdir(parents=True)
        write_transcript(
            transcript_path(cli_root, str(root), f"c-{n}"), [user_turn(f"task {n}"), assistant_turn("Done.")]
        )
    assert run_deja("index").returncode == 0
    payload = {"conversation_id": "c-now", "hook_event_name": "sessionStart", "workspace_roots": list(map(str, roots))}
    ran = run_deja("hook-context", input=orjson.dumps(payload).decode())
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    said = orjson.loads(ran.stdout)["additional_context"]
    assert '"task 0" (a/x/svc, ' in said and '"task 1" (b/x/svc, ' in said and '"task 2" (web, ' in said, said

    # A root with no session listed still tells the listed one's name apart (review8d).
    payload.update(conversation_id="c-later", workspace_roots=[str(roots[0]), str(tmp_path / "d" / "x" / "svc")])
    said = orjson.loads(run_deja("hook-context", input=orjson.dumps(payload).decode()).stdout)["additional_context"]
    assert '"task 0" (a/x/svc, ' in said, said


def test_session_start_lists_each_root_before_a_busier_roots_older_sessions(tmp_path: Path, cli_root: Path) -> None:
    """A root whose one session is older than another root's three is listed still (review8c: the newest three of
    all roots together left it out, though README said each root's are listed)."""
    from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

    busy, quiet = tmp_path / "busy", tmp_path / "quiet"
    for root in (busy, quiet):
        root.mkdir()
    chats = [("c-quiet", quiet, datetime(2026, 1, 1, 9, tzinfo=UTC))]
    chats += [(f"c-busy-{n}", busy, datetime(2026, 3, n + 1, 9, tzinfo=UTC)) for n in range(4)]
    for chat_id, root, when in chats:
        turns = [user_turn(f"work in {chat_id}", when), assistant_turn("Done.")]
        write_transcript(transcript_path(cli_root, str(root), chat_id), turns)
    assert run_deja("index").returncode == 0
    payload = {
        "conversation_id": "c-now",
        "hook_event_name": "sessionStart",
        "workspace_roots": [str(busy), str(quiet)],
    }
    ran = run_deja("hook-context", input=orjson.dumps(payload).decode())
    said = orjson.loads(ran.stdout)["additional_context"]
    assert "`deja show c-quiet`" in said and "`deja show c-busy-3`" in said, said
    # its heading says the order it lists in: the older c-quiet before c-busy-2 was under "newest first" (trial58 T8)
    heading = "Recent sessions in this workspace's folders, the newest of each folder first:"
    assert f'\n{heading}\n- "work in c-busy-3"' in said, said
    assert said.index("`deja show c-busy-3`") < said.index("`deja show c-quiet`") < said.index("c-busy-2"), said


def test_the_shell_hook_takes_the_events_cwd_in_a_multi_root_workspace(tmp_path: Path, cli_root: Path) -> None:
    """The editor names the folder a tool event runs in (``cwd``); in a workspace whose first folder is ``web``, a
    command run in ``shop`` was counted in ``web`` ("never ran here before": trial14 F6). A ``cwd`` outside the
    workspace (``~/.cursor``, where user hooks run) is not the command's."""
    from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript

    web, shop = tmp_path / "code" / "web", tmp_path / "code" / "shop"
    for folder in (web, shop):
        folder.mkdir(parents=True)
    run = assistant_turn("Running the tests.", tool_use("Shell", {"command": "pytest -q"}))
    write_transcript(transcript_path(cli_root, str(shop), "c-shop"), [user_turn("the cart test fails"), run])
    assert run_deja("index").returncode == 0

    def before(conversation: str, cwd: Path, working_directory: str = "") -> str:
        payload = {
            "conversation_id": conversation,
            "hook_event_name": "preToolUse",
            "cursor_version": "3.20.17",
            "workspace_roots": [str(web), str(shop)],
            "cwd": "" if cwd == Path("") else str(cwd),
            "tool_name": "Shell",
            "tool_input": {
                "command": "pytest -q",
                **({"working_directory": working_directory} if working_directory else {}),
            },
        }
        ran = run_deja("hook-tool", input=orjson.dumps(payload).decode())
        assert ran.returncode == 0 and not ran.stderr, ran.stderr
        return orjson.loads(ran.stdout)["additional_context"] if ran.stdout else ""

    assert "`pytest -q` ran 1 time in this project before" in before("c-now-1", shop)
    assert "`pytest -q` ran" not in before("c-now-2", tmp_path / "home" / ".cursor")
    # below that folder, the sessions opened at it count too; spelt with a trailing slash or a `..`, it is one folder
    (shop / "src").mkdir()
    assert "`pytest -q` ran 1 time in this project before" in before("c-now-3", shop / "src")
    assert "`pytest -q` ran 1 time in this project before" in before("c-now-4", Path(f"{web}/../shop/"))
    # a command whose input names the second folder, from cursor-agent (no cwd), counts that folder's sessions
    assert "`pytest -q` ran 1 time in this project before" in before("c-now-5", Path(""), str(shop / "src"))


def test_a_command_run_outside_the_workspace_keeps_the_folder_of_the_events_cwd(tmp_path: Path) -> None:
    """A command whose folder lies in none of the workspace's folders (``working_directory: /tmp``) is the folder
    of the event's ``cwd``'s, as before, not the first folder's (review27 R27-1): the failure hook looks in that
    project and its repository first."""
    from deja.hooks.call import HookCall
    from deja.hooks.scope import command_folder

    web, shop, other = tmp_path / "web", tmp_path / "shop", tmp_path / "other"
    payload = {"hook_event_name": "postToolUse", "workspace_roots": [str(web), str(shop)], "cwd": str(shop)}
    for working_directory, expected in ((str(other), (str(other), 1)), ("src", (str(shop / "src"), 1))):
        tool_input = {"command": "make", "working_directory": working_directory}
        assert command_folder(HookCall({**payload, "tool_input": tool_input}, "postToolUse")) == expected
    assert command_folder(HookCall({**payload, "cwd": "", "tool_input": {"command": "make"}}, "postToolUse")) == (
        str(web),
        0,
    )
