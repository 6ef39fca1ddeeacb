"""Every chat of a Cursor 3.x-shaped install filed under its project, as a user sees it through the CLI.

The install is written under the fake HOME with the project's writers, where
Cursor keeps it (``~/.config/Cursor/User``, ``~/.cursor``). Its editor composers
carry no ``workspaceIdentifier``, as on Cursor 3.x: each takes its folder from
one other signal, and a few from two that disagree.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import run_deja

from deja.core.model import Session
from deja.core.readers import Projects, slug_of
from deja.core.writers.cursor_agent import (
    acp_dir_for,
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import (
    ComposerHeader,
    composer_data,
    file_uri,
    glass_items,
    tool_former_data,
    write_state_vscdb,
    write_workspace,
    write_workspace_json,
)

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms
FOLDERS = ("code", "api", "shop", "docs", "tools", "mobile", "lib", "site")
DEAD = "old-api"  # a folder that no longer exists: only a meta.json and transcript slugs name it

#: chat id -> (project, signal) a user must see; "" for a chat with no project.
EXPECTED = {
    "via-headers": ("api", "composerHeaders"),
    "via-all-composers": ("shop", "allComposers"),
    "via-selected": ("docs", "allComposers"),
    "via-transcript": ("tools", "transcript folder"),
    "via-glass": ("mobile", "glass project"),
    "via-git": ("lib", "trackedGitRepos"),
    "via-workspace-uris": ("site", "workspaceUris"),
    "via-tool-call": ("shop", "files touched"),
    "via-code-block": ("docs", "files touched"),
    "via-file-selection": ("api", "files touched"),
    "no-signal": ("", ""),
    "empty-window": ("", ""),
    "untitled-window": ("", ""),
    "headers-over-glass": ("api", "composerHeaders"),
    "listed-over-transcript": ("shop", "allComposers"),
    "glass-over-files": ("mobile", "glass project"),
    "editor-in-dead-folder": (DEAD, "transcript folder"),
    "cli-in-dead-folder": (DEAD, "meta.json cwd"),
    "cli-bare-dead-slug": (DEAD, "transcript folder"),
}


class Install:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.code = home / "code"
        self.user = home / ".config" / "Cursor" / "User"
        self.cli = home / ".cursor"
        self.composers: dict[str, Any] = {}
        self.bubbles: dict[str, dict[str, Any]] = {}

    def folder(self, name: str) -> Path:
        return self.code if name == "code" else self.code / name

    def editor_chat(self, cid: str, *, bubble: dict[str, Any] | None = None, **fields: Any) -> None:
        """A 3.x composer (no ``workspaceIdentifier``): one question, one answer with ``bubble``'s extra fields."""
        self.composers[cid] = composer_data(cid, [("u", 1), ("a", 2)], created_at=T0, name=f"chat {cid}", **fields)
        self.bubbles[cid] = {
            "u": {"type": 1, "text": f"question of {cid}", "createdAt": T0 + 1000},
            "a": {"type": 2, "text": f"answer of {cid}", "createdAt": T0 + 2000, **(bubble or {})},
        }

    def workspace_chat(self, cid: str, folder: Path | str) -> None:
        """One editor chat placed by its workspace's folder alone (``composerHeaders``), in a database of its own."""
        write_workspace(self.user, f"ws-{cid}", folder=str(folder))
        self.editor_chat(cid)
        write_state_vscdb(
            self.user / "globalStorage" / "state.vscdb",
            composers=self.composers,
            bubbles=self.bubbles,
            composer_headers=[ComposerHeader(cid, workspace_id=f"ws-{cid}")],
        )

    def editor_transcript(self, cid: str, folder: Path) -> None:
        """The transcript the editor's agent writes under the composer id, in the folder's slug."""
        write_transcript(
            transcript_path(self.cli, str(folder), cid),
            [user_turn(f"question of {cid}"), assistant_turn(f"answer of {cid}")],
        )


def tool(path: Path) -> dict[str, Any]:
    return {"toolFormerData": tool_former_data("edit_file", {"target_file": str(path), "code_edit": "x = 1"})}


