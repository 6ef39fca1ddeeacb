"""The hooks where real Cursor builds differ from the docs (cursor-drift-2026.md §13–19), run as Cursor runs them.

Each case is a ``deja hook-*`` process given a real payload on stdin: a resumed
chat with no ``sessionStart``, ``/new``, a Task subagent's own tool hooks, both
``Write`` input shapes, cp1252 stdio, a session end whose process group is
killed as soon as it returns, and settings in the config file reaching a hook
started with nothing but HOME and PATH. Then ``deja config``, ``deja hooks log``
and what ``deja doctor`` reads from Cursor's own hook logs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import ENTRY, Sample, run_deja

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.sample import API_CACHE_CHAT, API_CHAT
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.hooks.call import FRAME_CLOSE, FRAME_OPEN

BUDGETS = {"hook-context": 2048, "hook-prompt": 1536, "hook-tool": 512, "hook-tool-after": 512}
START_BLOCK = "Recent sessions in this project"
NO_MATCH = "write a haiku about autumn leaves in Lisbon"
MODULE_ERROR = "E   ModuleNotFoundError: No module named 'api.cache'"
#: A chat in Russian and Japanese, for the cp1252 cases.
LOCALE_CHAT = "cafe0000-0000-4000-8000-00000000d0c5"
LOCALE_TITLE = "Кэш цен и локаль"
LOCALE_ERROR = "KeyError: ОшибкаКэша: ключ цены не найден для локали ru_RU (価格キャッシュ)"


# --- payloads and answers -------------------------------------------------------------------


def cursor(event: str, conversation: str, project: Path, **fields: Any) -> dict[str, Any]:
    """A payload as cursor-agent 2026 sends it (snake_case, lowerCamel event, workspace roots)."""
    return {
        "conversation_id": conversation,
        "session_id": conversation,
        "generation_id": conversation,
        "model": "claude-4.5-sonnet",
        "hook_event_name": event,
        "cursor_version": "2026.10.01",
        "workspace_roots": [str(project)],
        "user_email": None,
        "transcript_path": None,
        **fields,
    }


def own_transcript(sample: Sample, project: Path, conversation: str) -> str:
    """Where cursor-agent keeps a main conversation's transcript: what its tool events carry."""
    return str(transcript_path(sample.history.cli_root, str(project), conversation))


def tool(event: str, conversation: str, project: Path, name: str, tool_input: Any, **fields: Any) -> dict[str, Any]:
    return cursor(
        event, conversation, project, tool_name=name, tool_input=tool_input, tool_use_id="t\n1", cwd="", **fields
    )


def hook(command: str, payload: Any, env: dict[str, str], raw: bytes | None = None) -> str:
    """The context the model is given ("" for none); the hook must exit 0, print nothing on stderr, fit its budget."""
    done = run_deja(command, input=raw if raw is not None else json.dumps(payload).encode(), env=env)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    if not done.stdout.strip():
        return ""
    text = json.loads(done.stdout.decode("utf-8"))["additional_context"]
    assert len(text.encode()) <= BUDGETS[command]
    assert text.startswith(FRAME_OPEN) and text.count(FRAME_OPEN) == 1 and text.endswith(FRAME_CLOSE)
    return text


def log(sample: Sample) -> str:
    path = sample.home / "hooks.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def wait_for(what: str, check: Any, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen within {seconds} s"
        time.sleep(0.1)


@pytest.fixture
def api(indexed_sample: Sample) -> Path:
    return indexed_sample.history.projects["api"]


# --- the session-start block wherever the session starts --------------------------------------


def test_a_resumed_chat_gets_the_session_start_block_on_its_first_prompt_once(
    indexed_sample: Sample, api: Path
) -> None:
    env = indexed_sample.env
    first = hook("hook-prompt", cursor("beforeSubmitPrompt", "resumed-1", api, prompt=NO_MATCH), env)
    assert START_BLOCK in first and API_CACHE_CHAT in first and API_CHAT in first
    assert hook("hook-prompt", cursor("beforeSubmitPrompt", "resumed-1", api, prompt=NO_MATCH), env) == ""
    # Cursor does not wait for a slow sessionStart: one arriving after the prompt adds nothing twice.
    assert hook("hook-context", cursor("sessionStart", "resumed-1", api), env) == ""
    assert "hook-context sessionStart resumed-1: silent: this conversation was given the session-start block" in log(
        indexed_sample
    )


def test_the_first_prompt_carries_both_its_recall_and_the_session_start_block_in_its_budget(
    indexed_sample: Sample, api: Path
) -> None:
    text = hook(
        "hook-prompt",
        cursor("beforeSubmitPrompt", "resumed-2", api, prompt=f"tests fail: {MODULE_ERROR}"),
        indexed_sample.env,
    )
    assert "Past turns from other sessions" in text and START_BLOCK in text
    assert text.index("Past turns") < text.index(START_BLOCK)  # the prompt's own answer comes first
    shell = tool(
        "preToolUse",
        "resumed-3",
        api,
        "Shell",
        {"command": "pytest -q"},
        transcript_path=own_transcript(indexed_sample, api, "resumed-3"),
    )
    shell_text = hook("hook-tool", shell, indexed_sample.env)
    assert "`pytest -q` ran 2 times" in shell_text and START_BLOCK not in shell_text  # 512 bytes hold one of them
    logged = log(indexed_sample)
    assert "resumed-3: gave" in logged and "a readable block does not fit in what this event's budget leaves" in logged
    # So the conversation's next event with room carries it, once.
    prompt = cursor("beforeSubmitPrompt", "resumed-3", api, prompt=NO_MATCH)
    assert START_BLOCK in hook("hook-prompt", prompt, indexed_sample.env)
    assert hook("hook-prompt", prompt, indexed_sample.env) == ""


