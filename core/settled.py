"""What an answer settled, as ``wip``'s ``settled:`` line and ``ctx``'s decisions and findings give it.

An answer's first line is often no finding at all: an opener ("I'll help you apply dark mode styling to the
sidebar. Here are the necessary changes:"), with the changes in code and what they do after them; or the whole
answer is the agent saying what it is about to do ("Checking the worker."). Taken as what was settled, both read as
a conclusion that is none (trial23 F7.2, F7.9). So an answer gives the first line of its prose that says something:
not an opener or a sign-off, not a line that only announces what follows (ends in ``:``), not code, and a list item
only where nothing else does; an answer that is only such lines, or one short sentence of progress, settles nothing.
An answer's prose apart from its code (``prose_and_code``) is what the indexer keeps as its ``concluded`` too.
"""

from __future__ import annotations

import re

from .lines import one_line

#: The start of a sentence that opens or closes an answer rather than saying what was found or done: the sentence
#: goes ("I'll help you apply dark mode. The sidebar…" → "The sidebar…").
_OPENER = re.compile(
    r"(i'll|i will|i'm going to|i am going to|i'd be happy|happy to|let me|now,? let me|feel free|hope this|i hope|"
    r"if you need|if you'd like|would you like)\b",
    re.IGNORECASE,
)

#: A word of assent before what is said: it alone goes ("OK: the key lost its newline." → "the key lost…").
_INTERJECTION = re.compile(
    r"(sure|certainly|of course|great|okay|ok|alright|absolutely|good question)\b[!.,:;]*\s*", re.IGNORECASE
)

#: Where one sentence ends and the next begins.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

#: The lines that open and close a fenced code block (Markdown's).
FENCES = ("```", "~~~")

#: A list item: ``1.``, ``2)``, ``-``, ``*``, ``•``.
_LIST_ITEM = re.compile(r"(\d+[.)]|[-*•])\s")

#: Words ending in "ing" that are no verb of progress ("Nothing changed." says something).
_NOT_PROGRESS = frozenset({"anything", "bring", "during", "everything", "nothing", "something", "string", "thing"})

#: The longest answer that can be mere narration of progress ("Checking the worker.", "Now running the tests.").
_NARRATION_CHARS = 60


def settled_line(answer: str, limit: int = 240) -> str:
    """The line of ``answer`` that says what it settled, cut to ``limit`` characters; "" when it says nothing so."""
    if _narration(answer):
        return ""
    lines = [_without_opener(line) for line in _prose(answer)]
    said = [line for line in lines if line and not line.endswith(":")]
    prose = [line for line in said if not _LIST_ITEM.match(line)]
    return one_line((prose or said or [""])[0], limit)


def _prose(answer: str) -> list[str]:
    """The lines of ``answer`` outside its fenced code blocks, blanks joined."""
    return [
        joined for part in prose_and_code(answer)[0] for line in part.splitlines() if (joined := " ".join(line.split()))
    ]


def _without_opener(line: str) -> str:
    """``line`` without its opening sentences ("I'll help you with that. The cache key…" → "The cache key…");
    "" when it is only those."""
    while line:
        if assent := _INTERJECTION.match(line):
            line = line[assent.end() :][:1].upper() + line[assent.end() + 1 :]
        elif _OPENER.match(line):
            sentences = _SENTENCE_END.split(line, maxsplit=1)
            line = sentences[1] if len(sentences) == 2 else ""
        else:
            break
    return line


def _narration(answer: str) -> bool:
    """Whether ``answer`` is one short sentence of progress ("Checking the worker.", "Now running the tests…"), which
    says no result (a number, a second clause: "Running the tests again: all 42 pass." does)."""
    text = " ".join(answer.split())
    if not text or len(text) > _NARRATION_CHARS or _SENTENCE_END.search(text) or re.search(r"[\d;:]", text):
        return False
    words = re.findall(r"[a-z']+", text.lower())
    if words and words[0] in ("now", "next", "first", "then", "still", "also", "and"):
        words = words[1:]
    return bool(words) and words[0].endswith("ing") and words[0] not in _NOT_PROGRESS


def prose_and_code(text: str) -> tuple[list[str], list[str]]:
    """``text``'s prose between its fenced code blocks (the first part before the first block, the last after the
    last: empty when the text ends inside one), and the files its blocks were for (a fence's ``lang:path``, as Cursor
    writes it)."""
    parts: list[list[str]] = [[]]
    files: list[str] = []
    fence = ""
    for line in text.splitlines():
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
                parts.append([])
            continue
        if stripped.startswith(FENCES):
            fence = stripped[:3]
            info = stripped.lstrip(fence[0]).strip()
            if ":" in info and (path := info.rpartition(":")[2].strip()) and path not in files:
                files.append(path)
            continue
        parts[-1].append(line)
    if fence:
        parts.append([])
    return ["\n".join(part) for part in parts], files
