"""review53h's finding on the lead's line fitting of stop 53 (bee72b4), a strict xfail until the hooks cover it.

H1: ``line_room`` now counts a later line as ``neutralise`` shows it, but ``fit`` neutralises only the line's first
``2 * limit`` characters. A later line that holds the tag and escapes (``&amp;`` is shown as one ``&``) or invisible
characters is much shorter shown than written: the first line takes all the room but the shown length, the later
line's own ``fit`` cuts the written text at twice that before reading it, and its ending ("succeeded") is lost though
the line fitted whole with room to spare. Before bee72b4 (the written length reserved) both came out whole at
400 bytes."""

from __future__ import annotations

import pytest

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
