"""``deja demo``: the whole product in one command, on a machine with no Cursor at all.

The shipped sample history (:mod:`deja.core.sample`) is written to a temporary
folder and deja's variables point at it, for this process and the hooks it
starts; the person's own history and index are never touched. Once it is
indexed, the demo shows what a person gets (a search, a session, the line that
resumes a CLI chat) and what each Cursor hook would inject, each hook run as
Cursor runs it: ``deja hook-…`` with the event's JSON on stdin.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import string
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from ..core.detached import python_module
from ..core.index import Index
from ..core.indexer import refresh
from ..core.library import find_session, newest_sessions
from ..core.resume import ResumeRefused, resume_line
from ..core.sample import API_CACHE_CHAT, API_TEST_FAILURE, build_sample_history
from ..core.search import search
from ..installers.entries import same_file
from .fastpath import echo
from .views import search_text, session_rows, short_id, show_text, terminal_width

SEARCH = "stale prices locale"
PROMPT = "prices are stale again after switching the locale, did we fix the cache key before?"
CURSOR_VERSION = "2026.09.02-c22c1a3"
#: The conversation the hooks answer for: a new one, so every sample session counts as past work.
CONVERSATION = "d3m0c0de-0000-4000-8000-000000000001"


def run_demo(keep: bool = False) -> None:
    """Index the sample history in a temporary folder and show search, show, resume and the hooks.

    Every line goes through ``echo``, as every command's does: a reader that stops early (``deja demo | head -1``)
    ends it quietly with exit 0, and an output that cannot take it (``> /dev/full``) fails in one line naming it
    (it said ``OSError: [Errno 28] …``); the temporary folder is removed first (unless kept).
    """
    _demo(keep)


def _demo(keep: bool) -> None:
    folder = _sample_folder()
    try:
        sample = build_sample_history(folder / "history")
        environment = {**sample.environment(folder / "deja"), "DEJA_RECALL": "safe"}
        with _environment(environment):
            indexed = refresh(folder / "deja")
            size = f"{indexed.sessions} sessions in {len(sample.projects)} projects"
            echo(f"deja demo: a sample Cursor history of {size}, indexed in {folder}")
            echo("Editor chats (state.vscdb) and cursor-agent chats (transcripts and store.db), as Cursor writes them.")
            _show_the_cli(Index.open(folder / "deja"))
            _show_the_work_verbs(Index.open(folder / "deja"), sample.projects["api"], folder, keep)
            _show_the_hooks(str(sample.projects["api"]))
        _heading("Next: your own history")
        if shutil.which("deja") is None:  # (after the README's first command, deja is not on PATH yet: trial23 F7)
            echo(_path_step())
        echo("  deja index                  index your Cursor history (a second run reads only what changed)")
        echo("  deja install cursor-auto    give Cursor the MCP server, the skill, /deja and these hooks")
        echo("  deja doctor                 check that deja sees your history and that Cursor runs it")
        if not keep:  # (the sample, and the pages written above, go now: trial12 F3)
            echo("  deja demo --keep            keep the sample, to try more commands on it")
        if keep:
            exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in environment.items())
            echo(f"\nThe sample is kept in {folder}. To try more commands on it (README's work-history examples too):")
            echo(f"  cd {shlex.quote(str(sample.projects['api']))}\n  export {exports}")
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def _sample_folder() -> Path:
    """A new folder of this user's alone (0700, as ``tempfile.mkdtemp`` makes one) for the sample, named
    ``deja-demo-`` and ten letters. Its name is in every path the sample's chats hold, and ``mkdtemp``'s letters,
    digits and ``_`` made the index read it as one to nine words from one demo to the next: the sessions' lengths
    moved, and with them the search's near ties (pyver53: the second snippet shown changed from run to run)."""
    while True:
        name = "deja-demo-" + "".join(random.choices(string.ascii_lowercase, k=10))
        folder = Path(tempfile.gettempdir()) / name
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return folder


def _path_step() -> str:
    """The line that puts this deja on PATH, as the README's PATH step does, for the commands that follow."""
    script = os.path.abspath(sys.argv[0])
    local_bin = os.path.expanduser("~/.local/bin")
    if os.name == "posix" and same_file(os.path.dirname(script), local_bin):
        # (pipx's layout: a link from there to itself is no step, and BSD ln would replace the script: review42d M3)
        return '  export PATH="$HOME/.local/bin:$PATH"   put ~/.local/bin on your PATH first (and in your shell\'s profile)'
    if os.name == "posix" and os.path.basename(script) == "deja":
        return (
            f"  mkdir -p ~/.local/bin && ln -sf {shlex.quote(script)} ~/.local/bin/deja   put deja on your PATH first"
        )
    return "  deja is not on your PATH: put it there first (README: the PATH step), or give its full path"


