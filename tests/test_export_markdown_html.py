"""A Markdown export holds no HTML a viewer would run (trial48 F8).

A chat's ``<script>`` and ``<img onerror=…>``, in its title and its text, were written raw into ``deja export``'s
Markdown: a viewer that renders raw HTML (most do) ran them. Outside code they are escaped; code, fenced or inline,
keeps what was typed, and a viewer shows it as code. Each page here is rendered by a CommonMark renderer that passes
raw HTML through, as such a viewer would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
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


FENCE_IN_A_LIST = "Run:\n- ```sh\n  make\n  ```\n\n<img src=x onerror=alert(document.domain)>"
FENCE_IN_A_NUMBERED_LIST = "1. ```\n   ok\n   ```\n<script>alert(1)</script>"
#: A code span opened on one line and closed on the next: a line at a time, the ticks after it looked like a span
#: around the tag; a viewer reads the tag as HTML.
SPAN_OVER_TWO_LINES = "a `b\nc` <img src=x onerror=alert(5)> `d`"


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        (FENCE_IN_A_LIST, "<p>&lt;img src=x onerror=alert(document.domain)&gt;</p>"),
        (FENCE_IN_A_NUMBERED_LIST, "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
        (SPAN_OVER_TWO_LINES, "c` &lt;img src=x onerror=alert(5)&gt; `d`\n</code></pre>"),
    ],
)
def test_no_chat_html_survives_a_fence_in_a_list_or_a_span_over_lines(tmp_path: Path, answer: str, shown: str) -> None:
    page = _rendered(_export(tmp_path, answer))
    assert "<img" not in page and "<script" not in page, page
    assert shown in page, page  # (the tag shown as text)
    assert "<h2>user" in page.split(shown)[1]  # (the next turn is still a heading, not code)


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("Indented:\n\n    if a < b:\n        return '&amp;'", "if a &lt; b:\n    return '&amp;amp;'\n"),
        ("1. Run this:\n    ```python\n    if a < b and x & y:\n    ```", "if a &lt; b and x &amp; y:\n"),
        ("> ```\n> x < y\n> ```", "<blockquote>\n<pre><code>x &lt; y\n</code></pre>"),
        ("\\\\`<i>x</i>` after an escaped backslash", "<code>&lt;i&gt;x&lt;/i&gt;</code>"),
    ],
)
def test_code_in_lists_quotes_and_indented_blocks_keeps_what_was_typed(tmp_path: Path, answer: str, code: str) -> None:
    page = _rendered(_export(tmp_path, answer))
    assert code in page, page  # (``&lt;`` here is a ``<`` on screen; the old escaper's ``&amp;lt;`` showed ``&lt;``)


def test_a_fence_left_open_in_a_list_item_does_not_take_the_next_heading(tmp_path: Path) -> None:
    page = _rendered(_export(tmp_path, "- ```sh\n  <b>never closed"))
    assert "<b>" not in page
    assert page.count("<h2>user") == 2, page  # (the turn after it is a heading)
    assert "&lt;b&gt;never closed" in page.split("<h2>assistant")[1].split("<h2>user")[0]
