"""deja's hooks as the user edited them are still deja's (trial44 F3, F6): a redirect appended to deja's command,
a timeout or matcher of their own. Install keeps the edit and says so, adding no second hook; doctor names it;
uninstall takes it out and says which. ``deja`` runs as a user runs it, on a fake HOME."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from harness import console_script, run_deja

from deja.installers import install, uninstall
from deja.installers.entries import deja_hook, is_deja_hook


@pytest.fixture
def env(tmp_path: Path, fake_home: Path) -> dict[str, str]:
    deja = console_script(tmp_path / "bin")
    return {"HOME": str(fake_home), "PATH": str(deja.parent), "DEJA_HOME": str(fake_home / "deja-home")}


def _deja(env: dict[str, str], *args: str) -> str:
    done = run_deja(*args, env=env, script=Path(env["PATH"]) / "deja")
    assert done.returncode == 0, done.stderr
    return done.stdout


def _hooks_path(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".cursor" / "hooks.json"


def _edit(env: dict[str, str], event: str, **changes: Any) -> dict[str, Any]:
    """deja's entry on ``event`` in hooks.json changed by hand; the entry as edited."""
    path = _hooks_path(env)
    document = json.loads(path.read_text())
    (entry,) = [e for e in document["hooks"][event] if is_deja_hook(e["command"])]
    entry.update(changes)
    path.write_text(json.dumps(document, indent=2))
    return dict(entry)


def _deja_commands(env: dict[str, str], event: str) -> list[str]:
    path = _hooks_path(env)
    hooks = json.loads(path.read_text())["hooks"] if path.exists() else {}
    return [e["command"] for e in hooks.get(event, []) if is_deja_hook(e["command"])]


def _wiring(env: dict[str, str]) -> str:
    """doctor's Wiring section (doctor fails here for want of an index, which these tests do not build)."""
    doctor = run_deja("doctor", env=env, script=Path(env["PATH"]) / "deja", cwd=Path(env["HOME"])).stdout
    return doctor[doctor.index("Wiring") : doctor.index("Settings")]


def test_a_redirect_appended_to_dejas_hook_is_kept_named_and_removed(env: dict[str, str]) -> None:
    _deja(env, "install", "cursor-auto")
    own = _deja_commands(env, "sessionStart")[0]
    edited = own.removesuffix(" || true") + " 2>/dev/null || true"
    _edit(env, "sessionStart", command=edited)

    assert "no deja hook on sessionStart" not in _wiring(env)
    again = _deja(env, "install", "cursor-auto")
    assert "deja's hooks keep your changes: sessionStart: its command ending `2>/dev/null || true`" in again
    assert _deja_commands(env, "sessionStart") == [edited], "kept as edited, no second deja hook beside it"
    wiring = _wiring(env)
    assert "runs 2 times" not in wiring
    assert "deja's hooks keep your changes: sessionStart: its command ending `2>/dev/null || true`" in wiring

    gone = _deja(env, "uninstall", "cursor-auto")
    assert f"deja's hooks you edited go too: sessionStart: `{edited}`" in gone
    assert _deja_commands(env, "sessionStart") == []
    assert "no deja hooks in" in _wiring(env)


def test_a_tuned_timeout_and_matcher_survive_a_reinstall_which_names_them(env: dict[str, str]) -> None:
    _deja(env, "install", "cursor-auto")
    prompt = _edit(env, "beforeSubmitPrompt", timeout=2)
    tool = _edit(env, "preToolUse", matcher="^(Shell|Write|Task|Read)$")

    again = _deja(env, "install", "cursor-auto")

    hooks = json.loads(_hooks_path(env).read_text())["hooks"]
    assert prompt in hooks["beforeSubmitPrompt"] and tool in hooks["preToolUse"]
    assert "beforeSubmitPrompt: timeout 2 (deja writes 5)" in again
    assert 'preToolUse: matcher "^(Shell|Write|Task|Read)$" (deja writes "^(Shell|Write|Task)$")' in again


