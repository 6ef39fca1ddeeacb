"""How ``deja how`` and the other answers show the commands that ran.

A command is shown whole wherever it can be copied from, or visibly cut (trial20 F5).

A 324-character ``kubectl patch … && kubectl rollout status …`` was cut at 200 characters with no mark, inside an open
quote, in ``deja how``, ``deja show``, the Markdown export, ``deja wip``, ``deja fix`` and the MCP ``work`` tool (at
160 in ``deja ctx``): whoever copied it ran a broken command. Into a pipe it is whole (README: "into a pipe or a
file, lines are whole"); a bounded answer (an MCP tool's, a ctx digest) cuts only a command longer than
``work_views.COMMAND_CHARS``, and then ends it in ``…`` and says where the rest is.

``deja how`` stopped at 20 runs with no word that more ran (trial20 F16): someone looking for the oldest concluded it
never ran. A full page ends with ``N more; --limit to see them``, and ``--json`` says ``more``, as ``deja sessions``.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness import ENTRY, failure_hook, run_deja, store_shell

from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.interfaces.mcp_server import build_server

KUBECTL = (
    "kubectl -n prod patch deployment shop-api --type=json -p '["
    '{"op":"replace","path":"/spec/template/spec/containers/0/resources/limits/memory","value":"2Gi"},'
    '{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/memory","value":"1Gi"}]'
    "' && kubectl -n prod rollout status deployment/shop-api --timeout=10m"
)
#: A command longer than any bounded answer shows: a heredoc-like seed script on one line.
HUGE = "psql -c 'insert into plans values " + ", ".join(f'({n}, "plan-{n}")' for n in range(200)) + "'"
KUBECTL_CHAT = "c0000000-0000-4000-8000-000000000001"
HUGE_CHAT = "c0000000-0000-4000-8000-000000000002"


def _chat(
    cli_root: Path,
    cwd: Path,
    chat_id: str,
    asked: str,
    command: str,
    hour: int,
    runs: int = 1,
    output: str = "ok",
    day: int = 4,
) -> None:
    """A cursor-agent chat in ``cwd`` that ran ``command`` ``runs`` times (exit 0, printing ``output``) and said it
    was done, on December ``day`` at ``hour``."""
    stamp = datetime(2026, 12, day, hour, 0, tzinfo=UTC)
    records = [user_turn(asked, stamp)]
    store: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": [{"type": "text", "text": records[0]["message"]["content"][0]["text"]}]},
    ]
    for n in range(runs):
        records.append(assistant_turn(None, tool_use("Shell", {"command": command})))
        store.append({"role": "assistant", "content": [tool_call_part(f"call_{n}", "Shell", {"command": command})]})
        store.append(tool_result_message(f"call_{n}", "Shell", shell_result_text(output, exit_code=0)))
    records += [assistant_turn("Done."), turn_ended()]
    store.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    write_transcript(transcript_path(cli_root, str(cwd), chat_id), records)
    write_chat_store(chat_dir_for(cli_root, str(cwd), chat_id), cwd=str(cwd), messages=store, name=asked)


class Shop:
    def __init__(self, root: Path) -> None:
        self.project = root / "code" / "shop-api"
        self.project.mkdir(parents=True)
        self.cli_root = root / "cursor-agent"
        (root / "no-ide").mkdir()
        self.env = {
            **os.environ,
            "DEJA_CURSOR_ROOT": str(root / "no-ide"),
            "DEJA_CURSOR_CLI_ROOT": str(self.cli_root),
            "DEJA_HOME": str(root / "deja"),
        }
        self.env.pop("COLUMNS", None)

    def deja(self, *args: str) -> str:
        done = subprocess.run(
            [*ENTRY, *args], env=self.env, cwd=self.project, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stdout


@pytest.fixture
def shop(tmp_path: Path, fake_home: Path) -> Shop:
    shop = Shop(tmp_path)
    _chat(shop.cli_root, shop.project, KUBECTL_CHAT, "raise the pods' memory limits", KUBECTL, 9)
    return shop


def test_a_long_command_is_whole_in_a_pipe(shop: Shop) -> None:
    how = shop.deja("how", "kubectl")
    assert f"$ {KUBECTL}  (deja show {KUBECTL_CHAT})" in how, how
    assert f"⚙ Shell {KUBECTL}\n" in shop.deja("show", KUBECTL_CHAT)
    assert f"- **Shell: {KUBECTL}** (exit 0)" in shop.deja("export", KUBECTL_CHAT)
    assert f"last command: {KUBECTL} (succeeded)" in shop.deja("wip")
    assert f"- `{KUBECTL}` → ok" in shop.deja("ctx", KUBECTL_CHAT)


def test_show_gives_a_long_output_s_head_and_tail_and_says_how_to_see_it_whole(shop: Shop) -> None:
    """A log's error is its last line: ``show`` gave a Shell call's first 12 lines, then ``…``, and nothing said how to
    see the rest (trial48 F3). It gives the head and the tail around one line saying how many it left out and that
    ``--full`` shows them, which it does."""
    output = "\n".join(f"INFO worker processed job {n}" for n in range(200)) + "\nERROR worker-3 OOMKilled"
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "why OOMKilled?", "kubectl logs deploy/worker", 10, output=output)
    shown = shop.deja("show", HUGE_CHAT)
    whole = f"`deja show {HUGE_CHAT} --full`"
    assert (
        "    INFO worker processed job 7\n"
        f"    … 185 lines left out: {whole} shows them\n"
        "    INFO worker processed job 193\n"
    ) in shown, shown
    assert "    ERROR worker-3 OOMKilled\n" in shown and "job 8\n" not in shown
    assert "    ok\n" in shop.deja("show", KUBECTL_CHAT)
    full = shop.deja("show", HUGE_CHAT, "--full")
    assert "".join(f"    {line}\n" for line in output.splitlines()) in full and "left out" not in full
    later = shop.deja("show", HUGE_CHAT, "--offset", "1", "--limit", "3")
    assert f"left out: `deja show {HUGE_CHAT} --offset 1 --limit 3 --full` shows them" in later, later


def test_show_counts_the_lines_left_out_with_a_thousands_separator(shop: Shop) -> None:
    """The count of lines left out reads as the line-cut note beside it does (``1,234 characters more``), not
    ``1084 lines left out`` (review48g)."""
    output = "\n".join(str(n) for n in range(1100))
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "why so many?", "seq 0 1099", 10, output=output)
    shown = shop.deja("show", HUGE_CHAT)
    assert f"    7\n    … 1,084 lines left out: `deja show {HUGE_CHAT} --full` shows them\n    1092\n" in shown, shown


def test_the_mcp_show_says_its_structured_content_holds_a_long_output_whole(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = "\n".join(f"INFO worker processed job {n}" for n in range(40)) + "\nERROR worker-3 OOMKilled"
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "why OOMKilled?", "kubectl logs deploy/worker", 10, output=output)
    shop.deja("index")
    for name in ("DEJA_CURSOR_ROOT", "DEJA_CURSOR_CLI_ROOT", "DEJA_HOME"):
        monkeypatch.setenv(name, shop.env[name])

    async def call() -> tuple[str, Any]:
        answer = await build_server().call_tool("show", {"session_id": HUGE_CHAT})
        return " ".join(block.text for block in answer.content), answer.structured_content

    text, data = anyio.run(call)
    assert "    … 25 lines left out: this answer's structured content shows them\n" in text, text
    assert "    ERROR worker-3 OOMKilled\n" in text
    assert data["messages"][1]["tool_calls"][0]["result"].endswith(output)


def test_show_keeps_the_line_saying_what_the_index_left_out(shop: Shop) -> None:
    """README: a result over its cap keeps its head and tail around ``[… N KB elided …]``, "which ``deja show``
    shows"; it was never shown, being past the 12th line (trial48 F3)."""
    output = "\n".join(f"step {n}: compiling module_{n}.py" for n in range(3000)) + "\nFATAL: disk quota exceeded"
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "the build dies", "make release", 10, output=output)
    from deja.interfaces.views import RESULT_TAIL

    lines = shop.deja("show", HUGE_CHAT).splitlines()
    note = next(n for n, line in enumerate(lines) if " left out around the line below: " in line)
    assert lines[note - 1] == "    step 7: compiling module_7.py"
    assert lines[note + 1 + RESULT_TAIL] == "    FATAL: disk quota exceeded", lines[note:]
    assert lines[note + 1].startswith("    [… ") and lines[note + 1].endswith(" KB elided …]"), lines[note : note + 2]
    assert "FATAL: disk quota exceeded" in shop.deja("show", HUGE_CHAT, "--full")


