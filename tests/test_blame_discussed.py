"""``deja blame``'s "also discussed in": the sessions that name the file as a file (its path, or its name alone),
newest first, as the help says.

Before, they were a search for the quoted name, which a name no session holds let go of: ``deja blame nosuch.py``
listed every session saying ``.py`` somewhere, best match first (trial20 F13: five unrelated sessions, Nov 14, Nov 10,
Dec 4, Nov 17, Nov 24).
"""

from __future__ import annotations

from pathlib import Path

from harness import run_deja

from deja.core.index import Index
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)
from deja.interfaces.mcp_server import work_answer

DAY_MS = 86_400_000
START_MS = 1_790_000_000_000


def _history(home: Path) -> Path:
    project = home / "code" / "shop"
    (project / "shop").mkdir(parents=True)
    chats = {  # oldest first; the oldest names settings.py most, so a search ranks it first
        "c-old": [
            "where is STRIPE_API_KEY read? settings.py, shop/settings.py",
            "In shop/settings.py: settings.py reads it from the env; settings.py line 41.",
        ],  # fmt: skip
        "c-pyc": ["the tests import a stale settings.pyc", "Removed the .pyc files; test_inventory.py passes."],
        "c-new": ["add the storefront domain to CORS", "Added it to CORS_ALLOWED_ORIGINS in settings.py."],
        "c-none": ["why is the conftest.py fixture slow", "It builds the schema per test; now once a session."],
    }
    for day, (chat_id, (asked, answered)) in enumerate(chats.items()):
        when = START_MS + day * DAY_MS
        messages = [*store_preamble(str(project)), store_user_message(asked), store_assistant_message(answered)]
        chat = chat_dir_for(home / ".cursor", str(project), chat_id)
        write_chat_store(chat, cwd=str(project), name=chat_id, messages=messages, created_ms=when, updated_ms=when)
    assert run_deja("index").returncode == 0
    return project


def test_a_file_no_session_names_is_discussed_in_none(fake_home: Path) -> None:
    project = _history(fake_home)
    for name in ("nosuch.py", "tests/test_nothing.py", "settings"):
        ran = run_deja("blame", name, cwd=project)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout == f"no session edited {project / name}\n", ran.stdout


def test_the_sessions_naming_the_file_newest_first(fake_home: Path) -> None:
    project = _history(fake_home)
    ran = run_deja("blame", "shop/settings.py", cwd=project)
    listed = [line.split("(deja show ")[1].rstrip(")") for line in ran.stdout.splitlines() if "(deja show " in line]
    assert listed == ["c-new", "c-old"], ran.stdout  # (not c-pyc: settings.pyc is another file)
    text, answer = work_answer(Index.open(fake_home / ".cache" / "deja"), "blame", "shop/settings.py", str(project))
    assert [session["id"] for session in answer["discussed"]] == ["c-new", "c-old"], text  # the MCP tool's blame


def test_another_projects_many_mentions_do_not_crowd_out_this_ones(fake_home: Path) -> None:
    """review40b M3: the candidates were the search's 50 best over every project; sixty sessions of another project
    saying settings.py took all 50 places, and this project's sessions that name it were listed nowhere."""
    project = _history(fake_home)
    other = fake_home / "code" / "other"
    other.mkdir(parents=True)
    for n in range(60):
        when = START_MS + (10 + n) * DAY_MS
        chat_id = f"o-{n:02d}"
        messages = [
            *store_preamble(str(other)),
            store_user_message(f"settings.py settings.py question {n}"),
            store_assistant_message("settings.py again."),
        ]
        chat = chat_dir_for(fake_home / ".cursor", str(other), chat_id)
        write_chat_store(chat, cwd=str(other), name=chat_id, messages=messages, created_ms=when, updated_ms=when)
    assert run_deja("index").returncode == 0
    ran = run_deja("blame", "shop/settings.py", cwd=project)
    listed = [line.split("(deja show ")[1].rstrip(")") for line in ran.stdout.splitlines() if "(deja show " in line]
    assert listed == ["c-new", "c-old"], ran.stdout


def test_a_folders_name_is_no_file_it_holds(fake_home: Path) -> None:
    """review40b L4: ``deja blame shop`` listed every session naming ``shop/settings.py``: a name followed by a slash
    is a folder's, not the file's."""
    project = _history(fake_home)
    ran = run_deja("blame", "shop", cwd=project)
    assert ran.stdout == f"no session edited {project / 'shop'}\n", ran.stdout
