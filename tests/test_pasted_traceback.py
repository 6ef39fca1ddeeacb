"""An error pasted whole finds the session that met it: a path quoted in it (``File "…", line N``, every Python
traceback) is another machine's, and must not make every session fail a phrase (trial17 F1). In ``deja search``
(text and JSON), the MCP ``search`` tool and the prompt hook alike; a phrase a session does hold still narrows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import hook_prompt, run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

PROJECT = "/home/dev/code/shop"
#: What CI printed, in the session that fixed it.
CI_TRACEBACK = """Traceback (most recent call last):
  File "/home/runner/work/shop/shop/app/pricing.py", line 88, in apply_discount
    rate = DISCOUNTS[customer.tier]
KeyError: 'platinum'"""
#: The same error as the user's laptop prints it.
LAPTOP_TRACEBACK = CI_TRACEBACK.replace("/home/runner/work/shop/shop", "/Users/me/code/shop")
CHATS = {
    "c-ci-pricing": [
        f"CI fails in pricing:\n{CI_TRACEBACK}",
        "The platinum tier was missing from DISCOUNTS; added it with a default rate, and apply_discount now "
        "falls back to no discount for an unknown tier.",
    ],
    "c-import": [
        'Traceback (most recent call last):\n  File "tests/test_utils.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'utils'",
        "The tests folder had no conftest adding the package root to the path; installed it with pip install -e .",
    ],
    "c-orders": [
        "KeyError: 'currency' in the orders export",
        "The export read a column the CSV no longer has; it takes the currency from the order row now.",
    ],
    "c-styles": [
        "The pricing page table overflows on phones.",
        "Made the pricing table scroll sideways below 600px.",
    ],
}
#: Other work, so that the words of the error are rare in the history, as in a real one.
OTHER_WORK = [
    ("Bump the linter to the new major version.", "Bumped it and fixed the three rules it renamed."),
    ("The login page flickers on load.", "The font loaded late; it is preloaded in the head now."),
    ("Add a health check to the worker container.", "The worker answers on /healthz; compose waits for it."),
    ("Write a migration adding an index on users.email.", "Added it concurrently so the table stays writable."),
    ("Why is the dashboard chart empty on Mondays?", "The week started on Sunday in the query; it uses ISO weeks."),
    ("Translate the settings screen to German.", "Added de.json and wired the locale switcher."),
    ("The nightly backup job fails on disk space.", "It kept every archive; it prunes those older than 14 days."),
    ("Make the README install steps work on Windows.", "Replaced the shell snippets with ones for PowerShell."),
]


@pytest.fixture
def shop(cli_root: Path) -> dict[str, str]:
    """The chats above, indexed; deja's environment (this process's too) pointed at them."""
    chats = CHATS | {f"c-work-{i}": list(chat) for i, chat in enumerate(OTHER_WORK)}
    for chat_id, (question, *answers) in chats.items():
        records = [user_turn(question), *(assistant_turn(text) for text in answers)]
        write_transcript(transcript_path(cli_root, PROJECT, chat_id), records)
    env = {**os.environ}
    assert run_deja("index", env=env).returncode == 0
    return env


def test_a_traceback_pasted_from_another_machine_finds_the_session_with_the_ci_one(shop: dict[str, str]) -> None:
    from deja.interfaces.mcp_server import Tools

    text = run_deja("search", LAPTOP_TRACEBACK, env=shop)
    assert text.returncode == 0 and not text.stderr
    assert text.stdout.startswith("CI fails in pricing:\n") and "c-ci-pricing" in text.stdout.splitlines()[1]
    found = json.loads(run_deja("search", LAPTOP_TRACEBACK, "--json", env=shop).stdout)
    assert found["hits"][0]["session_id"] == "c-ci-pricing" and found["total"] >= 1
    mcp = Tools().search(LAPTOP_TRACEBACK)
    assert getattr(mcp.content[0], "text", "").startswith("CI fails in pricing:\n  c-ci-pricing ")
    given = hook_prompt(shop, LAPTOP_TRACEBACK, PROJECT)
    assert "deja show c-ci-pricing" in given and given == hook_prompt(shop, "KeyError: 'platinum'", PROJECT, "c-2")


def test_quotes_in_a_pasted_traceback_are_its_text_not_a_phrase(shop: dict[str, str], cli_root: Path) -> None:
    """A session on the laptop named the path as written: read as a phrase, the path kept that session alone, and
    the one that met the error in CI was out. A paste of several lines is searched by its words, quotes and all."""
    chat = [user_turn("Sort the imports of /Users/me/code/shop/app/pricing.py."), assistant_turn("Sorted them.")]
    write_transcript(transcript_path(cli_root, PROJECT, "c-laptop"), chat)
    assert run_deja("index", env=shop).returncode == 0
    found = json.loads(run_deja("search", LAPTOP_TRACEBACK, "--json", env=shop).stdout)
    assert (found["hits"][0]["session_id"], found["notice"]) == ("c-ci-pricing", ""), found
    assert "deja show c-ci-pricing" in hook_prompt(shop, LAPTOP_TRACEBACK, PROJECT)


def test_a_phrase_no_session_holds_nor_its_words_is_not_required_and_the_answer_says_so(
    shop: dict[str, str],
) -> None:
    """One line of the traceback, pasted alone, holds the path in quotes too: the search answers on the rest."""
    line = 'File "/Users/me/code/shop/app/pricing.py", line 88, in apply_discount: KeyError platinum'
    notice = (
        'no session holds "/users/me/code/shop/app/pricing.py" or all its words; '
        "showing the best matches without requiring it"
    )
    text = run_deja("search", line, env=shop)
    assert text.returncode == 0 and text.stdout.startswith(f"{notice}\n\nCI fails in pricing:"), text.stdout
    found = json.loads(run_deja("search", line, "--json", env=shop).stdout)
    assert (found["notice"], found["hits"][0]["session_id"]) == (notice, "c-ci-pricing")
    # a phrase a session holds still narrows to it, as written or, failing that, by its words
    held = json.loads(run_deja("search", '"pricing table" KeyError', "--json", env=shop).stdout)
    assert ([hit["session_id"] for hit in held["hits"]], held["notice"]) == (["c-styles"], "")


def test_the_prompt_hook_keeps_a_one_line_phrase_no_session_holds_as_a_sign_the_history_cannot_answer(
    shop: dict[str, str],
) -> None:
    """A question naming a title no session holds is one the history cannot answer: the hook stays silent (injecting
    the best of the rest was wrong nine times in ten on LoCoMo's such questions), where a search shows them."""
    question = 'When did we fix the "platinum loyalty rebate" KeyError in pricing?'
    assert "deja show" not in hook_prompt(shop, question, PROJECT)
    found = json.loads(run_deja("search", question, "--json", env=shop).stdout)
    assert found["hits"] and found["notice"].startswith('no session holds "platinum loyalty rebate"'), found
