"""What a command printed, an error it failed with and the text an edit wrote are searchable, with snippets of them."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import Filters, search
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

PROJECT = "/home/dev/src/billing-api"
BACKFILL_CHAT = "0b1c2d3e-0000-4000-8000-000000000001"
MIGRATION_CHAT = "0b1c2d3e-0000-4000-8000-000000000002"
OTHER_CHAT = "0b1c2d3e-0000-4000-8000-000000000003"


def _chat(cli_root: Path, chat_id: str, ask: str, command: str, output: str, code: int, edit: dict | None) -> None:
    calls = [tool_use("Shell", {"command": command})] + ([tool_use("StrReplace", edit)] if edit else [])
    write_transcript(
        transcript_path(cli_root, PROJECT, chat_id),
        [user_turn(ask), assistant_turn("Running it.", *calls), assistant_turn("Done.")],
    )
    store = [
        {"role": "user", "content": [{"type": "text", "text": ask}]},
        {"role": "assistant", "content": [tool_call_part("t1", "Shell", {"command": command})]},
        tool_result_message("t1", "Shell", shell_result_text(output, code)),
    ]
    if edit:
        store += [
            {"role": "assistant", "content": [tool_call_part("t2", "StrReplace", edit)]},
            tool_result_message("t2", "StrReplace", "The file has been updated."),
        ]
    write_chat_store(chat_dir_for(cli_root, PROJECT, chat_id), cwd=PROJECT, messages=store, stale_root=False)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    cli = tmp_path / "cli"
    _chat(
        cli,
        BACKFILL_CHAT,
        "Run the order totals backfill in batches.",
        "python scripts/backfill_order_totals.py --batch-size 5000",
        "batch 379/379 done\nbackfilled 1893112 rows in 412.3s (4591 rows/s)\nskipped 17 rows with NULL currency",
        0,
        None,
    )
    _chat(
        cli,
        MIGRATION_CHAT,
        "The staging deploy is red at the migration step.",
        "alembic upgrade head",
        'INFO  running upgrade\npsycopg.errors.DuplicateColumn: column "currency" of relation "invoices" already exists',
        1,
        {"path": "migrations/7b84d0e.py", "old_string": "op.add_column()", "new_string": "ADD COLUMN IF NOT EXISTS"},
    )
    _chat(cli, OTHER_CHAT, "Add a currency column to the invoices page.", "pytest -q", "12 passed", 0, None)
    (tmp_path / "no-ide").mkdir()
    environment = {
        **os.environ,
        "DEJA_HOME": str(tmp_path / "deja"),
        "DEJA_CURSOR_CLI_ROOT": str(cli),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
    }
    assert run_deja("index", env=environment).returncode == 0
    return environment


def _search(env: dict[str, str], *query: str) -> dict:
    done = run_deja("search", *query, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_number_a_command_printed_finds_its_session_with_the_output_as_snippet(env: dict[str, str]) -> None:
    found = _search(env, "1893112")
    assert [hit["session_id"] for hit in found["hits"]] == [BACKFILL_CHAT]
    snippet = found["hits"][0]["snippets"][0]
    assert snippet["role"] == "tool" and "backfilled 1893112 rows" in snippet["text"]


def test_an_error_line_of_a_failed_command_ranks_its_session_first(env: dict[str, str]) -> None:
    found = _search(env, "DuplicateColumn currency already exists")
    assert found["hits"][0]["session_id"] == MIGRATION_CHAT
    assert any("DuplicateColumn" in s["text"] for s in found["hits"][0]["snippets"])


def test_a_commands_error_lines_and_its_output_are_one_snippet(env: dict[str, str]) -> None:
    """The error line is a line of the output: shown as both, a hit read as one text twice with its words reordered
    (trial9 F10); the next best message takes the second place."""
    done = run_deja("search", "DuplicateColumn currency already exists", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len([line for line in lines if "DuplicateColumn" in line]) == 1, done.stdout
    assert any(line.strip().startswith("edit: ADD COLUMN IF NOT EXISTS") for line in lines), done.stdout


def test_the_text_an_edit_wrote_is_searchable(env: dict[str, str]) -> None:
    found = _search(env, '"IF NOT EXISTS"')
    assert [hit["session_id"] for hit in found["hits"]] == [MIGRATION_CHAT]
    assert any(s["role"] == "edit" for s in found["hits"][0]["snippets"])


def test_a_tool_only_message_is_a_tool_snippet_and_a_repeated_error_line_shows_once(tmp_path: Path) -> None:
    """A message that only ran a command says nothing itself: its snippet is labelled ``tool``, not ``assistant``,
    and is not shown again as the ``command`` snippet; an error printed on each retry is one line of its snippet."""
    cli, command = tmp_path / "cli", "python worker.py --queue zebrafish"
    refused = "ConnectionRefusedError: [Errno 111] Connection refused"
    output = "\n".join(["Traceback (most recent call last):", refused] * 3)
    write_transcript(
        transcript_path(cli, PROJECT, OTHER_CHAT),
        [user_turn("why does the worker crash"), assistant_turn(None, tool_use("Shell", {"command": command}))],
    )
    store = [
        {"role": "user", "content": [{"type": "text", "text": "why does the worker crash"}]},
        {"role": "assistant", "content": [tool_call_part("t1", "Shell", {"command": command})]},
        tool_result_message("t1", "Shell", shell_result_text(output, 1)),
    ]
    write_chat_store(chat_dir_for(cli, PROJECT, OTHER_CHAT), cwd=PROJECT, messages=store, stale_root=False)
    (tmp_path / "no-ide").mkdir()
    env = {
        **os.environ,
        "DEJA_HOME": str(tmp_path / "deja"),
        "DEJA_CURSOR_CLI_ROOT": str(cli),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
    }
    by_command = _search(env, "zebrafish")["hits"][0]["snippets"]
    assert [(s["role"], s["text"]) for s in by_command] == [("tool", command)]
    by_error = _search(env, "ConnectionRefusedError")["hits"][0]["snippets"]
    assert by_error[0] == {**by_error[0], "role": "tool", "text": f"{refused} Traceback (most recent call last):"}


def test_the_same_failure_printed_by_several_runs_is_one_snippet(tmp_path: Path) -> None:
    """``make migrate`` ran three times and printed the same traceback: a hit gave both its places to that one text,
    one run's error lines and another run's output (trial11 F1); the question takes the second place."""
    from harness import store_shell

    from deja.core.writers.cursor_agent import store_assistant_message, store_preamble, store_user_message

    failure = "Traceback (most recent call last):\n  File \"manage.py\", line 22, in <module>\nModuleNotFoundError: No module named 'quokkaflux'\nmake: *** [migrate] Error 1"  # fmt: skip
    runs = [message for n in range(3) for message in store_shell(f"m{n}", "make migrate", failure, 2, "Trying again.")]
    cli = tmp_path / "cli"
    asked = store_user_message("make migrate fails with a missing module quokkaflux")
    messages = [*store_preamble(PROJECT), asked, *runs, store_assistant_message("Added quokkaflux to requirements.")]
    write_chat_store(
        chat_dir_for(cli, PROJECT, OTHER_CHAT), cwd=PROJECT, name="make migrate", messages=messages, stale_root=False
    )
    (tmp_path / "no-ide").mkdir()
    env = {**os.environ, "DEJA_HOME": str(tmp_path / "deja"), "DEJA_CURSOR_CLI_ROOT": str(cli), "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide")}  # fmt: skip
    assert run_deja("index", env=env).returncode == 0
    snippets = _search(env, "No module named")["hits"][0]["snippets"]
    assert [s["role"] for s in snippets] == ["tool", "user"], snippets


def test_a_message_found_by_the_path_it_edited_shows_its_words_as_any_of_its_snippets(cli_root: Path) -> None:
    """trial43 F11: a message found through the file its call edited showed its line breaks as `` · ``, and the same
    message found by its words showed them as spaces: one message, one rendering (the path still apart)."""
    said = "Moved the parser.\nThe old module re-exports it."
    edit = tool_use("Write", {"path": "src/zebraparser.py", "contents": "x = 1\n"})
    write_transcript(
        transcript_path(cli_root, PROJECT, OTHER_CHAT), [user_turn("move the parser"), assistant_turn(said, edit)]
    )
    assert run_deja("index").returncode == 0
    by_path = json.loads(run_deja("search", "zebraparser", "--json").stdout)["hits"][0]["snippets"]
    by_words = json.loads(run_deja("search", "module re-exports", "--json").stdout)["hits"][0]["snippets"]
    flat = " ".join(said.split())
    assert [s["text"] for s in by_words if s["role"] == "assistant"] == [flat], by_words
    assert [s["text"] for s in by_path if s["role"] == "assistant"] == [f"{flat} · src/zebraparser.py"], by_path


def _index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[dict], filler: str, others: int = 12
) -> Index:
    """One chat of ``records``, and ``others`` each saying ``filler`` (so that its words are common ones)."""
    cli = tmp_path / "cli"
    write_transcript(transcript_path(cli, "/work/api", "00000000-0000-4000-8000-00000000c001"), records)
    for n in range(others):
        turns = [user_turn(f"note {n}: {filler}", datetime(2026, 10, 1, 9, tzinfo=UTC)), assistant_turn("ok")]
        write_transcript(transcript_path(cli, "/work/api", f"00000000-0000-4000-8000-0000000f{n:04d}"), turns)
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    refresh(tmp_path / "deja")
    return Index.open(tmp_path / "deja")


def _shown(index: Index, query: str, filters: Filters | None = None) -> list[str]:
    """The passages the chat of ``_index``'s ``records`` shows for ``query``."""
    (hit,) = [h for h in search(index, query, filters=filters or Filters()).hits if h.session_id.endswith("c001")]
    return [snippet.text for snippet in hit.snippets]


