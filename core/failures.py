"""Past failures of an error, and what followed each: the part of the work history the failure hook reads.

A failed Shell command's error is looked up by its identity's key (``keys.error_key``: its message's signature,
whoever printed it) and the names it quotes; what followed a past failure is read from the messages after it.
``deja fix`` and the MCP ``work`` tool (``work.error_history``) and the failure hook (``hooks/tool_after.py``) ask
here, so they agree; the rest of the work history (blame, how, files, digests, search fallbacks) is ``work.py``'s,
which the hook does not import.
"""

from __future__ import annotations

from itertools import chain, islice

from .destructive import is_destructive
from .ending import RESUMED_AFTER, apart, resumes, seconds
from .errors import LINE_CHARS, error_lines, error_signature, is_word, is_word_char, shorter_forms
from .fields import KIND_USER
from .index import Index, Segment, edited_paths, in_project
from .keys import (
    EDIT_TOOLS,
    SHELL_TOOLS,
    command_head,
    error_key,
    last_of_chain,
    normalise_command,
    only_looks,
    session_key,
)
from .lines import one_line, stretch
from .record import Record

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (datetime named in annotations only: the hooks compare message times without its module)
    from collections.abc import Collection, Iterator
    from datetime import datetime

    from .index import SessionMeta
    from .model import Message, ToolCall

#: How far past an error the fix is looked for (messages).
FOLLOW_DOCS = 30
#: How far past an error its episode is looked at (messages, ``episode_end``): an ending further than this is not the
#: error's, and a hook's cost does not grow with the chat (1,200 questions over 40 h cost +41% instructions read to
#: the end: review48e M1).
EPISODE_DOCS = 100
#: What is said of a past failure no later run of the same command fixed within ``FOLLOW_DOCS``: the answer after
#: it is only what came next (trialG: a psql error's "what followed" was an answer about a webhook, and its edit
#: read as the fix).
NOT_RERUN = "no rerun of the failed command succeeded there"
#: How a retry that passed is said, by ``deja fix`` and the failure hook alike: the failed command itself with nothing
#: changed between (``bare_retry``: flaky, trial9 F9), or with other arguments (``rerun_differs``: review40b M1).
RERUN_SAME = "run again with nothing changed between (a flaky failure?)"
RERUN_OTHER = "run again with other arguments, nothing changed between"
#: Only the head and tail of a long output are scanned for error lines.
SCAN_CHARS = 8000


class Step(Record):
    """A command run after an error, with how it ended; destructive ones are history, never a suggestion."""

    command: str
    exit_code: int | None
    destructive: bool = False


class Fix(Record):
    """One past occurrence of an error and what followed it in that session."""

    session: SessionMeta
    timestamp: datetime | None
    error: str
    #: The failure's time in seconds since the epoch (None for none), read without a datetime where the light reader
    #: left its stamp undecoded: what the failure hook dates its heading by (a datetime loads ``_datetime``: 0.9 M).
    seconds: float | None = None
    #: The command that failed (normalised), when the failure was a Shell call.
    command: str = ""
    steps: list[Step] = []
    #: The command like the failing one that then succeeded, if one did.
    resolved_by: str = ""
    edited: list[str] = []
    answer: str = ""
    #: The message doc ``answer`` was said in (-1 for none): whether it is the session's last answer is asked of it.
    answer_doc: int = -1
    #: The error was found in a message (a user pasting it, an answer quoting it), not in a failed command's output:
    #: ``answer`` is what was said after it, which may or may not have fixed it.
    mentioned: bool = False


def not_rerun(answer: str) -> str:
    """What ``deja fix`` and the failure hook say of a failure no later run fixed (``NOT_RERUN``), with ``answer``,
    the first answer after it, given only as the next answer: it may be one to the user's next question, which the
    hook called the failure's "Concluded:" where ``deja fix`` said "the next answer" (trial46 F6)."""
    return f"{NOT_RERUN}; the next answer: {answer}" if answer else NOT_RERUN


