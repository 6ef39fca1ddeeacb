"""How a recalled session is named in hook output: one line a model can cite and a person can follow.

A time comes as seconds since the epoch (what ``sessions.idx`` and a key's postings hold: a hook that names
sessions reads their times there, and never loads ``datetime``), or as a datetime (a search hit's).
"""

from __future__ import annotations

import time

from ..core.keys import labels_apart
from ..core.lines import cut

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from ..core.failures import Fix


def ago(when: datetime | float | None, now: float | None = None) -> str:
    """``2026-07-26, 3 days ago`` (the date in local time); ``unknown date`` for None or 0 (the index's "no time").

    Days are counted between local calendar dates, as the date is written: yesterday evening is "yesterday" this
    morning, not "today" because fewer than 24 hours have passed. From two weeks back the count is of weeks, months
    or years, as a person says it: ``748 days ago`` was hard to read beside its date (trial45 F5).
    """
    if not when:
        return "unknown date"
    seconds = when if isinstance(when, int | float) else when.timestamp()
    days = _local_day(now or time.time()) - _local_day(seconds)
    date = time.strftime("%Y-%m-%d", time.localtime(seconds))
    if days <= 0:
        return f"{date}, today"
    if days == 1:
        return f"{date}, yesterday"
    return f"{date}, {_days_said(days)} ago"


def _days_said(days: int) -> str:
    """``3 days``, ``2 weeks``, ``5 months``, ``a year``, ``2 years``: ``days`` (2 or more) in the largest unit of
    which there are at least two, but a year."""
    if days < 14:
        return f"{days} days"
    if days < 60:
        return f"{days // 7} weeks"
    if days < 365:
        return f"{days // 30} months"
    return "a year" if days < 730 else f"{days // 365} years"


def _local_day(seconds: float) -> int:
    """The local calendar date of ``seconds`` as a day number (``date.toordinal``'s, without loading datetime)."""
    moment = time.localtime(seconds)
    year = moment.tm_year - 1
    return year * 365 + year // 4 - year // 100 + year // 400 + moment.tm_yday


def heading(title: str, where: str, updated: datetime | float | None, session_id: str) -> str:
    """``- "Fix cache" (api, 2026-07-26, 3 days ago, `deja show <id>`)`` for a session or a search hit; ``where`` is
    its project as :func:`project_label` names it.

    The id is whole: sibling chats can share a long prefix.
    """
    where = f"{where}, " if where else ""
    return f'- "{cut(title or "(untitled)", 80, words=True)}" ({where}{ago(updated)}, `deja show {session_id}`)'


def project_labels(shown: Sequence[tuple[str, str]], here: str) -> list[str]:
    """How each recalled session of ``shown`` (its project's name and folder) is named to an agent working in
    ``here`` (its project folder, "" when the hook does not know it): by its name, but where another shown session's
    folder or ``here`` has the same last name, by as much of its path as tells them apart (``legacy/api`` beside
    ``shop/packages/api``: ``keys.labels_apart``).

    A project is named by its folder's last name, so another project called ``api`` read as this one: an agent
    told "(api, today) … connect to the VPN first" took another project's fix for its own (trialI F6); and two
    recalled projects called ``api`` were both ``(api, …)`` (trial48 F6).
    """
    labels = labels_apart({folder for _, folder in shown if folder}, [here] if here else [])
    return [labels.get(folder, project) for project, folder in shown]


def says_the_same(shown: str, concluded: str) -> bool:
    """Whether an answer a block shows (what followed a failure, a recalled turn's) is the session's conclusion: one
    line of the same answer, each cut at its own length (shown once, not twice)."""
    one, other = shown.rstrip("…").rstrip(), concluded.rstrip("…").rstrip()
    return bool(one and other) and (one.startswith(other) or other.startswith(one))


def followed_line(fix: Fix, concluded: str, room: int = 0, at_least: int = 0) -> str:
    """The line saying what followed a past failure (``failures.what_followed``'s ``fix``): what ``deja fix`` says
    fixed it (``failures.fixed_by``: what changed before the failed command run again succeeded, else the commands
    that did not only look), up to a successful run of one like it, else that none succeeded, with the next answer
    given (unless it is the session's conclusion, ``concluded``, shown anyway). A retry with nothing changed between
    is said to be one, as ``deja fix`` says it.

    Destructive commands (force-push, ``rm -rf``…) are never offered as what fixed it. An answer after a failure
    that was never run again successfully is not offered as its fix either (an agent would read edits to another
    file as the cure): it is said to be only what came next. With ``room``, a fix the conclusion names step by step
    is left to it ("") when the line does not fit ``room`` bytes whole (``_concluded_names``); else the line is cut
    to fit ``room``, or ``at_least`` where that is more (the share of a block it is sure to keep).
    """
    from ..core.destructive import is_destructive
    from ..core.failures import RERUN_OTHER, RERUN_SAME, bare_retry, fixed_by, not_rerun, rerun_differs

    answer = "" if says_the_same(fix.answer, concluded) else fix.answer
    if not fix.resolved_by:
        said = not_rerun(answer)
        return f"{said[:1].upper()}{said[1:]}" + ("" if answer else ".")
    if is_destructive(fix.resolved_by):
        safe = [f"`{cut(s.command, COMMAND_CHARS)}`" for s in fix.steps[:-1] if not s.exit_code and not s.destructive]
        said = ", then ".join(safe[-3:]) or answer
        return f"What followed: {said}" if said else ""
    # deja fix's "fixed by" (no look, the edit named), commands quoted; a retry's is empty: what passed is said, and how
    named = fixed_by(fix)
    how = f", {RERUN_SAME}" if bare_retry(fix) else f", {RERUN_OTHER}" if rerun_differs(fix) else ""
    followed = _WhatFollowed(named or [fix.resolved_by], {step.command for step in fix.steps}, how)
    line = followed.line(COMMAND_CHARS)
    if not room or len(line.encode()) <= room:
        return line
    return "" if _concluded_names(named, fix.command, concluded) else followed.within(max(room, at_least))