@pytest.mark.unit
def test_claude_codes_edited_hook_is_kept_and_removed(fake_home: Path, tmp_path: Path) -> None:
    deja = str(console_script(tmp_path / "bin"))
    install("claude-auto", deja_path=deja)
    settings = fake_home / ".claude" / "settings.json"
    document = json.loads(settings.read_text())
    (group,) = document["hooks"]["SessionStart"]
    group["hooks"][0]["command"] += " 2>>/tmp/deja.err"
    group["hooks"][0]["timeout"] = 3
    settings.write_text(json.dumps(document))

    (change,) = [c for c in install("claude-auto", deja_path=deja) if c.path == settings]

    assert json.loads(settings.read_text())["hooks"]["SessionStart"] == [group]
    assert change.edited_hooks == (
        "deja's hooks keep your changes: SessionStart: its command ending `2>>/tmp/deja.err`, timeout 3 (deja writes 10)",
    )
    uninstall("claude-auto")
    assert not settings.exists() or "SessionStart" not in json.loads(settings.read_text()).get("hooks", {})


def test_doctor_names_dejas_hooks_in_the_projects_hooks_json(env: dict[str, str]) -> None:
    """trial44 F5: a teammate committed deja's prompt hook to the project's ``.cursor/hooks.json``; Cursor runs it
    beside the user's, and doctor, run in the project (here in a folder below it), said all was ok."""
    _deja(env, "install", "cursor-auto")
    project = Path(env["HOME"]) / "code" / "shop"
    (project / "src").mkdir(parents=True)
    prompt = json.loads(_hooks_path(env).read_text())["hooks"]["beforeSubmitPrompt"]
    shared = project / ".cursor" / "hooks.json"
    shared.parent.mkdir()
    shared.write_text(json.dumps({"version": 1, "hooks": {"beforeSubmitPrompt": prompt}}))

    doctor = run_deja("doctor", env=env, script=Path(env["PATH"]) / "deja", cwd=project / "src").stdout

    assert f"{shared}: this project's hooks run deja on beforeSubmitPrompt too, beside {_hooks_path(env)}" in doctor
    assert f"fix: remove deja's entries from {shared}" in doctor
    assert "this project's" not in _wiring(env), "run in the home folder, doctor looks at no project"


@pytest.mark.unit
def test_an_edit_beside_a_second_deja_hook_is_the_one_kept(fake_home: Path, tmp_path: Path) -> None:
    """The trial's file after an older install added deja's own hook beside the user's edited one: reinstalling
    folds the two into one, the edited one, whichever came first."""
    deja = str(console_script(tmp_path / "bin"))
    install("cursor-auto", deja_path=deja)
    path = fake_home / ".cursor" / "hooks.json"
    document = json.loads(path.read_text())
    (own,) = document["hooks"]["sessionStart"]
    edited = {**own, "command": own["command"].removesuffix(" || true") + " 2>/dev/null || true"}
    document["hooks"]["sessionStart"] = [own, edited]
    path.write_text(json.dumps(document))

    install("cursor-auto", deja_path=deja)

    assert json.loads(path.read_text())["hooks"]["sessionStart"] == [edited]


def _claude_settings(fake_home: Path) -> tuple[Path, dict[str, Any]]:
    settings = fake_home / ".claude" / "settings.json"
    return settings, json.loads(settings.read_text())


