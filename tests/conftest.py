"""Every test runs under a fake HOME with no Cursor data and no deja state of its own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Sample, point_at_sample, stop_hook_servers
from installed_copy import installed_package, stale_install

from deja.core.indexer import refresh
from deja.core.readers import vscdb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from test_hooks import Machine

SHARED = Path(__file__).resolve().parents[2] / "shared"

_OVERRIDES = (
    "DEJA_HOME",
    "DEJA_CURSOR_ROOT",
    "DEJA_CURSOR_CLI_ROOT",
    "DEJA_INCLUDE_SUBAGENTS",
    "DEJA_NO_REDACT",
    "DEJA_RECALL",
    "DEJA_DEBUG",
    "CURSOR_CONFIG_DIR",
    "CURSOR_DATA_DIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "APPDATA",
    "CURSOR_PROJECT_DIR",
    "CLAUDE_PROJECT_DIR",
    "COLUMNS",  # (a terminal's width, exported by some shells: the listings' ids and lines follow it, review57a F5)
    # (what the runner's own shell may hold: a trace adds lines to hooks.log, a fault kills, a wait holds a hook, a
    # Cursor agent's transcript or a Claude folder of the person running the tests is taken for the test's, flake61)
    "DEJA_TRACE",
    "DEJA_FAULT",
    "DEJA_FAULT_SIGNAL",
    "DEJA_INGEST_WAIT",
    "CURSOR_TRANSCRIPT_PATH",
    "CLAUDE_CONFIG_DIR",
)


def pytest_configure(config: pytest.Config) -> None:
    """Stop before any test when ``import deja`` would load other code than this checkout's (tests/installed_copy.py)."""
    problem = stale_install(installed_package())
    if problem:
        raise pytest.UsageError(problem)


@pytest.fixture(autouse=True)
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in _OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    # No hook server unless a test starts one (``tests/test_hook_server.py``), or the run asks for them all
    # (``DEJA_TEST_HOOK_SERVER=1``: the hooks then run through the launcher, ``harness.run_deja``)
    monkeypatch.setenv("DEJA_HOOK_SERVER", "1" if os.environ.get("DEJA_TEST_HOOK_SERVER") else "0")
    return home


@pytest.fixture(autouse=True)
def no_hook_server_left(tmp_path: Path) -> Iterator[None]:
    """In a run whose hooks go through the hook server (``DEJA_TEST_HOOK_SERVER=1``), each test's servers are
    stopped when it ends."""
    yield
    if os.environ.get("DEJA_TEST_HOOK_SERVER"):
        stop_hook_servers(tmp_path)


@pytest.fixture(autouse=True)
def lock_wait_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with the whole budget for waiting on locked databases, as a new deja process does: one test
    that spent it would shorten the waits of the tests after it (``vscdb._LockWaits``)."""
    monkeypatch.setattr(vscdb, "_LOCK_WAITS", vscdb._LockWaits())


@pytest.fixture(autouse=True)
def no_refresher_left(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each MCP refresher a test's server started in this process (``build_server``, ``Tools``: a tool call asks
    one, ``LiveIndex._ask_refresh``) ends with the test. It ends when its stdin closes, as ``deja mcp``'s does when
    the server's process exits; pytest's process held it open to the end of the run, dozens of them idle for
    minutes. An ask is sent ``AFTER_CALL_SECONDS`` after the call: a timer still waiting may start one yet."""
    import threading

    from deja.interfaces import mcp_refresh

    started: list[mcp_refresh.Refresher] = []
    start = mcp_refresh.Refresher.__init__

    def starting(self: mcp_refresh.Refresher, home: str) -> None:
        start(self, home)
        started.append(self)

    monkeypatch.setattr(mcp_refresh.Refresher, "__init__", starting)
    yield
    for timer in [thread for thread in threading.enumerate() if isinstance(thread, threading.Timer)]:
        timer.join(5)
    for refresher in started:
        process = refresher._process
        if process.stdin is not None:
            process.stdin.close()
        process.wait(30)


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test where a user's clone has none."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: shared data comes with CI, not with a plain clone")
    return path


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sample:
    """The sample history with this process's environment pointed at it (not yet indexed)."""
    return point_at_sample(tmp_path, monkeypatch)


@pytest.fixture
def cli_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cursor-agent root this process reads, on a machine with no editor history, indexed into its own
    DEJA_HOME (``tmp_path / "deja"``): a test writes the chats it needs with the project's writers."""
    root = tmp_path / "cursor-agent"
    root.mkdir()
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(root))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    return root


@pytest.fixture
def indexed_sample(sample: Sample) -> Sample:
    """The sample history, indexed."""
    refresh(sample.home)
    return sample


@pytest.fixture
def machine(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """The sample history and a DEJA_HOME, this process's environment pointed at them, the hooks run against them as
    processes (``test_hooks.Machine``); not indexed: a test that writes chats of its own indexes them with it."""
    from test_hooks import Machine  # (here: a unit run, which collects no hook test, never imports them)

    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    return machine


@pytest.fixture
def indexed(machine: Machine) -> Machine:
    """``machine`` with the sample history indexed."""
    machine.index()
    return machine


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m unit``, skip importing test files that mark nothing ``unit``.

    Collecting a file imports it, and the other files import what unit tests never
    need (hypothesis, the MCP SDK, typer's test runner): seconds of a run meant to
    take seconds in all. A file that never writes ``mark.unit`` holds no unit test.
    """
    if config.option.markexpr != "unit" or not collection_path.name.startswith("test_"):
        return None
    return "mark.unit" not in collection_path.read_text(encoding="utf-8") or None
