"""``deja search`` finds a word developers write closed, spaced or hyphenated in any of those spellings (``rollback``
finds "rolled back", "roll back" finds "rollback"), and says which words of a query no session holds (trial20 F4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import ROUTINE_CHATS, index_asked_chats, run_deja

from deja.core.index import Index
from deja.core.search import search
from deja.hooks.prompt import POSTINGS_READ

CHATS = [
    ("c-rolled-back", "The release broke checkout, what now?", "We rolled back the deploy to v41 and paged nobody."),
    ("c-rollback", "Write the rollback runbook.", "The rollback runbook is in ops/README."),
    ("c-roll-back", "Can we roll-back a migration?", "Only the reversible ones."),
    ("c-set-up", "How do I set up the runner?", "Register it with the token and start the service."),
    ("c-dice", "The dice roll goes back to one.", "A seeded generator repeats it."),
    ("c-logs", "I saw the errors in the logs in production.", "They rotate daily."),
    ("c-login", "The login page returns 401.", "The session cookie was not set."),
    ("c-docs", "Check out the docs for the retry decorator.", "It waits longer each time."),
    ("c-git-checkout", "git checkout main fails.", "Commit your changes first."),
    *ROUTINE_CHATS,
]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return index_asked_chats(tmp_path_factory.mktemp("compounds"), "/work/shop", CHATS)


def _found(env: dict[str, str], *words: str) -> list[str]:
    ran = run_deja("search", *words, "--json", env=env)
    assert ran.returncode == 0, ran.stderr
    return [hit["session_id"] for hit in json.loads(ran.stdout)["hits"]]


def test_a_closed_word_finds_its_two_words_side_by_side_and_hyphenated(env: dict[str, str]) -> None:
    found = _found(env, "rollback")
    assert {"c-rolled-back", "c-rollback", "c-roll-back"} <= set(found)
    assert "c-dice" not in found  # ("roll" and "back" apart are no rollback)
    assert "c-set-up" in _found(env, "setup")


def test_a_plural_before_a_particle_is_no_compound_and_a_spaced_match_ranks_below_the_word(env: dict[str, str]) -> None:
    """A plural before a particle is no compound ("the logs in production" is no login), and a spaced match ranks
    below the closed word: "check out the docs" came first for ``deja search checkout`` (review41b H1)."""
    assert _found(env, "login")[0] == "c-login" and "c-logs" not in _found(env, "login")
    checkout = _found(env, "checkout")
    assert checkout.index("c-git-checkout") < checkout.index("c-docs"), checkout


@pytest.mark.parametrize("words", [["rolled", "back"], ["roll-back"]])
def test_two_words_side_by_side_find_the_closed_word(env: dict[str, str], words: list[str]) -> None:
    assert "c-rollback" in _found(env, *words)


def test_a_word_no_session_holds_is_named_on_stderr(env: dict[str, str]) -> None:
    ran = run_deja("search", "rollback", "kubernetes", env=env)
    assert ran.returncode == 0 and "c-rollback" in ran.stdout
    assert ran.stderr == "deja: no session holds: kubernetes\n"
    as_json = run_deja("search", "rollback", "kubernetes", "--json", env=env)
    found = json.loads(as_json.stdout)
    assert found["hits"] and found["unmatched"] == ["kubernetes"] and as_json.stderr == ""
    held = run_deja("search", "rollback", "runbook", env=env)
    assert held.returncode == 0 and held.stderr == ""


def test_a_query_no_session_holds_names_its_words(env: dict[str, str]) -> None:
    ran = run_deja("search", "kubernetes", "helm", env=env)
    assert ran.returncode == 0
    assert ran.stdout == 'No session matches "kubernetes helm"; no session holds: kubernetes helm.\n'


def test_a_long_query_no_session_holds_names_its_first_words(env: dict[str, str]) -> None:
    words = ["zebu", "quokka", "axolotl", "narwhal", "okapi", "dugong", "tapir"]
    ran = run_deja("search", "rollback", *words, env=env)
    assert ran.stderr == "deja: no session holds: zebu quokka axolotl narwhal okapi and 2 more\n"


def test_a_huge_word_no_session_holds_is_named_by_its_start(env: dict[str, str]) -> None:
    """A word of 5,000 characters (a pasted blob) is named cut, as a message names any value it repeats, and the
    JSON's ``unmatched`` names it so too (an MCP answer repeated the megabyte of it)."""
    huge = "blobstart" + "p" * 5000
    ran = run_deja("search", "rollback", huge, env=env)
    assert ran.stderr.startswith("deja: no session holds: blobstartppp") and ran.stderr.endswith("p…\n"), ran.stderr
    assert len(ran.stderr) < 120, ran.stderr
    unmatched = json.loads(run_deja("search", "rollback", huge, "--json", env=env).stdout)["unmatched"]
    assert len(unmatched) == 1 and unmatched[0].startswith("blobstart") and unmatched[0].endswith("p…"), unmatched
    assert len(unmatched[0]) < 100, unmatched


def test_a_hooks_search_reads_no_text_for_a_spaced_compound(env: dict[str, str]) -> None:
    """Reading docs' text for "rolled back" cost the prompt hook 10 to 15 ms at 5k sessions for a prompt saying
    rollback (review41b M5): a search with a hook's postings budget looks for the closed and hyphenated words only."""
    index = Index.open(Path(env["DEJA_HOME"]))
    assert "c-rolled-back" in {hit.session_id for hit in search(index, "rollback").hits}
    hooks = {hit.session_id for hit in search(index, "rollback", budget=POSTINGS_READ).hits}
    assert "c-rollback" in hooks and "c-roll-back" in hooks and "c-rolled-back" not in hooks, hooks


COMMON_CLOSED = [
    ("c-docs", "Check out the docs for the retry decorator.", "It waits longer each time."),
    ("c-git-checkout", "git checkout main fails with local changes.", "Commit them first."),
    ("c-log-in-prod", "There is a stack trace in the log in production.", "It rotates daily."),
    ("c-times-out", "The request times out after 30 s.", "The pool was exhausted."),
    *[(f"c-checkout-{n}", f"The checkout step {n} of the cart needs a coupon field.", "Added.") for n in range(10)],
    *[(f"c-login-{n}", f"The login form {n} needs a captcha.", "Added.") for n in range(10)],
    *ROUTINE_CHATS,
]


@pytest.fixture(scope="module")
def common(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return index_asked_chats(tmp_path_factory.mktemp("common-closed"), "/work/shop", COMMON_CLOSED)


def test_a_spaced_match_weighs_no_more_than_a_common_closed_word(common: dict[str, str]) -> None:
    """Where a project says "checkout" often, its idf is low and "check"'s high: "check out the docs" came first at
    0.7 of "check"'s idf (review41c H1). "times out" is the verb of timeout, no plural (review41c M4)."""
    checkout = _found(common, "checkout", "--limit", "20")
    assert checkout.index("c-docs") > checkout.index("c-git-checkout"), checkout
    login = _found(common, "login", "--limit", "20")
    assert login[0] != "c-log-in-prod", login
    assert "c-times-out" in _found(common, "timeout")
