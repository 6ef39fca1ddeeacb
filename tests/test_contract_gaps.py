"""Three places the product and README disagreed (trialK F6, F7):

- MCP's structured content lacked the ``schema_version`` of the CLI's ``--json`` envelope README says it holds;
- ``deja config --json`` gave a switch in force as the text ``"false"`` (true to a script that tests it) and a home
  no variable sets as ``null`` for Cursor's processes, which do use one;
- exports were written with the umask's mode (0644): a whole project's HTML is private history, as the index (0600).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from harness import Sample, run_deja

from deja.core.sample import API_CHAT as SESSION


def test_mcp_structured_content_starts_with_the_cli_schema_version(indexed_sample: Sample) -> None:
    from deja.interfaces.mcp_server import Tools

    tools = Tools()
    cli = json.loads(run_deja("sessions", "--json", env=indexed_sample.env).stdout)

    async def ask() -> None:
        for result in (
            tools.recent(),
            tools.search("cache"),
            tools.show(SESSION),
            tools.work("ctx", SESSION),
        ):
            data = result.structured_content or {}
            assert next(iter(data)) == "schema_version" and data["schema_version"] == cli["schema_version"]

    anyio.run(ask)


def test_config_json_gives_each_field_one_type(sample: Sample, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEJA_HOME", raising=False)
    shown = run_deja("config", "--json")
    assert shown.returncode == 0, shown.stderr
    settings = json.loads(shown.stdout)["settings"]
    switch = settings["include_subagents"]
    assert (switch["value"], switch["effective"], switch["in_cursor"]) == (False, False, False)
    assert settings["redact"]["effective"] is True
    home = settings["home"]
    assert home["value"] is None and home["effective"] == home["in_cursor"]
    assert isinstance(home["in_cursor"], str) and home["in_cursor"].endswith("deja")
    assert "include_subagents  false" in run_deja("config").stdout


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, which left exports readable by every local account."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_export_is_private_as_the_index_is(indexed_sample: Sample, tmp_path: Path, umask_022: None) -> None:
    new = tmp_path / "new.html"
    assert run_deja("export", SESSION, "-f", "html", "-o", str(new), env=indexed_sample.env).returncode == 0
    assert _mode(new) == 0o600
    kept = tmp_path / "shared.md"
    kept.write_text("old")
    kept.chmod(0o644)  # a file its owner chose to share keeps that mode
    assert run_deja("export", SESSION, "-o", str(kept), env=indexed_sample.env).returncode == 0
    assert _mode(kept) == 0o644 and SESSION in kept.read_text()
    folder = tmp_path / "api-export"
    ran = run_deja("export", "--project", "api", "-f", "html", "-o", str(folder), env=indexed_sample.env)
    assert ran.returncode == 0, ran.stderr
    assert _mode(folder) == 0o700
    assert {_mode(page) for page in folder.iterdir()} == {0o600}
