"""A value pasted from code in a prompt (``slot="icon-only"``) is no quoted phrase: the prompt hook asks its words as
words, so a chat of this project holding the rest of the question is still recalled, not only the chats of another
project that hold that value (trial52 F2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import hook_prompt, last_hook_decision, run_deja
from test_pasted_traceback import OTHER_WORK  # other work, so that the question's words are rare in the history

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

SHOP = "/home/dev/code/shop"
APP = "/home/dev/code/ionic-app"
#: The shop's chat that answers the question.
ENOSPC = (
    "npm run build fails with ENOSPC",
    "Fixed: the inotify watch limit was too low; raised it to 524288.",
)
#: The other project's chats, about the value the prompt pastes.
ICON_ONLY = [
    (
        'The menu button shows its label: <ion-button slot="icon-only"> in the toolbar',
        'Put the icon in the button with slot="icon-only" and dropped the label, so only the icon shows.',
    ),
    (
        'Console warns about slot="icon-only" on the back button',
        "The back button takes no slot of that name; moved the icon-only slot to the ion-button inside it.",
    ),
    (
        "The settings icon-only button has no aria label",
        'Added aria-label="Settings" to the icon-only button; the console warning is gone.',
    ),
]


@pytest.fixture
def history(cli_root: Path) -> dict[str, str]:
    """The chats above in their projects, indexed; deja's environment pointed at them."""
    chats = [(SHOP, "c-enospc", ENOSPC)]
    chats += [(APP, f"c-icon-{i}", chat) for i, chat in enumerate(ICON_ONLY)]
    chats += [(SHOP if i % 2 else APP, f"c-work-{i}", chat) for i, chat in enumerate(OTHER_WORK)]
    for project, chat_id, (question, answer) in chats:
        write_transcript(transcript_path(cli_root, project, chat_id), [user_turn(question), assistant_turn(answer)])
    env = {**os.environ}
    assert run_deja("index", env=env).returncode == 0
    return env


def test_a_pasted_value_does_not_keep_the_chat_that_answers_the_question_out(history: dict[str, str]) -> None:
    asked = hook_prompt(history, "npm run build fails ENOSPC again", SHOP, "c-1")
    assert "deja show c-enospc" in asked and "c-icon" not in asked
    pasted = hook_prompt(history, 'npm run build fails ENOSPC again, console says slot="icon-only"', SHOP, "c-2")
    assert "deja show c-enospc" in pasted, pasted
    assert "npm run build fails with ENOSPC" in pasted
    assert str(last_hook_decision(history, "hook-prompt")["notes"]).startswith("recalled c-enospc: ")


def test_a_phrase_typed_in_quotes_still_narrows_to_the_chats_holding_it(history: dict[str, str]) -> None:
    given = hook_prompt(history, 'what did we do about the "icon-only button" warning', APP)
    assert "deja show c-icon-2" in given and "c-enospc" not in given
