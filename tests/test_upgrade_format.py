"""An index written by a deja of another index format (an upgrade): doctor says so rather than "damaged", and a
rebuild that cannot read a store then says the truth about that store's sessions (trialJ F3, F2).

The rebuild cannot read the older index, so it cannot carry the sessions of a store it cannot read this time over
from it: it keeps that index aside (``index-kept-*``), says the sessions are missing until the store reads again and
where the older index is, and doctor warns while the kept folder is there.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any

import orjson
from harness import ENTRY, Sample, as_format_wrote_it, console_script, locked, path_with, run_deja
from test_rebuild_keeps_unread import _store_chat

from deja.core.index import FORMAT_VERSION, MANIFEST, index_dir
from deja.core.indexer import LOCK_NAME, refresh
from deja.core.indexer.lock import WriterLock
from deja.installers import install, wiring_report
from deja.installers.wiring import other_deja_wired


def _as_an_older_deja_wrote_it(home: Path) -> None:
    """The manifest as a deja of the previous index format wrote it."""
    as_format_wrote_it(home, FORMAT_VERSION - 1)


def _doctor(env: dict[str, str] | None = None) -> dict[str, Any]:
    ran = run_deja("doctor", "--json", env=env)
    assert ran.stdout, ran.stderr
    return orjson.loads(ran.stdout)


def test_doctor_calls_an_older_index_older_not_damaged(indexed_sample: Sample) -> None:
    _as_an_older_deja_wrote_it(indexed_sample.home)

    report = _doctor()
    assert report["index"]["state"] == "older"
    index = [p for p in report["problems"] if p["area"] == "index"]
    assert len(index) == 1 and index[0]["level"] == "warn", index
    assert "built by an older deja" in index[0]["message"] and "damaged" not in index[0]["message"]
    assert index[0]["fix"].startswith("deja index")
    text = run_deja("doctor").stdout
    assert "built by an older deja" in text and "damaged" not in text


def test_a_format_upgrade_that_cannot_read_a_store_says_its_sessions_are_missing(
    cli_root: Path, tmp_path: Path
) -> None:
    store = _store_chat(cli_root, "s1", "the platypus answer")
    _store_chat(cli_root, "s2", "the wombat answer")
    refresh()
    _as_an_older_deja_wrote_it(tmp_path / "deja")

    with locked(store):
        ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    kept = [path for path in (tmp_path / "deja").iterdir() if path.name.startswith("index-kept-")]
    assert len(kept) == 1, ran.stderr
    said = [line for line in ran.stderr.splitlines() if "could not be read this time" in line]
    assert len(said) == 1, ran.stderr
    assert "before is kept" not in said[0], "nothing of that store was carried over: it is not kept"
    assert "lacks its sessions until it is read again" in said[0] and str(kept[0]) in said[0], said[0]

    report = _doctor()
    warned = [p for p in report["problems"] if str(kept[0]) in p["message"]]
    assert len(warned) == 1 and warned[0]["level"] == "warn", report["problems"]
    assert "missing from the index" in warned[0]["message"] and f"then rm -r {kept[0]}" in warned[0]["fix"]


def test_every_later_run_that_still_cannot_read_the_store_says_what_is_missing(indexed_sample: Sample) -> None:
    """The editor's database damaged across the upgrade: no run claims its sessions are kept while only the folder
    the rebuild kept aside may hold them."""
    _as_an_older_deja_wrote_it(indexed_sample.home)
    database = indexed_sample.history.ide_root / "globalStorage" / "state.vscdb"
    with database.open("r+b") as handle:
        handle.write(b"garbage")

    runs = [run_deja("index"), run_deja("index")]
    kept = [path for path in indexed_sample.home.iterdir() if path.name.startswith("index-kept-")]
    assert len(kept) == 1
    for ran in runs:
        said = [line for line in ran.stderr.splitlines() if str(database) in line]
        assert ran.returncode == 0 and len(said) == 1, ran.stderr
        assert "before is kept" not in said[0] and str(kept[0]) in said[0], said[0]


def test_a_format_upgrade_with_a_folder_in_a_stores_place_says_its_sessions_are_missing(
    cli_root: Path, tmp_path: Path
) -> None:
    """Something else in its place is among the stores README says cannot be read this time: the upgrade rebuild
    dropped that chat's session with no line and kept no older index aside (review7b #8)."""
    store = _store_chat(cli_root, "s1", "the platypus answer")
    _store_chat(cli_root, "s2", "the wombat answer")
    refresh()
    _as_an_older_deja_wrote_it(tmp_path / "deja")
    store.unlink()
    store.mkdir()

    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    kept = [path for path in (tmp_path / "deja").iterdir() if path.name.startswith("index-kept-")]
    assert len(kept) == 1, ran.stderr
    said = [line for line in ran.stderr.splitlines() if "could not be read this time" in line]
    assert len(said) == 1 and str(kept[0]) in said[0], ran.stderr


