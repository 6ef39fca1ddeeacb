"""``deja fix`` on an error only printed or pasted lists the sessions likeliest to tell the fix first, and a chat that
ended mid-turn gives no answer.

By date alone, four newer ``rg -n ImmatureSignatureError src/`` sessions (a test's ``pytest.raises(…, match=…)``
line: no error happened) and turns that never got an answer filled the five entries shown, and the twelve sessions
whose turn closed on the fix came from the tenth on (review49c M1). And a chat that ended on the agent's next step
("Let me check the node's clock.") gave that step as "answered after it" (review49c M3).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import run_deja, store_shell

from deja.core.work import _code_line
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
SEARCH = "rg -n ImmatureSignatureError src/"
TEST_LINE = f'tests/test_auth.py:40:    with pytest.raises(jwt.exceptions.ImmatureSignatureError, match="{JWT[31:]}"):'
NEXT_STEP = "The tokens look issued in the future. Let me check the node's clock."


def _chat(
    home: Path, chat: str, days: float, calls: list[tuple[str, str]], answers: list[str], asked: str = ""
) -> None:
    """A chat store in ``~/code/infra`` asked ``days`` ago: its ask (``asked``, else one of its own), the Shell
    ``calls`` (command, output; each exits 0), then ``answers``, and nothing after them."""
    project = home / "code" / "infra"
    project.mkdir(parents=True, exist_ok=True)
    messages = [*store_preamble(str(project)), store_user_message(asked or f"tokens rejected ({chat})", _ago(days))]
    for i, (command, output) in enumerate(calls):
        messages += store_shell(f"t{i}", command, output, 0)
    messages += [store_assistant_message(answer) for answer in answers]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=chat, messages=messages)


def _ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def _listed(*arguments: str) -> list[str]:
    ran = run_deja("fix", JWT, "--json", *arguments)
    assert ran.returncode == 0, ran.stderr
    return [found["session"]["id"] for found in json.loads(ran.stdout)["occurrences"]]


def test_fixes_come_before_code_searches_and_turns_no_answer_closed(fake_home: Path) -> None:
    for n in range(6):  # the oldest: the logs printed it, and the turn closed on the fix
        _chat(fake_home, f"fixed{n}", 30 - n, [(LOGS, f"ERROR auth: {JWT}")], [f"Fixed ({n}): chrony is enabled."])
    for n in range(3):  # newer: a search of the code prints a test's line
        _chat(fake_home, f"search{n}", 2 + n, [(SEARCH, TEST_LINE)], ["We catch it in src/auth.py and return 401."])
    for n in range(2):  # newer: the chat ended on the grep, no answer after it
        _chat(fake_home, f"open{n}", 5 + n, [(LOGS, f"ERROR auth: {JWT}")], [])
    _chat(fake_home, "ended-mid-turn", 1, [(LOGS, f"ERROR auth: {JWT}")], [NEXT_STEP])
    _chat(fake_home, "pasted", 40, [], ["Fixed: the api takes leeway=30 now."], asked=f"the api says {JWT}")
    assert run_deja("index").returncode == 0
    assert _listed() == ["pasted", "fixed5", "fixed4", "fixed3", "fixed2"]
    assert _listed("--limit", "20") == [
        "pasted",  # (pasted or quoted before printed, among those a closing answer settles)
        *(f"fixed{n}" for n in range(5, -1, -1)),
        "ended-mid-turn",
        "open0",
        "open1",
        *(f"search{n}" for n in range(3)),  # a code search's match last, whatever its answer
    ]
    shown = run_deja("fix", JWT).stdout
    assert shown.startswith(
        "no failed command printed this error; it was written or printed in 13 past sessions, the 5 likeliest to "
        "hold the fix:\n"
    ), shown


def test_a_chat_that_ended_on_the_agents_next_step_gives_no_answer(fake_home: Path) -> None:
    _chat(fake_home, "ended-mid-turn", 1, [(LOGS, f"ERROR auth: {JWT}")], [NEXT_STEP])
    _chat(fake_home, "ended-on-the-fix", 2, [(LOGS, f"ERROR auth: {JWT}")], [NEXT_STEP, "Fixed: chrony is enabled."])
    assert run_deja("index").returncode == 0
    ran = run_deja("fix", JWT)
    assert "Let me check" not in ran.stdout, ran.stdout
    assert ran.stdout.count("answered after it:") == 1 and "answered after it: Fixed: chrony" in ran.stdout, ran.stdout
    occurrences = json.loads(run_deja("fix", JWT, "--json").stdout)["occurrences"]
    assert {found["session"]["id"]: found["answer"] for found in occurrences} == {
        "ended-on-the-fix": "Fixed: chrony is enabled.",
        "ended-mid-turn": "",
    }


def test_a_turn_that_closed_on_a_question_to_the_user_gives_what_it_found_or_none(fake_home: Path) -> None:
    """A closing question to the user ("Can you share…?", "Would you like me to…?") answered nothing: the turn's last
    answer that said what was found stands for it, and a turn of questions alone gives none (fixn49)."""
    found = "The tokens look issued in the future: the node's clock is 40 s ahead."
    asked = "Can you share the output of `timedatectl` on that node?"
    _chat(fake_home, "found-then-asked", 1, [(LOGS, f"ERROR auth: {JWT}")], [found, asked])
    _chat(fake_home, "only-asked", 2, [(LOGS, f"ERROR auth: {JWT}")], ["Would you like me to restart the api pods?"])
    _chat(
        fake_home, "fixed-then-offered", 3, [(LOGS, f"ERROR auth: {JWT}")], ["Fixed: chrony. Want me to add a check?"]
    )
    assert run_deja("index").returncode == 0
    ran = run_deja("fix", JWT)
    assert f"answered after it: {found}" in ran.stdout and "timedatectl" not in ran.stdout, ran.stdout
    assert "restart the api pods" not in ran.stdout, ran.stdout
    occurrences = json.loads(run_deja("fix", JWT, "--json").stdout)["occurrences"]
    assert {entry["session"]["id"]: entry["answer"] for entry in occurrences} == {
        "found-then-asked": found,
        "fixed-then-offered": "Fixed: chrony. Want me to add a check?",
        "only-asked": "",
    }


WATCH = "Error: ENOSPC: System limit for number of file watchers reached"


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        (
            "1. Run `sudo sysctl -w fs.inotify.max_user_watches=524288`\n2. Restart the dev server\n\nDid that work?",
            "max_user_watches",
        ),
        ("Try this:\n\n```\nsudo sysctl -w fs.inotify.max_user_watches=524288\n```\n\nDid that work?", "Try this"),
    ],
)
def test_fix_keeps_a_code_answer_that_closes_on_did_that_work(fake_home: Path, answer: str, shown: str) -> None:
    """An editor chat's answer giving the fix as steps or code, then "Did that work?", answered: it is no question
    alone (review50a M2)."""
    project = fake_home / "code" / "web"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message(f"npm run dev says {WATCH}"),
        store_assistant_message(answer),
    ]
    write_chat_store(
        chat_dir_for(fake_home / ".cursor", str(project), "c-ed"), cwd=str(project), name="c-ed", messages=messages
    )
    assert run_deja("index").returncode == 0
    print(run_deja("fix", WATCH).stdout)
    occurrences = json.loads(run_deja("fix", WATCH, "--json").stdout)["occurrences"]
    assert shown in occurrences[0]["answer"], occurrences


@pytest.mark.parametrize(
    ("line", "command", "of_a_file"),
    [
        (TEST_LINE, SEARCH, True),
        ("src/auth.py:12:        raise ImmatureSignatureError(msg)", "git grep -n ImmatureSignatureError", True),
        ("./src/auth.py:12:raise ImmatureSignatureError(msg)", "grep -rn ImmatureSignatureError .", True),
        (f"ERROR auth: {JWT}", LOGS, False),  # (a log grepped: what happened)
        (f"logs/api.log:12:ERROR auth: {JWT}", "grep -rn jwt logs/", False),  # (a log file's match)
        (f"auth.go:45: {JWT}", "kubectl logs deploy/api", False),  # (a Go log line names its file: no search)
        (f"src/auth.py:12: {JWT}", "git log -p", False),
        ("    40|        raise ImmatureSignatureError(msg)", None, True),  # (Cursor's Read tool)
        (TEST_LINE, None, True),  # (Cursor's Grep tool)
        (f"ERROR auth: {JWT}", None, False),
    ],
)
def test_a_line_of_a_file_read_or_searched_is_told_from_one_that_happened(
    line: str, command: str | None, of_a_file: bool
) -> None:
    assert _code_line(line, command) is of_a_file
