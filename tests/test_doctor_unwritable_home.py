"""``deja doctor`` flags a DEJA_HOME (or index folder) it cannot write: ``deja index`` and every refresh would fail.

Root writes a folder at mode 0555, so as root the folder it cannot write is one in /sys (a pseudo-file system
that refuses new files to root too); as another user, a folder at mode 0555. A read-only index is read by deja run
as a user that permissions stop (for root, in a user namespace: harness.as_user).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import anyio
import orjson
import pytest
from harness import ENTRY, Sample, as_user, run_deja, unwritable_folder
from mcp.server.mcpserver.exceptions import ToolError

from deja.core.index import index_dir
from deja.core.indexer import glance, refresh
from deja.core.sample import API_CHAT
from deja.core.writers.cursor_agent import transcript_path, user_turn, write_transcript
from deja.interfaces import hook_client
from deja.interfaces.mcp_server import build_server

#: A chat written after the index was: a refresh has something to write.
NEW_CHAT = "7a11e9f0-4b2c-4d8e-9f10-aa00bb11cc22"


def test_a_home_it_cannot_make_is_an_error_with_a_fix_for_the_home_alone(sample: Sample, tmp_path: Path) -> None:
    """The folder above a home not made yet is not deja's: its fix was a recursive ``chmod -R u+rwX /sys`` (``sudo
    chown -R "$USER" /var/lib`` for a user), said by doctor, ``deja index`` and every read (review42d H1)."""
    folder = unwritable_folder(tmp_path)
    home = folder / "deja"
    env = {**os.environ, "DEJA_HOME": str(home)}
    ran = run_deja("doctor", env=env)
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr
    what = f"ERROR  deja's home {home} does not exist and cannot be made in {folder} (Permission denied): no index"
    assert what in ran.stdout, ran.stdout
    fix = f"mkdir -p {home} as a user who may, and make it yours, or set DEJA_HOME to a folder you can write"
    assert f"fix: {fix}" in ran.stdout, ran.stdout  # (not `deja config set home`: DEJA_HOME wins, review42d M5)
    assert "missing" not in ran.stdout and "no index at" not in ran.stdout  # (what follows from it: review16)
    for command in (["index"], ["search", "deploy"]):  # (what doctor warns of, said the same way)
        done = run_deja(*command, env=env)
        assert (done.returncode, done.stderr) == (
            1,
            f"deja: cannot write the index in {folder} (Permission denied): deja's home {home} does not exist and "
            f"cannot be made there: {fix}\n",
        )
    report = orjson.loads(run_deja("doctor", "--json", env=env).stdout)
    assert report["healthy"] is False and report["index"]["unwritable"] == f"{folder}: Permission denied"


def test_a_cache_folder_deja_cannot_make_its_home_in_is_named_as_that(sample: Sample, tmp_path: Path) -> None:
    """With no DEJA_HOME, deja's home is made in XDG_CACHE_HOME; a cache folder not there, in a folder this user may
    not write, was "cannot read …/cache: give your user access to it", though nothing was read (fix42c): the line
    says the home cannot be made, with doctor's fix."""
    folder = unwritable_folder(tmp_path)
    home = folder / "cache" / "deja"
    env = {name: value for name, value in os.environ.items() if name != "DEJA_HOME"}
    env["XDG_CACHE_HOME"] = str(folder / "cache")
    fix = f"mkdir -p {home} as a user who may, and make it yours, or give deja another home: deja config set home DIR"
    for command in (["index"], ["search", "deploy"]):
        done = run_deja(*command, env=env)
        assert (done.returncode, done.stderr) == (
            1,
            f"deja: cannot write the index in {folder} (Permission denied): deja's home {home} does not exist and "
            f"cannot be made there: {fix}\n",
        )
    assert f"fix: {fix}" in run_deja("doctor", env=env).stdout  # (doctor's, word for word)


