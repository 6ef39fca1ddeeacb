"""The refresh after one appended turn loads only what that turn needs: a chat store's blobs are checked with the
interpreter's own sha256, not OpenSSL's (``hashlib``), and give the same digests either way."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from deja.core import digests
from deja.core.index import Index, SessionMeta
from deja.core.indexer import refresh
from deja.core.model import Message
from deja.core.search import search
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

pytestmark = pytest.mark.unit

CHAT = "00000000-0000-4000-8000-0000000000e1"
CWD = "/work/shop"
SHELL = tool_use("Shell", {"command": "pytest -q"})


def _records(*more: dict[str, object]) -> list[dict[str, object]]:
    return [
        user_turn("Why does the uploader retry forever?"),
        assistant_turn("Running the tests.", tool_use("Shell", {"command": "pytest -q"})),
        *more,
    ]


def test_a_refresh_of_a_grown_chat_with_a_store_checks_its_blobs_without_loading_openssl(tmp_path: Path) -> None:
    cli = tmp_path / "cli"
    transcript = write_transcript(transcript_path(cli, CWD, CHAT), _records())
    write_chat_store(
        chat_dir_for(cli, CWD, CHAT),
        cwd=CWD,
        name="Uploader retries",
        messages=[
            store_user_message("Why does the uploader retry forever?"),
            store_assistant_message("Running the tests.", tool_call_part("c1", "Shell", {"command": "pytest -q"})),
            tool_result_message("c1", "Shell", "1 failed: test_backoff_grows"),
        ],
    )
    (tmp_path / "no-ide").mkdir()
    env = {
        **os.environ,
        "DEJA_CURSOR_CLI_ROOT": str(cli),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
        "DEJA_HOME": str(tmp_path / "deja"),
    }
    code = (
        "import sys\n"
        "from deja.core.indexer import refresh\n"
        f"print(refresh(only_chat_ids={{{CHAT!r}}}).COUNT)\n"
        "print('_hashlib' in sys.modules)\n"
    )
    built = subprocess.run(
        [sys.executable, "-c", code.replace("COUNT", "added")], env=env, capture_output=True, text=True
    )
    assert built.stdout.split() == ["1", "False"], built.stderr
    write_transcript(transcript, _records(user_turn("And the zeppelin queue?"), assistant_turn("It drains.")))
    grown = subprocess.run(
        [sys.executable, "-c", code.replace("COUNT", "updated")], env=env, capture_output=True, text=True
    )
    assert grown.stdout.split() == ["1", "False"], grown.stderr

    found = subprocess.run(
        [sys.executable, "-m", "deja.interfaces.entry", "search", "test_backoff_grows", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert CHAT in found.stdout  # the store's tool result was read: its blob passed the check


@pytest.mark.parametrize("size", [0, 1, 63, 64, 1000, 70_000])
def test_the_blob_digest_is_sha256_whichever_module_computes_it(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    monkeypatch.setattr(digests, "_hashed", [0])
    own = digests.sha256_hex(data)
    monkeypatch.setattr(digests, "_hashed", [digests.OWN_SHA256_BYTES])  # past it: OpenSSL's, as a build does
    assert own == digests.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def _session(home: Path, session_id: str) -> tuple[SessionMeta, list[Message]]:
    found = Index.open(home).find(session_id)
    assert len(found) == 1
    segment, _, meta = found[0]
    return msgspec.structs.replace(meta, first_doc=0), segment.messages(meta)  # (its docs' place in its segment)


def _environment(cli: Path, home: Path) -> dict[str, str]:
    return {"DEJA_CURSOR_CLI_ROOT": str(cli), "DEJA_CURSOR_ROOT": str(cli.parent / "no-ide"), "DEJA_HOME": str(home)}


def test_a_chat_refreshed_turn_by_turn_is_stored_as_a_rebuild_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed reads, a tool-only record continuing the last turn, results arriving in the store later, a secret in
    a new turn: the refreshed session (meta and messages) is the one a full rebuild of the same files gives."""
    cli = tmp_path / "cli"
    (tmp_path / "no-ide").mkdir()
    secret = "ghp_" + "a1B2c3D4e5" * 4
    turns = [
        [user_turn("Why does the uploader retry forever?"), assistant_turn("Running the tests.", SHELL)],
        [assistant_turn(None, tool_use("Read", {"path": "uploader.py"}))],  # continues the turn before it
        [user_turn(f"Push with token {secret} then"), assistant_turn("Pushed; the backoff now grows.")],
    ]
    results = [  # the Shell call's result is stored after the refresh that indexed the call
        [],
        [
            tool_result_message("c1", "Shell", "1 failed: test_backoff_grows"),
            tool_result_message("c2", "Read", "def retry(): ..."),
        ],
        [],
    ]
    transcript = transcript_path(cli, CWD, CHAT)
    stored: list[dict[str, object]] = [store_user_message("Why does the uploader retry forever?")]
    calls = [
        tool_call_part("c1", "Shell", {"command": "pytest -q"}),
        tool_call_part("c2", "Read", {"path": "uploader.py"}),
    ]
    refreshed = tmp_path / "refreshed"
    for name, value in _environment(cli, refreshed).items():
        monkeypatch.setenv(name, value)
    written: list[dict[str, object]] = []
    for step, (turn, arrived) in enumerate(zip(turns, results, strict=True)):
        written += turn
        write_transcript(transcript, written)
        stored += [store_assistant_message("Running the tests.", calls[step])] if step < 2 else []
        stored += arrived
        write_chat_store(chat_dir_for(cli, CWD, CHAT), cwd=CWD, name="Uploader retries", messages=stored)
        result = refresh(refreshed, only_chat_ids={CHAT}) if step else refresh(refreshed)
        assert (result.added, result.updated) == ((1, 0) if step == 0 else (0, 1))

    rebuilt = tmp_path / "rebuilt"
    monkeypatch.setenv("DEJA_HOME", str(rebuilt))
    refresh(rebuilt, full=True)
    meta, messages = _session(refreshed, CHAT)
    assert (meta, messages) == _session(rebuilt, CHAT)
    assert secret not in str(messages) and "[redacted:github-token]" in messages[-2].text
    assert [c.result for m in messages for c in m.tool_calls] == ["1 failed: test_backoff_grows", "def retry(): ..."]


