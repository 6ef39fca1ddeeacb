"""What ``deja wip`` and ``deja ctx`` say a session settled, and how its last command ended (trial23 F7.2, F7.9).

Before, ``settled:`` was the first line of the last answer, "I'll help you apply dark mode styling…. Here are the
necessary changes:", and ctx listed "Checking the worker." among the decisions and findings: an opener and a line
of progress, neither of them a finding. A command whose exit status no record kept "(ended unknown)".
"""

from __future__ import annotations

from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_transcript,
)

CHAT = "f7200000-0000-4000-8000-000000000072"
FOUND = "The worker used the default redis://localhost; exported REDIS_URL from .env and it connects."
STYLED = "The sidebar now takes its colours from Ionic's step variables, so it follows the theme toggle."
DARK_MODE = f"""I'll help you apply dark mode styling to the sidebar. Here are the necessary changes:

```scss:src/global.scss
body.dark {{
  .sidebar {{ background: var(--ion-color-step-50); }}
}}
```

These changes will:
1. Give the sidebar a dark background in dark mode
2. Keep its light background otherwise

{STYLED}

Let me know if you'd like to adjust any of the specific colors!"""


def _chat(home: Path) -> Path:
    project = home / "code" / "shop-api"
    project.mkdir(parents=True)
    records = [
        user_turn("celery worker can't reach redis"),
        assistant_turn("Checking the worker.", tool_use("Shell", {"command": "celery -A shop worker -l info"})),
        assistant_turn(FOUND),
        turn_ended(),
        user_turn("apply dark mode to the sidebar"),
        assistant_turn(DARK_MODE),
        turn_ended(),
    ]
    write_transcript(transcript_path(home / ".cursor", str(project), CHAT), records)
    assert run_deja("index").returncode == 0
    return project


def test_wip_settles_on_what_the_answer_found_not_its_opener(fake_home: Path) -> None:
    project = _chat(fake_home)
    wip = run_deja("wip", cwd=project).stdout
    assert f"\nsettled: {STYLED}\n" in wip, wip
    assert "last command: celery -A shop worker -l info (exit status not recorded)" in wip, wip
    assert "ended unknown" not in wip and "I'll help you" not in wip, wip


def test_ctx_lists_findings_not_narration_of_progress(fake_home: Path) -> None:
    _chat(fake_home)
    ctx = run_deja("ctx", CHAT).stdout
    assert f"## Decisions and findings\n- {FOUND}\n- {STYLED}\n\n" in ctx, ctx
    assert "Checking the worker" not in ctx, ctx


def test_a_finding_that_opens_with_assent_or_a_verb_of_progress_is_kept(fake_home: Path) -> None:
    """What an answer found is kept: after "OK:" (which alone goes), and a line of progress that gives its result."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [
        user_turn("the reserve test is flaky"),
        assistant_turn("Running the tests again: all 42 pass."),
        assistant_turn("OK: the fixture shared one session; it is per test now."),
        turn_ended(),
    ]
    write_transcript(transcript_path(fake_home / ".cursor", str(project), CHAT), records)
    assert run_deja("index").returncode == 0
    assert "\nsettled: The fixture shared one session; it is per test now.\n" in run_deja("wip", cwd=project).stdout
    found = "- Running the tests again: all 42 pass.\n- The fixture shared one session; it is per test now.\n"
    assert found in run_deja("ctx", CHAT).stdout