def test_new_switches_the_conversation_without_a_session_start_and_still_gets_the_block(
    indexed_sample: Sample, api: Path
) -> None:
    env = indexed_sample.env
    assert START_BLOCK in hook("hook-context", cursor("sessionStart", "chat-a", api), env)
    assert hook("hook-prompt", cursor("beforeSubmitPrompt", "chat-a", api, prompt=NO_MATCH), env) == ""
    # /new: a new conversation id, no sessionStart.
    assert START_BLOCK in hook("hook-prompt", cursor("beforeSubmitPrompt", "chat-b", api, prompt=NO_MATCH), env)
    assert hook("hook-prompt", cursor("beforeSubmitPrompt", "chat-b", api, prompt=NO_MATCH), env) == ""


# --- subagents share their parent's seen-set --------------------------------------------------


def test_a_task_subagents_tool_hooks_share_what_its_parent_was_shown(indexed_sample: Sample, api: Path) -> None:
    env, cache = indexed_sample.env, str(api / "api/cache.py")
    parent = own_transcript(indexed_sample, api, "parent-1")
    assert START_BLOCK in hook("hook-context", cursor("sessionStart", "parent-1", api), env)
    write = {"file_path": cache, "content": "x = 1\n"}
    assert API_CACHE_CHAT in hook(
        "hook-tool", tool("preToolUse", "parent-1", api, "Write", write, transcript_path=parent), env
    )
    task = {
        "description": "tidy the cache",
        "prompt": "tidy api/cache.py",
        "subagent_type": "explore",
        "model": "inherit",
    }
    hook("hook-tool", tool("preToolUse", "parent-1", api, "Task", task, transcript_path=parent), env)

    # The subagent's own tool hooks: its own conversation id, no transcript (as Cursor sends them).
    assert hook("hook-tool", tool("preToolUse", "sub-1", api, "Write", write), env) == ""
    assert "hook-tool preToolUse sub-1: silent: this file's sessions were shown in this conversation already" in log(
        indexed_sample
    )
    assert "a subagent of parent-1" in log(indexed_sample)
    # A conversation of its own (it has its transcript) is shown the file, and its session start.
    other = hook(
        "hook-tool",
        tool(
            "preToolUse", "other-1", api, "Write", write, transcript_path=own_transcript(indexed_sample, api, "other-1")
        ),
        env,
    )
    assert API_CACHE_CHAT in other


def test_one_task_files_one_conversation_as_its_subagent(indexed_sample: Sample, api: Path) -> None:
    """trial50 F6: after a Task, every new conversation whose first event was a tool event with no transcript was
    filed as its subagent for ten minutes, sharing what it had been shown. A Task starts one subagent: the first new
    conversation takes it, the next is a conversation of its own and is shown the file."""
    env, cache = indexed_sample.env, str(api / "api/cache.py")
    parent = own_transcript(indexed_sample, api, "parent-3")
    write = {"file_path": cache, "content": "x = 1\n"}
    assert API_CACHE_CHAT in hook(
        "hook-tool", tool("preToolUse", "parent-3", api, "Write", write, transcript_path=parent), env
    )
    task = {"description": "tidy the cache", "prompt": "tidy api/cache.py", "subagent_type": "explore"}
    hook("hook-tool", tool("preToolUse", "parent-3", api, "Task", task, transcript_path=parent), env)
    assert hook("hook-tool", tool("preToolUse", "sub-3", api, "Write", write), env) == ""
    assert hook("hook-tool", tool("preToolUse", "sub-3", api, "Write", write), env) == ""

    assert API_CACHE_CHAT in hook("hook-tool", tool("preToolUse", "stranger-3", api, "Write", write), env)
    filed = [line for line in log(indexed_sample).splitlines() if "a subagent of parent-3" in line]
    assert len(filed) == 1 and "sub-3" in filed[0], filed


def test_parallel_tasks_of_one_parent_each_file_their_subagent(indexed_sample: Sample, api: Path) -> None:
    """review50c M2: Cursor 3.x runs several Task calls of one turn in parallel, each starting a subagent of the
    parent. With one record per project that every Task rewrote, the first subagent took it and the second was shown
    again what the parent was. One record per Task: two Tasks, two subagents, and the next new conversation is none."""
    env, cache = indexed_sample.env, str(api / "api/cache.py")
    parent = own_transcript(indexed_sample, api, "parent-9")
    write = {"file_path": cache, "content": "x = 1\n"}
    assert API_CACHE_CHAT in hook(
        "hook-tool", tool("preToolUse", "parent-9", api, "Write", write, transcript_path=parent), env
    )
    for n in (1, 2):
        task = {"description": f"tidy part {n}", "prompt": f"tidy part {n}", "subagent_type": "explore"}
        hook("hook-tool", tool("preToolUse", "parent-9", api, "Task", task, transcript_path=parent), env)
    assert hook("hook-tool", tool("preToolUse", "sub-9a", api, "Write", write), env) == ""
    assert hook("hook-tool", tool("preToolUse", "sub-9b", api, "Write", write), env) == "", log(indexed_sample)
    assert API_CACHE_CHAT in hook("hook-tool", tool("preToolUse", "stranger-9", api, "Write", write), env)


