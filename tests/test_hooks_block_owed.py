"""The session-start block a conversation with no ``sessionStart`` is owed, on a prompt whose recall fills its budget.

A resumed cursor-agent chat and ``/new`` send no ``sessionStart``; the first event of such a conversation carries the
block in the room its own answer leaves. A prompt whose recall filled that room left it to the next event, and every
prompt after it did the same: the block never came (trial53 F3, 0 of 10 prompts in each of a week's chats). The hooks
run here as processes on the sample history plus chats written through ``deja.core.writers`` (``test_hooks.Machine``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from test_hooks import Machine, cursor, cursor_tool, framed

from deja.core.writers.cursor_agent import assistant_turn, user_turn
from deja.hooks.call import HookCall, frame_room
from deja.hooks.context import block_first, recent_lines

PROMPT_BUDGET = 1536
BLOCK = "Recent sessions in this project"
WORKSPACE_BLOCK = "Recent sessions in this workspace's folders"
RECALLED = "Past turns from other sessions that may answer this prompt:"


def _long_chats(machine: Machine, project: Path, topics: tuple[str, ...], prefix: str) -> list[str]:
    """A chat per topic in ``project``, each answer long enough that its recall fills a prompt's budget; their ids."""
    when = datetime.now(UTC)
    ids = []
    for i, topic in enumerate(topics):
        chat = f"{prefix}-0000-4000-8000-00000000000{i}"
        answer = f"The {topic} drifts (価格 🚀) because its table is read before the warm-up ends. " * 30
        records = [user_turn(f"why does the {topic} drift after a restart?", when - timedelta(days=9 + i))]
        records.append(assistant_turn(answer))
        machine.write_chat(project, chat, records, [], name=f"{topic.title()} 価格")
        ids.append(chat)
    machine.index()
    return ids


def _prompt(machine: Machine, conversation: str, prompt: str, *roots: Path) -> str:
    """The hook-prompt's text for ``prompt`` in a conversation that had no sessionStart."""
    payload = cursor("beforeSubmitPrompt", conversation, roots[0], prompt=prompt)
    payload["workspace_roots"] = [str(root) for root in roots]
    return machine.run("hook-prompt", payload, opened=False).text


def _last_log_line(machine: Machine) -> str:
    return machine.log().splitlines()[-1]


def test_a_resumed_chat_whose_prompts_each_fill_the_recall_gets_the_block_on_its_first(machine: Machine) -> None:
    """trial53 F3's shape: the first prompt gives both, the recall in the room the block left (non-ASCII texts held
    to the budget in bytes); the block is not given again, and the next prompt's recall is whole."""
    zephyr, quokka = _long_chats(machine, machine.api, ("zephyr capacitor", "quokka turbine"), "eeee0000")
    first = framed(_prompt(machine, "c-resumed", "zephyr capacitor drift?", machine.api), PROMPT_BUDGET)
    assert RECALLED in first and zephyr in first and BLOCK in first
    assert first.index(RECALLED) < first.index(BLOCK)  # the prompt's own answer leads, as on every event
    assert f"deja show {zephyr}" not in first[first.index(BLOCK) :]  # the block lists no session the recall shows
    line = _last_log_line(machine)
    assert "recalled" in line and "rendered first" in line and "does not fit in what this event" not in line
    second = _prompt(machine, "c-resumed", "quokka turbine drift?", machine.api)
    assert quokka in second and BLOCK not in second
    assert len(second.encode()) > PROMPT_BUDGET - 100  # the recall has the whole budget again


