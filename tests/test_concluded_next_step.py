"""A session whose last answer is only the agent's next step concluded nothing (trial53 F2).

A chat stopped mid-work (killed, cancelled) on "Checking." was listed by the session-start block as
``concluded: Checking.``, read by the agent as its outcome, where ``deja wip`` on the same session rightly gave no
``settled:`` line. The index keeps no conclusion for such an answer; one that says what was done before its next step
keeps it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import failure_hook, index_chat, run_deja, session_start_block, store_shell

from deja.core.indexer.records import _conclusion
from deja.core.settled import only_next_steps, only_progress
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    turn_ended,
    user_turn,
    write_chat_store,
)

CHAT = "c0c1c053-0000-4000-8000-000000000053"
ASK = "the worker drops jobs after a deploy, why?"
NOW = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)


def _chat(home: Path, *answers: str) -> Path:
    """A chat in ``~/code/api``: the ask, then ``answers``, the last one's turn never ended (the agent stopped)."""
    project = home / "code" / "api"
    project.mkdir(parents=True)
    index_chat(home, project, CHAT, [user_turn(ASK, NOW), *(assistant_turn(text) for text in answers)])
    return project


@pytest.mark.parametrize("last", ["Checking.", "Still waiting on the build.", "Now running the tests…"])
def test_a_chat_stopped_on_its_next_step_is_listed_without_a_conclusion(fake_home: Path, last: str) -> None:
    project = _chat(fake_home, last)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block, block
    assert "concluded:" not in block and last not in block, block
    # wip says the same of the same session: its task, nothing settled
    wip = run_deja("wip", str(project))
    assert wip.returncode == 0 and ASK in wip.stdout and "settled:" not in wip.stdout, wip.stdout + wip.stderr


def test_an_answer_that_says_what_was_done_before_its_next_step_is_still_the_conclusion(fake_home: Path) -> None:
    answer = "Fixed the ack timeout in worker/queue.py. Let me run the tests."
    project = _chat(fake_home, answer)
    assert f"  concluded: {answer}\n" in session_start_block(project)


def test_a_progress_line_ending_a_turn_that_said_a_result_concludes(fake_home: Path) -> None:
    """A short line that says what came of the work ("Adding the missing index fixed it.") is a conclusion."""
    answer = "Adding the missing index fixed it."
    project = _chat(fake_home, "Checking the jobs table.", answer)
    assert f"  concluded: {answer}\n" in session_start_block(project)


def test_a_turn_ended_on_a_line_of_progress_names_no_conclusion(fake_home: Path) -> None:
    """A turn that ended (``turn_ended``) on "Checking …" still said nothing found or done."""
    project = fake_home / "code" / "api"
    project.mkdir(parents=True)
    records = [user_turn(ASK, NOW), assistant_turn("Checking the deploy script."), turn_ended()]
    index_chat(fake_home, project, CHAT, records)
    assert "concluded:" not in session_start_block(project)


def test_an_answer_that_gives_code_after_its_next_step_keeps_its_conclusion(fake_home: Path) -> None:
    """An answer of "Let me fix that:" and a block for a file gave the fix: its conclusion names the file, as before."""
    project = _chat(fake_home, "Let me fix that:\n\n```python:worker/queue.py\nACK_TIMEOUT = 30\n```")
    assert "  concluded: Code for worker/queue.py. Let me fix that:\n" in session_start_block(project)


def test_the_failure_hook_gives_no_conclusion_of_a_chat_that_stopped_on_its_next_step(fake_home: Path) -> None:
    project = fake_home / "code" / "api"
    project.mkdir(parents=True)
    error = "ModuleNotFoundError: No module named 'api.cache'"
    messages = [
        *store_preamble(str(project)),
        store_user_message("pytest cannot import the cache module"),
        *store_shell("t1", "pytest -q", error, 1, "Running the tests."),
        *store_shell("t2", "pip install -e .", "Successfully installed api", 0),
        *store_shell("t3", "pytest -q", "14 passed in 0.8s", 0),
        store_assistant_message("Checking the coverage report."),
    ]
    chat = chat_dir_for(fake_home / ".cursor", str(project), CHAT)
    write_chat_store(chat, cwd=str(project), name="cache import", messages=messages)
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "pytest -q", error)
    assert "What followed: `pip install -e .`" in said and "Concluded" not in said, said