def test_a_subagent_transcript_path_names_its_parent(indexed_sample: Sample, api: Path) -> None:
    env = indexed_sample.env
    assert START_BLOCK in hook("hook-context", cursor("sessionStart", "parent-2", api), env)
    child = Path(own_transcript(indexed_sample, api, "parent-2")).parent / "subagents" / "sub-2.jsonl"
    shell = tool("preToolUse", "sub-2", api, "Shell", {"command": "pytest -q"}, transcript_path=str(child))
    text = hook("hook-tool", shell, env)
    assert "`pytest -q` ran 2 times" in text and START_BLOCK not in text  # its parent had the block
    assert "a subagent of parent-2" in log(indexed_sample)


# --- cursor-agent -p: no beforeSubmitPrompt, the prompt is in the transcript -----------------


def test_a_print_mode_run_gets_its_prompts_recall_from_the_transcript_once(indexed_sample: Sample, api: Path) -> None:
    """``cursor-agent -p`` fires sessionStart, the tool hooks and sessionEnd, no beforeSubmitPrompt (drift §14): the
    first tool event gives the recall for the prompt its transcript holds, once; a ``-p --resume`` run's new prompt
    gets its own."""
    env, conversation = indexed_sample.env, "print-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}")])
    assert START_BLOCK in hook("hook-context", cursor("sessionStart", conversation, api), env)
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    text = hook("hook-tool", shell, env)
    assert "Past turns from other sessions that may answer this prompt:" in text and f"`deja show {API_CHAT}`" in text
    assert "recalled for its prompt, read from the transcript" in log(indexed_sample)
    assert hook("hook-tool", shell, env) == ""  # read once
    # A resumed -p run: its new prompt is appended to the transcript, and recalled at its first tool event.
    write_transcript(
        path,
        [
            user_turn(f"tests fail again: {MODULE_ERROR}"),
            user_turn("the price cache goes stale when the locale switches"),
        ],
    )
    assert f"`deja show {API_CACHE_CHAT}`" in hook("hook-tool", shell, env)
    assert hook("hook-tool", shell, env) == ""


def test_a_print_mode_prompts_recall_is_given_once_whatever_empties_the_seen_set(
    indexed_sample: Sample, api: Path
) -> None:
    """Each prompt's recall is claimed by one event (review39b M1: two tool events at once both gave it; L4: a
    compaction, which empties what the conversation was shown, gave it again)."""
    env, conversation = indexed_sample.env, "print-claim-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}")])
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    assert f"`deja show {API_CHAT}`" in hook("hook-tool", shell, env)
    hook("hook-session-end", cursor("preCompact", conversation, api, trigger="auto"), env)
    assert hook("hook-tool", shell, env) == ""


def test_a_print_mode_prompts_recall_without_room_in_its_first_event_comes_with_the_next(
    indexed_sample: Sample, api: Path
) -> None:
    """The event that has no room for the recall does not take it: the next one with room gives it."""
    env, conversation = indexed_sample.env, "print-room-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}")])
    pytest_run = tool("preToolUse", conversation, api, "Shell", {"command": "pytest -q"}, transcript_path=str(path))
    first = hook("hook-tool", pytest_run, env)
    assert "`pytest -q` ran 2 times" in first and "Past turns" not in first
    assert "its prompt's recall does not fit in what this event's budget leaves" in log(indexed_sample)
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    assert f"`deja show {API_CHAT}`" in hook("hook-tool", shell, env)


def test_a_transcript_line_nested_too_deep_leaves_the_tool_event_its_own_answer(
    indexed_sample: Sample, api: Path
) -> None:
    """A user line nested 600 deep (orjson reads it; the text reader recursed out) failed every tool event of the
    conversation (review39b L1): it is skipped, and the event says what it says without it."""
    env, conversation = indexed_sample.env, "print-deep-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    deep = '{"role":"user","message":{"content":' + "[" * 600 + '"x"' + "]" * 600 + "}}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(deep)
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    hook("hook-tool", shell, env)
    assert "RecursionError" not in log(indexed_sample)


def test_a_conversation_whose_prompt_hook_ran_reads_no_transcript(indexed_sample: Sample, api: Path) -> None:
    env, conversation = indexed_sample.env, "interactive-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}")])
    hook("hook-prompt", cursor("beforeSubmitPrompt", conversation, api, prompt=NO_MATCH), env)
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    assert hook("hook-tool", shell, env) == ""


@pytest.mark.parametrize("first", ["   ", "<deja-recall>\nPast turns…\n</deja-recall>"])
def test_a_conversation_whose_first_prompt_was_blank_reads_no_transcript(
    indexed_sample: Sample, api: Path, first: str
) -> None:
    """review39b L3: a first prompt the prompt hook answered with silence (blank, or only a pasted recall) left the
    conversation taken for a ``-p`` run: each later prompt was searched again by its first tool event."""
    env, conversation = indexed_sample.env, "interactive-blank-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    hook("hook-prompt", cursor("beforeSubmitPrompt", conversation, api, prompt=first), env)
    write_transcript(path, [user_turn("the price cache goes stale when the locale switches")])
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    assert hook("hook-tool", shell, env) == ""
    hook(
        "hook-prompt", cursor("beforeSubmitPrompt", conversation, api, prompt=f"tests fail again: {MODULE_ERROR}"), env
    )
    write_transcript(path, [user_turn("the price cache goes stale when the locale switches"), user_turn(MODULE_ERROR)])
    assert hook("hook-tool", shell, env) == ""
    assert "read from the transcript" not in log(indexed_sample)


