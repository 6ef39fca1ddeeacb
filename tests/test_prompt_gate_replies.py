"""A short reply to the agent ("go with option b", "sounds good, continue") recalls nothing, whatever the history
says about options: it points at what the agent just said. A prompt with one word of its own is searched as ever.

Found on a real history (slevin48's): "go with option b" recalled three chats for the word "option". Here a history
of chats that offer options is written as cursor-agent transcripts and indexed, and ``deja hook-prompt`` runs as
Cursor runs it; ``deja hooks log`` says why it stayed silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import ROUTINE_CHATS, hook_prompt, index_asked_chats, last_hook_decision

from deja.hooks.prompt import is_reply

PROJECT = "/home/dev/src/shop"
#: Chats where the agent offered options and the user picked one: the words of a reply are all over them.
CHATS = [
    (
        "c-cache-options",
        "The product page is slow. What are the options?",
        "Option A: cache the product list in redis for a minute. Option B: precompute it at build time. "
        "Option B is simpler; shall I go ahead with it? Then continue with the second step, the cache header.",
    ),
    (
        "c-auth-options",
        "Sessions expire too early on the admin pages.",
        "Two options: a sliding expiry (option A) or a refresh token (option B). Go with option B if you want "
        "the admin pages to keep working offline; sounds good to continue either way.",
    ),
    (
        "c-revert",
        "Revert the last migration, it broke the orders table.",
        "Reverted the migration with alembic downgrade -1; the orders table is back as it was.",
    ),
    ("c-coupon-tests", "Write tests for the coupon service.", "Twelve tests cover expiry, stacking and currencies."),
    *ROUTINE_CHATS,
]


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, str]:
    return index_asked_chats(tmp_path, PROJECT, CHATS)


@pytest.mark.parametrize(
    "prompt",
    ["go with option b", "sounds good, continue", "let's go with the second option", "no, revert that"],
)
def test_a_reply_to_the_agent_recalls_nothing_and_the_log_says_why(shop: dict[str, str], prompt: str) -> None:
    assert hook_prompt(shop, prompt, PROJECT) == ""
    assert last_hook_decision(shop)["why"] == "a reply to this conversation asks nothing of the history"


def test_a_prompt_with_a_word_of_its_own_is_still_answered(shop: dict[str, str]) -> None:
    given = hook_prompt(shop, "what were the options for the slow product page, redis or build time?", PROJECT)
    assert "deja show c-cache-options" in given


@pytest.mark.unit
@pytest.mark.parametrize(
    ("prompt", "reply"),
    [
        ("ok do it", True),
        ("Yes please!", True),
        ("Option 2, thanks", True),
        ("sure, go ahead", True),
        ("go with option b for the redis cache", False),
        ("revert the migration", False),
        ("continue with the stripe webhook", False),
    ],
)
def test_a_reply_is_made_only_of_reply_words_stopwords_and_single_letters(prompt: str, reply: bool) -> None:
    assert is_reply(prompt) is reply