def test_the_block_comes_when_the_prompt_recalls_the_newest_session(machine: Machine) -> None:
    """review53d F2: a newest session of four long turns, an older one with a long title, and prompts each asking
    about one turn of the newest. A room sized for the newest session before the block was rendered was a room for a
    session the block then skipped (the recall shows it): the block waited on every prompt, and every recall was cut.
    The block is rendered, then measured: it comes on the first prompt."""
    when = datetime.now(UTC)
    topics = ("walrus ledger", "ocelot sprocket", "pelican gasket", "marmot flywheel")
    records = []
    for i, topic in enumerate(topics):
        records.append(user_turn(f"why does the {topic} stall after a deploy?", when - timedelta(hours=5 - i)))
        records.append(assistant_turn(f"The {topic} stalls because its lease is renewed too late. " * 12))
    machine.write_chat(machine.api, "aaaa0000-0000-4000-8000-000000000001", records, [], name="Four stalls")
    older = [user_turn("how do we rotate the signing keys?", when - timedelta(days=2))]
    older.append(assistant_turn("Rotate them with `make rotate-keys`; the old key stays valid for a day."))
    long_title = "Rotating the signing keys of the payments service without downtime for every region " * 2
    machine.write_chat(machine.api, "aaaa0000-0000-4000-8000-000000000002", older, [], name=long_title.strip())
    machine.index()
    first = framed(_prompt(machine, "c-f2", "why does the walrus ledger stall after a deploy?", machine.api), 1536)
    assert "aaaa0000-0000-4000-8000-000000000001" in first and BLOCK in first
    assert "does not fit in what this event" not in machine.log()
    second = _prompt(machine, "c-f2", "why does the ocelot sprocket stall after a deploy?", machine.api)
    assert "aaaa0000-0000-4000-8000-000000000001" in second and BLOCK not in second


def test_a_block_that_needs_more_than_half_the_frame_waits_rather_than_take_the_recall(machine: Machine) -> None:
    """A block that fits only in the whole frame (a project path of 520 bytes in its header, a newest session with a
    long heading): given first, it left the recall no room, and the session the prompt asked about was in neither
    (review54a A1). The recall is given whole and the block waits, as hooks.log says; the next prompt tries again."""
    project = machine.root / ("支付服务" * 20) / ("结算系统" * 20) / "ledger"  # a header of 520 bytes
    project.mkdir(parents=True)
    (zephyr,) = _long_chats(machine, project, ("zephyr capacitor",), "eeee0001")
    when = datetime.now(UTC)
    records = [user_turn("why is the nightly export of the partner ledger empty?", when - timedelta(hours=1))]
    records.append(assistant_turn("The export ran before the ledger job committed; it now waits for it. " * 10))
    title = "Nightly partner ledger export empty because the export ran before the ledger job committed " * 6
    machine.write_chat(project, "bbbb0000-0000-4000-8000-000000000001", records, [], name=title.strip())
    machine.index()
    first = framed(_prompt(machine, "c-waits", "zephyr capacitor drift?", project), PROMPT_BUDGET)
    assert RECALLED in first and zephyr in first and BLOCK not in first
    assert "no session-start block: a readable block does not fit" in _last_log_line(machine)


def test_a_multi_root_workspace_gets_its_block_beside_a_full_recall(machine: Machine) -> None:
    """The block of a multi-root workspace (a header for its folders, a label per project) rendered first still
    fits the prompt's budget beside the recall."""
    (zephyr,) = _long_chats(machine, machine.api, ("zephyr capacitor",), "eeee0002")
    first = framed(_prompt(machine, "c-multi", "zephyr capacitor drift?", machine.api, machine.infra), 1536)
    assert zephyr in first and WORKSPACE_BLOCK in first
    assert "\n- " in first[first.index(WORKSPACE_BLOCK) :]  # (a session, at the block's readable minimum)
    assert "rendered first" in _last_log_line(machine)


def test_a_tool_event_still_passes_the_block_on(machine: Machine) -> None:
    """A tool event's 512 bytes never make room for the block: it still leaves it to the next event, which gives it."""
    _long_chats(machine, machine.api, ("zephyr capacitor",), "eeee0003")
    shell = cursor_tool("preToolUse", "c-tool", machine.api, "Shell", {"command": "pytest -q tests/test_zephyr.py"})
    machine.run("hook-tool", shell, opened=False)
    assert BLOCK not in machine.log()
    assert BLOCK in _prompt(machine, "c-tool", "zephyr capacitor drift?", machine.api)


