"""A cursor-agent transcript that stops inside the last turn, while the chat's ``store.db`` holds the whole turn
(trial14 F1): the session has the store's later tool calls, each once.

cursor-agent writes the transcript and the store apart; killed mid-turn, pruned or written by a build that lags,
the transcript may stop after the turn's first call. Both records join a step's calls to the answer before them,
so the transcript's last message is the start of the store's. Before, only the store's answers after that message
were added: ``deja show`` had the failed ``alembic upgrade head`` and the final answer, not the ``alembic stamp``
nor the rerun that succeeded, and ``deja fix`` said "no rerun of the failed command succeeded there", ``deja wip``
that the last command failed, ``deja how`` one failed run. A transcript ahead of its store (the store lags) keeps
the transcript's turn, and two records that agree give each call once.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness import failure_hook, run_deja

from deja.core.readers.cursor_agent import read_cli_chat
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

CHAT = "k5k50015-0000-4000-8000-000000000015"
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=5)
QUESTION = "migrate the orders table"
OPENING = "Running the migration"
ERROR = "sqlalchemy.exc.OperationalError: duplicate column name: currency_code"
ANSWER = "The column already existed; I stamped revision 7f3a2b and the upgrade went through."
#: The turn's Shell calls in the order they ran: (command, output, exit code).
RUNS = [
    ("alembic upgrade head", ERROR, 1),
    ("alembic stamp 7f3a2b", "stamped", 0),
    ("alembic upgrade head", "Running upgrade 7f3a2b -> 9c1d", 0),
]
#: A second turn, asked after the first.
LATER = ("now run the tests", "pytest -q", "12 passed", "The tests pass.")


def _project(home: Path) -> Path:
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    return project


def _transcript(home: Path, project: Path, records: list[dict[str, Any]]) -> Path:
    return write_transcript(transcript_path(home / ".cursor", str(project), CHAT), records)


def _transcript_turn(calls: int, *, text: bool = True, ended: bool = True) -> list[dict[str, Any]]:
    """The first turn as the transcript records it up to its ``calls``-th call (the answer too when ``ended``);
    with ``text`` False the opening sentence is not written yet either."""
    shell = [tool_use("Shell", {"command": command}) for command, _, _ in RUNS[:calls]]
    records = [user_turn(QUESTION, T0)]
    if text:
        records.append(assistant_turn(OPENING, *shell[:1]))
    records += [assistant_turn(None, call) for call in shell[1:]]
    return records + ([assistant_turn(ANSWER), turn_ended()] if ended else [])


def _later_turn() -> list[dict[str, Any]]:
    question, command, _, answer = LATER
    return [
        user_turn(question, T0 + timedelta(hours=1)),
        assistant_turn(None, tool_use("Shell", {"command": command})),
        assistant_turn(answer),
        turn_ended(),
    ]


def _store(
    home: Path,
    project: Path,
    calls: int | None = None,
    *,
    answered: bool = True,
    later: bool = False,
    runs: list[tuple[str, str, int]] = RUNS,
    said: tuple[str | None, ...] = (OPENING,),
) -> None:
    """The chat's store: the first turn up to its ``calls``-th call of ``runs`` (all by default) and result, each
    call after the text ``said`` before it (None: joined to the message before; past ``said``'s end, all are), its
    answer when ``answered``, and the second turn when ``later``."""
    messages = [*store_preamble(str(project)), store_user_message(QUESTION, T0)]
    for n, (command, output, code) in enumerate(runs[:calls]):
        opening = said[n] if n < len(said) else None
        messages.append(store_assistant_message(opening, tool_call_part(f"c{n}", "Shell", {"command": command})))
        messages.append(tool_result_message(f"c{n}", "Shell", shell_result_text(output, code)))
    if answered:
        messages.append(store_assistant_message(ANSWER))
    if later:
        question, command, output, answer = LATER
        messages += [
            store_user_message(question, T0 + timedelta(hours=1)),
            store_assistant_message(None, tool_call_part("d0", "Shell", {"command": command})),
            tool_result_message("d0", "Shell", shell_result_text(output)),
            store_assistant_message(answer),
        ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), CHAT), cwd=str(project), name="Orders migration", messages=messages)  # fmt: skip


def _index(*args: str) -> None:
    ran = run_deja("index", *args)
    assert ran.returncode == 0, ran.stderr


def _shown() -> list[dict[str, Any]]:
    shown = run_deja("show", CHAT, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["messages"]


def _calls(messages: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    """Each Shell call shown, in order, with its exit code."""
    return [
        (call["args"]["command"], call.get("exit_code"))
        for message in messages
        for call in message.get("tool_calls", [])
    ]


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    return [message["text"] for message in messages if message["text"]]


WHOLE_TURN = [(command, code) for command, _, code in RUNS]


def _assert_whole_turn(project: Path, said: tuple[str, ...] = (OPENING,)) -> None:
    """What a user sees of the whole first turn (its texts ``said`` between the question and the answer): every
    call once, the answer last; fix, wip and how agree."""
    shown = _shown()
    assert _calls(shown) == WHOLE_TURN, shown
    assert _texts(shown) == [QUESTION, *said, ANSWER], shown
    fixed = run_deja("fix", ERROR)
    assert fixed.returncode == 0, fixed.stderr
    assert "fixed by: alembic stamp 7f3a2b, then alembic upgrade head" in fixed.stdout, fixed.stdout
    (found,) = json.loads(run_deja("fix", ERROR, "--json").stdout)["occurrences"]
    assert [step["command"] for step in found["steps"]] == ["alembic stamp 7f3a2b", "alembic upgrade head"], found
    wip = run_deja("wip", cwd=project)
    assert wip.returncode == 0, wip.stderr
    assert "last command: alembic upgrade head (succeeded)" in wip.stdout, wip.stdout
    how = run_deja("how", "alembic upgrade head", "--json", cwd=project)
    assert how.returncode == 0, how.stderr
    assert [run["exit_code"] for run in json.loads(how.stdout)["invocations"]] == [0, 1], how.stdout


def test_a_transcript_stopped_after_the_first_call_gets_the_stores_later_calls(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(1, ended=False))
    _store(fake_home, project)
    _index()
    _assert_whole_turn(project)
    said = failure_hook(project, "alembic upgrade head", ERROR)  # what the agent is told when it fails so again
    assert "`alembic stamp 7f3a2b`, then `alembic upgrade head` succeeded" in said, said


def test_a_transcript_stopped_after_the_answers_opening_gets_all_its_calls(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(0, ended=False))
    _store(fake_home, project)
    _index()
    _assert_whole_turn(project)


def test_a_transcript_stopped_after_two_calls_gets_the_third_once(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(2, ended=False))
    _store(fake_home, project)
    _index()
    _assert_whole_turn(project)


def test_a_transcript_and_store_that_agree_give_each_call_once(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(len(RUNS)))
    _store(fake_home, project)
    _index()
    _assert_whole_turn(project)


def test_a_transcript_ahead_of_its_store_keeps_its_own_turn(fake_home: Path) -> None:
    # the store lags: it holds the first call and its result, the transcript the whole turn
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(len(RUNS)))
    _store(fake_home, project, 1, answered=False)
    _index()
    shown = _shown()
    assert _calls(shown) == [(command, code if n == 0 else None) for n, (command, code) in enumerate(WHOLE_TURN)]
    assert _texts(shown) == [QUESTION, OPENING, ANSWER], shown


def test_a_transcript_a_whole_turn_behind_gets_that_turns_calls_once(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(len(RUNS)))
    _store(fake_home, project, later=True)
    _index()
    shown = _shown()
    assert _calls(shown) == [*WHOLE_TURN, (LATER[1], 0)], shown
    assert _texts(shown) == [QUESTION, OPENING, ANSWER, LATER[0], LATER[3]], shown


def test_a_refresh_after_the_lagging_transcript_caught_up_gives_each_call_once(fake_home: Path) -> None:
    project = _project(fake_home)
    transcript = _transcript(fake_home, project, _transcript_turn(1, ended=False))
    _store(fake_home, project)
    _index()
    assert _calls(_shown()) == WHOLE_TURN
    # cursor-agent writes the rest of the turn and a new one to the transcript (appended), and the new turn's store
    caught_up = _transcript(fake_home / "elsewhere", project, _transcript_turn(len(RUNS)) + _later_turn())
    with transcript.open("ab") as out:
        out.write(caught_up.read_bytes()[len(transcript.read_bytes()) :])
    _store(fake_home, project, later=True)
    _index()
    shown = _shown()
    assert _calls(shown) == [*WHOLE_TURN, (LATER[1], 0)], shown
    assert _texts(shown) == [QUESTION, OPENING, ANSWER, LATER[0], LATER[3]], shown
    _index("--full")
    assert _shown() == shown


def test_only_a_read_the_store_added_to_is_read_whole_next_time(fake_home: Path) -> None:
    # the cost of a refresh: a transcript read with the store's later calls is no longer the transcript up to its
    # end, so the next refresh reads it whole; once it caught up, the next turn is read by the transcript's tail
    project = _project(fake_home)
    transcript = _transcript(fake_home, project, _transcript_turn(1, ended=False))
    _store(fake_home, project)
    chat_dir = chat_dir_for(fake_home / ".cursor", str(project), CHAT)
    lagging = read_cli_chat(transcript, chat_dir)
    assert lagging.session is not None and lagging.end == 0
    _transcript(fake_home, project, _transcript_turn(len(RUNS)))
    caught_up = read_cli_chat(transcript, chat_dir)
    assert caught_up.session is not None and caught_up.end == transcript.stat().st_size
    assert caught_up.session.messages == lagging.session.messages


# The agent says a sentence again within the turn (review24 R24-1, R24-2): the transcript's answers are the start of
# the store's turn, so each pairs with the first copy after the one before it, not with the last copy of its text.
STAMPING = "Stamping the revision"
#: "Running the migration" before the first run and again before the rerun.
SAID_AGAIN = (OPENING, STAMPING, OPENING)


def test_a_lagging_transcript_gets_the_fix_and_the_rerun_when_the_rerun_repeats_the_opening(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(1, ended=False))
    _store(fake_home, project, said=SAID_AGAIN)
    _index()
    _assert_whole_turn(project, SAID_AGAIN)


def test_a_call_after_the_repeated_opening_stays_after_the_rerun(fake_home: Path) -> None:
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(1, ended=False))
    _store(fake_home, project, runs=[*RUNS, ("alembic current", "9c1d (head)", 0)], said=SAID_AGAIN)
    _index()
    shown = _shown()
    assert _calls(shown) == [*WHOLE_TURN, ("alembic current", 0)], shown
    assert [_calls([message]) for message in shown if message["role"] == "assistant"] == [
        WHOLE_TURN[:1],
        WHOLE_TURN[1:2],
        [WHOLE_TURN[2], ("alembic current", 0)],
        [],
    ], shown
    fixed = run_deja("fix", ERROR)
    assert "fixed by: alembic stamp 7f3a2b, then alembic upgrade head" in fixed.stdout, fixed.stdout
    assert "last command: alembic current (succeeded)" in run_deja("wip", cwd=project).stdout


def test_a_first_message_gone_on_is_grown_from_its_own_copy_not_the_repeated_one(fake_home: Path) -> None:
    # the store's first "Running the migration" ran a second call the transcript stopped before
    project = _project(fake_home)
    _transcript(fake_home, project, _transcript_turn(1, ended=False))
    history = ("alembic history", "7f3a2b -> 9c1d", 0)
    _store(fake_home, project, runs=[RUNS[0], history, *RUNS[1:]], said=(OPENING, None, STAMPING, OPENING))
    _index()
    shown = _shown()
    assert _calls(shown) == [WHOLE_TURN[0], history[::2], *WHOLE_TURN[1:]], shown
    assert _texts(shown) == [QUESTION, *SAID_AGAIN, ANSWER], shown
    fixed = run_deja("fix", ERROR)
    assert "fixed by: alembic history, then alembic stamp 7f3a2b, then alembic upgrade head" in fixed.stdout
    assert "last command: alembic upgrade head (succeeded)" in run_deja("wip", cwd=project).stdout


def test_a_transcript_ahead_whose_last_message_repeats_an_earlier_one_is_kept_as_it_is(fake_home: Path) -> None:
    # the transcript ran the tests, fixed an import, and is running them again; the store holds the first run only
    project = _project(fake_home)
    testing = "Running the tests"
    _transcript(
        fake_home,
        project,
        [
            user_turn(QUESTION, T0),
            assistant_turn(testing, tool_use("Shell", {"command": "pytest -q"})),
            assistant_turn(None, tool_use("Shell", {"command": "ruff check"})),
            assistant_turn("Fixing the import", tool_use("Shell", {"command": "sed -i s/orders/order/ app.py"})),
            assistant_turn(testing, tool_use("Shell", {"command": "pytest -q"})),
        ],
    )
    runs = [("pytest -q", "1 failed", 1), ("ruff check", "All checks passed!", 0)]
    _store(fake_home, project, answered=False, runs=runs, said=(testing,))
    _index()
    shown = _shown()
    assert _calls(shown) == [
        ("pytest -q", 1),
        ("ruff check", 0),
        ("sed -i s/orders/order/ app.py", None),
        ("pytest -q", None),
    ]
    assert _texts(shown) == [QUESTION, testing, "Fixing the import", testing], shown
    wip = run_deja("wip", cwd=project).stdout
    assert "last command: pytest -q" in wip and "ruff check" not in wip, wip
