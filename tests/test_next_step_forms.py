"""Which last answers only name the next step or say nothing (no conclusion) and which one-line sentences in -ing are
decisions: the forms review54f found after review54b F7 and review54e F1/F2, and review55a after them; the
session-start block's ``concluded:`` and ``deja wip``'s ``settled:`` agree on them (where a sentence opening on "Let
me" leads to a finding, wip settles the finding: review55c F3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import index_chat, run_deja, session_start_block

from deja.core.writers.cursor_agent import assistant_turn, user_turn

ASK = "the worker drops jobs after a deploy, why?"
NOW = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)


def _chat_ending_on(home: Path, answer: str) -> Path:
    """A chat in ``~/code/api``: the ask, then ``answer``, its turn never ended."""
    project = home / "code" / "api"
    project.mkdir(parents=True)
    chat = "c0c1c054-0000-4000-8000-00000000054f"
    index_chat(home, project, chat, [user_turn(ASK, NOW), assistant_turn(answer)])
    return project


def _block_and_wip(project: Path) -> tuple[str, str]:
    wip = run_deja("wip", str(project))
    assert wip.returncode == 0, wip.stderr
    return session_start_block(project), wip.stdout


def test_a_next_step_with_the_reason_found_after_as_is_the_conclusion(fake_home: Path) -> None:
    answer = "Let me check the config as the port was wrong."
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


def test_a_next_step_then_and_what_was_found_is_the_conclusion(fake_home: Path) -> None:
    answer = "Let me rerun the tests, and the port was 8080 all along."
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


def test_a_next_step_then_a_clause_on_tooling_is_the_conclusion(fake_home: Path) -> None:
    answer = "Let me rerun the tests, tooling was the issue."
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize(
    "answer",
    [
        "Keeping a single worker.",
        "Keeping an in-memory queue.",
        "Keeping a single record per job.",
        "Keeping a log file per worker.",
    ],
)
def test_keeping_a_thing_is_a_decision(fake_home: Path, answer: str) -> None:
    """Review54f F8: "Keeping a …" was read as progress, as "Keeping an eye on the build." is; review55a F3: so was
    one whose two words after the article held "record" or "log", where its head noun is another."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block
    assert "settled:" in wip, wip


@pytest.mark.parametrize(
    "answer",
    [
        "Keeping a close eye on the build.",
        "Keeping an eye on it.",
        "Keeping a very close eye on the build.",
        "Keeping an extra-close eye on the build.",
        "Keeping a log of the retries.",
    ],
)
def test_keeping_an_eye_is_progress(fake_home: Path, answer: str) -> None:
    """Review55a F3: "eye" as the third word after the article was read as a thing kept, a decision."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


@pytest.mark.parametrize(
    "answer",
    [
        "Good. Now let me update the README.",
        "Let me check again, this time with -v.",
        "Let me rerun the tests (using the debug build).",
    ],
)
def test_a_next_step_after_good_or_with_how_it_is_run_concludes_nothing(fake_home: Path, answer: str) -> None:
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


def test_a_clause_after_this_time_that_says_what_came_of_it_is_the_conclusion(fake_home: Path) -> None:
    answer = "Let me rerun the tests, this time it passes."
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize(
    "answer",
    [
        "Let me rerun the suite, with 41 of 42 now passing.",
        "Let me rerun the tests, without the flaky retry that caused it.",
        "Let me rerun the tests, with the fixture regenerated.",
        "I'll restart the worker (with the ack timeout raised to 30s).",
    ],
)
def test_a_with_clause_saying_what_came_of_it_is_the_conclusion(fake_home: Path, answer: str) -> None:
    """Review55a F2: a clause opening on with/without was read as how the step is taken whatever it said."""
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize(
    "answer",
    [
        "I'll rerun the tests to be sure the fix is good; the port was the culprit.",
        "Let me confirm the fix is good: the race was in the ack handler.",
        "Let me check the webhook: it fires twice.",
        "Let me check the playbook: the port is hardcoded to 8080.",
        "Let me take a look: the port is wrong.",
    ],
)
def test_a_finding_after_a_word_of_assent_inside_a_sentence_is_the_conclusion(fake_home: Path, answer: str) -> None:
    """Review55a F1: a word of assent was stripped wherever it stood, "good:" and the "ok:" of "webhook:" with the
    colon that led to the finding."""
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize(
    ("answer", "settled"),
    [
        ("I'll keep it as is; the current behaviour is correct.", None),
        ("Let me confirm the fix is good: the race was in the ack handler.", "The race was in the ack handler."),
        ("Let me check the config — the port is wrong.", "The port is wrong."),
        ("Let me rerun the tests, and the port was 8080 all along.", None),
        ("Let's go with option B: it avoids the migration.", None),
        ("Let me check the config - I'll rerun the tests after.", None),
    ],
)
def test_wip_settles_what_the_block_concludes_of_an_answer_an_opener_leads(
    fake_home: Path, answer: str, settled: str | None
) -> None:
    """Review55c F3: ``deja wip`` dropped a sentence opening on "Let me" or "I'll" whole, the finding after its colon
    or dash with it, where the block concludes it: wip settles the finding, or the sentence whole (``None``) where a
    decision leads or a clause says what was."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block
    assert f"settled: {settled or answer}\n" in wip, wip


