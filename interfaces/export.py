"""One session as a file a person can keep: Markdown, JSON, or one self-contained HTML page.

Exports read the index, so they are redacted like every other answer, and
they include chats Cursor itself no longer shows (deleted composers, chats a
newer release cannot open). The HTML page has no external assets: styles are
inline, tool calls fold with ``<details>``, edits are shown as diffs.
"""

from __future__ import annotations

import difflib
import errno
import html
import os
import re
import stat
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..core.index import SessionMeta
from ..core.keys import EDIT_TOOLS
from ..core.model import Message, ToolCall
from ..core.private import FILE_MODE, room_fix
from ..core.readers.conversation import normalise_tool_name
from ..core.text import for_terminal, json_escaped_controls
from ..core.work import edit_texts
from .fastpath import SCHEMA_VERSION, Failed, plural
from .views import iso, show_json, tool_summary, when

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

FORMATS = ("md", "json", "html")


def _call_summary(call: ToolCall) -> str:
    """A tool call in one line: its name as ``deja show`` gives it (``Shell``, not an older build's
    ``run_terminal_cmd``: trial58 T8; the JSON keeps the stored name) and the argument that says what it did."""
    name, what = normalise_tool_name(call.name), tool_summary(call.args)
    return f"{name}: {what}" if what else name


def _exit(call: ToolCall) -> str:
    return f" (exit {call.exit_code})" if call.exit_code is not None else ""


def _diff(call: ToolCall) -> list[str]:
    old, new = edit_texts(call)
    if not old and not new:
        return []
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "after", lineterm="", n=2))


# --------------------------------------------------------------------------- Markdown


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


#: A run of backticks after an even number of backslashes (none, or escaped ones): where an inline code span may open.
_TICKS = re.compile(r"(?<!\\)(?:\\\\)*(`+)")
#: An ``&`` that a Markdown viewer would read as the start of a character reference (``&lt;``, ``&#60;``).
_REFERENCE = re.compile(r"&(?=#?\w+;)")
#: The line ends a CommonMark parser reads as one.
_NEWLINES = re.compile(r"\r\n?")
#: What a CommonMark renderer makes of a chat's own HTML: the tokens the page must never hold.
_HTML_TOKENS = ("html_block", "html_inline")


