"""Work history: which sessions edited a file, what followed an error, how a command was run, where work stopped.

The hooks push these answers into a chat; the CLI's and the MCP server's work
verbs (``blame``, ``files``, ``fix``, ``how``, ``wip``, ``ctx``) ask for them
directly. Everything here reads the prebuilt index through its exact lookup
keys (``keys.py``) or a search shortlist, never the whole history. Search is
imported where it is used. Past failures of an error and what followed them are
``failures.py``'s: the failure hook reads those and imports none of this.
"""

from __future__ import annotations

import io
import os
from datetime import datetime
from functools import partial

from .destructive import is_destructive
from .ending import resumed_ask, stopped_after
from .errors import error_lines
from .failures import (
    SESSIONS_COUNTED,
    ErrorMatch,
    Fix,
    Step,
    asked_failure,
    failed_call,
    past_failures,
    scan_window,
    what_followed,
)
from .fields import KIND_ASSISTANT, KIND_USER
from .index import Index, Segment, asked_paths, edited_paths, filed_paths, in_project
from .keys import (
    EDIT_TOOLS,
    SHELL_TOOLS,
    call_folder,
    disk_path,
    drive_path,
    normalise_command,
    path_key,
    project_spelling,
    readable_path,
    within,
)
from .lines import POLITE_WORDS, one_line
from .model import Message
from .record import Record
from .regular_files import open_regular
from .settled import ends_on_a_next_step, ends_on_a_question, gives_steps, settled_line, where_it_stopped
from .topic import summarised_part

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # Cursor's attribution database is read by blame alone: no digest loads its reader
    # (nor pathlib and datetime, named in annotations only)
    from collections.abc import Callable, Iterator
    from datetime import datetime
    from pathlib import Path

    from .index import SessionMeta
    from .model import Message, ToolCall
    from .readers.ai_tracking import Attribution


class Place(Record, frozen=True):
    """A message of a session, for ``deja show``."""

    session: SessionMeta
    segment: Segment
    doc: int

    @property
    def message(self) -> Message:
        return self.segment.message(self.doc)


def place(segment: Segment, doc: int) -> Place:
    return Place(session=segment.session(segment.doc(doc).ordinal), segment=segment, doc=doc)


# --------------------------------------------------------------------------- edits


class Edit(Record):
    """One edit tool call: what a session changed in a file."""

    session_id: str
    title: str
    project: str
    timestamp: datetime | None
    tool: str
    path: str
    old: str
    new: str


def edit_texts(call: ToolCall) -> tuple[str, str]:
    """(old text, new text) of an edit tool call, whatever tool wrote it."""
    return _edit_texts(call.args)


def _edit_texts(args: dict) -> tuple[str, str]:
    if isinstance(args.get("edits"), list):
        pairs = [_edit_texts(e) for e in args["edits"] if isinstance(e, dict)]
        return "\n".join(o for o, _ in pairs), "\n".join(n for _, n in pairs)
    old = args.get("old_string", args.get("old_str", ""))
    new = args.get(
        "new_string",
        args.get("new_str", args.get("contents", args.get("content", args.get("code_edit", args.get("patch", ""))))),
    )
    return (old if isinstance(old, str) else ""), (new if isinstance(new, str) else "")


def _edits_in(place_: Place, wanted: Callable[[str], bool]) -> Iterator[Edit]:
    """The edits of the message at ``place_`` filed under a path ``wanted`` takes."""
    meta = place_.session
    message = place_.message
    for call in message.tool_calls:
        if call.name not in EDIT_TOOLS:
            continue
        path = next((p for p in filed_paths(call.args, meta.project_dir) if wanted(p)), None)
        if path is not None:
            old, new = edit_texts(call)
            yield Edit(meta.id, meta.title or meta.asked, meta.project, message.timestamp, call.name, path, old, new)


def file_edits(index: Index, path: str, limit: int = 50) -> list[Edit]:
    """The edits of ``path`` (absolute, or as the sessions named it), newest first."""
    paths = {path, path.rstrip("/"), *asked_paths(path, "")}
    seen: set[tuple[int, int]] = set()
    edits: list[Edit] = []
    runs = [run for p in paths for run in index.newest(path_key(p), limit=limit)]
    runs.sort(key=lambda run: run[0], reverse=True)
    for _, segment, doc in runs:
        key = (id(segment), doc)
        if key in seen:
            continue
        seen.add(key)
        edits.extend(_edits_in(place(segment, doc), paths.__contains__))
    return edits[:limit]


def line_in(text: str, line: str) -> bool:
    """Whether ``line`` (stripped, not blank) is one of the lines of ``text``."""
    wanted = line.strip()
    return bool(wanted) and any(candidate.strip() == wanted for candidate in text.splitlines())


#: How long a one-line replacement's new text must be to say on its own that it wrote a line holding it: a short one
#: (``True`` → ``False``, ``1`` → ``2``, a renamed name) is in many lines it never touched.
_SPECIFIC_LENGTH = 16


def line_writer(edits: list[Edit], line: str) -> Edit | None:
    """The newest of ``edits`` (newest first) that wrote ``line``: one whose new text holds it and whose old text
    did not (mere context), or one that replaced part of it (StrReplace takes any unique substring:
    :func:`_replaced_within`)."""
    for at, edit in enumerate(edits):
        if line_in(edit.new, line):
            if not line_in(edit.old, line):
                return edit
        elif _replaced_within(edit, line, edits[at + 1 :]):
            return edit
    return None


def _replaced_within(edit: Edit, line: str, older: list[Edit]) -> bool:
    """Whether ``edit`` replaced part of ``line``: a one-line new text the line holds, for an old one it no longer
    does, and either the line with the old text put back is one an older edit wrote (the file had it before) or the
    new text is long enough to be specific. A Write has no old text: its contents are whole lines, or say nothing of
    a line that merely holds them."""
    new, old = edit.new.strip(), edit.old.strip()
    if not (new and old) or "\n" in new or new not in line or old in line:
        return False
    if len(new) >= _SPECIFIC_LENGTH:
        return True
    before = line.replace(new, old, 1)
    return any(line_in(earlier.new, before) for earlier in older)


