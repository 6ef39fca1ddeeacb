"""A failed command's error lines, their signature and their identity, read with ``str``'s methods.

A Shell hook reads a past failure's error lines, and the failure hook a new failure's and their signatures: with
``re`` (and the ``enum``, ``functools`` and ``collections`` it loads, about 3 ms) that cost each hook a third of
starting Python. The patterns below say what is found; the scanners here find exactly that
(``tests/test_error_scan.py`` checks each against its pattern on every code point and many random strings).
"""

from __future__ import annotations

#: What makes a line an error line (``(?i)``, but for the two forms in ``(?-i:…)``). The forms of common tools count:
#: npm <= 8's ``npm ERR!``, pnpm's ``ERR_PNPM_…`` codes (and Node's ``ERR_…``), pytest's ``E   `` lines, Go's
#: ``FAIL``, pip's ``ERROR:``, yarn's ``error``, cargo's ``error[E…]``, tsc's ``error TS…``.
ERROR_LINE = (
    r"(?i)(error|exception|traceback|\bfail(?:ed|ure)?\b|\bfatal\b|\bpanic|\bcannot\b|can't|could not|not found|no such"
    r"|no module named|denied|undefined|segmentation|\bERR!|(?-i:\bERR_[A-Z0-9_]+|^E {2,}[^\s+-]))"
)
#: An HTTP status line of 4xx or 5xx (``(?i)``; a stripped line, the status its group): curl's head (``HTTP/2 403``,
#: ``HTTP/1.1 404 Not Found``, ``< HTTP/1.1 429 …`` of ``-v``), ``curl -w 'HTTP %{http_code}'``'s ``HTTP 404``, an
#: access log's request (``GET /x HTTP/1.1 503 9ms``: a method in capitals, its target, the version). A line that only
#: names a status further on (``(expect HTTP 404)``, ``Retries on HTTP 503: enabled``, ``{"message": "HTTP 404"}``,
#: ``/HTTP/404``) or a served request's quoted log line (``"GET /x HTTP/1.1" 404``) is none (review53e F2). Its
#: identity is its status and the host its line or command named (``error_identity``), not its words alone. It is an
#: error line of a failed command's output only (``error_lines``), not of a log pasted into a prompt, where an access
#: log's 404 for a favicon is no error asked about (review54b F6).
STATUS_LINE = (
    r"(?i)^(?:< )?HTTP(?:/\d(?:\.\d)?)?[ \t]+([45]\d\d)\b"
    r"|(?:^|[ \t])(?-i:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)[ \t]+\S+[ \t]+HTTP/\d(?:\.\d)?[ \t]+([45]\d\d)\b"
)
#: Summary lines ("=== 1 error in 0.1s ===", "2 failed, 3 passed", tsc's "Found 2 errors") say nothing about which
#: error it was, nor do npm's last lines, the same for every failure ("A complete log of this run can be found in:"
#: and the log's path).
SUMMARY_LINE = (
    r"(?i)^[\s=*_-]*(?:collected \d+ items?\W*)?(?:\d+ (?:errors?|failed|passed|failures?|warnings?|skipped|deselected)[,/\s]*)+"
    r"(?:in [\d.]+m?s)?[\s=*_-]*$|^found \d+ errors?\b|complete log of this run can be found|[/\\]_logs[/\\]\S*debug"
)
#: An error line that names its error: put before the others.
NAMED_ERROR = r"\b\w*(?:Error|Exception)\b|\b(?:error|ERROR)(?:\[\w+\])?:|\berror TS\d+:|\bE\d{3,}\b|\bERR_[A-Z0-9_]+"
#: What changes run to run in an error line, each replaced in turn (``error_signature``).
HEX = r"0x[0-9a-fA-F]+|\b[0-9a-f]{8,}\b"
PATH = r"(?:[A-Za-z]:)?[\w.~-]*[/\\][\w./\\~-]+"
NUMBER = r"\d+(?:\.\d+)?"
QUOTED = r"(['\"`]).*?\1"
#: What says who printed an error, not what it is, before its message (``error_identity``): one program's name
#: (``psql:``), then levels and exception classes (``error:``, ``FATAL:``, ``psycopg2.OperationalError:``,
#: SQLAlchemy's ``(psycopg2.OperationalError)``), each followed by blanks: a program's name alone is none of it
#: (``cat: a.yaml: No such file or directory`` and ``bash: ./x.sh: …`` are two errors, their paths left out, and
#: unittest's ``FAIL: test_x`` is no ``ERROR: test_x``: review41b M4). ASCII, as programs and classes name
#: themselves. A name with a dot is a class's, never a program's: ``app.py: No such file`` names its file.
EXCEPTION_CLASS = r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z0-9_]*(?:Error|Exception)"
PRINTED_BY = (
    r"(?:[A-Za-z][A-Za-z0-9_-]*:[ \t]+)?"
    rf"(?:(?:(?i:error|fatal)|{EXCEPTION_CLASS}):[ \t]+|\({EXCEPTION_CLASS}\)[ \t]+)+"
)
#: How many words (runs of letters, quoted values and paths left out) a message needs to be an error's identity
#: without what printed it: ``Connection refused``, ``command not found``, ``No module named 'x'`` or ``'x'`` alone
#: (``KeyError: 'x'``) say too little, and are known by their whole line. (Four: psql's and psycopg2's ``FATAL:
#: database "app" does not exist`` are one error; tsc's and msbuild's ``could not find file`` one too, review41c M1.)
MESSAGE_WORDS = 4

