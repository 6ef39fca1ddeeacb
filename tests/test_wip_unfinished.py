"""``deja wip`` gives the work left unfinished, not a question settled since (trial48b F8).

Before, ``deja wip`` answered with the newest session: a one-question chat asked today ("How do I profile memory in
python" … settled) hid yesterday's export, which had stopped on a failed ``pytest``: the work in progress.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

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
OFFER = "The cause: CI runs with LC_ALL=C and float math rounds the price; use Decimal in cart.total(). Want me to make that change?"  # fmt: skip


def test_wip_gives_todays_investigation_that_ran_commands_and_ends_on_an_offer(fake_home: Path) -> None:
    """A read-only investigation (the failing test run, ``git log``, no edit) ending "Want me to make that change?"
    is today's work in progress, not a question settled to pass over for older failed work (review49b M2)."""
    project = _history(fake_home, timedelta(days=1))
    _chat(project, DIAGNOSIS, "Checkout test fails on CI", NOW + timedelta(minutes=5), [
        store_user_message("why does test_checkout fail on CI but not locally?", NOW + timedelta(minutes=5)),
        *store_shell("t2", "pytest tests/test_checkout.py -q", "1 failed: AssertionError: 19.99 != 20.0", 1,
                     text="Running it."),
        *store_shell("t3", "git log -3 --oneline", "abc fix rounding", 0, text="Checking recent changes."),
        store_assistant_message(OFFER),
    ])  # fmt: skip
    assert run_deja("index").returncode == 0
    wip = run_deja("wip", cwd=project).stdout
    assert wip.startswith("last session here: Checkout test fails on CI  ("), wip
    assert "newer, a settled question" not in wip and "Parquet" not in wip, wip
