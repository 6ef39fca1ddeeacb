"""A prompt unrelated to the history gets nothing from the prompt hook, though it shares a word or a task with a
past chat (trial48b F2).

README's own example, "write a haiku about autumn leaves", recalled a chat that says "if you leave the live chart
page open" (``leaves`` and ``leave`` are one term); "add a docstring to this function explaining the parameters"
recalled three chats on another function's docstring, and "rename the variable tmp to total in this function" a
chat that renamed an environment variable.

The rule that silences such requests had silenced requests that point at past work or at a failure: "replace this
with the redis lock we used for the cron job" recalled nothing (review48e H1).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import ROUTINE_CHATS, hook_prompt, index_asked_chats, last_hook_decision

from deja.hooks.prompt import is_request_here

PROJECT = "/work/shop"
CHART = "c-chart"
DOCSTRINGS = ["c-doc-1", "c-doc-2", "c-doc-3"]
CHATS = [
    *ROUTINE_CHATS,
    *((f"c-chore-{n}", f"bump package{n}" + " and write the changelog" * (n % 4 == 0), "Bumped.") for n in range(20)),
    (
        CHART,
        "if you leave the live chart page open for an hour the tab goes to 2GB and the fan spins up",
        "Fixed the leak: LiveChart's useEffect now returns a cleanup that clears the interval. Shall I write a test?",
    ),
    *(
        (
            chat,
            "write a docstring for calculate_tax, explain what it returns",
            "Added a docstring: it explains the rate lookup and that it returns the tax in cents.",
        )
        for chat in DOCSTRINGS
    ),
    (
        "c-vite",
        "the api url variable is undefined in the production build",
        "Vite only exposes variables prefixed VITE_: renamed it to VITE_API_URL in .env.production.",
    ),
    (
        "c-lock",
        "the cron job runs twice when two pods start, how do we stop that",
        "Added a redis lock around the cron job: SET key NX EX 300 before it runs, released after.",
    ),
    (
        "c-retry",
        "the payments service call times out now and then",
        "Wrapped the payments service call in a retry with exponential backoff: 3 tries, 0.5 s doubling.",
    ),
    (
        "c-webhook",
        "the webhook test is flaky on CI",
        "The webhook signature check used the wall clock; froze time with freezegun in the webhook test.",
    ),
    (
        "c-reset",
        "the integration tests keep failing on ci with connection reset by peer",
        "The ci runner closed idle keep-alive sockets: set the http agent keepAlive to false in the test client.",
    ),
]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return index_asked_chats(tmp_path, PROJECT, CHATS)


@pytest.mark.parametrize(
    ("prompt", "why"),
    [
        ("write a haiku about autumn leaves", "no match was strong enough"),
        ("add a docstring to this function explaining the parameters", "a request for work on the code at hand"),
        ("rename the variable tmp to total in this function", "a request for work on the code at hand"),
        ("can you please rename these variables", "a request for work on the code at hand"),
    ],
)
def test_an_unrelated_prompt_recalls_nothing(env: dict[str, str], prompt: str, why: str) -> None:
    assert hook_prompt(env, prompt, PROJECT) == ""
    assert why in str(last_hook_decision(env, "hook-prompt")), last_hook_decision(env, "hook-prompt")


@pytest.mark.parametrize(
    ("prompt", "chat"),
    [
        ("memory keeps growing when the live chart page is left open", CHART),
        ("rename this one the way we renamed VITE_API_URL", "c-vite"),  # a request that names what the past holds
        ("why is the api url variable undefined in the production build again?", "c-vite"),
        # review48e H1: requests that point at shared past work or at a failure
        ("replace this with the redis lock we used for the cron job", "c-lock"),
        ("add the retry we used for the payments service to this function", "c-retry"),
        ("add the same retry with backoff as the payments service to this function", "c-retry"),
        ("make this test stop being flaky the way we fixed the webhook test yesterday", "c-webhook"),
        ("redis lock for the cron job", "c-lock"),
        ("make this stop failing on ci with connection reset by peer", "c-reset"),
        ("add the redis lock from the cron job to the worker, this time with a 60s ttl", "c-lock"),
        ("how did we stop the cron job running twice?", "c-lock"),
        ("¿cómo arreglamos el webhook test flaky?", "c-webhook"),
    ],
)
def test_a_prompt_about_the_history_still_recalls_it(env: dict[str, str], prompt: str, chat: str) -> None:
    """The same words, asking of the past or naming what the history holds, recall the chat that answers them."""
    recalled = hook_prompt(env, prompt, PROJECT)
    assert f"deja show {chat}" in recalled, str(last_hook_decision(env, "hook-prompt"))


@pytest.mark.parametrize(
    "prompt",
    [
        "add the fix from yesterday to this function",
        "write this like the previous migration",
        "add the backoff we discussed to this function",
        "change this back to what it was",
        "remove this workaround we added for the flaky webhook test",
        "change the timeout, this keeps failing on ci with connection reset",
        "add the redis lock to the worker, this time with a 60s ttl",
        # Not English: never a request of this rule (the share rule may still refuse them, as before it: review48e L2)
        "wie haben wir den redis lock für den cron job gemacht?",
        "comment a-t-on corrigé le webhook test flaky ?",
    ],
)
def test_a_request_that_points_at_the_past_is_asked(prompt: str) -> None:
    """A cue of shared past work ("we", "same", "previous", "yesterday", "what it was"), a failure, or a ``this`` the
    verb does not act on ("this time", "this keeps failing") makes a request one the history may answer."""
    assert not is_request_here(prompt)
