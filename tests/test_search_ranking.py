"""Ranking as a user meets it: what a query's pieces may match on their own, and which session comes first."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import index_chats, run_deja

from deja.core.search import search
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

NAMED = "00000000-0000-4000-8000-0000000000a1"
NUMBERED = "00000000-0000-4000-8000-0000000000a2"
PORTED = "00000000-0000-4000-8000-0000000000a3"


NUMBERED_CHAT = ["Step 2 of the release: tag v2 and push it.", "Done, 2 tags pushed for release 2."]


def test_a_digit_split_off_an_identifier_does_not_match_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = index_chats(tmp_path, monkeypatch, {NUMBERED: NUMBERED_CHAT})
    assert search(index, "hunter2").hits == []
    assert search(index, "zzzqqq2").hits == []
    done = run_deja("search", "hunter2")
    assert done.returncode == 0 and NUMBERED not in done.stdout


def test_an_identifier_with_a_digit_still_finds_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chats = {
        NUMBERED: NUMBERED_CHAT,
        NAMED: ["The demo account's login word is hunter2, change it.", "Changed hunter2 to a generated one."],
        PORTED: ["Postgres listens on localhost:6543 here.", "Pointed the app at it."],
    }
    index = index_chats(tmp_path, monkeypatch, chats)
    assert [hit.session_id for hit in search(index, "hunter2").hits] == [NAMED]
    # A number typed on its own still finds it inside an identifier.
    assert [hit.session_id for hit in search(index, "6543").hits] == [PORTED]


def test_the_letters_split_off_a_hash_do_not_match_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``a3f9c21e`` (a commit hash no chat holds) finds nothing, not the chat of CSS colours by its ``a``, ``f``,
    ``c``, ``e``; the chat that holds it is found, and a word with a number (``cafe2bad``) keeps its word."""
    colours = ["make the button colours darker", "Set --primary: #a0c0e0 and --accent: #f0e0c0 with b-2 and c-4."]
    chats = {NAMED: colours, PORTED: ["Reverted a3f9c21e, the cafe menu commit.", "Pushed the revert."]}
    index = index_chats(tmp_path, monkeypatch, chats)
    assert [hit.session_id for hit in search(index, "a3f9c21e").hits] == [PORTED]
    assert [hit.session_id for hit in search(index, "3f9a2c1b").hits] == []
    assert [hit.session_id for hit in search(index, "cafe2bad").hits] == [PORTED]


def _titled_chat(cli: Path, chat_id: str, name: str, question: str) -> None:
    cwd = "/work/shop"
    write_transcript(transcript_path(cli, cwd, chat_id), [user_turn(question), assistant_turn("Fixed the redirect.")])
    store = [{"role": "user", "content": [{"type": "text", "text": question}]}]
    write_chat_store(chat_dir_for(cli, cwd, chat_id), cwd=cwd, messages=store, name=name)


def test_a_title_that_repeats_the_first_question_in_another_case_is_not_indexed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cursor names a chat after its first question, often in another case: counted twice, its words would
    outweigh a session that answers the query better."""
    cli = tmp_path / "cli"
    _titled_chat(cli, NAMED, "fix the login page", "Fix the login page: it loops back to itself.")
    _titled_chat(cli, NUMBERED, "Login redirect loop", "Fix the login page: it loops back to itself.")
    index = index_chats(tmp_path, monkeypatch, {})
    docs = {meta.id: (meta.n_docs, meta.messages) for _, _, meta in index.sessions()}
    assert docs[NAMED] == (2, 2)  # its two messages, no title doc
    assert docs[NUMBERED] == (3, 2)  # a title of its own words is searchable


TURN = "00000000-0000-4000-8000-0000000000b1"
APART = "00000000-0000-4000-8000-0000000000b2"
Said = tuple[str, str, tuple[str, str] | None]  # role, text, (command, what it printed) or none


def _coding_chat(cli: Path, chat_id: str, said: list[Said]) -> None:
    """A cursor-agent chat whose assistant turns may run one Shell command (the transcript and its store.db)."""
    cwd = "/work/shop"
    records, store = [], []
    for n, (role, text, shell) in enumerate(said):
        if role == "user":
            records.append(user_turn(text))
            store.append({"role": "user", "content": [{"type": "text", "text": text}]})
            continue
        calls = [tool_use("Shell", {"command": shell[0]})] if shell else []
        records.append(assistant_turn(text, *calls))
        store.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        if shell:
            store.append({"role": "assistant", "content": [tool_call_part(f"t{n}", "Shell", {"command": shell[0]})]})
            store.append(tool_result_message(f"t{n}", "Shell", shell_result_text(shell[1], 0)))
    write_transcript(transcript_path(cli, cwd, chat_id), records)
    write_chat_store(chat_dir_for(cli, cwd, chat_id), cwd=cwd, messages=store, stale_root=False)


def test_a_message_and_what_its_command_printed_count_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The turn that says one word and prints the other outranks a session saying and printing them apart."""
    cli = tmp_path / "cli"
    ask: Said = ("user", "The nightly job stopped again.", None)
    filler: list[Said] = [("user", "Carry on.", None), ("assistant", "Carrying on with the report.", None)]
    printed = ("psql -c 'select 1'", "ledger_entries locked")
    said = "Looks like a deadlock."
    _coding_chat(cli, TURN, [ask, ("assistant", said, printed), *filler])
    _coding_chat(cli, APART, [ask, ("assistant", said, None), *filler, ("assistant", "Checking the table.", printed)])
    index = index_chats(tmp_path, monkeypatch, {})
    assert [hit.session_id for hit in search(index, "deadlock ledger_entries").hits] == [TURN, APART]
