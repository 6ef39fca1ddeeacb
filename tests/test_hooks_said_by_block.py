"""A prompt right after the session-start block, recalling a session the block listed (trial53 F1).

The block printed the session's ``asked:`` and ``concluded:``; a prompt recalling the very same turn repeated both,
word for word. The recall now points at the block, but only where it would print exactly what the block printed:
an answer the block cut, a block given at its readable minimum, and a session resumed since are given whole
(review53d F1, F1b, F3). The hooks run as processes on the sample history plus chats written here.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from test_hooks import Machine, cursor, framed

from deja.core.writers.cursor_agent import assistant_turn, user_turn
from deja.hooks.prompt import SAID_BY_BLOCK

BLOCK = "Recent sessions in this project"


def _chat(machine: Machine, chat: str, turns: list[tuple[str, str]], name: str, ago: timedelta) -> None:
    when = datetime.now(UTC) - ago
    records = []
    for i, (asked, answered) in enumerate(turns):
        records += [user_turn(asked, when + timedelta(minutes=i)), assistant_turn(answered)]
    machine.write_chat(machine.api, chat, records, [], name=name)


def _start(machine: Machine, conversation: str) -> str:
    return framed(machine.run("hook-context", cursor("sessionStart", conversation, machine.api)).text, 2048)


def _prompt(machine: Machine, conversation: str, prompt: str) -> str:
    payload = cursor("beforeSubmitPrompt", conversation, machine.api, prompt=prompt)
    return machine.run("hook-prompt", payload, opened=False).text


DEPLOY = "dddd0000-0000-4000-8000-000000000001"


def test_a_turn_the_block_printed_word_for_word_is_a_pointer(machine: Machine) -> None:
    """trial53 F1: the block lists "deploy token" with its ask and answer whole; the prompt right after asks it."""
    asked, answered = "why does the deploy to 本番 fail?", "The deploy token lacks the repo scope 🚀."
    _chat(machine, DEPLOY, [(asked, answered)], "Deploy token 本番", timedelta(hours=2))
    machine.index()
    block = _start(machine, "c-said")
    assert f"asked: {asked}" in block and f"concluded: {answered}" in block
    elsewhere = _prompt(machine, "c-other", "why does the deploy to 本番 fail, the token lacks scope?")
    assert f"user: {asked}" in elsewhere and f"assistant: {answered}" in elsewhere
    here = framed(_prompt(machine, "c-said", "why does the deploy to 本番 fail, the token lacks scope?"), 1536)
    assert f"deja show {DEPLOY}" in here and SAID_BY_BLOCK in here
    assert asked not in here and answered not in here


def test_a_pointer_never_hides_what_the_block_did_not_say(machine: Machine) -> None:
    """review53d F1: an answer of 600 bytes whose fix sits at its end; the block's concluded: ended long before it.
    The block's conversation is given the fix, as another conversation is."""
    answer = "The sprocket worker starts before the cache is warm, which is why the queue looks stuck. " * 6
    answer += "Set SPROCKET_WARMUP_SECONDS=45 in the worker's environment."
    _chat(machine, DEPLOY, [("why does the sprocket queue look stuck?", answer)], "Sprocket queue", timedelta(hours=2))
    machine.index()
    block = _start(machine, "c-cut")
    assert "sprocket worker starts" in block and "SPROCKET_WARMUP_SECONDS" not in block
    here = _prompt(machine, "c-cut", "why does the sprocket queue look stuck?")
    assert "SPROCKET_WARMUP_SECONDS=45" in here and SAID_BY_BLOCK not in here