#: Under ``(?i)`` an ASCII letter of a pattern matches its two cases and, outside ASCII, these four: İ and ı match
#: i, ſ s and the Kelvin sign k (``str.lower`` would make ``İ`` two characters, and leave the others as they are).
FOLDS = "\u0130\u0131\u017f\u212a"
_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ" + FOLDS, "abcdefghijklmnopqrstuvwxyziisk")
#: What ``ERROR_LINE`` finds anywhere, without a word boundary.
_ANYWHERE = (
    "error",
    "exception",
    "traceback",
    "can't",
    "could not",
    "not found",
    "no such",
    "no module named",
    "denied",
    "undefined",
    "segmentation",
)
#: The words a ``SUMMARY_LINE`` count is followed by (after one blank), as ``(?i)`` reads them, a plural first.
_COUNTED: tuple[str, ...] = (" errors", " error", " failed", " passed", " failures", " failure", " warnings")
_COUNTED += (" warning", " skipped", " deselected")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_CODE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_HEX = frozenset("0123456789abcdefABCDEF")
_LOWER_HEX = frozenset("0123456789abcdef")
_QUOTES = "'\"`"


#: The most of an output's line an error line keeps (a minified JSON body is one line of kilobytes).
LINE_CHARS = 400


def error_lines(output: str, limit: int = 3) -> list[str]:
    """The lines of ``output`` that best identify its error: named errors first, then the last others; each once,
    where it last came (a retry loop prints the same line again and again). An HTTP status line of 4xx or 5xx
    (``STATUS_LINE``) is one here, in a failed command's output, though not to ``is_error_line``."""
    found: dict[str, None] = {}
    statuses = "http" in folded(output)  # (once, where most outputs hold no HTTP status line)
    for line in output.splitlines():
        line = line.strip()
        if (len(line) > 8 and is_error_line(line) or statuses and status_end(line)) and not is_summary(line):
            found.pop(line[:LINE_CHARS], None)
            found[line[:LINE_CHARS]] = None
    named = [line for line in found if names_error(line)]
    rest = [line for line in reversed(found) if line not in named]
    return (list(reversed(named)) + rest)[:limit]


def error_signature(line: str) -> str:
    """An error line with what changes run to run (numbers, paths, hex, quotes) taken out."""
    line = _replace_numbers(_replace_paths(_replace_hex(line)))
    return " ".join(_replace_quoted(line).lower().split())[:200]


