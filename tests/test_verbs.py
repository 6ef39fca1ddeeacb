"""The work-history verbs as a user runs them: blame, files, fix, how, wip, export, ctx, handoff and show windows.

The history is real: cursor-agent transcripts with their chat stores (which carry
the tool results and exit codes), an editor ``state.vscdb`` and Cursor's
``ai-code-tracking.db``, all written by ``deja.core.writers``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from harness import ENTRY, run_deja

from deja.core.writers.ai_tracking import write_ai_tracking_db
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
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
from deja.core.writers.ide import write_state_vscdb

T0 = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
WRITE_CHAT = "a0000000-0000-4000-8000-000000000001"
RAISE_CHAT = "a0000000-0000-4000-8000-000000000002"
BACKOFF_CHAT = "a0000000-0000-4000-8000-000000000003"
DB_DOWN_CHAT = "a0000000-0000-4000-8000-000000000004"
DB_DOWN_AGAIN_CHAT = "a0000000-0000-4000-8000-000000000005"
IDE_CHAT = "b0000000-0000-4000-8000-000000000006"
DB_ERROR = "psycopg.OperationalError: connection to server at 127.0.0.1, port 5432 failed: Connection refused"
FINAL_FILE = "PER_CUSTOMER_LIMIT = 250\nRETRY_BACKOFF = 2.5\nWINDOW = 60\n"

Step = tuple[str, dict[str, Any], str | None, int | None]


def _chat(
    cli_root: Path, cwd: Path, chat_id: str, name: str, start: datetime, turns: list[tuple[str, str, list[Step]]]
) -> None:
    """A cursor-agent chat: per turn a question, an answer and tool calls (name, args, output, exit code)."""
    records: list[dict[str, Any]] = []
    store: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for n, (question, answer, steps) in enumerate(turns):
        records.append(user_turn(question, start + timedelta(minutes=10 * n)))
        store.append(
            {"role": "user", "content": [{"type": "text", "text": records[-1]["message"]["content"][0]["text"]}]}
        )
        for i, (tool, args, output, code) in enumerate(steps):
            call_id = f"call_{n}_{i}"
            records.append(assistant_turn(None, tool_use(tool, args)))
            store.append({"role": "assistant", "content": [tool_call_part(call_id, tool, args)]})
            if output is not None:
                result = shell_result_text(output, exit_code=code or 0) if tool == "Shell" else output
                store.append(tool_result_message(call_id, tool, result))
        records.append(assistant_turn(answer))
        store.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    records.append(turn_ended())
    write_transcript(transcript_path(cli_root, str(cwd), chat_id), records)
    write_chat_store(chat_dir_for(cli_root, str(cwd), chat_id), cwd=str(cwd), messages=store, name=name)


class Work:
    def __init__(self, root: Path):
        self.root = root
        self.api = root / "projects" / "api"
        self.limits = self.api / "api" / "limits.py"
        self.cli_root = root / "cursor-agent"
        self.ide_root = root / "cursor" / "User"
        self.home = root / "deja"
        self.tracking = root / "dot-cursor" / "ai-tracking" / "ai-code-tracking.db"
        self.env = {
            **os.environ,
            "DEJA_CURSOR_ROOT": str(self.ide_root),
            "DEJA_CURSOR_CLI_ROOT": str(self.cli_root),
            "DEJA_HOME": str(self.home),
            "CURSOR_DATA_DIR": str(root / "dot-cursor"),
        }

    def deja(self, *args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [*ENTRY, *args],
            env=self.env,
            cwd=cwd or self.api,
            input=input,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    def json(self, *args: str, cwd: Path | None = None) -> Any:
        result = self.deja(*args, "--json", cwd=cwd)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)


@pytest.fixture
def work(tmp_path: Path) -> Work:
    w = Work(tmp_path)
    w.limits.parent.mkdir(parents=True)
    w.limits.write_text(FINAL_FILE)
    path = str(w.limits)
    _chat(
        w.cli_root,
        w.api,
        WRITE_CHAT,
        "Add per-customer rate limits",
        T0,
        [
            (
                "add a per customer rate limit module",
                "Created api/limits.py with the limit and its window.",
                [("Write", {"path": path, "contents": "PER_CUSTOMER_LIMIT = 100\nWINDOW = 60\n"}, None, None)],
            ),
        ],
    )
    _chat(
        w.cli_root,
        w.api,
        RAISE_CHAT,
        "Raise the per-customer limit",
        T0 + timedelta(days=3),
        [
            (
                "enterprise customers hit the limit, raise it",
                "Raised the limit to 250 requests.",
                [
                    (
                        "StrReplace",
                        {
                            "path": path,
                            "old_string": "PER_CUSTOMER_LIMIT = 100",
                            "new_string": "PER_CUSTOMER_LIMIT = 250",
                        },
                        None,
                        None,
                    )
                ],
            ),
        ],
    )
    _chat(
        w.cli_root,
        w.api,
        BACKOFF_CHAT,
        "Retry with backoff",
        T0 + timedelta(days=5),
        [
            (
                "retries hammer the api, add a backoff",
                "Added RETRY_BACKOFF next to the limit.",
                [
                    (
                        "StrReplace",
                        {
                            "path": path,
                            "old_string": "PER_CUSTOMER_LIMIT = 250\n",
                            "new_string": "PER_CUSTOMER_LIMIT = 250\nRETRY_BACKOFF = 2.5\n",
                        },
                        None,
                        None,
                    ),
                    ("Shell", {"command": "pytest -q tests/test_limits.py"}, "3 passed in 0.02s", 0),
                ],
            ),
        ],
    )
    _chat(
        w.cli_root,
        w.api,
        DB_DOWN_CHAT,
        "Migrations fail",
        T0 + timedelta(days=7),
        [
            (
                "alembic upgrade fails locally",
                "Postgres was not running (connection refused); started it with docker compose and the migration ran.",
                [
                    (
                        "Shell",
                        {"command": "alembic upgrade head"},
                        f"Traceback (most recent call last):\n{DB_ERROR}",
                        1,
                    ),
                    ("Shell", {"command": "docker compose up -d db"}, "Container api-db-1  Started", 0),
                    (
                        "Shell",
                        {"command": "alembic upgrade head"},
                        "INFO  [alembic.runtime.migration] Running upgrade  -> 1893112, add limits",
                        0,
                    ),
                ],
            ),
        ],
    )
    _chat(
        w.cli_root,
        w.api,
        DB_DOWN_AGAIN_CHAT,
        "Migrations fail again",
        T0 + timedelta(days=9),
        [
            (
                "the migration broke again",
                "Recreated the virtualenv and the database; the migration ran.",
                [
                    ("Shell", {"command": "alembic upgrade head --sql"}, f"{DB_ERROR}", 1),
                    ("Shell", {"command": "rm -rf .venv"}, "", 0),
                    (
                        "Shell",
                        {"command": "alembic upgrade head --sql"},
                        "INFO  [alembic.runtime.migration] Running upgrade",
                        0,
                    ),
                ],
            ),
        ],
    )
    ms = int((T0 + timedelta(days=10)).timestamp() * 1000)
    write_state_vscdb(
        w.ide_root / "globalStorage" / "state.vscdb",
        composers={
            IDE_CHAT: {
                "_v": 10,
                "composerId": IDE_CHAT,
                "name": "Document the limits <script>alert(1)</script>",
                "createdAt": ms,
                "lastUpdatedAt": ms + 60_000,
                "fullConversationHeadersOnly": [
                    {"bubbleId": "u", "type": 1},
                    {"bubbleId": "t", "type": 2},
                    {"bubbleId": "a", "type": 2},
                ],
                "workspaceIdentifier": {"id": "ws", "uri": {"fsPath": str(w.api), "scheme": "file"}},
            }
        },
        bubbles={
            IDE_CHAT: {
                "u": {
                    "type": 1,
                    "text": "document the limits in the README & say why",
                    "createdAt": datetime.fromtimestamp(ms / 1000, UTC).isoformat(),
                },
                "t": {
                    "type": 2,
                    "text": "",
                    "toolFormerData": {
                        "name": "run_terminal_cmd",
                        "status": "completed",
                        "params": json.dumps({"command": "grep -n LIMIT api/limits.py"}),
                        "result": json.dumps({"output": "1:PER_CUSTOMER_LIMIT = 250", "exitCode": 0}),
                    },
                },
                "a": {
                    "type": 2,
                    "text": "Documented `PER_CUSTOMER_LIMIT` in the README.",
                    "createdAt": datetime.fromtimestamp(ms / 1000 + 30, UTC).isoformat(),
                },
            }
        },
    )
    backoff = "RETRY_BACKOFF = 2.5"
    write_ai_tracking_db(
        w.tracking,
        [
            {
                "hash": hashlib.sha256(backoff.encode()).hexdigest(),
                "fileName": path,
                "conversationId": BACKOFF_CHAT,
                "model": "claude-4.6-sonnet",
                "timestamp": int((T0 + timedelta(days=5)).timestamp() * 1000),
            },
            {
                "hash": "0" * 64,
                "fileName": str(w.api / "api" / "other.py"),
                "conversationId": WRITE_CHAT,
                "timestamp": 1,
            },
        ],
    )
    return w


# --------------------------------------------------------------------------- blame


def test_blame_lists_every_session_that_edited_the_file_newest_first_with_the_edit(work: Work) -> None:
    data = work.json("blame", str(work.limits))
    assert [e["session_id"] for e in data["edits"]] == [BACKOFF_CHAT, RAISE_CHAT, WRITE_CHAT]
    assert (
        data["edits"][1]["old"] == "PER_CUSTOMER_LIMIT = 100" and data["edits"][1]["new"] == "PER_CUSTOMER_LIMIT = 250"
    )
    text = work.deja("blame", "api/limits.py").stdout  # relative to where the user stands
    assert "3 edits of" in text and f"deja show {RAISE_CHAT}" in text
    assert "    - PER_CUSTOMER_LIMIT = 100" in text and "    + PER_CUSTOMER_LIMIT = 250" in text


def test_blame_says_discussed_only_by_sessions_of_the_project_that_holds_the_file(work: Work) -> None:
    """``limits.py`` in another repository is another file: a chat there that names it did not discuss this one."""
    here, elsewhere = "c0000000-0000-4000-8000-000000000007", "c0000000-0000-4000-8000-000000000008"
    web = work.root / "projects" / "web"
    web.mkdir(parents=True)
    question = "why is limits.py read twice on start?"
    _chat(work.cli_root, work.api, here, "Limits read twice", T0 + timedelta(days=3), [(question, "A cache.", [])])
    _chat(work.cli_root, web, elsewhere, "Web limits", T0 + timedelta(days=3), [(question, "Its import.", [])])
    discussed = [s["id"] for s in work.json("blame", str(work.limits))["discussed"]]
    assert here in discussed and elsewhere not in discussed


def test_blame_a_line_joins_cursors_own_attribution_with_the_chat(work: Work) -> None:
    data = work.json("blame", f"{work.limits}:2")
    line = data["line"]
    assert line["text"] == "RETRY_BACKOFF = 2.5"
    assert line["cursor_attribution"][0]["line_match"] is True
    assert line["cursor_attribution"][0]["session"]["id"] == BACKOFF_CHAT
    text = work.deja("blame", f"{work.limits}:2").stdout
    assert text.startswith("line 2: RETRY_BACKOFF = 2.5\nwritten by Retry with backoff")
    assert "according to Cursor's AI attribution (claude-4.6-sonnet)" in text


def test_blame_a_line_falls_back_to_the_edits_deja_holds(work: Work) -> None:
    assert work.json("blame", f"{work.limits}:1")["line"]["written_by"]["session_id"] == RAISE_CHAT
    text = work.deja("blame", f"{work.limits}:3").stdout
    assert f"written by Add per-customer rate limits (deja show {WRITE_CHAT})" in text
    work.tracking.unlink()  # attribution is a bonus: without Cursor's database the edits still answer
    assert work.json("blame", f"{work.limits}:2")["line"]["written_by"]["session_id"] == BACKOFF_CHAT


def test_blame_a_line_never_shows_a_secret_the_file_holds(work: Work, tmp_path: Path) -> None:
    """``blame PATH:LINE`` reads a line of any file it can open (``~/.aws/credentials:3``, through the MCP server
    too): it printed the line as the file has it, secret and all (trial9 F11). It is redacted as the index holds it."""
    credentials = tmp_path / "credentials"
    credentials.write_text("[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
    text = work.deja("blame", f"{credentials}:2").stdout
    assert text.startswith("line 2: aws_secret_access_key = [redacted:") and "wJalrXUtnFEMI" not in text, text
    assert "wJalrXUtnFEMI" not in json.dumps(work.json("blame", f"{credentials}:2"))


def test_blame_refuses_a_line_that_does_not_exist_in_one_line(work: Work) -> None:
    result = work.deja("blame", f"{work.limits}:99")
    assert result.returncode == 1 and result.stderr.strip() == f"deja: {work.limits} has fewer than 99 lines"
    result = work.deja("blame", f"{work.api / 'missing.py'}:1")
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "cannot read" in result.stderr


# --------------------------------------------------------------------------- files, fix, how, wip


def test_files_lists_what_the_work_on_a_topic_touched(work: Work) -> None:
    data = work.json("files", "limit")
    top = data["files"][0]
    assert top["path"] == str(work.limits) and top["edits"] == 3 and len(top["sessions"]) == 3
    assert str(work.limits) in work.deja("files", "limit").stdout


def test_files_answers_for_the_project_you_are_in_unless_asked_for_every_one(work: Work) -> None:
    """Every project's files, most edited first, put a file an unrelated project's chat edited most, matched by one
    loose word, above this project's (trial45 F2): in a project, as ``deja how``, this one's; ``--all-projects``
    every one's, as does a folder in no project."""
    tsconfig = _bundle_budget_chat(work)
    for folder in (work.api, work.limits.parent):
        listed = work.deja("files", "limit", cwd=folder).stdout.splitlines()
        assert listed[0] == f"files the work on 'limit' touched in {work.api}, most edited first:", listed
        assert listed[1].startswith(f"  {work.limits}  (3 edits") and tsconfig not in "\n".join(listed), listed
    elsewhere = work.root / "elsewhere"
    elsewhere.mkdir()
    for every in (work.deja("files", "limit", "--all-projects"), work.deja("files", "limit", cwd=elsewhere)):
        listed = every.stdout.splitlines()
        assert listed[0] == "files the work on 'limit' touched, most edited first:", listed
        assert listed[1].startswith(f"  {tsconfig}  (4 edits") and listed[2].startswith(f"  {work.limits}  "), listed
    assert work.deja("files", "bundle").stdout == (
        f"no session about 'bundle' in {work.api} touched a file\n"
        "the work on it touched files in other projects: add --all-projects to see them\n"
    )
    both = work.deja("files", "limit", "--all-projects", "--project", "api")
    assert (both.returncode, both.stderr) == (2, "deja: give --project or --all-projects, not both\n")
    # --json names the project its files are one's, null for every project's (trial46 F8).
    assert work.json("files", "limit", cwd=work.api)["project"] == str(work.api)
    assert work.json("files", "limit", "--all-projects")["project"] is None


