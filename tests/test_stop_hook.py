"""The ``stop`` hook: Cursor fires it at the end of every agent turn, and the command ``deja install`` writes for it
ingests that turn in a detached process, so the next ``deja search`` finds the turn without refreshing anything.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import orjson
import pytest
from harness import Sample, console_script, deja_imports, path_with, run_deja
from test_unreadable_named import locked

from deja.core.index import index_dir
from deja.core.indexer import LOCK_NAME, glance
from deja.core.indexer.lock import WriterLock
from deja.core.sample import API_CHAT
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.hooks.session_end import WAITING_NAME

NEW_CHAT = "5709a11e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"


@pytest.fixture
def wired(indexed_sample: Sample, fake_home: Path, tmp_path: Path) -> Sample:
    """The sample indexed and ``deja install cursor-auto`` run, as a user runs it, into the fake HOME."""
    script = console_script(tmp_path / "bin")
    env = {**indexed_sample.env, "HOME": str(fake_home), "PATH": path_with(script)}
    installed = run_deja("install", "cursor-auto", env=env, script=script)
    assert installed.returncode == 0, installed.stderr
    return indexed_sample


def _stop(sample: Sample, chat: str, transcript: Path, event: str = "stop") -> None:
    """Cursor's ``stop`` (or ``sessionEnd``) for ``chat``, run through the command ``hooks.json`` holds for it, as
    Cursor runs it (``sh -c``); it answers at once, with nothing Cursor would submit as a follow-up."""
    hooks = json.loads((Path(sample.env["HOME"]) / ".cursor" / "hooks.json").read_text())["hooks"]
    [entry] = hooks[event]
    payload = {
        "hook_event_name": event,
        "conversation_id": chat,
        "generation_id": "g-1",
        "transcript_path": str(transcript),
        "workspace_roots": [str(sample.history.projects["api"])],
        "status": "completed",
        "loop_count": 0,
    }
    started = time.monotonic()
    done = subprocess.run(
        ["sh", "-c", entry["command"]], input=json.dumps(payload), env=sample.env, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert time.monotonic() - started < entry["timeout"]


def _wait_for_log(sample: Sample, text: str, seconds: float = 60) -> str:
    """``hooks.log`` once the detached ingest has written ``text`` into it."""
    log = sample.home / "hooks.log"
    deadline = time.monotonic() + seconds
    while text not in (found := log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, f"hooks.log never said {text!r}: {found}"
        time.sleep(0.1)
    return found


def _flocked(path: Path) -> bool:
    """Whether a process holds an ``flock`` on ``path`` (Linux's ``/proc/locks`` names the file by its inode): the
    waiting ingest makes its file before it locks it, and a turn that came in between also waited (flake61)."""
    try:
        inode = path.stat().st_ino
    except FileNotFoundError:
        return False
    held = (line.split() for line in Path("/proc/locks").read_text().splitlines())
    return any(fields[1] == "FLOCK" and fields[5].rsplit(":", 1)[-1] == str(inode) for fields in held)


def _search_without_refreshing(sample: Sample, *words: str) -> list[str]:
    """The sessions ``deja search`` finds, asserting that its check found nothing changed: it answered from the
    index as it stood, without loading the refresh (which imports msgspec and the readers)."""
    assert not glance.check(index_dir(sample.home)).changed
    out, imported = deja_imports(sample.env, "search", *words, "--json")
    assert "deja.core.indexer.driver" not in imported and "msgspec" not in imported
    return [hit["session_id"] for hit in orjson.loads(out)["hits"]]


def _index_json(sample: Sample) -> dict[str, int]:
    done = run_deja("index", "--json", env=sample.env)
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout)


def test_a_turn_ended_is_found_by_the_next_search_with_nothing_to_refresh(wired: Sample) -> None:
    transcript = transcript_path(wired.history.cli_root, str(wired.history.projects["api"]), API_CHAT)
    with transcript.open("ab") as f:
        f.write(orjson.dumps(user_turn("why does the zeppelin queue stall?")) + b"\n")
        f.write(orjson.dumps(assistant_turn("A missing ack in the zeppelin consumer.")) + b"\n")

    _stop(wired, API_CHAT, transcript)
    _wait_for_log(wired, f"ingested {API_CHAT}: 0 added, 1 updated")

    assert _search_without_refreshing(wired, "zeppelin") == [API_CHAT]
    index = _index_json(wired)
    assert (index["added"], index["updated"]) == (0, 0)

    _stop(wired, API_CHAT, transcript, event="sessionEnd")  # the chat closes: its last turn is in already
    _wait_for_log(wired, f"ingested {API_CHAT}: 0 added, 0 updated (nothing changed since the last refresh)")


def test_a_turn_whose_store_is_locked_says_why_it_is_not_taken_yet(wired: Sample) -> None:
    """The ingest of a turn whose chat's store another process held locked logged "0 added, 0 updated", and nothing
    said why the turn just finished was not searchable yet (trial13 F4); the next refresh takes it."""
    cwd = str(wired.history.projects["api"])
    transcript = write_transcript(
        transcript_path(wired.history.cli_root, cwd, NEW_CHAT),
        [user_turn("the walrus deploy keeps timing out"), assistant_turn("Raise the walrus health check grace.")],
    )
    chat = chat_dir_for(wired.history.cli_root, cwd, NEW_CHAT)
    write_chat_store(chat, cwd=cwd, messages=[*store_preamble(cwd), store_user_message("the walrus deploy times out")])
    store = chat / "store.db"
    with locked(store):
        _stop(wired, NEW_CHAT, transcript)
        log = _wait_for_log(wired, f"ingested {NEW_CHAT}: ")
    line = next(line for line in log.splitlines() if f"ingested {NEW_CHAT}: " in line)
    assert line.endswith(f"; {store} (locked) could not be read this time: kept as it was, read again by the next refresh"), line  # fmt: skip
    assert ": 1 added, 0 updated; " in line and _index_json(wired)["updated"] == 1  # (the lock gone: its store read)


def test_a_turn_whose_store_is_damaged_logs_the_mv_that_moves_it_away(wired: Sample) -> None:
    """fix47h: the ingest's log line said a damaged store was "read again by the next refresh", which never mends
    it; it gives the ``mv`` doctor and `deja index` give, and what the index is then without."""
    cwd = str(wired.history.projects["api"])
    transcript = write_transcript(
        transcript_path(wired.history.cli_root, cwd, NEW_CHAT),
        [user_turn("the walrus deploy keeps timing out"), assistant_turn("Raise the walrus health check grace.")],
    )
    store = chat_dir_for(wired.history.cli_root, cwd, NEW_CHAT) / "store.db"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"garbage, not SQLite" * 300)
    _stop(wired, NEW_CHAT, transcript)
    log = _wait_for_log(wired, f"ingested {NEW_CHAT}: ")
    line = next(line for line in log.splitlines() if f"ingested {NEW_CHAT}: " in line)
    assert line.endswith(
        f"; {store} (damaged) could not be read this time: kept as it was; a damaged file stays so: move it away "
        f"(mv {store} {store}.damaged); `deja index` then reads on without it"
    ), line


def test_a_new_chats_first_turn_and_its_session_end_are_read_once(wired: Sample) -> None:
    """A new chat changes its project's folder, which the check watches: the ingest records that folder as it saw
    it. The session end a moment later (its ingest waiting for the first, or starting after it) reads nothing
    again. When the two start together, one may find the other waiting for the index and leave it the turn (it
    checks what changed once the index is free): either way the turn is read once."""
    cwd = str(wired.history.projects["api"])
    transcript = write_transcript(
        transcript_path(wired.history.cli_root, cwd, NEW_CHAT),
        [user_turn("the walrus deploy keeps timing out"), assistant_turn("Raise the walrus health check grace.")],
    )
    write_chat_store(
        chat_dir_for(wired.history.cli_root, cwd, NEW_CHAT),
        cwd=cwd,
        messages=[
            *store_preamble(cwd),
            store_user_message("the walrus deploy keeps timing out"),
            store_assistant_message("Raise the walrus health check grace."),
        ],
    )

    _stop(wired, NEW_CHAT, transcript)
    _stop(wired, NEW_CHAT, transcript, event="sessionEnd")
    log = _wait_for_log(wired, f"ingested {NEW_CHAT}: 1 added, 0 updated")
    ended = (f"silent: ingested {NEW_CHAT}", f"silent: not ingested {NEW_CHAT} here: another ingest is waiting")
    deadline = time.monotonic() + 60
    while (ends := sum(log.count(line) for line in ended)) < 2:
        assert time.monotonic() < deadline, log
        log = _wait_for_log(wired, "")
    assert ends == 2 and log.count("1 added") == 1, "the second ingest read nothing again"

    assert _search_without_refreshing(wired, "walrus") == [NEW_CHAT]
    index = _index_json(wired)
    assert (index["added"], index["updated"]) == (0, 0)


@pytest.mark.parametrize("event", ["Stop", "PreCompact", "SessionEnd"])
def test_claude_codes_own_stop_starts_no_ingest(indexed_sample: Sample, tmp_path: Path, event: str) -> None:
    """``deja install claude-auto`` writes ``Stop`` for Cursor, which runs Claude Code's hooks too; in Claude Code
    itself it fires after every turn of a session deja never indexes: each started a process that loaded the indexer
    and logged advice to point CURSOR_DATA_DIR at Claude Code's folder (review9 S1). ``PreCompact`` and
    ``SessionEnd`` still started one, which found nothing (trial44b F6)."""
    transcript = tmp_path / ".claude" / "projects" / "-work-x" / "5f0c7c1e-1111-2222-3333-444455556666.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text('{"type":"user"}\n')
    payload = {
        "session_id": "5f0c7c1e-1111-2222-3333-444455556666",
        "transcript_path": str(transcript),
        "cwd": "/work/x",
        "hook_event_name": event,
        "stop_hook_active": False,
    }
    done = run_deja("hook-session-end", input=json.dumps(payload), env=indexed_sample.env)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    logged = run_deja("hooks", "log", env=indexed_sample.env).stdout
    assert f"Claude Code's own {event}: deja indexes Cursor's chats, not Claude Code's" in logged, logged
    assert "background process" not in logged and "CURSOR_DATA_DIR" not in logged


def test_turns_behind_a_long_build_leave_one_ingest_waiting_and_it_reads_them_all(wired: Sample) -> None:
    """Behind a build holding the writer lock, each turn's ingest waited up to five minutes in a process of its
    own, a pile of them in a fast agent loop (review9 S2): one waits, the others leave at once, and the one that
    waited reads the turns that ended while it waited."""
    transcript = transcript_path(wired.history.cli_root, str(wired.history.projects["api"]), API_CHAT)
    with WriterLock(index_dir(wired.home) / LOCK_NAME, 0):
        for n, animal in enumerate(("ibis", "okapi", "quokka")):
            with transcript.open("ab") as f:
                f.write(orjson.dumps(user_turn(f"why does the {animal} job stall?")) + b"\n")
                f.write(orjson.dumps(assistant_turn(f"The {animal} job waits on a lock.")) + b"\n")
            _stop(wired, API_CHAT, transcript)
            if n == 0:  # the first takes the place of the one waiting (its lock file, held once it takes it)
                deadline = time.monotonic() + 30
                while not _flocked(index_dir(wired.home) / WAITING_NAME):
                    assert time.monotonic() < deadline, "no ingest took the place of the one waiting"
                    time.sleep(0.05)
        _wait_for_log(wired, "another ingest is waiting for the index, and reads this turn once it is free")
        waiting = [line for line in _wait_for_log(wired, "").splitlines() if "another ingest is waiting" in line]
        deadline = time.monotonic() + 30
        while len(waiting) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            waiting = [line for line in _wait_for_log(wired, "").splitlines() if "another ingest is waiting" in line]
        assert len(waiting) == 2, waiting
    _wait_for_log(wired, f"ingested {API_CHAT}: 0 added, 1 updated")
    assert _search_without_refreshing(wired, "quokka") == [API_CHAT]
