"""cursor-agent CLI history: JSONL transcripts, the per-chat store.db, and the sessions built from both.

Every input is real: JSONL and SQLite files written by deja.core.writers.cursor_agent.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import msgspec
import orjson
import pytest

from deja.core.history import read_history
from deja.core.model import MAX_MESSAGE_BYTES, Message, ToolCall
from deja.core.readers.chatstore import (
    DIGEST_MISMATCH,
    EMPTY_ROOT,
    MALFORMED_ROOT,
    MISSING_BLOB,
    NOT_A_MESSAGE,
    UNREADABLE_STORE,
    ChatMeta,
    StoreChat,
    StoreToolResult,
    attach_tool_results,
    chat_title,
    find_chat_dirs,
    read_chat_meta,
    read_store,
)
from deja.core.readers.conversation import canonical_args, normalise_tool_name, split_shell_output
from deja.core.readers.cursor_agent import NO_STORE, read_cli_session, survey_chats
from deja.core.readers.projects import cli_folder
from deja.core.readers.transcripts import (
    MALFORMED_LINE,
    chat_id_of,
    clean_user_text,
    find_transcripts,
    parse_stamp,
    read_transcript,
    session_id_of,
)
from deja.core.writers.cursor_agent import (
    assistant_turn,
    blob_id,
    chat_dir_for,
    encode_project_path,
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

pytestmark = pytest.mark.unit

UTC3 = timezone(timedelta(hours=3))
T0 = datetime(2026, 7, 26, 13, 6, tzinfo=UTC3)
CWD = "/work/api"


def texts(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "cursor"


# --- <timestamp> blocks ------------------------------------------------------


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("Sunday, Jul 26, 2026, 1:06 PM (UTC+3)", datetime(2026, 7, 26, 13, 6, tzinfo=UTC3)),
        ("Tuesday, Jul 21, 2026, 9:41 AM (UTC-7)", datetime(2026, 7, 21, 9, 41, tzinfo=timezone(timedelta(hours=-7)))),
        (
            "Monday, Jan 5, 2026, 12:15 AM (UTC+5:30)",
            datetime(2026, 1, 5, 0, 15, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        ),
        ("Sunday, Jul 26, 2026, 12:30 PM", datetime(2026, 7, 26, 12, 30, tzinfo=UTC)),
        ("September 3, 2026, 7:00 PM (UTC)", datetime(2026, 9, 3, 19, 0, tzinfo=UTC)),
        ("Thu, Sept 3, 2026, 7:00 pm (UTC+8)", datetime(2026, 9, 3, 19, 0, tzinfo=timezone(timedelta(hours=8)))),
    ],
)
def test_stamps_are_read_with_their_offset(stamp: str, expected: datetime) -> None:
    when = parse_stamp(stamp)
    assert when == expected
    assert when is not None and when.utcoffset() == expected.utcoffset()


@pytest.mark.parametrize(
    "stamp", ["Sunday, Feb 30, 2026, 1:06 PM", "Smarch 3, 2026, 1:06 PM", "13:06 yesterday", "Jul 26, 2026, 13:06 PM"]
)
def test_unreadable_stamps_give_no_time(stamp: str) -> None:
    assert parse_stamp(stamp) is None


def test_user_text_loses_its_wrappers_but_keeps_attachments_after_the_question() -> None:
    text = (
        "<timestamp>Sunday, Jul 26, 2026, 1:06 PM (UTC+3)</timestamp>\n<user_query>\nwhy is the cache stale?\n</user_query>\n"
        '<attached_files>\n<file path="src/cache.py"/>\n</attached_files>'
    )
    assert clean_user_text(text) == (
        'why is the cache stale?\n\n<attached_files>\n<file path="src/cache.py"/>\n</attached_files>',
        T0,
    )
    assert clean_user_text("<user_query>\nquote <user_query> literally\n</user_query>") == (
        "quote <user_query> literally",
        None,
    )
    assert clean_user_text("plain old question") == ("plain old question", None)
    assert clean_user_text("<timestamp>garbage</timestamp>\nstill asked") == ("still asked", None)


def test_stamps_carry_forward_to_the_turns_that_answer_them(root: Path) -> None:
    later = datetime(2026, 7, 26, 16, 0, tzinfo=timezone(timedelta(hours=-7)))
    path = write_transcript(
        transcript_path(root, CWD, "c1"),
        [
            user_turn("first question", T0),
            assistant_turn("first answer"),
            turn_ended(),
            user_turn("follow-up without a stamp"),
            assistant_turn("second answer"),
            user_turn("third question", later),
            assistant_turn("third answer"),
        ],
    )
    read = read_transcript(path)
    assert [(m.text, m.timestamp) for m in read.messages] == [
        ("first question", T0),
        ("first answer", T0),
        ("follow-up without a stamp", T0),
        ("second answer", T0),
        ("third question", later),
        ("third answer", later),
    ]
    assert read.last_timestamp == later


def test_turns_before_the_first_stamp_take_its_time(root: Path) -> None:
    path = write_transcript(
        transcript_path(root, CWD, "c1"),
        [user_turn("old-style question"), assistant_turn("answer"), user_turn("stamped", T0), assistant_turn("more")],
    )
    assert [m.timestamp for m in read_transcript(path).messages] == [T0] * 4


def test_a_transcript_without_any_stamp_uses_the_file_time(root: Path) -> None:
    path = write_transcript(
        transcript_path(root, CWD, "c1"), [user_turn("hi"), assistant_turn("hello"), user_turn("x", "not a date")]
    )
    os.utime(path, (1785060360, 1785060360))
    read = read_transcript(path)
    mtime = datetime(2026, 7, 26, 10, 6, tzinfo=UTC)
    assert [m.timestamp for m in read.messages] == [mtime, mtime, mtime]
    assert read.last_timestamp is None


# --- records -----------------------------------------------------------------


def test_only_user_and_assistant_turns_are_kept_and_bad_lines_are_counted(root: Path) -> None:
    path = write_transcript(
        transcript_path(root, CWD, "c1"),
        [
            {"role": "system", "message": {"content": "you are an agent"}},
            user_turn("why is this stale?", T0),
            {"type": "error", "error": "Provider Error: overloaded"},
            {"role": "assistant", "message": {"content": "The cache key omitted the locale."}},
            '{"role": "assistant", "message": {"content": [{"type": "te',
            turn_ended("aborted"),
            {"type": "turn_ended", "status": "error", "error": "User aborted/interrupted manually."},
            "[1, 2]",
            "",
        ],
    )
    problems: Counter[str] = Counter()
    read = read_transcript(path, problems=problems)
    assert texts(read.messages) == [("user", "why is this stale?"), ("assistant", "The cache key omitted the locale.")]
    assert problems == Counter({MALFORMED_LINE: 1})
    assert read.end == path.stat().st_size


def test_redacted_thinking_markers_are_dropped(root: Path) -> None:
    path = write_transcript(
        transcript_path(root, CWD, "c1"),
        [
            user_turn("fix it", T0),
            assistant_turn("[REDACTED]"),
            assistant_turn("**Looking at the cache**\n\nThe key lacks the locale. [REDACTED]"),
            assistant_turn("[REDACTED]\n[REDACTED]"),
        ],
    )
    assert texts(read_transcript(path).messages) == [
        ("user", "fix it"),
        ("assistant", "**Looking at the cache**\n\nThe key lacks the locale."),
    ]


def test_tool_calls_without_ids_join_the_assistant_message_of_their_turn(root: Path) -> None:
    created = "line one\nline two\n" * 3
    path = write_transcript(
        transcript_path(root, CWD, "c1"),
        [
            user_turn("add a retry", T0),
            assistant_turn("Reading the helper.", tool_use("Read", {"path": "src/fetch.py"})),
            assistant_turn(
                None, tool_use("StrReplace", {"path": "src/fetch.py", "old_string": "a", "new_string": "b"})
            ),
            assistant_turn("[REDACTED]"),
            assistant_turn(None, tool_use("Write", {"path": "src/retry.py", "contents": created})),
            user_turn("now test it"),
            assistant_turn(None, tool_use("Shell", {"command": "pytest -q"})),
            assistant_turn("Tests pass."),
        ],
    )
    messages = read_transcript(path).messages
    assert texts(messages) == [
        ("user", "add a retry"),
        ("assistant", "Reading the helper."),
        ("user", "now test it"),
        ("assistant", ""),
        ("assistant", "Tests pass."),
    ]
    assert messages[1].tool_calls == [
        ToolCall(name="Read", args={"path": "src/fetch.py"}),
        ToolCall(name="StrReplace", args={"path": "src/fetch.py", "old_string": "a", "new_string": "b"}),
        ToolCall(name="Write", args={"path": "src/retry.py", "contents": created}),
    ]
    assert messages[3].tool_calls == [ToolCall(name="Shell", args={"command": "pytest -q"})]
    assert messages[3].timestamp == T0


def test_a_message_is_capped_at_one_mebibyte_keeping_head_and_tail(root: Path) -> None:
    path = write_transcript(transcript_path(root, CWD, "c1"), [user_turn("é" * MAX_MESSAGE_BYTES, T0)])
    text = read_transcript(path).messages[0].text
    assert len(text.encode()) <= MAX_MESSAGE_BYTES
    head, marker, tail = text.split("\n")
    assert head == tail == "é" * len(head) and len(head) > MAX_MESSAGE_BYTES // 4 - 32
    assert marker == "[… 1.0 MB elided …]"


# --- resuming ----------------------------------------------------------------


def _conversation() -> list[dict]:
    return [
        user_turn("old-style question"),
        assistant_turn("old answer"),
        user_turn("first question", T0),
        assistant_turn("Looking.", tool_use("Read", {"path": "a.py"})),
        assistant_turn(None, tool_use("Grep", {"pattern": "retry"})),
        turn_ended(),
        user_turn("second question"),
        assistant_turn("Done."),
        user_turn("third question", T0 + timedelta(hours=1)),
        assistant_turn("Also done."),
    ]


def test_resuming_from_a_line_gives_what_a_full_read_gives_for_the_rest(root: Path) -> None:
    records = _conversation()
    path = write_transcript(transcript_path(root, CWD, "c1"), records)
    full = read_transcript(path)
    for index in range(len(records)):
        before = read_transcript(write_transcript(root / "head.jsonl", records[:index]))
        rest = read_transcript(path, start=before.end, carry=before.last_timestamp, after=before.messages)
        assert rest.end == full.end
        if before.last_timestamp is not None:
            assert before.messages + rest.messages == full.messages


def test_a_tool_only_record_at_the_resume_point_joins_its_turn(root: Path) -> None:
    records = _conversation()
    path = write_transcript(transcript_path(root, CWD, "c1"), records)
    head = read_transcript(write_transcript(root / "head.jsonl", records[:4]))
    rest = read_transcript(path, start=head.end, carry=head.last_timestamp, after=head.messages)
    assert head.messages[-1].tool_calls[-1] == ToolCall(name="Grep", args={"pattern": "retry"})
    assert rest.messages[0].role == "user"
    alone = read_transcript(path, start=head.end, carry=head.last_timestamp)
    assert alone.messages[0] == Message(
        role="assistant", text="", timestamp=T0, tool_calls=[ToolCall(name="Grep", args={"pattern": "retry"})]
    )


def test_a_line_still_being_written_is_left_for_the_next_read(root: Path) -> None:
    path = write_transcript(transcript_path(root, CWD, "c1"), [user_turn("question", T0)])
    complete = path.stat().st_size
    with path.open("ab") as out:
        out.write(b'{"role":"assistant","message":{"content":[{"type":"text","text":"half an ans')
    first = read_transcript(path)
    assert first.end == complete
    assert texts(first.messages) == [("user", "question")]
    with path.open("ab") as out:
        out.write(b'wer"}]}}\n')
    rest = read_transcript(path, start=first.end, carry=first.last_timestamp)
    assert [(m.text, m.timestamp) for m in rest.messages] == [("half an answer", T0)]
    assert rest.end == path.stat().st_size


def test_an_unterminated_whole_record_is_read(root: Path) -> None:
    path = transcript_path(root, CWD, "c1")
    write_transcript(path, [user_turn("question", T0)])
    with path.open("ab") as out:
        out.write(msgspec.json.encode(assistant_turn("final answer, no newline")))
    read = read_transcript(path)
    assert texts(read.messages)[-1] == ("assistant", "final answer, no newline")
    assert read.end == path.stat().st_size


# --- layouts -------------------------------------------------------------------


def _layouts(root: Path) -> dict[str, Path]:
    folder = root / "projects" / "work-api" / "agent-transcripts"
    made = {
        "nested": write_transcript(folder / "nested" / "nested.jsonl", [user_turn("n")]),
        "flat": write_transcript(transcript_path(root, "/work/api", "flat", nested=False), [user_turn("f")]),
        "child": write_transcript(folder / "nested" / "subagents" / "nested.jsonl", [user_turn("c")]),
    }
    write_transcript(root / "projects" / "work-api" / "agent-tools" / "x" / "x.jsonl", [user_turn("tool output")])
    write_transcript(root / "projects" / "work-api" / "mcps" / "server.jsonl", [user_turn("mcp")])
    write_transcript(folder / "nested" / "other.jsonl", [user_turn("not a transcript")])
    (folder / "old.txt").write_text("user: hi\n")
    return made


def test_flat_nested_and_opt_in_subagent_layouts(root: Path) -> None:
    made = _layouts(root)
    assert list(find_transcripts(root, include_subagents=False)) == [made["flat"], made["nested"]]
    assert list(find_transcripts(root, include_subagents=True)) == [made["flat"], made["nested"], made["child"]]
    assert [chat_id_of(p) for p in made.values()] == ["nested", "flat", "nested"]
    assert [session_id_of(p) for p in made.values()] == ["nested", "flat", "nested/nested"]
    assert list(find_transcripts(root / "missing", include_subagents=True)) == []


def test_sessions_follow_the_subagent_switch(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _layouts(root)
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(root))
    assert sorted(s.id for s in read_history()) == ["flat", "nested"]
    monkeypatch.setenv("DEJA_INCLUDE_SUBAGENTS", "1")
    sessions = {s.id: s for s in read_history()}
    assert sorted(sessions) == ["flat", "nested", "nested/nested"]
    assert sessions["nested/nested"].title == "c"


# --- the chat store ----------------------------------------------------------


def _store_messages() -> list[dict]:
    """A store as cursor-agent writes one: the preamble, the turn, a decoy listing call, a Shell call and a Read."""
    return [
        {"role": "system", "content": "You are an AI coding assistant."},
        {"role": "user", "content": "<user_info>\nOS Version: linux\nWorkspace Path: /work/api\n</user_info>"},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<timestamp>Sunday, Jul 26, 2026, 1:06 PM (UTC+3)</timestamp>\n<user_query>\nrun the tests\n</user_query>",
                }
            ],
        },
        {
            "role": "assistant",
            "id": "1",
            "content": [
                {"type": "reasoning", "text": "", "signature": "sig"},
                {"type": "redacted-reasoning", "data": "opaque"},
                tool_call_part("call_0", "GetDynamicTools", {"command": "go vet ./..."}),
            ],
        },
        tool_result_message("call_0", "GetDynamicTools", "server descriptions"),
        {
            "role": "assistant",
            "id": "1",
            "content": [
                {"type": "text", "text": "Running vet."},
                tool_call_part("call_1", "Shell", {"command": "go vet ./..."}),
            ],
        },
        tool_result_message("call_1", "Shell", shell_result_text("main.go:3: unused variable", 1, millis=812)),
        {
            "role": "assistant",
            "id": "1",
            "content": [tool_call_part("call_2", "Read", {"limit": 20, "path": "main.go"})],
        },
        tool_result_message("call_2", "Read", [{"type": "text", "text": "     1|package main"}]),
    ]


def _transcript_records() -> list[dict]:
    return [
        user_turn("run the tests", T0),
        assistant_turn("Running vet.", tool_use("Shell", {"command": "go vet ./..."})),
        assistant_turn(None, tool_use("Read", {"path": "main.go", "limit": 20})),
        turn_ended(),
    ]


def _chat(root: Path, chat_id: str = "c1", *, cwd: str | None = CWD, **store: object) -> tuple[Path, Path]:
    """A transcript and its chat folder (filed under md5 of ``cwd``)."""
    transcript = write_transcript(transcript_path(root, cwd or CWD, chat_id), _transcript_records())
    chat_dir = chat_dir_for(root, cwd or CWD, chat_id)
    store.setdefault("messages", _store_messages())
    write_chat_store(chat_dir, cwd=cwd, **store)  # type: ignore[arg-type]
    return transcript, chat_dir


EXPECTED_RESULTS = [
    StoreToolResult(
        name="Shell", args_key='{"command":"go vet ./..."}', text="main.go:3: unused variable", exit_code=1
    ),
    StoreToolResult(name="Read", args_key='{"limit":20,"path":"main.go"}', text="     1|package main"),
]


@pytest.mark.parametrize("meta_hex", [True, False])
def test_the_store_gives_its_name_and_results_from_the_latest_root_only(root: Path, meta_hex: bool) -> None:
    _, chat_dir = _chat(root, name="Vet the module", meta_hex=meta_hex)
    problems: Counter[str] = Counter()
    store = read_store(chat_dir / "store.db", problems)
    assert store.name == "Vet the module"
    assert store.tool_results == EXPECTED_RESULTS  # the stale root's prefix is not walked again
    assert problems == Counter()


def test_a_root_without_extra_fields_reads_the_same(root: Path) -> None:
    _, chat_dir = _chat(root, extra_root_fields=False, stale_root=False)
    assert read_store(chat_dir / "store.db").tool_results == EXPECTED_RESULTS


@pytest.mark.parametrize("tail", [b"\x0a\x20" + b"\x00" * 5, b"\x0f\x01", b"\x80"])
def test_a_malformed_root_stops_cleanly_keeping_the_children_before(root: Path, tail: bytes) -> None:
    _, chat_dir = _chat(root, root_tail=tail)
    problems: Counter[str] = Counter()
    assert read_store(chat_dir / "store.db", problems).tool_results == EXPECTED_RESULTS
    assert problems == Counter({MALFORMED_ROOT: 1})


def _edit_blobs(store_db: Path, *statements: tuple[str, tuple]) -> None:
    db = sqlite3.connect(store_db)
    with db:
        for sql, args in statements:
            db.execute(sql, args)
    db.close()


def test_children_that_fail_their_digest_or_are_missing_are_counted_and_skipped(root: Path) -> None:
    transcript, chat_dir = _chat(root)
    ids = [blob_id(orjson.dumps(m)) for m in _store_messages()]
    _edit_blobs(
        chat_dir / "store.db",
        ("UPDATE blobs SET data = ? WHERE id = ?", (b'{"role":"tool","content":[]}', ids[6])),
        ("DELETE FROM blobs WHERE id = ?", (ids[8],)),
    )
    problems: Counter[str] = Counter()
    assert read_store(chat_dir / "store.db", problems).tool_results == []
    assert problems == Counter({DIGEST_MISMATCH: 1, MISSING_BLOB: 1})
    session = read_cli_session(transcript, chat_dir)
    assert session is not None
    assert [c.result for m in session.messages for c in m.tool_calls] == [None, None]


def test_children_that_are_not_messages_are_counted(root: Path) -> None:
    _, chat_dir = _chat(root, messages=[*_store_messages(), b"", "diff --git a/x b/x", b"\x0a\x05not json"])
    problems: Counter[str] = Counter()
    assert read_store(chat_dir / "store.db", problems).tool_results == EXPECTED_RESULTS
    assert problems == Counter({NOT_A_MESSAGE: 3})


def test_an_unreadable_store_is_empty(root: Path) -> None:
    chat_dir = chat_dir_for(root, CWD, "c1")
    chat_dir.mkdir(parents=True)
    (chat_dir / "store.db").write_bytes(b"not a database at all" * 100)
    problems: Counter[str] = Counter()
    assert read_store(chat_dir / "store.db", problems) == read_store(chat_dir / "gone.db", problems)
    assert problems == Counter({UNREADABLE_STORE: 2})


def test_a_pending_wal_is_read_and_the_store_is_not_written(root: Path) -> None:
    _, chat_dir = _chat(root, name="Before")
    store_db = chat_dir / "store.db"
    writer = sqlite3.connect(store_db)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        meta = bytes.fromhex(writer.execute("SELECT value FROM meta").fetchone()[0]).replace(b'"Before"', b'"After"')
        with writer:
            writer.execute("UPDATE meta SET value = ? WHERE key = '0'", (meta.hex(),))
        assert (chat_dir / "store.db-wal").stat().st_size > 0
        main_file = store_db.read_bytes()
        assert read_store(store_db).name == "After"
        assert store_db.read_bytes() == main_file
    finally:
        writer.close()


def test_the_encryption_key_is_never_kept(root: Path) -> None:
    transcript, chat_dir = _chat(root, encryption_key="k3y-d0-not-leak")
    problems: Counter[str] = Counter()
    store = read_store(chat_dir / "store.db", problems)
    session = read_cli_session(transcript, chat_dir, problems)
    for seen in (repr(store), msgspec.json.encode(session).decode(), repr(problems)):
        assert "k3y-d0-not-leak" not in seen


# --- tool results ------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (shell_result_text("3 passed", 0), ("3 passed", 0)),
        (shell_result_text("", 0), ("", 0)),
        (
            "Exit code: 2\n\nCommand output:\n```\nusage: x\n```\n\nCommand completed in 9 ms.\n\nCurrent directory: /work/api",
            ("usage: x", 2),
        ),
        (
            '<cursor_untrusted_data_redacted source="Shell">\n'
            + shell_result_text("a ``` b\nsecond", 127)
            + "\n</cursor_untrusted_data_redacted>",
            ("a ``` b\nsecond", 127),
        ),
        ("Exit code: 1\n\nCommand output:\n\nno fence here\n\nCommand completed in 5 ms.", ("no fence here", 1)),
        ("Command was rejected by the user.", ("Command was rejected by the user.", None)),
    ],
)
def test_shell_output_loses_cursors_framing(raw: str, expected: tuple[str, int | None]) -> None:
    assert split_shell_output(raw) == expected


def test_shell_results_can_come_from_the_high_level_result(root: Path) -> None:
    outcome = {
        "cursor": {
            "highLevelToolCallResult": {
                "output": {"failure": {"command": "make", "exitCode": 2, "stderr": "no rule"}},
                "isError": True,
            }
        }
    }
    messages = [
        {"role": "assistant", "content": [tool_call_part("c", "Shell", {"command": "make"})]},
        tool_result_message("c", "Shell", [], providerOptions=outcome),
    ]
    chat_dir = chat_dir_for(root, CWD, "c1")
    write_chat_store(chat_dir, cwd=CWD, messages=messages)
    assert read_store(chat_dir / "store.db").tool_results == [
        StoreToolResult(name="Shell", args_key='{"command":"make"}', text="no rule", exit_code=2)
    ]


def test_legacy_snake_case_names_pair_with_current_ones(root: Path) -> None:
    messages = [
        {
            "role": "assistant",
            "content": [
                tool_call_part("a", "run_terminal_cmd", {"command": "ls"}),
                tool_call_part("b", "read_file", {"path": "x"}),
            ],
        },
        tool_result_message("a", "run_terminal_cmd", shell_result_text("x", 0)),
        tool_result_message("b", "read_file", "     1|hello"),
        {"role": "assistant", "content": [tool_call_part("d", "todo_write", {"todos": []})]},
        tool_result_message("d", "todo_write", "ok"),
    ]
    chat_dir = chat_dir_for(root, CWD, "c1")
    write_chat_store(chat_dir, cwd=CWD, messages=messages)
    turn = Message(
        role="assistant",
        text="",
        tool_calls=[
            ToolCall(name="Shell", args={"command": "ls"}),
            ToolCall(name="Read", args={"path": "x"}),
            ToolCall(name="TodoWrite", args={"todos": []}),
        ],
    )
    assert attach_tool_results([turn], read_store(chat_dir / "store.db").tool_results) == 3
    assert [(c.result, c.exit_code) for c in turn.tool_calls] == [("x", 0), ("     1|hello", None), ("ok", None)]
    assert [
        normalise_tool_name(n) for n in ("search_replace", "edit_file", "grep", "Shell", "mcp__github__get_issue")
    ] == [
        "StrReplace",
        "Edit",
        "Grep",
        "Shell",
        "mcp__github__get_issue",
    ]


def test_identical_calls_pair_in_order_and_unpaired_calls_stay_empty() -> None:
    results = [
        StoreToolResult(name="Shell", args_key=canonical_args({"command": "make"}), text="first", exit_code=2),
        StoreToolResult(name="Shell", args_key=canonical_args({"command": "make"}), text="second", exit_code=0),
    ]
    calls = [ToolCall(name="Shell", args={"command": "make"}) for _ in range(3)] + [
        ToolCall(name="Shell", args={"command": "ls"})
    ]
    messages = [
        Message(role="assistant", text="", tool_calls=calls[:2]),
        Message(role="assistant", text="", tool_calls=calls[2:]),
    ]
    assert attach_tool_results(messages, results) == 2
    assert [(c.result, c.exit_code) for c in calls] == [("first", 2), ("second", 0), (None, None), (None, None)]


def _shell_chat(
    root: Path, transcript_calls: list[dict[str, str]], store_calls: list[tuple[dict[str, str], str, int]]
) -> Message:
    """A chat's transcript (one turn running ``transcript_calls``) and store (``store_calls`` with their output and
    exit code) written as cursor-agent writes them, read as one session: its assistant message."""
    transcript = write_transcript(
        transcript_path(root, CWD, "c1"),
        [user_turn("deploy", T0), assistant_turn("Planning.", *(tool_use("Shell", a) for a in transcript_calls))],
    )
    messages: list[dict[str, object]] = [{"role": "user", "content": "<user_query>deploy</user_query>"}]
    for n, (args, output, code) in enumerate(store_calls):
        messages.append({"role": "assistant", "content": [tool_call_part(f"t{n}", "Shell", args)]})
        messages.append(tool_result_message(f"t{n}", "Shell", shell_result_text(output, code)))
    write_chat_store(chat_dir_for(root, CWD, "c1"), cwd=CWD, messages=messages)
    session = read_cli_session(transcript, chat_dir_for(root, CWD, "c1"), Counter())
    assert session is not None
    return session.messages[1]


def test_a_call_whose_arguments_differ_in_a_description_still_gets_its_result(root: Path) -> None:
    """cursor-agent writes the transcript and the store apart; a Shell call's ``description`` in one and not the
    other lost its output and exit code, though the chat read from its store alone has them (trialG F4)."""
    turn = _shell_chat(
        root,
        [{"command": "terraform plan", "description": "plan"}, {"command": "ls", "working_directory": "/work"}],
        [
            ({"command": "terraform plan"}, "Error: Error acquiring the state lock", 1),
            ({"command": "ls"}, "main.tf", 0),
        ],
    )
    assert [(c.result, c.exit_code) for c in turn.tool_calls] == [
        ("Error: Error acquiring the state lock", 1),
        ("main.tf", 0),
    ]


def test_where_which_call_is_whose_is_a_guess_no_call_gets_another_calls_result(root: Path) -> None:
    """Two store runs of ``make`` and one in the transcript, their descriptions all different: either could be
    the one the transcript shows, so it gets neither; two and two pair in order."""
    runs = [({"command": "make", "description": "build"}, "no rule", 2), ({"command": "make"}, "built", 0)]
    (one,) = _shell_chat(root, [{"command": "make", "description": "again"}], runs).tool_calls
    assert (one.result, one.exit_code) == (None, None)
    both = _shell_chat(
        root / "two", [{"command": "make", "description": "a"}, {"command": "make", "description": "b"}], runs
    )
    assert [(c.result, c.exit_code) for c in both.tool_calls] == [("no rule", 2), ("built", 0)]


# --- chat folders, titles, projects -----------------------------------------


def test_meta_json_is_verified_by_its_md5_folder(root: Path) -> None:
    _, filed = _chat(root)
    meta = read_chat_meta(filed)
    assert meta is not None
    assert (meta.cwd, meta.verified) == (CWD, True)
    assert meta.created == datetime(2026, 7, 26, 10, 6, tzinfo=UTC)
    moved = root / "chats" / ("0" * 32) / "c1"
    moved.parent.mkdir(parents=True)
    filed.rename(moved)
    assert read_chat_meta(moved).verified is False  # type: ignore[union-attr]
    _, without_cwd = _chat(root, "c2", cwd=None)
    assert read_chat_meta(without_cwd) == msgspec.structs.replace(meta, cwd="", verified=False)
    (without_cwd / "meta.json").write_text("[not, json")
    assert read_chat_meta(without_cwd) is None
    assert find_chat_dirs(root) == {"c1": str(moved), "c2": str(without_cwd)}


def test_the_session_joins_transcript_store_and_meta(root: Path) -> None:
    transcript, chat_dir = _chat(root, name="New Agent")
    problems: Counter[str] = Counter()
    session = read_cli_session(transcript, chat_dir, problems)
    assert session is not None
    assert (session.id, session.source, session.origin) == ("c1", "cursor-cli", str(transcript))
    assert (session.project, session.project_dir) == ("api", CWD)
    assert session.title == "run the tests"  # the placeholder name falls through to the first question
    assert texts(session.messages) == [("user", "run the tests"), ("assistant", "Running vet.")]  # no <user_info> turn
    assert [(c.name, c.result, c.exit_code) for c in session.messages[1].tool_calls] == [
        ("Shell", "main.go:3: unused variable", 1),
        ("Read", "     1|package main", None),
    ]
    assert (session.started, session.updated) == (T0, T0)
    assert problems == Counter()


def test_titles_prefer_a_real_store_name_then_the_meta_title() -> None:
    question = [Message(role="assistant", text="hi"), Message(role="user", text="  \nwhy is the\tcache stale?\nmore")]
    assert (
        chat_title(StoreChat(name="Fix cache invalidation"), ChatMeta(title="Meta"), question)
        == "Fix cache invalidation"
    )
    assert chat_title(StoreChat(name="New Agent"), ChatMeta(title="From meta"), question) == "From meta"
    assert chat_title(StoreChat(name=" new chat "), None, question) == "why is the cache stale?"
    assert chat_title(None, None, []) == ""


def test_a_chat_without_a_stamp_takes_meta_times(root: Path) -> None:
    transcript = write_transcript(transcript_path(root, CWD, "c1"), [user_turn("hello"), assistant_turn("hi")])
    chat_dir = chat_dir_for(root, CWD, "c1")
    write_chat_store(chat_dir, cwd=CWD, messages=[])
    session = read_cli_session(transcript, chat_dir)
    assert session is not None
    assert session.started == datetime(2026, 7, 26, 10, 6, tzinfo=UTC)
    assert session.updated == datetime(2026, 7, 26, 10, 7, tzinfo=UTC)


def test_without_a_cwd_the_project_folder_is_decoded(tmp_path: Path, root: Path) -> None:
    project = tmp_path / "code" / "my-app"
    project.mkdir(parents=True)
    transcript = write_transcript(transcript_path(root, str(project), "c1"), [user_turn("hello", T0)])
    _, chat_dir = _chat(root, "c2", cwd=None)
    session = read_cli_session(transcript, chat_dir)
    assert session is not None
    assert (session.project, session.project_dir) == ("my-app", str(project))
    gone = write_transcript(transcript_path(root, "/no/such/place", "c3"), [user_turn("hello", T0)])
    session = read_cli_session(gone, None)
    assert session is not None
    assert (session.project, session.project_dir, session.title) == ("no-such-place", "", "hello")
    assert read_cli_session(write_transcript(transcript_path(root, CWD, "c4"), [turn_ended()]), None) is None


def test_slugs_decode_against_the_disk(tmp_path: Path) -> None:
    base = tmp_path / "slugs"
    for folder in (
        "my-app/src",
        "dotted/.config",
        "spaced/my project",
        "both/a/b",
        "both/a-b",
        "twins/a.b",
        "twins/a_b",
    ):
        (base / folder).mkdir(parents=True)

    def decode(relative: str) -> str:
        """The folder a chat filed under ``relative``'s slug whose files and messages say nothing is given."""
        return cli_folder("", encode_project_path(str(base / relative))).folder

    assert decode("my-app/src") == str(base / "my-app" / "src")
    assert decode("dotted/.config") == str(base / "dotted" / ".config")
    collapsed = encode_project_path(str(base)) + "-dotted-config"
    assert cli_folder("", collapsed).folder == str(base / "dotted" / ".config")  # collapsed dashes
    assert decode("spaced/my project") == str(base / "spaced" / "my project")
    assert decode("both/a-b") == ""  # both/a/b and both/a-b encode alike: which one is for the chat to say
    assert decode("twins/a.b") == ""  # a.b and a_b encode alike
    assert decode("missing") == ""


