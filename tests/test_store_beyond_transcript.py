"""A chat whose ``store.db`` holds turns its transcript lacks is read whole (trialM F4).

The store is a full source (cursor-drift-2026 §10): a chat begun where both are written and continued where only
the store is (a remote run, a build that writes no transcript), or whose transcript was pruned or lags, has turns
only its store holds. Before, such a chat was its transcript alone: ``deja search`` missed the later turns, ``show``
listed half the chat and ``wip`` called an earlier answer its conclusion.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)

CHAT = "c-yak"
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=5)
TURNS = [
    ("first: the yak shaver crashes", "The yak shaver needs a lock."),
    ("second: now the wildebeest migration deadlocks", "Moved the wildebeest lock out of the loop."),
    ("third: does the okapi import still run", "The okapi import runs again."),
]


def _transcript(home: Path, project: Path, turns: int) -> Path:
    records = []
    for at, (question, answer) in enumerate(TURNS[:turns]):
        records += [user_turn(question, T0 + timedelta(hours=at)), assistant_turn(answer), turn_ended()]
    return write_transcript(transcript_path(home / ".cursor", str(project), CHAT), records)


def _append_second_turn(home: Path, project: Path, transcript: Path) -> None:
    """The transcript of one turn grows by a second, appended as cursor-agent appends (a refresh reads the tail)."""
    grown = _transcript(home / "elsewhere", project, 2).read_bytes()
    with transcript.open("ab") as out:
        out.write(grown[len(transcript.read_bytes()) :])


def _store(home: Path, project: Path, turns: int) -> None:
    messages = store_preamble(str(project))
    for at, (question, answer) in enumerate(TURNS[:turns]):
        messages += [store_user_message(question, T0 + timedelta(hours=at)), store_assistant_message(answer)]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), CHAT), cwd=str(project), name="Yak shaver", messages=messages)  # fmt: skip


def _project(home: Path) -> Path:
    project = home / "code" / "zoo"
    project.mkdir(parents=True)
    return project


def _shown(chat: str = CHAT) -> list[str]:
    shown = run_deja("show", chat, "--json")
    assert shown.returncode == 0, shown.stderr
    return [message["text"] for message in json.loads(shown.stdout)["messages"]]


def _asked_and_answered(turns: int) -> list[str]:
    return [text for turn in TURNS[:turns] for text in turn]


def test_the_turns_only_the_store_holds_are_searched_shown_and_concluded(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, 1)
    _store(fake_home, project, 2)
    assert run_deja("index").returncode == 0
    found = run_deja("search", "wildebeest", "--json")
    assert [hit["session_id"] for hit in json.loads(found.stdout)["hits"]] == [CHAT], found.stdout
    assert _shown() == _asked_and_answered(2)
    wip = run_deja("wip", cwd=project)
    assert wip.returncode == 0, wip.stderr
    assert "Moved the wildebeest lock out of the loop." in wip.stdout, wip.stdout


def test_an_answer_only_the_store_holds_ends_its_turn(fake_home: Path) -> None:
    project = _project(fake_home)
    write_transcript(
        transcript_path(fake_home / ".cursor", str(project), CHAT), [user_turn(TURNS[0][0], T0), turn_ended()]
    )
    _store(fake_home, project, 1)
    assert run_deja("index").returncode == 0
    assert _shown() == _asked_and_answered(1)


def test_a_store_holding_more_questions_is_taken_whole_in_its_order(fake_home: Path) -> None:
    project = _project(fake_home)
    # the transcript kept only the last turn (pruned, or rewritten by a build that lost the start)
    path = transcript_path(fake_home / ".cursor", str(project), CHAT)
    write_transcript(path, [user_turn(TURNS[2][0], T0 + timedelta(hours=2)), assistant_turn(TURNS[2][1]), turn_ended()])
    _store(fake_home, project, 3)
    assert run_deja("index").returncode == 0
    assert _shown() == _asked_and_answered(3)


def test_a_refresh_after_the_transcript_grew_reads_as_a_full_build_does(fake_home: Path) -> None:
    project = _project(fake_home)
    transcript = _transcript(fake_home, project, 1)
    _store(fake_home, project, 2)
    assert run_deja("index").returncode == 0
    assert _shown() == _asked_and_answered(2)
    # the transcript catches up by appending (read by its tail), and the store goes one turn further
    _append_second_turn(fake_home, project, transcript)
    _store(fake_home, project, 3)
    assert run_deja("index").returncode == 0
    assert _shown() == _asked_and_answered(3)
    assert run_deja("index", "--full").returncode == 0
    assert _shown() == _asked_and_answered(3)


def test_a_refresh_reading_a_grown_transcript_by_its_tail_still_adds_the_stores_turns(fake_home: Path) -> None:
    project = _project(fake_home)
    transcript = _transcript(fake_home, project, 1)
    _store(fake_home, project, 1)
    assert run_deja("index").returncode == 0
    _append_second_turn(fake_home, project, transcript)
    _store(fake_home, project, 3)
    assert run_deja("index").returncode == 0
    assert _shown() == _asked_and_answered(3)


def test_a_transcript_stopped_after_the_first_of_two_calls_gets_the_stores_conclusion(fake_home: Path) -> None:
    # review8b F-B: both records merge the step's two textless calls into one message, the transcript's holding one
    project = _project(fake_home)
    question, status, log = TURNS[0][0], {"command": "git status"}, {"command": "git log -1"}
    write_transcript(
        transcript_path(fake_home / ".cursor", str(project), CHAT),
        [user_turn(question, T0), assistant_turn(None, tool_use("Shell", status))],
    )
    messages = store_preamble(str(project)) + [
        store_user_message(question, T0),
        store_assistant_message(None, tool_call_part("t1", "Shell", status)),
        tool_result_message("t1", "Shell", shell_result_text("clean")),
        store_assistant_message(None, tool_call_part("t2", "Shell", log)),
        tool_result_message("t2", "Shell", shell_result_text("abc123 the okapi commit")),
        store_assistant_message("The tree is clean; the flamingo commit is last."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), CHAT), cwd=str(project), name="Yak shaver", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    shown = json.loads(run_deja("show", CHAT, "--json").stdout)["messages"]
    calls = [call["args"]["command"] for message in shown for call in message.get("tool_calls", [])]
    assert calls == ["git status", "git log -1"], shown
    assert shown[-1]["text"] == "The tree is clean; the flamingo commit is last.", shown
    wip = run_deja("wip", cwd=project)
    assert "flamingo commit is last" in wip.stdout, wip.stdout
