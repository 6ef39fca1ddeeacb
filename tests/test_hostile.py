"""Hostile input to every door deja opens to a harness: the hook commands and the MCP server.

Each hook is run as Cursor runs it (a process, the payload on stdin) with
payloads no harness should send: invalid UTF-8, huge strings, deep nesting,
wrong types, NUL bytes, lone surrogates. Each must exit 0 within its budget
with valid output or nothing. The MCP server is fed raw bytes over real stdio
and must answer every request, broken or not, and go on serving.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from harness import ENTRY, Sample, run_deja
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deja.interfaces.mcp_stdio import MAX_LINE_CHARS

pytestmark = pytest.mark.hostile

HOOKS = ("hook-context", "hook-prompt", "hook-tool", "hook-tool-after", "hook-session-end")
#: The timeout deja's installers give Cursor for the prompt and tool hooks: a hook answers within it, start-up included.
HOOK_SECONDS = 5.0
#: How long the MCP server may take to answer one line.
REPLY_SECONDS = 20.0


# --- the MCP server over raw stdio ---------------------------------------------------------


class RawServer:
    """`deja mcp` as a process, spoken to in raw bytes, one line at a time."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [*ENTRY, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.buffer = b""

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + REPLY_SECONDS
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "the server gave no reply"
            ready, _, _ = select.select([self.process.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                assert chunk, "the server closed its output"
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        return self.reply()

    def initialize(self) -> None:
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
        assert "result" in self.request(0, "initialize", params)
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server(indexed_sample: Sample) -> Any:
    raw = RawServer(indexed_sample.env)
    raw.initialize()
    yield raw
    raw.close()


def _still_serving(server: RawServer, request_id: int) -> None:
    answer = server.request(request_id, "tools/call", {"name": "search", "arguments": {"query": "cache locale"}})
    assert answer["id"] == request_id and not answer["result"]["isError"]


BROKEN_LINES = {
    "lone surrogate in a tool argument": (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"\\ud800"}}}',
        7,
        -32600,
    ),
    "lone low surrogate in the method": (b'{"jsonrpc":"2.0","id":"x","method":"ping\\udc00"}', "x", -32600),
    "not JSON": (b'{"jsonrpc":"2.0","id":8,"method":', None, -32700),
    "plain garbage": (b"hello there", None, -32700),
    "invalid UTF-8 that is no longer JSON": (b'{"jsonrpc":"2.0","id":9,"method":"ping"\xff\xfe', None, -32700),
    "a request without a method": (b'{"jsonrpc":"2.0","id":10}', 10, -32600),
    "an empty batch": (b"[]", None, -32600),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, None, -32700),
    "wrong jsonrpc version": (b'{"jsonrpc":"1.0","id":11,"method":"ping"}', 11, -32600),
    # (the SDK reads these as notifications, which nothing answers: the client waited for ever, trialN F7)
    "an object for an id": (b'{"jsonrpc":"2.0","id":{"n":12},"method":"tools/list"}', None, -32600),
    "a list for an id": (b'{"jsonrpc":"2.0","id":[13],"method":"ping"}', None, -32600),
}


@pytest.mark.parametrize("name", sorted(BROKEN_LINES))
def test_mcp_answers_an_unreadable_line_with_an_error_and_keeps_serving(server: RawServer, name: str) -> None:
    line, request_id, code = BROKEN_LINES[name]
    server.send(line)
    answer = server.reply()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == request_id
    assert answer["error"]["code"] == code
    _still_serving(server, 100)


def test_mcp_survives_many_hostile_lines_in_a_row(server: RawServer) -> None:
    for number, (line, _, _) in enumerate(BROKEN_LINES.values()):
        server.send(line)
        assert "error" in server.reply()
        _still_serving(server, 200 + number)
    server.send(b'{"jsonrpc":"2.0","method":"notifications/x\\ud800"}')  # a notification: no reply is due
    _still_serving(server, 300)


def test_mcp_answers_a_line_too_long_to_hold_and_keeps_serving(server: RawServer) -> None:
    query = "x" * (MAX_LINE_CHARS + 10)
    server.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"query": query}}).encode())
    answer = server.reply()
    assert answer["id"] is None and answer["error"]["code"] == -32600 and "MiB" in answer["error"]["message"]
    _still_serving(server, 100)


