"""A long chat is summarised by the part its title names, not by the chores before and after it (trial48b F5).

Before, a chat titled "Circular import between models and schemas" that opened on a lint fix and closed on a
changelog entry reached every new chat's "Recent sessions" as ``asked: first, fix the lint errors ruff reports /
concluded: Added a 0.14.2 entry to CHANGELOG.md.``, and ``deja wip``'s task and ``deja ctx``'s Goal were the lint
fix too. A chat whose first turn is its title's keeps its first ask and its last answer, a follow-up that names no
word of the title included.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import failure_hook, run_deja, session_start_block, store_shell

from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)

LONG = "f5f5f500-0000-4000-8000-000000000005"
ONE_TOPIC = "f5f5f500-0000-4000-8000-000000000006"
TITLE = "Circular import between models and schemas"
LINT = "first, fix the lint errors ruff reports"
IMPORT_ERROR = (
    "ImportError: cannot import name 'Order' from partially initialized module 'shop.models' "
    "(most likely due to a circular import)"
)
FIXED = "Fixed the circular import: models only imports schemas under `if TYPE_CHECKING:` (the hint is a string now)."
CHANGELOG = "Added a 0.14.2 entry to CHANGELOG.md."
LONG_TURNS = [
    (LINT, ["Removed the unused imports and sorted them."]),
    (IMPORT_ERROR, ["shop/models.py imports shop/schemas.py for a type hint, and schemas imports models.", FIXED]),
    ("ok, also bump the version in the changelog", [CHANGELOG]),
]
LOGIN = "login returns 401 right after the deploy"
FIRST_TRY = "The token's audience changed in the deploy; set JWT_AUDIENCE to the new value."
WORKED = "Now it passes: the pods' clocks drift, so jwt.decode allows leeway=30."
ONE_TOPIC_TURNS = [(LOGIN, [FIRST_TRY]), ("that didn't work, still failing for some users", [WORKED])]


def _titled_chat(home: Path, project: Path, chat: str, title: str, turns: list[tuple[str, list[str]]]) -> None:
    """A cursor-agent chat named ``title`` (its transcript and its store, as cursor-agent writes both), asked and
    answered ``turns`` a few minutes apart, an hour ago."""
    when = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    records, store = [], store_preamble(str(project))
    for ask, answers in turns:
        when += timedelta(minutes=2)
        records.append(user_turn(ask, when))
        store.append(store_user_message(ask, when))
        records += [assistant_turn(answer) for answer in answers]
        store += [store_assistant_message(answer) for answer in answers]
        records.append(turn_ended())
    write_transcript(transcript_path(home / ".cursor", str(project), chat), records)
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), messages=store, name=title)


def _indexed(home: Path) -> Path:
    project = home / "code" / "shop-api"
    project.mkdir(parents=True)
    _titled_chat(home, project, LONG, TITLE, LONG_TURNS)
    assert run_deja("index").returncode == 0
    return project


def test_the_session_start_block_gives_the_ask_and_conclusion_the_title_names(fake_home: Path) -> None:
    block = session_start_block(_indexed(fake_home))
    assert f'"{TITLE}"' in block, block
    assert f"  asked: {IMPORT_ERROR}\n  concluded: {FIXED}\n" in block, block
    assert LINT not in block and "concluded: Added a 0.14.2" not in block, block


def test_wip_and_ctx_give_the_titles_part_as_the_task_and_what_it_settled(fake_home: Path) -> None:
    project = _indexed(fake_home)
    wip = run_deja("wip", cwd=project).stdout
    assert f"\ntask: {IMPORT_ERROR}\nsettled: {FIXED}\n" in wip, wip
    ctx = run_deja("ctx", LONG).stdout
    assert f"## Goal\n{IMPORT_ERROR}\n\n## Decisions and findings\n" in ctx, ctx
    assert "- Removed the unused imports" not in ctx and f"- {CHANGELOG}" not in ctx, ctx
    assert f"## Where it stopped\n{CHANGELOG}\n" in ctx, ctx  # (where it did stop: the chore after the work)
    # --json keeps the first ask whole as the goal, and gives the task the summary is about
    shown = json.loads(run_deja("wip", "--json", cwd=project).stdout)
    assert (shown["goal"], shown["task"]) == (LINT, IMPORT_ERROR), shown


def test_a_chat_whose_first_turn_is_its_titles_keeps_its_first_ask_and_last_answer(fake_home: Path) -> None:
    project = fake_home / "code" / "auth"
    project.mkdir(parents=True)
    _titled_chat(fake_home, project, ONE_TOPIC, "Login returns 401 after deploy", ONE_TOPIC_TURNS)
    assert run_deja("index").returncode == 0
    block = session_start_block(project)
    assert f"  asked: {LOGIN}\n  concluded: {WORKED}\n" in block, block
    wip = run_deja("wip", cwd=project).stdout
    assert f"\ntask: {LOGIN}\nsettled: {WORKED}\n" in wip, wip


PARAPHRASED = "f5f5f500-0000-4000-8000-000000000007"
SYMPTOM = "after signing in users land on /signin again and again, the session cookie seems dropped"
SAMESITE = "The cookie is set with SameSite=Strict on the callback; Lax fixes it. Changed auth/session.py."
TESTED = "Added tests/test_login_redirect.py: one redirect to /home with the cookie set SameSite=Lax."
PARAPHRASED_TURNS = [
    (SYMPTOM, [SAMESITE]),
    ("now add a regression test for the login redirect", [TESTED]),
    ("and update the changelog for the login redirect", ["Added a line under 2.3.1."]),
]


def test_a_title_that_rewords_the_first_ask_does_not_move_the_summary_onto_the_chores_after_it(
    fake_home: Path,
) -> None:
    """Cursor's title "Fix login redirect loop" rewords the problem, and the chores after the fix repeat its words:
    the summary is still the problem, concluded by the test that checks its fix (whose answer says what the work came
    to), not "now add a regression test …" / "Added a line under 2.3.1." (review49b H1)."""
    project = fake_home / "code" / "web"
    project.mkdir(parents=True)
    _titled_chat(fake_home, project, PARAPHRASED, "Fix login redirect loop", PARAPHRASED_TURNS)
    assert run_deja("index").returncode == 0
    block = session_start_block(project)
    assert f"  asked: {SYMPTOM}\n  concluded: {TESTED}\n" in block, block
    wip = run_deja("wip", cwd=project).stdout
    assert f"\ntask: {SYMPTOM}\nsettled: {TESTED}\n" in wip, wip
    ctx = run_deja("ctx", PARAPHRASED).stdout
    assert f"## Decisions and findings\n- {SAMESITE}\n- {TESTED}\n\n" in ctx, ctx


REBASE = "I messed up an interactive rebase and my last 3 commits are gone from the branch"
RECOVERED = "Recovered: `git reflog` showed the commit before the rebase; `git reset --hard 9f8e7d6` put them back."


def test_a_title_word_that_names_a_chore_elsewhere_is_the_work(fake_home: Path) -> None:
    """Under "Recover commits after rebase", "my last 3 commits are gone" is the problem, not a commit chore: the
    summary is it and its fix, not the README chore before it nor the changelog after it."""
    project = fake_home / "code" / "web"
    project.mkdir(parents=True)
    turns = [
        ("update the README section on local setup, it still mentions python 3.9", ["Updated README.md."]),
        (REBASE, ["They are still in the reflog.", RECOVERED]),
        ("ok, also bump the version in the changelog", [CHANGELOG]),
    ]
    _titled_chat(fake_home, project, PARAPHRASED, "Recover commits after rebase", turns)
    assert run_deja("index").returncode == 0
    assert f"  asked: {REBASE}\n  concluded: {RECOVERED}\n" in session_start_block(project)


LOCKED = "fatal: Unable to create '/repo/.git/index.lock': File exists."
COMMIT = "git commit -am 'fix: circular import'"


def test_a_failure_in_a_chore_after_the_titles_part_is_not_concluded_by_that_parts_answer(fake_home: Path) -> None:
    """The failure hook's ``Concluded:`` is the answer the index kept as the session's conclusion, and only for a
    failure before it: a ``git commit`` that failed in the chore after the part is not concluded by its fix."""
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    when = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
    store = [*store_preamble(str(project))]
    for ask, answers in LONG_TURNS[:2]:
        store += [store_user_message(ask, when), *[store_assistant_message(answer) for answer in answers]]
    store += [
        store_user_message("thanks. commit it with a sensible message", when + timedelta(minutes=5)),
        *store_shell("t1", COMMIT, LOCKED, 128, text="Committing."),
        *store_shell("t2", "rm -f .git/index.lock", "", 0),
        *store_shell("t3", COMMIT, "[main 3f2a1c9] fix: circular import", 0),
        store_assistant_message("Committed."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), LONG), cwd=str(project), messages=store, name=TITLE)  # fmt: skip
    assert run_deja("index").returncode == 0
    assert f"  asked: {IMPORT_ERROR}\n  concluded: {FIXED}\n" in session_start_block(project)
    said = failure_hook(project, "git commit -m wip", LOCKED)
    assert "What followed: a destructive step (not shown), then `git commit -am" in said, said
    assert "Concluded" not in said and FIXED not in said, said


DOCKER = "docker build cache is not reused in CI, every build reinstalls node_modules"
CACHED = "Copy package.json and the lockfile before the sources so the npm ci layer is cached."


def test_a_chat_that_goes_on_to_an_unrelated_question_concludes_on_its_titles_answer(fake_home: Path) -> None:
    """An ask that says it is about something else ends the title's part: the summary is not concluded by the
    answer to "unrelated: how do I rename a git branch …" (review49b M3)."""
    project = fake_home / "code" / "app"
    project.mkdir(parents=True)
    turns = [
        (DOCKER, [CACHED]),
        ("unrelated: how do I rename a git branch locally and on the remote?", ["git branch -m old new, then push."]),
    ]
    _titled_chat(fake_home, project, PARAPHRASED, "Docker build cache in CI", turns)
    assert run_deja("index").returncode == 0
    assert f"  asked: {DOCKER}\n  concluded: {CACHED}\n" in session_start_block(project)
    ctx = run_deja("ctx", PARAPHRASED).stdout
    assert f"## Decisions and findings\n- {CACHED}\n\n" in ctx, ctx


ZERO = "the importer drops rows whose supplier id has a leading zero"
ZERO_FIXED = "Fixed: that commit cast supplier_id to int; it is read as text again, so 0042 stays 0042."


def test_a_question_naming_a_commit_is_the_work_not_a_chore(fake_home: Path) -> None:
    """ "why did this commit break it?" is short and names a commit, as "commit it" does, but asks about the work: the
    summary goes on through its answer, and stops at the changelog chore after it."""
    project = fake_home / "code" / "importer"
    project.mkdir(parents=True)
    turns = [
        (ZERO, ["The ids lose their zeros somewhere between the CSV and the database."]),
        ("why did this commit break it?", [ZERO_FIXED]),
        ("ok, also bump the version in the changelog", [CHANGELOG]),
    ]
    _titled_chat(fake_home, project, PARAPHRASED, "Importer drops rows with leading zeros", turns)
    assert run_deja("index").returncode == 0
    assert f"  asked: {ZERO}\n  concluded: {ZERO_FIXED}\n" in session_start_block(project)


LOOP = "after signing in users are sent back to /signin in a loop"
MATCHER = "I changed the matcher in middleware.ts so /signin is skipped. Fixed."
SAMESITE_FIX = "Reverted. The real cause is the session cookie's SameSite=Strict on the callback; with Lax the loop is gone."  # fmt: skip


def test_an_ask_to_revert_a_commit_is_the_work_not_a_chore(fake_home: Path) -> None:
    """ "still loops. revert that commit" is short and names a commit, but undoes a wrong fix: the summary goes on
    to the answer after it, the real fix, not the first answer that only said "Fixed." (review49e M4)."""
    project = fake_home / "code" / "web"
    project.mkdir(parents=True)
    turns = [(LOOP, [MATCHER]), ("still loops. revert that commit", [SAMESITE_FIX])]
    _titled_chat(fake_home, project, PARAPHRASED, "Fix login redirect loop", turns)
    assert run_deja("index").returncode == 0
    assert f"  asked: {LOOP}\n  concluded: {SAMESITE_FIX}\n" in session_start_block(project)


def test_an_ask_to_commit_and_explain_is_the_work_not_a_chore(fake_home: Path) -> None:
    """ "can you commit this and explain the fix?" names a commit, but asks what the fix was too: its answer says what
    the work came to, and the summary concludes with it (fixw49b)."""
    project = fake_home / "code" / "web"
    project.mkdir(parents=True)
    explained = "Committed as 4e1f2a0. The loop came from the session cookie's SameSite=Strict; Lax ends it."
    turns = [(LOOP, [MATCHER]), ("can you commit this and explain the fix?", [explained])]
    _titled_chat(fake_home, project, PARAPHRASED, "Fix login redirect loop", turns)
    assert run_deja("index").returncode == 0
    assert f"  asked: {LOOP}\n  concluded: {explained}\n" in session_start_block(project)


@pytest.mark.parametrize(
    "chore",
    [
        "now add a changelog entry that describes the change",
        "add a changelog entry describing the fix",
        "write a commit message that describes the change",
        "write a commit message that explains the change",
        "bump the version and describe the changes in the changelog",
        "update the readme to describe the new --since flag",
    ],
)
def test_a_changelog_entry_describing_the_fix_is_still_a_chore(fake_home: Path, chore: str) -> None:
    """A chore whose text says what it describes or explains is still a chore: the summary concludes with the fix, not
    "Added a 0.14.3 entry to CHANGELOG.md." (review50a M4; trial48b F5)."""
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    turns = [*ONE_TOPIC_TURNS, (chore, ["Added a 0.14.3 entry to CHANGELOG.md."])]
    _titled_chat(fake_home, project, ONE_TOPIC, "Login 401 after deploy", turns)
    assert run_deja("index").returncode == 0
    block = session_start_block(project)
    assert f"  concluded: {WORKED}\n" in block, block
