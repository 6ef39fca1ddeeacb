"""What followed a past error is shown only when it is about that error; otherwise ``deja fix``, the MCP ``work``
tool and the failure hook say in one line that the session shows no fix (trialG F2).

A chat moves on: a ``psql`` failure in a chat about a Stripe webhook was never fixed there, and the next answer
(the webhook fix) and its edit of ``webhooks.py`` were shown as what followed the error and what was edited, and
the failure hook added the chat's last answer (rotating a GitHub token) as what it concluded.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

from deja.core import paths
from deja.core.index import Index
from deja.core.work import NO_FIX
from deja.core.writers.ide import composer_data, tool_former_data, write_state_vscdb

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms
ERROR = "psql: error: connection refused"
UNRELATED = "The webhook handler parses the JSON body before verifying: Stripe needs the raw bytes."
LAST = "Rotate the token: it was posted in chat. Use `gh auth login` instead."
ABOUT = "psql could not connect: the db container was stopped. Started it with `docker compose up -d db`."


def _failed_psql(at: int) -> dict[str, object]:
    psql = tool_former_data("run_terminal_command_v2", {"command": "psql -h db -U shop"}, {"output": ERROR, "exitCode": 2})  # fmt: skip
    return {"type": 2, "text": "", "createdAt": at, "toolFormerData": psql}


def _edit(path: str) -> dict[str, object]:
    return tool_former_data("edit_file", {"target_file": path, "code_edit": "x = 1"}, {"diff": "+ x = 1"})


def _history(home: Path) -> Path:
    """Two editor chats that hit the psql error: one that moved on to other things (the newer), one that fixed it."""
    shop = home / "code" / "shop"
    stripe = [
        {"type": 1, "text": "checkout fails: stripe says no signatures found", "createdAt": T0 + 100_000},
        _failed_psql(T0 + 101_000),
        {"type": 2, "text": UNRELATED, "createdAt": T0 + 102_000, "toolFormerData": _edit(str(shop / "webhooks.py"))},
        {"type": 1, "text": "thanks. also my github token stopped working", "createdAt": T0 + 103_000},
        {"type": 2, "text": LAST, "createdAt": T0 + 104_000},
    ]
    database = [
        {"type": 1, "text": "the app cannot reach the database", "createdAt": T0},
        _failed_psql(T0 + 1000),
        {
            "type": 2,
            "text": "Checking the app first.",
            "createdAt": T0 + 2000,
            "toolFormerData": _edit(str(shop / "app.py")),
        },  # fmt: skip
        {"type": 2, "text": ABOUT, "createdAt": T0 + 3000, "toolFormerData": _edit(str(shop / "compose.yml"))},
    ]
    chats = {"c-stripe": ("Checkout fails with Stripe webhook signature error", stripe), "c-db": ("Database down", database)}  # fmt: skip
    composers, bubbles = {}, {}
    for cid, (name, said) in chats.items():
        ids = [(f"b{i}", int(bubble["type"])) for i, bubble in enumerate(said)]  # type: ignore[call-overload]
        composers[cid] = composer_data(cid, ids, created_at=int(said[0]["createdAt"]), name=name)  # type: ignore[call-overload]
        bubbles[cid] = {bid: bubble for (bid, _), bubble in zip(ids, said, strict=True)}
    write_state_vscdb(
        home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb", composers=composers, bubbles=bubbles
    )
    assert run_deja("index").returncode == 0
    return shop


def test_deja_fix_says_a_session_that_moved_on_shows_no_fix_and_gives_the_answer_about_it_where_one_is(
    fake_home: Path,
) -> None:
    _history(fake_home)
    text = run_deja("fix", ERROR)
    assert text.returncode == 0, text.stderr
    stripe, database = text.stdout.split("(deja show c-stripe)")[1].split("(deja show c-db)")
    assert f"  {NO_FIX}" in stripe and UNRELATED not in stripe and "webhooks.py" not in stripe, text.stdout
    assert f"what followed: {ABOUT}" in database and "compose.yml" in database, text.stdout
    assert "app.py" not in database  # edited before the answer about it, by an answer about something else
    occurrences = json.loads(run_deja("fix", ERROR, "--json").stdout)["occurrences"]
    moved_on, fixed = occurrences
    assert (moved_on["session"]["id"], moved_on["shows_fix"], moved_on["answer"], moved_on["edited"]) == (
        "c-stripe",
        False,
        "",
        [],
    )
    assert (fixed["session"]["id"], fixed["shows_fix"], fixed["answer"]) == ("c-db", True, ABOUT)


def test_the_mcp_work_tool_says_what_deja_fix_says(fake_home: Path) -> None:
    from deja.interfaces.mcp_server import work_answer

    _history(fake_home)
    text, data = work_answer(Index.open(paths.deja_home()), "fix", ERROR, None)
    assert text == run_deja("fix", ERROR).stdout.rstrip("\n")
    assert [o["shows_fix"] for o in data["occurrences"]] == [False, True]


def test_the_failure_hook_says_in_one_line_that_the_latest_session_shows_no_fix(fake_home: Path) -> None:
    shop = _history(fake_home)
    payload = {
        "conversation_id": "conv-now",
        "hook_event_name": "postToolUseFailure",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(shop)],
        "tool_name": "Shell",
        "tool_input": {"command": "psql -h db -U shop"},
        "error_message": ERROR,
    }
    ran = run_deja("hook-tool-after", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    recalled = json.loads(ran.stdout)["additional_context"]
    assert "`deja show c-stripe`" in recalled and "That session shows no fix for this error." in recalled, recalled
    assert "What followed" not in recalled and "Concluded" not in recalled and "Rotate the token" not in recalled