def error_identity(line: str, command: str = "") -> str:
    """What makes two error lines one error (``keys.error_key``): the signature of the message, without pytest's
    ``E   `` marker and what printed it (``PRINTED_BY``), or, for a message of fewer than ``MESSAGE_WORDS`` words, of
    the whole line without the marker.

    One Postgres error is printed by pytest (``E   psycopg2.OperationalError: connection to server … refused``), by
    a traceback (without ``E``) and by psql (``psql: error: connection to server … refused``): the message is what
    recurs across the tools, and the failure hook and ``deja fix`` told of one past session in three (trial21 F1).
    An exception's class is left out with the rest: psql names none. A short message is no identity: ``error: not
    found`` of one program and of another, or ``KeyError: 'x'`` and ``ValueError: 'x'``, are different failures.

    An HTTP status line (``STATUS_LINE``), and curl's own line for it (``CURL_STATUS``), is its status and the host of the URL in it or else in ``command`` (the
    command that printed it), whatever else it says (``HTTP/1.1 404 Not Found`` and ``HTTP/2 404``, an access log's
    ``9ms`` and ``1234 12ms``): ``HTTP/2 503`` of ``curl https://payments…`` is not the ``HTTP/2 404`` of ``curl
    https://registry…`` (review53e F2). One whose host neither names is no identity (""): a 404 of one script and of
    another are different failures.
    """
    status = _status_of(line)
    if status:
        host = url_host(line) or url_host(command, command=True)
        return f"http {line[status - 3 : status]} {host}" if host else ""
    if _pytest_error(line):
        line = line[1:].lstrip(" ")
    message = error_signature(line[printed_by(line) :])
    return message if _words(message) >= MESSAGE_WORDS else error_signature(line)


#: Where an error's message may end and a longer printing of it go on (``shorter_forms``).
_CLAUSE_ENDS = (", ", "; ", " (", " - ", ": ")
#: How many shorter forms of one line are looked up, the longest: each is one more index lookup in the failure hook,
#: and the further a cut is from the end, the more generic what is kept (review50a M5: a SQL error's column list
#: gave one form a comma).
SHORTER_FORMS = 2
#: How many clause ends of one line, the last ones, are tried as cuts: each reads the error's signature twice, and a
#: line whose clause ends all come before a long tail refuses every cut (cg50: 18 commas cost the failure hook 20 M
#: instructions, a fifth of it).
CUTS_TRIED = 4


def shorter_forms(line: str) -> list[str]:
    """``line`` cut at the last ``CUTS_TRIED`` ends of its message's clauses (``_CLAUSE_ENDS``, outside quotes),
    longest first, at most ``SHORTER_FORMS``, where what is kept is still an identity (``MESSAGE_WORDS`` words or more) and says more than
    what is cut off: the same error as a program that adds less after it printed it. Node's ``Error: ENOSPC: System
    limit for number of file watchers reached, watch '/x/src'`` is the stored ``…watchers reached`` (trial49 F11), and
    ``connection to server at "db", port 5432 failed: …`` no bare ``connection to server at "db"``."""
    if _pytest_error(line):
        line = line[1:].lstrip(" ")
    if _status_of(line):
        return []  # (its identity is its status and host: a form without the status would be every status's)
    start = printed_by(line)
    quotes = _quote_marks(line, start)
    forms: list[str] = []
    cuts = [
        at
        for at in sorted({at for end in _CLAUSE_ENDS for at in _found_at(line, end, start)}, reverse=True)
        if not sum(mark < at for mark in quotes) % 2
    ]
    for at in cuts[:CUTS_TRIED]:
        kept = _words(error_signature(line[start:at]))
        if kept >= MESSAGE_WORDS and kept > _words(error_signature(line[at:])):
            forms.append(line[:at])
            if len(forms) == SHORTER_FORMS:
                break
    return forms


def _found_at(line: str, text: str, start: int) -> list[int]:
    """Where ``text`` starts in ``line`` from ``start`` on."""
    found: list[int] = []
    at = line.find(text, start)
    while at >= 0:
        found.append(at)
        at = line.find(text, at + 1)
    return found


def _quote_marks(line: str, start: int) -> list[int]:
    """Where a quote mark is in ``line`` from ``start`` on; an apostrophe inside a word (``can't``) is none
    (review50a L3)."""
    return [
        at
        for at in range(start, len(line))
        if line[at] in "'\"`"
        and not (line[at] == "'" and line[at - 1 : at].isalpha() and line[at + 1 : at + 2].isalpha())
    ]


def printed_by(line: str) -> int:
    """Where ``PRINTED_BY`` ends, matched at the start of ``line`` (0: it finds nothing)."""
    program = _program_end(line)
    end = _levels_end(line, program)
    return end if end > program else _levels_end(line, 0) if program else 0