#: How long a command "What followed" quotes may be (characters); where the line does not fit its room, shorter
#: (``SHORTER``, in UTF-8 bytes, as the room is).
COMMAND_CHARS = 120
SHORTER = (80, 56, 40, 28)
#: The last length tried, without how it succeeded: a command cut so is still named by its program and first words,
#: and the line that is given when none fits its room, which ``headed`` then cuts at its end (trial53).
SHORTEST = 20


class _WhatFollowed:
    """The steps that followed a failure up to the run that succeeded (``fixed_by``'s: edits named, commands), as a
    line: each command quoted and cut to a length, then "succeeded" and how."""

    def __init__(self, steps: list[str], commands: set[str], how: str) -> None:
        self.steps, self.commands, self.how = steps, commands, how

    def line(self, chars: int, how: bool = True, of_bytes: bool = False) -> str:
        """The line, each command cut to ``chars`` characters, or with ``of_bytes`` to as many as fit ``chars``
        UTF-8 bytes (``_chars_within``)."""
        steps = [
            f"`{cut(step, _chars_within(step, chars) if of_bytes else chars)}`" if step in self.commands else step
            for step in self.steps
        ]
        return f"What followed: {', then '.join(steps)} succeeded{self.how if how else ''}"

    def within(self, room: int) -> str:
        """The line within ``room`` bytes if it can be: its commands cut shorter, every step kept (the first is most
        often the fix; the last, the failed command run again), then without how it succeeded ("run again with
        other arguments"). Cut at the end instead, it lost what it says, "succeeded" (trial22 N4), and counting the
        steps left out dropped the fix (review41d M1). Each shorter form cuts its commands to so many characters or
        to so many UTF-8 bytes, and the longest that fits is taken: cut by characters only, a command named in
        Japanese fit none of them, and the cut at the end took "succeeded" (review53c F2); by bytes only, such a
        command was cut shorter than a form of characters that fitted (review53f F4). For ASCII both are one."""
        with_how = [self.line(size, of_bytes=of_bytes) for size in SHORTER for of_bytes in (False, True)]
        without = [
            self.line(size, False, of_bytes)
            for size in (COMMAND_CHARS, *SHORTER, SHORTEST)
            for of_bytes in (False, True)
        ]
        for forms in (with_how, without):
            if fitting := [line for line in forms if len(line.encode()) <= room]:
                return max(fitting, key=lambda line: len(line.encode()))
        return self.line(SHORTEST, False, of_bytes=True)


def _chars_within(text: str, size: int) -> int:
    """How many of ``text``'s first characters fit ``size`` UTF-8 bytes (never part of one): ``size`` for ASCII."""
    return len(text.encode()[:size].decode("utf-8", "ignore"))


def _concluded_names(fixed_by: list[str], failed: str, concluded: str) -> bool:
    """Whether the session's conclusion names each step that fixed the failure (the failed command's own rerun
    aside): "Concluded" then says what "What followed" would, and where both did not fit 512 bytes, each was cut to a
    fragment ("then `pytest -q tests/test_orders.py` succe…", trial21 F8)."""
    steps = [step for step in fixed_by if step != failed]
    return bool(steps) and all(_says(concluded, step) for step in steps)


def _says(text: str, step: str) -> bool:
    """Whether ``text`` names ``step`` as a whole (not ``npm test`` in "npm tests"), a step of one word quoted as
    code on its own: ``make`` is named by "ran `make`", not by "make sure" nor by "`make test`" (review41c, review42a)."""
    from ..core.errors import word_at

    return f"`{step}`" in text if " " not in step else word_at(text, step, ("",))


def outcome(concluded: str, stopped: str) -> str:
    """How a session ended, as a block says it: ``stopped after `X` failed: …`` when it stopped on a failed command
    (``core.ending``: its last answer was written before the failure), else ``concluded: …``; "" for neither."""
    return stopped or (f"concluded: {concluded}" if concluded else "")
