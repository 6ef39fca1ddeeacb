"""The turn the prompt hook recalls from a session is the one that answers the prompt, even when the session's title
is what matched best (trialG F1).

An editor chat is named after its topic, so its title often matches a prompt best. The hook then gave the chat's
first question and its *last* answer ("concluded"), whatever that was about: a chat on a Stripe webhook that ended
on rotating a GitHub token was recalled for a Stripe prompt as "concluded: Rotate the token".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import hook_prompt, run_deja

from deja.core.fields import KIND_TITLE
from deja.core.index import Index
from deja.core.search import best_turn, query_terms, search
from deja.core.writers.ide import composer_data, write_state_vscdb

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms
STRIPE_CHAT = "c0ffee00-0000-4000-8000-000000000001"
ASKED = "checkout fails: stripe says 'No signatures found matching the expected signature for payload'"
FIX = "The webhook handler parses the JSON body before verifying: Stripe needs the raw bytes. Use `request.body`."
ASIDE = "thanks. also my github token stopped working for the deploy"
LAST = "Rotate the token: it was posted in chat. Use `gh auth login` instead."


#: Other chats, each sharing a word or two with the prompt, as a history does.
OTHERS = {
    "c0ffee00-0000-4000-8000-000000000002": ("Blog feed dates", ["the RSS feed dates are in UTC", "Use zoneinfo."]),
    "c0ffee00-0000-4000-8000-000000000003": ("Deploy", ["the deploy fails on staging", "The runner lacked a secret."]),
    "c0ffee00-0000-4000-8000-000000000004": ("Checkout page", ["the checkout button is misaligned", "Fixed the CSS."]),
    "c0ffee00-0000-4000-8000-000000000005": ("Types", ["mypy says the signature is wrong", "Annotate the return."]),
    **{
        f"c0ffee00-0000-4000-8000-1000000000{n:02}": (f"Chore {n}", [f"rename module{n} to package{n}", "Renamed."])
        for n in range(20)
    },
}


def _editor_history(home: Path, chats: dict[str, tuple[str, list[str]]]) -> None:
    """Editor chats (name, then the user and assistant turns in turn) in Cursor's global database under ``home``."""
    composers, bubbles = {}, {}
    for n, (cid, (name, turns)) in enumerate(chats.items()):
        ids = [(f"b{i}", 1 if i % 2 == 0 else 2) for i in range(len(turns))]
        composers[cid] = composer_data(cid, ids, created_at=T0 + n * 60_000, name=name)
        bubbles[cid] = {
            bid: {"type": kind, "text": text, "createdAt": T0 + n * 60_000 + i * 1000}
            for i, ((bid, kind), text) in enumerate(zip(ids, turns, strict=True))
        }
    write_state_vscdb(
        home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb", composers=composers, bubbles=bubbles
    )
    assert run_deja("index").returncode == 0


def test_a_chat_matched_by_its_title_is_recalled_by_the_turn_that_answers_the_prompt(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    _editor_history(
        fake_home,
        {
            STRIPE_CHAT: ("Checkout fails with Stripe webhook signature error", [ASKED, FIX, ASIDE, LAST]),
            **OTHERS,
        },
    )
    prompt = "stripe webhook signature verification fails again on checkout"
    hit = search(Index.open(tmp_path / "deja"), prompt, limit=1).hits[0]
    assert hit.session_id == STRIPE_CHAT and _kind(tmp_path / "deja", hit.best) == KIND_TITLE  # the case at hand
    recalled = hook_prompt(dict(os.environ), prompt, str(fake_home / "code" / "shop"))
    assert f"deja show {STRIPE_CHAT}" in recalled, recalled
    assert "user: checkout fails: stripe says" in recalled and "assistant: The webhook handler parses" in recalled
    assert "Rotate the token" not in recalled and "concluded:" not in recalled


def _kind(home: Path, best: tuple[int, int]) -> int:
    return Index.open(home).segments[best[0]].kind(best[1])


def test_a_chat_only_its_title_matched_is_recalled_by_its_first_question_and_answer(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing it said holds the query's words: its first question (what Cursor named it after) and the answer to
    it, never its last answer."""
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    _editor_history(fake_home, {STRIPE_CHAT: ("Payments incident", [ASKED, FIX, ASIDE, LAST])})
    index = Index.open(tmp_path / "deja")
    (hit,) = search(index, "payments incident", limit=1).hits
    assert _kind(tmp_path / "deja", hit.best) == KIND_TITLE
    turn = best_turn(index, hit, set(query_terms("payments incident")[0]))
    assert [(side.role, side.text) for side in turn] == [("user", ASKED), ("assistant", FIX)]


def test_a_later_turn_sharing_a_word_does_not_stand_in_for_the_title(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stranger review's case: the title matched best and a later, unrelated turn shared one word of the prompt
    ("fails"); that turn was recalled and the Stripe fix was not."""
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    asked = "checkout breaks: No signatures found matching the expected signature for payload"
    fix = "The handler parses the JSON body before verifying: pass the raw bytes to constructEvent."
    nightly = "ok. unrelated: the nightly job fails again on staging"
    turns = [asked, fix, nightly, "The nightly job lacked DATABASE_URL on staging; added it to the runner."]
    _editor_history(fake_home, {STRIPE_CHAT: ("Stripe webhook signature error", turns), **OTHERS})
    prompt = "the stripe webhook fails on checkout"
    index = Index.open(tmp_path / "deja")
    hit = next(hit for hit in search(index, prompt, limit=5).hits if hit.session_id == STRIPE_CHAT)
    assert _kind(tmp_path / "deja", hit.best) == KIND_TITLE  # the case at hand
    turn = best_turn(index, hit, set(query_terms(prompt)[0]))
    assert [(side.role, side.text) for side in turn] == [("user", asked), ("assistant", fix)]


def test_a_chat_that_opened_on_something_else_is_recalled_by_the_turn_its_title_names(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trial48b F1: the prompt's words were all in the title, so the title matched best, and the hook showed the
    chat's first question, a lint fix, as what "may answer this prompt"; the turn on the flaky test is what does."""
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    lint, linted = "first, fix the lint errors ruff reports", "Removed the unused imports and sorted them."
    flaky = "test_checkout_webhook_marks_order_paid fails maybe 1 in 5 runs on CI but passes on my laptop"
    race = "The webhook handler enqueues the update on the worker; the test asserts before it commits: a timing race."
    title = "Flaky checkout webhook test on CI"
    _editor_history(fake_home, {STRIPE_CHAT: (title, [lint, linted, flaky, race]), **OTHERS})
    prompt = "the checkout webhook test is flaky again on CI, what did we do last time?"
    hit = search(Index.open(tmp_path / "deja"), prompt, limit=1).hits[0]
    assert hit.session_id == STRIPE_CHAT and _kind(tmp_path / "deja", hit.best) == KIND_TITLE  # the case at hand
    recalled = hook_prompt(dict(os.environ), prompt, str(fake_home / "code" / "shop"))
    assert f"user: {flaky}" in recalled and f"assistant: {race}" in recalled, recalled
    assert "lint" not in recalled and "unused imports" not in recalled
