"""A chat written while no hook ran reaches the hooks without any ``deja`` read: a hook that finds the index last
looked at over ``CATCH_UP_SECONDS`` ago starts a read's catch-up detached, once, and the next hook sees the chat
(trial21 F6: a cursor-agent killed before its end hooks ran left a chat no hook recalled until a CLI or MCP read)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from harness import imported_modules
from test_hooks import Machine, cursor, cursor_tool, framed

from deja.core.detached import python_module
from deja.core.index import Index, index_dir
from deja.core.index.format import FRESHNESS_RECORD, WHOLE_STAMP
from deja.core.indexer.glance import WALK_STAMP
from deja.core.writers.cursor_agent import assistant_turn, turn_ended, user_turn
from deja.hooks.call import CATCH_UP_SECONDS, TOOL_CATCH_UP_SECONDS

CHAT = "5e9e0000-0000-4000-8000-00000000f6f6"
TITLE = "Sentry source maps missing"
ASKED = "sentry source maps are not uploaded in the release build"


def _write_unended_chat(machine: Machine) -> None:
    """A chat whose stop and sessionEnd hooks never ran (cursor-agent killed): only its files say it happened."""
    now = datetime.now(UTC)
    records = [
        user_turn("sentry shows minified stack traces: source maps missing from the release build", now),
        assistant_turn(
            "Fixed: the release build set `devtool: false`; with `hidden-source-map` and `sentry-cli sourcemaps "
            "upload dist` after the build, Sentry shows the original source lines.",
        ),
        turn_ended(),
    ]
    machine.write_chat(machine.api, CHAT, records, [], name=TITLE)


def _age_the_index(machine: Machine, seconds: float) -> None:
    """Date the index's last whole check and last refresh ``seconds`` back, as a pause with no read leaves them."""
    then = time.time() - seconds
    for name in (WHOLE_STAMP, FRESHNESS_RECORD):
        path = index_dir(machine.deja_home) / name
        path.touch()
        os.utime(path, (then, then))


def _wait_for_session(home: Path, session: str, seconds: float = 60) -> None:
    """Wait for the detached catch-up to have put ``session`` in the index."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Index.open(home).find(session):
                return
        except Exception:  # noqa: BLE001 - the catch-up may be swapping the manifest in
            pass
        time.sleep(0.1)
    raise AssertionError(f"{session} never reached the index under {home} within {seconds} s")


def _not_at_a_span_end() -> None:
    """Wait out the last seconds of a claim's span, so that the hooks below fire in one."""
    left = CATCH_UP_SECONDS - time.time() % CATCH_UP_SECONDS
    if left < 5:
        time.sleep(left)


def test_a_chat_no_hook_saw_reaches_the_next_hook_without_a_read(indexed: Machine) -> None:
    _write_unended_chat(indexed)
    _age_the_index(indexed, CATCH_UP_SECONDS + 5)
    _not_at_a_span_end()

    first = indexed.run("hook-context", cursor("sessionStart", "c-f6-1", indexed.api))
    prompt = indexed.run("hook-prompt", cursor("beforeSubmitPrompt", "c-f6-1", indexed.api, prompt=ASKED))
    assert TITLE not in first.text and TITLE not in prompt.text  # answered from the index as it stands
    lines = indexed.log().splitlines()[-2:]
    started = [line for line in lines if "catching up in a background process" in line]
    assert len(started) == 1 and "hook-context sessionStart c-f6-1" in started[0], lines  # once for both hooks

    _wait_for_session(indexed.deja_home, CHAT)
    later = framed(indexed.run("hook-context", cursor("sessionStart", "c-f6-2", indexed.api)).text, 2048)
    assert TITLE in later and f"deja show {CHAT}" in later
    recalled = framed(
        indexed.run("hook-prompt", cursor("beforeSubmitPrompt", "c-f6-3", indexed.api, prompt=ASKED)).text, 1536
    )
    assert f'"{TITLE}" (api, ' in recalled and "hidden-source-map" in recalled


