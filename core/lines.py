"""A text as one line: what a title, an answer or an error shows where there is room for one line.

Apart from ``text.py`` (the index's tokeniser, its tables and caches): the failure hook shows what followed a past
failure on one line, and loads none of those for it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (the failure hook loads this module)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from datetime import datetime

#: How many characters a cut gives back to end between words rather than inside one; a longer word (a path, a
#: hash) is cut inside.
WORD_SLACK = 24
#: How many characters a stretch of a text (a search's snippet) keeps before the first word it was cut around.
MATCH_LEAD = 40
#: How a secret's marker starts, as ``core.redact`` writes it (``[redacted:slack-token]``): a cut never ends inside one.
MARK = "[redacted:"
#: What a shown side of a turn says in place of a text a session above it in the same answer showed: which session
#: (its id as shown there). Chats that repeat another chat's turns showed one question and answer three or four
#: times over (trial21 F5 in the prompt hook, trial22 N5 in ``deja search`` and MCP ``search``).
SAME_AS = "(the same as {}'s above)"
#: What a session's turn says in place of its sides when a session above it showed them all.
SAME_TURN_AS = "  (the same turn as {}'s above)"


def same_turn_as(texts: list[str], shown: dict[str, str]) -> str:
    """``SAME_TURN_AS`` naming the sessions above that showed every one of ``texts`` (``shown``: text -> that
    session's id as shown), in the order they come; "" when one of them is new. A turn whose question one session
    showed and whose answer another did was two lines of "(the same as X's above)", which gave nothing (trial43
    F10)."""
    if not texts or any(text not in shown for text in texts):
        return ""
    return SAME_TURN_AS.format("'s and ".join(dict.fromkeys(shown[text] for text in texts)))


def one_line(text: str, limit: int = 80, words: bool = False) -> str:
    """The first non-empty line of ``text``, trimmed to ``limit`` characters (with ``words``, between words: ``cut``)."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return cut(line, limit, words)
    return ""


def own_words(ask: str, chars: int) -> str:
    """What ``ask`` says in its own words, on one line cut between words to ``chars``: its prose lines in order, each
    pasted block among them (:func:`pasted_blocks`) given by one line of it (:func:`block_line`), so a lead-in ("Hi,",
    "Here is my docker-compose file:") is followed by the rest, a question after a pasted traceback is the question,
    and the error pasted before "help?" still says what the ask is about. ``…`` ends it where more of the ask follows.
    Line 1 alone gave "Hi, …", the lead-in, or the traceback's first line for the question (review47a H1); the whole
    ask flattened gave a pasted ``.env`` or kubeconfig as noise (trial45 F5, trial46 F7); a paste left out whole
    gave only "help?" (review47g H1).

    Its lines are read until the words fill ``chars``, and only its first ``ASK_READ`` characters: a recalled
    question of a megabyte (a pasted log) cost the prompt hook 0.3 s a side read whole."""
    words: list[str] = []
    said = 0
    head = ask if len(ask) <= ASK_READ else ask[:ASK_READ].rpartition("\n")[0] or ask[:ASK_READ]  # (whole lines)
    block: list[str] = []  # (the pasted lines read since the last prose line)
    for line, pasted in pasted_blocks(head):
        if pasted:
            block.append(line)
            continue
        for word in (block_line(block), " ".join(line.split())):
            if word:
                words.append(word)
                said += len(word) + 1
        block.clear()
        if said > chars:
            break
    words += filter(None, [block_line(block)])
    if words and len(head) < len(ask) and not words[-1].endswith("…"):
        words.append("…")
    shown = " ".join(words)
    if len(shown) <= chars:
        return shown
    return to_word(shown, chars - 1).rstrip().removesuffix("…").rstrip() + "…"


#: How much of an ask :func:`own_words` reads.
ASK_READ = 64 << 10
#: How a fenced block's first and last lines start.
FENCES = ("```", "~~~")
#: How many characters of a pasted block's line :func:`own_words` shows.
BLOCK_CHARS = 100


def block_line(block: list[str]) -> str:
    """The line that stands for a pasted ``block`` (its lines, fences too) in an ask's own words, cut to
    ``BLOCK_CHARS`` and followed by ``…`` where more of it is left out: its first line, or for a Python traceback
    in it the exception, which says what failed ("Traceback (most recent call last):" and the command run before it
    say nothing): the first line after its frames that is not indented (a log line after it is not it, review47j
    M3); "" for an empty fence."""
    lines = [line for line in block if not line.lstrip().startswith(FENCES)]
    if not lines:
        return ""
    traced = next((at for at, line in enumerate(lines) if line.startswith("Traceback (")), -1)
    exception = next((line for line in lines[traced + 1 :] if not line[:1].isspace()), "") if traced >= 0 else ""
    line = exception or _named_only(lines[0])
    shown = cut(" ".join(line.split()), BLOCK_CHARS, words=True)
    return shown if len(lines) == 1 or shown.endswith("…") else f"{shown} …"


def _named_only(line: str) -> str:
    """A pasted ``NAME=value`` line (``.env``, ``export NAME=…``, an ini's) by its name, ``DATABASE_URL=…``: its value
    is where a secret sits, and the line stands for its paste in every new chat's session-start block, where a
    secret the redaction rules missed would reach the model (review47j L1). Any other line as it is."""
    name, equals, value = line.strip().removeprefix("export ").partition("=")
    if equals and value and name and (name.replace("_", "a").replace(".", "a").replace("-", "a").isalnum()):
        return f"{name}=…"
    return line


def pasted_blocks(ask: str) -> Iterator[tuple[str, bool]]:
    """The non-empty lines of ``ask``, each with whether it was pasted rather than written: a fenced block, its
    fences too (an unclosed fence runs to the end), or a run of two lines or more (blank lines between them kept in
    it) each shaped as a config, ``.env``, log or code line (:func:`pasted_shape`). One such line alone is prose:
    "Update: the build fails on CI" is a sentence. In a run with a diff's header (``DIFF_HEADS``) every ``+``/``-``
    line is the diff's; a traceback's run goes on to its exception (:func:`exception_line`), whatever its shape
    (``Exception: db down`` reads as written, review47j M3). One pass, each line given as soon as it is known, with
    ``str``'s methods (the prompt hook loads no ``re`` and recalls questions)."""
    held = ""  # (a shaped line not yet known to start a run)
    fenced = running = diffing = tracing = False
    for line in ask.splitlines():
        if not line.strip():
            continue
        fence = line.lstrip().startswith(FENCES)
        shaped = not (fence or fenced) and (
            pasted_shape(line) or (diffing and line[:1] in "+-") or (tracing and exception_line(line))
        )
        if shaped:
            diffing = diffing or line.startswith(DIFF_HEADS)
            tracing = line.startswith("Traceback (") or (tracing and line[:1].isspace())
            if held:
                yield held, True
                held, running = "", True
            if running:
                yield line, True
            else:
                held = line
            continue
        if held:
            yield held, False
        held, running, diffing, tracing = "", False, False, False
        yield line, fence or fenced
        fenced ^= fence
    if held:
        yield held, False


def exception_line(line: str) -> bool:
    """Whether ``line``, the first unindented one after a traceback's frames, is its exception: a name alone
    (``AssertionError``) or a name and ``:`` (``Exception: db down``), not a question written after a traceback
    cut short."""
    name = line.partition(":")[0]
    return bool(name) and " " not in name.rstrip()


#: How a pasted line of code starts (after its indent, which alone makes it one).
CODE_STARTS = ("$ ", "#!", "//", "/*", "<", "{", "}", "[", "]", "(", ")", '"', "import ", "from ", "def ", "class ")
#: How a diff's header lines start, and PowerShell's error position, after which a ``+ Get-Item C:\\x`` line is the
#: command's: in a run with one, every ``+``/``-`` line is pasted (:func:`pasted_blocks`).
DIFF_HEADS = ("@@ ", "diff --git ", "+++ ", "--- ", "At line:")
#: How a pasted line of a tool's output starts: npm's log, pytest's failures and summary, a diff's headers, Go's
#: goroutine header. Each was flattened whole into an ask's words (review47g M1).
OUTPUT_STARTS = ("npm ERR!", "npm WARN", "FAILED ", "E   ", "===", "goroutine ", *DIFF_HEADS)


def pasted_shape(line: str) -> bool:
    """Whether ``line`` is shaped as a line of a pasted config, ``.env``, log, traceback, tool output or code rather
    than as one written: indented; ``KEY=VALUE``; ``key: value`` or ``key:`` (a YAML list's ``- key: value`` too), its
    key one word, as an error's ``ValueError: …`` is, but not a capitalised word with a value (``Expected: 200``,
    ``- Storage: postgres``: a written list, review47g L1); a traceback's first line; a log's time or level first
    (:func:`log_prefix`); a tool's output (``OUTPUT_STARTS``) or a diff's line (:func:`diff_line`); JSON or code by how it starts or ends (``{``, ``$ ``,
    ``;``), or a call alone (Go's frame ``main.(*Server).handle(0x0, 0xc000010000)``)."""
    if line[:1].isspace():
        return True
    line = line.rstrip()
    word = line.removeprefix("export ").split(maxsplit=1)[0]
    key = line[2:] if line.startswith("- ") else line
    head, colon, value = key.partition(":")
    return (
        ("=" in word and word[:1].isalpha() and word.partition("=")[0].replace("_", "").isalnum())
        or (bool(colon) and bool(head) and " " not in head and (not value or (value[:1] == " " and not written(head))))
        or line.startswith(("Traceback (", *CODE_STARTS, *OUTPUT_STARTS))
        or diff_line(line)
        or line.endswith((";", "{", "}"))
        or (line.endswith(")") and " " not in line.partition("(")[0])
        or log_prefix(line) > 0
    )


def diff_line(line: str) -> bool:
    """Whether ``line`` is shaped as a diff's added or removed line outside a run with a diff's header: its ``+`` or
    ``-`` followed by a name (``+PORT = 8000``) or an indent (``-    burst = 5``). A list's ``+ item`` or
    ``- item``, an arrow's ``-> click`` and an option's ``--force`` are written (review47j M2)."""
    sign, after = line[:1], line[1:3]
    return sign in ("+", "-") and bool(after) and (after[0].isalpha() or after[0] == "_" or after.isspace())


def written(key: str) -> bool:
    """Whether ``key`` (of a ``key: value`` line) is a capitalised word, as a written list's ``Goal:`` or
    ``Expected:`` is, not a config's ``image:``, an error's ``TypeError:`` or a header's ``Content-Type:``."""
    return key.isalpha() and key[:1].isupper() and key[1:].islower()


def chat_began(started: datetime | None, first_ask: str, chars: int) -> str:
    """``(chat began DATE: FIRST ASK)``, said beside the ask that resumed a chat after a gap (``ending.resumed_ask``):
    that ask and the chat's last answer belong together, its first ask is only where the chat began (trial20 F18,
    trial47 F1). The date is the local one the chat ``started`` on ("earlier" when not known)."""
    date = started.astimezone().strftime("%Y-%m-%d") if started else "earlier"
    return f"(chat began {date}: {own_words(first_ask, chars)})"


def cut(text: str, limit: int | None, words: bool = False) -> str:
    """``text`` whole when it fits in ``limit`` characters (or ``limit`` is None), else cut to them ending in ``…``:
    a cut is never taken for the whole (a command copied from it would be a broken one: trial20 F5). With ``words``,
    the cut ends between words (:func:`to_word`)."""
    if limit is None or len(text) <= limit:
        return text
    return (to_word(text, limit - 1) if words else text[: limit - 1]).rstrip() + "…"


def to_word(text: str, end: int) -> str:
    """``text[:end]``, or when ``end`` falls inside a word, up to the space before that word if it is at most
    ``WORD_SLACK`` characters back: "then `pytest -q` succe…" left an agent to guess what the run did (trial21 F8).
    Never inside a secret's marker (``[redacted:sla…`` read as a broken one: trial22 N6)."""
    marker = text.rfind(MARK, 0, end + len(MARK) - 1)  # (one the cut is in, its "[redacted:" too: review41d L1)
    if marker >= 0 and marker < end < len(text) and text.find("]", marker, end) < 0:
        end = marker
    if end >= len(text) or text[end].isspace():
        return text[:end]
    space = text.rfind(" ", 0, end)
    return text[:space] if space >= 0 and end - space <= WORD_SLACK else text[:end]


def stretch(flat: str, hits: list[int], width: int) -> str:
    """The stretch of ``flat`` (longer than ``width``) about ``width`` long holding the most of ``hits`` (where the
    words looked for start), ``…`` marking a cut end: a search's snippet, a long output line that holds an error's
    words. It starts at a word's start when one is at most ``WORD_SLACK`` characters back (review43d M1), and ends at
    a word's end the same way (:func:`to_word`): "…Load theme prefer…" and "…{ thi…" read as words broken
    (review43e L6)."""
    if not hits:
        return cut(flat, width)
    best_start, best_count, j = hits[0], 0, 0
    for i, start in enumerate(hits):
        while hits[j] < start - width + 40:
            j += 1
        if i - j + 1 > best_count:
            best_count, best_start = i - j + 1, hits[j]
    start = max(0, best_start - MATCH_LEAD)
    # (back to a word's start only nearby: minified JSON's one space far back took the window off every hit; the
    # text's start is one, no space before it: review44b L5)
    space = flat.rfind(" ", 0, start + 1)
    start = space + 1 if start and start - space <= WORD_SLACK else start
    window = to_word(flat, start + width)[start:]
    return ("…" if start else "") + window.strip() + ("…" if start + width < len(flat) else "")


#: The levels a log line begins with (after its time, if any).
LOG_LEVELS = frozenset(["trace", "debug", "info", "notice", "warn", "warning", "error", "err", "fatal", "critical"])


def log_prefix(line: str) -> int:
    """How many of ``line``'s first two words are a log's time (a digit first, 4 digits or more, a date's or a clock's
    separator: ``2026-12-04T10:24:56Z``, ``[10:24:56.120]``; not a ticket's ``SHOP-1234`` nor MySQL's ``ERROR 1045``,
    review38c L2) or level (``INFO``, ``[error]``); with the level after a time of two words, three (Python's
    ``2026-12-04 10:24:56,120 ERROR``)."""
    words = [word.strip("[]()<>:|,") for word in line.split(maxsplit=3)[:3]]
    timed = [
        word[:1].isdigit() and sum(c.isdigit() for c in word) >= 4 and any(c in word for c in ":-/.") for word in words
    ]
    count = 0
    for word, time in zip(words[:2], timed, strict=False):
        if not time and word.lower() not in LOG_LEVELS:
            break
        count += 1
    return 3 if timed[:2] == [True, True] and words[2:] and words[2].lower() in LOG_LEVELS else count