def test_a_p_resume_after_an_interactive_resume_still_gets_its_prompts_recall(
    indexed_sample: Sample, api: Path
) -> None:
    """review40a M1: a chat begun with ``-p``, resumed once interactively (its prompt hook ran), then resumed with
    ``-p --resume``: the new prompt, which no prompt hook saw, got no recall (marked prompted for good)."""
    env, conversation = indexed_sample.env, "mixed-1"
    path = Path(own_transcript(indexed_sample, api, conversation))
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}")])
    shell = tool("preToolUse", conversation, api, "Shell", {"command": "ls -la"}, transcript_path=str(path))
    assert f"`deja show {API_CHAT}`" in hook("hook-tool", shell, env)
    hook("hook-prompt", cursor("beforeSubmitPrompt", conversation, api, prompt=NO_MATCH), env)
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}"), user_turn(NO_MATCH)])
    assert hook("hook-tool", shell, env) == ""
    asked = "the price cache goes stale when the locale switches"
    write_transcript(path, [user_turn(f"tests fail again: {MODULE_ERROR}"), user_turn(NO_MATCH), user_turn(asked)])
    assert f"`deja show {API_CACHE_CHAT}`" in hook("hook-tool", shell, env)


def test_a_recall_in_a_tool_events_512_bytes_shows_the_sessions_it_has_room_to_say(
    indexed_sample: Sample, api: Path
) -> None:
    """Two sessions pass the gate for this Task; its 512 bytes had cut each one's lines to fragments (``as…``,
    ``user: pytest fa…``): the first is shown, readable."""
    task = "pytest cannot import api.cache and the cache key omits the locale"
    payload = tool("preToolUse", "task-room-1", api, "Task", {"description": task, "prompt": task})
    lines = hook("hook-tool", payload, indexed_sample.env).splitlines()
    headings, details = [ln for ln in lines if ln.startswith("- ")], [ln for ln in lines if ln.startswith("  ")]
    assert len(headings) == 1 and headings[0].endswith(f"`deja show {API_CACHE_CHAT}`)")
    assert details and all(len(line) > 60 for line in details)


# --- what a prompt's attachments say ---------------------------------------------------------


def _recalled(text: str) -> list[str]:
    """The sessions a prompt's own answer names (the session-start block after it left out)."""
    own = text.split(START_BLOCK)[0]
    return [line.rpartition("`deja show ")[2].rstrip("`)") for line in own.splitlines() if line.startswith("- ")]


def test_a_file_attached_to_the_prompt_names_what_this_is(indexed_sample: Sample, api: Path) -> None:
    env, asked = indexed_sample.env, "why is this broken again?"
    attached = [{"type": "file", "file_path": str(api / "api/cache.py")}]
    assert _recalled(hook("hook-prompt", cursor("beforeSubmitPrompt", "attach-0", api, prompt=asked), env)) == []
    text = hook("hook-prompt", cursor("beforeSubmitPrompt", "attach-1", api, prompt=asked, attachments=attached), env)
    assert _recalled(text)[:1] == [API_CACHE_CHAT]
    assert "with the names of the files attached (cache.py)" in log(indexed_sample)
    # A rule Cursor attaches by itself says nothing of what the prompt is about.
    rule = [{"type": "rule", "file_path": str(api / ".cursor/rules/cache.py")}]
    assert (
        _recalled(
            hook("hook-prompt", cursor("beforeSubmitPrompt", "attach-2", api, prompt=asked, attachments=rule), env)
        )
        == []
    )


def test_an_attached_name_holding_a_secret_or_past_any_file_systems_limit_is_no_hint(
    indexed_sample: Sample, api: Path
) -> None:
    """review39b M2: a secret-shaped attached name reached hooks.log; M3: five names of 1.5 MB took the hook past
    its 5 s. Neither is read; the real file beside them still is."""
    env, asked = indexed_sample.env, "why is this broken again?"
    secret = "cache.py.sk_live_" + "abcdefghijklmnopqrstuvwx1234"
    attached = [
        {"type": "file", "file_path": str(api / secret)},
        *({"type": "file", "file_path": str(api / ("w" * 300_000 + f"{i}.py"))} for i in range(5)),
        {"type": "file", "file_path": str(api / "api/cache.py")},
    ]
    text = hook("hook-prompt", cursor("beforeSubmitPrompt", "attach-odd", api, prompt=asked, attachments=attached), env)
    assert _recalled(text)[:1] == [API_CACHE_CHAT]
    written = log(indexed_sample)
    assert "with the names of the files attached (cache.py)" in written
    assert "sk_live_" not in written and "www" not in written


def test_an_attachment_adds_nothing_to_what_the_prompts_own_words_recall(indexed_sample: Sample, api: Path) -> None:
    """The file open in the editor, attached to a prompt about something else, pulls in no session of its own: naming
    tests/test_cache.py beside "add rate limiting" made the price cache session a companion of the rate limit one."""
    env, asked = indexed_sample.env, "add rate limiting to the endpoint"
    alone = _recalled(hook("hook-prompt", cursor("beforeSubmitPrompt", "attach-3", api, prompt=asked), env))
    attached = [{"type": "file", "file_path": str(api / "tests/test_cache.py")}]
    prompt = cursor("beforeSubmitPrompt", "attach-4", api, prompt=asked, attachments=attached)
    assert alone == ["c0ffee07-1a2b-4c3d-8e9f-0a1b2c3d0007"] and _recalled(hook("hook-prompt", prompt, env)) == alone
    # Nor does it make a prompt that asks of nothing in the history recall.
    prompt = cursor("beforeSubmitPrompt", "attach-5", api, prompt=NO_MATCH, attachments=attached)
    assert _recalled(hook("hook-prompt", prompt, env)) == []