class Blame(Record):
    """A file's edits newest first, the sessions that discussed it, and with a line, which chat wrote that line."""

    path: str
    edits: list[Edit]
    discussed: list[SessionMeta]
    line: int | None = None
    line_text: str | None = None
    #: The newest edit that wrote the line (deja's own evidence: ``line_writer``).
    wrote_line: Edit | None = None
    #: Cursor's attribution rows for the file, the line's own first, with the indexed session of each.
    attributions: list[tuple[Attribution, SessionMeta | None]] = []


class BadLocation(LookupError):
    """A ``PATH[:LINE]`` that names no file or no line (a usage error); the message says what to give."""


def split_location(target: str) -> tuple[str, int | None]:
    """``PATH[:LINE]`` -> (absolute path, line or None); a Windows drive's colon is part of the path.

    An empty target would be the current folder, and ``app.py:abc`` or ``app.py:0`` a file of that name that
    is not there: each is BadLocation rather than an answer about something the user did not ask for.
    """
    if not target.strip():
        raise BadLocation("give a file to blame: `deja blame app.py`, or `deja blame app.py:12` for a line")
    path, _, line = target.rpartition(":")
    if path and line.isdigit() and int(line) > 0:
        return _absolute(path), int(line)
    if path and _meant_as_line(path, line) and not os.path.exists(target):
        from .redaction import PATH_CHARS, echoed

        raise BadLocation(f"{echoed(target, PATH_CHARS)!r}: a line must be a positive number, as in app.py:12")
    return _absolute(target), None


def _absolute(path: str) -> str:
    """``path`` made absolute in the current folder, unless it already is one, a Windows drive's (``c:\\Users\\…``,
    ``c:/Users/…``) included: ``deja files`` lists such paths from a database written on Windows, and ``blame`` joined
    them to the current folder and found no edit (trial43 F6). A drive's path is spelt as the index files it
    (``projects.uri_dir``: the drive in lowercase, backslashes), however it was typed."""
    if drive_path(path):
        return path[0].lower() + path[1:].replace("/", "\\")
    return os.path.abspath(os.path.expanduser(path))


def _meant_as_line(path: str, after: str) -> bool:
    """Whether ``PATH:AFTER`` reads as a file and a line: ``AFTER`` is no path (``C:\\src`` is a drive's)."""
    drive = len(path) == 1 and path.isalpha()
    return bool(after) and not drive and not any(c in after for c in "/\\")


def read_line(path: str, number: int) -> str:
    """Line ``number`` of the file at ``path``; LookupError (one line saying why) when there is none."""
    try:
        with io.TextIOWrapper(open_regular(path), encoding="utf-8", errors="replace") as handle:
            for i, line in enumerate(handle, 1):
                if i == number:
                    return line.rstrip("\n")
    except OSError as exc:
        from .redaction import PATH_CHARS, echoed

        raise LookupError(
            f"cannot read {echoed(path, PATH_CHARS)}: {exc.strerror or exc}; give a file that exists to blame a line"
        ) from None
    raise LookupError(f"{path} has fewer than {number} lines")


def blame(index: Index, target: str, tracking_db: Path, limit: int = 20) -> Blame:
    """The sessions that edited or discussed ``PATH``; with ``PATH:LINE``, which chat wrote that line."""
    from .search import Filters, search

    on_disk, line = split_location(target)
    path = readable_path(on_disk)  # the index's spelling of a folder not named in UTF-8 (trial10 F6)
    edits = file_edits(index, path, limit=limit)
    name = os.path.basename(path)
    # the project holding the file, searched alone: sixty sessions of another project saying settings.py took the
    # search's fifty places from this one's (review40b M3); a name no session holds finds none, not every `.py`
    project = index.nearest_project(os.path.dirname(path))
    named = search(
        index, f'"{name}"', filters=Filters(project=project or None), limit=50, snippets=0, phrases_veto=True
    )
    if not edits and project:
        edits = _edits_spelt_elsewhere(index, path, [hit.session_id for hit in named.hits], limit)
    editing = {e.session_id for e in edits}
    discussed = [
        meta
        for hit in named.hits
        if hit.session_id not in editing
        for segment, _, meta in index.find(hit.session_id)[:1]
        if _holds(meta.project_dir, path) and _names(segment, meta, name)
    ]
    discussed.sort(key=lambda meta: meta.updated.timestamp() if meta.updated else 0.0, reverse=True)
    discussed = discussed[:5]
    if line is None:
        return Blame(path, edits, discussed)
    from .readers.ai_tracking import attributions
    from .redaction import as_indexed

    raw = read_line(disk_path(on_disk), line)
    text = as_indexed(raw)  # shown, and matched with the edits as the index holds them: redacted like them
    wrote = line_writer(edits, text)
    found = attributions(tracking_db, path, raw)[:5]  # (Cursor's own record of the line, as the file has it)
    pairs = [(a, next((m for _, _, m in index.find(a.conversation_id)[:1]), None)) for a in found]
    return Blame(path, edits, discussed, line, text, wrote, pairs)


def _edits_spelt_elsewhere(index: Index, path: str, session_ids: list[str], limit: int) -> list[Edit]:
    """The edits, newest first, that these sessions made to ``path`` (absolute, in their project's folder) where
    another machine spelt that folder: ``c:\\Users\\me\\app\\src\\x.ts`` for ``src/x.ts`` asked in ``~/code/app``, a
    Windows database opened here (trial43 F6: ``blame`` said no session edited the file ``files`` gave 6 edits of).
    An edit matches when its path is the file's path in a folder named as the project (``_home``): a file of the
    same name elsewhere in the project (``chat\\packages\\chat\\src\\x.ts``: the project's name repeated in it,
    review44d M5) or in another project is not taken. Of the folders of that name a session edited the file in, the
    one it edited it in first is the project: the edits alone cannot tell the project from a copy of it edited beside
    it (``d:\\backup\\chat\\src\\x.ts``, ``/tmp/chat/src/x.ts``: review44f L3), and a count of the files edited in
    each credited the copy the session edited more of, or a folder of that name in another project's tree that
    holds no edit of the file (``c:\\me\\web\\app`` for ``server.ts`` in ``~/code/app``: review45b M1)."""
    edits: list[Edit] = []
    for session_id in session_ids:
        for segment, _, meta in index.find(session_id)[:1]:
            inside = in_project(path, meta.project_dir)
            if inside == path:
                continue
            folder = os.path.basename(meta.project_dir.rstrip("/"))
            elsewhere = partial(_spelt_elsewhere, folder=folder, here=meta.project_dir)
            places = (
                Place(session=meta, segment=segment, doc=doc)
                for doc in range(meta.first_doc, meta.first_doc + meta.n_docs)
            )
            found = [edit for place_ in places for edit in _edits_in(place_, elsewhere)]
            of_file = [
                edit for edit in found if _parts(edit.path) == [*_home(edit.path, folder), *_parts(inside, edit.path)]
            ]
            first = _home(of_file[0].path, folder) if of_file else []
            edits += [edit for edit in of_file if _home(edit.path, folder) == first]
    edits.sort(key=lambda edit: edit.timestamp.timestamp() if edit.timestamp else 0.0, reverse=True)
    return edits[:limit]


