"""What a new user trips on in the first five minutes: each test runs deja as they did and reads what they saw."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from harness import Sample, run_deja

from deja.core.config import SETTINGS
from deja.core.sample import API_CACHE_CHAT
from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript
from deja.interfaces.views import text_columns

# --------------------------------------------------------------------------- export -o


def test_export_to_an_existing_folder_writes_the_session_file_inside_it(indexed_sample: Sample, tmp_path: Path) -> None:
    folder = tmp_path / "apiout"
    folder.mkdir()
    result = run_deja("export", API_CACHE_CHAT[:8], "-f", "html", "-o", str(folder), env=indexed_sample.env)
    assert result.returncode == 0, result.stderr
    assert (folder / f"{API_CACHE_CHAT}.html").read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_export_into_a_missing_folder_is_one_line_and_makes_no_folder(indexed_sample: Sample, tmp_path: Path) -> None:
    target = tmp_path / "nonexistent" / "dir" / "x.md"
    result = run_deja("export", API_CACHE_CHAT[:8], "-o", str(target), env=indexed_sample.env)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "no such folder" in result.stderr
    assert not (tmp_path / "nonexistent").exists()


def test_export_with_nothing_to_export_says_what_is_missing(indexed_sample: Sample) -> None:
    result = run_deja("export", env=indexed_sample.env)
    assert result.returncode == 2
    assert "give the session ID" in result.stderr and "not both" not in result.stderr
    both = run_deja("export", API_CACHE_CHAT, "--project", "api", env=indexed_sample.env)
    assert both.returncode == 2 and "not both" in both.stderr


# --------------------------------------------------------------------------- deja config


def bare_env(home: Path, **variables: str) -> dict[str, str]:
    """HOME, PATH and the given variables: a shell with nothing else of deja's set."""
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **variables}


def test_config_says_what_cursor_gets_from_the_file_and_defaults_not_from_this_shell(
    fake_home: Path, tmp_path: Path
) -> None:
    shell = bare_env(fake_home, DEJA_HOME=str(tmp_path / "x"), DEJA_CURSOR_ROOT=str(tmp_path))
    text = run_deja("config", env=shell).stdout
    assert f"Cursor's hooks and MCP server get {fake_home / '.cache' / 'deja'}: they never see this shell" in text
    assert f"get (not found) {fake_home / '.config' / 'Cursor' / 'User'}: they never see" in text
    assert run_deja("config", "set", "home", str(tmp_path / "filed"), env=bare_env(fake_home)).returncode == 0
    text = run_deja("config", env=shell).stdout
    assert f"Cursor's hooks and MCP server get {tmp_path / 'filed'}: they never see this shell" in text


def test_config_says_found_only_for_a_folder_that_is_there(fake_home: Path) -> None:
    # review8b: an unset folder Cursor never made read "(found) …", in the text and in --json's effective/in_cursor
    user = fake_home / ".config" / "Cursor" / "User"
    shown = json.loads(run_deja("config", "--json", env=bare_env(fake_home)).stdout)["settings"]["cursor_root"]
    assert shown["effective"] == shown["in_cursor"] == f"(not found) {user}"
    assert f"(not found) {user}" in run_deja("config", env=bare_env(fake_home)).stdout
    user.mkdir(parents=True)
    shown = json.loads(run_deja("config", "--json", env=bare_env(fake_home)).stdout)["settings"]["cursor_root"]
    assert shown["effective"] == f"(found) {user}"


def test_config_columns_line_up_when_a_path_is_long(fake_home: Path, tmp_path: Path) -> None:
    long = tmp_path / ("a-rather-long-folder-name-" * 3)
    long.mkdir()
    text = run_deja("config", env=bare_env(fake_home, DEJA_CURSOR_ROOT=str(long))).stdout
    rows = [line for line in text.splitlines() if line.split()[-1] in ("default", "DEJA_CURSOR_ROOT")]
    assert len(rows) == len(SETTINGS)  # (every setting's row)
    assert len({row.index(" default") if "default" in row else row.index(" env ") for row in rows}) == 1