def _show_the_cli(index: Index) -> None:
    _heading("deja sessions   (every chat, whichever store holds it)")
    sessions = newest_sessions(index)
    echo("\n".join(session_rows(index, sessions, terminal_width())))  # (as `deja sessions` lists them here)

    result = search(index, SEARCH, limit=3)
    _heading(f"deja search {SEARCH}")
    echo(search_text(result, shown_id=partial(short_id, index)))  # (ids as a terminal shows them, as README's)

    segment, meta = find_session(index, result.hits[0].session_id)
    _heading(f"deja show {meta.id[:8]}   (a unique prefix is enough)")
    echo(show_text(meta, segment.messages(meta), f"`deja show {meta.id[:8]} --full`"))

    _heading(f"deja resume {meta.id[:8]}   (reopens the cursor-agent chat in its project)")
    try:
        echo(resume_line(meta, index))
    except ResumeRefused as refused:
        echo(str(refused))


def _show_the_work_verbs(index: Index, api: Path, folder: Path, keep: bool) -> None:
    from ..core.work import blame, error_history
    from .export import render, write_text
    from .work_views import blame_text, fix_text

    cache = api / "api" / "cache.py"
    _heading(f"deja blame {cache}   (which chats edited this file, and how)")
    echo(blame_text(blame(index, str(cache), folder / "no-ai-tracking.db")))

    _heading(f'deja fix "{API_TEST_FAILURE.strip()}"   (what fixed this error before)')
    echo(fix_text(API_TEST_FAILURE, error_history(index, API_TEST_FAILURE, limit=3)))

    segment, meta = find_session(index, API_CACHE_CHAT)
    page = folder / "export" / f"{meta.id[:8]}.html"
    page.parent.mkdir(mode=0o700, exist_ok=True)
    write_text(page, render(meta, segment.messages(meta), "html"))
    _heading(f"deja export {meta.id[:8]} --format html -o {page.name}   (a chat as one self-contained page)")
    echo(f"wrote {page} ({page.stat().st_size:,} bytes: messages, tool calls with their output, edits as diffs)")
    if not keep:  # (the page names a file the demo's end removes: trial44b F4)
        echo("It goes with the sample when the demo ends: `deja demo --keep` keeps both.")
    echo("Markdown (the default) begins:")
    echo(_markdown_preview(render(meta, segment.messages(meta), "md")))


def _markdown_preview(markdown: str) -> str:
    """A Markdown export's head down to the first line of its first message: eight lines ended on the message's
    heading, before any of its text (trial45 F4)."""
    lines = markdown.splitlines()
    heading = next((n for n, line in enumerate(lines) if line.startswith("## ")), len(lines))
    text = next((n for n in range(heading + 1, len(lines)) if lines[n].strip()), heading)
    return "\n".join(lines[: text + 1])


def _show_the_hooks(project: str) -> None:
    _heading("The hooks: what Cursor is given, with `deja install cursor-auto`")
    pytest = {"command": "pytest -q", "description": "Run tests"}
    failed = f"collected 0 items / 1 error\n{API_TEST_FAILURE}\n=== 1 error in 0.12s ==="
    hooks: list[tuple[str, str, str, dict[str, Any]]] = [
        (
            "sessionStart", "hook-context", f"a new chat opens in {project}",
            {"session_id": CONVERSATION, "is_background_agent": False},
        ),
        (
            "beforeSubmitPrompt", "hook-prompt", f'the user asks "{PROMPT}"',
            {"prompt": PROMPT, "attachments": []},
        ),
        (
            "preToolUse", "hook-tool", "the agent is about to run `pytest -q`",
            {"tool_name": "Shell", "tool_input": pytest, "tool_use_id": "toolu_demo_1", "cwd": ""},
        ),
        (
            "postToolUse", "hook-tool-after", "`pytest -q` just failed with the import error the sample fixed once",
            {
                "tool_name": "Shell",
                "tool_input": pytest,
                "tool_output": orjson.dumps({"output": failed, "exitCode": 2}).decode(),  # a JSON string, as Cursor sends it
                "tool_use_id": "toolu_demo_2",
                "cwd": "",
                "duration": 812,
            },
        ),
    ]  # fmt: skip
    for event, command, moment, fields in hooks:
        echo(f"\n▸ {event} (deja {command}): {moment}")
        echo(_injected(command, _cursor_payload(event, project, fields)) or "(nothing to add)")


def _cursor_payload(event: str, project: str, fields: dict[str, Any]) -> dict[str, Any]:
    """An event's stdin as Cursor sends it: the common fields, then the event's own."""
    return {
        "conversation_id": CONVERSATION,
        "generation_id": CONVERSATION,
        "model": "composer-2-fast",
        "hook_event_name": event,
        "cursor_version": CURSOR_VERSION,
        "workspace_roots": [project],
        "user_email": None,
        "transcript_path": None,
        **fields,
    }


def _injected(command: str, payload: dict[str, Any]) -> str:
    """The ``additional_context`` that ``deja <command>`` prints for ``payload``, or ""."""
    ran = subprocess.run(
        python_module("deja.interfaces.entry", command),
        input=orjson.dumps(payload),
        capture_output=True,
        timeout=30,
    )
    if not ran.stdout.strip():
        return ""
    return str(orjson.loads(ran.stdout).get("additional_context", ""))


def _heading(title: str) -> None:
    echo(f"\n━━ {title}")


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Set ``values`` in ``os.environ`` (so child processes see them too), and put back what was there."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