def test_an_upgrade_rebuilt_while_deja_index_waited_is_not_rebuilt_again(indexed_sample: Sample) -> None:
    """``deja index`` found the older index, then waited for the writer lock while another process (the hooks'
    ingest) rebuilt it: it rebuilt the whole history a second time (trialN F8). Once it holds the lock it looks again,
    and finds nothing to mend."""
    manifest = index_dir(indexed_sample.home) / MANIFEST
    current = manifest.read_bytes()
    _as_an_older_deja_wrote_it(indexed_sample.home)
    lock = WriterLock(index_dir(indexed_sample.home) / LOCK_NAME, 0)
    with lock:
        waiting = subprocess.Popen(
            [*ENTRY, "index", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert waiting.stderr is not None
        assert select.select([waiting.stderr], [], [], 60)[0], "deja index said nothing while it waited"
        said = waiting.stderr.readline()  # (once it has read the older manifest and waits for the lock)
        assert said.startswith("waiting for another deja writing the index"), said
        manifest.write_bytes(current)  # as the other process's rebuild left it
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0 and "rebuilt the index" not in err, err
    assert json.loads(out)["added"] == 0, out


def test_a_read_while_another_deja_rebuilds_an_upgraded_index_says_so_once(indexed_sample: Sample) -> None:
    """A search while the hooks' ingest rebuilt an older index printed "answering from the index as it stands"
    twice, then told the person to run `deja index`, which was running (trialN F8): one line says what goes on."""
    _as_an_older_deja_wrote_it(indexed_sample.home)
    with WriterLock(index_dir(indexed_sample.home) / LOCK_NAME, 0):
        done = run_deja("search", "docker")
    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("deja: "), done.stderr
    assert done.stderr.endswith(f"this deja reads {FORMAT_VERSION}; another deja is rebuilding it now: run this again when it is done\n")  # fmt: skip
    assert run_deja("search", "docker").returncode == 0  # once it is done (here: rebuilt by this one)


def _rebuilt_line(home: Path, *args: str, script: Path | None = None, env: dict[str, str] | None = None) -> str:
    """The line ``deja ARGS`` says as it rebuilds the index an older deja wrote at ``home``."""
    _as_an_older_deja_wrote_it(home)
    ran = run_deja(*args, script=script, env=env)
    rebuilt = [line for line in ran.stderr.splitlines() if "rebuilt the index" in line]
    assert ran.returncode == 0 and len(rebuilt) == 1, ran.stderr
    return rebuilt[0]


def test_a_rebuild_says_when_cursors_entries_run_another_deja_and_what_to_run(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """trial50 F1: an upgrade into a new venv left Cursor's hooks (and MCP server) on the old deja; the two rebuilt the
    index over each other in their formats, every hook silent, and only doctor said why. The line saying the index was
    rebuilt names what Cursor runs and the install that points it at this deja; with no entry of another deja, it
    says only the rebuild."""
    old = tmp_path / "oldvenv" / "bin" / "deja"
    old.parent.mkdir(parents=True)
    old.write_text("#!/bin/sh\nexit 0\n")
    old.chmod(0o755)
    assert "Cursor" not in _rebuilt_line(indexed_sample.home, "search", "docker")

    install("cursor-auto", deja_path=str(old))
    for verb in (["search", "docker"], ["index"]):
        said = _rebuilt_line(indexed_sample.home, *verb)
        assert said.endswith(
            f"; your Cursor hooks run {old} and Cursor's deja MCP server runs {old}, not this deja:"
            " run `deja install cursor-auto`"
        ), said


def test_a_new_deja_run_by_its_path_names_itself_and_wires_cursor_to_itself(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """An upgrade into a new venv, the old venv's ``deja`` still on PATH: the new deja, run by its path, told the
    person to run `deja install cursor-auto` (the old one, on PATH), and its own ``install`` wired Cursor to the
    deja on PATH (the old one) again. It names its own path, and its install wires Cursor to itself."""
    old = console_script(tmp_path / "oldvenv" / "bin")
    new = console_script(tmp_path / "newvenv" / "bin")
    env = {**os.environ, "PATH": path_with(old)}
    install("cursor-auto", deja_path=str(old))
    said = _rebuilt_line(indexed_sample.home, "search", "docker", script=new, env=env)
    assert said.endswith(f"not this deja: run `{new} install cursor-auto`"), said
    doctor = orjson.loads(run_deja("doctor", "--json", script=new, env=env).stdout)["problems"]
    fixes = {problem["fix"] for problem in doctor if "not this deja" in problem["message"]}
    assert fixes == {f"{new} install cursor-auto"}, fixes  # (review51a M2: `deja install …`, the old one, again)
    installed = run_deja("install", "cursor-auto", script=new, env=env)
    assert installed.returncode == 0, installed.stderr
    assert (  # (review51a L4: it said nothing of the terminal's deja, still the old one)
        f"cursor-auto: wired {new}, the deja running this; the `deja` on your PATH is another one ({old}): put "
        f"{new.parent} first on your PATH, or run deja by that path\n"
    ) in installed.stdout, installed.stdout
    assert other_deja_wired(str(new)) == ""
    assert "Cursor" not in _rebuilt_line(indexed_sample.home, "search", "docker", script=new, env=env)


def test_cursors_entries_of_this_deja_are_not_another_deja(tmp_path: Path) -> None:
    deja = tmp_path / "venv" / "bin" / "deja"
    assert other_deja_wired(str(deja)) == ""
    install("cursor-auto", deja_path=str(deja))
    assert other_deja_wired(str(deja)) == ""
    assert other_deja_wired(str(tmp_path / "newvenv" / "bin" / "deja")).startswith(f"your Cursor hooks run {deja} and")


def test_a_deja_reached_through_a_symlink_is_this_deja(tmp_path: Path) -> None:
    """review50c M3: README's install links ~/.local/bin/deja to the venv's deja, and `deja install` writes the
    link's path. The same deja started by the venv's path (an activated venv, a script) is not another deja: the
    rebuild line (and doctor) told the user to reinstall, which only flipped the entries to the other spelling."""
    real = tmp_path / "venv" / "bin" / "deja"
    real.parent.mkdir(parents=True)
    real.write_text("#!/bin/sh\nexit 0\n")
    real.chmod(0o755)
    link = tmp_path / "home" / ".local" / "bin" / "deja"
    link.parent.mkdir(parents=True)
    os.symlink(real, link)
    install("cursor-auto", deja_path=str(link))
    assert other_deja_wired(str(real)) == ""
    said = [(f.level, f.message) for f in wiring_report(str(real)) if f.level != "ok"]
    assert said == [], "\n".join(m for _, m in said)


def test_a_fifo_in_place_of_cursors_config_hangs_neither_the_rebuild_line_nor_doctor(tmp_path: Path) -> None:
    """review50c L3: ``~/.cursor/mcp.json`` (or hooks.json) a FIFO: reading it waited for a writer forever, so a
    `deja search` that rebuilt the index and `deja doctor` hung. It is read as Cursor's stores are: never blocking."""
    from deja.installers import cursor

    install("cursor-auto", deja_path=str(tmp_path / "venv" / "bin" / "deja"))
    for path in (cursor.mcp_path(), cursor.hooks_path()):
        path.unlink()
        os.mkfifo(path)
    assert other_deja_wired(str(tmp_path / "newvenv" / "bin" / "deja")) == ""
    doctor = run_deja("doctor", timeout=60)
    assert f"{cursor.mcp_path()}: cannot read it (not a regular file)" in doctor.stdout, doctor.stdout