def test_a_home_it_can_write_is_not_flagged(indexed_sample: Sample) -> None:
    ran = run_deja("doctor", "--json")
    report = orjson.loads(ran.stdout)
    assert report["index"]["unwritable"] == ""
    assert not [p for p in report["problems"] if p["message"].startswith("cannot write")]
    assert not [p for p in Path(os.environ["DEJA_HOME"]).rglob(".doctor-probe*")]


def test_a_read_only_index_is_an_error_and_no_search_is_said_to_catch_up(indexed_sample: Sample) -> None:
    home = Path(os.environ["DEJA_HOME"])
    folders = [home, *(p for p in home.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    try:
        ran = as_user(os.environ, "doctor")
    finally:
        for folder in folders:
            folder.chmod(0o700)
    assert ran.returncode == 1
    assert f"cannot write {home} (Permission denied)" in ran.stdout
    assert "catches up" not in ran.stdout


@pytest.mark.parametrize("logged", [False, True])
def test_a_read_only_home_over_a_writable_index_names_what_stops_the_hooks(
    indexed_sample: Sample, logged: bool
) -> None:
    """deja's home read-only, its index folder not: every refresh still writes the index, but the hooks can start no
    server (its socket is made in the home) and make no hooks.log (nor a new one past 1 MiB). Doctor blamed the index
    ("`deja index` and every refresh write the index there") and said the next hook "starts one" (trial58 T7)."""
    home = Path(os.environ["DEJA_HOME"])
    if logged:
        (home / "hooks.log").write_text("")
        (home / "hooks.log").chmod(0o600)
    env = {**os.environ, hook_client.SWITCH: "1"}  # (a server is looked for: doctor starts none)
    home.chmod(0o500)
    try:
        ran = as_user(env, "doctor")
        indexed = as_user(env, "index")
    finally:
        home.chmod(0o700)
    assert ran.returncode == 1, ran.stderr
    log = (
        "start a new hooks.log once this one passes 1 MiB (then they log nothing)"
        if logged
        else "make hooks.log (they log nothing)"
    )
    said = " ".join(ran.stdout.split())  # (its lines as one, wherever the terminal's width wrapped them)
    what = (
        f"ERROR cannot write {home} (Permission denied): the hooks can neither start their server (every hook runs "
        f"in its own process) nor {log}; refreshes still write the index in {home / 'index'}"
    )
    assert what in said, ran.stdout
    server = f"hook server: not running, and none can start: no socket can be made in {home} (Permission denied)"
    assert server in said, ran.stdout
    assert "starts one" not in ran.stdout and "every refresh write the index there" not in ran.stdout
    assert " ago), up to date\n" in ran.stdout  # (not "so far", said of an index no refresh can write)
    assert indexed.returncode == 0, indexed.stderr  # what doctor says still works does


def test_a_folder_another_user_owns_is_given_back_with_chown_and_a_full_disk_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `sudo deja index` the index is root's, and only its owner may chmod it (trialL D1); a full disk is not
    a permission problem (trialL D2)."""
    import errno

    from deja.core.private import access_fix
    from deja.interfaces.fastpath import unwritable

    mine, theirs = tmp_path / "mine", tmp_path / "their index"
    mine.mkdir()
    theirs.mkdir()
    assert access_fix(mine) == f"chmod -R u+rwX {mine}"
    if os.getuid() == 0:  # (only root may give a folder away; as another user, the check below needs root's folder)
        os.chown(theirs, 4242, 4242)
        assert access_fix(theirs) == f"sudo chown -R \"$USER\" '{theirs}'"
    monkeypatch.setenv("DEJA_HOME", str(tmp_path))
    full = unwritable(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "index" / "seg.tmp")))
    assert "No space left on device" in full and "free space on that disk" in full and "writable" not in full


def test_a_disk_too_full_to_refresh_is_a_warning_with_the_fix(indexed_sample: Sample) -> None:
    # trialL D2: with its disk full every `deja index` failed, and doctor said a search would catch up. The home is
    # copied onto a small file system (a tmpfs mounted in a mount namespace of its own) then filled.
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("mounts a small file system: needs root and unshare")
    disk = Path(os.environ["DEJA_HOME"]).parent / "small-disk"
    disk.mkdir()
    script = (
        'mount -t tmpfs -o size=16m tmpfs "$0" && cp -a "$DEJA_HOME" "$0/home" && head -c 15000000 /dev/zero > '
        '"$0/filler" && DEJA_HOME="$0/home" exec "$@"'
    )
    ran = subprocess.run(["unshare", "-m", "sh", "-c", script, str(disk), *ENTRY, "doctor", "--json"], capture_output=True, text=True, timeout=120)  # fmt: skip
    if "mount" in ran.stderr and "deja" not in ran.stderr:
        pytest.skip(f"cannot mount a file system here: {ran.stderr.strip()}")
    assert "Traceback" not in ran.stderr, ran.stderr
    index = disk / "home" / "index"
    [low] = [p for p in orjson.loads(ran.stdout)["problems"] if "free on the disk" in p["message"]]
    assert low["level"] == "warn" and low["message"].startswith("only ")
    assert f"free on the disk that holds {index}: `deja index` and searches may fail" in low["message"]
    assert low["fix"] == f"free space on the disk that holds {index}, then run deja index"
    normal = orjson.loads(run_deja("doctor", "--json").stdout)["problems"]
    assert not [p for p in normal if "free on the disk" in p["message"]]  # (the test machine's own disk has room)


def test_doctor_with_deja_home_a_file_says_so_and_gives_the_whole_report(fake_home: Path, tmp_path: Path) -> None:
    """``DEJA_HOME`` naming a file: ``deja doctor`` printed no report, only ``InstallError: …/installed.json: cannot
    read it`` of a file that is not there (trial12 F5)."""
    afile = tmp_path / "afile"
    afile.write_text("")
    ran = run_deja("doctor", env={**os.environ, "DEJA_HOME": str(afile)})
    assert ran.returncode == 1 and "InstallError" not in ran.stdout + ran.stderr, ran.stderr
    assert f"deja's home {afile} is a file, not a folder" in ran.stdout and "Wiring" in ran.stdout, ran.stdout


@pytest.mark.parametrize("below", ["", "sub"])
def test_doctor_with_deja_home_in_a_file_names_that_alone_with_a_fix_that_works(
    fake_home: Path, tmp_path: Path, below: str
) -> None:
    """``DEJA_HOME`` naming a file also said ``no index at <file>/index``, fix ``deja index``, offered ``deja config
    set home <file>`` (which deja refuses) and could not check the wiring for the install ledger it looked for in
    the file; with the file above ``DEJA_HOME`` nothing said the home could not be made (review14 R14-3)."""
    afile = tmp_path / "afile"
    afile.write_text("")
    home = afile / below if below else afile
    env = {**os.environ, "DEJA_HOME": str(home)}
    report = orjson.loads(run_deja("doctor", "--json", env=env).stdout)
    made = "is a file, not a folder" if not below else f"cannot be made: {afile} is a file"
    assert [(p["level"], p["area"], p["message"], p["fix"]) for p in report["problems"] if p["level"] == "error"] == [
        (
            "error",
            "index",
            f"deja's home {home} {made}: the index cannot be kept in it",
            "point DEJA_HOME at a folder, or unset it",
        )
    ], report["problems"]
    assert report["index"]["unwritable"] == f"{afile}: not a folder"
    setting = [p for p in report["problems"] if p["area"] == "settings"]
    assert [p["fix"] for p in setting] == [""] and "DEJA_HOME is set in this shell" in setting[0]["message"], setting
    assert run_deja("config", "set", "home", str(home), env=env).returncode == 2  # (the fix doctor no longer offers)
    printed = run_deja("doctor", env=env).stdout
    assert "fix: deja index" not in printed and "installed.json" not in printed, printed
    lines = printed.splitlines()  # (the home's error alone under Index: no "<file>/index: missing" above it)
    assert lines[lines.index("Index") + 1 : lines.index("Wiring") - 1] == [f"  ERROR  deja's home {home} {made}: the index cannot be kept in it", "         fix: point DEJA_HOME at a folder, or unset it"], printed  # fmt: skip
    installed = run_deja("install", "cursor", env=env)  # (it wired in hooks and a server that could answer nothing)
    assert installed.returncode == 1 and f"deja: {home}: deja's home " in installed.stderr, installed.stderr
    assert "point DEJA_HOME (or `deja config set home`) at a folder" in installed.stderr
    assert not (fake_home / ".cursor" / "mcp.json").exists()


def test_a_home_the_config_file_names_in_a_file_is_fixed_there(fake_home: Path, tmp_path: Path) -> None:
    """Set in the config file (edited by hand: ``deja config set`` refuses it), the fix is ``deja config set``: the
    variable's fix would change nothing."""
    afile = tmp_path / "afile"
    afile.write_text("")
    config = fake_home / ".config" / "deja" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'home = "{afile}"\n')
    env = {key: value for key, value in os.environ.items() if key != "DEJA_HOME"}
    report = orjson.loads(run_deja("doctor", "--json", env=env).stdout)
    assert [p["fix"] for p in report["problems"] if p["level"] == "error"] == [
        "deja config set home DIR (a folder), or deja config unset home"
    ], report["problems"]


def test_doctor_in_a_shell_pointed_at_a_kept_demo_says_so(fake_home: Path) -> None:
    """``deja demo --keep`` prints exports that point a shell at the sample; ``deja doctor`` there offered to keep
    them (``deja config set home /tmp/deja-demo-…``), which would mix the sample into the person's own shells and
    point Cursor's hooks at a temporary folder (trial12 F1)."""
    import tempfile

    demo = Path(tempfile.mkdtemp(prefix="deja-demo-"))
    try:
        (demo / "deja").mkdir()
        ran = run_deja("doctor", env={**os.environ, "DEJA_HOME": str(demo / "deja")})
        assert f"DEJA_HOME points at a `deja demo --keep` sample ({demo / 'deja'})" in ran.stdout, ran.stdout
        assert "deja config set home" not in ran.stdout
    finally:
        shutil.rmtree(demo)


def test_an_index_folder_that_is_a_file_is_one_error_with_a_fix_that_works(
    sample: Sample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``<home>/index`` a file: doctor said "no index … fix: deja index", and ``deja index`` then failed asking
    whether DEJA_HOME is writable (review18 R18-1). Both name the file and say to move it aside, which works."""
    home = tmp_path / "deja"
    home.mkdir()
    (home / "index").write_text("not a folder\n")
    env = {**os.environ, "DEJA_HOME": str(home)}
    ran = run_deja("doctor", env=env)
    assert ran.returncode == 1, ran.stderr
    assert f"ERROR  deja's index folder {home / 'index'} is a file, not a folder" in ran.stdout
    assert f"fix: move {home / 'index'} aside (deja makes its index there)" in ran.stdout
    assert "missing" not in ran.stdout and "no index" not in ran.stdout, ran.stdout
    report = orjson.loads(run_deja("doctor", "--json", env=env).stdout)
    assert report["index"]["unwritable"] == f"{home / 'index'}: not a folder"
    indexed = run_deja("index", env=env)
    assert (indexed.returncode, indexed.stderr) == (
        1,
        f"deja: cannot write the index: {home / 'index'} is a file, not a folder: move it aside (deja makes its index "
        "there)\n",
    )
    monkeypatch.setenv("DEJA_HOME", str(home))  # (the MCP server said "Permission denied … is DEJA_HOME writable?")
    server = build_server()

    async def call() -> str:
        with pytest.raises(ToolError) as refused:
            await server.call_tool("search", {"query": "deploy"})
        return str(refused.value)

    assert f"cannot write the index: {home / 'index'} is a file, not a folder: move it aside" in anyio.run(call)
    (home / "index").rename(home / "index.aside")
    assert run_deja("index", env=env).returncode == 0


def test_an_index_folder_that_is_a_link_leading_nowhere_is_named_with_where_it_leads(
    sample: Sample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``<home>/index`` a link that leads nowhere: the CLI asked "is DEJA_HOME writable?" (``…/index/.lock: No such
    file or directory``), the MCP server the same with "Not a directory", doctor said "no index … fix: deja index",
    which failed (review20 R20-9). All three name the link and where it leads, and nothing is made through it."""
    home = tmp_path / "deja"
    home.mkdir()
    nowhere = tmp_path / "gone" / "index"
    (home / "index").symlink_to(nowhere)
    env = {**os.environ, "DEJA_HOME": str(home)}
    said = f"{home / 'index'} is a link to {nowhere}, which leads nowhere"
    ran = run_deja("doctor", env=env)
    assert ran.returncode == 1, ran.stderr
    assert f"ERROR  deja's index folder {said}: no index is kept" in ran.stdout, ran.stdout
    assert "fix: remove the link, or make the folder it leads to" in ran.stdout
    assert "no index at" not in ran.stdout and "fix: deja index" not in ran.stdout, ran.stdout
    for command in (["index"], ["search", "deploy"]):
        done = run_deja(*command, env=env)
        assert (done.returncode, done.stderr) == (
            1,
            f"deja: cannot write the index: {said}: remove the link, or make the folder it leads to\n",
        )
    monkeypatch.setenv("DEJA_HOME", str(home))
    server = build_server()

    async def call() -> str:
        with pytest.raises(ToolError) as refused:
            await server.call_tool("recent", {})
        return str(refused.value)

    assert f"cannot write the index: {said}: remove the link" in anyio.run(call)
    assert not (tmp_path / "gone").exists(), "nothing is made where the link leads"
    nowhere.mkdir(parents=True)
    assert run_deja("index", env=env).returncode == 0


def test_a_home_the_config_file_names_that_cannot_be_made_is_given_another_there(
    sample: Sample, tmp_path: Path, fake_home: Path
) -> None:
    """Named by the config file, not DEJA_HOME, the other home is set with ``deja config set home``, which wins over
    the file (with DEJA_HOME set it would change nothing: review42d M5)."""
    home = unwritable_folder(tmp_path) / "deja"
    config = fake_home / ".config" / "deja" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'home = "{home}"\n')
    env = {key: value for key, value in os.environ.items() if key != "DEJA_HOME"}
    done = run_deja("index", env=env)
    assert done.returncode == 1, done.stderr
    assert done.stderr.endswith("make it yours, or give deja another home: deja config set home DIR\n"), done.stderr


def test_config_set_home_refuses_a_folder_deja_cannot_write(sample: Sample, tmp_path: Path) -> None:
    """``deja config set home`` stored a folder deja could not write, and then every command failed, the hooks and
    the MCP server fell silent (trial13 F7): it is refused like a file is, and nothing is stored."""
    folder = unwritable_folder(tmp_path)
    done = run_deja("config", "set", "home", str(folder / "deja"))
    assert (done.returncode, done.stdout) == (2, ""), done.stdout
    assert done.stderr == f"deja: home: deja cannot write in {folder} (Permission denied); give a folder it may write in\n"  # fmt: skip
    assert orjson.loads(run_deja("config", "--json").stdout)["settings"]["home"]["source"] != "file"


def test_config_set_home_refuses_a_link_that_leads_nowhere(sample: Sample, tmp_path: Path) -> None:
    """A dangling link was stored as the home, and ``deja index`` then failed with "No such file or directory"
    (review21 R21-2)."""
    link = tmp_path / "home-link"
    link.symlink_to(tmp_path / "gone")
    done = run_deja("config", "set", "home", str(link))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"deja: home: {link} is a link to {tmp_path / 'gone'}, which leads nowhere; give a folder\n"


def test_config_set_home_refuses_a_link_that_loops(sample: Sample, tmp_path: Path) -> None:
    """A link that leads back to itself was stored as the home, and every command then failed with "Too many levels
    of symbolic links" (review23 R23-1); a relative link is named where it leads, without ``..``."""
    (tmp_path / "links").mkdir()
    loop = tmp_path / "links" / "loop"
    loop.symlink_to("../links/loop")
    done = run_deja("config", "set", "home", str(loop))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"deja: home: {loop} is a link to {loop}, which leads nowhere; give a folder\n"
    assert orjson.loads(run_deja("config", "--json").stdout)["settings"]["home"]["source"] != "file"


def test_an_index_folder_that_is_a_looping_link_is_told_to_go(sample: Sample, tmp_path: Path) -> None:
    """A looping ``<home>/index`` link leads nowhere, and no folder can be made where it leads: the fix is to remove
    it, not "make the folder it leads to" (``mkdir`` says the file exists: review25 R25-4)."""
    home = tmp_path / "deja"
    home.mkdir()
    (home / "index").symlink_to(home / "index")
    env = {**os.environ, "DEJA_HOME": str(home)}
    said = f"{home / 'index'} is a link to {home / 'index'}, which leads nowhere"
    ran = run_deja("doctor", env=env)
    assert f"ERROR  deja's index folder {said}: no index is kept" in ran.stdout, ran.stdout
    assert "fix: remove the link\n" in ran.stdout and "make the folder" not in ran.stdout, ran.stdout
    done = run_deja("index", env=env)
    assert (done.returncode, done.stderr) == (1, f"deja: cannot write the index: {said}: remove the link\n")


def test_an_index_folder_it_cannot_write_is_named_with_doctors_fix(indexed_sample: Sample) -> None:
    """A read-only index folder: `deja index` named a temporary file and asked "is DEJA_HOME writable?" of a home
    that was, and a search's stderr line named a segment never made (trial23 F3). Both name the folder now, with
    the fix doctor gives for it."""
    index = indexed_sample.home / "index"
    project = str(indexed_sample.history.projects["api"])
    write_transcript(transcript_path(indexed_sample.history.cli_root, project, NEW_CHAT), [user_turn("rotate keys?")])
    index.chmod(0o500)
    try:
        indexed, searched, doctor = (
            as_user(os.environ, *args) for args in (["index"], ["search", "docker"], ["doctor"])
        )
    finally:
        index.chmod(0o700)
    fix = f"chmod -R u+rwX {index}, or set DEJA_HOME to a folder you can write"
    assert fix in doctor.stdout, doctor.stdout
    assert (indexed.returncode, indexed.stderr) == (
        1,
        f"deja: cannot write the index in {index} (Permission denied): {fix}\n",
    )
    assert searched.returncode == 0 and "docker" in searched.stdout.lower(), searched.stderr
    said = f"deja: cannot update the index in {index} (Permission denied): {fix}; answering from the index as it stands"
    assert searched.stderr == said + "\n"


def test_every_read_says_a_change_it_cannot_write_outside_the_warm_chats(sample: Sample) -> None:
    """A turn in a chat outside the warm ones, in a home this user cannot write: `deja sessions` (a whole check)
    said "cannot update the index", and a `deja search` right after, its check a warm one since sessions had dated
    the whole check in a folder nobody can write, answered silently from the stale index (trial52). With no
    date kept every check is whole, and both say it."""
    project = str(sample.history.projects["api"])
    newer = [f"0badc0de-0000-4000-8000-{n:012d}" for n in range(glance.WARM_CHATS)]
    for n, chat in enumerate(newer):  # the warm chats: written after the sample's own
        path = write_transcript(transcript_path(sample.history.cli_root, project, chat), [user_turn(f"chore {n}")])
        os.utime(path, (time.time() + n + 1,) * 2)
    refresh(sample.home)
    record = glance.load_raw(index_dir(sample.home))
    assert record is not None and set(glance._warm_chats(record["hot"])) == set(newer)
    with Path(record["hot"][API_CHAT]["transcript"]).open("ab") as f:
        f.write(orjson.dumps(user_turn("the ibex cron?")) + b"\n")
    whole_checked = index_dir(sample.home) / glance.WHOLE_STAMP  # (the file a check made before the home turned
    whole_checked.touch()  # read-only, last dated long ago)
    os.utime(whole_checked, (0, 0))
    subprocess.run(["chmod", "-R", "a-w", str(sample.home)], check=True)
    try:
        listed, searched = (as_user(os.environ, *args) for args in (["sessions"], ["search", "docker"]))
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(sample.home)], check=True)
    assert listed.returncode == 0 and "cannot update the index in" in listed.stderr, listed.stderr
    assert (searched.returncode, searched.stderr) == (0, listed.stderr)


