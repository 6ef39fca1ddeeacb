"""``deja ctx`` says when a later session of the project spoke of reverting a session's work (trial48b F4).

Before, "how did we finally fix the redis too many connections thing" digested the chat that raised max_connections
from 50 to 200, with nothing to say that a session a week later reverted it ("a bigger pool only hid it").
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, turn_ended, user_turn, write_transcript

NOW = datetime.now(UTC).replace(microsecond=0)
BUMP = "c4c4c400-0000-4000-8000-000000000001"
REVERT = "c4c4c400-0000-4000-8000-000000000002"
OTHER = "c4c4c400-0000-4000-8000-000000000003"
REVERT_ASK = (
    "redis memory and client count keep climbing since we raised max_connections. revert that and find the cause"
)
CHATS = {
    BUMP: (10, "redis Too many connections in the api logs during the sale", "Raised max_connections from 50 to 200."),
    REVERT: (4, REVERT_ASK, "Done: reverted max_connections to 50; get_cache() shares one ConnectionPool now."),
    OTHER: (2, "the sidebar is too wide on mobile, revert the last css change", "Reverted the sidebar width."),
}


def _history(home: Path) -> None:
    project = home / "code" / "shop-api"
    project.mkdir(parents=True)
    for chat, (days, ask, answer) in CHATS.items():
        when = NOW - timedelta(days=days)
        records = [user_turn(ask, when), assistant_turn(answer), turn_ended()]
        write_transcript(transcript_path(home / ".cursor", str(project), chat), records)
    assert run_deja("index").returncode == 0


def test_ctx_marks_a_fix_a_later_session_of_the_project_speaks_of_reverting(fake_home: Path) -> None:
    _history(fake_home)
    ctx = run_deja("ctx", BUMP).stdout
    assert "**Reverted later?** A later session of this project, " in ctx, ctx
    assert f"`deja show {REVERT}`), says: {REVERT_ASK}\n" in ctx, ctx
    assert OTHER not in ctx, ctx  # (it speaks of reverting, but of nothing this session's title names)
    shown = json.loads(run_deja("ctx", BUMP, "--json").stdout)
    assert shown["reverted_later"]["session"]["id"] == REVERT and shown["reverted_later"]["says"] == REVERT_ASK


def test_ctx_marks_no_session_nothing_later_speaks_of_reverting(fake_home: Path) -> None:
    _history(fake_home)
    for chat in (REVERT, OTHER):
        ctx = run_deja("ctx", chat).stdout
        assert "Reverted later?" not in ctx, ctx
        assert json.loads(run_deja("ctx", chat, "--json").stdout)["reverted_later"] is None


#: Later chats that speak of reverting without reverting the fix (review49b M1): one asks whether to and is told no,
#: the other reverts a css change in a chat that names the fix's words (the api's logs, the sale) elsewhere.
NO_REVERTS = {
    "negated": [
        (
            "the redis connections graph looks flat since the sale, good. should we revert anything before the release?",
            "No, nothing to revert: the max_connections change holds.",
        )
    ],
    "unrelated line": [
        ("add a sale banner to the api docs page", "Added it."),
        ("the logs show the banner twice, revert the css change", "Reverted the css change."),
    ],
}


def test_ctx_marks_no_fix_a_later_session_only_asks_about_or_reverts_something_else(fake_home: Path) -> None:
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    days, ask, answer = CHATS[BUMP]
    chats = {
        BUMP: (days, [(ask, answer)]),
        REVERT: (3, NO_REVERTS["negated"]),
        OTHER: (2, NO_REVERTS["unrelated line"]),
    }
    for chat, (age, turns) in chats.items():
        when = NOW - timedelta(days=age)
        records = [record for ask, answer in turns for record in (user_turn(ask, when), assistant_turn(answer), turn_ended())]  # fmt: skip
        write_transcript(transcript_path(fake_home / ".cursor", str(project), chat), records)
    assert run_deja("index").returncode == 0
    ctx = run_deja("ctx", BUMP).stdout
    assert "Raised max_connections from 50 to 200." in ctx and "Reverted later?" not in ctx, ctx


#: A later ask that reverts the fix, worded as a request or with a "not"/"without" about something else (review49e M3).
REVERT_ASKS = [
    "can you revert the max_connections fix? redis connections still pile up in the api logs",
    "revert the max_connections bump, the redis pool size fix did not help the api logs",
    "We should not have raised max_connections for the redis api logs; revert it",
    "can we revert the max_connections fix? redis connections still pile up in the api logs",  # (fixw49b)
    # (review50a L1: a bare "No" answers the one asked; it negates no revert)
    "No we need to revert the max_connections fix, redis connections still pile up in the api logs",
    "No you need to revert the max_connections fix, redis connections still pile up in the api logs",
    "no I think we should revert the max_connections fix, redis connections still pile up in the api logs",
    "I can't believe we have to revert the max_connections fix, redis connections still pile up in the api logs",
]


@pytest.mark.parametrize("later_ask", REVERT_ASKS)
def test_ctx_marks_a_fix_a_later_ask_reverts_however_worded(fake_home: Path, later_ask: str) -> None:
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    for chat, days, ask, answer in [(BUMP, *CHATS[BUMP]), (REVERT, 3, later_ask, "Done.")]:
        records = [user_turn(ask, NOW - timedelta(days=days)), assistant_turn(answer), turn_ended()]
        write_transcript(transcript_path(fake_home / ".cursor", str(project), chat), records)
    assert run_deja("index").returncode == 0
    ctx = run_deja("ctx", BUMP).stdout
    assert f"`deja show {REVERT}`), says: " in ctx, ctx


@pytest.mark.parametrize(
    "later_ask",
    [
        "I don't think we need to revert the max_connections fix, the redis api logs look calm",
        "we do not really need to revert the max_connections change for the redis api logs",
        # (stop 50's leftover: "No way" is no answer to a question but a negation of what is to come)
        "No way we are going to revert the max_connections fix, the redis api logs look calm",
        "There is no way we'll revert the max_connections change for the redis api logs",
    ],
)
def test_ctx_marks_no_fix_a_later_ask_says_need_not_be_reverted(fake_home: Path, later_ask: str) -> None:
    """A negation more than three words before "revert", with only hedging and need between, still says no revert is
    wanted (fixw49b: "I don't think we need to revert it" was a revert)."""
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    for chat, days, ask, answer in [(BUMP, *CHATS[BUMP]), (REVERT, 3, later_ask, "Agreed, it holds.")]:
        records = [user_turn(ask, NOW - timedelta(days=days)), assistant_turn(answer), turn_ended()]
        write_transcript(transcript_path(fake_home / ".cursor", str(project), chat), records)
    assert run_deja("index").returncode == 0
    ctx = run_deja("ctx", BUMP).stdout
    assert "Raised max_connections from 50 to 200." in ctx and "Reverted later?" not in ctx, ctx


@pytest.mark.parametrize(
    "later_ask",
    [
        "would we revert the max_connections fix if the redis api logs spike again?",
        "will we revert the max_connections fix? the redis api logs look calm",
        "now we revert the max_connections fix? the redis api logs look calm",
    ],
)
def test_ctx_marks_no_fix_a_later_question_only_weighs_a_revert(fake_home: Path, later_ask: str) -> None:
    """ "would we revert it if…?" and "will we revert it?" weigh a revert; they ask for none (review50a L2)."""
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    for chat, days, ask, answer in [(BUMP, *CHATS[BUMP]), (REVERT, 3, later_ask, "No, the pool fix holds.")]:
        records = [user_turn(ask, NOW - timedelta(days=days)), assistant_turn(answer), turn_ended()]
        write_transcript(transcript_path(fake_home / ".cursor", str(project), chat), records)
    assert run_deja("index").returncode == 0
    ctx = run_deja("ctx", BUMP).stdout
    assert "Raised max_connections from 50 to 200." in ctx and "Reverted later?" not in ctx, ctx
