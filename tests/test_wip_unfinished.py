"""``deja wip`` gives the work left unfinished, not a question settled since (trial48b F8).

Before, ``deja wip`` answered with the newest session: a one-question chat asked today ("How do I profile memory in
python" … settled) hid yesterday's export, which had stopped on a failed ``pytest``: the work in progress.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import run_deja, store_shell

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)

NOW = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
EXPORT = "f8f8f800-0000-4000-8000-000000000008"
QUESTION = "f8f8f800-0000-4000-8000-000000000009"
EXPORT_ASK = "add a parquet export step at the end of the ingest pipeline, partitioned by supplier"
FAILED = "stopped after `pytest tests/test_export.py -q` failed: E ModuleNotFoundError: No module named 'pyarrow'"


def _chat(project: Path, chat: str, title: str, when: datetime, messages: list[dict]) -> None:
    millis = int(when.timestamp() * 1000)
    folder = chat_dir_for(Path.home() / ".cursor", str(project), chat)
    messages = [*store_preamble(str(project)), *messages]
    write_chat_store(folder, cwd=str(project), messages=messages, name=title, created_ms=millis, updated_ms=millis)


def _history(home: Path, export_age: timedelta) -> Path:
    """An export begun ``export_age`` ago that stopped on a failed test run, and a question answered an hour ago."""
    project = home / "code" / "ingest"
    project.mkdir(parents=True)
    began = NOW - export_age
    write = tool_call_part("w1", "Write", {"path": str(project / "ingest/export.py"), "contents": "def export(): ..."})
    _chat(project, EXPORT, "Parquet export for the pipeline", began, [
        store_user_message(EXPORT_ASK, began),
        store_assistant_message("Adding ingest/export.py using pyarrow.", write),
        tool_result_message("w1", "Write", "The file has been updated."),
        *store_shell("t1", "pytest tests/test_export.py -q", "E   ModuleNotFoundError: No module named 'pyarrow'", 2,
                     text="Wrote ingest/export.py; now running the tests."),
    ])  # fmt: skip
    _chat(project, QUESTION, "How do I profile memory in python", NOW, [
        store_user_message("how do I profile memory in python", NOW),
        store_assistant_message("Use tracemalloc snapshots or memray; memray gives a flamegraph."),
    ])  # fmt: skip
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    return project


def test_wip_gives_yesterdays_failed_work_over_todays_settled_question(fake_home: Path) -> None:
    project = _history(fake_home, timedelta(days=1))
    wip = run_deja("wip", cwd=project)
    assert wip.returncode == 0, wip.stderr
    lines = wip.stdout.splitlines()
    assert lines[0].startswith("last unfinished session here: Parquet export for the pipeline  ("), wip.stdout
    assert f"task: {EXPORT_ASK}" in lines and FAILED in lines, wip.stdout
    assert lines[-1].startswith("newer, a settled question: How do I profile memory in python  ("), wip.stdout
    assert lines[-1].endswith(f"deja show {QUESTION})"), wip.stdout
    shown = json.loads(run_deja("wip", "--json", cwd=project).stdout)
    assert shown["session"]["id"] == EXPORT and [m["id"] for m in shown["newer"]] == [QUESTION], shown


def test_wip_gives_the_newest_session_when_the_unfinished_work_is_days_older(fake_home: Path) -> None:
    project = _history(fake_home, timedelta(days=5))
    wip = run_deja("wip", cwd=project).stdout
    assert wip.startswith("last session here: How do I profile memory in python  ("), wip
    assert "newer, a settled question" not in wip and "Parquet" not in wip, wip


DIAGNOSIS = "f8f8f800-0000-4000-8000-000000000010"
CAUSE = "The cause: CI runs with LC_ALL=C and float math rounds the price; use Decimal in cart.total()."


@pytest.mark.parametrize(
    "offer",
    [
        "Want me to make that change?",
        "Shall I apply it?",
        "I can apply this if you want?",  # (fixw49b: worded otherwise, or not as a question)
        "Let me know if you'd like me to apply it.",
        "Let me know if you would like me to apply it.",  # (review50a M3)
        "If you want, I can push the fix.",
    ],
)
def test_wip_gives_todays_investigation_that_ran_commands_and_ends_on_an_offer(fake_home: Path, offer: str) -> None:
    """A read-only investigation (the failing test run, ``git log``, no edit) ending "Want me to make that change?"
    (or "I can apply this if you want?", fixw49b) is today's work in progress, not a question settled to pass over
    for older failed work (review49b M2)."""
    project = _history(fake_home, timedelta(days=1))
    _chat(project, DIAGNOSIS, "Checkout test fails on CI", NOW + timedelta(minutes=5), [
        store_user_message("why does test_checkout fail on CI but not locally?", NOW + timedelta(minutes=5)),
        *store_shell("t2", "pytest tests/test_checkout.py -q", "1 failed: AssertionError: 19.99 != 20.0", 1,
                     text="Running it."),
        *store_shell("t3", "git log -3 --oneline", "abc fix rounding", 0, text="Checking recent changes."),
        store_assistant_message(f"{CAUSE} {offer}"),
    ])  # fmt: skip
    assert run_deja("index").returncode == 0
    wip = run_deja("wip", cwd=project).stdout
    assert wip.startswith("last session here: Checkout test fails on CI  ("), wip
    assert "newer, a settled question" not in wip and "Parquet" not in wip, wip


VERSION = "f8f8f800-0000-4000-8000-000000000011"


@pytest.mark.parametrize(
    "offer",
    [
        "Would you like a short example?",
        "Let me know if you'd like me to go into more detail on any of these.",  # (review50a M3: said in passing)
        "Let me know if you'd like me to make any other changes!",
        "Let me know if you want me to go over the flags.",
        "If you want, I can write a short example.",
        "I can go through the other options if you want.",
    ],
)
def test_wip_passes_over_a_question_whose_answer_ran_a_command_and_offers_to_say_more(
    fake_home: Path, offer: str
) -> None:
    """A question answered after a read-only command (``python --version``), ending on an offer to say more ("Would
    you like a short example?", "Let me know if you'd like me to go into more detail…": review50a M3), is settled:
    yesterday's failed export stays the work in progress (review49e H1)."""
    project = _history(fake_home, timedelta(days=1))
    _chat(project, VERSION, "Which python version do I have", NOW + timedelta(minutes=5), [
        store_user_message("which python version does this venv use", NOW + timedelta(minutes=5)),
        *store_shell("t2", "python --version", "Python 3.12.3", 0, text="Checking."),
        store_assistant_message(f"It is Python 3.12.3; 3.13 has a faster GC. {offer}"),
    ])  # fmt: skip
    assert run_deja("index").returncode == 0
    lines = run_deja("wip", cwd=project).stdout.splitlines()
    assert lines[0].startswith("last unfinished session here: Parquet export for the pipeline  ("), lines
    assert any(line.startswith("newer, a settled question: Which python version do I have  (") for line in lines), lines