def test_a_conversation_shown_the_newest_sessions_is_given_the_ones_before_them(machine: Machine) -> None:
    """A conversation whose first events recalled the project's seven newest sessions (each filling its budget, so
    the block waited) is owed the block still: it lists the sessions before those, not that there is none."""
    when = datetime.now(UTC)
    chats = [f"dddd0000-0000-4000-8000-00000000000{i}" for i in range(9)]
    for i, chat in enumerate(chats):
        records = [user_turn(f"why does job {i} stall?", when - timedelta(minutes=1 + i))]
        machine.write_chat(machine.api, chat, [*records, assistant_turn(f"Job {i} waits on its lock.")], [], f"Job {i}")
    machine.index()
    HookCall(cursor("preToolUse", "c-shown", machine.api), "").remember([f"s:{chat}" for chat in chats[:7]])
    shell = cursor_tool("preToolUse", "c-shown", machine.api, "Shell", {"command": "ls"})
    answer = machine.run("hook-tool", shell, opened=False).text
    assert BLOCK in answer and f"deja show {chats[7]}" in answer, machine.log()


TEN_CHATS = [f"dddd0000-0000-4000-8000-00000000000{i}" for i in range(10)]


def _ten_chats(machine: Machine) -> None:
    """Ten short chats in the api project, Job 0 the newest."""
    when = datetime.now(UTC)
    for i, chat in enumerate(TEN_CHATS):
        records = [user_turn(f"why does job {i} stall?", when - timedelta(minutes=1 + i))]
        machine.write_chat(machine.api, chat, [*records, assistant_turn(f"Job {i} waits.")], [], f"Job {i}")
    machine.index()


def _shown_call(machine: Machine, conversation: str, shown: int) -> HookCall:
    """A prompt's call in safe mode for a conversation already shown the ``shown`` newest of ``TEN_CHATS``."""
    HookCall(cursor("beforeSubmitPrompt", conversation, machine.api), "").remember(
        [f"s:{chat}" for chat in TEN_CHATS[:shown]]
    )
    call = HookCall(cursor("beforeSubmitPrompt", conversation, machine.api), "")
    call.mode = "safe"
    return call


def _listed(lines: list[str]) -> list[str]:
    return [chat for chat in TEN_CHATS if any(f"deja show {chat}" in line for line in lines)]


def test_the_block_rendered_first_lists_what_the_same_room_lists_alone(machine: Machine) -> None:
    """The block rendered first in the room a recall leaves lists the sessions ``recent_lines`` lists in that room
    (review55b F1: the one read for both rooms listed one more there than a read for that room alone)."""
    _ten_chats(machine)
    own = ["x" * 880]  # (a recall leaving the block room for 2 sessions; half the frame has room for 3)
    lines, left, note = block_first(_shown_call(machine, "c-first-room", 5), own, PROMPT_BUDGET)
    assert left is None and note == "with the session-start block"
    alone, _ = recent_lines(_shown_call(machine, "c-alone", 5), frame_room(PROMPT_BUDGET, *own), "\n".join(own))
    assert _listed(lines) == _listed(alone) == TEN_CHATS[5:7]


def test_a_prompt_shown_the_newest_seven_sessions_is_given_the_older_ones(machine: Machine) -> None:
    """On the prompt's path too, a conversation shown the project's seven newest sessions is given the three before
    them, not told there is no other session (review55b F2)."""
    _ten_chats(machine)
    lines, _, note = block_first(_shown_call(machine, "c-shown-seven", 7), [], PROMPT_BUDGET)
    assert "no other session" not in note and _listed(lines) == TEN_CHATS[7:], note
