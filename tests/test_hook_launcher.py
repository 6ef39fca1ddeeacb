"""The hook launcher: ``<python> -I -S <…/deja/interfaces/hook.py> hook-…``, what ``deja install`` writes for the
deja that runs it, so a hook starts without ``site`` or pip's launcher.

The installers write it, recognise it and the older ``<deja> hook-…`` shape alike (rewriting either in place,
removing both), quote its paths for the shell; the command from ``hooks.json`` answers as Cursor runs it (``sh -c``),
without ``site`` where deja is installed as pip installs it, and through ``site`` anywhere else.
"""

from __future__ import annotations

import ast
import json
import shlex
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from harness import CHECKOUT, Sample, imported_modules, run_deja
from installed_copy import installed_package

from deja.hooks.run import HANDLERS
from deja.installers import claude, cursor, install, uninstall, wiring_report
from deja.installers.entries import HOOK_NAMES, deja_hook, hook_executable, is_deja_hook, launcher_path

ROOT = Path(__file__).resolve().parents[1]
PROMPT = {"hook_event_name": "beforeSubmitPrompt", "prompt": "pytest cannot import api.cache", "cursor_version": "2"}


@pytest.fixture
def running_deja(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A ``deja`` console script that is the program running now (as when a user runs ``deja install``)."""
    script = tmp_path / "venv bin" / "deja"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "install"])
    return str(script)


def _hooks(home: Path) -> dict[str, Any]:
    return json.loads((home / ".cursor" / "hooks.json").read_text())["hooks"]


def _commands(home: Path) -> dict[str, list[str]]:
    return {event: [entry["command"] for entry in entries] for event, entries in _hooks(home).items()}


def _launched(
    subcommand: str, python: str = sys.executable, launcher: str | Path | None = None, *, older: bool = False
) -> str:
    """The launcher's command as install writes it (``older``: as deja wrote it before `` || true``)."""
    command = shlex.join([python, "-I", "-S", str(launcher or launcher_path()), subcommand])
    return command if older else f"{command} || true"


def _install_from(folder: Path, deja: str, *targets: str, python: str | None = None) -> list[tuple[str, str]]:
    """``deja install TARGETS`` run by the deja in ``folder`` (a site-packages, see ``_installed_as_pip_does``) as
    its console script ``deja`` runs it, in a Python that knows no other deja; its doctor's findings on hooks."""
    script = f"""if True:
        import json, sys
        sys.path.append({str(folder)!r})
        sys.argv = [{deja!r}, "install"]
        if {python!r}:
            sys.executable = {python!r}
        from deja.installers import install, wiring_report
        for target in {list(targets)!r}:
            install(target, deja_path={deja!r})
        print(json.dumps([[f.level, f.message] for f in wiring_report({deja!r}) if "hooks" in f.message]))
    """
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return [(level, message) for level, message in json.loads(done.stdout)]


@pytest.mark.unit
def test_install_writes_the_launcher_for_the_deja_that_runs_it(
    fake_home: Path, running_deja: str, tmp_path: Path
) -> None:
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    wiring = _install_from(launcher.parents[2], running_deja, "cursor-auto", "claude-auto")

    wanted = {hook.event: [_launched(hook.subcommand, launcher=launcher)] for hook in cursor.HOOKS}
    assert _commands(fake_home) == wanted
    settings = json.loads((fake_home / ".claude" / "settings.json").read_text())["hooks"]
    for hook in claude.HOOKS:
        commands = [h["command"] for group in settings[hook.event] for h in group["hooks"]]
        assert commands == [_launched(hook.subcommand, launcher=launcher)]
    server = json.loads((fake_home / ".cursor" / "mcp.json").read_text())["mcpServers"]["deja"]
    assert server == {"command": running_deja, "args": ["mcp"]}, "the MCP server keeps the console script"
    before = (fake_home / ".cursor" / "hooks.json").read_text()
    _install_from(launcher.parents[2], running_deja, "cursor-auto")
    assert (fake_home / ".cursor" / "hooks.json").read_text() == before
    assert [level for level, _ in wiring] == ["ok", "ok"], wiring


@pytest.mark.unit
def test_a_launcher_that_would_need_site_is_not_written(fake_home: Path, running_deja: str, tmp_path: Path) -> None:
    """A user install whose PyStemmer is the system's, or an editable install: ``<deja> hook-…``. This process's own
    deja gets the launcher only when it is installed as the README installs it, not editable."""
    launcher = _installed_as_pip_does(tmp_path / "site-packages", stemmer=False)
    _install_from(launcher.parents[2], running_deja, "cursor-auto")
    assert _commands(fake_home)["beforeSubmitPrompt"] == [f"{shlex.quote(running_deja)} hook-prompt"]

    install("cursor-auto", deja_path=running_deja)
    editable = installed_package() == CHECKOUT
    own = f"{shlex.quote(running_deja)} hook-prompt" if editable else _launched("hook-prompt")
    assert _commands(fake_home)["beforeSubmitPrompt"] == [own]
    wiring = [(f.level, f.message) for f in wiring_report(running_deja) if "hooks" in f.message]
    assert [level for level, _ in wiring] == ["ok"], wiring


@pytest.mark.unit
def test_another_deja_keeps_its_own_command(fake_home: Path, running_deja: str, tmp_path: Path) -> None:
    elsewhere = tmp_path / "other" / "deja"
    elsewhere.parent.mkdir()
    elsewhere.write_text("#!/bin/sh\n")
    install("cursor-auto", deja_path=str(elsewhere))

    assert _commands(fake_home)["sessionStart"] == [f"{elsewhere} hook-context"]


@pytest.mark.unit
def test_the_older_shape_is_rewritten_in_place_and_doctor_asks_for_it(fake_home: Path, running_deja: str) -> None:
    hooks_path = fake_home / ".cursor" / "hooks.json"
    hooks_path.parent.mkdir()
    mine = {"command": "/home/me/bin/notify.sh"}
    old = {"command": f"'{running_deja}' hook-prompt", "timeout": 5}
    hooks_path.write_text(json.dumps({"version": 1, "hooks": {"beforeSubmitPrompt": [old, mine]}}))

    launcher = _installed_as_pip_does(fake_home.parent / "site-packages")
    findings = _install_from(launcher.parents[2], running_deja)
    missing = "sessionStart, preToolUse, postToolUse, postToolUseFailure, stop, preCompact, sessionEnd"
    # (the deja that runs, on no PATH here: its fix names it by its path, as `deja` would run another or none)
    differ = f"{hooks_path}: deja's hooks differ from what `{shlex.quote(running_deja)} install cursor-auto` writes"
    assert findings == [("warn", f"{differ} (no deja hook on {missing} yet; the others run as they are)")], (
        "the older shape is this deja's: not 'another deja', only not what install writes now"
    )

    _install_from(launcher.parents[2], running_deja, "cursor-auto")
    assert _commands(fake_home)["beforeSubmitPrompt"] == [_launched("hook-prompt", launcher=launcher), mine["command"]]


@pytest.mark.unit
def test_uninstall_removes_both_shapes(fake_home: Path, running_deja: str, tmp_path: Path) -> None:
    hooks_path = fake_home / ".cursor" / "hooks.json"
    hooks_path.parent.mkdir()
    mine = {"command": "/home/me/bin/notify.sh hook-prompt"}
    both = [
        {"command": "/old/venv/bin/deja hook-prompt"},
        {"command": _launched("hook-prompt", "/old venv/bin/python3", older=True)},
        {"command": _launched("hook-prompt", "/new venv/bin/python3")},
        mine,
    ]
    hooks_path.write_text(json.dumps({"version": 1, "hooks": {"beforeSubmitPrompt": both}}))

    uninstall("cursor-auto")
    assert json.loads(hooks_path.read_text()) == {"version": 1, "hooks": {"beforeSubmitPrompt": [mine]}}


@pytest.mark.unit
def test_paths_with_spaces_are_quoted_and_recognised(fake_home: Path, running_deja: str, tmp_path: Path) -> None:
    launcher = _installed_as_pip_does(tmp_path / "site packages")
    _install_from(launcher.parents[2], running_deja, "cursor-auto", python="/opt/my tools/venv/bin/python")

    command = _commands(fake_home)["sessionStart"][0]
    assert command.startswith("'/opt/my tools/venv/bin/python' -I -S ")
    words = ["/opt/my tools/venv/bin/python", "-I", "-S", str(launcher), "hook-context", "||", "true"]
    assert shlex.split(command) == words
    assert hook_executable(command) == str(launcher)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("/v/bin/python3 -I -S /v/lib/python3.11/site-packages/deja/interfaces/hook.py hook-prompt", True),
        ("/v/bin/python3 -I -S /v/lib/python3.11/site-packages/deja/interfaces/hook.py hook-prompt || true", True),
        ("/v/bin/deja hook-prompt || true", True),
        # Whatever the user appended, it still runs deja's hook (trial44 F3): install keeps it, uninstall removes it.
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py hook-prompt || exit 2", True),
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py hook-prompt || true; rm -rf ~", True),
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py hook-context 2>/dev/null || true", True),
        ("/v/bin/deja hook-context>/dev/null", True),
        ("bash -c '/v/bin/deja hook-context'", False),
        ("echo /v/bin/deja hook-context", False),
        ("'/a b/python' -I -S '/a b/deja/interfaces/hook.py' hook-tool", True),
        ("/v/bin/python3 /src/deja/interfaces/hook.py hook-context", True),
        ("/v/bin/deja hook-prompt", True),
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py hook-prompt | tee /tmp/log", True),
        ("/v/bin/python3 -I -S /home/me/hook.py hook-prompt", False),
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py search words", False),
        ("/v/bin/python3 -I /v/deja/interfaces/hook.py -S hook-prompt extra", False),
        # A hook name deja does not have: a script of the user's that merely sits at such a path (review44d M6).
        ("python3 ~/tools/interfaces/hook.py hook-lint --fix", False),
        ("/v/bin/deja hook-lint", False),
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py hook-tool-afterwards", False),
        ("/v/bin/python3 -I -S /v/deja/interfaces/hook.py hook-tool-after", True),
    ],
)
def test_which_commands_are_deja_hooks(command: str, ours: bool) -> None:
    assert is_deja_hook(command) is ours


