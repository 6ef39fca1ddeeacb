"""What followed a past error ends where its chat was resumed after a gap (trial48 F1, F2).

A chat hit a ``psql`` auth error and nothing fixed it; a week later it was resumed for a migration, and a week after
that for a flaky webhook test. The failure hook called the flaky test's answer the psql error's "Concluded:" and
dated the error by the chat's last update; ``deja fix`` listed the ``alembic`` and ``pytest`` runs, and the edit of
``env.py``, as what followed the psql error. A question asked hours after the message before it resumes the chat
(as ``wip`` and the session-start block read a resume): what followed an error, and the ending said of it, stop
there. A rerun that succeeded in the error's own turn, or in a follow-up asked minutes later, still reads as its fix
and its answer as its conclusion. Each kind of chat deja reads is built by its writer: a cursor-agent transcript, a
chat store and an editor chat.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness import failure_hook, run_deja, store_shell

from deja.core.failures import EPISODE_DOCS, episode_end, past_failures
from deja.core.index import Index
from deja.core.index.format import Codec
from deja.core.index.light import LIGHT
from deja.core.paths import deja_home
from deja.core.writers import ide
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)

NOW = datetime.now(UTC).replace(second=0, microsecond=0)
AUTH = 'psql: error: connection to server at "db" failed: FATAL:  password authentication failed for user "admin"'
PSQL = "psql -h db -U admin -c 'select 1'"
RESET = "The password in DATABASE_URL does not match the db's; reset it with ALTER USER."
MIGRATED = "Fixed: env.py had target_metadata = None."
FLAKY = "It passed when run again with nothing changed; the signature check uses the wall clock."


def _day(when: datetime) -> str:
    """The date the hook writes for ``when`` (local time)."""
    return time.strftime("%Y-%m-%d", time.localtime(when.timestamp()))


def _resumed_transcript(home: Path) -> Path:
    """The trial's chat as cursor-agent writes its transcript: the psql error 16 days ago, answered and never fixed,
    then a migration fixed 9 days ago (with an edit of env.py) and a flaky test 2 days ago."""
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    env = str(project / "migrations" / "env.py")
    records = [
        user_turn("psql can't log in", NOW - timedelta(days=16)),
        assistant_turn(None, tool_use("Shell", {"command": PSQL})),
        assistant_turn(RESET),
        turn_ended(),
        user_turn("now the migration fails", NOW - timedelta(days=9)),
        assistant_turn(None, tool_use("Shell", {"command": "alembic upgrade head"})),
        assistant_turn(None, tool_use("Write", {"path": env, "contents": "target_metadata = Base.metadata"})),
        assistant_turn(None, tool_use("Shell", {"command": "alembic upgrade head"})),
        assistant_turn(MIGRATED),
        turn_ended(),
        user_turn("the webhook test is flaky", NOW - timedelta(days=2)),
        assistant_turn(None, tool_use("Shell", {"command": "pytest tests/test_webhook.py -q"})),
        assistant_turn(FLAKY),
        turn_ended(),
    ]
    write_transcript(transcript_path(home / ".cursor", str(project), "f48a0000-0000-4000-8000-000000000001"), records)
    # (a transcript holds no tool results: the chat's store does, each call's output and exit code)
    calls = [
        (PSQL, AUTH, 2),
        ("alembic upgrade head", 'sqlalchemy.exc.ProgrammingError: relation "orders" does not exist', 1),
        ("alembic upgrade head", "INFO  [alembic.runtime.migration] Running upgrade", 0),
        ("pytest tests/test_webhook.py -q", "2 passed", 0),
    ]
    store = [
        *store_preamble(str(project)),
        store_user_message("psql can't log in", NOW - timedelta(days=16)),
        *store_shell("t1", *calls[0]),
        store_assistant_message(RESET),
        store_user_message("now the migration fails", NOW - timedelta(days=9)),
        *store_shell("t2", *calls[1]),
        store_assistant_message(None, tool_call_part("t3", "Write", {"path": env, "contents": "x"})),
        *store_shell("t4", *calls[2]),
        store_assistant_message(MIGRATED),
        store_user_message("the webhook test is flaky", NOW - timedelta(days=2)),
        *store_shell("t5", *calls[3]),
        store_assistant_message(FLAKY),
    ]
    write_chat_store(
        chat_dir_for(home / ".cursor", str(project), "f48a0000-0000-4000-8000-000000000001"),
        cwd=str(project),
        name="psql login",
        messages=store,
    )
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    return project


def test_the_failure_hook_gives_no_later_days_answer_as_the_errors_conclusion_and_dates_the_error(
    fake_home: Path,
) -> None:
    said = failure_hook(_resumed_transcript(fake_home), "psql -h db -U admin", AUTH)
    assert f"(shop, {_day(NOW - timedelta(days=16))}, 2 weeks ago, `deja show f48a0000" in said, said
    assert f"No rerun of the failed command succeeded there; the next answer: {RESET}" in said, said
    assert "Concluded" not in said and "wall clock" not in said and "The session" not in said, said


def test_deja_fix_lists_nothing_done_after_the_chat_was_resumed(fake_home: Path) -> None:
    _resumed_transcript(fake_home)
    fix = run_deja("fix", 'FATAL:  password authentication failed for user "admin"')
    assert fix.returncode == 0, fix.stderr
    assert f"  no rerun of the failed command succeeded there; the next answer: {RESET}" in fix.stdout, fix.stdout
    assert "alembic" not in fix.stdout and "pytest" not in fix.stdout and "env.py" not in fix.stdout, fix.stdout
    # the migration's own error, asked of, still has its fix: the chat's resume is where its episode begins
    migration = run_deja("fix", 'relation "orders" does not exist')
    assert "  fixed by: edited migrations/env.py, then alembic upgrade head" in migration.stdout, migration.stdout
    assert "pytest" not in migration.stdout, migration.stdout


TIMEOUT = "Error: connect ETIMEDOUT 10.0.0.7:6379"
CACHE = "Redis was on the old VPC address; REDIS_URL points at the new one and the worker starts."
LATER = "The CSV export streams rows now instead of building the whole file."


def _store_chat(home: Path, follow_up: timedelta, resumed: timedelta | None) -> Path:
    """A chat store: the worker fails to reach Redis, REDIS_URL is changed and the worker started in a follow-up asked
    ``follow_up`` after the failure; then, when ``resumed`` is given, the chat resumed that long after for an export
    that ends on a failed command."""
    project = home / "code" / "jobs"
    project.mkdir(parents=True)
    began = NOW - timedelta(days=10)
    env = tool_call_part("e1", "StrReplace", {"path": str(project / ".env"), "old": "a", "new": "b"})
    messages = [
        *store_preamble(str(project)),
        store_user_message("the worker cannot reach redis", began),
        *store_shell("t1", "npm run worker", TIMEOUT, 1, text="Starting the worker."),
        store_assistant_message("Which Redis does staging use now?"),
        store_user_message("the one in the new VPC", began + follow_up),
        store_assistant_message(None, env),
        *store_shell("t2", "npm run worker", "worker listening on queue jobs", 0),
        store_assistant_message(CACHE),
    ]
    if resumed is not None:
        messages += [
            store_user_message("the CSV export runs out of memory", began + resumed),
            store_assistant_message(LATER),
            *store_shell("t3", "npm run export -- --all", "FATAL ERROR: Reached heap limit", 134),
        ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), "f48b-redis"), cwd=str(project), name="redis", messages=messages)  # fmt: skip
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    return project


def test_a_follow_up_asked_minutes_later_is_the_same_episode_and_its_answer_the_conclusion(fake_home: Path) -> None:
    said = failure_hook(_store_chat(fake_home, timedelta(minutes=40), None), "npm run worker", TIMEOUT)
    assert "What followed: edited .env, then `npm run worker` succeeded" in said, said
    assert f"Concluded: {CACHE}" in said, said
    fix = run_deja("fix", "connect ETIMEDOUT")
    assert "  fixed by: edited .env, then npm run worker" in fix.stdout, fix.stdout


def test_a_chat_resumed_days_later_keeps_the_fix_but_not_the_later_ending(fake_home: Path) -> None:
    project = _store_chat(fake_home, timedelta(minutes=40), timedelta(days=6))
    said = failure_hook(project, "npm run worker", TIMEOUT)
    assert "What followed: edited .env, then `npm run worker` succeeded" in said, said
    # the session stopped on the export's failure, six days after: no ending of the worker's episode
    assert "Concluded" not in said and "The session stopped" not in said and "heap limit" not in said, said
    fix = run_deja("fix", "connect ETIMEDOUT")
    assert "export" not in fix.stdout, fix.stdout


def test_an_answer_to_the_agents_question_the_next_morning_keeps_the_fix(fake_home: Path) -> None:
    """ "Which Redis does staging use now?" answered 20 hours later goes on with the same problem: the edit and the
    worker started then are the error's fix (review48e M2); the chat resumed days later for an export still ends
    the episode, and the session's stop on the export's failure is not the error's."""
    project = _store_chat(fake_home, timedelta(hours=20), timedelta(days=6))
    said = failure_hook(project, "npm run worker", TIMEOUT)
    assert "What followed: edited .env, then `npm run worker` succeeded" in said, said
    assert "Concluded" not in said and "The session stopped" not in said and "heap limit" not in said, said
    fix = run_deja("fix", "connect ETIMEDOUT")
    assert "  fixed by: edited .env, then npm run worker" in fix.stdout, fix.stdout
    assert "export" not in fix.stdout, fix.stdout