def _levels_end(line: str, end: int) -> int:
    """Where the levels and exception classes of ``PRINTED_BY`` from ``end`` on end (``end``: none there)."""
    while True:
        token = _token_end(line, end)
        if line.startswith("(", end):
            close = _token_end(line, end + 1)
            if not (line.startswith(")", close) and _is_class(line[end + 1 : close])):
                return end
            after = close + 1
        elif line.startswith(":", token) and (
            line[end:token].lower() in ("error", "fatal") or _is_class(line[end:token])
        ):
            after = token + 1
        else:
            return end
        blanks = _blanks_end(line, after)
        if blanks == after:
            return end
        end = blanks


def _program_end(line: str) -> int:
    """``[A-Za-z][A-Za-z0-9_-]*:[ \\t]+`` at the start of ``line``: where it ends, or 0."""
    at = 0
    while at < len(line) and (line[at] in _ASCII_LETTERS or (at and line[at] in "0123456789_-")):
        at += 1
    if not at or not line.startswith(":", at):
        return 0
    end = _blanks_end(line, at + 1)
    return end if end > at + 1 else 0


def _token_end(line: str, at: int) -> int:
    """Where the run of ``[A-Za-z0-9_.]`` from ``at`` ends."""
    while at < len(line) and (line[at] in _ASCII_LETTERS or line[at] in "0123456789_."):
        at += 1
    return at


def _is_class(token: str) -> bool:
    """Whether ``EXCEPTION_CLASS`` matches all of ``token`` (a run of ``[A-Za-z0-9_.]``)."""
    *packages, name = token.split(".")
    return name.endswith(("Error", "Exception")) and all(part and not part[0].isdecimal() for part in packages)


def _blanks_end(line: str, at: int) -> int:
    while at < len(line) and line[at] in " \t":
        at += 1
    return at


def _words(signature: str) -> int:
    """How many runs of letters ``signature`` holds besides its placeholders (``<q>``, ``<path>``)."""
    text = signature.replace("<q>", " ").replace("<path>", " ")
    count, inside = 0, False
    for char in text:
        if char.isalpha() and not inside:
            count += 1
        inside = char.isalpha()
    return count


def folded(text: str) -> str:
    """``text`` as ``(?i)`` compares it with a pattern's ASCII letters, one character for one."""
    return text.lower() if text.isascii() else text.translate(_FOLD)


def is_word(text: str, at: int) -> bool:
    """Whether ``text[at]`` is a word character (``\\w``); nothing outside the text is."""
    return 0 <= at < len(text) and is_word_char(text[at])


def is_word_char(char: str) -> bool:
    """Whether ``char`` is a word character (``\\w``), read with ``str``'s methods (the hooks load no ``re``)."""
    return char.isalnum() or char == "_"


def found(text: str, needle: str, start: int = 0) -> list[int]:
    """Where ``needle`` occurs in ``text`` from ``start`` on (overlapping occurrences too)."""
    places = []
    at = text.find(needle, start)
    while at >= 0:
        places.append(at)
        at = text.find(needle, at + 1)
    return places


def word_at(text: str, word: str, endings: tuple[str, ...] | None) -> bool:
    """``\\bword`` then one of ``endings`` and ``\\b`` (None: no boundary asked after the word)."""
    for at in found(text, word):
        if is_word(text, at - 1):
            continue
        end = at + len(word)
        if endings is None or any(text.startswith(e, end) and not is_word(text, end + len(e)) for e in endings):
            return True
    return False


def is_error_line(line: str) -> bool:
    """Whether ``ERROR_LINE`` finds ``line`` (a stripped line: ``^`` is its start)."""
    lowered = folded(line)
    if any(needle in lowered for needle in _ANYWHERE):
        return True
    return (
        word_at(lowered, "fail", ("ed", "ure", ""))
        or word_at(lowered, "fatal", ("",))
        or word_at(lowered, "panic", None)
        or word_at(lowered, "cannot", ("",))
        or word_at(lowered, "err!", None)
        or _error_code(line)
        or _pytest_error(line)
    )


