"""The MCP ``work`` tool's ``blame`` takes a relative path in the folder of the project it is given by name.

A model names a project by its name (``web``), as the tool's ``project`` says it may and as every other mode takes
it; ``blame`` of ``src/Navbar.tsx`` with ``project: "web"`` looked in the server's folder (another project's), and
answered "no session edited …/shop/src/Navbar.tsx", or with ``:LINE`` a tool error (trial14 F3).
"""

from __future__ import annotations

import os
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript


def test_blame_of_a_relative_path_is_taken_in_the_named_projects_folder(tmp_path: Path, cli_root: Path) -> None:
    from deja.core.index import Index
    from deja.interfaces.mcp_server import work_answer

    web, shop = tmp_path / "code" / "web", tmp_path / "code" / "shop"
    (web / "src").mkdir(parents=True)
    shop.mkdir(parents=True)
    (web / "src" / "Navbar.tsx").write_text("export const Navbar = () => null;\n")
    edit = tool_use("Write", {"path": str(web / "src" / "Navbar.tsx"), "contents": "export const Navbar = () => null;"})
    chat = [user_turn("the navbar flickers on load"), assistant_turn("Rendering nothing until mounted.", edit)]
    write_transcript(transcript_path(cli_root, str(web), "c-web"), chat)
    write_transcript(transcript_path(cli_root, str(shop), "c-shop"), [user_turn("cart totals"), assistant_turn("Ok.")])
    assert run_deja("index").returncode == 0
    index = Index.open(tmp_path / "deja")
    previous = os.getcwd()
    os.chdir(shop)  # the server runs where Cursor started it: another project's folder
    try:
        by_name = [work_answer(index, "blame", path, "web")[0] for path in ("src/Navbar.tsx", "src/Navbar.tsx:1")]
        unknown, _ = work_answer(index, "blame", "src/Navbar.tsx", "nothere")
    finally:
        os.chdir(previous)
    for answer in by_name:
        assert f"{web}/src/Navbar.tsx" in answer and "c-web" in answer, answer
    assert f"no session edited {shop}/src/Navbar.tsx" in unknown, unknown  # a name of no folder: the server's


def test_wip_of_a_relative_folder_is_taken_in_the_named_projects_folder(tmp_path: Path, cli_root: Path) -> None:
    """``wip`` of ``./src`` with ``project: "web"`` looked in the server's folder, as ``blame`` did (review23 R23-4)."""
    from deja.core.index import Index
    from deja.interfaces.mcp_server import work_answer

    web, shop = tmp_path / "code" / "web", tmp_path / "code" / "shop"
    (web / "src").mkdir(parents=True)
    (shop / "src").mkdir(parents=True)
    for chat_id, folder, task in (("c-web", web, "the navbar flickers"), ("c-shop", shop / "src", "cart totals")):
        write_transcript(transcript_path(cli_root, str(folder), chat_id), [user_turn(task), assistant_turn("Ok.")])
    assert run_deja("index").returncode == 0
    index = Index.open(tmp_path / "deja")
    previous = os.getcwd()
    os.chdir(shop)
    try:
        said, _ = work_answer(index, "wip", "./src", "web")
    finally:
        os.chdir(previous)
    assert "the navbar flickers" in said and "cart totals" not in said, said


def test_blame_of_a_windows_path_with_a_project_is_that_path(tmp_path: Path, cli_root: Path) -> None:
    """``work`` ``blame`` of ``c:\\Users\\…\\settings.page.ts`` (as ``files`` lists it) with ``project: "chat"`` joined the
    path to the project's folder and said no session edited ``…/chat/c:\\Users\\…``, where ``deja blame`` gives its
    edit (polish45)."""
    from test_editor_code_block_edits import SETTINGS, _windows_chat

    from deja.core.index import Index
    from deja.core.writers.ide import file_uri
    from deja.interfaces.mcp_server import work_answer

    project = tmp_path / "code" / "chat"
    project.mkdir(parents=True)
    _windows_chat(tmp_path / "no-ide", file_uri(str(project))["external"], [SETTINGS])

    said, data = work_answer(Index.open(tmp_path / "deja"), "blame", SETTINGS, "chat")

    assert said.startswith(f"1 edit of {SETTINGS}, newest first:\n"), said
    assert said == run_deja("blame", SETTINGS, cwd=tmp_path).stdout.rstrip("\n")
    assert [edit["path"] for edit in data["edits"]] == [SETTINGS], data


def test_a_project_whose_folder_is_a_windows_drives_is_that_folder(tmp_path: Path, cli_root: Path) -> None:
    """review45b M2: a Windows database opened here, its project's folder ``c:/Users/me/chat``: ``work`` ``blame`` of
    ``src/settings.page.ts`` with ``project: "chat"`` (or the folder) joined the folder to the server's and said no
    session edited ``…/c:/Users/me/chat/src/…``; ``wip`` of the folder said no session of it was indexed, and ``deja
    wip`` that there was no such folder. Each now answers as ``deja blame`` of the file's full path does."""
    from test_editor_code_block_edits import SETTINGS, _windows_chat

    from deja.core.index import Index
    from deja.interfaces.mcp_server import work_answer

    _windows_chat(tmp_path / "no-ide", "file:///c%3A/Users/me/chat", [SETTINGS])
    index = Index.open(tmp_path / "deja")
    cli = run_deja("blame", SETTINGS, cwd=tmp_path).stdout.rstrip("\n")
    assert cli.startswith(f"1 edit of {SETTINGS}, newest first:\n"), cli

    for path, project in [
        ("src/settings.page.ts", "chat"),
        ("src\\settings.page.ts", "c:\\Users\\me\\chat"),
        ("src/settings.page.ts", "c:/Users/me/chat/"),
    ]:
        assert work_answer(index, "blame", path, project)[0] == cli, (path, project)
    for folder in ("c:\\Users\\me\\chat", "c:/Users/me"):
        said, data = work_answer(index, "wip", folder, None)
        assert said.startswith("last session ") and "add dark mode to settings.page.ts" in said, said
        wip = run_deja("wip", folder, cwd=tmp_path)
        assert wip.returncode == 0 and wip.stdout.rstrip("\n") == said, wip.stderr
