"""The same prompt twice in one conversation: the second is silent (README: "nothing when the match is weak"; no
block is shown twice in one conversation).

The gate judged the second without the session already shown, so the sessions that session had outscored passed
on their own: on slevin48's real history, two unrelated chats were injected. Now the ranking is judged whole, then
what was shown is dropped; when that is the leader, nothing is. And the first prompt of a conversation with no
sessionStart, which carries the recent sessions too, does not list again a session its own recall gave.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import shared_path
from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

PROMPT = "npm run zzbuild fails with ENOSPC what did we do"


def _prompt(project: Path) -> str:
    payload = {
        "conversation_id": "conv-1",
        "hook_event_name": "beforeSubmitPrompt",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
        "prompt": PROMPT,
    }
    ran = run_deja("hook-prompt", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return ran.stdout


def test_the_same_prompt_twice_recalls_once(fake_home: Path) -> None:
    store = fake_home / ".config" / "Cursor" / "User" / "globalStorage"
    store.mkdir(parents=True)
    shutil.copy(shared_path("realdata", "slevin48-cursor-history", "state.vscdb"), store / "state.vscdb")
    project = fake_home / "proj" / "api"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("npm run zzbuild fails with ENOSPC"),
        store_assistant_message("Cleared /tmp: the disk was full."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-zz"), cwd=str(project), name="zzbuild ENOSPC", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    first = json.loads(_prompt(project))["additional_context"]
    assert first.count("`deja show c-zz`") == 1, first  # not again under "Recent sessions in this project"
    assert _prompt(project) == ""
    log = run_deja("hooks", "log", "-n", "1").stdout
    assert "silent: what matched best was shown in this conversation already" in log