@pytest.mark.parametrize(
    "answer",
    [
        "Hmm, let me look at the worker.",
        "I see. Let me look at the worker.",
        "Got it. Let me check the worker.",
        "Well, let me check the config.",
    ],
)
def test_wip_settles_nothing_where_the_block_concludes_nothing(fake_home: Path, answer: str) -> None:
    """Review54f F11: d2e5caf taught the index's conclusion (``only_next_steps``) an interjection or an
    acknowledgement before a next step, and ``deja wip``, reading the answer with ``settled_line``'s own rules, printed
    ``settled: I see.``, ``settled: Got it.`` or the whole next step as what the session settled."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


@pytest.mark.parametrize("answer", ["Ah, I see. Let me check the worker.", "Oh, got it! I'll rerun the tests."])
def test_ah_i_see_then_a_next_step_concludes_nothing(fake_home: Path, answer: str) -> None:
    """Review54f F12: "Ah, I see." was no acknowledgement alone, so the step was the conclusion."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


@pytest.mark.parametrize(
    "answer",
    [
        "Good catch. Let me check the worker.",
        "Thanks! Let me check the worker.",
        "Makes sense. Let me fix it.",
        "Oh right, I'll check the worker.",
    ],
)
def test_a_next_step_after_thanks_or_good_catch_concludes_nothing(fake_home: Path, answer: str) -> None:
    """Review55a F5: "Good catch.", "Thanks!" and "Makes sense." were no acknowledgements, and a step opened on one
    word of thinking aloud alone: the step was the conclusion, and ``settled: Good catch.``."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


@pytest.mark.parametrize(
    "answer",
    ["I see.", "Got it.", "Understood.", "Good.", "Hmm.", "Ah, I see.", "Got it. Thanks!"],
)
def test_an_acknowledgement_alone_concludes_nothing(fake_home: Path, answer: str) -> None:
    """Review55a F4: ``deja wip`` settled nothing of an answer that only acknowledges ("Understood." after "don't touch
    the schema"), and the block gave it as what the session concluded."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


@pytest.mark.parametrize(
    "answer", ["Got it, thanks!", "Thanks, got it.", "Ok, good.", "Perfect, great!", "**Understood.**"]
)
def test_acknowledgements_run_together_or_in_bold_conclude_nothing(fake_home: Path, answer: str) -> None:
    """Review55c F5, F6: each acknowledgement alone concluded nothing, but two in one sentence were read as one that
    says something ("settled: Good." of "Ok, good."), and the block concluded a bold one wip took for a label."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


def test_a_bold_sentence_is_settled_as_the_block_concludes_it(fake_home: Path) -> None:
    """Review55c F6: wip took a bold line for a label ("**Summary**"), where the block concluded it."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, "**Done.**"))
    assert "  concluded: **Done.**\n" in block, block
    assert "settled: **Done.**\n" in wip, wip


def test_a_question_alone_is_the_conclusion(fake_home: Path) -> None:
    """A sign-off is passed over like an acknowledgement, but an answer of one alone is where the session stopped."""
    answer = "Would you like me to restart the api pods?"
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize("ack", ["Got it.", "I see.", "Thanks!", "Understood.", "Good catch."])
@pytest.mark.parametrize(
    "sign_off", ["Would you like me to restart the api pods?", "Let me know if you want me to open the PR."]
)
def test_an_acknowledgement_before_a_question_keeps_the_question_as_the_conclusion(
    fake_home: Path, ack: str, sign_off: str
) -> None:
    """Review55c F1: an acknowledgement before a sign-off counted as "acknowledgements alone", and the block dropped
    the question where the session stopped, which it gives for the question alone."""
    answer = f"{ack} {sign_off}"
    block = session_start_block(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block


@pytest.mark.parametrize(
    "answer",
    [
        "Leaving a comment on the PR.",
        "Sticking a breakpoint in the handler.",
        "Staying in the container to debug.",
        "Keeping at it.",
    ],
)
def test_a_progress_line_in_ing_is_no_decision(fake_home: Path, answer: str) -> None:
    """2302257 (review54e F1) made each of these verbs a decision whatever word follows, but a short list: before it,
    each of these was progress (``only_progress``), so a chat stopped on it concluded nothing."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert "concluded:" not in block, block
    assert "settled:" not in wip, wip


@pytest.mark.parametrize(
    "answer",
    ["I see. The worker acks before the job is stored.", "Ah, got it. The worker acks before the job is stored."],
)
def test_wip_settles_the_finding_after_an_acknowledgement(fake_home: Path, answer: str) -> None:
    """An acknowledgement alone says nothing settled: ``settled:`` gives what follows it, as the block concludes all."""
    block, wip = _block_and_wip(_chat_ending_on(fake_home, answer))
    assert f"  concluded: {answer}\n" in block, block
    assert "settled: The worker acks before the job is stored.\n" in wip, wip