#: The methods an access log's request line opens with (``STATUS_LINE``).
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def status_end(line: str) -> int:
    """Where the status ``STATUS_LINE`` finds in ``line`` (a stripped line) ends, 0 where it finds none."""
    lowered = folded(line)
    if "http" not in lowered:
        return 0
    end = _status_after(lowered, 2 if lowered.startswith("< ") else 0, False)
    for method in _METHODS:
        for at in found(line, method) if not end else ():
            target = _blanks_end(line, at + len(method))
            after = target
            while after < len(line) and not line[after].isspace():
                after += 1
            version = _blanks_end(line, after)
            if line[at - 1 : at] in ("", " ", "\t") and at + len(method) < target < after < version:
                end = end or _status_after(lowered, version, True)
    return end


def _status_after(lowered: str, at: int, versioned: bool) -> int:
    """``HTTP(?:/\\d(?:\\.\\d)?)?[ \\t]+([45]\\d\\d)\\b`` at ``at`` (the version asked where ``versioned``): where the
    status ends, else 0."""
    if not lowered.startswith("http", at):
        return 0
    end = at + 4
    if lowered[end : end + 1] == "/" and lowered[end + 1 : end + 2].isdecimal():
        end += 2
        if lowered[end : end + 1] == "." and lowered[end + 1 : end + 2].isdecimal():
            end += 2
    elif versioned:
        return 0
    status = _blanks_end(lowered, end)
    code = lowered[status : status + 3]
    good = status > end and len(code) == 3 and code[0] in "45" and code[1:].isdecimal()
    return status + 3 if good and not is_word(lowered, status + 3) else 0


#: What curl ``--fail`` prints before the status it failed on (``curl: (22) The requested URL returned error: 404``).
CURL_STATUS = "the requested url returned error: "


def _status_of(line: str) -> int:
    """Where the HTTP status ``line`` fails on ends: a status line's (``status_end``) or curl's own for it
    (``curl_status_end``); 0 where it names none. Such a line's identity is that status and a host."""
    return status_end(line) or curl_status_end(line)


def curl_status_end(line: str) -> int:
    """Where the status after ``CURL_STATUS`` in ``line`` ends, 0 where there is none: keyed by its words, every
    ``curl -f`` failure of any status from any host was one error (review53e F2's, older than it)."""
    at = line.lower().find(CURL_STATUS)
    end = at + len(CURL_STATUS)
    code = line[end : end + 3]
    return end + 3 if at >= 0 and code.isascii() and code.isdecimal() and len(code) == 3 else 0


#: Options whose value is a URL other than the one a command fetches: a proxy, a referer (curl's ``-x``/``--proxy``,
#: ``--preproxy``, ``-e``/``--referer``; wget's ``--referer``).
_OTHER_URL_OPTIONS = frozenset({"-x", "--proxy", "--preproxy", "-e", "--referer"})
#: The ports a URL's scheme goes to unless it names another: ``https://host:443`` is ``https://host``.
_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def url_host(text: str, command: bool = False) -> str:
    """The host (and port, but a scheme's default) of the first ``http://`` or ``https://`` URL in ``text``, in
    lowercase and without its user or password; "" for none: the server an HTTP status came from
    (``error_identity``). In a ``command``, the URL it fetches: not one assigned (``HTTPS_PROXY=http://…``,
    ``--proxy=…``), given to an option of another URL (``-x http://proxy:3128``), or in a header (``-H 'Origin:
    https://…'``): a 403 of another site through the same proxy was this one's (review54b F1)."""
    lowered = text.lower()
    for at in found(lowered, "://"):
        scheme = lowered[max(0, at - 5) : at]
        start = at - (5 if scheme == "https" else 4)
        if not scheme.endswith("http") and scheme != "https" or is_word(lowered, start - 1):
            continue
        if command and not _fetched(lowered, start):
            continue
        end = at + 3
        while end < len(lowered) and not lowered[end].isspace() and lowered[end] not in "/?#\"'`<>\\),;":
            end += 1
        host = lowered[at + 3 : end].rpartition("@")[2]
        host = host.removesuffix("]") if host.count("]") > host.count("[") else host  # (a URL in brackets: "[…]")
        host = host.removesuffix(_DEFAULT_PORTS["https" if scheme == "https" else "http"])
        if host:
            return host
    return ""