def _next_day_chat(home: Path, question: str, command: str, output: str, code: int) -> Path:
    """A chat store: the worker fails to reach Redis and the agent answers without asking; 20 hours later
    ``question`` is asked and ``command`` run, printing ``output`` with exit ``code``."""
    project = home / "code" / "jobs"
    project.mkdir(parents=True)
    began = NOW - timedelta(days=10)
    messages = [
        *store_preamble(str(project)),
        store_user_message("the worker cannot reach redis", began),
        *store_shell("t1", "npm run worker", TIMEOUT, 1, text="Starting the worker."),
        store_assistant_message("Redis did not answer on 10.0.0.7."),
        store_user_message(question, began + timedelta(hours=20)),
        *store_shell("t2", command, output, code),
        store_assistant_message(LATER),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), "f48b-next"), cwd=str(project), name="r", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def test_the_failed_command_passing_the_next_morning_keeps_the_fix(fake_home: Path) -> None:
    """The next morning the same command is run and passes before anything fails: the work went on with the same
    error, and that run is its fix (review48e M2)."""
    project = _next_day_chat(fake_home, "the vpn is up now", "npm run worker", "worker listening on queue jobs", 0)
    said = failure_hook(project, "npm run worker", TIMEOUT)
    assert "`npm run worker` succeeded" in said and "No rerun" not in said, said


