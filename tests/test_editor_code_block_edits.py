"""An editor chat of Cursor 0.42 and before edited through code blocks, not tool calls: each answer's block names
its file (``codeBlocks[].uri``) and the composer records whether the user accepted it (``codeBlockData``). `deja files`
and `deja blame` found nothing in such chats (trial23 F7.8); the real database in ../shared/realdata holds 26 of them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import shared_path
from harness import run_deja

from deja.core.readers.ide import BLOCK_EDIT, read_ide_database
from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import WORKSPACE_COMPOSERS_KEY, file_uri, write_state_vscdb, write_workspace_json

T0 = 1_731_800_000_000
CHAT = "0c0c0c0c-0000-4000-8000-00000000c0c0"


#: Each file's code block in the synthetic chat: its ``codeBlockData`` status and the user's answer to it
#: (``userResponsesToSuggestedCodeBlocks``: 1 accepted, 2 rejected), as the real database holds them: a block
#: rejected through the answers keeps the status ``completed``.
_BLOCKS = {
    "page.tsx": ("accepted", 1),
    "old.tsx": ("rejected", 2),
    "nav.tsx": ("completed", 2),
    "draft.tsx": ("outdated", None),
    "pending.tsx": ("completed", None),
}


def _old_editor_chat(user_root: Path, project: Path) -> dict[str, Path]:
    """A Cursor 0.42 workspace database holding a composer whose answer gave a code block for each file of
    ``_BLOCKS`` under ``src/app``, only ``page.tsx``'s accepted. Each file's path by its name."""
    paths = {name: project / "src" / "app" / name for name in _BLOCKS}
    answer = "Here is the page:\n" + "".join(f"```typescript:src/app/{name}\nexport {{}}\n```\n" for name in paths)
    blocks = [{"uri": file_uri(str(path)), "version": 0, "codeBlockIdx": n} for n, path in enumerate(paths.values())]
    composer = {
        "composerId": CHAT,
        "name": "Landing page in Next.js",
        "createdAt": T0,
        "conversation": [
            {"type": 1, "bubbleId": "b1", "text": "make the landing page"},
            {"type": 2, "bubbleId": "b2", "text": answer, "codeBlocks": blocks},
        ],
        "codeBlockData": {
            file_uri(str(path))["external"]: [{"uri": file_uri(str(path)), "version": 0, "status": _BLOCKS[name][0]}]
            for name, path in paths.items()
        },
        "userResponsesToSuggestedCodeBlocks": [
            {"userResponseType": answered, "filePath": f"src/app/{name}"}
            for name, (_, answered) in _BLOCKS.items()
            if answered
        ],
    }
    workspace = user_root / "workspaceStorage" / "ws-old"
    write_workspace_json(workspace, folder=project.as_uri())
    item_table = {WORKSPACE_COMPOSERS_KEY: {"allComposers": [composer]}}
    write_state_vscdb(workspace / "state.vscdb", item_table=item_table, with_disk_kv=False)
    return paths


def test_an_old_editor_chat_is_found_by_the_files_its_accepted_code_blocks_edited(
    tmp_path: Path, cli_root: Path
) -> None:
    project = tmp_path / "code" / "site"
    project.mkdir(parents=True)
    paths = _old_editor_chat(tmp_path / "no-ide", project)
    page = paths["page.tsx"]
    assert run_deja("index").returncode == 0
    blamed = run_deja("blame", str(page))
    assert blamed.returncode == 0, blamed.stderr
    assert blamed.stdout.startswith(f"1 edit of {page}, newest first:\n"), blamed.stdout
    assert f"edit_file  Landing page in Next.js  (deja show {CHAT})" in blamed.stdout, blamed.stdout
    files = run_deja("files", "landing", "page")
    assert files.returncode == 0, files.stderr
    # (no "0 reads": such a chat records no read: trial43 F11)
    assert files.stdout.splitlines()[1].strip() == f"{page}  (1 edit in 1 session, last 2024-11-16 23:33)"
    for name in ("old.tsx", "nav.tsx", "draft.tsx", "pending.tsx"):  # (rejected, superseded, never answered)
        assert name not in files.stdout, files.stdout
        not_edited = run_deja("blame", str(paths[name])).stdout
        assert not_edited.startswith(f"no session edited {paths[name]}\n\nalso discussed in:\n"), not_edited
    assert "⚙ Edit" in (shown := run_deja("show", CHAT).stdout) and "nav.tsx" not in shown.split("⚙ Edit")[1], shown


def test_a_windows_file_is_one_path_whether_or_not_its_block_holds_its_fs_path(tmp_path: Path, cli_root: Path) -> None:
    """A Windows database's block URI without ``fsPath`` gave ``c:/Users/…`` where one with it gave ``c:\\Users\\…``:
    one file, two rows in ``deja files`` (review43c M1, seen in the real database's 36e069aa and e58f449e)."""
    fs_path, external = "c:\\Users\\me\\chat\\src\\app.routes.ts", "file:///c%3A/Users/me/chat/src/app.routes.ts"
    uris = [
        {
            "$mid": 1,
            "fsPath": fs_path,
            "external": external,
            "path": "/c:/Users/me/chat/src/app.routes.ts",
            "scheme": "file",
        },
        {"$mid": 1, "external": external, "path": "/c:/Users/me/chat/src/app.routes.ts", "scheme": "file"},
    ]
    conversation = [{"type": 1, "bubbleId": "q1", "text": "add the route to the gecko page"}]
    for n, uri in enumerate(uris):
        blocks = [{"uri": uri, "version": n, "codeBlockIdx": 0}]
        conversation.append(
            {"type": 2, "bubbleId": f"a{n}", "text": f"```ts:src/app/app.routes.ts\n{n}\n```", "codeBlocks": blocks}
        )
    composer = {
        "composerId": CHAT,
        "name": "Gecko route",
        "createdAt": T0,
        "conversation": conversation,
        "codeBlockData": {external: [{"version": n, "status": "accepted"} for n in range(2)]},
    }
    workspace = tmp_path / "no-ide" / "workspaceStorage" / "ws-win"
    write_workspace_json(workspace, folder="file:///c%3A/Users/me/chat")
    write_state_vscdb(workspace / "state.vscdb", item_table={WORKSPACE_COMPOSERS_KEY: {"allComposers": [composer]}})
    assert run_deja("index").returncode == 0
    files = run_deja("files", "gecko", "route")
    assert files.returncode == 0, files.stderr
    rows = [line.strip() for line in files.stdout.splitlines()[1:] if "app.routes.ts" in line]
    assert len(rows) == 1 and "(2 edits in 1 session" in rows[0], files.stdout


def test_the_real_old_editor_database_gives_its_chats_the_files_their_code_blocks_edited() -> None:
    """slevin48/cursor-history: 26 composers of Cursor 0.42, 118 code blocks; 41 (chat, file) pairs have a block the
    user accepted. The rest were rejected (17, 11 of them only through ``userResponsesToSuggestedCodeBlocks``), are
    only ``outdated`` (31: superseded, as 36e069aa's, 91906375's and e58f449e's blocks by 425bf52d's accepted ones)
    or ``completed`` with no answer (5): all 88 were read as edits before."""
    sessions = list(read_ide_database(shared_path("realdata", "slevin48-cursor-history", "state.vscdb")))
    edited = Counter(
        call.args["target_file"]
        for s in sessions
        for m in s.messages
        for call in m.tool_calls
        if call.name == BLOCK_EDIT
    )
    assert len(edited) == 18 and sum(edited.values()) == 45
    assert len({(s.id, call.args["target_file"]) for s in sessions for m in s.messages for call in m.tool_calls}) == 41
    assert edited["c:\\Users\\ydebray\\Documents\\mobilechat\\src\\app\\app.routes.ts"] == 6
    rejected = next(s for s in sessions if s.id.startswith("56a72d9b"))  # (all three files rejected, status completed)
    assert not any(m.tool_calls for m in rejected.messages)
    tabs = [s for s in sessions if s.title == "Running a Local Python Server via CLI"]
    assert tabs and not any(m.tool_calls for m in tabs[0].messages)  # (the old Chat panel's blocks are suggestions)


def _windows_chat(user_root: Path, folder: str, files: list[str]) -> None:
    """A workspace database written on Windows whose chat's accepted code blocks edited ``files`` (``c:\\…`` paths),
    its workspace folder ``folder`` (a URI): as ``c:/…`` it was opened there, as a local folder it was copied here."""
    blocks, answer = [], "Here it is:\n"
    for n, path in enumerate(files):
        external = f"file:///{path[0]}%3A{path[2:]}".replace("\\", "/")
        uri = {"$mid": 1, "fsPath": path, "external": external, "path": "/" + path.replace("\\", "/"), "scheme": "file"}
        blocks.append({"uri": uri, "version": 0, "codeBlockIdx": n})
        answer += f"```ts:{path}\nexport {{}}\n```\n"
    composer = {
        "composerId": CHAT,
        "name": "Settings page",
        "createdAt": T0,
        "conversation": [
            {"type": 1, "bubbleId": "q1", "text": "add dark mode to settings.page.ts"},
            {"type": 2, "bubbleId": "a1", "text": answer, "codeBlocks": blocks},
        ],
        "codeBlockData": {b["uri"]["external"]: [{"version": 0, "status": "accepted"}] for b in blocks},
    }
    workspace = user_root / "workspaceStorage" / "ws-win"
    write_workspace_json(workspace, folder=folder)
    write_state_vscdb(workspace / "state.vscdb", item_table={WORKSPACE_COMPOSERS_KEY: {"allComposers": [composer]}})
    assert run_deja("index").returncode == 0


SETTINGS = "c:\\Users\\me\\chat\\src\\settings.page.ts"


def test_blame_takes_a_windows_path_deja_files_lists_as_it_is(tmp_path: Path, cli_root: Path) -> None:
    """trial43 F6: ``deja blame 'c:\\Users\\…\\settings.page.ts'`` joined the path to the current folder and said no
    session edited it, right after ``deja files`` gave its edits."""
    _windows_chat(tmp_path / "no-ide", "file:///c%3A/Users/me/chat", [SETTINGS])
    assert SETTINGS in run_deja("files", "settings", "page").stdout
    for typed in (SETTINGS, SETTINGS.replace("\\", "/"), "C" + SETTINGS[1:]):
        blamed = run_deja("blame", typed, cwd=tmp_path)
        assert blamed.returncode == 0, blamed.stderr
        assert blamed.stdout.startswith(f"1 edit of {SETTINGS}, newest first:\n"), blamed.stdout


def test_a_file_of_the_project_is_found_where_the_windows_machine_spelt_its_folder(
    tmp_path: Path, cli_root: Path
) -> None:
    """A Windows database opened here, its workspace pointing at this machine's copy of the project: ``deja blame
    src/settings.page.ts`` in it finds the edits recorded as ``c:\\Users\\me\\chat\\src\\settings.page.ts``, and not
    those of a file of the same name in another folder (trial43 F6)."""
    project = tmp_path / "code" / "chat"
    (project / "src").mkdir(parents=True)
    elsewhere = "c:\\Users\\me\\other\\src\\settings.page.ts"
    _windows_chat(tmp_path / "no-ide", file_uri(str(project))["external"], [SETTINGS, elsewhere])

    blamed = run_deja("blame", "src/settings.page.ts", cwd=project)
    assert blamed.returncode == 0, blamed.stderr
    assert blamed.stdout.startswith(f"1 edit of {project / 'src' / 'settings.page.ts'}, newest first:\n"), blamed.stdout
    assert "Settings page" in blamed.stdout and "also discussed" not in blamed.stdout, blamed.stdout
    assert run_deja("blame", "settings.page.ts", cwd=project).stdout.startswith("no session edited"), (
        "src/ is its folder"
    )


def test_a_folder_of_the_projects_name_inside_it_is_not_the_project(tmp_path: Path, cli_root: Path) -> None:
    """review44d M5: ``chat\\packages\\chat\\src\\settings.page.ts`` ends in ``chat\\src\\settings.page.ts`` too, and
    blame of the project root's ``src/settings.page.ts`` credited it with that other file's edit (a monorepo's
    ``vite/packages/vite``, Django's ``mysite/mysite``)."""
    project = tmp_path / "code" / "chat"
    (project / "src").mkdir(parents=True)
    nested = "c:\\Users\\me\\chat\\packages\\chat\\src\\settings.page.ts"
    _windows_chat(tmp_path / "no-ide", file_uri(str(project))["external"], [nested, SETTINGS])

    blamed = run_deja("blame", "src/settings.page.ts", cwd=project)

    assert blamed.returncode == 0, blamed.stderr
    assert blamed.stdout.startswith(f"1 edit of {project / 'src' / 'settings.page.ts'}, newest first:\n"), blamed.stdout
    assert "packages" not in blamed.stdout, blamed.stdout


def test_a_copy_of_the_project_elsewhere_is_not_the_project_and_windows_names_match_in_any_case(
    tmp_path: Path, cli_root: Path
) -> None:
    """review44f L3: ``d:\\backup\\chat\\src\\settings.page.ts``, a copy of the project edited beside it, was credited to
    ``src/settings.page.ts`` as the project's file, where the session's own edits were in ``c:\\Users\\me\\Chat``, which
    matched nothing: a Windows machine's names match in any case."""
    project = tmp_path / "code" / "chat"
    (project / "src").mkdir(parents=True)
    own = ["c:\\Users\\me\\Chat\\src\\settings.page.ts", "c:\\Users\\me\\Chat\\src\\app.routes.ts"]
    _windows_chat(
        tmp_path / "no-ide", file_uri(str(project))["external"], [*own, "d:\\backup\\chat\\src\\settings.page.ts"]
    )

    blamed = run_deja("blame", "src/settings.page.ts", cwd=project)

    assert blamed.returncode == 0, blamed.stderr
    assert blamed.stdout.startswith(f"1 edit of {project / 'src' / 'settings.page.ts'}, newest first:\n"), blamed.stdout
    edited = json.loads(run_deja("blame", "src/settings.page.ts", "--json", cwd=project).stdout)["edits"]
    assert [edit["path"] for edit in edited] == [own[0]], edited


#: The project's own edit, recorded first, then a backup copy's two; a Next.js app's two, then the project's own.
BACKUP = ["c:\\me\\chat\\src\\a.ts", "d:\\backup\\chat\\src\\a.ts", "d:\\backup\\chat\\src\\b.ts"]
NEXT_APP = ["c:\\me\\web\\app\\page.tsx", "c:\\me\\web\\app\\layout.tsx", "c:\\me\\app\\server.ts"]


@pytest.mark.parametrize(
    ("name", "edits", "target", "own"),
    [("chat", BACKUP, "src/a.ts", BACKUP[0]), ("app", NEXT_APP, "server.ts", NEXT_APP[2])],
)
def test_a_copy_of_the_project_edited_more_or_a_folder_of_its_name_elsewhere_is_not_the_project(
    tmp_path: Path, cli_root: Path, name: str, edits: list[str], target: str, own: str
) -> None:
    """review45b M1: the project's folder as the Windows machine spelt it was the folder of its name holding most of
    the files the session edited: a backup copy edited more (``d:\\backup\\chat``) was credited with the project's
    file and the project's own edit was dropped; a Next.js app's ``web\\app`` beside the project ``app`` outvoted
    the project's folder, and blame said no session edited the project's ``server.ts``, which it does not hold."""
    project = tmp_path / "code" / name
    project.mkdir(parents=True)
    _windows_chat(tmp_path / "no-ide", file_uri(str(project))["external"], edits)

    blamed = run_deja("blame", target, "--json", cwd=project)

    assert blamed.returncode == 0, blamed.stderr
    assert [edit["path"] for edit in json.loads(blamed.stdout)["edits"]] == [own], blamed.stdout


def test_a_copy_of_the_project_on_this_machine_is_not_the_project(tmp_path: Path, cli_root: Path) -> None:
    """review44f L3: a session of the project that edited a scratch copy (``/tmp/chat/src/x.ts``) was credited with
    an edit of the project's ``src/x.ts``: a path this machine spells is this machine's file, not the project's as
    another machine spelt it."""
    project, copy = tmp_path / "code" / "chat", tmp_path / "scratch" / "chat"
    (project / "src").mkdir(parents=True)
    write = tool_use("Write", {"path": str(copy / "src" / "x.ts"), "contents": "export const x = 1;"})
    chat = [user_turn("try x.ts in a scratch copy"), assistant_turn("Tried src/x.ts in the copy.", write)]
    write_transcript(transcript_path(cli_root, str(project), "c-scratch"), chat)
    assert run_deja("index").returncode == 0

    blamed = run_deja("blame", "src/x.ts", cwd=project)

    assert blamed.returncode == 0, blamed.stderr
    assert blamed.stdout.startswith(f"no session edited {project / 'src' / 'x.ts'}\n"), blamed.stdout


def test_an_untitled_buffer_is_no_file(tmp_path: Path, cli_root: Path) -> None:
    """review43c L6: a code block accepted into an ``untitled:`` buffer (a new tab, never saved) was listed by ``deja
    files`` as ``<project>/untitled:Untitled-1`` and shown as ``⚙ Edit untitled:Untitled-1``."""
    project = tmp_path / "code" / "site"
    project.mkdir(parents=True)
    page = file_uri(str(project / "page.tsx"))
    untitled = {"$mid": 1, "external": "untitled:Untitled-1", "path": "Untitled-1", "scheme": "untitled"}
    blocks = [{"uri": uri, "version": 0, "codeBlockIdx": n} for n, uri in enumerate((page, untitled))]
    composer = {
        "composerId": CHAT,
        "name": "Landing page scratch",
        "createdAt": T0,
        "conversation": [
            {"type": 1, "bubbleId": "b1", "text": "make the landing page"},
            {
                "type": 2,
                "bubbleId": "b2",
                "text": "```tsx\nexport {}\n```\n```tsx\nconst x = 1\n```",
                "codeBlocks": blocks,
            },
        ],
        "codeBlockData": {uri["external"]: [{"version": 0, "status": "accepted"}] for uri in (page, untitled)},
    }
    workspace = tmp_path / "no-ide" / "workspaceStorage" / "ws-site"
    write_workspace_json(workspace, folder=project.as_uri())
    write_state_vscdb(workspace / "state.vscdb", item_table={WORKSPACE_COMPOSERS_KEY: {"allComposers": [composer]}})
    assert run_deja("index").returncode == 0

    files = run_deja("files", "landing", "page")
    assert files.returncode == 0, files.stderr
    assert str(project / "page.tsx") in files.stdout and "Untitled-1" not in files.stdout, files.stdout
    assert "Untitled-1" not in run_deja("show", CHAT).stdout
