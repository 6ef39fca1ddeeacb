"""A file or folder in Cursor's folders whose name is not UTF-8 (a stray file, a Latin-1 ``caf\\xe9`` copied from an
old tarball) is passed over, and named, while the rest of the history is indexed and searched.

Before, Python read such a name with lone surrogates, which no encoder of deja's records takes: ``deja index`` and
``deja search`` both exited 1 with a UnicodeEncodeError naming no file, on every run until the file was renamed,
while doctor said all was well (trial49 F1). A project *folder* of the user named so is another matter, and read
(tests/test_foreign_folder_names.py): only the names Cursor's own folders hold are passed over.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.escapes import surrogates_escaped
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CHAT = [user_turn("why does the narwhal worker die"), assistant_turn("Raise the keepalive.")]


def _bytes_named(folder: Path, name: bytes) -> Path:
    """``folder/name``, a name that is not UTF-8, as Python spells it (lone surrogates)."""
    return Path(os.fsdecode(os.fsencode(str(folder)) + b"/" + name))


def test_names_that_are_not_utf8_are_passed_over_and_named_and_the_rest_is_indexed(
    tmp_path: Path, cli_root: Path
) -> None:
    good = tmp_path / "app"
    good.mkdir()
    write_transcript(transcript_path(cli_root, str(good), "c-good"), CHAT)
    inner = transcript_path(cli_root, str(good), "c-good").parent.parent
    write_transcript(_bytes_named(inner, b"x\xff.jsonl"), CHAT)  # (a) a transcript
    _bytes_named(cli_root / "projects", b"stray\xfe.jsonl").write_text("x\n")  # (b) a stray file at the root
    latin1 = _bytes_named(cli_root / "projects", b"caf\xe9") / "agent-transcripts"  # (c) a Latin-1 project folder
    write_transcript(latin1 / "c-latin1.jsonl", CHAT)
    indexed = run_deja("index")
    assert indexed.returncode == 0, indexed.stderr
    assert "1 session, 2 messages indexed" in indexed.stdout
    passed = [line for line in indexed.stderr.splitlines() if "not UTF-8" in line]
    assert passed == [
        f"deja passes over {cli_root}/projects/caf\\xe9 and 2 more: their names are not UTF-8, which the index cannot "
        "record: give them UTF-8 names (nothing in them is read until then), then `deja index`"
    ]
    as_json = json.loads(run_deja("index", "--json").stdout)["not_utf8"]
    projects = f"{cli_root}/projects"
    assert as_json == [f"{projects}/caf\\xe9", f"{projects}/stray\\xfe.jsonl", f"{inner}/x\\xff.jsonl"], as_json
    found = run_deja("search", "narwhal", "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["session_id"] for hit in json.loads(found.stdout)["hits"]] == ["c-good"]
    doctor = run_deja("doctor")
    assert f"deja passes over {cli_root}/projects/caf\\xe9 and 2 more: their names are not UTF-8" in doctor.stdout


def test_a_name_not_utf8_that_appears_after_the_first_index_leaves_search_working(
    tmp_path: Path, cli_root: Path
) -> None:
    """The quick check before a search lists only the folders that changed: it passes over the name too."""
    write_transcript(transcript_path(cli_root, str(tmp_path), "c-good"), CHAT)
    assert run_deja("index").returncode == 0
    _bytes_named(cli_root / "projects", b"stray\xff").mkdir()
    folder = transcript_path(cli_root, str(tmp_path), "c-good").parent.parent
    write_transcript(_bytes_named(folder, b"late\xff.jsonl"), CHAT)
    write_transcript(transcript_path(cli_root, str(tmp_path), "c-new"), CHAT)
    found = run_deja("search", "narwhal", "--json")
    assert found.returncode == 0, found.stderr
    assert sorted(hit["session_id"] for hit in json.loads(found.stdout)["hits"]) == ["c-good", "c-new"]


def test_editor_and_chat_store_folders_named_not_in_utf8_are_passed_over(tmp_path: Path, cli_root: Path) -> None:
    write_transcript(transcript_path(cli_root, str(tmp_path), "c-good"), CHAT)
    workspace = _bytes_named(tmp_path / "no-ide" / "workspaceStorage", b"w\xff")
    workspace.mkdir(parents=True)
    (workspace / "state.vscdb").write_bytes(b"")
    _bytes_named(cli_root / "chats", b"h\xff").mkdir(parents=True)
    indexed = run_deja("index")
    assert indexed.returncode == 0 and "1 session" in indexed.stdout, indexed.stderr
    assert f"deja passes over {cli_root}/chats/h\\xff and 1 more: their names are not UTF-8" in indexed.stderr
    assert run_deja("search", "narwhal").returncode == 0


def test_a_root_whose_own_path_is_not_utf8_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing of a root so named can be passed over: index and search refuse in one line, and doctor says why."""
    home = _bytes_named(tmp_path, b"jos\xe9")
    write_transcript(transcript_path(home / ".cursor", str(home / "code"), "c-one"), CHAT)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(home / ".cursor"))
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    line = (
        f"deja: {tmp_path}/jos\\xe9/.cursor: its path is not UTF-8, which deja's index cannot record: give the folder "
        "whose name shows \\xNN a UTF-8 name, or set DEJA_CURSOR_ROOT, DEJA_CURSOR_CLI_ROOT and DEJA_HOME to folders "
        "whose paths are UTF-8\n"
    )
    for command in (("index",), ("search", "narwhal")):
        ran = run_deja(*command)
        assert (ran.returncode, ran.stderr) == (1, line), ran.stderr
    doctor = run_deja("doctor", input=b"").stdout.decode("utf-8")  # (every line UTF-8: it named the path raw, names49)
    assert f"ERROR  {tmp_path}/jos\\xe9/.cursor: its path is not UTF-8" in doctor
    assert f"cursor-agent  {tmp_path}/jos\\xe9/.cursor" in doctor
    report = json.loads(run_deja("doctor", "--json", input=b"").stdout.decode("utf-8"))
    assert f"{tmp_path}/jos\\xe9/.cursor/projects" in [store["path"] for store in report["stores"]], report["stores"]


