"""A failed command's HTTP status of 4xx or 5xx is its error line (trial53 F6).

``gh api /user`` failed (exit 1) printing ``HTTP 403 token … lacks scope repo``: no word of the error-line test
(error, denied, not found…) was in it, so neither the index nor the failure hook took it for an error, and the hook
said no past failed command printed it where ``deja fix`` found the session by its words. A status after ``HTTP``
counts; a served request's log line (``"GET /x HTTP/1.1" 404``) and a 2xx do not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import failure_hook, run_deja, store_shell

from deja.core.errors import error_lines
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

FORBIDDEN = "HTTP 403 token [redacted:github-token] lacks scope repo"
ANSWER = "The token lacks the repo scope: gh auth refresh -s repo gave it."


def test_the_failure_hook_recalls_a_past_failure_by_its_http_status_line(fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("why does the deploy fail"),
        *store_shell("s1", "gh api /user", FORBIDDEN, 1, "Checking."),
        *store_shell("s2", "gh auth refresh -s repo", "✓ Authentication complete.", 0),
        *store_shell("s3", "gh api /user", '{"login": "octocat"}', 0),
        store_assistant_message(ANSWER),
    ]
    write_chat_store(
        chat_dir_for(fake_home / ".cursor", str(project), "c-token"), cwd=str(project), name="token", messages=messages
    )
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "gh api /user", FORBIDDEN)
    assert "This error came up before, in 1 past session" in said, said
    assert "gh auth refresh -s repo" in said, said
    fixed = run_deja("fix", FORBIDDEN).stdout
    assert "fixed by: gh auth refresh -s repo, then gh api /user" in fixed and "no failed command" not in fixed, fixed


@pytest.mark.parametrize(
    "line",
    ["HTTP 403 token lacks scope repo", "gh: Not Found (HTTP 404)", "< HTTP/1.1 429 Too Many Requests", "HTTP/2 401"],
)
def test_an_http_status_of_4xx_or_5xx_is_an_error_line(line: str) -> None:
    assert error_lines(f"fetching…\n{line}\n") == [line]


@pytest.mark.parametrize(
    "line",
    [
        "HTTP/1.1 200 OK",
        '127.0.0.1 - - [06/Dec/2026 13:00:00] "GET /missing HTTP/1.1" 404 -',
        "see https 404 page docs",
        "HTTP 4040 bytes",
    ],
)
def test_a_status_line_of_success_or_a_served_request_is_none(line: str) -> None:
    assert error_lines(f"{line}\n") == []
