"""deja install / uninstall / doctor's wiring section, on a fake HOME.

Every written file is checked against the shape Cursor or Claude Code accepts
(hooks.json, mcp.json, SKILL.md, settings.json, ~/.claude.json), and every
file the user had is checked to come through with their entries intact.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
from pathlib import Path
from typing import Any

import pytest
from harness import snapshot
from typer.testing import CliRunner

from deja.installers import TARGETS, InstallError, cursor, guidance, install, uninstall, wiring_report
from deja.interfaces.cli import app

pytestmark = pytest.mark.unit

CURSOR_EVENTS = {
    "sessionStart": ("hook-context", None),
    "beforeSubmitPrompt": ("hook-prompt", None),
    "preToolUse": ("hook-tool", "^(Shell|Write|Task)$"),
    "postToolUse": ("hook-tool-after", "^Shell$"),
    "postToolUseFailure": ("hook-tool-after", "^Shell$"),
    "stop": ("hook-session-end", None),
    "preCompact": ("hook-session-end", None),
    "sessionEnd": ("hook-session-end", None),
}
CLAUDE_EVENTS = {
    "SessionStart": ("hook-context", None),
    "UserPromptSubmit": ("hook-prompt", None),
    "PreToolUse": ("hook-tool", "Bash|Write|Edit|Task"),
    "PostToolUse": ("hook-tool-after", "Bash"),
    "Stop": ("hook-session-end", None),
    "PreCompact": ("hook-session-end", None),
    "SessionEnd": ("hook-session-end", None),
}

CURSOR_ENTRY_FIELDS = {"command", "type", "timeout", "matcher", "loop_limit", "failClosed", "prompt", "model"}

USER_HOOKS = {
    "version": 1,
    "hooks": {
        "stop": [{"command": "./hooks/audit.sh", "loop_limit": None}],
        "sessionStart": [{"command": "/usr/local/bin/direnv-hook", "timeout": 3}],
        "beforeShellExecution": [{"command": "~/bin/guard.sh", "matcher": "rm -rf", "failClosed": True}],
    },
    "userNote": "keep me ✓",
}
USER_MCP = {
    "mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"TOKEN": "x"}},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer y"}},
    },
    "theme": {"nested": [1, 2.5, None, False]},
}


@pytest.fixture
def deja(tmp_path: Path) -> str:
    return _executable(tmp_path / "bin" / "deja")


def _executable(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def _write_json(path: Path, value: Any, *, indent: int = 4) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=indent, ensure_ascii=False))
    return path.read_bytes()


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _frontmatter(text: str) -> dict[str, Any]:
    import yaml

    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, "SKILL.md starts with a frontmatter block"
    return yaml.safe_load(match.group(1))


# ---- the shapes Cursor and Claude Code accept ------------------------------------------


def assert_cursor_mcp(document: dict[str, Any], deja: str) -> None:
    assert isinstance(document["mcpServers"], dict)
    assert document["mcpServers"]["deja"] == {"command": deja, "args": ["mcp"]}
    assert os.path.isabs(document["mcpServers"]["deja"]["command"])


def assert_cursor_hooks(document: dict[str, Any], deja: str) -> None:
    assert document["version"] == 1
    hooks = document["hooks"]
    assert isinstance(hooks, dict)
    assert set(hooks) <= cursor.KNOWN_EVENTS, "one unknown event name voids the whole file"
    for entries in hooks.values():
        assert isinstance(entries, list)
        for entry in entries:
            assert isinstance(entry["command"], str)
            assert set(entry) <= CURSOR_ENTRY_FIELDS
            if "matcher" in entry:
                re.compile(entry["matcher"])
    for event, (subcommand, matcher) in CURSOR_EVENTS.items():
        ours = [entry for entry in hooks[event] if entry["command"].endswith(f" {subcommand}")]
        assert len(ours) == 1, event
        assert shlex.split(ours[0]["command"]) == [deja, subcommand]
        assert ours[0].get("matcher") == matcher
        assert isinstance(ours[0]["timeout"], int) and 1 <= ours[0]["timeout"] <= 60, "Cursor's timeout is in seconds"


def assert_claude_hooks(document: dict[str, Any], deja: str) -> None:
    hooks = document["hooks"]
    for event, (subcommand, matcher) in CLAUDE_EVENTS.items():
        groups = [g for g in hooks[event] if any(h["command"].endswith(f" {subcommand}") for h in g["hooks"])]
        assert len(groups) == 1, event
        assert groups[0].get("matcher", "") == (matcher or "")
        (hook,) = groups[0]["hooks"]
        assert hook["type"] == "command" and isinstance(hook["timeout"], int)
        assert shlex.split(hook["command"]) == [deja, subcommand]


def assert_skill(text: str, deja: str) -> None:
    meta = _frontmatter(text)
    assert meta["name"] == "deja-history" == guidance.skill_path().parent.name
    assert re.fullmatch(r"[a-z0-9-]+", meta["name"])
    for phrase in ("last time", "before", "we fixed this"):
        assert phrase in meta["description"]
    for tool in ("search(query, project?, source?, since?, limit=5)", "show(session_id, offset=0, limit=50)",
                 "recent(project?, limit=10)", "resume(session_id)", "work(mode, query, project?)"):  # fmt: skip
        assert tool in text
    for fallback in (
        "search WORDS --json",
        "show ID --json",
        "sessions --json",
        "resume ID",
        'fix "ERROR TEXT" --json',
    ):
        assert f"{shlex.quote(deja)} {fallback}" in text


# ---- fresh installs --------------------------------------------------------------------


def test_fresh_install_cursor_writes_the_server_skill_and_command(fake_home: Path, deja: str) -> None:
    changes = install("cursor", deja_path=deja)

    config = fake_home / ".cursor"
    skill = fake_home / ".agents" / "skills" / "deja-history" / "SKILL.md"
    assert [(c.path, c.action) for c in changes] == [
        (config / "mcp.json", "created"),
        (skill, "created"),
        (config / "commands" / "deja.md", "created"),
    ]
    assert_cursor_mcp(_read_json(config / "mcp.json"), deja)
    assert_skill(skill.read_text(), deja)
    command = (config / "commands" / "deja.md").read_text()
    assert "search" in command and f"{deja} search WORDS --json" in command
    assert not (config / "hooks.json").exists(), "hooks only with cursor-auto"
    for change in changes:
        assert _mode(change.path) == 0o600
        assert change.diff.startswith("--- /dev/null")
        assert change.path.read_text().endswith("\n")


def test_fresh_install_cursor_auto_adds_every_hook(fake_home: Path, deja: str) -> None:
    changes = install("cursor-auto", deja_path=deja)

    hooks_path = fake_home / ".cursor" / "hooks.json"
    assert changes[-1].path == hooks_path and changes[-1].action == "created"
    document = _read_json(hooks_path)
    assert list(document) == ["version", "hooks"]
    assert list(document["hooks"]) == list(CURSOR_EVENTS)
    assert_cursor_hooks(document, deja)
    assert hooks_path.read_text() == json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_a_path_with_spaces_is_quoted_for_the_shell(fake_home: Path, tmp_path: Path) -> None:
    deja = _executable(tmp_path / "my tools" / "deja")
    install("cursor-auto", deja_path=deja)

    hooks = _read_json(fake_home / ".cursor" / "hooks.json")["hooks"]
    assert hooks["sessionStart"][0]["command"] == f"'{deja}' hook-context"
    assert _read_json(fake_home / ".cursor" / "mcp.json")["mcpServers"]["deja"]["command"] == deja
    assert install("cursor-auto", deja_path=deja)[-1].action == "unchanged", "the quoted form is recognised as deja's"


def test_cursor_config_dir_moves_every_cursor_file(
    fake_home: Path, tmp_path: Path, deja: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "elsewhere" / "cursor"
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(config))

    install("cursor-auto", deja_path=deja)

    assert_cursor_mcp(_read_json(config / "mcp.json"), deja)
    assert_cursor_hooks(_read_json(config / "hooks.json"), deja)
    assert (config / "commands" / "deja.md").is_file()
    assert (fake_home / ".agents" / "skills" / "deja-history" / "SKILL.md").is_file(), "the skill stays shared"
    assert not (fake_home / ".cursor").exists()

    uninstall("cursor-auto")
    assert not (config / "mcp.json").exists() and not (config / "hooks.json").exists()


# ---- the user's own files --------------------------------------------------------------


def test_install_keeps_the_users_hooks_and_servers_in_order(fake_home: Path, deja: str) -> None:
    config = fake_home / ".cursor"
    _write_json(config / "hooks.json", USER_HOOKS)
    _write_json(config / "mcp.json", USER_MCP)

    install("cursor-auto", deja_path=deja)

    hooks = _read_json(config / "hooks.json")
    assert_cursor_hooks(hooks, deja)
    assert list(hooks) == ["version", "hooks", "userNote"] and hooks["userNote"] == USER_HOOKS["userNote"]
    assert list(hooks["hooks"])[:3] == list(USER_HOOKS["hooks"])
    for event, entries in USER_HOOKS["hooks"].items():
        kept = [entry for entry in hooks["hooks"][event] if entry in entries]
        assert json.dumps(kept) == json.dumps(entries), "the user's entries, value for value, in order"
    assert hooks["hooks"]["sessionStart"][0] == USER_HOOKS["hooks"]["sessionStart"][0], "deja's entry goes after theirs"

    servers = _read_json(config / "mcp.json")
    assert_cursor_mcp(servers, deja)
    assert list(servers) == ["mcpServers", "theme"]
    assert list(servers["mcpServers"]) == ["github", "remote", "deja"]
    assert json.dumps({k: servers["mcpServers"][k] for k in ("github", "remote")}) == json.dumps(USER_MCP["mcpServers"])
    assert json.dumps(servers["theme"]) == json.dumps(USER_MCP["theme"])


def test_install_then_uninstall_gives_back_the_users_document(fake_home: Path, deja: str) -> None:
    config = fake_home / ".cursor"
    _write_json(config / "hooks.json", USER_HOOKS)
    _write_json(config / "mcp.json", USER_MCP)
    _write_json(fake_home / ".claude.json", {"numStartups": 3, "projects": {"/p": {"mcpServers": {}}}})
    _write_json(fake_home / ".claude" / "settings.json", {"model": "opus", "hooks": {"Stop": [{"hooks": []}]}})

    for target in ("cursor-auto", "claude-auto"):
        install(target, deja_path=deja)
        uninstall(target)

    assert json.dumps(_read_json(config / "hooks.json")) == json.dumps(USER_HOOKS)
    assert json.dumps(_read_json(config / "mcp.json")) == json.dumps(USER_MCP)
    assert _read_json(fake_home / ".claude.json") == {"numStartups": 3, "projects": {"/p": {"mcpServers": {}}}}
    assert _read_json(fake_home / ".claude" / "settings.json") == {"model": "opus", "hooks": {"Stop": [{"hooks": []}]}}
    assert not (fake_home / ".agents" / "skills" / "deja-history").exists()
    assert not (config / "commands" / "deja.md").exists()


def test_an_unchanged_file_keeps_its_bytes(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    hooks_path = fake_home / ".cursor" / "hooks.json"
    reformatted = _write_json(hooks_path, _read_json(hooks_path), indent=8)

    assert install("cursor-auto", deja_path=deja)[-1].action == "unchanged"
    assert hooks_path.read_bytes() == reformatted


def test_a_users_wrapper_that_mentions_deja_is_not_deja(fake_home: Path, deja: str) -> None:
    # (``deja hook-prompt | tee -a /tmp/log`` is deja's hook as the user edited it: test_edited_deja_hooks.py)
    wrappers = [
        {"command": "/home/me/bin/wrap.sh deja hook-context"},
        {"command": "deja-helper hook-context"},
        {"command": f"{deja} search --json"},
    ]
    hooks_path = fake_home / ".cursor" / "hooks.json"
    _write_json(hooks_path, {"version": 1, "hooks": {"sessionStart": wrappers}})

    install("cursor-auto", deja_path=deja)
    assert _read_json(hooks_path)["hooks"]["sessionStart"][:3] == wrappers
    uninstall("cursor")
    assert _read_json(hooks_path) == {"version": 1, "hooks": {"sessionStart": wrappers}}


def test_uninstall_leaves_the_users_entries(fake_home: Path, deja: str) -> None:
    config = fake_home / ".cursor"
    install("cursor-auto", deja_path=deja)
    hooks = _read_json(config / "hooks.json")
    hooks["hooks"]["sessionStart"].append({"command": "/usr/bin/mine"})
    hooks["hooks"]["stop"] = [{"command": "./stop.sh"}]
    _write_json(config / "hooks.json", hooks)
    servers = _read_json(config / "mcp.json")
    servers["mcpServers"]["other"] = {"command": "other", "args": []}
    _write_json(config / "mcp.json", servers)

    changes = uninstall("cursor-auto")

    assert {c.path.name: c.action for c in changes}["hooks.json"] == "updated"
    assert _read_json(config / "hooks.json") == {
        "version": 1,
        "hooks": {"sessionStart": [{"command": "/usr/bin/mine"}], "stop": [{"command": "./stop.sh"}]},
    }
    assert _read_json(config / "mcp.json") == {"mcpServers": {"other": {"command": "other", "args": []}}}


def test_uninstall_of_cursor_removes_the_hooks_too(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    uninstall("cursor")
    assert not (fake_home / ".cursor" / "hooks.json").exists(), "a file that held only deja's entries goes"
    assert not (fake_home / ".cursor" / "mcp.json").exists()


def test_uninstall_with_nothing_installed_changes_nothing(fake_home: Path) -> None:
    for target in TARGETS:
        assert {c.action for c in uninstall(target)} == {"unchanged"}
    assert snapshot(fake_home) == {}


def test_a_skill_or_command_deja_did_not_write_is_refused_and_kept(fake_home: Path, deja: str) -> None:
    command = fake_home / ".cursor" / "commands" / "deja.md"
    command.parent.mkdir(parents=True)
    command.write_text("# my own /deja\n")

    with pytest.raises(InstallError, match=rf"^{re.escape(str(command))}:1: not deja's file"):
        install("cursor", deja_path=deja)
    assert not (fake_home / ".cursor" / "mcp.json").exists(), "a refusal writes nothing at all"

    command.unlink()
    install("cursor", deja_path=deja)
    command.write_text("# mine again\n")
    uninstall("cursor")
    assert command.read_text() == "# mine again\n"


def test_a_deja_server_that_is_not_deja_is_refused(fake_home: Path, deja: str) -> None:
    someone_elses = {"mcpServers": {"deja": {"command": "uvx", "args": ["deja"]}}}
    original = _write_json(fake_home / ".cursor" / "mcp.json", someone_elses)

    with pytest.raises(InstallError, match=r"mcp\.json:3: mcpServers\.deja runs 'uvx', not deja's server"):
        install("cursor", deja_path=deja)
    uninstall("cursor")
    assert (fake_home / ".cursor" / "mcp.json").read_bytes() == original


# ---- idempotence and a moved executable ------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_three_installs_equal_one(fake_home: Path, deja: str, target: str) -> None:
    _write_json(fake_home / ".cursor" / "hooks.json", USER_HOOKS)
    users_group = {"hooks": [{"type": "command", "command": "x"}]}
    _write_json(fake_home / ".claude" / "settings.json", {"hooks": {"SessionStart": [users_group]}})
    install(target, deja_path=deja)
    once = snapshot(fake_home)

    for _ in range(2):
        assert {c.action for c in install(target, deja_path=deja)} == {"unchanged"}
    assert snapshot(fake_home) == once


def test_install_after_the_executable_moved_rewrites_deja_entries_in_place(
    fake_home: Path, tmp_path: Path, deja: str
) -> None:
    config = fake_home / ".cursor"
    _write_json(config / "hooks.json", USER_HOOKS)
    install("cursor-auto", deja_path=deja)
    install("claude-auto", deja_path=deja)
    hooks = _read_json(config / "hooks.json")
    hooks["hooks"]["sessionStart"].append({"command": "/after/deja-s/own"})  # the user's, after deja's
    _write_json(config / "hooks.json", hooks)
    servers = _read_json(config / "mcp.json")
    servers["mcpServers"]["deja"]["env"] = {"DEJA_RECALL": "aggressive"}
    _write_json(config / "mcp.json", servers)

    moved = _executable(tmp_path / "new home" / "deja")
    install("cursor-auto", deja_path=moved)
    install("claude-auto", deja_path=moved)

    rewritten = _read_json(config / "hooks.json")
    assert_cursor_hooks(rewritten, moved)
    assert deja not in json.dumps(rewritten)
    start = rewritten["hooks"]["sessionStart"]
    assert [e["command"] for e in start] == [
        "/usr/local/bin/direnv-hook",
        f"'{moved}' hook-context",
        "/after/deja-s/own",
    ]
    assert _read_json(config / "mcp.json")["mcpServers"]["deja"] == {
        "command": moved,
        "args": ["mcp"],
        "env": {"DEJA_RECALL": "aggressive"},
    }, "rewritten in place, keeping what the user added to deja's entry"
    settings = _read_json(fake_home / ".claude" / "settings.json")
    assert_claude_hooks(settings, moved)
    assert deja not in json.dumps(settings)
    assert _read_json(fake_home / ".claude.json")["mcpServers"]["deja"]["command"] == moved


def test_install_folds_duplicate_deja_entries_into_one(fake_home: Path, deja: str) -> None:
    hooks_path = fake_home / ".cursor" / "hooks.json"
    start = [
        {"command": "/old/deja hook-context"},
        {"command": "/usr/bin/mine"},
        {"command": "/older/deja hook-context"},
    ]
    retired = [{"command": "/old/deja hook-tool-after"}]  # (an event deja writes no hook on)
    _write_json(hooks_path, {"version": 1, "hooks": {"sessionStart": start, "afterShellExecution": retired}})

    install("cursor-auto", deja_path=deja)

    hooks = _read_json(hooks_path)["hooks"]
    assert [e["command"] for e in hooks["sessionStart"]] == [f"{deja} hook-context", "/usr/bin/mine"]
    assert "afterShellExecution" not in hooks, "an event that held only an old deja entry goes"


# ---- file safety -----------------------------------------------------------------------


def test_a_symlinked_config_is_followed_not_replaced(fake_home: Path, tmp_path: Path, deja: str) -> None:
    dotfiles = tmp_path / "dotfiles"
    target = dotfiles / "cursor-hooks.json"
    _write_json(target, USER_HOOKS)
    link = fake_home / ".cursor" / "hooks.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)

    install("cursor-auto", deja_path=deja)

    assert link.is_symlink() and os.readlink(link) == str(target)
    assert_cursor_hooks(_read_json(target), deja)
    # The copy goes beside the link, in Cursor's folder, not into the dotfiles folder the link leads to (trial58 T2).
    assert (link.parent / "hooks.json.bak").is_file() and sorted(os.listdir(dotfiles)) == ["cursor-hooks.json"]

    uninstall("cursor-auto")
    assert link.is_symlink()
    assert json.dumps(_read_json(target)) == json.dumps(USER_HOOKS)
    assert not (link.parent / "hooks.json.bak").exists()


def test_a_symlinked_file_deja_empties_stays_a_link(fake_home: Path, tmp_path: Path, deja: str) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text("{}\n")  # a link to nothing is refused (see test_installer_guarantees.py)
    link = fake_home / ".cursor" / "mcp.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)

    install("cursor", deja_path=deja)
    uninstall("cursor")

    assert link.is_symlink() and _read_json(target) == {}


@pytest.mark.parametrize(
    ("content", "where", "problem"),
    [
        ('{\n  "version": 1,\n  "hooks": {\n    "stop": [\n  }\n}\n', ":5:", "column"),
        ('{"version": 1,}\n', ":1:", "column"),
        ("[1, 2]\n", ":1:", "expected a JSON object at the top, found a list"),
        ('{\n  "version": 1,\n  "hooks": []\n}\n', ":3:", '"hooks" is a list, expected an object'),
        (
            '{\n  "hooks": {\n    "sessionStart": {"command": "x"}\n  }\n}\n',
            ":3:",
            '"sessionStart" is an object, expected a list',
        ),
    ],
)
def test_a_malformed_file_is_refused_and_left_untouched(
    fake_home: Path, deja: str, content: str, where: str, problem: str
) -> None:
    hooks_path = fake_home / ".cursor" / "hooks.json"
    hooks_path.parent.mkdir(parents=True)
    hooks_path.write_text(content)
    hooks_path.chmod(0o640)
    before = snapshot(fake_home)

    with pytest.raises(InstallError) as refused:
        install("cursor-auto", deja_path=deja)

    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{hooks_path}{where}") and problem in message
    assert "run the command again" in message
    assert snapshot(fake_home) == before, "nothing written, not even the files that parsed"
    if problem.startswith('"sessionStart"'):
        return  # uninstall has nothing to merge into a list it does not own
    with pytest.raises(InstallError):
        uninstall("cursor-auto")
    assert snapshot(fake_home) == before


def test_a_blank_file_counts_as_empty(fake_home: Path, deja: str) -> None:
    (fake_home / ".cursor").mkdir()
    (fake_home / ".cursor" / "mcp.json").write_text("\n")
    assert install("cursor", deja_path=deja)[0].action == "updated"
    assert_cursor_mcp(_read_json(fake_home / ".cursor" / "mcp.json"), deja)


def test_dry_run_writes_nothing_and_shows_the_diff(fake_home: Path, deja: str) -> None:
    original = _write_json(fake_home / ".cursor" / "mcp.json", USER_MCP)
    before = snapshot(fake_home)

    changes = install("cursor-auto", dry_run=True, deja_path=deja)

    assert snapshot(fake_home) == before, "no file and no folder"
    by_name = {c.path.name: c for c in changes}
    assert by_name["mcp.json"].action == "updated"
    assert by_name["mcp.json"].diff.startswith(f"--- {fake_home / '.cursor' / 'mcp.json'}\n+++ ")
    assert f'+      "command": "{deja}",' in by_name["mcp.json"].diff
    assert by_name["hooks.json"].action == "created" and '+  "version": 1,' in by_name["hooks.json"].diff

    install("cursor-auto", deja_path=deja)
    after = snapshot(fake_home)
    removal = uninstall("cursor-auto", dry_run=True)
    assert snapshot(fake_home) == after
    removal_by_name = {c.path.name: c for c in removal}
    assert removal_by_name["hooks.json"].action == "removed"
    assert all(line.startswith(("---", "+++", "@@", "-")) for line in removal_by_name["hooks.json"].diff.splitlines())
    assert removal_by_name["mcp.json"].diff, "the diff back to the file as it was"
    uninstall("cursor-auto")
    assert (fake_home / ".cursor" / "mcp.json").read_bytes() == original


def test_mode_is_kept_and_new_files_are_private(fake_home: Path, deja: str) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    _write_json(mcp, USER_MCP)
    mcp.chmod(0o644)

    install("cursor-auto", deja_path=deja)

    assert _mode(mcp) == 0o644
    assert _mode(fake_home / ".cursor" / "hooks.json") == 0o600
    assert not list(mcp.parent.glob(".*.tmp")), "no temp file left behind"


def test_one_backup_of_the_original_the_first_time(fake_home: Path, tmp_path: Path, deja: str) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    original = _write_json(mcp, USER_MCP)

    install("cursor", deja_path=deja)
    install("cursor", deja_path=_executable(tmp_path / "moved" / "deja"))

    backup = mcp.with_name("mcp.json.bak")
    assert backup.read_bytes() == original
    assert sorted(p.name for p in mcp.parent.iterdir() if p.is_file()) == ["mcp.json", "mcp.json.bak"]
    assert not (fake_home / ".cursor" / "commands" / "deja.md.bak").exists(), "deja's own files need no backup"
    uninstall("cursor")
    assert mcp.read_bytes() == original and not backup.exists(), "put back from it, the backup is spent"


def test_an_unknown_target_is_refused(deja: str) -> None:
    with pytest.raises(InstallError, match="choose one of cursor, cursor-auto, claude, claude-auto"):
        install("vscode", deja_path=deja)


# ---- Claude Code -----------------------------------------------------------------------


def test_install_claude_keeps_every_other_key_of_claude_json(fake_home: Path, deja: str) -> None:
    state = {
        "numStartups": 41,
        "mcpServers": {"fs": {"type": "stdio", "command": "mcp-fs", "args": []}},
        "projects": {"/work": {"allowedTools": [], "mcpServers": {"p": {"command": "p"}}}},
        "oauthAccount": {"emailAddress": "me@example.com"},
    }
    path = fake_home / ".claude.json"
    _write_json(path, state, indent=2)
    path.chmod(0o600)

    changes = install("claude", deja_path=deja)

    assert [(c.path, c.action) for c in changes] == [(path, "updated")]
    written = _read_json(path)
    assert list(written) == list(state)
    assert written["mcpServers"] == {**state["mcpServers"], "deja": {"type": "stdio", "command": deja, "args": ["mcp"]}}
    for key in ("numStartups", "projects", "oauthAccount"):
        assert written[key] == state[key]
    assert not (fake_home / ".claude" / "settings.json").exists(), "hooks only with claude-auto"
    assert _mode(path) == 0o600


def test_install_and_uninstall_claude_merge_a_claude_json_its_history_made_large(fake_home: Path, deja: str) -> None:
    """``~/.claude.json`` is Claude Code's own state, each project's prompt history in it, and grows past 15 MB: a cap
    on what the installers read refused to merge one of 5.5 MB and said to move it aside (review52d F2)."""
    history = [{"display": "fix the failing test " + "x" * 400, "pastedContents": {}}] * 100
    state = {"numStartups": 412, "projects": {f"/home/dev/code/p{n}": {"history": history} for n in range(120)}}
    path = fake_home / ".claude.json"
    _write_json(path, state, indent=2)
    assert path.stat().st_size > 5 << 20
    install("claude", deja_path=deja)
    assert _read_json(path)["mcpServers"]["deja"]["args"] == ["mcp"]
    uninstall("claude")
    assert _read_json(path) == state


def test_claude_auto_hooks_use_the_cursor_command_strings(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    install("claude-auto", deja_path=deja)

    settings = _read_json(fake_home / ".claude" / "settings.json")
    assert_claude_hooks(settings, deja)
    claude_commands = {h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]}
    cursor_hooks = _read_json(fake_home / ".cursor" / "hooks.json")["hooks"]
    cursor_commands = {e["command"] for entries in cursor_hooks.values() for e in entries}
    assert claude_commands == cursor_commands, "Cursor drops a Claude hook whose command equals one of its own"


def test_claude_uninstall_keeps_a_users_hook_that_shares_deja_group(fake_home: Path, deja: str) -> None:
    install("claude-auto", deja_path=deja)
    settings_path = fake_home / ".claude" / "settings.json"
    settings = _read_json(settings_path)
    settings["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "./lint.sh"})
    settings["permissions"] = {"allow": ["Bash(ls)"]}
    _write_json(settings_path, settings)

    uninstall("claude")

    assert _read_json(settings_path) == {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash|Write|Edit|Task", "hooks": [{"type": "command", "command": "./lint.sh"}]}]
        },
        "permissions": {"allow": ["Bash(ls)"]},
    }
    assert not (fake_home / ".claude.json").exists(), "deja made it, and it held nothing else"


def test_claude_config_dir_is_honoured(tmp_path: Path, deja: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "claude-work"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    install("claude-auto", deja_path=deja)
    assert _read_json(config / ".claude.json")["mcpServers"]["deja"]["command"] == deja
    assert_claude_hooks(_read_json(config / "settings.json"), deja)


# ---- doctor ----------------------------------------------------------------------------


def _levels(findings: list[Any]) -> set[str]:
    return {finding.level for finding in findings}


def test_doctor_after_a_full_install_is_all_ok(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    install("claude-auto", deja_path=deja)

    findings = wiring_report(deja_path=deja)

    assert _levels(findings) == {"ok"}
    assert any(str(fake_home / ".cursor" / "hooks.json") in f.message for f in findings)
    assert any(str(fake_home / ".claude" / "settings.json") in f.message for f in findings)


def test_doctor_with_nothing_installed_says_how(deja: str) -> None:
    findings = wiring_report(deja_path=deja)
    assert {f.fix for f in findings if f.level == "warn"} == {"deja install cursor-auto"}
    assert any(f.fix == "deja install cursor-auto" for f in findings)
    assert not any("Claude" in f.message for f in findings), "Claude Code is not on this machine"


def test_doctor_on_a_fresh_machine_gives_the_readmes_first_install(fake_home: Path) -> None:
    """trial14 F7: each fix said ``deja install cursor`` (no hooks) where the README and ``deja demo`` say
    ``cursor-auto``."""
    out = CliRunner().invoke(app, ["doctor"]).stdout
    assert "fix: deja install cursor-auto" in out
    assert "fix: deja install cursor\n" not in out


def test_doctor_keeps_to_cursor_without_hooks_when_that_was_the_choice(fake_home: Path, deja: str) -> None:
    install("cursor", deja_path=deja)
    guidance.skill_path().unlink()
    findings = wiring_report(deja_path=deja)
    assert [f.fix for f in findings if f.level == "warn"] == ["deja install cursor"]


def test_doctor_says_nothing_of_claude_code_to_a_cursor_user_who_runs_it_too(fake_home: Path, deja: str) -> None:
    (fake_home / ".claude.json").write_text('{"numStartups": 3, "mcpServers": {}}')
    install("cursor", deja_path=deja)
    assert not any("Claude" in f.message for f in wiring_report(deja_path=deja))
    install("claude", deja_path=deja)
    assert any("Claude Code" in f.message for f in wiring_report(deja_path=deja))


def test_doctor_reports_stale_paths_and_another_deja(fake_home: Path, tmp_path: Path, deja: str) -> None:
    gone = str(tmp_path / "gone" / "deja")
    install("cursor-auto", deja_path=gone)

    stale = [f for f in wiring_report(deja_path=deja) if f.level == "error"]
    assert any("MCP server" in f.message and gone in f.message and "gone" in f.message for f in stale)
    assert any("hooks" in f.message and gone in f.message for f in stale)
    assert {f.fix for f in stale} == {"deja install cursor-auto"}

    other = _executable(tmp_path / "other" / "deja")
    install("cursor-auto", deja_path=other)
    assert any(f.level == "warn" and other in f.message for f in wiring_report(deja_path=deja))


def test_doctor_reports_duplicates_and_unknown_events(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    hooks_path = fake_home / ".cursor" / "hooks.json"
    document = _read_json(hooks_path)
    document["hooks"]["sessionStart"] *= 2
    document["hooks"]["stop"] = [{"command": "./a.sh"}, {"command": "./a.sh"}]
    document["hooks"]["onSave"] = [{"command": "./b.sh"}]
    _write_json(hooks_path, document)

    findings = wiring_report(deja_path=deja)

    unknown = [f for f in findings if "'onSave'" in f.message]
    assert [f.level for f in unknown] == ["error"] and "ignore the whole file" in unknown[0].message
    assert any(f.level == "warn" and "deja runs 2 times on sessionStart" in f.message for f in findings)
    assert any(f.level == "warn" and "'./a.sh' runs 2 times on stop" in f.message for f in findings)


def test_doctor_reports_a_file_cursor_cannot_parse(fake_home: Path, deja: str) -> None:
    (fake_home / ".cursor").mkdir()
    (fake_home / ".cursor" / "hooks.json").write_text('{"version": 1,\n "hooks": {,}}\n')
    errors = [f for f in wiring_report(deja_path=deja) if f.level == "error"]
    assert len(errors) == 1 and errors[0].message.startswith(f"{fake_home / '.cursor' / 'hooks.json'}:2:")


def test_doctor_reports_hooks_cursor_would_run_twice(fake_home: Path, tmp_path: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    install("claude-auto", deja_path=_executable(tmp_path / "other" / "deja"))

    twice = [f for f in wiring_report(deja_path=deja) if "twice" in f.message]
    assert len(twice) == 1 and twice[0].fix == "deja install cursor-auto && deja install claude-auto"


def test_doctor_reports_hooks_that_lag_behind_install(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    hooks_path = fake_home / ".cursor" / "hooks.json"
    document = _read_json(hooks_path)
    del document["hooks"]["preToolUse"][0]["matcher"]
    _write_json(hooks_path, document)

    lagging = [f for f in wiring_report(deja_path=deja) if f.level == "warn"]
    assert [f.fix for f in lagging] == ["deja install cursor-auto"]


def test_a_bak_only_ever_holds_the_users_file_as_it_was_before_deja(fake_home: Path, deja: str) -> None:
    """A hooks.json install created, then given a hook of the user's: uninstall keeps the user's hook and leaves no
    .bak (which would hold deja's hooks); a file the user had keeps the .bak of what it was, untouched by uninstall."""
    hooks = fake_home / ".cursor" / "hooks.json"
    install("cursor-auto", deja_path=deja)
    document = _read_json(hooks)
    document["hooks"]["afterFileEdit"] = [{"command": "./fmt.sh"}]
    _write_json(hooks, document)
    uninstall("cursor-auto")
    assert _read_json(hooks)["hooks"] == {"afterFileEdit": [{"command": "./fmt.sh"}]}
    assert not hooks.with_name("hooks.json.bak").exists()

    original = hooks.read_bytes()
    install("cursor-auto", deja_path=deja)
    document = _read_json(hooks)
    document["hooks"]["stop"] = [{"command": "./notify.sh"}]
    _write_json(hooks, document)
    uninstall("cursor-auto")
    assert hooks.with_name("hooks.json.bak").read_bytes() == original


@pytest.mark.parametrize(
    ("target", "path", "event"),
    [("cursor-auto", ".cursor/hooks.json", "stop"), ("claude-auto", ".claude/settings.json", "Stop")],
)
def test_an_install_from_before_the_stop_hook_is_upgraded_by_installing_again(
    fake_home: Path, deja: str, target: str, path: str, event: str
) -> None:
    """deja's older installs wrote no hook on stop: doctor warns (not an error: the hooks there still run) naming the
    event and the install to run; running it adds the hook after the user's own, and uninstall removes only it."""
    hooks_path = fake_home / path
    users = {"type": "command", "command": "./hooks/audit.sh"}
    install(target, deja_path=deja)
    document = _read_json(hooks_path)
    document["hooks"][event] = [{"hooks": [users]} if target == "claude-auto" else users]
    _write_json(hooks_path, document)

    lagging = [(f.level, f.message, f.fix) for f in wiring_report(deja_path=deja) if str(hooks_path) in f.message]
    assert lagging == [
        (
            "warn",
            f"{hooks_path}: deja's hooks differ from what `deja install {target}` writes (no deja hook on {event} yet;"
            " the others run as they are)",
            f"deja install {target}",
        )
    ]

    install(target, deja_path=deja)
    entries = _read_json(hooks_path)["hooks"][event]
    commands = (
        [hook["command"] for group in entries for hook in group["hooks"]]
        if target == "claude-auto"
        else [entry["command"] for entry in entries]
    )
    assert commands == ["./hooks/audit.sh", f"{shlex.quote(deja)} hook-session-end"]
    assert {f.level for f in wiring_report(deja_path=deja) if str(hooks_path) in f.message} == {"ok"}

    uninstall(target)
    assert _read_json(hooks_path)["hooks"] == {event: [{"hooks": [users]} if target == "claude-auto" else users]}


def test_doctor_counts_a_prompt_entry_loadable_and_warns_only_of_one_without_its_prompt(
    fake_home: Path, deja: str
) -> None:
    """trial50 F2: Cursor runs ``{"type": "prompt", "prompt": …}`` entries (an LLM checks the prompt text): they have no
    command, and doctor told the user to edit a correct file. A prompt entry with no prompt string still warns."""
    install("cursor-auto", deja_path=deja)
    hooks_path = fake_home / ".cursor" / "hooks.json"
    document = _read_json(hooks_path)
    check = {"type": "prompt", "prompt": "Is this prompt safe to send? $ARGUMENTS", "model": "fast", "timeout": 20}
    document["hooks"]["beforeSubmitPrompt"].insert(0, check)
    _write_json(hooks_path, document)
    assert _levels(wiring_report(deja_path=deja)) == {"ok"}

    document["hooks"]["stop"].append({"type": "prompt", "model": "fast"})
    _write_json(hooks_path, document)
    warned = [(f.level, f.message) for f in wiring_report(deja_path=deja) if f.level != "ok"]
    assert warned == [("warn", f"{hooks_path}: a prompt entry under 'stop' has no prompt string")]