def test_hooks_in_a_home_not_in_utf8_exit_0_silent_and_log_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME alone set so (deja's home, Cursor's roots below it): each hook wrote the path into hooks.log, which raised
    out of the hook, so it printed a traceback, exited 1 and left the log empty; and each started a build that
    failed where nobody read why (review49c H1). Now: nothing on stdout or stderr, exit 0, the one line in the log,
    no build; the session-end hook too, which asked for its build around the guard until stop 58."""
    home = _bytes_named(tmp_path, b"jos\xe9")
    write_transcript(transcript_path(home / ".cursor", str(home / "code"), "c-one"), CHAT)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "app").mkdir()
    payload = {"prompt": "narwhal", "conversation_id": "c1", "workspace_roots": [str(tmp_path / "app")]}
    ingesting = {**os.environ, "DEJA_INGEST_WAIT": "1"}  # (the session end's detached ingest, run here)
    for command, event, env in [
        ("hook-prompt", "beforeSubmitPrompt", None),
        ("hook-context", "sessionStart", None),
        ("hook-session-end", "sessionEnd", ingesting),
    ]:
        ran = run_deja(command, env=env, input=json.dumps(payload | {"hook_event_name": event}).encode())
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b""), ran.stderr.decode("utf-8", "replace")
    deja_home = home / ".cache" / "deja"
    logged = (deja_home / "hooks.log").read_text(encoding="utf-8").splitlines()
    problem = (
        f"{tmp_path}/jos\\xe9/.config/Cursor/User: its path is not UTF-8, which deja's index cannot record: give "
        "the folder whose name shows \\xNN a UTF-8 name, or set DEJA_CURSOR_ROOT, DEJA_CURSOR_CLI_ROOT and DEJA_HOME "
        "to folders whose paths are UTF-8"
    )
    assert [line.split(" ", 2)[2] for line in logged] == [
        f"beforeSubmitPrompt c1: silent: no index to read | {problem} | no session-start block: no index to read",
        f"sessionStart c1: silent: no index to read | {problem}",
        f"sessionEnd c1: silent: {problem}",
    ]
    assert not (deja_home / "index-build.requested").exists()


def test_the_hook_log_spells_each_lone_surrogate_in_ascii() -> None:
    """A byte a path held that is not UTF-8 reads as ``\\xNN``, as deja names such a path everywhere; any other lone
    surrogate (none of a path's) as its escape: either, written as it was, raised out of the hook."""
    assert surrogates_escaped("home/jos\udce9: caf\u00e9 \ud800") == "home/jos\\xe9: caf\u00e9 \\ud800"
    assert surrogates_escaped("jos\udce9 \udcc3\udca9") == "jos\\xe9 \u00e9"  # (bytes of a UTF-8 \u00e9 read as one)


def test_a_root_renamed_not_utf8_after_the_index_was_built_starts_no_catch_up_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index built, then the Cursor folder's path not UTF-8: every 30 s a hook started a catch-up that failed the
    same way where nobody read why (names49). Now the hooks answer from the index as it stands, start none, and one
    of them says why, once."""
    cli = tmp_path / "cli"
    write_transcript(transcript_path(cli, str(tmp_path / "app"), "c-one"), CHAT)
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli))
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    assert run_deja("index").returncode == 0
    renamed = _bytes_named(tmp_path, b"cli\xe9")
    cli.rename(renamed)
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(renamed))
    index = tmp_path / "deja" / "index"
    for name in os.listdir(index):  # last checked an hour ago: a catch-up is due
        os.utime(index / name, (os.stat(index / name).st_atime, os.stat(index / name).st_mtime - 3600))
    payload = {"prompt": "narwhal", "conversation_id": "c1", "workspace_roots": [str(tmp_path / "app")]}
    for _ in range(2):
        ran = run_deja("hook-prompt", input=json.dumps(payload | {"hook_event_name": "beforeSubmitPrompt"}).encode())
        assert (ran.returncode, ran.stderr) == (0, b""), ran.stderr.decode("utf-8", "replace")
    logged = (tmp_path / "deja" / "hooks.log").read_text(encoding="utf-8")
    said = f"no background catch-up: {tmp_path}/cli\\xe9: its path is not UTF-8"
    assert logged.count(said) == 1 and "catching up" not in logged, logged