@pytest.mark.unit
def test_claude_codes_edited_hook_is_kept_in_every_layout(fake_home: Path, tmp_path: Path) -> None:
    """review44d H1: an edited deja hook in a group of the user's, after deja's own group, or beside deja's own
    hook in one group, was dropped by a reinstall that said nothing; Cursor's installer kept it."""
    deja = str(console_script(tmp_path / "bin"))
    install("claude-auto", deja_path=deja)
    settings, document = _claude_settings(fake_home)
    hooks = document["hooks"]
    (tool,) = hooks["PreToolUse"]
    linter = {"type": "command", "command": "my-linter --check"}
    tool_edited = {**tool["hooks"][0], "command": tool["hooks"][0]["command"] + " 2>>/tmp/deja-err.log"}
    hooks["PreToolUse"] = [{**tool, "hooks": [linter, tool_edited]}]
    (prompt,) = hooks["UserPromptSubmit"]
    prompt_edited = {"hooks": [{**prompt["hooks"][0], "command": prompt["hooks"][0]["command"] + " 2>/dev/null"}]}
    prompt_edited["hooks"][0]["timeout"] = 2
    hooks["UserPromptSubmit"] = [prompt, prompt_edited]
    (start,) = hooks["SessionStart"]
    start_edited = {**start["hooks"][0], "command": start["hooks"][0]["command"] + " >> ~/ctx.log"}
    hooks["SessionStart"] = [{"hooks": [start["hooks"][0], start_edited]}]
    settings.write_text(json.dumps(document))

    (change,) = [c for c in install("claude-auto", deja_path=deja) if c.path == settings]

    after = _claude_settings(fake_home)[1]["hooks"]
    assert after["PreToolUse"] == [{**tool, "hooks": [tool_edited]}, {**tool, "hooks": [linter]}]
    assert after["UserPromptSubmit"] == [prompt_edited]
    assert after["SessionStart"] == [{"hooks": [start_edited]}]
    (sentence,) = change.edited_hooks
    assert "SessionStart: its command ending `>> ~/ctx.log`" in sentence
    assert "UserPromptSubmit: its command ending `2>/dev/null`, timeout 2 (deja writes 5)" in sentence
    assert "PreToolUse: its command ending `2>>/tmp/deja-err.log`" in sentence


@pytest.mark.unit
def test_a_second_edited_deja_hook_on_an_event_is_named_as_it_goes(fake_home: Path, tmp_path: Path) -> None:
    """review44d L1: install keeps one deja hook per event, the first edited copy; the second went unsaid."""
    deja = str(console_script(tmp_path / "bin"))
    install("cursor-auto", deja_path=deja)
    path = fake_home / ".cursor" / "hooks.json"
    document = json.loads(path.read_text())
    (own,) = document["hooks"]["sessionStart"]
    quiet = {**own, "command": own["command"] + " 2>/dev/null"}
    logged = {**own, "command": own["command"] + " >> ~/ctx.log"}
    document["hooks"]["sessionStart"] = [quiet, logged]
    path.write_text(json.dumps(document))

    (change,) = [c for c in install("cursor-auto", deja_path=deja) if c.path == path]

    assert json.loads(path.read_text())["hooks"]["sessionStart"] == [quiet]
    assert change.edited_hooks == (
        "deja's hooks keep your changes: sessionStart: its command ending `2>/dev/null`",
        "deja's hooks you edited go, as install keeps one deja hook per event, the first you edited: "
        f"sessionStart: `{logged['command']}`",
    )


def test_a_users_script_at_the_launchers_path_with_another_hook_name_stays_theirs(env: dict[str, str]) -> None:
    """review44d M6: ``… interfaces/hook.py hook-lint --fix`` was taken for deja's hook (any ``hook-…`` word), rewritten
    into deja's, with no .bak, and gone after uninstall."""
    path = _hooks_path(env)
    path.parent.mkdir()
    lint = {"command": "python3 ~/tools/interfaces/hook.py hook-lint --fix"}
    path.write_text(json.dumps({"version": 1, "hooks": {"stop": [lint]}}))

    installed = _deja(env, "install", "cursor-auto")

    assert "keep your changes" not in installed
    assert json.loads(path.read_text())["hooks"]["stop"][0] == lint
    _deja(env, "uninstall", "cursor-auto")
    assert json.loads(path.read_text())["hooks"]["stop"] == [lint]


def test_uninstall_names_the_edited_hook_it_takes_out_of_a_file_the_user_had(env: dict[str, str]) -> None:
    """review44d M4: in a file that existed before install, uninstall rebuilt its change from the .bak and dropped
    the line naming the edited hook it removed."""
    path = _hooks_path(env)
    path.parent.mkdir()
    path.write_text('{"version": 1}')
    _deja(env, "install", "cursor-auto")
    edited = _edit(env, "sessionStart", command=_deja_commands(env, "sessionStart")[0] + " && notify-send hi")

    gone = _deja(env, "uninstall", "cursor-auto")

    assert f"deja's hooks you edited go too: sessionStart: `{edited['command']}`" in gone
    assert _deja_commands(env, "sessionStart") == []