def _fetched(command: str, start: int) -> bool:
    """Whether the URL at ``start`` of ``command`` (lowercased) is what the command fetches (``url_host``): a word of
    its own (or quoted), not after an option of another URL nor a header's name."""
    before = command[:start].rstrip("'\"")
    if before and not before[-1].isspace():
        return before.endswith("--url=")  # (``VAR=…``, ``--proxy=…``, ``Origin:…``)
    words = before.split()
    return not words or words[-1].lstrip("'\"") not in _OTHER_URL_OPTIONS and not words[-1].endswith(":")


def _error_code(line: str) -> bool:
    """``\\bERR_[A-Z0-9_]+``, as written."""
    return any(not is_word(line, at - 1) and line[at + 4 : at + 5] in _CODE for at in found(line, "ERR_"))


def _pytest_error(line: str) -> bool:
    """``^E {2,}[^\\s+-]``: pytest's ``E   assert …`` lines."""
    if not line.startswith("E  "):
        return False
    rest = line[1:].lstrip(" ")
    return bool(rest) and not rest[0].isspace() and rest[0] not in "+-"


def is_summary(line: str) -> bool:
    """Whether ``SUMMARY_LINE`` finds ``line`` (a stripped line): a line of counts (pytest's, with its borders, its
    ``collected`` and its ``in 0.1s``), tsc's ``Found 2 errors``, npm's last words or its log's path."""
    lowered = folded(line)
    return (
        _counts_only(lowered)
        or _found_errors(lowered)
        or "complete log of this run can be found" in lowered
        or _npm_log(lowered)
    )


def _border(char: str) -> bool:
    """``[\\s=*_-]``: what a summary line's borders are made of."""
    return char.isspace() or char in "=*_-"


def _counts_only(lowered: str) -> bool:
    """The first alternative of ``SUMMARY_LINE``: borders, ``collected N items``, counts, ``in 0.1s``, borders. Each
    part ends where the next must begin (a digit, a letter), so it is read in one pass, the longest way each time."""
    at, size = 0, len(lowered)
    while at < size and _border(lowered[at]):
        at += 1
    if lowered.startswith("collected ", at):
        end = _decimals_end(lowered, at + 10)
        if end == at + 10 or not lowered.startswith(" item", end):
            return False
        at = end + (6 if lowered.startswith("s", end + 5) else 5)
        while at < size and not is_word(lowered, at):
            at += 1
    if not lowered[at : at + 1].isdecimal():
        return False
    while lowered[at : at + 1].isdecimal():
        end = _decimals_end(lowered, at)
        word = next((word for word in _COUNTED if lowered.startswith(word, end)), "")
        if not word:
            return False
        at = end + len(word)
        while at < size and (lowered[at] in ",/" or lowered[at].isspace()):
            at += 1
    if lowered.startswith("in ", at):
        end = at + 3
        while end < size and (lowered[end].isdecimal() or lowered[end] == "."):
            end += 1
        unit = 2 if lowered.startswith("ms", end) else 1 if lowered.startswith("s", end) else 0
        if end == at + 3 or not unit:
            return False
        at = end + unit
    return all(_border(char) for char in lowered[at:])


def _found_errors(lowered: str) -> bool:
    """``^found \\d+ errors?\\b``: tsc's ``Found 2 errors``."""
    end = _decimals_end(lowered, 6)
    if not lowered.startswith("found ") or end == 6 or not lowered.startswith(" error", end):
        return False
    end += 6
    return (lowered.startswith("s", end) and not is_word(lowered, end + 1)) or not is_word(lowered, end)


def _npm_log(lowered: str) -> bool:
    """``[/\\\\]_logs[/\\\\]\\S*debug``: the path of npm's debug log."""
    for at in found(lowered, "_logs"):
        if lowered[at - 1 : at] in ("/", "\\") and at and lowered[at + 5 : at + 6] in ("/", "\\"):
            end = at + 6
            while end < len(lowered) and not lowered[end].isspace():
                end += 1
            if "debug" in lowered[at + 6 : end]:
                return True
    return False


def names_error(line: str) -> bool:
    """Whether ``NAMED_ERROR`` finds ``line`` (case as written)."""
    for name in ("Error", "Exception"):
        if any(not is_word(line, at + len(name)) for at in found(line, name)):
            return True
    for word in ("error", "ERROR"):
        if any(not is_word(line, at - 1) and _colon_after_error(line, at + 5) for at in found(line, word)):
            return True
    for at in found(line, "error TS"):
        end = _decimals_end(line, at + 8)
        if not is_word(line, at - 1) and end > at + 8 and line.startswith(":", end):
            return True
    for at in found(line, "E"):
        end = _decimals_end(line, at + 1)
        if not is_word(line, at - 1) and end - at > 3 and not is_word(line, end):
            return True
    return _error_code(line)


