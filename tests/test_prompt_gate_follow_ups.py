"""A short follow-up inside a conversation ("and the tests?", "what about the cache?", "do the same for the gift
card") recalls nothing: it asks of the conversation, not of the history. Opening a conversation, the same words are
searched as ever (deja cannot know what they follow), and a short question of its own is answered mid-conversation.

Found in trial18 (F15): "and the tests?" held "100% of what the prompt asks" in three unrelated sessions that say
"tests", and injected them all. Here a history where each of those words has its session is written as cursor-agent
transcripts and indexed, ``deja hook-prompt`` runs as Cursor runs it, and ``deja hooks log`` says why it stayed
silent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import ROUTINE_CHATS, hook_prompt, index_asked_chats, last_hook_decision, run_deja

from deja.hooks.prompt import is_follow_up

PROJECT = "/home/dev/src/shop"
CHATS = [
    (
        "c-webhook-tests",
        "Write the tests for the stripe webhook handler.",
        "Added tests for the signature check, a replayed event and an unknown event type; the tests use a fixture "
        "payload signed with a test secret.",
    ),
    (
        "c-redis-cache",
        "The product cache goes stale after a price change.",
        "The cache key ignored the price version; the cache is now dropped when a price is saved.",
    ),
    (
        "c-gift-card",
        "Show the gift card balance at checkout.",
        "The checkout page reads the gift card balance from the wallet service and subtracts it from the total.",
    ),
    (
        "c-password",
        "Rotate the staging database password.",
        "Rotated it in the vault and restarted the api pods.",
    ),
    *ROUTINE_CHATS,
]
FIRST = "add a wishlist endpoint"
FOLLOW_UPS = {
    "and the tests?": "c-webhook-tests",
    "what about the cache?": "c-redis-cache",
    "do the same for the gift card": "c-gift-card",
}


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, str]:
    return index_asked_chats(tmp_path, PROJECT, CHATS)


@pytest.mark.parametrize("follow_up", FOLLOW_UPS)
def test_a_follow_up_in_a_conversation_recalls_nothing_and_the_log_says_why(
    shop: dict[str, str], follow_up: str
) -> None:
    hook_prompt(shop, FIRST, PROJECT, "c-mid")
    assert hook_prompt(shop, follow_up, PROJECT, "c-mid") == ""
    assert last_hook_decision(shop)["why"] == "a follow-up in this conversation asks of it, not of the history"


@pytest.mark.parametrize(("follow_up", "chat"), FOLLOW_UPS.items())
def test_the_same_words_opening_a_conversation_are_searched(shop: dict[str, str], follow_up: str, chat: str) -> None:
    assert f"deja show {chat}" in hook_prompt(shop, follow_up, PROJECT, "c-opening")


def test_a_follow_up_after_a_compaction_still_recalls_nothing(shop: dict[str, str]) -> None:
    """A compaction forgets what the conversation was shown, not that it is under way."""
    hook_prompt(shop, FIRST, PROJECT, "c-mid")
    compacted = {"conversation_id": "c-mid", "hook_event_name": "preCompact", "cursor_version": "2.4.21"}
    ran = run_deja("hook-session-end", env=shop, input=json.dumps({**compacted, "workspace_roots": [PROJECT]}))
    assert ran.returncode == 0 and ran.stdout == ""
    assert hook_prompt(shop, "and the tests?", PROJECT, "c-mid") == ""
    why = last_hook_decision(shop, "hook-prompt")["why"]
    assert why == "a follow-up in this conversation asks of it, not of the history"


def test_a_short_question_of_its_own_in_a_conversation_is_still_answered(shop: dict[str, str]) -> None:
    hook_prompt(shop, FIRST, PROJECT, "c-mid")
    assert "deja show c-redis-cache" in hook_prompt(shop, "why does the cache go stale?", PROJECT, "c-mid")
    hook_prompt(shop, FIRST, PROJECT, "c-mid2")  # (it asks of the past: no follow-up, review38c M1)
    assert "deja show c-redis-cache" in hook_prompt(shop, "also, why did the cache go stale?", PROJECT, "c-mid2")


@pytest.mark.unit
@pytest.mark.parametrize(
    ("prompt", "follow_up"),
    [
        ("And the tests?", True),
        ("how about the staging one", True),
        ("same for the admin pages, please", True),
        ("also the docker build", True),
        ("ok, and the tests?", True),  # (a reply word before it: review38c M2)
        ("And... the tests?", True),
        ("also: the cache", True),
        ("what about fetchUserProfile?", False),
        ("also, how did we set up the Kubernetes ingress before?", False),  # (it asks of the past: review38c M1)
        ("also why does pytest fail on ci", False),
        ("and last month's outage with nginx?", False),
        ("and why does the checkout total ignore the coupon on gift card orders?", False),
        ("why does the cache go stale?", False),
        ("android build fails", False),
    ],
)
def test_a_follow_up_opens_as_one_with_few_words_of_its_own_and_no_identifier(prompt: str, follow_up: bool) -> None:
    assert is_follow_up(prompt) is follow_up


def test_a_follow_up_in_a_long_conversation_still_recalls_nothing(shop: dict[str, str]) -> None:
    """What a conversation was shown is kept to its newest 64 KiB; that it asked a prompt is kept with them, as that
    it was given the session-start block is."""
    hook_prompt(shop, FIRST, PROJECT, "c-long")
    (seen,) = (Path(shop["DEJA_HOME"]) / "hooks" / "seen").iterdir()
    with seen.open("a") as shown:  # what a long conversation was shown, as the hook keeps it: one key a line
        shown.writelines(f"shown-{i:06d}\n" for i in range(8000))
    assert "deja show c-redis-cache" in hook_prompt(shop, "why does the cache go stale?", PROJECT, "c-long")
    assert seen.stat().st_size < 64 << 10  # (trimmed by what that prompt showed)
    assert hook_prompt(shop, "and the tests?", PROJECT, "c-long") == ""
    assert last_hook_decision(shop)["why"] == "a follow-up in this conversation asks of it, not of the history"
