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


def first_line(ask: str, limit: int = 80) -> str:
    """A chat's title from its first ``ask`` (``one_line``), or where that line was pasted its own words
    (:func:`own_words`): every new chat's session-start block heads a session with its title, and a pasted log's
    first line carried its values there (review47k). A first line that only sets a number or a version
    (``status: 502``) is followed by the question about it (review49b L3)."""
    line, pasted = next(pasted_blocks(ask), ("", False))
    return own_words(ask, limit) if pasted or _one_value(line) else one_line(ask, limit)


def own_words(ask: str, chars: int) -> str:
    """What ``ask`` says in its own words, on one line cut between words to ``chars``: its prose lines in order, each
    pasted block among them (:func:`pasted_blocks`) given by one line of it (:func:`block_line`), so a lead-in ("Hi,",
    "Here is my docker-compose file:") is followed by the rest, a question after a pasted traceback is the question,
    and the error pasted before "help?" still says what the ask is about. ``…`` ends it where more of the ask follows.
    Line 1 alone gave "Hi, …", the lead-in, or the traceback's first line for the question (review47a H1); the whole
    ask flattened gave a pasted ``.env`` or kubeconfig as noise (trial45 F5, trial46 F7); a paste left out whole
    gave only "help?" (review47g H1).

    Its lines are read until the words fill ``chars``, and of a longer ask than ``ASK_READ`` characters only its start
    and its last ``ASK_TAIL`` (:func:`ask_read`): a recalled question of a megabyte (a pasted log) cost the prompt hook
    0.3 s a side read whole."""
    words: list[str] = []
    said = 0
    block: list[str] = []  # (the pasted lines read since the last prose line)
    for line, pasted in pasted_blocks(ask_read(ask)):
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
    shown = " ".join(words)
    if len(shown) <= chars:
        return shown
    return to_word(shown, chars - 1).rstrip().removesuffix("…").rstrip() + "…"


def ask_read(ask: str) -> str:
    """What :func:`own_words` reads of ``ask``: all of it up to ``ASK_READ`` characters; of a longer one, its whole
    lines in its first ``ASK_READ - ASK_TAIL`` characters and in its last ``ASK_TAIL``, with ``SKIPPED`` between.
    A question after a traceback longer than ``ASK_READ`` (a recursion's) was past what was read, and the ask read
    as the traceback's first line (review47k)."""
    if len(ask) <= ASK_READ:
        return ask
    start, end = ask[: ASK_READ - ASK_TAIL], ask[-ASK_TAIL:]
    start, end = start.rpartition("\n")[0] or start, end.partition("\n")[2] or end  # (whole lines)
    return f"{start}\n{SKIPPED}\n{end}"


#: How much of an ask :func:`own_words` reads, and of that how much from its end.
ASK_READ, ASK_TAIL = 64 << 10, 16 << 10
#: What stands between the start and the end of an ask read in part (:func:`ask_read`): indented, so the lines of a
#: paste it is in are one block across it, and alone between prose lines it shows as a word.
SKIPPED = "    …"
#: How a fenced block's first and last lines start.
FENCES = ("```", "~~~")
#: How many characters of a pasted block's line :func:`own_words` shows.
BLOCK_CHARS = 100


def block_line(block: list[str]) -> str:
    """The line that stands for a pasted ``block`` (its lines, fences too) in an ask's own words, cut to
    ``BLOCK_CHARS`` and followed by ``…`` where more of it is left out: what it says failed (:func:`failure_line`),
    else its first line without what may be a value in it (:func:`without_values`); "" for an empty fence. The line
    reaches every new chat's session-start block, where a value the redaction rules missed would reach the model
    (review47j L1, review47k)."""
    lines = [line for line in block if not line.lstrip().startswith(FENCES)]
    if not lines:
        return ""
    line = failure_line(lines) or without_values(lines[0])
    shown = cut(" ".join(line.split()), BLOCK_CHARS, words=True)
    return shown if len(lines) == 1 or shown.endswith("…") else f"{shown} …"