def _colon_after_error(line: str, at: int) -> bool:
    """``(?:\\[\\w+\\])?:`` at ``at``: cargo's ``error[E0382]:``, or a colon."""
    if line.startswith(":", at):
        return True
    if not line.startswith("[", at):
        return False
    end = at + 1
    while is_word(line, end):
        end += 1
    return end > at + 1 and line.startswith("]:", end)


def _decimals_end(text: str, at: int) -> int:
    """Where the run of decimal digits (``\\d``) from ``at`` ends."""
    while at < len(text) and text[at].isdecimal():
        at += 1
    return at


def _replace_hex(line: str) -> str:
    """``re.sub(HEX, "#", line)``."""
    parts: list[str] = []
    done, at, size = 0, 0, len(line)
    while at < size:
        end = at
        if line.startswith("0x", at) and line[at + 2 : at + 3] in _HEX:
            end = at + 2
            while end < size and line[end] in _HEX:
                end += 1
        elif line[at] in _LOWER_HEX and not is_word(line, at - 1):
            end = at
            while end < size and line[end] in _LOWER_HEX:
                end += 1
            if end - at < 8 or is_word(line, end):
                end = at
        if end > at:
            parts += (line[done:at], "#")
            done = at = end
        else:
            at += 1
    return "".join(parts) + line[done:] if parts else line


def _path_head(char: str) -> bool:
    return char.isalnum() or char in "_.~-"


def _path_body(char: str) -> bool:
    return char.isalnum() or char in "_./\\~-"


def _next_slash(line: str, at: int) -> int:
    """The first ``/`` or ``\\`` from ``at`` on that a path's character follows, or -1."""
    while True:
        slashes = [s for s in (line.find("/", at), line.find("\\", at)) if s >= 0]
        if not slashes:
            return -1
        slash = min(slashes)
        if slash + 1 < len(line) and _path_body(line[slash + 1]):
            return slash
        at = slash + 1


def _replace_paths(line: str) -> str:
    """``re.sub(PATH, "<path>", line)``: a path is the run of name characters before its first slash (a drive's
    ``C:`` before them), the slash and what follows of a path's characters."""
    parts: list[str] = []
    done = 0
    slash = _next_slash(line, 0)
    while slash >= 0:
        start = slash
        while start > done and _path_head(line[start - 1]):
            start -= 1
        if start - 2 >= done and line[start - 1] == ":" and line[start - 2] in _ASCII_LETTERS:
            start -= 2
        end = slash + 1
        while end < len(line) and _path_body(line[end]):
            end += 1
        parts += (line[done:start], "<path>")
        done = end
        slash = _next_slash(line, end)
    return "".join(parts) + line[done:] if parts else line


def _replace_numbers(line: str) -> str:
    """``re.sub(NUMBER, "#", line)``: a run of decimal digits, and a dot and a second run if one follows."""
    parts: list[str] = []
    done, at, size = 0, 0, len(line)
    while at < size:
        if not line[at].isdecimal():
            at += 1
            continue
        end = _decimals_end(line, at)
        if line.startswith(".", end) and end + 1 < size and line[end + 1].isdecimal():
            end = _decimals_end(line, end + 1)
        parts += (line[done:at], "#")
        done = at = end
    return "".join(parts) + line[done:] if parts else line


def _replace_quoted(line: str) -> str:
    """``re.sub(QUOTED, "<q>", line)``: a quote to the next of the same kind on the same line."""
    parts: list[str] = []
    done = at = 0
    while True:
        starts = [s for s in (line.find(q, at) for q in _QUOTES) if s >= 0]
        if not starts:
            break
        start = min(starts)
        end = line.find(line[start], start + 1)
        newline = line.find("\n", start + 1)
        if end < 0 or 0 <= newline < end:
            at = start + 1
            continue
        parts += (line[done:start], "<q>")
        done = at = end + 1
    return "".join(parts) + line[done:] if parts else line