def test_every_projects_files_put_those_of_the_chats_holding_every_word_first(work: Work) -> None:
    """trial50 F5: every project's files (``--all-projects``, the MCP ``files`` without ``project``) put the file a
    bulk chat one word matched edited most above the files of the chats that held every word. Those come first, as
    in this project's answer, and the rest follow, most edited first."""
    tsconfig = _bundle_budget_chat(work)
    for folder in (work.api, work.root):
        listed = work.deja("files", "customer", "limit", "--all-projects", cwd=folder).stdout.splitlines()
        assert listed[1].startswith(f"  {work.limits}  (3 edits") and listed[2].startswith(f"  {tsconfig}  (4 edits")
    assert work.deja("files", "limit", "--all-projects").stdout.splitlines()[1].startswith(f"  {tsconfig}  (4 edits")


def test_files_first_line_says_the_order_it_lists_in(tmp_path: Path, cli_root: Path) -> None:
    """review50c L1: since trial50 F5 the files of the chats holding the most words come first, however few their
    edits; the first line still said `most edited first` above a 1-edit file listed before a 3-edit one."""
    shop = tmp_path / "code" / "shop"
    shop.mkdir(parents=True)

    def chat(chat_id: str, asked: str, path: str, edits: int) -> None:
        messages = [store_user_message(asked)]
        for n in range(edits):
            edit = {"path": str(shop / path), "old_string": f"r{n}", "new_string": f"r{n + 1}"}
            messages.append(store_assistant_message("Editing.", tool_call_part(f"{chat_id}-{n}", "StrReplace", edit)))
            messages.append(tool_result_message(f"{chat_id}-{n}", "StrReplace", "ok"))
        write_chat_store(chat_dir_for(cli_root, str(shop), chat_id), cwd=str(shop), name=asked, messages=messages)

    chat("c-round", "checkout total has a rounding error on discounted carts", "checkout.py", 3)
    chat("c-button", "fix the bug where the checkout button overlaps the footer", "web/button.css", 1)
    assert run_deja("index").returncode == 0
    lines = run_deja("files", "fix", "checkout", "rounding", "bug", cwd=shop).stdout.splitlines()
    assert "(1 edit" in lines[1] and "(3 edits" in lines[2], lines  # (the order fixt50a chose)
    assert "most edited first" not in lines[0], lines[0]
    assert lines[0].endswith(", those of chats holding more of the words first, then most edited:"), lines[0]
    alike = run_deja("files", "checkout", cwd=shop).stdout.splitlines()  # (one word: every chat holds it)
    assert alike[0].endswith(", most edited first:") and "(3 edits" in alike[1], alike