@pytest.mark.unit
def test_the_hook_names_installers_know_are_the_hooks_deja_has() -> None:
    """``entries.HOOK_NAMES`` is how install tells deja's hooks from a user's; a hook deja gains must be in it."""
    assert set(HANDLERS) == HOOK_NAMES >= {hook.subcommand for hook in (*cursor.HOOKS, *claude.HOOKS)}


@pytest.mark.unit
def test_a_hook_whose_package_is_gone_fails_open(fake_home: Path, running_deja: str, tmp_path: Path) -> None:
    """The package removed without ``deja uninstall`` (or ``pipx reinstall`` onto another Python, or the moment
    ``pip install`` replaces it) while its Python stays: Python would exit 2 on the missing launcher, which Cursor
    and Claude Code read as "block"; the command from ``hooks.json`` answers 0 and nothing."""
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    _install_from(launcher.parents[2], running_deja, "cursor-auto", "claude-auto")
    (launcher.parents[2] / "deja").unlink()
    settings = json.loads((fake_home / ".claude" / "settings.json").read_text())["hooks"]
    claude_prompt = settings["UserPromptSubmit"][0]["hooks"][0]["command"]

    for command in (
        _commands(fake_home)["beforeSubmitPrompt"][0],
        _commands(fake_home)["preToolUse"][0],
        claude_prompt,
    ):
        done = _run(command, {**PROMPT, "conversation_id": "gone"}, {"PATH": "/usr/bin:/bin", "HOME": str(fake_home)})
        assert (done.returncode, done.stdout) == (0, b""), (command, done.stderr)
        assert b"can't open file" in done.stderr, "the launcher really is gone: Python alone would have exited 2"


