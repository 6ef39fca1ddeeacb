"""What the hooks say of a past session is true of this project (trialI F1, F6, F10).

- F1: the failure hook recalled the newest session with the error from any project: an agent in ``api`` was told
  another project's fix ("billing's Postgres is on port 5433") while its own (``docker compose up -d db``) was one
  session older. Its own project's session comes first now; another project's is said to be one.
- F6: a project is named by its folder's last name, so ``legacy/api``'s session read as this ``api``'s.
- F10: a session that stopped on a failed command was "concluded" by the intent it stated before the failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import failure_hook, run_deja, store_shell

from deja.core.writers.cursor_agent import (
    DEFAULT_CREATED_MS,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

REFUSED = (
    'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused'
)
OURS = "Started the database with docker compose up -d db; the order tests pass."
BILLING = "Fixed: billing's Postgres is on port 5433; conftest.py now uses PGPORT=5433."
LEGACY = "Fixed: legacy api needs the VPN for its shared Postgres; connect to the VPN first."
INTENT = "Upgrading the image and running the migration."
INCOMPATIBLE = "FATAL:  database files are incompatible with server\nDETAIL:  initialized by PostgreSQL version 13"
HOUR_MS = 3_600_000


def _chat(home: Path, folder: Path, chat_id: str, hours: int, messages: list) -> None:
    """A cursor-agent chat in ``folder``, updated ``hours`` after the first."""
    folder.mkdir(parents=True, exist_ok=True)
    when = DEFAULT_CREATED_MS + hours * HOUR_MS
    write_chat_store(
        chat_dir_for(home / ".cursor", str(folder), chat_id),
        cwd=str(folder),
        name=chat_id,
        messages=[*store_preamble(str(folder)), *messages],
        created_ms=when,
        updated_ms=when,
    )


def _refused(fix: str) -> list:
    return [
        store_user_message("the order tests cannot reach postgres"),
        *store_shell("t1", "pytest -q tests/test_orders.py", REFUSED, 1),
        *store_shell("t2", "pytest -q tests/test_orders.py", "3 passed", 0),
        store_assistant_message(fix),
    ]


def _history(home: Path) -> dict[str, Path]:
    """api's own fix (oldest), then billing's and legacy/api's for the same error, then billing's unfinished upgrade."""
    code = home / "code"
    places = {
        "api": code / "shop" / "packages" / "api",
        "billing": code / "billing",
        "legacy": code / "legacy" / "api",
        "web": code / "shop" / "packages" / "web",
    }
    _chat(home, places["api"], "api-own-fix", 1, _refused(OURS))
    _chat(home, places["billing"], "billing-port", 2, _refused(BILLING))
    _chat(home, places["legacy"], "legacy-vpn", 3, _refused(LEGACY))
    unfinished = [
        store_user_message("migrate billing to postgres 16"),
        *store_shell("u1", "docker compose up -d db", "Container billing-db-1 Started", 0, INTENT),
        *store_shell("u2", "pg_upgrade --check", INCOMPATIBLE, 1),
    ]
    _chat(home, places["billing"], "billing-pg16", 4, unfinished)
    places["web"].mkdir(parents=True)
    assert run_deja("index").returncode == 0
    return places


def _hook(command: str, payload: dict) -> str:
    ran = run_deja(command, input=json.dumps({"cursor_version": "3.20.17", **payload}))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"] if ran.stdout.strip() else ""


def test_the_failure_hook_recalls_this_projects_fix_before_a_newer_one_elsewhere(fake_home: Path) -> None:
    places = _history(fake_home)
    said = failure_hook(places["api"], "pytest -q tests/test_orders.py", REFUSED)
    assert "in 3 past sessions; the latest in this project:" in said, said
    assert "`deja show api-own-fix`" in said and OURS in said
    assert "5433" not in said and "VPN" not in said


def test_another_projects_fix_is_said_to_be_one_and_a_namesake_is_told_apart(fake_home: Path) -> None:
    places = _history(fake_home)
    elsewhere = failure_hook(places["web"], "pytest -q tests/test_orders.py", REFUSED)
    assert "in 3 past sessions; the latest, in another project:" in elsewhere, elsewhere
    # From api's own folder, legacy/api's session (its last name the same) is named by the path that tells it apart.
    prompt = _hook(
        "hook-prompt",
        {
            "conversation_id": "conv-prompt",
            "hook_event_name": "beforeSubmitPrompt",
            "workspace_roots": [str(places["api"])],
            "prompt": "legacy api needs the VPN for its shared Postgres?",
        },
    )
    assert "`deja show legacy-vpn`" in prompt, prompt
    assert '"legacy-vpn" (legacy/api, ' in prompt, prompt
    assert "(api, " not in prompt.split("`deja show legacy-vpn`")[0].rsplit("\n", 1)[-1]


def test_a_session_that_stopped_on_a_failure_is_not_said_to_have_concluded(fake_home: Path) -> None:
    places = _history(fake_home)
    start = _hook(
        "hook-context",
        {
            "conversation_id": "conv-start",
            "hook_event_name": "sessionStart",
            "workspace_roots": [str(places["billing"])],
        },
    )
    stopped = "stopped after `pg_upgrade --check` failed: FATAL: database files are incompatible with server"
    assert f"  {stopped}" in start, start
    assert f"concluded: {INTENT}" not in start and f"concluded: {BILLING}" in start
    wip = run_deja("wip", cwd=places["billing"])
    assert wip.returncode == 0, wip.stderr
    assert stopped in wip.stdout and "settled:" not in wip.stdout, wip.stdout
    ctx = run_deja("ctx", "billing-pg16")
    assert f"## Where it stopped\nIt {stopped}. Its last answer, written before that: {INTENT}" in ctx.stdout, (
        ctx.stdout
    )
    assert "## Decisions and findings" not in ctx.stdout
    again = failure_hook(places["billing"], "pg_upgrade --check", INCOMPATIBLE)
    assert "`deja show billing-pg16`" in again and f"The session {stopped}." in again, again
    assert "Concluded:" not in again


def test_the_failure_hook_at_a_monorepo_root_recalls_its_packages_fix(fake_home: Path) -> None:
    """From the repository's root (how the editor opens a monorepo) the packages' sessions are this project's: the
    root's own ``api`` package's fix comes before legacy/api's and billing's newer ones (review7b #5)."""
    _history(fake_home)
    said = failure_hook(fake_home / "code" / "shop", "pytest -q tests/test_orders.py", REFUSED)
    assert "in 3 past sessions; the latest in this project:" in said, said
    assert "`deja show api-own-fix`" in said and OURS in said
    assert "5433" not in said and "VPN" not in said


def test_the_failure_hook_takes_the_folder_the_command_ran_in(fake_home: Path) -> None:
    """A Shell call's ``cwd`` (or ``working_directory``) names its package: web's own fix for the error comes before
    api's newer one, and a package with none falls back to the repository's newest (Cursor sends the folder in
    ``tool_input``; the hook looked at the workspace's folder alone)."""
    places = _history(fake_home)
    web_fix = "Started the web test database with docker compose up -d web-db."
    _chat(fake_home, places["web"], "web-own-fix", 0, _refused(web_fix))
    assert run_deja("index", "--full").returncode == 0
    shop = fake_home / "code" / "shop"

    def failed_in(conversation: str, folder: dict) -> str:
        payload = {
            "conversation_id": conversation,
            "hook_event_name": "postToolUse",
            "cursor_version": "3.20.17",
            "workspace_roots": [str(shop)],
            "tool_name": "Shell",
            "tool_input": {"command": "pytest -q tests/test_orders.py", **folder},
            "tool_output": json.dumps({"exitCode": 1, "output": REFUSED}),
        }
        ran = run_deja("hook-tool-after", input=json.dumps(payload))
        assert ran.returncode == 0 and not ran.stderr, ran.stderr
        return json.loads(ran.stdout)["additional_context"]

    for conversation, given in [("c1", {"cwd": str(places["web"])}), ("c2", {"working_directory": "packages/web"})]:
        said = failed_in(conversation, given)
        assert "the latest in this project:" in said and "`deja show web-own-fix`" in said, said
    said = failed_in("c3", {"cwd": str(shop / "packages" / "docs")})
    assert "the latest in this project:" in said and "`deja show api-own-fix`" in said, said
    said = failed_in("c4", {})
    assert "`deja show api-own-fix`" in said, said


def test_a_new_package_of_a_monorepo_is_told_its_repository_s_fix(fake_home: Path) -> None:
    """A workspace opened at a package with no sessions of its own yet: the fix a sibling package of the same git
    repository found comes before another repository's newer ones, introduced as this repository's (review8c #5);
    a folder kept under git at the home folder (dotfiles) or a repository's own root is no such repository."""
    _history(fake_home)
    shop, new = fake_home / "code" / "shop", fake_home / "code" / "shop" / "packages" / "new"
    new.mkdir(parents=True)

    def failed(conversation: str) -> str:
        return failure_hook(new, "pytest -q tests/test_orders.py", REFUSED, conversation)

    elsewhere = failed("c1")
    assert "the latest, in another project:" in elsewhere and "`deja show legacy-vpn`" in elsewhere, elsewhere
    (fake_home / ".git").mkdir()  # a dotfiles repository: not the package's
    assert failed("c2") == elsewhere
    (shop / ".git").mkdir()
    said = failed("c3")
    assert "in 3 past sessions; the latest in this repository:" in said, said
    assert "`deja show api-own-fix`" in said and OURS in said and "VPN" not in said, said
    (new / ".git").write_text("gitdir: /elsewhere/.git/modules/new\n")  # a submodule: a repository of its own
    assert failed("c4") == elsewhere


def test_the_tool_hooks_in_a_folder_below_a_project_recall_the_projects_runs(fake_home: Path) -> None:
    """Cursor opened at ``api/src``, a folder no session ran in, of a project whose sessions ran at ``api``: the
    Shell pre-hook said "never ran here before" and the failure hook called api's own fix another project's, where
    ``deja how`` and ``deja wip`` there take the nearest folder above that sessions ran in (trial9 F15)."""
    places = _history(fake_home)
    src = places["api"] / "src"
    src.mkdir()
    said = failure_hook(src, "pytest -q tests/test_orders.py", REFUSED)
    assert "in 3 past sessions; the latest in this project:" in said and "`deja show api-own-fix`" in said, said
    before = {
        "conversation_id": "c-now",
        "hook_event_name": "preToolUse",
        "workspace_roots": [str(src)],
        "tool_name": "Shell",
        "tool_input": {"command": "pytest -q tests/test_orders.py"},
    }
    said = _hook("hook-tool", before)
    assert "`pytest -q tests/test_orders.py` ran 2 times in this project before, in 1 session" in said, said
    how = run_deja("how", "pytest", cwd=src)
    assert f"in {places['api']}" in how.stdout and "api-own-fix" in how.stdout, how.stdout


def test_a_folder_above_a_repository_is_not_its_project(fake_home: Path) -> None:
    """A session once ran at ``~/code`` itself: Cursor opened at a new repository in it was told a sibling
    repository's fix was "the latest in this project", and sessionStart listed ``~/code``'s session as this
    project's; in a monorepo's package, a sibling package's fix lost its "in this repository" (review11 R1). The walk
    to the nearest folder above with sessions stops at a repository's root."""
    code = fake_home / "code"
    _chat(fake_home, code, "code-browse", 1, [store_user_message("which of my repos still use python 3.8?")])
    _chat(fake_home, code / "billing", "billing-port", 2, _refused(BILLING))
    new = code / "newrepo"
    (new / ".git").mkdir(parents=True)
    shop = code / "shop"
    (shop / ".git").mkdir(parents=True)
    _chat(fake_home, shop, "shop-root", 3, [store_user_message("set up the shop workspace")])
    _chat(fake_home, shop / "packages" / "api", "api-own-fix", 4, _refused(OURS))
    (shop / "packages" / "web" / "src").mkdir(parents=True)
    assert run_deja("index").returncode == 0
    said = failure_hook(new, "pytest -q tests/test_orders.py", REFUSED)
    assert "in 2 past sessions; the latest, in another project:" in said, said
    start = _hook("hook-context", {"conversation_id": "c-s", "hook_event_name": "sessionStart", "workspace_roots": [str(new)]})  # fmt: skip
    assert start == "", start
    wip = run_deja("wip", cwd=new)
    assert wip.returncode == 1 and "no session ran in" in wip.stderr, wip.stdout + wip.stderr
    said = failure_hook(shop / "packages" / "web" / "src", "pytest -q tests/test_orders.py", REFUSED, "c-2")
    assert "the latest in this repository:" in said and "`deja show api-own-fix`" in said, said


def test_the_shell_pre_hook_recalls_a_chain_that_starts_with_cd(fake_home: Path) -> None:
    """``cd packages/web && npm run build`` failed and then passed in a past session: the pre-hook for the same
    chain said nothing (`cd` only looks around) where ``deja how`` and the failure hook found both runs (trial11 F6)."""
    shop = fake_home / "code" / "shop"
    chain = "cd packages/web && npm run build"
    failed = "ERROR in src/checkout.tsx: Type 'string' is not assignable to type 'Money'"
    runs = [*store_shell("b1", chain, failed, 1), *store_shell("b2", chain, "compiled successfully", 0)]
    _chat(fake_home, shop, "web-build", 1, [store_user_message("the web build is red"), *runs])
    _chat(fake_home, shop, "web-other", 2, [store_user_message("lint"), *store_shell("l1", "cd packages/web && npm run lint", "ok", 0)])  # fmt: skip
    assert run_deja("index").returncode == 0
    before = {
        "conversation_id": "c-now",
        "hook_event_name": "preToolUse",
        "workspace_roots": [str(shop)],
        "tool_name": "Shell",
        "tool_input": {"command": chain},
    }
    said = _hook("hook-tool", before)
    assert f"`{chain}` ran 2 times in this project before, in 1 session" in said, said
    assert "Type 'string' is not assignable" in said and "npm run lint" not in said, said
    semicolon = {**before, "conversation_id": "c-2", "tool_input": {"command": "cd packages/web; npm run lint"}}
    _chat(fake_home, shop, "web-lint", 3, [store_user_message("lint again"), *store_shell("l2", "cd packages/web; npm run lint", "ok", 0)])  # fmt: skip
    assert run_deja("index").returncode == 0
    assert "`cd packages/web; npm run lint` ran 1 time" in _hook("hook-tool", semicolon)  # (review13 R13-5)
    looks = {**before, "conversation_id": "c-3", "tool_input": {"command": "cd packages/web && ls -la"}}
    _chat(fake_home, shop, "web-ls", 4, [store_user_message("what is there"), *store_shell("s1", "cd packages/web && ls -la", "src", 0)])  # fmt: skip
    assert run_deja("index").returncode == 0
    assert "ran 1 time" not in _hook("hook-tool", looks)  # it only looks around (review13 R13-4)
