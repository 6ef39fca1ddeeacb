"""``deja fix`` on an error a command printed without failing, and the answer it gives after an error a chat holds.

Finding an error by grepping logs is the usual way: ``kubectl logs deploy/api | grep jwt`` exits 0 and prints the
``ImmatureSignatureError``; ``kubectl describe pod`` exits 0 and prints ``Exit Code: 137``. ``deja fix`` said "this
error has not come up in a past session" of both, while ``deja search`` put the chat first with the line as its
snippet: only failed calls and the messages' own text were looked at (trial48b F3). And what it gave as "answered
after it" was the next answer ("… Let me see what comes back."), not the answer that closed the turn, which the
prompt hook shows for the same turn (trial48b F6).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import index_chats, run_deja, store_shell

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

NOW = datetime.now(UTC).replace(second=0, microsecond=0)
JWT = "jwt.exceptions.ImmatureSignatureError: The token is not yet valid (iat)"
LOGS = "kubectl logs deploy/api --since=1h | grep jwt"
LOOKING = "The tokens are rejected as issued in the future. Let me check the node's clock."
FIXED = "Fixed: the node's clock ran 40 s ahead; chrony is enabled and jwt.decode takes leeway=30."
DESCRIBE = "kubectl describe pod worker-7d9f"
KILLED = "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137"
RAISED = "The worker was killed for memory: its limit is 2Gi now and the batch size 500."


def _chat(home: Path, chat: str, asked: str, calls: list[tuple[str, str, int]], answers: list[str]) -> None:
    """A chat store in ``~/code/infra``: ``asked``, then ``answers[0]``, the Shell ``calls`` (command, output, exit
    code), and the other answers, written by cursor-agent's writer."""
    project = home / "code" / "infra"
    project.mkdir(parents=True, exist_ok=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message(asked, NOW - timedelta(days=3)),
        store_assistant_message(answers[0]),
    ]
    for i, (command, output, code) in enumerate(calls):
        messages += store_shell(f"t{i}", command, output, code)
    messages += [store_assistant_message(answer) for answer in answers[1:]]
    messages.append(store_user_message("now bump the changelog", NOW - timedelta(days=3) + timedelta(minutes=30)))
    messages.append(store_assistant_message("Added a 0.14.2 entry to CHANGELOG.md."))
    write_chat_store(
        chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=asked, messages=messages
    )


def _index() -> None:
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr


def test_an_error_a_grep_of_the_logs_printed_is_found_with_the_turns_closing_answer(fake_home: Path) -> None:
    log = f"2026-12-01T10:02:11Z ERROR auth: {JWT}"
    _chat(
        fake_home, "f49-jwt", "the api rejects fresh tokens", [(LOGS, log, 0), ("date -u", "Tue", 0)], [LOOKING, FIXED]
    )
    _index()
    assert run_deja("search", "ImmatureSignatureError").stdout.splitlines()[1].startswith("  f49-jwt ")
    ran = run_deja("fix", JWT)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("no failed command printed this error; it was written or printed in 1 past session"), (
        ran.stdout
    )
    assert "deja show f49-jwt" in ran.stdout, ran.stdout
    assert f"  printed by: {LOGS}\n  output: {log}\n" in ran.stdout, ran.stdout
    assert f"  answered after it: {FIXED}" in ran.stdout and "fixed by" not in ran.stdout, ran.stdout
    assert LOOKING not in ran.stdout and "CHANGELOG" not in ran.stdout, ran.stdout
    (found,) = json.loads(run_deja("fix", JWT, "--json").stdout)["occurrences"]
    assert found["mentioned"] is True and found["command"] == LOGS and found["answer"] == FIXED


def test_exit_code_137_in_a_describe_that_exited_0_is_found(fake_home: Path) -> None:
    _chat(fake_home, "f49-oom", "the worker keeps restarting", [(DESCRIBE, KILLED, 0)], ["Describing the pod.", RAISED])
    _index()
    ran = run_deja("fix", "Exit Code: 137")
    assert "has not come up" not in ran.stdout, ran.stdout
    assert f"  printed by: {DESCRIBE}\n  output: Exit Code: 137\n" in ran.stdout, ran.stdout
    assert f"  answered after it: {RAISED}" in ran.stdout, ran.stdout


def test_a_failed_command_that_printed_the_error_is_still_what_is_shown(fake_home: Path) -> None:
    """The failed call's episode, which can say what fixed it, comes before a chat whose logs only showed the error."""
    _chat(fake_home, "f49-logs", "the api rejects fresh tokens", [(LOGS, JWT, 0)], [LOOKING, FIXED])
    _chat(
        fake_home,
        "f49-failed",
        "the token test fails",
        [("pytest tests/test_auth.py -q", f"E   {JWT}", 1), ("pytest tests/test_auth.py -q", "3 passed", 0)],
        ["Running the auth tests.", "The test's clock is frozen now."],
    )
    _index()
    ran = run_deja("fix", JWT)
    assert ran.stdout.startswith("this error came up in 1 past session"), ran.stdout
    assert "deja show f49-failed" in ran.stdout and "f49-logs" not in ran.stdout, ran.stdout


def test_a_pasted_errors_answer_is_the_one_that_closed_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cors = "Response to preflight request doesn't pass access control check: No 'Access-Control-Allow-Origin'"
    next_step = "The browser sends an OPTIONS preflight first. Let me see what comes back."
    closing = "Fixed: the nginx proxy now answers OPTIONS with the Allow-Origin header for the dashboard's origin."
    index_chats(tmp_path, monkeypatch, {"c-cors": [cors, next_step, closing]})
    ran = run_deja("fix", "Response to preflight request doesn't pass access control check")
    assert ran.stdout.startswith("no failed command printed this error; it was written in 1 past session"), ran.stdout
    assert f"  answered after it: {closing}" in ran.stdout and next_step not in ran.stdout, ran.stdout


def test_a_search_asking_how_it_was_fixed_shows_the_turns_closing_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first hit of a query asking how something was fixed shows the answer that closed its best turn, not only
    the question and the diagnosis (trial48b F6); a query that asks no such thing shows its best passages."""
    asked = "why is docker rebuilding everything every time, even the pip install layer?"
    cause = "The Dockerfile runs COPY . /app before pip install, so any change rebuilds every layer after it."
    fixed = "Now requirements.txt is copied and installed first, with a BuildKit cache mount for pip: 20 s a change."
    index_chats(tmp_path, monkeypatch, {"c-docker": [asked, cause, "Trying the build again.", fixed]})
    (hit,) = json.loads(run_deja("search", "how did we fix docker rebuilding everything", "--json").stdout)["hits"]
    assert [s["text"] for s in hit["snippets"]][-1] == fixed, hit["snippets"]
    (plain,) = json.loads(run_deja("search", "docker rebuilding everything", "--json").stdout)["hits"]
    assert fixed not in [s["text"] for s in plain["snippets"]], plain["snippets"]