#: How a Python traceback starts, and a ``SyntaxError``'s, which has no ``Traceback`` line when the file would not
#: compile: with its frame (review47k).
TRACE_HEADS = ("Traceback (", 'File "')
#: How a line that says what failed starts: npm's, pytest's, Rust's, a compiler's, Go's, git's and PostgreSQL's.
FAILURE_STARTS = ("npm ERR!", "FAILED ", "E   ", "error[", "error: ", "panic: ", "fatal: ", "ERROR: ", "FATAL: ")


def failure_line(lines: list[str]) -> str:
    """What a paste's ``lines`` say failed, "" when they say it nowhere: a Python traceback's exception, the first
    line after its frames that is not indented and is shaped as one (:func:`exception_line`; a log line after it is
    not it, review47j M3), where "Traceback (most recent call last):" and the command run before it say nothing; else
    its first error line (:func:`error_line`): pytest's ``E   assert 10 == 12`` after its session's header, npm's
    error after its warnings."""
    traced = next((at for at, line in enumerate(lines) if line.lstrip().startswith(TRACE_HEADS)), len(lines))
    exception = (line for line in lines[traced + 1 :] if not line[:1].isspace() and exception_line(line))
    return next(exception, "") or next((line for line in lines if error_line(line)), "")


def error_line(line: str) -> bool:
    """Whether ``line`` says what failed: it starts as a tool's error does (``FAILURE_STARTS``, or a program's name
    before it: ``psql: error: …``, ``gcc: fatal error: …``), or with an exception and its message (``TypeError: …``,
    ``System.NullReferenceException: …``, ``django.core.exceptions.ImproperlyConfigured: …``), as a config's
    ``password: …`` and a log's line do not."""
    name, _, rest = line.partition(":")
    exception = "Error" in name or "Exception" in name or ".exceptions." in name
    return line.startswith(FAILURE_STARTS) or _program_failure(name, rest) or (exception and exception_line(line))


#: How a program's own error goes on after its name and colon (``psql: error: …``, ``ld: fatal error: …``).
PROGRAM_FAILURES = (" error: ", " fatal error: ", " fatal: ")


def _program_failure(name: str, rest: str) -> bool:
    """Whether ``NAME: rest`` is a program's own error (``psql: error: …``, ``cc1: fatal error: …``: a CI log was
    given by its last line, ``ERROR: Job failed: exit code 2``, trial59 F5). A program's name is lowercase letters,
    digits and ``+``/``.``: a log's host before its line (``worker-1: error: auth failed for …``) is no program, and
    its line is given without its values (review60a F4)."""
    return name[:1].isalpha() and all(c.islower() or c.isdigit() or c in "+." for c in name) and rest.startswith(PROGRAM_FAILURES)  # fmt: skip


#: Where a value starts in a pasted line that is not ``NAME=value`` nor ``key: value``: :func:`without_values` ends
#: the line before it.
VALUE_STARTS = ("'", '"', "`", "=")


def without_values(line: str) -> str:
    """A paste's first ``line`` without what may be a value in it: a ``NAME=value`` line by its name
    (``DATABASE_URL=…``, :func:`assigned_name`), a log's line by its time and level (``2026-12-05 03:00:01 INFO …``,
    :func:`log_prefix`), a ``key: value`` line by its key (``password: …``), any other up to where a value may start
    (``VALUE_STARTS``: ``$ curl -H …``). A YAML ``password:``, a log line or a command stood for its paste whole, and
    carried what the redaction rules missed to every new chat's session-start block (review47k)."""
    line = line.strip()
    if name := assigned_name(line):
        return f"{name}=…" if line.partition("=")[2].strip() else line
    if timed := log_prefix(line):
        return " ".join(line.split()[:timed]) + " …"
    listed = "- " if line.startswith("- ") else ""
    key, colon, value = line.removeprefix(listed).partition(":")
    if colon and key and " " not in key and value[:1] == " " and value.strip():
        return f"{listed}{key}: …"
    valued = min((at for at in map(line.find, VALUE_STARTS) if at >= 0), default=-1)
    return line if valued < 0 else line[:valued].rstrip() + " …"