def _parts(path: str, spelt: str = "") -> list[str]:
    """The names of ``path``'s folders and file, in any case where ``spelt`` (``path`` itself when not given) is a
    Windows drive's path: that machine's names match whatever their case (``Chat\\src`` is ``chat/src``)."""
    parts = path.replace("\\", "/").split("/")
    return [part.casefold() for part in parts] if drive_path(spelt or path) else parts


def _spelt_elsewhere(recorded: str, folder: str, here: str) -> bool:
    """Whether the path an edit ``recorded`` is another machine's, spelt in a folder named as the project's
    (``folder``): a Windows drive's where the project's folder ``here`` is not (or the other way round). A path spelt
    as this machine spells the project's is a file on this machine: outside the project, a copy of it
    (``/tmp/chat/src/x.ts``), not the project's file."""
    return drive_path(recorded) != drive_path(here) and _parts(folder, recorded)[0] in _parts(recorded)


def _home(recorded: str, folder: str) -> list[str]:
    """The folder named ``folder`` (the project's name) that the path an edit ``recorded`` is in, as its parts
    (``_parts``): the outermost of that name, since one nested in the project (``mysite/mysite``) is a folder of the
    project, not the project."""
    parts = _parts(recorded)
    return parts[: parts.index(_parts(folder, recorded)[0]) + 1]


def _holds(project_dir: str, path: str) -> bool:
    """Whether ``path`` (absolute) is in ``project_dir``, as written or where its links lead: a session that names
    ``index.ts`` in another project, or in none known, speaks of another file."""
    return bool(project_dir) and any(in_project(p, project_dir) != p for p in {path, *asked_paths(path, "")})


def _names(segment: Segment, meta: SessionMeta, name: str) -> bool:
    """Whether the session names the file ``name`` (its title, a message, a tool call's input or output), as a file:
    alone or at a path's end (``settings.py``, ``shop/settings.py``), not inside another name (``nosettings.py``,
    ``settings.pyc``). A search for ``"nosuch.py"`` that no session holds drops the quotes and finds sessions by
    ``py`` alone (trial20 F13: five unrelated sessions "also discussed" a file no chat named)."""
    if names_file(meta.title, name):
        return True
    for message in segment.messages_along(range(meta.first_doc, meta.first_doc + meta.messages)):
        texts = [message.text]
        for call in message.tool_calls:
            texts += [value for value in call.args.values() if isinstance(value, str)]
            texts.append(call.result or "")
        if any(names_file(text, name) for text in texts):
            return True
    return False


def names_file(text: str, name: str) -> bool:
    """Whether ``text`` holds the file name ``name`` with no other letter of a name around it: no letter, digit,
    ``_``, ``-`` or ``.`` before it, and none of the first three after it, nor a ``.`` that goes on (``.bak``), nor
    a slash (``app/settings.py`` names the folder ``app``, not a file: review40b L4)."""
    at = text.find(name) if name else -1
    while at >= 0:
        end = at + len(name)
        before, after, then = text[at - 1 : at], text[end : end + 1], text[end + 1 : end + 2]
        if not _in_name(before, ".") and not _in_name(after, "/\\") and not (after == "." and _in_name(then, "")):
            return True
        at = text.find(name, at + 1)
    return False


def _in_name(char: str, also: str) -> bool:
    """Whether ``char`` (one character, or "" at either end) is one a file's name goes on with: a letter, a digit,
    ``_``, ``-``, or one of ``also``."""
    return bool(char) and (char.isalnum() or char in "_-" or char in also)


# --------------------------------------------------------------------------- errors


class ErrorHistory(Record):
    """The newest past sessions an error came up in, one entry a session, and how many sessions it came up in."""

    fixes: list[Fix]
    #: Counted up to ``SESSIONS_COUNTED``, whatever number is shown: the failure hook, ``deja fix`` and the MCP
    #: ``work`` tool say the same count.
    sessions: int


def error_history(
    index: Index, output: str, head: str = "", limit: int = 10, exclude: frozenset[str] = frozenset()
) -> ErrorHistory:
    """Past sessions where the error in ``output`` came up, newest first, one entry a session (its failure whose line
    is the one asked, else the closest, else its newest: ``failures.asked_failure``), with what followed; at most
    ``limit`` of them.

    The same error identity (what the failure hook computes) is looked up
    first; a person's partial or reworded error falls back to the failed calls
    of the sessions a search for its words finds; and where no failed command
    printed it, to the messages that hold it (an error pasted into an editor
    chat, which has no tool calls, is how most editor users meet one).
    """
    for match, failures in past_failures(index, scan_window(output), SESSIONS_COUNTED, exclude):
        if failures:
            fixes = [
                what_followed(segment, asked_failure(segment, docs, match), head, match)
                for segment, docs in failures[:limit]
            ]
            return ErrorHistory(fixes, len(failures))
    words = _error_words(output)
    fixes = _searched_failures(index, words, SESSIONS_COUNTED, exclude) or _mentions(
        index, words, SESSIONS_COUNTED, exclude
    )
    return ErrorHistory(fixes[:limit], len(fixes))


