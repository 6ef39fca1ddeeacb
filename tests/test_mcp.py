"""`deja mcp` driven as a subprocess through the MCP SDK's own stdio client.

The history is real: cursor-agent transcripts and chat stores and an IDE
``state.vscdb`` written by ``deja.core.writers``, indexed by ``refresh``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from filelock import FileLock
from harness import as_format_wrote_it, run_deja, snapshot
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from deja.core.index import FORMAT_VERSION, Index, index_dir
from deja.core.indexer import LOCK_NAME, refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import write_state_vscdb
from deja.interfaces.fastpath import SHOW_MOST
from deja.interfaces.mcp_server import MESSAGE_CHARS, SEARCH_TEXT_BYTES, SHOW_WINDOW_BYTES, STILL_INDEXING
from deja.interfaces.views import search_json

T0 = datetime(2026, 7, 20, 9, 0, tzinfo=UTC)
FLAKY_CHATS = 25
LONG_CHAT_TURNS = 60  # 120 messages
HUGE_CHAT_TURNS = 10  # answers of ~30,000 characters each


class History:
    """A Cursor history on disk and the environment that points deja at it."""

    def __init__(self, root: Path):
        self.root = root
        self.cli_root = root / "cursor"
        self.ide_root = root / "Cursor" / "User"
        self.deja_home = root / "deja"
        self.api = root / "code" / "api"
        self.web = root / "code" / "web"
        self.api.mkdir(parents=True)
        self.web.mkdir(parents=True)

    @property
    def env(self) -> dict[str, str]:
        """deja's settings, and the test run's time zone: the SDK's client passes a server none of its own environment
        but a few names (``PATH``, ``HOME`` …), so a server started under ``TZ=America/Los_Angeles`` wrote its times
        in the zone of ``/etc/localtime`` while the test compared them with its own, in Los Angeles time. A person's
        server and CLI both read the machine's zone."""
        zone = {"TZ": os.environ["TZ"]} if "TZ" in os.environ else {}
        return {
            "DEJA_HOME": str(self.deja_home),
            "DEJA_CURSOR_CLI_ROOT": str(self.cli_root),
            "DEJA_CURSOR_ROOT": str(self.ide_root),
            **zone,
        }

    def cli_chat(self, chat_id: str, cwd: Path, name: str, turns: list[tuple[str, str]], start: datetime) -> None:
        """A cursor-agent chat of (question, answer) turns, a minute apart, with its chat store."""
        records: list[dict[str, Any]] = []
        for i, (question, reply) in enumerate(turns):
            records += [user_turn(question, start + timedelta(minutes=i)), assistant_turn(reply), turn_ended()]
        write_transcript(transcript_path(self.cli_root, str(cwd), chat_id), records)
        write_chat_store(chat_dir_for(self.cli_root, str(cwd), chat_id), cwd=str(cwd), name=name, messages=[])


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> History:
    h = History(tmp_path)
    for name, value in h.env.items():
        monkeypatch.setenv(name, value)

    # A CLI chat with a shell call and its result from the store.
    question = "why is the redis cache stale after every deploy?"
    answer = "The cache key omits the locale, so every locale shares one entry."
    write_transcript(
        transcript_path(h.cli_root, str(h.api), "c0ffee01-cache"),
        [
            user_turn(question, T0),
            assistant_turn(answer, tool_use("Shell", {"command": "redis-cli FLUSHALL"})),
            turn_ended(),
        ],
    )
    write_chat_store(
        chat_dir_for(h.cli_root, str(h.api), "c0ffee01-cache"),
        cwd=str(h.api),
        name="Redis cache goes stale",
        messages=[
            {
                "role": "assistant",
                "id": "1",
                "content": [
                    {"type": "text", "text": answer},
                    tool_call_part("call_1", "Shell", {"command": "redis-cli FLUSHALL"}),
                ],
            },
            tool_result_message("call_1", "Shell", shell_result_text("OK", 0)),
        ],
    )
    # A long CLI chat, to read in windows.
    h.cli_chat(
        "0long000-web",
        h.web,
        "Refactor the router",
        [
            (f"step {i}: move route {i} into its module", f"Moved route {i}; the tests pass.")
            for i in range(LONG_CHAT_TURNS)
        ],
        T0 + timedelta(days=1),
    )
    # Many chats that all match one word, to overflow the search budget.
    for i in range(FLAKY_CHATS):
        h.cli_chat(
            f"f1a{i:05d}-flaky",
            h.api,
            f"Flaky test number {i}",
            [
                (
                    f"the flaky test test_upload_{i} fails one run in ten on CI with a timeout while the worker pool drains its "
                    f"queue; retrying hides it and nobody knows why the fixture for bucket {i} leaks between runs",
                    f"Test {i} shares a temporary bucket with test {i + 1}; giving each its own bucket makes it pass.",
                )
            ],
            T0 - timedelta(days=30 + i),
        )
    # A chat of very long answers, to bound a window by size.
    h.cli_chat(
        "b16b16b1-huge",
        h.web,
        "Paste the whole log",
        [(f"here is log part {i}", f"line {i}: connection reset by peer\n" * 800) for i in range(HUGE_CHAT_TURNS)],
        T0 - timedelta(days=400),
    )
    # An editor chat: searchable and showable, but not resumable from a terminal.
    write_state_vscdb(
        h.ide_root / "globalStorage" / "state.vscdb",
        composers={
            "1de0c0de-ide": {
                "_v": 10,
                "composerId": "1de0c0de-ide",
                "name": "Migrate the postgres schema",
                "createdAt": int((T0 - timedelta(days=2)).timestamp() * 1000),
                "lastUpdatedAt": int((T0 - timedelta(days=2)).timestamp() * 1000) + 60_000,
                "fullConversationHeadersOnly": [{"bubbleId": "b1", "type": 1}, {"bubbleId": "b2", "type": 2}],
            }
        },
        bubbles={
            "1de0c0de-ide": {
                "b1": {"type": 1, "text": "how do I migrate the postgres schema without downtime?"},
                "b2": {"type": 2, "text": "Add the column nullable first, backfill, then add the constraint."},
            }
        },
    )
    refresh(h.deja_home)
    return h