def scan_window(output: str) -> str:
    """The head and tail of a long output, where error lines are."""
    if len(output) <= SCAN_CHARS:
        return output
    return output[: SCAN_CHARS // 2] + "\n" + output[-SCAN_CHARS // 2 :]


class ErrorMatch(Record, frozen=True):
    """Which failed call is the error asked about: one with its identity's key and the names it quotes, or, for a
    partial error, one whose output holds all its words."""

    key: str = ""
    names: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    #: The error line as asked (for a shorter form's match, the whole line it was cut from): of several failures of
    #: the key, the one to show is the one whose line is this, else the closest (``closeness``).
    asked: str = ""

    def line(self, call: ToolCall) -> str | None:
        """The error line of ``call`` that is this error, or None when the call did not fail with it."""
        output = call.result or ""
        if not call.exit_code:
            return None
        lines = error_lines(output)
        if self.words:
            lower = output.lower()
            if not all(word in lower for word in self.words):
                return None
            # the line holding most of them, an error line first: "invalid format" is none, and the output's error
            # line of another failure was shown for it (trial23 F7.3)
            return self.holding([*lines, *output.splitlines()])
        if not self.key or not all(name in output for name in self.names):
            return None
        command = call.args.get("command")
        command = command if isinstance(command, str) else ""
        of_key = [ln for ln in lines if error_key(ln, command) == self.key]
        # (one output can print several lines of the key, a pytest run's FAILED line for two tests: the one asked)
        return max(of_key, key=self.closeness) if len(of_key) > 1 and self.asked else next(iter(of_key), None)

    def closeness(self, line: str) -> tuple[bool, int]:
        """How close ``line``, a line of this error's key, is to the line ``asked``: the very line first, then the
        most of the words the key leaves out (``told_apart_by``) that both hold as whole words (``t13`` is not in
        ``test_tenant_t013``, nor ``300`` in ``step 3000``)."""
        if not self.asked:
            return False, 0
        return line == self.asked, len(told_apart_by(line) & told_apart_by(self.asked))

    def holding(self, lines: list[str]) -> str:
        """The line of ``lines`` holding the most of ``words`` (the first of those); of a line longer than an error
        line is kept (``LINE_CHARS``), the part that holds them: a failed call's 4 KB JSON body was shown whole in
        ``--json``, and its first 200 characters, none of the words, in the text (review43a M2)."""
        scored = [(sum(word in line.lower() for word in self.words), line) for line in map(str.strip, lines) if line]
        line = max(scored, key=lambda pair: pair[0], default=(0, ""))[1]
        if len(line) <= LINE_CHARS:
            return line
        flat = " ".join(line.split())
        lower = flat.lower()
        hits = sorted(at for word in self.words for at in _starts(lower, word))
        return stretch(flat, hits, LINE_CHARS - 2)  # (with its two "…")


def told_apart_by(line: str) -> set[str]:
    """The words of ``line`` (runs of ``\\w``) its signature leaves out (``errors.error_signature``: numbers, paths,
    quoted names): what tells apart failures of one key. A test's id is one word, its digits part of its name
    (``test_tenant_t013``), not a count to ignore (trial58 T5). (Read with ``str``'s methods: the failure hook loads
    no ``re``, ``tests/test_hook_imports.py``.)"""
    kept = set(_word_runs(error_signature(line)))
    return {word for word in _word_runs(line) if word.lower() not in kept}


def _word_runs(text: str) -> list[str]:
    """The runs of word characters of ``text``."""
    return "".join(char if is_word_char(char) else " " for char in text).split()


def _starts(text: str, word: str) -> list[int]:
    """Where ``word`` starts in ``text``, each time."""
    found = [text.find(word)]
    while found[-1] >= 0:
        found.append(text.find(word, found[-1] + 1))
    return found[:-1]


def failed_call(message: Message, match: ErrorMatch | None) -> tuple[ToolCall, str] | None:
    """The first failed call of ``message`` with the error ``match`` (any error without one), and its error line; of
    several (cursor-agent merges a turn's calls into one message), the one whose line is the one asked first. Only
    the outputs holding that line are read for it (one search each): reading each call's lines costs ~1 ms for a
    16 KiB output, and a message can hold 20 of them (review58e F1)."""
    failed = [call for call in message.tool_calls if call.exit_code]
    if match is None:
        return next(((call, next(iter(error_lines(call.result or "", limit=1)), "")) for call in failed), None)
    asked = match.asked
    found = next(
        (call for call in failed if asked and asked in (call.result or "") and match.line(call) == asked), None
    )
    if found is not None:
        return found, asked
    return next(((call, line) for call in failed if (line := match.line(call)) is not None), None)


def what_followed(
    segment: Segment, doc: int, head: str = "", match: ErrorMatch | None = None, dated: bool = True
) -> Fix:
    """The commands and edits after the failure at ``doc`` up to a successful run of one like it, alone or as the
    last link of a chain (``terraform force-unlock ID && terraform apply``: the shape a fix is most often run in),
    within the failure's episode (``episode_end``): work done after the chat was resumed days later, for another
    problem, read as the steps taken after this error (trial48 F2).

    The failure is the message's first failed call with the error ``match`` (a message can hold several failed
    calls: cursor-agent merges a turn's calls into one), else its first failed call. ``head`` is the failing
    command's head when the caller knows it (a hook does) and the failed call is of it (the first or last link of its
    chain); otherwise it is taken from the failed call itself, from its last link for a chain (``cd api && pytest``
    is ``pytest``'s: ``cd api && git status`` was its rerun, review41d H1): ``psql`` failing now with the error a
    ``pytest`` run printed there was told no rerun of it succeeded, which one had (trial22 N1).
    ``dated``: the fix carries the failure's time as a datetime too, not only as ``seconds``; the hooks make none for
    it (the failure hook dates its heading by ``seconds``). The messages are read one after another (``Segment.messages_along``): each inflated its session's
    records from their start again.
    """
    meta = segment.session(segment.doc(doc).ordinal)
    end = episode_end(segment, doc, min(meta.first_doc + meta.messages, doc + FOLLOW_DOCS))
    messages = segment.messages_along(range(doc, max(end, doc + 1)))
    failure = next(messages)
    found = failed_call(failure, match) or failed_call(failure, None)
    failed, error = found if found else (None, "")
    command = failed.args.get("command") if failed else None
    if isinstance(command, str):  # (a head the failed command is not of, the hook's now, judges no rerun: trial22 N1)
        ran = normalise_command(command)
        heads = _heads(ran)
        head = head if head and head in heads else heads[0] or heads[1]
    fix = Fix(
        session=meta,
        timestamp=failure.timestamp if dated else None,
        error=error,
        seconds=seconds(failure),
        command=normalise_command(command) if isinstance(command, str) else "",
    )
    asked_since = False  # (a question asked since the failure: a new task may have begun)
    for d, message in zip(range(doc, end), chain([failure], messages), strict=False):
        calls = message.tool_calls
        if d == doc and failed is not None:
            calls = calls[calls.index(failed) + 1 :]
        asked_since = asked_since or d > doc and message.role == "user" and bool(message.text.strip())
        for call in calls:
            if call.name in EDIT_TOOLS:
                fix.edited += [p for p in edited_paths(call.args, "")[:1] if p not in fix.edited]
            command = call.args.get("command")
            if call.name not in SHELL_TOOLS or not isinstance(command, str):
                continue
            command = normalise_command(command)
            if asked_since and _another_occurrence(call, match, error, command, fix.command, head):
                return fix
            fix.steps.append(Step(command, call.exit_code, is_destructive(command)))
            if call.exit_code == 0 and (not head or head in _heads(command)):
                fix.resolved_by = command
                return fix
        if d > doc and not fix.answer and message.role == "assistant" and message.text.strip():
            fix.answer, fix.answer_doc = one_line(message.text, 200), d
    return fix


def _another_occurrence(
    call: ToolCall, match: ErrorMatch | None, error: str, command: str, failed: str, head: str
) -> bool:
    """Whether ``call`` (its ``command``, normalised) failed with another occurrence of the error ``match`` than
    ``error``, the one shown (``failed``: its command): asked about after a question, it is the next one (the next
    tenant's test), not a step taken about this one; its own failing command was listed as what ran after
    ``test_tenant_t013``'s (trial58b B4). Another occurrence is a run of the same tool (``head``) whose line of the
    error differs in a word the key leaves out that is not a number (``t143``, not step ``412``), or is a run of
    another command: the same command printing other numbers after "still failing" is a retry of this one, whose
    fix was then left out (review59d F1). Only such runs' outputs are read (a build's 180 failed runs of 64 KiB
    after the question took the failure hook from 0.25 to 1.2 s, review59d F4), and one holding the line shown is
    a retry at the cost of one search."""
    if match is None or not call.exit_code or (head and head not in _heads(command)) or error in (call.result or ""):
        return False
    line = match.line(call)
    if line is None or line == error:
        return False
    return command != failed or _named_words(line) != _named_words(error)


def _named_words(line: str) -> set[str]:
    """The words of ``line`` the error's key leaves out that are no quantity (``told_apart_by``): a test's id, a
    tenant (``t013``, ``42a``, a case ``1080p``), not a step, a count nor what a rerun prints anew (review59e F5)."""
    return {word for word in told_apart_by(line) if not _quantity(word)}


#: What follows a number in a word a rerun prints anew: a duration's unit, a size's, a timestamp's zone.
UNITS = frozenset({"ns", "us", "ms", "s", "m", "h", "b", "k", "kb", "mb", "gb", "kib", "mib", "gib", "z"})


def _quantity(word: str) -> bool:
    """Whether ``word`` is a number (``412``), one with its unit (``412ms``, ``2s``, ``02Z``), an address
    (``0x7f3a``) or a timestamp's piece (``07T11``); not a case or a tenant that begins with a digit (``1080p``,
    ``42a``, ``3d``: review60a F1)."""
    lowered = word.lower()
    number = lowered.lstrip("0123456789")
    if number == lowered:
        return False
    return not number or number in UNITS or lowered.startswith("0x") or number[0] == "t" and number[1:].isdigit()


def episode_end(segment: Segment, doc: int, end: int) -> int:
    """Where the episode of the failure at message doc ``doc`` ends, looking no further than doc ``end`` (one past
    its session's messages at most) nor ``EPISODE_DOCS`` past the failure: the first question after it that resumed
    the chat (``ending.resumes``: asked hours after the message before it, as ``wip`` and the session-start block
    take a resume) for more than an answer to the agent (``_answers_the_agent``), else that bound.

    What followed the failure, and the answer its session concluded with, belong to it only up to there: a chat
    resumed a week later for a migration had its ``alembic`` runs listed under a ``psql`` error, and its last
    answer, about a flaky test, given as that error's "Concluded:" (trial48 F1, F2). Only the failure, the questions
    after it and the messages right before them are decoded, not every message of a long chat.
    """
    end = min(end, doc + EPISODE_DOCS)
    questions = [d for d in range(doc + 1, end) if segment.kind(d) == KIND_USER]
    if not questions:
        return end
    records = segment.inflating(segment.doc(doc).ordinal)
    # The last question read first inflates the records once as far as any is read (read one after another, each
    # inflated them a little further, a copy of all inflated so far each time: 29 ms for a chat of 300 questions);
    # and asked less than a gap after the failure, no question between resumed the chat (times run on through a chat).
    failure, last = segment.messages_along([doc, questions[-1]], records)
    gap = apart(last, failure)
    if gap is not None and gap < RESUMED_AFTER:
        return end
    found = failed_call(failure, None)
    command = found[0].args.get("command") if found else None
    heads = _heads(normalise_command(command)) if isinstance(command, str) else ("", "")
    for question in questions:
        before, asked = segment.messages_along([question - 1, question], records)
        if not resumes(asked, before) or _answers_the_agent(before):
            continue
        if not _reruns_first(segment.messages_along(range(question + 1, end), records), heads[0] or heads[1]):
            return question
    return end


def _answers_the_agent(before: Message) -> bool:
    """Whether a question asked after ``before``, the message before it, answers the agent: ``before`` is the agent's
    and asks ("Which Redis does staging use now?"). Answered the next morning, the work goes on with the same
    problem, and its fix is the failure's (review48e M2)."""
    return before.role == "assistant" and before.text.rstrip().endswith("?")


def _reruns_first(messages: Iterator[Message], head: str) -> bool:
    """Whether the failed command (of ``head``) succeeds in ``messages``, those after a resume, before any command
    fails: rerun the next morning and passing, the work goes on with the same error (review48e M2). Read only up to
    the next question, and only as far as the episode may reach."""
    for message in messages:
        if message.role == "user" and message.text.strip():
            return False
        for call in message.tool_calls:
            command = call.args.get("command")
            if call.name not in SHELL_TOOLS or not isinstance(command, str) or call.exit_code is None:
                continue
            if call.exit_code != 0:
                return False
            if head and head in _heads(normalise_command(command)):
                return True
    return False


def _heads(command: str) -> tuple[str, str]:
    """The heads a command runs as: its last link's (a chain's exit is that link's: "" for no chain), then its own
    (its first link's)."""
    return command_head(last_of_chain(command)), command_head(command)


def before_rerun(fix: Fix) -> list[str]:
    """What changed before the failed command, run again, succeeded, when no other command succeeded between:
    ``edited conftest.py`` and ``a destructive step (not shown)``; [] when another command ran between (that is what
    followed) or what succeeded was another command.

    Run again is the same program and subcommand (``keys.command_head``), whatever its flags and arguments: the test
    rerun with ``--repeat-each=20`` after ``=10`` failed checks the edit made between (trial20 F1). A command that
    only looks (``keys.only_looks``: ``cat``, ``git status``, ``kubectl logs``) changed nothing, and is not counted.

    "fixed by: pytest -q" for the very command that failed tells an agent that a plain retry works, while the step
    that fixed it was an edit or a withheld ``sudo rm -rf /var/lib/docker`` (trialI F2).
    """
    head = command_head(fix.command)
    if not fix.resolved_by or not head or command_head(fix.resolved_by) != head:
        return []
    between = [step for step in fix.steps[:-1] if not only_looks(step.command)]
    if any(step.exit_code == 0 and not step.destructive for step in between):
        return []
    changed = (
        [f"edited {', '.join(in_project(p, fix.session.project_dir) for p in fix.edited[:3])}"] if fix.edited else []
    )
    return changed + (["a destructive step (not shown)"] if any(step.destructive for step in between) else [])


def fixed_by(fix: Fix) -> list[str]:
    """What ``deja fix`` says fixed the failure (its "fixed by", its JSON's ``fixed_by``): what changed before the
    failed command run again succeeded (``before_rerun``), else the last commands up to the one that succeeded,
    without those that only looked; [] when none succeeded, or what did is destructive, or is the failed command
    run again with nothing changed (``bare_retry``, ``rerun_differs``)."""
    last = next((s for s in reversed(fix.steps) if s.command == fix.resolved_by), None)
    if last is None or last.destructive or bare_retry(fix) or rerun_differs(fix):
        return []
    changed = before_rerun(fix)
    if changed:
        return [*changed, fix.resolved_by]
    ran = [s.command for s in fix.steps[:-1] if not s.destructive and not only_looks(s.command)]
    return [*ran[-2:], fix.resolved_by]


def bare_retry(fix: Fix) -> bool:
    """Whether what succeeded was the failed command itself, run again with nothing else run (but a look) or edited
    between: a flaky failure, which "fixed by" the same command would call fixed by a retry (trial9 F9)."""
    return (
        bool(fix.resolved_by)
        and fix.resolved_by == fix.command
        and not fix.edited
        and all(step.command == fix.command or only_looks(step.command) for step in fix.steps)
    )


def rerun_differs(fix: Fix) -> bool:
    """Whether what succeeded was the failed command run again with other arguments (``pytest -q tests/test_a.py``
    after ``pytest -q tests/``, ``--repeat-each=20`` after ``=10``), with nothing edited and nothing run between but
    looks and failed runs of it: it passed, which names no fix ("fixed by" it would offer a retry), nor says the
    failure was flaky (it ran something else) (review40b M1)."""
    head = command_head(fix.command)
    return (
        bool(fix.resolved_by and head)
        and fix.resolved_by != fix.command
        and command_head(fix.resolved_by) == head
        and not fix.edited
        and all(
            not step.destructive and (command_head(step.command) == head or only_looks(step.command))
            for step in fix.steps
        )
    )


#: How many past sessions of one error are counted (the failure hook's ``in N past sessions``).
SESSIONS_COUNTED = 20


def past_failures(
    index: Index, window: str, limit: int, exclude: Collection[str] = (), command: str = ""
) -> Iterator[tuple[ErrorMatch, list[tuple[Segment, list[int]]]]]:
    """Per error line of ``window`` (printed by ``command``, where known): which failed calls are that error, and the
    failures of each of the ``limit`` newest past sessions it came up in (segment, its messages' docs, newest first).

    A past failure is the same error when it has the same identity (``errors.error_identity``: the message,
    whoever printed it) and printed the names the line quotes (``quoted_names``): ``deja fix`` and the failure hook
    both ask here, so they agree on what came up before. After every line's own identity come its shorter forms
    (``errors.shorter_forms``): a line that says more than the stored one (Node's ``…, watch '/x/src'``) is that error.
    A session that failed with it many times (an agent's retries, each call a posting) is one session, found by its
    newest, which alone is checked here for the quoted names; its older messages of the key among the postings read
    follow it, each once, for a caller to show the one asked (``asked_failure``). Sessions in ``exclude`` (the asking
    conversation) are left out. No session is decoded here but to check the quoted names: a caller decodes those it
    shows (the failure hook, one).
    """
    excluded = _places(index, exclude)
    lines = error_lines(window)
    for line in lines:
        yield _failures_of(index, line, line, limit, excluded, command)
    for line in lines:  # (after every line's own identity: an exact match comes first)
        for shorter in shorter_forms(line):
            yield _failures_of(index, shorter, line, limit, excluded, command)


def _failures_of(
    index: Index, line: str, asked: str, limit: int, excluded: set[tuple[str, int]], command: str
) -> tuple[ErrorMatch, list[tuple[Segment, list[int]]]]:
    """Which failed calls are the error of ``line`` (a form of the line ``asked``), and the failures of each of the
    ``limit`` newest past sessions not ``excluded`` it came up in (``past_failures``); none for a line of no
    identity."""
    match = ErrorMatch(key=error_key(line, command), names=tuple(quoted_names(line)), asked=asked)
    failures: dict[tuple[str, int], tuple[Segment, list[int]]] = {}
    if not match.key:
        return match, []
    # (a name's UTF-8 bytes: a lone surrogate's, which no decoded text holds, match no record)
    needles = [name.encode("utf-8", "surrogatepass") for name in match.names]
    for _, segment, doc in index.newest(match.key, limit=POSTINGS_READ):
        where = session_place(segment, doc)
        if where in failures:
            # (a message of 20 failed calls is 20 postings: each message once, review58e F1)
            docs = failures[where][1]
            if doc not in docs:
                docs.append(doc)
        elif (
            where not in excluded
            and len(failures) < limit  # (read on past it only for the older failures of the sessions kept)
            and (not match.names or _quotes(segment.message_holding(doc, needles), match))
        ):
            failures[where] = (segment, [doc])
    return match, list(failures.values())


#: How many of a session's messages ``asked_failure`` decodes at most: each costs a decoding and its failed calls'
#: lines read, and the failure hook's cost must not grow with the chat.
MESSAGES_READ = 12


def asked_failure(segment: Segment, docs: list[int], match: ErrorMatch) -> int:
    """Which of one session's messages failing with ``match``'s key (``docs``, newest first) to show: the newest whose
    failed call's error line is the line asked, else the one whose line is closest to it (``ErrorMatch.closeness``:
    the most words its key leaves out, whole words), the newest of those, else the newest.

    The key ignores numbers, and the digits of a test's id are its name: asked about ``test_tenant_t013``'s failure,
    ``deja fix`` showed the session's newest of that shape, ``test_tenant_t143``'s, and the answer to it (trial58 T5).
    The session's records are inflated once, and searched as bytes: the messages whose records hold the very line
    asked are decoded first, then those holding one of those words; each decoded is scored on its failed call's own
    error line (``failed_call``), not on its bytes (a timestamp's byte read as an ``8``, the line quoted in the
    agent's prose: review58e F2, F3). At most ``MESSAGES_READ`` are decoded: a chat of 200 failed 16 KiB runs took
    the failure hook 10-14 s when a record was scanned for each of its calls (review58e F1).
    """
    if len(docs) == 1 or not match.asked:
        return docs[0]
    records = segment.inflating(segment.doc(docs[0]).ordinal)
    whole = match.asked.encode("utf-8", "surrogatepass")
    words = [word.encode("utf-8", "surrogatepass") for word in told_apart_by(match.asked)]
    exact = [doc for doc in docs if whole in segment.record(doc, records)]
    rest = (doc for doc in docs if doc not in exact and _holding_any(segment.record(doc, records), words))
    best, closest = docs[0], (False, 0)
    for doc in islice(chain(exact, rest), MESSAGES_READ):
        (message,) = segment.messages_at([doc], records)
        found = failed_call(message, match)
        if found is None:
            continue
        if found[1] == match.asked:
            return doc  # (those holding the line come first, newest first)
        close = match.closeness(found[1])
        if close > closest or close == closest and doc > best:  # (the newest of the closest: docs run on in time)
            best, closest = doc, close
    return best


def _holding_any(record: bytes, words: list[bytes]) -> bool:
    """Whether ``record`` holds one of ``words`` anywhere (one C search each): a message that may be closer to the
    line asked, worth decoding (``asked_failure``). Not as whole words: that check stepped through each place a
    short word occurs in Python, 9.5 s for a chat of 16 KiB outputs of digits (review58e F1); decoding checks it."""
    return any(word in record for word in words)


def _quotes(message: Message | None, match: ErrorMatch) -> bool:
    """Whether one of ``message``'s calls failed with ``match`` (None: a message whose record lacks its names)."""
    return message is not None and any(match.line(call) is not None for call in message.tool_calls)


#: How many of an error's newest postings are read for its sessions (one per failed call: retries repeat them).
POSTINGS_READ = 200


def session_place(segment: Segment, doc: int) -> tuple[str, int]:
    """Which session ``doc`` belongs to, as (segment, ordinal): a session's one live copy, without decoding it."""
    return segment.ref.name, segment.doc(doc).ordinal


def _places(index: Index, session_ids: Collection[str]) -> set[tuple[str, int]]:
    """Where the live sessions ``session_ids`` are (:func:`session_place`), found by their id keys."""
    return {
        session_place(segment, doc)
        for session_id in session_ids
        for _, segment, doc in index.newest(session_key(session_id), limit=1)
    }


def quoted_names(line: str) -> list[str]:
    """The names an error line quotes (``Cannot find module 'lodash'``).

    The signature leaves every quoted string out, so that a path or number that changes run to run does not split
    one error in two; a quoted name without digits or a path in it is what tells apart errors that only share their
    wording (``'lodash'`` is not ``'stripe'``), and is kept here. Read with ``str``'s methods: what ``QUOTED_NAME``
    finds, less what ``NOT_A_NAME`` finds in it (``tests/test_error_scan.py``).
    """
    return [name for name in _quoted(line) if not _not_a_name(name)]


#: A quoted string not glued to a word on either side; and what makes one a path or a number, not a name.
QUOTED_NAME = r"(?<!\w)(['\"`])(.+?)\1(?!\w)"
NOT_A_NAME = r"\d|^[^@].*[/\\]"


def _quoted(line: str) -> list[str]:
    """``[name for _, name in re.findall(QUOTED_NAME, line)]``."""
    names: list[str] = []
    at = 0
    while True:
        starts = [s for s in (line.find(q, at) for q in "'\"`") if s >= 0]
        if not starts:
            return names
        start = min(starts)
        end = _closing(line, start) if not is_word(line, start - 1) else -1
        if end < 0:
            at = start + 1
            continue
        names.append(line[start + 1 : end])
        at = end + 1


def _closing(line: str, start: int) -> int:
    """Where the quote at ``start`` closes: the first of its kind after one character or more, with no word right
    after it and no line break before it; -1 if none does."""
    newline = line.find("\n", start + 1)
    end = line.find(line[start], start + 2)
    while end >= 0 and (newline < 0 or end < newline):
        if not is_word(line, end + 1):
            return end
        end = line.find(line[start], end + 1)
    return -1


def _not_a_name(name: str) -> bool:
    """Whether ``NOT_A_NAME`` finds ``name``: a decimal digit, or a slash after a first character that is no ``@``."""
    if any(char.isdecimal() for char in name):
        return True
    if name[:1] in ("", "@"):
        return False
    rest = name[1:].partition("\n")[0]
    return "/" in rest or "\\" in rest
