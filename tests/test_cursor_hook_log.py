"""Reading Cursor's hook log (``interfaces/delivery.py``) however its output channel stamps the lines."""

from __future__ import annotations

from pathlib import Path

import pytest

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