def _run(command: str, payload: dict[str, Any], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """``command`` as Cursor runs a hook: through the shell, the event on stdin."""
    return subprocess.run(
        ["/bin/sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60
    )


def test_a_launcher_command_for_this_checkout_answers_as_cursor_runs_it(indexed_sample: Sample) -> None:
    """This environment's launcher: an editable install's (whose hooks an older deja wrote as the launcher) finds
    deja through ``site``, which it then runs; a regular install's finds deja in its own folder."""
    command = _launched("hook-prompt")

    done = _run(command, {**PROMPT, "conversation_id": "launcher-editable"}, indexed_sample.env)
    assert done.returncode == 0 and done.stderr == b""
    assert "api.cache" in json.loads(done.stdout)["additional_context"]


def _installed_as_pip_does(folder: Path, *, stemmer: bool = True) -> Path:
    """``folder`` laid out as a site-packages: ``deja`` (this checkout) and, unless told not to, PyStemmer."""
    import Stemmer

    folder.mkdir()
    (folder / "deja").symlink_to(ROOT)
    if stemmer:
        (folder / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
    return folder / "deja" / "interfaces" / "hook.py"


def _imported(launcher: Path, payload: dict[str, Any], env: dict[str, str]) -> tuple[set[str], bytes]:
    """The modules the launcher's hook-prompt imports (``-X importtime``), and what it printed."""
    command = shlex.join([sys.executable, "-I", "-S", "-X", "importtime", str(launcher), "hook-prompt"])
    done = _run(command, payload, env)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return imported_modules(done.stderr.decode(errors="replace")), done.stdout


def _entry_loaded_from(launcher: Path, payload: dict[str, Any], env: dict[str, str]) -> str:
    """Where the launcher's hook-prompt loaded ``deja.interfaces.entry`` from (``python -v`` names each source
    ``importlib`` loads; one the launcher loads itself comes from the folder of ``deja.interfaces.preload``, which
    does: ``interfaces/preload.py``)."""
    done = _run(shlex.join([sys.executable, "-I", "-S", "-v", str(launcher), "hook-prompt"]), payload, env)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    lines = done.stderr.decode(errors="replace").splitlines()
    sources = [line for line in lines if "interfaces/entry.py" in line or "interfaces/preload.py" in line]
    assert sources, "python -v named no source of deja.interfaces.entry"
    return sources[0]


def test_installed_as_pip_installs_it_a_hook_starts_without_site(indexed_sample: Sample, tmp_path: Path) -> None:
    launcher = _installed_as_pip_does(tmp_path / "site-packages")

    loaded, printed = _imported(launcher, {**PROMPT, "conversation_id": "launcher-installed"}, indexed_sample.env)
    assert "api.cache" in json.loads(printed)["additional_context"]
    assert "site" not in loaded and "deja.hooks.prompt" in loaded and "Stemmer" in loaded


def test_without_pystemmer_beside_deja_the_launcher_runs_site(indexed_sample: Sample, tmp_path: Path) -> None:
    """A user install whose PyStemmer is in another site-packages: ``site`` finds it, as pip's launcher would, and
    deja is the launcher's own (``-I`` hides the user site, where a user install's deja is)."""
    folder = tmp_path / "site-packages"
    launcher = _installed_as_pip_does(folder, stemmer=False)

    loaded, printed = _imported(launcher, {**PROMPT, "conversation_id": "launcher-site"}, indexed_sample.env)
    assert "api.cache" in json.loads(printed)["additional_context"]
    assert "site" in loaded
    source = _entry_loaded_from(launcher, {**PROMPT, "conversation_id": "launcher-own"}, indexed_sample.env)
    assert f"{folder / 'deja' / 'interfaces'}/" in source, source


def test_tripwire_the_launcher_python_compiles_on_every_hook_stays_a_few_statements() -> None:
    """A tripwire, not a measure of what a hook costs: Python compiles the file it is started with from source on
    every run (no ``.pyc`` is kept for a script), about 30k instructions a statement, docstrings and comments far
    less (the launcher's former 20 statements and 3 KB, a function among them, cost every hook 1.5 M of its 40-107 M
    instructions). Its work belongs in ``interfaces/preload.py``, loaded from its ``.pyc``: this fails when code
    grows back in the launcher, whatever that costs."""
    tree = ast.parse((ROOT / "interfaces" / "hook.py").read_text(encoding="utf-8"))
    statements = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)][1:]  # (not the docstring)
    assert len(statements) <= 16, "keep the launcher small: its work belongs in deja.interfaces.preload"


@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="needs a virtual environment, as the README installs deja")
def test_a_launcher_in_a_virtual_environment_never_runs_a_deja_from_the_user_site(tmp_path: Path) -> None:
    """A user site holding another deja is not this venv's: pip's launcher would not look there, nor does this one."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    other = Path.home() / ".local" / "lib" / version / "site-packages" / "deja" / "interfaces"
    other.mkdir(parents=True)
    (other / "entry.py").write_text('def main():\n    print("ANOTHER DEJA")\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(ROOT / "interfaces" / "hook.py"), "hook-prompt"],
        input=b"{}",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert b"ANOTHER DEJA" not in done.stdout


def test_doctor_counts_cursors_logged_runs_of_the_hooks_install_wrote(
    fake_home: Path, running_deja: str, tmp_path: Path
) -> None:
    """Cursor logs each hook run with the command from ``hooks.json``: the launcher's runs are deja's (README's
    Delivery), counted per event, and one that exited non-zero is a warning."""
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    _install_from(launcher.parents[2], running_deja, "cursor-auto")
    commands = _commands(fake_home)
    prompt, tool = commands["beforeSubmitPrompt"][0], commands["preToolUse"][0]
    assert str(launcher) in prompt, "install wrote the launcher, not the console script"
    window = fake_home / ".config" / "Cursor" / "logs" / "20261201T100000" / "window1" / "output_20261201T100000"
    window.mkdir(parents=True)
    (window / "cursor.hooks.log").write_text(
        "2026-12-01 10:11:00.000 [info] Hook step requested: beforeSubmitPrompt\n"
        f"2026-12-01 10:11:00.090 [info] Command: {prompt} (70ms) exit code: 0\n"
        'OUTPUT:\n{"additional_context":"<deja-recall>\\nPast turns"}\n'
        "2026-12-01 10:12:00.000 [info] Hook step requested: preToolUse\n"
        f"2026-12-01 10:12:00.052 [info] Command: {tool} (52ms) exit code: 1\n"
        "OUTPUT:\n(empty)\n"
    )
    report = json.loads(run_deja("doctor", "--json", env={"HOME": str(fake_home), "PATH": "/usr/bin:/bin"}).stdout)
    events = {e["event"]: e for e in report["delivery"]["events"]}
    assert set(events) == {"beforeSubmitPrompt", "preToolUse"}, report["delivery"]
    assert events["beforeSubmitPrompt"]["runs"] == 1 and events["beforeSubmitPrompt"]["last_context"] is not None
    assert events["preToolUse"]["failures"] == 1
    assert any(p["area"] == "delivery" and "preToolUse" in p["message"] for p in report["problems"])


@pytest.mark.unit
def test_an_edit_of_the_older_shape_keeps_failing_open_in_the_launchers(fake_home: Path, running_deja: str) -> None:
    """review44d M2: ``deja hook-prompt 2>/dev/null`` fails open (a deja gone exits 127); moved onto the launcher
    without `` || true``, a launcher gone exits 2, which Cursor reads as "block the prompt". A ``||`` of the user's
    decides for itself."""
    hooks_path = fake_home / ".cursor" / "hooks.json"
    hooks_path.parent.mkdir()
    old = {
        "beforeSubmitPrompt": [{"command": f"'{running_deja}' hook-prompt 2>/dev/null"}],
        "sessionStart": [{"command": f"'{running_deja}' hook-context && notify-send hi"}],
        "preToolUse": [{"command": f"'{running_deja}' hook-tool || exit 2"}],
    }
    hooks_path.write_text(json.dumps({"version": 1, "hooks": old}))

    launcher = _installed_as_pip_does(fake_home.parent / "site-packages")
    _install_from(launcher.parents[2], running_deja, "cursor-auto")

    commands = _commands(fake_home)
    bare = partial(_launched, launcher=launcher, older=True)
    assert commands["beforeSubmitPrompt"] == [f"{bare('hook-prompt')} 2>/dev/null || true"]
    assert commands["sessionStart"] == [f"{bare('hook-context')} || true && notify-send hi"]
    assert commands["preToolUse"] == [f"{bare('hook-tool')} || exit 2"]


#: Endings a user may append to deja's older ``deja hook-…`` (event: ending), of each shape, in sets of one per
#: event: one `` || true`` can follow and one it cannot (review44f H1: `` ; || true`` is a syntax error, exit 2, every
#: prompt blocked; after a comment it is the comment's); one that exits after deja's command, where `` || true`` at
#: the end never runs, and a ``||`` that is none of the user's failure handling (review44g M2, L1); a comment after
#: ``|`` or ``&&`` (review45a H1: `` || true`` went after the operator, before the comment, a syntax error) and
#: reserved words as arguments (H2: a `` || true`` more at each install); a ``case``, ``${…}``, ``"$(…)"`` or
#: here-doc body after the operator (M1, L2: `` || true`` went inside, changing what the user's command prints).
_ENDINGS = (
    {
        "beforeSubmitPrompt": " 2>/dev/null;",
        "sessionStart": " 2>/dev/null &",
        "preToolUse": " # run deja",
        "postToolUse": "\necho a\necho b",
        "postToolUseFailure": " 2>/dev/null; # quiet",
        "stop": " 2>/dev/null",
        "preCompact": " && echo done",
        "sessionEnd": " | cat",
    },
    {
        "beforeSubmitPrompt": " ; exit",
        "sessionStart": " 2>/dev/null; exit",
        "preToolUse": " ; exit $?",
        "postToolUse": " 2>/dev/null\nexit",
        "postToolUseFailure": ' > "{home}/a||b"',
        "stop": " $(echo '||') ; exit",
        "preCompact": " 2>/dev/null <<EOF\nx\nEOF",
        "sessionEnd": " # a quote ' and || true",
    },
    {
        "beforeSubmitPrompt": " |\n# keep quiet\ncat >/dev/null; exit",
        "sessionStart": " &&\n  # why\n  echo ok",
        "preToolUse": " &&#c\necho ok",
        "postToolUse": " 2>/dev/null \\\n# note",
        "postToolUseFailure": " 2>/dev/null | tr -d for",
        "stop": " && echo for real; exit",
        "preCompact": ' && echo "$(echo ";")"; exit',
        "sessionEnd": " && echo ${X:-a;b}",
    },
    {
        "beforeSubmitPrompt": ' 2>/dev/null && { case "$HOME" in /*) echo abs;; esac; }',
        "sessionStart": " <<EOF &&\nbody\nEOF\necho ok",
        "preToolUse": " && x=$(case a in a) echo y;; esac); exit",
        "postToolUse": " && case x in x) echo;; esac; exit",
        "postToolUseFailure": ' && [[ -n "$HOME" || -n "$X" ]]; exit',
        "stop": " |#c\ncat; exit",
        "preCompact": ' >"$(echo ";" >/dev/null; echo /dev/null)" && echo ok; exit',
        "sessionEnd": " 2>/dev/null && echo ${X:-a;b}; exit",
    },
)


@pytest.mark.unit
@pytest.mark.parametrize("endings", _ENDINGS, ids=("ends-a-line", "exits", "comments-and-words", "constructs"))
def test_every_kept_ending_is_valid_shell_that_fails_open(
    fake_home: Path, running_deja: str, endings: dict[str, str]
) -> None:
    """With the launcher gone, each command exits as the user's ending does after a deja that worked (a stand-in
    ``true``): 0 but for the user's own failing command (bash's ``[[`` under dash); with deja working, the user's
    ending prints and exits as it did."""
    endings = {event: end.replace("{home}", str(fake_home)) for event, end in endings.items()}
    hooks_path = fake_home / ".cursor" / "hooks.json"
    hooks_path.parent.mkdir()
    names = {hook.event: hook.subcommand for hook in cursor.HOOKS}
    old = {event: [{"command": f"'{running_deja}' {names[event]}{end}"}] for event, end in endings.items()}
    hooks_path.write_text(json.dumps({"version": 1, "hooks": old}))
    launcher = _installed_as_pip_does(fake_home.parent / "site-packages")

    wiring = _install_from(launcher.parents[2], running_deja, "cursor-auto")
    written = hooks_path.read_text()
    _install_from(launcher.parents[2], running_deja, "cursor-auto")

    assert hooks_path.read_text() == written, "a second install keeps the kept endings as they are"
    (launcher.parents[2] / "deja").unlink()  # the package gone, its launcher with it
    said = " ".join(message for _, message in wiring)
    for event, (command,) in _commands(fake_home).items():
        ending = command.removeprefix(_launched(names[event], launcher=launcher, older=True))
        edits = deja_hook(command).edits
        assert all(piece in command for piece in edits), "doctor's text to delete is found in the command"
        assert "".join("".join(edits).split()) == "".join(endings[event].split()), "the user's, deja's || true aside"
        shown = ending.strip().replace("\n", "\\n")  # (on one line: review44f L2)
        assert f"{event}: its command ending `{shown}`" in said, "the ending as written"
        for shell in ("sh", "bash"):
            assert subprocess.run([shell, "-n", "-c", command]).returncode == 0, (shell, command)
            users = _ran(shell, "true" + endings[event], fake_home)
            assert _ran(shell, command, fake_home)[0] == users[0], (shell, command, "with the launcher gone")
            assert _ran(shell, "true" + ending, fake_home) == users, (shell, command, "with deja working")


def _ran(shell: str, command: str, home: Path) -> tuple[int, bytes]:
    """What ``command`` gives under ``shell``: its exit status and its output."""
    ran = subprocess.run([shell, "-c", command], capture_output=True, stdin=subprocess.DEVNULL, timeout=30, cwd=home)
    return ran.returncode, ran.stdout


@pytest.mark.unit
@pytest.mark.parametrize(
    ("ending", "to_delete"),
    [
        (" || true 2>>/tmp/e.log", ["2>>/tmp/e.log"]),
        (" 2>/dev/null; exit", ["2>/dev/null", "; exit"]),
        (" <<EOF\nx\nEOF", ["<<EOF", "x\\nEOF"]),
        (' 2>"$HOME/l og"; exit', ['2>\\"$HOME/l og\\"', "; exit"]),
    ],
)
def test_doctors_fix_for_deja_running_twice_names_only_what_the_user_appended(
    fake_home: Path, running_deja: str, ending: str, to_delete: list[str]
) -> None:
    """review44f L1: after `` 2>>/tmp/e.log`` appended to Claude Code's launcher command, the fix said to delete
    ``|| true 2>>/tmp/e.log``, deja's own fail-open with it. review45a L3: once install put deja's `` || true``
    inside ``2>/dev/null; exit``, the fix said to delete ``2>/dev/null; exit``, text not found in the file."""
    launcher = _installed_as_pip_does(fake_home.parent / "site-packages")
    _install_from(launcher.parents[2], running_deja, "cursor-auto", "claude-auto")
    settings = fake_home / ".claude" / "settings.json"
    document = json.loads(settings.read_text())
    own = document["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    document["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = own.removesuffix(" || true") + ending
    settings.write_text(json.dumps(document))
    _install_from(launcher.parents[2], running_deja, "cursor-auto", "claude-auto")

    (twice,) = [finding for finding in wiring_report(deja_path=running_deja) if "twice" in finding.message]

    pieces = " and ".join(f"`{piece}`" for piece in to_delete)
    assert twice.fix.startswith(f"delete {pieces} after deja's hook-tool in {settings}, then "), twice.fix
    text = settings.read_text()
    for piece in to_delete:  # (as the fix says)
        assert piece in text, "text found in the file, on one line as it holds it"
        text = text.replace(piece, "", 1)
    settings.write_text(text)
    assert json.loads(text)["hooks"]["PreToolUse"][0]["hooks"][0]["command"].split() == own.split()
    _install_from(launcher.parents[2], running_deja, "cursor-auto", "claude-auto")
    assert not [finding for finding in wiring_report(deja_path=running_deja) if "twice" in finding.message]


@pytest.mark.unit
def test_a_bash_process_substitution_in_dejas_redirect_keeps_the_fail_open_before_the_users_exit(
    fake_home: Path, running_deja: str
) -> None:
    """review45c L1: in ``2> >(cat >&2); exit`` the ``(`` of bash's ``>(…)`` was unreadable, so deja's `` || true``
    went after the ``exit``, and a deja gone exited 2 under bash: a blocked prompt."""
    hooks_path = fake_home / ".cursor" / "hooks.json"
    hooks_path.parent.mkdir()
    old = {"beforeSubmitPrompt": [{"command": f"'{running_deja}' hook-prompt 2> >(cat >&2); exit"}]}
    hooks_path.write_text(json.dumps({"version": 1, "hooks": old}))
    launcher = _installed_as_pip_does(fake_home.parent / "site-packages")

    _install_from(launcher.parents[2], running_deja, "cursor-auto")
    (launcher.parents[2] / "deja").unlink()  # the package gone, its launcher with it

    (command,) = _commands(fake_home)["beforeSubmitPrompt"]
    assert command.endswith(" hook-prompt 2> >(cat >&2) || true ; exit"), command
    assert _ran("bash", command, fake_home)[0] == 0, command
