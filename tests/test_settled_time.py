"""What an answer settled is read in time that grows with its size, not its square: ``deja wip``, its digest and ``deja
fix``'s ranking read ``settled_line`` of each answer, and one answer may be a megabyte (``MAX_MESSAGE_BYTES``). Asked
as a ratio of CPU times, never as an absolute time (as tests/test_redaction_time.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deja.core.settled import settled_line

#: One ``settled_line`` of an answer of ``argv[2]`` repeated to ``argv[1]`` characters after ``argv[3]``, its CPU
#: seconds printed.
_SETTLE_ONCE = """
import sys, time
from deja.core.settled import settled_line
unit, head = sys.argv[2], sys.argv[3]
answer = head + unit * (int(sys.argv[1]) // len(unit))
start = time.process_time()
settled_line(answer)
print(time.process_time() - start)
"""


def _cpu_seconds(size: int, folder: Path, unit: str, head: str) -> float:
    """The CPU time of one ``settled_line`` of a ``size``-character answer, in an interpreter of its own."""
    run = [sys.executable, "-c", _SETTLE_ONCE, str(size), unit, head]
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