#: A chat whose best passages are of the tests it ran on the checkout, and whose answers say what the rounding was.
CHECKOUT_ROUNDING = [
    user_turn("checkout total is off by one cent for discounted carts: the checkout tests fail"),
    assistant_turn("Running the checkout tests.", tool_use("Shell", {"command": "pytest -q tests/test_checkout.py"})),
    assistant_turn("The checkout test fails: the checkout total is 1999, expected 2000."),
    assistant_turn("Rounding happens before the discount. Moving it after."),
    assistant_turn("Fixed: the discount now applies first in shop/cart.py; all 42 tests pass."),
]
#: What forty other chats of the history say: "rounding" is rare in it, as it is in a person's history.
ELSEWHERE = "the deploy cache was warmed before the release"


def test_a_hits_second_passage_holds_a_rare_query_word_its_best_one_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat found by "checkout rounding" showed the tests it ran on the checkout and their failure, and none of the
    answers saying what the rounding was (trial56)."""
    index = _index(tmp_path, monkeypatch, CHECKOUT_ROUNDING, ELSEWHERE, others=40)
    shown = _shown(index, "checkout rounding")
    assert "checkout" in shown[0].lower() and "rounding" not in shown[0].lower(), shown
    assert shown[1] == "Rounding happens before the discount. Moving it after.", shown


def test_a_common_query_word_or_a_commands_match_puts_no_weaker_passage_forward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the best passage lacks only a common word, or the passage holding it is a command or its output, the
    next best follows it (review57a F1: "Running the tests" for "checkout" in place of the answer; F2: "another
    problem: the standup moved to ten" for "problem")."""
    index = _index(tmp_path, monkeypatch, CHECKOUT_ROUNDING, "the checkout page and the checkout total", others=40)
    assert _shown(index, "rounding checkout")[1] != "Running the checkout tests.", "a command's match"
    day = datetime(2026, 12, 1, 9, tzinfo=UTC)
    records = [
        user_turn("checkout total rounding is off by a cent for discounted carts", day),
        assistant_turn("The checkout rounding happens before the discount; moving the rounding after the discount."),
        assistant_turn("Checkout rounding fixed: rounding now after discount, all checkout tests pass."),
        user_turn("another problem: the standup moved to ten", day),
        assistant_turn("Noted."),
    ]
    common = _index(tmp_path / "common", monkeypatch, records, "the checkout and the rounding and another problem")
    assert not any("standup" in text for text in _shown(common, "checkout rounding problem")), "review57a F2"


def test_since_shows_the_best_passage_of_the_window_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The passages written since then come first, the best of them first (review57a F3)."""
    before, after = datetime(2026, 11, 20, 9, tzinfo=UTC), datetime(2026, 12, 3, 9, tzinfo=UTC)
    records = [
        user_turn("webhook webhook webhook: the webhook fails in prod", before),
        assistant_turn("Looking at the webhook handler."),
        user_turn("back on this: the webhook webhook now 400s", after),
        assistant_turn("The webhook handler returns 400 for the webhook retry."),
        user_turn("and the logs mention a signature too, among a lot of other lines about disks and memory", after),
    ]
    index = _index(tmp_path, monkeypatch, records, "the webhook and the signature and the checkout")
    shown = _shown(index, "webhook signature", Filters(since=datetime(2026, 12, 1, tzinfo=UTC)))
    assert shown[0] == "back on this: the webhook webhook now 400s", shown
