"""What a new user met on a first try: an index folder deja may not read, a home that is a file, a setting the
shell gets wrong. Each test runs deja as the user does, on real files under the fake HOME."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import shared_path
from harness import ENTRY, Sample, as_user, index_chats, run_deja, user_prefix

from deja.core.index import SEGMENT_GRACE_SECONDS, index_dir, read_manifest
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.hooks.build_request import BUILD_SENTINEL

PROMPT = {"prompt": "how do I install the kitchen sink?", "conversation_id": "x", "workspace_roots": ["/tmp"]}


@pytest.fixture
def locked_index(indexed_sample: Sample) -> Iterator[Path]:
    """The sample's index folder, chmod 000 for the test."""
    folder = index_dir(indexed_sample.home)
    folder.chmod(0)
    yield folder
    folder.chmod(0o700)


@pytest.mark.parametrize("args", [("search", "python"), ("sessions",), ("stats",), ("blame", "app.py"), ("index",)])
def test_an_index_folder_deja_may_not_read_is_one_line_naming_it_and_the_chmod_that_fixes_it(
    indexed_sample: Sample, locked_index: Path, args: tuple[str, ...]
) -> None:
    result = as_user(indexed_sample.env, *args)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"deja: cannot read {locked_index}: permission denied; give your user access to it: "
        f"chmod -R u+rwX {locked_index}"
    ]


def test_a_cache_folder_deja_may_not_search_is_named_not_the_index_it_hides(sample: Sample, tmp_path: Path) -> None:
    """With no DEJA_HOME the index is under XDG_CACHE_HOME; that folder at mode 000 hid it, and the line named the
    index with a ``chmod -R`` of it, which cannot reach it: it names the folder that refuses, and that folder alone
    is given back (the cache's other files are not deja's: review42d H1)."""
    cache = tmp_path / "cache"
    env = {name: value for name, value in sample.env.items() if name != "DEJA_HOME"}
    env["XDG_CACHE_HOME"] = str(cache)
    assert run_deja("index", env=env).returncode == 0
    cache.chmod(0)
    try:
        ran = {args: as_user(env, *args) for args in [("search", "python"), ("index",), ("doctor",)]}
    finally:
        cache.chmod(0o700)
    said = f"cannot read {cache}: permission denied"
    for args in [("search", "python"), ("index",)]:  # (index said deja's home did not exist and could not be made)
        assert (ran[args].returncode, ran[args].stdout) == (1, "")
        assert ran[args].stderr == f"deja: {said}; give your user access to it: chmod u+rwx {cache}\n"
    doctor = ran[("doctor",)]  # (it stopped on a PermissionError from hooks.log, behind the folder)
    assert doctor.returncode == 1 and "Error" not in doctor.stderr, doctor.stderr
    assert f"ERROR  {said} (a rebuild could not write it either)\n         fix: chmod u+rwx {cache}\n" in doctor.stdout


def test_doctor_reports_an_index_folder_deja_may_not_read_under_index_with_its_fix(
    indexed_sample: Sample, locked_index: Path
) -> None:
    result = as_user(indexed_sample.env, "doctor")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "PermissionError" not in result.stderr
    index_section = result.stdout.split("\nIndex\n")[1].split("\n\n")[0]
    assert f"cannot read {locked_index}: permission denied" in index_section
    assert f"fix: chmod -R u+rwX {locked_index}" in index_section


def test_the_prompt_hook_logs_an_unreadable_index_and_requests_no_build(
    indexed_sample: Sample, locked_index: Path
) -> None:
    hook = as_user(indexed_sample.env, "hook-prompt", input=json.dumps(PROMPT))
    assert hook.returncode == 0
    assert hook.stdout == ""
    log = (indexed_sample.home / "hooks.log").read_text()
    assert f"cannot read {locked_index}: permission denied" in log
    assert "started a build" not in log and "no index yet" not in log
    assert not (indexed_sample.home / BUILD_SENTINEL).exists(), "a build was requested for a permission error"


