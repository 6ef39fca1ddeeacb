"""A cursor-agent chat with a transcript and a ``store.db`` dates its answers by the store (trial20 F2).

A transcript dates a message by the last ``<timestamp>`` block before it: every answer of a turn had the minute it
was asked, so ``deja show`` put the three answers of a 7-minute turn at 09:12 and ``deja how`` a failed and the
passing run at the same minute. The store dates each node; a chat read from its store alone showed those times.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

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

CHAT = "f2f20000-0000-4000-8000-0000000000f2"
ASKED = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=3)
QUESTION = "migrate the orders table"
#: The turn's answers, each with the Shell command it ran (None: none) and its minute after the question.
ANSWERS = [
    ("Running the migration", "alembic upgrade head", 3),
    ("Stamping the revision", "alembic stamp 7f3a2b", 5),
    ("The upgrade went through.", None, 7),
]
LATER = ("now run the tests", "The tests pass.")


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def _transcript(home: Path, project: Path, *, later: bool = False) -> Path:
    records: list[dict[str, Any]] = [user_turn(QUESTION, ASKED)]
    for text, command, _ in ANSWERS:
        records.append(assistant_turn(text, *([tool_use("Shell", {"command": command})] if command else [])))
    records.append(turn_ended())
    if later:
        records += [user_turn(LATER[0], ASKED + timedelta(minutes=30)), assistant_turn(LATER[1]), turn_ended()]
    return write_transcript(transcript_path(home / ".cursor", str(project), CHAT), records)


def _store(home: Path, project: Path, *, later: bool = False, updated: int = 9, asked: datetime = ASKED) -> None:
    """The chat's store: each answer a node with its own time; the second turn when ``later``; meta.json's
    ``updatedAtMs`` ``updated`` minutes after the question (later than the last answer: cursor-agent's own); the
    question's ``<timestamp>`` block ``asked``."""
    messages: list[dict[str, Any]] = [*store_preamble(str(project)), store_user_message(QUESTION, asked)]
    times: list[int | None] = [None] * len(messages)
    for n, (text, command, minute) in enumerate(ANSWERS):
        calls = [tool_call_part(f"c{n}", "Shell", {"command": command})] if command else []
        messages.append(store_assistant_message(text, *calls))
        times.append(_ms(ASKED + timedelta(minutes=minute)))
        if command:
            messages.append(tool_result_message(f"c{n}", "Shell", shell_result_text("done", 1 if n == 0 else 0)))
            times.append(None)
    if later:
        messages += [store_user_message(LATER[0], ASKED + timedelta(minutes=30)), store_assistant_message(LATER[1])]
        times += [None, _ms(ASKED + timedelta(minutes=34))]
    write_chat_store(
        chat_dir_for(home / ".cursor", str(project), CHAT),
        cwd=str(project),
        name="Orders migration",
        messages=messages,
        message_times=times,
        created_ms=_ms(ASKED),
        updated_ms=_ms(ASKED + timedelta(minutes=updated)),
    )


def _shown() -> dict[str, Any]:
    shown = run_deja("show", CHAT, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def _minutes(shown: dict[str, Any]) -> list[int]:
    """Each message's minute after the question."""
    return [
        round((datetime.fromisoformat(message["timestamp"]) - ASKED).total_seconds() / 60)
        for message in shown["messages"]
    ]


def _index(*args: str) -> None:
    ran = run_deja("index", *args)
    assert ran.returncode == 0, ran.stderr


def test_a_transcripts_answers_take_the_stores_times_and_the_chat_is_updated_at_the_last(fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    _transcript(fake_home, project)
    _store(fake_home, project)
    _index()
    shown = _shown()
    assert _minutes(shown) == [0, 3, 5, 7], shown
    when = ASKED.astimezone().strftime
    text = run_deja("show", CHAT).stdout
    assert f"── assistant ({(ASKED + timedelta(minutes=5)).astimezone():%Y-%m-%d %H:%M})" in text, text
    # updated: the last answer's time, as for a chat read from its store alone
    assert f"{when('%Y-%m-%d %H:%M')} → {(ASKED + timedelta(minutes=7)).astimezone():%Y-%m-%d %H:%M}" in text, text
    # the failed run and the one after it are at their own minutes
    how = run_deja("how", "alembic", "--json", cwd=project)
    assert how.returncode == 0, how.stderr
    runs = json.loads(how.stdout)["invocations"]
    assert len({run["timestamp"] for run in runs}) == 2, runs


def test_a_refresh_after_an_appended_turn_keeps_the_stores_times_as_a_full_read_gives_them(fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    transcript = _transcript(fake_home, project)
    _store(fake_home, project)
    _index()
    grown = _transcript(fake_home / "elsewhere", project, later=True)
    with transcript.open("ab") as out:
        out.write(grown.read_bytes()[len(transcript.read_bytes()) :])
    _store(fake_home, project, later=True, updated=35)
    _index()
    shown = _shown()
    assert _minutes(shown) == [0, 3, 5, 7, 30, 34], shown
    _index("--full")
    assert _shown() == shown


def test_a_question_keeps_its_own_timestamp_block_where_the_store_dates_it_otherwise(fake_home: Path) -> None:
    # the transcript's block is the question's own time; an answer's is only its question's, so the store's wins
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    _transcript(fake_home, project)
    _store(fake_home, project, asked=ASKED - timedelta(days=1))
    _index()
    assert _minutes(_shown()) == [0, 3, 5, 7]
