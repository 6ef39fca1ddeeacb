"""``--project /`` (or ``.`` typed in ``/``, or an MCP ``project: "."`` from a server started in ``/``) names the
root folder, which is no project's: it is refused as a usage error, where search matched every session with no
project and ``deja sessions`` none (README: "--project")."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from harness import Sample, run_deja
from mcp.server.mcpserver.exceptions import ToolError

from deja.core.index.format import name_hash
from deja.core.search import Filters

REFUSED = "is the root folder, no project's: give a project's name or folder"


@pytest.mark.parametrize(("command", "project", "cwd"), [("search", "/", None), ("search", ".", "/"), ("sessions", "/", None), ("sessions", "//", None)])  # fmt: skip
def test_the_root_folder_is_no_project(indexed_sample: Sample, command: str, project: str, cwd: str | None) -> None:
    args = [command, "footer"] if command == "search" else [command]
    ran = run_deja(*args, "--project", project, cwd=Path(cwd) if cwd else None)
    assert ran.returncode == 2 and ran.stdout == "", ran.stdout
    assert ran.stderr == f"deja: --project {project} {REFUSED}\n"


@pytest.mark.unit
def test_a_filter_on_the_root_folder_admits_no_session_without_a_project() -> None:
    """The root folder's name hashes to nothing, the hash stored for "no project" (0): the filter matched those
    sessions. Its hash is now one no stored (unsigned 32-bit) hash can equal."""
    assert name_hash("") == 0 and Filters().project_hash == 0
    assert Filters(project="/").project_hash not in range(2**32)


def test_the_mcp_search_refuses_the_root_folder(indexed_sample: Sample, monkeypatch: pytest.MonkeyPatch) -> None:
    from deja.interfaces.mcp_server import Tools

    monkeypatch.chdir("/")
    tools = Tools()

    async def ask() -> None:
        for call in (lambda: tools.search("footer", project="."), lambda: tools.recent(project="/")):
            with pytest.raises(ToolError, match="is the root folder, no project's"):
                call()

    anyio.run(ask)
