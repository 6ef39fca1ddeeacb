"""The index: incremental refresh, crash safety, corruption, concurrency, redaction, and search."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgspec
import orjson
import pytest
from filelock import FileLock

from deja.core import index as index_module
from deja.core.bookkeeping import Bookkeeping, State
from deja.core.dates import parse_since
from deja.core.index import Index, IndexUnreadable, index_dir
from deja.core.indexer import MAX_SEGMENTS, refresh
from deja.core.readers import cursor_agent
from deja.core.readers import ide as ide_reader
from deja.core.sample import API_CACHE_CHAT, API_CHAT, INFRA_CHAT, WEB_COMPOSER, build_sample_history
from deja.core.search import Filters, search
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import write_state_vscdb

UTC3 = timezone(timedelta(hours=3))


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    sample = build_sample_history(tmp_path / "sample")
    home = tmp_path / "deja"
    for name, value in sample.environment(home).items():
        monkeypatch.setenv(name, value)
    return sample, home


def _ids(home: Path) -> set[str]:
    return {meta.id for _, _, meta in Index.open(home).sessions()}


def _session(home: Path, session_id: str):
    index = Index.open(home)
    segment, _, meta = index.find(session_id)[0]
    return meta, segment.messages(meta)


def _record(home: Path, session_id: str):
    directory = index_dir(home)
    state = msgspec.msgpack.decode((directory / Index.open(home).manifest.state).read_bytes(), type=State)
    return Bookkeeping(directory, state).chat(session_id)


def _append(path: Path, *records: dict) -> None:
    with path.open("ab") as f:
        for record in records:
            f.write(orjson.dumps(record) + b"\n")


def test_first_build_reads_every_store_and_a_second_changes_nothing(history):
    sample, home = history
    first = refresh(home)
    assert (first.sessions, first.added, first.removed) == (7, 7, 0)
    assert _ids(home) >= {API_CHAT, API_CACHE_CHAT, INFRA_CHAT, WEB_COMPOSER}
    second = refresh(home)
    assert (second.added, second.updated, second.removed) == (0, 0, 0)
    assert second.sessions == 7


def test_a_grown_transcript_is_read_from_where_the_last_build_stopped(history, monkeypatch):
    sample, home = history
    refresh(home)
    path = transcript_path(sample.cli_root, str(sample.projects["infra"]), INFRA_CHAT)
    size_before = path.stat().st_size
    _append(
        path,
        user_turn(
            "and how do I keep the cache from filling the disk again?", datetime(2026, 11, 20, 12, 0, tzinfo=UTC3)
        ),
        assistant_turn("Set builder gc keepStorage to 20GB in the daemon config."),
    )
    starts = []
    real_read = cursor_agent.read_transcript

    def recording(path, *, start=0, **rest):
        starts.append(start)
        return real_read(path, start=start, **rest)

    monkeypatch.setattr(cursor_agent, "read_transcript", recording)
    result = refresh(home)
    assert (result.added, result.updated, result.removed) == (0, 1, 0)
    assert starts == [size_before]  # only the new lines were read
    meta, messages = _session(home, INFRA_CHAT)
    assert messages[-1].text == "Set builder gc keepStorage to 20GB in the daemon config."
    assert messages[-2].timestamp == datetime(2026, 11, 20, 12, 0, tzinfo=UTC3)
    assert messages[-1].timestamp == messages[-2].timestamp  # carried forward to the answer
    # The earlier turns kept their tool results from the store.
    results = [c.result for m in messages for c in m.tool_calls]
    assert any(r and "Total reclaimed space" in r for r in results)
    assert meta.messages == len(messages) == 6
    record = _record(home, INFRA_CHAT)
    assert record.cli.transcript == str(path) and record.cli.end == path.stat().st_size > size_before
    hits = search(Index.open(home), "keepStorage daemon").hits
    assert hits[0].session_id == INFRA_CHAT


def test_a_rewritten_transcript_is_read_again_whole(history):
    sample, home = history
    refresh(home)
    path = transcript_path(sample.cli_root, str(sample.projects["infra"]), INFRA_CHAT)
    write_transcript(
        path, [user_turn("completely different question about nginx"), assistant_turn("Use a location block.")]
    )
    assert refresh(home).updated == 1
    _, messages = _session(home, INFRA_CHAT)
    assert [m.text for m in messages] == ["completely different question about nginx", "Use a location block."]


def test_a_new_chat_is_added_and_a_deleted_chat_leaves_the_index(history):
    sample, home = history
    refresh(home)
    cwd = str(sample.projects["api"])
    write_transcript(
        transcript_path(sample.cli_root, cwd, "new-chat-1"),
        [user_turn("rename the fetchUser helper"), assistant_turn("Renamed fetchUser to loadUser everywhere.")],
    )
    write_chat_store(chat_dir_for(sample.cli_root, cwd, "new-chat-1"), cwd=cwd, messages=[], name="Rename helper")
    assert refresh(home).added == 1
    assert "new-chat-1" in _ids(home)
    assert search(Index.open(home), "fetchUser").hits[0].session_id == "new-chat-1"

    transcript_path(sample.cli_root, cwd, "new-chat-1").unlink()
    result = refresh(home)
    assert result.removed == 1
    assert "new-chat-1" not in _ids(home)
    assert search(Index.open(home), "fetchUser").hits == []


def test_a_composer_updated_in_place_is_read_again_and_only_it(history, monkeypatch):
    sample, home = history
    refresh(home)
    db = sample.ide_root / "globalStorage" / "state.vscdb"
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (f"composerData:{WEB_COMPOSER}",)).fetchone()
        composer = orjson.loads(row[0])
        composer["fullConversationHeadersOnly"].append({"bubbleId": "b4", "type": 1})
        composer["lastUpdatedAt"] += 1000
        conn.execute(
            "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
            (orjson.dumps(composer).decode(), f"composerData:{WEB_COMPOSER}"),
        )
        conn.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (
                f"bubbleId:{WEB_COMPOSER}:b4",
                orjson.dumps({"type": 1, "text": "does the footer still overlap the cookie banner?"}).decode(),
            ),
        )
    conn.close()
    read_ids: list[set[str] | None] = []
    real = ide_reader.read_ide_database  # (what a refresh reads a changed database with: imported when needed)

    def recording(path, *, only_ids=None, **rest):
        read_ids.append(only_ids)
        return real(path, only_ids=only_ids, **rest)

    monkeypatch.setattr(ide_reader, "read_ide_database", recording)
    result = refresh(home)
    assert result.updated == 1
    assert read_ids == [{WEB_COMPOSER}]
    _, messages = _session(home, WEB_COMPOSER)
    assert messages[-1].text == "does the footer still overlap the cookie banner?"


def test_the_ide_agent_transcript_merges_into_its_composer(history):
    _, home = history
    refresh(home)
    merged = [meta for _, _, meta in Index.open(home).sessions() if meta.title == "Dark mode toggle"]
    assert len(merged) == 1 and merged[0].source == "cursor-ide"
    _, messages = _session(home, merged[0].id)
    assert [m.text for m in messages if m.text] == [
        "add a dark mode toggle to the header",
        "Added a ThemeToggle component that stores the choice in localStorage.",
    ]
    assert [c.name for m in messages for c in m.tool_calls] == ["Write"]


def test_a_build_that_dies_half_way_leaves_the_previous_index_readable(history, monkeypatch):
    sample, home = history
    refresh(home)
    before = _ids(home)
    cwd = str(sample.projects["api"])
    write_transcript(
        transcript_path(sample.cli_root, cwd, "doomed"), [user_turn("a new question"), assistant_turn("an answer")]
    )

    def die(self):
        raise KeyboardInterrupt("killed half way")

    monkeypatch.setattr(index_module.SegmentWriter, "finish", die)
    with pytest.raises(KeyboardInterrupt):
        refresh(home)
    assert _ids(home) == before
    monkeypatch.undo()
    for name, value in sample.environment(home).items():
        monkeypatch.setenv(name, value)
    assert refresh(home).added == 1
    assert "doomed" in _ids(home)


def test_a_build_killed_by_a_signal_leaves_the_previous_index_readable(history, tmp_path):
    sample, home = history
    refresh(home)
    before = _ids(home)
    cwd = str(sample.projects["api"])
    for i in range(400):
        write_transcript(
            transcript_path(sample.cli_root, cwd, f"bulk-{i:04d}"),
            [
                user_turn(f"question {i} about module{i} and the parser"),
                assistant_turn(f"answer {i} " + "words " * 200),
            ],
        )
    env = {**os.environ, **sample.environment(home)}
    proc = subprocess.Popen([sys.executable, "-m", "deja.interfaces.entry", "index", "--full"], env=env)
    deadline = time.time() + 30
    while time.time() < deadline and len(list(index_dir(home).glob("seg-*"))) < 2 and proc.poll() is None:
        time.sleep(0.005)
    proc.kill()
    proc.wait()
    assert _ids(home) in (before, before | {f"bulk-{i:04d}" for i in range(400)})
    assert refresh(home).sessions == len(before) + 400


def test_a_corrupt_or_foreign_index_is_reported_and_rebuilt(history):
    _, home = history
    refresh(home)
    manifest = index_dir(home) / index_module.MANIFEST
    manifest.write_bytes(b"\x93garbage")
    with pytest.raises(IndexUnreadable, match="corrupt"):
        Index.open(home)
    result = refresh(home)
    assert "corrupt" in result.rebuilt_because
    assert result.sessions == 7

    # an older format's is rebuilt (a newer one's is refused: tests/test_newer_format.py)
    manifest.write_bytes(msgspec.msgpack.encode({"version": 1, "generation": 1, "built_at": 0.0}))
    with pytest.raises(IndexUnreadable, match="format 1,"):
        Index.open(home)
    assert refresh(home).sessions == 7
    assert len(_ids(home)) == 7


def test_a_truncated_segment_is_detected(history):
    _, home = history
    refresh(home)
    segment = next(index_dir(home).glob("seg-*"))
    (segment / "docs.bin").write_bytes(b"\0" * 7)
    with pytest.raises(IndexUnreadable, match="truncated"):
        Index.open(home)
    assert refresh(home).sessions == 7


def test_two_writers_at_once_both_finish_and_agree(history):
    sample, home = history
    cwd = str(sample.projects["api"])
    for i in range(50):
        write_transcript(transcript_path(sample.cli_root, cwd, f"c{i}"), [user_turn(f"topic{i}"), assistant_turn("ok")])
    results = []
    threads = [threading.Thread(target=lambda: results.append(refresh(home))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.added for r in results) == [0, 57]
    assert len(_ids(home)) == 57


def test_readers_never_wait_for_the_writer_lock(history):
    _, home = history
    refresh(home)
    with FileLock(str(index_dir(home) / ".lock")):
        started = time.perf_counter()
        assert search(Index.open(home), "docker").hits[0].session_id == INFRA_CHAT
        assert time.perf_counter() - started < 1
        with pytest.raises(TimeoutError):
            refresh(home, lock_timeout=0.05)


def test_a_reader_during_a_write_sees_a_whole_index(history):
    sample, home = history
    refresh(home)
    cwd = str(sample.projects["api"])
    for i in range(200):
        write_transcript(
            transcript_path(sample.cli_root, cwd, f"w{i}"), [user_turn(f"subject{i} deploy"), assistant_turn("fine")]
        )
    stop = threading.Event()
    seen: list[int] = []
    errors: list[Exception] = []

    def read_while_writing():
        while not stop.is_set():
            try:
                seen.append(Index.open(home).session_count)
            except Exception as exc:  # noqa: BLE001 - the test records any failure
                errors.append(exc)

    reader = threading.Thread(target=read_while_writing)
    reader.start()
    refresh(home)
    stop.set()
    reader.join()
    assert not errors
    assert set(seen) <= {7, 207}


@pytest.mark.parametrize(
    ("secret", "kind", "hidden"),
    [
        ("AKIAIOSFODNN7EXAMPLE", "aws-key", "IOSFODNN7EXAMPLE"),
        ("ghp_" + "a1B2" * 9, "github-token", "a1B2a1B2a1B2"),
        ("sk-proj-" + "x9Y8" * 8, "openai-key", "x9Y8x9Y8x9Y8"),
        ("xoxb-123456789012-abcdefABCDEF", "slack-token", "abcdefABCDEF"),
        ("Authorization: Bearer abcdef0123456789abcdef", "bearer", "0123456789abcdef"),
        ("Authorization: Basic dXNlcjpodW50ZXIyMjI=", "basic-auth", "dXNlcjpodW50ZXIyMjI"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
            "dozjgNryP4J3",
        ),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "pem", "MIIEpAIBAAKCAQEA"),
        ("password=hunter2hunter2", "secret", "hunter2hunter2"),
        ("token: tok_live_12345678", "secret", "tok_live_12345678"),
        ("postgres://admin:s3cretpass@db.internal:5432/app", "url-credentials", "s3cretpass"),
    ],
)
def test_secrets_are_redacted_in_the_index_and_in_search(history, secret, kind, hidden):
    sample, home = history
    cwd = str(sample.projects["api"])
    write_transcript(
        transcript_path(sample.cli_root, cwd, "leaky"),
        [
            user_turn(f"my config has {secret} in it, why does login fail"),
            assistant_turn("Let me check.", tool_use("Shell", {"command": f"echo {secret}"})),
        ],
    )
    refresh(home)
    meta, messages = _session(home, "leaky")
    dumped = orjson.dumps([m.text for m in messages] + [c.args for m in messages for c in m.tool_calls]).decode()
    assert f"[redacted:{kind}]" in dumped
    assert hidden not in dumped
    for segment in index_dir(home).glob("seg-*"):
        for part in segment.iterdir():
            assert hidden.encode() not in part.read_bytes(), part
    hit = search(Index.open(home), "login fail config").hits[0]
    assert hit.session_id == "leaky" and "[redacted:" in hit.snippets[0].text


def test_no_redact_turns_redaction_off(history, monkeypatch):
    sample, home = history
    monkeypatch.setenv("DEJA_NO_REDACT", "1")
    cwd = str(sample.projects["api"])
    write_transcript(
        transcript_path(sample.cli_root, cwd, "leaky"), [user_turn("key AKIAIOSFODNN7EXAMPLE"), assistant_turn("ok")]
    )
    refresh(home)
    assert _session(home, "leaky")[1][0].text == "key AKIAIOSFODNN7EXAMPLE"


def test_phrases_identifiers_and_filters(history):
    sample, home = history
    cwd = str(sample.projects["api"])
    write_transcript(
        transcript_path(sample.cli_root, cwd, "words-apart"),
        [user_turn("the key of the cache is wrong for one locale"), assistant_turn("fixed")],
    )
    refresh(home)
    index = Index.open(home)
    # A quoted phrase must appear as written.
    assert [h.session_id for h in search(index, '"cache key"').hits] == [API_CACHE_CHAT]
    assert "words-apart" in [h.session_id for h in search(index, "cache key").hits]
    # Identifier parts and whole identifiers.
    assert search(index, "ThemeToggle").hits[0].title == "Dark mode toggle"
    assert search(index, "theme toggle").hits[0].title == "Dark mode toggle"
    assert search(index, "api.cache").hits[0].session_id == API_CHAT
    assert search(index, "footer.css").hits[0].session_id == WEB_COMPOSER
    # Tool commands are searchable.
    assert search(index, "builder prune").hits[0].session_id == INFRA_CHAT
    # Filters by project (name or directory), source and date.
    assert {h.project for h in search(index, "cache", filters=Filters(project="api")).hits} == {"api"}
    assert search(index, "footer", filters=Filters(project="api")).hits == []
    assert (
        search(index, "footer", filters=Filters(project=str(sample.projects["web"]))).hits[0].session_id == WEB_COMPOSER
    )
    assert {h.source for h in search(index, "cache docker footer", filters=Filters(source="cursor-ide")).hits} == {
        "cursor-ide"
    }
    recent = search(index, "docker", filters=Filters(since=parse_since("3d"))).hits
    assert recent == []
    assert search(index, "docker", filters=Filters(since=parse_since("30d"))).hits[0].session_id == INFRA_CHAT


def test_user_turns_weigh_more_than_assistant_turns(history):
    sample, home = history
    cwd = str(sample.projects["api"])
    write_transcript(
        transcript_path(sample.cli_root, cwd, "asked"),
        [user_turn("how does the zebra parser work"), assistant_turn("it reads tokens")],
    )
    write_transcript(
        transcript_path(sample.cli_root, cwd, "mentioned"),
        [user_turn("tidy the tokens"), assistant_turn("zebra parser tidied")],
    )
    refresh(home)
    assert [h.session_id for h in search(Index.open(home), "zebra parser").hits] == ["asked", "mentioned"]


def test_snippets_show_the_densest_window(history):
    sample, home = history
    cwd = str(sample.projects["api"])
    filler = "lorem ipsum dolor sit amet " * 40
    write_transcript(
        transcript_path(sample.cli_root, cwd, "long"),
        [user_turn(filler + " the websocket reconnect backoff doubles each time " + filler), assistant_turn("ok")],
    )
    refresh(home)
    snippet = search(Index.open(home), "websocket reconnect backoff").hits[0].snippets[0].text
    assert "websocket reconnect backoff" in snippet
    assert len(snippet) < 300


def test_a_snippet_ends_at_a_word_end(history):
    """review43e L6: the window's end was cut mid-word ("…Load theme prefer…", "…{ thi…")."""
    sample, home = history
    cwd = str(sample.projects["api"])
    filler = "internationalisation misconfigurations " * 30  # (long words: a cut falls inside one)
    write_transcript(
        transcript_path(sample.cli_root, cwd, "long"),
        [user_turn(filler + " the websocket reconnect backoff doubles each time " + filler), assistant_turn("ok")],
    )
    refresh(home)
    snippet = search(Index.open(home), "websocket reconnect backoff").hits[0].snippets[0].text
    assert snippet.endswith("…"), snippet
    assert snippet[:-1].split()[-1] in filler.split(), snippet


