"""The failure hook keeps the names an error quotes, as ``deja fix`` does.

``Cannot find module 'lodash'`` and ``Cannot find module 'stripe'`` share their signature (quoted strings are
left out of it); the hook run after a failed Shell call must recall the session that hit the same module, not
the newest one that hit any module. Real cursor-agent chats (transcript and store.db) are written, indexed, and
``deja hook-tool-after`` is run as Cursor runs it, a process given the payload on stdin.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from harness import run_deja

from deja.core.failures import past_failures, session_place, what_followed
from deja.core.index import Index
from deja.core.index.format import Codec
from deja.core.index.light import LIGHT
from deja.core.indexer import refresh
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

T0 = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
LODASH_CHAT = "c0000000-0000-4000-8000-00000000000a"
STRIPE_CHAT = "c0000000-0000-4000-8000-00000000000b"
ASKING = "d0000000-0000-4000-8000-00000000000c"


def _missing_module_chat(cli_root: Path, project: Path, chat_id: str, module: str, start: datetime) -> None:
    """A chat where ``node server.js`` fails on a missing module, ``npm install`` fixes it and the server starts."""
    steps = [
        ("node server.js", f"Error: Cannot find module '{module}'\nRequire stack:\n- /srv/web/server.js", 1),
        (f"npm install {module}", "added 1 package", 0),
        ("node server.js", "listening on 3000", 0),
    ]
    records: list[dict[str, Any]] = [user_turn("server won't start", start)]
    store: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": [{"type": "text", "text": records[0]["message"]["content"][0]["text"]}]},
    ]
    for i, (command, output, code) in enumerate(steps):
        call_id = f"call_{i}"
        records.append(assistant_turn(None, tool_use("Shell", {"command": command})))
        store.append({"role": "assistant", "content": [tool_call_part(call_id, "Shell", {"command": command})]})
        store.append(tool_result_message(call_id, "Shell", shell_result_text(output, exit_code=code)))
    records += [assistant_turn(f"Installed {module}."), turn_ended()]
    store.append({"role": "assistant", "content": [{"type": "text", "text": f"Installed {module}."}]})
    write_transcript(transcript_path(cli_root, str(project), chat_id), records)
    write_chat_store(
        chat_dir_for(cli_root, str(project), chat_id), cwd=str(project), messages=store, name=f"{module} missing"
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose history holds a 'lodash' failure fixed, then, newer, a 'stripe' one; indexed."""
    project = tmp_path / "projects" / "web"
    project.mkdir(parents=True)
    cli_root = tmp_path / "cursor-agent"
    _missing_module_chat(cli_root, project, LODASH_CHAT, "lodash", T0)
    _missing_module_chat(cli_root, project, STRIPE_CHAT, "stripe", T0 + timedelta(days=2))
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli_root))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    refresh(tmp_path / "deja")
    return project


def _after_failure(project: Path, module: str) -> str:
    """What ``hook-tool-after`` gives the agent after ``node server.js`` failed on ``module`` ("" for nothing)."""
    output = {
        "output": f"Error: Cannot find module '{module}'\nRequire stack:\n- /home/me/web/server.js",
        "exitCode": 1,
    }
    payload = {
        "conversation_id": ASKING,
        "generation_id": ASKING,
        "hook_event_name": "postToolUse",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": "node server.js"},
        "tool_output": json.dumps(output),
    }
    done = run_deja("hook-tool-after", input=json.dumps(payload).encode(), env=dict(os.environ))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    if not done.stdout.strip():
        return ""
    text: str = json.loads(done.stdout.decode("utf-8"))["additional_context"]
    assert text.startswith(FRAME_OPEN) and text.endswith(FRAME_CLOSE) and len(text.encode()) <= 512
    return text


