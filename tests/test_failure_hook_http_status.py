"""A failed command that printed only an HTTP status line is no error the failure hook recalls by: a status line keeps
neither its status nor its host in an error's identity (``HTTP/2 404`` read as a path, ``HTTP 404`` and ``HTTP 500``
alike), so reading one as an error line made a failed curl printing ``HTTP/2 503`` "the same error" as a past curl's
``HTTP/2 404`` from another host (review53e F2, of trial53 F6's first fix, taken back)."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import failure_hook, run_deja, store_shell

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)


def _failed_curl_chat(home: Path, project: Path, chat: str, command: str, output: str, answer: str) -> None:
    messages = [
        *store_preamble(str(project)),
        store_user_message("why does the fetch fail"),
        *store_shell("s1", command, output, 22, "Checking."),
        store_assistant_message(answer),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=chat, messages=messages)


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
    # (the conversation's first event gives the session-start block, which lists the curl chat as recent work)
    assert "This error came up before" not in said and "unpublished" not in said.split("Recent sessions")[0], said