def test_a_snippet_starts_at_the_texts_first_word_not_inside_it(history):
    """review44b L5: a window that started inside a text's first word stayed there, no space being before it
    ("…c/app/app.routes.ts 13:23-57 Module not found…"): the text's start is a word's start too."""
    sample, home = history
    cwd = str(sample.projects["api"])
    first = "webpack/runtime/compat_get_default_export.js:23"
    said = f"{first} Module not found: the zeppelin loader is missing. " + "lorem ipsum dolor sit amet " * 40
    write_transcript(transcript_path(sample.cli_root, cwd, "first-word"), [user_turn(said), assistant_turn("ok")])
    refresh(home)
    snippet = search(Index.open(home), "zeppelin loader module not found").hits[0].snippets[0].text
    assert snippet.startswith(f"{first} Module not found"), snippet


def test_an_ide_store_that_is_not_sqlite_is_counted_not_fatal(history):
    sample, home = history
    bad = sample.ide_root / "workspaceStorage" / "broken" / "state.vscdb"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"this is not a database")
    result = refresh(home)
    assert result.sessions == 7
    assert sum(result.problems.values()) >= 1


def test_segments_are_compacted_when_many_refreshes_add_them(history):
    sample, home = history
    refresh(home)
    cwd = str(sample.projects["api"])
    for i in range(12):
        write_transcript(
            transcript_path(sample.cli_root, cwd, f"step{i}"),
            [user_turn(f"step {i} of migration{i}"), assistant_turn("done")],
        )
        refresh(home)
    index = Index.open(home)
    assert len(index.segments) <= MAX_SEGMENTS
    assert index.session_count == 19
    assert search(index, "migration7").hits[0].session_id == "step7"
    assert len(list((index_dir(home) / "state").glob("state-*.msgpack"))) == 1


def test_ide_and_cli_sessions_from_an_empty_machine(tmp_path, monkeypatch):
    home = tmp_path / "deja"
    monkeypatch.setenv("DEJA_HOME", str(home))
    write_state_vscdb(tmp_path / "nothing.vscdb")
    result = refresh(home)
    assert (result.sessions, result.messages) == (0, 0)
    assert search(Index.open(home), "anything").hits == []
