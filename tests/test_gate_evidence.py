"""The prompt gate's evidence: a session that answers a prompt in one exchange is recalled, one whose words only
scatter over it is not and the decision log says so, and a number the history never printed counts as unknown.

The unit test takes the unseen-number weight alone; the others run ``deja hook-prompt`` as Cursor runs it, on chats
written as cursor-agent transcripts, and read back ``deja hooks log``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import hook_prompt, index_cli_root, last_hook_decision

from deja.core.search import SearchResult
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.hooks.prompt import GATES, Asked


@pytest.mark.unit
def test_a_number_no_session_ever_printed_weighs_like_an_unseen_name() -> None:
    """``503`` that no command printed says the prompt is about something else; one the history holds is a term."""
    asked = Asked(
        "nginx returned 503", ["nginx", "return", "503"], SearchResult("", 1, [], {"nginx": 5.0, "return": 2.0}), 9.0
    )
    assert asked.weights["503"] == pytest.approx(27.0)
    seen = Asked(
        "nginx returned 503",
        ["nginx", "return", "503"],
        SearchResult("", 1, [], {"nginx": 5.0, "return": 2.0, "503": 6.0}),
        9.0,
    )
    assert seen.weights["503"] == pytest.approx(6.0)


# --- as a user sees it --------------------------------------------------------------------------------------

PROJECT = "/home/dev/src/billing"
#: A session that settled the nightly export hanging on the replica, in one exchange.
ANSWERED = [
    ("user", "The nightly invoice export hangs on the read replica and never finishes. Why?"),
    (
        "assistant",
        "The export runs a long transaction on the replica while replication applies a vacuum: the replica waits "
        "for the query and the export hangs on the conflict. Setting hot_standby_feedback fixed the nightly run.",
    ),
]
#: A long session about other things that says four words of one prompt, each once, far apart.
SCATTERED = [
    ("user", "Add a CSV download button to the admin customers page."),
    ("assistant", "Added the button; the rows are streamed so a long customer list does not time out."),
    ("user", "The invoice PDF has a blurry logo."),
    ("assistant", "It was a 72 dpi PNG; I replaced it with the SVG from the brand folder."),
    ("user", "Tests are red on main since this morning."),
    ("assistant", "A fixture created two customers with one email; the emails are unique per test now."),
    ("user", "Can you bump the pinned requests version?"),
    ("assistant", "Bumped requests to 2.32 and regenerated the lock file."),
    ("user", "Rename the reminder job so it matches the docs."),
    ("assistant", "Renamed it in the scheduler and updated the runbook link."),
    ("user", "The admin table is slow with thousands of rows."),
    ("assistant", "It rendered every row; it is virtualised now, so the browser draws only the visible ones."),
]
#: Sessions that each say one of those words too.
OTHERS = [
    [
        ("user", "Set up the read replica for the reporting database."),
        ("assistant", "Created the replica with streaming replication; the scheduler starts the reports at six."),
    ],
    [
        ("user", "Make the nightly backup keep fourteen days."),
        ("assistant", "The backup job now prunes archives older than fourteen days; the logo bucket is left alone."),
    ],
    [
        ("user", "Export the monthly revenue numbers to the finance sheet."),
        ("assistant", "Wrote a script that exports revenue by month; its test uses a fixture with two months."),
    ],
]


@pytest.fixture
def billing(tmp_path: Path) -> dict[str, str]:
    """The chats above as cursor-agent transcripts, indexed; deja's environment pointed at them."""
    cli_root = tmp_path / "cursor-agent"
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    chats = {"c-answered": ANSWERED, "c-scattered": SCATTERED} | {f"c-other-{i}": c for i, c in enumerate(OTHERS)}
    for day, (chat, turns) in enumerate(chats.items()):
        records = [
            user_turn(text, start + timedelta(days=day)) if role == "user" else assistant_turn(text)
            for role, text in turns
        ]
        write_transcript(transcript_path(cli_root, PROJECT, chat), records)
    return index_cli_root(tmp_path, cli_root)


def _prompt(env: dict[str, str], prompt: str) -> str:
    return hook_prompt(env, prompt, PROJECT)


def test_a_session_that_answers_the_prompt_in_one_exchange_is_given(billing: dict[str, str]) -> None:
    given = _prompt(billing, "why did the nightly invoice export keep hanging on the replica?")
    assert "deja show c-answered" in given and "hot_standby_feedback" in given
    assert "c-scattered" not in given
    assert str(last_hook_decision(billing)["notes"]).startswith("recalled c-answer: ")


def test_a_prompt_whose_words_only_scatter_over_a_session_gets_nothing_and_the_log_says_why(
    billing: dict[str, str],
) -> None:
    """The long session says "scheduler", "browser", "logo" and "fixture", each in another exchange: it ranks first
    and holds much of the prompt, but its best message little, and the log gives both."""
    given = _prompt(billing, "why did the scheduler freeze the browser while the logo fixture loaded?")
    assert given == ""
    why = str(last_hook_decision(billing)["why"])
    assert why.startswith("no match was strong enough for recall=safe (the best, c-scatte, ")
    held = re.search(r"holds (\d+)% of what the prompt asks, its best message (\d+)%", why)
    assert held and int(held.group(2)) < 100 * GATES["safe"].best_share < int(held.group(1))


#: A stylesheet chat full of hex colours, whose parts (``#b3b3b3``: ``b``, ``3``) are single letters and digits.
COLOURS = [
    ("user", "Give the dark theme its grey steps."),
    (
        "assistant",
        "Set --ion-color-step-250: #bfbfbf; --ion-color-step-300: #b3b3b3; --ion-color-step-350: #a6a6a6; "
        "--ion-color-step-400: #b9b9b9 in variables.scss.",
    ),
]


def test_a_reply_that_names_only_a_letter_recalls_nothing(tmp_path: Path) -> None:
    """ "yes, plan B" asks nothing of the history: the ``b`` of a hex colour does not make a stylesheet chat its
    answer (it held "100% of what the prompt asks")."""
    cli_root = tmp_path / "cursor-agent"
    chats = {"c-colours": COLOURS} | {f"c-other-{i}": c for i, c in enumerate(OTHERS)}
    for chat, turns in chats.items():
        records = [user_turn(text) if role == "user" else assistant_turn(text) for role, text in turns]
        write_transcript(transcript_path(cli_root, PROJECT, chat), records)
    env = index_cli_root(tmp_path, cli_root)
    for reply in ("yes, plan B", "go with option b", "b", "is it a or b for the rollout?"):
        assert _prompt(env, reply) == "", reply
    # The last one is no mere reply (the history never says "rollout"): the gate weighed it, its "b" at nothing.
    assert "holds 0% of what the prompt asks" in str(last_hook_decision(env)["why"])