def test_the_survey_counts_store_only_chats_and_says_why_others_cannot_be_read(tmp_path: Path) -> None:
    home, xdg = tmp_path / "dot-cursor", tmp_path / "xdg-cursor"
    write_transcript(transcript_path(home, CWD, "kept"), [user_turn("hi", T0)])
    write_transcript(transcript_path(home, CWD, "parent").parent / "subagents" / "orphan.jsonl", [user_turn("sub")])
    for chat_id in ("kept", "orphan", "lost"):
        write_chat_store(chat_dir_for(xdg, CWD, chat_id), cwd=CWD, messages=[{"role": "user", "content": "hi"}])
    write_chat_store(chat_dir_for(xdg, CWD, "empty"), cwd=CWD, messages=[], stale_root=False)
    garbled = chat_dir_for(xdg, CWD, "garbled")
    garbled.mkdir(parents=True)
    (garbled / "store.db").write_bytes(b"not a database" * 100)
    chat_dir_for(xdg, CWD, "no-store").mkdir(parents=True)
    never = chat_dir_for(xdg, CWD, "never-used")
    never.mkdir(parents=True)
    (never / "meta.json").write_text('{"schemaVersion": 1, "hasConversation": false}')
    transcribed = {"kept"}
    survey = survey_chats([home, xdg], transcribed)
    assert survey.store_only == 2  # "orphan" (a subagent transcript is not its parent's) and "lost"
    assert survey.unreadable == {UNREADABLE_STORE: 1, EMPTY_ROOT: 1, NO_STORE: 1}
