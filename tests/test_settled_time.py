"""What an answer settled, and where it stopped, are read in time that grows with its size, not its square: ``deja
wip``, its digest and ``deja fix``'s ranking read ``settled_line`` of each answer, ``wip``, ``ctx`` and MCP ``work``
read ``where_it_stopped`` of a session's last, and one answer may be a megabyte (``MAX_MESSAGE_BYTES``). Asked as a
ratio of CPU times, never as an absolute time (as tests/test_redaction_time.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deja.core import settled
from deja.core.settled import settled_line

#: One reading (``argv[4]``: ``settled_line`` or ``where_it_stopped``) of an answer of ``argv[2]`` repeated to
#: ``argv[1]`` characters after ``argv[3]``, its CPU seconds printed.
_SETTLE_ONCE = """
import sys, time
from deja.core import settled
unit, head = sys.argv[2], sys.argv[3]
answer = head + unit * (int(sys.argv[1]) // len(unit))
start = time.process_time()
getattr(settled, sys.argv[4])(answer)
print(time.process_time() - start)
"""


def _cpu_seconds(size: int, folder: Path, unit: str, head: str, reading: str = "settled_line") -> float:
    """The CPU time of one ``reading`` of a ``size``-character answer, in an interpreter of its own."""
    run = [sys.executable, "-c", _SETTLE_ONCE, str(size), unit, head, reading]
    return float(subprocess.run(run, cwd=folder, capture_output=True, text=True, check=True).stdout)


def test_an_apology_before_its_correction_is_passed_over() -> None:
    assert settled_line("Sorry, my mistake: the port is 8080.") == "The port is 8080."


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("unit", "head"),
    [
        ("Sorry, ", ""),  # (each apology sliced the rest of its sentence: 13 s for a megabyte, review55a F6)
        ("Let me check it. ", ""),
        ("Ah, I see. ", ""),
        (", this time with -v", "Let me check it"),
        ("(and ", "Let me check"),
    ],
)
def test_a_long_answer_of_apologies_or_next_steps_is_settled_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, head: str
) -> None:
    # Four times the answer: four times the time when linear, sixteen when each apology copies what follows it.
    assert _cpu_seconds(800_000, tmp_path, unit, head) / _cpu_seconds(200_000, tmp_path, unit, head) < 8


@pytest.mark.hostile
def test_where_it_stopped_is_read_in_time_linear_in_introduced_one_line_blocks(tmp_path: Path) -> None:
    """Review55c F4: each one-line block a colon introduced counted the fences before it from the answer's start:
    100 KB of them took 17 s in ``deja wip``, ``ctx`` and MCP ``work``."""
    unit = "Run:\n```\nls\n```\n"
    ratio = _cpu_seconds(400_000, tmp_path, unit, "", "where_it_stopped") / _cpu_seconds(
        100_000, tmp_path, unit, "", "where_it_stopped"
    )
    assert ratio < 8


def test_an_introduced_one_line_block_is_shown_inline_where_it_stopped() -> None:
    answer = "Run:\n```\nls\n```\n" * 3 + "Then:\n```\nmake\n```\n"
    assert settled.where_it_stopped(answer) == "Then: `make`"
