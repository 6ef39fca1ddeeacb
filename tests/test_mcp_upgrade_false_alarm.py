"""review50b: the MCP server's upgrade check (trial50 F2) must not answer "restart" when deja was not installed again.
Its stamp holds format.py's change time, which moves with the file's link count or a chmod that changes nothing: uv
installs by hard link from its cache (another venv made from the same wheel, or a cache prune, moves it), and a
``chmod -R u+rX`` of the environment does too. The agent is then refused every tool until the server is restarted."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio
from test_mcp import T0, History, text
from test_mcp_upgrade import installed, server

from deja.core.indexer import refresh

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_a_second_hard_link_to_an_installed_file_is_no_upgrade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    history = History(tmp_path)
    for name, value in history.env.items():
        monkeypatch.setenv(name, value)
    history.cli_chat("c0ffee01-cache", history.api, "Redis cache", [("why is redis stale", "the key")], T0)
    refresh(history.deja_home)
    site = tmp_path / "site"
    installed(site)
    marker = site / "deja" / "core" / "index" / "format.py"

    async def main() -> list[str]:
        with anyio.fail_after(60):
            async with server(history, site, tmp_path / "server-stderr.txt") as session:
                answers = [text(await session.call_tool("recent", {}))]
                os.link(marker, tmp_path / "uv-cache-copy.py")  # another venv linked from the same cached wheel
                answers.append(text(await session.call_tool("recent", {})))
                os.chmod(marker, os.stat(marker).st_mode)  # a chmod -R u+rX that changes nothing
                answers.append(text(await session.call_tool("recent", {})))
                return answers

    before, linked, chmodded = anyio.run(main)
    assert "Redis cache" in before, before
    assert "Redis cache" in linked, linked
    assert "Redis cache" in chmodded, chmodded