@pytest.fixture
def install(fake_home: Path) -> Install:
    """The whole install, indexed with ``deja index`` as a user would."""
    it = Install(fake_home)
    for name in FOLDERS:
        it.folder(name).mkdir(parents=True, exist_ok=True)
    dead = str(it.code / DEAD)

    # workspaceStorage: one workspace per folder, some listing composers in their database.
    write_workspace(it.user, "ws-code", folder=str(it.code))
    write_workspace(it.user, "ws-api", folder=str(it.folder("api")))
    shop_heads = ["via-all-composers", "listed-over-transcript"]
    write_workspace(it.user, "ws-shop", folder=str(it.folder("shop")), all_composers=shop_heads)
    write_workspace(it.user, "ws-docs", folder=str(it.folder("docs")), selected=["via-selected"])
    write_workspace(it.user, "1786347249089")  # an empty window's workspace: no workspace.json

    it.editor_chat("via-headers")
    it.editor_chat("via-all-composers")
    it.editor_chat("via-selected")
    it.editor_chat("via-transcript")
    it.editor_transcript("via-transcript", it.folder("tools"))
    it.editor_chat("via-glass")
    it.editor_chat("via-git", trackedGitRepos=[{"repoPath": str(it.folder("lib"))}])
    it.editor_chat("via-workspace-uris", bubble={"workspaceUris": [it.folder("site").as_uri()]})
    it.editor_chat("via-tool-call", bubble=tool(it.folder("shop") / "src" / "cart.ts"))
    it.editor_chat("via-code-block", bubble={"codeBlocks": [{"uri": file_uri(str(it.folder("docs") / "guide.md"))}]})
    it.editor_chat("via-file-selection", file_selections=[str(it.folder("api") / "README.md")])
    it.editor_chat("no-signal", bubble=tool(Path("/elsewhere/notes.txt")))
    it.editor_chat("empty-window", bubble=tool(it.folder("shop") / "cart.ts"))
    it.editor_chat("untitled-window", bubble=tool(it.folder("shop") / "cart.ts"))
    it.editor_chat("headers-over-glass")
    it.editor_chat("listed-over-transcript")
    it.editor_transcript("listed-over-transcript", it.folder("tools"))
    it.editor_chat("glass-over-files", bubble=tool(it.folder("shop") / "cart.ts"))
    it.editor_chat("editor-in-dead-folder")
    it.editor_transcript("editor-in-dead-folder", it.code / DEAD)
    write_state_vscdb(
        it.user / "globalStorage" / "state.vscdb",
        composers=it.composers,
        bubbles=it.bubbles,
        item_table=glass_items(
            {"p-mobile": str(it.folder("mobile"))},
            {"via-glass": "p-mobile", "headers-over-glass": "p-mobile", "glass-over-files": "p-mobile"},
        ),
        composer_headers=[
            ComposerHeader("via-headers", workspace_id="ws-api", value={"name": "chat via-headers"}),
            ComposerHeader("headers-over-glass", workspace_id="ws-api"),
            ComposerHeader("empty-window", workspace_id="empty-window"),
            ComposerHeader("untitled-window", workspace_id="1786347249089"),
        ],
    )

    # cursor-agent: two chats of a folder that is gone; only one still has its meta.json.
    write_transcript(
        transcript_path(it.cli, dead, "cli-in-dead-folder"),
        [user_turn("question of cli-in-dead-folder"), assistant_turn("answer of cli-in-dead-folder")],
    )
    write_chat_store(chat_dir_for(it.cli, dead, "cli-in-dead-folder"), cwd=dead, messages=[])
    write_transcript(
        transcript_path(it.cli, dead, "cli-bare-dead-slug"),
        [user_turn("question of cli-bare-dead-slug"), assistant_turn("answer of cli-bare-dead-slug")],
    )

    indexed = run_deja("index")
    assert indexed.returncode == 0, indexed.stderr
    return it


def sessions(*args: str) -> dict[str, dict[str, Any]]:
    ran = run_deja("sessions", "--json", "--limit", "100", *args)
    assert ran.returncode == 0, ran.stderr
    return {row["id"]: row for row in orjson.loads(ran.stdout)["sessions"]}


def expected_dir(install: Install, project: str) -> str:
    return str(install.folder(project)) if project else ""


def test_every_chat_is_filed_under_the_project_its_best_signal_gives(install: Install) -> None:
    rows = sessions()
    assert rows.keys() == EXPECTED.keys()
    seen = {cid: (row["project"], row["project_dir"], row["project_from"]) for cid, row in rows.items()}
    assert seen == {
        cid: (project, expected_dir(install, project), signal) for cid, (project, signal) in EXPECTED.items()
    }


