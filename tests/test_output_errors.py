"""Standard output that cannot take deja's answer fails in one line naming it, never as an exception's name.

``deja sessions > /dev/full`` said ``OSError: [Errno 28] No space left on device``, and ``deja sessions >&-``
``AttributeError: 'NoneType' object has no attribute 'isatty'`` (trial13 F6); ``deja demo > /dev/full`` the first
(trial14).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from harness import ENTRY, Sample


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("args", [("sessions",), ("sessions", "--json"), ("search", "deploy"), ("demo",)])
def test_a_full_output_is_one_line_naming_it(indexed_sample: Sample, args: tuple[str, ...]) -> None:
    with Path("/dev/full").open("w") as full:
        done = subprocess.run([*ENTRY, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=indexed_sample.env)
    assert (done.returncode, done.stderr) == (
        1,
        "deja: cannot write to standard output (No space left on device): send it where it fits\n",
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("-h",),
        ("search", "--help"),
        ("hooks", "--help"),
        ("config", "set", "--help"),
        ("hook-prompt", "-h"),
    ],
)
def test_help_into_a_full_output_is_the_same_one_line(sample: Sample, args: tuple[str, ...]) -> None:
    """click printed ``--help`` itself, and said ``OSError: [Errno 28] …`` (a hook's help: a traceback), where every
    other answer says it in one line (review19 R19-4)."""
    with Path("/dev/full").open("w") as full:
        done = subprocess.run([*ENTRY, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=sample.env)
    assert (done.returncode, done.stderr) == (
        1,
        "deja: cannot write to standard output (No space left on device): send it where it fits\n",
    )


@pytest.mark.parametrize("args", [("sessions",), ("hook-prompt", "--help")])
def test_a_closed_output_is_one_line_naming_it(indexed_sample: Sample, args: tuple[str, ...]) -> None:
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *ENTRY, *args], capture_output=True, text=True, env=indexed_sample.env
    )
    assert (done.returncode, done.stderr) == (
        1,
        "deja: standard output is closed: give the command somewhere to write its answer\n",
    )


def test_a_hook_with_its_output_closed_still_exits_0_in_silence(indexed_sample: Sample) -> None:
    """Cursor gives a hook a pipe; with none, its last flush met ``None`` and ended in a traceback (review19 R19-4)."""
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *ENTRY, "hook-prompt"],
        input='{"conversation_id": "c-closed", "hook_event_name": "beforeSubmitPrompt", "prompt": "deploy"}',
        capture_output=True,
        text=True,
        env=indexed_sample.env,
    )
    assert (done.returncode, done.stderr) == (0, "")