def test_doctors_fix_for_deja_running_twice_names_the_edit_to_delete(env: dict[str, str]) -> None:
    """review44d M3: Cursor also runs Claude Code's hooks unless their commands equal its own; with a kept edit they
    differ, and doctor's fix (install both again) keeps the edit, so the warning stayed. Following the fix ends it.
    trial44b F7: install, which keeps the edit, said nothing of it, and doctor named no event."""
    _deja(env, "install", "cursor-auto")
    _deja(env, "install", "claude-auto")
    own = _deja_commands(env, "beforeSubmitPrompt")[0]
    _edit(env, "beforeSubmitPrompt", command=own + " 2>/dev/null")

    wiring = _wiring(env)
    installed = _deja(env, "install", "cursor-auto")

    twice = "whose commands differ, so it runs deja twice on beforeSubmitPrompt"
    assert twice in wiring
    fix = f"delete `2>/dev/null` after deja's hook-prompt in {_hooks_path(env)}, then deja install cursor-auto && "
    assert fix in " ".join(wiring.split())
    (said,) = [line for line in installed.splitlines() if "twice" in line]
    assert said.startswith("cursor-auto: Cursor runs deja's hooks from both") and twice in said
    assert f"; fix: {fix}" in said, "the one line doctor gives"
    _edit(env, "beforeSubmitPrompt", command=own)
    assert "twice" not in _deja(env, "install", "cursor-auto")
    _deja(env, "install", "claude-auto")
    assert "twice" not in _wiring(env)


@pytest.mark.parametrize(
    ("appended", "to_delete"),
    [(" || true || true", "|| true"), (" || truex", "|| truex"), (" ||  true 2>/dev/null", "2>/dev/null")],
)
def test_doctors_fix_names_what_the_user_wrote_after_dejas_fail_open(
    env: dict[str, str], appended: str, to_delete: str
) -> None:
    """review44g L2: deja's own `` || true`` came off the edit as text: a second one left a pair of empty backticks
    to delete, ``|| truex`` became ``x``, and two spaces left deja's part in."""
    _deja(env, "install", "cursor-auto")
    _deja(env, "install", "claude-auto")
    own = _deja_commands(env, "beforeSubmitPrompt")[0]
    _edit(env, "beforeSubmitPrompt", command=own.removesuffix(" || true") + appended)

    fix = f"delete `{to_delete}` after deja's hook-prompt in {_hooks_path(env)}, then deja install cursor-auto"
    assert fix in " ".join(_wiring(env).split())


@pytest.mark.parametrize(
    "appended",
    [
        " |\n# keep quiet\ncat >/dev/null; exit",
        " &&#c\necho ok",
        " 2>/dev/null \\\n# note",
        " 2>/dev/null | grep -v if",
        " && echo for real; exit",
        ' && echo "$(echo ";")"; exit',
    ],
)
def test_an_ending_after_dejas_command_is_read_no_further_than_its_first_operator(
    env: dict[str, str], appended: str
) -> None:
    """review45a H1: a comment after ``|`` or ``&&`` got deja's `` || true`` before it, a syntax error that blocked
    every prompt; H2: a reserved word used as an argument (``grep -v if``) got one more `` || true`` at each install,
    and doctor's fix (install again) another; M1: `` || true`` went into the user's ``"$(echo ";")"``."""
    _deja(env, "install", "cursor-auto")
    own = _deja_commands(env, "beforeSubmitPrompt")[0]
    _edit(env, "beforeSubmitPrompt", command=own.removesuffix(" || true") + appended)

    _deja(env, "install", "cursor-auto")
    written = _hooks_path(env).read_text()
    _deja(env, "install", "cursor-auto")

    assert _hooks_path(env).read_text() == written, "a second install changes nothing"
    (command,) = _deja_commands(env, "beforeSubmitPrompt")
    assert subprocess.run(["sh", "-n", "-c", command]).returncode == 0, command
    gone = command.replace(deja_hook(command).executable, "/gone/deja/interfaces/hook.py", 1)  # (python exits 2)
    ran = subprocess.run(["sh", "-c", gone], capture_output=True, stdin=subprocess.DEVNULL, timeout=30)
    assert ran.returncode != 2, ("a deja gone blocks no prompt", gone)
    assert "differ from what" not in _wiring(env)
    ending = command.removeprefix(own.removesuffix(" || true")).replace(" || true", "", 1)
    assert ending.split() == appended.split(), "the user's ending, with at most deja's || true before its operator"