@pytest.mark.parametrize(
    "project", sorted({project for project, _ in EXPECTED.values() if project}), ids=lambda p: f"--project {p}"
)
def test_a_project_by_name_or_folder_lists_every_chat_of_it(install: Install, project: str) -> None:
    wanted = {cid for cid, (name, _) in EXPECTED.items() if name == project}
    assert sessions("--project", project).keys() == wanted
    assert sessions("--project", expected_dir(install, project)).keys() == wanted
    assert sessions("--project", f"~/code/{project}").keys() == wanted  # as typed where no shell expands it


def test_a_folder_that_no_longer_exists_is_one_project_across_stores(install: Install) -> None:
    dead = str(install.code / DEAD)
    for where in (DEAD, dead, dead + "/", f"~/code/{DEAD}"):
        ran = run_deja("search", "question", "--project", where, "--json", "--limit", "50")
        assert ran.returncode == 0, ran.stderr
        hits = {hit["session_id"]: hit for hit in orjson.loads(ran.stdout)["hits"]}
        assert hits.keys() == {"cli-in-dead-folder", "cli-bare-dead-slug", "editor-in-dead-folder"}, where
        assert {(hit["project"], hit["project_dir"]) for hit in hits.values()} == {(DEAD, dead)}
    names = {row["project"] for row in sessions().values()}
    assert not any(slug_of(dead) in name or name.endswith("-" + DEAD) for name in names), names


def test_session_start_recall_finds_editor_chats_filed_through_other_stores(install: Install) -> None:
    payload = {
        "conversation_id": "new-chat",
        "hook_event_name": "sessionStart",
        "cursor_version": "3.13.21",
        "workspace_roots": [str(install.folder("api"))],
        "session_id": "new-chat",
        "is_background_agent": False,
    }
    ran = run_deja("hook-context", input=orjson.dumps(payload).decode())
    assert ran.returncode == 0, ran.stderr
    context = orjson.loads(ran.stdout)["additional_context"]
    for cid in ("via-headers", "headers-over-glass", "via-file-selection"):
        assert f"chat {cid}" in context
    assert "chat via-glass" not in context


def test_doctor_counts_the_sessions_each_signal_filed_and_those_with_none(install: Install) -> None:
    counted = Counter(signal for project, signal in EXPECTED.values() if project)
    ran = run_deja("doctor", "--json")
    index = orjson.loads(ran.stdout)["index"]
    assert index["project_signals"] == dict(counted)
    assert list(index["project_signals"]) == [  # best signal first
        "composerHeaders",
        "allComposers",
        "transcript folder",
        "glass project",
        "trackedGitRepos",
        "workspaceUris",
        "files touched",
        "meta.json cwd",
    ]
    assert index["without_project"] == 3
    text = run_deja("doctor").stdout
    assert (
        "  projects: 2 from composerHeaders, 3 from allComposers, 3 from transcript folder, 2 from glass project, "
        "1 from trackedGitRepos, 1 from workspaceUris, 3 from files touched, 1 from meta.json cwd; "
        "3 sessions without a project"
    ) in text


def test_a_chat_moved_to_another_glass_project_is_filed_again_without_a_full_build(install: Install) -> None:
    db = install.user / "globalStorage" / "state.vscdb"
    moved = glass_items(
        {"p-mobile": str(install.folder("mobile")), "p-lib": str(install.folder("lib"))},
        {"via-glass": "p-lib", "headers-over-glass": "p-mobile", "glass-over-files": "p-mobile"},
    )
    write_state_vscdb(db, item_table=moved)
    assert run_deja("index").returncode == 0
    row = sessions()["via-glass"]
    assert (row["project"], row["project_from"]) == ("lib", "glass project")


@pytest.mark.parametrize(
    ("folder", "slug"),
    [
        ("/home/me/code/api", "home-me-code-api"),
        ("/Users/me/.claude", "Users-me-claude"),
        ("D:\\1_yuyu_proj\\cursor-history", "d-1-yuyu-proj-cursor-history"),
        ("C:\\Programm", "c-Programm"),
        ("/srv/my app__v2/", "srv-my-app-v2"),
    ],
)
def test_slug_rule(folder: str, slug: str) -> None:
    assert slug_of(folder) == slug


