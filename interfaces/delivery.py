"""Whether deja's hooks run and answer: Cursor's own hook logs, and deja's ``hooks.log``.

Cursor writes its Hooks output channel to
``<Cursor user data>/logs/<launch>/<window>/output_*/cursor.hooks.*.log``: for
each hook step the command it ran, how long it took, its exit code and its
output. Lines seen in real logs::

    Hook step requested: beforeSubmitPrompt
    Executing hook 1/1 from user config
    Command: /home/u/.local/bin/deja hook-prompt (85ms) exit code: 0
    OUTPUT:
    {"additional_context": "<deja-recall>…"}
    All hooks for step preToolUse completed but none returned a valid response

with a ``[2026-09-09T09:43:55.296Z]`` (or ``2026-09-09 09:43:55.296 [info]``)
stamp on some of them. The format is undocumented, so it is read defensively:
a run is a ``Command:`` line naming ``deja hook-…`` or deja's hook launcher
(``…/deja/interfaces/hook.py hook-…``, what ``deja install`` writes); its event is the step last
named (else the command's usual event), its time the last stamp seen (else the
file's), and it returned context when its ``OUTPUT`` holds
``additional_context``. What the log cannot say is left unknown, never guessed.

deja's own ``hooks.log`` has one line per hook call (``hooks/run.py``): what it
gave, or why it stayed silent.
"""

from __future__ import annotations

import errno
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from ..core import paths
from ..core.lean_msgspec import msgspec

#: Only the newest log files, and the tail of each, are read.
LOG_FILES = 30
TAIL_BYTES = 1 << 20
#: The event a deja command usually answers, when the log does not name the step.
USUAL_EVENT = {
    "hook-context": "sessionStart",
    "hook-prompt": "beforeSubmitPrompt",
    "hook-tool": "preToolUse",
    "hook-tool-after": "postToolUse",
    "hook-session-end": "sessionEnd",
}
_STAMP = re.compile(r"^\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})?\]?")
_LEVEL = re.compile(r"^\s*\[(?:trace|debug|info|warning|warn|error)\]", re.IGNORECASE)
_STEP = re.compile(r"Hook step requested:?\s+([A-Za-z]+)")
_STEP_DONE = re.compile(r"for step\s+[A-Za-z]+\s+completed")
_COMMAND = re.compile(r"Command:\s*(.*?)\s*\((\d+)\s*ms\)\s*exit code:?\s*(-?\d+)")
#: A deja hook's command: ``<deja> hook-…``, or the launcher ``deja install`` writes, ``<python> -I -S
#: <…/deja/interfaces/hook.py> hook-…`` (``installers/entries.py``).
_DEJA = re.compile(r"(?:\bdeja(?:\.exe)?|[/\\]interfaces[/\\]hook\.py)[\"']?\s+(hook-[a-z-]+)")
_EVENT_FIELD = re.compile(r'"hook_event_name"\s*:\s*"([A-Za-z]+)"')
_DECISION = re.compile(r"^(\S+) (hook-[a-z-]+) (\S+) (\S+): (gave \d+ bytes.*|silent: .*)$")
_MILLISECONDS = re.compile(r"^([\d.]+) ms$")
_TIMED_OUT = re.compile(r"timed out after\s*(\d+)\s*ms", re.IGNORECASE)
#: How much of the line a hook wrote to stderr is kept.
STDERR_CHARS = 300


class HookRun(msgspec.Struct):
    """One run of a deja hook as Cursor logged it."""

    event: str
    command: str
    when: datetime | None
    exit_code: int
    milliseconds: int
    #: Whether its output held context for the model; None when the log shows no output for it.
    gave_context: bool | None
    log: str
    #: Cursor stopped it after this many milliseconds (0: it was not stopped).
    timed_out_ms: int = 0
    #: The last line it wrote to stderr, as Cursor logged it ("" when none): deja's hooks write nothing there, so it
    #: is Python's, when the hook could not start (a launcher moved away, a broken install).
    stderr: str = ""