def test_show_says_how_much_of_a_long_line_it_left_out(shop: Shop) -> None:
    """A result of one long line (a minified JSON) is cut to ``RESULT_LINE`` characters, saying how many more."""
    from deja.interfaces.views import RESULT_LINE

    output = '{"plans": [' + ", ".join(f'{{"id": {n}}}' for n in range(400)) + "]}"
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "list the plans", "curl -s localhost/plans", 10, output=output)
    shown = shop.deja("show", HUGE_CHAT)
    more = f"{len(output) - RESULT_LINE:,} characters more: `deja show {HUGE_CHAT} --full` shows them"
    assert f"    {output[:RESULT_LINE]}… ({more})\n" in shown, shown
    assert f"    {output}\n" in shop.deja("show", HUGE_CHAT, "--full")


def _work(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, project: Path, **arguments: str) -> tuple[str, Any]:
    """What the MCP ``work`` tool answers, as text and as structured content."""
    for name in ("DEJA_CURSOR_ROOT", "DEJA_CURSOR_CLI_ROOT", "DEJA_HOME"):
        monkeypatch.setenv(name, env[name])
    server = build_server()

    async def call() -> tuple[str, Any]:
        answer = await server.call_tool("work", {**arguments, "project": str(project)})
        return " ".join(block.text for block in answer.content), answer.structured_content

    return anyio.run(call)


