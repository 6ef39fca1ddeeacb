"""A newcomer's first five minutes: the version, help and usage errors, empty results, widths, `deja mcp` by hand."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import orjson
import pytest
from harness import ENTRY, Sample, run_deja
from installed_copy import installed_package

from deja.hooks.run import HANDLERS
from deja.interfaces.about import DISTRIBUTION, Checkout, upgrade_advice, upgrade_command, version
from deja.interfaces.cli import Command, app
from deja.interfaces.views import fit

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [str(info.name) for info in app.registered_commands]


# --------------------------------------------------------------------------- the name and the version


def test_the_distribution_is_not_the_unrelated_deja_on_the_package_index() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION == "deja-cursor"
    assert project["scripts"] == {"deja": "deja.interfaces.entry:main"}, "the command stays deja"


def test_upgrade_advice_fits_this_install() -> None:
    """This checkout's environment installed it (editable, or as the README does): the advice pulls this checkout and
    installs it again the same way, never `pip install deja`."""
    advice = upgrade_command()
    again = f"install -e '{ROOT}[test]'" if installed_package() == ROOT else f"install {ROOT}"
    assert advice == f"git -C {ROOT} pull && {sys.executable} -m pip {again}"
    assert not re.search(r"install (--upgrade )?deja(\s|$)", advice)


VENV = "/home/me/.local/share/deja/venv"
PIPX = "/home/me/.local/share/pipx/venvs/deja-cursor"
UV = "/home/me/.local/share/uv/tools/deja-cursor"


@pytest.mark.parametrize(
    ("checkout", "prefix", "python", "advice"),
    [
        (Checkout(Path("/src/deja"), editable=False), VENV, f"{VENV}/bin/python",
         f"git -C /src/deja pull && {VENV}/bin/python -m pip install /src/deja"),
        (Checkout(Path("/src/deja"), editable=True), VENV, f"{VENV}/bin/python",
         f"git -C /src/deja pull && {VENV}/bin/python -m pip install -e '/src/deja[test]'"),
        (Checkout(Path("/my src/deja"), editable=False), "/opt/my tools", "/opt/my tools/bin/python",
         "git -C '/my src/deja' pull && '/opt/my tools/bin/python' -m pip install '/my src/deja'"),
        (None, "/home/me/.local/share/pipx/venvs/deja-cursor", "/home/me/.local/share/pipx/venvs/deja-cursor/bin/python",
         "pipx upgrade deja-cursor"),
        (None, "/opt/tools/deja", "/opt/tools/deja/bin/python", "/opt/tools/deja/bin/python -m pip install --upgrade deja-cursor"),
        (None, "/opt/my tools", "/opt/my tools/bin/python", "'/opt/my tools/bin/python' -m pip install --upgrade deja-cursor"),
        # A pipx install made from a checkout: pipx installs it again, not pip (with the test extra) behind its back.
        (Checkout(Path("/src/deja"), editable=False), PIPX, f"{PIPX}/bin/python",
         "git -C /src/deja pull && pipx install --force /src/deja"),
        (Checkout(Path("/src/deja"), editable=True), PIPX, f"{PIPX}/bin/python",
         "git -C /src/deja pull && pipx install --force -e /src/deja"),
        # uv's tool environments hold no pip.
        (None, UV, f"{UV}/bin/python", "uv tool upgrade deja-cursor"),
        (Checkout(Path("/src/deja"), editable=False), UV, f"{UV}/bin/python",
         "git -C /src/deja pull && uv tool install --force /src/deja"),
    ],
)  # fmt: skip
def test_upgrade_advice_for_each_way_of_installing(
    checkout: Checkout | None, prefix: str, python: str, advice: str
) -> None:
    assert upgrade_advice(checkout, Path(prefix), python) == advice


@pytest.mark.parametrize(
    ("checkout", "advice"),
    [
        (None, "/usr/bin/python3.11 -m pip install --user --upgrade deja-cursor"),
        (Checkout(Path("/src/deja"), editable=False),
         "git -C /src/deja pull && /usr/bin/python3.11 -m pip install --user /src/deja"),
    ],
)  # fmt: skip
def test_a_user_install_is_upgraded_in_the_user_site(checkout: Checkout | None, advice: str) -> None:
    """Without ``--user``, pip would install a second copy into the interpreter's own site-packages (or be refused
    there), which the user site, first on ``sys.path``, keeps shadowing: the user would still run the old deja."""
    assert upgrade_advice(checkout, Path("/usr"), "/usr/bin/python3.11", user=True) == advice


def test_a_uv_tool_environment_is_known_by_its_receipt_wherever_uv_tool_dir_puts_it(tmp_path: Path) -> None:
    (tmp_path / "uv-receipt.toml").write_text("[tool]\n")
    assert upgrade_advice(None, tmp_path, str(tmp_path / "bin" / "python")) == "uv tool upgrade deja-cursor"


def test_version_is_one_line_from_the_cli_doctor_and_the_mcp_server(sample: Sample) -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", version())
    shown = run_deja("--version")
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, f"deja {version()}\n", "")

    report = orjson.loads(run_deja("doctor", "--json").stdout)
    assert report["version"] == version() and report["upgrade"] == upgrade_command()

    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
    }
    served = run_deja("mcp", input=orjson.dumps(initialize).decode() + "\n")
    answer = orjson.loads(served.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"] == {"name": "deja", "version": version()}


# --------------------------------------------------------------------------- help and usage errors


def test_every_command_reads_its_help_plainly() -> None:
    assert {"index", "search", "sessions", "show", "install", "mcp", "doctor", "demo"} <= set(COMMANDS)
    assert all(info.cls is Command for info in app.registered_commands), "register commands before plain_help(app)"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_arguments_and_values_as_people_write_them(command: str) -> None:
    shown = run_deja(command, "--help")
    assert shown.returncode == 0 and shown.stderr == ""
    assert not re.search(r"[{}]|<(bool|str|int|list)", shown.stdout), shown.stdout
    assert not re.search(r"[╭│╰]", shown.stdout), "no boxes"


def test_help_shows_id_and_words() -> None:
    assert run_deja("show", "--help").stdout.startswith("Usage: deja show [OPTIONS] ID\n")
    assert run_deja("search", "--help").stdout.startswith("Usage: deja search [OPTIONS] WORDS...\n")
    assert "  --json " in run_deja("index", "--help").stdout


def test_no_arguments_shows_the_commands() -> None:
    bare = run_deja()
    assert bare.returncode == 0 and bare.stdout.startswith("Usage: deja [OPTIONS] COMMAND [ARGS]...")
    assert "--version" in bare.stdout and all(f"  {c} " in bare.stdout for c in COMMANDS)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("search", "--bogus", "x"), "deja: No such option: --bogus (see `deja search --help`)"),
        (("show",), "deja: Missing argument 'ID' (see `deja show --help`)"),
        (("serch", "x"), "deja: No such command 'serch'. Did you mean 'search'? (see `deja --help`)"),
        (("sessions", "--limit", "0"), "deja: --limit 0 is not allowed: give 1 or more\n"),  # (not pydantic's words:
        (("show", "x", "--offset", "-1"), "deja: --offset -1 is not allowed: give 0 or more\n"),  # trial23 F7.10)
        # (the option as typed: trial43 F7)
        (("search", "x", "-n", "500"), "deja: -n 500 is not allowed: give 1 to 200\n"),
        (("how", "x", "-n", "two"), "deja: -n two is not a whole number: give 1 to 200\n"),
        (("hooks", "log", "-n", "0"), "deja: -n 0 is not allowed: give 1 or more\n"),
        (("search", "x", "--limit=0"), "deja: --limit 0 is not allowed: give 1 to 200\n"),
        (("sessions", "--project"), "deja: --project needs a value (see `deja sessions --help`)\n"),
        (("search", "x", "--limit"), "deja: --limit needs a value (see `deja search --help`)\n"),
        (("install", "bogus"), "deja: 'bogus' is not a target deja installs into: choose one of cursor, cursor-auto"),
        (("uninstall", "bogus"), "deja: 'bogus' is not a target deja installs into"),
        (("search", "x", "--source", "vim"), "deja: unknown source 'vim'"),
    ],
)
def test_a_usage_error_is_one_line_and_exits_2(args: tuple[str, ...], message: str) -> None:
    result = run_deja(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("command", sorted(HANDLERS))
def test_a_hook_asked_for_help_says_what_it_is_in_one_line(command: str) -> None:
    shown = run_deja(command, "--help", input="")
    assert shown.returncode == 0 and shown.stdout.count("\n") == 1
    assert shown.stdout.startswith(f"deja {command}: a hook;") and "stdin" in shown.stdout


def test_an_unknown_hook_asked_for_help_lists_the_hooks() -> None:
    shown = run_deja("hook-bogus", "-h", input="")
    assert shown.returncode == 2 and shown.stderr.count("\n") == 1 and "hook-prompt" in shown.stderr


# --------------------------------------------------------------------------- empty results explain themselves


def test_index_with_no_cursor_history_says_where_it_looked(fake_home: Path) -> None:
    result = run_deja("index")
    assert result.returncode == 0
    last = result.stdout.splitlines()[-1]
    assert last.startswith(f"No Cursor chats found in {fake_home}/.config/Cursor/User or {fake_home}/.cursor: ")
    assert "deja config set cursor_root PATH" in last and "deja demo" in last


def test_a_filter_that_excludes_everything_names_the_filter(indexed_sample: Sample) -> None:
    assert run_deja("sessions", "--since", "1d").stdout == (
        "No sessions with --since 1d; drop the filter to see the 7 in the index.\n"
    )
    both = run_deja("sessions", "--project", "api", "--since", "1d").stdout
    assert both.startswith("No sessions with --project api --since 1d; drop the filters")
    assert run_deja("search", "docker", "--project", "api").stdout == (
        'No session matches "docker" with --project api; drop the filter to see the one that does.\n'
    )
    assert run_deja("search", "zzzqqq", "--project", "api").stdout == 'No session matches "zzzqqq".\n'


# --------------------------------------------------------------------------- widths


@pytest.mark.parametrize("columns", [60, 80])
def test_sessions_fit_the_terminal(indexed_sample: Sample, columns: int) -> None:
    lines = run_deja("sessions", env={**indexed_sample.env, "COLUMNS": str(columns)}).stdout.splitlines()
    assert len(lines) == 7 and all(len(line) <= columns for line in lines), lines
    assert any(line.endswith("…") for line in lines)
    assert lines[0].startswith("5d1c9b21  2026-")  # a short id on a terminal: the room goes to the title


@pytest.mark.unit
@pytest.mark.parametrize(
    ("line", "width", "shown"),
    [
        ("short", 10, "short"),
        ("exactly ten", 11, "exactly ten"),
        ("a bit too long", 10, "a bit too…"),
        ("日本語のタイトル", 9, "日本語の…"),  # two columns a character
        ("cafe\u0301 au lait", 8, "cafe\u0301 au…"),  # the accent takes no column
    ],
)
def test_a_line_is_cut_to_the_terminals_columns(line: str, width: int, shown: str) -> None:
    assert fit(line, width) == shown
    assert fit(line, None) == line


def test_sessions_into_a_pipe_are_whole(indexed_sample: Sample) -> None:
    first = run_deja("sessions").stdout.splitlines()[0]
    assert first.endswith("Why does the price cache return stale prices after switching the locale?")


def test_doctor_wraps_between_words(fake_home: Path) -> None:
    out = run_deja("doctor", env={**os.environ, "COLUMNS": "60"}).stdout
    words = set(run_deja("doctor").stdout.split())
    for line in out.splitlines():
        assert len(line) <= 60 or max(map(len, line.split())) > 40, line  # only a path longer than a line overflows
    assert set(out.split()) == words, "wrapping cuts no word"


# --------------------------------------------------------------------------- doctor and a missing root


def test_doctor_is_not_healthy_while_a_configured_root_is_missing(indexed_sample: Sample, tmp_path: Path) -> None:
    missing = tmp_path / "moved-away"
    env = {**indexed_sample.env, "DEJA_CURSOR_ROOT": str(missing)}
    result = run_deja("doctor", "--json", env=env)
    assert result.returncode == 1
    report = orjson.loads(result.stdout)
    assert report["healthy"] is False
    problem = next(p for p in report["problems"] if str(missing) in p["message"])
    assert problem["level"] == "error" and problem["message"].startswith(f"DEJA_CURSOR_ROOT={missing}: no such folder")
    assert run_deja("search", "docker", env=env).returncode == 1, "which is why every search fails"


# --------------------------------------------------------------------------- deja mcp by hand


def test_mcp_in_a_terminal_says_what_it_is_and_stops_on_ctrl_c(fake_home: Path) -> None:
    leader, terminal = os.openpty()
    server = subprocess.Popen([*ENTRY, "mcp"], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(terminal)
    try:
        assert server.stderr is not None
        said = server.stderr.readline().decode()
        assert said.startswith("deja mcp: deja's MCP server.") and "Ctrl-C stops it." in said
        started = time.monotonic()
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=10)
        assert time.monotonic() - started < 5
    finally:
        if server.poll() is None:
            server.kill()
        os.close(leader)
    assert (server.returncode, out, err.decode()) == (0, b"", "\ndeja mcp: stopped\n")