def _error_words(output: str) -> tuple[str, ...]:
    """The words (three characters or more, at most twelve) of ``output``'s first error line, as written: what a
    partial or reworded error is searched for by (``_searched_sessions``), and in lowercase (``_lowered``) looked for
    in the messages. Searched as written: a search reads ``OOMKilled`` as the camel-case word it is, ``oomkilled``
    as a word no message holds (trial20 F11: ``deja fix OOMKilled`` said it never came up). Only the whole line's:
    a shorter form's words would find any failure that shares its head, whatever its tail says (review50a M1); a
    shorter form is looked up only as an error's identity (``failures.past_failures``)."""
    import re

    line = (error_lines(output, limit=1) or [output.strip()])[0]
    return tuple(re.findall(r"\w{3,}", line)[:12])


def _lowered(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(word.lower() for word in words)


def _searched_sessions(
    index: Index, words: tuple[str, ...], limit: int, exclude: frozenset[str]
) -> Iterator[tuple[Segment, SessionMeta]]:
    """The sessions a search for ``words`` finds, best first, less those in ``exclude``."""
    from .search import search

    for hit in search(index, " ".join(words), limit=limit * 2, snippets=0).hits:
        if hit.session_id not in exclude:
            for segment, _, meta in index.find(hit.session_id)[:1]:
                yield segment, meta


def _word_needles(words: tuple[str, ...]) -> list[bytes]:
    """The ASCII ones of ``words`` (lowercase) as bytes, for ``Segment.message_holding(folded=True)``: a message whose
    text holds them all, whatever their case, is decoded, and no other (the fallbacks of ``deja fix`` read whole
    sessions: most messages lack the words). A word outside ASCII is left to the check on the decoded text."""
    return [word.encode() for word in words if word.isascii()]


def _newest_first(fixes: list[Fix], limit: int) -> list[Fix]:
    fixes.sort(key=_when, reverse=True)
    return fixes[:limit]


def _when(fix: Fix) -> float:
    """When ``fix`` came up, as its line dates it: its message's time, else its session's last (an old Chat panel
    tab's messages keep none: sorted as the oldest, they came last under "newest first", trial44b F3)."""
    when = fix.timestamp or fix.session.updated
    return when.timestamp() if when else 0.0


def _searched_failures(index: Index, words: tuple[str, ...], limit: int, exclude: frozenset[str]) -> list[Fix]:
    """The newest failed call whose output holds every one of ``words``, in each session a search finds (any failed
    call of a message, not only its first)."""
    if not words:
        return []
    match = ErrorMatch(words=_lowered(words))
    needles = _word_needles(_lowered(words))
    fixes = []
    for segment, meta in _searched_sessions(index, words, limit, exclude):
        for doc in reversed(range(meta.first_doc, meta.first_doc + meta.n_docs)):
            message = segment.message_holding(doc, needles, folded=True)
            if message is not None and failed_call(message, match):
                fixes.append(what_followed(segment, doc, match=match))
                break
    return _newest_first(fixes, limit)


def _mentions(index: Index, words: tuple[str, ...], limit: int, exclude: frozenset[str]) -> list[Fix]:
    """The first message holding every one of ``words`` in each session a search finds, in its own text or in what
    one of its tool calls printed, with the answer that closed its turn (``Fix.mentioned``): the error as a person
    pasted it, an answer quoted it or a command that did not fail printed it (``kubectl logs … | grep jwt``,
    ``kubectl describe pod``'s ``Exit Code: 137``: "has not come up" was said of those, which ``deja search`` found
    first, trial48b F3), where no failed command printed it. Likeliest to tell the fix first (``_likeliest_first``)."""
    ranked: list[tuple[tuple[bool, bool, bool], Fix]] = []
    lowered = _lowered(words)
    needles = _word_needles(lowered)
    for segment, meta in _searched_sessions(index, words, limit, exclude) if words else ():
        for doc in range(meta.first_doc, meta.first_doc + meta.n_docs):
            message = segment.message_holding(doc, needles, folded=True)
            found = _holding_words(message, lowered) if message is not None else None
            if found is None:
                continue
            said, command, in_code = found
            answer = _closed_turn_answer(segment, meta, doc)
            fix = Fix(
                session=meta,
                timestamp=message.timestamp if message else None,
                error=one_line(said, 200),
                command=command,
                answer=one_line(answer, 200),
                mentioned=True,
            )
            ranked.append(((in_code, not settled_line(answer), bool(command)), fix))
            break
    return _likeliest_first(ranked, limit)


def _likeliest_first(ranked: list[tuple[tuple[bool, bool, bool], Fix]], limit: int) -> list[Fix]:
    """The fixes by their rank, then newest first: a code search's match last (the error's text in a test or a
    handler: no error happened), and before the rest, one whose turn closed on an answer that says what was found or
    done (``settled_line``), then one pasted or quoted before one a command printed. By date alone, four newer
    ``rg`` matches and turns with no answer filled the five shown, and the twelve fixes came from the tenth on
    (review49c M1)."""
    ranked.sort(key=lambda pair: _when(pair[1]), reverse=True)
    ranked.sort(key=lambda pair: pair[0])  # (stable: newest first within a rank)
    return [fix for _, fix in ranked[:limit]]


def _closed_turn_answer(segment: Segment, meta: SessionMeta, doc: int) -> str:
    """The text of the answer that closed the turn of message doc ``doc`` (``search.closing_answer``); "" for none, and
    for a turn that never closed: the chat ends in it, on the agent's next step ("Let me check the node's clock.",
    ``ends_on_a_next_step``), which answered nothing (review49c M3). A turn closed on a question to the user that says
    nothing found or done ("Can you share the log?") and gives no steps or code ("1. Run …" then "Did that work?" did:
    review50a M2) answered nothing either: its last answer that did say so stands for it, else none (fixn49)."""
    from .search import closing_answer

    answer = closing_answer(segment, meta, doc, doc + 1)
    if answer is None:
        return ""
    text = segment.message(answer).text
    end = meta.first_doc + meta.n_docs
    if ends_on_a_next_step(text) and all(segment.kind(d) != KIND_USER for d in range(answer + 1, end)):
        return ""
    if ends_on_a_question(text) and not settled_line(text) and not gives_steps(text):
        return _last_settling_answer(segment, doc + 1, answer)
    return text


def _last_settling_answer(segment: Segment, first: int, end: int) -> str:
    """The text of the last assistant message of docs ``first`` to ``end`` (not included) that says what was found or
    done (``settled_line``); "" for none."""
    for d in range(end - 1, first - 1, -1):
        if segment.kind(d) == KIND_ASSISTANT and settled_line(text := segment.message(d).text):
            return text
    return ""


def _holding_words(message: Message, lowered: tuple[str, ...]) -> tuple[str, str, bool] | None:
    """Where ``message`` holds every one of ``lowered`` (lowercase words): the line of its text holding them (its text
    when no one line does), with "" and False; else the line of a tool call's output holding the most of them
    (``ErrorMatch.holding``), with the call's command (normalised; "" for a call of no command) and whether that
    line is one of a file's, read or searched (``_code_line``); None when neither holds them all."""
    lines = [ln for ln in message.text.splitlines() if all(w in ln.lower() for w in lowered)]
    if lines or all(w in message.text.lower() for w in lowered):
        return (lines[0] if lines else message.text), "", False
    for call in message.tool_calls:
        output = call.result or ""
        if all(w in output.lower() for w in lowered):
            command = call.args.get("command")
            command = normalise_command(command) if isinstance(command, str) else ""
            held = ErrorMatch(words=lowered).holding(output.splitlines())
            return held, command, _code_line(held, command if call.name in SHELL_TOOLS else None)
    return None


#: The programs that search files for a text, as a Shell command's first word (``git grep`` as ``git``).
_SEARCHERS = frozenset({"rg", "grep", "egrep", "fgrep", "ag", "ack", "findstr", "git"})


def _code_line(line: str, command: str | None) -> bool:
    """Whether ``line``, printed by a tool call, is a line of a file rather than an error that happened: a match of
    a search over files (``tests/test_auth.py:40:    with pytest.raises(…)``, a path with an extension other than a
    log's, then ``:``) that a Shell ``command`` whose first program searches files printed, or that a tool of its own
    (``command`` None: Cursor's Grep, Read) printed, or a numbered line such a tool read (``    40|  raise …``). A log
    grepped (``kubectl logs … | grep jwt``, ``grep -rn jwt logs/``) prints what happened."""
    import re

    first = os.path.basename(command.split(maxsplit=1)[0]) if command else ""
    if command is not None and (first not in _SEARCHERS or first == "git" and " grep " not in f"{command} "):
        return False
    path_match = re.match(r"\s*[\w./\\~-]*\.(?!(?:log|out|err|txt)\b)[A-Za-z]\w*:(?:\d+[:-])?", line)
    return bool(path_match) or command is None and bool(re.match(r"\s*\d+\s*\|", line))


# --------------------------------------------------------------------------- commands


class Invocation(Record):
    """One real run of a command."""

    command: str
    exit_code: int | None
    timestamp: datetime | None
    session_id: str
    project: str
    cwd: str = ""


def _shell_calls(message: Message) -> Iterator[tuple[str, ToolCall]]:
    for call in message.tool_calls:
        command = call.args.get("command")
        if call.name in SHELL_TOOLS and isinstance(command, str) and command.strip():
            yield normalise_command(command), call


def how_scope(index: Index, folder: str) -> tuple[str, Callable[[SessionMeta], bool] | None]:
    """The project whose runs ``deja how`` (and the MCP ``work`` tool's ``how``) count from ``folder``: the folder,
    or the nearest above it that sessions ran in (``Index.nearest_project``); and, when that is a folder above it,
    which of the project's sessions ran "here": those in ``folder`` or below it, and the project's own, opened at its
    folder, which ran commands anywhere in it; not a sibling's (``shop/api`` seen from ``shop/web/src``), the Shell
    pre-hook's rule (``hooks.scope.Scope``). None: every one of them."""
    project = index.nearest_project(folder) or folder
    if project_spelling(folder) == project_spelling(project):
        return project, None
    return (
        project,
        lambda meta: (
            within(meta.project_dir, folder) or project_spelling(meta.project_dir) == project_spelling(project)
        ),
    )


class Runs(Record):
    """The runs ``invocations`` found, and the words of the query it left out to find them (``words_run``): none
    when a run has every word."""

    runs: list[Invocation]
    left_out: list[str]


def invocations(
    index: Index,
    words: str,
    project: str | None = None,
    limit: int | None = 20,
    sessions: Callable[[SessionMeta], bool] | None = None,
) -> Runs:
    """The commands this machine ran that contain every one of ``words`` (or of those ``words_run`` keeps when no
    command has them all), newest first (the first ``limit``, or all when it is None); with ``sessions``, only those
    of the sessions it accepts (the caller's rule of which of ``project``'s sessions are "here")."""
    if not words.split():
        return Runs([], [])
    ran: list[Invocation] = []
    for segment, meta in _sessions_searched(index, words, project, sessions):
        for doc in range(meta.first_doc, meta.first_doc + meta.n_docs):
            message = segment.message(doc)
            for command, call in _shell_calls(message):
                folder = call_folder(call.args, meta.project_dir)
                when = message.timestamp or meta.updated
                ran.append(Invocation(command, call.exit_code, when, meta.id, meta.project, folder))
    kept, left_out = words_run(words, [run.command.lower() for run in ran])
    wanted = [word.lower() for word in kept]
    found = [run for run in ran if all(w in run.command.lower() for w in wanted)]
    # Newest first; runs that share a turn's time keep their order, the later one first.
    order = {id(run): n for n, run in enumerate(found)}
    found.sort(key=lambda run: (run.timestamp.timestamp() if run.timestamp else 0.0, order[id(run)]), reverse=True)
    return Runs(found[:limit], left_out)


#: Words that ask how something is run rather than name it ("run the tests", "how to use alembic"): left out of
#: ``deja how``'s words when no run has them all, only before every word that names a thing: after one they are its
#: subcommand (``cargo run``, ``docker run``, ``nvm use``).
RUN_WORDS = frozenset(
    {"run", "runs", "ran", "running", "execute", "executed", "command", "commands", "invoke", "use", "used", "using"}
)
#: The function words of a question, left out wherever they stand when no run has every word: none is a subcommand of
#: a common tool (docker, kubectl, git, npm, cargo), unlike the search's stopwords (``up``, ``down``, ``get``, ``out``,
#: ``all``: ``deja how docker compose down`` listed ``docker compose up -d``, review50c M1).
QUESTION_WORDS = frozenset({"the", "a", "an", "how", "to", "i", "we", "our", "my", "do", "did", "does"})


def words_run(words: str, commands: list[str]) -> tuple[list[str], list[str]]:
    """The words of ``words`` a run of ``commands`` (lowercased) must contain, and those left out, as given: all of
    them when one run has them all; else all but the phrasing of a question (``QUESTION_WORDS``, and ``RUN_WORDS``
    before the first word naming a thing), unless that is all there is. ``deja how run the tests`` found nothing
    where ``deja how tests`` listed ``pytest tests/…`` (trial50 F4); a word that names the thing (``cargo build``
    where no cargo ran, ``docker compose down`` where only ``up`` ran) still finds no run."""
    given = words.split()
    if any(all(word.lower() in command for word in given) for command in commands):
        return given, []
    kept: list[str] = []
    left_out: list[str] = []
    for word in given:
        phrasing = word.lower() in QUESTION_WORDS or (not kept and word.lower() in RUN_WORDS)
        (left_out if phrasing else kept).append(word)
    return (kept, left_out) if kept else (given, [])


#: How many sessions ``invocations`` reads the runs of: the newest of the ``INVOCATION_POOL`` a search finds best.
INVOCATION_SESSIONS = 50
#: How many sessions a search for a command's words finds, of which the newest are read: the best fifty of seventy
#: alike were no newest fifty, and `deja how` listed runs with older ones missing between (review40b M7).
INVOCATION_POOL = 200
#: How many a search may be widened to, to find that many among those a caller accepts.
INVOCATION_SEARCH_MOST = 3200


def _sessions_searched(
    index: Index, words: str, project: str | None, accepted: Callable[[SessionMeta], bool] | None
) -> list[tuple[Segment, SessionMeta]]:
    """The newest ``INVOCATION_SESSIONS`` of the best ``INVOCATION_POOL`` sessions of ``project`` for ``words`` that
    ``accepted`` takes, newest first.

    A search of the project cut to that many before the caller's rule (``deja how`` from ``shop/web/src``: the
    project's own sessions and those below the folder) lost the project's own to a sibling's many (``shop/api``),
    and said nothing ran: the search is widened until it finds enough, or finds no more."""
    from .search import Filters, search

    limit = INVOCATION_POOL
    while True:
        hits = search(index, words, filters=Filters(project=project), limit=limit, snippets=0).hits
        by_id = {meta.id: (segment, meta) for segment, _, meta in _sessions(index, {h.session_id for h in hits})}
        chosen = [by_id[hit.session_id] for hit in hits if accepted is None or accepted(by_id[hit.session_id][1])]
        if len(chosen) >= INVOCATION_POOL or len(hits) < limit or limit >= INVOCATION_SEARCH_MOST:
            chosen.sort(key=lambda pair: pair[1].updated.timestamp() if pair[1].updated else 0.0, reverse=True)
            return chosen[:INVOCATION_SESSIONS]
        limit *= 4


def _sessions(index: Index, ids: set[str]) -> Iterator[tuple[Segment, int, SessionMeta]]:
    for id_ in ids:
        yield from index.find(id_)[:1]


# --------------------------------------------------------------------------- files of a topic


class FileUse(Record):
    """A file the work on a topic touched."""

    path: str
    edits: int = 0
    reads: int = 0
    sessions: list[str] = []
    last: datetime | None = None
    words_held: int = 0  # the most words of the query a session that touched it holds: the files of those come first


#: How many of the sessions that match a topic best ``topic_files`` reads the files of.
TOPIC_SESSIONS = 20


def topic_files(
    index: Index,
    words: str,
    project: str | None = None,
    limit: int = 30,
    sessions: Callable[[SessionMeta], bool] | None = None,
) -> list[FileUse]:
    """Which files the sessions matching ``words`` edited or read, those of the sessions holding the most of the words
    first, then most edited: the best ``TOPIC_SESSIONS`` of
    ``project``'s, or, with ``sessions``, of those it accepts (the caller's rule of which are "here": ``how_scope``).

    A file the words name comes first; then the files of the sessions that hold the most of the words: every
    project's answer put the seven edits of a bulk chat one word matched above the files of the chat that held them
    all (trial50 F5), as it had another project's file before the CLI kept to this project (trial45 F2)."""
    from .search import Filters, search

    pool = TOPIC_SESSIONS if sessions is None else INVOCATION_POOL
    hits = search(index, words, filters=Filters(project=project), limit=pool, snippets=0).hits
    by_id = {meta.id: (segment, meta) for segment, _, meta in _sessions(index, {h.session_id for h in hits})}
    chosen = [by_id[hit.session_id] for hit in hits if sessions is None or sessions(by_id[hit.session_id][1])]
    held = {hit.session_id: len(hit.matched) for hit in hits}  # how many of the words each session holds
    uses: dict[str, FileUse] = {}
    for segment, meta in chosen[:TOPIC_SESSIONS]:
        for message in segment.messages(meta):
            for call in message.tool_calls:
                touched = filed_paths(call.args, meta.project_dir)  # the last: absolute, as the disk has it
                if not touched:
                    continue
                use = uses.setdefault(touched[-1], FileUse(path=touched[-1]))
                if call.name in EDIT_TOOLS:
                    use.edits += 1
                else:
                    use.reads += 1
                if meta.id not in use.sessions:
                    use.sessions.append(meta.id)
                when = message.timestamp or meta.updated
                if when and (use.last is None or when > use.last):
                    use.last = when
    named = {use.path for use in uses.values() if asks_for_file(words, use.path)}
    for use in uses.values():
        use.words_held = max(held[session] for session in use.sessions)
    ranked = sorted(
        uses.values(),
        key=lambda u: (u.path not in named, -u.words_held, -u.edits, -len(u.sessions), -u.reads, u.path),
    )
    return ranked[:limit]


def asks_for_file(words: str, path: str) -> bool:
    """Whether a word of ``words`` names the file at ``path``: its name (``LiveChart.tsx``, in any case) or the end
    of its path (``components/LiveChart.tsx``, ``.github/workflows/ci.yml``), or, without its extension, a name no
    topic word is spelt as (``LiveChart``: its capitals inside; ``cache`` is a topic as often as ``cache.py``), as a
    file without one and with a capital is (``Dockerfile``, ``Makefile``, in any case). A file the user named comes
    first in ``deja files`` whatever other file the chats edited more (README.md above
    ``src/components/LiveChart.tsx``: trial48b F10)."""
    tail = "/" + path.replace("\\", "/").lower()
    name = path.replace("\\", "/").rpartition("/")[2]
    stem = name.partition(".")[0].lower()
    named = "." not in name and name != name.lower()  # (``Dockerfile``, ``Makefile``, ``LICENSE``: a name, no word)
    for part in words.split():
        typed = _typed_path(part)
        word = typed.lower()
        if not word:
            continue
        if "." in word or "/" in word:
            if tail.endswith("/" + word):
                return True
        elif word == stem and (named or typed[1:] != word[1:]):  # (a capital after the first letter: a name)
            return True
    return False


#: What a path typed relative to a folder starts with, which its file's path does not hold as typed.
RELATIVE_STARTS = ("./", "../", "~/")


def _typed_path(word: str) -> str:
    """``word`` as a path's end: without the quotes and punctuation around it (a sentence's ``?`` or ``.`` after it)
    and without ``./``, ``../`` or ``~/`` before it, but with a dotfile's own dot (``.env``,
    ``.github/workflows/ci.yml``: taking every leading dot off made them ``env`` and matched no file, review48g)."""
    typed = word.lstrip("'\"`,;:()").rstrip("'\"`,;:()?!.")
    while typed.startswith(RELATIVE_STARTS):
        typed = typed.partition("/")[2]
    return typed


# --------------------------------------------------------------------------- a session's digest


class Digest(Record):
    """What a session was for and where it stopped: the shape of ``wip`` and ``ctx``."""

    session: SessionMeta
    goal: str
    settled: list[str]
    files: list[str]
    commands: list[Step]
    last_command: Step | None
    #: The last answer's last sentences (``settled.where_it_stopped``), not the whole answer.
    stopped: str
    #: ``stopped after `X` failed: …`` when the session's last event is a command that failed after its last answer
    #: (``core.ending``); "" when not. Its last answer, written before, is then not among ``settled``.
    failed_last: str = ""
    #: What the chat is asked now: ``goal``, or the first ask after the chat was resumed (``ending.resumed_ask``).
    task: str = ""
    #: When that ask resumed the chat; None when it was never resumed (``task`` is ``goal``).
    resumed: datetime | None = None
    #: The newer sessions ``deja wip`` passed over for this unfinished one, newest first: questions they settled
    #: (``library.wip_session``); none for ``ctx``.
    newer: list[SessionMeta] = []
    #: A later session of the same project that speaks of reverting this one's work, and its line that does
    #: (:func:`reverted_later`; ``ctx`` only).
    reverted: tuple[SessionMeta, str] | None = None


def digest(segment: Segment, meta: SessionMeta, max_items: int = 8) -> Digest:
    """Goal, what was settled, files edited, commands that mattered and where the session stopped."""
    messages = segment.messages(meta)
    goal = next((m.text.strip() for m in messages if m.role == "user" and m.text.strip()), meta.title)
    resumed = resumed_ask(messages)
    # A long chat whose title names a later turn: its task and what it settled are that part's (trial48b F5).
    part = summarised_part(messages, meta.title)
    first, end = (part[0], part[2]) if part else (0, len(messages))
    said_at = [at for at, m in enumerate(messages) if m.role == "assistant" and m.text.strip()]
    answers = [messages[at].text.strip() for at in said_at]
    files: list[str] = []
    commands: list[Step] = []
    for message in messages:
        for call in message.tool_calls:
            if call.name in EDIT_TOOLS:
                shown = [in_project(p, meta.project_dir) for p in edited_paths(call.args, "")[:1]]
                files += [p for p in shown if p not in files]
        for command, call in _shell_calls(message):
            commands.append(Step(command, call.exit_code, is_destructive(command)))
    # The commands that mattered: failures and what succeeded after them, else the last ones.
    mattered = [s for i, s in enumerate(commands) if s.exit_code or (i and commands[i - 1].exit_code)]
    failed_last = stopped_after(messages)
    # what the part settled; the last answer before a failure is an intent ("Running the migration.") that settles nothing
    settled = [
        answers[n] for n, at in enumerate(said_at) if first <= at < end and not (failed_last and at == said_at[-1])
    ]
    said = [line for answer in settled if (line := settled_line(answer))]  # (not "I'll help you…": trial23 F7.2)
    return Digest(
        session=meta,
        goal=goal,
        settled=said[-3:],
        files=files[-max_items:],
        commands=_first_runs(mattered or commands)[-max_items:],
        last_command=commands[-1] if commands else None,
        stopped=where_it_stopped(answers[-1]) if answers else "",
        failed_last=failed_last,
        task=resumed.text.strip() if resumed else messages[first].text.strip() if part else goal,
        resumed=resumed.timestamp if resumed else None,
    )


def _first_runs(steps: list[Step]) -> list[Step]:
    """``steps`` without repeats of one command ending the same way: an agent retrying a failing command thirty
    times would otherwise push out of a digest the failure that started it (the first run is kept)."""
    seen: set[tuple[str, int | None]] = set()
    first = []
    for step in steps:
        if (step.command, step.exit_code) not in seen:
            seen.add((step.command, step.exit_code))
            first.append(step)
    return first


#: How many later sessions of a project that say "revert" and match a session's title are read for one that reverted it.
REVERT_READ = 3


def reverted_later(index: Index, meta: SessionMeta) -> tuple[SessionMeta, str] | None:
    """A session of ``meta``'s project begun after it was last updated that says it reverted, or asks to revert,
    something in a message naming at least two of ``meta``'s title's words (all of a title of one), and its line that
    says so (:func:`_reverts`); None for none.

    A fix a later session undid ("redis memory keeps climbing since we raised max_connections. revert that";
    ``git revert``) came first, unmarked, for "how did we finally fix …" (trial48b F4): ``deja ctx`` names the later
    session, which a person reads before taking the fix. It is no proof of a revert, only that one was spoken of:
    not "No, nothing to revert", "should we revert anything?", nor "revert the css change" in a chat that names the
    fix's words elsewhere (review49b M1)."""
    from .search import Filters, search
    from .text import terms

    wanted = set(terms(meta.title)) - set(terms("revert"))  # (a later "revert" is what is looked for, not a match)
    if not wanted or not meta.project or meta.updated is None:
        return None
    filters = Filters(
        project=meta.project_dir or meta.project,
        since=meta.updated,
        exclude_ids=frozenset([meta.id]),
        pattern=r"(?i)\brevert",
    )
    for hit in search(index, meta.title, filters=filters, limit=REVERT_READ, snippets=0).hits:
        if hit.started is None or hit.started < meta.updated:
            continue
        segment = index.segments[hit.best[0]]
        later = segment.session(segment.doc(hit.best[1]).ordinal)
        for message in segment.messages(later):
            if len(wanted & set(terms(message.text))) < min(2, len(wanted)):
                continue
            if said := next((line for line in message.text.splitlines() if _reverts(line)), ""):
                return later, one_line(said, 200)
    return None


def _reverts(line: str) -> bool:
    """Whether a sentence of ``line`` says a revert was done or is to be done ("reverted max_connections to 50",
    "revert it, the pool size fix did not help", ``git revert 3f2a1c9``) or asks for one ("can you revert the
    max_connections fix?", "can we revert it?": :func:`_asks_for`): one naming ``revert…`` that no negation of the
    revert itself comes before (:func:`_negated`: "nothing to revert", "don't revert", "I don't think we need to
    revert it"), and not a question that only weighs one ("should we revert anything?"). A "not" elsewhere in it is
    about something else (review49e M3)."""
    for sentence in line.replace("? ", "?\n").replace(". ", ".\n").replace("! ", "!\n").splitlines():
        words = [word.strip(",.;:!?()`'\"").lower() for word in sentence.split()]
        at = [place for place, word in enumerate(words) if word.startswith("revert")]
        if not at or (sentence.rstrip().endswith("?") and not _asks_for(words[: at[0]])):
            continue
        if not all(_negated(sentence.split()[:place]) for place in at):
            return True
    return False


def _asks_for(before: list[str]) -> bool:
    """Whether the words ``before`` a question's revert word ask for it: a request's opening (``REQUEST_OPENERS``:
    "can you", "please", "can we"), then only polite words (``lines.POLITE_WORDS``) or who is to do it ("could you
    just revert it?"). "would we revert it if…?" and "will we revert it?" weigh a revert (review50a L2)."""
    return " ".join(before[:2]).startswith(REQUEST_OPENERS) and all(w in POLITE_WORDS or w in ASKED_OF for w in before)


def _negated(before: list[str]) -> bool:
    """Whether the words ``before`` a revert word, in its own clause, negate it: a negation up to ``NEGATION_REACH``
    words before it ("No, nothing to revert", "there is no need to revert", "we did not revert"), or further back
    with only words of hedging and need between ("I don't think we need to revert it": ``NEGATION_BRIDGE``). A bare
    "No" opening the sentence answers the one asked, and bridges to nothing ("No we need to revert it": review50a
    L1)."""
    near: list[str] = []
    for word in reversed(before):
        if word.endswith((",", ";", ":")):
            break
        near.append(word.strip(",.;:!?()`'\"").lower())
    opening = len(near) - 1 if len(near) == len(before) else -1
    return any(
        (word in NEGATIONS or word.endswith("n't"))
        and (
            place < NEGATION_REACH
            or (not _answers_no(near, place, opening) and all(w in _bridge(near, place) for w in near[:place]))
        )
        for place, word in enumerate(near)
    )


def _bridge(near: list[str], place: int) -> frozenset[str]:
    """The words the negation at ``place`` of ``near`` reaches a revert word through (``NO_WAY_BRIDGE`` after "no
    way", else ``NEGATION_BRIDGE``)."""
    return NO_WAY_BRIDGE if _no_way(near, place) else NEGATION_BRIDGE


def _no_way(near: list[str], place: int) -> bool:
    """Whether the word at ``place`` of ``near`` (a clause's words backwards) is the "no" of "no way"."""
    return near[place] == "no" and place > 0 and near[place - 1] == "way"


def _answers_no(near: list[str], place: int, opening: int) -> bool:
    """Whether the word at ``place`` of ``near`` (a clause's words backwards from a revert word) is a bare "No" opening
    the sentence, which answers the one asked ("No we need to revert it"); "No way we are going to revert it" negates
    the revert (stop 50's leftover: it counted as one)."""
    return place == opening and near[place] in ANSWERS_NO and not _no_way(near, place)


#: The words that make a revert word that follows them say there was none ("No, nothing to revert").
NEGATIONS = frozenset({"no", "not", "nothing", "never", "none", "without", "cannot"})
#: How many words before a revert word a negation of it may stand ("no need to revert").
NEGATION_REACH = 3
#: The words a negation reaches a revert word through however many there are: who, hedging and need ("I don't
#: think we really need to revert it"); past any other word a negation is about something else ("I didn't expect
#: the tests to pass after reverting it").
NEGATION_BRIDGE = frozenset(
    "i we you it think really actually need needs have has to should must want any point reason".split()  # noqa: SIM905
)
#: After "no way", also the words of what is to come ("No way we are going to revert it"): after any other negation
#: they carry it across a clause typed without a comma ("Not really we are going to revert it": review52a F2).
NO_WAY_BRIDGE = NEGATION_BRIDGE | frozenset(
    "way is are going gonna will we'll we're".split()  # noqa: SIM905
)
#: Who a polite question may ask to revert besides the one asked (:func:`_asks_for`: "can we revert it?").
ASKED_OF = frozenset({"we", "just"})
#: How a question asking for a revert opens (:func:`_asks_for`); never "would we" nor "will we" (review50a L2).
REQUEST_OPENERS = ("can you", "could you", "would you", "will you", "can u", "could u", "can we", "could we", "please", "pls")  # fmt: skip
#: A sentence's first word that answers the one asked, not negating what follows (:func:`_negated`).
ANSWERS_NO = frozenset({"no", "nope", "nah"})