def test_files_lists_the_file_named_first_and_says_when_it_is_another_projects(work: Work) -> None:
    """trial48b F10: ``deja files LiveChart.tsx`` listed README.md (edited more) above the file named, and from
    another project's folder an unrelated file, with no word of where the one named was."""
    tsconfig = _bundle_budget_chat(work)
    listed = work.deja("files", "limits.py", "bundle", "--all-projects").stdout.splitlines()
    assert listed[0] == "files the work on 'limits.py bundle' touched, the one named first, then most edited:", listed
    assert listed[1].startswith(f"  {work.limits}  (3 edits") and listed[2].startswith(f"  {tsconfig}  (4 edits")
    for named in ("tsconfig.json", "TSConfig", "web/tsconfig.json"):  # (not "tsconfig": a word, as "cache" is)
        said = work.deja("files", named, cwd=work.api).stdout.splitlines()
        assert said[-1] == f"{tsconfig} is another project's: add --all-projects to see it", (named, said)
    (work.root / "projects" / "web").mkdir()
    assert work.deja("files", "tsconfig.json", cwd=work.root / "projects" / "web").stdout.splitlines()[1:] == [
        f"  {tsconfig}  (4 edits in 1 session, last {(T0 + timedelta(days=11)):%Y-%m-%d %H:%M})"
    ]


