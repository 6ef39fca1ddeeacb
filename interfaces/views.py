"""The shapes deja shows: one JSON form and one text form per answer, shared by the CLI and the MCP server."""

from __future__ import annotations

from ..core.lines import MATCH_LEAD, SAME_AS, same_turn_as
from ..core.redaction import echoed, repeated

TYPE_CHECKING = False  # typing's own, without importing typing (a search's answer need not pay for it)
if TYPE_CHECKING:  # (datetime loads where a time is written as ISO 8601: a search's text page needs only its methods)
    from collections.abc import Callable, Sequence
    from datetime import datetime
    from typing import Any

    from ..core.index import Index, SessionMeta
    from ..core.model import Message
    from ..core.search import Hit, SearchResult


def iso(value: datetime | None) -> str | None:
    """ISO 8601 with an explicit offset, in the machine's local zone."""
    if value is None:
        return None
    from datetime import UTC

    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone().isoformat(timespec="seconds")


def when(value: datetime | None) -> str:
    """A short local date and time for people."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M") if value else "unknown time"


def session_json(meta: SessionMeta) -> dict[str, Any]:
    return {
        "id": meta.id,
        "source": meta.source,
        "project": meta.project,
        "project_dir": meta.project_dir,
        "project_from": meta.project_from,
        "title": meta.title,
        "started": iso(meta.started),
        "updated": iso(meta.updated),
        "messages": meta.messages,
    }


def message_json(message: Message) -> dict[str, Any]:
    return {
        "role": message.role,
        "text": message.text,
        "timestamp": iso(message.timestamp),
        "tool_calls": [
            {"name": c.name, "args": c.args, "result": c.result, "exit_code": c.exit_code} for c in message.tool_calls
        ],
    }


def show_json(meta: SessionMeta, messages: list[Message], offset: int = 0, total: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"session": session_json(meta), "messages": [message_json(m) for m in messages]}
    if offset or (total is not None and total != len(messages)):
        out["window"] = {"offset": offset, "returned": len(messages), "total": total}
    return out


#: The most words of a query no session holds a search's JSON lists, each as a message repeats a value (``echoed``):
#: a pasted log may hold thousands, and ``query`` holds them all already.
UNMATCHED_LISTED = 50


def search_json(result: SearchResult) -> dict[str, Any]:
    return {
        "query": repeated(result.query),
        "total": result.total,
        "notice": result.notice,
        "unmatched": [echoed(word) for word in result.unmatched[:UNMATCHED_LISTED]],
        "hits": [
            {
                "session_id": hit.session_id,
                "source": hit.source,
                "project": hit.project,
                "project_dir": hit.project_dir,
                "title": hit.title,
                "started": iso(hit.started),
                "updated": iso(hit.updated),
                "score": hit.score,
                "snippets": [{"role": s.role, "text": s.text, "timestamp": iso(s.timestamp)} for s in hit.snippets],
            }
            for hit in result.hits
        ],
    }


#: What a listing says for a session of no known project.
NO_PROJECT = "(no project)"


def named(folder: str) -> str:
    """A project's name or folder as a line shows it: a character that would split its row or that a terminal would
    act on written as its escape (``text.escaped``: ``multi\\nline``, ``evil\\x1b]0;…``); ``NO_PROJECT`` when empty."""
    if folder.isprintable():
        return folder or NO_PROJECT
    from ..core.text import escaped

    return escaped(folder)


def shown_projects(listed: Sequence[SessionMeta | Hit], namesakes: Sequence[str] = ()) -> list[str]:
    """The project of each of ``listed`` as a listing shows it (:func:`named`): its name, or, where another listed
    folder or one of ``namesakes`` (the index's folders of a listed name: ``project_names.namesakes``) has that name
    (``work/api``, ``legacy/api``), as much of its path as tells them apart, as ``deja stats`` and ``--project`` name
    them (``keys.labels_apart``). Both were ``api`` in ``deja sessions``, search hits and MCP ``recent`` (trial48
    F6), and one alone was ``api``, which ``--project`` refuses as naming two (review48b M3)."""
    from ..core.keys import labels_apart

    labels = labels_apart({item.project_dir for item in listed if item.project_dir}, namesakes)
    return [named(labels.get(item.project_dir, item.project)) for item in listed]


def session_line(meta: SessionMeta, project: str) -> str:
    """A session on one line, its project named as ``shown_projects`` names it."""
    return f"{meta.id}  {when(meta.updated)}  {meta.source:<10}  {project:<18}  {meta.title or '(untitled)'}"


def quoted_query(query: str) -> str:
    """The query in double quotes, as ``redaction.echoed`` repeats a value (a secret as the index holds it, cut on one
    line); in single quotes when it holds a double quote, as a shell takes a phrase (``'"off by one"'``, not
    ``""off by one""``: trial9 F8)."""
    cut = echoed(query.strip())
    return f"'{cut}'" if '"' in cut else f'"{cut}"'


def search_text(
    result: SearchResult,
    width: int | None = None,
    shown_id: Callable[[str], str] = str,
    more: str = "use --limit",
    since: datetime | None = None,
    namesakes: Sequence[str] = (),
) -> str:
    """The hits as a person reads them; with ``width`` (a terminal's), each line cut to fit it, each id as
    ``shown_id`` gives it (``short_id`` on a terminal, as ``deja sessions`` shows them); ``more``: how to see the
    sessions left out (an agent passes MCP ``search`` an argument, not a flag); ``since``: the search's, which a
    passage written before says it was (:func:`_written_when`); ``namesakes``: as :func:`shown_projects` takes them."""
    if not result.hits:
        return f"No session matches {quoted_query(result.query)}."
    notice = f"{result.notice}\n\n" if result.notice else ""
    blocks = []
    shown: dict[str, str] = {}
    for hit, project in zip(result.hits, shown_projects(result.hits, namesakes), strict=True):
        hit_id = shown_id(hit.session_id)
        lines = [
            fit(hit.title or "(untitled)", width),
            hit_line(hit, hit_id, width, project),
            *(fit(line, width) for line in _passages(hit, hit_id, shown, width, since)),
        ]
        blocks.append("\n".join(lines))
    left = result.total - len(result.hits)
    footer = (
        f"\n{left} more session{'s match' if left != 1 else ' matches'}; {more} to see {'them' if left != 1 else 'it'}."
        if left > 0
        else ""
    )
    return notice + "\n\n".join(blocks) + footer


def _passages(hit: Hit, hit_id: str, shown: dict[str, str], width: int | None, since: datetime | None) -> list[str]:
    """A hit's passages, one line each, each written before its hit's line or ``since`` saying when
    (:func:`_written_when`), on a terminal of ``width`` columns begun where its matched word fits the line
    (:func:`_in_view`); a passage a hit above showed (``shown``: text -> that hit's id, which this adds to) is said to
    be that hit's, and a hit of two passages or more that hits above showed all of is one line: chats that repeat
    another chat's turns showed one question and answer in three or four hits of a real database (trial22 N5)."""
    if len(hit.snippets) > 1 and (same := same_turn_as([snippet.text for snippet in hit.snippets], shown)):
        dated = [snippet.timestamp for snippet in hit.snippets if snippet.timestamp is not None]
        return [f"  {_written_when(min(dated, default=None), hit, since)}{same.lstrip()}"]
    lines = []
    for snippet in hit.snippets:
        written = _written_when(snippet.timestamp, hit, since)
        if snippet.text in shown:
            lines.append(f"  {snippet.role:>9}: {written}{SAME_AS.format(shown[snippet.text])}")
        else:
            lead = f"  {snippet.role:>9}: {written}"
            lines.append(lead + (snippet.text if width is None else _in_view(snippet.text, hit.matched, width, lead)))
    for snippet in hit.snippets:
        shown.setdefault(snippet.text, hit_id)
    return lines


def _written_when(written: datetime | None, hit: Hit, since: datetime | None) -> str:
    """``(2026-11-29) ``, the local day of a passage written on a day before the one its hit's line shows, or
    ``(08:00) ``, its time, when it is of that day but before ``since``; else "": a chat resumed today showed a
    passage of weeks ago under today's date as if it were today's (trial47 F2), and one of this morning under a
    search of the last six hours as if it were of them (review47e M3). A passage whose message has no time of its
    own (``Snippet.timestamp`` None) claims none."""
    if written is None or hit.updated is None:
        return ""
    local = written.astimezone()
    if local.date() < hit.updated.astimezone().date():
        return f"({local.date().isoformat()}) "
    return f"({local.strftime('%H:%M')}) " if since is not None and written < since else ""


def _in_view(text: str, matched: list[str], width: int, lead: str) -> str:
    """``text`` as a terminal's line of ``width`` columns shows it after ``lead``: whole when its first matched word
    (of ``matched``, the query's terms its hit holds) ends within the line, else begun a few words before that word,
    ``…`` for what it leaves out. A whole passage (one under ``SNIPPET_CHARS``, not cut around its match) whose word
    lay 80 characters in lost it to the cut at the width (review47k M1), as a cut one did behind a passage's date
    (review47e M2). Where no matched word is found in it (a related word matched), it is taken to be where a
    cut passage holds it, about 40 characters in (``lines.stretch``)."""
    room = width - text_columns(lead) - 1  # (the columns before the ``…`` that ``fit`` ends a cut line with)
    if text_columns(text) <= room + 1:
        return text
    from ..core.search import term_hits  # (loaded already: the search that found the passage)

    at = next(iter(term_hits(text, set(matched))), 1 + MATCH_LEAD if text.startswith("…") else 0)
    end = text.find(" ", at)
    end = len(text) if end < 0 else end
    if text_columns(text[:end]) < room:  # (and a column after it: "kafkaconsumer…" reads as a word cut)
        return text
    start = min(at, max(at - room // 3, end - room + 2))
    # (from a word's start: the first after ``start``, or the matched word itself)
    space = text.find(" ", max(start - 1, 0), at)
    start = space + 1 if space >= 0 else at
    return "…" + text[start:] if text_columns(text[start:end]) < room - 1 else "…" + text[at:]


def more_line(more: int) -> str:
    """What ends a full page of a listing (``deja sessions``, ``deja how``): how many more there are, and how to see them."""
    return f"{more} more; --limit to see them" if more != 1 else "1 more; --limit to see it"


#: The fewest columns of a project's name a narrow terminal's line keeps before it leaves out something else.
PROJECT_COLUMNS = 8


def hit_line(hit: Hit, shown_id: str, width: int | None, project: str) -> str:
    """A hit's id, source, project (as ``shown_projects`` names it) and date on one line; where ``width`` is too
    narrow, the project is cut, not the
    date (at 80 columns the 36-character id left "2024-11-1…": trial14 F9), and on a terminal too narrow for
    ``PROJECT_COLUMNS`` of it the source goes first (at 40 the project was all "…" and the date cut: trial20 F6)."""
    head, tail = f"  {shown_id} · {hit.source} · ", f" · {when(hit.updated)}"
    if width is not None:
        if width - text_columns(head + tail) < min(text_columns(project), PROJECT_COLUMNS):
            head = f"  {shown_id} · "
        project = fit(project, max(width - text_columns(head + tail), 1))
    return fit(head + project + tail, width)


#: The shortest id prefix a terminal listing shows: what ``show``, ``export`` and ``resume`` take.
SHORT_ID = 8


def session_rows(index: Index, listed: Sequence[SessionMeta], width: int | None) -> list[str]:
    """The lines of ``deja sessions`` listing ``listed`` on a terminal ``width`` wide (None: a pipe's, each line whole
    and each id in full), as ``deja demo`` shows them too."""
    if not listed:
        return []
    from ..core.project_names import namesakes

    projects = shown_projects(listed, namesakes(index, (meta.project for meta in listed)))
    project_width = max(map(text_columns, projects))
    project_width = min(project_width, 18) if width is not None else project_width  # (a pipe's lines are whole)
    ids = [meta.id if width is None else short_id(index, meta.id) for meta in listed]
    id_width = max(map(len, ids))  # (the ids padded to the longest, so the dates line up)
    project_width, own_line, project_below = _project_column(width, id_width, project_width)
    return [
        fit(line, width)
        for meta, shown_id, shown in zip(listed, ids, projects, strict=True)
        for line in session_row(meta, shown, project_width, f"{shown_id:<{id_width}}", own_line, project_below)
    ]


#: The fewest columns a title of ``deja sessions`` is cut to on its row: on a terminal narrower than that leaves, the
#: project's column is narrowed to ``views.PROJECT_COLUMNS``, and then the title goes on a line of its own below it
#: (at 40 columns a row kept one letter of it, the one thing that tells sessions apart: trial20 F6).
TITLE_COLUMNS = 20


def _project_column(width: int | None, id_width: int, project_width: int) -> tuple[int, bool, bool]:
    """The columns of the project's names on a terminal ``width`` wide (None: a pipe's, whole), whether the title goes
    on a line of its own, and whether the project goes before it there: the project's column gives way first, to
    ``PROJECT_COLUMNS``; with the title on a line of its own, it takes what id and date leave, and where they leave
    less than ``PROJECT_COLUMNS`` it goes on the title's line (ids of 36 characters at 60 columns left it "web…": trial23
    F6), cut so as to leave the title ``TITLE_COLUMNS``."""
    if width is None:
        return project_width, False, False
    least = min(project_width, PROJECT_COLUMNS)
    fixed = id_width + len("  2026-12-04 18:45  ")  # the id, the date and the blanks after each
    if width - fixed - 2 - TITLE_COLUMNS >= least:
        return min(project_width, width - fixed - 2 - TITLE_COLUMNS), False, False
    if width - fixed >= least:
        return min(project_width, width - fixed), True, False
    return min(project_width, max(PROJECT_COLUMNS, width - 4 - TITLE_COLUMNS)), True, True


def session_row(
    meta: SessionMeta, project: str, project_width: int, shown_id: str, own_line: bool, project_below: bool
) -> list[str]:
    """One session on one line, id first (what ``show`` and ``resume`` take), ``project`` (``shown_projects``'s), the
    title last, where it may be cut; with ``own_line``, the title on a second line, indented under the id; with
    ``project_below``, the project before it."""
    shown = padded(fit(project, project_width), project_width)  # (cut to its column, so the titles line up)
    title = meta.title or "(untitled)"
    if project_below:
        return [f"{shown_id}  {when(meta.updated)}", f"  {shown}  {title}"]
    if own_line:
        return [f"{shown_id}  {when(meta.updated)}  {shown.rstrip()}", f"  {title}"]
    return [f"{shown_id}  {when(meta.updated)}  {shown}  {title}"]


def short_id(index: Index, session_id: str) -> str:
    """The shortest prefix of ``session_id``, ``SHORT_ID`` characters or more, that names it alone in the index.

    A terminal's width goes to the title, not to 36 characters of UUID; a pipe still gets whole ids. A subagent's
    id (``<parent>/<child>``) keeps its parent's whole id and ``SHORT_ID`` of its own: any shorter prefix is its
    parent's (``Index.find``).
    """
    start = session_id.index("/") + 1 + SHORT_ID if "/" in session_id else SHORT_ID
    for length in range(start, len(session_id)):
        found = index.find(session_id[:length])
        if len(found) == 1 and found[0][2].id == session_id:
            return session_id[:length]
    return session_id


#: What ``show`` says of an editor chat indexed with no message (README "What deja reads").
KEPT_ELSEWHERE = (
    "Cursor keeps this chat's messages where deja cannot read them (its newer editor chats' agentKv rows);"
    " open it in Cursor's chat history."
)


def show_text(meta: SessionMeta, messages: list[Message], whole: str | None) -> str:
    """The session as a person reads it; each tool result of more than ``RESULT_HEAD`` + ``RESULT_TAIL`` lines
    shortened to its head and tail, with a line saying what ``whole`` (``deja show ID --full``, an MCP answer's
    structured content) shows whole (:func:`result_lines`); None: every result whole."""
    from ..core.readers.conversation import normalise_tool_name  # (older builds' names read as current ones)
    from .fastpath import plural

    lines = [
        meta.title or "(untitled)",
        f"{meta.id} · {meta.source} · {named(meta.project_dir or meta.project)}",
        f"{when(meta.started)} → {when(meta.updated)} · {plural(meta.messages, 'message')}",
        "",
    ]
    if not meta.messages and meta.source == "cursor-ide":
        lines.append(KEPT_ELSEWHERE)
    for message in messages:
        stamp = f" ({when(message.timestamp)})" if message.timestamp else ""
        lines.append(f"── {message.role}{stamp}")
        if message.text:
            lines.append(message.text)
        for call in message.tool_calls:
            lines.append(f"  ⚙ {normalise_tool_name(call.name)} {tool_summary(call.args)}".rstrip())
            if call.exit_code is not None:
                lines.append(f"    exit {call.exit_code}")
            if call.result:
                lines.extend("    " + line for line in result_lines(call.result, whole))
        lines.append("")
    return "\n".join(lines).rstrip()


#: The lines of a long tool result ``deja show`` shows of its head, and of its tail (where a log's error is).
RESULT_HEAD = RESULT_TAIL = 8
#: The characters of one line of a tool result ``deja show`` shows (a minified JSON is one line of 16 KiB).
RESULT_LINE = 400


def result_lines(result: str, whole: str | None) -> list[str]:
    """A tool result's lines as ``show`` gives them: with ``whole`` (what shows them all), its first ``RESULT_HEAD``
    and last ``RESULT_TAIL`` lines around one line saying how many were left out, the index's own
    ``[… 5.0 MB elided …]`` line kept under it, and each line cut to ``RESULT_LINE`` characters saying how many more
    it has. The first 12 lines alone hid a log's error, its last line, and what the index left out (trial48 F3)."""
    lines = result.splitlines()
    if whole is None:
        return lines
    from .fastpath import noun_for

    left_out = lines[RESULT_HEAD:-RESULT_TAIL]
    if len(left_out) > 1:
        from ..core.model import is_elision_line

        kept = [line for line in left_out if is_elision_line(line)]
        around = " around the line below" if kept else ""
        count = len(left_out) - len(kept)
        note = f"… {count:,} {noun_for(count, 'line')} left out{around}: {whole} shows them"
        lines = [*lines[:RESULT_HEAD], note, *kept, *lines[-RESULT_TAIL:]]
    return [line if len(line) <= RESULT_LINE else _cut_line(line, whole) for line in lines]


def _cut_line(line: str, whole: str) -> str:
    """A result's line of more than ``RESULT_LINE`` characters: its start, and how many characters more ``whole``
    shows."""
    return f"{line[:RESULT_LINE]}… ({len(line) - RESULT_LINE:,} characters more: {whole} shows them)"


def window_note(offset: int, shown: int, total: int, next_hint: str) -> str:
    """The line under a window of a long session: which messages these are and how to ask for the next ones."""
    end = offset + shown
    if not offset and end >= total:
        return ""
    more = f"; {next_hint.format(offset=end)} for the next ones" if end < total else ""
    return f"\n\n(messages {offset + 1}–{end} of {total}{more})"


def lines_within(lines: list[str], budget: int) -> list[str]:
    """The leading ``lines`` whose UTF-8 bytes, a newline each, fit in ``budget``."""
    kept: list[str] = []
    used = 0
    for line in lines:
        used += len(line.encode("utf-8")) + 1
        if used > budget:
            break
        kept.append(line)
    return kept


def tool_summary(args: dict[str, Any]) -> str:
    """The argument that says what a tool call did (its command, file, pattern…), on one line and whole: a command
    cut short is a broken one to whoever copies it (trial20 F5)."""
    from ..core.keys import TARGET_ARGS

    for key in (*TARGET_ARGS, "description"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return " ".join(value.split())
    return ""


def terminal_width() -> int | None:
    """The width a listing must fit: the terminal's (or ``COLUMNS``); None when output goes to a pipe or file."""
    import os
    import sys

    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        import shutil

        return shutil.get_terminal_size().columns
    return None


def fit(line: str, width: int | None) -> str:
    """``line`` cut to ``width`` terminal columns with an ellipsis, so the terminal never wraps it."""
    if width is None or text_columns(line) <= width:
        return line
    used = 0
    for end, char in enumerate(line):
        used += _columns(char)
        if used > width - 1:
            return line[:end] + "…"
    return line


def padded(text: str, width: int) -> str:
    """``text`` followed by spaces to fill ``width`` terminal columns, so a column after it lines up."""
    return text + " " * (width - text_columns(text))


def text_columns(text: str) -> int:
    """The terminal columns ``text`` takes: wide characters (CJK, most emoji) two, combining marks none."""
    return len(text) if text.isascii() else sum(map(_columns, text))


def _columns(char: str) -> int:
    import unicodedata

    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1