@cache
def _commonmark() -> MarkdownIt:
    """The CommonMark parser a viewer would be, raw HTML on; imported here alone, never on a hook's or search's
    path (tests/test_layers.py)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _markdown_text(text: str) -> str:
    """A chat's text for a Markdown page: as typed, but that no ``<`` outside code is HTML to a viewer (``&lt;``, and
    an ``&`` that would begin a character reference as ``&amp;``). A chat's ``<script>`` and ``<img onerror=…>`` ran
    in any viewer that renders raw HTML (trial48 F8). The code blocks a CommonMark parser finds (fenced, in lists and
    quotes too, or indented) keep their lines as typed: a line-by-line fence tracker lost its place at a fence in a
    list item and left the rest raw (review48b H1). A fence left open is closed at the text's end; one that still
    takes the next heading into it makes the text a literal block (``_fence``)."""
    text = _NEWLINES.sub("\n", text)  # (line numbers as the parser counts them)
    lines = text.split("\n")
    code: set[int] = set()
    last_fence = ""
    for token in _commonmark().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(*token.map))
            last_fence = token.markup or last_fence
    escaped = "\n".join(line if number in code else _markdown_line(line) for number, line in enumerate(lines))
    for closed in (escaped, f"{escaped}\n{last_fence}"):
        if _ends_in_the_open(closed):
            return closed
    return _fence(text)


def _ends_in_the_open(markdown: str) -> bool:
    """Whether a heading after ``markdown`` is a heading of the page, not more of a block ``markdown`` left open."""
    tokens = _commonmark().parse(f"{markdown}\n\n## next")
    return len(tokens) >= 3 and tokens[-3].type == "heading_open" and tokens[-3].level == 0


def _markdown_line(line: str) -> str:
    """One line of prose with its HTML escaped outside inline code spans (a run of backticks to the next run as long
    on the same line: a span that crosses lines may not be one to a viewer, so its text is escaped). The page is
    checked whole afterwards (``_no_html_left``), so a span read otherwise by a viewer cannot let HTML through."""
    if "\n" in line:  # (a title of two lines)
        return "\n".join(map(_markdown_line, line.split("\n")))
    out, done, start = [], 0, 0
    while opening := _TICKS.search(line, start):
        closing = re.compile(f"(?<!`){opening[1]}(?!`)").search(line, opening.end())
        if closing is None:
            start = opening.end()
            continue
        out += [_no_html(line[done : opening.start(1)]), line[opening.start(1) : closing.end()]]
        done = start = closing.end()
    return "".join([*out, _no_html(line[done:])])


def _no_html(text: str) -> str:
    return _REFERENCE.sub("&amp;", text).replace("<", "&lt;")


def _code_span(text: str) -> str:
    """``text`` as inline code whatever backticks it holds (a folder's name may hold some)."""
    ticks = "`"
    while ticks in text:
        ticks += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _markdown_call(call: ToolCall, literal: bool) -> list[str]:
    summary = _no_html(_call_summary(call)) if literal else _markdown_line(_call_summary(call))
    lines = [f"- **{summary}**{_exit(call)}"]
    diff = _diff(call) if call.name in EDIT_TOOLS else []
    if diff:
        lines.append(_fence("\n".join(diff), "diff"))
    if call.result:
        lines.append(_fence(call.result))
    return lines


def _whose(message: Message) -> str:
    """Whose ``message`` is and when it was written (``assistant · 2024-11-17 04:37``), or whose alone for a message
    with no time: an old Chat panel tab's have none, and each said "unknown time" (review44b L2; ``deja show`` says
    nothing there either)."""
    return f"{message.role} · {when(message.timestamp)}" if message.timestamp else message.role


def _markdown_head(meta: SessionMeta, literal: bool) -> str:
    """The page's title and what the session is; ``literal``: every ``<`` escaped, code spans too (a backtick in a
    project's name can pair with its folder's code span)."""
    line, span = (_no_html, _no_html) if literal else (_markdown_line, _code_span)
    out = [f"# {line(meta.title or meta.asked or meta.id)}", ""]
    out.append(f"- session: {span(meta.id)} ({meta.source})")
    if meta.project:
        folder = f" ({span(meta.project_dir)})" if meta.project_dir else ""  # (none here: a remote window's, a slug's)
        out.append(f"- project: {line(meta.project)}{folder}")
    out += [f"- started: {iso(meta.started) or 'unknown'}", f"- updated: {iso(meta.updated) or 'unknown'}", ""]
    return "\n".join(out)


def _markdown_message(message: Message, literal: bool) -> str:
    """One turn under its heading; ``literal``: its text as a fenced block, shown as it was typed and never read as
    Markdown, for a text whose escaping a viewer still reads as HTML."""
    out = [f"## {_whose(message)}", ""]
    if message.text.strip():
        text = message.text.rstrip()
        out += [_fence(text) if literal else _markdown_text(text), ""]
    for call in message.tool_calls:
        out += _markdown_call(call, literal)
    if message.tool_calls:
        out.append("")
    return "\n".join(out)


def to_markdown(meta: SessionMeta, messages: list[Message]) -> str:
    """The session as a Markdown transcript: a heading per turn, tool calls with results and diffs.

    The page is then read whole as a CommonMark viewer would: a part in which a viewer still finds HTML is written
    literally, and if HTML is still found, every part is. Whatever the escaping missed, the page holds no HTML."""
    parts = [_markdown_head(meta, False), *(_markdown_message(message, False) for message in messages)]
    for attempt in range(2):
        page = "\n".join(parts).rstrip() + "\n"
        found = _html_lines(page)
        if not found:
            return page
        starts = [0]
        for part in parts:
            starts.append(starts[-1] + part.count("\n") + 1)
        parts = [
            (_markdown_head(meta, True) if at == 0 else _markdown_message(messages[at - 1], True))
            if attempt or -1 in found or any(starts[at] <= line < starts[at + 1] for line in found)
            else part
            for at, part in enumerate(parts)
        ]
    return "\n".join(parts).rstrip() + "\n"


def _html_lines(page: str) -> set[int]:
    """The lines of ``page`` on which a CommonMark renderer finds raw HTML (``-1``: somewhere it cannot place)."""
    found: set[int] = set()
    for token in _commonmark().parse(page):
        if token.type in _HTML_TOKENS or any(child.type in _HTML_TOKENS for child in token.children or ()):
            found.update(range(*token.map) if token.map else (-1,))
    return found


# --------------------------------------------------------------------------- HTML

_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
header{border-bottom:1px solid #ddd;margin-bottom:1rem}header p{color:#555;margin:.2rem 0}
.message{border-left:4px solid #ccc;padding:.3rem .8rem;margin:1rem 0}
.user{border-color:#2f6fde;background:#f3f7ff}.assistant{border-color:#8a8a8a}
.meta{font-size:.8rem;color:#666}.text{white-space:pre-wrap}
details{margin:.4rem 0;border:1px solid #e3e3e3;border-radius:4px;padding:.2rem .5rem}
summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:.85rem}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;font-size:.8rem;white-space:pre-wrap}
.failed summary{color:#b00020}.add{color:#116329}.del{color:#a40e26}.hunk{color:#6f42c1}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:left}
"""


def _page(title: str, body: Iterable[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _diff_html(lines: list[str]) -> str:
    styled = []
    for line in lines:
        kind = "hunk" if line.startswith("@@") else "add" if line[:1] == "+" else "del" if line[:1] == "-" else ""
        escaped = html.escape(line)
        styled.append(f'<span class="{kind}">{escaped}</span>' if kind else escaped)
    return '<pre class="diff">' + "\n".join(styled) + "</pre>"


def _html_call(call: ToolCall) -> str:
    failed = " failed" if call.exit_code else ""
    parts = [f'<details class="tool{failed}"><summary>{html.escape(_call_summary(call) + _exit(call))}</summary>']
    diff = _diff(call) if call.name in EDIT_TOOLS else []
    if diff:
        parts.append(_diff_html(diff))
    elif call.args:
        parts.append(
            f'<pre class="args">{html.escape(orjson.dumps(call.args, option=orjson.OPT_INDENT_2).decode())}</pre>'
        )
    if call.result:
        parts.append(f'<pre class="result">{html.escape(call.result)}</pre>')
    parts.append("</details>")
    return "".join(parts)


def to_html(meta: SessionMeta, messages: list[Message]) -> str:
    """The session as one self-contained HTML page."""
    title = meta.title or meta.asked or meta.id
    body = [
        f"<header><h1>{html.escape(title)}</h1>",
        f"<p>session <code>{html.escape(meta.id)}</code> · {html.escape(meta.source)}</p>",
    ]
    if meta.project:
        folder = f" <code>{html.escape(meta.project_dir)}</code>" if meta.project_dir else ""
        body.append(f"<p>project {html.escape(meta.project)}{folder}</p>")
    body.append(f"<p>{html.escape(when(meta.started))} – {html.escape(when(meta.updated))}</p></header>")
    for message in messages:
        body.append(f'<section class="message {message.role}">')
        body.append(f'<div class="meta">{html.escape(_whose(message))}</div>')
        if message.text.strip():
            body.append(f'<div class="text">{html.escape(message.text.rstrip())}</div>')
        body += [_html_call(call) for call in message.tool_calls]
        body.append("</section>")
    return _page(title, body)


# --------------------------------------------------------------------------- the three forms


def render(meta: SessionMeta, messages: list[Message], fmt: str) -> str:
    """The session in ``fmt``: ``md``, ``json`` or ``html``."""
    if fmt == "md":
        return to_markdown(meta, messages)
    if fmt == "html":
        return to_html(meta, messages)
    return _json({"schema_version": SCHEMA_VERSION, **show_json(meta, messages)})  # ``deja show --json``'s, whole


def _json(data: dict[str, object]) -> str:
    """``data`` as indented JSON, its text kept as stored as every ``--json`` output keeps it
    (``text.json_escaped_controls``): the index page's titles too."""
    return json_escaped_controls(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()) + "\n"


def index_page(sessions: list[tuple[SessionMeta, str]], fmt: str, title: str) -> tuple[str, str]:
    """The folder's index: (file name, content) listing each exported session with a link to its file."""
    if fmt == "html":
        rows = [
            f'<tr><td>{html.escape(when(meta.updated))}</td><td><a href="{html.escape(name)}">'
            f"{html.escape(meta.title or meta.asked or meta.id)}</a></td><td>{meta.messages}</td></tr>"
            for meta, name in sessions
        ]
        head = f"<h1>{html.escape(title)}</h1><table><tr><th>updated</th><th>session</th><th>messages</th></tr>"
        return "index.html", _page(title, [head, *rows, "</table>"])
    if fmt == "json":
        entries = [
            {"id": meta.id, "title": meta.title, "updated": iso(meta.updated), "file": name} for meta, name in sessions
        ]
        return "index.json", _json({"title": title, "sessions": entries})  # (its title first: ``own_index``)
    lines = [f"# {_markdown_line(title)}", ""] + [
        f"- {when(meta.updated)} [{_markdown_line(meta.title or meta.asked or meta.id)}]({name})"
        f" ({plural(meta.messages, 'message')})"
        for meta, name in sessions
    ]
    return "index.md", "\n".join(lines) + "\n"


#: The most of an index page ``replaceable`` reads (a page of 100,000 sessions is about 10 MB).
_PAGE_BYTES = 64 << 20
#: A listed session's file in a Markdown index page's line (``index_page``): ``… [title](FILE) (N messages)``.
_MD_LISTED = re.compile(r"\]\(([^()\s]+)\) \(\d+ messages?\)\r?$", re.MULTILINE)
#: A listed session's file in an HTML index page's row.
_HTML_LISTED = re.compile(r'<td><a href="([^"]+)">')


def index_page_name(fmt: str) -> tuple[str, str]:
    """The index page's file name, and how deja's own page begins, through ``deja: `` in its title, whatever the
    project: what, with the sessions it lists (``replaceable``), tells a page a former export wrote from one of the
    user's. A docs folder's, a vault's or a site's ``index.md`` or ``index.html`` was replaced without a word
    (trial58 T3)."""
    name, text = index_page([], fmt, "deja: ")
    return name, for_terminal(text[: text.index("deja: ") + len("deja: ")])


def replaceable(path: Path, head: str, fmt: str, files: set[str], live: Callable[[str], bool]) -> bool:
    """Whether deja may write its index page at ``path``, listing ``files``: nothing is there, or a page of deja's
    (it begins with ``head``, ``index_page_name``'s) listing some of them and no session ``live`` (the index's, by
    its id) that is not among them: a former export of this project, where a session deleted since is listed too (a
    monorepo's root lists its packages' sessions and more: a package's export took its page over, review59e F8).
    Not its title: a project's changes as the index learns of another of its name (``api``, then ``code/api``), and
    two roots of one name had one title, so each took over the other's folder (review59b F3, F4). Anything else is
    not deja's to replace: another project's page, a folder, a FIFO (never opened: reading one would wait for a
    writer), a file it cannot read."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISREG(found.st_mode):
        return False
    try:
        with open(path, "rb") as page:
            text = page.read(_PAGE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    listed = _listed(text, fmt)
    gone = listed - files
    return text.startswith(head) and len(gone) < len(listed) and not any(map(live, _ids_named(gone)))


def _listed(text: str, fmt: str) -> set[str]:
    """The session files an index page of deja's lists (``index_page``)."""
    if fmt == "json":
        try:
            sessions = orjson.loads(text).get("sessions")
        except (orjson.JSONDecodeError, AttributeError):
            return set()
        return {entry["file"] for entry in sessions if isinstance(entry, dict) and isinstance(entry.get("file"), str)} if isinstance(sessions, list) else set()  # fmt: skip
    if fmt == "html":
        return {html.unescape(name) for name in _HTML_LISTED.findall(text)}
    return set(_MD_LISTED.findall(text))


def file_name(meta: SessionMeta, fmt: str) -> str:
    """``ID.FMT``; a subagent's id ``<parent>/<child>`` as ``<parent>_<child>``: a name in the folder, not a path."""
    return f"{meta.id.replace('/', '_')}.{fmt}"


def _ids_named(names: set[str]) -> set[str]:
    """The session ids files ``file_name`` wrote may be named for: the name's stem, or a subagent's ``PARENT/CHILD``
    with any one of its ``_`` read as the ``/`` (either id may hold a ``_`` of its own: review60a F5)."""
    stems = {name.rpartition(".")[0] for name in names}
    return stems | {f"{stem[:at]}/{stem[at + 1 :]}" for stem in stems for at, char in enumerate(stem) if char == "_"}


def write_text(path: Path, text: str) -> None:
    """Write ``path`` as a shell's ``>`` would, whole or not at all; a failure is one line naming ``path``.

    A regular file gets a temporary file beside it, renamed over it once written (with the old file's mode; a new
    file is 0600), so a failed write leaves what was there. A link is written through: the file it names is
    replaced, beside itself, and the link stays a link (a dotfile a manager such as stow links). A FIFO, a device
    or anything else that is not a regular file is written to as it is, a stream (``-o /dev/stdout``), never
    replaced by a file. The parent folder must exist: a mistyped ``-o`` path is an error, not a tree of folders.
    The file gets what stdout would (``text.for_terminal``): a chat's colour codes and title-setting OSC written
    raw acted on the terminal a person ran ``cat notes.md`` in (trial46 F2).
    """
    text = for_terminal(text)
    target = Path(os.path.realpath(path))
    try:
        found: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        found = None
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        if found is not None and not stat.S_ISREG(found.st_mode):
            with open(target, "w", encoding="utf-8") as stream:
                stream.write(text)
        else:
            _replace(path, target, text, found)
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def _replace(path: Path, target: Path, text: str, found: os.stat_result | None) -> None:
    """``text`` written beside ``target`` under a name of its own, then renamed over it (removed if that fails).
    A folder that exists and makes no new file is named as such: "cannot write /proc/version (No such file or
    directory)" was said of a file that is there (trial23 F7.5)."""
    temporary = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except OSError as exc:
        raise _cannot_write(path, exc, target.parent if target.parent.is_dir() else None) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            # the old file's mode, which its owner chose; a new one is private history, as the index is, whatever
            # the umask (stdout goes where the shell's redirect puts it, with the umask's mode)
            os.fchmod(out.fileno(), stat.S_IMODE(found.st_mode) if found is not None else FILE_MODE)
            out.write(text)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _cannot_write(path: Path, exc: OSError, folder: Path | None = None) -> Failed:
    """What to tell a person whose ``-o`` file could not be written: that path, why, and what to do; ``folder``, an
    existing one that refused the new file written first, is named with the error it gave."""
    why = exc.strerror or str(exc)
    if folder is not None:
        why = f"making a new file in {folder}: {why}"
    if room := room_fix(exc):  # (a file-size limit, ulimit -f, was told to give -o another path: trial48 F5)
        fix = f"{room}, or give -o another path"
    elif exc.errno in (errno.ENOENT, errno.ENOTDIR) and folder is None:
        fix = "give -o a path in a folder that exists"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT, errno.ENOTDIR):
        fix = "give -o a path in a folder you can write"
    else:
        fix = "give -o another path"
    return Failed(f"cannot write {path} ({why}): {fix}")