def test_files_lists_a_named_dotfile_dockerfile_or_makefile_first(work: Work) -> None:
    """review48g: ``deja files .env`` (or ``.github/workflows/ci.yml``) never put the file named first: the dot of
    ``./`` taken off took the dotfile's own, and ``Dockerfile`` (no extension, no capital inside) named no file."""
    named = [".env", ".github/workflows/ci.yml", "Dockerfile", "Makefile"]
    edits: list[Step] = [
        ("StrReplace", {"path": str(work.limits), "old_string": f"{n}", "new_string": f"{n + 1}"}, None, None)
        for n in range(4)
    ]
    edits += [("Write", {"path": str(work.api / name), "contents": "x\n"}, None, None) for name in named]
    _chat(
        work.cli_root, work.api, "c0000000-0000-4000-8000-000000000009", "Deploy config", T0 + timedelta(days=12),
        [("the deploy reads the wrong limit", "Set the limit in the deploy config too.", edits)],
    )  # fmt: skip
    assert work.deja("files", "deploy").stdout.splitlines()[1].startswith(f"  {work.limits}  (4 edits")
    for typed in (*named, "./.env", "makefile", "the .env?"):
        listed = work.deja("files", "deploy", *typed.split()).stdout.splitlines()
        path = work.api / (typed.split()[-1].removeprefix("./").rstrip("?") if typed != "makefile" else "Makefile")
        assert listed[0].endswith("the one named first, then most edited:"), (typed, listed)
        assert listed[1].startswith(f"  {path}  (1 edit"), (typed, listed)
    unnamed = work.deja("files", "deploy", "env").stdout.splitlines()  # (a word: .env is not named by it)
    assert unnamed[0].endswith("most edited first:") and unnamed[1].startswith(f"  {work.limits}  "), unnamed