def test_a_past_chat_that_only_asked_the_same_question_is_no_companion(indexed_sample: Sample, api: Path) -> None:
    """A chat stopped after the question and one command, before any answer, holds all of the prompt: shown beside the
    session that answered it, it only echoed the prompt back (trial18 F12)."""
    asked = "the price cache goes stale when the locale switches"
    echo = "ec400000-0000-4000-8000-000000000001"
    records = [user_turn(f"{asked}, fix it"), assistant_turn(None, tool_use("Shell", {"command": "git log -5"}))]
    write_transcript(transcript_path(indexed_sample.history.cli_root, str(api), echo), records)
    refresh(indexed_sample.home)
    text = hook("hook-prompt", cursor("beforeSubmitPrompt", "echo-1", api, prompt=asked), indexed_sample.env)
    assert _recalled(text) == [API_CACHE_CHAT]
    assert f"`deja show {echo}`" in text  # (listed among the project's recent sessions, which it is)


# --- payload shapes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, tool_input",
    [
        ("Write", {"file_path": "api/cache.py", "content": "x = 1\n"}),
        ("Write", {"path": "api/cache.py", "contents": "x = 1\n"}),
        ("Edit", {"file_path": "api/cache.py", "old_string": "a", "new_string": "b"}),
        ("StrReplace", {"path": "api/cache.py", "old_string": "a", "new_string": "b"}),
    ],
    ids=["write-file_path-content", "write-path-contents", "edit", "str-replace"],
)
def test_every_write_and_edit_shape_names_the_file(
    indexed_sample: Sample, api: Path, name: str, tool_input: dict
) -> None:
    payload = tool(
        "preToolUse", f"shape-{name}", api, name, tool_input, transcript_path=own_transcript(indexed_sample, api, "x")
    )
    text = hook("hook-tool", payload, indexed_sample.env)
    assert "Past sessions that edited api/cache.py:" in text and API_CACHE_CHAT in text


@pytest.mark.parametrize(
    "tool_input, why",
    [
        ({"files": ["api/cache.py"]}, "no file path in the tool input"),
        ("not json at all", "no file path in the tool input"),
        ([1, 2, 3], "no file path in the tool input"),
        ({"file_path": 42}, "no file path in the tool input"),
    ],
    ids=["unknown-field", "string", "list", "number"],
)
def test_an_unknown_shape_is_silence_with_a_reason_never_an_error(
    indexed_sample: Sample, api: Path, tool_input: Any, why: str
) -> None:
    payload = tool("preToolUse", "shape-unknown", api, "Write", tool_input)
    run_deja("hook-context", input=json.dumps(cursor("sessionStart", "shape-unknown", api)), env=indexed_sample.env)
    assert hook("hook-tool", payload, indexed_sample.env) == ""
    assert f"hook-tool preToolUse shape-unknown: silent: {why}" in log(indexed_sample)


# --- UTF-8 whatever the platform says ---------------------------------------------------------


def write_locale_chat(sample: Sample, project: Path) -> None:
    """A chat in Russian and Japanese that edited ``api/цены.py`` and hit an error with a Cyrillic message."""
    now = datetime.now(UTC)
    command = "python -m api.цены --locale ru_RU"
    records = [
        user_turn("Почему кэш цен устаревает после смены локали? 価格が古い", now - timedelta(minutes=20)),
        assistant_turn("Запускаю проверку.", tool_use("Shell", {"command": command})),
        assistant_turn(
            "Готово: ключ кэша цен теперь включает локаль, правка в api/цены.py. キャッシュキーにロケールを追加しました。",
            tool_use(
                "StrReplace", {"path": str(project / "api/цены.py"), "old_string": "key", "new_string": "key+locale"}
            ),
        ),
        turn_ended(),
    ]
    store = [
        {"role": "user", "content": [{"type": "text", "text": records[0]["message"]["content"][0]["text"]}]},
        {"role": "assistant", "content": [tool_call_part("t1", "Shell", {"command": command})]},
        tool_result_message("t1", "Shell", shell_result_text(LOCALE_ERROR, exit_code=1)),
    ]
    write_transcript(transcript_path(sample.history.cli_root, str(project), LOCALE_CHAT), records)
    write_chat_store(
        chat_dir_for(sample.history.cli_root, str(project), LOCALE_CHAT),
        cwd=str(project),
        messages=store,
        name=LOCALE_TITLE,
    )
    refresh(sample.home)


def test_every_hook_speaks_utf8_under_cp1252_stdio_and_the_c_locale(indexed_sample: Sample, api: Path) -> None:
    write_locale_chat(indexed_sample, api)
    windows = {**indexed_sample.env, "PYTHONIOENCODING": "cp1252", "LANG": "C"}
    failed = json.dumps({"output": LOCALE_ERROR, "exitCode": 1})
    cases = {
        "hook-context": cursor("sessionStart", "ru-1", api),
        "hook-prompt": cursor(
            "beforeSubmitPrompt", "ru-2", api, prompt="почему кэш цен устаревает после смены локали?"
        ),
        "hook-tool": tool(
            "preToolUse",
            "ru-3",
            api,
            "Write",
            {"file_path": "api/цены.py", "content": "…"},
            transcript_path="/x/ru-3/ru-3.jsonl",
        ),
        "hook-tool-after": tool(
            "postToolUse",
            "ru-4",
            api,
            "Shell",
            {"command": "python -m api.цены"},
            tool_output=failed,
            transcript_path="/x/ru-4/ru-4.jsonl",
        ),
    }
    for command, payload in cases.items():
        text = hook(command, payload, windows)
        assert LOCALE_TITLE in text or "кэш" in text.lower(), (command, text)
    # Windows Cursor puts a UTF-8 byte order mark before the JSON.
    bom = "\ufeff".encode() + json.dumps(cursor("beforeSubmitPrompt", "ru-5", api, prompt="кэш цен локаль")).encode()
    assert LOCALE_TITLE in hook("hook-prompt", None, windows, raw=bom)
    ended = run_deja(
        "hook-session-end", input=json.dumps(cursor("sessionEnd", LOCALE_CHAT, api, reason="completed")), env=windows
    )
    assert ended.returncode == 0 and ended.stdout == "" and ended.stderr == ""
    wait_for("the detached ingest", lambda: f"ingested {LOCALE_CHAT}:" in log(indexed_sample))