def test_config_refuses_a_home_that_is_a_file(fake_home: Path) -> None:
    afile = fake_home / "afile"
    afile.write_text("")
    for value in (afile, afile / "below"):
        result = run_deja("config", "set", "home", str(value))
        assert result.returncode == 2
        assert result.stderr.splitlines() == [f"deja: home: {afile} is a file, not a folder; give a folder path"]
    config_file = fake_home / ".config" / "deja" / "config.toml"
    assert not config_file.exists() or "home" not in config_file.read_text()
    assert run_deja("config", "set", "home", str(fake_home / "new" / "home")).returncode == 0


def test_config_refuses_a_home_that_holds_the_users_own_files(fake_home: Path) -> None:
    """trial58 T6: ``deja config set home ~/Documents`` was taken; the next search made the folder 0700 (a shared or
    served folder stopped being readable by others) and wrote deja's index beside the user's files. It is refused
    in one line that names a folder of deja's own inside it; nothing is written or changed."""
    documents = fake_home / "Documents"
    documents.mkdir()
    (documents / "cv.txt").write_text("hi\n")
    documents.chmod(0o755)

    refused = run_deja("config", "set", "home", str(documents))

    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        f"deja: home: {documents} holds files that are not deja's, and deja makes its home private (0700) and writes "
        f"its index there; give a folder of deja's own, such as {documents / 'deja'}"
    ]
    assert not (fake_home / ".config" / "deja").exists()
    assert os.listdir(documents) == ["cv.txt"] and documents.stat().st_mode & 0o777 == 0o755
    assert run_deja("config", "set", "home", str(documents / "deja")).returncode == 0, "the folder it suggests"


def test_config_suggests_no_folder_of_deja_s_own_where_that_name_is_taken(fake_home: Path) -> None:
    """trial58b B5: where ``DIR/deja`` is a file (or a folder of the user's), the refusal suggested it all the same,
    and taking the advice got "is a file, not a folder"; it asks for an empty folder of deja's own instead."""
    for taken in ("file", "folder"):
        documents = fake_home / f"Documents-{taken}"
        documents.mkdir()
        (documents / "cv.txt").write_text("hi\n")
        if taken == "file":
            (documents / "deja").write_text("my notes on deja\n")
        else:
            (documents / "deja").mkdir()
            (documents / "deja" / "notes.txt").write_text("mine\n")

        refused = run_deja("config", "set", "home", str(documents))

        assert refused.returncode == 2
        assert refused.stderr.splitlines() == [
            f"deja: home: {documents} holds files that are not deja's, and deja makes its home private (0700) and "
            f"writes its index there; give a folder of deja's own (an empty one)"
        ]