def test_sample_editor_chat_is_filed_through_the_headers_table(sample: Any) -> None:
    """The shipped sample has a Cursor 3.x composer that only the composerHeaders table places."""
    assert run_deja("index", env=sample.env).returncode == 0
    ran = run_deja("sessions", "--json", "--source", "cursor-ide", env=sample.env)
    rows = {row["title"]: row for row in orjson.loads(ran.stdout)["sessions"]}
    row = rows["Rate limit the price endpoint"]
    assert (row["project"], row["project_from"]) == ("api", "composerHeaders")
    assert row["project_dir"] == str(sample.history.projects["api"])
    assert os.path.isdir(row["project_dir"])


def transcript_in(cli: Path, slug: str, chat_id: str) -> None:
    write_transcript(
        cli / "projects" / slug / "agent-transcripts" / chat_id / f"{chat_id}.jsonl",
        [user_turn(f"question of {chat_id}"), assistant_turn(f"answer of {chat_id}")],
    )


def test_a_windows_slug_is_decoded_against_the_folder_a_workspace_names(fake_home: Path) -> None:
    it = Install(fake_home)
    write_workspace_json(it.user / "workspaceStorage" / "ws-win", folder="file:///c%3A/Users/me/Price%20Api")
    transcript_in(it.cli, "c-Users-me-Price-Api", "win-chat")
    assert run_deja("index").returncode == 0
    row = sessions()["win-chat"]
    assert (row["project"], row["project_dir"], row["project_from"]) == (
        "Price Api",
        "c:/Users/me/Price Api",
        "transcript folder",
    )


def test_a_slug_that_two_known_folders_encode_alike_is_kept_as_it_is(fake_home: Path) -> None:
    it = Install(fake_home)
    write_workspace(it.user, "ws-1", folder="/srv/a-b")
    write_workspace(it.user, "ws-2", folder="/srv/a/b")
    transcript_in(it.cli, "srv-a-b", "ambiguous")
    assert run_deja("index").returncode == 0
    row = sessions()["ambiguous"]
    assert (row["project"], row["project_dir"], row["project_from"]) == ("srv-a-b", "", "")


def test_a_chat_stored_in_a_workspace_database_takes_that_workspace(fake_home: Path) -> None:
    it = Install(fake_home)
    api = it.folder("api")
    it.editor_chat("kept-in-workspace")
    database = write_workspace(it.user, "ws-api", folder=str(api))
    write_state_vscdb(database, composers=it.composers, bubbles=it.bubbles)
    assert run_deja("index").returncode == 0
    row = sessions()["kept-in-workspace"]
    assert (row["project"], row["project_dir"], row["project_from"]) == ("api", str(api), "workspace database")


def test_a_store_only_chat_without_a_cwd_takes_the_known_folder_its_chat_folder_names(fake_home: Path) -> None:
    """cursor-agent files a chat under md5(its folder): a ``meta.json`` without ``cwd`` still has a project."""
    it = Install(fake_home)
    api = it.folder("api")
    write_workspace(it.user, "ws-api", folder=str(api))
    store_db = chat_dir_for(it.cli, str(api), "store-only") / "store.db"
    session = Projects.of_this_machine().settle(Session(id="store-only", source="cursor-cli", origin=str(store_db)))
    assert (session.project, session.project_dir, session.project_from) == ("api", str(api), "chat folder")
    elsewhere = chat_dir_for(it.cli, "/nowhere/known", "other") / "store.db"
    unknown = Projects.of_this_machine().settle(Session(id="other", source="cursor-cli", origin=str(elsewhere)))
    assert (unknown.project, unknown.project_dir, unknown.project_from) == ("", "", "")


def test_a_meta_json_cwd_that_is_neither_filed_nor_on_disk_names_no_folder(fake_home: Path) -> None:
    """Only a trusted cwd decodes a slug: the chat must be filed under its md5, or the folder must exist."""
    it = Install(fake_home)
    gone = str(it.code / "gone")
    write_chat_store(chat_dir_for(it.cli, "/somewhere/else", "untrusted"), cwd=gone, messages=[])
    transcript_in(it.cli, slug_of(gone), "bare")
    assert run_deja("index").returncode == 0
    row = sessions()["bare"]
    assert (row["project"], row["project_dir"], row["project_from"]) == (slug_of(gone), "", "")