def test_a_block_given_at_its_readable_minimum_is_not_taken_for_the_turn(machine: Machine) -> None:
    """review53d F1b: a block given beside a full recall cuts its lines near their readable minimum; the next prompt
    asking that session's very question gets its answer whole (non-ASCII titles and texts)."""
    answer = "The cache key in api/cache.py omits the locale (価格), so one locale's prices are served to another. " * 4
    answer += "Keying on both (locale, currency) fixed it."
    _chat(machine, DEPLOY, [("why are 価格 prices stale per locale?", answer)], "価格 cache 🚀", timedelta(hours=2))
    long = "The zephyr capacitor drifts because its table is read before the warm-up ends. " * 30
    _chat(
        machine,
        "dddd0000-0000-4000-8000-000000000002",
        [("why does the zephyr capacitor drift?", long)],
        "Zephyr",
        timedelta(days=9),
    )
    machine.index()
    first = framed(_prompt(machine, "c-min", "why does the zephyr capacitor drift?"), 1536)
    assert BLOCK in first and f"deja show {DEPLOY}" in first and "(locale, currency) fixed it" not in first
    here = _prompt(machine, "c-min", "why are 価格 prices stale per locale?")
    assert "Keying on both (locale, currency) fixed it." in here and SAID_BY_BLOCK not in here


def test_a_session_resumed_after_the_block_is_not_pointed_at_the_block(machine: Machine) -> None:
    """review53d F3: the block lists a three-day-old session; the user resumes it elsewhere and it is indexed again
    with a new ask and answer. A prompt about the new turn is given it, not pointed at the block."""
    old = [("why does the sweeper skip rows?", "The sweeper ran before the rows were committed.")]
    _chat(machine, DEPLOY, old, "Sweeper", timedelta(days=3))
    machine.index()
    block = _start(machine, "c-resumed")
    assert "concluded: The sweeper ran before the rows were committed." in block
    resumed = [*old, ("the sweeper still skips rows after the fix, why?", "Raise SWEEP_DELAY=60 so it runs later.")]
    _resume_now(machine, resumed)
    machine.index()
    here = _prompt(machine, "c-resumed", "the sweeper still skips rows after the fix, why?")
    assert "SWEEP_DELAY=60" in here and SAID_BY_BLOCK not in here


def _resume_now(machine: Machine, turns: list[tuple[str, str]]) -> None:
    """The chat's transcript with its last turn asked now, as a chat resumed today writes it."""
    when = datetime.now(UTC)
    records = []
    for i, (asked, answered) in enumerate(turns):
        at = when - timedelta(days=3) + timedelta(minutes=i) if i < len(turns) - 1 else when
        records += [user_turn(asked, at), assistant_turn(answered)]
    machine.write_chat(machine.api, DEPLOY, records, [], name="Sweeper")


def test_the_pointer_names_the_block_by_its_heading(machine: Machine) -> None:
    """The pointer named "this conversation's session-start block", words nothing the agent was given uses: the
    block is headed "Recent sessions in this project" (review54a W1). It names that heading now."""
    asked, answered = "why does the deploy fail?", "The token lacks scope."
    _chat(machine, "dddd0001-0000-4000-8000-000000000001", [(asked, answered)], "Deploy token", timedelta(hours=2))
    machine.index()
    block = _start(machine, "c-w1")
    assert f"asked: {asked}" in block and f"concluded: {answered}" in block
    here = _prompt(machine, "c-w1", "why does the deploy fail, the token lacks scope?")
    assert SAID_BY_BLOCK in here
    assert '"Recent sessions"' in SAID_BY_BLOCK and "Recent sessions" in block, block


def test_a_turn_the_same_as_a_pointed_at_one_is_given_whole(machine: Machine) -> None:
    """Two chats holding the same turn, both listed by the block with their ask and answer whole: each is pointed at
    the block, and neither is "the same turn as" the other's, whose entry shows no turn (review54a W2)."""
    asked, answered = "why does the nightly cron skip Sundays?", "Its schedule says 1-6; Sunday is 0."
    for i, ago in enumerate((timedelta(hours=2), timedelta(hours=3))):
        _chat(machine, f"dddd0002-0000-4000-8000-00000000000{i}", [(asked, answered)], "Nightly cron", ago)
    machine.index()
    block = _start(machine, "c-w2")
    assert block.count(f"asked: {asked}") == 2 and block.count(f"concluded: {answered}") == 2
    here = framed(_prompt(machine, "c-w2", "why does the nightly cron skip Sundays?"), 1536)
    assert SAID_BY_BLOCK in here
    assert "'s above)" not in here, here