class EventDelivery(msgspec.Struct):
    """Per event: how often Cursor ran deja's hook, when last, and when it last returned context; how often it
    failed (a non-zero exit, said by neither of the next two), timed out, or wrote to stderr."""

    event: str
    runs: int
    last_run: datetime | None
    last_context: datetime | None
    failures: int
    last_exit: int
    timeouts: int = 0
    #: The last timeout's limit, in milliseconds, and when it was.
    timeout_ms: int = 0
    last_timeout: datetime | None = None
    stderr_runs: int = 0
    last_stderr: str = ""
    last_stderr_at: datetime | None = None


class Delivery(msgspec.Struct):
    #: Where Cursor's hook logs were looked for.
    logs_dir: str
    #: How many hook log files were found there.
    log_files: int
    events: list[EventDelivery]


class Decision(msgspec.Struct):
    """One line of deja's ``hooks.log``: what a hook call gave, or why it stayed silent."""

    when: str
    command: str
    event: str
    conversation: str
    gave_bytes: int
    #: Why nothing was given (empty when something was).
    why: str = ""
    notes: str = ""
    milliseconds: float | None = None


def cursor_logs_dir() -> Path:
    """``<Cursor user data>/logs``: the editor's ``User`` folder's parent holds it, the folder as Cursor names it
    (``paths.ide_user_folder``: a ``User`` folder that is a link leads elsewhere)."""
    return paths.ide_user_folder().parent / "logs"


def cursor_hook_logs(folder: Path | None = None) -> list[Path]:
    """The newest of Cursor's hook log files, newest first; none where this user may not look (Cursor's folder at
    mode 000: the glob raised, and doctor stopped on a PermissionError instead of naming the folder's chmod)."""
    folder = folder or cursor_logs_dir()
    found = []
    try:
        for path in folder.glob("*/*/output_*/cursor.hooks*.log"):
            try:
                found.append((path.stat().st_mtime, path))
            except OSError:
                continue
    except OSError:
        return []
    return [path for _, path in sorted(found, reverse=True)[:LOG_FILES]]


def _stamp(line: str) -> datetime | None:
    match = _STAMP.match(line)
    if not match:
        return None
    try:
        when = datetime.fromisoformat(match.group(1).replace(" ", "T"))
    except ValueError:
        return None
    zone = match.group(2)
    if zone == "Z":
        return when.replace(tzinfo=UTC)
    if zone:
        return datetime.fromisoformat(match.group(1).replace(" ", "T") + zone)
    return when.astimezone()


def _message(line: str) -> str:
    """``line`` without the stamp and level an output channel writes before each message (``2026-09-09 09:43:55.296
    [info] OUTPUT:``), so ``OUTPUT:`` and ``STDERR:`` are seen however the line was logged."""
    if match := _STAMP.match(line):
        line = line[match.end() :]
    return _LEVEL.sub("", line, count=1).strip()


def _tail(path: Path) -> list[str]:
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - TAIL_BYTES))
        data = f.read()
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[1:] if size > TAIL_BYTES else lines