def test_a_folder_opened_through_a_link_is_one_project_whichever_store_named_it(fake_home: Path) -> None:
    """~/code is a link to a data disk: the editor keeps the folder as opened, cursor-agent as resolved. `--project`
    by the link's path, by the real path or as `.` in either, and sessionStart for the link's path find both."""
    it = Install(fake_home)
    real = fake_home / "disk" / "code" / "app"
    real.mkdir(parents=True)
    it.code.symlink_to(real.parent)
    opened = it.code / "app"
    it.workspace_chat("editor-chat", opened)
    write_chat_store(
        chat_dir_for(it.cli, str(real), "agent-chat"),
        cwd=str(real),
        messages=[store_user_message("question of agent-chat"), store_assistant_message("answer of agent-chat")],
    )
    assert run_deja("index").returncode == 0
    both = {"editor-chat", "agent-chat"}
    for where in (str(opened), str(real), "~/code/app"):
        assert sessions("--project", where).keys() == both, where
    for here in (opened, real):
        ran = run_deja("sessions", "--json", "--project", ".", cwd=here)
        assert {row["id"] for row in orjson.loads(ran.stdout)["sessions"]} == both, here
    payload = {"conversation_id": "new", "hook_event_name": "sessionStart", "workspace_roots": [str(opened)]}
    context = orjson.loads(run_deja("hook-context", input=orjson.dumps(payload).decode()).stdout)["additional_context"]
    assert "chat editor-chat" in context and "question of agent-chat" in context, context


def test_a_file_of_a_folder_opened_through_a_link_is_found_by_either_path(fake_home: Path) -> None:
    """~/code is a link to a data disk: the editor's chat edits ``api/limits.py`` of ~/code/app as opened, the agent's
    ``api/db.py`` by its real path. `deja blame` finds each edit by the link's path, by the real path and by a
    relative path typed in the project (``getcwd`` gives the real one); the tool hook recalls it as well."""
    it = Install(fake_home)
    real = fake_home / "disk" / "code" / "app"
    (real / "api").mkdir(parents=True)
    it.code.symlink_to(real.parent)
    opened = it.code / "app"
    write_workspace(it.user, "ws-app", folder=str(opened))
    edit = tool_former_data("edit_file", {"target_file": "api/limits.py", "code_edit": "LIMIT = 250"})
    it.editor_chat("editor-chat", bubble={"toolFormerData": edit})
    write_state_vscdb(
        it.user / "globalStorage" / "state.vscdb",
        composers=it.composers,
        bubbles=it.bubbles,
        composer_headers=[ComposerHeader("editor-chat", workspace_id="ws-app")],
    )
    write = tool_call_part("t1", "Write", {"path": str(real / "api" / "db.py"), "contents": "POOL = 5"})
    write_chat_store(
        chat_dir_for(it.cli, str(real), "agent-chat"),
        cwd=str(real),
        messages=[store_user_message("size the pool"), store_assistant_message("Sized it.", write)],
    )
    assert run_deja("index").returncode == 0
    for name, chat in (("limits.py", "editor-chat"), ("db.py", "agent-chat")):
        for asked, cwd in ((opened / "api" / name, None), (real / "api" / name, None), (f"api/{name}", opened)):
            ran = run_deja("blame", str(asked), "--json", cwd=cwd)
            assert ran.returncode == 0, ran.stderr
            assert [e["session_id"] for e in orjson.loads(ran.stdout)["edits"]] == [chat], (asked, cwd)
    listed = orjson.loads(run_deja("files", "question", "--json").stdout)["files"]
    assert [f["path"] for f in listed] == [str(real / "api" / "limits.py")]  # where the agent's edits are filed too
    payload = {
        "conversation_id": "new",
        "hook_event_name": "preToolUse",
        "workspace_roots": [str(opened)],
        "tool_name": "Write",
        "tool_input": {"path": str(opened / "api" / "db.py"), "contents": "POOL = 9"},
    }
    ran = run_deja("hook-tool", input=orjson.dumps(payload).decode())
    assert "agent-chat" in orjson.loads(ran.stdout)["additional_context"], ran.stdout


