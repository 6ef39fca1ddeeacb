"""Editor databases a busy Cursor holds locked share one wait, not one each (trial13 F11).

Each locked database was waited on for SQLite's whole busy timeout, one after another and again by each read of the
run: six locked workspace databases made a first ``deja index`` take 25 s and the next ``deja search`` 12 s, without
a word. Now the first locked database is waited on, and once that wait is spent the others are only looked at, so a
run with many locked databases ends about as soon as one with one; what they held is kept, as for one.

Locks are real (``BEGIN EXCLUSIVE`` held by this process, deja runs in another), databases are deja's writers'.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import pytest
from harness import locked, run_deja

from deja.core.readers import vscdb
from deja.core.readers.ide import composer_fingerprints
from deja.core.writers.ide import composer_data, write_state_vscdb, write_workspace

T0 = 1_780_000_000_000
LOCKED = 10


def _editor(user_root: Path, projects: Path) -> list[Path]:
    """A global database with one chat and ``LOCKED`` workspace databases, each naming a project folder."""
    chat = "c0c0c0c0-0000-4000-8000-00000000c0c0"
    bubbles = {"b1": {"type": 1, "text": "why does the terraform plan hang", "createdAt": T0 + 1000}}
    write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={chat: composer_data(chat, [("b1", 1)], created_at=T0, name="Terraform plan")},
        bubbles={chat: bubbles},
    )
    folders = [projects / f"p{n}" for n in range(LOCKED)]
    return [write_workspace(user_root, f"{n:032x}", folder=str(folder)) for n, folder in enumerate(folders)]


def test_many_locked_databases_cost_about_one_wait_and_the_others_are_read(tmp_path: Path, cli_root: Path) -> None:
    workspaces = _editor(tmp_path / "no-ide", tmp_path / "code")
    with ExitStack() as stack:
        for db in workspaces:
            stack.enter_context(locked(db))
        indexed, index_took = _timed("index")
        searched, search_took = _timed("search", "terraform plan", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert f"and {LOCKED - 1} more Cursor stores could not be read this time" in indexed.stderr
    assert [hit["title"] for hit in json.loads(searched.stdout)["hits"]] == ["Terraform plan"]
    # One full wait and a short look at each of the others: about 4 s for `deja index` (each database is opened
    # twice) and 3 s for the search that tries them again. One wait each was 40 s and 20 s; the bound leaves room
    # for a loaded machine, not for a full wait per database.
    bound = LOCKED * vscdb.BUSY_TIMEOUT_SECONDS / 2
    assert (index_took < bound, search_took < bound) == (True, True), (index_took, search_took)


def _timed(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    ran = run_deja(*args)
    return ran, time.monotonic() - started


def test_a_long_running_process_waits_again_once_the_budget_is_renewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server reads for days: a lock met a minute after the first one it waited for is waited for in full
    again, where one met meanwhile gets a short look."""
    first, second = _editor(tmp_path / "User", tmp_path / "code")[:2]
    with locked(first), locked(second):
        waited = [_failed_read(first), _failed_read(second)]
        monkeypatch.setattr(vscdb, "LOCK_WAIT_RENEWED_SECONDS", 0.0)
        waited.append(_failed_read(second))
    full = vscdb.LOCK_WAIT_BUDGET_SECONDS
    assert (waited[0] >= full, waited[1] < full / 2, waited[2] >= full) == (True, True, True), waited


def _failed_read(db: Path) -> float:
    problems: Counter[str] = Counter()
    started = time.monotonic()
    assert composer_fingerprints(db, problems) == {}
    assert problems == Counter({"ide: database locked": 1})
    return time.monotonic() - started