OTHERS = {
    "00000000-0000-4000-8000-0000000000e2": [
        "The uploader's retry loop spins on a 503.",
        "Capped the retries at five.",
    ],
    "00000000-0000-4000-8000-0000000000e3": ["Why is the zeppelin queue backing up?", "The consumer lost its lease."],
    "00000000-0000-4000-8000-0000000000e4": ["Rename the backoff helper", "Renamed it to grow_backoff in retry.py."],
}
GROWN_TURNS = [
    ("Does the backoff grow now?", "Yes: it doubles up to a minute, then the uploader gives up."),
    ("And the zeppelin queue after the retry fix?", "It drains; the lease renews before the retry."),
    ("Run the uploader tests again", "All 41 pass, test_backoff_grows included."),
    ("Any retry left that spins?", "None: every retry in retry.py waits on the backoff now."),
]
#: The moment every search below is made at (recency weighs in a score: the same for both indexes).
NOW = 1_900_000_000.0
QUERIES = ["uploader retry", "backoff grows", "zeppelin queue lease", "retry.py", "test_backoff_grows", "gives up"]


def _found(home: Path) -> list[list[tuple[str, list[tuple[str, str]]]]]:
    """Each query's hits as a person reads them, in order: the session and its passages (role and text)."""
    index = Index.open(home)
    return [
        [
            (hit.session_id, [(snippet.role, snippet.text) for snippet in hit.snippets])
            for hit in search(index, query, now=NOW).hits
        ]
        for query in QUERIES
    ]


def _grown_turn_by_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dated: bool) -> Iterator[tuple[Path, Path]]:
    """A few chats, then one of them grown a turn at a time, each turn refreshed on its own as a search right after
    it refreshes: after each, the index so refreshed and a full rebuild of the same files."""
    cli = tmp_path / "cli"
    (tmp_path / "no-ide").mkdir()
    for chat_id, (asked, *answers) in OTHERS.items():
        write_transcript(
            transcript_path(cli, CWD, chat_id), [user_turn(asked), *(assistant_turn(text) for text in answers)]
        )
    refreshed = tmp_path / "refreshed"
    for name, value in _environment(cli, refreshed).items():
        monkeypatch.setenv(name, value)
    transcript = transcript_path(cli, CWD, CHAT)
    written = _records()
    write_transcript(transcript, written)
    refresh(refreshed)
    for turn, (asked, answered) in enumerate(GROWN_TURNS):
        stamp = datetime(2026, 3, 2, 9, 30 + turn, tzinfo=UTC) if dated else None
        written += [user_turn(asked, stamp), assistant_turn(answered)]
        write_transcript(transcript, written)
        monkeypatch.setenv("DEJA_HOME", str(refreshed))
        result = refresh(refreshed, only_chat_ids={CHAT})
        assert (result.added, result.updated) == (0, 1)
        rebuilt = tmp_path / f"rebuilt-{turn}"
        monkeypatch.setenv("DEJA_HOME", str(rebuilt))
        refresh(rebuilt, full=True)
        yield refreshed, rebuilt


@pytest.mark.parametrize("dated", [True, False], ids=["dated turns, read from where it stopped", "undated, read whole"])
def test_a_search_after_each_turn_appended_finds_what_it_finds_after_a_full_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dated: bool
) -> None:
    """After each turn, every query finds the same sessions in the refreshed index as in a rebuild, each with the same
    passages. However a refresh writes a grown chat (issue 15: not all of it anew every turn), this holds."""
    for turn, (refreshed, rebuilt) in enumerate(_grown_turn_by_turn(tmp_path, monkeypatch, dated)):
        found = [sorted(hits) for hits in _found(refreshed)]
        assert found == [sorted(hits) for hits in _found(rebuilt)], f"after turn {turn + 1}"
    assert CHAT in [hit[0] for hit in found[1]] and CHAT in [hit[0] for hit in found[2]]  # (the grown turns are found)
    assert any("gives up" in text for hit in found[-1] if hit[0] == CHAT for _, text in hit[1])


@pytest.mark.xfail(
    strict=True,
    reason="a segment weighs a word by its own docs (BM25's length norm and idf per segment): the grown chat, "
    "refreshed into a segment of its own, ranks below another chat that a rebuild, one segment for all, ranks it above "
    "(issue 15: writing only the new turns, in a smaller segment still, would widen this)",
)
def test_a_search_after_a_turn_ranks_the_sessions_as_a_full_rebuild_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for turn, (refreshed, rebuilt) in enumerate(_grown_turn_by_turn(tmp_path, monkeypatch, dated=True)):
        assert _found(refreshed) == _found(rebuilt), f"after turn {turn + 1}"