def test_a_question_asked_the_next_day_for_another_problem_ends_what_followed(fake_home: Path) -> None:
    """Six hours or more after an answer that asks nothing, a question that leads to another command failing
    resumes the chat: what it leads to is another day's work, as ``wip`` reads it."""
    ran = ("npm run export -- --all", "FATAL ERROR: Reached heap limit", 134)
    project = _next_day_chat(fake_home, "the CSV export runs out of memory", *ran)
    said = failure_hook(project, "npm run worker", TIMEOUT)
    assert "No rerun of the failed command succeeded there; the next answer: Redis did not answer" in said, said
    assert "Concluded" not in said and "What followed" not in said and "heap limit" not in said, said


def test_the_episode_scan_decodes_as_many_messages_in_a_long_chat_as_in_a_short_one(fake_home: Path) -> None:
    """A working chat of hundreds of questions minutes apart, over more than a day with no gap: the episode is read
    up to ``EPISODE_DOCS`` messages past the failure, so a hook's cost does not grow with the chat (review48e M1)."""
    decoded: list[bytes] = []

    def message(data: bytes) -> Any:
        decoded.append(data)
        return LIGHT.message(data)

    counts = []
    for questions in (60, 600):
        project = fake_home / "code" / "jobs"
        project.mkdir(parents=True, exist_ok=True)
        began = NOW - timedelta(days=10)
        messages = [
            *store_preamble(str(project)),
            store_user_message("the worker cannot reach redis", began),
            *store_shell("t1", "npm run worker", TIMEOUT, 1, text="Starting the worker."),
            store_assistant_message("Redis did not answer on 10.0.0.7."),
        ]
        for n in range(questions):
            messages += [
                store_user_message(f"question {n}", began + timedelta(minutes=5 * (n + 1))),
                store_assistant_message(f"answer {n}"),
            ]
        write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "f48b-long"), cwd=str(project), name="l", messages=messages)  # fmt: skip
        assert run_deja("index").returncode == 0
        index = Index.open(deja_home(), Codec(LIGHT.manifest, LIGHT.session, message, LIGHT.damage))
        [(_, [(segment, [doc])])] = past_failures(index, TIMEOUT, 5)
        meta = segment.session(segment.doc(doc).ordinal)
        decoded.clear()
        ended = episode_end(segment, doc, meta.first_doc + meta.messages)
        assert ended == doc + EPISODE_DOCS < meta.first_doc + meta.messages
        counts.append(len(decoded))
    assert counts[0] == counts[1] <= EPISODE_DOCS, counts