@pytest.mark.unit
def test_an_unedited_copy_in_a_users_group_leaves_dejas_own_group_as_it_is(fake_home: Path, tmp_path: Path) -> None:
    """review44f M1: a copy of deja's hook in the user's ``Bash`` group, ahead of deja's own group, took deja's
    place: install kept only ``matcher "Bash"`` and said the user changed it, so deja no longer ran on Write or Edit."""
    deja = str(console_script(tmp_path / "bin"))
    settings = fake_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    linter = {"type": "command", "command": "my-linter --check"}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [linter]}]}}))
    install("claude-auto", deja_path=deja)
    document = json.loads(settings.read_text())
    users, own = document["hooks"]["PreToolUse"]
    users["hooks"].append(own["hooks"][0])
    settings.write_text(json.dumps(document))

    (change,) = [c for c in install("claude-auto", deja_path=deja) if c.path == settings]

    assert json.loads(settings.read_text())["hooks"]["PreToolUse"] == [{"matcher": "Bash", "hooks": [linter]}, own]
    assert change.edited_hooks == ()


def test_a_kept_ending_on_two_lines_is_named_on_one(env: dict[str, str]) -> None:
    """review44f L2: an ending ``⏎echo a⏎echo b`` was printed across two lines, at install and in doctor's ok line."""
    _deja(env, "install", "cursor-auto")
    _edit(env, "sessionStart", command=_deja_commands(env, "sessionStart")[0] + "\necho a\necho b")

    # (deja's command ends in `` || true`` where installed as users install it, so the ending starts with it there)
    named = re.compile(r"sessionStart: its command ending `[^`\n]*echo a\\necho b[^`\n]*`")
    assert any(named.search(line) for line in _deja(env, "install", "cursor-auto").splitlines())
    assert named.search(" ".join(_wiring(env).split()))


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_file_edited_only_in_dejas_hook_goes_back_byte_for_byte(env: dict[str, str]) -> None:
    """trial44b F2: after a hand edit of deja's own hook alone, uninstall left the other tool's hooks.json
    re-indented and its .bak behind, unsaid, though what it left held the very settings of the .bak."""
    path = _hooks_path(env)
    path.parent.mkdir()
    path.write_text('{"version": 1,\n "hooks": {"afterFileEdit": [{"command": "./hooks/format.sh"}]}}\n')
    before = _tree(path.parent)
    _deja(env, "install", "cursor-auto")
    _edit(env, "beforeSubmitPrompt", command=_deja_commands(env, "beforeSubmitPrompt")[0] + " 2>/dev/null")

    gone = _deja(env, "uninstall", "cursor-auto")

    assert _tree(path.parent) == before
    assert "deja's hooks you edited go too: beforeSubmitPrompt" in gone
    assert "hooks.json.bak stays" not in gone


def test_a_bak_uninstall_cannot_put_back_is_named_with_why(env: dict[str, str]) -> None:
    """trial44b F2: a .bak left because the user edited more than deja's hook is said, in one line."""
    path = _hooks_path(env)
    path.parent.mkdir()
    path.write_text('{"version": 1, "hooks": {"afterFileEdit": [{"command": "./hooks/format.sh"}]}}\n')
    _deja(env, "install", "cursor-auto")
    _edit(env, "beforeSubmitPrompt", command=_deja_commands(env, "beforeSubmitPrompt")[0] + " 2>/dev/null")
    _edit(env, "sessionStart", timeout=9)
    document = json.loads(path.read_text())
    document["hooks"]["afterFileEdit"].append({"command": "./hooks/lint.sh"})
    path.write_text(json.dumps(document))

    gone = _deja(env, "uninstall", "cursor-auto")

    backup = path.with_name("hooks.json.bak")
    assert json.loads(path.read_text())["hooks"]["afterFileEdit"][-1] == {"command": "./hooks/lint.sh"}
    assert backup.exists()
    assert (
        f"cursor-auto: {backup} stays: it holds {path} as it was before install, which differs from what uninstall"
        " leaves in more than deja's entries"
    ) in gone