def parse_cursor_log(path: Path) -> list[HookRun]:
    """The runs of deja's hooks in one Cursor hook log (see the module docstring for the lines read)."""
    try:
        lines = _tail(path)
        fallback = datetime.fromtimestamp(path.stat().st_mtime).astimezone()
    except OSError:
        return []
    runs: list[HookRun] = []
    step, when, event_field = "", None, ""
    reading_output = reading_stderr = False
    current: HookRun | None = None  # the deja run the lines being read belong to
    for line in lines:
        stamp = _stamp(line)
        when = stamp or when
        if found := _STEP.search(line):
            step, event_field, current = found.group(1), "", None
        elif _STEP_DONE.search(line):
            step, event_field, current = "", "", None
        if found := _EVENT_FIELD.search(line):
            event_field = found.group(1)
        if found := _COMMAND.search(line):
            reading_output = reading_stderr = False
            deja = _DEJA.search(found.group(1))
            current = None
            if deja:
                command = deja.group(1)
                event = event_field or step or USUAL_EVENT.get(command, command)
                code, ms = int(found.group(3)), int(found.group(2))
                current = HookRun(event, command, when or fallback, code, ms, None, str(path))
                runs.append(current)
            continue
        reading_stderr = reading_stderr and not stamp  # (a logged message of its own ends what stderr held)
        line = _message(line)
        if current is not None and (found := _TIMED_OUT.search(line)):
            current.timed_out_ms = int(found.group(1))
            continue
        if line.startswith("STDERR:"):
            reading_output, reading_stderr = False, current is not None
            line = line.removeprefix("STDERR:").strip()
        if reading_stderr:
            if current is not None and line and line != "(empty)":
                current.stderr = line[:STDERR_CHARS]  # (a traceback's last line says what failed)
            continue
        if line.startswith("OUTPUT:"):
            reading_output = current is not None and current.gave_context is None
            line = line.removeprefix("OUTPUT:").strip()
        if reading_output and line and current is not None:
            current.gave_context = "additional_context" in line or "additionalContext" in line
            reading_output = current.gave_context is False and line != "(empty)" and not line.startswith("{}")
    return runs


def cursor_delivery(folder: Path | None = None) -> Delivery:
    """Per event, what Cursor's own logs say about deja's hooks."""
    folder = folder or cursor_logs_dir()
    files = cursor_hook_logs(folder)
    by_event: dict[str, EventDelivery] = {}
    for run in sorted((run for path in files for run in parse_cursor_log(path)), key=_order):
        seen = by_event.setdefault(run.event, EventDelivery(run.event, 0, None, None, 0, 0))
        seen.runs += 1
        seen.last_run, seen.last_exit = run.when, run.exit_code
        seen.failures += run.exit_code != 0 and not run.timed_out_ms and not run.stderr
        if run.timed_out_ms:
            seen.timeouts += 1
            seen.timeout_ms, seen.last_timeout = run.timed_out_ms, run.when
        if run.stderr:
            seen.stderr_runs += 1
            seen.last_stderr, seen.last_stderr_at = run.stderr, run.when
        if run.gave_context:
            seen.last_context = run.when
    return Delivery(str(folder), len(files), sorted(by_event.values(), key=lambda e: e.event))


def _order(run: HookRun) -> float:
    return run.when.timestamp() if run.when else 0.0


def hook_decisions(home: Path | None = None, limit: int = 50) -> list[Decision]:
    """deja's newest hook decisions from ``hooks.log`` (and the file it rotated to), oldest first."""
    home = home or paths.deja_home()
    lines: list[str] = []
    for name in ("hooks.log", "hooks.log.1"):
        try:
            lines = _tail(home / name) + lines
        except OSError:
            continue
        if len(lines) >= limit * 4:
            break
    decisions = [d for d in map(_decision, lines) if d is not None]
    return decisions[-limit:] if limit > 0 else decisions


def log_unwritable(home: Path | None = None) -> tuple[str, str] | None:
    """Why hooks.log cannot take the hooks' next lines (another user's: a ``sudo`` session's hook made or rotated
    it), and the fix; None when it can, or is not there yet. The hooks drop a line they cannot write (they never stop
    on it), so ``deja hooks log`` showed the last lines it could write as the newest, and doctor said nothing
    (trial13 F9). Opened for appending and closed: nothing is written."""
    from ..core.private import access_fix

    path = (home or paths.deja_home()) / "hooks.log"
    if not os.path.isfile(path):  # (an append would make it, and not private: the hooks make it themselves, 0600;
        return None  # ``Path.is_file`` raised for a home hidden by a folder above it this user may not search)
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc)
        return f"{path} cannot be written ({why}): the hooks' decisions since are missing from it", access_fix(path)
    return _log_without_room(path)


