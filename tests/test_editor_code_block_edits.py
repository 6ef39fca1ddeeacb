"""An editor chat of Cursor 0.42 and before edited through code blocks, not tool calls: each answer's block names
its file (``codeBlocks[].uri``) and the composer records whether it was applied (``codeBlockData``). `deja files`
and `deja blame` found nothing in such chats (trial23 F7.8); the real database in ../shared/realdata holds 26 of them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conftest import shared_path
from harness import run_deja

from deja.core.readers.ide import BLOCK_EDIT, read_ide_database
from deja.core.writers.ide import WORKSPACE_COMPOSERS_KEY, file_uri, write_state_vscdb, write_workspace_json

T0 = 1_731_800_000_000
CHAT = "0c0c0c0c-0000-4000-8000-00000000c0c0"


def _old_editor_chat(user_root: Path, project: Path) -> tuple[Path, Path]:
    """A Cursor 0.42 workspace database holding a composer whose answer gave two code blocks: one for
    ``src/app/page.tsx``, accepted, one for ``src/app/old.tsx``, rejected. The two files' paths."""
    page, old = project / "src" / "app" / "page.tsx", project / "src" / "app" / "old.tsx"
    answer = (
        "Here is the page:\n```typescript:src/app/page.tsx\nexport default function Page() {}\n```\n"
        "and the old one goes:\n```typescript:src/app/old.tsx\n```"
    )
    blocks = [{"uri": file_uri(str(path)), "version": 0, "codeBlockIdx": n} for n, path in enumerate((page, old))]
    composer = {
        "composerId": CHAT,
        "name": "Landing page in Next.js",
        "createdAt": T0,
        "conversation": [
            {"type": 1, "bubbleId": "b1", "text": "make the landing page"},
            {"type": 2, "bubbleId": "b2", "text": answer, "codeBlocks": blocks},
        ],
        "codeBlockData": {
            file_uri(str(path))["external"]: [{"uri": file_uri(str(path)), "version": 0, "status": status}]
            for path, status in ((page, "accepted"), (old, "rejected"))
        },
    }
    workspace = user_root / "workspaceStorage" / "ws-old"
    write_workspace_json(workspace, folder=project.as_uri())
    item_table = {WORKSPACE_COMPOSERS_KEY: {"allComposers": [composer]}}
    write_state_vscdb(workspace / "state.vscdb", item_table=item_table, with_disk_kv=False)
    return page, old


def test_an_old_editor_chat_is_found_by_the_files_its_applied_code_blocks_edited(
    tmp_path: Path, cli_root: Path
) -> None:
    project = tmp_path / "code" / "site"
    project.mkdir(parents=True)
    page, old = _old_editor_chat(tmp_path / "no-ide", project)
    assert run_deja("index").returncode == 0
    blamed = run_deja("blame", str(page))
    assert blamed.returncode == 0, blamed.stderr
    assert blamed.stdout.startswith(f"1 edit of {page}, newest first:\n"), blamed.stdout
    assert f"edit_file  Landing page in Next.js  (deja show {CHAT})" in blamed.stdout, blamed.stdout
    files = run_deja("files", "landing", "page")
    assert files.returncode == 0, files.stderr
    assert "src/app/page.tsx" in files.stdout, files.stdout
    assert "old.tsx" not in files.stdout  # (its block was turned down: it edited nothing)
    turned_down = run_deja("blame", str(old)).stdout
    assert turned_down.startswith(f"no session edited {old}\n\nalso discussed in:\n"), turned_down  # (it names it)
    assert files.stdout.splitlines()[1].strip() == f"{page}  (1 edit, 0 reads in 1 session, last 2024-11-16 23:33)"


def test_the_real_old_editor_database_gives_its_chats_the_files_their_code_blocks_edited() -> None:
    """slevin48/cursor-history: 26 composers of Cursor 0.42, 118 code blocks, 16 of them turned down or cancelled."""
    sessions = list(read_ide_database(shared_path("realdata", "slevin48-cursor-history", "state.vscdb")))
    edited = Counter(
        call.args["target_file"]
        for s in sessions
        for m in s.messages
        for call in m.tool_calls
        if call.name == BLOCK_EDIT
    )
    assert len(edited) == 28 and sum(edited.values()) > 90
    assert edited["c:\\Users\\ydebray\\Documents\\mobilechat\\src\\app\\app.routes.ts"] == 12
    tabs = [s for s in sessions if s.title == "Running a Local Python Server via CLI"]
    assert tabs and not any(m.tool_calls for m in tabs[0].messages)  # (the old Chat panel's blocks are suggestions)