@pytest.mark.unit
def test_claude_codes_settings_edited_only_in_dejas_hook_go_back_byte_for_byte(fake_home: Path, tmp_path: Path) -> None:
    """trial44b F2, in Claude Code's settings.json: an edit of deja's hook ending in `;`."""
    settings = fake_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = '{"model": "opus",\n "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n'
    settings.write_text(mine)
    deja = str(console_script(tmp_path / "bin"))
    install("claude-auto", deja_path=deja)
    _, document = _claude_settings(fake_home)
    (group,) = document["hooks"]["SessionStart"]
    group["hooks"][0]["command"] += ";"
    settings.write_text(json.dumps(document))

    uninstall("claude-auto")

    assert settings.read_text() == mine
    assert sorted(p.name for p in settings.parent.iterdir() if p.name.startswith("settings")) == ["settings.json"]


@pytest.mark.parametrize(
    ("older", "repaired", "bare"),  # (``bare``: what install writes for the ``deja hook-…`` it writes unlaunched)
    [
        (" |\n || true# keep quiet\ncat >/dev/null; exit", " |\n# keep quiet\ncat >/dev/null; exit", ""),
        (" && || true#c\necho ok", " || true &&#c\necho ok", " &&#c\necho ok"),
        (" 2>/dev/null\n || true", " 2>/dev/null || true\n", " 2>/dev/null\n"),
        (" >&2; exit\n || true", " >&2 || true ; exit\n", " >&2; exit\n"),
    ],
)
def test_an_older_dejas_misplaced_fail_open_is_named_by_doctor_and_repaired_by_install(
    env: dict[str, str], older: str, repaired: str, bare: str
) -> None:
    """review45c M1: install45 wrote `` || true`` after a ``|`` or ``&&`` a comment follows, 466c7c8 on a line of its
    own after an ending that ended in a line break: a syntax error that blocks every prompt, which install kept as
    the user's change and doctor called ok."""
    _deja(env, "install", "cursor-auto")
    own = _deja_commands(env, "beforeSubmitPrompt")[0].removesuffix(" || true")
    _edit(env, "beforeSubmitPrompt", command=own + older)
    assert subprocess.run(["sh", "-n", "-c", own + older], capture_output=True).returncode == 2

    said = " ".join(_wiring(env).split())
    assert f"{_hooks_path(env)}: deja's beforeSubmitPrompt hook is not valid shell" in said
    assert "fix: deja install cursor-auto" in said
    _deja(env, "install", "cursor-auto")
    written = _hooks_path(env).read_text()
    _deja(env, "install", "cursor-auto")

    assert _hooks_path(env).read_text() == written, "a second install changes nothing"
    (command,) = _deja_commands(env, "beforeSubmitPrompt")
    launched = _deja_commands(env, "sessionStart")[0].endswith(" || true")  # (else the bare ``deja hook-…``)
    assert command == own + (repaired if launched else bare or repaired)
    assert subprocess.run(["sh", "-n", "-c", command]).returncode == 0, command
    assert "not valid shell" not in _wiring(env)


def test_doctor_names_a_hook_the_user_made_invalid_shell_as_theirs_to_edit(env: dict[str, str]) -> None:
    """An ending no install can repair (``;;`` outside a ``case``): doctor says where to edit it."""
    _deja(env, "install", "cursor-auto")
    own = _deja_commands(env, "stop")[0]
    _edit(env, "stop", command=own + " ;; exit")

    said = " ".join(_wiring(env).split())
    assert f"{_hooks_path(env)}: deja's stop hook is not valid shell" in said
    assert f"fix: edit it in {_hooks_path(env)}" in said


def test_doctor_reads_a_hook_holding_a_nul_without_failing(env: dict[str, str]) -> None:
    """A NUL no shell can be given (``sh -n`` is not started for it): doctor still reports every check, no traceback or
    ``ValueError`` line (review45f M1)."""
    _deja(env, "install", "cursor-auto")
    own = _deja_commands(env, "stop")[0]
    _edit(env, "stop", command=own + " \0")

    said = _wiring(env)
    assert "ValueError" not in said and "embedded null byte" not in said
    assert "deja's hooks keep your changes: stop: its command ending" in " ".join(said.split())
