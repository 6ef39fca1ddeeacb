"""A cursor-agent chat in a folder whose name has no ASCII letter or digit (``code/支付服务``) is not filed under the
folder above it: Cursor's slug of such a folder is its parent's (cursor-drift-2026 §9: runs collapsed, ends trimmed),
so the chat is filed where the files its tools touched say (the outermost such folder holding them all), else under
the one of them that is a git repository's root, else under the parent, where such chats nearly always ran
(review38b H1: leaving them unknown lost the project of every chat run in a project holding a ``文档`` folder).

Before, the walk that decodes a slug skipped a child whose name encodes to nothing and returned the parent as an
exact match: the chats showed up as the parent's recent sessions (trialI F8). The project's writer also wrote a slug
Cursor does not (``tmp-code-----``), so no test ever saw the ambiguous one. Then, for a while, any such folder made
its parent's own slug decode to nothing: a project holding ``文档`` or ``_`` lost every transcript-only chat that ran
in it (review7b 1), and each decode walked whole CJK-named trees.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

from deja.core.readers import slug_folders
from deja.core.readers.projects import cli_folder
from deja.core.writers.cursor_agent import (
    assistant_turn,
    encode_project_path,
    tool_use,
    transcript_path,
    user_turn,
    write_transcript,
)


def folder_of(slug: str) -> str:
    """The folder a cursor-agent chat filed under ``slug`` whose files and messages say nothing is given."""
    return cli_folder("", slug).folder


def test_the_writer_writes_the_slug_cursor_writes() -> None:
    assert encode_project_path("/tmp/code/café-app") == "tmp-code-caf-app"
    assert encode_project_path("/tmp/code/支付服务") == "tmp-code"
    assert encode_project_path("/work/my app (v2)/") == "work-my-app-v2"


def test_a_chat_in_an_unnamed_folder_is_not_filed_under_its_parent(tmp_path: Path, cli_root: Path) -> None:
    code = tmp_path / "code"
    unnamed = code / "支付服务"
    (unnamed / "服务").mkdir(parents=True)
    (code / "api").mkdir()
    file = f"{unnamed}/服务/支付.py"
    write_transcript(
        transcript_path(cli_root, str(unnamed), "c-zh"),
        [
            user_turn("支付接口返回超时错误，怎么修复？"),
            assistant_turn("已修复。", tool_use("Write", {"path": file, "contents": "x"})),
        ],
    )
    write_transcript(
        transcript_path(cli_root, str(unnamed), "c-no-files"), [user_turn("你好"), assistant_turn("你好！")]
    )
    write_transcript(transcript_path(cli_root, str(code / "api"), "c-api"), [user_turn("why is the api slow"), assistant_turn("An N+1 query.")])  # fmt: skip
    assert run_deja("index").returncode == 0
    projects = {s["id"]: s["project_dir"] for s in json.loads(run_deja("sessions", "--json").stdout)["sessions"]}
    assert projects == {"c-zh": str(unnamed), "c-no-files": str(code), "c-api": str(code / "api")}, projects
    assert folder_of(encode_project_path(str(code))) == str(code)  # code, or a folder below it: code
    assert set(slug_folders(encode_project_path(str(code)))) == {code, unnamed, unnamed / "服务"}
    assert folder_of(encode_project_path(str(code / "api"))) == str(code / "api")
    (unnamed / "服务" / "api").mkdir()  # the same slug as code/api
    assert folder_of(encode_project_path(str(code / "api"))) == ""
    (code / "api2").mkdir()
    assert folder_of(encode_project_path(str(code / "api2"))) == str(code / "api2")


def test_a_project_holding_an_unnamed_folder_keeps_its_transcript_only_chats(tmp_path: Path, cli_root: Path) -> None:
    """A chat that says nothing of its files ran at the project's root, not in ``app/文档`` (review38b H1)."""
    app = tmp_path / "code" / "app"
    (app / "文档").mkdir(parents=True)
    (app / "_").mkdir()
    write_transcript(
        transcript_path(cli_root, str(app), "c-app"),
        [user_turn("how do we deploy the app to staging"), assistant_turn("Run make deploy ENV=staging.")],
    )
    assert run_deja("index").returncode == 0
    projects = {s["id"]: s["project_dir"] for s in json.loads(run_deja("sessions", "--json").stdout)["sessions"]}
    assert projects == {"c-app": str(app)}
    wip = run_deja("wip", cwd=app)
    assert "deploy" in wip.stdout, wip.stdout


def test_a_folder_below_unnamed_ones_is_found_without_walking_them_all(tmp_path: Path) -> None:
    docs = tmp_path / "文档"
    (docs / "项目" / "app").mkdir(parents=True)
    deep = docs / "一" / "二" / "三"
    (deep / "app").mkdir(parents=True)  # three unnamed in a row: not entered, so not a second tmp-…-app
    assert folder_of(encode_project_path(str(docs / "项目" / "app"))) == str(docs / "项目" / "app")


def test_a_lossy_slug_takes_the_folder_its_files_are_in(tmp_path: Path, cli_root: Path) -> None:
    """``my.app-v2`` and ``my-app/v2`` share a slug and both exist: a transcript-only chat whose Read names a file in
    ``my.app-v2`` is filed there, not under whichever folder the disk walk meets first (trialM F8); one whose files
    say nothing has no project folder (trial17 F5)."""
    code = tmp_path / "code"
    dotted, nested = code / "my.app-v2", code / "my-app" / "v2"
    for folder in (dotted, nested):
        folder.mkdir(parents=True)
    read = tool_use("Read", {"path": f"{dotted}/main.py"})
    library = tool_use("Read", {"path": "/usr/lib/python3/json/__init__.py"})
    write_transcript(
        transcript_path(cli_root, str(dotted), "c-dotted"),
        [user_turn("why does main exit early"), assistant_turn("Reading it.", library, read)],
    )
    write_transcript(transcript_path(cli_root, str(dotted), "c-plain"), [user_turn("hello"), assistant_turn("hi")])
    assert run_deja("index").returncode == 0
    projects = {s["id"]: s["project_dir"] for s in json.loads(run_deja("sessions", "--json").stdout)["sessions"]}
    assert projects["c-dotted"] == str(dotted), projects
    assert projects["c-plain"] == "", projects
