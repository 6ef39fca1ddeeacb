"""``deja export -o PATH`` writes PATH as a shell's ``>`` would (README: "-o FILE writes that file").

A link is written through to the file it names and stays a link; a FIFO or a device is written to as a
stream, never replaced by a regular file; a path it cannot write is one line naming it and what to do,
never the hidden temporary file's name or a Python exception's.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from harness import Sample, index_cli_root, run_deja, unwritable_folder

from deja.core.sample import API_CACHE_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.interfaces.export import index_page_name, replaceable

ID = API_CACHE_CHAT[:8]
TITLE = "# Why does the price cache return stale prices after switching the locale?"


def export(*args: str, cwd: Path) -> tuple[int, str, str]:
    ran = run_deja("export", ID, *args, cwd=cwd)
    return ran.returncode, ran.stdout, ran.stderr


def test_a_link_is_written_through_and_stays_a_link(indexed_sample: Sample, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "notes.md").write_text("my dotfile\n")
    (dotfiles / "notes.md").chmod(0o640)
    (tmp_path / "notes.md").symlink_to(dotfiles / "notes.md")
    code, _, err = export("-o", "notes.md", cwd=tmp_path)
    assert (code, err) == (0, "wrote notes.md\n")
    assert (tmp_path / "notes.md").is_symlink()
    assert (dotfiles / "notes.md").read_text().startswith(TITLE)
    assert stat.S_IMODE((dotfiles / "notes.md").stat().st_mode) == 0o640  # as `>` keeps it
    assert sorted(p.name for p in dotfiles.iterdir()) == ["notes.md"]  # no temporary file left beside it


def test_a_fifo_is_written_as_a_stream(indexed_sample: Sample, tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()), daemon=True)
    reader.start()
    code, _, err = export("-o", str(pipe), cwd=tmp_path)
    reader.join(timeout=30)
    assert (code, err) == (0, f"wrote {pipe}\n")
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert received and received[0].startswith(TITLE)


def _full_device(tmp_path: Path) -> Path:
    """A node of the device /dev/full (every write fails: no space) of the test's own, so that a writer that
    replaces what it writes replaces this one, never the system's."""
    device = tmp_path / "full"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root (and Linux's /dev/full numbers)")
    return device


def test_a_device_is_written_to_and_its_error_is_one_line(indexed_sample: Sample, tmp_path: Path) -> None:
    device = _full_device(tmp_path)
    code, _, err = export("-o", str(device), cwd=tmp_path)
    assert (code, err) == (
        1,
        f"deja: cannot write {device} (No space left on device): free space on that disk, or give -o another path\n",
    )
    assert stat.S_ISCHR(device.lstat().st_mode)


@pytest.mark.parametrize("target", ["/proc/nope.md", "/proc/version"])
def test_a_folder_it_cannot_create_in_is_one_line_naming_the_path(
    indexed_sample: Sample, tmp_path: Path, target: str
) -> None:
    """/proc makes no new file, and says "No such file or directory": of /proc/version, which is there, deja said
    just that, and sent the user to a folder that exists (trial23 F7.5). The folder's refusal is named as such."""
    code, _, err = export("-o", target, cwd=tmp_path)
    assert (code, err) == (
        1,
        f"deja: cannot write {target} (making a new file in /proc: No such file or directory): give -o a path in a "
        "folder you can write\n",
    )
    assert Path("/proc/version").read_text()  # (the file it could not replace is there, untouched)


def test_a_folder_it_cannot_write_is_one_line_naming_the_path(indexed_sample: Sample, tmp_path: Path) -> None:
    target = unwritable_folder(tmp_path) / "x.md"
    code, _, err = export("-o", str(target), cwd=tmp_path)
    assert (code, err) == (
        1,
        f"deja: cannot write {target} (making a new file in {target.parent}: Permission denied): give -o a path in "
        "a folder you can write\n",
    )


def test_a_regular_file_is_replaced_whole_keeping_its_mode(indexed_sample: Sample, tmp_path: Path) -> None:
    old = tmp_path / "old.md"
    old.write_text("before\n")
    old.chmod(0o604)
    code, _, _ = export("-o", "old.md", cwd=tmp_path)
    assert code == 0 and old.read_text().startswith(TITLE)
    assert stat.S_IMODE(old.stat().st_mode) == 0o604
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_project_export_into_a_link_writes_through_it(indexed_sample: Sample, tmp_path: Path) -> None:
    """The other -o user (``--project``) writes its files with the same writer: a link to a folder is followed."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    ran = run_deja("export", "--project", "api", "-o", "out", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert (real / "index.md").is_file() and (tmp_path / "out").is_symlink()


#: An index page of the user's in each format, where a docs folder, a vault or a site keeps one.
THEIR_PAGES = {
    "md": ("index.md", "MY OWN NOTES - do not lose\n"),
    "html": ("index.html", "<h1>My site</h1>\n"),
    "json": ("index.json", '{"title": "deja: api", "pages": []}\n'),  # (its title deja's, its shape not)
}


@pytest.mark.parametrize("fmt", sorted(THEIR_PAGES))
def test_a_project_export_never_replaces_an_index_page_of_the_users(
    indexed_sample: Sample, tmp_path: Path, fmt: str
) -> None:
    """``--project -o FOLDER`` replaced the folder's ``index.md`` (``index.html``) whoever wrote it, without a word
    (trial58 T3): it refuses, one line naming the file, before writing anything there."""
    folder = tmp_path / "vault"
    folder.mkdir()
    name, theirs = THEIR_PAGES[fmt]
    (folder / name).write_text(theirs)
    ran = run_deja("export", "--project", "api", "-f", fmt, "-o", str(folder), cwd=tmp_path)
    assert (ran.returncode, ran.stdout, ran.stderr) == (
        1,
        "",
        f"deja: {folder / name} is not an index deja wrote for api: move it aside, or give -o another folder\n",
    )
    assert (folder / name).read_text() == theirs and sorted(p.name for p in folder.iterdir()) == [name]


@pytest.mark.parametrize("fmt", sorted(THEIR_PAGES))
def test_a_second_project_export_into_its_folder_replaces_its_own_index(
    indexed_sample: Sample, tmp_path: Path, fmt: str
) -> None:
    """deja's own index page (``# deja: api``, ``<title>deja: api``, ``"title": "deja: api"``) is a refresh to
    replace: a second export into the folder works as the first did; another project's is not this export's."""
    folder = tmp_path / "out"
    for _ in range(2):
        ran = run_deja("export", "--project", "api", "-f", fmt, "-o", str(folder), cwd=tmp_path)
        assert (ran.returncode, ran.stderr) == (0, f"wrote 3 sessions and index.{fmt} to {folder}\n")
    other = run_deja("export", "--project", "web", "-f", fmt, "-o", str(folder), cwd=tmp_path)
    assert other.returncode == 1 and f"{folder / f'index.{fmt}'} is not an index deja wrote for web" in other.stderr


def test_a_project_refreshes_its_own_markdown_export_checked_out_with_crlf(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """An export folder in a repository checked out with ``core.autocrlf`` holds deja's ``index.md`` with CRLF line
    ends: it is still deja's page of this project, refreshed, not refused (review59e F9)."""
    folder = tmp_path / "out"
    first = run_deja("export", "--project", "api", "-o", str(folder), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    page = folder / "index.md"
    page.write_bytes(page.read_bytes().replace(b"\n", b"\r\n"))
    again = run_deja("export", "--project", "api", "-o", str(folder), cwd=tmp_path)
    assert (again.returncode, again.stderr) == (0, f"wrote 3 sessions and index.md to {folder}\n")
    assert b"\r\n" not in page.read_bytes()


def test_an_index_page_that_is_no_file_is_not_replaced_nor_read(indexed_sample: Sample, tmp_path: Path) -> None:
    """A FIFO named ``index.md`` is refused unread (opening it to read would wait for a writer that never comes)."""
    folder = tmp_path / "out"
    folder.mkdir()
    os.mkfifo(folder / "index.md")
    ran = run_deja("export", "--project", "api", "-o", str(folder), cwd=tmp_path)
    assert ran.returncode == 1 and "is not an index deja wrote for api" in ran.stderr, ran.stderr
    assert stat.S_ISFIFO((folder / "index.md").lstat().st_mode)


def test_a_project_of_one_session_is_said_in_the_singular(tmp_path: Path) -> None:
    """A project of one session was said as "wrote 1 sessions and index.md" (trial58 T8)."""
    project = tmp_path / "code" / "solo"
    project.mkdir(parents=True)
    cli_root = tmp_path / "cursor-agent"
    write_transcript(
        transcript_path(cli_root, str(project), "c-solo"), [user_turn("one task"), assistant_turn("Done.")]
    )
    env = index_cli_root(tmp_path, cli_root)
    ran = run_deja("export", "--project", "solo", "-o", str(tmp_path / "out"), env=env)
    assert (ran.returncode, ran.stderr) == (0, f"wrote 1 session and index.md to {tmp_path / 'out'}\n")


def test_a_second_export_of_one_project_spelt_another_way_refreshes_its_index(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """``--project api``, then ``--project .`` from the project's folder: the same sessions into the same folder, and
    its index page was refused as "not an index deja wrote for ." (its title was the argument as typed, review58d
    F4). The page names the project by its folder's name, however it was given."""
    folder = tmp_path / "out"
    first = run_deja("export", "--project", "api", "-o", str(folder), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    project = indexed_sample.history.projects["api"]
    for spelt in (".", f"{project}/"):
        again = run_deja("export", "--project", spelt, "-o", str(folder), cwd=project)
        assert again.returncode == 0, again.stderr
        assert (folder / "index.md").read_text().startswith("# deja: api\n")


def _projects(tmp_path: Path, *folders: Path) -> dict[str, str]:
    """One cursor-agent session in each of ``folders``, indexed; deja's environment pointed at them."""
    cli_root = tmp_path / "cursor-agent"
    for n, folder in enumerate(folders):
        folder.mkdir(parents=True)
        chat = [user_turn(f"task {n} in {folder.name}"), assistant_turn("Done.")]
        write_transcript(transcript_path(cli_root, str(folder), f"c-{n}"), chat)
    return index_cli_root(tmp_path, cli_root)


def test_a_project_whose_folder_has_capitals_refreshes_its_index_spelt_any_way(tmp_path: Path) -> None:
    """review59a F2: the page's title was the folder's name lowercased where a path gave it and the name as typed
    where a name did: ``--project Billing`` then ``--project .`` from ``~/code/Billing`` was refused. The page names
    the folder in its own case, as ``deja stats`` does, however it was spelt."""
    folder = tmp_path / "code" / "Billing"
    env = _projects(tmp_path, folder)
    out = tmp_path / "out"
    for spelt, cwd in (("Billing", tmp_path), (".", folder), ("billing", tmp_path), (str(folder), tmp_path)):
        again = run_deja("export", "--project", spelt, "-o", str(out), env=env, cwd=cwd)
        assert again.returncode == 0, (spelt, again.stderr)
        assert (out / "index.md").read_text().startswith("# deja: Billing\n"), spelt


def test_another_project_of_the_same_folder_name_does_not_take_over_an_export_folder(tmp_path: Path) -> None:
    """review59a F1: titled by the folder's last name alone, ``~/work/api``'s export took ``~/code/a/api``'s page for
    its own and replaced it (exit 0), leaving the first's sessions listed by no page. Each is titled as ``deja
    stats`` tells them apart, and the second is refused, its label named."""
    first, second = tmp_path / "code" / "a" / "api", tmp_path / "work" / "api"
    env = _projects(tmp_path, first, second)
    out = tmp_path / "out"
    assert run_deja("export", "--project", str(first), "-o", str(out), env=env).returncode == 0
    page = (out / "index.md").read_text()
    assert page.startswith("# deja: a/api\n"), page

    other = run_deja("export", "--project", str(second), "-o", str(out), env=env)

    assert other.returncode == 1
    assert other.stderr == (
        f"deja: {out / 'index.md'} is not an index deja wrote for work/api: move it aside, or give -o another folder\n"
    )
    assert (out / "index.md").read_text() == page


def _chats(cli_root: Path, *folders: Path) -> None:
    """One cursor-agent session in each of ``folders``."""
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        chat = [user_turn(f"task in {folder.name}"), assistant_turn("Done.")]
        write_transcript(transcript_path(cli_root, str(folder), f"c-{folder.parent.name}-{folder.name}"), chat)


def test_a_monorepo_root_does_not_take_over_the_export_folder_of_a_project_of_its_name(tmp_path: Path) -> None:
    """review59b F3: ``~/a/mono`` (its sessions in ``mono/api`` and ``mono/web``) and ``~/work/mono`` were both
    titled ``mono``, and the second's export replaced the first's page; deja's page is told by the sessions it
    lists, so another project's is refused."""
    cli_root = tmp_path / "cli"
    root, other = tmp_path / "a" / "mono", tmp_path / "work" / "mono"
    _chats(cli_root, root / "api", root / "web", other)
    env = index_cli_root(tmp_path, cli_root)
    out = tmp_path / "out"
    assert run_deja("export", "--project", str(root), "-o", str(out), env=env).returncode == 0
    page = (out / "index.md").read_text()

    second = run_deja("export", "--project", str(other), "-o", str(out), env=env)

    assert second.returncode == 1 and "is not an index deja wrote for" in second.stderr, second.stderr
    assert (out / "index.md").read_text() == page
    assert run_deja("export", "--project", str(root), "-o", str(out), env=env).returncode == 0, "its own: refreshed"


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_a_project_refreshes_its_own_export_after_another_project_of_its_name_appears(tmp_path: Path, fmt: str) -> None:
    """review59b F4: the page was titled ``api`` while ``~/code/api`` was the only ``api``; once a session ran in
    ``~/work/api`` its label became ``code/api``, and its next export into its own folder was refused."""
    cli_root = tmp_path / "cli"
    mine = tmp_path / "code" / "api"
    _chats(cli_root, mine)
    env = index_cli_root(tmp_path, cli_root)
    out = tmp_path / "out"
    assert run_deja("export", "--project", str(mine), "-f", fmt, "-o", str(out), env=env).returncode == 0
    _chats(cli_root, tmp_path / "work" / "api")
    assert run_deja("index", env=env).returncode == 0

    again = run_deja("export", "--project", str(mine), "-f", fmt, "-o", str(out), env=env)

    assert again.returncode == 0, again.stderr
    assert "deja: code/api" in (out / f"index.{fmt}").read_text()


def test_a_subproject_does_not_take_over_its_monorepo_roots_export_folder(tmp_path: Path) -> None:
    """review59e F8: a page was deja's for an export when it listed any one of its sessions, so a package's export
    replaced its monorepo root's page, which lists the package's sessions and more."""
    cli_root = tmp_path / "cli"
    root = tmp_path / "code" / "mono"
    _chats(cli_root, root / "api", root / "web")
    env = index_cli_root(tmp_path, cli_root)
    out = tmp_path / "out"
    assert run_deja("export", "--project", str(root), "-o", str(out), env=env).returncode == 0
    page = (out / "index.md").read_text()

    second = run_deja("export", "--project", str(root / "api"), "-o", str(out), env=env)

    assert second.returncode == 1 and "is not an index deja wrote for api" in second.stderr, second.stderr
    assert (out / "index.md").read_text() == page


def test_a_project_refreshes_its_own_export_after_one_of_its_sessions_was_deleted(tmp_path: Path) -> None:
    """A session deleted since the last export is listed by the page and is no session of the index's now: the page
    was refused as another's ("is not an index deja wrote", review59e), though nothing else lists it. It is this
    project's page still, refreshed without the deleted session; a page listing a live session of another project
    stays refused."""
    cli_root = tmp_path / "cli"
    mine = tmp_path / "code" / "api"
    mine.mkdir(parents=True)
    for chat in ("c-kept", "c-deleted"):
        write_transcript(transcript_path(cli_root, str(mine), chat), [user_turn(f"task {chat}"), assistant_turn("Ok.")])
    _chats(cli_root, tmp_path / "code" / "web")
    env = index_cli_root(tmp_path, cli_root)
    out = tmp_path / "out"
    assert run_deja("export", "--project", str(mine), "-o", str(out), env=env).returncode == 0
    transcript_path(cli_root, str(mine), "c-deleted").unlink()
    assert run_deja("index", env=env).returncode == 0

    again = run_deja("export", "--project", str(mine), "-o", str(out), env=env)

    assert (again.returncode, again.stderr) == (0, f"wrote 1 session and index.md to {out}\n")
    page = (out / "index.md").read_text()
    assert "c-kept.md" in page and "c-deleted.md" not in page, page
    other = run_deja("export", "--project", str(tmp_path / "code" / "web"), "-o", str(out), env=env)
    assert other.returncode == 1 and "is not an index deja wrote for web" in other.stderr, other.stderr
    (out / "index.md").write_text(f"{page}- [web's](c-code-web.md) (2 messages)\n")  # (a live session of another)
    mixed = run_deja("export", "--project", str(mine), "-o", str(out), env=env)
    assert mixed.returncode == 1 and "is not an index deja wrote for api" in mixed.stderr, mixed.stderr


def test_a_page_listing_a_live_subagent_whose_ids_hold_underscores_is_not_taken_for_a_deleted_one(
    tmp_path: Path,
) -> None:
    """A subagent ``chat_7/sub-1`` is written ``chat_7_sub-1.md``; read back with every ``_`` as ``/`` it named no
    session, was taken for a deleted one, and another project's page listing it was replaced (review60a F5)."""
    page = tmp_path / "index.md"
    _, head = index_page_name("md")
    page.write_text(f"{head}shop\n\n- [ours](ours.md) (2 messages)\n- [theirs](chat_7_sub-1.md) (3 messages)\n")
    assert not replaceable(page, head, "md", {"ours.md"}, {"ours", "chat_7/sub-1"}.__contains__)
    assert replaceable(page, head, "md", {"ours.md"}, {"ours"}.__contains__), "a deleted session's page is ours"
