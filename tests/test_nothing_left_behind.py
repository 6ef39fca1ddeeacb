"""Reading Cursor's SQLite files leaves no file in Cursor's folders, and still reads the newest turn.

Stores are written in WAL mode by the project's writers; the newest turn is then
appended the way cursor-agent appends one (a new blob, a new root, the meta row
pointed at it), and left in the ``-wal`` where the case needs it: by a writer
that is still open, by one that crashed, by one whose ``-shm`` is gone.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
from harness import run_deja

from deja.core.readers import vscdb
from deja.core.readers.chatstore import read_store, root_children
from deja.core.readers.ide import CHANGED_WHILE_READ, read_ide_database
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    encode_root,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)
from deja.core.writers.ide import bubble_key, composer_key, encode_value, write_state_vscdb

CWD = "/home/dev/api"
NEWEST = "zebracorn migration answered"
LIVE_COMPOSER = {
    "_v": 10,
    "composerId": "live",
    "name": "Written while open",
    "createdAt": 1_760_000_000_000,
    "lastUpdatedAt": 1_760_000_060_000,
    "fullConversationHeadersOnly": [{"bubbleId": "b1", "type": 1}],
}


def _listing(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``folder``: its size and, for all but a ``-shm`` (SQLite's shared memory), its bytes."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, b"" if path.name.endswith("-shm") else path.read_bytes())
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _store_chat(cli_root: Path, chat_id: str = "c1") -> Path:
    """A store-only chat (no transcript) in WAL mode, closed cleanly: no ``-wal`` or ``-shm`` beside it."""
    chat_dir = chat_dir_for(cli_root, CWD, chat_id)
    messages = [*store_preamble(CWD), store_user_message("migrate the schema"), store_assistant_message("Working.")]
    write_chat_store(chat_dir, cwd=CWD, messages=messages, name="Schema migration")
    store_db = chat_dir / "store.db"
    assert not Path(f"{store_db}-wal").exists() and not Path(f"{store_db}-shm").exists()
    return store_db


def _append_turn(db: sqlite3.Connection, text: str) -> None:
    """Append one assistant message as cursor-agent does: its blob, a new root listing it, the meta row moved on."""
    row = db.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]
    meta = orjson.loads(bytes.fromhex(row))
    root = db.execute("SELECT data FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()[0]
    message = orjson.dumps(store_assistant_message(text))
    children = [*root_children(root), hashlib.sha256(message).hexdigest()]
    new_root = encode_root(children, cwd=CWD)
    meta["latestRootBlobId"] = hashlib.sha256(new_root).hexdigest()
    with db:
        db.executemany(
            "INSERT OR REPLACE INTO blobs (id, data) VALUES (?, ?)",
            [(children[-1], message), (meta["latestRootBlobId"], new_root)],
        )
        db.execute("UPDATE meta SET value = ? WHERE key = '0'", (orjson.dumps(meta).hex(),))


def _crash_after_appending(store_db: Path, text: str) -> None:
    """What a writer that appended a turn and died before any checkpoint leaves: the ``-wal`` and ``-shm`` stay.

    The three files are taken while the writer is open and put back after it closed.
    """
    names = [store_db, Path(f"{store_db}-wal"), Path(f"{store_db}-shm")]
    with _open_writer(store_db) as writer:
        _append_turn(writer, text)
        image = [path.read_bytes() for path in names]
    for path, data in zip(names, image, strict=True):
        path.write_bytes(data)


def _in_another_process(db: Path, code: str, *args: str) -> None:
    """``code`` run by another process as cursor-agent or Cursor would, with ``db`` open as ``writer`` (then closed).

    Another process, because POSIX locks are per process: a writer in this one would share deja's locks.
    """
    script = (
        "import sqlite3, sys\n"
        "from test_nothing_left_behind import _append_turn\n"
        f"writer = sqlite3.connect(sys.argv[1])\n{code}\nwriter.close()\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db), *args], cwd=Path(__file__).parent, check=True, timeout=60)


@contextmanager
def _open_writer(store_db: Path) -> Iterator[sqlite3.Connection]:
    """cursor-agent still running: a connection that has appended and not checkpointed."""
    db = sqlite3.connect(store_db)
    try:
        db.execute("PRAGMA wal_autocheckpoint=0")
        yield db
    finally:
        db.close()


def _env(tmp_path: Path, cli_root: Path, ide_root: Path | None = None) -> dict[str, str]:
    for root in (tmp_path / "no-ide", tmp_path / "no-cli"):
        root.mkdir(exist_ok=True)
    return {
        **os.environ,
        "DEJA_CURSOR_ROOT": str(ide_root or tmp_path / "no-ide"),
        "DEJA_CURSOR_CLI_ROOT": str(cli_root),
        "DEJA_HOME": str(tmp_path / "deja"),
    }


def _index_and_find(env: dict[str, str], word: str) -> str:
    indexed = run_deja("index", env=env)
    assert indexed.returncode == 0, indexed.stderr
    found = run_deja("search", word, "--json", env=env)
    assert found.returncode == 0, found.stderr
    return found.stdout


def test_a_store_closed_cleanly_is_read_and_no_wal_or_shm_appears(tmp_path: Path) -> None:
    cli_root = tmp_path / "cursor"
    store_db = _store_chat(cli_root)
    before = _listing(cli_root)
    assert "Schema migration" in _index_and_find(_env(tmp_path, cli_root), "migrate")
    assert _listing(cli_root) == before
    assert not Path(f"{store_db}-shm").exists()


def test_a_turn_a_live_writer_left_in_the_wal_is_read_and_the_folder_is_unchanged(tmp_path: Path) -> None:
    cli_root = tmp_path / "cursor"
    store_db = _store_chat(cli_root)
    with _open_writer(store_db) as writer:
        _append_turn(writer, NEWEST)
        assert Path(f"{store_db}-wal").stat().st_size > 0
        before = _listing(cli_root)
        assert "Schema migration" in _index_and_find(_env(tmp_path, cli_root), "zebracorn")
        assert _listing(cli_root) == before


def test_a_turn_a_crashed_writer_left_in_the_wal_is_read_and_the_folder_is_unchanged(tmp_path: Path) -> None:
    cli_root = tmp_path / "cursor"
    store_db = _store_chat(cli_root)
    _crash_after_appending(store_db, NEWEST)
    assert Path(f"{store_db}-wal").stat().st_size > 0 and Path(f"{store_db}-shm").exists()
    before = _listing(cli_root)
    assert "Schema migration" in _index_and_find(_env(tmp_path, cli_root), "zebracorn")
    assert _listing(cli_root) == before


def test_a_wal_without_its_shm_is_read_from_a_private_copy(tmp_path: Path) -> None:
    cli_root = tmp_path / "cursor"
    store_db = _store_chat(cli_root)
    _crash_after_appending(store_db, NEWEST)
    Path(f"{store_db}-shm").unlink()
    before = _listing(cli_root)
    assert "Schema migration" in _index_and_find(_env(tmp_path, cli_root), "zebracorn")
    assert _listing(cli_root) == before
    assert not Path(f"{store_db}-shm").exists()


def test_a_wal_mode_state_vscdb_leaves_nothing_behind_closed_or_open(tmp_path: Path) -> None:
    ide_root = tmp_path / "Cursor" / "User"
    db = write_state_vscdb(
        ide_root / "globalStorage" / "state.vscdb",
        composers={},
        bubbles={},
    )
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    before = _listing(ide_root)
    env = _env(tmp_path, tmp_path / "no-cli", ide_root)
    assert run_deja("index", env=env).returncode == 0
    assert _listing(ide_root) == before

    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        with writer:
            writer.executemany(
                "INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)",
                [
                    (composer_key("live"), encode_value(LIVE_COMPOSER)),
                    (bubble_key("live", "b1"), encode_value({"type": 1, "text": "zebracorn in the wal"})),
                ],
            )
        before = _listing(ide_root)
        assert "Written while open" in _index_and_find(env, "zebracorn")
        assert _listing(ide_root) == before
    finally:
        writer.close()


def test_an_immutable_read_is_trusted_only_while_no_writer_appeared(tmp_path: Path) -> None:
    store_db = _store_chat(tmp_path / "cursor")
    conn = vscdb.connect_read_only(store_db)
    try:
        assert conn.still_whole()
        _in_another_process(store_db, f"_append_turn(writer, {NEWEST!r})")
        assert not conn.still_whole()  # a writer came and went: its -wal stays while deja holds the read
    finally:
        conn.close()
    assert read_store(store_db).messages[-1].text == NEWEST


def test_a_read_a_writer_came_through_is_read_again_through_cursors_locking(tmp_path: Path) -> None:
    store_db = _store_chat(tmp_path / "cursor")
    reads: list[str] = []

    def newest_turn_named(db: vscdb.CursorConnection) -> str:
        reads.append(db.path.name)
        if len(reads) == 1:  # cursor-agent answers while deja reads, and exits
            _in_another_process(store_db, f"_append_turn(writer, {NEWEST!r})")
        meta = orjson.loads(bytes.fromhex(db.execute("SELECT value FROM meta").fetchone()[0]))
        root = db.execute("SELECT data FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()[0]
        newest = db.execute("SELECT data FROM blobs WHERE id = ?", (root_children(root)[-1],)).fetchone()[0]
        return orjson.loads(newest)["content"][-1]["text"]

    assert vscdb.read_whole(store_db, newest_turn_named) == NEWEST
    assert len(reads) == 2
    # The writer could not checkpoint and remove its -wal while deja read: they are Cursor's, as after any shared use.
    assert Path(f"{store_db}-wal").exists()


def test_an_editor_database_written_while_its_chats_stream_out_is_counted(tmp_path: Path) -> None:
    bubble = {"type": 1, "text": "first"}
    db = write_state_vscdb(
        tmp_path / "state.vscdb",
        composers={
            "a": {**LIVE_COMPOSER, "composerId": "a", "name": "A"},
            "b": {**LIVE_COMPOSER, "composerId": "b", "name": "B"},
        },
        bubbles={"a": {"b1": bubble}, "b": {"b1": bubble}},
    )
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    problems: Counter[str] = Counter()
    sessions = read_ide_database(db, problems=problems)
    assert next(sessions).title == "A"
    renamed = encode_value({**LIVE_COMPOSER, "composerId": "b", "name": "B renamed"})
    _in_another_process(  # Cursor starts, renames b and closes while deja is between two chats
        db,
        "with writer: writer.execute('UPDATE cursorDiskKV SET value = ? WHERE key = ?', (sys.argv[2], sys.argv[3]))",
        renamed,
        composer_key("b"),
    )
    assert len(list(sessions)) == 1
    assert problems == Counter({CHANGED_WHILE_READ: 1})


def test_a_read_killed_while_it_holds_a_copy_leaves_it_only_in_dejas_home_and_the_next_refresh_removes_it(
    tmp_path: Path,
) -> None:
    """The copy (raw: Cursor's bytes, secrets and all, as big as the database) was made in ``$TMPDIR`` and a killed
    read left it there for good."""
    cli_root = tmp_path / "cursor"
    store_db = _store_chat(cli_root)
    _crash_after_appending(store_db, NEWEST)
    Path(f"{store_db}-shm").unlink()
    before = _listing(cli_root)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**_env(tmp_path, cli_root), "TMPDIR": str(temporary)}
    killed = run_deja("index", env={**env, "DEJA_FAULT": "database-copied"})
    assert killed.returncode == -9
    copies = tmp_path / "deja" / vscdb.COPIES
    assert list(temporary.iterdir()) == []
    left = list(copies.iterdir())
    assert len(left) == 1 and (left[0] / store_db.name).exists()
    assert {oct(path.stat().st_mode & 0o777) for path in [copies, *left]} == {"0o700"}
    assert "Schema migration" in _index_and_find(env, "zebracorn")
    assert list(copies.iterdir()) == [] and list(temporary.iterdir()) == []
    assert _listing(cli_root) == before


def test_a_copy_an_older_version_left_in_tmpdir_is_removed_by_the_next_walk_and_nothing_else_is(
    tmp_path: Path,
) -> None:
    """Before copies moved under DEJA_HOME, a killed read left ``$TMPDIR/deja-read-*``: Cursor's raw bytes, for good.

    An hour-old one goes; a fresh one (an older deja may be reading right now) and a link of that name stay.
    """
    cli_root = tmp_path / "cursor"
    _store_chat(cli_root)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    old, fresh = temporary / "deja-read-k2j4", temporary / "deja-read-p9q1"
    for folder in (old, fresh):
        folder.mkdir()
        (folder / "state.vscdb").write_bytes(b"SQLite format 3\x00 sk-live secret")
    elsewhere = tmp_path / "someone-elses"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("kept")
    (temporary / "deja-read-link").symlink_to(elsewhere)
    two_hours_ago = time.time() - 7200
    for path in (old / "state.vscdb", old):
        os.utime(path, (two_hours_ago, two_hours_ago))
    os.utime(temporary / "deja-read-link", (two_hours_ago, two_hours_ago), follow_symlinks=False)
    env = {**_env(tmp_path, cli_root), "TMPDIR": str(temporary)}
    assert run_deja("index", env=env).returncode == 0
    assert sorted(path.name for path in temporary.iterdir()) == ["deja-read-link", "deja-read-p9q1"]
    assert (elsewhere / "keep.txt").read_text() == "kept"