def test_mcp_gives_no_reply_to_a_blank_line(server: RawServer) -> None:
    """A blank line is no message: a client that writes ``\\n`` between its messages saw a ``-32700`` with a null id
    for each, requests it never sent (trial58 T8). A line of anything else JSON does not read is still answered."""
    for blank in (b"\n", b"   \n", b"\t \r\n"):
        server.send(blank)
    assert server.request(50, "ping") == {"jsonrpc": "2.0", "id": 50, "result": {}}
    server.send(b"\x0b\n")  # (a vertical tab is no JSON whitespace: a line of it is no blank one)
    assert server.reply()["error"]["code"] == -32700
    _still_serving(server, 100)


def test_mcp_tool_arguments_of_the_wrong_type_or_size_are_tool_errors(server: RawServer) -> None:
    for number, arguments in enumerate(
        [
            {"query": ["a", "list"]},
            {"query": {"deep": [[[[]]]]}},
            {"query": "x" * 2_000_000},
            {"query": "nul \x00 byte"},
            {"query": "ok", "limit": -5},
            {"query": "ok", "limit": "many"},
            {"query": "ok", "since": "\x00"},
        ]
    ):
        answer = server.request(400 + number, "tools/call", {"name": "search", "arguments": arguments})
        assert answer["id"] == 400 + number
        assert "error" in answer or "result" in answer
    _still_serving(server, 500)


def _replies_until(server: RawServer, request_id: int) -> list[dict[str, Any]]:
    """Every reply up to and including the one to ``request_id``."""
    replies = [server.reply()]
    while replies[-1].get("id") != request_id:
        replies.append(server.reply())
    return replies


_HOSTILE_LINES = st.one_of(
    st.binary(max_size=2000).map(lambda data: data.replace(b"\n", b" ")),
    st.builds(
        lambda method, params, request_id: json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        ).encode(),
        st.sampled_from(["tools/call", "tools/list", "ping", "initialize", "\ud800", ""]),
        st.deferred(lambda: _HOSTILE_JSON),
        st.one_of(
            st.none(),
            st.booleans(),
            st.floats(allow_nan=False),
            st.text(max_size=5),
            st.lists(st.integers(), max_size=2),
        ),
    ),
)


def test_mcp_keeps_serving_whatever_line_comes(server: RawServer) -> None:
    pings = iter(range(10_000, 20_000))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_HOSTILE_LINES)
    def fuzz(line: bytes) -> None:
        server.send(line)
        ping = next(pings)
        server.send(json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}).encode())
        *before, answer = _replies_until(server, ping)
        assert answer == {"jsonrpc": "2.0", "id": ping, "result": {}}
        for reply in before:
            assert reply["jsonrpc"] == "2.0" and ("error" in reply or "result" in reply), reply

    fuzz()
    _still_serving(server, 600)


# --- every hook, fed what no harness should send -------------------------------------------

#: The most context each hook may give (bytes of UTF-8); hook-session-end gives none.
BUDGETS = {"hook-context": 2048, "hook-prompt": 1536, "hook-tool": 512, "hook-tool-after": 512, "hook-session-end": 0}


def _payload(command: str, project: Path) -> dict[str, Any]:
    """A payload the hook would act on, in the sample's api project."""
    base: dict[str, Any] = {
        "conversation_id": "c0ffee00-hostile",
        "generation_id": "g-1",
        "hook_event_name": {
            "hook-context": "sessionStart",
            "hook-prompt": "beforeSubmitPrompt",
            "hook-tool": "preToolUse",
            "hook-tool-after": "postToolUseFailure",
            "hook-session-end": "sessionEnd",
        }[command],
        "workspace_roots": [str(project)],
        "cursor_version": "2.4.21",
    }
    if command == "hook-prompt":
        base["prompt"] = "why does the price cache return stale prices after switching the locale?"
    if command in ("hook-tool", "hook-tool-after"):
        base |= {"tool_name": "Shell", "tool_input": {"command": "python -m pytest tests/"}}
    if command == "hook-tool-after":
        base["error_message"] = "E   ModuleNotFoundError: No module named 'api.cache'"
    if command == "hook-session-end":
        base |= {"reason": "completed", "transcript_path": str(project / "c0ffee00-hostile.jsonl")}
    return base


