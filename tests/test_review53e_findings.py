"""review53e's findings on concl53 (a next step is no conclusion; HTTP 4xx/5xx error lines), as strict xfails.

F1: ``settled.only_a_next_step`` leans on ``settled_line``, which drops a whole sentence that opens with an opener
("Let's", "I'll", "Let me", "We need") even where it states a decision or a finding after it; such a last answer
that also ends on a next step now keeps no ``concluded`` at all, where main before concl53 kept it whole.
F2: an HTTP status line's error identity loses its status and its protocol (``HTTP/2 404`` is ``<path> #``, ``HTTP
404`` and ``HTTP 500`` both ``http #``), so a failed curl printing only a status line is "the same error" as any
past failed curl that printed another status for another host: the failure hook recalls an unrelated session.
F3: the rule's openers are written with a straight apostrophe only: "I’ll run the tests now." still concludes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import failure_hook, run_deja, store_shell

from deja.core.indexer.records import _conclusion
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)


@pytest.mark.xfail(strict=True, reason="review53e F1: a decision or finding after an opener is dropped with it")
@pytest.mark.parametrize(
    "answer",
    [
        "Let's go with option B: it avoids the migration. I'll implement it now.",
        "I'll keep it as is; the current behaviour is correct.",
        "Let me explain: the cache key omits the locale, so every language shares one entry.",
        "We need to bump the Node version to 20. Let me do that.",
        "I'll go ahead and mark this as resolved: the timeout was the proxy's 30 s limit.",
        "I will not change the schema, since the mobile app reads it.",
        "I'll need access to the staging database to go further.",
    ],
)
def test_an_answer_stating_a_decision_or_finding_before_its_next_step_keeps_its_conclusion(answer: str) -> None:
    assert _conclusion(answer) == answer


@pytest.mark.xfail(strict=True, reason="review53e F3: _OPENER knows no typographic apostrophe (I’ll, Let’s)")
@pytest.mark.parametrize("answer", ["I’ll run the tests now.", "Let’s check the worker's logs."])
def test_a_next_step_written_with_a_typographic_apostrophe_concludes_nothing(answer: str) -> None:
    assert _conclusion(answer) == ""


def _failed_curl_chat(home: Path, project: Path, chat: str, command: str, output: str, answer: str) -> None:
    messages = [
        *store_preamble(str(project)),
        store_user_message("why does the fetch fail"),
        *store_shell("s1", command, output, 22, "Checking."),
        store_assistant_message(answer),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=chat, messages=messages)


@pytest.mark.xfail(strict=True, reason="review53e F2: a status line's identity keeps neither its status nor HTTP")
@pytest.mark.parametrize(
    ("past", "now"),
    [
        ("HTTP/2 404 \nserver: nginx\ncontent-length: 0", "HTTP/2 503 \nretry-after: 30"),
        ("HTTP 404", "HTTP 500"),  # (curl -w 'HTTP %{http_code}')
        (
            "[2026-11-02 09:12] GET /left-pad/1.3.0 HTTP/1.1 404 3ms",
            "[2026-12-06 10:00] GET /v1/charges HTTP/1.1 503 9ms",
        ),
    ],
)
def test_the_failure_hook_does_not_recall_another_hosts_other_status_as_this_error(
    fake_home: Path, past: str, now: str
) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    _failed_curl_chat(
        fake_home,
        project,
        "c-registry",
        "curl -fsSI https://registry.example.org/left-pad/1.3.0",
        past,
        "The left-pad 1.3.0 tarball was unpublished: pinned 1.2.9 in package.json.",
    )
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "curl -fsS https://payments.example.com/v1/charges", now)
    assert "came up before" not in said and "left-pad" not in said, said