def test_an_mcp_answer_cuts_only_a_command_too_long_for_it_and_says_so(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deja.interfaces.work_views import COMMAND_CHARS

    _chat(shop.cli_root, shop.project, HUGE_CHAT, "seed the plans table", HUGE, 10)
    shop.deja("index")
    text, data = _work(shop.env, monkeypatch, shop.project, mode="how", query="kubectl")
    assert f"$ {KUBECTL}  (" in text, text
    text, data = _work(shop.env, monkeypatch, shop.project, mode="how", query="psql")
    assert len(HUGE) > COMMAND_CHARS and HUGE not in text
    assert (
        f"$ {HUGE[: COMMAND_CHARS - 1]}… (cut: {len(HUGE) - COMMAND_CHARS + 1} more characters; show its session"
        in text
    )
    assert data["invocations"][0]["command"] == HUGE
    text, _ = _work(shop.env, monkeypatch, shop.project, mode="wip", query=str(shop.project))
    assert f"last command: {HUGE[: COMMAND_CHARS - 1]}… (cut: " in text, text
    assert json.dumps(HUGE)[1:-1] not in text


def test_how_says_how_many_more_runs_there_are(shop: Shop) -> None:
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "make the suite pass", "pytest -q tests/", 10, runs=25)
    text = shop.deja("how", "pytest")
    assert text.count("$ pytest -q tests/") == 20 and text.endswith("\n5 more; --limit to see them\n"), text
    assert shop.deja("how", "pytest", "--limit", "24").endswith("\n1 more; --limit to see it\n")
    assert "more;" not in shop.deja("how", "pytest", "--limit", "25")
    data = json.loads(shop.deja("how", "pytest", "--json"))
    assert (len(data["invocations"]), data["more"]) == (20, 5)
    assert json.loads(shop.deja("how", "kubectl", "--json"))["more"] == 0


