"""``deja install … --dry-run`` shows the diff of the files it would change, and those files hold the user's own
values: another MCP server's token in its ``env`` or ``headers`` is redacted in what it prints, never in the file.

(A new-user trial saw its GitHub token in the diff: "no secret reaches any output".)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import console_script, run_deja

#: Fake values, assembled from pieces so no line of this file looks like a live credential.
GITHUB_PAT = "ghp_" + "R8c2Kq7LmX4vN9pZ3tW" + "6yB1dF5gH0jS2uE8a"
BEARER = "a9f8e7d6c5b4" + "a3928170f6e5d4c3"
API_KEY = "9c1b" + "e07fd2a4"


@pytest.fixture
def deja(tmp_path: Path) -> Path:
    return console_script(tmp_path / "bin")


def _users_mcp(fake_home: Path) -> Path:
    """The user's mcp.json as a program writes it: one line, which install rewrites at indent 2."""
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    servers = {
        "github": {
            "command": "npx",
            "args": ["-y", "server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": GITHUB_PAT},
        },
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": f"Bearer {BEARER}"}},
        "search": {"command": "search-mcp", "env": {"SEARCH_API_KEY": API_KEY, "REGION": "eu-west-1"}},
    }
    mcp.write_text(json.dumps({"mcpServers": servers}))
    return mcp


@pytest.mark.parametrize("target", ["cursor", "cursor-auto"])
def test_a_dry_run_prints_no_token_of_the_users_mcp_json(fake_home: Path, deja: Path, target: str) -> None:
    mcp = _users_mcp(fake_home)
    before = mcp.read_bytes()
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    shown = run_deja("install", target, "--dry-run", env=env, script=deja)

    assert shown.returncode == 0, shown.stderr
    assert f"would be updated {mcp}" in shown.stdout
    # (the diff is of the JSON's meaning, trial50 F9: the user's lines beside deja's entry show as its context)
    assert '"SEARCH_API_KEY": "[redacted:' in shown.stdout and '"REGION": "eu-west-1"' in shown.stdout
    for secret in (GITHUB_PAT, BEARER, API_KEY):
        assert secret not in shown.stdout + shown.stderr
    assert mcp.read_bytes() == before

    assert run_deja("install", target, env=env, script=deja).returncode == 0
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert servers["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"] == GITHUB_PAT, "the file is written as it is"
    assert servers["remote"]["headers"]["Authorization"] == f"Bearer {BEARER}"

    # Tokens the user gave deja's own entry (its env, as Cursor's docs show): uninstall's diff removes those lines.
    document = json.loads(mcp.read_text())
    document["mcpServers"]["deja"]["env"] = {
        "GITHUB_PERSONAL_ACCESS_TOKEN": GITHUB_PAT,
        "AUTHORIZATION": f"Bearer {BEARER}",
        "SEARCH_API_KEY": API_KEY,
    }
    mcp.write_text(json.dumps(document, indent=2) + "\n")
    removal = run_deja("uninstall", target, "--dry-run", env=env, script=deja)
    assert removal.returncode == 0, removal.stderr
    assert '-        "GITHUB_PERSONAL_ACCESS_TOKEN": "[redacted:' in removal.stdout, "the lines removed are shown"
    assert removal.stdout.count("[redacted:") >= 3, "each token, in the line removed"
    assert all(secret not in removal.stdout for secret in (GITHUB_PAT, BEARER, API_KEY))
