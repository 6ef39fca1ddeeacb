"""``deja mcp`` answers its first ``tools/list`` after the SDK's import and little else.

What loads is read from ``python -X importtime``: never typer (``entry`` dispatches ``mcp`` before the CLI);
deja's engine (index, search, msgspec) in a background thread started once the SDK is imported, beside the
handshake, so that the first call finds it loaded.
How long start-up takes is ``bench/bench_mcp.py``'s to measure, never a test's.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from harness import ENTRY, Sample, run_deja

HANDSHAKE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    '"clientInfo":{"name":"test","version":"1"}}}\n'
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)
SEARCH = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"pytest"}}}\n'
#: deja's engine, which loads beside the handshake.
ENGINE = {"deja.core.index", "deja.core.search"}


def _serve(requests: str, sample: Sample, until: str | None = None) -> tuple[dict[int, dict], list[str]]:
    """The answers by id of ``deja mcp`` served ``requests``, and the modules it loaded, in order with its answers:
    ``"answer <id>"`` where each answer was written. Its stdin ends once all are answered (and, with ``until``,
    once that module has loaded).

    Its stderr (where ``-X importtime`` writes) and its stdout share one pipe, so what it loaded before an
    answer comes before that answer.
    """
    server = subprocess.Popen(
        [sys.executable, "-X", "importtime", *ENTRY[1:], "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=sample.env,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(requests.encode())
    server.stdin.flush()
    asked = {json.loads(line)["id"] for line in requests.splitlines() if '"id"' in line}
    answers: dict[int, dict] = {}
    events: list[str] = []
    while (asked - set(answers) or (until is not None and until not in events)) and (line := server.stdout.readline()):
        text = line.decode(errors="replace")
        if text.startswith("import time:") and "|" in text:
            events.append(text.rsplit("|", 1)[1].strip())
        elif text.startswith("{") and "id" in (message := json.loads(text)):
            answers[message["id"]] = message
            events.append(f"answer {message['id']}")
    server.communicate(timeout=120)
    return answers, events


def _before(events: list[str], answer: int) -> set[str]:
    """The modules loaded before answer ``answer`` was written."""
    return set(events[: events.index(f"answer {answer}")])


def _loaded(names: set[str], wanted: set[str]) -> set[str]:
    return {name for name in names if name in wanted or name.split(".")[0] in wanted}


def test_the_handshake_is_answered_and_the_cli_never_loads(indexed_sample: Sample) -> None:
    answers, events = _serve(HANDSHAKE, indexed_sample)
    assert answers[1]["result"]["serverInfo"]["name"] == "deja"
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == ["search", "show", "recent", "resume", "work"]
    assert "mcp.server.mcpserver" in _before(events, 1)
    assert _loaded(set(events), {"typer"}) == set()


def test_the_engine_loads_before_any_call(indexed_sample: Sample) -> None:
    """A client asks for the tool list and reads it before it calls a tool: the engine loads meanwhile."""
    initialize = HANDSHAKE.splitlines(keepends=True)[0]
    answers, events = _serve(initialize, indexed_sample, until="deja.core.search")
    assert 1 in answers
    assert set(events) >= ENGINE
    assert _loaded(set(events), {"typer"}) == set()


def test_the_first_tool_call_loads_the_engine_and_answers(indexed_sample: Sample) -> None:
    answers, events = _serve(HANDSHAKE + SEARCH, indexed_sample)
    assert not answers[3]["result"].get("isError")
    assert "pytest" in answers[3]["result"]["content"][0]["text"]
    assert {"deja.core.index", "deja.core.search"} <= _before(events, 3)
    assert _loaded(set(events), {"typer"}) == set()


def test_a_first_call_without_a_tool_list_loads_the_engine_itself(indexed_sample: Sample) -> None:
    initialize = HANDSHAKE.splitlines(keepends=True)[:2]
    answers, events = _serve("".join(initialize) + SEARCH, indexed_sample)
    assert "pytest" in answers[3]["result"]["content"][0]["text"]
    assert {"deja.core.index", "deja.core.search"} <= _before(events, 3)


def test_a_call_before_initialize_is_told_to_initialize_first(indexed_sample: Sample) -> None:
    """The SDK answered `-32602 "Invalid request parameters"` with empty data, which points at the call's arguments
    (trial48 F10); the same call after the handshake is answered."""
    early = SEARCH.replace('"id":3', '"id":7')
    answers, _ = _serve(early + HANDSHAKE + SEARCH, indexed_sample)
    assert answers[7]["error"] == {
        "code": -32602,
        "message": "Not initialized: send initialize, then notifications/initialized, before tools/call",
        "data": "tools/call",
    }
    assert "pytest" in answers[3]["result"]["content"][0]["text"]


def test_every_request_read_before_stdin_ends_is_answered(indexed_sample: Sample) -> None:
    """A client that writes its requests and closes its end at once (a script piping JSON-RPC lines) gets an answer
    to each: the SDK cancels the requests still being handled when stdin ends, and 6 of 14 went unanswered."""
    calls = [
        ("search", {"query": "pytest"}),
        ("show", {"session_id": "nope"}),
        ("recent", {"limit": 2}),
        ("resume", {"session_id": "nope"}),
        ("search", {"query": "locale cache", "limit": 3}),
        ("work", {"mode": "how", "query": "pytest"}),
        ("recent", {}),
    ]
    requests = HANDSHAKE + "not json at all\n"
    for number, (name, arguments) in enumerate(calls, 3):
        call = {
            "jsonrpc": "2.0",
            "id": number,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        requests += json.dumps(call) + "\n"
    done = subprocess.run(
        [*ENTRY, "mcp"], input=requests.encode(), capture_output=True, env=indexed_sample.env, timeout=120, check=False
    )
    answered = [json.loads(line).get("id") for line in done.stdout.decode().splitlines()]
    assert sorted(answered, key=str) == sorted([None, 1, 2, *range(3, 3 + len(calls))], key=str), done.stderr
    assert done.returncode == 0


def test_help_for_mcp_still_comes_from_the_cli() -> None:
    shown = run_deja("mcp", "--help")
    assert shown.returncode == 0
    assert "Usage: deja mcp" in shown.stdout


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the server's descriptors from /proc")
def test_while_serving_fd_1_is_not_the_wire(indexed_sample: Sample, tmp_path: Path) -> None:
    """Whatever a handler or a child writes to fd 1 lands on stderr, never inside a JSON-RPC answer."""
    with (tmp_path / "stderr").open("w") as stderr:
        server = subprocess.Popen(
            [*ENTRY, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=indexed_sample.env
        )
        assert server.stdin is not None and server.stdout is not None
        watchdog = threading.Timer(120, server.kill)  # a server that never answers fails the test, not hangs it
        watchdog.start()
        try:
            server.stdin.write(HANDSHAKE.encode())
            server.stdin.flush()
            assert json.loads(server.stdout.readline())["id"] == 1
            fd = Path(f"/proc/{server.pid}/fd")
            assert os.readlink(fd / "1") == os.readlink(fd / "2") == str(tmp_path / "stderr")
        finally:
            watchdog.cancel()
            server.stdin.close()
            server.wait(timeout=60)


def test_the_warm_up_sets_start_ups_objects_aside_from_the_garbage_collector(tmp_path: Path) -> None:
    """They live as long as the server; a full collection scanning them (about 70 ms of CPU at 100k sessions) would
    land on whichever call set it off. They are frozen even where there is no index yet."""
    from deja.interfaces.mcp_server import LiveIndex

    frozen = gc.get_freeze_count()  # (0, but 375 on a fresh Python 3.12.1: pyver53)
    try:
        LiveIndex(tmp_path / "no-index-yet").warm()
        deadline = time.monotonic() + 30
        while gc.get_freeze_count() <= frozen:
            assert time.monotonic() < deadline, "the warm-up froze nothing"
            time.sleep(0.02)
    finally:
        gc.unfreeze()
