"""A folder above the home folder is no project to the hooks, as it is none to ``deja wip``: Cursor opened at
``/home``, ``/Users`` or the parent of a ``HOME`` set below it listed every project's sessions as "this project"
(trial21 F2)."""

from __future__ import annotations

from pathlib import Path

from test_hooks import MODULE_ERROR, Machine, cursor


def test_session_start_above_the_home_folder_says_nothing_of_this_project(indexed: Machine, fake_home: Path) -> None:
    above = fake_home.parent  # (every sample project lies below it)
    assert indexed.run("hook-context", cursor("sessionStart", "c-above", above)).stdout == ""
    assert f"{above} is no project: the home folder, one above it," in indexed.log().splitlines()[-1]


def test_the_first_prompt_above_the_home_folder_carries_no_project_block(indexed: Machine, fake_home: Path) -> None:
    asked = cursor("beforeSubmitPrompt", "c-above-prompt", fake_home.parent, prompt=f"tests fail: {MODULE_ERROR}")
    answer = indexed.run("hook-prompt", asked, opened=False)  # (a resumed chat: no sessionStart came first)
    assert "Fix pytest import error" in answer.text  # recalled from every project, as a prompt outside one is
    assert "Recent sessions in this project" not in answer.text and "this project" not in answer.text
