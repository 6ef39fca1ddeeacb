"""hooks.log holds one line per hook call, in text: a control character in any field of a payload (a NUL in a
conversation id, a terminal escape, a line separator) is written escaped, not raw.

(A new-user trial's NUL in a conversation_id went raw into hooks.log: ``grep`` took the file for binary.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import run_deja

from deja.hooks.call import log


def _log_bytes(fake_home: Path) -> bytes:
    return (fake_home / ".cache" / "deja" / "hooks.log").read_bytes()


def _is_text_lines(data: bytes) -> bool:
    return all(byte >= 0x20 or byte in b"\n" for byte in data) and b"\x7f" not in data


def test_a_nul_in_a_conversation_id_is_logged_escaped(fake_home: Path) -> None:
    payload = {
        "conversation_id": "conv\x00one\x1b[31m\x85\u2028",
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "why does the build fail",
        "workspace_roots": [str(fake_home)],
    }
    ran = run_deja("hook-prompt", input=json.dumps(payload))
    assert ran.returncode == 0, ran.stderr
    data = _log_bytes(fake_home)
    assert data.count(b"\n") == 1 and _is_text_lines(data), data
    assert b"conv\\x00one\\x1b[31m" in data
    listed = run_deja("hooks", "log")
    assert listed.returncode == 0 and "conv\\x00one" in listed.stdout and "\x00" not in listed.stdout


@pytest.mark.unit
def test_every_line_the_log_writes_is_one_line_of_text(fake_home: Path) -> None:
    log("hook-tool postToolUse c1: failed: ValueError: line one\nline two\r\x0b\x0c\x1c\x1d\x1e\x00\x7f\u2029end")
    data = _log_bytes(fake_home)
    assert data.count(b"\n") == 1 and _is_text_lines(data), data
    assert (
        data.decode()
        .splitlines()[0]
        .endswith("line one\\x0aline two\\x0d\\x0b\\x0c\\x1c\\x1d\\x1e\\x00\\x7f\\u2029end")
    )


def test_a_hooks_time_is_read_in_the_readers_zone_whatever_zone_the_hook_ran_in(fake_home: Path) -> None:
    """Cursor may start a hook with another ``TZ`` than the shell that reads the log: a line carries its offset."""
    from datetime import UTC, datetime, timedelta

    payload = {
        "conversation_id": "zones",
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "why",
        "cursor_version": "3",
    }
    ran = run_deja("hook-prompt", input=json.dumps(payload), env={**os.environ, "TZ": "UTC"})
    assert ran.returncode == 0, ran.stderr
    now = datetime.now(UTC)
    log_file = fake_home / ".cache" / "deja" / "hooks.log"
    written = log_file.read_text(encoding="utf-8")
    # a line from before lines had an offset: read as the reader's local time, as it always was
    log_file.write_text("2026-12-01T09:30:00 hook-context sessionStart old: silent: no index yet\n" + written)
    listed = run_deja("hooks", "log", "--json", env={**os.environ, "TZ": "Asia/Kolkata"})
    old, new = (d["when"] for d in json.loads(listed.stdout)["decisions"])
    assert old == "2026-12-01T09:30:00+05:30"
    assert new.endswith("+05:30") and abs(datetime.fromisoformat(new) - now) < timedelta(minutes=5), new


def test_two_conversations_sharing_their_first_12_characters_are_listed_apart(fake_home: Path) -> None:
    """``deja hooks log`` names a conversation by its first 12 characters, or as many as tell it from the others:
    two ids of one prefix were printed alike."""
    ids = ["5d1c7a40-0c1a-4f00-8000-000000000001", "5d1c7a40-0c1a-4f00-9000-000000000002", "ab12cd34-0000-4000"]
    for conversation in ids:
        payload = {"conversation_id": conversation, "hook_event_name": "beforeSubmitPrompt", "prompt": "hello"}
        assert (
            run_deja("hook-prompt", input=json.dumps({**payload, "workspace_roots": [str(fake_home)]})).returncode == 0
        )
    rows = run_deja("hooks", "log").stdout.splitlines()
    assert [row.split()[3] for row in rows] == ["5d1c7a40-0c1a-4f00-8", "5d1c7a40-0c1a-4f00-9", "ab12cd34-000"]
    assert len({row.index(" silent: ") for row in rows}) == 1  # (the column still lines up)
