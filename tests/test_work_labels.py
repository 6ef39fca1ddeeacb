"""What the work verbs say about where they looked: an unknown ``--project`` is said to be unknown (as the MCP tools
say), the MCP ``work`` tool takes a relative path in the named project's folder (not the server's, which the agent
cannot know) and shows the folder ``.`` names, and ``how`` across projects names each run's project.

Before: "No session matches "x" with --project nosuch; drop the filter to see the 5 that do"; ``blame
Dockerfile`` looked in the server's folder; "how 'pytest' ran in ."; runs of api and billing were the same lines
(trialI F11).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import run_deja

from deja.core.index import Index
from deja.core.writers.cursor_agent import (
    assistant_turn,
    tool_use,
    transcript_path,
    user_turn,
    write_transcript,
)
from deja.interfaces.mcp_server import work_answer


def _history(tmp_path: Path, cli_root: Path) -> tuple[Path, Path]:
    api, billing = tmp_path / "code" / "api", tmp_path / "code" / "billing"
    for folder, chat_id, command in ((api, "c-api", "pytest -q tests"), (billing, "c-bill", "pytest -q billing")):
        folder.mkdir(parents=True)
        edit = tool_use("Write", {"path": str(folder / "Dockerfile"), "contents": f"FROM python:3.12 # {chat_id}\n"})
        write_transcript(
            transcript_path(cli_root, str(folder), chat_id),
            [
                user_turn(f"set up {folder.name}"),
                assistant_turn("Done.", edit, tool_use("Shell", {"command": command})),
            ],
        )
    assert run_deja("index").returncode == 0
    return api, billing


def test_an_unknown_project_is_said_to_be_unknown(tmp_path: Path, cli_root: Path) -> None:
    _history(tmp_path, cli_root)
    ran = run_deja("search", "pytest", "--project", "nosuch")
    said = "deja: No session of project 'nosuch' is indexed; `deja stats` lists the projects there are.\n"
    assert (ran.returncode, ran.stderr) == (1, said)
    assert "drop the filter" in run_deja("search", "pytest", "--project", "api", "--source", "cursor-ide").stdout


def test_mcp_work_takes_paths_in_the_named_project(
    tmp_path: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api, _ = _history(tmp_path, cli_root)
    index = Index.open(tmp_path / "deja")
    monkeypatch.chdir(tmp_path)  # the server's folder: no Dockerfile here
    text, data = work_answer(index, "blame", "Dockerfile", str(api))
    assert [e["session_id"] for e in data["edits"]] == ["c-api"], text
    monkeypatch.chdir(api)
    text, _ = work_answer(index, "how", "pytest", ".")
    assert text.startswith(f"how 'pytest' ran in {api}, newest first:"), text


def test_how_across_projects_names_each_runs_project(tmp_path: Path, cli_root: Path) -> None:
    _history(tmp_path, cli_root)
    ran = run_deja("how", "pytest", "--all-projects", cwd=tmp_path)
    assert "api: $ pytest -q tests" in ran.stdout and "billing: $ pytest -q billing" in ran.stdout, ran.stdout