# --- session end survives the process group that started it ----------------------------------


def test_session_end_ingests_even_when_its_process_group_is_killed_as_it_returns(
    indexed_sample: Sample, api: Path
) -> None:
    chat = "dead0000-0000-4000-8000-00000000beef"
    late = transcript_path(indexed_sample.history.cli_root, str(api), chat)
    write_transcript(
        late,
        [
            user_turn("what is the zebra rotation schedule?", datetime.now(UTC)),
            assistant_turn("Every 90 days."),
            turn_ended(),
        ],
    )
    payload = json.dumps(cursor("sessionEnd", chat, api, transcript_path=str(late), reason="completed")).encode()
    started = time.perf_counter()
    hook_process = subprocess.Popen(
        [*ENTRY, "hook-session-end"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=indexed_sample.env,
        start_new_session=True,  # its own process group, as cursor-agent gives its hooks
    )
    out, err = hook_process.communicate(payload, timeout=30)
    returned = time.perf_counter() - started
    with contextlib.suppress(ProcessLookupError):  # what cursor-agent's exit does to the hook's group, at once
        os.killpg(hook_process.pid, signal.SIGKILL)
    assert hook_process.returncode == 0 and out == b"" and err == b""
    assert returned < 2.0
    wait_for("the ingest of the closed chat", lambda: bool(Index.open(indexed_sample.home).find(chat)))
    # The background process logs once the index holds the chat: wait for its line too.
    wait_for("the ingest's line in hooks.log", lambda: f"ingested {chat}:" in log(indexed_sample))
    assert f"ingested {chat}: 1 added" in log(indexed_sample)


# --- one configuration, seen by a hook started with an empty environment ----------------------


def bare_env(home: Path) -> dict[str, str]:
    """What Cursor gives a hook, at worst: HOME and PATH, nothing from the user's shell."""
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def test_a_config_file_setting_reaches_a_hook_started_with_only_home_and_path(
    indexed_sample: Sample, api: Path, fake_home: Path
) -> None:
    bare = bare_env(fake_home)
    prompt = cursor("beforeSubmitPrompt", "bare-1", api, prompt=f"tests fail: {MODULE_ERROR}")
    assert hook("hook-prompt", prompt, bare) == ""  # nothing configured: no index where the default home is
    for key, value in (
        ("home", indexed_sample.home),
        ("cursor_root", indexed_sample.history.ide_root),
        ("cursor_cli_root", indexed_sample.history.cli_root),
        ("recall", "aggressive"),
    ):
        done = run_deja("config", "set", key, str(value), env=bare)
        assert done.returncode == 0 and f"{key} = " in done.stdout, done.stderr
    assert API_CHAT in hook("hook-prompt", {**prompt, "conversation_id": "bare-2", "session_id": "bare-2"}, bare)

    assert run_deja("config", "set", "recall", "off", env=bare).returncode == 0
    assert hook("hook-prompt", {**prompt, "conversation_id": "bare-3", "session_id": "bare-3"}, bare) == ""
    assert "bare-3: silent: recall is off" in log(indexed_sample)
    # The variable still wins where it is set.
    on = {**bare, "DEJA_RECALL": "safe"}
    assert API_CHAT in hook("hook-prompt", {**prompt, "conversation_id": "bare-4", "session_id": "bare-4"}, on)


def test_deja_config_shows_each_value_and_where_it_came_from(fake_home: Path) -> None:
    bare = bare_env(fake_home)
    path = fake_home / ".config" / "deja" / "config.toml"
    shown = run_deja("config", env=bare)
    assert shown.returncode == 0 and f"config file: {path} (not there yet" in shown.stdout
    assert "recall             safe" in shown.stdout and "default" in shown.stdout

    assert run_deja("config", "set", "recall", "aggressive", env=bare).returncode == 0
    assert run_deja("config", "set", "redact", "false", env=bare).returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = orjson.loads(run_deja("config", "--json", env={**bare, "DEJA_RECALL": "off"}).stdout)
    assert data["file"] == str(path) and data["exists"] is True
    assert data["settings"]["recall"] == {
        "value": "off",
        "effective": "off",
        "source": "env",
        "variable": "DEJA_RECALL",
        "in_cursor": "aggressive",
        "problem": "",
    }
    assert data["settings"]["redact"]["value"] is False and data["settings"]["redact"]["source"] == "file"
    assert data["settings"]["home"]["source"] == "default"
    text = run_deja("config", env={**bare, "DEJA_RECALL": "off"}).stdout
    assert "env DEJA_RECALL" in text and "Cursor's hooks and MCP server get aggressive" in text


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("recall", "loud", "recall takes one of off, safe, aggressive, not 'loud'"),
        ("redact", "maybe", "redact takes true or false, not 'maybe'"),
        ("colour", "blue", "unknown key 'colour'"),
    ],
)
def test_config_set_refuses_a_bad_key_or_value_in_one_line(fake_home: Path, key: str, value: str, message: str) -> None:
    done = run_deja("config", "set", key, value, env=bare_env(fake_home))
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and message in done.stderr
    assert not (fake_home / ".config" / "deja" / "config.toml").exists()


