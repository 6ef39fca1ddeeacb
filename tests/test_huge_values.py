"""A huge value given as an argument is named by its start, never echoed back whole (trial17 F4).

An agent that pastes a log or a file into the wrong argument (a session id, a project, ``since``, a path) got it back
whole in the tool's error or answer: 1-2 MB into its context, for nothing. Every message and every field that repeats
a value the user gave (``redaction.echoed``) repeats a few dozen characters of it and "…" (a path or a project, which
may be one, the first 260: longer than nearly any real path).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness import index_chats, run_deja
from mcp.server.mcpserver.exceptions import ToolError

from deja.interfaces.mcp_server import build_server

CHATS = {
    "a1a1a1a1-0000-4000-8000-000000000003": ["why does the pool run dry?", "The pool size was 5."],
    "a1a1a1a1-0000-4000-8000-000000000004": ["tune the postgres pool", "Raised max_connections."],
}
START = "blobstart"
#: A megabyte pasted as one value.
HUGE = START + "p" * 1_000_000
#: The most the kernel passes as one argument of a command line (``MAX_ARG_STRLEN``) is 128 KiB.
ARGUMENT = START + "p" * 100_000
#: Enough for any of these answers: a few dozen characters of the value and the sentence around it...
MOST_BYTES = 600
#: ...or 260 of a path's or a project's (``redaction.PATH_CHARS``), said twice where the structured content gives
#: the reason too (search's ``notice``, as ``deja search --json`` does).
PATH_BYTES = 1200
#: ...and an answer whose JSON gives the value back (``query``, ``error``, ``path``): cut at 4,096 characters.
FIELD_BYTES = 5000


@pytest.fixture
def indexed(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    index_chats(tmp_path, monkeypatch, CHATS)
    return fake_home


def _said(name: str, arguments: dict[str, Any]) -> tuple[str, str]:
    """What the MCP tool answers (or its error's line) as the model reads it, and the whole answer as sent."""
    server = build_server()

    async def call() -> tuple[str, str]:
        try:
            answer = await server.call_tool(name, arguments)
        except ToolError as refused:
            return str(refused), json.dumps(str(refused))
        text = " ".join(block.text for block in answer.content)
        return text, json.dumps(answer.model_dump(mode="json"))

    return anyio.run(call)


@pytest.mark.parametrize(
    ("name", "arguments", "most"),
    [
        ("show", {"session_id": HUGE}, MOST_BYTES),
        ("resume", {"session_id": HUGE}, MOST_BYTES),
        ("search", {"query": "pool", "project": HUGE}, PATH_BYTES),
        ("search", {"query": "pool", "since": HUGE}, MOST_BYTES),
        ("recent", {"project": HUGE}, PATH_BYTES),
        ("recent", {"since": HUGE}, MOST_BYTES),
        ("work", {"mode": "ctx", "query": HUGE}, MOST_BYTES),
        ("work", {"mode": "wip", "query": HUGE}, PATH_BYTES),
    ],
)
def test_an_mcp_tool_names_a_huge_value_by_its_start(
    indexed: Path, name: str, arguments: dict[str, Any], most: int
) -> None:
    text, sent = _said(name, arguments)
    assert len(sent) < most, sent[:300]
    assert START in text and "p…" in text, text


@pytest.mark.parametrize(
    ("name", "arguments", "says", "most"),
    [
        ("work", {"mode": "how", "query": HUGE}, "no command with 'blobstart", FIELD_BYTES),
        ("work", {"mode": "files", "query": HUGE}, "no session about 'blobstart", FIELD_BYTES),
        ("work", {"mode": "blame", "query": HUGE}, "no session edited ", FIELD_BYTES),
        ("search", {"query": HUGE}, 'No session matches "blobstart', FIELD_BYTES),
    ],
)
def test_an_mcp_answer_says_why_it_found_nothing_and_its_data_cuts_the_value(
    indexed: Path, name: str, arguments: dict[str, Any], says: str, most: int
) -> None:
    """The text says what was looked for, not only "(cut to fit; ask a narrower question)"; the structured answer's
    ``query`` (``blame``'s ``path``) gives back the value's first 4,096 characters."""
    text, sent = _said(name, arguments)
    assert len(sent) < most, sent[:300]
    assert text.startswith(says) and START in text and "cut to fit" not in text, text
    data = json.loads(sent)["structured_content"]
    echoed = data.get("query", data.get("path"))
    assert echoed.endswith("p…") and START in echoed, echoed[:100]


@pytest.mark.parametrize(
    ("args", "code", "most"),
    [
        (("show", ARGUMENT), 1, MOST_BYTES),
        (("resume", ARGUMENT), 1, MOST_BYTES),
        (("ctx", ARGUMENT), 1, MOST_BYTES),
        (("how", ARGUMENT), 0, MOST_BYTES),
        (("how", ARGUMENT, "--json"), 0, FIELD_BYTES),
        (("blame", ARGUMENT), 0, PATH_BYTES),
        (("files", ARGUMENT), 0, MOST_BYTES),
        (("files", ARGUMENT, "--json"), 0, FIELD_BYTES),
        (("wip", ARGUMENT), 1, PATH_BYTES),
        (("search", ARGUMENT, "--json"), 0, FIELD_BYTES),
        (("search", "pool", "--project", ARGUMENT), 1, PATH_BYTES),
        (("search", "pool", "--since", ARGUMENT), 2, MOST_BYTES),
        (("fix", ARGUMENT, "--json"), 0, FIELD_BYTES),
        (("config", "set", "recall", ARGUMENT), 2, MOST_BYTES),
        (("config", "set", "redact", ARGUMENT), 2, MOST_BYTES),
        (("config", "set", ARGUMENT, "safe"), 2, MOST_BYTES),
        (("config", "set", "cursor_root", ARGUMENT), 2, PATH_BYTES),
        (("config", "set", "home", ARGUMENT), 0, 3 * PATH_BYTES),  # (stored, said relative, no index yet)
    ],
)
def test_a_command_names_a_huge_value_by_its_start(indexed: Path, args: tuple[str, ...], code: int, most: int) -> None:
    done = run_deja(*args, cwd=indexed)
    said = done.stdout + done.stderr
    assert done.returncode == code, said[:300]
    assert len(said.encode()) < most, said[:300]
    assert START in said and "p…" in said, said


def test_a_json_field_gives_back_a_question_or_a_traceback_as_typed(indexed: Path) -> None:
    """A question of 85 characters, an error of three lines: what a person types or pastes comes back whole (only
    a megabyte pasted by mistake is cut; review38b M2)."""
    question = "why does the checkout service time out when the payment gateway returns a 502 error again"
    assert json.loads(run_deja("search", question, "--json", cwd=indexed).stdout)["query"] == question
    error = "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'tier'"
    assert json.loads(run_deja("fix", error, "--json", cwd=indexed).stdout)["error"] == error