def assigned_name(line: str) -> str:
    """The name of a ``NAME=value`` line, "" for any other: a ``.env``'s or a shell's (``export NAME=…``), an ini's
    ``name = value``, a properties file's ``spring.datasource.url=…``: a letter or ``_`` first, then letters,
    digits, ``_``, ``.`` or ``-``, then one ``=`` (``a == b`` compares). One rule for whether a line is shaped as a
    paste's (:func:`pasted_shape`) and for what of it stands for its paste (:func:`without_values`): there were two,
    and a properties file's dotted names made no paste (review47k)."""
    name, equals, value = line.strip().removeprefix("export ").partition("=")
    name = name.rstrip()
    named = name[:1].isalpha() or name[:1] == "_"
    return name if equals and named and name.translate(NAME_MARKS).isalnum() and value[:1] != "=" else ""


#: What else than letters and digits a ``NAME`` of ``NAME=value`` may hold (:func:`assigned_name`), as a letter.
NAME_MARKS = str.maketrans("_.-", "aaa")


def pasted_blocks(ask: str) -> Iterator[tuple[str, bool]]:
    """The non-empty lines of ``ask``, each with whether it was pasted rather than written: a fenced block, its
    fences too (an unclosed fence runs to the end), or a run of two lines or more (blank lines between them kept in
    it) each shaped as a config, ``.env``, log or code line (:func:`pasted_shape`). One such line alone is prose but
    a log's or a setting's (:func:`pasted_alone`): "fix: the build fails on CI" is a sentence, and so is a line that
    asks (:func:`asks`) whatever its shape. In a
    run with a diff's header (``DIFF_HEADS``) every ``+``/``-`` line is the diff's; a traceback's run goes on to its
    exception (:func:`exception_line`), whatever its shape (``Exception: db down`` reads as written, review47j M3).
    One pass, each line given as soon as it is known, with ``str``'s methods (the prompt hook loads no ``re`` and
    recalls questions)."""
    held = ""  # (a shaped line not yet known to start a run)
    fenced = running = diffing = tracing = False
    for line in ask.splitlines():
        if not line.strip():
            continue
        fence = line.lstrip().startswith(FENCES)
        shaped = not (fence or fenced or asks(line)) and (
            pasted_shape(line) or (diffing and line[:1] in "+-") or (tracing and exception_line(line))
        )
        if shaped:
            diffing = diffing or line.startswith(DIFF_HEADS)
            tracing = line.lstrip().startswith(TRACE_HEADS) or (tracing and line[:1].isspace())
            if held:
                yield held, True
                held, running = "", True
            if running:
                yield line, True
            else:
                held = line
            continue
        if held:
            yield held, pasted_alone(held)
        held, running, diffing, tracing = "", False, False, False
        yield line, fence or fenced
        fenced ^= fence
    if held:
        yield held, pasted_alone(held)


def asks(line: str) -> bool:
    """Whether ``line`` is a question, which is written whatever its shape (``DEBUG=true breaks it too?`` after a
    pasted ``.env``): it ends in a word and ``?``, is not indented and is no error (Python's ``NameError: … Did you
    mean: 'print'?`` is its traceback's), log line (``… INFO GET /login?pw=…&next=?``, :func:`logged`) nor SQL
    (:func:`sql_line`). A query's placeholder (``WHERE api_token = ?``) split its paste, and each piece stood whole
    for itself in every new chat's session-start block (review48d M1)."""
    line = line.rstrip()
    worded = line.endswith("?") and line.rstrip("?")[-1:].isalpha()
    return worded and not line[:1].isspace() and not error_line(line) and not logged(line) and not sql_line(line)


def pasted_alone(line: str) -> bool:
    """Whether ``line``, shaped as a paste's (:func:`pasted_shape`), is pasted even alone: a log's line
    (:func:`logged`) or a setting of one value (:func:`one_setting`)."""
    return logged(line) or one_setting(line)


