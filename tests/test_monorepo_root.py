"""A monorepo opened at its root gets its packages' sessions: ``deja wip``, ``deja how``, ``--project .`` and the MCP
``work`` tool take a folder with the folders below it, while a folder above (``~/code``) that only a sibling's
sessions ran below is still no project of a new folder.

Before, each looked at the exact folder (or up), never down: six sessions ran in ``shop/packages/api`` and
``shop/packages/web`` and ``deja wip`` at ``shop`` said no session ran there (trialI F4).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from harness import run_deja, store_shell

from deja.core.index import Index
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_preamble,
    store_user_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.interfaces.mcp_server import wip_answer, work_answer


def _chat(cli_root: Path, folder: Path, chat_id: str, question: str, command: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_transcript(
        transcript_path(cli_root, str(folder), chat_id),
        [user_turn(question), assistant_turn("Running the tests.", tool_use("Shell", {"command": command}))],
    )


def test_a_monorepo_root_holds_its_packages_sessions(tmp_path: Path, cli_root: Path) -> None:
    shop = tmp_path / "code" / "shop"
    _chat(
        cli_root,
        shop / "packages" / "api",
        "c-api",
        "orders pagination is off by one",
        "pytest -q tests/test_orders.py",
    )
    _chat(cli_root, shop / "packages" / "web", "c-web", "the cart button is misaligned", "npm test")
    _chat(cli_root, tmp_path / "code" / "billing", "c-billing", "invoice totals round wrong", "pytest -q billing")
    (tmp_path / "code" / "new").mkdir()
    assert run_deja("index").returncode == 0

    sessions = json.loads(run_deja("sessions", "--project", ".", "--json", cwd=shop).stdout)["sessions"]
    assert {s["id"] for s in sessions} == {"c-api", "c-web"}
    wip = run_deja("wip", cwd=shop)
    assert wip.returncode == 0 and "deja show c-" in wip.stdout and "billing" not in wip.stdout, wip.stdout + wip.stderr
    how = run_deja("how", "pytest", cwd=shop)
    assert "pytest -q tests/test_orders.py" in how.stdout and "billing" not in how.stdout, how.stdout
    found = run_deja("search", "pagination", "--project", str(shop), "--json", cwd=shop)
    assert [h["session_id"] for h in json.loads(found.stdout)["hits"]] == ["c-api"], found.stdout

    text, _ = work_answer(Index.open(tmp_path / "deja"), "how", "pytest", str(shop))
    assert "tests/test_orders.py" in text and "pytest -q billing" not in text, text
    # a new folder beside them is no project: ~/code above it holds only its siblings' sessions
    nothing = run_deja("wip", cwd=tmp_path / "code" / "new")
    assert nothing.returncode == 1 and "no session ran in" in nothing.stderr, nothing.stdout


def test_session_start_at_a_monorepo_root_lists_its_packages_sessions(tmp_path: Path, cli_root: Path) -> None:
    """The sessionStart hook, as the verbs: a workspace opened at the repository's root is told what ran in its
    packages (before, it was silent there: trialI F4), and not what ran in a sibling repository."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop / "packages" / "api", "c-api", "orders pagination is off by one", "pytest -q")
    _chat(cli_root, tmp_path / "code" / "billing", "c-billing", "invoice totals round wrong", "pytest -q billing")
    assert run_deja("index").returncode == 0
    payload = {"conversation_id": "c-now", "hook_event_name": "sessionStart", "workspace_roots": [str(shop)]}
    ran = run_deja("hook-context", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    said = json.loads(ran.stdout)["additional_context"]
    assert "`deja show c-api`" in said and "c-billing" not in said, said


def _runs(cli_root: Path, folder: Path, chat_id: str, command: str, times: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    turns = [user_turn(f"run {command} until it passes")]
    for _ in range(times):
        turns += [assistant_turn("Running it.", tool_use("Shell", {"command": command})), user_turn("again")]
    write_transcript(transcript_path(cli_root, str(folder), chat_id), turns)


def test_the_shell_hook_counts_the_runs_below_the_root_and_in_the_folder_the_command_runs_in(
    tmp_path: Path, cli_root: Path
) -> None:
    """The Shell pre-hook at a monorepo's root counts its packages' runs (it counted the root's own alone: trialI
    F4), and a call that names its folder (``cwd``, Cursor's ``working_directory``, relative to the workspace) counts
    that package's runs and the root's (whose sessions ran commands anywhere in it), not a sibling package's."""
    shop = tmp_path / "code" / "shop"
    _runs(cli_root, shop / "packages" / "api", "c-api", "npm test", 2)
    _runs(cli_root, shop / "packages" / "web", "c-web", "npm test", 1)
    _runs(cli_root, shop, "c-root", "npm test", 1)
    _runs(cli_root, tmp_path / "code" / "billing", "c-billing", "npm test", 3)
    assert run_deja("index").returncode == 0

    def before(conversation: str, folder: dict) -> str:
        payload = {
            "conversation_id": conversation,
            "hook_event_name": "preToolUse",
            "cursor_version": "3.20.17",
            "workspace_roots": [str(shop)],
            "tool_name": "Shell",
            "tool_input": {"command": "npm test", **folder},
        }
        ran = run_deja("hook-tool", input=json.dumps(payload))
        assert ran.returncode == 0 and not ran.stderr, ran.stderr
        return json.loads(ran.stdout)["additional_context"]

    said = before("c-now-1", {})
    assert "`npm test` ran 4 times in this project before, in 3 sessions" in said, said
    said = before("c-now-2", {"cwd": str(shop / "packages" / "web")})
    assert "`npm test` ran 2 times in this project before, in 2 sessions" in said, said
    said = before("c-now-3", {"working_directory": "packages/api", "cwd": ""})
    assert "`npm test` ran 3 times in this project before, in 2 sessions" in said, said
    said = before("c-now-4", {"cwd": str(tmp_path / "code" / "billing")})
    assert f"`npm test` ran 3 times in {tmp_path / 'code' / 'billing'} before, in 1 session" in said, said


def test_the_hooks_still_see_a_folder_the_index_keys_no_tree_for(fake_home: Path) -> None:
    """A Windows folder (``C:\\code\\api``) has no tree key (its spelling has no ``/``): its own sessions' runs are
    counted by the folder's hash, and sessionStart lists its sessions by the folder's own key, as before the hooks
    took the folders below."""
    folder = "C:\\code\\api"
    runs = [step for n in range(2) for step in store_shell(f"t{n}", "npm test", "ok", 0)]
    messages = [*store_preamble(folder), store_user_message("run the tests"), *runs]
    write_chat_store(chat_dir_for(fake_home / ".cursor", folder, "c-win"), cwd=folder, name="tests", messages=messages)
    assert run_deja("index").returncode == 0
    payload = {
        "conversation_id": "c-now",
        "hook_event_name": "preToolUse",
        "cursor_version": "3.20.17",
        "workspace_roots": [folder],
        "tool_name": "Shell",
        "tool_input": {"command": "npm test"},
    }
    ran = run_deja("hook-tool", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    said = json.loads(ran.stdout)["additional_context"]
    assert "`npm test` ran 2 times in this project before, in 1 session" in said, said
    start = {"conversation_id": "c-next", "hook_event_name": "sessionStart", "workspace_roots": [folder]}
    ran = run_deja("hook-context", input=json.dumps(start))
    assert ran.returncode == 0 and "`deja show c-win`" in ran.stdout, ran.stdout + ran.stderr


def test_wip_from_a_package_without_sessions_is_not_a_siblings_session(tmp_path: Path, cli_root: Path) -> None:
    """From ``shop/web/src`` (no session ran in ``shop/web``), the project is ``shop`` by its own session: the newer
    session in ``shop/api`` ran in a sibling, and ``deja wip`` called it "here" (review7b #6)."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-shop", "set up the shop workspace", "npm install")
    _chat(cli_root, shop / "api", "c-api", "orders pagination is off by one", "pytest -q tests/test_orders.py")
    older = transcript_path(cli_root, str(shop), "c-shop")
    os.utime(older, (older.stat().st_mtime - 3600,) * 2)
    (shop / "web" / "src").mkdir(parents=True)
    assert run_deja("index").returncode == 0
    assert "deja show c-api" in run_deja("wip", cwd=shop).stdout  # at the root: its packages' sessions too

    wip = run_deja("wip", cwd=shop / "web" / "src")
    assert wip.returncode == 0 and "deja show c-shop" in wip.stdout and "c-api" not in wip.stdout, wip.stdout


def test_how_from_a_package_without_sessions_leaves_a_siblings_runs_out_and_says_where_they_ran(
    tmp_path: Path, cli_root: Path
) -> None:
    """From ``shop/web/src``, ``deja how`` counts the runs there and below, and the root's own sessions' (they ran
    commands anywhere in it), as the Shell pre-hook does; ``shop/api``'s ran in a sibling and are only named
    (review7b #6, review8c)."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-shop", "set up the shop workspace", "npm test -- --watch=false")
    _chat(cli_root, shop / "api", "c-api", "the api tests fail", "npm test -- api")
    (shop / "web" / "src").mkdir(parents=True)
    assert run_deja("index").returncode == 0
    assert "npm test -- api" in run_deja("how", "npm", "test", cwd=shop).stdout  # at the root: every package's

    how = run_deja("how", "npm", "test", cwd=shop / "web" / "src")
    assert how.returncode == 0, how.stderr
    assert "npm test -- --watch=false" in how.stdout and "npm test -- api" not in how.stdout, how.stdout
    assert how.stdout.splitlines()[-1] == (
        f"it also ran in {shop / 'api'}, beside this folder: add --all-projects to see those runs"
    )


def test_how_from_a_package_finds_the_roots_run_behind_many_siblings(tmp_path: Path, cli_root: Path) -> None:
    """Sixty sessions of ``shop/api`` ran ``npm test`` and outranked the root's one: the runs "here" were picked from
    the project's fifty best sessions, so ``deja how`` from ``shop/web/src`` said nothing ran (review9 H1)."""
    shop = tmp_path / "code" / "shop"
    for n in range(60):
        _chat(cli_root, shop / "api", f"c-api-{n:02}", f"npm test for api part {n}", f"npm test -- api{n}")
    _chat(cli_root, shop, "c-shop", "set up the shop workspace, its packages, its scripts and its npm test", "npm test -- --watch=false")  # fmt: skip
    (shop / "web" / "src").mkdir(parents=True)
    assert run_deja("index").returncode == 0
    how = run_deja("how", "npm", "test", cwd=shop / "web" / "src")
    assert how.returncode == 0, how.stderr
    assert "npm test -- --watch=false" in how.stdout and "npm test -- api" not in how.stdout, how.stdout


def test_session_start_in_a_folder_below_a_project_lists_the_projects_sessions(tmp_path: Path, cli_root: Path) -> None:
    """Cursor opened at ``shop/src``, a folder no session ran in, of a project whose sessions ran at ``shop``: the
    sessionStart hook said nothing ("no other session in this project") where ``deja wip`` there names the project
    above (trial9 F15); a sibling project's sessions, or the home folder's, are never taken for it."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-shop", "orders pagination is off by one", "pytest -q")
    _chat(cli_root, tmp_path / "code" / "billing", "c-billing", "invoice totals round wrong", "pytest -q billing")
    _chat(cli_root, shop / "api", "c-api", "the api returns one row too many", "pytest -q api")  # a sibling of src
    (shop / "src").mkdir(parents=True)
    assert run_deja("index").returncode == 0
    payload = {"conversation_id": "c-now", "hook_event_name": "sessionStart", "workspace_roots": [str(shop / "src")]}
    ran = run_deja("hook-context", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    said = json.loads(ran.stdout)["additional_context"]
    assert f"Recent sessions in this project ({shop}), newest first:" in said and "c-shop" in said, said
    assert "c-billing" not in said and "c-api" not in said  # shop's own sessions, as `deja wip` there takes them
    text, _ = work_answer(Index.open(tmp_path / "deja"), "wip", str(shop / "src"), None)  # the MCP tool, as `deja wip`
    assert text.startswith(f"last session in {shop}: orders pagination") and "c-shop" in text, text
    index = Index.open(tmp_path / "deja")
    text, _ = work_answer(index, "how", "pytest", str(shop / "src"))  # (trial10 F4: "No session of project …")
    assert text.startswith(f"how 'pytest' ran in {shop}") and "c-shop" in text and "pytest -q api" not in text, text
    text, _ = work_answer(index, "wip", ".", str(shop / "api"))  # "." is the project's folder, not the server's
    assert text.startswith("last session here: the api returns one row too many"), text
    text, _ = work_answer(index, "wip", "billing", str(shop))  # a name is a project's name (review11 R6)
    assert "invoice totals round wrong" in text, text
    for verb in (["sessions"], ["search", "pagination"]):  # a filter is kept as given, and named (trial11 F4)
        ran = run_deja(*verb, "--project", ".", cwd=shop / "src")
        said = f"deja: No session ran in {shop / 'src'} or below it; its project is {shop}: give --project {shop}\n"
        assert (ran.returncode, ran.stderr) == (1, said), ran
    elsewhere = {**payload, "conversation_id": "c-other", "workspace_roots": [str(tmp_path / "code" / "new")]}
    (tmp_path / "code" / "new").mkdir()
    quiet = run_deja("hook-context", input=json.dumps(elsewhere))
    assert quiet.returncode == 0 and quiet.stdout.strip() in ("", "{}"), quiet.stdout


def test_the_home_folder_is_no_project_of_a_folder_below_it(fake_home: Path, cli_root: Path) -> None:
    """Sessions opened at the home folder ran anywhere: ``deja wip`` and ``deja how`` from a new folder below it
    answer for that folder, as the hooks do (one rule: ``Index.nearest_project``), not with the home folder's last
    session; ``deja wip`` at the home folder itself still answers."""
    _chat(cli_root, fake_home, "c-home", "clean up the dotfiles", "stow -R zsh")
    new = fake_home / "code" / "new"
    new.mkdir(parents=True)
    assert run_deja("index").returncode == 0
    nothing = run_deja("wip", cwd=new)
    assert nothing.returncode == 1 and f"no session ran in {new}" in nothing.stderr, nothing.stdout + nothing.stderr
    how = run_deja("how", "stow", cwd=new)
    assert f"no command with 'stow' ran in {new}" in how.stdout, how.stdout
    assert "it ran in other projects: add --all-projects" in how.stdout, how.stdout
    home = run_deja("wip", cwd=fake_home)
    assert home.returncode == 0 and "deja show c-home" in home.stdout, home.stdout + home.stderr
    _chat(cli_root, fake_home / "code" / "shop", "c-shop", "set up the shop workspace", "npm install")
    assert run_deja("index").returncode == 0  # the home folder's name is its own sessions, not all (review12 R2)
    named = json.loads(run_deja("sessions", "--project", fake_home.name, "--json").stdout)["sessions"]
    assert [s["id"] for s in named] == ["c-home"], named
    link = fake_home.parent / "home-link"  # HOME a link to the folder (review11 R8): the walk sees the folder itself
    link.symlink_to(fake_home)
    nothing = run_deja("wip", cwd=new, env={**os.environ, "HOME": str(link)})
    assert nothing.returncode == 1 and "no session ran in" in nothing.stderr, nothing.stdout + nothing.stderr


def test_a_name_of_one_folder_holds_its_packages_sessions_as_its_path_does(
    tmp_path: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--project shop``, the name of the monorepo's one folder, is that folder with the folders below it, as
    ``--project ~/code/shop`` is: it found none of its packages' sessions, and the MCP tools, which a model gives the
    project by name, missed them all (trial9 F7). An empty MCP answer names the filter that emptied it, as the CLI's
    does."""
    from deja.interfaces.mcp_server import Tools

    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-shop", "set up the shop workspace", "npm install")
    _chat(cli_root, shop / "packages" / "api", "c-api", "orders pagination is off by one", "pytest -q")
    _chat(cli_root, tmp_path / "code" / "billing", "c-billing", "invoice pagination rounds wrong", "pytest -q billing")
    assert run_deja("index").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    found = run_deja("search", "pagination", "--project", "shop", cwd=elsewhere)
    assert found.returncode == 0 and "c-api" in found.stdout and "c-billing" not in found.stdout, found.stdout
    listed = run_deja("sessions", "--project", "shop", "--json", cwd=elsewhere)
    assert {row["id"] for row in json.loads(listed.stdout)["sessions"]} == {"c-shop", "c-api"}, listed.stdout
    exported = run_deja("export", "--project", "shop", "-o", str(tmp_path / "out"), cwd=elsewhere)
    assert exported.returncode == 0 and sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "c-api.md",
        "c-shop.md",
        "index.md",
    ], exported.stdout + exported.stderr

    grown = transcript_path(cli_root, str(shop / "packages" / "api"), "c-api")
    with grown.open("a") as transcript:  # a refresh files it anew: its first record stays in the older segment
        transcript.write(json.dumps(user_turn("and the pagination of refunds?")) + "\n")
    assert "1 updated" in run_deja("index").stdout
    found = run_deja("search", "refunds", "--project", "shop", cwd=elsewhere)
    assert "c-api" in found.stdout, found.stdout

    monkeypatch.chdir(elsewhere)
    tools = Tools()

    async def ask() -> None:
        assert "c-api" in str(tools.search("pagination", project="shop").content[0])
        recent = tools.recent(project="shop").structured_content or {}
        assert {row["id"] for row in recent["sessions"]} == {"c-shop", "c-api"}
        empty = tools.search("pagination", project="shop", source="cursor-ide").content[0]
        assert getattr(empty, "text", "") == (
            "No session matches \"pagination\" with project='shop' source='cursor-ide'; drop the filters to see "
            "the 2 that do."
        )

    anyio.run(ask)


def test_wip_refuses_the_root_however_spelled_and_names_a_missing_folder(tmp_path: Path, cli_root: Path) -> None:
    """``deja wip /`` said no session ran "in /, below it" (every one did), where the root folder is no project's, as
    for ``--project /``; a relative path reaching it must say the same, and so must a Windows drive's root (``c:\\``,
    of a database written there: it was "no folder c:"), and ``/nonexistent`` was "no session ran in" rather than
    missing (trial9 F12). The MCP tool's ``wip`` says the same."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-shop", "set up the shop workspace", "npm install")
    assert run_deja("index").returncode == 0
    up = "/".join([".."] * len(shop.parts))
    drives = (("c:\\", "c:\\"), ("C:/", "C:/"), ("c:\\\\", "c:\\"), ("c:\\.", "c:\\."), ("c:/Users/..", "c:/Users/.."))
    for spelled, shown in (("/", "/"), (up, "/"), *drives):
        ran = run_deja("wip", spelled, cwd=shop)  # (a Windows drive's root: a database written there, review45g)
        assert (ran.returncode, ran.stdout) == (2, ""), (spelled, ran.stderr)
        assert ran.stderr == f"deja: {shown} is the root folder, no project's: give a project's folder\n"
    for spelled in ("c:\\", "c:/."):  # (``c:/.`` was "No session of project": review46a L3)
        refused = run_deja("search", "npm", "--project", spelled, cwd=shop)
        assert (refused.returncode, refused.stderr) == (
            2,
            f"deja: --project {spelled} is the root folder, no project's: give a project's name or folder\n",
        )
    missing = shop / "nonexistent"
    ran = run_deja("wip", str(missing), cwd=shop)
    assert (ran.returncode, ran.stderr) == (
        1,
        f"deja: no folder {missing}: give a project's folder; `deja sessions` lists where sessions ran\n",
    )

    index = Index.open(tmp_path / "deja")
    for spelled in ("/", str(shop) + "/" + up, "c:\\", "C:/", "c:/Users/.."):
        with pytest.raises(LookupError, match="is the root folder, no project's"):
            work_answer(index, "wip", spelled, None)
    text, _ = work_answer(index, "wip", str(missing), None)
    assert text == f"no folder {missing}: give a project's folder; `recent` lists where sessions ran", text


def test_c_colon_with_no_separator_is_a_folders_or_projects_name_not_a_drives_root(
    tmp_path: Path, cli_root: Path
) -> None:
    """A drive's root is spelt with its separator (``c:\\``, ``c:/``): on Linux ``c:`` is a folder's name, and so a
    project's. ``--project c:`` was refused as the root folder, while ``deja wip c:`` took the folder ``./c:``
    (review46a L1)."""
    code = tmp_path / "code"
    _chat(cli_root, code / "c:", "c-colon", "set up the colon workspace", "npm install")
    assert run_deja("index").returncode == 0

    for asked in ("c:", "./c:"):
        listed = run_deja("sessions", "--project", asked, "--json", cwd=code)
        assert listed.returncode == 0, (asked, listed.stderr)
        assert [s["id"] for s in json.loads(listed.stdout)["sessions"]] == ["c-colon"], asked
    wip = run_deja("wip", "c:", cwd=code)
    assert wip.returncode == 0 and "deja show c-colon" in wip.stdout, wip.stdout + wip.stderr
    for drive in ("c:\\", "c:/"):
        refused = run_deja("sessions", "--project", drive, cwd=code)
        assert (refused.returncode, refused.stderr) == (
            2,
            f"deja: --project {drive} is the root folder, no project's: give a project's name or folder\n",
        )
    text, _ = work_answer(Index.open(tmp_path / "deja"), "wip", "", "c:")
    assert "c-colon" in text, text


def test_wip_says_why_it_has_no_session_in_the_same_words_from_the_cli_and_the_mcp_tool(
    tmp_path: Path, cli_root: Path
) -> None:
    """``deja wip`` and the MCP tool's ``wip`` each worded why there was no session, and the two had drifted apart:
    the tool said neither that it looked below the folder and above it, nor what to give for a missing folder. One
    line for both, each naming its own commands."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-shop", "set up the shop workspace", "npm install")
    assert run_deja("index").returncode == 0
    index = Index.open(tmp_path / "deja")
    (tmp_path / "elsewhere").mkdir()
    for folder in (tmp_path / "elsewhere", tmp_path / "missing"):
        said, _ = work_answer(index, "wip", str(folder), None)
        ran = run_deja("wip", str(folder))
        assert ran.returncode == 1, ran.stdout
        assert ran.stderr == "deja: " + said.replace("`recent`", "`deja sessions`") + "\n"
    assert said == f"no folder {folder}: give a project's folder; `recent` lists where sessions ran"
    named, _ = work_answer(index, "wip", "", "nothere")  # (a project's name: as every tool says of one unknown)
    assert named.startswith("No session of project 'nothere' is indexed"), named


def test_wip_and_how_in_a_folder_removed_under_the_shell_say_so(tmp_path: Path, cli_root: Path) -> None:
    """A terminal left in a deleted worktree: ``deja wip``, ``deja how``, ``--project .``, ``blame`` and ``export``
    ended on a raw FileNotFoundError (review12 R3, trial11 F11)."""
    import subprocess
    import sys

    gone = tmp_path / "worktree"
    gone.mkdir()
    for verb in (["wip"], ["how", "pytest"], ["sessions", "--project", "."], ["blame", "app.py"]):
        script = "import os, sys, runpy; os.rmdir(os.getcwd()); sys.argv = ['deja', *sys.argv[1:]]; runpy.run_module('deja.interfaces.entry', run_name='__main__')"  # fmt: skip
        # (-P: no '' first on sys.path, as for the `deja` script: on Python 3.13 before 3.13.3, a module's
        # AttributeError then asked for the current folder, removed here, and failed another way: CPython gh-130932)
        ran = subprocess.run([sys.executable, "-P", "-c", script, *verb], cwd=gone, capture_output=True, text=True)
        gone.mkdir()
        assert ran.returncode == 1 and ran.stdout == "", ran.stdout + ran.stderr
        assert ran.stderr.endswith("deja: the current folder no longer exists: cd to one that does and run it again\n"), ran.stderr  # fmt: skip


def test_stats_gives_two_folders_of_one_name_a_row_each(tmp_path: Path, cli_root: Path) -> None:
    """``deja stats`` added ``shop/packages/api`` and ``other/api`` up as one "api" row, where ``--project api`` asks
    which of the two (trial11 F7); each gets a row named as ``--project`` names it."""
    _chat(cli_root, tmp_path / "code" / "shop" / "packages" / "api", "c-api", "orders pagination", "pytest -q")
    _chat(cli_root, tmp_path / "code" / "shop" / "packages" / "api", "c-api2", "orders totals", "pytest -q")
    _chat(cli_root, tmp_path / "code" / "other" / "api", "c-other", "other api", "make")
    _chat(cli_root, tmp_path / "code" / "web", "c-web", "the cart", "npm test")
    assert run_deja("index").returncode == 0
    projects = json.loads(run_deja("stats", "--json").stdout)["projects"]
    assert {name: row["sessions"] for name, row in projects.items()} == {"packages/api": 2, "other/api": 1, "web": 1}
    assert "  packages/api " in run_deja("stats").stdout


def test_the_project_above_is_named_as_a_shell_takes_it(tmp_path: Path, cli_root: Path) -> None:
    """The advice ``give --project …`` names a folder with a blank in it quoted, so it can be pasted (review13
    R13-7)."""
    shop = tmp_path / "My Projects" / "shop"
    _chat(cli_root, shop, "c-shop", "orders pagination is off by one", "pytest -q")
    (shop / "src").mkdir()
    assert run_deja("index").returncode == 0
    said = run_deja("sessions", "--project", ".", cwd=shop / "src").stderr
    assert said.endswith(f"give --project '{shop}'\n"), said


def test_a_name_of_a_folder_no_chat_was_opened_in_holds_the_sessions_below_it(
    tmp_path: Path, fake_home: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--project mono``, a monorepo's root where each package opened its own chats and none was opened at the root,
    is that folder with its packages, as its path is: it said no session of project 'mono' is indexed (trial11
    F10), as did ``--project packages`` and ``--project shop/packages``. A name two such folders share asks which;
    the home folder is no project of the folders below it."""
    from deja.interfaces.mcp_server import Tools

    mono = tmp_path / "code" / "mono"
    _chat(cli_root, mono / "frontend", "c-front", "the lint step flags the button", "npm run lint")
    _chat(cli_root, mono / "backend", "c-back", "the lint step flags an import", "ruff check")
    _chat(cli_root, tmp_path / "code" / "shop" / "packages" / "api", "c-api", "lint the api", "ruff check api")
    _chat(cli_root, tmp_path / "other" / "packages" / "web", "c-web", "lint the web", "npm run lint")
    _chat(cli_root, fake_home / "dotfiles", "c-dots", "lint the shell scripts", "shellcheck *.sh")
    _chat(cli_root, tmp_path / "old" / "mono", "c-old", "lint the old monolith", "make lint")
    assert run_deja("index").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # a chat opened in another folder of that name makes the name two folders' (review15 F5): asked which
    both = run_deja("sessions", "--project", "mono", cwd=elsewhere)
    assert both.returncode == 2 and "code/mono" in both.stderr and "old/mono" in both.stderr, both.stderr
    listed = run_deja("sessions", "--project", "code/mono", "--json", cwd=elsewhere)
    assert {row["id"] for row in json.loads(listed.stdout)["sessions"]} == {"c-front", "c-back"}, listed.stdout
    found = run_deja("search", "lint", "--project", "code/mono", "--json", cwd=elsewhere)
    assert {hit["session_id"] for hit in json.loads(found.stdout)["hits"]} == {"c-front", "c-back"}, found.stdout
    old = run_deja("sessions", "--project", "old/mono", "--json", cwd=elsewhere)
    assert [row["id"] for row in json.loads(old.stdout)["sessions"]] == ["c-old"], old.stdout
    tail = run_deja("sessions", "--project", "shop/packages", "--json", cwd=elsewhere)
    assert [row["id"] for row in json.loads(tail.stdout)["sessions"]] == ["c-api"], tail.stdout + tail.stderr
    which = run_deja("sessions", "--project", "packages", cwd=elsewhere)
    assert which.returncode == 2, which.stdout + which.stderr
    assert "shop/packages" in which.stderr and "other/packages" in which.stderr, which.stderr
    home = run_deja("sessions", "--project", fake_home.name, cwd=elsewhere)
    assert home.returncode == 1 and "No session of project 'home' is indexed" in home.stderr, home.stderr

    monkeypatch.chdir(elsewhere)
    tools = Tools()

    async def ask() -> None:
        text = str(tools.search("lint", project="code/mono").content[0])
        assert "c-front" in text and "c-back" in text and "c-api" not in text, text
        recent = tools.recent(project="code/mono").structured_content or {}
        assert {row["id"] for row in recent["sessions"]} == {"c-front", "c-back"}, recent

    anyio.run(ask)


def test_a_packages_runs_and_session_name_the_package_at_the_monorepo_root(tmp_path: Path, cli_root: Path) -> None:
    """At a monorepo's root, ``deja how`` and ``deja wip`` show a package's runs and session as the root's: "how
    'pytest' ran in …/shop" listed a run made in ``services/checkout``, and pasted at ``shop`` it failed; wip's files
    are named from a folder it did not name (trial12 F2). Each says where it ran; the root's own say nothing more."""
    shop = tmp_path / "code" / "shop"
    _chat(cli_root, shop, "c-root", "set up the workspace", "pytest -q tests/test_smoke.py")
    _chat(
        cli_root,
        shop / "services" / "checkout",
        "c-checkout",
        "redis timeout in the cart",
        "pytest -q tests/test_cart.py",
    )
    assert run_deja("index").returncode == 0

    how = run_deja("how", "pytest", cwd=shop).stdout
    cart = next(line for line in how.splitlines() if "test_cart" in line)
    smoke = next(line for line in how.splitlines() if "test_smoke" in line)
    assert cart.endswith("(in services/checkout, deja show c-checkout)"), how
    assert smoke.endswith("(deja show c-root)"), how
    wip = run_deja("wip", cwd=shop).stdout
    assert wip.startswith("last session here: redis timeout in the cart  (in services/checkout, "), wip

    text, _ = work_answer(Index.open(tmp_path / "deja"), "how", "pytest", str(shop))
    assert "(in services/checkout, deja show c-checkout)" in text, text
    inside = run_deja("how", "pytest", cwd=shop / "services" / "checkout").stdout
    assert "(deja show c-checkout)" in inside and "in services" not in inside, inside

    def before(conversation: str, folder: dict) -> str:  # the Shell pre-hook, Cursor opened at the root
        payload = {
            "conversation_id": conversation,
            "hook_event_name": "preToolUse",
            "workspace_roots": [str(shop)],
            "tool_name": "Shell",
            "tool_input": {"command": "pytest -q tests/test_cart.py", **folder},
        }
        return json.loads(run_deja("hook-tool", input=json.dumps(payload)).stdout)["additional_context"]

    said = before("c-now-1", {})
    assert "ran 1 time in this project before, in 1 session; last " in said, said
    assert " in services/checkout (`deja show c-checkout`)." in said, said
    said = before("c-now-2", {"working_directory": "services/checkout"})
    assert "services/checkout (`deja show" not in said and "(`deja show c-checkout`)." in said, said


def test_no_name_of_the_home_folder_or_above_it_is_every_session(fake_home: Path, cli_root: Path) -> None:
    """With a chat opened at the home folder, the folder above it (``--project Users`` on a Mac) named every session
    on the machine (review15 F4): the home folder and the folders above it are no project of the folders below."""
    _chat(cli_root, fake_home, "c-home", "clean up the dotfiles", "stow -R zsh")
    _chat(cli_root, fake_home / "code" / "mono" / "web", "c-web", "lint the web", "npm run lint")
    assert run_deja("index").returncode == 0
    above = run_deja("sessions", "--project", fake_home.parent.name)
    assert f"No session of project {fake_home.parent.name!r} is indexed" in above.stderr, above.stderr
    listed = json.loads(run_deja("sessions", "--project", "mono", "--json").stdout)["sessions"]
    assert [row["id"] for row in listed] == ["c-web"], listed


def test_where_a_run_was_is_a_path_from_the_folder_asked_about(tmp_path: Path, cli_root: Path) -> None:
    """``in X`` is a folder that is there, seen from where it was asked: a working directory spelt with ``//`` said
    ``in /checkout``, and one through a link below the folder kept the link's name where the path went elsewhere
    (review15 F7); the MCP ``wip`` asked by a project's name named that project's own folder as elsewhere (F8)."""
    shop = tmp_path / "code" / "shop"
    (shop / "releases" / "v2" / "api").mkdir(parents=True)
    (shop / "current").symlink_to(shop / "releases" / "v2")
    (shop / "services" / "checkout").mkdir(parents=True)
    write_transcript(
        transcript_path(cli_root, str(shop), "c-root"),
        [
            user_turn("run the checkout tests"),
            assistant_turn(
                "Running them.",
                tool_use("Shell", {"command": "pytest -q t_sl", "working_directory": f"{shop}//services//checkout"}),
                tool_use("Shell", {"command": "pytest -q t_l", "working_directory": f"{shop}/current/api"}),
                tool_use("Shell", {"command": "pytest -q t_c", "working_directory": f"{shop.parent}/SHOP/services"}),
            ),
        ],
    )
    assert run_deja("index").returncode == 0
    how = run_deja("how", "pytest", cwd=shop).stdout
    said = {line.split("$ ")[1].split()[2]: line.split("(in ")[1].split(",")[0] for line in how.splitlines()[1:]}
    assert said["t_sl"] == "services/checkout", how
    assert said["t_c"] == "services", how  # (a folder spelt in another case is the same one: review16 R16-1)
    assert (shop / said["t_l"]).resolve() == (shop / "releases" / "v2" / "api").resolve(), how

    text, _ = wip_answer(Index.open(tmp_path / "deja"), "shop")
    assert text.startswith("last session here: run the checkout tests  (20"), text


def test_a_command_run_at_the_home_folder_counts_the_sessions_opened_there_alone(
    fake_home: Path, cli_root: Path
) -> None:
    """The Shell pre-hook for a call run at ``~`` counted every project's runs below it ("ran 3 times in ~"): the
    home folder is no project of the folders below it (review16), so only the sessions opened at ``~`` count."""
    _chat(cli_root, fake_home, "c-home", "update the dotfiles", "pytest -q")
    _chat(cli_root, fake_home / "code" / "api", "c-api", "fix the api tests", "pytest -q")
    _chat(cli_root, fake_home / "code" / "web", "c-web", "fix the web tests", "pytest -q")
    assert run_deja("index").returncode == 0
    payload = {
        "conversation_id": "c-now",
        "hook_event_name": "preToolUse",
        "workspace_roots": [str(fake_home / "code" / "api")],
        "tool_name": "Shell",
        "tool_input": {"command": "pytest -q", "working_directory": "~"},
    }
    said = json.loads(run_deja("hook-tool", input=json.dumps(payload)).stdout)["additional_context"]
    assert f"`pytest -q` ran 1 time in {fake_home} before, in 1 session;" in said, said
    assert "(`deja show c-home`)" in said, said


def test_cursor_opened_at_the_home_folder_through_a_link_is_no_project(
    tmp_path: Path, fake_home: Path, cli_root: Path
) -> None:
    """Cursor opened at ``~`` gives no session-start block (the home folder is no project); opened at a link to
    ``~``, it listed every project's sessions as "Recent sessions in this project" (review17 R17-3)."""
    _chat(cli_root, fake_home / "code" / "api", "c-api", "fix the api tests", "pytest -q")
    _chat(cli_root, fake_home / "code" / "web", "c-web", "fix the web tests", "pytest -q")
    assert run_deja("index").returncode == 0
    link = tmp_path / "homelink"
    link.symlink_to(fake_home)

    def opened_at(conversation: str, folder: Path) -> str:
        payload = {"conversation_id": conversation, "hook_event_name": "sessionStart", "workspace_roots": [str(folder)]}
        done = run_deja("hook-context", input=json.dumps(payload))
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return done.stdout

    assert opened_at("c-at-home", fake_home) == ""
    assert opened_at("c-at-link", link) == ""
    logged = run_deja("hooks", "log").stdout  # (not "no project folder in the payload": it named one, trial13 F2)
    assert f"silent: {link} is no project: the home folder, one above it, or Cursor's own folder" in logged, logged
    assert "c-api" in opened_at("c-at-api", link / "code" / "api")  # a project reached through the link still is one

    # a chat opened at ~ is no project of a new folder below it, reached through the link or not (small33)
    _chat(cli_root, fake_home, "c-home", "update the dotfiles", "git status")
    assert run_deja("index").returncode == 0
    (fake_home / "new" / "src").mkdir(parents=True)
    assert opened_at("c-at-new", fake_home / "new" / "src") == ""
    assert opened_at("c-at-new-link", link / "new" / "src") == ""


def test_a_folder_with_sessions_in_two_segments_is_read_once_for_the_names_above_it(
    tmp_path: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--project mono`` at a root no chat was opened in: the folders sessions ran in are read one session each,
    and a folder whose sessions lie in two segments (a chat indexed, then another there) was read once per segment."""
    from deja.core import project_names
    from deja.core.index.reader import Segment

    mono = tmp_path / "code" / "mono"
    _chat(cli_root, mono / "frontend", "c-front", "the lint step flags the button", "npm run lint")
    assert run_deja("index").returncode == 0
    _chat(cli_root, mono / "frontend", "c-front2", "the lint step flags the form", "npm run lint")
    _chat(cli_root, mono / "backend", "c-back", "the lint step flags an import", "ruff check")
    assert run_deja("index").returncode == 0
    listed = run_deja("sessions", "--project", "mono", "--json")
    assert {row["id"] for row in json.loads(listed.stdout)["sessions"]} == {"c-front", "c-front2", "c-back"}

    index = Index.open(os.environ["DEJA_HOME"])
    assert len(index.segments) == 2
    read: list[int] = []
    session = Segment.session
    monkeypatch.setattr(Segment, "session", lambda segment, ordinal: read.append(ordinal) or session(segment, ordinal))
    assert project_names._session_folders(index) == {str(mono / "frontend"), str(mono / "backend")}
    assert len(read) == 2  # (one session a folder)


def test_cursors_own_folder_reached_where_its_link_leads_is_no_project(fake_home: Path, cli_root: Path) -> None:
    """User hooks run in ``~/.cursor``, a link into a dotfiles folder here: a hook given the folder where the link
    leads (a process's ``getcwd`` names it so) took it for a project, and listed the dotfiles' sessions as "Recent
    sessions in this project" (review18 R18-7); given ``~/.cursor`` as spelt, it gave nothing, as it should."""
    dotfiles = fake_home / "dotfiles"
    (dotfiles / "cursor").mkdir(parents=True)
    (fake_home / ".cursor").symlink_to(dotfiles / "cursor")
    _chat(cli_root, dotfiles, "c-dot", "update the dotfiles", "git status")
    assert run_deja("index").returncode == 0

    def hook_in(conversation: str, folder: Path) -> str:
        payload = {"conversation_id": conversation, "hook_event_name": "sessionStart", "cwd": str(folder)}
        done = run_deja("hook-context", input=json.dumps(payload))
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return done.stdout

    assert hook_in("c-in-link", fake_home / ".cursor") == ""
    assert hook_in("c-in-target", dotfiles / "cursor") == ""
    assert "c-dot" in hook_in("c-in-dotfiles", dotfiles)  # (the dotfiles folder is a project all the same)


def test_cursors_own_folder_below_a_linked_home_is_no_project_however_it_is_named(
    tmp_path: Path, fake_home: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HOME a link (``homelink`` to the real home), ``~/.cursor`` a plain folder: a hook given ``~/.cursor`` where
    the home's link leads (a process's ``getcwd`` names it so) took it for a project and listed its sessions as
    "Recent sessions in this project"; given it through ``homelink``, it gave nothing (review19 R19-2)."""
    link = tmp_path / "homelink"
    link.symlink_to(fake_home)
    monkeypatch.setenv("HOME", str(link))
    _chat(cli_root, fake_home / ".cursor", "c-rules", "tidy my cursor rules", "ls rules")
    _chat(cli_root, fake_home / "code" / "api", "c-api", "fix the api tests", "pytest -q")
    assert run_deja("index").returncode == 0

    def hook_in(conversation: str, folder: Path) -> str:
        payload = {"conversation_id": conversation, "hook_event_name": "sessionStart", "cwd": str(folder)}
        done = run_deja("hook-context", input=json.dumps(payload))
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return done.stdout

    for conversation, folder in (("c-in-real", fake_home / ".cursor"), ("c-in-link", link / ".cursor")):
        assert hook_in(conversation, folder) == ""
        logged = run_deja("hooks", "log").stdout
        assert f"silent: {folder} is no project: the home folder, one above it, or Cursor's own folder" in logged, (
            logged
        )
    assert "c-api" in hook_in("c-in-api", fake_home / "code" / "api")  # (a project below the home still is one)
    assert "c-api" in hook_in("c-in-api-link", link / "code" / "api")


def test_wip_in_the_home_folder_or_above_is_no_projects(tmp_path: Path, cli_root: Path) -> None:
    """``deja wip`` in ``~`` (or ``/tmp`` above a home in it) answered "last session here" with shop-api's newest
    session, the home folder taken as a monorepo of every project (trial20 F9): there it is the sessions opened in
    that folder itself, and with none it says so and names the newest project folder here to ask instead."""
    home = tmp_path / "home"
    _chat(cli_root, home / "code" / "billing", "c-billing", "invoice totals round wrong", "pytest -q billing")
    _chat(cli_root, home / "code" / "shop api", "c-shop", "orders pagination is off by one", "pytest -q")
    assert run_deja("index").returncode == 0
    for folder in (home, tmp_path):
        ran = run_deja("wip", cwd=folder)
        assert (ran.returncode, ran.stdout) == (1, ""), ran.stdout
        assert ran.stderr == (
            f"deja: no session ran in {folder} itself, and every project is below it: give a project's folder "
            f"(the newest project here: `deja wip '{home / 'code' / 'shop api'}'`)\n"
        )
        text, _ = work_answer(Index.open(tmp_path / "deja"), "wip", str(folder), None)
        assert text == (
            f"no session ran in {folder} itself, and every project is below it: give a project's folder "
            f"(the newest project here: `work` wip of '{home / 'code' / 'shop api'}')"
        ), text

    _chat(cli_root, home, "c-home", "where did I put the dotfiles", "ls -a")
    _chat(cli_root, home / "code" / "billing", "c-later", "invoice pdf is blank", "pytest -q billing/pdf")
    assert run_deja("index").returncode == 0
    ran = run_deja("wip", cwd=home)
    assert ran.returncode == 0 and "deja show c-home" in ran.stdout, ran.stdout + ran.stderr


def test_wip_in_the_home_folder_names_no_folder_gone(tmp_path: Path, cli_root: Path) -> None:
    """trial58b B5: the folder ``wip`` in the home folder suggests is the newest session's whose folder is here; the
    newest session's own, deleted since, was suggested, a folder no ``cd`` reaches."""
    home = tmp_path / "home"
    _chat(cli_root, home / "code" / "billing", "c-billing", "invoice totals round wrong", "pytest -q billing")
    _chat(cli_root, home / "code" / "spike", "c-spike", "try the new parser", "pytest -q")
    assert run_deja("index").returncode == 0
    (home / "code" / "spike").rmdir()

    ran = run_deja("wip", cwd=home)

    assert ran.stderr == (
        f"deja: no session ran in {home} itself, and every project is below it: give a project's folder "
        f"(the newest project here: `deja wip {home / 'code' / 'billing'}`)\n"
    ), ran.stderr
    newest = json.loads(run_deja("sessions", "--json").stdout)["sessions"][0]
    assert newest["id"] == "c-spike", "the newest session is the one whose folder is gone"


def test_stats_says_how_many_projects_it_did_not_list(tmp_path: Path, cli_root: Path) -> None:
    """An unknown ``--project`` points at ``deja stats`` for the projects there are, which listed the 20 biggest
    and no word of the rest (review40a L2): the last of them was never found there."""
    for n in range(23):
        _chat(cli_root, tmp_path / "code" / f"proj-{n:02d}", f"c-{n:02d}", f"question {n} about caching", "pytest -q")
    assert run_deja("index").returncode == 0
    lines = run_deja("stats").stdout.splitlines()
    assert lines[-2] == "  … and 3 more: `deja stats --json` lists every project", lines
    assert len(json.loads(run_deja("stats", "--json").stdout)["projects"]) == 23
    missing = run_deja("search", "caching", "--project", "nosuch")
    assert "`deja stats` lists the projects there are" in missing.stdout + missing.stderr


def test_wip_in_the_home_folder_names_a_project_below_it(tmp_path: Path, cli_root: Path) -> None:
    """review59b F9: the newest project whose folder is here was taken wherever it was: ``/srv/app`` was "the newest
    project here" for ``deja wip ~``, under "every project is below it"."""
    home = tmp_path / "home"
    _chat(cli_root, home / "code" / "billing", "c-billing", "invoice totals round wrong", "pytest -q billing")
    _chat(cli_root, tmp_path / "srv" / "app", "c-app", "the app server will not start", "make run")  # (newer)
    assert run_deja("index").returncode == 0

    ran = run_deja("wip", cwd=home)

    assert ran.returncode == 1
    assert f"(the newest project here: `deja wip {home / 'code' / 'billing'}`)" in ran.stderr, ran.stderr