def _bundle_budget_chat(work: Work) -> str:
    """A chat of another project (web) that edited its tsconfig.json 4 times, matched by 'limit' and 'bundle'; the
    file's path."""
    web = work.root / "projects" / "web"
    tsconfig = str(web / "tsconfig.json")
    budget: list[Step] = [
        ("StrReplace", {"path": tsconfig, "old_string": f"{n}mb", "new_string": f"{n + 1}mb"}, None, None)
        for n in range(4)
    ]
    _chat(
        work.cli_root, web, "c0000000-0000-4000-8000-000000000007", "Ionic build", T0 + timedelta(days=11),
        [("ng build fails: is there a limit on the bundle size?", "Raised the budget.", budget)],
    )  # fmt: skip
    return tsconfig


def test_the_mcp_files_answers_as_deja_files_for_the_project_given_else_for_every_one(
    work: Work, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP ``work`` tool's ``files`` gives ``deja files``'s text: as run in the folder given as ``project``, with
    ``--project`` for a name, and with ``--all-projects`` for none, whatever folder the server runs in, which is not
    the agent's (review45g L6: it named no project where the CLI names it, and README said they gave the same)."""
    from deja.core.index import Index
    from deja.interfaces.mcp_server import work_answer

    _bundle_budget_chat(work)
    assert work.deja("index").returncode == 0
    index = Index.open(work.home)
    monkeypatch.chdir(work.api)  # the server started in api's folder: the agent asking may work in another

    def mcp(query: str, project: str | None = None) -> str:
        return work_answer(index, "files", query, project)[0] + "\n"

    assert mcp("limit") == work.deja("files", "limit", "--all-projects").stdout
    for folder in (work.api, work.limits.parent):
        assert mcp("limit", str(folder)) == work.deja("files", "limit", cwd=folder).stdout
    assert mcp("limit", "api") == work.deja("files", "limit", "--project", "api").stdout
    for project, cli in ((str(work.api), work.json("files", "limit", cwd=work.api)),
                         (None, work.json("files", "limit", "--all-projects"))):  # fmt: skip
        structured = work_answer(index, "files", "limit", project)[1]  # (the CLI's adds its schema_version)
        assert (structured["project"], structured["files"]) == (cli["project"], cli["files"])
    assert mcp("bundle", str(work.api)) == (
        f"no session about 'bundle' in {work.api} touched a file\n"
        "the work on it touched files in other projects: leave out `project` to see them\n"
    )
    elsewhere = work.root / "elsewhere"  # (in no project: README's `work` row says how the two differ, review46a L2)
    elsewhere.mkdir()
    assert work.deja("files", "limit", cwd=elsewhere).stdout == work.deja("files", "limit", "--all-projects").stdout
    assert mcp("limit", str(elsewhere)).startswith(f"No session of project '{elsewhere}' is indexed")


def test_files_in_a_project_no_session_ran_in_names_it(work: Work) -> None:
    missing = work.deja("files", "limit", "--project", "apj")
    assert (missing.returncode, missing.stderr) == (
        1,
        "deja: No session of project 'apj' is indexed; did you mean --project api? `deja stats` lists the projects there are.\n",
    )
    assert (
        work.deja("files", "zeppelin", "--project", "api").stdout
        == "no session about 'zeppelin' in api touched a file\n"
    )
    assert work.deja("files", "limit", "--project", "").returncode == 2


def test_fix_shows_what_ran_after_the_same_error_until_it_stopped(work: Work) -> None:
    data = work.json("fix", DB_ERROR.replace("5432", "6543"))  # the signature ignores numbers
    assert [o["session"]["id"] for o in data["occurrences"]] == [DB_DOWN_AGAIN_CHAT, DB_DOWN_CHAT]
    first_fix = data["occurrences"][1]
    assert first_fix["resolved_by"] == "alembic upgrade head"
    assert [s["command"] for s in first_fix["steps"]] == ["docker compose up -d db", "alembic upgrade head"]
    text = work.deja("fix", DB_ERROR).stdout
    assert "fixed by: docker compose up -d db, then alembic upgrade head" in text


def test_fix_never_offers_a_destructive_command_as_the_fix(work: Work) -> None:
    data = work.json("fix", DB_ERROR)
    latest = data["occurrences"][0]
    assert {"command": "rm -rf .venv", "exit_code": 0, "destructive": True} in latest["steps"]
    text = work.deja("fix", DB_ERROR).stdout
    fixed_lines = [line for line in text.splitlines() if "fixed by:" in line]
    assert fixed_lines and all("rm -rf" not in line for line in fixed_lines)
    assert "$ rm -rf .venv  (ok)  [destructive: history only, not a fix]" in text


def test_fix_reads_the_error_from_stdin_and_finds_a_partial_error(work: Work) -> None:
    result = work.deja("fix", "-", input=f"some noise\n{DB_ERROR}\n")
    assert DB_DOWN_CHAT in result.stdout
    assert DB_DOWN_CHAT in work.deja("fix", "Connection refused").stdout
    assert "has not come up" in work.deja("fix", "SegmentationFault in libfoo").stdout


STRIPE_CHAT = "a0000000-0000-4000-8000-000000000011"
LODASH_CHAT = "a0000000-0000-4000-8000-000000000012"


def _missing_module_chat(work: Work, chat_id: str, module: str) -> None:
    error = f"Error: Cannot find module '{module}'\nRequire stack:\n- /srv/web/server.js"
    steps: list[Step] = [
        ("Shell", {"command": "node server.js"}, error, 1),
        ("Shell", {"command": f"npm install {module}"}, "added 1 package", 0),
        ("Shell", {"command": "node server.js"}, "listening on 3000", 0),
    ]
    _chat(
        work.cli_root,
        work.api,
        chat_id,
        f"{module} missing",
        T0 + timedelta(days=3),
        [("server won't start", "Installed it.", steps)],
    )


def test_fix_keeps_the_quoted_name_of_the_error(work: Work) -> None:
    _missing_module_chat(work, STRIPE_CHAT, "stripe")
    lodash = "Error: Cannot find module 'lodash'"
    text = work.deja("fix", lodash).stdout
    assert STRIPE_CHAT not in text and "has not come up" in text
    _missing_module_chat(work, LODASH_CHAT, "lodash")
    found = [o["session"]["id"] for o in work.json("fix", lodash)["occurrences"]]
    assert found == [LODASH_CHAT]
    assert [o["session"]["id"] for o in work.json("fix", "Cannot find module 'stripe'")["occurrences"]] == [STRIPE_CHAT]


def test_how_shows_real_invocations_with_exit_codes_newest_first(work: Work) -> None:
    runs = work.json("how", "alembic", "upgrade")["invocations"]
    assert [(r["command"], r["exit_code"]) for r in runs] == [
        ("alembic upgrade head --sql", 0),
        ("alembic upgrade head --sql", 1),
        ("alembic upgrade head", 0),
        ("alembic upgrade head", 1),
    ]
    elsewhere = work.root / "elsewhere"
    elsewhere.mkdir()
    assert work.json("how", "alembic", cwd=elsewhere)["invocations"] == []  # this project only, by default
    assert len(work.json("how", "alembic", "--all-projects", cwd=elsewhere)["invocations"]) == 4


def test_wip_says_what_the_last_session_here_was_doing(work: Work) -> None:
    data = work.json("wip", cwd=work.limits.parent)  # from a folder inside the project
    assert data["session"]["id"] == IDE_CHAT
    text = work.deja("wip", str(work.api)).stdout
    assert text.splitlines()[0].startswith("last session here: Document the limits")
    assert "last command: grep -n LIMIT api/limits.py (succeeded)" in text
    deeper = work.api / "docs" / "drafts"  # no session ran here nor below: the project above is named (trialN F11)
    deeper.mkdir(parents=True)
    above = work.deja("wip", cwd=deeper).stdout
    assert above.splitlines()[0].startswith(f"last session in {work.api}: Document the limits"), above
    (work.root / "nowhere").mkdir()
    result = work.deja("wip", str(work.root / "nowhere"))
    assert result.returncode == 1 and "no session ran in" in result.stderr


# --------------------------------------------------------------------------- ctx and handoff


def test_ctx_is_a_compact_digest_within_its_budget(work: Work) -> None:
    text = work.deja("ctx", DB_DOWN_CHAT).stdout
    assert text.startswith("# Context from a past session: Migrations fail")
    for section in ("## Goal", "## Decisions and findings", "## Commands that mattered"):
        assert section in text
    # (where it stopped, its last answer, is its last finding: said once, review44b M4)
    ran = "Postgres was not running (connection refused); started it with docker compose and the migration ran."
    assert text.count(ran) == 1 and "## Where it stopped" not in text, text
    assert "`alembic upgrade head` → exit 1" in text
    small = work.deja("ctx", "--bytes", "500", "migrations fail").stdout
    assert len(small.encode()) <= 500 and small.startswith("# Context from a past session")


def test_ctx_lists_an_agents_files_relative_to_the_project_as_the_editors_are(work: Work) -> None:
    assert "## Files\n- `api/limits.py`\n" in work.deja("ctx", RAISE_CHAT).stdout


def test_handoff_prints_a_cursor_agent_line_that_runs_in_the_project(work: Work) -> None:
    line = work.deja("handoff", DB_DOWN_CHAT).stdout.strip()
    words = shlex.split(line)
    assert words[:4] == ["cd", str(work.api), "&&", "cursor-agent"] and len(words) == 5
    assert words[4].startswith("Continue this earlier work.\n\n# Context from a past session: Migrations fail")
    assert subprocess.run(["sh", "-n", "-c", line]).returncode == 0


def test_handoff_refuses_a_folder_that_is_gone_as_resume_does(work: Work) -> None:
    work.api.rename(work.root / "moved")
    result = work.deja("handoff", DB_DOWN_CHAT, cwd=work.root)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"deja: {DB_DOWN_CHAT} ran in {work.api}, which is gone; in the folder the work goes on in, "
        f'`cursor-agent "$(deja ctx {DB_DOWN_CHAT})"` starts a chat with its digest\n'
    )


