"""Every MCP tool meets an index with no session with the line ``deja search`` gives it (``fastpath.nothing_indexed``):
where deja looked for Cursor's history and what to do. An agent asking ``recent``, ``show`` or ``work`` of a machine
whose history deja found nowhere got an empty list, "no session matches", or a tool error naming an id it was told to
take from a list of nothing, none of which says why."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from harness import run_deja
from mcp import ClientSession
from test_mcp import History, run, text

from deja.core.indexer import refresh

#: Each tool, with arguments a person's agent would give it.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "webhook"}),
    ("recent", {}),
    ("recent", {"since": "7d"}),
    ("show", {"session_id": "abc"}),
    ("resume", {"session_id": "abc"}),
    *(("work", {"mode": mode, "query": query}) for mode, query in [
        ("blame", "api/cache.py"),
        ("files", "webhook"),
        ("fix", "ImportError: no module named api"),
        ("how", "pytest"),
        ("wip", ""),
        ("ctx", "abc"),
        ("ctx", "stripe webhook"),
    ]),
]  # fmt: skip


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> History:
    """An index built where Cursor left no history (its folders there, empty)."""
    history = History(tmp_path)
    history.cli_root.mkdir()
    history.ide_root.mkdir(parents=True)
    for name, value in history.env.items():
        monkeypatch.setenv(name, value)
    refresh(history.deja_home)
    return history


def test_every_tool_answers_an_empty_index_with_the_line_search_gives(empty: History, tmp_path: Path) -> None:
    said = run_deja("search", "webhook", env={**os.environ, **empty.env}).stdout.strip()
    assert said.startswith(f"The index is empty: no Cursor chats found in {empty.ide_root} or "), said
    answers: dict[str, str] = {}

    async def scenario(session: ClientSession) -> None:
        for tool, arguments in CALLS:
            result = await session.call_tool(tool, arguments)
            answers[f"{tool}({arguments})"] = ("error: " if result.is_error else "") + text(result)

    run(empty, tmp_path, scenario)
    assert {call: answer for call, answer in answers.items() if answer != said} == {}


def test_what_a_tool_says_first_on_any_index_it_says_first_on_an_empty_one(empty: History, tmp_path: Path) -> None:
    """A project no session ran in, a folder that is not there: said as on an index with sessions, the empty index's
    line after the project's, as `deja search --project api` says it."""
    said = run_deja("search", "webhook", env={**os.environ, **empty.env}).stdout.strip()

    async def scenario(session: ClientSession) -> None:
        searched = text(await session.call_tool("search", {"query": "webhook", "project": "api", "since": "7d"}))
        assert searched == f"No session of project 'api' is indexed; t{said[1:]}"
        files = text(await session.call_tool("work", {"mode": "files", "query": "webhook", "project": "api"}))
        assert files == f"No session of project 'api' is indexed; t{said[1:]}"
        wip = text(await session.call_tool("work", {"mode": "wip", "query": "/nonexistent/dir"}))
        assert wip.startswith("no folder /nonexistent/dir: "), wip

    run(empty, tmp_path, scenario)
