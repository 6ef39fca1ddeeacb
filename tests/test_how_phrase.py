"""``deja how run the tests`` found nothing where ``deja how tests`` listed ``pytest tests/…``: a word of the phrase
in no command sank the whole answer (trial50 F4). When no run has every word, the phrasing (``run``, ``the``) is left
out and named; a word naming what ran still finds none, and a phrase one run has whole lists only the runs that have
every word."""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)


def _chat(cli_root: Path, folder: Path, chat_id: str, asked: str, commands: list[str]) -> None:
    """A chat in ``folder`` that ran each of ``commands`` once, each exiting 0."""
    messages = [store_user_message(asked)]
    for n, command in enumerate(commands):
        call = f"{chat_id}-{n}"
        messages.append(store_assistant_message("Running it.", tool_call_part(call, "Shell", {"command": command})))
        messages.append(tool_result_message(call, "Shell", shell_result_text("ok", exit_code=0)))
    write_chat_store(chat_dir_for(cli_root, str(folder), chat_id), cwd=str(folder), name=asked, messages=messages)


def test_words_in_no_command_are_left_out_and_named(tmp_path: Path, cli_root: Path) -> None:
    shop = tmp_path / "code" / "shop"
    shop.mkdir(parents=True)
    _chat(cli_root, shop, "c-tests", "run the tests please", ["pytest tests/test_webhooks.py", "git status"])
    _chat(cli_root, shop, "c-commit", "commit the fix", ['git commit -m "fix the rounding"'])
    assert run_deja("index").returncode == 0

    ran = run_deja("how", "run", "the", "tests", cwd=shop)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == f"how 'tests' ran in {shop}, newest first ('run', 'the' left out: no run has every word):"
    assert [line.split("$ ", 1)[1].split("  (")[0] for line in lines[1:]] == ["pytest tests/test_webhooks.py"]

    whole = run_deja("how", "fix", "the", cwd=shop)
    assert whole.stdout.splitlines()[0] == f"how 'fix the' ran in {shop}, newest first:", whole.stdout
    assert len(whole.stdout.splitlines()) == 2, whole.stdout

    for words in (["deploy", "staging"], ["run", "cargo", "tests"]):  # (a word naming what ran, in no run: none)
        none = run_deja("how", *words, cwd=shop)
        assert none.stdout.startswith(f"no command with {' '.join(words)!r} ran in {shop}\n"), none.stdout


def test_how_never_answers_a_subcommand_word_with_its_opposite(tmp_path: Path, cli_root: Path) -> None:
    """review50c M1: `up`, `down`, `get`, `out` are stopwords of the search and subcommands of docker, kubectl, git:
    left out as phrasing, `deja how docker compose down` listed `docker compose up -d` (and `--json`, which said
    nothing of the word left out, gave it to an agent as the way to take the stack down). Only a question's function
    words are left out anywhere, and `run`, `use` only before the words naming a thing (`cargo run` is a command)."""
    shop = tmp_path / "code" / "shop"
    shop.mkdir(parents=True)
    _chat(cli_root, shop, "c-up", "start the stack", ["docker compose up -d"])
    _chat(cli_root, shop, "c-pods", "what pods are there", ["kubectl describe pods", "cargo build --release"])
    assert run_deja("index").returncode == 0
    ran = run_deja("how", "docker", "compose", "down", cwd=shop)
    assert "docker compose up" not in ran.stdout, ran.stdout
    for words in (["docker", "compose", "down"], ["kubectl", "get", "pods"], ["cargo", "run"], ["git", "pull"]):
        none = run_deja("how", *words, cwd=shop)
        assert none.stdout.startswith(f"no command with {' '.join(words)!r} ran in {shop}\n"), none.stdout
        assert json.loads(run_deja("how", *words, "--json", cwd=shop).stdout)["invocations"] == []

    asked = run_deja("how", "how", "do", "I", "run", "cargo", "--json", cwd=shop)
    answer = json.loads(asked.stdout)
    assert (answer["query"], answer["left_out"]) == ("how do I run cargo", ["how", "do", "I", "run"]), asked.stdout
    assert [run["command"] for run in answer["invocations"]] == ["cargo build --release"]
    whole = json.loads(run_deja("how", "docker", "compose", "up", "--json", cwd=shop).stdout)
    assert whole["left_out"] == [] and [run["command"] for run in whole["invocations"]] == ["docker compose up -d"]


def test_the_first_line_names_the_words_left_out_as_the_runs_were_found(tmp_path: Path, cli_root: Path) -> None:
    """review50c L2: the header worked the left-out words out again with a substring test of its own over the runs
    shown: `the` is inside `test_other.py`, so `deja how run the tests` said `how 'the tests' ran` though `the` was
    left out to find it. It names what ``words_run`` left out, as the JSON does."""
    shop = tmp_path / "code" / "shop"
    shop.mkdir(parents=True)
    _chat(cli_root, shop, "c-other", "run the other tests", ["pytest tests/test_other.py"])
    assert run_deja("index").returncode == 0
    ran = run_deja("how", "run", "the", "tests", cwd=shop)
    assert ran.stdout.splitlines()[0] == (
        f"how 'tests' ran in {shop}, newest first ('run', 'the' left out: no run has every word):"
    ), ran.stdout
    assert json.loads(run_deja("how", "run", "the", "tests", "--json", cwd=shop).stdout)["left_out"] == ["run", "the"]
