"""A prompt unrelated to the history gets nothing from the prompt hook, though it shares a word or a task with a
past chat (trial48b F2).

README's own example, "write a haiku about autumn leaves", recalled a chat that says "if you leave the live chart
page open" (``leaves`` and ``leave`` are one term); "add a docstring to this function explaining the parameters"
recalled three chats on another function's docstring, and "rename the variable tmp to total in this function" a
chat that renamed an environment variable.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import ROUTINE_CHATS, hook_prompt, index_asked_chats, last_hook_decision

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
    ],
)
def test_a_prompt_about_the_history_still_recalls_it(env: dict[str, str], prompt: str, chat: str) -> None:
    """The same words, asking of the past or naming what the history holds, recall the chat that answers them."""
    recalled = hook_prompt(env, prompt, PROJECT)
    assert f"deja show {chat}" in recalled, str(last_hook_decision(env, "hook-prompt"))
