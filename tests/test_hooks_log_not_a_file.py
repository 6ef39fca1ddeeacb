"""A folder where a hook's ``hooks.log`` goes: the hook still answers and exits 0, and its one line on stderr says what
is in the way and to move it aside. It said the write error and the fix for a folder deja may not write in, ``chmod
-R u+rwX`` of deja's home, which mends nothing there (review50b)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from harness import ROUTINE_CHATS, run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

if TYPE_CHECKING:
    from pathlib import Path


def test_a_folder_in_the_logs_place_is_named_with_a_fix_that_mends_it(fake_home: Path) -> None:
    project = "/work/app"
    asked = [*ROUTINE_CHATS, ("b1", "Why does the narwhal importer crash on empty files?", "An empty header row.")]
    for chat, question, answer in asked:
        write_transcript(
            transcript_path(fake_home / ".cursor", project, chat), [user_turn(question), assistant_turn(answer)]
        )
    assert run_deja("index").returncode == 0
    log = fake_home / ".cache" / "deja" / "hooks.log"
    log.mkdir(parents=True)
    payload = {"hook_event_name": "beforeSubmitPrompt", "conversation_id": "c-dir", "workspace_roots": [project],
               "prompt": "the narwhal importer crashes on empty files again"}  # fmt: skip
    ran = run_deja("hook-prompt", input=json.dumps(payload))
    assert ran.returncode == 0 and "empty header row" in json.loads(ran.stdout)["additional_context"], ran.stderr
    assert ran.stderr == (
        f"deja: cannot write {log}: it is a folder, where deja writes its hooks' log; this hook answered but could not "
        "log it: move it aside\n"
    )
