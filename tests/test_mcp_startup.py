"""``deja mcp`` answers its first ``tools/list`` after the SDK's import and little else.

What loads before that answer is read from ``python -X importtime``: not typer (``entry`` dispatches
``mcp`` before the CLI), not deja's engine (index, search, msgspec load on the first tool call).
How long start-up takes is ``bench/bench_mcp.py``'s to measure, never a test's.
"""

from __future__ import annotations

import json
import subprocess
import sys

from harness import ENTRY, Sample, run_deja

HANDSHAKE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    '"clientInfo":{"name":"test","version":"1"}}}\n'
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)
SEARCH = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"pytest"}}}\n'
#: Loaded only for a tool call: deja's CLI framework (click comes with the SDK's uvicorn), and deja's engine.
NOT_BEFORE_THE_FIRST_CALL = {"typer", "msgspec", "deja.core.index", "deja.core.indexer", "deja.core.search"}


def _serve(requests: str, sample: Sample) -> tuple[dict[int, dict], set[str]]:
    """The answers by id, and every module loaded, of ``deja mcp`` served ``requests``; its stdin ends once all are answered."""
    server = subprocess.Popen(
        [sys.executable, "-X", "importtime", *ENTRY[1:], "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=sample.env,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(requests.encode())
    server.stdin.flush()
    asked = {json.loads(line)["id"] for line in requests.splitlines() if '"id"' in line}
    answers: dict[int, dict] = {}
    while asked - set(answers) and (line := server.stdout.readline()):
        message = json.loads(line)
        if "id" in message:
            answers[message["id"]] = message
    _, err = server.communicate(timeout=120)
    lines = err.decode(errors="replace").splitlines()
    loaded = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:") and "|" in line}
    return answers, loaded


def _loaded(names: set[str], wanted: set[str]) -> set[str]:
    return {name for name in names if name in wanted or name.split(".")[0] in wanted}


def test_the_tool_list_is_answered_before_the_engine_or_the_cli_loads(indexed_sample: Sample) -> None:
    answers, loaded = _serve(HANDSHAKE, indexed_sample)
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == ["search", "show", "recent", "resume", "work"]
    assert "mcp.server.mcpserver" in loaded
    assert _loaded(loaded, NOT_BEFORE_THE_FIRST_CALL) == set()


def test_the_first_tool_call_loads_the_engine_and_answers(indexed_sample: Sample) -> None:
    answers, loaded = _serve(HANDSHAKE + SEARCH, indexed_sample)
    assert not answers[3]["result"].get("isError")
    assert "pytest" in answers[3]["result"]["content"][0]["text"]
    assert {"deja.core.index", "deja.core.search"} <= loaded
    assert _loaded(loaded, {"typer"}) == set()


def test_help_for_mcp_still_comes_from_the_cli() -> None:
    shown = run_deja("mcp", "--help")
    assert shown.returncode == 0
    assert "Usage: deja mcp" in shown.stdout