def one_setting(line: str) -> bool:
    """Whether ``line`` sets a config's key to one value (``host: db.internal``, ``timeout: 30``,
    ``DATABASE_URL=postgres://…``): a config's line (:func:`config_line`) whose value is one word. A lone one before a
    question titled the chat with its value, and the question was left out (review48g); a sentence after a key
    (``fix: the login loops``) is several words, and a number or a version (``status: 502``, ``python: 3.12``) is
    what the question after it is about, not a value to leave out (review49b L3)."""
    return _one_value(line) and not _numbered(_value(line).strip())


def _one_value(line: str) -> bool:
    """Whether ``line`` is a config's line (:func:`config_line`) whose value is one word."""
    return config_line(line) and len(_value(line).split()) == 1


def _value(line: str) -> str:
    """The value of a config's line: after ``=`` in ``NAME=value``, else after ``:`` (a YAML list's item too)."""
    return line.partition("=")[2] if assigned_name(line) else line.removeprefix("- ").partition(":")[2]


def _numbered(value: str) -> bool:
    """Whether ``value`` is a short number or version: up to ``NUMBER_CHARS`` digits and dots, perhaps after a ``v``
    (``502``, ``3.12``, ``v1.4.0``; a long run of digits may be a PIN or a token)."""
    return len(value) <= NUMBER_CHARS and all(part.isdigit() for part in value.removeprefix("v").split("."))


#: How long a number or version may be that a setting's line keeps in an ask's own words (:func:`one_setting`).
NUMBER_CHARS = 12


def logged(line: str) -> bool:
    """Whether ``line`` is a log's line by its time and level (or two times: ``2026-12-05 03:00:01 INFO …``), which is
    pasted even alone: a one-line log stood whole for an ask in its title and ``asked:`` (review48d M1). A level
    alone (``Error: the build fails``) may be written."""
    return log_prefix(line) >= 2


def sql_line(line: str) -> bool:
    """Whether ``line`` reads as SQL: its first word is one of SQL's in capitals (``SQL_WORDS``) and none of its words
    is a sentence's (``SENTENCE_WORDS``). A question that starts with such a word after pasted SQL (``SELECT works but
    UPDATE hangs, what locks it``, ``OR should I add an index``) was taken into the paste (review48d M2)."""
    words = line.split()
    if not words or words[0].rstrip(";,") not in SQL_WORDS:
        return False
    return not any(word.strip(",.;:!?()").lower() in SENTENCE_WORDS for word in words[1:])  # (a quoted word is a value)


def exception_line(line: str) -> bool:
    """Whether ``line``, the first unindented one after a traceback's frames, is its exception: a name alone
    (``AssertionError``) or a name and ``:`` (``Exception: db down``), not a question written after a traceback
    cut short, nor a caret under a ``SyntaxError``'s line."""
    name = line.partition(":")[0]
    return (name[:1].isalpha() or name[:1] == "_") and " " not in name.rstrip()