@pytest.mark.parametrize("chats_root", [".cursor", ".config/cursor"], ids=["one root", "split roots"])
def test_a_store_only_chat_without_a_cwd_takes_a_folder_only_a_transcript_names(
    fake_home: Path, chats_root: str
) -> None:
    """No workspace.json names ~/code/docs: only another chat's transcript folder does (decoded on disk)."""
    it = Install(fake_home)
    docs = it.folder("docs")
    docs.mkdir(parents=True)
    write_transcript(transcript_path(it.cli, str(docs), "spellcheck"), [user_turn("spellcheck"), assistant_turn("ok")])
    write_chat_store(
        chat_dir_for(fake_home / chats_root, str(docs), "mkdocs-nav"),
        cwd=None,
        messages=[store_user_message("generate a mkdocs nav"), store_assistant_message("Added nav to mkdocs.yml.")],
    )
    assert run_deja("index").returncode == 0
    row = sessions()["mkdocs-nav"]
    assert (row["project"], row["project_dir"], row["project_from"]) == ("docs", str(docs), "chat folder")
    assert "mkdocs-nav" in sessions("--project", "docs")


def _store_only(chat_dir: Path, workspace: Path, meta_cwd: str | None = None) -> None:
    """A chat kept in its store alone, whose preamble says where it ran (``Workspace Path:``)."""
    write_chat_store(
        chat_dir,
        cwd=meta_cwd,
        messages=[
            *store_preamble(str(workspace)),
            store_user_message("wire the newsletter signup"),
            store_assistant_message("Added the signup form."),
        ],
    )


@pytest.mark.parametrize("where", ["chats", "acp-sessions"])
def test_a_store_only_chat_without_a_cwd_is_placed_by_its_preamble(fake_home: Path, where: str) -> None:
    """meta.json has no cwd and no other store names ~/code/newproj: the store's own `Workspace Path:` line places
    it (trial10 F8: it was under "(no project)", and `deja wip` there found no session)."""
    it = Install(fake_home)
    newproj = it.folder("newproj")
    newproj.mkdir(parents=True)
    chat = chat_dir_for(it.cli, str(newproj), "nocw0001") if where == "chats" else acp_dir_for(it.cli, "nocw0001")
    _store_only(chat, newproj)
    assert run_deja("index").returncode == 0
    row = sessions()["nocw0001"]
    assert (row["project"], row["project_dir"], row["project_from"]) == ("newproj", str(newproj), "Workspace Path")
    wip = run_deja("wip", cwd=newproj)
    assert wip.returncode == 0 and "wire the newsletter signup" in wip.stdout, wip.stdout + wip.stderr


def test_a_preamble_never_overrides_a_cwd_nor_the_folder_a_chat_is_filed_under(fake_home: Path) -> None:
    """meta.json's cwd wins over the line; a line naming a folder other than the one whose md5 files the chat
    (`chats/<md5 of shop>/`) does not place it there: the bucket's folder does (`chat folder`)."""
    it = Install(fake_home)
    shop, other = it.folder("shop"), it.folder("other")
    for folder in (shop, other):
        folder.mkdir(parents=True)
    _store_only(chat_dir_for(it.cli, str(shop), "with-cwd"), other, meta_cwd=str(shop))
    _store_only(chat_dir_for(it.cli, str(shop), "filed-shop"), other)
    write_transcript(transcript_path(it.cli, str(shop), "shop-chat"), [user_turn("lint"), assistant_turn("ok")])
    assert run_deja("index").returncode == 0
    rows = sessions()
    assert (rows["with-cwd"]["project_dir"], rows["with-cwd"]["project_from"]) == (str(shop), "meta.json cwd")
    assert (rows["filed-shop"]["project_dir"], rows["filed-shop"]["project_from"]) == (str(shop), "chat folder")


def test_a_folder_holding_a_nul_byte_stops_no_build(fake_home: Path) -> None:
    """A workspace.json may name any string: one `realpath` refuses (a NUL byte) is kept as it is, and the other
    chats are indexed; a hook asked about such a folder still answers."""
    it = Install(fake_home)
    it.workspace_chat("nul-chat", f"{it.code}/a\x00b")
    built = run_deja("index")
    assert built.returncode == 0, built.stderr
    assert "nul-chat" in sessions()
    payload = {"conversation_id": "new", "hook_event_name": "sessionStart", "workspace_roots": [f"{it.code}/x\x00y"]}
    hook = run_deja("hook-context", input=orjson.dumps(payload).decode())
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