# --- proof that hooks run ----------------------------------------------------------------------


def test_hooks_log_says_what_each_hook_gave_and_why_it_stayed_silent(indexed_sample: Sample, api: Path) -> None:
    env = indexed_sample.env
    hook("hook-prompt", cursor("beforeSubmitPrompt", "log-1", api, prompt=f"tests fail: {MODULE_ERROR}"), env)
    hook("hook-tool", tool("preToolUse", "log-1", api, "Shell", {"command": "ls -la"}), env)
    hook(
        "hook-tool-after",
        tool("postToolUse", "log-1", api, "Shell", {"command": "ls"}, tool_output='{"exitCode": 0}'),
        env,
    )
    envelope = orjson.loads(run_deja("hooks", "log", "--json", env=env).stdout)
    assert envelope["schema_version"] == 1
    decisions = envelope["decisions"]
    assert [(d["command"], d["conversation"]) for d in decisions] == [
        ("hook-prompt", "log-1"),
        ("hook-tool", "log-1"),
        ("hook-tool-after", "log-1"),
    ]
    assert decisions[0]["gave_bytes"] > 0 and "with the session-start block" in decisions[0]["notes"]
    assert decisions[1]["why"] == "`ls` only looks around"
    assert decisions[2]["why"] == "the command did not fail"
    text = run_deja("hooks", "log", env=env).stdout
    assert "silent: `ls` only looks around" in text and "silent: the command did not fail" in text


CURSOR_HOOK_LOG = """\
2026-11-30 10:10:12.001 [info] Loaded 7 user hook(s) for steps: sessionStart, beforeSubmitPrompt, preToolUse
2026-11-30 10:10:15.100 [info] Hook step requested: sessionStart
2026-11-30 10:10:15.101 [info] Executing hook 1/1 from user config
2026-11-30 10:10:15.102 [info] Running script in directory: /home/u/.cursor
INPUT:
{"conversation_id": "c1", "hook_event_name": "sessionStart"}
2026-11-30 10:10:15.190 [info] Command: /opt/deja/bin/deja hook-context (88ms) exit code: 0
OUTPUT:
{"additional_context":"<deja-recall>\\nRecent sessions"}
2026-11-30 10:11:00.000 [info] Hook step requested: beforeSubmitPrompt
Command: /opt/deja/bin/deja hook-prompt (70ms) exit code: 0

OUTPUT:
(empty)
All hooks for step beforeSubmitPrompt completed but none returned a valid response
[2026-11-30T10:12:00.000Z] ERROR: Hook 1 failed with exit code 1
Command: /opt/deja/bin/deja hook-tool (52ms) exit code: 1

OUTPUT:
(empty)

STDERR:
Traceback (most recent call last):
"""


def test_doctor_reads_cursors_hook_logs_per_event_and_says_when_there_are_none(indexed_sample: Sample) -> None:
    none = orjson.loads(run_deja("doctor", "--json", env=indexed_sample.env).stdout)
    assert none["delivery"]["log_files"] == 0 and none["delivery"]["events"] == []
    assert "no Cursor hook log under" in run_deja("doctor", env=indexed_sample.env).stdout

    window = indexed_sample.history.ide_root.parent / "logs" / "20261130T101010" / "window1" / "output_20261130T101011"
    window.mkdir(parents=True)
    (window / "cursor.hooks.workspaceId-abc.log").write_text(CURSOR_HOOK_LOG, encoding="utf-8")
    report = orjson.loads(run_deja("doctor", "--json", env=indexed_sample.env).stdout)
    events = {e["event"]: e for e in report["delivery"]["events"]}
    assert set(events) == {"sessionStart", "beforeSubmitPrompt", "preToolUse"}
    assert events["sessionStart"]["runs"] == 1 and events["sessionStart"]["last_context"] is not None
    assert events["beforeSubmitPrompt"]["last_context"] is None and events["beforeSubmitPrompt"]["failures"] == 0
    assert events["preToolUse"]["last_exit"] == 1 and events["preToolUse"]["stderr_runs"] == 1
    assert any(p["area"] == "delivery" and "preToolUse" in p["message"] for p in report["problems"])
    text = run_deja("doctor", env=indexed_sample.env).stdout
    assert "sessionStart         ran 1 time, last 2026-11-30" in text and "never returned context" in text


#: Cursor's hook log as trial18 F9 saw it: a prompt hook whose launcher could not start (`` || true`` made it exit 0),
#: a Shell hook Cursor stopped at its timeout, and another tool's hook timing out after deja's ran.
CURSOR_HOOK_LOG_FAILURES = """\
2026-12-04 14:03:05.000 [info] Hook step requested: preToolUse
2026-12-04 14:03:05.001 [info] Executing hook 1/1 from user config
2026-12-04 14:03:10.002 [info] Command: /opt/deja/bin/python3 -I -S /opt/deja/site-packages/deja/interfaces/hook.py \
hook-tool || true (5001ms) exit code: -1
2026-12-04 14:03:10.003 [error] Hook timed out after 5000ms
2026-12-04 14:03:10.004 [info] All hooks for step preToolUse completed but none returned a valid response
2026-12-04 14:07:02.000 [info] Hook step requested: beforeSubmitPrompt
2026-12-04 14:07:02.001 [info] Executing hook 1/2 from user config
2026-12-04 14:07:02.040 [info] Command: /opt/deja/bin/python3 -I -S /opt/deja/site-packages/deja/interfaces/hook.py \
hook-prompt || true (39ms) exit code: 0
2026-12-04 14:07:02.041 [info] OUTPUT:
(empty)
2026-12-04 14:07:02.042 [info] STDERR:
/opt/deja/bin/python3: can't open file '/opt/deja/site-packages/deja/interfaces/hook.py': [Errno 2] No such file
2026-12-04 14:07:02.043 [info] Executing hook 2/2 from user config
2026-12-04 14:07:07.050 [info] Command: /usr/local/bin/other-tool prompt (5002ms) exit code: -1
2026-12-04 14:07:07.051 [error] Hook timed out after 5000ms
"""


