"""A config.toml deja cannot read stops every entrypoint the same way, instead of its defaults standing in.

One typo (``recall = "off`` without its closing quote) would otherwise turn recall back on in the hooks and
point the CLI at the default home's index. The CLI says so in one line and exits 1 (``deja config`` and
``deja doctor``, which exist to repair it, still run); a hook stays silent and says why in hooks.log; the MCP
server answers every tool call with a one-line tool error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from harness import Sample, as_user, index_chats, run_deja
from mcp.server.mcpserver.exceptions import ToolError

from deja.core import config
from deja.core.index import Index
from deja.interfaces.mcp_server import build_server

CHATS = {"a1a1a1a1-0000-4000-8000-000000000001": ["why does the zebracorn cache miss?", "The key had a timestamp."]}


@pytest.fixture
def broken(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An index of one chat in /work/shop, and a config file whose recall line lost its closing quote."""
    index_chats(tmp_path, monkeypatch, CHATS)
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('# deja settings\nrecall = "off\n')
    config.forget_file()
    return path


@pytest.mark.parametrize("args", [("sessions",), ("search", "zebracorn"), ("stats",), ("hooks", "log")])
def test_the_cli_stops_in_one_line_naming_the_file_and_its_line(broken: Path, args: tuple[str, ...]) -> None:
    done = run_deja(*args)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(f"deja: {broken} is not valid TOML (")
    assert "at line 2" in done.stderr and "fix it or move it aside" in done.stderr
    assert done.stderr.count("\n") == 1


def test_config_and_doctor_still_run_to_repair_it(broken: Path) -> None:
    shown = run_deja("config")
    assert shown.returncode == 0 and f"{broken} is not valid TOML" in shown.stdout + shown.stderr
    assert "Traceback" not in run_deja("doctor").stderr
    assert run_deja("config", "--help").returncode == 0


def test_a_hook_stays_silent_and_logs_why(broken: Path, tmp_path: Path) -> None:
    payload = {"conversation_id": "x3", "hook_event_name": "sessionStart", "workspace_roots": ["/work/shop"]}
    done = run_deja("hook-context", input=json.dumps(payload), env=dict(os.environ))

    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    last = (tmp_path / "deja" / "hooks.log").read_text().splitlines()[-1]
    assert f"x3: silent: {broken} is not valid TOML (" in last


def test_a_value_the_file_holds_that_its_key_does_not_take_silences_the_hooks_too(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """``recall = "of"`` (a typo of ``off``) must not recall with the default, ``safe``."""
    env = {**indexed_sample.env, "XDG_CONFIG_HOME": str(tmp_path / "settings")}
    file = tmp_path / "settings" / "deja" / "config.toml"
    file.parent.mkdir(parents=True)
    api = str(indexed_sample.history.projects["api"])
    payload = {"conversation_id": "x4", "hook_event_name": "sessionStart", "workspace_roots": [api]}
    file.write_text('recall = "safe"\n')
    assert "deja show" in run_deja("hook-context", input=json.dumps(payload), env=env).stdout
    file.write_text('recall = "of"\n')
    done = run_deja("hook-context", input=json.dumps({**payload, "conversation_id": "x5"}), env=env)

    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    last = (indexed_sample.home / "hooks.log").read_text().splitlines()[-1]
    assert f"x5: silent: {file}: recall takes one of off, safe, aggressive, not 'of'" in last


def test_every_mcp_tool_call_is_a_one_line_error_naming_the_file(broken: Path, tmp_path: Path) -> None:
    assert Index.open(tmp_path / "deja") is not None
    server = build_server()

    async def call() -> str:
        with pytest.raises(ToolError) as refused:
            await server.call_tool("search", {"query": "zebracorn"})
        return str(refused.value)

    message = anyio.run(call)
    assert message.startswith(f"Error executing tool search: {broken} is not valid TOML (")
    assert "\n" not in message


@pytest.mark.parametrize(
    "args", [("search", "zebracorn", "config"), ("search", "doctor"), ("sessions", "-p", "config")]
)
def test_a_repair_word_among_the_arguments_does_not_skip_the_check(broken: Path, args: tuple[str, ...]) -> None:
    """Only ``deja config`` and ``deja doctor`` themselves run past it: a search for the word ``doctor`` read the
    default home's index (a stranger review's find)."""
    done = run_deja(*args)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"deja: {broken} is not valid TOML (")


def test_asking_for_help_anywhere_still_runs(broken: Path) -> None:
    done = run_deja("search", "zebracorn", "--help")
    assert done.returncode == 0 and "Usage" in done.stdout


@pytest.mark.parametrize("make", ["folder", "loop", "unsearchable", "unsearchable above"])
def test_a_config_file_deja_cannot_read_stops_it_as_a_broken_one_does(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: str
) -> None:
    """A config.toml that cannot be opened (a folder in its place), or whose path cannot be followed (a link
    loop; its folder at mode 000, read by deja as a user that permissions stop: for root, in a user namespace)
    held the user's settings: it was taken for no file, so ``recall off`` and ``home`` were quietly ignored; an open
    that failed was called invalid TOML. A folder above deja's (``~/.config``) is opened alone: a recursive chmod
    of it would open every other program's files (review43c L2)."""
    index_chats(tmp_path, monkeypatch, CHATS)
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    if make == "folder":
        path.mkdir()
    elif make == "loop":
        path.symlink_to(path)
    else:
        path.write_text('recall = "off"\n')
    config.forget_file()
    if make.startswith("unsearchable"):
        hidden = path.parent.parent if make.endswith("above") else path.parent
        hidden.chmod(0)
        try:
            done = as_user(os.environ, "search", "zebracorn")
        finally:
            hidden.chmod(0o700)
    else:
        done = run_deja("search", "zebracorn")
    assert done.returncode == 1 and done.stdout == ""
    reason = {
        "folder": "(Is a directory)",
        "loop": "(Too many levels of symbolic links)",
        "unsearchable": f"(Permission denied): `chmod -R u+rX {path.parent}` makes it readable",
        "unsearchable above": f"(Permission denied): `chmod u+rx {path.parent.parent}` makes it readable",
    }[make]
    assert done.stderr == f"deja: cannot read {path} {reason}; {config.REPAIR}\n"