# --------------------------------------------------------------------------- the client


@asynccontextmanager
async def connect(history: History, errlog_path: Path) -> AsyncIterator[ClientSession]:
    """`deja mcp` started as a subprocess, initialized, its stderr going to ``errlog_path``."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "deja.interfaces.entry", "mcp"], env=history.env)
    with errlog_path.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def run(history: History, tmp_path: Path, scenario: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Run ``scenario`` against a fresh server; the server must not have logged a traceback."""
    errlog = tmp_path / "server-stderr.txt"

    async def main() -> None:
        with anyio.fail_after(60):
            async with connect(history, errlog) as session:
                await scenario(session)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # show the failed assertion, not the task groups around it
        while isinstance(group, BaseExceptionGroup):
            group = group.exceptions[0]
        raise group from None
    assert "Traceback" not in errlog.read_text()


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def ok(session: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, text(result)
    return result


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, f"{tool}({arguments}) should fail but answered: {text(result)}"
    return text(result)


# --------------------------------------------------------------------------- the protocol


def test_initialize_lists_five_read_only_tools(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        init = session.initialize_result
        assert init is not None and init.server_info.name == "deja"
        assert init.instructions and "search" in init.instructions
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == {"search", "show", "recent", "resume", "work"}
        for tool in tools.values():
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            assert tool.annotations.open_world_hint is False
            assert tool.description and len(tool.description) > 80 and "\n" not in tool.description
            assert all(p.get("description") for p in tool.input_schema["properties"].values())
        assert tools["search"].input_schema["required"] == ["query"]
        assert tools["search"].input_schema["properties"]["limit"]["default"] == 5
        assert tools["search"].input_schema["properties"]["source"]["anyOf"][0]["enum"] == ["cursor-ide", "cursor-cli"]
        assert tools["show"].input_schema["required"] == ["session_id"]
        assert tools["recent"].input_schema["properties"]["limit"]["default"] == 10
        assert tools["work"].input_schema["properties"]["mode"]["enum"] == [
            "blame",
            "files",
            "fix",
            "how",
            "wip",
            "ctx",
        ]
        # What the tool list costs the model's context, at about four characters a token.
        definitions = json.dumps([tool.model_dump(exclude_none=True) for tool in tools.values()])
        assert len(definitions) / 4 < 1500, len(definitions)

    run(history, tmp_path, scenario)


# --------------------------------------------------------------------------- the tools


def test_search_answers_text_and_the_cli_json(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await ok(session, "search", query="redis cache stale")
        data = result.structured_content
        assert data is not None and data["query"] == "redis cache stale"
        top = data["hits"][0]
        assert (top["session_id"], top["project"], top["title"]) == ("c0ffee01-cache", "api", "Redis cache goes stale")
        assert any("locale" in s["text"] for s in top["snippets"])
        assert "Redis cache goes stale" in text(result) and "c0ffee01-cache" in text(result)

        # The same shape and hits as `deja search --json`, the score aside (recency moves with the clock).
        expected = search_json(search(Index.open(history.deja_home), "redis cache stale", limit=5))
        for hits in (data["hits"], expected["hits"]):
            for hit in hits:
                hit.pop("score")
        assert data == {"schema_version": 1, **expected}  # the CLI envelope's, schema_version first

    run(history, tmp_path, scenario)


def test_search_names_the_words_no_session_holds(history: History, tmp_path: Path) -> None:
    """As ``deja search`` names them on stderr, the text the model reads names them: it said nothing of them, and the
    model could not tell its results were found without them (review41b L7)."""

    async def scenario(session: ClientSession) -> None:
        found = await ok(session, "search", query="redis cache zeppelin")
        assert "Redis cache goes stale" in text(found) and text(found).endswith("no session holds: zeppelin.")
        assert found.structured_content["unmatched"] == ["zeppelin"]
        none = await ok(session, "search", query="zeppelin quokka")
        assert text(none) == 'No session matches "zeppelin quokka"; no session holds: zeppelin quokka.', text(none)

    run(history, tmp_path, scenario)


def test_search_filters_by_project_source_and_time(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        async def ids(**arguments: Any) -> set[str]:
            result = await ok(session, "search", **arguments)
            return {hit["session_id"] for hit in result.structured_content["hits"]}

        assert await ids(query="postgres schema") == {"1de0c0de-ide"}
        assert await ids(query="postgres schema", source="cursor-cli") == set()
        assert await ids(query="route module", project="web") == {"0long000-web"}
        assert await ids(query="route module", project=str(history.web)) == {"0long000-web"}
        assert await ids(query="route module", project="api") == set()
        since = (T0 - timedelta(days=3)).date().isoformat()
        assert await ids(query="flaky", since=since, limit=20) == set()
        assert len(await ids(query="flaky", since="3650d", limit=3)) == 3

    run(history, tmp_path, scenario)


def test_search_since_shows_a_resumed_chat_s_passages_of_then(history: History, tmp_path: Path) -> None:
    """trial47 F2, as ``deja search --since`` (``test_search_dates``): a chat resumed since ``since`` shows its turn
    of then, not its best one of before."""
    write_transcript(
        transcript_path(history.cli_root, str(history.api), "5e5e5e5e-resumed"),
        [
            user_turn("the kafka consumer lags behind the kafka topic", T0 - timedelta(days=20)),
            assistant_turn("The kafka consumer commits every message; batching the kafka commits."),
            turn_ended(),
            user_turn("kafka lag is back after the upgrade", T0),
            assistant_turn("The upgrade reset the batch size."),
            turn_ended(),
        ],
    )
    refresh(history.deja_home)

    async def scenario(session: ClientSession) -> None:
        found = await ok(session, "search", query="kafka", since=(T0 - timedelta(days=3)).date().isoformat())
        (hit,) = found.structured_content["hits"]
        assert [s["timestamp"][:10] for s in hit["snippets"]] == [T0.date().isoformat()], hit["snippets"]
        assert "kafka lag is back" in text(found) and "commits every message" not in text(found), text(found)

    run(history, tmp_path, scenario)


def test_search_since_hours_says_when_a_passage_before_them_was_written(history: History, tmp_path: Path) -> None:
    """review47e M3, as ``deja search --since 6h`` (``test_search_dates``): a chat resumed an hour ago whose only
    match is of eight hours ago shows it with its time (its day, when of a day before its line's), not as if of
    the window."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    early, late = now - timedelta(hours=8), now - timedelta(hours=1)
    write_transcript(
        transcript_path(history.cli_root, str(history.api), "6e6e6e6e-hours"),
        [
            user_turn("the grpc deadline is exceeded", early),
            assistant_turn("Raise the deadline to 5s."),
            turn_ended(),
            user_turn("now rename the button", late),
            assistant_turn("Renamed."),
            turn_ended(),
        ],
    )
    refresh(history.deja_home)

    async def scenario(session: ClientSession) -> None:
        found = await ok(session, "search", query="grpc deadline", since="6h")
        # (in the server's time zone, which its hit line shows ``late`` in)
        shown = datetime.strptime(re.search(r"· (\d{4}-\d\d-\d\d \d\d:\d\d)", text(found))[1], "%Y-%m-%d %H:%M")
        local = early.replace(tzinfo=None) + (shown - late.replace(tzinfo=None))
        said = local.strftime("%H:%M") if local.date() == shown.date() else local.date().isoformat()
        assert f"user: ({said}) the grpc deadline is exceeded" in text(found), text(found)

    run(history, tmp_path, scenario)


def test_search_output_stays_within_its_budget(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await ok(session, "search", query="flaky bucket", limit=20)
        assert result.structured_content["total"] == FLAKY_CHATS
        assert len(text(result).encode()) <= SEARCH_TEXT_BYTES
        shown = sum(hit["session_id"] in text(result) for hit in result.structured_content["hits"])
        # the structured content keeps every hit up to the limit, as deja search --json does; the text says why it
        # stops, never to raise a limit already at the most, which an agent would follow in a loop (trial43 F3)
        assert len(result.structured_content["hits"]) == 20
        assert "larger limit" not in text(result)
        # (those the structured content holds apart from those it does not: review43e L7)
        assert text(result).endswith(
            f"\n{20 - shown} more sessions are in the structured content only: the text stops at 4 KiB; "
            f"{FLAKY_CHATS - 20} more match: narrow the search (a project, since, more distinctive words) to see them."
        ), text(result)
        fewer = await ok(session, "search", query="flaky bucket", limit=3)
        assert text(fewer).endswith(
            f"{FLAKY_CHATS - 3} more sessions match; pass a larger limit (up to 20) or narrow the search to see them."
        )
        assert 1 <= shown < 20
        # the words no session holds are named last, within the same budget (review41d L4)
        unheld = [f"zeppelin{n:02}quokkaxylophonewombat" for n in range(20)]
        result = await ok(session, "search", query=f"flaky bucket {' '.join(unheld)}", limit=20)
        assert len(text(result).encode()) <= SEARCH_TEXT_BYTES, len(text(result).encode())
        assert text(result).endswith(f"no session holds: {' '.join(unheld[:5])} and 15 more.")
        assert result.structured_content["hits"]

    run(history, tmp_path, scenario)


def test_show_reads_a_session_in_windows(history: History, tmp_path: Path) -> None:
    total = 2 * LONG_CHAT_TURNS

    async def scenario(session: ClientSession) -> None:
        result = await ok(session, "show", session_id="c0ffee01")  # a prefix will do
        data = result.structured_content
        assert data["session"]["id"] == "c0ffee01-cache" and "window" not in data
        call = data["messages"][1]["tool_calls"][0]
        assert (call["name"], call["args"], call["result"], call["exit_code"]) == (
            "Shell",
            {"command": "redis-cli FLUSHALL"},
            "OK",
            0,
        )
        assert "redis-cli FLUSHALL" in text(result) and "offset=" not in text(result)

        first = await ok(session, "show", session_id="0long000-web")
        assert first.structured_content["window"] == {"offset": 0, "returned": 50, "total": total}
        assert first.structured_content["messages"][0]["text"] == "step 0: move route 0 into its module"
        assert f"messages 1–50 of {total}; call show with offset=50" in text(first)

        last = await ok(session, "show", session_id="0long000-web", offset=100, limit=50)
        assert last.structured_content["window"] == {"offset": 100, "returned": 20, "total": total}
        assert last.structured_content["messages"][-1]["text"] == f"Moved route {LONG_CHAT_TURNS - 1}; the tests pass."
        assert text(last).endswith(f"(messages 101–{total} of {total})")

        ide = await ok(session, "show", session_id="1de0c0de-ide", limit=1)
        assert [m["role"] for m in ide.structured_content["messages"]] == ["user"]

    run(history, tmp_path, scenario)


def test_a_show_limit_above_the_most_says_it_gave_the_most(history: History, tmp_path: Path) -> None:
    """``limit: 1000`` gave 200 messages without a word, where ``deja show -n 1000`` refuses it (trial48 F10)."""
    turns = [(f"ok {i}", f"done {i}") for i in range(SHOW_MOST // 2 + 10)]  # (short: the most cuts, not the bytes)
    history.cli_chat("5b0a1b2c-many", history.web, "Many short turns", turns, T0 - timedelta(days=500))
    refresh(history.deja_home)

    async def scenario(session: ClientSession) -> None:
        most = await ok(session, "show", session_id="5b0a1b2c-many", limit=1000)
        assert most.structured_content["window"]["returned"] == SHOW_MOST
        assert text(most).endswith(
            f"limit=1000 is more than {SHOW_MOST}, the most: at most {SHOW_MOST} messages are given."
        )
        rest = await ok(session, "show", session_id="5b0a1b2c-many", offset=SHOW_MOST, limit=1000)
        assert rest.structured_content["window"]["returned"] == 20 and "limit=" not in text(rest)

    run(history, tmp_path, scenario)
    refused = run_deja("show", "5b0a1b2c-many", "-n", "1000")  # (the fixture points this process at the history)
    assert (refused.returncode, refused.stderr) == (2, f"deja: -n 1000 is not allowed: give 1 to {SHOW_MOST}\n")


def test_show_clips_long_messages_and_bounds_the_window(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await ok(session, "show", session_id="b16b16b1-huge")
        window = result.structured_content["window"]
        assert window["offset"] == 0 and 2 <= window["returned"] < window["total"] == 2 * HUGE_CHAT_TURNS
        answer = result.structured_content["messages"][1]["text"]
        assert answer.startswith("line 0: connection reset by peer") and answer.endswith("more characters)")
        assert len(answer) < MESSAGE_CHARS + 40
        assert len(json.dumps(result.structured_content)) < SHOW_WINDOW_BYTES + MESSAGE_CHARS + 1024
        assert f"call show with offset={window['returned']}" in text(result)

    run(history, tmp_path, scenario)


def test_a_limit_out_of_range_is_clamped_not_a_validation_dump(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        many = await ok(session, "recent", limit=100)
        assert 10 < len(many.structured_content["sessions"]) <= 50 and "pydantic" not in text(many)
        found = await ok(session, "search", query="flaky bucket", limit=1000)
        assert len(found.structured_content["hits"]) == 20 and "pydantic" not in text(found)
        assert text(found).endswith("limit=1000 is more than 20, the most: at most 20 sessions are given.")
        every = await ok(session, "search", query="postgres schema", limit=1000)  # (all that match: review43e L7)
        assert len(every.structured_content["hits"]) == 1 and "limit=" not in text(every), text(every)
        assert (
            await refused(session, "recent", limit=0)
            == "Error executing tool recent: limit=0 is too small: give 1 or more"
        )
        assert await refused(session, "show", session_id="c0ffee01", offset=-1) == (
            "Error executing tool show: offset=-1 is too small: give 0 or more"
        )

    run(history, tmp_path, scenario)


def test_recent_names_a_larger_limit_only_where_one_shows_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 sessions: a page of 10 leaves out 50, which no limit (50 at most) shows: the page says to narrow the list."""
    h = History(tmp_path)
    for name, value in h.env.items():
        monkeypatch.setenv(name, value)
    for i in range(60):
        h.cli_chat(f"5e55{i:04d}-busy", h.api, f"Chat {i}", [(f"question {i}", "Answered.")], T0 - timedelta(hours=i))
    refresh(h.deja_home)

    async def scenario(session: ClientSession) -> None:
        page = await ok(session, "recent", limit=10)
        assert page.structured_content["more"] == 50
        assert text(page).splitlines()[-1] == "50 more; ask with a shorter since or a project to see them"
        page = await ok(session, "recent", limit=45)
        assert text(page).splitlines()[-1] == "15 more; ask with a shorter since or a project to see them"

    run(h, tmp_path, scenario)


def test_recent_lists_newest_first(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await ok(session, "recent", limit=4)
        sessions = result.structured_content["sessions"]
        assert [s["id"] for s in sessions] == ["0long000-web", "c0ffee01-cache", "1de0c0de-ide", "f1a00000-flaky"]
        assert text(result).splitlines()[0].startswith("0long000-web  ")

        api = (await ok(session, "recent", project="api")).structured_content["sessions"]
        assert len(api) == 10 and {s["project"] for s in api} == {"api"}
        assert api[0]["id"] == "c0ffee01-cache"

        since = (T0 - timedelta(days=3)).date().isoformat()
        lately = (await ok(session, "recent", since=since)).structured_content
        assert [s["id"] for s in lately["sessions"]] == ["0long000-web", "c0ffee01-cache", "1de0c0de-ide"]
        assert lately["more"] == 0
        page = await ok(session, "recent", since=since, limit=2)  # (a page of a week's work says there is more)
        assert page.structured_content["more"] == 1
        assert text(page).splitlines()[-1] == "1 more; ask with limit=3 to see them"
        nothing_since = await ok(session, "recent", since="0d")
        assert text(nothing_since) == "No session was updated in that period (since=0d)."
        quiet = await ok(session, "recent", project="api", since="0d")  # (another's may have been)
        assert text(quiet) == "No session of project 'api' was updated in that period (since=0d)."
        one = (T0 - timedelta(days=2)).date().isoformat()  # (a day's sessions: trial48b F7)
        day = (await ok(session, "recent", since=one, until=one)).structured_content
        assert [s["id"] for s in day["sessions"]] == ["1de0c0de-ide"], day
        assert await refused(session, "recent", since="1d", until="3d") == (
            "Error executing tool recent: until='3d' ends before since begins: give an until after it"
        )
        for tool, asked in (("recent", {}), ("search", {"query": "flaky"})):  # (as `deja search --since` refuses it)
            assert await refused(session, tool, since="2099-01-01", **asked) == (
                f"Error executing tool {tool}: since=2099-01-01 is in the future: give a past time or a span (7d)"
            )
        assert await refused(session, "recent", since="lately") == (
            "Error executing tool recent: since='lately' is not a time: use 30d, 12h, 45m (minutes), 2w, 3mo, 1y, "
            "YYYY-MM-DD, today, yesterday, tuesday, last week or 3 days ago"
        )
        this_year = f"{datetime.now().year}-01-01"  # (the words a search reads name the same period's start)
        assert text(await ok(session, "recent", since="This Year")) == text(
            await ok(session, "recent", since=this_year)
        )

        nothing = await ok(session, "recent", project="no-such-project")
        assert "No session of project 'no-such-project' is indexed" in text(nothing)
        assert nothing.structured_content == {"schema_version": 1, "sessions": [], "more": 0, "notice": text(nothing)}
        assert (await ok(session, "recent")).structured_content["notice"] == ""

    run(history, tmp_path, scenario)


def test_work_that_finds_nothing_answers_empty_with_a_note(history: History, tmp_path: Path) -> None:
    """A folder no session ran in is no more an error than an error that never came up: an answer saying so."""
    nowhere = history.root / "code" / "nowhere"
    nowhere.mkdir()

    async def scenario(session: ClientSession) -> None:
        wip = await ok(session, "work", mode="wip", query=str(nowhere))
        assert (
            text(wip)
            == f"no session ran in {nowhere}, below it or in a folder above it; `recent` lists where sessions ran"
        )
        assert wip.structured_content["session"] is None and wip.structured_content["files"] == []
        here = await ok(session, "work", mode="wip", query=str(history.api))
        assert here.structured_content["session"]["project"] == "api"
        # no query: `project`'s folder (it was "query: Field required", though the code took none: trial20 F8)
        unasked = await ok(session, "work", mode="wip", project=str(history.api))
        assert unasked.structured_content == here.structured_content
        for mode, query in (("fix", "FluxCapacitorError: 1.21 gigawatts"), ("how", "kubectl"), ("files", "zeppelin")):
            result = await ok(session, "work", mode=mode, query=query)
            assert len(text(result).splitlines()) == 1, text(result)

    run(history, tmp_path, scenario)


def test_how_names_in_its_structured_content_the_words_it_left_out(history: History, tmp_path: Path) -> None:
    """review50c M1: the text's first line named the words left out, the structured content did not: an agent reading
    it alone took the runs listed for the whole query's."""

    async def scenario(session: ClientSession) -> None:
        asked = await ok(session, "work", mode="how", query="how to run redis-cli")
        data = asked.structured_content
        assert (data["query"], data["left_out"]) == ("how to run redis-cli", ["how", "to", "run"]), data
        assert [run["command"] for run in data["invocations"]] == ["redis-cli FLUSHALL"]
        assert "('how', 'to', 'run' left out: no run has every word)" in text(asked).splitlines()[0], text(asked)
        whole = await ok(session, "work", mode="how", query="redis-cli")
        assert whole.structured_content["left_out"] == []

    run(history, tmp_path, scenario)


def test_a_project_no_session_ran_in_is_named_with_what_to_do(history: History, tmp_path: Path) -> None:
    """A misspelt project is not "nothing on that topic": the answer names it and points at ``recent``."""
    note = "No session of project 'apj' is indexed; did you mean project='api'? `recent` without a project lists the latest sessions and their projects."

    async def scenario(session: ClientSession) -> None:
        for mode, query in (("files", "cache"), ("how", "pytest")):
            result = await ok(session, "work", mode=mode, query=query, project="apj")
            assert text(result) == note, mode
        for tool, asked in (("search", {"query": "cache"}), ("recent", {})):  # (in the data too: review43a M3)
            result = await ok(session, tool, **asked, project="apj")
            assert (text(result), result.structured_content["notice"]) == (note, note), tool
        assert "No session matches" in text(await ok(session, "search", query="zeppelin", project="api"))
        for root in ("/", "c:\\", "c:/", "c:/Users/.."):  # (a Windows drive's: a database written there)
            assert "root folder" in await refused(session, "work", mode="files", query="cache", project=root)
        # (``c:`` with no separator is a name, on Linux a folder's: review46a L1)
        assert text(await ok(session, "search", query="cache", project="c:")).startswith("No session of project 'c:'")

    run(history, tmp_path, scenario)


def test_a_period_no_session_was_active_in_says_so_naming_since(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await ok(session, "search", query="what did I do yesterday")
        said = text(result)  # (the sample's sessions are from months before: not a bare "No session matches", F4)
        assert re.fullmatch(
            r"No session was active in \d{4}-\d\d-\d\d; the newest is from \d{4}-\d\d-\d\d: give words to look for, "
            r"with since to keep to a period\.",
            said,
        ), said
        assert result.structured_content["notice"] == said

    run(history, tmp_path, scenario)


def test_resume_gives_the_command_or_the_reason(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        cli = await ok(session, "resume", session_id="c0ffee01")
        command = cli.structured_content["command"]
        assert command and "cursor-agent --resume c0ffee01-cache" in command and str(history.api) in command
        assert text(cli) == command

        ide = await ok(session, "resume", session_id="1de0c0de-ide")
        assert ide.structured_content["command"] is None
        assert "editor chat" in ide.structured_content["reason"]
        assert text(ide).startswith("1de0c0de-ide cannot be resumed: it is a Cursor editor chat")

        assert "no session has the id 'nope'" in await refused(session, "resume", session_id="nope")

    run(history, tmp_path, scenario)


# --------------------------------------------------------------------------- bad arguments and long sessions


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        assert "query is empty" in await refused(session, "search", query="   ")
        assert "limit" in await refused(session, "search", query="cache", limit=-1)
        assert "limit" in await refused(session, "recent", limit=0)
        assert "source" in await refused(session, "search", query="cache", source="vscode")
        assert "since='the other day'" in await refused(session, "search", query="cache", since="the other day")
        # (the tools an agent calls, not the CLI's commands: trial43 F9)
        assert await refused(session, "show", session_id="nope") == (
            "Error executing tool show: no session has the id 'nope': list ids with `recent` or find one with `search`"
        )
        assert "matches 10 sessions" in await refused(session, "show", session_id="f1a0000")
        assert await refused(session, "show", session_id="") == (
            "Error executing tool show: an empty session id matches nothing: give an id or a unique prefix (see `recent`)"
        )
        unknown = await refused(session, "work", mode="ctx", query="zzqqxxunheardof")
        assert "`recent`" in unknown and "deja" not in unknown, unknown
        assert "past the end" in await refused(session, "show", session_id="c0ffee01", offset=2)
        assert "offset" in await refused(session, "show", session_id="c0ffee01", offset=-1)
        assert await refused(session, "search") == "Error executing tool search: query: Field required"
        assert await refused(session, "search", query="cache", source="vscode") == (
            "Error executing tool search: source: Input should be 'cursor-ide' or 'cursor-cli'"
        )
        assert await refused(session, "search", query="cache", bogus=1) == (
            "Error executing tool search: unknown argument bogus; it takes limit, project, query, since, source"
        )
        assert "Unknown tool" in await refused(session, "forget", everything=True)
        await ok(session, "search", query="redis")

    run(history, tmp_path, scenario)


def test_a_long_session_of_many_calls(history: History, tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        started = time.monotonic()
        for i in range(150):
            hit = (await ok(session, "search", query=f"flaky test_upload_{i % FLAKY_CHATS}")).structured_content[
                "hits"
            ][0]
            assert hit["session_id"] == f"f1a{i % FLAKY_CHATS:05d}-flaky"
            shown = await ok(session, "show", session_id=hit["session_id"])
            assert len(shown.structured_content["messages"]) == 2
            assert (await ok(session, "recent", limit=1)).structured_content["sessions"][0]["id"] == "0long000-web"
            if i % 10 == 0:
                await refused(session, "show", session_id="nope")
        assert time.monotonic() - started < 45

    run(history, tmp_path, scenario)


# --------------------------------------------------------------------------- freshness


async def found_later(session: ClientSession, query: str, wanted: str) -> CallToolResult:
    """The first ``search`` answer whose best hit is ``wanted``, asking again while the server refreshes aside."""
    with anyio.fail_after(20):
        while True:
            result = await ok(session, "search", query=query)
            hits = result.structured_content["hits"]
            if hits and hits[0]["session_id"] == wanted:
                return result
            await anyio.sleep(0.2)


def test_a_chat_written_after_the_build_is_found_by_a_later_call(history: History, tmp_path: Path) -> None:
    history.cli_chat(
        "5a1e0000-new",
        history.api,
        "Tune gunicorn workers",
        [("how many gunicorn workers per core?", "Two per core plus one.")],
        T0,
    )

    async def scenario(session: ClientSession) -> None:
        # The first call answers from the index as it stands; the refresh it does not wait for finds the new chat.
        await found_later(session, "gunicorn workers", "5a1e0000-new")
        # Another deja refreshes it (as the session-end hook does): the next call reads the new index at once.
        history.cli_chat("5a1e0001-next", history.web, "Pin uvicorn", [("pin uvicorn below 0.30", "Pinned.")], T0)
        refresh(history.deja_home)
        result = await ok(session, "search", query="pin uvicorn")
        assert result.structured_content["hits"][0]["session_id"] == "5a1e0001-next"

    run(history, tmp_path, scenario)


def test_a_turn_appended_while_the_server_runs_is_found_by_a_later_search(history: History, tmp_path: Path) -> None:
    transcript = transcript_path(history.cli_root, str(history.api), "c0ffee01-cache")

    async def scenario(session: ClientSession) -> None:
        assert "memcached" not in text(await ok(session, "search", query="redis cache"))
        with transcript.open("ab") as out:  # the chat goes on while the server runs: no hook, no other deja
            for record in (
                user_turn("should we move the cache to memcached?", T0 + timedelta(hours=1)),
                assistant_turn("No: memcached drops keys under memory pressure."),
            ):
                out.write(json.dumps(record).encode() + b"\n")
        result = await found_later(session, "memcached pressure", "c0ffee01-cache")
        assert "memcached" in text(result)

    run(history, tmp_path, scenario)


def test_while_the_first_build_runs_tools_say_so_and_then_answer(history: History, tmp_path: Path) -> None:
    """No index yet and another deja holds the writer lock: answer at once, build aside, then serve."""
    directory = index_dir(history.deja_home)
    for path in directory.iterdir():
        if path.name != LOCK_NAME:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    lock = FileLock(str(directory / LOCK_NAME))
    lock.acquire()

    async def scenario(session: ClientSession) -> None:
        try:
            for tool, arguments in [
                ("search", {"query": "redis"}),
                ("show", {"session_id": "c0ffee01"}),
                ("recent", {}),
            ]:
                started = time.monotonic()
                result = await ok(session, tool, **arguments)
                assert text(result) == STILL_INDEXING and result.structured_content is None
                assert time.monotonic() - started < 2
        finally:
            lock.release()
        # The server started `deja index`, which builds once the lock is free.
        with anyio.fail_after(30):
            while True:
                result = await ok(session, "search", query="redis")
                if text(result) != STILL_INDEXING:
                    break
                await anyio.sleep(0.2)
        assert result.structured_content["hits"][0]["session_id"] == "c0ffee01-cache"

    run(history, tmp_path, scenario)


def test_a_deja_home_that_cannot_hold_an_index_is_a_tool_error(history: History, tmp_path: Path) -> None:
    """DEJA_HOME a file: every call says what the CLI says, as an error, instead of "still indexing" for ever (a
    trust trial's find: an agent would retry without end, and nothing told the person why)."""
    history.deja_home = tmp_path / "a-file"
    history.deja_home.write_text("not a folder\n")
    expected = (
        f"cannot write the index: deja's home {history.deja_home} is a file, not a folder: point DEJA_HOME at a "
        "folder, or unset it"
    )

    async def scenario(session: ClientSession) -> None:
        for tool, arguments in [("search", {"query": "redis"}), ("recent", {}), ("search", {"query": "redis"})]:
            assert await refused(session, tool, **arguments) == f"Error executing tool {tool}: {expected}"

    run(history, tmp_path, scenario)


def test_a_deja_home_whose_path_is_not_utf8_is_a_tool_error_naming_it(history: History, tmp_path: Path) -> None:
    """No build can record such a root: every call said "still indexing" for ever while the build it started failed
    unseen (review49c H1). Each says the CLI's line, and no build starts."""
    history.deja_home = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/jos\xe9"))
    expected = (
        f"{tmp_path}/jos\\xe9: its path is not UTF-8, which deja's index cannot record: give the folder whose name "
        "shows \\xNN a UTF-8 name, or set DEJA_CURSOR_ROOT, DEJA_CURSOR_CLI_ROOT and DEJA_HOME to folders whose "
        "paths are UTF-8"
    )

    async def scenario(session: ClientSession) -> None:
        for tool, arguments in [("search", {"query": "redis"}), ("recent", {})]:
            assert await refused(session, tool, **arguments) == f"Error executing tool {tool}: {expected}"

    run(history, tmp_path, scenario)
    assert not os.path.exists(history.deja_home)  # (nothing made for a build: the check before one made the folder)


def test_an_index_a_newer_deja_wrote_is_a_tool_error_and_left_as_it_is(history: History, tmp_path: Path) -> None:
    """Rebuilt here, the newer deja would rebuild it back on its next read (trial49 F9): every call says what to
    do instead, and no build starts."""
    as_format_wrote_it(history.deja_home, FORMAT_VERSION + 1)
    before = snapshot(index_dir(history.deja_home))

    async def scenario(session: ClientSession) -> None:
        for tool, arguments in [("search", {"query": "redis"}), ("recent", {})]:
            said = await refused(session, tool, **arguments)
            assert said.endswith(
                f"is index format {FORMAT_VERSION + 1}, written by a newer deja (this one reads {FORMAT_VERSION}): "
                "upgrade deja, or set DEJA_HOME to another folder for this one"
            ), said

    run(history, tmp_path, scenario)
    assert snapshot(index_dir(history.deja_home)) == before


def test_an_index_built_without_redaction_is_rebuilt_before_anything_is_shown(
    history: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-off ``DEJA_NO_REDACT=1 deja index`` in a shell: the server, with redaction on, shows nothing from that
    index (it may hold secrets) and answers once the rebuild it started is in."""
    monkeypatch.setenv("DEJA_NO_REDACT", "1")
    refresh(history.deja_home, full=True)
    monkeypatch.delenv("DEJA_NO_REDACT")

    async def scenario(session: ClientSession) -> None:
        assert text(await ok(session, "search", query="redis")) == STILL_INDEXING
        with anyio.fail_after(30):
            while text(result := await ok(session, "search", query="redis")) == STILL_INDEXING:
                await anyio.sleep(0.2)
        assert result.structured_content["hits"][0]["session_id"] == "c0ffee01-cache"

    run(history, tmp_path, scenario)