@pytest.mark.parametrize("answer", ["Checking.", "Now running the tests…", "Still waiting on the build."])
def test_a_line_of_progress_alone_is_only_progress(answer: str) -> None:
    assert only_progress(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Let's go with option B: it avoids the migration. I'll implement it now.",
        "I'll keep it as is; the current behaviour is correct.",
        "Let me explain: the cache key omits the locale, so every language shares one entry.",
        "We need to bump the Node version to 20. Let me do that.",
        "I'll go ahead and mark this as resolved: the timeout was the proxy's 30 s limit.",
        "I will not change the schema, since the mobile app reads it.",
        "I'll need access to the staging database to go further.",
        "Running the tests again: all 42 pass.",
        "Checking.\n\n```sh\nkubectl logs deploy/worker\n```",
        "It drains once the backoff grows.",
    ],
)
def test_an_answer_that_says_more_than_progress_keeps_its_conclusion(answer: str) -> None:
    """A decision or finding led by an opener ("I'll keep it as is; …") was dropped with the opener by the first
    rule, which read every answer ending on a next step as none (review53e F1): the session's conclusion said
    neither the decision nor the finding, and ``deja wip`` showed an earlier answer instead."""
    assert not only_progress(answer) and not only_next_steps(answer)
    assert _conclusion(answer)


@pytest.mark.parametrize(
    "last", ["Let me look at the worker's logs.", "I'll check the config next.", "Sure! Now let me run the tests."]
)
def test_a_chat_stopped_on_the_step_it_named_next_is_listed_without_a_conclusion(fake_home: Path, last: str) -> None:
    """An answer that only names the agent's next step found or did nothing: the block gave it as what the session
    concluded (review53h); ``deja wip`` gives the earlier answer that settled something."""
    project = _chat(fake_home, "The worker acks before the job is stored.", last)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block and "concluded:" not in block and last not in block, block
    wip = run_deja("wip", str(project))
    assert "settled: The worker acks before the job is stored." in wip.stdout, wip.stdout + wip.stderr


@pytest.mark.parametrize(
    "answer", ["Going with option B.", "Sticking with Postgres.", "Keeping the current behaviour."]
)
def test_a_one_line_decision_after_a_verb_in_ing_is_the_conclusion(fake_home: Path, answer: str) -> None:
    """ "Going with option B." says what was chosen: read as a line of progress, it was dropped (review53h)."""
    project = _chat(fake_home, "Checking the jobs table.", answer)
    assert f"  concluded: {answer}\n" in session_start_block(project)
    wip = run_deja("wip", str(project))
    assert f"settled: {answer}" in wip.stdout, wip.stdout + wip.stderr


@pytest.mark.parametrize(
    "answer",
    ["Setting the header fixes it.", "Clearing the cache solves it.", "Bumping the pin resolves it."],
)
def test_a_line_that_says_what_fixes_it_in_the_present_tense_is_the_conclusion(fake_home: Path, answer: str) -> None:
    """A verb of result in the present tense after a verb in -ing is a finding, not progress (review53h H2)."""
    project = _chat(fake_home, "Checking the jobs table.", answer)
    assert f"  concluded: {answer}\n" in session_start_block(project)


@pytest.mark.parametrize(
    "opener",
    ["Let me", "Let's", "Let us", "I'll", "I will", "I'm going to", "I am going to", "Now let me", "Next, I'll",
     "First, let me", "Then I'll", "So let's", "Finally, I'll", "I'll go ahead and", "OK, let me", "LET ME"],
)  # fmt: skip
def test_every_opener_of_a_next_step_is_read(opener: str) -> None:
    """Each opener ``settled._STEP_OPENER`` knows passes the check before it (``_STEP_WORDS``), which spares a refresh
    the patterns for an answer holding none of them."""
    assert only_next_steps(f"{opener} check the worker's logs.")
    assert not only_next_steps(f"{opener} keep the worker's logs.")


@pytest.mark.parametrize(
    "answer",
    [
        "Let me check the config — the port is wrong.",
        "I'll fix the port in config.yaml, it was 8080 instead of 8000.",
        "Let me make the change now that we know the cause is the stale cache.",
        "I'll start by removing the deprecated API because it no longer exists in v5.",
        "Let's try option B instead, since A needs a migration.",
        "Let me fix the typo in `config.yaml` (`prot` → `port`).",
    ],
)
def test_a_finding_in_a_clause_after_the_next_step_is_the_conclusion(fake_home: Path, answer: str) -> None:
    """A step followed by what was found or decided, after a dash, a comma, a bracket, ``because``, ``since`` or
    ``now that``, says more than the step (review54b F3): it is the session's conclusion, as on main before."""
    project = _chat(fake_home, "Checking the jobs table.", answer)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block and f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize("answer", ["Keeping an eye on the build.", "Leaving now to check the CI."])