def _hostile_payloads(command: str, project: Path) -> dict[str, bytes]:
    base = _payload(command, project)
    text_key = {"hook-prompt": "prompt", "hook-tool-after": "error_message"}.get(command, "conversation_id")
    good = json.dumps(base).encode()

    def with_value(value: Any, key: str = text_key) -> bytes:
        return json.dumps({**base, key: value}).encode()

    return {
        "invalid UTF-8 in a string": good.replace(b"stale" if b"stale" in good else b"c0ffee00", b"st\xff\xfeale"),
        "invalid UTF-8 everywhere": bytes(range(256)) * 64,
        "a lone surrogate escape": with_value("cache \ud800 locale \udfff"),
        "lone surrogates in every string": json.dumps(base).encode().replace(b'"', b'"\\ud800', 1),
        "NUL bytes": with_value("cache\x00locale\x00" * 100),
        "a raw NUL in the JSON": good[:-1] + b', "x": "\x00"}',
        "a 6 MiB string": with_value("locale cache " * ((6 << 20) // 13)),
        "more than the stdin limit": with_value("x" * (9 << 20)),
        "deep nesting": good[:-1] + b', "tool_input": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
        "wrong types everywhere": json.dumps({key: [1, {"a": None}] for key in base}).encode(),
        "numbers where strings go": json.dumps({key: 1e308 for key in base}).encode(),
        "workspace roots that are not folders": with_value(["/dev/zero", "\x00", "", "/" * 5000], "workspace_roots"),
        "a transcript path that is a device": with_value("/dev/zero", "transcript_path"),
        "a path-like conversation id": with_value("../../../../etc/passwd", "conversation_id"),
        "a JSON list": json.dumps([base]).encode(),
        "a bare string": b'"hello"',
        "truncated JSON": good[: len(good) // 2],
        "nothing": b"",
    }


def _check_hook_answer(command: str, done: subprocess.CompletedProcess[bytes], seconds: float) -> None:
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert not done.stderr, done.stderr.decode(errors="replace")[-2000:]
    assert seconds < HOOK_SECONDS
    if not done.stdout.strip():
        return
    output = json.loads(done.stdout.decode("utf-8"))  # valid UTF-8 and valid JSON, or this raises
    assert command != "hook-session-end", "hook-session-end prints nothing"
    if "additional_context" in output:
        assert set(output) == {"additional_context"}
        text = output["additional_context"]
    else:
        assert set(output) == {"hookSpecificOutput"}
        text = output["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str) and len(text.encode("utf-8")) <= BUDGETS[command]


def _run_hook(command: str, env: dict[str, str], payload: bytes) -> None:
    started = time.monotonic()
    done = run_deja(command, env=env, input=payload, timeout=HOOK_SECONDS * 3)
    _check_hook_answer(command, done, time.monotonic() - started)


@pytest.mark.parametrize("command", HOOKS)
def test_every_hook_exits_0_with_valid_output_or_nothing_on_hostile_payloads(
    indexed_sample: Sample, command: str
) -> None:
    project = indexed_sample.history.projects["api"]
    for name, payload in _hostile_payloads(command, project).items():
        try:
            _run_hook(command, indexed_sample.env, payload)
        except AssertionError as error:
            raise AssertionError(f"{command} on {name}: {error}") from None


#: Leaves no harness sends: lone surrogates, NUL and control bytes, huge and empty strings, odd numbers.
_HOSTILE_TEXT = st.one_of(
    st.text(alphabet=st.characters(codec=None, categories=None), max_size=200),
    st.sampled_from(["\ud800", "\udfff\ud800", "\x00", "\u202e", "</deja-recall>", "x" * 100_000, ""]),
)
_HOSTILE_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _HOSTILE_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_HOSTILE_TEXT, inner, max_size=4)),
    max_leaves=20,
)


@pytest.mark.parametrize("command", HOOKS)
def test_every_hook_survives_fuzzed_fields(indexed_sample: Sample, command: str) -> None:
    project = indexed_sample.history.projects["api"]
    base = _payload(command, project)

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.dictionaries(st.sampled_from([*base, "tool_output", "cwd"]), _HOSTILE_JSON, min_size=1, max_size=4))
    def fuzz(fields: dict[str, Any]) -> None:
        _run_hook(command, indexed_sample.env, json.dumps({**base, **fields}).encode())

    fuzz()