def test_ctx_and_handoff_by_words_name_the_other_sessions_that_match(work: Work) -> None:
    """``deja ctx double charge`` chose one chat of three that matched and said nothing of the others, and
    ``deja handoff`` took no words at all (trial20 F15): both take words, and name the runners-up on stderr."""
    ran = work.deja("ctx", "per-customer", "limit")
    assert ran.returncode == 0 and ran.stdout.startswith("# Context from a past session"), ran.stderr
    chosen = work.json("ctx", "per-customer", "limit")["session"]["id"]
    others = [
        hit["session_id"] for hit in work.json("search", "per-customer", "limit")["hits"] if hit["session_id"] != chosen
    ]
    assert len(others) >= 2
    assert ran.stderr == f"deja: also matching: {', '.join(others[:2])}; give an id to take one of them\n"
    line = work.deja("handoff", "per-customer", "limit")
    assert line.returncode == 0 and shlex.split(line.stdout)[:4] == ["cd", str(work.api), "&&", "cursor-agent"]
    assert line.stderr == ran.stderr
    by_id = work.deja("ctx", DB_DOWN_CHAT)
    assert by_id.returncode == 0 and by_id.stderr == ""
    assert "``" not in work.deja("handoff", "--help").stdout


# --------------------------------------------------------------------------- show windows and export


