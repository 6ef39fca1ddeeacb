"""What every test module shares: deja run as a user runs it, and the sample history pointed at.

New tests build on these instead of writing their own copies; histories are written with the
project's own writers (``deja.core.writers``), never mocked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from deja.core.sample import SampleHistory, build_sample_history

#: The console script's module: run through this interpreter, so a test never depends on PATH.
ENTRY = (sys.executable, "-m", "deja.interfaces.entry")


def run_deja(
    *args: str, env: dict[str, str] | None = None, input: str | bytes | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``deja ARGS`` as a separate process with this interpreter (text mode unless ``input`` is bytes)."""
    text = not isinstance(input, bytes)
    return subprocess.run(
        [*ENTRY, *args],
        env=env if env is not None else dict(os.environ),
        input=input,
        capture_output=True,
        text=text,
        timeout=timeout,
    )


class Sample(msgspec.Struct):
    """The shipped sample history, deja's environment pointed at it, and deja's home for its files."""

    history: SampleHistory
    home: Path

    @property
    def env(self) -> dict[str, str]:
        """The whole process environment with deja pointed at the sample."""
        return {**os.environ, **self.history.environment(self.home)}


def point_at_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sample:
    """Write the sample history under ``tmp_path`` and point this process's environment at it."""
    history = build_sample_history(tmp_path / "sample")
    home = tmp_path / "deja"
    for name, value in history.environment(home).items():
        monkeypatch.setenv(name, value)
    return Sample(history=history, home=home)