def test_how_lists_the_newest_runs_with_none_missing_between(shop: Shop) -> None:
    """review40b M7: seventy sessions ran ``helm lint`` once each; the runs listed came from the search's best fifty,
    not the newest fifty, so `deja how --limit 200` skipped runs in the middle (here the thirty oldest, which talk of
    helm lint more, ranked first)."""
    for n in range(70):
        chat_id = f"d0000000-0000-4000-8000-{n:012d}"
        command = f"helm lint ./chart --strict --values v{n:02d}.yaml"
        asked = f"helm lint keeps failing, run helm lint on the chart again {n}" if n < 30 else f"check the chart {n}"
        _chat(shop.cli_root, shop.project, chat_id, asked, command, n % 24, day=1 + n // 24)
    runs = json.loads(shop.deja("how", "helm", "lint", "--limit", "200", "--json"))["invocations"]
    assert [run["command"][-8:] for run in runs] == [f"v{n:02d}.yaml" for n in range(69, 19, -1)]


def test_the_mcp_how_says_how_many_older_runs_it_left_out(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> None:
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "make the suite pass", "pytest -q tests/", 10, runs=25)
    shop.deja("index")
    text, data = _work(shop.env, monkeypatch, shop.project, mode="how", query="pytest")
    assert text.count("$ pytest -q tests/") == 15 and text.endswith(
        "\n10 older runs not listed: add words to narrow the command"
    )
    assert (len(data["invocations"]), data["more"]) == (15, 10)


def test_an_mcp_how_too_long_for_its_bytes_lists_fewer_runs_and_still_says_how_many_more(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review40b L2: fifteen runs of a long command passed the answer's 4 KiB, and the cut to them dropped its last
    line first, the one saying how many older runs there are."""
    from deja.interfaces.mcp_server import WORK_TEXT_BYTES

    seed = "psql -c 'insert into plans values " + ", ".join(f"({n}, 'plan')" for n in range(30)) + "'"
    _chat(shop.cli_root, shop.project, HUGE_CHAT, "seed the plans table", seed, 10, runs=25)
    shop.deja("index")
    text, data = _work(shop.env, monkeypatch, shop.project, mode="how", query="psql")
    listed = text.count(f"$ {seed}  (")
    assert 1 < listed < 15 and len(text.encode()) <= WORK_TEXT_BYTES, text
    assert text.endswith(f"\n{25 - listed} older runs not listed: add words to narrow the command"), text
    assert (len(data["invocations"]), data["more"]) == (15, 10)


def test_the_failure_hook_ends_a_command_it_cuts_in_an_ellipsis(fake_home: Path) -> None:
    """The failure hook's context is bounded: a step of more than 120 characters is cut there, ending in ``…``, while
    ``deja fix`` shows it whole."""
    project = fake_home / "code" / "api"
    project.mkdir(parents=True)
    disk = "Error response from daemon: write /var/lib/docker/overlay2/f00/diff: no space left on device"
    prune = "docker builder prune --force --filter until=24h --keep-storage 10GB && docker image prune --force --filter until=240h"
    prune += " && df -h /var/lib/docker"
    messages = [
        *store_preamble(str(project)),
        store_user_message("docker compose cannot start the db"),
        *store_shell("t1", "docker compose up -d", disk, 1),
        *store_shell("t2", prune, "Total reclaimed space: 31.2GB", 0),
        *store_shell("t3", "docker compose up -d", "Container api-db-1 Started", 0),
    ]  # (no answer after it: the line of what followed has the block's room alone)
    cursor = fake_home / ".cursor"
    write_chat_store(
        chat_dir_for(cursor, str(project), "c-disk"), cwd=str(project), name="docker disk", messages=messages
    )
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "docker compose up -d", disk)
    assert len(prune) > 120 and f"What followed: `{prune[:119]}…`, then `docker compose up -d` succeeded" in said, said
    assert f"  fixed by: {prune}, then docker compose up -d\n" in run_deja("fix", disk).stdout