def test_show_windows_a_long_session(work: Work) -> None:
    data = work.json("show", DB_DOWN_CHAT, "--offset", "1", "--limit", "2")
    assert data["window"] == {"offset": 1, "returned": 2, "total": len(work.json("show", DB_DOWN_CHAT)["messages"])}
    text = work.deja("show", DB_DOWN_CHAT, "--limit", "2").stdout
    assert text.rstrip().endswith("for the next ones)") and f"deja show {DB_DOWN_CHAT} --offset 2" in text
    assert work.deja("show", DB_DOWN_CHAT, "--limit", "201").returncode == 2


class _Page(HTMLParser):
    """What a browser would build from the page: elements, text, and any reference to another file."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and not value.endswith(".html"):
                self.external.append(value)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_export_html_is_one_self_contained_page_with_every_message_kind(work: Work, tmp_path: Path) -> None:
    out = tmp_path / "db.html"
    assert work.deja("export", DB_DOWN_CHAT, "--format", "html", "-o", str(out)).returncode == 0
    page = _Page()
    page.feed(out.read_text())
    text = "".join(page.text)
    assert page.external == [] and "script" not in page.tags
    assert page.tags.count("details") == 3  # one collapsible block per tool call
    assert "alembic upgrade head (exit 1)" in text and DB_ERROR in text  # the failed call and its output
    assert "alembic upgrade fails locally" in text and "Postgres was not running" in text
    edits = tmp_path / "edit.html"
    work.deja("export", RAISE_CHAT, "-f", "html", "-o", str(edits))
    assert "-PER_CUSTOMER_LIMIT = 100" in edits.read_text() and "+PER_CUSTOMER_LIMIT = 250" in edits.read_text()
    ide = work.deja("export", IDE_CHAT, "-f", "html").stdout
    assert "<script>" not in ide and "&lt;script&gt;" in ide  # a title is text, never markup


def test_export_markdown_and_json(work: Work) -> None:
    markdown = work.deja("export", RAISE_CHAT).stdout
    assert markdown.startswith("# Raise the per-customer limit\n")
    assert "```diff\n--- before\n+++ after" in markdown and "+PER_CUSTOMER_LIMIT = 250" in markdown
    data = json.loads(work.deja("export", RAISE_CHAT, "--format", "json").stdout)
    assert data["session"]["id"] == RAISE_CHAT and data["messages"][0]["role"] == "user"


def test_export_names_a_tool_as_show_does_and_its_json_as_stored(work: Work) -> None:
    """An older editor build's ``run_terminal_cmd`` is ``⚙ Shell`` in ``deja show`` and was ``run_terminal_cmd`` in
    the Markdown and HTML exports of the same chat (trial58 T8); the JSON keeps the name the chat stored."""
    command = "grep -n LIMIT api/limits.py"
    assert f"⚙ Shell {command}\n" in work.deja("show", IDE_CHAT).stdout
    assert f"- **Shell: {command}** (exit 0)\n" in work.deja("export", IDE_CHAT).stdout
    page = _Page()
    page.feed(work.deja("export", IDE_CHAT, "-f", "html").stdout)
    assert f"Shell: {command} (exit 0)" in "".join(page.text) and "run_terminal_cmd" not in "".join(page.text)
    data = json.loads(work.deja("export", IDE_CHAT, "--json").stdout)
    assert [call["name"] for m in data["messages"] for call in m.get("tool_calls", [])] == ["run_terminal_cmd"]


def test_export_a_project_writes_a_folder_with_an_index_page(work: Work, tmp_path: Path) -> None:
    folder = tmp_path / "api-export"
    result = work.deja("export", "--project", "api", "-f", "html", "-o", str(folder))
    assert (result.returncode, result.stdout) == (0, "")  # its note on stderr, as one session's (trial23 F7.4)
    assert result.stderr.startswith("wrote 6 sessions and index.html"), result.stderr
    names = sorted(p.name for p in folder.iterdir())
    assert "index.html" in names and f"{WRITE_CHAT}.html" in names and len(names) == 7
    page = _Page()
    page.feed((folder / "index.html").read_text())
    assert page.tags.count("a") == 6
    assert work.deja("export", "--project", "api").returncode == 2  # a folder is needed
    assert work.deja("export", RAISE_CHAT, "-f", "pdf").returncode == 2


def test_export_html_renders_in_a_headless_browser(work: Work, tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("no headless Chromium installed: the page is checked by parsing only")
    out = tmp_path / "page.html"
    work.deja("export", DB_DOWN_CHAT, "-f", "html", "-o", str(out))
    shot = tmp_path / "page.png"
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1000,1400",
            out.as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.is_file() and shot.stat().st_size > 10_000


# --------------------------------------------------------------------------- the MCP tool


def test_the_mcp_work_tool_answers_every_mode_within_its_budget(work: Work) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    assert work.deja("index").returncode == 0  # the server never builds inline
    params = StdioServerParameters(command=ENTRY[0], args=[*ENTRY[1:], "mcp"], env=work.env, cwd=str(work.api))
    answers: dict[str, Any] = {}

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                for mode, query in (
                    ("blame", f"{work.limits}:2"),
                    ("files", "limit"),
                    ("fix", DB_ERROR),
                    ("how", "alembic upgrade"),
                    ("wip", str(work.api)),
                    ("ctx", DB_DOWN_CHAT),
                ):
                    answers[mode] = await session.call_tool("work", {"mode": mode, "query": query})
                answers["bad"] = await session.call_tool("work", {"mode": "fix", "query": " "})

    anyio.run(main)
    for mode in ("blame", "files", "fix", "how", "wip", "ctx"):
        result = answers[mode]
        assert not result.is_error, (mode, result.content)
        assert len(result.content[0].text.encode()) <= 4096 and result.structured_content
    assert "according to Cursor's AI attribution" in answers["blame"].content[0].text
    assert answers["fix"].structured_content["occurrences"][1]["resolved_by"] == "alembic upgrade head"
    assert answers["ctx"].content[0].text.startswith("# Context from a past session: Migrations fail")
    assert answers["bad"].is_error and "needs a query" in answers["bad"].content[0].text