def test_a_home_it_cannot_write_with_no_index_is_named_with_doctors_fix(sample: Sample) -> None:
    """A read-only home with no index in it: a search said "cannot write the index (…/index: Permission denied): is
    DEJA_HOME writable?" (trial23 F3)."""
    sample.home.mkdir(mode=0o555)
    try:
        searched = as_user(os.environ, "search", "docker")
    finally:
        sample.home.chmod(0o700)
    fix = f"chmod -R u+rwX {sample.home}, or set DEJA_HOME to a folder you can write"
    assert (searched.returncode, searched.stderr) == (
        1,
        f"deja: cannot write the index in {sample.home} (Permission denied): {fix}\n",
    )


def test_the_mcp_tools_name_a_home_they_cannot_write_with_doctors_fix(
    sample: Sample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's tools answer with the CLI's line: the folder and its fix, not "is DEJA_HOME writable?"
    (trial23 F3)."""
    folder = unwritable_folder(tmp_path)
    monkeypatch.setenv("DEJA_HOME", str(folder / "deja"))
    server = build_server()

    async def call() -> str:
        with pytest.raises(ToolError) as refused:
            await server.call_tool("search", {"query": "deploy"})
        return str(refused.value)

    home = folder / "deja"
    fix = f"mkdir -p {home} as a user who may, and make it yours, or set DEJA_HOME to a folder you can write"
    said = f"deja's home {home} does not exist and cannot be made there: {fix}"
    assert anyio.run(call).endswith(f": cannot write the index in {folder} (Permission denied): {said}")


def test_a_read_only_file_system_is_given_another_home_not_a_chmod(tmp_path: Path) -> None:
    """No chmod makes a read-only mount take files: doctor, `deja index` and the reads give another home alone
    (review42d M4), by DEJA_HOME, since `deja config set home` writes on that disk too (trial49 F10); a folder this
    user may not write still gets its chmod."""
    import errno

    from deja.core.private import home_fix

    home = tmp_path / "deja"
    (home / "index").mkdir(parents=True)
    assert (
        home_fix(home, str(home / "index"), os.strerror(errno.EROFS)) == "set DEJA_HOME to a folder on a writable disk"
    )
    assert home_fix(home, str(home / "index"), os.strerror(errno.EACCES)).startswith("chmod -R u+rwX ")


def test_a_home_out_of_reach_is_named_once_by_doctor_and_with_its_fix_by_install(
    fake_home: Path, tmp_path: Path
) -> None:
    """``XDG_CACHE_HOME`` at mode 000: doctor's Index error named the folder and its fix, then a Wiring error named
    ``…/deja/installed.json`` (an older deja's ledger in the home), no command, and "run the command again"; install
    said the same (review43c L3)."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("DEJA_HOME", None)
    try:
        report = orjson.loads(as_user(env, "doctor", "--json").stdout)
        installed = as_user(env, "install", "cursor")
    finally:
        cache.chmod(0o700)
    errors = [(p["area"], p["message"], p["fix"]) for p in report["problems"] if p["level"] == "error"]
    assert errors == [
        (
            "index",
            f"cannot read {cache}: permission denied (a rebuild could not write it either)",
            f"chmod u+rwx {cache}",
        )
    ], errors
    assert (installed.returncode, installed.stdout) == (1, "")
    assert installed.stderr == (
        f"deja: {cache}: deja's home {cache}/deja cannot be reached (permission denied); chmod u+rwx {cache}, then run "
        "the command again\n"
    )
    assert not (fake_home / ".cursor" / "mcp.json").exists()


def test_a_cache_folder_of_this_users_at_555_is_given_a_chmod(sample: Sample, tmp_path: Path) -> None:
    """review43c L5: ``XDG_CACHE_HOME`` at 555, this user's, with no deja home in it yet, was told "mkdir -p …/deja
    as a user who may, and make it yours", where ``chmod u+w`` of the folder is the fix to paste."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o555)
    env = {name: value for name, value in os.environ.items() if name != "DEJA_HOME"}
    env["XDG_CACHE_HOME"] = str(cache)
    try:
        done = as_user(env, "index")
        doctor = as_user(env, "doctor")
    finally:
        cache.chmod(0o700)
    fix = f"chmod u+w {cache}, or give deja another home: deja config set home DIR"
    assert (done.returncode, done.stderr) == (
        1,
        f"deja: cannot write the index in {cache} (Permission denied): deja's home {cache / 'deja'} does not exist "
        f"and cannot be made there: {fix}\n",
    )
    assert f"fix: {fix}" in doctor.stdout, doctor.stdout


def test_a_home_made_read_only_by_its_modes_is_given_deja_home_not_config_set(fake_home: Path) -> None:
    """A whole HOME made read-only by its modes (``chmod -R a-w ~``): ``deja index`` and doctor offered ``deja config
    set home DIR`` as the other way out, whose file under ``~/.config/deja`` cannot be written either (trial52 F3);
    they name DEJA_HOME instead, and keep ``config set`` where deja's config folder takes files."""
    env = {name: value for name, value in os.environ.items() if name != "DEJA_HOME"}
    write_transcript(transcript_path(fake_home / ".cursor", "/work/app", "b1"), [user_turn("narwhal?")])
    (fake_home / ".config" / "deja").mkdir(parents=True)
    assert as_user(env, "index").returncode == 0
    write_transcript(transcript_path(fake_home / ".cursor", "/work/app", NEW_CHAT), [user_turn("walrus?")])
    chmod = f"chmod -R u+rwX {fake_home / '.cache' / 'deja'}"
    read_only = [path for path in (fake_home, *fake_home.rglob("*")) if path.is_dir()]
    for folder in read_only:
        folder.chmod(0o555)
    try:
        done = as_user(env, "index")
        assert done.returncode == 1 and done.stderr.endswith(f"{chmod}, or give deja another home: set DEJA_HOME=DIR\n")
        doctor = " ".join(as_user(env, "doctor").stdout.split())
        assert f"fix: {chmod}, or give deja another home: set DEJA_HOME=DIR" in doctor and "config set" not in doctor
        assert (
            as_user(env, "config", "set", "home", "/tmp/elsewhere").returncode == 1
        )  # (what it offered could not work)
        (fake_home / ".config" / "deja").chmod(0o755)  # (deja's config folder takes files again)
        done = as_user(env, "index")
        assert done.stderr.endswith(f"{chmod}, or give deja another home: deja config set home DIR\n"), done.stderr
    finally:
        for folder in read_only:
            folder.chmod(0o755)