def test_config_set_refuses_a_cursor_folder_that_is_not_there(fake_home: Path, tmp_path: Path) -> None:
    refused = run_deja("config", "set", "cursor_root", str(tmp_path / "nothere"), env=bare_env(fake_home))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert f"cursor_root: {tmp_path / 'nothere'} is not a folder" in refused.stderr
    assert not (fake_home / ".config" / "deja" / "config.toml").exists()
    assert run_deja("config", "set", "cursor_cli_root", str(tmp_path), env=bare_env(fake_home)).returncode == 0


def test_config_set_home_relative_is_made_absolute_with_a_note(fake_home: Path, tmp_path: Path) -> None:
    done = run_deja("config", "set", "home", "relative/dir", env=bare_env(fake_home), cwd=tmp_path)
    assert done.returncode == 0
    assert f"note: relative/dir is relative; stored as {tmp_path / 'relative' / 'dir'}" in done.stdout


def test_config_set_home_says_whether_an_index_is_there_yet(fake_home: Path, tmp_path: Path, sample: Sample) -> None:
    """A new home holds no index until something builds it: said, not found out from a slow first search (trial55)."""
    env = {**bare_env(fake_home), **{k: v for k, v in sample.env.items() if k.startswith("DEJA_CURSOR")}}
    moved = tmp_path / "moved"
    done = run_deja("config", "set", "home", str(moved), env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [f"no index in {moved} yet: the next search or `deja index` builds it there"]
    assert run_deja("index", env=env).returncode == 0
    again = run_deja("config", "set", "home", str(moved), env=env)
    assert again.stdout.splitlines()[1:] == [f"{moved} already holds an index"]
    shell = run_deja("config", "set", "home", str(tmp_path / "other"), env={**env, "DEJA_HOME": str(moved)})
    assert "builds it there" not in shell.stdout and "DEJA_HOME is set in this shell" in shell.stdout


def test_config_unset_removes_one_key_and_keeps_the_others(fake_home: Path) -> None:
    env = bare_env(fake_home)
    path = fake_home / ".config" / "deja" / "config.toml"
    assert run_deja("config", "set", "recall", "off", env=env).returncode == 0
    assert run_deja("config", "set", "trace", "true", env=env).returncode == 0
    done = run_deja("config", "unset", "recall", env=env)
    assert done.returncode == 0 and done.stdout == f"removed recall from {path}\n"
    assert 'recall = "off"' not in path.read_text() and "trace = true" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600
    assert "recall             safe" in run_deja("config", env=env).stdout
    again = run_deja("config", "unset", "recall", env=env)
    assert again.returncode == 0 and "recall is not set in" in again.stdout
    unknown = run_deja("config", "unset", "colour", env=env)
    assert unknown.returncode == 2 and "unknown key 'colour'" in unknown.stderr


# --------------------------------------------------------------------------- search messages


@pytest.mark.parametrize("query", ["the", "how", "it's", "Here's how"])
def test_a_query_of_only_common_words_says_so(indexed_sample: Sample, query: str) -> None:
    result = run_deja("search", query, env=indexed_sample.env)
    assert result.returncode == 0
    assert result.stdout == f'Every word of "{query}" is too common to search; add a rarer word.\n'


def test_a_quoted_phrase_of_only_common_words_says_so_as_the_words_do(indexed_sample: Sample) -> None:
    """``deja search '"off by one"'`` said ``No session matches ""off by one"".``, though a session says it word for
    word, where the words unquoted are "too common" (trial9 F8): a phrase is found by its words, and these are in
    no index. It says why, naming the query once quoted, and the MCP tool says the same."""
    from deja.interfaces.mcp_server import Tools

    said = "Every word of '\"off by one\"' is too common to search, in a phrase too; add a rarer word beside it."
    result = run_deja("search", '"off by one"', env=indexed_sample.env)
    assert result.returncode == 0 and result.stdout == said + "\n", result.stdout
    assert getattr(Tools().search('"off by one"').content[0], "text", "") == said


def test_a_search_of_an_empty_index_says_the_index_is_empty_and_where_deja_looked(
    fake_home: Path, tmp_path: Path
) -> None:
    env = bare_env(fake_home, DEJA_HOME=str(tmp_path / "deja"))
    result = run_deja("search", "cache", env=env)
    assert result.returncode == 0
    assert result.stdout.startswith("The index is empty: no Cursor chats found in ")
    assert str(fake_home / ".config" / "Cursor" / "User") in result.stdout and "cursor_root" in result.stdout


def test_a_huge_query_is_not_echoed_whole(indexed_sample: Sample) -> None:
    query = "zqxjkv " * 10_000
    result = run_deja("search", query, env=indexed_sample.env)
    assert result.returncode == 0 and len(result.stdout) < 120
    assert result.stdout.startswith('No session matches "zqxjkv zqxjkv') and '…".' in result.stdout


def test_one_more_match_is_said_in_the_singular(indexed_sample: Sample) -> None:
    everything = run_deja("search", "cache", "--json", env=indexed_sample.env)
    total = json.loads(everything.stdout)["total"]
    assert total >= 2
    text = run_deja("search", "cache", "--limit", str(total - 1), env=indexed_sample.env).stdout
    assert text.endswith("\n1 more session matches; use --limit to see it.\n")


# --------------------------------------------------------------------------- sessions listing


def test_sessions_at_80_columns_shows_short_ids_and_room_for_the_title(indexed_sample: Sample) -> None:
    listing = run_deja("sessions", "-n", "2", env={**indexed_sample.env, "COLUMNS": "80"}).stdout.splitlines()
    assert listing[0].startswith("5d1c9b21  2026-") and "Why does the price cache return stale" in listing[0]
    assert all(len(line) <= 80 for line in listing)
    assert listing[-1] == "5 more; --limit to see them"
    assert run_deja("show", listing[0].split()[0], env=indexed_sample.env).returncode == 0


def test_a_wide_project_name_keeps_the_listings_columns_lined_up(tmp_path: Path, cli_root: Path) -> None:
    """A CJK character takes two columns of a terminal: padding by characters pushed the titles after 支付api and
    统计 two or four columns right of the others' (trialN F4)."""
    for folder, chat_id in (("支付api", "c-wide"), ("web", "c-narrow")):
        (tmp_path / folder).mkdir()
        write_transcript(
            transcript_path(cli_root, str(tmp_path / folder), chat_id),
            [user_turn(f"why is {chat_id} slow"), assistant_turn("A missing index.")],
        )
    assert run_deja("index").returncode == 0
    listing = run_deja("sessions").stdout.splitlines()
    starts = {text_columns(line[: line.index("why is")]) for line in listing}
    assert len(listing) == 2 and len(starts) == 1, listing
    stats = [
        line
        for line in run_deja("stats").stdout.splitlines()
        if " session " in line and ("api" in line or "web" in line)
    ]
    assert len({text_columns(line[: line.index(" session ")]) for line in stats}) == 1, stats


def test_search_at_80_columns_shows_short_ids_and_whole_dates(indexed_sample: Sample) -> None:
    """trial14 F9: a hit's line kept the 36-character id and cut its date ("2024-11-1…"); the id is now the one
    ``deja sessions`` shows, and a project too long for the line is cut before the date is."""
    env = {**indexed_sample.env, "COLUMNS": "80"}
    found = run_deja("search", "price", "cache", "-n", "1", env=env).stdout.splitlines()
    assert found[1].startswith("  5d1c9b21 · cursor-") and re.search(r" · 20\d\d-\d\d-\d\d \d\d:\d\d$", found[1])
    assert all(len(line) <= 80 for line in found)
    narrow = run_deja("search", "price", "cache", "-n", "1", env={**env, "COLUMNS": "46"}).stdout.splitlines()
    # (too narrow for the project beside the source, the source goes: trial20 F6)
    assert narrow[1].startswith("  5d1c9b21 · api · ") and re.search(r" · 20\d\d-\d\d-\d\d \d\d:\d\d$", narrow[1])
    assert run_deja("show", found[1].split()[0], env=indexed_sample.env).returncode == 0


def test_sessions_into_a_pipe_keeps_whole_ids_and_json_too(indexed_sample: Sample) -> None:
    listing = run_deja("sessions", env=indexed_sample.env).stdout.splitlines()
    assert listing[0].startswith(f"{API_CACHE_CHAT}  ") and len(listing) == 7  # all seven: no "more" line
    shown = json.loads(run_deja("sessions", "--json", "-n", "1", env=indexed_sample.env).stdout)
    assert shown["sessions"][0]["id"] == API_CACHE_CHAT


def test_an_id_prefix_in_capitals_finds_the_session(indexed_sample: Sample) -> None:
    shown = run_deja("show", API_CACHE_CHAT[:8].upper(), env=indexed_sample.env)
    assert shown.returncode == 0 and API_CACHE_CHAT in shown.stdout


# --------------------------------------------------------------------------- messages


def test_turning_redaction_off_in_the_config_file_says_so_when_the_index_is_rebuilt(indexed_sample: Sample) -> None:
    env = {k: v for k, v in indexed_sample.env.items() if k != "DEJA_NO_REDACT"}
    assert run_deja("config", "set", "redact", "false", env=env).returncode == 0
    said = run_deja("index", env=env).stderr
    config_file = Path(env["HOME"]) / ".config" / "deja" / "config.toml"
    assert f"rebuilt the index: redaction is now off (redact in {config_file}), so the index is rebuilt" in said
    assert "DEJA_NO_REDACT" not in said and "rules-" not in said


def test_hooks_alone_asks_for_its_subcommand_in_one_line(fake_home: Path) -> None:
    result = run_deja("hooks", env=bare_env(fake_home))
    assert result.returncode == 2
    assert result.stderr == "deja: give a subcommand: `deja hooks log` lists what the hooks did\n"


@pytest.mark.parametrize("count", ["0", "-5"])
def test_hooks_log_refuses_a_count_below_one(fake_home: Path, count: str) -> None:
    result = run_deja("hooks", "log", "-n", count, env=bare_env(fake_home))
    assert (
        result.returncode == 2 and result.stderr == f"deja: -n {count} is not allowed: give 1 or more\n"
    )  # (as typed)


def test_handoff_takes_json(indexed_sample: Sample) -> None:
    result = run_deja("handoff", API_CACHE_CHAT[:8], "--json", env=indexed_sample.env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["session_id"] == API_CACHE_CHAT and data["directory"] == str(indexed_sample.history.projects["api"])
    assert data["command"].startswith(f"cd {data['directory']} && cursor-agent ")


def test_how_outside_the_project_it_ran_in_points_at_all_projects(indexed_sample: Sample, tmp_path: Path) -> None:
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    result = run_deja("how", "pytest", env=indexed_sample.env, cwd=elsewhere)
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "it ran in other projects: add --all-projects to see them"
    nowhere = run_deja("how", "cargo", "build", env=indexed_sample.env, cwd=elsewhere)
    assert "--all-projects" not in nowhere.stdout
    way_on = "it ran in no other project either: `deja search cargo build` looks for it in what the chats say"
    assert nowhere.stdout.splitlines()[-1] == way_on, "a way on (trial44b F8)"
    flags = run_deja("how", "cargo --locked", env=indexed_sample.env, cwd=elsewhere).stdout.splitlines()[-1]
    (line,) = re.findall(r"`([^`]*)`", flags)
    assert line == "deja search -- cargo --locked"
    searched = run_deja(*shlex.split(line)[1:], env=indexed_sample.env, cwd=elsewhere)
    assert searched.returncode == 0 and "No such option" not in searched.stderr, "it runs as printed (review45a L1)"


def test_how_in_a_subfolder_of_a_project_takes_the_project_as_wip_does(indexed_sample: Sample) -> None:
    api = indexed_sample.history.projects["api"]
    tests = api / "tests"
    tests.mkdir(exist_ok=True)
    result = run_deja("how", "pytest", env=indexed_sample.env, cwd=tests)
    assert result.stdout.startswith(f"how 'pytest' ran in {api}, newest first:"), result.stdout
    assert "$ pytest -q" in result.stdout and "--all-projects" not in result.stdout


def test_uninstall_with_nothing_installed_says_so(fake_home: Path) -> None:
    result = run_deja("uninstall", "cursor", env=bare_env(fake_home))
    assert result.returncode == 0 and result.stdout == "cursor: nothing of deja's to remove\n"


# --------------------------------------------------------------------------- doctor


def test_doctor_with_no_history_does_not_claim_to_serve_it(fake_home: Path, tmp_path: Path) -> None:
    env = bare_env(fake_home)
    run_deja("index", env=env)  # an empty index: no error left, only the warning that there is no history
    out = run_deja("doctor", env=env).stdout
    assert "no Cursor chats found" in out
    assert "can see and serve" not in out
    assert "deja works, but has no Cursor history to serve yet" in out.splitlines()[-1]


def test_doctor_points_from_global_storage_up_to_the_user_folder(indexed_sample: Sample) -> None:
    storage = indexed_sample.history.ide_root / "globalStorage"
    out = run_deja("doctor", env={**indexed_sample.env, "DEJA_CURSOR_ROOT": str(storage), "COLUMNS": "400"}).stdout
    assert f"{storage} holds a state.vscdb itself: deja wants Cursor's User folder, above it" in out
    assert f"fix: deja config set cursor_root {indexed_sample.history.ide_root}" in out


def test_a_cursor_root_naming_cursors_own_folder_reads_the_user_folder_inside_it(sample: Sample) -> None:
    """``~/.config/Cursor``, one above ``User``: the folder is named after the editor, so it is the one a person points
    at. Read as written, the editor's chats went missing with no word ("nothing there")."""
    user = sample.history.ide_root
    env = {**sample.env, "DEJA_CURSOR_ROOT": str(user.parent), "COLUMNS": "400"}
    assert run_deja("index", env=env).returncode == 0
    found = run_deja("search", "rate limit the price endpoint", env=env).stdout
    assert "Rate limit the price endpoint" in found
    doctor = run_deja("doctor", env=env).stdout
    assert f"editor        {user}\n" in doctor and "3 chats in 2 databases" in doctor
    assert f"{user.parent} (reads {user}: Cursor's User folder inside it)" in run_deja("config", env=env).stdout


def test_doctor_labels_store_times_as_when_they_were_last_written(indexed_sample: Sample) -> None:
    out = run_deja("doctor", env={**indexed_sample.env, "COLUMNS": "400"}).stdout
    assert "3 chats in 2 databases" in out and "last written" in out and ", newest 20" not in out


# --------------------------------------------------------------------------- the session-start block waits, whole


def hook_payload(conversation: str, project: Path, event: str, **fields: object) -> bytes:
    payload = {"conversation_id": conversation, "session_id": conversation, "hook_event_name": event}
    return json.dumps({**payload, "workspace_roots": [str(project)], **fields}).encode()


def test_a_tool_event_with_no_room_for_a_readable_block_leaves_it_to_the_next_event(indexed_sample: Sample) -> None:
    api = indexed_sample.history.projects["api"]
    ls = hook_payload("unseen-1", api, "preToolUse", tool_name="Shell", tool_input={"command": "ls"}, cwd="")
    done = run_deja("hook-tool", input=ls, env=indexed_sample.env)
    assert done.returncode == 0 and done.stdout == b""
    log = (indexed_sample.home / "hooks.log").read_text(encoding="utf-8")
    assert "a readable block does not fit in what this event's budget leaves; the next event gives it" in log

    prompt = hook_payload("unseen-1", api, "beforeSubmitPrompt", prompt="where were we?")
    text = json.loads(run_deja("hook-prompt", input=prompt, env=indexed_sample.env).stdout)["additional_context"]
    assert "Recent sessions in this project" in text
    details = [line for line in text.splitlines() if line.startswith(("  asked:", "  concluded:", "  files:"))]
    assert details and all(len(line.encode()) >= 40 or not line.endswith("…") for line in details)
    assert "  asked: Why does the price cache return stale prices after switching the locale?" in details


def test_a_turns_two_commands_read_as_two_in_a_search_snippet(tmp_path: Path, cli_root: Path) -> None:
    """A turn that ran ``pytest -q tests/test_orders.py`` twice showed ``command: pytest -q tests/test_orders.py
    pytest -q tests/test_orders.py``, one command with its arguments twice (trial9 F3)."""
    run = tool_use("Shell", {"command": "pytest -q tests/test_orders.py"})
    write_transcript(
        transcript_path(cli_root, str(tmp_path / "shop"), "c-two"),
        [user_turn("the orders tests fail"), assistant_turn("Done.", run, run)],
    )
    assert run_deja("index").returncode == 0
    found = run_deja("search", "pytest").stdout
    assert "pytest -q tests/test_orders.py · pytest -q tests/test_orders.py\n" in found, found
