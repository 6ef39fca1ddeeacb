"""``deja fix`` on a cursor-agent turn that failed with two errors, one of them three times (its calls are one
message): the session is listed once, with the error asked about and what followed it; the tail of an error finds
it as ``deja search`` does; the MCP ``work`` tool and the failure hook count the same one session.

Before, each failed call of the message was its own entry, each shown with the message's first error, and a
partial error was looked for in that first failed call alone; the CLI, the MCP tool and the hook each counted the
failed calls they read (5, 3 and 1 for one session).
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)

PSQL = 'psql: error: connection to server at "db", port 5432 failed: FATAL:  password authentication failed for user "shop"'
ROLE = 'sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) FATAL: role "shop" does not exist'
ANSWER = "Fixed: the role is shop_app."


def _history(home: Path) -> Path:
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    calls = [("psql -h db -U shop -c 'select 1'", PSQL, 2)] + [("alembic upgrade head", ROLE, 1)] * 3
    messages = [*store_preamble(str(project)), store_user_message("staging deploy fails")]
    for n, (command, output, code) in enumerate([*calls, ("./migrate.sh", "OK", 0)]):
        messages.append(store_assistant_message(None, tool_call_part(f"t{n}", "Shell", {"command": command})))
        messages.append(tool_result_message(f"t{n}", "Shell", shell_result_text(output, exit_code=code)))
    messages.append(store_assistant_message(ANSWER))
    write_chat_store(chat_dir_for(home / ".cursor", str(project), "c-shop"), cwd=str(project), name="Staging deploy", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def _fix(*error: str) -> dict:
    ran = run_deja("fix", *error, "--json")
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def test_a_retried_error_is_one_session_showing_that_error(fake_home: Path) -> None:
    _history(fake_home)
    ran = run_deja("fix", ROLE)
    assert ran.stdout.startswith("this error came up in 1 past session,"), ran.stdout
    assert ran.stdout.count("deja show c-shop") == 1 and f"error: {ROLE}" in ran.stdout, ran.stdout
    assert "password authentication" not in ran.stdout
    (found,) = _fix(ROLE)["occurrences"]
    assert [s["command"] for s in found["steps"]] == ["alembic upgrade head"] * 2 + ["./migrate.sh"]
    assert found["answer"] == ANSWER
    (first,) = _fix(PSQL)["occurrences"]  # the other error of the same message: its own line
    assert first["error"] == PSQL and first["steps"][0]["command"] == "alembic upgrade head"


def test_the_tail_of_an_error_finds_the_failure_that_printed_it(fake_home: Path) -> None:
    _history(fake_home)
    tail = 'FATAL: role "shop" does not exist'
    assert "c-shop" in run_deja("search", tail).stdout
    (found,) = _fix(tail)["occurrences"]
    assert found["session"]["id"] == "c-shop" and found["error"] == ROLE


def _another_session(home: Path) -> None:
    """A session in another project that hit the same error once."""
    project = home / "code" / "billing"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("migrations fail"),
        store_assistant_message(None, tool_call_part("t0", "Shell", {"command": "alembic upgrade head"})),
        tool_result_message("t0", "Shell", shell_result_text(ROLE, exit_code=1)),
        store_assistant_message("Created the role."),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), "c-billing"), cwd=str(project), name="Billing migrations", messages=messages)  # fmt: skip


def test_the_cli_the_mcp_tool_and_the_failure_hook_count_the_same_sessions(fake_home: Path) -> None:
    from deja.interfaces.fastpath import open_index
    from deja.interfaces.mcp_server import work_answer

    _another_session(fake_home)
    project = _history(fake_home)
    text, answer = work_answer(open_index(), "fix", ROLE, None)
    assert text.startswith("this error came up in 2 past sessions, newest first:") and answer["sessions"] == 2, text
    assert sorted(o["session"]["id"] for o in answer["occurrences"]) == ["c-billing", "c-shop"]
    shown = run_deja("fix", ROLE, "--limit", "1").stdout
    assert shown.startswith("this error came up in 2 past sessions, the newest 1:"), shown
    payload = {
        "conversation_id": "conv-new",
        "hook_event_name": "postToolUse",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": "alembic upgrade head"},
        "tool_output": json.dumps({"exitCode": 1, "output": ROLE}),
    }
    ran = run_deja("hook-tool-after", input=json.dumps(payload))
    assert "This error came up before, in 2 past sessions" in json.loads(ran.stdout)["additional_context"]


def test_ctx_lists_a_retried_command_once_at_its_first_failure(fake_home: Path) -> None:
    _history(fake_home)
    ran = run_deja("ctx", "c-shop")
    commands = ran.stdout.split("## Commands that mattered\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert commands == [
        "- `psql -h db -U shop -c 'select 1'` → exit 2",
        "- `alembic upgrade head` → exit 1",
        "- `./migrate.sh` → ok",
    ], ran.stdout


LOAD_KEY = 'Load key "/home/me/.ssh/bastion": invalid format'


def test_the_error_shown_is_the_line_asked_about_not_the_outputs_last_error(fake_home: Path) -> None:
    """trial23 F7.3: ``deja fix 'Load key "…": invalid format'`` showed ``error: ec2-user@…: Permission denied
    (publickey).``, the other line of the same output, for the ssh call that printed both."""
    project = fake_home / "code" / "infra"
    project.mkdir(parents=True)
    output = f"{LOAD_KEY}\nec2-user@bastion.acme.dev: Permission denied (publickey)."
    calls = [("ssh -i ~/.ssh/bastion ec2-user@bastion.acme.dev", output, 255), ("ssh-keygen -y -f ~/.ssh/bastion", "ssh-ed25519 AAAA", 0)]  # fmt: skip
    messages = [*store_preamble(str(project)), store_user_message("ssh to the bastion fails")]
    for n, (command, said, code) in enumerate(calls):
        messages.append(store_assistant_message(None, tool_call_part(f"t{n}", "Shell", {"command": command})))
        messages.append(tool_result_message(f"t{n}", "Shell", shell_result_text(said, exit_code=code)))
    messages.append(store_assistant_message("The key lost its trailing newline; rewrote it, ssh works now."))
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-ssh"), cwd=str(project), name="Bastion", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    for asked in (LOAD_KEY, "invalid format"):
        ran = run_deja("fix", asked)
        assert f"  error: {LOAD_KEY}\n" in ran.stdout and "Permission denied" not in ran.stdout, (asked, ran.stdout)


def _index_a_refresh_that_printed(fake_home: Path, line: str) -> None:
    """A chat store whose one Shell call failed printing ``line`` between a request line and an error line, indexed."""
    project = fake_home / "code" / "infra"
    project.mkdir(parents=True)
    output = f"POST https://auth.example.com/token\n{line}\nError: request failed with status 400"
    messages = [*store_preamble(str(project)), store_user_message("refresh fails")]
    messages.append(store_assistant_message(None, tool_call_part("t0", "Shell", {"command": "./refresh.sh"})))
    messages.append(tool_result_message("t0", "Shell", shell_result_text(output, exit_code=1)))
    messages.append(store_assistant_message("The refresh token expired; logged in again."))
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-tok"), cwd=str(project), name="Token", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0


def test_a_long_output_line_is_shown_by_the_part_that_holds_the_words_asked(fake_home: Path) -> None:
    """review43a M2: a failed call printed a 4 KB JSON body holding `invalid_grant: token expired`: `deja fix` gave
    the whole line as `--json`'s `error`, and the text its first 200 characters, none of the words asked."""
    body = json.dumps({"request": {"scope": "openid " * 600}, "reply": "invalid_grant: token expired"})
    _index_a_refresh_that_printed(fake_home, body)
    shown = '  error: …openid openid openid openid "}, "reply": "invalid_grant: token expired"}\n'
    assert shown in run_deja("fix", "invalid_grant token expired").stdout
    error = json.loads(run_deja("fix", "invalid_grant token expired", "--json").stdout)["occurrences"][0]["error"]
    assert len(error) <= 400 and error.endswith('"reply": "invalid_grant: token expired"}'), error


def test_a_long_minified_line_is_shown_by_the_part_that_holds_the_words_asked(fake_home: Path) -> None:
    """review43d M1: in minified JSON (one space, after ``HTTP/1.1 400``), the window went back to that space and
    showed the line's start, none of the words asked, in the text and in ``--json``."""
    keys = {f"k{i}": f"v{i}" for i in range(400)}
    body = json.dumps({"request": keys, "reply": "invalid_grant: token expired"}, separators=(",", ":"))
    _index_a_refresh_that_printed(fake_home, f"HTTP/1.1 400 {body}")
    shown = run_deja("fix", "invalid_grant token expired").stdout
    assert '"reply":"invalid_grant: token expired"}\n' in shown, shown
    error = json.loads(run_deja("fix", "invalid_grant token expired", "--json").stdout)["occurrences"][0]["error"]
    assert error.endswith('"reply":"invalid_grant: token expired"}'), error