#: How a pasted line of code starts (after its indent, which alone makes it one).
CODE_STARTS = ("$ ", "#!", "//", "/*", "<", "{", "}", "[", "]", "(", ")", '"', "import ", "from ", "def ", "class ")
#: The words a line of SQL starts with, in capitals as SQL is pasted: one written in capitals ("UPDATE: …") ends in
#: ``:``, asks (:func:`asks`) or holds a sentence's words (:func:`sql_line`).
SQL_WORDS = frozenset(
    [
        *"SELECT FROM WHERE JOIN LEFT RIGHT INNER OUTER FULL CROSS ON AND OR ORDER GROUP HAVING LIMIT".split(),  # noqa: SIM905
        *"OFFSET UNION INSERT VALUES UPDATE SET DELETE RETURNING WITH EXPLAIN CREATE ALTER DROP".split(),  # noqa: SIM905
    ]
)
#: The words of a written sentence that a line of SQL in capitals holds none of (its lowercase words are names; an
#: alias may be ``a`` or ``it``, so these are questions' words, pronouns and modals).
SENTENCE_WORDS = frozenset(
    "what why how which who should could would does did but i we you my our your me us".split()  # noqa: SIM905
)
#: The polite words a request may begin with, before its verb ("can you please add …", "can you revert the fix?"):
#: the prompt hook's request for work on the code in front of the agent, and ``deja ctx``'s request for a revert.
POLITE_WORDS = frozenset(["please", "pls", "can", "could", "would", "will", "you", "u", "now"])
#: How a diff's header lines start, and PowerShell's error position, after which a ``+ Get-Item C:\\x`` line is the
#: command's: in a run with one, every ``+``/``-`` line is pasted (:func:`pasted_blocks`).
DIFF_HEADS = ("@@ ", "diff --git ", "+++ ", "--- ", "At line:")
#: How a pasted line of a tool's output starts: npm's log, pytest's failures, sections and summary, a diff's headers,
#: Go's goroutine header, a traceback's. Each was flattened whole into an ask's words (review47g M1, review47k).
OUTPUT_STARTS = (
    "npm ERR!",
    "npm WARN",
    "FAILED ",
    "E   ",
    ">   ",
    "===",
    "___",
    "goroutine ",
    *DIFF_HEADS,
    *TRACE_HEADS,
)
#: What a rule line is drawn with: a table's (psql's ``----+----``), a section's, a YAML document's ``---``, a caret.
RULE_MARKS = "-=+|_~^*:# "


def pasted_shape(line: str) -> bool:
    """Whether ``line`` is shaped as a line of a pasted config, ``.env``, log, traceback, tool output or code rather
    than as one written: indented, or a config's (:func:`config_line`), a tool's output (:func:`output_line`) or
    code's (:func:`code_line`)."""
    if line[:1].isspace():
        return True
    line = line.rstrip()
    return config_line(line) or output_line(line) or code_line(line)


def config_line(line: str) -> bool:
    """Whether ``line`` is shaped as a config's: ``NAME=value`` (:func:`assigned_name`); ``key: value`` or ``key:``
    (a YAML list's ``- key: value`` too), its key one word, as an error's ``ValueError: …`` is, but not a capitalised
    word with a value (``Expected: 200``, ``- Storage: postgres``: a written list, review47g L1)."""
    head, colon, value = line.removeprefix("- ").partition(":")
    keyed = bool(colon) and bool(head) and " " not in head
    return bool(assigned_name(line)) or (keyed and (not value or (value[:1] == " " and not written(head))))


def output_line(line: str) -> bool:
    """Whether ``line`` is shaped as a tool's output: how it starts (``OUTPUT_STARTS``), a diff's line
    (:func:`diff_line`), a log's time or level first (:func:`log_prefix`), a rule (``RULE_MARKS``), a file's line
    (``tests/test_cart.py:14: AssertionError``) or pytest's header and progress (:func:`pytest_line`)."""
    head, colon, value = line.partition(":")
    located = bool(colon) and " " not in head and ("/" in head or "." in head) and value[:1].isdigit()
    ruled = len(line) >= 3 and not line.strip(RULE_MARKS)
    return (
        line.startswith(OUTPUT_STARTS)
        or diff_line(line)
        or log_prefix(line) > 0
        or ruled
        or located
        or pytest_line(line)
    )


def pytest_line(line: str) -> bool:
    """Whether ``line`` is pytest's: its platform's and its count's in its header (``collected 42 items``), or a file's
    progress (``tests/test_cart.py ..F.......   [ 23%]``). A whole run's were read as prose (review47k)."""
    platform = line.startswith("platform ") and " -- Python " in line
    return platform or (line.startswith("collected ") and line[10:11].isdigit()) or line.endswith("%]")


def code_line(line: str) -> bool:
    """Whether ``line`` is shaped as code: JSON or code by how it starts or ends (``{``, ``$ ``, ``;``), SQL by its
    first word (``SQL_WORDS``), or a call alone (Go's frame ``main.(*Server).handle(0x0, 0xc000010000)``)."""
    return (
        line.startswith(CODE_STARTS)
        or line.endswith((";", "{", "}"))
        or (line.endswith(")") and " " not in line.partition("(")[0])
        or sql_line(line)
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