def test_hooks_that_fire_together_start_one_catch_up(indexed: Machine) -> None:
    _age_the_index(indexed, CATCH_UP_SECONDS + 5)
    _not_at_a_span_end()
    payloads = [cursor("sessionStart", f"c-f6-together-{n}", indexed.api) for n in range(4)]
    hooks = [
        subprocess.Popen(
            [sys.executable, "-m", "deja.interfaces.entry", "hook-context"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            env=indexed.env,
        )
        for _ in payloads
    ]
    for hook, payload in zip(hooks, payloads, strict=True):  # (all started before any is given its event)
        assert hook.stdin is not None
        hook.stdin.write(json.dumps(payload).encode())
        hook.stdin.close()
    assert [hook.wait(timeout=60) for hook in hooks] == [0] * 4
    assert indexed.log().count("catching up in a background process") == 1, indexed.log()


def test_a_hook_after_a_recent_check_starts_nothing(indexed: Machine) -> None:
    indexed.run("hook-context", cursor("sessionStart", "c-f6-4", indexed.api))
    assert "catching up" not in indexed.log()  # the index was just built: no process to spare


def test_a_tool_calls_hook_waits_ten_minutes_for_a_catch_up(indexed: Machine) -> None:
    """An agent makes many tool calls a minute: each 30 s, one started a process and the cheap check (review41b M3)."""
    shell = {"command": "pytest -q"}
    _age_the_index(indexed, CATCH_UP_SECONDS + 5)
    indexed.run("hook-tool", cursor_tool("preToolUse", "c-m3-1", indexed.api, "Shell", shell))
    assert "catching up" not in indexed.log()
    _age_the_index(indexed, TOOL_CATCH_UP_SECONDS + 5)
    indexed.run("hook-tool", cursor_tool("preToolUse", "c-m3-2", indexed.api, "Shell", shell))
    assert indexed.log().count("catching up in a background process") == 1, indexed.log()


def test_a_hooks_catch_up_starts_no_walk_of_every_chat(indexed: Machine) -> None:
    """A walk is seconds of CPU at 100k chats: a hook's catch-up, every 30 s while prompts come, started one each
    minute (review41b M3). The reads start it when it is due."""
    directory = index_dir(indexed.deja_home)
    record = directory / FRESHNESS_RECORD
    fields = json.loads(record.read_bytes())
    record.write_text(json.dumps({**fields, "walked_at": time.time() - 3600}))  # a walk long due
    (directory / WALK_STAMP).unlink(missing_ok=True)
    ran = subprocess.run(python_module("deja.core.indexer", "catch-up"), env=indexed.env, timeout=120)
    assert ran.returncode == 0
    assert not (directory / WALK_STAMP).exists()


def test_a_catch_up_that_finds_nothing_changed_loads_no_indexer(indexed: Machine) -> None:
    """A hook starts a catch-up every 30 s while prompts come, and most find nothing: the cheap check alone, without
    the indexer's imports (msgspec, the readers: about 60 ms of CPU each, review41b). One that finds a chat indexes
    it."""
    catch_up = python_module("deja.core.indexer", "catch-up")
    ran = subprocess.run(
        [catch_up[0], "-X", "importtime", *catch_up[1:]], env=indexed.env, capture_output=True, text=True
    )
    loaded = imported_modules(ran.stderr)
    assert ran.returncode == 0 and "deja.core.indexer.glance" in loaded
    assert not {"msgspec", "deja.core.indexer.driver", "deja.core.readers"} & loaded, sorted(loaded)
    _write_unended_chat(indexed)
    _age_the_index(indexed, CATCH_UP_SECONDS + 5)
    assert subprocess.run(catch_up, env=indexed.env, timeout=120).returncode == 0
    assert Index.open(indexed.deja_home).find(CHAT)
