"""A rebuild deja starts on its own (its redaction rules changed, redaction turned on, a damaged index) keeps the
sessions of a store it cannot read this time, redacted under today's rules.

README: "Only a store gone from disk gives up its sessions"; "--full … if a Cursor store that sessions were read from
cannot be read … keeps the index as it was and exits 1". A new-user trial lost a chat this way: an index built by an
older deja, one chat folder at mode 000, and the first run of the new deja rebuilt the index without it.

An older index is built with today's code under the previous rules' version (``RULES_VERSION``, patched in this
process), so the next ``deja`` run takes it for one redacted by older rules. "Cannot be read" is something root
cannot read either: a FIFO or a folder in a store's place, or a store locked by another connection.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import Sample, locked, run_deja
from redaction_corpus import SECRETS
from test_redaction import files_under, leaks

from deja.core import redaction
from deja.core.index import MANIFEST, Index, index_dir
from deja.core.indexer import refresh
from deja.core.sample import WEB_COMPOSER, WEB_MERGED_COMPOSER
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
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
from deja.core.writers.ide import write_state_vscdb

CWD = "/work/api"
RULES_CHANGED = "deja: rebuilt the index: deja's redaction rules changed since the index was built"
NOT_REBUILT = "deja: the index was not rebuilt: "
#: Secrets today's rules redact and rules 5 did not (a URL with an empty user, a quoted passphrase with blanks).
NEW_SECRETS = [s for s in SECRETS if s.name in ("redis-url-no-user", "passphrase-python", "redis-cli-a")]


def _store_chat(root: Path, chat_id: str, *answers: str) -> Path:
    chat_dir = chat_dir_for(root, CWD, chat_id)
    messages = [store_user_message(f"question of {chat_id}")] + [store_assistant_message(a) for a in answers]
    write_chat_store(chat_dir, cwd=CWD, name=f"Chat {chat_id}", messages=messages)
    return chat_dir / "store.db"


def _older_index(monkeypatch: pytest.MonkeyPatch, home: Path | None = None) -> None:
    """The index as the previous version of deja's rules built it."""
    with monkeypatch.context() as older:
        older.setattr(redaction, "RULES_VERSION", redaction.RULES_VERSION - 1)
        refresh(home)


def _json(*args: str) -> dict[str, Any]:
    ran = run_deja(*args, "--json")
    assert ran.returncode == 0, ran.stderr
    return orjson.loads(ran.stdout)


def session_ids() -> set[str]:
    return {s["id"] for s in _json("sessions")["sessions"]}


def shown(session_id: str) -> list[str]:
    return [m["text"] for m in _json("show", session_id)["messages"]]


@contextmanager
def _fifo(store: Path) -> Iterator[None]:
    saved = store.read_bytes()
    store.unlink()
    os.mkfifo(store)
    yield
    store.unlink()
    store.write_bytes(saved)


@contextmanager
def _folder(store: Path) -> Iterator[None]:
    saved = store.read_bytes()
    store.unlink()
    store.mkdir()
    yield
    store.rmdir()
    store.write_bytes(saved)


UNREADABLE: list[Callable[[Path], Any]] = [_fifo, _folder, locked]


@pytest.mark.parametrize("unreadable", UNREADABLE, ids=lambda how: how.__name__.strip("_"))
def test_a_rules_change_rebuild_keeps_the_sessions_of_a_store_it_cannot_read(
    cli_root: Path, monkeypatch: pytest.MonkeyPatch, unreadable: Callable[[Path], Any]
) -> None:
    store = _store_chat(cli_root, "s1", "the platypus answer", *(s.text for s in NEW_SECRETS))
    _store_chat(cli_root, "s2", "the wombat answer")
    _older_index(monkeypatch)
    with unreadable(store):
        ran = run_deja("sessions")  # the first run of the new deja: any read rebuilds the index
        assert ran.returncode == 0 and ran.stderr.startswith(RULES_CHANGED), ran.stderr
        assert session_ids() == {"s1", "s2"}
        kept = shown("s1")
        assert kept[:2] == ["question of s1", "the platypus answer"]
        assert leaks({"show s1": "\n".join(kept)}) == [], "carried over, redacted under today's rules"
        assert all("[redacted:" in text for text in kept[2:])
        full = run_deja("index", "--full")  # the store still counts as one sessions were read from
        assert full.returncode == 1 and full.stderr.startswith(NOT_REBUILT), full.stderr
        assert "could not be read this time" in full.stderr
        again = _json("index")
        assert (again["sessions"], again["unreadable_kept"], again["removed"]) == (2, 1, 0)
    _store_chat(cli_root, "s1", "the platypus answer", "read again")  # readable again, and grown
    assert _json("index")["unreadable_kept"] == 0
    assert shown("s1") == ["question of s1", "the platypus answer", "read again"]
    assert session_ids() == {"s1", "s2"}


