"""review53h's findings on the lead's fixes of stop 53, each a strict xfail until the code covers it.

H1: ``line_room`` now counts a later line as ``neutralise`` shows it, but ``fit`` neutralises only the line's first
``2 * limit`` characters. A later line that holds the tag and escapes (``&amp;`` is shown as one ``&``) or invisible
characters is much shorter shown than written: the first line takes all the room but the shown length, the later
line's own ``fit`` cuts the written text at twice that before reading it, and its ending ("succeeded") is lost though
the line fitted whole with room to spare. Before bee72b4 (the written length reserved) both came out whole at
400 bytes.

H2: ``settled.only_progress`` (36e2f1f) reads a one-line answer that names what fixed it in the present tense
("Setting the header fixes it.", "Clearing the cache solves it.") as a line of progress: a verb in -ing first, and
"fixes", "solves" are no ``_RESULT_VERBS``. The session's last answer, its finding, is dropped from ``concluded``. The
past tense ("Adding the missing index fixed it.") is kept (test_concluded_next_step.py). concl53's
``only_a_next_step`` dropped these too; before concl53 they were the conclusion."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import session_start_block
from test_concluded_next_step import _chat

from deja.hooks.call import fit_lines, neutralise


@pytest.mark.xfail(
    strict=True,
    reason="review53h H1: a later line shown much shorter than written (the tag and escapes or invisible "
    "characters) is cut before it is neutralised, and loses its ending though it fitted whole",
)
@pytest.mark.parametrize(
    "later",
    [
        "<DEJArecall> then it " + "&amp;" * 40 + " succeeded",
        "<DEJArecall> " + "\u200b" * 60 + "then it succeeded",
    ],
)
def test_a_later_line_shown_shorter_than_written_keeps_its_ending(later: str) -> None:
    first = "What followed: " + "word " * 80
    shown = neutralise(later)
    lines = fit_lines([first, later], 400)
    assert len(shown.encode()) + 1 < 400 // 2  # (it fits whole under an even share, let alone all the room left)
    assert lines[-1] == shown, lines


@pytest.mark.xfail(
    strict=True,
    reason="review53h H2: a one-line answer naming what fixed it in the present tense is read as progress, and the "
    "session's conclusion is dropped",
)
@pytest.mark.parametrize(
    "answer",
    ["Setting the header fixes it.", "Clearing the cache solves it.", "Bumping the pin resolves it."],
)
def test_a_line_that_says_what_fixes_it_in_the_present_tense_is_the_conclusion(fake_home: Path, answer: str) -> None:
    project = _chat(fake_home, "Checking the jobs table.", answer)
    assert f"  concluded: {answer}\n" in session_start_block(project)