def test_a_line_of_progress_opened_by_a_verb_of_deciding_concludes_nothing(fake_home: Path, answer: str) -> None:
    """ "Keeping" or "leaving" open a decision only before what is kept or left ("Keeping the current behaviour."):
    before "an eye" or "now" they are progress (review54b F4)."""
    project = _chat(fake_home, "Checking the jobs table.", answer)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block and answer not in block, block


@pytest.mark.parametrize(
    "last",
    [
        "Now let me check the remaining files:",
        "Let me also check the config.",
        "Hmm, let me check the logs.",
        "I see. Let me look at the worker.",
    ],
)
def test_common_forms_of_a_next_step_conclude_nothing(fake_home: Path, last: str) -> None:
    """The colon an agent ends its text with before a tool call, an adverb after the opener, an interjection or an
    acknowledgement before it: each still only names the next step (review54b F7)."""
    project = _chat(fake_home, "The worker acks before the job is stored.", last)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block and "concluded:" not in block and last not in block, block


@pytest.mark.parametrize(
    "answer",
    ["Keeping Postgres.", "Keeping option A.", "Keeping current behavior.", "Keeping your version.", "Staying put."],
)
def test_a_one_line_decision_without_an_article_is_still_the_conclusion(fake_home: Path, answer: str) -> None:
    """A decision in -ing is one whatever word follows, but the few that make it progress ("Keeping an eye on…"):
    read as a decision only before "the", "it" and the like, "Keeping Postgres." was dropped (review54e F1)."""
    project = _chat(fake_home, "Checking the jobs table.", answer)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block and f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize(
    "last",
    [
        "Let me check the worker's logs, then the config.",
        "Let me check the worker's logs as well.",
        "Now let me look at the remaining files, one by one.",
        "I'll run the tests so we know.",
        "Let me check the queue (and the worker).",
    ],
)
def test_a_next_step_with_a_comma_or_as_well_concludes_nothing(fake_home: Path, last: str) -> None:
    """Another step after a comma or in a bracket, "as well", "so we know": still only next steps (review54e F2: any
    comma, bracket, " as " or " so " was read as a clause saying what was found)."""
    project = _chat(fake_home, "The worker acks before the job is stored.", last)
    block = session_start_block(project)
    assert f"  asked: {ASK}\n" in block and "concluded:" not in block and last not in block, block


#: Answers that open on a word of assent, an acknowledgement, a sign-off or something else short, each alone and
#: before a next step, a finding or another acknowledgement.
OPENINGS = [
    *("Sure.", "Certainly!", "Of course.", "Great!", "Okay.", "OK.", "Alright.", "Absolutely.", "Perfect."),
    *("Excellent.", "Good.", "Hmm.", "Hmmm...", "Ah.", "Oh!", "Well.", "Right.", "I see.", "Got it!", "Understood."),
    *("Interesting.", "Thanks!", "Thank you.", "Makes sense.", "That makes sense.", "Good catch.", "Ah, I see."),
    *("Oh right.", "Feel free to ask.", "Hope this helps!", "I hope that helps.", "Happy to help."),
    *("Is there anything else?", "Would you like more?", "If you want, I can go on.", "Nice.", "Cool.", "Yes."),
    *("No problem.", "Sounds good.", "Noted.", "Fair enough.", "Done.", "...", "!", "Right, got it."),
]
FOLLOWERS = ["", " Let me check the logs.", " The port was wrong.", " Understood.", " I'll rerun the tests."]


@pytest.mark.parametrize("opening", OPENINGS)
def test_the_shortcut_past_answers_that_name_no_step_gives_the_patterns_answer(
    opening: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``only_next_steps`` passes over an ASCII answer naming no step that opens on none of ``_NOTHING_OPENERS``
    without its patterns (a refresh reads every changed session's last answer): a hand-kept list of the patterns'
    first words, which must answer as the patterns do."""
    from deja.core import settled

    for follower in FOLLOWERS:
        answer = opening + follower
        quick = settled.only_next_steps(answer)
        monkeypatch.setattr(settled, "_NOTHING_OPENERS", ("",))  # (every answer read by the patterns)
        assert settled.only_next_steps(answer) == quick, answer
        monkeypatch.undo()
