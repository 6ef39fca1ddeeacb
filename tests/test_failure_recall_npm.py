"""A failed npm command recalls the session that hit the same error, in npm <= 8's words (``npm ERR!``) as in
npm 10's (``npm error``), and says what followed once (README: postToolUse, "This error came up before").

npm <= 8's lines were no error lines at all: no "Last failure" line before the command, nothing after it. And
where the answer after the failure was also the session's last, the recall said it twice ("What followed: …" and
"Concluded: …").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)

NPM8 = "npm ERR! code ENOSPC\nnpm ERR! nospc ENOSPC: no space left on device, write"
NPM10 = "npm error code ENOSPC\nnpm error nospc ENOSPC: no space left on device, write"
ANSWER = "Freed disk space in /tmp; the build passes."


def _history(home: Path, output: str) -> Path:
    project = home / "proj" / "web"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("npm run build fails"),
        store_assistant_message(None, tool_call_part("t1", "Shell", {"command": "npm run build"})),
        tool_result_message("t1", "Shell", shell_result_text(output, exit_code=1)),
        store_assistant_message(ANSWER),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), "c-npm"), cwd=str(project), name="npm build out of disk", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def _hook(command: str, project: Path, event: str, **fields: object) -> str:
    payload = {
        "conversation_id": f"conv-{event}",
        "hook_event_name": event,
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": "npm run build"},
        "cwd": "",
        **fields,
    }
    ran = run_deja(command, input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"] if ran.stdout.strip() else ""


@pytest.mark.parametrize("output", [NPM8, NPM10], ids=["npm8", "npm10"])
def test_a_failed_npm_command_recalls_the_session_and_says_what_followed_once(fake_home: Path, output: str) -> None:
    project = _history(fake_home, output)
    before = _hook("hook-tool", project, "preToolUse")
    assert "ENOSPC: no space left on device" in before, before
    after = _hook(
        "hook-tool-after",
        project,
        "postToolUse",
        tool_output=json.dumps({"exitCode": 1, "output": output}),
    )
    assert "This error came up before, in 1 past session" in after and "`deja show c-npm`" in after, after
    # no rerun succeeded there: the answer is the next one, as `deja fix` says, not the failure's conclusion (trial46 F6)
    assert f"No rerun of the failed command succeeded there; the next answer: {ANSWER}" in after, after
    assert after.count(ANSWER) == 1, after