def test_keys_deja_has_no_setting_for_are_named_not_dropped_in_silence(fake_home: Path) -> None:
    """``[deja]`` above ``recall = "off"`` (a habit from other tools' files) or a misspelt key left recall on while
    the person believed it off: `deja config` (text and JSON) and doctor name each, and what to do (trialN F2)."""
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('Recall = "off"\n[deja]\nrecall = "off"\n')
    shown = run_deja("config")
    assert shown.returncode == 0, shown.stderr
    assert f"problem: {path}: unknown key 'Recall' is ignored; deja's settings are the top-level keys home, " in (
        shown.stdout
    )
    assert f"problem: {path}: a table [deja] is ignored" in shown.stdout
    assert "recall             safe" in shown.stdout  # what is in force, as the hooks read it
    unknown = json.loads(run_deja("config", "--json").stdout)["unknown"]
    assert [line.split(": ", 1)[1].split(" is ignored")[0] for line in unknown] == [
        "unknown key 'Recall'",
        "a table [deja]",
    ]
    doctor = run_deja("doctor").stdout
    assert f"fix: rename or remove 'Recall' in {path}" in doctor
    assert f"fix: move its keys above the [deja] line in {path}" in doctor


def test_a_byte_order_mark_at_the_file_s_start_is_read_past(fake_home: Path) -> None:
    """Windows editors start a UTF-8 file with a BOM, which TOML readers refuse (``Invalid statement (at line 1,
    column 1)``, naming no cause): the file's settings are read (trialN F2)."""
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes('\ufeffrecall = "off"\n'.encode())
    shown = run_deja("config")
    assert shown.returncode == 0 and "problem:" not in shown.stdout, shown.stdout
    assert "recall             off" in shown.stdout and run_deja("sessions").returncode == 0


def test_a_variable_deja_cannot_take_is_named_not_read_as_off(fake_home: Path) -> None:
    """``DEJA_INCLUDE_SUBAGENTS=true`` was off (only ``1`` was on) and ``DEJA_HOME=deja-index`` a folder under
    whatever folder deja ran in, in silence (trialN F13): a switch takes the words a config file takes, anything
    else and a relative folder are named as ignored (a relative DEJA_HOME stops deja: test_relative_home)."""
    env = {**os.environ, "DEJA_INCLUDE_SUBAGENTS": "true", "DEJA_NO_REDACT": "maybe", "DEJA_HOME": "deja-index"}
    shown = run_deja("config", "--json", env=env)
    settings = json.loads(shown.stdout)["settings"]
    assert settings["include_subagents"]["effective"] is True
    assert settings["redact"]["effective"] is True
    assert settings["redact"]["problem"] == "DEJA_NO_REDACT: takes 1 or 0, not 'maybe'"
    assert settings["home"]["effective"] == str(fake_home / ".cache" / "deja")
    assert settings["home"]["problem"].startswith("DEJA_HOME: home takes an absolute folder, not 'deja-index'")
    doctor = run_deja("doctor", env=env).stdout
    assert "DEJA_NO_REDACT: takes 1 or 0, not 'maybe'" in doctor and "DEJA_HOME=deja-index is relative" in doctor


def test_a_relative_folder_written_into_the_file_by_hand_is_named_not_used(fake_home: Path) -> None:
    """``home = "relative/dir"`` typed into the file made an index under every folder deja ran in, in silence
    (trial9 F4); ``deja config set`` writes a folder absolute, so only a hand's edit holds one."""
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('home = "relative/dir"\n')
    home = json.loads(run_deja("config", "--json").stdout)["settings"]["home"]
    assert home["effective"] == str(fake_home / ".cache" / "deja")
    assert home["problem"] == f"{path}: home takes an absolute folder, not 'relative/dir': a relative one is another folder wherever deja runs"  # fmt: skip
    assert run_deja("index", cwd=fake_home).returncode == 0 and not (fake_home / "relative").exists()


def test_a_relative_xdg_folder_is_ignored_as_the_xdg_spec_says(fake_home: Path) -> None:
    """``XDG_CACHE_HOME=cache`` put the index, and ``XDG_CONFIG_HOME=cfg`` looked for the config file, under whatever
    folder deja ran in (trial9 F16); the XDG Base Directory spec says a relative one is to be ignored."""
    env = {**os.environ, "XDG_CACHE_HOME": "cache", "XDG_CONFIG_HOME": "cfg"}
    data = json.loads(run_deja("config", "--json", env=env, cwd=fake_home).stdout)
    assert data["file"] == str(fake_home / ".config" / "deja" / "config.toml")
    assert data["settings"]["home"]["effective"] == str(fake_home / ".cache" / "deja")