def test_doctor_says_a_hook_cursor_stopped_and_one_that_wrote_to_stderr_with_what_to_do(
    indexed_sample: Sample,
) -> None:
    window = indexed_sample.history.ide_root.parent / "logs" / "20261204T135500" / "window1" / "output_20261204T1355"
    window.mkdir(parents=True)
    (window / "cursor.hooks.log").write_text(CURSOR_HOOK_LOG_FAILURES, encoding="utf-8")
    report = orjson.loads(run_deja("doctor", "--json", env=indexed_sample.env).stdout)
    events = {e["event"]: e for e in report["delivery"]["events"]}
    assert events["preToolUse"]["timeouts"] == 1 and events["preToolUse"]["timeout_ms"] == 5000
    assert events["preToolUse"]["failures"] == 0  # (said as a timeout, not as "exit code -1")
    prompt = events["beforeSubmitPrompt"]
    assert prompt["stderr_runs"] == 1 and prompt["last_stderr"].startswith("/opt/deja/bin/python3: can't open file")
    assert prompt["timeouts"] == 0 and prompt["failures"] == 0  # another tool's timeout is not deja's
    text = run_deja("doctor", env=indexed_sample.env).stdout
    assert "Cursor stopped deja's preToolUse hook 1 time: it timed out after 5 s" in text
    assert "deja config set trace true" in text and "exit code -1" not in text
    assert "deja's beforeSubmitPrompt hook wrote to stderr 1 time" in text and "can't open file" in text
    assert "fix: deja install cursor-auto" in text


def test_doctor_does_not_take_the_hooks_own_line_on_stderr_for_python_failing_to_start(indexed_sample: Sample) -> None:
    """A hook on a read-only home answers and says on stderr it cannot log (drift49): doctor's fix is that line's,
    not a reinstall."""
    window = indexed_sample.history.ide_root.parent / "logs" / "20261204T135500" / "window1" / "output_20261204T1355"
    window.mkdir(parents=True)
    unlogged = "deja: cannot write /home/u/.cache/deja/hooks.log: Read-only file system; this hook answered but"
    log = CURSOR_HOOK_LOG_FAILURES.replace(
        "/opt/deja/bin/python3: can't open file '/opt/deja/site-packages/deja/interfaces/hook.py': [Errno 2] No such file",
        unlogged,
    )
    (window / "cursor.hooks.log").write_text(log, encoding="utf-8")
    text = run_deja("doctor", env=indexed_sample.env).stdout
    assert "deja's beforeSubmitPrompt hook wrote to stderr 1 time" in text and unlogged in text, text
    assert "fix: what that line says: the hook answered, but could not write its hooks.log" in text
    assert "reinstall it by" not in text


def test_doctor_warns_when_the_shell_sets_what_cursors_hooks_never_see(indexed_sample: Sample) -> None:
    report = orjson.loads(run_deja("doctor", "--json", env={**indexed_sample.env, "DEJA_RECALL": "aggressive"}).stdout)
    settings = [p for p in report["problems"] if p["area"] == "settings"]
    assert any(
        "DEJA_RECALL is set in this shell" in p["message"] and p["fix"] == "deja config set recall aggressive"
        for p in settings
    )
    assert any("DEJA_HOME is set in this shell" in p["message"] for p in settings)


def test_a_bom_prefixed_payload_on_a_stdin_left_open_is_answered_at_once(indexed_sample: Sample, api: Path) -> None:
    payload = "\ufeff".encode() + json.dumps(cursor("beforeSubmitPrompt", "bom-1", api, prompt=NO_MATCH)).encode()
    process = subprocess.Popen(
        [*ENTRY, "hook-prompt"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=indexed_sample.env
    )
    try:
        started = time.perf_counter()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(payload)
        process.stdin.flush()
        out = process.stdout.read()  # stdin stays open: the hook stops reading once the JSON is whole
        assert process.wait(timeout=10) == 0
        assert time.perf_counter() - started < 0.5 + 1.0
    finally:
        process.kill()
        if process.stdin is not None:
            process.stdin.close()
    assert START_BLOCK in json.loads(out)["additional_context"]
    assert "stdin was still open" not in log(indexed_sample)


def test_the_cli_writes_utf8_on_stdout_and_stderr_under_cp1252(tmp_path: Path) -> None:
    home = tmp_path / "домой"
    home.mkdir()
    windows = {**bare_env(home), "PYTHONIOENCODING": "cp1252", "LANG": "C"}
    shown = subprocess.run([*ENTRY, "config"], env=windows, capture_output=True, timeout=60)
    assert shown.returncode == 0 and f"config file: {home}/.config/deja/config.toml".encode() in shown.stdout
    refused = subprocess.run(
        [*ENTRY, "config", "set", "recall", "громко"], env=windows, capture_output=True, timeout=60
    )
    assert refused.returncode == 2 and "not 'громко'".encode() in refused.stderr
