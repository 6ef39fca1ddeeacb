"""A Markdown export holds no HTML a viewer would run (trial48 F8).

A chat's ``<script>`` and ``<img onerror=…>``, in its title and its text, were written raw into ``deja export``'s
Markdown: a viewer that renders raw HTML (most do) ran them. Outside code they are escaped; code, fenced or inline,
keeps what was typed, and a viewer shows it as code. Each page here is rendered by a CommonMark renderer that passes
raw HTML through, as such a viewer would.
"""

from __future__ import annotations

from pathlib import Path

from harness import index_cli_root, run_deja
from markdown_it import MarkdownIt

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

CHAT = "e8e8e8e8-0000-4000-8000-000000000008"
TITLE = "<script>alert('title')</script>"
ASKED = "why does <img src=x onerror=alert(1)> render? and `<b>` in a code span, &lt; as typed"
ANSWERED = (
    "Escape it before it reaches the page:\n```html\n<script>alert(2)</script>\n```\nnot <script>alert(3)</script>"
)
UNCLOSED = "Here it is:\n````\n<script>alert(4)</script>"


def _export(tmp_path: Path, answer: str, *args: str) -> str:
    project = tmp_path / "code" / "site"
    project.mkdir(parents=True)
    cli_root = tmp_path / "cursor-agent"
    messages = [
        *store_preamble(str(project)),
        store_user_message(ASKED),
        store_assistant_message(answer),
        store_user_message("thanks"),
    ]
    write_chat_store(chat_dir_for(cli_root, str(project), CHAT), cwd=str(project), name=TITLE, messages=messages)
    done = run_deja("export", CHAT, *args, env=index_cli_root(tmp_path, cli_root))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rendered(markdown: str) -> str:
    """The page a viewer shows (CommonMark, raw HTML passed through as it would be)."""
    return MarkdownIt("commonmark").render(markdown)


def test_a_markdown_export_escapes_a_chat_s_html_outside_code(tmp_path: Path) -> None:
    markdown = _export(tmp_path, ANSWERED)
    page = _rendered(markdown)
    assert "<script" not in page and "<img" not in page, page
    assert "<h1>&lt;script&gt;alert('title')&lt;/script&gt;</h1>" in page
    assert "why does &lt;img src=x onerror=alert(1)&gt; render?" in page
    assert "<code>&lt;b&gt;</code> in a code span, &amp;lt; as typed" in page  # (what was typed, shown as typed)
    assert '<pre><code class="language-html">&lt;script&gt;alert(2)&lt;/script&gt;\n</code></pre>' in page
    assert "```html\n<script>alert(2)</script>\n```" in markdown  # (code as typed in the file)


def test_a_fence_left_open_in_a_message_is_closed_before_the_next_heading(tmp_path: Path) -> None:
    page = _rendered(_export(tmp_path, UNCLOSED))
    assert "<script" not in page
    assert "<pre><code>&lt;script&gt;alert(4)&lt;/script&gt;\n</code></pre>" in page
    assert "<h2>user" in page.split("alert(4)")[1]  # (the next message is a heading, not more code)
