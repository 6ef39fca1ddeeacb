"""Reading Cursor's hook log (``interfaces/delivery.py``) however its output channel stamps the lines."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from harness import Sample, run_deja

from deja.interfaces.delivery import parse_cursor_log

pytestmark = pytest.mark.unit

#: Every line stamped as a VS Code output channel stamps a message, ``OUTPUT:`` and ``STDERR:`` included.
STAMPED = """\
2026-12-02 15:40:00.100 [info] Hook step requested: sessionStart
2026-12-02 15:40:01.200 [info] Command: /opt/deja/bin/deja hook-context (88ms) exit code: 0
2026-12-02 15:40:01.301 [info] OUTPUT:
{"additional_context":"<deja-recall>\\nRecent sessions"}
2026-12-02 15:41:00.000 [info] Hook step requested: beforeSubmitPrompt
2026-12-02 15:41:00.070 [info] Command: /opt/deja/bin/deja hook-prompt (70ms) exit code: 0
2026-12-02 15:41:00.071 [info] OUTPUT: (empty)
2026-12-02 15:42:00.000 [info] Hook step requested: preToolUse
2026-12-02 15:42:00.052 [info] Command: /opt/deja/bin/deja hook-tool (52ms) exit code: 0
2026-12-02 15:42:00.053 [info] OUTPUT:
2026-12-02 15:42:00.054 [error] STDERR:
2026-12-02 15:42:00.055 [error] {"additional_context": "printed by something else"}
"""


def test_a_stamped_output_line_is_read_as_the_hooks_output(tmp_path: Path) -> None:
    log = tmp_path / "cursor.hooks.log"
    log.write_text(STAMPED, encoding="utf-8")
    runs = {run.event: run for run in parse_cursor_log(log)}
    assert runs["sessionStart"].gave_context is True
    assert runs["beforeSubmitPrompt"].gave_context is False
    assert runs["preToolUse"].gave_context is None  # what follows STDERR: is not the hook's answer
    assert runs["sessionStart"].when.strftime("%H:%M:%S") == "15:40:01"


def test_a_hooks_log_that_cannot_be_written_is_said_by_hooks_log_and_doctor(indexed_sample: Sample) -> None:
    """The hooks drop a line they cannot write: with hooks.log another user's (a ``sudo`` session's), ``deja hooks
    log`` showed old lines as the newest and doctor said nothing (trial13 F9). Made immutable here (``chattr +i``,
    which stops root too), where the file system allows it."""
    log = indexed_sample.home / "hooks.log"
    log.write_text("")
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(log)], capture_output=True).returncode:
        pytest.skip("no chattr +i on this file system")
    try:
        listed = run_deja("hooks", "log", env=indexed_sample.env)
        assert listed.returncode == 0 and listed.stderr.startswith(f"note: {log} cannot be written ("), listed.stderr
        report = orjson.loads(run_deja("doctor", "--json", env=indexed_sample.env).stdout)
        said = [p for p in report["problems"] if p["message"].startswith(f"{log} cannot be written")]
        assert said and said[0]["message"].endswith("the hooks' decisions since are missing from it"), said
    finally:
        subprocess.run(["chattr", "-i", str(log)], check=True)


def test_looking_at_hooks_log_makes_none(indexed_sample: Sample) -> None:
    """Whether hooks.log can be written is asked of one that is there: an append would make it, and not private."""
    log = indexed_sample.home / "hooks.log"
    log.unlink(missing_ok=True)
    assert run_deja("doctor", env=indexed_sample.env).returncode in (0, 1)
    assert run_deja("hooks", "log", env=indexed_sample.env).returncode == 0
    assert not log.exists()