def _log_without_room(path: Path) -> tuple[str, str] | None:
    """hooks.log on a disk with no room left: the hooks' appends fail (they never stop on it), and an empty log,
    which a hook made and could not write its line to, read as "no deja hook has run" (trial49 F12). None while the
    disk has room: an empty log there is one a person emptied (``: > hooks.log``), or a rotation left, and "free
    space" would send them after a disk that is not full (review49d L3)."""
    try:
        found = os.statvfs(path)
    except OSError:
        return None
    if found.f_bavail * found.f_frsize >= _ROOM_FOR_A_LINE:
        return None
    said = f"{path} could not be written ({os.strerror(errno.ENOSPC)}): the hooks' decisions since are missing from it"
    return said, f"free space on the disk that holds {path.parent}; the next hook writes its line"


#: Less free space than this on hooks.log's disk and a hook's line (a few hundred bytes, a block to grow into) fails.
_ROOM_FOR_A_LINE = 64 * 1024


def _decision(line: str) -> Decision | None:
    match = _DECISION.match(line)
    if not match:
        return None
    when, command, event, conversation, rest = match.groups()
    outcome, *notes = rest.split(" | ")
    ms = _MILLISECONDS.match(notes[-1]) if notes else None
    if ms:
        notes.pop()
    gave = int(outcome.split()[1]) if outcome.startswith("gave") else 0
    why = "" if gave else outcome.removeprefix("silent: ")
    return Decision(
        _with_offset(when),
        command,
        event,
        conversation,
        gave,
        why,
        "; ".join(notes),
        float(ms.group(1)) if ms else None,
    )


def _with_offset(when: str) -> str:
    """A hooks.log time in the reader's local time with its UTC offset (``2026-12-01T09:30:00+01:00``): unambiguous
    in ``--json``. A hook writes its own offset (``+0530``; a line from before it did is taken as the reader's local
    time); a time it cannot read is kept as written."""
    try:
        return datetime.fromisoformat(when).astimezone().isoformat()
    except ValueError:
        return when


#: How many of a conversation id's first characters ``deja hooks log`` shows, when they tell it from the others shown.
CONVERSATION_CHARS = 12


def decisions_text(decisions: list[Decision]) -> str:
    """One line per decision: when, which hook and event, the conversation, and what it gave or why not. A
    conversation is named by its first 12 characters, or as many as tell it from every other one listed (two ids
    sharing their first 12 were shown alike)."""
    if not decisions:
        return f"no hook decisions in {paths.deja_home() / 'hooks.log'} yet: no deja hook has run on this machine yet"
    shown = _distinct_starts([d.conversation for d in decisions], CONVERSATION_CHARS)
    width = max(CONVERSATION_CHARS, *map(len, shown.values()))
    lines = []
    for d in decisions:
        outcome = f"gave {d.gave_bytes} bytes" if d.gave_bytes else f"silent: {d.why}"
        extra = f" ({d.notes})" if d.notes else ""
        timing = f" {d.milliseconds:.0f} ms" if d.milliseconds is not None else ""
        conversation = shown[d.conversation]
        lines.append(f"{d.when[:19]}  {d.command:<16} {d.event:<20} {conversation:<{width}}  {outcome}{extra}{timing}")
    return "\n".join(lines)


def _distinct_starts(ids: list[str], least: int) -> dict[str, str]:
    """Each of ``ids`` cut to its first ``least`` characters, or to as many as no other id begins with (whole, when
    another one begins with all of it)."""
    ordered = sorted(set(ids))
    shared = [0] * len(ordered)  # the longest start each id shares with the next or the one before
    for i, (a, b) in enumerate(zip(ordered, ordered[1:], strict=False)):
        common = len(os.path.commonprefix([a, b]))
        shared[i], shared[i + 1] = max(shared[i], common), common
    return {id_: id_[: max(least, length + 1)] for id_, length in zip(ordered, shared, strict=True)}
