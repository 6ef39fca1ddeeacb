"""The MCP server refreshes its index through a child process of its own, which ends with the server.

The check and the reading of what changed run in ``deja.interfaces.mcp_refresh`` so that they never hold the
server's interpreter while a tool call runs; what they find is served by a later call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness import ENTRY, Sample

from deja.core import detached
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the server's children from /proc")

HANDSHAKE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    '"clientInfo":{"name":"test","version":"1"}}}\n'
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)


class Server:
    """``deja mcp`` over pipes, its imports (``python -X importtime``) on its stderr."""

    def __init__(self, sample: Sample) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-X", "importtime", *ENTRY[1:], "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sample.env,
        )
        self.next_id = 3
        self.send(HANDSHAKE)
        self.answer(2)

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode())
        self.process.stdin.flush()

    def answer(self, request_id: int) -> dict:
        assert self.process.stdout is not None
        while line := self.process.stdout.readline():
            message = json.loads(line)
            if message.get("id") == request_id:
                return message
        raise AssertionError(f"the server ended before answering request {request_id}")

    def search(self, query: str) -> list[str]:
        """The session ids the ``search`` tool answers ``query`` with."""
        return [hit["session_id"] for hit in self.call_search(query)["structuredContent"]["hits"]]

    def call_search(self, query: str) -> dict:
        """The ``search`` tool's result for ``query``."""
        request_id, self.next_id = self.next_id, self.next_id + 1
        arguments = {"name": "search", "arguments": {"query": query}}
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": arguments}) + "\n")
        return self.answer(request_id)["result"]

    def refreshers(self) -> list[int]:
        return [pid for pid, argv in self.children().items() if "deja.interfaces.mcp_refresh" in argv]

    def children(self) -> dict[int, str]:
        """pid -> command line of each process the server started that still runs."""
        found = {}
        for children in Path(f"/proc/{self.process.pid}/task").glob("*/children"):
            for pid in children.read_text().split():
                found[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        return found

    def close(self) -> list[str]:
        """End the server as a client does, by closing its stdin; the modules it imported."""
        _, err = self.process.communicate(timeout=60)  # its stderr ends once the refresher, which shares it, ends too
        return [line.rsplit("|", 1)[1].strip() for line in err.decode().splitlines() if line.startswith("import time:")]


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_a_new_chat_is_read_by_the_refresher_and_served_by_a_later_search(indexed_sample: Sample) -> None:
    server = Server(indexed_sample)
    try:
        assert server.search("gunicorn workers") == []
        transcript = transcript_path(indexed_sample.history.cli_root, "/work/api", "5a1e0000-new")
        write_transcript(
            transcript, [user_turn("how many gunicorn workers per core?"), assistant_turn("Two per core.")]
        )
        deadline = time.monotonic() + 30
        while server.search("gunicorn workers") != ["5a1e0000-new"]:
            assert time.monotonic() < deadline, "the new chat was never served"
            time.sleep(0.2)
        refreshers = server.refreshers()
        assert len(refreshers) == 1
    finally:
        imported = server.close()
    # The server read the new index; the refresher, not the server, ran the indexer.
    assert "deja.core.search" in imported
    assert "deja.core.indexer" not in imported
    deadline = time.monotonic() + 10  # it has closed its descriptors; its exit may still be under way
    while running(refreshers[0]):
        assert time.monotonic() < deadline, "the refresher outlived the server"
        time.sleep(0.05)


def test_the_refresher_starts_before_any_call_and_below_the_servers_priority(indexed_sample: Sample) -> None:
    """Its start and its checks take no core from a call: it starts while the server waits for one, and a call that
    arrives while it checks runs first."""
    server = Server(indexed_sample)
    lowered = min(19, os.getpriority(os.PRIO_PROCESS, server.process.pid) + detached.NICE)
    try:
        deadline = time.monotonic() + 30
        while not (refreshers := server.refreshers()) or os.getpriority(os.PRIO_PROCESS, refreshers[0]) != lowered:
            assert time.monotonic() < deadline, f"no refresher at niceness {lowered} before the first call"
            time.sleep(0.05)
        assert server.search("pytest")  # it serves meanwhile
        assert server.refreshers() == refreshers  # the call's refresh asks the one that runs
    finally:
        server.close()


def test_a_chat_written_while_no_server_ran_is_read_as_the_server_starts(indexed_sample: Sample) -> None:
    """The refresher checks as it starts, beside the SDK's import: no call has to ask before a search finds it."""
    transcript = transcript_path(indexed_sample.history.cli_root, "/work/api", "5a1e0000-old")
    write_transcript(transcript, [user_turn("which celery broker did we pick?"), assistant_turn("Redis, for now.")])
    manifest = indexed_sample.home / "index" / "manifest.msgpack"
    built = manifest.stat().st_mtime_ns
    server = Server(indexed_sample)
    try:
        deadline = time.monotonic() + 30
        while manifest.stat().st_mtime_ns == built:
            assert time.monotonic() < deadline, "the refresher read nothing before a call asked"
            time.sleep(0.05)
        assert server.search("celery broker") == ["5a1e0000-old"]
    finally:
        server.close()


def test_a_name_not_utf8_a_refresh_passed_over_is_said_by_the_next_answer_once(indexed_sample: Sample) -> None:
    """An MCP user never saw the line ``deja index`` prints of a name the index cannot record (review49c L4): the
    refresher passes the name over in a process of its own. The answer after that refresh carries the CLI's line."""
    # (in a folder of chats: the check lists a folder whose entries changed)
    chats = sorted(indexed_sample.history.cli_root.glob("chats/*"))[0]
    Path(os.fsdecode(os.fsencode(str(chats)) + b"/caf\xe9")).mkdir()  # a chat's folder named in Latin-1
    said = f"deja passes over {chats}/caf\\xe9: its name is not UTF-8"
    server = Server(indexed_sample)
    try:
        deadline = time.monotonic() + 30
        while said not in (text := server.call_search("pytest")["content"][0]["text"]):
            assert time.monotonic() < deadline, "no answer named the folder passed over"
            time.sleep(0.2)
        # A chat written now is served only by a refresh that ran after the one that said the line: every answer
        # until then, and that one, must not say it again (review50d L4: sleeping 1.5 s proved no second refresh).
        transcript = transcript_path(indexed_sample.history.cli_root, "/work/api", "5a1e0000-new")
        write_transcript(transcript, [user_turn("how many gunicorn workers per core?"), assistant_turn("Two.")])
        while True:
            answer = server.call_search("gunicorn workers")
            assert said not in answer["content"][0]["text"]
            if [hit["session_id"] for hit in answer["structuredContent"]["hits"]] == ["5a1e0000-new"]:
                break
            assert time.monotonic() < deadline + 30, "the new chat was never served"
            time.sleep(0.2)
    finally:
        server.close()
    indexed = subprocess.run([*ENTRY, "index"], env=indexed_sample.env, capture_output=True, text=True, timeout=60)
    assert text.endswith(f"\n\n{indexed.stderr.splitlines()[-1]}")  # the line deja index prints, word for word


def _passed_over_said(server: Server) -> str:
    """The text of the first search answer that names a folder passed over (within 30 s)."""
    deadline = time.monotonic() + 30
    while "deja passes over" not in (text := server.call_search("pytest")["content"][0]["text"]):
        assert time.monotonic() < deadline, "no answer named a folder passed over"
        time.sleep(0.2)
    return text


def test_a_secret_in_a_name_passed_over_reaches_no_answer_nor_deja_index(indexed_sample: Sample) -> None:
    """The line is read off the disk, not out of the redacted index: a token in a folder's name reached the model
    whole, and ``deja index``'s stderr and ``--json`` too (review50d M1)."""
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    chats = sorted(indexed_sample.history.cli_root.glob("chats/*"))[0]
    Path(os.fsdecode(os.fsencode(str(chats)) + b"/key " + secret.encode() + b" \xe9")).mkdir()
    server = Server(indexed_sample)
    try:
        text = _passed_over_said(server)
    finally:
        server.close()
    assert "[redacted:" in text.splitlines()[-1] and secret not in text
    for args in (["index"], ["index", "--json"]):
        ran = subprocess.run([*ENTRY, *args], env=indexed_sample.env, capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0 and "key [redacted:github-token] " in ran.stdout + ran.stderr, ran.stderr
        assert secret not in ran.stdout + ran.stderr


def test_a_name_passed_over_and_renamed_is_not_named_again_the_new_one_is(indexed_sample: Sample) -> None:
    """The refresher's set of names passed over only grows: after the user renamed ``caf\\xe9`` as the line said,
    the next line named it again (first by name) and not the new ``zz\\xff`` (review50d M2)."""
    chats = sorted(indexed_sample.history.cli_root.glob("chats/*"))[0]
    first = Path(os.fsdecode(os.fsencode(str(chats)) + b"/caf\xe9"))
    first.mkdir()
    server = Server(indexed_sample)
    try:
        assert f"deja passes over {chats}/caf\\xe9: " in _passed_over_said(server)
        first.rename(chats / "cafe")  # what the line said to do
        Path(os.fsdecode(os.fsencode(str(chats)) + b"/zz\xff")).mkdir()
        text = _passed_over_said(server)
    finally:
        server.close()
    assert text.splitlines()[-1].startswith(f"deja passes over {chats}/zz\\xff: its name is not UTF-8"), text


def test_a_refresh_that_fails_says_one_line_naming_the_file_and_no_traceback(tmp_path: Path, cli_root: Path) -> None:
    """Cursor's MCP log got a Python traceback for every refresh that failed (trial49 F3): it gets the CLI's line."""
    write_transcript(
        transcript_path(cli_root, str(tmp_path), "c-one"), [user_turn("hello narwhal"), assistant_turn("ok")]
    )
    assert subprocess.run([*ENTRY, "index"], capture_output=True).returncode == 0
    write_transcript(
        transcript_path(cli_root, str(tmp_path), "c-two"), [user_turn("hello walrus"), assistant_turn("ok")]
    )
    lock = tmp_path / "deja" / "index" / ".lock"
    lock.unlink()
    lock.mkdir()  # (no refresh can take the writer lock: what a read-only DEJA_HOME does, without a mount)
    home = str(tmp_path / "deja")
    ran = subprocess.run(
        [sys.executable, "-m", "deja.interfaces.mcp_refresh", home], input=b"\n", capture_output=True, timeout=60
    )
    assert ran.returncode == 0 and ran.stdout == b"done\ndone\n"
    line = f"cannot update the index ({lock}: Is a directory); answering from the index as it stands"
    assert ran.stderr.decode().splitlines() == [line, line], ran.stderr.decode()


def test_a_refresh_under_a_root_not_in_utf8_names_the_root(
    tmp_path: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index built before the root was moved to such a path (or set so since): the refresh fails on the first
    record holding the path, and said a bare UnicodeEncodeError naming nothing (names49's finding)."""
    write_transcript(
        transcript_path(cli_root, str(tmp_path), "c-one"), [user_turn("hello narwhal"), assistant_turn("ok")]
    )
    assert subprocess.run([*ENTRY, "index"], capture_output=True).returncode == 0
    moved = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9"))
    cli_root.rename(moved)
    write_transcript(transcript_path(moved, str(tmp_path), "c-two"), [user_turn("hello walrus"), assistant_turn("ok")])
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(moved))
    ran = subprocess.run(
        [sys.executable, "-m", "deja.interfaces.mcp_refresh", str(tmp_path / "deja")], capture_output=True, timeout=60
    )
    assert ran.returncode == 0 and ran.stdout == b"done\n"
    assert ran.stderr.decode().splitlines() == [
        f"{tmp_path}/caf\\xe9: its path is not UTF-8, which deja's index cannot record: give the folder whose name "
        "shows \\xNN a UTF-8 name, or set DEJA_CURSOR_ROOT, DEJA_CURSOR_CLI_ROOT and DEJA_HOME to folders whose paths "
        "are UTF-8; answering from the index as it stands"
    ], ran.stderr.decode()