def test_a_rules_change_rebuild_keeps_what_the_store_beside_a_transcript_held(
    cli_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The transcript can be read, the store beside it cannot: the chat would come back without the store's title
    and the command's output, so the old session is carried instead."""
    write_transcript(
        transcript_path(cli_root, CWD, "c1"),
        [user_turn("why does quuxmigrate fail?"), assistant_turn("Running it.", tool_use("Shell", {"command": "./m"}))],
    )
    write_chat_store(
        chat_dir_for(cli_root, CWD, "c1"),
        cwd=CWD,
        name="Quux migrate exit 3",
        messages=[
            store_user_message("why does quuxmigrate fail?"),
            store_assistant_message("Running it.", tool_call_part("t1", "Shell", {"command": "./m"})),
            tool_result_message("t1", "Shell", shell_result_text("Error: table zebra missing", exit_code=3)),
        ],
    )
    _older_index(monkeypatch)
    with locked(chat_dir_for(cli_root, CWD, "c1") / "store.db"):
        ran = run_deja("show", "c1")
        assert ran.stderr.startswith(RULES_CHANGED), ran.stderr
        assert "Quux migrate exit 3" in ran.stdout and "table zebra missing" in ran.stdout
        assert _json("index")["unreadable_kept"] == 1
        # (review51a: the carried record had lost its store's signature, so a rebuild now thought nothing was ever
        # read from the store, and rebuilt without it: the title and the command's output gone)
        full = run_deja("index", "--full")
        assert full.returncode == 1 and full.stderr.startswith(NOT_REBUILT), full.stderr
        assert "Quux migrate exit 3" in run_deja("show", "c1").stdout
    assert _json("index")["unreadable_kept"] == 0
    shown_now = run_deja("show", "c1").stdout
    assert "Quux migrate exit 3" in shown_now and "table zebra missing" in shown_now


@contextmanager
def _folder_in_place_of(path: Path, aside: Path) -> Iterator[None]:
    """A folder in ``path``'s place for the block (the file kept at ``aside``), then the file back as it was."""
    path.rename(aside)
    path.mkdir()
    try:
        yield
    finally:
        path.rmdir()
        aside.rename(path)


def test_a_rules_change_rebuild_keeps_what_only_a_transcript_held(
    cli_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder in the transcript's place: read from its store alone, the chat would lose the turn only the
    transcript holds, and keep it lost once the transcript is back (a trust trial's find, for ``--full``)."""
    transcript = transcript_path(cli_root, CWD, "c1")
    write_transcript(transcript, [user_turn("why does quuxmigrate fail?"), user_turn("and the zebra table?")])
    write_chat_store(chat_dir_for(cli_root, CWD, "c1"), cwd=CWD, messages=[store_user_message("why quuxmigrate?")])
    _older_index(monkeypatch)
    with _folder_in_place_of(transcript, tmp_path / "aside.jsonl"):
        ran = run_deja("show", "c1")
        assert ran.stderr.startswith(RULES_CHANGED), ran.stderr
        assert "zebra table" in ran.stdout
        assert _json("index")["unreadable_kept"] == 1
    assert _json("index")["unreadable_kept"] == 0
    assert shown("c1") == ["why does quuxmigrate fail?", "and the zebra table?"]


def test_a_rules_change_rebuild_keeps_what_only_an_editor_chats_transcript_held(
    sample: Sample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The editor's database holds the chat, its transcript alone the Write call."""
    _older_index(monkeypatch)
    with monkeypatch.context() as older:
        older.setattr(redaction, "RULES_VERSION", redaction.RULES_VERSION - 1)
        merged_then = shown_in_process(WEB_MERGED_COMPOSER)
    transcript = transcript_path(sample.history.cli_root, str(sample.history.projects["web"]), WEB_MERGED_COMPOSER)
    with _folder_in_place_of(transcript, tmp_path / "aside.jsonl"):
        assert run_deja("sessions").stderr.startswith(RULES_CHANGED)
        assert shown_in_process(WEB_MERGED_COMPOSER) == merged_then
    assert _json("index")["unreadable_kept"] == 0
    assert shown_in_process(WEB_MERGED_COMPOSER) == merged_then


def test_turning_redaction_on_keeps_an_unreadable_stores_session_with_its_secrets_redacted(
    cli_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index built with ``DEJA_NO_REDACT=1`` holds every secret as it was: the rebuild that redaction being on
    again starts carries the session of a store it cannot read, and no secret reaches a file or an answer."""
    store = _store_chat(cli_root, "s1", "the platypus answer", *(s.text for s in SECRETS))
    _store_chat(cli_root, "s2", "the wombat answer")
    monkeypatch.setenv("DEJA_NO_REDACT", "1")
    refresh()
    monkeypatch.delenv("DEJA_NO_REDACT")
    assert leaks({"show": run_deja("show", "s1", env={**os.environ, "DEJA_NO_REDACT": "1"}).stdout})
    with _fifo(store):
        ran = run_deja("show", "s1")
        assert ran.returncode == 0 and "redaction is now on" in ran.stderr, ran.stderr
        assert "the platypus answer" in ran.stdout and "[redacted:" in ran.stdout
        on_disk = {str(path): data for path, data in files_under(tmp_path / "deja")}
        assert leaks({"show s1": ran.stdout, **on_disk}) == []


def test_a_session_carried_twice_reads_the_same(cli_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Redacting what is redacted changes nothing: a session carried through two rules changes is as it was after
    the first, and as today's rules redact the text itself."""
    store = _store_chat(cli_root, "s1", *(s.text for s in SECRETS))
    refresh()
    read_today = shown_in_process("s1")
    assert len(read_today) > 20 and all("[redacted:" in text for text in read_today[2:])
    _older_index(monkeypatch)
    with _fifo(store):
        assert run_deja("sessions").stderr.startswith(RULES_CHANGED)
        once = shown_in_process("s1")
        assert once == read_today
        with monkeypatch.context() as newer:  # the rules after today's
            newer.setattr(redaction, "RULES_VERSION", redaction.RULES_VERSION + 1)
            result = refresh()
            assert result.rebuilt_because.startswith("deja's redaction rules changed")
            assert result.unreadable_kept == 1
            assert shown_in_process("s1") == once


def shown_in_process(session_id: str) -> list[str]:
    """``deja show``'s title and messages, read in this process (whose rules version a test may have patched)."""
    from deja.core.library import find_session
    from deja.core.paths import deja_home

    segment, meta = find_session(Index.open(deja_home()), session_id)
    return [meta.title, *(m.text for m in segment.messages(meta))]


def test_a_rules_change_rebuild_keeps_the_chats_of_an_editor_database_it_cannot_read(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locked ``state.vscdb``: its chats stay, the one merged with a transcript with its editor side (the rebuild
    read the transcript alone), and the next refresh reads the database again once it can (nothing twice)."""
    _older_index(monkeypatch)
    db = sample.history.ide_root / "globalStorage" / "state.vscdb"
    write_state_vscdb(db, item_table={"workbench.panel.height": {"value": 300}})
    with monkeypatch.context() as older:  # what the older index holds, read with its rules
        older.setattr(redaction, "RULES_VERSION", redaction.RULES_VERSION - 1)
        ids_then = {meta.id for _, _, meta in Index.open(sample.home).sessions()}
        merged_then = shown_in_process(WEB_MERGED_COMPOSER)
    with locked(db):
        ran = run_deja("sessions")
        assert ran.returncode == 0 and ran.stderr.startswith(RULES_CHANGED), ran.stderr
        assert session_ids() == ids_then
        assert shown(WEB_COMPOSER)[0] == "why is the footer missing on mobile?"
        assert shown_in_process(WEB_MERGED_COMPOSER) == merged_then
    after = _json("index")
    assert (after["unreadable_kept"], after["sessions"]) == (0, len(ids_then))
    assert session_ids() == ids_then and shown_in_process(WEB_MERGED_COMPOSER) == merged_then


def test_an_unreadable_index_is_kept_aside_when_the_rebuild_cannot_read_a_store(cli_root: Path, tmp_path: Path) -> None:
    """The index it replaces cannot be read: whether it held the sessions of a store the rebuild cannot read is
    unknown, so its files are kept beside it, and one line says where."""
    store = _store_chat(cli_root, "s1", "the platypus answer")
    _store_chat(cli_root, "s2", "the wombat answer")
    refresh()
    manifest = index_dir(tmp_path / "deja") / MANIFEST
    manifest.write_bytes(b"\x00 not a manifest")
    with locked(store):
        ran = run_deja("sessions")
    assert ran.returncode == 0, ran.stderr
    said = [line for line in ran.stderr.splitlines() if "rebuilt the index" in line]
    assert len(said) == 1 and "the index it replaces could not be read" in said[0], ran.stderr
    kept = [path for path in (tmp_path / "deja").iterdir() if path.name.startswith("index-kept-")]
    assert len(kept) == 1 and str(kept[0]) in said[0]
    assert (kept[0] / MANIFEST).read_bytes() == b"\x00 not a manifest"
    assert any(path.name.startswith("seg-") for path in kept[0].iterdir())
    assert oct(kept[0].stat().st_mode & 0o777) == "0o700"


def test_a_rebuild_with_every_store_readable_keeps_nothing_aside(cli_root: Path, tmp_path: Path) -> None:
    _store_chat(cli_root, "s1", "the platypus answer")
    refresh()
    (index_dir(tmp_path / "deja") / MANIFEST).write_bytes(b"\x00 not a manifest")
    ran = run_deja("sessions")
    assert ran.returncode == 0 and "kept in" not in ran.stderr, ran.stderr
    assert not [path for path in (tmp_path / "deja").iterdir() if path.name.startswith("index-kept-")]