def test_the_failure_hook_recalls_the_session_that_hit_the_same_module(project: Path) -> None:
    lodash = _after_failure(project, "lodash")
    assert "This error came up before, in 1 past session" in lodash
    assert LODASH_CHAT in lodash and STRIPE_CHAT not in lodash
    assert "`npm install lodash`, then `node server.js` succeeded" in lodash
    stripe = _after_failure(project, "stripe")  # the same wording, another module: news in this conversation
    assert STRIPE_CHAT in stripe and LODASH_CHAT not in stripe and "`npm install stripe`" in stripe
    # Shown once per conversation; and no session ever missed 'express'. (What may come instead is the
    # session-start block a conversation deja has not seen start gets with its first silent answer.)
    assert "This error came up before" not in _after_failure(project, "lodash")
    assert "This error came up before" not in _after_failure(project, "express")


def test_a_past_failure_is_decoded_only_when_its_record_holds_the_quoted_names(project: Path) -> None:
    """Every failed ``node server.js`` shares the signature; the hook reads up to 200 of them and decodes only the
    messages whose records hold the names the error quotes (``Segment.message_holding``): here the lodash one,
    never the stripe one, and a name no record holds (a lone surrogate among them) decodes nothing at all."""
    decoded: list[bytes] = []

    def message(data: bytes) -> Any:
        decoded.append(data)
        return LIGHT.message(data)

    index = Index.open(Path(os.environ["DEJA_HOME"]), Codec(LIGHT.manifest, LIGHT.session, message, LIGHT.damage))
    [(_, failures)] = past_failures(index, "Error: Cannot find module 'lodash'", 5)
    [(segment, [doc])] = failures
    assert segment.session(session_place(segment, doc)[1]).origin.endswith(f"{LODASH_CHAT}.jsonl")
    assert len(decoded) == 1 and b"lodash" in decoded[0]
    decoded.clear()
    for absent in ("express", "lod\udc80ash"):
        assert past_failures(index, f"Error: Cannot find module '{absent}'", 5).__next__()[1] == []
    assert decoded == []


def test_what_followed_reads_a_session_once_and_finds_what_each_message_read_alone_finds(project: Path) -> None:
    """``Segment.messages_along`` inflates a session's records once, as far as the messages reached so far end: each
    message is what ``Segment.message`` decodes of it alone; and what followed the lodash failure is the same fix
    whether or not it carries the failure's time (the hook asks without it, and loads no ``_datetime`` for it)."""
    index = Index.open(Path(os.environ["DEJA_HOME"]))
    for segment, _, meta in index.sessions():
        docs = range(meta.first_doc, meta.first_doc + meta.n_docs)
        assert list(segment.messages_along(docs)) == [segment.message(doc) for doc in docs]
        assert list(segment.messages_along(reversed(docs))) == [segment.message(doc) for doc in reversed(docs)]
    [(match, [(segment, [doc])])] = past_failures(index, "Error: Cannot find module 'lodash'", 5)
    dated, undated = (
        what_followed(segment, doc, "node server.js", match),
        what_followed(segment, doc, "node server.js", match, dated=False),
    )
    assert dated.timestamp is not None and undated.timestamp is None
    assert vars(undated) == {**vars(dated), "timestamp": None}
    assert dated.resolved_by == "node server.js" and dated.steps[0].command == "npm install lodash"


def test_a_conclusion_names_a_fixing_step_only_as_a_whole(fake_home: Path) -> None:
    """The failure hook leaves a fix to "Concluded" where the conclusion names every step of it: ``make`` is not named
    by "make sure", so "What followed" still says it (review41c)."""
    from deja.hooks.describe import _concluded_names

    assert not _concluded_names(["make"], "pytest -q", "You need to make sure the venv is active.")
    assert not _concluded_names(["npm test"], "npm run build", "The npm tests pass now.")
    assert _concluded_names(["make"], "pytest -q", "Ran `make` first; all 14 tests pass now.")
    assert not _concluded_names(["make"], "pytest -q", "Ran `make test` first; all 14 tests pass now.")
    assert _concluded_names(["pip install -e ."], "pytest -q", "Fixed: run pip install -e . before pytest.")