def test_config_takes_an_empty_folder_or_a_deja_home_as_home(fake_home: Path, tmp_path: Path) -> None:
    """What deja made in a home (its index, the hooks' log, the hook server's socket and lock, a leftover of a
    write) is no file of the user's: a home deja used before is taken back, and so is an empty folder."""
    from deja.core.readers.vscdb import COPIES
    from deja.interfaces.hook_client import LOCK_NAME, SOCKET_NAME

    assert run_deja("index").returncode == 0
    used = fake_home / ".cache" / "deja"
    for name in (SOCKET_NAME, LOCK_NAME, BUILD_SENTINEL, "hooks.log", "hooks.log.1", ".hooks.log.4242.tmp"):
        (used / name).write_text("")
    (used / COPIES).mkdir()
    empty, looks_empty = tmp_path / "empty", tmp_path / "looks-empty"
    empty.mkdir()
    looks_empty.mkdir()
    (looks_empty / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")  # (review58d F5: Finder's file alone was refused)
    (looks_empty / "lost+found").mkdir()

    for home in (used, empty, looks_empty):
        taken = run_deja("config", "set", "home", str(home))
        assert taken.returncode == 0, taken.stderr
    (used / ".hooks.log.4242.tmp.mine").write_text("")  # (no leftover of deja's)
    assert run_deja("config", "set", "home", str(used)).returncode == 2
    kept = tmp_path / "repo" / "cache"  # (a repository's folder: `git add -A` would take the index in, review59a F6)
    kept.mkdir(parents=True)
    (kept / ".gitkeep").write_text("")
    refused = run_deja("config", "set", "home", str(kept))
    assert refused.returncode == 2  # (and no folder inside it suggested, review59b F8)
    assert refused.stderr.rstrip().endswith(
        "(an empty one outside this repository: `git add -A` would take in the index)"
    )


def test_doctor_warns_of_a_setting_the_shell_gives_a_value_deja_ignores(sample: Sample) -> None:
    result = run_deja("doctor", env={**sample.env, "DEJA_RECALL": "loud"})
    settings = result.stdout.split("\nSettings\n")[1].split("\n\n")[0]
    assert "the same settings as this shell" not in settings
    assert "warn   ignored: DEJA_RECALL: recall takes one of off, safe, aggressive, not 'loud'" in settings
    assert "fix: unset DEJA_RECALL, or fix its value" in settings


def test_doctor_warns_of_a_config_file_only_this_shell_finds(sample: Sample, tmp_path: Path) -> None:
    """``XDG_CONFIG_HOME=… deja config set recall off`` writes a file Cursor's hooks, started without the variable,
    never read: doctor says so rather than "the same settings as this shell"."""
    env = {**sample.env, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = run_deja("config", "set", "recall", "off", env=env)
    here, there = tmp_path / "xdg" / "deja" / "config.toml", Path(sample.env["HOME"]) / ".config/deja/config.toml"
    assert done.returncode == 0 and done.stdout.splitlines() == [  # (said where the change is made: trial59 F4)
        f"recall = off in {here}",
        f"note: XDG_CONFIG_HOME is set in this shell, so deja's settings come from {here}; Cursor's hooks and MCP "
        f"server read {there} instead unless Cursor is started with the same variable: unset XDG_CONFIG_HOME "
        f"before `deja config set`, or copy {here} to {there}",
    ], done.stdout
    result = run_deja("doctor", env=env)
    settings = result.stdout.split("\nSettings\n")[1].split("\n\n")[0]
    assert "the same settings as this shell" not in settings
    assert f"XDG_CONFIG_HOME is set in this shell, so deja's settings come from {tmp_path}/xdg/deja/config.toml" in (
        " ".join(settings.split())
    )
    unset = {k: v for k, v in sample.env.items() if k != "XDG_CONFIG_HOME"}
    assert "XDG_CONFIG_HOME is set" not in run_deja("doctor", env=unset).stdout


def test_doctor_is_quiet_about_a_config_file_left_with_no_setting(sample: Sample, tmp_path: Path) -> None:
    """``deja config unset`` leaves the file with its comment and no key: to a hook started without XDG_CONFIG_HOME
    it reads as no file at all, so doctor has nothing to warn of (trial53: the warning stayed after the unset); the
    same setting in both files, written differently, is no difference either."""
    env = {**sample.env, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert run_deja("config", "set", "recall", "off", env=env).returncode == 0
    unset_done = run_deja("config", "unset", "recall", env=env)
    assert unset_done.returncode == 0 and "note:" not in unset_done.stdout, unset_done.stdout  # (no difference left)
    assert (tmp_path / "xdg" / "deja" / "config.toml").exists()
    assert "XDG_CONFIG_HOME is set in this shell, so" not in " ".join(run_deja("doctor", env=env).stdout.split())
    assert run_deja("config", "set", "recall", "off", env=env).returncode == 0
    unset = {k: v for k, v in env.items() if k != "XDG_CONFIG_HOME"}
    assert run_deja("config", "set", "recall", "off", env=unset).returncode == 0
    (tmp_path / "xdg" / "deja" / "config.toml").write_text("recall   =   'off'   # as the hooks read it\n")
    assert "XDG_CONFIG_HOME is set in this shell, so" not in " ".join(run_deja("doctor", env=env).stdout.split())


def test_doctor_is_quiet_about_two_copies_of_one_config_file_that_is_not_toml(sample: Sample, tmp_path: Path) -> None:
    """The XDG file copied to ~/.config, as the warning's own fix says, is the same file to a hook, though it is not
    valid TOML: each read's error names its own path, and doctor said to copy the file onto its copy (review53c F3).
    Two files that are not valid TOML in different ways still differ."""
    env = {**sample.env, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    files = [folder / "deja" / "config.toml" for folder in (tmp_path / "xdg", Path(sample.env["HOME"]) / ".config")]
    for file in files:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text('recall = "off\n')  # (a quote left open)
    said = " ".join(run_deja("doctor", env=env).stdout.split())
    assert "is not valid TOML" in said
    assert "XDG_CONFIG_HOME is set in this shell, so" not in said
    files[1].write_text('recall = "safe\n')
    assert "XDG_CONFIG_HOME is set in this shell, so" in " ".join(run_deja("doctor", env=env).stdout.split())


def test_a_hit_shows_a_message_said_twice_in_its_chat_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = "run the python server on port 8000 please"
    cli = tmp_path / "cli"
    records = [user_turn(asked), assistant_turn("Done."), user_turn(asked), assistant_turn("python server started")]
    write_transcript(transcript_path(cli, "/work/shop", "0b8e7a52-0000-4000-8000-000000000001"), records)
    index_chats(tmp_path, monkeypatch, {})
    result = run_deja("search", "python", "server")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.strip() for line in lines].count(f"user: {asked}") == 1, result.stdout


def test_a_plain_index_removes_the_segments_a_full_rebuild_retired_once_their_grace_is_over(
    indexed_sample: Sample,
) -> None:
    folder = index_dir(indexed_sample.home)
    before = {path.name for path in folder.glob("seg-*")}
    assert run_deja("index", "--full", env=indexed_sample.env).returncode == 0
    retired = [folder / name for name in before]
    assert all(path.is_dir() for path in retired)  # readers of the previous manifest may still map them
    past = time.time() - SEGMENT_GRACE_SECONDS - 1
    for path in retired:
        os.utime(path, (past, past))  # the grace period is over
    assert run_deja("index", env=indexed_sample.env).returncode == 0
    assert not any(path.exists() for path in retired)
    live = {ref.name for ref in read_manifest(folder).segments}
    assert {path.name for path in folder.glob("seg-*")} == live
    stats = json.loads(run_deja("stats", "--json", env=indexed_sample.env).stdout)["index_bytes"]
    doctor = json.loads(run_deja("doctor", "--json", env=indexed_sample.env).stdout)["index"]["bytes"]
    besides = [p for p in folder.rglob("*") if p.is_file() and not p.relative_to(folder).parts[0].startswith("seg-")]
    assert doctor == stats + sum(p.stat().st_size for p in besides)  # doctor counts the manifest and bookkeeping too


def test_prompt_recall_on_a_real_history_shows_no_companion_the_first_outscores_four_times(fake_home: Path) -> None:
    store = fake_home / ".config" / "Cursor" / "User" / "globalStorage"
    store.mkdir(parents=True)
    shutil.copy(shared_path("realdata", "slevin48-cursor-history", "state.vscdb"), store / "state.vscdb")
    assert run_deja("index").returncode == 0
    prompt = {**PROMPT, "prompt": "how do I run a local server with python in a simple cli command?"}
    given = run_deja("hook-prompt", input=json.dumps(prompt))
    assert given.returncode == 0
    assert "f73a2965" in given.stdout
    log = run_deja("hooks", "log").stdout.splitlines()[-1]
    outscores = re.search(r"recalled f73a2965: scores ([\d.]+) times the next session", log)
    assert outscores and float(outscores[1]) >= 4, log
    assert "a76419da" not in log and "07210ecf" not in log
    assert "a76419da" not in given.stdout and "07210ecf" not in given.stdout


def test_the_mcp_server_says_an_index_folder_it_may_not_read_needs_its_permissions_fixed(
    indexed_sample: Sample, locked_index: Path
) -> None:
    """The agent is told what the user must do, and no build is started that could not write the folder either."""
    calls = (
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
        '"clientInfo":{"name":"test","version":"1"}}}\n'
        '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"pytest"}}}\n'
    )
    prefix = user_prefix()
    server = subprocess.Popen(
        [*prefix, *ENTRY, "mcp"], env=indexed_sample.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(calls)
    server.stdin.flush()
    answers: dict[int, dict] = {}
    while 3 not in answers and (line := server.stdout.readline()):
        if "id" in (message := json.loads(line)):
            answers[message["id"]] = message
    server.stdin.close()
    server.wait(timeout=60)
    if prefix and not answers:
        pytest.skip("cannot make a user namespace here")
    result = answers[3]["result"]
    assert result["isError"]
    assert result["content"][0]["text"].endswith(
        f"permission denied; give your user access to it: chmod -R u+rwX {locked_index}"
    )
