"""An old Chat panel tab (Cursor 0.42 and before) keeps no time for its bubbles, only the tab's ``lastSendTime``.
Stamped with it, ``deja show`` gave all of a chat's messages the time of its last send and its header read
``04:37 → 04:37``, though the chat began the day before (trial43 F11): a time deja does not know is left out.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import write_state_vscdb, write_workspace_json

#: Where Cursor 0.42 kept the Chat panel's tabs, in a workspace's ``ItemTable``.
CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
SENT = 1_731_818_220_000


def _tab(tmp_path: Path) -> None:
    """An old Chat panel tab, ``tab-1``, of two messages, indexed."""
    project = tmp_path / "code" / "site"
    project.mkdir(parents=True)
    workspace = tmp_path / "no-ide" / "workspaceStorage" / "ws-tab"
    write_workspace_json(workspace, folder=project.as_uri())
    bubbles = [
        {"type": "user", "id": "q", "text": "how to serve files with python?"},
        {"type": "ai", "id": "a", "text": "python -m http.server"},
    ]
    tab = {"tabId": "tab-1", "chatTitle": "Python server", "lastSendTime": SENT, "bubbles": bubbles}
    write_state_vscdb(workspace / "state.vscdb", item_table={CHAT_PANEL: {"tabs": [tab]}}, with_disk_kv=False)
    assert run_deja("index").returncode == 0


def test_show_gives_an_old_chat_tab_its_last_send_only(tmp_path: Path, cli_root: Path) -> None:
    _tab(tmp_path)
    shown = run_deja("show", "tab-1")
    assert shown.returncode == 0, shown.stderr
    sent = datetime.fromtimestamp(SENT / 1000).strftime("%Y-%m-%d %H:%M")
    assert shown.stdout.splitlines()[2] == f"unknown time → {sent} · 2 messages", shown.stdout
    assert "── user\n" in shown.stdout and "── assistant\n" in shown.stdout, shown.stdout
    # (its day is its last send's, as before: the dates a search names find it)
    day = datetime.fromtimestamp(SENT / 1000).strftime("%B %-d %Y")
    assert run_deja("search", f"what did I do on {day}").stdout.startswith("Python server\n"), day


def test_export_gives_an_old_chat_tabs_messages_no_time(tmp_path: Path, cli_root: Path) -> None:
    """review44b L2: a Markdown or HTML export said "unknown time" on each of its messages (32 times for the real
    2aa483d1), where ``deja show`` says nothing."""
    _tab(tmp_path)
    markdown = run_deja("export", "tab-1").stdout
    assert "\n## user\n" in markdown and "\n## assistant\n" in markdown, markdown
    page = run_deja("export", "tab-1", "--format", "html").stdout
    assert '<div class="meta">user</div>' in page and '<div class="meta">assistant</div>' in page, page
    assert "unknown time" not in markdown + page.split("</header>")[1], markdown


def test_json_gives_an_old_chat_tab_no_start_and_its_last_send_as_updated(tmp_path: Path, cli_root: Path) -> None:
    """review44b L3: ``started: null`` is what README's ``--json`` section says a chat that kept no start gives."""
    _tab(tmp_path)
    session = json.loads(run_deja("sessions", "--json").stdout)["sessions"][0]
    sent = datetime.fromtimestamp(SENT / 1000, UTC)
    assert session["started"] is None and datetime.fromisoformat(session["updated"]) == sent, session


def test_fix_lists_an_old_chat_tab_by_the_date_its_line_shows(tmp_path: Path, cli_root: Path) -> None:
    """A tab's messages keep no time, so ``deja fix`` sorted its mention as the oldest of all and listed it after an
    older agent chat under "newest first" (trial44b F3): it is dated, and sorted, by its last send."""
    error = "ChunkLoadError: Loading chunk 179 failed."
    before = datetime.fromtimestamp(SENT / 1000 - 86_400, tz=UTC)  # (a day before the tab's last send)
    write_transcript(
        transcript_path(cli_root, str(tmp_path / "code" / "api"), "older-chat"),
        [user_turn(f"the page says {error}", before), assistant_turn("Clear the cache and reload.")],
    )
    project = tmp_path / "code" / "site"
    project.mkdir(parents=True)
    workspace = tmp_path / "no-ide" / "workspaceStorage" / "ws-tab"
    write_workspace_json(workspace, folder=project.as_uri())
    bubbles = [{"type": "user", "id": "q", "text": f"I get {error}"}, {"type": "ai", "id": "a", "text": "Rebuild."}]
    tab = {"tabId": "tab-1", "chatTitle": "Chunk error", "lastSendTime": SENT, "bubbles": bubbles}
    write_state_vscdb(workspace / "state.vscdb", item_table={CHAT_PANEL: {"tabs": [tab]}}, with_disk_kv=False)
    assert run_deja("index").returncode == 0

    found = run_deja("fix", error)
    assert found.returncode == 0, found.stderr
    assert "likeliest fix first" in found.stdout, found.stdout  # (newest first among equals: both answered)
    assert found.stdout.index("(deja show tab-1)") < found.stdout.index("(deja show older-chat)"), found.stdout
