"""A server Cursor started before ``pip install .`` put a new deja into the same environment says so on every tool
call, with what to do (trial50 F2): the old code in memory answered "still indexing; try again" for ever once the new
deja rewrote the index in a format it cannot read, and the agent, told to retry, looped. The server here runs from a
copy of deja's package, installed again under it as pip does (every file removed, then written anew)."""

from __future__ import annotations

import os
import shutil
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest
from harness import CHECKOUT, as_format_wrote_it
from mcp import ClientSession, StdioServerParameters, stdio_client
from test_mcp import T0, History, text

from deja.core.index import FORMAT_VERSION
from deja.core.indexer import refresh

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

RESTART = (
    "deja was upgraded since this MCP server started, and it still runs the old code: restart it "
    "(in Cursor: Customize → MCPs, turn deja off and on, or reload the window; in Claude Code: /mcp, then reconnect "
    "deja; in another client, restart its MCP servers)"
)
PACKAGES = ("core", "hooks", "installers", "interfaces")


def installed(site: Path) -> None:
    """deja's package under ``site`` as pip installs it: the old files moved aside (pip's stash), each new one written
    at install time (pip does not keep a wheel's times), then the old ones deleted."""
    target = site / "deja"
    stash = site / "deja-stash"
    if target.exists():
        target.rename(stash)
    for package in PACKAGES:
        shutil.copytree(
            CHECKOUT / package,
            target / package,
            ignore=shutil.ignore_patterns("__pycache__"),
            copy_function=shutil.copy,
        )
    if stash.exists():
        shutil.rmtree(stash)


@asynccontextmanager
async def server(history: History, site: Path, errlog: Path) -> AsyncIterator[ClientSession]:
    """``deja mcp`` as mcp.json starts it, importing deja from ``site``."""
    env = {**history.env, "PYTHONPATH": str(site)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "deja.interfaces.entry", "mcp"], env=env)
    with errlog.open("w") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def across_an_upgrade(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    after: Callable[[History], None],
    reinstall: Callable[[Path], None] = installed,
) -> tuple[str, list[str]]:
    """A tool call's answer before deja is installed again under the server (by ``reinstall``, pip's way unless
    given), and each tool's after it (and ``after``, what the new deja did to the index meanwhile)."""
    history = History(tmp_path)
    for name, value in history.env.items():
        monkeypatch.setenv(name, value)
    history.cli_chat("c0ffee01-cache", history.api, "Redis cache", [("why is redis stale", "the key")], T0)
    refresh(history.deja_home)
    site = tmp_path / "site"
    installed(site)
    errlog = tmp_path / "server-stderr.txt"
    answers: list[str] = []

    async def scenario(session: ClientSession) -> tuple[str, list[str]]:
        first = await session.call_tool("recent", {})
        before = ("error: " if first.is_error else "") + text(first)
        reinstall(site)
        after(history)
        for tool, arguments in [("search", {"query": "redis"}), ("recent", {}), ("show", {"session_id": "c0ffee01"})]:
            result = await session.call_tool(tool, arguments)
            answers.append(("error: " if result.is_error else "") + text(result))
        return before, answers

    async def main() -> tuple[str, list[str]]:
        with anyio.fail_after(60):
            async with server(history, site, errlog) as session:
                return await scenario(session)

    said = anyio.run(main)
    assert "Traceback" not in errlog.read_text()
    return said


def test_every_call_after_an_upgrade_says_to_restart_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = across_an_upgrade(tmp_path, monkeypatch, lambda history: None)
    assert "Redis cache" in before, before
    assert after == [f"error: Error executing tool {tool}: {RESTART}" for tool in ("search", "recent", "show")]


def test_a_newer_index_the_upgraded_deja_wrote_is_a_restart_not_still_indexing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new deja on disk rewrote the index in its format: the old server says to restart it, neither "still
    indexing" nor "upgrade deja" (the deja installed is already the newer one)."""
    before, after = across_an_upgrade(
        tmp_path, monkeypatch, lambda history: as_format_wrote_it(history.deja_home, FORMAT_VERSION + 1)
    )
    assert "Redis cache" in before, before
    assert after == [f"error: Error executing tool {tool}: {RESTART}" for tool in ("search", "recent", "show")]


def overwritten_in_place(site: Path) -> None:
    """The index format's module rewritten in place with other bytes of the same size, its modification time set back
    (``cp --preserve=timestamps`` or ``rsync --inplace -t`` over it): the same inode, modification time and size."""
    marker = site / "deja" / "core" / "index" / "format.py"
    was = marker.stat()
    data = marker.read_bytes()
    with marker.open("r+b") as rewritten:
        rewritten.write(data.swapcase())
    os.utime(marker, ns=(was.st_atime_ns, was.st_mtime_ns))
    now = marker.stat()
    assert (now.st_ino, now.st_mtime_ns, now.st_size) == (was.st_ino, was.st_mtime_ns, was.st_size)


def test_an_install_over_the_file_keeping_its_time_and_size_still_says_to_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fixb50: the stat of inode, modification time and size missed it, and the old code answered on."""
    before, after = across_an_upgrade(tmp_path, monkeypatch, lambda history: None, overwritten_in_place)
    assert "Redis cache" in before, before
    assert after == [f"error: Error executing tool {tool}: {RESTART}" for tool in ("search", "recent", "show")]


def test_a_chmod_that_changes_nothing_is_no_upgrade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chmod (or a hard link) moves the change time alone: the file's bytes are the same, and the tools answer."""

    def chmodded(site: Path) -> None:
        marker = site / "deja" / "core" / "index" / "format.py"
        marker.chmod(marker.stat().st_mode)
        os.link(marker, site / "linked-format.py")

    before, after = across_an_upgrade(tmp_path, monkeypatch, lambda history: None, chmodded)
    assert "Redis cache" in before, before
    assert all("Redis cache" in answer and not answer.startswith("error") for answer in after), after