LINT = "src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'."


def _editor_chat(home: Path) -> Path:
    """An editor chat (bubbles with their own times): ``tsc`` fails and the answer explains it; a week later the
    chat is resumed for the Docker image, whose build is run and passes."""
    project = home / "code" / "web"
    project.mkdir(parents=True)
    user = home / ".config" / "Cursor" / "User"
    began = NOW - timedelta(days=8)

    def bubble(kind: int, at: datetime, text: str = "", command: str = "", output: str = "", code: int = 0) -> dict:
        data: dict = {"type": kind, "text": text, "createdAt": at.isoformat()}
        if command:
            result = {"output": output, "exitCode": code}
            data["toolFormerData"] = ide.tool_former_data("run_terminal_cmd", {"command": command}, result)
        return data

    later = began + timedelta(days=7)
    bubbles = {
        "u1": bubble(1, began, "tsc fails on app.ts"),
        "t1": bubble(2, began + timedelta(minutes=1), command="npx tsc --noEmit", output=LINT, code=2),
        "a1": bubble(2, began + timedelta(minutes=2), "The port is read from the env as a string; parse it."),
        "u2": bubble(1, later, "make the docker image smaller"),
        "t2": bubble(2, later + timedelta(minutes=1), command="docker build -t web .", output="naming to web done"),
        "a2": bubble(2, later + timedelta(minutes=2), "The image uses the slim base now: 180 MB."),
    }
    order = [("u1", 1), ("t1", 2), ("a1", 2), ("u2", 1), ("t2", 2), ("a2", 2)]
    composer = ide.composer_data(
        "c-tsc",
        order,
        created_at=int(began.timestamp() * 1000),
        name="tsc and docker",
        workspaceIdentifier={"id": "ws", "uri": {"fsPath": str(project), "scheme": "file"}},
    )
    ide.write_state_vscdb(user / "globalStorage" / "state.vscdb", composers={"c-tsc": composer}, bubbles={"c-tsc": bubbles})  # fmt: skip
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    return project


def test_an_editor_chat_resumed_a_week_later(fake_home: Path) -> None:
    said = failure_hook(_editor_chat(fake_home), "npx tsc --noEmit", LINT)
    assert f'- "tsc and docker" (web, {_day(NOW - timedelta(days=8))}, ' in said, said
    assert "the next answer: The port is read from the env as a string" in said, said
    assert "Concluded" not in said and "slim base" not in said, said
    fix = run_deja("fix", "error TS2322")
    assert fix.returncode == 0, fix.stderr
    assert "docker build" not in fix.stdout and "slim base" not in fix.stdout, fix.stdout


PASTED = "Error: EACCES: permission denied, open '/var/log/shop/app.log'"


def test_an_error_pasted_and_left_unanswered_is_not_answered_by_the_later_days_answer(fake_home: Path) -> None:
    """An error a person pasted (no command printed it): ``deja fix`` gives the answer said after it, but not one
    given after the chat was resumed days later, to another question."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [
        user_turn(f"the app cannot start:\n{PASTED}", NOW - timedelta(days=5)),
        assistant_turn(None, tool_use("Shell", {"command": "ls -l /var/log/shop"})),
        turn_ended("aborted"),
        user_turn("add a health endpoint", NOW - timedelta(days=1)),
        assistant_turn("Added GET /healthz returning the build's version."),
        turn_ended(),
    ]
    write_transcript(transcript_path(fake_home / ".cursor", str(project), "f48c0000-0000-4000-8000-000000000003"), records)  # fmt: skip
    assert run_deja("index").returncode == 0
    fix = run_deja("fix", "EACCES: permission denied")
    assert fix.returncode == 0, fix.stderr
    assert "f48c0000" in fix.stdout and "healthz" not in fix.stdout, fix.stdout
