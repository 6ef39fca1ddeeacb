"""Secret values pasted into chats become ``[redacted:<kind>]`` before anything is indexed or printed.

Only values are redacted, never the code around them: a provider key (``ghp_…``,
``sk-…``, ``AKIA…``), a private key block, a JWT, the password of a URL or an
``Authorization`` header, or a literal given to a secret-named key
(``password = "hunter2"``, ``"token": "…"``, ``API_KEY=…``). Type annotations,
``None``, empty strings, placeholders, calls and environment lookups
(``os.environ[name]``) stay as written.

It runs on everything the index stores, so it is built to be cheap: every rule
names substrings its matches hold (a token's literal prefix), one pass of
substring tests picks the few rules a text may match, a token's regex starts
with its literal prefix (the engine skips to it like a substring search), and
two gates let a text with no long run of characters or no separator skip whole
groups of rules (``bench/bench_redact.py`` measures it). ``DEJA_NO_REDACT=1``
(or ``redact = false`` in the config file) turns redaction off; ``redaction.mode`` names what the index was built with, so a
change rebuilds it.
"""

from __future__ import annotations

from .escapes import escapes
from .patterns import Lazy
from .redaction import (
    ARGUMENT_WORDS,
    CONTEXT_GATE_BUT_NETRC,
    MARKER,
    NAME_STAGES,
    SECRET_NOUNS,
    SENTENCE_PASSWORD_NAMES,
    TOKEN_GATE,
    WORD_CHARS,
    a_netrc_entry,
    cell_name,
    element_name,
    enabled,
    escape_ending,
    folds_into_ascii,
    longest_run,
    may_hold_a_pgpass_line,
    may_name_a_secret_in_english,
    may_name_a_secret_in_other_words,
    may_set_a_name_apart,
    replaced,
    unescaped,
)
from .remembered import Remembered
from .text import as_seen

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (``re`` is imported where a pattern is compiled: a text no rule's needles call on needs none)
    import re
    from collections.abc import Callable, Iterable

    Replace = Callable[[re.Match[str]], str]


class Rule:
    """One kind of secret: its regex is compiled when a text first holds one of its needles (``pattern``), so
    importing the rules costs a refresh of one turn nothing for the dozens of rules its text never calls on.

    A plain class, not a dataclass: ``dataclasses`` would double what importing this module costs a hook that
    redacts a failed command's output before looking it up."""

    __slots__ = ("_pattern", "again", "check", "fresh", "group", "kind", "needles", "regex", "replace", "retry", "run")

    def __init__(
        self,
        kind: str,
        regex: str,
        needles: tuple[str, ...],
        group: int | str = 0,
        check: Callable[[re.Match[str]], bool] | None = None,
        replace: Replace | None = None,
        run: int = 0,
        again: bool = False,
        retry: bool = False,
        fresh: Callable[[], Replace] | None = None,
    ) -> None:
        self.kind = kind
        self.regex = regex
        #: Substrings a match holds; the regex runs only on a text holding one (none: always). A lowercase
        #: needle is looked for in the lowercased text, one with capitals as it is written.
        self.needles = needles
        #: The group holding the secret (0: the whole match).
        self.group = group
        #: Decides whether a match is a secret at all (None: every match is).
        self.check = check
        #: Builds the replacement of a match itself, instead of ``group``/``check``.
        self.replace = replace
        #: The fewest characters without a blank (``\\S``) a match holds: a text with no run as long skips the rule.
        self.run = run
        #: Applied again while it changes the text: a match starts at a command's name, and the command may give
        #: more than one (``keytool -storepass … -keypass …``); each pass finds the next.
        self.again = again
        #: A match ``replace`` leaves as written is looked for again one character on, not after it: a name inside
        #: another word (``pymysql … mysql -pX``) took the real one's option with it.
        self.retry = retry
        #: Makes the replace afresh for each text, for one that keeps what it read of the text between its matches
        #: (``_CurlCookies``; kept by the module, it would keep the text too). Instead of ``replace``; applied once.
        self.fresh = fresh
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            import re

            self._pattern = re.compile(self.regex)
        return self._pattern


def _token(
    kind: str,
    regex: str,
    *needles: str,
    inside: str = r"[\w-]",
    run: int = 0,
    made: Callable[[str], bool] | None = None,
    glued: Callable[[str], bool] | None = None,
) -> Rule:
    """A context-free token shape: whatever matches ``regex`` (not inside a longer word) is the secret.

    The regex starts with the token's own prefix, not a look-behind, so the regex engine can skip to
    where the prefix occurs; the character before a match is checked afterwards (``inside``; an escape ending there
    stands for the character it encodes: ``_an_escape_ends``). ``made``, when
    given, is asked about the match too: a short prefix (``r8_``, ``re_``) or a length with some slack lets an
    identifier through only if it is no generated value (``_mixed``: capitals, small letters and digits).
    ``glued``, when given, is asked about a match inside a longer word: a token pasted against the word before it
    (``tokenghp_…``, ``xxAKIA…``: red49) is still one when its value is generated, as a word that merely holds the
    prefix's letters (``task-runner-…``) is not.
    """

    def outside(match: re.Match[str]) -> bool:
        import re

        at = match.start()
        if at and re.match(inside, match.string[at - 1]) and not _an_escape_ends(match.string, at, inside):
            return glued is not None and glued(match.group(0)) and (made is None or made(match.group(0)))
        return made is None or made(match.group(0))

    return Rule(kind, rf"{regex}(?!{inside})", needles, check=outside, run=run)


def _an_escape_ends(text: str, at: int, inside: str) -> bool:
    """Whether an escape ends at ``at`` (``redaction.escape_ending``: a URL's ``%22``, ``token%3D``, a JSON or C
    string's ``\\n``, ``\\u0022``, ``\\x27``, HTML's ``&#34``) and stands for a character a token may follow (not one
    of ``inside``): a token URL-encoded in a link or a log, or after a line's end in JSON-escaped output, was read
    as inside a longer word and kept as written (review43c M3). ``%41ghp_…`` (an ``A``) is still inside one."""
    import re

    escape = escape_ending(text, at)
    return escape is not None and not re.match(inside, escape[0])


# --------------------------------------------------------------------------- provider formats


def _mixed(value: str) -> bool:
    """Capitals, small letters and digits all in ``value``: a generated secret, not a word, a path or a hash."""
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _machine_made(value: str) -> bool:
    """Whether ``value``, after a token's prefix, is a generated one rather than a name: two of capitals, small
    letters and digits, and not words run together (``SomeLongCamelCaseIdentifier``: no two capitals side by side).

    ``_mixed`` (all three) let a real key through one time in a few hundred: a random base62 value of 32 to 40
    characters holds no digit that often (review12 R1: ``r8_``, ``lin_api_``, ``glsa_``, ``re_`` keys in clear)."""
    classes = sum((any(c.isupper() for c in value), any(c.islower() for c in value), any(c.isdigit() for c in value)))
    if classes < 2:
        return False
    if classes == 3:
        return True
    letters = [c for c in value if c.isalpha()]
    return any(a.isupper() and b.isupper() for a, b in zip(letters, letters[1:], strict=False)) or any(
        c.isdigit() for c in value
    )


def _generated_run(value: str) -> bool:
    """Whether a token glued to the word before it (``_token``'s ``glued``) is one: a run of 16 letters and digits or
    more in it, and what follows its prefix's first word (``glpat``, ``xoxb``; all of it when it has one run alone:
    ``AKIA…``) made by a machine (``_machine_made``). A word that holds the prefix's letters (``highp_…``,
    ``task-Runner2-Config``) has shorter runs or no generated value. No English word ends in ``glpat-``, ``sk_live_``
    or ``AKIA``, so a name of words after one is a token still (review49e M1: ``MYTOKEN_glpat-Jupc94tnwlavyfErGPmp``)."""
    runs = _runs(value)
    return max(map(len, runs), default=0) >= 16 and _machine_made("".join(runs[1:]) or value)


def _runs(value: str) -> list[str]:
    """The runs of letters and digits in a token, between its ``-``, ``_`` and ``.``."""
    return value.replace("-", " ").replace("_", " ").replace(".", " ").split()


def _generated_not_words(value: str) -> bool:
    """``_generated_run``, less a name of words run together (``_words_run_together``): for GitHub's ``gh?_``, which
    ends words (``highs_``, ``laughs_``) before a name's words (``highs_AverageTemperatureByMonthAndRegion2024``:
    review49a M1)."""
    return _generated_run(value) and not _words_run_together("".join(_runs(value)[1:]) or value)


def _a_mixed_run(value: str) -> bool:
    """Whether a run of 16 letters and digits or more in a token holds capitals, small letters and digits and is no
    name of words run together (``_words_run_together``): ``sk-`` glued to a word (``_token``'s ``glued``), which ends
    many a word (``task-``, ``disk-``, ``risk-``, ``kiosk-``) before a name's words (``isk-ant-api03-someLongCamelName``,
    ``task-PostgresMigration2Runner``: review49a H1)."""
    runs = value.replace("-", " ").replace("_", " ").split()
    return any(len(run) >= 16 and _mixed(run) and not _words_run_together(run) for run in runs)


def _words_run_together(run: str) -> bool:
    """Whether three characters in four of ``run`` or more are in words: a capital or none, then two small letters
    or more (``PostgresMigration2Runner``, ``Ubuntu2204LtsGen2Image``). A generated value's characters fall in such
    words about one time in three; a random run of 36 (a GitHub token's) reaches three in four about once in 650, one
    of 48 (an OpenAI key's) once in 3,000 (such a glued token is then kept: only after ``sk-`` and ``gh?_``, which end
    English words)."""
    covered = at = 0
    while at < len(run):
        start = at + 1 if run[at].isupper() else at
        end = start
        while end < len(run) and run[end].islower():
            end += 1
        if end - start >= 2:
            covered += end - at
        at = max(end, at + 1)
    return covered * 4 >= len(run) * 3


def _decoded(value: str) -> bytes | None:
    """``value`` decoded from base64 (its missing padding added), or None when it is not base64.

    (``base64`` is imported here: the rules' import is on the failure hook's path, and few texts hold base64 a rule
    asks about.)"""
    import base64
    import binascii

    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _encodes_a_key(match: re.Match[str]) -> bool:
    """Whether a base64 run (``LS0tLS1CRUdJTi…``) decodes to the start of a private key's PEM block."""
    head = _decoded(match.group(0)[:64])
    return head is not None and b"PRIVATE KEY" in head


def _after(*words: str) -> Callable[[re.Match[str]], bool]:
    """A check that the match comes right after one of ``words`` (a literal-first regex stays fast)."""
    return lambda m: m.string.endswith(words, 0, m.start())


def _a_sas_signature(match: re.Match[str]) -> bool:
    """Whether an ``azure-sas`` match's ``sig=`` starts a query's or a connection string's field (after ``?``, ``&``
    or ``;``) and its value is no name of small letters joined by ``_``: a call's
    (``h=hmac.new(k,m,sha256);sig=compute_message_signature_for(payload)``, review58f F5), which a signature's random
    base64 never spells."""
    return match.string.endswith(("?", "&", ";"), 0, match.start()) and not _SNAKE_CASE.fullmatch(match.group(1))


_SNAKE_CASE = Lazy(globals(), "_SNAKE_CASE", r"[a-z]+(?:_[a-z]+)+")


#: A quote opening or closing an option's value, in a JSON string escaped once or more (``\\"``).
_QUOTE = r"""(?:\\\\){0,3}\\?['"]"""

#: An option's value: quoted (blanks allowed, and the other quote: ``-a "Sun'shine"``), or a word that is not the
#: next option or a variable, less a shell's ``;``, ``&`` or ``|`` at its end (``-a pw; ls``). A ``;&|`` inside the word
#: stays in it: ``requirepass Tr0ub4dor&3x`` in a redis.conf, a compose file or a unit's ``ExecStart=`` is one password
#: (cutting the word there on "command lines" leaked ``&3x``: review7c), so ``-a pw|grep x`` loses ``|grep`` too.
#: A quote escaped as a JSON string escapes it is a quote too: a command in ``tasks.json`` or a transcript's tool call
#: (``"docker login -p \\"S3cret\\""``, review46c P1), and escaped again, as a tool call's arguments, a JSON string,
#: are held in a JSON string (``\\\\\\"S3cret\\\\\\"``), up to three times (a bound: a run of quotes spelt each
#: its own way, none closed, would each read to the line's end).
_OPTION_VALUE = (
    rf"""(?:(?P<quote>{_QUOTE})(?P<quoted>(?:(?!(?P=quote))[^\n])+)(?P=quote)"""
    r"""|(?P<bare>[^\s"'`$;&|-](?:[^\s"'`]*[^\s"'`;&|])?))"""
)


#: A variable's value after its name, in a shell (``NAME=value``, ``export NAME='value'``) or YAML (``NAME: value``).
_ENVIRONMENT_VALUE = r"[\"']?[ \t]*(?:=|:[ \t])[ \t]*" + _OPTION_VALUE


def _marked(match: re.Match[str], group: int | str, replacement: str) -> str:
    """The text of ``match`` with what ``group`` matched replaced: every rule that redacts a part of its match."""
    whole, start, end = match.group(0), match.start(group) - match.start(), match.end(group) - match.start()
    return f"{whole[:start]}{replacement}{whole[end:]}"


def _option_value(match: re.Match[str], kind: str) -> str:
    """The match with the option's value (``_OPTION_VALUE``) replaced, when it is a literal (one that looks made in
    brackets)."""
    group = "quoted" if match.group("quoted") is not None else "bare"
    value = match.group(group)
    if _single_quoted_alone(match):
        value = value.removeprefix("$")
    if not _is_literal(value) or (match.groupdict().get("bracket") and not _looks_made(value, password=True)):
        return match.group(0)  # (a variable's, or help text's ``<user:password>``: ``_BRACKETED_PASSWORD``)
    return _marked(match, group, f"[redacted:{kind}]")


def _single_quoted_alone(match: re.Match[str]) -> bool:
    """Whether the match is a password in single quotes of its own after its user (``deploy:'$ecret'``,
    ``_USER_AND_PASSWORD``): a shell reads it as written, so a ``$`` that starts it is the password's, not a
    variable's (review53g; ``"deploy:$PW"`` and ``deploy:$PW`` stay variables)."""
    return match.groupdict().get("user") is not None and match.group("quote") == "'"


#: Up to four lines a ``\\`` at their end continues (PowerShell's backtick, cmd's ``^``), each up to 200 characters,
#: before the option's line: tried after the option's line alone, so a line that is not continued is read as fast as
#: before (the engine's loop over one class of characters; a loop over a character or a ``\\``+line end cost a log's
#: ``…7z`` times a thirtieth more).
_CONTINUED_LINES = r"(?:[^\n|;&]{0,200}?[\\`^]\r?\n){0,4}?"


def _option_of(tools: str, option: str, *, quoted_field: bool = False) -> str:
    """What comes before a password given to ``option`` of one of ``tools`` (a pattern of their names): the option
    within 200 characters of the tool's name on its line, before a shell's ``|``, ``;`` or ``&`` (a long line costs
    linear time). A line continued with ``\\`` (PowerShell's backtick, cmd's ``^``) goes on on the next (``mysql -u
    root \\`` then ``  -pS3cret``), as the shell reads it (``_CONTINUED_LINES``); with ``quoted_field``, one quoted
    field of up to 300 characters on the name's line is read past whole (keytool's ``-dname "CN=…, OU=…, O=…"``
    before its ``-storepass``). The name first, not a ``\\b``: the engine skips to it as a substring search does (``\\b7z`` tried every place of a log,
    whose times hold ``7Z``, at a sixth of its redaction), and so is a name with a prefix another tool's lacks
    (``sqlcmd|bcp|osql`` was tried at every place of a text holding ``-p``); ``_argument`` asks that it starts a
    word."""
    field = r'(?:[^\n|;&"]{0,200}?"[^"\n]{0,300}")?' if quoted_field else ""
    return rf"(?:{tools})(?![\w-]){field}{_CONTINUED_LINES}[^\n|;&]{{0,200}}?\s(?:{option})"


#: A word of a command line that is not an option: its file or its user (``htpasswd -b FILE USER …``).
_WORD = r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s'"-][^\s'"]*)"""
#: What separates two words of a command: blanks, on its line or across a ``\\`` (a backtick, a ``^``) at a line's end
#: that continues it.
_BLANKS = r"(?:[\\`^]\r?\n)?[ \t]+(?:[\\`^]\r?\n[ \t]*)*"
#: A word given to one of sshpass's options: ``_WORD``'s, quoted in a JSON string too (``-P \"Enter password\"``), or
#: with a blank escaped (``-P Enter\\ password:``). Each shape starts otherwise, so a word is read one way only.
_SSHPASS_WORD = r"""(?:'[^'\n]*'|"[^"\n]*"|\\"[^"\n]*\\"|(?:[^\s'"\\-]|\\[^\n"])[^\s'"\\]*(?:\\[^\n][^\s'"\\]*)*)"""
#: sshpass's options before its ``-p`` (``-f FILE``, ``-d N``, ``-P PROMPT``, ``-e[VAR]``, ``-v``, ``-h``, ``-V``),
#: a cluster of them too (``-vP assword:`` is ``-v -P assword:``), as many as ``_SSHPASS_OPTIONS`` at most.
_SSHPASS_OPTION = rf"-(?:[hvV]*(?:[fdP](?:{_BLANKS})?{_SSHPASS_WORD}|e[^\s\\]*)|[hvV]+(?=[ \t]|\\\r?\n))"
#: How many options sshpass's ``-p`` is looked for after: a bound keeps ``sshpass -f sshpass -f …`` linear (each name
#: reads this many options on), and no command gives sshpass more.
_SSHPASS_OPTIONS = 16
#: htpasswd's options before its words (``-bB``, ``-C 10``: a cluster ending in ``C`` takes the number after it):
#: with ``-b`` its password is its last word, the third (``-b FILE USER PW``) or with ``-n`` the second (``-nb USER
#: PW``).
_HTPASSWD_FLAGS = r"(?:[ \t]+-(?:[A-Za-z]*C[ \t]+\d+|[A-Za-z]*[A-BD-Za-z]))*"
_HTPASSWD = (
    rf"htpasswd(?:\.exe)?(?={_HTPASSWD_FLAGS}[ \t]+-[A-Za-z]*b)"
    rf"(?:(?={_HTPASSWD_FLAGS}[ \t]+-[A-Za-z]*n){_HTPASSWD_FLAGS}[ \t]+{_WORD}"
    rf"|(?!{_HTPASSWD_FLAGS}[ \t]+-[A-Za-z]*n){_HTPASSWD_FLAGS}[ \t]+{_WORD}[ \t]+{_WORD})[ \t]+"
)

#: A user before a ``:`` and a password (``_USER_AND_PASSWORD``), PowerShell's variables in it read whole
#: (``$env:JIRA_USER``, whose ``:`` is the variable's; ``$env:USERDOMAIN\$env:USERNAME``, ``$env:USERNAME@corp…``:
#: review53g G1, a user that went on after its variable was no user, and its literal password stayed): in quotes,
#: NTLM's ``DOMAIN\user`` too (review53a L1); bare, no ``<``, ``[`` (help text's ``<user:password>``, ``USER[:PASS]``:
#: review53a D4), quote nor backtick. A variable's name is read to its end (``(?!\w)``), so each character is read one
#: way only.
_ENV_VARIABLE = r"(?i:\$env:)\w+(?!\w)"
_QUOTED_USER = rf"""(?:{_ENV_VARIABLE}|(?!(?i:\$env:))[^\s:'"])*"""


def _bare_user(character: str) -> str:
    """A bare user of ``character``s, a ``<`` or ``[`` inside it but before its ``:`` (``USER[:PASS]``)."""
    return rf"""(?:{character}(?:{character}|[<\[](?!:))*)?"""


_BARE_USER = _bare_user(rf"""(?:{_ENV_VARIABLE}|(?!(?i:\$env:))[^\s:'"`<\[])""")
#: A bare password: no variable's (``$PW``), less a shell's ``;``, ``&`` or ``|`` at its end.
_BARE_PASSWORD = r"""[^\s"'`$;&|](?:[^\s"'`]*[^\s"'`;&|])?"""
#: The bare user and password of a line among lines whose ends are escaped (``printf 'url = x\nuser = …'``, a JSON
#: string's): a ``\\`` in them escapes no ``n`` nor a quote, so each ends at the line's escaped end, and a line of
#: ``\nuser=`` repeated is read once (read on to its end from each, it took time quadratic in its length).
_ESCAPED = r"""\\[^\sn"'`]"""
_BARE_USER_ON_ESCAPED_LINES = _bare_user(rf"""(?:{_ENV_VARIABLE}|(?!(?i:\$env:))[^\s:'"`<\[\\]|{_ESCAPED})""")
_BARE_PASSWORD_ON_ESCAPED_LINES = (
    rf"""(?:[^\s"'`$;&|\\]|{_ESCAPED})(?:(?:[^\s"'`\\]|{_ESCAPED})*(?:[^\s"'`;&|\\]|{_ESCAPED}))?"""
)


def _user_alone(quote: str, bare_user: str) -> str:
    """A user before a ``:`` (``_USER_AND_PASSWORD``), bare (``bare_user``) or quoted on its own (``"deploy":…``,
    ``'deploy':…``), its quote the group ``quote``: a pattern holds two, each its own name."""
    return rf"(?:(?P<{quote}>{_QUOTE}){_QUOTED_USER}(?P={quote})|{bare_user})"


#: A character of a password in quotes a JSON string escapes once (``\\"deploy:…\\"``, the group ``json``): an escaped
#: backslash with what it escapes (the shell's ``\\"`` inside the password is ``\\\\\\"`` there: red54 read the
#: password to it), another escape, or a character that is none; else (``'…'``, quotes escaped twice) any character
#: but the quote. Each shape starts otherwise, so a password is read one way only.
_JSON_ESCAPED_CHARACTER = r"""(?(json)(?:\\\\(?:\\[^\n]|[^\\\n"])|\\[^\\"\n]|[^\\\n"])|(?!(?P=quote))[^\n])"""
#: A password in brackets with its user (``[deploy:…]``, ``<deploy:…>``, the group ``bracket``), up to the closing
#: one: help text's shape (``<user:password>``, ``[USER:PASS]``), so ``_option_value`` redacts it only where it looks
#: made.
_BRACKETED_PASSWORD = r"""[^\s"'`$;&|\]>][^\s"'`\]>]*(?=[\]>])"""


#: A user and its password given as one word (``user:password``, curl's ``-u``, HTTPie's ``-a``): quoted whole
#: (``'deploy:p@ss word'``, in quotes a JSON string escapes too), the password quoted alone (``deploy:'pa$$'``,
#: ``"deploy":"pa$$"``: review53a L2) or neither (the user quoted alone too, ``'deploy':pa$$``), the user empty too
#: (``-u :token``), up to the password, read as ``_OPTION_VALUE`` reads an option's value (``quoted``, ``bare``:
#: ``_argument`` redacts it, and the user stays). A password redacted already or a variable's (``-u "deploy:$PW"``)
#: is read past, so the next pass (``Rule.again``) takes the command's next one (``-u … -U …``). The optional ``user``
#: group is the user before a password quoted alone: where it matched, the quote opens the password, else the user is
#: inside the quotes (``(?(user)…)``).
def _user_and_password(bare_user: str, bare_password: str) -> str:
    """``_USER_AND_PASSWORD`` with ``bare_user`` and ``bare_password`` read unquoted."""
    return (
        rf"""(?:(?P<user>{_user_alone("user_quote", bare_user)}:)?"""
        rf"""\$?(?P<quote>(?P<plain>"|(?<=\$)')|(?P<json>\\")|{_QUOTE})(?(user)|{_QUOTED_USER}:)(?!\[redacted:)"""
        rf"""(?!(?<!')\$)(?P<quoted>(?:(?(plain)\\[^\n]|(?!))|(?(plain)(?!(?P=quote))[^\n\\]|{_JSON_ESCAPED_CHARACTER}))+)"""
        rf"""(?P=quote)|(?P<bracket>[<\[])?{_user_alone("bare_user_quote", bare_user)}:(?!\[redacted:)"""
        rf"""(?P<bare>(?(bracket){_BRACKETED_PASSWORD}|{bare_password})))"""
    )


_USER_AND_PASSWORD = _user_and_password(_BARE_USER, _BARE_PASSWORD)
#: What shows a config file's line before it, where the line is not first on its own (``cli-credentials``' ``user``
#: line), read once from the line's start: a diff's ``+`` or ``-``, a quote's ``>``, ``cat -n``'s number and tab, a
#: grep hit's ``path:`` or ``path:2:`` (``2:`` of one file) (review54d F1, review54f F1-F3). A line after a quote or a
#: backtick (``echo 'user = …' >> ~/.curlrc``, ``printf '%s\n' 'user = …'``, ``Add `user = …` to it``) or an escaped
#: line end is another rule's (``_CONFIG_LINE_INSIDE``), which reads each at once: read from the line's start, a
#: line of many took one pass of the rule for each. ``redaction``'s gate reads the same (``_config_line_start``).
CONFIG_LINE_SHOWN = r"""(?:[+>-]|\d+\t|[^\s:`'"]+:(?:\d+:)?)"""
#: Where a config line starts inside another line: after a quote or a backtick, or a line end escaped (``echo -e
#: "url = …\nuser = …"``, a JSON string's; not an escaped backslash's ``\\\\n``), whose user and password end at
#: the next escaped one (``_BARE_USER_ON_ESCAPED_LINES``) (review54f F4).
_CONFIG_LINE_INSIDE = r"""(?:[`'"]|(?<!\\)\\n)"""
#: A curl config file's user option (``user``, ``proxy-user``, ``--user``), with its value after a blank, a ``=`` or a
#: ``:`` (the group ``sign``: ``_config_user``), not a uid and gid (Terraform's ``user = "1000:1000"``, a Dockerfile's
#: ``USER 10001:10001``: the same number twice, or two of five digits at most, what ``id`` gives; an account's
#: ``104233:83726451`` is a user and a PIN, review54f F5) nor a sudoers line (``user ALL=(ALL:ALL) ALL``). A ``=``
#: after blanks is the sign's (``user =1000:1000`` is a uid and gid, not the user ``=1000``); a ``:`` may open an
#: empty user's password (curl reads ``--user :PW`` so, review61a F3).
_CONFIG_USER = (
    r"(?:--)?(?:proxy-)?user(?:[ \t]*(?P<sign>[=:])[ \t]*|[ \t]+(?!=))"
    r"""(?!["']?(?:(?P<uid>\d+):(?P=uid)|\d{1,5}:\d{1,5})["']?(?![^\s\\'"`])|ALL=)"""
)
#: curl's user option (``-u``) and its proxy's (``-U``), glued to their value too (``-udeploy:…``), last in a cluster
#: of curl's options that take no value (``-sSfu deploy:…``), and their long names (``--user``, ``--proxy-user``).
_CURL_USER = (
    r"(?i:curl(?:\.exe)?)",
    r"-[0-46aBfgGiIjJklLMnNOpqRsSvVZ]*[uU](?:=|[ \t]*)|--(?:proxy-)?user(?:=|[ \t]+)",
)
#: HTTPie's ``-a``/``--auth`` (``http -a deploy:… example.org``; ``https``, its other command, ``http.exe``, and
#: ``python -m httpie``: review53a L3; xh and xhs, its twins), its name in any case (``CURL``'s too), glued to its
#: value too (argparse reads ``-adeploy:…`` as ``-a deploy:…``), last in a cluster of its options that take no value
#: (``-va deploy:…``: review53a L3); not a URL's ``http:``.
_HTTPIE_PROGRAM = r"(?i:(?:https?|httpie|xhs?)(?:\.exe)?)(?!:)"
_HTTPIE_AUTH = (_HTTPIE_PROGRAM, r"-[bcdfhijqvxFIS46]*a[ \t]*|--auth(?:=|[ \t]+)")
#: HTTPie's bearer auth (``-A bearer``, ``--auth-type=bearer``, ``-A=bearer`` as argparse reads it too), after which
#: ``-a``'s value is a token, no ``user:password`` (``http -A bearer -a TOKEN example.org``); with the ``-a`` after it
#: within 200 characters of its line, or before it (``_BEARER_AFTER``), on a line a ``\\`` or a backtick continues
#: too (``_CONTINUED_LINES``: review54d).
_BEARER_TYPE = r"""(?:-A(?:=|[ \t]*)|--auth-type(?:=|[ \t]+))['"]?(?i:bearer)(?![\w-])"""
_BEARER_AFTER = rf"(?=['\"]?{_CONTINUED_LINES}[^\n|;&]{{0,200}}?\s{_BEARER_TYPE})"

#: Samba's user and password option, up to the password (``-U user%``, ``--user=DOM\\user%``).
_SAMBA_USER = r"(?:-U[ \t]*|--user(?:[ \t]+|=))['\"]?[^\s%'\"]+%"
#: Vault's older service token (``s.`` and 24 letters and digits; ``hvs.…`` is a token rule's) after a vault command's
#: options (``-no-print``, ``-method=token``, ``-increment 1h``: a word after an option is its value when the token
#: follows) and as its ``token=`` (the form Vault's manual gives to ``vault login``), quoted too (``"s.…"``, in quotes
#: a JSON string escapes); ``VAULT_TOKEN=s.…`` is a secret-named key's.
_VAULT_LEGACY_TOKEN = (
    r"(?:[ \t]+-[^\s=]+(?:=\S+|[ \t]+[^\s-]\S*)?)*[ \t]+(?:token=)?"
    r"(?=(?:\\?['\"])?s\.[A-Za-z0-9]{24}(?![\w.-]))"
)
#: A quote closing a tool's name a command quotes (``"sshpass" -p …``, PowerShell's ``& "sshpass.exe" -p …``):
#: ``_a_quoted_command`` asks that its opening quote starts the command.
_CLOSING_QUOTE = r"(?P<closing>[\"'])?"
#: The tools that take a password as an argument, and what comes before it (``_OPTION_VALUE``): the needles a
#: command holds, and the pattern up to the value. The option gives a value whatever it looks like (a literal: not
#: ``$PW``); where the pattern's ``prose`` group is found (a word that is said in prose too), the value must look
#: made (``_looks_made``). Each a rule of its own, asked only of a text holding its needles: its tool's name, or
#: another rule's needle that every match holds where that needle is seldom in a text without the tool (``login``,
#: ``-u``): not ``pass``, which every text naming a password holds, and which compiled htpasswd's pattern (0.6 ms)
#: for a hook's failed command printing ``KeyError: 'password'``. The context gate lets
#: through a text holding one of the options it sees (``-p``, ``--``, ``login ``) or a word of
#: ``redaction.ARGUMENT_WORDS``.
_PASSWORD_ARGUMENTS: tuple[tuple[tuple[str, ...], str], ...] = (
    # mysql's (or mariadb's) glued to its flag (``-pS3cret``, ``-p'S3cret!'``); ``-p`` alone asks for it.
    (("mysql", "mariadb"), _option_of(r"mysql(?:dump|admin|import|check|sh)?|mariadb(?:-dump|-admin)?", "-p")),
    # A registry login's ``-p`` (``docker login -u ci -p S3cret``; its program's path quoted too, ``"C:\\Program
    # Files\\Docker\\docker.exe" login -p …``, where the quote opens the command: ``_a_quoted_command``).
    (
        ("docker", "podman", "buildah", "skopeo", "nerdctl", "oras"),
        _option_of(rf"(?:docker|podman|buildah|skopeo|nerdctl|oras)(?:\.exe)?{_CLOSING_QUOTE}\s+login", "-p[ =]?"),
    ),
    # sshpass's ``-p`` among its own options (its name quoted too, ``"sshpass" -p …``, or Windows's ``sshpass.exe``) (``_SSHPASS_OPTION``, on the lines a ``\\`` continues too), before the
    # command it runs: ``sshpass -f FILE ssh -p 2222`` gives ssh's port, ``sshpass -p "$S" ssh host mkdir -p /srv``
    # mkdir's flag.
    (
        ("sshpass",),
        rf"sshpass(?:\.exe)?{_CLOSING_QUOTE}(?![\w-])(?>(?:{_BLANKS}{_SSHPASS_OPTION}){{0,{_SSHPASS_OPTIONS}}}){_BLANKS}-[hvV]*p(?:=|[ \t]*)",
    ),
    # redis-cli's ``-a``/``--pass`` (``-a "two words"``).
    (("redis-",), _option_of("redis-(?:cli|benchmark)", "-a|--pass") + r"[ \t]+"),
    # Redis's ``requirepass``/``masterauth``: the server's ``--requirepass``, a redis.conf line's, after ``CONFIG
    # SET``, any value; in a sentence ("in redis.conf requirepass …") one that looks made.
    (
        ("requirepass", "masterauth"),
        r"(?i:(?:(?m:^)[ \t]*|--|config[ \t]+set[ \t]+|(?P<prose>(?<![\w-])))(?:requirepass|masterauth))[ \t]+",
    ),
    # keytool's ``-storepass``, ``-keypass`` (``-srcstorepass``, ``-destkeypass``…) and ``-new``; not
    # ``-storepass:env NAME``.
    (("keytool",), _option_of("keytool", r"-(?:src|dest)?(?:store|key)pass|-new", quoted_field=True) + r"[ \t]+"),
    (("htpasswd",), _HTPASSWD),
    # (Windows runs the Azure CLI as ``az.cmd``.) Its ``-p`` glued to its value too, or after a ``=``: argparse reads
    # ``-pS3cret`` and ``-p=S3cret`` as ``-p S3cret`` (review52e).
    (("login",), _option_of(r"az(?:\.cmd|\.exe)? login", "-p|--password") + r"[ \t]*(?:=|(?!=))"),
    # OpenLDAP's ``-w`` (``-W`` asks for it), ldappasswd's old and new ones too (``-a``, ``-s``).
    (("ldap",), _option_of("ldap(?:search|modify|add|delete|modrdn|compare|whoami|exop)", "-w") + r"[ \t]*"),
    (("ldappasswd",), _option_of("ldappasswd", "-[was]") + r"[ \t]*"),
    # Samba's ``-U user%password`` (``--user=DOM\\user%…``).
    (("-u",), _option_of(r"smb(?:client|cacls|get|cquotas|tree)", _SAMBA_USER)),
    (("sqlcmd",), _option_of("sqlcmd", "-P") + r"[ \t]*"),
    (
        ("rabbitmqctl",),
        _option_of("rabbitmqctl", rf"(?:add_user|change_password|authenticate_user)[ \t]+{_WORD}[ \t]+"),
    ),
    (("mongo",), _option_of("mongo(?:sh|dump|restore|export|import|stat|top|files)?", "-p|--password") + r"[ \t]+"),
    # openssl's ``-k`` (``enc``'s password) and ``-K`` (its key); ``-passin pass:…`` is a setting's.
    (("openssl",), _option_of("openssl", "-[kK]") + r"[ \t]+"),
    (("ssh-keygen",), _option_of("ssh-keygen", "-[NP]") + r"[ \t]+"),
    (("zip",), _option_of("zip|unzip|zipcloak", "-[A-Za-z]*P") + r"[ \t]+"),
    # 7-Zip's glued to its flag (``-pS3cret``; ``-p`` alone asks for it).
    (("7z",), _option_of("7z[arz]?", "-p")),
    # RAR's glued to its flag too (``unrar x -pS3cret``, ``rar a -hpS3cret``; ``-p-`` gives none), as Windows spells
    # it too (``UnRAR.exe x -p…``, ``WinRAR.exe a -p…``).
    (("rar ", "rar.exe"), _option_of(r"(?i:(?:un|win)?rar(?:\.exe)?)", "-[Hh]?p")),
    # lftp's ``-u user,password`` (in ``-e "open -u …"`` too), Mosquitto's clients' ``-P``. (lftp's and Samba's
    # below are asked of a text holding ``-u``, smbclient's needle: a needle of their own is a pass over every text.)
    (("-u",), _option_of("lftp", r"-u[ \t]+['\"]?[^\s,'\"]+,")),
    (("mosquitto_",), _option_of("mosquitto_(?:pub|sub|rr)", "-P|--pw") + r"[ \t]+"),
    # Samba's ``net rpc``/``net ads`` and rpcclient's ``-U user%password``, as smbclient's, before ``net``'s
    # subcommand too (``net -U user%… rpc``; a row each: a pattern starting with its name's letters is skipped to as a
    # substring search is).
    (("-u",), _option_of("net", _SAMBA_USER)),
    (("-u",), _option_of("rpcclient", _SAMBA_USER)),
    # Vault's older service token given to ``vault login`` (``_VAULT_LEGACY_TOKEN``; to ``vault token lookup``: a
    # token rule's).
    (("login",), _option_of("vault", "login") + _VAULT_LEGACY_TOKEN),
    # The GitHub CLI's secret given on its line (``gh secret set NAME --body …``, ``-b …``, ``-b"…"``, ``--body=…``),
    # its documented way to set one without its prompt (review49a H2); ``gh variable set`` sets no secret.
    (("secret",), _option_of(r"gh(?:\.exe)?[ \t]+secret[ \t]+set", "-b|--body") + r"(?:=|[ \t]*)"),
)


#: A command given as a list of strings (Python's ``subprocess.run(["mysql", "-pS3cret", …])``, JSON's ``"args":
#: ["sshpass", "-p", "…", "ssh", …]``) whose program is a tool of ``_PASSWORD_ARGUMENTS`` (or curl, for its ``-u``),
#: but the archivers (``zip`` and ``7z`` are needles a log's ``…7Z`` and Python's ``zip(`` hold) and rar's and vault's:
#: the list whole, its strings (quoted in a JSON string too, ``[\"mysql\", …]``; ``+`` joins two; a name between
#: them is a variable's), read by ``_listed_command``. Its other spellings (M1): a tuple or a call's arguments (``(``:
#: Python's ``("mysql", "-p", "…")``, Go's ``exec.Command("mysql", "-p…")``), up to three strings before the program
#: (``["sudo", "mysql", …]``: the rules tell from the joined line whether the program is run), the program apart from
#: its list (Node's ``spawn('sshpass', ['-p', …])``), or named by the key beside it (``"command": "mysql", "args":
#: [...]``, a VS Code task's or an MCP server's).
#: Possessive, so a run of such lists is read once.
_LISTED_TOOLS = (
    r"mysql\w*|mariadb[\w-]*|docker|podman|buildah|skopeo|nerdctl|oras|sshpass|redis-cli|keytool|htpasswd|az"
    r"|ldap\w+|smbclient|sqlcmd|rabbitmqctl|mongo\w*|openssl|ssh-keygen|lftp"
    r"|mosquitto_\w+|net|rpcclient|curl"
)
_LISTED_STRING = r"""(?:\\?"[^"\\\n]*\\?"|'[^'\\\n]*')"""
_LISTED_BLANKS = r"[ \t\r\n]*"
_LISTED_ARGUMENTS = rf"""(?:{_LISTED_BLANKS},{_LISTED_BLANKS}(?:\\?["'][Aa]rgs\\?["'][ \t]*:[ \t]*)?\[{_LISTED_BLANKS}{_LISTED_STRING})?"""
_LISTED_PROGRAM = (
    rf"""\\?["'](?:[\w.~/\\-]*[/\\])?(?i:(?:{_LISTED_TOOLS})(?:\.exe)?)\\?["']{_LISTED_ARGUMENTS}"""
    rf"(?>(?:{_LISTED_BLANKS}[,+]{_LISTED_BLANKS}(?:{_LISTED_STRING}|[A-Za-z_][\w.]*(?:\(\))?))*)"
)
#: Up to three strings before the program in its list.
_LISTED_BEFORE = rf"{_LISTED_BLANKS}(?:{_LISTED_STRING}{_LISTED_BLANKS},{_LISTED_BLANKS}){{0,3}}"
#: The list, the tuple or the call's arguments, and the program a ``"command"`` key names, each a rule of its own whose
#: pattern starts with a literal (``[``, ``(``, ``command``): the engine skips to it as a substring search does, where
#: a pattern starting with any of them tried every ``"`` and ``(`` of a text (14% more instructions over code).
_LISTED_COMMANDS = (
    rf"\[{_LISTED_BEFORE}{_LISTED_PROGRAM}",
    rf"\({_LISTED_BEFORE}{_LISTED_PROGRAM}",
    rf"[Cc]ommand\\?[\"'][ \t]*:[ \t]*{_LISTED_PROGRAM}",
)
#: One part of a ``_LISTED_COMMANDS`` match: a ``,`` between two words, a ``+`` joining two, a key (``"args":``,
#: ``'args':``, and ``command":`` the match starts with: no word), a string, a variable.
_LISTED_PART = Lazy(
    globals(),
    "_LISTED_PART",
    r"""(,)|\+|\\?["']?\w+\\?["'][ \t]*:|"([^"\\]*)\\?"|'([^']*)'|([A-Za-z_][\w.]*(?:\(\))?)""",
)


#: A listed program's name in any case, with its folder: the rules read it in small letters, as a list in capitals
#: or capitalised runs the same program (``["SSHPASS", "-p", …]``, ``["Mysql.exe", …]``: review48d L).
_LISTED_NAME = Lazy(globals(), "_LISTED_NAME", rf"(?:[\w.~/\\-]*[/\\])?(?i:(?:{_LISTED_TOOLS})(?:\.exe)?)")


def _listed_command(match: re.Match[str]) -> str:
    """A ``_LISTED_COMMANDS`` match with what the rules redact in its command line (its strings joined with blanks, a
    variable as ``$VAR``: ``"-p" + pw`` is ``-p$VAR``, no literal) redacted in the strings it came from."""
    whole, words, parts = match.group(0), [""], []  # (parts: each string's start in the line, its end, and in whole)
    said = 0  # (the length of the line so far, ``" ".join(words)``'s: joined again for each string, a list of
    # 50,000 strings took minutes: review47h H1)
    for part in _LISTED_PART.finditer(whole):
        if part.group(1):
            words.append("")
            said += 1
        elif part.group(2) is not None or part.group(3) is not None:
            group = 2 if part.group(2) is not None else 3
            string = part.group(group)
            if string.isascii() and not string.islower() and _LISTED_NAME.fullmatch(string):  # (``"SSHPASS"``)
                string = string.lower()
            quote = '"' if any(c.isspace() for c in string) and '"' not in string else ""  # (one word, as listed)
            at = said + len(quote)
            parts.append((at, at + len(string), part.start(group)))
            words[-1] += f"{quote}{string}{quote}"
            said += len(string) + 2 * len(quote)
        elif part.group(4):
            words[-1] += "$VAR"
            said += 4
    line = " ".join(words)
    spans = _redactions(line, _by_the_rules(line))
    if spans is None:  # (markers side by side: every word after the program's name but an option goes)
        spans = [(start, end, "[redacted:cli-credentials]") for start, end, _ in parts[1:] if line[start] != "-"]
    marks, first = [], 0  # (both in order: each span is looked for from the first string that ends after the last)
    for start, end, marker in spans:
        while first < len(parts) and parts[first][1] <= start:
            first += 1
        for begin, stop, at in parts[first:]:
            if begin >= end:
                break
            marks.append((max(start, begin) - begin + at, min(end, stop) - begin + at, marker))
    return _put_back(whole, marks) if marks else whole


#: A value redacted already, or a variable's (quoted, or in quotes a JSON string escapes, once or twice): the next pass
#: (``Rule.again``) looks past it for the command's next one.
_NOT_REDACTED = r"(?!(?:\\\\){0,3}\\?['\"]?(?:\[redacted:|\$))"


#: The rows whose command gives more than one password (``keytool -storepass … -keypass …``): applied again
#: (``Rule.again``). Not sshpass's, whose command runs another (``sshpass -p PW ssh host mkdir -p /srv``).
_SEVERAL_PASSWORDS = ("keytool", "ldappasswd", "ssh-keygen")

#: The options by which a command reads its token or its password from its input (``gh auth login --with-token``,
#: ``docker login --password-stdin``: trial48 F9), and what gives it: a here-string on the option's line (``<<< T…``)
#: or the word ``echo``/``printf`` pipes to the command (``echo T… | gh auth login --with-token``). A file (``<
#: token.txt``, ``cat token.txt |``) or a variable (``<<< "$GH_TOKEN"``) is no literal, and stays.
_STDIN_NEEDLES = ("--with-token", "--password-stdin")
_STDIN_OPTION = r"--(?:with-token|password-stdin)(?![\w-])"
#: A value in bash's ANSI-C quotes (``$'…'``) is a literal as a single-quoted one is, not a variable (review55e F2.6).
_ANSI_C = r"(?:\$(?='))?"
_HERE_STRING = rf"{_STDIN_OPTION}[^\n|;&<>]{{0,200}}?<<<[ \t]*{_ANSI_C}{_NOT_REDACTED}{_OPTION_VALUE}"
#: A heredoc's one line before its closing word, fed to the option's command (``docker login --password-stdin <<EOF``,
#: ``cat <<'EOF' | gh auth login --with-token``, then ``T…`` and ``EOF``: review49a M3); a variable's (``$GH_TOKEN``)
#: stays, and so does a heredoc of more lines, which gives no one token. Its tag bare or quoted, in a JSON string's
#: escaped double quotes too (``<<\\"EOF\\"``: review57e F2).
_HEREDOC_OPENS = r"""<<-?[ \t]*(?P<hq>['"]?|\\")(?P<tag>[A-Za-z_]\w*+)(?P=hq)"""
#: The opening line's rest (no ``<<``: a line of many openings reads the lines after the last one only; a lone ``<``,
#: as in ``grep -v "<none>"`` or a comment, is read past: review57e F3) and its end: a
#: line end, or a JSON string's escaped one (``\\n``: the group ``esc``), as a tool call's command holds a heredoc
#: (``"sudo -S whoami <<EOF\\nPW\\nEOF"``: red56). The rest is read once, to its first end of either kind (an escape
#: with what it escapes, so an escaped backslash's ``\\\\n`` is none), or, on lines of a text, past a ``\\`` to its
#: line's end. The heredoc's lines end as its opening line does (``_HEREDOC_END``).
_HEREDOC_OPENED = r"(?>(?:[^\n\\<]|<(?!<)|\\[^n\n<]){0,200})(?:(?P<esc>\\n)|(?:\\(?:[^\n<]|<(?!<)){0,200})?\r?\n)"
#: A character of a heredoc's line: in a JSON string, an escape with what it escapes but an escaped line end, or a
#: character that is no ``\\`` nor the string's closing ``"``; on lines of a text, any.
_HEREDOC_CHARACTER = r"""(?(esc)(?:[^\n\\"]|\\[^n\n])|[^\n])"""
_HEREDOC_END = r"(?(esc)(?:\\r)?\\n|\r?\n)"
#: Blanks on a heredoc's line: in a JSON string a tab is ``\\t`` (a ``<<-`` heredoc's indent: review57e F2).
_HEREDOC_BLANKS = r"(?(esc)(?:[ \t]|\\t)*|[ \t]*)"
#: The closing word, alone on its line: in a JSON string, before an escaped line end or the string's end; or before
#: the quote that ends a command given whole (``ssh h 'sudo -S whoami <<EOF`` … ``EOF'``: review57e F10).
_HEREDOC_CLOSED = rf"""{_HEREDOC_BLANKS}(?P=tag){_HEREDOC_BLANKS}(?(esc)(?=\\[rn"]|["'`]|\Z)|(?=\r?\n|["'`]|\Z))"""
#: Blank lines may follow the value before the closing word (review49e L3). (Bounded: the opening line's rest, the
#: value and the blank lines are each read at most once a match is tried, not to a long line's end from each option;
#: the value's line atomic, as it ends one way only.)
_HEREDOC_LINE = (
    rf"""{_HEREDOC_OPENED}(?>{_HEREDOC_BLANKS}(?P<value>(?(esc)[^\s$\\"]|[^\s$])(?:{_HEREDOC_CHARACTER}{{0,1000}}"""
    rf"""(?(esc)[^\s\\"]|[^\s]))?){_HEREDOC_BLANKS}{_HEREDOC_END})(?:{_HEREDOC_BLANKS}{_HEREDOC_END}){{0,8}}{_HEREDOC_CLOSED}"""
)
#: chpasswd's heredoc: its lines, a user's ``name:password`` each (or blank), up to 4000, before its closing word
#: (red56 read one line, and kept a heredoc of several users whole; red57 read 32, and kept a 33rd user's: review57e
#: F11; the bound is no cost, as a line is read once per opening that reaches it). Each line is read once (atomic: a name holds no
#: ``:``, and the closing word none); no line holds a ``<<``, so none opens another heredoc whose start would read
#: the lines after it again.
_HEREDOC_PAIRS = (
    rf"""{_HEREDOC_OPENED}(?P<value>(?>(?:{_HEREDOC_BLANKS}(?:[^\s:\\"<]{{1,64}}:(?:(?!<<){_HEREDOC_CHARACTER}){{0,200}})?"""
    rf"{_HEREDOC_END}){{1,4000}})){_HEREDOC_CLOSED}"
)
#: chpasswd's options before the heredoc it is fed (``-c SHA512``, ``-e``), up to 4, each read once: a line of many
#: ``chpasswd`` before one ``<<`` starts few matches.
_CHPASSWD_OPTIONS = r"(?>(?:[ \t]+-[^\s|;&<>]*+(?:[ \t]+[^\s|;&<>-][^\s|;&<>]*+)?){0,4})[ \t]*"


def _heredoc_fed(command: str) -> str:
    """A heredoc opened on ``command``'s line, its one line (``sudo -S whoami <<EOF``, then ``PW``, ``EOF``)."""
    return rf"{command}[^\n|;&<>]{{0,200}}?{_HEREDOC_OPENS}{_HEREDOC_LINE}"


def _heredoc_piped(command: str, lines: str = _HEREDOC_LINE) -> str:
    """A heredoc ``cat`` pipes to ``command``, its one line (``cat <<EOF | sudo -S whoami``, then ``PW``, ``EOF``), or
    ``lines``."""
    return rf"cat(?<![\w.-]cat)[ \t]+{_HEREDOC_OPENS}[ \t]*\|[^\n|;&]{{0,200}}?{command}{lines}"


_HEREDOC_FED = _heredoc_fed(_STDIN_OPTION)
_HEREDOC_PIPED = _heredoc_piped(_STDIN_OPTION)
#: ``echo`` or ``printf`` up to the value it writes to a pipe (``echo -n …``, ``printf '%s\\n' …``, its ``\\n`` as
#: a JSON string escapes it: review55e F2.6).
_ECHOED = (
    r"""(?:echo|printf)(?:[ \t]+-[neE]{1,3})*(?:[ \t]+(?:'%s(?:\\{1,2}n)?'|"%s(?:\\{1,2}n)?"|%s))?[ \t]+""" + _ANSI_C
)
#: A pipe, and the line end after it (with a ``\\`` or none: bash reads on after a ``|``) before the command it
#: feeds (``echo PW |`` then ``  sudo -S whoami``: review55e F2.3).
_PIPE = r"[ \t]*\|(?:[ \t]*\\?\r?\n)?"
_PIPED_IN = rf"{_ECHOED}{_NOT_REDACTED}{_OPTION_VALUE}{_PIPE}[^\n|;&]{{0,200}}?{_STDIN_OPTION}"


def _piped_in(match: re.Match[str]) -> str:
    """A ``_PIPED_IN`` match with the literal ``echo`` or ``printf`` gives redacted, when that is a command's word
    (not ``myecho``, ``--echo``)."""
    if not _echoed_by_a_command(match):
        return match.group(0)
    return _option_value(match, "cli-credentials")


def _echoed_by_a_command(match: re.Match[str]) -> bool:
    """Whether the ``echo`` or ``printf`` a match starts with (``_ECHOED``) is a command's word, not a part of
    another (``myecho``, ``--echo``)."""
    at = match.start()
    return not (at and (match.string[at - 1].isalnum() or match.string[at - 1] in "_-."))


def _argument(match: re.Match[str], kind: str = "cli-credentials") -> str:
    """A ``_PASSWORD_ARGUMENTS`` match with its value redacted, when its tool's name is a command's word and its
    value is a literal (one that looks made where the match holds ``prose``), not a port given to ``-p``/``-P`` nor a
    word of a sentence about the option (``_a_sentences_word``)."""
    group = "quoted" if match.group("quoted") is not None else "bare"
    value = match.group(group)
    if not _a_command_word(match.string, match.start()):
        return match.group(0)
    if group == "quoted" and _a_closing_quote(match):
        return match.group(0)
    if match.groupdict().get("closing") is not None and not _a_quoted_command(
        match.string, match.start(), match.group("closing")
    ):
        return match.group(0)
    if match.groupdict().get("prose") is not None and not _looks_made(value, password=True):
        return match.group(0)
    if group == "bare" and _a_sentences_word(match.string, match.start(group), match.end(group)):
        return match.group(0)
    option = match.string[match.start() : match.start(group)].rstrip(" \t='\"\\")
    if option.endswith(("-p", "-P")) and _a_port(value, again=_flag_before(option)):
        return match.group(0)
    return _option_value(match, kind)


def _httpie_argument(match: re.Match[str]) -> str:
    """``_argument`` of an HTTPie rule's match, but where a sentence's colon stands between the name and the option
    (``_a_sentences_colon``), after which another command runs ("copy the http conf: docker cp -a web:/etc/nginx",
    "for the http root: rsync -a web1:/srv/www/": review53a D3), or where the value is a host and its folder's path
    (``_a_hosts_path``: rsync's ``-va web1:/srv/www`` after the word http, review54d)."""
    group = "quoted" if match.group("quoted") is not None else "bare"
    if _a_sentences_colon(match.string[match.start() : match.start(group)]):
        return match.group(0)
    if group == "bare" and _a_hosts_path(match.group("bare")):
        return match.group(0)
    return _argument(match)


def _a_sentences_colon(text: str) -> bool:
    """Whether ``text`` holds a ``:`` and a blank after it outside single or double quotes, and a word after them that
    is none of HTTPie's: no option (``-v``), nor a request item (``X-Id:1``, ``a=b``, ``@file``). HTTPie's own words
    hold a blank after a ``:`` only in quotes (``'Accept: text/html'``) or where a header is removed (``Accept:``,
    review54d), and what follows that is HTTPie's too."""
    quote = ""
    for at, character in enumerate(text):
        if quote:
            quote = "" if character == quote else quote
        elif character in "'\"":
            quote = character
        elif character == ":" and text[at + 1 : at + 2] in (" ", "\t"):
            return any(word[0] not in "-'\"" and not any(c in word for c in ":=@") for word in text[at + 1 :].split())
    return False


def _config_user(match: re.Match[str]) -> str:
    """A curl config file's ``user`` line (``_CONFIG_USER``) with its password redacted, but after a ``:`` where it
    looks like no password (``_looks_made``): a compose file's ``user: "www-data:www-data"`` names a group there."""
    value = match.group("quoted") if match.group("quoted") is not None else match.group("bare")
    if match.group("sign") == ":" and not _looks_made(value, password=True):
        return match.group(0)
    return _option_value(match, "cli-credentials")


def _a_hosts_path(password: str) -> bool:
    """Whether the bare password of a ``user:password`` is a path on a host (``web1:/srv/www``, ``web:~/app/``, what
    rsync's, scp's or ``docker cp``'s ``-a`` is given after the word http): a ``/`` or ``~/`` and two folders or more,
    of letters, digits and ``._-`` alone, which no password is written as."""
    path = password.removeprefix("~")
    return path.startswith("/") and path.count("/") >= 2 and all(c.isalnum() or c in "/._-" for c in path)


def _a_closing_quote(match: re.Match[str]) -> bool:
    """Whether the match's quote, right after the option, closes quoted text holding the tool's name instead of
    opening its value: the tool and its option are quoted text (``grep -rn "mysql -p" scripts/ | grep -v "test"``,
    ``echo "use mysql -p" && mysql -p"…"``, in quotes a JSON string escapes too), the option there gives no value,
    and the next quoted text is another word's or the next command's own password (review46f M3).

    Read from what the quotes would hold as a value, which no password holds, not by counting the quotes before it:
    an apostrophe (``'90s``), a cmd.exe path's ``\\"``, a ``"`` inside ``'…'``, a JSON string's ``\\n`` or a long
    line cut made a count odd, and a password starting with a blank or a sign was kept (review47d H1). So it starts
    with a blank or a sign (a word glued to the quote is the option's value: ``"mysql -p"S3cret`` is ``-pS3cret`` to
    the shell), and holds a command's word (``_A_COMMANDS_WORD``: ``|``, ``&&``, ``-g``), a sentence's words in small
    letters from one of ``_PROSE_WORDS`` on (``and type``), or the end of the JSON string the quote is escaped in.
    Where it cannot tell, the value is redacted: a secret kept is worse than a mention over-redacted."""
    quote, quoted = match.group("quote"), match.group("quoted")
    if quoted[0] not in _AFTER_A_CLOSING_QUOTE and quoted[0] != '"':
        return False  # (a JSON string may end right after the quote it escapes: ``"grep \\"mysql -p\\""``)
    if quote[-1] == '"' and '"' in quoted:
        return True  # (``"grep \\"docker login -p\\" x", "about": "the \\"…``: a ``"`` less escaped than it)
    if _A_COMMANDS_WORD.search(quoted) is not None:
        return True
    words = quoted.split()  # (a sentence's: ``Run "mysql -p" and type "yes"``)
    return bool(words) and words[0] in _PROSE_WORDS and all(word.isalpha() and word.islower() for word in words)


#: A word of a command (after a blank or at the start): a shell's ``|``, ``||``, ``&``, ``&&`` or ``;``, or an option
#: (``-g``, ``--include``).
_A_COMMANDS_WORD = Lazy(globals(), "_A_COMMANDS_WORD", r"(?:^|[ \t])(?:[|&;]{1,2}|--?[A-Za-z][\w-]*)(?![^ \t])")
#: What follows a quote that ends a word: a blank, a line's end, a sign that ends a command or a list.
_AFTER_A_CLOSING_QUOTE = frozenset(" \t\r)]},;|&`")


def _a_quoted_command(text: str, at: int, quote: str) -> bool:
    """Whether the name at ``at`` that ``quote`` closes (``"sshpass" -p …``, ``"C:\\tools\\sshpass.exe"``) starts a
    command, its opening quote: at its line's start, after a shell's ``;&|(`` (PowerShell's call, ``& "sshpass.exe"
    -p …``), its ``do``/``then``, or the wrappers that run it (``sudo "sshpass" …``); not a value (``find . -name
    "sshpass" -print``), nor a name no quote opens."""
    from .keys import command_proper  # (a quoted name is rare: keys is imported for it alone)

    line = text[max(0, at - 201) : at].rpartition("\n")[2]
    if quote not in line:
        return False
    command = line[: line.rfind(quote)]
    for sign in ";&|(":
        command = command.rpartition(sign)[2]
    words = command.split()
    while words and words[0] in _SHELL_KEYWORDS:
        del words[0]
    return not words or command_proper([*words, "sshpass"]) == ["sshpass"]


def _flag_before(option: str) -> bool:
    """Whether the flag ``option`` ends with (``-P``) is given earlier on its line too: the tool's own came first
    (``zip -P "$P" out.zip f, then scp -P 2222 out.zip host:``), and this one is another command's."""
    return f" {option[-2:]}" in " " + option[:-2].replace("\t", " ")


def _a_sentences_word(text: str, start: int, end: int) -> bool:
    """Whether the bare value ``text[start:end]``, given after a blank, is a word of a sentence about the option, not
    its value: one of ``_PROSE_WORDS``, in small letters (the first a capital too, as a sentence starts), followed by
    more prose (``_PROSE_AFTER``: two words of small letters alone, or a sign that ends a clause, ``.,;:``, and a blank
    or the line's end). "the docker login -p flag is deprecated", "ldapsearch -w takes the bind password", "ldapsearch
    -w The bind password …", "keytool … -srcstorepass to recover the entry", "requirepass is not set" name no password.

    A closed list, not a dictionary: the passwords people choose are words too ("docker login -p dragon is failing"
    gives one), while no password is "is", "to" or "flag". A value with a capital past its first letter, a digit or
    another sign (``flag!``, ``The1Pass``), a quoted one and one glued to its flag stay passwords, and so does a list's
    word a command gives, whose next words are a host, a file or one word (``sshpass -p will ssh root@h``, ``zip -P the
    out.zip f``, ``redis-cli -a may ping``)."""
    if text[start - 1 : start] not in (" ", "\t"):
        return False
    word = text[start:end]
    if word[1:].islower() or len(word) == 1:
        word = word.lower()  # (a sentence's first word: ``ldapsearch -w The bind password …``)
    if word[-1] in ".,;:":
        return word[:-1] in _PROSE_WORDS and text[end : end + 1] in ("", " ", "\t", "\r", "\n")
    return word in _PROSE_WORDS and _PROSE_AFTER.match(text, end) is not None


#: What follows a word of a sentence about an option: two words of small letters alone, the second perhaps ending
#: the clause or a Markdown code span, not a host (``root@h``), a file (``out.zip``) nor an option; a line of prose
#: may wrap between them.
_PROSE_AFTER = Lazy(
    globals(), "_PROSE_AFTER", r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)[a-z]+(?:[ \t]+|[ \t]*\r?\n[ \t]*)[a-z]+[.,;:!?)`]?(?!\S)"
)


#: Words a sentence about an option says right after it that no password is: a function word, what the option is
#: called, what it does ("takes", "sets").
_PROSE_WORDS = frozenset(  # (words split, not list literals: one a line would take 95 lines)
    [
        *"the a an this that these those its it is are was were be been being has have had does do did".split(),  # noqa: SIM905
        *"not no can cannot will would should must may might could shall to for of in on at by with".split(),  # noqa: SIM905
        *"from into as about after before than via without and or but nor so if then when while which".split(),  # noqa: SIM905
        *"who where because unless whether instead also only flag flags option options switch".split(),  # noqa: SIM905
        *"argument arguments parameter parameters setting settings directive takes sets gives".split(),  # noqa: SIM905
        *"expects specifies requires accepts needs means lets passes tells reads prompts asks".split(),  # noqa: SIM905
        *"supplies provides works".split(),  # noqa: SIM905
    ]
)


def _a_command_word(text: str, at: int) -> bool:
    """Whether the tool's name at ``at`` runs a command: after a blank, a line's start (an escaped ``\\n`` in a JSON
    string too), a shell's ``;&|(``, a quote or a path's folder that runs it (``_a_programs_path``; ``C:\\tools\\``).
    A Makefile recipe's ``@`` before it too (``_a_recipes_prefix``). Not a part of another word (``pymysql``,
    ``gzip``), a file's extension (``wget …/x.zip -P /tmp``), a variable's value, nor the value of an option that names
    something (``docker run --name mongo -p …``: a container's; ``sudo -u http rsync …``: a user's;
    ``_NAMING_OPTIONS``)."""
    if text.startswith("-", at):  # (an option, not a name: ``redis-server --requirepass``)
        return True
    before = text[max(0, at - 200) : at].rpartition("\n")[2]
    if before.endswith("\\n") and _an_escaped_line_end(before):  # (``"set -e\\nmysql -p…"``; review47d M1)
        return True
    if not before or before[-1].isspace():
        words = before.split()
        return not (words and _names_something(words)) and not _a_cmdlets_argument(before)
    if before[-1] == "/":
        return _a_programs_path(text, at - len(before), before)
    if _a_recipes_prefix(before):
        return True
    return not (before[-1].isalnum() or before[-1] in "_-.=:@%+#")


def _a_recipes_prefix(before: str) -> bool:
    """Whether ``before`` (a line up to a tool's name) is a Makefile recipe's prefix: ``@`` (run silently), ``-``
    (go on when it fails), ``+``, after the recipe's tab or with an ``@`` among them (``\t@http -a …``: review54d)."""
    prefix = before.lstrip(" \t")
    return bool(prefix) and not prefix.strip("@+-") and ("@" in prefix or before.startswith("\t"))


def _an_escaped_line_end(before: str) -> bool:
    """Whether the ``\\n`` ending ``before`` is a JSON string's escaped line end (escaped once or more), not a
    Windows path's folder whose name starts with an ``n`` (``C:\\data\\nmysql``, or as a JSON string holds it,
    ``C:\\\\data\\\\nmysql``): in a word that is a drive's path, the backslashes before the ``n`` are as many as
    separate its drive from its first folder."""
    words = before.split()
    word = words[-1].lstrip("\"'") if words else ""
    if not (word[:1].isalpha() and word[1:3] == ":\\"):
        return True
    separator = len(word) - 2 - len(word[2:].lstrip("\\"))
    run = len(before) - 1 - len(before[:-1].rstrip("\\"))
    return run != separator


def _a_cmdlets_argument(before: str) -> bool:
    """Whether the name after ``before`` (its line up to it) is an argument of a PowerShell cmdlet that runs no program
    (``Get-Service mysql -PipelineVariable svc``, continued with a backtick: M4): what follows is the cmdlet's own
    parameters, ``-pipelinevariable`` no password. ``Start-Process``, ``Invoke-Expression`` and the like run what they
    are given (``_RUNNING_CMDLETS``), and a Unix command joined by a hyphen (``apt-get``, ``update-rc.d``) is no
    cmdlet: its verb is none of PowerShell's (``_CMDLET_VERBS``) or its noun holds more than letters. A script block's
    ``{`` or a Unix `` -- `` starts another command (``gci | ForEach-Object { mysql -p… }``, ``wait-for db:3306 --
    mysql -p…``: review48d H1)."""
    command = before
    for sign in (";", "&", "|", "(", "{", " -- "):
        command = command.rpartition(sign)[2]
    words = command.split()
    if not words:
        return False
    name = words[0].lower()
    verb, hyphen, noun = name.partition("-")
    return bool(hyphen) and verb in _CMDLET_VERBS and noun.isalpha() and name not in _RUNNING_CMDLETS


#: PowerShell's common approved verbs (``Get-Verb``), the first word of a cmdlet's name.
_CMDLET_VERBS = frozenset(  # (words split, not a list literal: one a line would take 20 lines)
    "get set new remove start stop restart suspend resume add clear copy move rename select where foreach sort group "  # noqa: SIM905
    "measure write out import export convert enable disable install uninstall update wait test invoke find "
    "register unregister".split()
)
#: The cmdlets that run the program they are given (its arguments then are the program's).
_RUNNING_CMDLETS = frozenset(
    {"start-process", "invoke-expression", "invoke-command", "start-job", "start-threadjob", "invoke-item"}
)


def _a_programs_path(text: str, line: int, before: str) -> bool:
    """Whether the path ending ``before`` (the text from ``line``, its line's start, up to the tool's name) leads to
    the program, not to a folder named after it: the path of a ``bin``/``sbin`` folder (``/usr/bin/mysql``,
    ``docker exec db /usr/local/mysql/bin/mysql``), or one that starts a command, after a shell's ``;&|(``, its
    ``do``/``then``, a ``-c`` and a quote or at a line's start a ``\\`` does not continue, behind the wrappers that run
    it (``./mysql``, ``sudo -u backup /opt/unrar/unrar``). A folder (``/var/lib/mysql``, ``-I/usr/include/mysql``, ``find /etc/mysql``) is an argument,
    and a later ``-p…`` is another command's (``-print``, ``-pthread``: review46d M1)."""
    if before.endswith(("/bin/", "/sbin/")):
        return True
    from .keys import command_proper  # (a folder before a tool's name is rare: keys is imported for it alone)

    command = before
    for sign in ";&|(":
        command = command.rpartition(sign)[2]
    words = command.split()
    if words[-1][0] in "'\"" and words[-2:-1] == ["-c"]:
        return True  # (the command a shell runs: ``bash -c "/opt/mysql/mysql -p…"``)
    while len(words) > 1 and words[0] in _SHELL_KEYWORDS:
        del words[0]
    continued = text[line - 1 : line] == "\n" and _continued(text, line - 1)
    if words[0].startswith("-") or (command == before and continued):
        return False  # (a command's options on a line a ``\\`` continues: ``-r /etc/mysql \\``)
    return command_proper(words) == words[-1:]


#: The shell's words a command follows (``for …; do /opt/mysql/mysql -p…``).
_SHELL_KEYWORDS = frozenset({"do", "then", "else", "{", "!"})


#: The long options whose value is a name a tool's may be (``docker run --name mongo``), find's that name a file
#: (``find . -name mysql -print``) and a wrapper's that name the user or group it runs as (``sudo -u http rsync -a
#: web1:/srv …``, where ``http`` is no HTTPie: review53a D3); a wrapper's flag that takes none (``sudo --preserve-env
#: mysql -p…``, ``xargs --no-run-if-empty mysql …``) is followed by a command (review45f H2).
_NAMING_OPTIONS = frozenset(
    {"--name", "--hostname", "--container-name", "--entrypoint", "--network", "--net", "--link", "--volumes-from"}
    | {"-name", "-iname"}
)
#: A wrapper's options naming the user or group it runs as, which name one only after such a wrapper: ``watch -g
#: mysql -p…`` and ``parallel -u mysql -p…`` run mysql (last55: read so after any tool, they kept the password).
_USER_OPTIONS = frozenset({"-u", "--user", "-g", "--group"})
_RUNS_AS = frozenset({"sudo", "su", "runuser", "doas", "pkexec"})


def _names_something(words: list[str]) -> bool:
    """Whether the last of ``words`` (those before a tool's name on its line) is an option naming something
    (``_NAMING_OPTIONS``), or a user's or group's option of a wrapper that runs as one (``sudo -E -u http``)."""
    if words[-1] in _NAMING_OPTIONS:
        return True
    return words[-1] in _USER_OPTIONS and any(word.rpartition("/")[2] in _RUNS_AS for word in words[-4:-1])


def _a_port(value: str, *, again: bool) -> bool:
    """Whether ``value`` is a port mapping (``8080:80``, ``127.0.0.1::27017/tcp``), what docker's ``-p`` gives on the
    same line as a tool whose ``-p`` takes a password, or, given to a flag given ``again`` on the line, a port
    (``scp -P 2222`` after ``zip -P "$P" …``). A tool's own first ``-p 12345`` is its password (``mysql -p12345``,
    ``zip -P 1234``: review45f H1)."""
    mapping = value.removesuffix("/tcp").removesuffix("/udp").split(":")
    if len(mapping) == 3:
        mapping.pop(0)  # (the host's address)
    if len(mapping) > 2 or (len(mapping) == 1 and not again):
        return False
    ports = [port for ranged in mapping for port in ranged.split("-") if port]
    return bool(ports) and all(port.isascii() and port.isdigit() and len(port) <= 5 for port in ports)


#: A webhook URL's scheme, host and up to four folders before its ``/hooks/`` (Mattermost's, Rocket.Chat's): bounded,
#: and no folder holds a ``/``, so each ``http`` is read on to a few ``/`` at most, not to the line's end.
_WEBHOOK_SITE = r"https?://[^\s/?#]+(?:/[^\s/?#]+){0,4}"


def _generated_id(value: str) -> bool:
    """Whether a webhook's id is a generated one, not a placeholder (``xxxxxxxx-xxxx-…``; ``{key}`` is no match):
    a digit in it, or eight different characters. A digit alone let one Mattermost id in two thousand through (26
    characters of base32, none a digit)."""
    return any(c.isdigit() for c in value) or len(set(value)) >= 8


#: Each regex starts with the token's literal prefix where it has one, so the engine skips to it as fast as a
#: substring search; every rule names a substring its matches hold, so most texts skip most rules untried.
_PROVIDER_RULES: tuple[Rule, ...] = (
    Rule(
        "pem",
        (
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=\n\[… )|\Z)"
        ),
        ("PRIVATE KEY",),
    ),
    # The tail of a key whose BEGIN line is not in the text (``tail ~/.ssh/id_ed25519``, an output cut at its top:
    # trial60 F2): the base64 lines right above its END line, up to a blank or another line, with it. A run of lines
    # of 16 characters or more and a shorter last one (``…AQ==``), so a word above them stays; each line start
    # reads its run once, and a run with no END after it is passed over whole (linear time).
    Rule(
        "pem",
        r"(?m:^)[ \t]*(?P<key>(?:[A-Za-z0-9+/]{16,}={0,2}[ \t]*\r?\n[ \t]*)*[A-Za-z0-9+/]+={0,2}[ \t]*\r?\n[ \t]*"
        r"(?P<end>-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?)",
        ("-----END",),
        group="key",
        check=lambda m: m.group("end") is not None,
    ),
    # The body of a key whose BEGIN line went with the middle of a capped message (``model.cap_text``).
    Rule(
        "pem",
        r"elided …\]\n((?:[A-Za-z0-9+/=]+\r?\n)+-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)",
        ("-----END",),
        group=1,
    ),
    # A private key given as the base64 of its PEM block (a kubeconfig's ``client-key-data``, a Secret's
    # ``tls.key``, a ``*_KEY_B64`` variable): ``LS0tLS1CRUdJTi`` is ``-----BEGIN`` in base64, and the block's first
    # 48 bytes say whether it is a private key (a certificate is not). ``base64`` wraps it at 76 columns (``openssl
    # base64`` at 64): each following line that is base64 alone is the key's too.
    Rule(
        "pem",
        r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{50,}={0,2}(?:\r?\n[ \t]*[A-Za-z0-9+/]{4,}={0,2}(?=[ \t]*(?:\r?\n|\Z)))*",
        ("LS0tLS1CRUdJTi",),
        check=lambda m: _encodes_a_key(m),
    ),
    # PuTTY's ``.ppk`` key file: the base64 lines after ``Private-Lines: N``.
    Rule(
        "pem",
        r"Private-Lines:[ \t]*\d+\r?\n(?P<body>[ \t]*[A-Za-z0-9+/=]+(?=\r?\n|\Z)(?:\r?\n[ \t]*[A-Za-z0-9+/=]+(?=\r?\n|\Z))*)",
        ("Private-Lines:",),
        group="body",
    ),
    # A token glued to the word before it (``glued``): one whose value is generated (``_generated_run``), a run of
    # capitals, small letters and digits after ``sk-``, which ends many a word (``_a_mixed_run``); a name of words
    # run together after ``sk-`` or GitHub's ``gh?_`` is no token (``_words_run_together``).
    _token(
        "anthropic-key",
        r"sk-ant-[a-z0-9]{2,8}\d{0,2}-[A-Za-z0-9_-]{20,}",
        "sk-ant-",
        glued=_a_mixed_run,
    ),
    _token(
        "openai-key",
        r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        "sk-",
        glued=_a_mixed_run,
    ),
    _token("stripe-key", r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}", "k_live_", "k_test_", glued=_generated_run),
    _token("stripe-key", r"whsec_[A-Za-z0-9]{24,}", "whsec_"),
    _token(
        "aws-key",
        r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|NPA|NVA|IPA)[A-Z0-9]{16}",
        *("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"),
        glued=_generated_run,
    ),
    _token(
        "github-token",
        r"g(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})",
        "gh",
        "github_pat_",
        glued=_generated_not_words,
    ),
    _token("gitlab-token", r"gl(?:pat|ptt|dt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}", "gl", glued=_generated_run),
    _token("google-api-key", r"AIza[0-9A-Za-z_-]{35}", "AIza", glued=_generated_run),
    _token("google-oauth-secret", r"GOCSPX-[A-Za-z0-9_-]{28}", "GOCSPX-", glued=_generated_run),
    _token("google-oauth-token", r"ya29\.[A-Za-z0-9_.-]{20,}", "ya29.", inside=r"[\w.-]"),
    # Google's OAuth refresh token (``1//0…``), bare as ``firebase login:ci`` prints it (trial60 F5).
    _token("google-oauth-token", r"1//0[A-Za-z0-9_-]{40,}", "1//0"),
    _token("slack-token", r"x(?:ox[abposre]|app-\d)-[A-Za-z0-9-]{10,}", "xox", "xapp-", glued=_generated_run),
    Rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
        ("https://hooks.slack.com/",),
    ),
    Rule(
        "discord-webhook",
        r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
        (".com/api/webhooks/",),
    ),
    # Other chat and automation services' incoming webhooks: the URL is the credential (whoever holds it posts into
    # the channel or runs the flow), so its secret part goes and the host and path before it stay, to say what it
    # was (trial58 T1). A Logic Apps or Power Automate trigger's is its ``sig=`` (``azure-sas``), DingTalk's its
    # ``access_token=`` and Google Chat's its ``key=`` and ``token=`` (the named secrets'). A Teams URL's connector
    # is any word: ``IncomingWebhook``, and Jenkins' Office 365 Connector's ``JenkinsCI`` (review58f F1), alike.
    Rule(
        "teams-webhook",
        r"https://(?:[\w-]+\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/"
        r"([0-9A-Fa-f-]{8,}@[0-9A-Fa-f-]{8,}/[A-Za-z][A-Za-z0-9]{1,40}/[A-Za-z0-9/_-]{16,})",
        (".webhook.office.com/webhookb2/", "outlook.office.com/webhook/", "outlook.office365.com/webhook/"),
        group=1,
    ),
    # Mattermost's ``/hooks/`` and 26 characters (its ids' base32), Rocket.Chat's an id of 17 and a token of 48, on
    # any host, at its root or under a few folders (bounded: each ``http`` reads on a few ``/`` at most).
    Rule(
        "mattermost-webhook",
        rf"{_WEBHOOK_SITE}/hooks/([a-z0-9]{{26}})(?![\w-])",
        ("/hooks/",),
        group=1,
        check=lambda m: _generated_id(m.group(1)),
    ),
    Rule(
        "rocketchat-webhook",
        rf"{_WEBHOOK_SITE}/hooks/([A-Za-z0-9]{{17}}/[A-Za-z0-9]{{40,}})(?![\w-])",
        ("/hooks/",),
        group=1,
    ),
    Rule(
        "wecom-webhook",
        r"qyapi\.weixin\.qq\.com/cgi-bin/webhook/\w+\?(?:[\w.%=-]*&){0,4}key=([A-Za-z0-9-]{16,})",
        ("qyapi.weixin.qq.com/cgi-bin/webhook/",),
        group=1,
        check=lambda m: _generated_id(m.group(1)),
    ),
    # Feishu's (``open.feishu.cn``) and Lark's (``open.larksuite.com``) custom bots, and a private deployment's.
    Rule(
        "feishu-webhook",
        r"/open-apis/bot/v2/hook/([A-Za-z0-9-]{16,})",
        ("/open-apis/bot/v2/hook/",),
        group=1,
        check=lambda m: _generated_id(m.group(1)),
    ),
    Rule(
        "zapier-webhook",
        r"hooks\.zapier\.com/hooks/(?:catch|standard)/(\d+/[A-Za-z0-9]+)",
        ("hooks.zapier.com/hooks/",),
        group=1,
    ),
    Rule(
        "ifttt-webhook",
        r"maker\.ifttt\.com/(?:trigger/[^\s/?#]+(?:/json)?/with/key|use)/([A-Za-z0-9_-]{16,})",
        ("maker.ifttt.com/",),
        group=1,
        check=lambda m: _machine_made(m.group(1)),
    ),
    Rule(
        "webex-webhook",
        r"(?:webexapis\.com|api\.ciscospark\.com)/v1/webhooks/incoming/([A-Za-z0-9_=-]{20,})",
        ("/v1/webhooks/incoming/",),
        group=1,
    ),
    # Make's (once Integromat's): ``hook.<zone>.make.com/`` and 32 small letters and digits.
    Rule(
        "make-webhook",
        r"https://hook\.(?:[a-z0-9]+\.)?(?:make|integromat)\.com/([a-z0-9]{24,})(?![\w-])",
        ("make.com/", "integromat.com/"),
        group=1,
        check=lambda m: _generated_id(m.group(1)),
    ),
    _token("sendgrid-key", r"SG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,50}", "SG."),
    # Hugging Face tokens are 34 letters and digits (older ones letters alone).
    _token("huggingface-token", r"hf_[A-Za-z0-9]{30,}", "hf_"),
    _token("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}", "_v1_"),
    _token("npm-token", r"npm_[A-Za-z0-9]{36}", "npm_"),
    # Heroku's API token since 2024 (``heroku auth:token``; gitleaks' heroku-api-key-v2 gives 58 after its prefix,
    # a few more taken: trial59 F3).
    _token("heroku-token", r"HRKU-AA[0-9A-Za-z_-]{50,}+", "HRKU-AA"),
    _token("pypi-token", r"pypi-[A-Za-z0-9_-]{50,}", "pypi-"),
    _token("mailgun-key", r"key-[0-9a-f]{32}", "key-"),
    _token("telegram-bot-token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}", ":aa", inside=r"\d"),
    _token("shopify-token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", "shp"),
    _token("vault-token", r"hv[sb]\.[A-Za-z0-9_-]{24,}", "hv"),
    # Vault's older token given to ``vault token lookup``/``revoke``/``renew`` (``vault login``'s is a password
    # argument's): a token rule, since the token is a run the token gate lets through and nothing else in such a
    # command is a sign the context gate looks for.
    Rule(
        "cli-credentials",
        _option_of("vault", r"token[ \t]+(?:lookup|revoke|renew|capabilities)")
        + _VAULT_LEGACY_TOKEN
        + _NOT_REDACTED
        + _OPTION_VALUE,
        ("vault token",),
        replace=_argument,
        run=26,
    ),
    # Fifty-eight characters of bech32 after the prefix; fewer or more (a key cut short or pasted twice) go too.
    _token("age-key", r"AGE-SECRET-KEY-1[0-9A-Z]{50,}", "AGE-SECRET-KEY-1"),
    _token("databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?", "dapi"),
    # Forty characters; some slack in the length, so ``_machine_made`` asks for a generated value.
    _token("linear-key", r"lin_api_[A-Za-z0-9]{32,}", "lin_api_", made=lambda v: _machine_made(v[8:])),
    _token("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", "PMAK-"),
    # A service account's ``glsa_`` (32 characters, ``_`` and an 8-digit hex checksum), a Cloud token's ``glc_``.
    # (One rule on GitLab's needle, ``gl``: a needle costs a pass over each text, a regex only texts that hold it.)
    _token(
        "grafana-token",
        r"gl(?:sa_[A-Za-z0-9]{24,}_[A-Fa-f0-9]{8}|c_[A-Za-z0-9+/]{32,}={0,2})",
        "gl",
        made=lambda v: not v.startswith("glsa_") or _machine_made(v[5:-9]),
    ),
    _token("newrelic-key", r"NRAK-[A-Z0-9]{27}", "NRAK-"),
    # A service token may name its config: ``dp.st.prd.…``.
    _token("doppler-token", r"dp\.(?:pt|st(?:\.[a-z0-9_-]{2,35})?|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}", "dp."),
    _token("square-token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}", "sq0"),
    _token("groq-key", r"gsk_[A-Za-z0-9]{48,}", "gsk_"),
    # Thirty-seven characters; ``r8_`` is short, so a generated value only (``r8_version``, ``r8_SomeName`` stay).
    _token("replicate-token", r"r8_[A-Za-z0-9]{32,}", "r8_", made=lambda v: _machine_made(v[3:])),
    _token("xai-key", r"xai-[A-Za-z0-9]{70,}", "xai-"),
    _token("perplexity-key", r"pplx-[A-Za-z0-9]{40,}", "pplx-"),
    _token("supabase-token", r"sbp_[a-f0-9]{40}", "sbp_"),
    _token("docker-token", r"dckr_pat_[A-Za-z0-9_-]{27,}", "dckr_pat_"),
    _token("figma-token", r"figd_[A-Za-z0-9_-]{40,}", "figd_"),
    _token("notion-token", r"secret_[A-Za-z0-9]{43,46}", "secret_"),
    _token("notion-token", r"ntn_[A-Za-z0-9]{43,46}", "ntn_"),
    # Atlassian's API tokens (``ATATT3xFfGF0…``, 192 characters) and an organisation's admin keys (``ATCTT3xFfG…``).
    _token("atlassian-token", r"AT[AC]TT3[A-Za-z0-9_=-]{20,}", "ATATT3", "ATCTT3"),
    # Pulumi: ``pul-`` and 40 hex digits (``pul-request`` stays).
    _token("pulumi-token", r"pul-[a-z0-9]{40}", "pul-", made=lambda v: any(c.isdigit() for c in v[4:])),
    # Tailscale: ``tskey-auth-``, ``-api-``, ``-client-`` (OAuth), ``-scim-``, ``-webhook-``, and the older
    # ``tskey-<id>-<secret>``: an id (``k…CNTRL``), then the secret; a placeholder of letters alone stays.
    _token(
        "tailscale-key",
        r"tskey-(?:[a-z]+-)?[A-Za-z0-9_]{6,}-[A-Za-z0-9_-]{16,}",
        "tskey-",
        made=lambda v: any(c.isdigit() for c in v[6:]),
    ),
    # Sentry: an organisation's auth token (``sntrys_`` and base64 JSON, then ``_`` and the secret), a user's
    # (``sntryu_`` and 64 hex digits).
    _token("sentry-token", r"sntry(?:s_eyJ[A-Za-z0-9+/=_]{20,}|u_[a-f0-9]{32,})", "sntry"),
    # PlanetScale: a password, a service token, an OAuth token (43 characters; a name in words stays).
    _token(
        "planetscale-token",
        r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.-]{31,}[A-Za-z0-9_=]",
        "pscale_",
        made=lambda v: _machine_made(v.split("_", 2)[2]),
    ),
    # Terraform Cloud / HCP Terraform: 14 characters, ``.atlasv1.``, about 67 (``.atlasv1.`` names no other thing,
    # so one cut short goes too).
    _token("terraform-token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{40,}", ".atlasv1."),
    # A 1Password service account's token: ``ops_`` and base64 JSON (``ops_eyJ…`` in prose stays).
    _token("1password-token", r"ops_eyJ[A-Za-z0-9+/_-]{40,}={0,3}", "ops_eyJ"),
    # Fly.io: ``FlyV1 fm2_…`` as ``fly tokens create`` prints it (macaroons joined by commas), or a macaroon alone
    # (``fm2_``, ``fm1a_``/``fm1r_``: a hundred characters and more), or an ``fo1_`` token. Inside base64 when a
    # letter, a digit, ``/``, ``+`` or ``-`` is before it, but not ``=``: base64 holds it only at its end, and
    # ``DEPLOY=FlyV1 fm2_…,fm2_…`` kept its second macaroon, ``DEPLOY=fm2_…`` all of it.
    _token(
        "flyio-token",
        r"FlyV1 f[mo]\d[a-z]?_[A-Za-z0-9+/=_-]{20,}(?:,f[mo]\d[a-z]?_[A-Za-z0-9+/=_-]+)*",
        "FlyV1 ",
        inside=r"[\w/+-]",
    ),
    _token("flyio-token", r"f(?:m1[ar]|m2)_[A-Za-z0-9+/]{100,}={0,3}", "fm1", "fm2_", inside=r"[\w/+-]"),
    _token("flyio-token", r"fo1_[A-Za-z0-9_-]{43}", "fo1_", made=lambda v: _machine_made(v[4:])),
    # A Mapbox secret token (``sk.eyJ…``, base64 JSON naming the user, ``.`` and the signature; ``pk.`` is public).
    _token("mapbox-token", r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", "sk.eyJ", inside=r"[\w.-]"),
    # Resend: ``re_``, 8 characters, ``_``, 24 (base58): a generated value only (``re_match``, ``re_compile_…`` stay).
    _token("resend-key", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", "re_", made=lambda v: _machine_made(v[3:])),
    _token("twilio-key", r"SK[0-9a-f]{32}", "SK"),
    # An account SID with the auth token after it (``Client("AC…", "…")``, ``-u AC…:…``).
    _token("twilio-key", r"AC[0-9a-f]{32}(?:[\"']?\s*[,:]\s*[\"']?[0-9a-f]{32})?", "AC"),
    _token("discord-bot-token", r"[MNO][A-Za-z\d_-]{23,27}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,40}", ".", run=59),
    _token("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", ".eyJ"),
    # A Facebook (Meta) access token: ``EAA`` and a hundred letters and digits or more, generated (red57b).
    _token("facebook-token", r"EAA[A-Za-z0-9]{100,}", "EAA", made=lambda v: _mixed(v[3:])),
    Rule(
        "azure-key",
        r"Key\s*=\s*([A-Za-z0-9+/]{20,}={0,2})",
        ("Key",),
        group=1,
        check=_after("Account", "SharedAccess", "Primary", "Secondary"),
    ),
    # ``az storage account keys list``'s JSON: each key's ``"value"`` after its ``"keyName": "key1"`` (``key2``,
    # ``kerb1``), a few fields between them (``"permissions": "FULL"``) (trial59 F3).
    Rule(
        "azure-key",
        r'"keyName"[ \t]*:[ \t]*"(?:key|kerb)[12]"(?:\s*,\s*"(?!value")\w+"[ \t]*:[ \t]*(?:"[^"\n]{0,200}"|[\w.-]{1,40})){0,4}'
        r'\s*,\s*"value"[ \t]*:[ \t]*"([A-Za-z0-9+/]{20,}+={0,2})"',
        ('"keyName"',),
        group=1,
    ),
    # A storage SAS's ``sig=`` is base64 (``%2B``, ``%2F`` as a URL holds it), a Logic Apps or Power Automate
    # trigger's base64url: its ``-`` and ``_`` stopped the value, and kept its tail or all of it (trial58 T1); a
    # name in snake_case is code's (``_a_sas_signature``).
    Rule("azure-sas", r"sig=([A-Za-z0-9%+/=_-]{20,})", ("sig=",), group=1, check=lambda m: _a_sas_signature(m)),
    # A secret access key given without its name, in a text that names its access key id ("key AKIA… secret …"):
    # forty characters of base64 holding capitals, small letters and digits (a git hash has no capitals).
    Rule(
        "aws-secret",
        r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        ("AKIA", "ASIA"),
        check=lambda m: _mixed(m.group(0)),
    ),
    Rule(
        "aws-secret",
        (
            r"(?i)(?:aws_?secret_?access_?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secret",),  # every spelling the pattern takes (secret_access_key, secretaccess_key, …) holds it
        group=1,
    ),
    Rule(
        # The aws CLI's own ways to give a credential: ``aws configure set aws_secret_access_key …`` (also a profile's
        # ``profile.dev.aws_session_token``), and ``aws configure``'s prompt as a terminal echoes it
        # (``AWS Secret Access Key [None]: …``, ``[****************abcd]: …``).
        "aws-secret",
        r"(?i:aws[ \t]+configure[ \t]+set[ \t]+(?:[\w-]+\.)*(?:aws_secret_access_key|aws_access_key_id|aws_session_token)"
        r"|aws[ \t]+(?:secret[ \t]+access[ \t]+key|access[ \t]+key[ \t]+id|session[ \t]+token)[ \t]*\[[^\]\n]*\]:)"
        rf"[ \t]+{_OPTION_VALUE}",
        (
            "aws_secret_access_key",
            "aws_access_key_id",
            "aws_session_token",
            "aws secret access key",
            "aws access key id",
            "aws session token",
        ),
        replace=lambda m: _option_value(m, "aws-secret"),
    ),
)


# --------------------------------------------------------------------------- credentials in context


def _is_literal(value: str) -> bool:
    """A value that is a literal, not a reference to one (``$VAR``, ``${…}``, ``{{ … }}``, ``<…>``, ``%s``)."""
    return bool(value) and not _REFERENCE.search(value) and not _FILLER.fullmatch(value)


#: (``\{[^{}]*\}``: a ``{…}`` holds an innermost one, and read from each ``{`` to the next ``}`` a value of many
#: ``{`` and no ``}`` took time quadratic in its length.)
_REFERENCE = Lazy(globals(), "_REFERENCE", r"\A[$%<]|\{[^{}]*\}|\$\(|\A\*+\Z")
#: Made-up values: ``xxxx``, ``****``, ``...``, ``your-api-key``, ``<token>``, ``changeme``, ``[redacted:…]``; words
#: after ``my``/``your``… with no digit (``My R00t Pw!`` is a password: trial60 F3).
_FILLER = Lazy(
    globals(),
    "_FILLER",
    r"(?i)[\W_]+|x+|(?:your|my|insert|enter|replace)[\s_-]\D*|.*[\s_-]here|\[redacted:.*"
    r"|changeme|placeholder|redacted|none|null|nil|undefined|true|false|foo|bar|baz|qux|test|example|sample|dummy"
    r"|fake|pass|passwd|pwd|password|secret|token|key|api_?key"
    # a colour, a regular expression
    r"|\#[0-9a-f]{3,8}|.*(?:\\[wdsbWDSB]|\[\^).*",
)


def _url_password(match: re.Match[str]) -> bool:
    """A literal password, not one redacted already."""
    return _is_literal(match.group(1)) and "[redacted:" not in match.group(1)


#: A host, its port and the path after it, read as a URL's user and password (``://host:8080/a/b@c``: user ``host``,
#: password ``8080/a/b``; ``://[::1]:8080/a@b``; ``://localhost:3/x@y``): after a web URL's scheme, or a host told by a
#: dot, brackets or ``localhost``. A database's ``app:32/j22v…`` is a base64-made password that begins with digits.
_A_HOST_PORT_AND_PATH = Lazy(
    globals(), "_A_HOST_PORT_AND_PATH", r"://(?P<host>\[[^\]/]*\]|[^:/]*\.[^:/]*|(?i:localhost))?[^:/]*:[1-9]\d{0,4}/"
)


def _url_userinfo_password(match: re.Match[str]) -> bool:
    """A URL's literal password (``_url_password``), not a port and its path (``_A_HOST_PORT_AND_PATH``)."""
    if not _url_password(match):
        return False
    port = _A_HOST_PORT_AND_PATH.match(match.group(0))
    scheme = match.string[max(0, match.start() - 6) : match.start()].lower()
    return port is None or not (port.group("host") or scheme.endswith(("http", "https", "ws", "wss", "ftp")))


def _basic_credentials(match: re.Match[str]) -> bool:
    """``Basic <base64>`` is a secret when it decodes to ``user:password``, not in prose (``Basic authentication``)."""
    raw = _decoded(match.group(1))
    if raw is None or not raw.isascii():
        return False
    decoded = raw.decode("ascii")
    return ":" in decoded and decoded.isprintable()


def _url_token(match: re.Match[str]) -> bool:
    """``https://<token>@host``: a user name of twenty characters or more mixing letters and digits is a token."""
    user = match.group(1)
    return _a_made_word(user)


def _cli_password(match: re.Match[str]) -> bool:
    """``-u user:password`` / ``--user user:password`` as an option, not inside a word (``git push-u``), nor a
    container's user and group (``docker run -u 1000:1000``, ``docker exec -u root:root``: review54d)."""
    at = match.start()
    if match.string[at - 1 : at] not in ("", " ", "\t", "\n") or not _url_password(match):
        return False
    command = match.string[max(0, at - 200) : at].rpartition("\n")[2]
    for sign in ";&|(":
        command = command.rpartition(sign)[2]
    return not _a_container_tools_own_option(command.split())


def _a_container_tools_own_option(words: list[str]) -> bool:
    """Whether the ``-u`` after ``words`` is a container tool's own (``docker run -e X=1 -u 1000:1000 img``), not the
    option of a tool the container runs (``docker exec app wget -u deploy:…``, review55e F0): after the container
    tool's last word come only its subcommands, options and the values of options, no image, container or program
    name. A word after a one-letter or a long option is read as that option's value (``-e X=1``, ``--name db``)."""
    tool = max((i for i, word in enumerate(words) if word.lower().removesuffix(".exe") in _CONTAINER_TOOLS), default=-1)
    if tool < 0:
        return False
    after_an_option = False
    for word in words[tool + 1 :]:
        if word.startswith("-"):  # (a flag's next word is the image: ``docker run --rm img -u a:b``, last55)
            after_an_option = (
                "=" not in word and word not in _CONTAINER_FLAGS and (word.startswith("--") or len(word) == 2)
            )
        elif after_an_option:
            after_an_option = False
        elif word.lower() not in _CONTAINER_SUBCOMMANDS:
            return False
    return True


#: The tools whose ``-u``/``--user`` is the user and group a container runs as (``uid:gid``, ``user:group``).
_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl", "buildah", "docker-compose"})
#: Their options that take no value (``docker run --rm -d img``): the word after one is the image or container.
_CONTAINER_FLAGS = frozenset(
    {"--rm", "-d", "--detach", "-i", "--interactive", "-t", "--tty", "--init", "--privileged", "--read-only", "-P"}
    | {"--publish-all", "-q", "--quiet", "--no-healthcheck", "--oom-kill-disable", "--no-deps", "-T", "--help"}
)
#: Their subcommands that take ``-u``/``--user`` (``docker container run``, ``docker compose exec``).
_CONTAINER_SUBCOMMANDS = frozenset({"run", "exec", "create", "container", "compose"})


def _header_value(match: re.Match[str]) -> bool:
    return _is_literal(match.group(1)) and any(c.isdigit() for c in match.group(1))


#: A ``.netrc`` entry after its ``machine host`` or ``default``: its other tokens, then the password, which ends its
#: line or comes before netrc's next word.
_NETRC_ENTRY = (
    r"(?:\s+(?:login|account|port)[ \t]+(?:\"[^\"\n]*\"|\S+))*\s+password[ \t]+(?P<value>\"[^\"\n]+\"|\S+)"
    r"(?=[ \t]*(?:\r?\n|\Z)|\s+(?:machine|login|account|macdef|default|password|port)\b)"
)


def _after_a_machine(match: re.Match[str]) -> bool:
    """Whether a ``machine`` (or ``default``) comes in the 300 characters before the match: "login as admin password
    reset" in prose is no ``.netrc`` entry."""
    before = match.string[max(0, match.start() - 300) : match.start()]
    return "machine " in before or "machine\t" in before or "default " in before or "default\n" in before


def _starts_an_entry(match: re.Match[str]) -> bool:
    """Whether a ``default`` starts a ``.netrc`` entry, not prose ("this resets the default password policy", "our
    build machine resets the default password daily"): right after a ``machine`` entry (netrc's ``default`` comes
    last), with a ``login``, or giving a value that looks made. A lone word at a line's start is no entry ("default
    password manager" in a wrapped paragraph)."""
    before = match.string[max(0, match.start() - 300) : match.start()]
    if "machine" in before and _MACHINE_ENTRY.search(before) is not None:
        return True
    return "login" in match.group(0) or _looks_made(match.group("value").strip('"'), password=True)


#: A ``.netrc`` ``machine`` entry right before a ``default``: its host, then netrc's words and their values, up to
#: the ``default``. (Any entry before it let a later line of prose read as one: "our build machine resets the default
#: password daily" lost "daily" in a message whose first line held ``machine foo login bar``: audit60 N1.)
_MACHINE_ENTRY = Lazy(
    globals(),
    "_MACHINE_ENTRY",
    r"\bmachine[ \t]+\S+(?:\s+(?:login|password|account|port)[ \t]+(?:\"[^\"\n]*\"|[^\s\"]\S*))+\s+\Z",
)


def _netrc_password(match: re.Match[str]) -> bool:
    """A ``.netrc`` entry's password: a literal (the pattern wants it to end its line or come before netrc's next
    word, so prose that says "the machine has a login page" is not read as one), its ``machine`` a word of its own
    (checked here, not by a look-behind: a pattern starting with its words is found as fast as they are)."""
    value = match.group("value").strip('"')
    at = match.start()
    own_word = at == 0 or not (match.string[at - 1].isalnum() or match.string[at - 1] in "_-")
    return own_word and _is_literal(value) and value.lower() not in _NOT_VALUES


#: Run only on a text a line of which has the shape (``redaction.may_hold_a_pgpass_line``): a colon is in most texts, and
#: two log times make four; compiling it would load ``re`` for a failed command's output on the hooks' path.
_PGPASS = Rule(
    # A ``~/.pgpass`` line, ``host:port:database:user:password`` (``*`` for any, ``\:`` a colon): five fields and
    # a port or ``*`` second, so a log's ``a:b:c:d:e`` stays; the whole line, or in ``echo "…" >> ~/.pgpass``.
    # Found from the port's colon (a literal the engine skips to); the host before it and what follows the password
    # are checked (``_pgpass_password``). Possessive (``*+``): a field that fails is not tried again shorter, which
    # halves its cost on a log's times (``09:00:01``).
    "secret",
    r":(?P<port>\d{1,5}|\*):[^:\s\\]*+(?>(?:\\.[^:\s\\]*+)*):[^:\s\\]*+(?>(?:\\.[^:\s\\]*+)*):"
    r"(?P<value>[^:\\\s]*+(?>(?:\\.[^:\\\s]*+)*))(?P<rest>[^\r\n]*)",
    (),
    replace=lambda m: _pgpass_password(m),
)


def _pgpass(text: str) -> str:
    """``text`` with the password of each ``.pgpass`` line in it redacted."""
    return _apply(_PGPASS, text) if may_hold_a_pgpass_line(text) else text


def _pgpass_password(match: re.Match[str]) -> str:
    """The match with its password redacted, when it is a ``.pgpass`` line's: the text before the port's colon, to
    the line's start, is a host (a name that is no file's, an address or ``*``), after ``echo`` and a quote or not;
    the line ends with the password (or, after ``echo``, its quote); the password a literal. ``grep -n``'s
    ``server.log:120:INFO:werkzeug:Press CTRL+C to quit`` is no such line."""
    text, start, whole = match.string, match.start(), match.group(0)
    host = text[text.rfind("\n", 0, start) + 1 : start].strip(" \t")
    value, rest = match.group("value"), match.group("rest")
    if host.startswith(("echo ", "echo\t")):
        host = host[5:].lstrip(" \t")
        if host[:1] in ("'", '"'):
            if not value.endswith(host[0]):
                return whole
            host, value = host[1:], value[:-1]
        elif rest[:1] not in ("", " ", "\t"):
            return whole
    elif rest.strip(" \t"):
        return whole
    if (
        _a_file(host)
        or _PGPASS_HOST.fullmatch(host) is None
        or not _is_literal(value)
        or _SHORT_NUMBER.fullmatch(value)
    ):
        return whole
    # ``grep -n``'s line number, a log's fields and an everyday last word (``Makefile:12:test:lint:check``,
    # ``api:8080:GET:users:ok``): a port no Postgres listens on asks for a password that looks made (as one after a
    # password's name does: ``db:6000:app:app:hunter2``).
    if match.group("port") not in _POSTGRES_PORTS and not _looks_made(value, password=True):
        return whole
    at = match.start("value") - start
    return f"{whole[:at]}[redacted:secret]{whole[at + len(value) :]}"


def _a_file(host: str) -> bool:
    """Whether ``host`` is a file's name: its extension one of a file's, a rotated log's number after it too
    (``app.log.1``)."""
    parts = host.lower().split(".")
    while len(parts) > 2 and parts[-1].isdigit():
        parts.pop()
    return len(parts) > 1 and parts[-1] in _FILE_EXTENSIONS


#: What ends a file's name, not a host's (``grep -n``'s ``app.log:7:…``).
_FILE_EXTENSIONS = frozenset(  # (words split, not list literals: one a line would take 70 lines)
    [
        *"log txt out err md rst csv json jsonl yaml yml toml ini cfg conf env lock xml html".split(),  # noqa: SIM905
        *"htm css scss sass less vue svelte php sql py pyi js mjs cjs ts tsx jsx go mod sum".split(),  # noqa: SIM905
        *"rs rb java kt kts scala swift m mm c cc h hpp cpp cs sh bash zsh ps1 tf tfvars".split(),  # noqa: SIM905
        *"gradle mk cmake lua pl ex exs erl dart r gz".split(),  # noqa: SIM905
    ]
)
#: The ports a ``.pgpass`` line names most (Postgres's, PgBouncer's, Supabase's pooler, Docker's usual remap of 5432,
#: DigitalOcean's, CockroachDB's), and ``*``: a line naming one is read whatever its password looks like.
_POSTGRES_PORTS = frozenset(
    ["*", "5432", "5433", "5434", "5435", "5436", "5437", "5438", "5439", "6432", "6543", "15432", "25060", "26257"]
)
_PGPASS_HOST = Lazy(globals(), "_PGPASS_HOST", r"\*|(?:[\w.-]|\\.)*[A-Za-z.](?:[\w.-]|\\.)*")


def _block_scalar(match: re.Match[str]) -> str:
    """A YAML block scalar's lines (those indented deeper than its key's line) replaced by one marker, when its key
    names a secret."""
    text, start = match.string, match.start()
    line = text[text.rfind("\n", 0, start) + 1 : start]
    key = line.strip().strip("\"'").removeprefix("- ")
    indent = len(line) - len(line.lstrip(" \t"))
    lines = match.group("body").splitlines(keepends=True)
    deeper = 0
    while deeper < len(lines) and len(lines[deeper]) - len(lines[deeper].lstrip(" \t")) > indent:
        deeper += 1
    if not deeper or not secret_key(key.strip("\"'")):
        return match.group(0)
    first = lines[0]
    ending = "\n" if lines[deeper - 1].endswith("\n") else ""
    body = first[: len(first) - len(first.lstrip(" \t"))] + "[redacted:secret]" + ending
    return _marked(match, "body", body + "".join(lines[deeper:]))


def _table_rows(match: re.Match[str]) -> str:
    """Vault's ``Key  Value`` table (``vault read``, ``vault kv get``) with the value of each row whose key names a
    secret replaced (``password            S3cret``: two blanks or more between the columns)."""
    rows = match.group("rows").split("\n")
    for n, row in enumerate(rows):
        key, gap, value = _TABLE_ROW.match(row).groups()  # (every line matches)
        if gap and secret_key(key) and _is_literal(value.strip()):
            rows[n] = f"{row[: len(row) - len(value.lstrip())]}[redacted:secret]{value[len(value.rstrip()) :]}"
    return _marked(match, "rows", "\n".join(rows))


_TABLE_ROW = Lazy(globals(), "_TABLE_ROW", r"[ \t]*([\w.-]*)([ \t]{2,})?(.*)")


def _grid(match: re.Match[str]) -> str:
    """A Markdown table's rows, or a text table's (``mysql``'s, between ``+---+`` borders), with each cell that gives
    a secret replaced: the cell after one naming a secret (``| DB_PASSWORD | Xk9… |``, a ``Key``/``Value`` table;
    not in a column whose header says it describes the name, ``| api_key | UUIDv4 |`` under ``| Field | Type |``)
    and each cell under a header naming one (``| user | password |``, then ``| admin | Xk9… |``). No separator marks
    such a value, so it must look made, as a sentence's must (``_a_cells_secret``): ``| password | string |``,
    ``| token | required |`` stay. A header row (the one a ``|---|`` row or a border follows) gives no value."""
    table = match.group(0)
    if not any(noun in table.lower() for noun in SECRET_NOUNS):  # (a table of anything else: no row is read)
        return table
    lines = table.split("\n")
    ruled = [_GRID_RULE.fullmatch(line.strip()) is not None for line in lines]
    rows = [_Cell.row(line) if "|" in line and not rule else [] for line, rule in zip(lines, ruled, strict=True)]
    header = next((n for n in range(len(rows) - 1) if rows[n] and ruled[n + 1]), -1)
    heads = [cell.name.lower() for cell in rows[header]] if header >= 0 else []
    named = {n: cell for n, cell in enumerate(rows[header]) if cell.names_a_secret()} if header >= 0 else {}
    out: list[str] = []
    at = last = 0
    for n, (line, cells) in enumerate(zip(lines, rows, strict=True)):
        given = {i + 1: cell for i, cell in enumerate(cells) if cell.names_a_secret()} if n > header else {}
        given = {i: cell for i, cell in given.items() if i >= len(heads) or heads[i] not in _DESCRIBING}
        for i in sorted(given.keys() | (named.keys() if n > header else set())):
            if i < len(cells) and cells[i].gives_a_secret((named.get(i) or given[i]).name):
                start, end = cells[i].value_span()
                out += (table[last : at + start], "[redacted:secret]")
                last = at + end
        at += len(line) + 1
    return "".join(out) + table[last:]


#: A column's header that says its cells describe the name beside them rather than give its value (``| Field |
#: Type |``: ``| signing_key | Ed25519 |`` there is a type).
_DESCRIBING = frozenset(  # (words split, not a list literal: one a line would take 30 lines)
    [
        *"type types kind description desc notes note comment comments format encoding algorithm scope".split(),  # noqa: SIM905
        *"scopes purpose usage meaning location file source where required optional status length size".split(),  # noqa: SIM905
        *"owner permissions".split(),  # noqa: SIM905
    ]
)


class _Cell:
    """A table row's cell (``_grid``): where it starts and ends in its row, its text, whether a ``|`` closes it."""

    __slots__ = ("closed", "end", "name", "start", "text")

    def __init__(self, start: int, end: int, text: str, closed: bool) -> None:
        self.start, self.end, self.text, self.closed = start, end, text, closed
        #: The name the cell gives (``cell_name``), or "".
        self.name = cell_name(text) if closed else ""

    @staticmethod
    def row(line: str) -> list[_Cell]:
        """A row's cells between its ``|`` (one after an odd number of backslashes, ``\\|``, is inside a cell); the
        text after the last ``|`` is a cell only where it holds more than blanks (``| a | b``)."""
        bars = [at for at in range(len(line)) if line[at] == "|" and _unescaped(line, at)]
        cells = [_Cell(start + 1, end, line[start + 1 : end], True) for start, end in zip(bars, bars[1:], strict=False)]
        tail = line[bars[-1] + 1 :].rstrip("\r")
        return [*cells, _Cell(bars[-1] + 1, bars[-1] + 1 + len(tail), tail, False)] if tail.strip() else cells

    def names_a_secret(self) -> bool:
        """Whether a ``|`` closes the cell and it names a secret (``secret_key``): what
        ``redaction._a_cell_naming_a_secret`` looks for before a ``|``."""
        return bool(self.name) and secret_key(self.name)

    def gives_a_secret(self, name: str) -> bool:
        """Whether the cell's value (``value_span``) is a secret ``name``d (``_a_cells_secret``)."""
        start, end = self.value_span()
        return _a_cells_secret(self.text[start - self.start : end - self.start], name)

    def value_span(self) -> tuple[int, int]:
        """Where the cell's value is in its row: without its blanks and its code or bold marks; where the cell
        starts with a code span, that span's (``| `Xk9…` (rotated monthly) |``)."""
        lead = len(self.text) - len(self.text.lstrip(" \t"))
        inner = self.text.strip(" \t\r")
        closing = inner.find("`", 1)
        if inner.startswith("`") and closing > 1 and inner[1] != "`":
            return self.start + lead + 1, self.start + lead + closing
        marks = len(inner) - len(inner.lstrip("`*"))
        return self.start + lead + marks, self.start + lead + marks + len(inner.strip("`*"))


def _unescaped(line: str, at: int) -> bool:
    """Whether the character at ``at`` of ``line`` follows an even number of backslashes (none too)."""
    before = at
    while before and line[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 0


def _a_cells_secret(value: str, name: str) -> bool:
    """Whether a table's cell gives a secret named ``name`` ``value``: one word that looks made (``_looks_made``),
    but a number under any name but a password's (a table counts tokens: ``| Token | 128000 |``) and an algorithm's
    name (``| signing_key | Ed25519 |``: ``_a_scheme``)."""
    if not value or any(c.isspace() for c in value) or value.startswith("[redacted:"):
        return False
    password = _a_passwords_name(name)
    return (password or not value.isdigit()) and not _a_scheme(value) and _looks_made(value, password=password)


def _a_passwords_name(name: str) -> bool:
    """Whether a secret's name (``DB password``, ``PGPASSWORD``, ``admin_pw``) is a password's: its value may be a
    weak one (``hunter22``: ``_looks_made``)."""
    return any(word.endswith(_PASSWORDS_NAMES) for word in _key_words(name)[-1:])


_PASSWORDS_NAMES = ("password", "passwd", "passphrase", "passcode", "pwd", "pw", "pass")


#: A row that rules a table, its blanks stripped: Markdown's ``|---|:-:|`` or ``| --- | :-: |`` (one dash or more a
#: column, Org's ``|--+--|`` too), a text table's ``+----+----+``.
_GRID_RULE = Lazy(globals(), "_GRID_RULE", r"\|?[ \t]*(?::?-+:?[ \t]*[|+][ \t]*)*:?-+:?(?:[ \t]*\|)?|\+[-=+]+\+")


class _SecretData:
    """The replace of a Kubernetes Secret's ``data:``/``stringData:`` map (``kubectl get secret -o yaml|json``) for
    one text, made afresh for each (``Rule.fresh``): every value there is a secret whatever its key (a
    ``DATABASE_URL`` in base64, trial59 F2), but a ConfigMap's ``data:`` holds none. A map is a Secret's when its
    document (between YAML's ``---`` lines; a JSON text is one) says ``kind: Secret``, before it or after it
    (kubectl sorts ``data`` first). Where those are is read once per text, so many maps cost one pass."""

    __slots__ = ("breaks", "kinds")

    def __init__(self) -> None:
        #: Where each ``kind: Secret`` and each ``---`` line starts (None: not read yet).
        self.kinds: list[int] | None = None
        self.breaks: list[int] = []

    def __call__(self, match: re.Match[str]) -> str:
        if not self.of_a_secret(match):
            return match.group(0)
        if match.group("rows") is not None:
            return _marked(match, "rows", _data_rows(match.group("rows")))
        return _marked(match, "pairs", _DATA_PAIR.sub(_data_pair, match.group("pairs")))

    def of_a_secret(self, match: re.Match[str]) -> bool:
        from bisect import bisect_left

        if self.kinds is None:
            self.kinds = [kind.start() for kind in _SECRET_KIND.finditer(match.string)]
            self.breaks = [line.start() for line in _DOCUMENT_BREAK.finditer(match.string)]
        at = bisect_left(self.breaks, match.start())
        first = self.breaks[at - 1] if at else -1
        last = self.breaks[at] if at < len(self.breaks) else len(match.string)
        kind = bisect_left(self.kinds, first)
        return kind < len(self.kinds) and self.kinds[kind] < last


def _data_rows(rows: str) -> str:
    """A YAML map's rows with each entry's value replaced (a block scalar's lines by one marker), up to the first row
    indented less than its first: what follows is the manifest's next key."""
    lines = rows.split("\n")
    first = next((line for line in lines if line.strip()), "")
    depth = len(first) - len(first.lstrip(" \t"))
    out: list[str] = []
    in_block = False
    for n, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" \t"))
        if line.strip() and indent < depth:
            return "\n".join([*out, *lines[n:]])
        if line.strip() and indent > depth:  # (an entry's block scalar: ``config.yaml: |``, then its lines)
            if not in_block:
                out.append(line[:indent] + "[redacted:secret]")
            in_block = True
            continue
        entry = _DATA_ROW.match(line) if line.strip() else None
        if entry is not None:
            in_block = False
            line = entry.group("key") + _redacted_value(entry.group("value"))
        out.append(line)
    return "\n".join(out)


def _redacted_value(value: str) -> str:
    """An entry's value replaced, but an empty one, one already replaced and a block scalar's header (``|``, ``>-``:
    its lines, indented deeper, are replaced by ``_data_rows``)."""
    bare = value.strip()
    if bare in ("", '""', "''") or bare.startswith(("[redacted:", "|", ">")):
        return value
    return "[redacted:secret]" + value[len(value.rstrip("\r")) :]


def _data_pair(pair: re.Match[str]) -> str:
    value = pair.group("value")
    if not value or value.startswith("[redacted:"):
        return pair.group(0)
    return _marked(pair, "value", "[redacted:secret]")


_SECRET_KIND = Lazy(
    globals(), "_SECRET_KIND", r"(?m)^[ \t]*(?:- )?kind:[ \t]*([\"']?)Secret\1[ \t]*\r?$|\"kind\"\s*:\s*\"Secret\""
)
_DOCUMENT_BREAK = Lazy(globals(), "_DOCUMENT_BREAK", r"(?m)^---")
_DATA_ROW = Lazy(globals(), "_DATA_ROW", r"(?P<key>[ \t]*([\"']?)[\w.-]+\2:(?:[ \t]+|\Z))(?P<value>.*)")
_DATA_PAIR = Lazy(globals(), "_DATA_PAIR", r"\"(?:[^\"\\\n]|\\.)*\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.)*)\"")


def _sensitive(match: re.Match[str]) -> str:
    if match.group("value") is not None:
        return _marked(match, "value", "[redacted:secret]")
    return _marked(match, "nested", '"[redacted:secret]"')


#: WordPress's keys (``wp-config.php``) whose names alone say no secret; its salts end in ``_SALT``.
_WORDPRESS_KEYS = frozenset({"LOGGED_IN_KEY", "NONCE_KEY"})


def _defined(match: re.Match[str]) -> str:
    """PHP's ``define('DB_PASSWORD', '…')`` and WordPress's keys and salts (``AUTH_KEY``, ``NONCE_SALT``), whose
    name is a string before the value rather than a name before ``=``."""
    key, value = match.group("key"), match.group("value")
    secret = secret_key(key) or key.upper() in _WORDPRESS_KEYS or key.upper().endswith("_SALT")
    return _marked(match, "value", "[redacted:secret]") if secret and _is_literal(value) else match.group(0)


def _cookie_values(match: re.Match[str]) -> str:
    """A ``Cookie:`` header's values (every ``name=value`` pair) or a ``Set-Cookie:``'s (its first pair; what follows
    are attributes: ``Path``, ``Expires``), each replaced when it looks generated: a session id, a CSRF token."""
    pairs = list(_COOKIE_PAIR.finditer(match.group("pairs")))
    if match.group(0)[:4].lower() == "set-":
        pairs = pairs[:1]
    out, done = match.group("pairs"), 0
    for pair in reversed(pairs):  # (from the end, so the earlier spans stay where they are)
        if _generated(pair.group("value")):
            out, done = f"{out[: pair.start('value')]}[redacted:cookie]{out[pair.end('value') :]}", done + 1
    return _marked(match, "pairs", out) if done else match.group(0)


class _CurlCookies:
    """The ``-b``/``--cookie`` rule's replace for one text, made afresh for each (``Rule.fresh``): ``--cookie``'s
    values anywhere, ``-b``'s in a curl command (``in_a_curl_command``). What it has read of the text goes with it:
    kept by the module, the last text with a ``-b`` stayed in memory until the next one replaced it."""

    __slots__ = ("line", "end", "curl", "state")

    def __init__(self) -> None:
        #: How far the text is read: to ``end`` (-1: not yet), on the line that starts at ``line`` (after a line
        #: ``_continued``: both are of the same line), where the last ``curl`` on it starts (-1: none), and the
        #: shell's state after it (``_shell_state``).
        self.line = self.end = self.curl = -1
        self.state = ("", False, False)

    def __call__(self, match: re.Match[str]) -> str:
        if match.group(0)[1] == "-" or self.in_a_curl_command(match):
            return _cookie_values(match)
        return match.group(0)

    def in_a_curl_command(self, match: re.Match[str]) -> bool:
        """Whether the match is in a ``curl`` command: ``curl`` before it on its line (or on the lines a ``\\`` at
        their end continues), with no unquoted ``|``, ``;`` or ``&`` between (``curl … | git checkout -b x=y`` is
        git's; the ``;`` of ``-H 'accept: …;q=0.9'``, which Chrome's "Copy as cURL" puts first, is a header's).

        Read on from where the last match left it when this one is on the same line (matches come in the text's
        order): a long line of many ``-b`` read back to its start for each (400 KB, 1.1 s; continued lines, 100 KB,
        7.7 s)."""
        text, start = match.string, match.start()
        if self.end < 0 or not _one_line(text, self.end, start):
            line = text.rfind("\n", 0, start)
            while line > 0 and _continued(text, line):
                line = text.rfind("\n", 0, line)
            self.line = self.end = line + 1
            self.curl, self.state = -1, ("", False, False)
        curl = text.rfind("curl", max(self.line, self.end - 3), start)
        if curl >= 0:
            self.end = self.curl = curl
            self.state = ("", False, False)
        self.state = _shell_state(text[self.end : start], self.state)
        self.end = start
        return self.curl >= 0 and not self.state[2]


def _continued(text: str, newline: int) -> bool:
    """Whether the line ending at ``newline`` ends in a ``\\`` (a ``\\r`` or more after it aside): the next line
    goes on with its command."""
    at = newline
    while at > 0 and text[at - 1] == "\r":
        at -= 1
    return at > 0 and text[at - 1] == "\\"


def _one_line(text: str, begin: int, end: int) -> bool:
    """Whether ``text[begin:end]`` holds no line end but continued ones."""
    at = text.find("\n", begin, end)
    while at >= 0:
        if not _continued(text, at):
            return False
        at = text.find("\n", at + 1, end)
    return True


def _shell_state(words: str, state: tuple[str, bool, bool]) -> tuple[str, bool, bool]:
    """The shell's (open quote, escaped, a ``|``, ``;`` or ``&`` seen outside quotes) after ``words``, from ``state``
    (a backslash escapes the next sign)."""
    quote, escaped, separated = state
    if separated:
        return state
    for char in words:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "|;&":
            return quote, escaped, True
    return quote, escaped, False


#: A cookie's ``name=value`` (the value quoted or not, or its quote escaped inside a JSON string).
_COOKIE_PAIR = Lazy(globals(), "_COOKIE_PAIR", r"(?P<name>[^=;,\s\"'\\]+)=\\?\"?(?P<value>[^;,\s\"'\\]*)")


#: A JSON string, its escaped quotes too: a bracket inside one is text (``random_password`` puts ``[]{}`` in a
#: value by default), not the start or end of an array or object.
_JSON_STRING = r'"(?:[^"\\\n]|\\.)*"'


def _nested(depth: int) -> str:
    """A pattern for a JSON array or object holding others ``depth`` deep, a bracket inside a string skipped."""
    pattern = rf"[\[{{](?:{_JSON_STRING}|[^\[\]{{}}\"])*[\]}}]"
    for _ in range(depth - 1):
        pattern = rf"[\[{{](?:{_JSON_STRING}|[^\[\]{{}}\"]|{pattern})*[\]}}]"
    return pattern


def _generated(value: str) -> bool:
    """A value that looks generated, not chosen: 16 characters or more, or 8 or more mixing letters and digits."""
    letters, digits = any(c.isalpha() for c in value), any(c.isdigit() for c in value)
    return len(value) >= 16 or (len(value) >= 8 and letters and digits)


# --------------------------------------------------------------------------- secrets fed to a command or a store
#
# A password an agent gives a command that would prompt for it: piped to ``sudo -S``, ``passwd --stdin`` or
# ``chpasswd``, written to a secret store's CLI by ``echo``/``printf`` or a here-string (``wrangler secret put``,
# ``vercel env add``, ``gcloud secrets … --data-file=-``), or given to it on its line (``aws secretsmanager …
# --secret-string``, ``az keyvault secret set --value``, ``doppler secrets set NAME …``, ``twine -p``, …): trial55 F0.
# These rules follow ``--with-token``/``--password-stdin``'s (``_PIPED_IN``, ``_HERE_STRING``) and
# ``_PASSWORD_ARGUMENTS``' shapes; ``redaction`` knows each needle (``KEYED_NEEDLES``, ``ARGUMENT_WORDS``).

#: One of sudo's options before the command it runs, read one way only (atomic): a cluster whose last letter takes a
#: value with that value (``-u postgres``, ``-p ''``), a long option that takes one with it (``--user postgres``,
#: ``--prompt=…``), any other. The command's own options (``pacman -S``, ``sort -S 1G``) come after its name, which
#: is no option, and are never read as sudo's.
_SUDO_OPTION = (
    rf"(?>-[A-Za-z]*[ughpCDrtTUR][ \t]+{_WORD}"
    rf"|--(?:user|group|prompt|host|role|type|chdir|chroot|close-from|command-timeout|other-user)(?:=\S*|[ \t]+{_WORD})"
    r"|--[\w-]+(?:=\S*)?|-[A-Za-z]+)"
)
#: sudo reading its password from its input: ``-S`` (alone or in a cluster, ``-kS``, ``-Su postgres``) or
#: ``--stdin`` among its first 16 options.
_SUDO_READS_ITS_INPUT = (
    rf"sudo(?![\w.-])(?:[ \t]+{_SUDO_OPTION}){{0,16}}?[ \t]+(?:-[A-Za-z]*S[A-Za-z]*|--stdin)(?![^\s])"
)
#: The commands that read a password or a secret from their input, each with the needles its rules need, up to
#: where what is fed to them may follow (a here-string) on their line.
_FED_COMMANDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("sudo",), _SUDO_READS_ITS_INPUT),
    # (RHEL's; ``chpasswd``'s own rules are below.)
    (("passwd",), r"passwd(?![\w.-])(?:[ \t]+[^\s|;&<>]+){0,4}?[ \t]+--stdin(?![^\s])"),
    (("wrangler",), r"wrangler(?![\w.-])[^\n|;&<>]{0,80}?[ \t]secret[ \t]+put(?![\w-])"),
    (("vercel",), r"vercel(?![\w.-])[ \t]+env[ \t]+add(?![\w-])"),
    (
        ("gcloud",),
        r"gcloud(?![\w.-])[ \t]+secrets[ \t]+(?:create|versions[ \t]+add)(?![\w-])[^\n|;&<>]{0,200}?"
        r"[ \t]--data-file(?:=|[ \t]+)(?:-|/dev/stdin)(?![^\s])",
    ),
    (("doppler",), r"doppler(?![\w.-])[ \t]+secrets[ \t]+set(?![\w-])"),
    (("secret",), r"gh(?:\.exe)?[ \t]+secret[ \t]+set(?![\w-])"),
    (("secret create",), r"(?:docker|podman)[ \t]+secret[ \t]+create(?![\w-])[^\n|;&<>]{0,200}?[ \t]-(?![^\s])"),
    # (Its subcommand the needle: the name alone is in every firebase failure, review55e F1.)
    (("functions:secrets:set",), r"firebase(?![\w.-])[ \t]+functions:secrets:set(?![\w-])"),
)
_CHPASSWD = r"chpasswd(?![\w.-])"


def _fed_piped(command: str) -> str:
    """What ``echo``/``printf`` pipes to ``command``, on the pipe's line (``echo 'PW' | sudo -S systemctl …``)."""
    return rf"{_ECHOED}{_NOT_REDACTED}{_OPTION_VALUE}{_PIPE}[^\n|;&]{{0,200}}?(?<![\w.-]){command}"


def _fed_here_string(command: str) -> str:
    """What a here-string on ``command``'s line feeds it (``sudo -S <<< 'PW' apt install nginx``), past one quoted
    argument whose ``;`` or ``|`` is no shell's (``sudo -S bash -c 'apt update; apt upgrade' <<< 'PW'``: review55e
    F2.6; one, each read once, so a line of them costs linear time)."""
    return rf"{command}{_QUOTED_ARGUMENT}[^\n|;&<>]{{0,200}}?<<<[ \t]*{_ANSI_C}{_NOT_REDACTED}{_OPTION_VALUE}"


_QUOTED_ARGUMENT = r"""(?:[^\n|;&<>'"]{0,200}?(?:'[^'\n]{0,200}'|"[^"\n]{0,200}"))?"""


def _here_string_fed(match: re.Match[str]) -> str:
    """A ``_fed_here_string`` match with its literal value redacted, when the command's name is a command's word."""
    if not _a_command_word(match.string, match.start()):
        return match.group(0)
    return _option_value(match, "cli-credentials")


def _piped_in_unless_data(match: re.Match[str]) -> str:
    """``_piped_in`` of what is piped to ``sudo -S`` or ``vercel env add``, but data that cannot be a password
    (``_plainly_data``): sudo reads its password from its input only when it needs one (with a cached credential the
    input goes to the command: ``echo y | sudo -S apt install``, ``echo 3 | sudo -S tee …``), and ``vercel env add``
    stores plain settings too (``echo https://api.example.com | vercel env add API_URL``): review55e F3."""
    return match.group(0) if _plainly_data(_fed_value(match)) else _piped_in(match)


def _here_string_fed_unless_data(match: re.Match[str]) -> str:
    """``_here_string_fed`` of what a here-string feeds ``sudo -S`` or ``vercel env add``, but plain data (as
    ``_piped_in_unless_data``)."""
    return match.group(0) if _plainly_data(_fed_value(match)) else _here_string_fed(match)


def _fed_value(match: re.Match[str]) -> str:
    return match.group("quoted") if match.group("quoted") is not None else match.group("bare")


def _plainly_data(value: str) -> bool:
    """Whether a value fed to a command is data, no password: an answer or a short number (``y``, ``no``, ``3``), a
    URL, words none of which looks made (``nameserver 8.8.8.8``, ``SELECT 1``: ``_looks_made``), or a setting
    (``vm.max_map_count=262144``) whose value is a number or looks made neither; a ``\\n`` ending it is no part
    of it (``printf 'y\\n'``)."""
    value = value.removesuffix("\\n")
    if len(value) <= 2 or value.lower() in ("yes", "no") or (value.isdigit() and len(value) <= 5) or "://" in value:
        return True
    words = value.split()
    if len(words) > 1:
        return not any(_looks_made(word, password=True) for word in words)
    name, sign, setting = value.partition("=")
    return (
        bool(sign)
        and name.replace(".", "_").isidentifier()
        and (setting.isdigit() or not _looks_made(setting, password=True))
    )


def _users_passwords(match: re.Match[str]) -> str:
    """A match of what is fed to ``chpasswd`` with each ``user:password`` pair's password redacted (``printf
    'a:PW\\nb:PW2\\n'`` gives two), a literal one: ``deploy:$PW`` is a variable's but in single quotes."""
    group = "quoted" if match.group("quoted") is not None else "bare"
    single = match.group("quote") == "'"
    pairs = match.group(group).split("\\n")
    for at, pair in enumerate(pairs):
        user, colon, password = pair.partition(":")
        if colon and _is_literal(password.removeprefix("$") if single else password):
            pairs[at] = f"{user}:[redacted:cli-credentials]"
    redacted = "\\n".join(pairs)
    return match.group(0) if redacted == match.group(group) else _marked(match, group, redacted)


def _chpasswd_piped(match: re.Match[str]) -> str:
    """``_users_passwords`` of what ``echo``/``printf`` pipes to ``chpasswd``, when it is a command's word."""
    return _users_passwords(match) if _echoed_by_a_command(match) else match.group(0)


def _chpasswd_here_string(match: re.Match[str]) -> str:
    """``_users_passwords`` of a here-string fed to ``chpasswd``, when its name is a command's word."""
    return _users_passwords(match) if _a_command_word(match.string, match.start()) else match.group(0)


def _piped_twice(match: re.Match[str]) -> str:
    """``_piped_in`` of what ``echo -e``/``printf`` pipes to ``passwd`` without ``--stdin`` (Debian's, review55e
    F2.5): passwd reads its prompts' answers, the new password and again, so only two equal lines are one
    (``"PW\\nPW"``); ``echo y | passwd`` is none."""
    lines = _fed_value(match).removesuffix("\\n").split("\\n")
    return _piped_in(match) if len(lines) == 2 and lines[0] == lines[1] and lines[0] else match.group(0)


def _heredoc_line_fed(match: re.Match[str]) -> str:
    """A heredoc's line fed to a command that reads a password from its input (``_heredoc_fed``, ``_heredoc_piped``:
    review55e F2.4) redacted, when the command (or ``cat``) is a command's word and the line a literal."""
    if not _a_command_word(match.string, match.start()) or not _is_literal(match.group("value")):
        return match.group(0)
    return _marked(match, "value", "[redacted:cli-credentials]")


def _heredoc_line_fed_unless_data(match: re.Match[str]) -> str:
    """``_heredoc_line_fed`` of a heredoc fed to ``sudo -S`` or ``vercel env add``, but plain data (as
    ``_piped_in_unless_data``)."""
    return match.group(0) if _plainly_data(match.group("value")) else _heredoc_line_fed(match)


def _heredoc_users_passwords(match: re.Match[str]) -> str:
    """A heredoc fed to ``chpasswd`` (``_HEREDOC_PAIRS``) with each ``user:password`` line's literal password
    redacted, as ``_users_passwords``; a line's end (``\\r``, a JSON string's ``\\\\r``) and its blanks stay."""
    if not _a_command_word(match.string, match.start()):
        return match.group(0)
    escaped = match.group("esc") is not None
    lines = _escaped_lines(match.group("value")) if escaped else match.group("value").split("\n")
    for at, line in enumerate(lines):
        user, colon, password = line.partition(":")
        typed = (password.removesuffix("\\r") if escaped else password).rstrip()
        if colon and _is_literal(typed):
            lines[at] = f"{user}:[redacted:cli-credentials]{password[len(typed) :]}"
    redacted = ("\\n" if escaped else "\n").join(lines)
    return match.group(0) if redacted == match.group("value") else _marked(match, "value", redacted)


def _escaped_lines(text: str) -> list[str]:
    """A JSON string's text split at its escaped line ends (``\\n``), not at an escaped backslash before an ``n``
    (``a:Zr8\\\\nKq3`` is one line, its password ``Zr8\\nKq3``: review57e F6); joined with ``\\n`` it is the text
    again. A ``\\n`` whose backslash is the last of an odd run is the escape; after an even run, a backslash's."""
    lines: list[list[str]] = []
    for piece in text.split("\\n"):
        if lines and (len(lines[-1][-1]) - len(lines[-1][-1].rstrip("\\"))) % 2:
            lines[-1].append(piece)
        else:
            lines.append([piece])
    return ["\\n".join(pieces) for pieces in lines]


def _stored_secret(match: re.Match[str]) -> str:
    """``_argument`` of a secret given to a store's CLI on its line, but a file's (``file://…``, ``fileb://…``) and a
    JSON object's, whose values ``_json_values`` reads (``_SECRET_OBJECT``)."""
    value = match.group("quoted") if match.group("quoted") is not None else match.group("bare")
    if value.startswith(("file://", "fileb://", "{")):
        return match.group(0)
    return _argument(match, "cli-credentials")


def _json_values(match: re.Match[str]) -> str:
    """A store's secret given as a JSON object (``_SECRET_OBJECT``) with each literal string value that is a secret
    redacted (``_a_secret_in_json``), its keys and plain fields kept. The object's strings are read by splitting it
    at its quotes, as escaped as the quote it is in asks (``"`` in ``'…'``, ``\\"`` in ``"…"``, ``\\\\\\"`` in a JSON
    string's ``\\"…\\"``): one pass, however many quotes it holds."""
    if not _a_command_word(match.string, match.start()):
        return match.group(0)
    group = "object" if match.group("open") else "inside"
    text = match.group(group)
    if group == "object":
        quote = '\\"' if '\\"' in text else '"'
    else:
        quote = "\\" * (2 * len(match.group("escaped")) - 1) + '"'
    parts = text.split(quote)
    for at in range(3, len(parts), 2):  # a string after a ``:``, the key's string two before it
        if parts[at - 1].strip() == ":" and _a_secret_in_json(parts[at - 2], parts[at]):
            parts[at] = "[redacted:secret]"
    redacted = quote.join(parts)
    return match.group(0) if redacted == text else _marked(match, group, redacted)


def _a_secret_in_json(key: str, value: str) -> bool:
    """Whether a string of a store's JSON secret is one: a literal under a secret-named key (``"password"``), or one
    that looks made (``"db":"Hx7Sud0Pw42"``: review55e F2.8). An RDS secret's ``username``, ``engine``, ``host`` and
    ``dbname`` stay where they are plain words (``"admin"``, ``"mysql"``): what a user searches a chat for
    (review56c F6); one with digits (``"user01"``) looks made, and goes."""
    return _is_literal(value) and (secret_key(key) or _looks_made(value, password=True))


def _each_pair(pair: str, check: Callable[[re.Match[str]], bool] | None) -> Replace:
    """The replace of a store's command given ``NAME=VALUE`` pairs (``_STORED_PAIRS``): each literal value in the
    command's rest (``rest``: to its end, across ``\\`` line ends) redacted, marked as a setting's secret (the
    settings' rules, which ran after these, marked a secret-named one so: ``--from-literal=DB_PASSWORD=…``). One
    match reads the whole command once: a rule applied again from the command's start for each pair reached 200
    characters and kept the pairs past them (review55e F2.2). ``pair`` is compiled when first asked; ``check``, when
    given, says which pairs hold a secret (a host's settings hold plain ones too)."""
    pairs: list[re.Pattern[str]] = []

    def replace(match: re.Match[str]) -> str:
        if not _a_command_word(match.string, match.start()):
            return match.group(0)
        if not pairs:
            import re

            pairs.append(re.compile(rf"(?<!\S){pair}{_NOT_REDACTED}{_OPTION_VALUE}"))
        start, end = match.span("rest")
        parts, last = [match.string[match.start() : start]], start
        for given in pairs[0].finditer(match.string, start, end):
            if check is None or check(given):
                parts += (match.string[last : given.start()], _option_value(given, "secret"))
                last = given.end()
        return "".join((*parts, match.string[last:end]))

    return replace


def _secure_parameter(match: re.Match[str]) -> str:
    """``_stored_secret`` of ``aws ssm put-parameter --value …``, but where its line says the parameter is plain
    (``--type String``, ``StringList``): a setting's value, no secret (``SecureString``'s, or no type given: redacted).
    Its line with the lines its ``\\`` ends continue (``_continued_line``): the match starts at ``aws``, and AWS's
    documentation gives each option a line of its own (review57e F5). Its own command's alone: up to a ``;``, ``|``,
    ``&``, a comment, a JSON string's escaped line end no ``\\`` continues or its end (``_COMMAND_END``), where the
    next command may put a plain parameter (review58b F3, review58f F2: a tool call's script kept the secure one's
    value)."""
    command = _COMMAND_END.split(_continued_line(match.string, match.start()), maxsplit=1)[0]
    if _PLAIN_PARAMETER.search(command) is not None:
        return match.group(0)
    return _stored_secret(match)


_PLAIN_PARAMETER = Lazy(globals(), "_PLAIN_PARAMETER", r"""--type(?:=|[ \t]+)['"]?String(?:List)?(?![\w-])""")
#: Where a command ends on its line: a ``;``, a ``|``, ``&&``, or after a blank a ``&`` (one sending it to the
#: background; a URL's query holds one without) or a comment's ``#``, a JSON string's ``\\n`` (not one a ``\\`` before it continues, ``\\\\\\n``, nor an
#: escaped ``\\`` before an ``n``), or a JSON string's end, a ``"`` no ``\\`` escapes before a ``,``, ``}`` or ``]``
#: (the next field, or the next tool call's command: review58f F2).
_COMMAND_END = Lazy(globals(), "_COMMAND_END", r"""[;|]|&&|[ \t][&#]|(?<!\\)\\n|(?<!\\)"[ \t]*[,}\]]""")


def _plain_secure_string(match: re.Match[str]) -> str:
    """``_argument`` of PowerShell's ``ConvertTo-SecureString 'PW' -AsPlainText``: the password in plain text. Without
    ``-AsPlainText`` on its line it reads an encrypted string, no password as typed."""
    if "-asplaintext" not in _continued_line(match.string, match.start()).lower():
        return match.group(0)
    return _argument(match)


def _continued_line(text: str, at: int) -> str:
    """The line from ``at``, and up to four lines its ends' ``\\``, backtick or ``^`` continue (PowerShell's ``…
    'PW' ```` then ``  -AsPlainText``: review55e F2.3), 600 characters at most."""
    lines = text[at : at + 600].split("\n")
    taken = 1
    while taken < min(len(lines), 5) and lines[taken - 1].rstrip("\r").endswith(("\\", "`", "^")):
        taken += 1
    return "\n".join(lines[:taken])


#: What separates two of aws's words: ``_BLANKS``, or a ``\\`` line end as a JSON string escapes it (``\\\\\\n``: a tool
#: call's ``"aws --region x \\\\\\n  secretsmanager …"``, where fly's and kubectl's continued lines were redacted:
#: review57e F1). The two share no text, so blanks are read one way.
_AWS_BLANKS = rf"(?:{_BLANKS}|[ \t]*(?:\\\\\\n[ \t]*)+)"
#: aws's global options before its service (``aws --region eu-west-1 --profile prod secretsmanager …``: review55e
#: F2.1), up to 8, each with its value or none (``--no-cli-pager``); a lazy walk of bounded steps. Blanks across a
#: ``\\`` line end too (``aws --region x \\`` then ``  secretsmanager …``, as fly and kubectl read: review56c F7), on
#: lines or as a JSON string escapes it (``_AWS_BLANKS``).
_AWS_GLOBAL_OPTIONS = rf"(?:{_AWS_BLANKS}--[\w-]+(?:=[^\s|;&]*|{_AWS_BLANKS}[^\s|;&-][^\s|;&]*)?){{0,8}}?{_AWS_BLANKS}"
#: A JSON object given to ``aws secretsmanager --secret-string`` in quotes, as written (``'{"db":"…"}'``), in
#: escaped double quotes as AWS's documentation writes it (``"{\\"db\\":\\"…\\"}"``), or either in a JSON string
#: (review56c F2): up to its first ``}`` within 4000 characters of its line, before the quote that would close it (a
#: ``'`` in single quotes; in double ones, a ``"`` no ``\\`` escapes), so a line of many unclosed ones reads each once.
_SECRET_OBJECT = (
    _option_of(rf"aws(?:\.exe)?{_AWS_GLOBAL_OPTIONS}secretsmanager", "--secret-string")
    + r"""(?:=|[ \t]+)(?:(?P<open>')\{(?P<object>[^\n}']{0,4000}+)|(?P<escaped>(?:\\){0,3}")\{"""
    + r"""(?P<inside>(?>(?:[^\n}"\\]|\\+"?){0,4000})))\}"""
)


#: The secrets given to a store's or a tool's CLI on its line: the needles, the pattern up to the value
#: (``_OPTION_VALUE``) and what redacts it.
_STORED_SECRETS: tuple[tuple[tuple[str, ...], str, Replace], ...] = (
    (
        ("secretsmanager",),
        _option_of(rf"aws(?:\.exe)?{_AWS_GLOBAL_OPTIONS}secretsmanager", "--secret-string|--secret-binary")
        + r"(?:=|[ \t]+)",
        _stored_secret,
    ),
    (
        ("put-parameter",),
        _option_of(rf"aws(?:\.exe)?{_AWS_GLOBAL_OPTIONS}ssm{_AWS_BLANKS}put-parameter", "--value") + r"(?:=|[ \t]+)",
        _secure_parameter,
    ),
    (
        ("keyvault",),
        _option_of(r"az(?:\.cmd|\.exe)?[ \t]+keyvault[ \t]+secret[ \t]+set", "--value") + r"(?:=|[ \t]+)",
        _stored_secret,
    ),
    (("twine",), _option_of("twine", "-p|--password") + r"(?:=|[ \t]+)", _argument),
    (
        ("poetry",),
        rf"poetry(?![\w.-])[ \t]+config(?:[ \t]+--?[\w-]+)*?[ \t]+"
        rf"(?:http-basic\.[\w.-]+[ \t]+{_WORD}|pypi-token\.[\w.-]+)[ \t]+",
        _argument,
    ),
    # ``dotnet nuget add source … -p``, ``nuget.exe sources add … -Password``, and a push's API key.
    (
        ("nuget",),
        _option_of(r"nuget(?:\.exe)?", "-p|--password|-Password|-k|--api-key|-ApiKey") + r"(?:=|[ \t]+)",
        _argument,
    ),
    (("setapikey",), r"nuget(?:\.exe)?[ \t]+setapikey[ \t]+", _argument),  # (its key kept on the machine)
    (
        ("convertto-securestring",),
        r"(?i:convertto-securestring)(?:[ \t]+-(?i:asplaintext|force))*(?:[ \t]+-(?i:string))?[ \t]+",
        _plain_secure_string,
    ),
    # ``net use Z: \\srv\share PW /user:corp\me``, the password after the user too; not ``/persistent:no`` nor
    # ``*`` (a prompt). The share in quotes (``"\\srv\my share"``) or in a JSON string (``\\\\srv\\share``),
    # the user's ``/u:`` too (review55e F2.7).
    (
        ("net use", "net.exe use"),
        r"(?i:net(?:\.exe)?[ \t]+use)(?:[ \t]+(?:[A-Za-z]:|\*))?[ \t]+"
        r"""(?:(?:\\\\){1,2}[^\s\\"]+\\{1,2}\S*|"(?:\\\\){1,2}[^"\n]{0,200}")"""
        r"(?:[ \t]+/(?i:user|u):\S+)?[ \t]+(?![/*])",
        _argument,
    ),
    (("ngrok",), r"ngrok(?:\.exe)?[ \t]+(?:config[ \t]+add-(?:authtoken|api-key)|authtoken)[ \t]+", _argument),
    # MinIO's ``mc alias set ALIAS URL ACCESS_KEY SECRET_KEY`` (``mc config host add``, its older name).
    (
        ("alias set", "host add"),
        rf"mc(?:\.exe)?[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+{_WORD}[ \t]+{_WORD}[ \t]+{_WORD}[ \t]+",
        _argument,
    ),
)


def _argument_rule(needles: tuple[str, ...], lead: str, replace: Replace, *, again: bool) -> Rule:
    """The rule of a tool's secret given as its argument: ``lead`` up to the value (``_OPTION_VALUE``), past a value
    redacted already or a variable's (``_NOT_REDACTED``), a match ``replace`` leaves looked for again one on."""
    return Rule(
        "cli-credentials", lead + _NOT_REDACTED + _OPTION_VALUE, needles, replace=replace, again=again, retry=True
    )


def _a_secrets_setting(given: re.Match[str]) -> bool:
    """Whether a ``NAME=VALUE`` (or ``NAME VALUE``) given to a host's environment (``heroku config:set``, ``netlify
    env:set``: red56) is a secret: its name names one, or its value looks like a token (``_a_made_setting``)."""
    value = given.group("quoted") if given.group("quoted") is not None else given.group("bare")
    return secret_key(given.group("name")) or _a_made_setting(value)


def _a_made_setting(value: str) -> bool:
    """Whether a host's setting under a plain name looks like a token: made (``_looks_made``), with both cases or of
    16 characters or more, and neither a number nor a list or version (``,``, ``.``). ``STRIPE=Hx7Sud0Pw42`` is one;
    ``MAX_UPLOAD=10485760``, ``APP_VERSION=v1.2.3-rc1``, ``GIT_SHA=3f2a9c1b7e`` and
    ``FEATURE_FLAGS=new_ui,beta_search`` are settings a user reads (review56c F5)."""
    if value.isdigit() or "," in value or "." in value or not _looks_made(value):
        return False
    return len(value) >= 16 or (any(c.isupper() for c in value) and any(c.islower() for c in value))


def _a_secrets_name(given: re.Match[str]) -> bool:
    """Whether a ``KEY VALUE`` pair of ``rclone config create|update`` names a secret (``secret_access_key``,
    ``pass``, ``client_secret``; not ``access_key_id``, ``key_file``)."""
    return secret_key(given.group("name"))


#: netlify's ``env:set`` options before the name (``--context production``, ``--secret``: review56c), each read once:
#: those that take a value with one (``--context``, ``--scope``, ``--filter``, ``--site``, ``--auth``: review57e F7),
#: any other alone.
_NETLIFY_OPTIONS = (
    r"(?>(?:[ \t]+(?>(?:-c|--context|-s|--scope|--filter|--site|--auth)(?:=[^\s|;&<>]*|[ \t]+[^\s|;&<>-][^\s|;&<>]*)"
    r"|--?[\w-]+(?:=[^\s|;&<>]*)?))*)"
)
#: rclone's options, each read once: its global options that take a value with it (``--config x.conf``: its file no
#: remote, review57e F8), any other alone (``-vv``, ``--non-interactive``). Eight at most, as aws's: a value may be the
#: word ``rclone`` itself, and each ``rclone`` of ``rclone --config rclone --config …`` read the options to the line's
#: end (review58b F2: 1 MB, 206 s). An atomic group, not a possessive repeat (``*+``) of a group: CPython before
#: 3.11.5 does not give back an iteration that read the blank and failed at ``config`` (gh-106052), and the row never
#: matched there (review58b F1: Debian 12's 3.11.2 kept every rclone secret).
_RCLONE_OPTIONS = (
    r"(?>(?:[ \t]+(?>--(?:config|log-file|log-level|cache-dir|password-command|user-agent|retries|timeout|contimeout)"
    r"[ \t]+[^\s|;&<>-][^\s|;&<>]*+|-[^\s|;&<>]*+)){0,8})"
)
#: One of rclone's words after ``config create``/``update``/``password`` (the remote's name, its type), past its
#: options (``rclone config create --non-interactive r s3 …``).
_RCLONE_WORD = rf"{_RCLONE_OPTIONS}[ \t]+[^\s|;&<>-][^\s|;&<>]*+"
#: The stores' commands given ``NAME=VALUE`` pairs (``_each_pair``): the needles, the command, a pair up to its
#: value (``_NOT_REDACTED``, ``_OPTION_VALUE``) at a word's start, and which pairs hold a secret (None: each).
_STORED_PAIRS: tuple[tuple[tuple[str, ...], str, str, Callable[[re.Match[str]], bool] | None], ...] = (
    # ``doppler secrets set NAME VALUE`` and ``NAME=VALUE …``. Doppler's names are in capitals, so an option's value
    # (``--project backend``) is no name.
    (("doppler",), r"doppler(?![\w.-])[ \t]+secrets[ \t]+set(?![\w-])", r"[A-Z_][A-Z0-9_]*(?:=|[ \t]+)", None),
    # Fly's and Supabase's ``secrets set NAME=VALUE …``.
    (
        ("secrets set",),
        r"(?:fly|flyctl|supabase)(?:\.exe)?(?![\w.-])[ \t]+secrets[ \t]+set(?![\w-])",
        r"[A-Za-z_][\w.]*=",
        None,
    ),
    # kubectl's ``create secret … --from-literal=NAME=VALUE`` (a ``configmap``'s stay).
    (
        ("from-literal",),
        rf"(?:kubectl|oc)(?:\.exe)?(?![\w.-]){_CONTINUED_LINES}[^\n|;&]{{0,80}}?[ \t]create[ \t]+secret(?![\w-])",
        r"--from-literal(?:=|[ \t]+)['\"]?[^\s='\"]+=",
        None,
    ),
    # A host's environment: ``heroku config:set NAME=VALUE …``, ``netlify env:set NAME VALUE`` (red56), after
    # netlify's options too (``_NETLIFY_OPTIONS``).
    (
        ("config:set",),
        r"heroku(?:\.cmd|\.exe)?(?![\w.-])[ \t]+config:set(?![\w-])",
        r"(?P<name>[A-Za-z_]\w*)=",
        _a_secrets_setting,
    ),
    (
        ("env:set",),
        rf"netlify(?:\.cmd|\.exe)?(?![\w.-])[ \t]+env:set(?![\w-]){_NETLIFY_OPTIONS}",
        r"(?P<name>[A-Za-z_]\w*)[ \t]+",
        _a_secrets_setting,
    ),
    # ``rclone config create NAME TYPE KEY VALUE …`` (``update NAME KEY VALUE``, ``password NAME KEY VALUE``; after
    # rclone's options too, ``rclone -vv config …``: review57e F9): a secret-named key's value. The
    # pattern takes only keys holding a secret's word, so a pair is found wherever it starts (red56), past the
    # remote's name and type (``_RCLONE_WORD``), no key: ``update mytoken token_url …`` read ``mytoken`` as one
    # (last56 F2). The noun is looked for ahead, and the key read once, possessive: a key read as
    # ``[\w-]*noun[\w-]*`` backtracked over one long word for each noun in it (``pass`` × N: quadratic, review56c F1).
    (
        ("rclone",),
        rf"rclone(?:\.exe)?(?![\w.-]){_RCLONE_OPTIONS}[ \t]+config[ \t]+"
        rf"(?:create(?![\w-]){_RCLONE_WORD}{_RCLONE_WORD}|(?:update|password)(?![\w-]){_RCLONE_WORD})",
        r"(?=[\w-]*?(?i:pass|secret|token|key))(?P<name>[\w-]++)[ \t]+",
        _a_secrets_name,
    ),
)
#: A command's rest, to its end: its line, and the lines a ``\\`` at their end continues (``fly secrets set \\``
#: then ``  DB=…``: review55e F2.3). Possessive: read once.
_COMMAND_REST = r"(?P<rest>(?>(?:[^\n|;&<>\\]++|\\\r?\n|\\)*))"
#: A vault password ``echo`` gives ansible through a process substitution (``--vault-password-file <(echo PW)``,
#: ``--vault-id dev@<(echo PW)``: red56; ``--vault-id <(echo PW)``, a source without its label: review56c F8), a word
#: or quoted, before its ``)``.
_VAULT_ECHOED = (
    r"--vault-(?:pass(?:word)?-file(?:=|[ \t]+)|id(?:=|[ \t]+)(?:[\w.-]*@)?)<\([ \t]*"
    + _ECHOED
    + _NOT_REDACTED
    + r"""(?:(?P<quote>['"])(?P<quoted>[^'"\n]+)(?P=quote)|(?P<bare>[^\s"'`$;&|)-][^\s"'`;&|)]*))[ \t]*\)"""
)
#: What expect's ``send`` answers a password's prompt with, on the prompt's line or the next (``expect "password:"
#: { send "PW\\r" }``: red56): a word in double quotes, with no Tcl ``$variable`` nor ``[command]``. Each prompt
#: reads a bounded reach on. The quotes and the ``\\r`` as a JSON string escapes them too, once or twice (``send
#: \\"PW\\\\r\\"``: review56c F4); the word holds no ``\\``, so it ends where they start. ``send`` starts a word, or a
#: line of a JSON string, after its escaped ``\\n`` (or ``\\t``), whose letter is a word's (review58b F4: an expect
#: script a tool call wrote kept its password); expect's own alias ``exp_send`` too (review58b F9).
_EXPECT_SENT = (
    r"(?i:assword|passphrase)(?:[^\n]{0,100}?|[^\n]{0,100}\r?\n[ \t]*)(?:(?<![\w-])|(?<=\\[nt]))(?:exp_)?send(?:[ \t]+--)?[ \t]+"
    r'\\{0,3}"(?P<value>[^"\s\\$\[]+)(?:\\{1,4}[rn])?\\{0,3}"'
)


def _expect_sent(match: re.Match[str]) -> str:
    """An ``_EXPECT_SENT`` match with its literal value redacted, when its ``send`` is the prompt's answer: the first
    after it. A ``send`` between them answered the prompt (``send "$pw\\r"``, a variable's), and the later one
    another (``expect "$ "; send "exit\\r"``, ``"yes/no" { send "yes\\r" }``: review57e F4)."""
    before = match.string[match.start() : match.start("value")]
    answered = before[: before.rindex("send")]
    if not _is_literal(match.group("value")) or _EXPECT_SEND.search(answered) is not None:
        return match.group(0)
    return _marked(match, "value", "[redacted:cli-credentials]")


#: pexpect's answer to a password's prompt, the Python an agent writes for expect's job (review58b F9):
#: ``child.expect("Password:")`` (a list of patterns, ``expect_exact`` too), then on its line or the next
#: ``child.sendline("PW")`` or ``.send("PW\\n")``, a literal in either quote, as a JSON string escapes them too. Each
#: prompt reads a bounded reach on, as ``_EXPECT_SENT``'s.
_PEXPECT_SENT = (
    r"\.expect(?:_exact)?\([^\n)]{0,80}?(?i:assword|passphrase)"
    r"(?:[^\n]{0,100}?|[^\n]{0,100}\r?\n[ \t]*[\w.]{0,40}?|[^\n]{0,100}?\\n[ \t]*[\w.]{0,40}?)"
    r"""\.send(?:line)?\([ \t]*[bru]?\\?(?P<q>['"])(?P<value>[^'"\s\\]+)(?:\\{1,4}[rn])?\\?(?P=q)[ \t]*\)"""
)


def _pexpect_sent(match: re.Match[str]) -> str:
    """A ``_PEXPECT_SENT`` match with its literal value redacted, when its ``send`` is the first after the prompt
    (one between them answered it: ``sendline(pw)``, a variable's)."""
    before = match.string[match.start() : match.start("value")]
    if not _is_literal(match.group("value")) or ".send" in before[: before.rindex(".send")]:
        return match.group(0)
    return _marked(match, "value", "[redacted:cli-credentials]")


#: A ``send`` command, as ``_EXPECT_SENT`` reads one: a word, then blanks before what it sends.
_EXPECT_SEND = Lazy(globals(), "_EXPECT_SEND", r"(?:(?<![\w-])|(?<=\\[nt]))(?:exp_)?send[ \t]")


#: The needles of the commands whose input may be data, no password (``_plainly_data``).
_FED_DATA_TOO = ("sudo", "vercel")
#: The rules of this block, in ``_CONTEXT_RULES``.
_FED_AND_STORED_RULES = (
    *(
        rule
        for needles, command in _FED_COMMANDS
        for rule in (
            Rule(
                "cli-credentials",
                _fed_piped(command),
                needles,
                replace=_piped_in_unless_data if needles[0] in _FED_DATA_TOO else _piped_in,
            ),
            Rule(
                "cli-credentials",
                _fed_here_string(command),
                needles,
                replace=_here_string_fed_unless_data if needles[0] in _FED_DATA_TOO else _here_string_fed,
                retry=True,
            ),
            *(
                Rule(
                    "cli-credentials",
                    heredoc,
                    needles,
                    replace=_heredoc_line_fed_unless_data if needles[0] in _FED_DATA_TOO else _heredoc_line_fed,
                    retry=True,
                )
                for heredoc in (_heredoc_fed(command), _heredoc_piped(rf"(?<![\w.-]){command}"))
            ),
        )
    ),
    Rule("cli-credentials", _fed_piped(_CHPASSWD), ("chpasswd",), replace=_chpasswd_piped),
    Rule("cli-credentials", _fed_piped(r"passwd(?![\w.-])"), ("passwd",), replace=_piped_twice),
    Rule("cli-credentials", _fed_here_string(_CHPASSWD), ("chpasswd",), replace=_chpasswd_here_string, retry=True),
    *(
        Rule("cli-credentials", heredoc, ("chpasswd",), replace=_heredoc_users_passwords, retry=True)
        for heredoc in (
            rf"(?<![\w.-]){_CHPASSWD}{_CHPASSWD_OPTIONS}{_HEREDOC_OPENS}{_HEREDOC_PAIRS}",
            _heredoc_piped(rf"(?<![\w.-]){_CHPASSWD}", _HEREDOC_PAIRS),
        )
    ),
    *(_argument_rule(needles, lead, replace, again=False) for needles, lead, replace in _STORED_SECRETS),
    Rule("cli-credentials", _SECRET_OBJECT, ("secretsmanager",), replace=_json_values),
    Rule(
        "cli-credentials",
        _VAULT_ECHOED,
        ("vault-pass", "vault-id"),
        replace=lambda m: _option_value(m, "cli-credentials"),
    ),
    Rule("cli-credentials", _EXPECT_SENT, ("send",), replace=_expect_sent),
    Rule("cli-credentials", _PEXPECT_SENT, ("send",), replace=_pexpect_sent),
    *(
        Rule(
            "secret",
            command + _COMMAND_REST,
            needles,
            replace=_each_pair(pair, check),
        )
        for needles, command, pair, check in _STORED_PAIRS
    ),
)


# --------------------------------------------------------------------------- passwords given to a login
#
# A password or a token given to a login command or a library's login call in a shape no rule above reads (trial57
# F1): Kerberos's ``kinit`` fed one, PsExec's ``-p``, ``vault login TOKEN``, npm's ``config set //host/:_authToken
# TOKEN``, Python's positional ``smtp.login('u', 'PW')`` and ``auth=('u', 'PW')``, Oracle's ``user/PW@db``, ``oc``/
# ``cf login -p``, ``influx -p``, SQL's ``ALTER ROLE … PASSWORD '…'`` and ``SET PASSWORD``, ``git config
# github.token``, ``snyk auth``, ``codecov -t``, ``netlify --auth``, firebase's ``functions:config:set x.key=…`` and
# prose's ``login: admin / PW``. ``redaction`` knows each needle (``KEYED_NEEDLES``, ``ARGUMENT_WORDS``,
# ``NEEDED_AROUND``).

_KINIT = r"kinit(?:\.exe)?(?![\w.-])"
#: An argument before a Python call's quoted password: a string or a name (``settings.USER``, ``os.environ["U"]``).
_PYTHON_FIRST = r"""(?:'[^'\n]{0,200}'|"[^"\n]{0,200}"|[A-Za-z_][\w.]{0,200}(?:\[[^\]\n]{0,60}\])?)"""
#: The quoted password after it, the call's or the tuple's last argument.
_PYTHON_PASSWORD = (
    rf"[ \t]*{_PYTHON_FIRST}[ \t]*,[ \t]*(?P<quote>['\"])(?P<value>(?:(?!(?P=quote))[^\n\\]){{1,200}})(?P=quote)"
    r"[ \t]*,?[ \t]*[)\]]"
)
#: The Python classes whose second argument is a password (requests', httpx's, aiohttp's): by name, as any name
#: ending in "auth" is also a role or a route's (``withAuth(Dashboard, 'admin')``, ``useAuth(config, "/login")``:
#: review57f F4), requests_ntlm's ``HttpNtlmAuth`` too, after any module's name or a few (``auth.HTTPBasicAuth``
#: after ``from requests import auth``: review58b F6); only a word's start is tried, so a long word is read once.
_AUTH_CLASSES = (
    r"(?<![\w.])(?:[A-Za-z_]\w*\.){0,3}"
    r"(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|HttpNtlmAuth|BasicAuth|DigestAuth)\("
)
#: Oracle's ``user/password`` (``@db`` after it, or a blank, a quote, the line's end): a user of letters, digits,
#: ``_``, ``$`` and ``#`` (``c##admin``), a password to its ``@`` or in double quotes (``app/"Pa ss"@db``).
_ORACLE_PAIR = (
    r"""['"]?(?P<user>[A-Za-z_][\w$#]*)/(?!\[redacted:)(?P<value>"[^"\n]{1,200}"|[^\s@/'"`;|&]+)(?=[@\s'"`;|&]|\Z)"""
)
#: The Oracle tools whose first word is ``user/password[@db]`` after their options (``sqlplus -s -L …``).
_ORACLE_TOOLS = r"(?:sqlplus|sqlcl|expdp|impdp|sqlldr|dgmgrl)(?:\.exe)?(?![\w.-])(?:[ \t]+-[A-Za-z]+){0,4}[ \t]+"
#: A key of git's config or firebase's (``github.token``, ``stripe.key``), up to the blank or ``=`` before its value.
_GIT_CONFIG = (
    r"git(?:\.exe)?[ \t]+config(?:[ \t]+(?:-(?:f|-file)[ \t]+\S+|--?[\w-]+(?:=\S*)?)){0,4}"
    r"[ \t]+(?P<name>[A-Za-z][\w-]*(?:\.\S+)?)[ \t]+"
)
#: "login: admin / PW", "the grafana login is admin/PW" (as ``_OTHER_SECRET`` reads "credentials: admin / PW"):
#: up to three words between "login" and its link, a user, a slash, and a value that is no path's next piece.
_LOGIN_PAIR = (
    r"(?i:login)(?:[ \t]+[^\s:=/]+){0,3}?(?:[ \t]+(?i:is|was)(?:[ \t]*:[ \t]*|[ \t]+)|[ \t]*:[ \t]*)"
    r"(?P<user>[\w.@+-]+)[ \t]*/[ \t]*(?![^\s/]*/)(?P<value>[^\s\"'`]+)"
)


def _vault_token(match: re.Match[str]) -> str:
    """``_argument`` of the token ``vault login`` is given (one that looks made: ``_argument``'s ``prose``), but an
    auth method's ``key=value`` (``username=me``): Vault's ``-method=userpass`` prompts for the password."""
    group = "quoted" if match.group("quoted") is not None else "bare"
    return match.group(0) if "=" in match.group(group) else _argument(match)


def _literal_value(kind: str) -> Replace:
    """A replace redacting a match's ``value`` group where it is a literal (``_is_literal``)."""

    def replace(match: re.Match[str]) -> str:
        if not _is_literal(match.group("value").strip("\"'")):
            return match.group(0)
        return _marked(match, "value", f"[redacted:{kind}]")

    return replace


def _made_literal_value(match: re.Match[str]) -> str:
    """``_literal_value`` of a ``.login(…)`` call's last argument where it looks made (``_looks_made``, a password's
    rules): any object's ``login`` method is no mail server's (``page.login(user, "Submit")``, a fixture's path:
    review57f F4)."""
    if not _looks_made(match.group("value"), password=True):
        return match.group(0)
    return _literal_value("secret")(match)


def _oracle_login(match: re.Match[str]) -> str:
    """An Oracle tool's ``user/password`` with its literal password redacted, when the tool's name is a command's
    word. ``sqlplus /nolog`` and ``sqlplus / as sysdba`` give no user, and stay."""
    if not _a_command_word(match.string, match.start()):
        return match.group(0)
    return _literal_value("cli-credentials")(match)


def _git_config_secret(match: re.Match[str]) -> str:
    """``_argument`` of the value ``git config`` sets, where its key names a secret (``github.token``,
    ``user.password``; not ``user.name``)."""
    if not _a_secret_setting(match.group("name")):
        return match.group(0)
    return _argument(match)


def _a_firebase_secret(given: re.Match[str]) -> bool:
    """Whether a ``functions:config:set`` pair's key names a secret (``_a_secret_setting``: ``stripe.key``)."""
    return _a_secret_setting(given.group("name"))


def _a_secret_setting(name: str) -> bool:
    """Whether a dotted setting's name names a secret: ``secret_key`` of it or of its last part, a last part that is
    a key (``stripe.key``, ``api_key``: ``secret_key`` leaves a bare "key" to its context), or one that ends with a
    password's or a token's name (git's ``sendemail.smtppass``, ``mysql.dbpass``). ``user.signingkey``,
    ``http.sslKey``, ``core.askpass`` (a program) and ``alias.bypass``, a word that ends in "pass", name no secret
    (review57f F5); a name the user made of words (``dbpass``, ``userpass``) does (review58b F8)."""
    last = name.rpartition(".")[2].lower()
    return (
        secret_key(name)
        or secret_key(last)
        or last == "key"
        or (last.endswith("pass") and not last.endswith(_WORDS_ENDING_IN_PASS))
        or last.endswith(("_key", "-key", "apikey", "passwd", "password", "token", "secret"))
    )


#: English words that end in "pass" and name no password (``core.askpass`` names a program, ``alias.bypass`` a
#: command): a setting's name ending in one names no secret (``_a_secret_setting``).
_WORDS_ENDING_IN_PASS = ("askpass", "bypass", "compass", "surpass", "overpass", "underpass", "trespass", "encompass")


def _login_pair(match: re.Match[str]) -> str:
    """A "login … admin / PW" match with its password redacted where it looks made (``_looks_made``) and "login" is a
    word of its own."""
    at = match.start()
    if at and match.string[at - 1].isalnum():
        return match.group(0)
    value = match.group("value").rstrip(_AFTER_A_VALUE)
    if not _looks_made(value, password=True):
        return match.group(0)
    start = match.start("value") - at
    whole = match.group(0)
    return f"{whole[:start]}[redacted:secret]{whole[start + len(value) :]}"


#: The rules of this block, in ``_CONTEXT_RULES``.
_LOGIN_RULES = (
    # Kerberos: ``echo PW | kinit me@REALM``, ``kinit me <<< PW``, a heredoc fed to it.
    Rule("cli-credentials", _fed_piped(_KINIT), ("kinit",), replace=_piped_in),
    Rule("cli-credentials", _fed_here_string(_KINIT), ("kinit",), replace=_here_string_fed, retry=True),
    *(
        Rule("cli-credentials", heredoc, ("kinit",), replace=_heredoc_line_fed, retry=True)
        for heredoc in (_heredoc_fed(_KINIT), _heredoc_piped(rf"(?<![\w.-]){_KINIT}"))
    ),
    # Sysinternals' ``PsExec \\host -u DOMAIN\me -p PW cmd`` (``PsExec64.exe``).
    _argument_rule(("psexec",), _option_of(r"(?i:psexec(?:64)?)(?:\.exe)?", "-p") + r"[ \t]+", _argument, again=False),
    # ``vault login TOKEN`` (any token; an ``s.`` one is ``_PASSWORD_ARGUMENTS``'), after its options.
    _argument_rule(
        ("vault",),
        r"vault(?:\.exe)?[ \t]+login(?:[ \t]+-[\w.-]+(?:=\S*)?){0,8}[ \t]+(?P<prose>)",
        _vault_token,
        again=False,
    ),
    # npm's (pnpm's, yarn's) ``config set //host/:_authToken TOKEN`` (``_password``, ``_auth``), its space form.
    _argument_rule(
        (":_auth", ":_password"),
        r"(?:npm|pnpm|yarn)(?:\.cmd|\.exe)?[ \t]+(?:config[ \t]+)?set[ \t]+['\"]?[^\s'\"]*:_(?:authToken|password|auth)"
        r"['\"]?[ \t]+",
        _argument,
        again=False,
    ),
    # Python's positional password: ``smtp.login('me', 'PW')`` (``ftplib``, ``imaplib``, ``poplib``), ``auth=('me',
    # 'PW')`` (requests, httpx; ``session.auth = …``, a dict's ``"auth": (…)``), ``HTTPBasicAuth('me', 'PW')``
    # (``BasicAuth``, ``DigestAuth``: aiohttp, httpx).
    Rule("secret", r"\.login\(" + _PYTHON_PASSWORD, ("login(",), replace=_made_literal_value),
    Rule("secret", _AUTH_CLASSES + _PYTHON_PASSWORD, ("auth(",), replace=_literal_value("secret")),
    Rule(
        "secret",
        r"auth\\?['\"]?[ \t]*[:=][ \t]*[(\[]" + _PYTHON_PASSWORD,
        ("auth",),
        replace=_literal_value("secret"),
    ),
    # Oracle's ``sqlplus system/PW@ORCL`` (``expdp``, ``impdp``, ``sqlldr``, ``dgmgrl``), their ``userid=…``, and
    # rman's ``target``, ``catalog`` and ``auxiliary`` (each of them: applied again).
    Rule(
        "cli-credentials",
        _ORACLE_TOOLS + _ORACLE_PAIR,
        ("sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl"),
        replace=_oracle_login,
        retry=True,
    ),  # fmt: skip
    Rule(
        "cli-credentials",
        _option_of(r"(?:expdp|impdp|sqlldr|exp|imp)(?:\.exe)?", r"(?i:userid)=") + _NOT_REDACTED + _ORACLE_PAIR,
        ("userid=",),
        replace=_oracle_login,
        retry=True,
    ),
    Rule(
        "cli-credentials",
        _option_of(r"rman(?:\.exe)?", r"(?i:target|catalog|auxiliary)")
        + r"(?:=|[ \t]+)"
        + _NOT_REDACTED
        + _ORACLE_PAIR,
        ("rman",),
        replace=_oracle_login,
        again=True,
        retry=True,
    ),
    # OpenShift's ``oc login … -p PW``, Cloud Foundry's ``cf login … -p PW``, InfluxDB's ``influx setup -p PW``.
    *(
        _argument_rule(needles, _option_of(tool, options) + r"(?:=|[ \t]+)", _argument, again=False)
        for needles, tool, options in (
            (("login",), r"oc(?:\.exe)?[ \t]+login", "-p|--password"),
            (("login",), r"cf[78]?(?:\.exe)?[ \t]+login", "-p"),
            (("influx",), r"influx(?:\.exe)?", "-p|--password|-password"),
        )
    ),
    # SQL: ``ALTER ROLE app [WITH] [LOGIN] PASSWORD '…'`` (``CREATE USER``; ``WITH PASSWORD`` alone is ``_SQL``'s),
    # MySQL's ``SET PASSWORD [FOR u] = PASSWORD('…')``.
    Rule(
        "secret",
        r"(?i:(?:alter|create)\s+(?:role|user)\s+(?:\"[^\"\n]{1,100}\"|[\w.@'`%-]{1,100})(?:\s+\w+){0,6}?"
        r"\s+(?:encrypted\s+)?password)\s+'(?P<value>[^'\n]+)'",
        ("password",),
        replace=_literal_value("secret"),
    ),
    Rule(
        "secret",
        r"(?i:set[ \t]+password)(?:[ \t]+(?i:for)[ \t]+[^\s=]{1,200})?[ \t]*=[ \t]*"
        r"(?:(?i:old_)?(?i:password)[ \t]*\([ \t]*)?'(?P<value>[^'\n]+)'",
        ("set password",),
        replace=_literal_value("secret"),
    ),
    # ``git config [--global] github.token PW`` (a key naming a secret), ``snyk auth TOKEN``, ``codecov -t TOKEN``,
    # ``netlify deploy --auth TOKEN``.
    _argument_rule(("git config",), _GIT_CONFIG, _git_config_secret, again=False),
    _argument_rule(("snyk",), r"snyk(?:\.cmd|\.exe)?[ \t]+auth[ \t]+(?P<prose>)", _argument, again=False),
    # ``wandb login KEY`` (its documented login; a 40-hex key, told apart by the command, not its shape: trial59 F3),
    # after its flags (``--relogin``, ``--host URL``).
    _argument_rule(
        ("wandb",),
        r"wandb(?:\.exe)?[ \t]+login(?:[ \t]+--(?:relogin|verify|cloud|host(?:=|[ \t]+)[^\s-]\S*)(?![\w-])){0,4}"
        r"[ \t]+(?P<prose>)",
        _argument,
        again=False,
    ),
    _argument_rule(
        ("codecov",), _option_of(r"codecov(?:cli)?(?:\.exe)?", "-t|--token") + r"(?:=|[ \t]+)", _argument, again=False
    ),
    _argument_rule(
        ("--auth",), _option_of(r"netlify(?:\.cmd|\.exe)?", "--auth") + r"(?:=|[ \t]+)", _argument, again=False
    ),
    # firebase's ``functions:config:set stripe.key=…`` (a key naming a secret; ``functions:secrets:set`` is fed).
    Rule(
        "secret",
        r"firebase(?:\.cmd|\.exe)?(?![\w.-])[ \t]+functions:config:set(?![\w-])" + _COMMAND_REST,
        ("functions:config:set",),
        replace=_each_pair(r"(?P<name>[\w.-]+)=", _a_firebase_secret),
    ),
    # Prose: "login: admin / PW", "the grafana login is admin/PW".
    Rule("secret", _LOGIN_PAIR, ("login",), replace=_login_pair),
)


#: A URL's password: an unencoded ``/`` in it is what a user with a base64-made one types (``openssl rand -base64``
#: puts one in a quarter of them, at its end too: trial60 F1), so it runs past a ``/`` to the last ``@`` before the
#: host, not past an ``@`` before a host with a dot or a port and a path (``tok@github.com/org/repo.git@v1.0``,
#: ``p@registry.npmjs.org/@scope/pkg``) or the ``://`` of the next URL (which bounds each URL's reading: linear
#: time). ``_url_userinfo_password`` turns down a port and its path (``https://host:8080/a/b@c``).
_URL_PASSWORD = r"(?:[^\s:@\"'<>]|:(?!//)|@(?!(?:[\w-]+\.)+[\w-]+(?::\d*)?[/?#]|[\w.-]+:\d+[/?#]))+"


_CONTEXT_RULES: tuple[Rule, ...] = (
    Rule(
        "url-credentials",
        # To the last ``@`` before the host (a password may hold one); the user may be empty (``redis://:pw@``) or a
        # token redacted already (``https://[redacted:aws-key]:pw@``), never the marker of a token given as the user
        # alone. ``_URL_PASSWORD`` reads a ``/`` in it too.
        r"://(?:\[redacted:[\w-]+\]|(?!\[redacted:)[^\s:/@\"'<>]*):(" + _URL_PASSWORD + r")(?=@[\w.-])",
        ("://",),
        group=1,
        check=_url_userinfo_password,
    ),
    Rule("url-credentials", r"://([A-Za-z0-9_-]{20,})(?=@[\w.-])", ("@",), group=1, check=_url_token),
    # curl's and HTTPie's ``user:password`` (``_USER_AND_PASSWORD``), before the rule of any command's ``-u``, which
    # reads a quoted one to its first blank.
    *(
        Rule(
            "cli-credentials",
            _option_of(*option) + _USER_AND_PASSWORD,
            needles,
            replace=replace,
            again=True,
            retry=True,
        )
        for needles, option, replace in (
            (("curl",), _CURL_USER, _argument),
            (("http", "xh"), _HTTPIE_AUTH, _httpie_argument),
        )
    ),
    # A curl config file's (``curl -K``) ``user = "deploy:…"`` line (``user deploy:…``, ``proxy-user``, ``--user``,
    # ``user: …``: ``_CONFIG_USER``): the line's first word, after blanks, or after what shows such a line
    # (``CONFIG_LINE_SHOWN``: a diff's ``+``, a list's ``-``, a grep hit's ``path:2:``: review54d F1). From a line's
    # start, not ``user`` anywhere: a value runs to a blank, so each line is read once (``user=user=…`` read from each
    # ``user`` took time quadratic in the line). Or after a quote, a backtick or an escaped line end
    # (``_CONFIG_LINE_INSIDE``: review54f F4), each read at once.
    Rule(
        "cli-credentials",
        rf"(?m:^)[ \t]*{CONFIG_LINE_SHOWN}?[ \t]*{_CONFIG_USER}{_USER_AND_PASSWORD}",
        ("user",),
        replace=lambda m: _config_user(m),
        again=True,
    ),
    Rule(
        "cli-credentials",
        rf"{_CONFIG_LINE_INSIDE}[ \t]*{_CONFIG_USER}"
        + _user_and_password(_BARE_USER_ON_ESCAPED_LINES, _BARE_PASSWORD_ON_ESCAPED_LINES),
        ("user",),
        replace=lambda m: _config_user(m),
    ),
    # HTTPie's bearer token (``_BEARER_TYPE``), its ``-a`` after ``-A bearer`` or before it, and xh's own ``--bearer
    # TOKEN``: asked of a text holding ``bearer`` alone (asked of every text holding ``http``, they were compiled for
    # any URL's).
    Rule(
        "cli-credentials",
        _option_of(
            _HTTPIE_PROGRAM,
            rf"{_BEARER_TYPE}['\"]?{_CONTINUED_LINES}[^\n|;&]{{0,200}}?\s(?:{_HTTPIE_AUTH[1]})|--bearer(?:=|[ \t]+)",
        )
        + _NOT_REDACTED
        + _OPTION_VALUE,
        ("bearer",),
        replace=_httpie_argument,
        retry=True,
    ),
    Rule(
        "cli-credentials",
        _option_of(*_HTTPIE_AUTH) + _NOT_REDACTED + _OPTION_VALUE + _BEARER_AFTER,
        ("bearer",),
        replace=_httpie_argument,
        retry=True,
    ),
    # curl's own (``curl --oauth2-bearer TOKEN``): a token shorter than the ``Bearer …`` rule's 16 was kept (red55).
    Rule(
        "cli-credentials",
        _option_of(_CURL_USER[0], r"--oauth2-bearer[ \t]+") + _NOT_REDACTED + _OPTION_VALUE,
        ("bearer",),
        replace=_argument,
        retry=True,
    ),
    Rule(
        "cli-credentials",
        r"-(?:u|-user)[ =][\"']?[\w.@-]+:([^\s\"'`$/][^\s\"'`]*)",  # (not ``-u redis://host:port``: a URL)
        ("-u",),
        group=1,
        check=_cli_password,
    ),
    *(
        _argument_rule(needles, lead, _argument, again=needles[0] in _SEVERAL_PASSWORDS)
        for needles, lead in _PASSWORD_ARGUMENTS
    ),
    Rule("cli-credentials", _HERE_STRING, _STDIN_NEEDLES, replace=lambda m: _option_value(m, "cli-credentials")),
    Rule("cli-credentials", _PIPED_IN, _STDIN_NEEDLES, replace=_piped_in),
    Rule("cli-credentials", _HEREDOC_FED, _STDIN_NEEDLES, group="value"),
    Rule("cli-credentials", _HEREDOC_PIPED, _STDIN_NEEDLES, group="value"),
    *_FED_AND_STORED_RULES,
    *_LOGIN_RULES,
    *(
        Rule(
            "cli-credentials",
            listed,
            (
                *("mysql", "mariadb", "docker", "podman", "buildah", "skopeo", "nerdctl", "oras", "sshpass", "redis-"),
                *("keytool", "htpasswd", "ldap", "sqlcmd", "rabbitmqctl", "mongo", "openssl", "ssh-keygen"),
                *("mosquitto_", "login", "-u", "curl"),
            ),
            replace=_listed_command,
        )
        for listed in _LISTED_COMMANDS
    ),
    Rule(
        # Redis's AUTH command (``AUTH pw``, ``AUTH user pw``): in redis-cli's arguments, after its options alone
        # (``redis-cli -h cache -n 2 AUTH pw``; prose, ``redis-cli needs auth before``, is no command), or typed at
        # its prompt (``127.0.0.1:6379> AUTH pw``, ``cache:6379[2]> auth pw``); the password is its last argument.
        "cli-credentials",
        r"(?:\bredis-cli(?:[ \t]+-[^\s|;&]*(?:[ \t]+[^\s|;&-][^\s|;&]*)?){0,16}[ \t]+|:\d+(?:\[\d+\])?>[ \t]*)"
        r"(?i:auth)[ \t]+(?:[\w.@-]+[ \t]+(?=[^\s&|;<>]))?" + _OPTION_VALUE,
        ("redis-cli", "> auth", ">auth"),
        replace=lambda m: _option_value(m, "cli-credentials"),
    ),
    Rule(
        # redis-cli's password from the environment (``REDISCLI_AUTH=pw redis-cli``, ``export REDISCLI_AUTH=pw``).
        "cli-credentials",
        r"(?i:rediscli_auth)" + _ENVIRONMENT_VALUE,
        ("rediscli_auth",),
        replace=lambda m: _option_value(m, "cli-credentials"),
    ),
    Rule(
        # sshpass's (``SSHPASS=pw sshpass -e ssh host``, as its manual has it), in capitals: the tool's name is said in
        # prose. (A rule of its own: a pattern that starts with its literal is skipped to as a substring search is.)
        "cli-credentials",
        r"SSHPASS(?<![\w-]SSHPASS)" + _ENVIRONMENT_VALUE,
        ("sshpass",),
        replace=lambda m: _option_value(m, "cli-credentials"),
    ),
    Rule(
        # A registry's ``auth``: base64 of ``user:password`` in Docker's or Podman's ``config.json``
        # (``"auth": "…"``) and npm's ``_auth=…``.
        "registry-auth",
        r"(?<![\w.-])_?auth\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
        ("auth",),
        group=1,
        check=_basic_credentials,
    ),
    # Yarn's ``npmAuthIdent`` (``.yarnrc.yml``, ``yarn config set npmAuthIdent …``, ``YARN_NPM_AUTH_IDENT=…``):
    # ``user:password``, or its base64, quoted or not (trial60 F4).
    Rule(
        "registry-auth",
        r"(?:(?:npmAuthIdent|YARN_NPM_AUTH_IDENT)\\?[\"']?[ \t]*[:=]|config[ \t]+set[ \t]+(?:-H[ \t]+)?npmAuthIdent[ \t])"
        r"[ \t]*\\?[\"']?([^\s\"'\\]+)",
        ("npmAuthIdent", "YARN_NPM_AUTH_IDENT"),
        group=1,
        check=lambda m: _is_literal(m.group(1)),
    ),
    # A Kubernetes Secret's ``data:``/``stringData:`` map, every value whatever its key (``_SecretData``), in YAML (a
    # line's key, then the rows indented deeper or blank) and JSON (``"data": {…}``, whose values are strings).
    Rule(
        "secret",
        r"(?m)^(?P<indent>[ \t]*)(?:- )?(?:stringData|data):[ \t]*\r?\n"
        r"(?P<rows>(?:(?P=indent)[ \t]+\S[^\n]*(?:\n|\Z)|[ \t]*\r?\n)+)"
        r"|\"(?:stringData|data)\"\s*:\s*\{(?P<pairs>[^{}]*)\}",
        ("kind: secret", '"kind": "secret"', '"kind":"secret"'),
        fresh=_SecretData,
    ),
    # A Kubernetes Secret's ``.dockerconfigjson``: that config, base64'd again.
    Rule(
        "registry-auth",
        r"\.dockerconfigjson[\"']?[ \t]*:[ \t]*[\"']?([A-Za-z0-9+/]{16,}={0,2})",
        (".dockerconfigjson",),
        group=1,
    ),
    Rule(
        # ``.netrc``'s ``login me password S3cret`` (on one line or several), in a text that names a ``machine`` (or
        # ``default``) before it, whatever tokens come between (git's test.netrc has ``multilinetoken …``).
        "secret",
        r"(?<![\w-])login[ \t]+\S+\s+(?:account[ \t]+\S+\s+)?password[ \t]+(?P<value>\"[^\"\n]+\"|\S+)"
        r"(?=[ \t]*(?:\r?\n|\Z)|\s+(?:machine|login|account|macdef|default|password|port)\b)",
        ("login",),
        group="value",
        check=lambda m: _netrc_password(m) and _after_a_machine(m),
    ),
    # Its tokens in any order after ``machine host`` (``password`` before ``login``, or no ``login``), and the
    # ``default`` entry's: two rules, each pattern starting with its word (the engine skips to it as a substring
    # search does), each tried on a text holding "password" ("machine" and "default" are in much output and code;
    # the gates ask for the two together, ``a_netrc_entry``).
    Rule("secret", rf"machine[ \t]+\S+{_NETRC_ENTRY}", ("password",), group="value", check=_netrc_password),
    Rule(
        "secret",
        rf"default(?=\s){_NETRC_ENTRY}",
        ("password",),
        group="value",
        check=lambda m: _netrc_password(m) and _starts_an_entry(m),
    ),
    Rule(
        # YAML's folded or literal scalar (``password: >-`` or ``|``, then its lines, indented) under a secret's key
        # (the key's noun is looked for by ``_block_scalar``; its header, up to three blanks or a tab after the colon,
        # is the needle: code holds ``|`` and ``->`` often, ``: |`` seldom).
        "secret",
        r":(?: {1,3}|\t)[>|][+-]?[1-9]?[ \t]*\r?\n(?P<body>(?:[ \t]+\S[^\n]*(?:\n|\Z))+)",
        (": |", ": >", ":  |", ":  >", ":   |", ":   >", ":\t|", ":\t>"),
        replace=lambda m: _block_scalar(m),
    ),
    # Vault's ``Key  Value`` table, its header and underline (the needle), then its rows to the first blank line.
    Rule(
        "secret",
        r"(?m)^[ \t]*Key[ \t]+Value[ \t]*\r?\n[ \t]*-{3}[ \t]+-{5}[ \t]*\r?\n(?P<rows>(?:[ \t]*\S[^\n]*(?:\n|\Z))*)",
        ("-----",),
        replace=_table_rows,
    ),
    # A Markdown table, or a text table between ``+---+`` borders: its rows, one after another (the needle: a row's
    # ``|``, asked for a noun right before it as an assignment's before its ``:``: ``redaction._a_noun_given_a_value``).
    Rule(
        "secret",
        r"(?m)^(?:[ \t]*(?:\|[^\n]*|\+[-=+]+\+[ \t]*\r?)(?:\n|\Z))+",
        ("|",),
        replace=_grid,
    ),
    Rule(
        # ``terraform output -json``: a value Terraform itself marks ``"sensitive": true``: a string, or an object, a
        # map or a list (nested eight deep: a type says object, then its fields, at each level), which becomes one string.
        "secret",
        rf"\"sensitive\"\s*:\s*true\s*,\s*\"type\"\s*:\s*(?:\"[^\"\n]*\"|{_nested(8)})\s*,\s*"
        rf"\"value\"\s*:\s*(?:\"(?P<value>(?:[^\"\\\n]|\\.)+)\"|(?P<nested>{_nested(8)}))",
        ('"sensitive"',),
        replace=lambda m: _sensitive(m),
    ),
    Rule(
        "secret",
        r"(?i:\bdefine)[ \t]*\(\s*(?P<q>['\"])(?P<key>\w+)(?P=q)\s*,\s*(?P<vq>['\"])"
        r"(?P<value>(?:\\.|(?!(?P=vq))[^\n\\])+)(?P=vq)",
        ("define",),
        replace=_defined,
    ),
    Rule(
        # A ``Cookie:`` or ``Set-Cookie:`` header: as ``curl -v`` prints it, ``-H "Cookie: …"``, a headers dict.
        "cookie",
        r"(?i:(?<![\w-])(?:set-)?cookie)\\?[\"']?[ \t]*:[ \t]*\\?[\"']?(?P<pairs>[^\n\r]*)",
        ("cookie",),
        replace=_cookie_values,
    ),
    Rule(
        # Cookies given to curl (``curl -b 'sid=…'``, ``--cookie "a=1; sid=…"``; ``-b cookies.txt`` names a file);
        # ``-b`` only in a curl command (``git checkout -b``, ``gh pr create -b``, ``rsync -b`` are no cookies).
        "cookie",
        r"-(?:b|-cookie)(?<![\w-]-b)(?<![\w-]--cookie)[ \t=]+['\"]?(?P<pairs>(?<=['\"])[^\n'\"]*|[^\s'\"]+)",
        ("-b", "--cookie"),
        fresh=_CurlCookies,
    ),
    Rule(
        # A Netscape ``cookies.txt`` line (curl's ``-c`` jar, a browser's export): seven fields split by tabs, the last
        # the value.
        "cookie",
        r"\t(?:TRUE|FALSE)\t[^\t\n]*\t(?:TRUE|FALSE)\t-?\d+\t[^\t\n]+\t(?P<value>[^\t\r\n]+)",
        ("E\t",),  # (the end of both TRUE and FALSE before a tab)
        group="value",
        check=lambda m: _generated(m.group("value")),
    ),
    Rule(
        # A Sentry DSN's key (``https://<key>@o123.ingest.sentry.io/…``): it lets anyone send events to the project.
        "url-credentials",
        r"://([A-Za-z0-9]{8,})@(?=[\w.-]*sentry)",
        ("sentry",),
        group=1,
    ),
    # (or a ``+``, a space as a query string writes it: ``authorization=Bearer+…``, review43d; a token after one holds
    # no ``+``, which a query writes ``%2B``: ``?q=Bearer+token+authentication+in+fastapi+2024`` is words, review44a M1)
    Rule(
        "bearer",
        r"(?:[Bb]earer|BEARER)(?:\s+|\+)((?<=\+)[A-Za-z0-9._~/-]{16,}=*|(?<!\+)[A-Za-z0-9._~+/-]{16,}=*)",
        ("bearer",),
        group=1,
        check=_header_value,
    ),
    Rule(
        "basic-auth",
        r"(?:[Bb]asic|BASIC)\s+([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
        ("basic",),
        group=1,
        check=_basic_credentials,
    ),
    Rule(
        "bearer",
        r"(?:[Aa]uthorization|AUTHORIZATION)[\"']?\s*:\s*[\"']?(?i:token|apikey|digest)\s+([^\s\"',;]{8,})",
        ("authorization",),
        group=1,
        check=_header_value,
    ),
)


# --------------------------------------------------------------------------- secret-named keys

#: The last word of a key that names a secret on its own.
_SECRET_WORDS = frozenset(
    [
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "secretkey",
        "accesskey",
        "privatekey",
        "authtoken",
        "accesstoken",
        "refreshtoken",
        "sessiontoken",
        "idtoken",
    ]
)
#: A password's shortest name: a key's last word (``pw: …``, ``PW = …``), but no word that makes a quoted value
#: a message (``_words_for_people``: ``"pw 1"`` is a passphrase).
_PW = "pw"
#: A last word ending in one of these names a secret too: a name glued to its tool's (``PGPASSWORD``, ``npmtoken``).
_GLUED_SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token")
#: ``…_key`` names a secret after one of these (``api_key``, ``secret_access_key``), not alone (``sort key``).
_KEY_QUALIFIERS = frozenset(
    [
        "api",
        "access",
        "secret",
        "private",
        "client",
        "account",
        "signing",
        "encryption",
        "master",
        "shared",
        "app",
        "auth",
        "license",
        "service",
        "subscription",
        "storage",
        "webhook",
        "session",
        "consumer",
        "deploy",
        "ssh",
        "gpg",
        "jwt",
        "hmac",
        "admin",
        "sas",
    ]
)
#: Keys that look secret but hold no secret: the shell's working directory.
_NOT_SECRET_KEYS = frozenset({"PWD", "OLDPWD"})
#: Unquoted values that are types, keywords or constants, not secrets (``password: str``, ``token=None``).
_NOT_VALUES = frozenset(
    [
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "str",
        "string",
        "bytes",
        "int",
        "bool",
        "boolean",
        "number",
        "any",
        "unknown",
        "object",
        "void",
        "never",
        "bigint",
        "symbol",
        "text",
        "varchar",
        "char",
        "optional",
        "required",
        "secretstr",
        "secretbytes",
        # What a document's label says of a value it does not give (``**Password:** empty``, ``Password: N/A``).
        "empty",
        "blank",
        "n/a",
        "tbd",
    ]
)
#: Where a line holding only ``KEY=value`` / ``key: value`` is configuration (``.env``, YAML, Dockerfile, shell).
_CONFIG_PREFIXES = frozenset({"", "-", "export", "set", "ENV", "ARG"})
_WORDS = Lazy(globals(), "_WORDS", r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_KEY_CHARS = Lazy(globals(), "_KEY_CHARS", r"[\w.-]*\Z")
_DOTTED_NAME = Lazy(globals(), "_DOTTED_NAME", r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+[!?]?")
_IDENTIFIER = Lazy(globals(), "_IDENTIFIER", r"[A-Za-z_]\w*")
_PATH = Lazy(globals(), "_PATH", r"(?:/|~/|\.\.?/)[\w./~-]*")
_SHORT_NUMBER = Lazy(globals(), "_SHORT_NUMBER", r"\d{1,7}")
_ENV_NAME = Lazy(globals(), "_ENV_NAME", r"[A-Z][A-Z0-9_]*")
#: A call, a subscript or a generic type in a code span (``os.getenv(name)``, ``config["db"]``,
#: ``Vec<String>``): a bracket inside a word is a password's (``Xy7#kq(9)Lm``, ``Tr0ub<4>dor&3``).
_CODE_SHAPE = Lazy(globals(), "_CODE_SHAPE", r"[\w.$]+(?:\(.*\)|\[.*\]|\{.*\}|<[\w ,.:]*>)")
#: A word made of others that says what a thing is, not what it holds: ``base64-encoded``, ``HS256-signed``,
#: ``x86_64-only``, ``k8s-managed``; in German and French too (``base64-kodiert``, ``AES-verschlüsselt``,
#: ``base64-encodé``), as the other languages' rule reads them.
_COMPOUND = Lazy(
    globals(), "_COMPOUND", r"(?:\w+-)+[a-zäöüßéè]*(?:ed|ing|only|based|like|safe|free|wide|style|iert|elt|é|ée|és|ées)"
)
#: A date or a time (ISO 8601: ``2024-01-05T10:00:00Z``).
_TIMESTAMP = Lazy(
    globals(), "_TIMESTAMP", r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?)?(?:Z|[+-]\d\d:?\d\d)?"
)

#: (``pw``: ``user: admin, pw: …``, ``PW = …``; Rails' ``SECRET_KEY_BASE``)
_NOUNS = r"(?:pass(?:word|wd|phrase|code)?|pwd?|secret|token|key(?:_base|_?id)?)"
#: A quoted literal, or one quoted inside a JSON string (``{\\"password\\": \\"…\\"}``, as logs and HTTP bodies print
#: it), or inside a JSON string inside another (``{\\\\\\"password\\\\\\": \\\\\\"…\\\\\\"}``).
_QUOTED = (
    r"""(?:[bBrRuU]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`)|(?:\\\\)?\\"[^"\\\s]+(?:\\\\)?\\")"""
)
#: A bare value's character: a backslash too, but not a JSON string's escaped line end or tab (escaped again too, JSON
#: in JSON), which ends the value
#: (``{"t":"Password: Xk9mPq2Lw\\nUser: admin"}`` ran on into ``User:`` and, ending in a colon, read as code); a
#: ``<`` too, but not a closing tag's ``</name>``, which ends it (``<code>SECRET_KEY=…</code>``; a password's ``</``
#: is its own, review61c F3).
_NOT_A_CLOSING_TAG = r"<(?!/[A-Za-z][\w:-]*>)"
#: An inline element's opening tag a value may stand in (``password=<b>…</b>``, ``--api-key=<code>…</code>``): the
#: value is what it wraps, the tags stay. Not before what no bare secret starts with (``_NO_SECRET_STARTS``) nor a
#: reference's sign: ``<code>{{token}}`` stays a placeholder, and ``<b>$Zx…`` is read with its tag, as before
#: (review62b F1, F2: read after the tag, a ``$`` made it a reference, and it was kept).
#: Its attributes (``<code class="secret">``) are read over, and up to three such tags in a row (``<b><i>…``): the
#: value is what the innermost wraps.
_INLINE_TAG_NAME = r"(?i:b|strong|i|em|code|kbd|samp|tt|mark|u|span|var)"
_TAG_ATTRIBUTES = r"""(?:[ \t]+[\w:.-]+(?:=(?:"[^"<>\n]*"|'[^'<>\n]*'|[\w.:-]+))?)*[ \t]*"""
_INLINE_TAG = rf"(?:<{_INLINE_TAG_NAME}{_TAG_ATTRIBUTES}>){{1,3}}(?![\s$%&(\[{{<@!#?])"
_AN_INLINE_TAG = rf"(?:{_INLINE_TAG})?"
_VALUE_CHAR = rf"""(?:[^\s"'`,;&)\]}}\\<]|{_NOT_A_CLOSING_TAG}|\\++(?![nrt]))"""
#: A bare value, on past ``,``/``;``/``&``/``'`` glued inside it (a ``.env`` password ``Tr0ub4dor&3x``, a Django key
#: ``…$w&q^r7t``): such a sign ends it only before a blank, the line's end, another sign or the next ``key=`` of a
#: query string or a connection string (``password=pw&user=bob``, ``Password=pw;Host=db``) or a call (``;init()``).
#: A ``)`` goes on too before a letter, a digit or a sign a Django key draws (``Zq8$Wx7!Vc6)Bn5(Ll3``, ``w6(y5)b0+n``:
#: trial59 F1), not before what follows a call's close in code (``.``, ``,``, ``:``, ``)``, ``->``, ``==``, a blank:
#: ``f(password=pw).x``).
#: Over-redacting a few characters of a shell line beats leaking a password's tail.
_BARE = rf"""{_VALUE_CHAR}+(?:(?:[,;&'](?![\w.-]*[=(])|\)+(?=[\w!@#$%^*(+~])){_VALUE_CHAR}+)*"""
#: Markdown around a label (``**Password:**``, ``**Password**:``, ``__password__:``, `` `password`: ``): what closes the
#: emphasis or the code span before the separator, and bold's close after it. Agents write credentials so.
_LABEL_CLOSE = r"(?:\*{1,2}|_{1,2}|`)?"
#: What closes a label's bold or emphasis after its colon (``**Password:**``, ``__Password:__``, ``*Password:*``,
#: ``***Password:***``), before a blank or a line's end.
_EMPHASIS_CLOSE = r"(?:\*{1,3}|_{1,2})"
#: A value in Markdown's bold or emphasis (``Password: **Xy7#kq9!Lm**``), a star alone inside it.
_EMPHASISED = r"\*{1,2}(?:[^\s*]|\*(?!\*))+?\*{1,2}(?!\*)"
#: The value on the next line (or the one after a blank line) as a Markdown list item, numbered or not, a quote, or
#: a fenced code block's first line (``password:\n- Xy7#kq9!Lm``, ``password:\n1. …``, ``password:\n> …``,
#: ``password:\n```\n…``), after a line's end or a JSON string's escaped one (``"password:\\n- …"``); or the next
#: line alone (``Password:\nXy7#kq9!Lm``, escaped too: ``_markdown_label`` asks it to look made and end its line).
_NEXT_LINE = r"(?:\r?\n|(?:\\+r)?\\+n)"
_LINE_ITEM = rf"(?:(?:[-*+>]|\d{{1,3}}[.)])[ \t]+|```[\w-]*[ \t]*{_NEXT_LINE}[ \t]*)"
_NEXT_LINE_ITEM = (
    rf"(?P<item>[ \t]*(?:{_NEXT_LINE}[ \t]*(?:{_NEXT_LINE}[ \t]*)?{_LINE_ITEM}"
    rf"|{_NEXT_LINE}(?:[ \t]*{_NEXT_LINE})?[ \t]*))?"
)
_ASSIGNMENT = Lazy(
    globals(),
    "_ASSIGNMENT",
    rf"(?i){_NOUNS}(?:_?\d{{1,3}})?(?P<kq>(?:\\\\)?\\?[\"']?)\]?(?P<label>{_LABEL_CLOSE})"
    rf"(?P<sep>[ \t\u00a0]*(?::[ \t]*[A-Za-z_&][\w\[\]., |&<>?]{{0,60}}?[ \t]*=(?![=~>])|:=|=>|=(?![=~>])|:(?![:/]))[ \t]*)"
    rf"(?P<bold>{_EMPHASIS_CLOSE}(?=\s|\\n)[ \t]*)?{_NEXT_LINE_ITEM}{_AN_INLINE_TAG}"
    rf"(?P<value>{_QUOTED}|{_EMPHASISED}|{_BARE})",
)
#: Where an assignment may be, found fast in the lowercased text: a noun right before a separator.
_NOUN_SEP = Lazy(
    globals(),
    "_NOUN_SEP",
    r"(?:pass(?:word|wd|phrase|code)?|pwd?|secret|token|key(?:_base|_?id)?)(?:_?\d{1,3})?(?P<kq>(?:\\\\)?\\?[\"']?)\]?"
    r"(?:\*{1,2}|_{1,2}|`)?[ \t\u00a0]*[:=]",
)
#: A flag named a secret (``--api-key=…``, ``--password …``): a ``--`` that starts a word, not one inside a word
#: (``x--password``, a run of dashes), so a run of ``[\w-]`` is read once from its start: read from each ``--`` in it
#: to the noun at its end, a line of ``--a--a…`` or of dashes took time quadratic in its length (red57: 20 KB of
#: dashes and a ``password=x``, 12 s).
#: A bare value stops at a closing tag, as ``_VALUE_CHAR``'s does (``<code>--api-key=…</code>``: review61c F5).
_FLAG = (
    rf"--(?<![\w-]--)(?i:[\w-]*?{_NOUNS})(?P<sep>=|[ \t]+)"
    rf"{_AN_INLINE_TAG}(?P<value>{_QUOTED}|(?:[^\s\"'`$<-]|{_NOT_A_CLOSING_TAG})(?:[^\s\"'`<]|{_NOT_A_CLOSING_TAG})*)"
)
#: (Its first letter is a class, not ``(?i:``: the engine then skips to an ``i`` or a ``w`` as a substring search
#: does, instead of trying the pattern at every place: a log's ``KeyError: 'password'`` paid for a whole scan. The
#: class holds what ``(?i)i`` matches, the dotted and dotless i too.)
_SQL = r"(?:[Ii\u0130\u0131](?i:dentified\s+by)|[Ww](?i:ith\s+(?:encrypted\s+)?password))\s+'([^'\n]+)'"
_XML = rf"<(?P<tag>(?i:[\w.-]*{_NOUNS}))>{_AN_INLINE_TAG}(?P<value>[^<\s]+)(?:</{_INLINE_TAG_NAME}>){{0,3}}</(?P=tag)>"
#: A setting whose name is given as a value, then its value: a .NET ``web.config``'s ``<add key="ApiKey"
#: value="…"/>``, Spring's and Ant's ``<property name="password" value="…"/>``, a JSON list of ``{"name":
#: "DB_PASSWORD", "value": "…"}`` (a container's environment; escaped inside a JSON string too, as ``aws ecs
#: register-task-definition --cli-input-json "{\\"name\\": …}"`` takes it), CloudFormation's ``{"ParameterKey":
#: "DBPassword", "ParameterValue": "…"}``, and that pair as YAML or a JavaScript object spells it (``name:
#: "DB_PASSWORD", value: "…"``); blanks around the sign, and up to four other quoted fields between the two
#: (``<add key="ApiKey" description="…" value="…"/>``). The name's word first, a class (the engine skips to its
#: letters: ``arameterKey`` is CloudFormation's); whether it is a word of its own is asked after (``_key_value``). A
#: name holding none of the nouns every secret's name holds (``secret_key``) fails the pattern: a config's hundreds
#: of settings call on no check.
_SETTING_NAME_WORD = r"[KkNnP](?i:ey|ame|arameterKey)"
_SETTING_VALUE_WORD = r"(?:Parameter)?(?i:value)"
_SETTING_SIGN = r"[ \t]*[=:][ \t]*"
_SETTING_NAME = r"(?P<name>(?=[\w.:-]{0,96}?(?i:pass|pw|secret|token|key))[\w.:-]{1,100})"
#: A quoted value, up to its closing quote (``\\"`` inside a JSON string's JSON, where ``\\\\\\"`` is an escaped quote
#: of the value's: ``(?P<json>…)`` marks that quote; one way to read each, so a run of backslashes is read in linear
#: time).
_SETTING_QUOTED = (
    r"(?P<q>(?P<json>\\)?\"|')(?!\[redacted:)"
    r"(?P<value>(?:(?(json)\\\\\\\"|(?!))|(?!(?P=q))(?:\\.|[^\n\\]))*)(?P=q)"
)
#: Another quoted field between the name and the value (``description="…"``, ``"type": "…"``), and what joins them;
#: not another setting's name (a list of settings one a line, the first without a value).
_SETTING_JOINT = r"\s*(?:,\s*)?(?:(?<=\n)[+-][ \t]*)?"
_SETTING_OTHERS = rf"(?:(?!(?P=kq)(?i:key|name|parameterkey)(?P=kq)[ \t]*[=:])(?P=kq)[\w.:-]+(?P=kq){_SETTING_SIGN}(?P=nq)[^\"'\\\n]{{0,200}}(?P=nq){_SETTING_JOINT}){{0,4}}?"
_KEY_VALUE = (
    rf"{_SETTING_NAME_WORD}(?P<kq>\\\"|[\"']|){_SETTING_SIGN}(?P<nq>\\\"|[\"']){_SETTING_NAME}(?P=nq){_SETTING_JOINT}"
    rf"{_SETTING_OTHERS}(?P=kq){_SETTING_VALUE_WORD}(?P=kq){_SETTING_SIGN}{_SETTING_QUOTED}"
)
#: The same, its value given first (``<add value="…" key="ApiKey"/>``, ``{"value": "…", "name": "DB_PASSWORD"}``), on
#: one line: a list of settings one a line (``name: "Theme", value: "dark"`` then ``Key: "ApiKey", …``) is no such
#: pair across its lines.
_VALUE_KEY_JOINT = r"[ \t]*(?:,[ \t]*)?"
_VALUE_KEY = (
    rf"[VvP](?i:alue|arameterValue)(?P<kq>\\\"|[\"']|){_SETTING_SIGN}{_SETTING_QUOTED}{_VALUE_KEY_JOINT}"
    rf"(?:(?P=kq)[\w.:-]+(?P=kq){_SETTING_SIGN}(?P=q)[^\"'\\\n]{{0,200}}(?P=q){_VALUE_KEY_JOINT}){{0,4}}?"
    rf"(?P=kq){_SETTING_NAME_WORD}(?P=kq){_SETTING_SIGN}(?P<nq>(?P=q)){_SETTING_NAME}(?P=nq)"
)
#: What a view of a file puts before each of its lines: a unified diff's ``+``/``-`` (its `` `` is a blank), a line's
#: number (``  3|``, ``  3 |``, ``L3:``, ``3→``, ``cat -n``'s ``   3\t``), a quote's ``>``.
_LINE_GUTTER = r"[+-]|[ \t]*L?\d{1,7}[ \t]?(?:[|:\t]|\u2192)|>(?:[ \t]?>)*"
_GUTTER = Lazy(globals(), "_GUTTER", _LINE_GUTTER)
#: The same as two YAML keys, on a line each (a Kubernetes container's ``- name: DB_PASSWORD`` then ``value: …``,
#: CloudFormation's ``- ParameterKey: DBPassword`` then ``ParameterValue: …``), quoted or not; ``valueFrom:`` gives
#: none. An unquoted value is one word that ends its line (a comment may follow it; a ``#`` glued to what follows it
#: starts a value, a Django key's ``#7wkp…``). It starts at the colon after the
#: name's word (``_key_value_lines``; a gutter before the value's line is one like the name's line's:
#: ``_same_gutter``): the engine skips to each colon, not to each ``n`` and ``k`` (a seventh of the
#: time on code); looked for where that word, its colon and a blank are: a value's ``value: `` is in errors too
#: (Rust's ``borrow of moved value: `x```).
_KEY_VALUE_LINES = (
    r":(?:(?<=[Nn]ame:)|(?<=[Kk]ey:)) [ \t]*(?P<nq>[\"']?)" + _SETTING_NAME + r"(?P=nq)[ \t]*\r?\n"
    rf"(?:-[ \t]*{_SETTING_VALUE_WORD}:[^\n]*\n)?(?P<gutter>{_LINE_GUTTER})?[ \t]*"
    rf"{_SETTING_VALUE_WORD}:[ \t]+(?![\"']?\[redacted:)"
    r"(?P<q>[\"'])?(?P<value>(?(q)(?:(?!(?P=q))[^\n\\]|\\.)*|(?:[^\s\"'#|>]|#(?=[^\s#]))[^\s]*))(?(q)(?P=q))[ \t]*"
    r"(?:#[^\n]*)?(?=\r?\n|\Z)"
)
#: The words ``_KEY_VALUE_LINES`` finds before its colon, the longest first.
_LINE_NAME_WORDS = ("parameterkey", "name", "key")
#: What a setting's value word holds, with the sign or the quote after it (``_KEY_VALUE``, ``_VALUE_KEY``).
_SETTING_NEEDLES = (
    *("value=", 'value"', "value'", 'value\\"', 'value = "', "value = '"),
    *('value: "', "value: '", 'value:"', "value:'"),
)
#: The AWS command line's shorthand for the same pair, unquoted (``--parameters
#: ParameterKey=DbPassword,ParameterValue=…``, ``Name=DB_PASSWORD,Value=…``), up to two other fields between
#: (``UsePreviousValue=false``); its needle is its value's word, with its capital, as the shorthand writes it.
_SHORTHAND = (
    rf"(?:ParameterKey|Name|Key)={_SETTING_NAME},(?:[A-Za-z]+=[^\s,=]*,){{0,2}}?(?:ParameterValue|Value)="
    r"(?P<q>['\"])?(?P<value>(?(q)[^'\"\n]+|[^\s,'\"]+))(?(q)(?P=q))"
)
#: The same with the value first (``ParameterValue=…,ParameterKey=DbPassword``: the shorthand's fields are in any
#: order), its name ending the pair. (A ``=`` inside the value, ``Pa=ss``, up to eight times, and base64's padding at
#: its end: each ``Value=`` of a long line of them reads nine of them on at most, so the line is read in linear time.)
_SHORTHAND_VALUE_FIRST = (
    r"(?:ParameterValue|Value)=(?P<q>['\"])?"
    r"(?P<value>(?(q)[^'\"\n]+|[^\s,'\"=]++(?>(?:=++[^\s,'\"=]++){0,8})=*+))(?(q)(?P=q)),"
    rf"(?:[A-Za-z]+=[^\s,=]*,){{0,2}}?(?:ParameterKey|Name|Key)={_SETTING_NAME}(?![\w.:-])"
)
#: The pair with its name unquoted and its value quoted, side by side (YAML's flow ``{name: DB_PASSWORD, value:
#: "…"}``, a JavaScript object's ``{ key: API_TOKEN, value: '…' }``); an unquoted value there may be a variable's
#: name. The name in capitals, an environment variable's: a JavaScript object's other unquoted name is a variable
#: (``{ name: apiKey, value: "x-api-key" }``, ``{name: password, value: "user.password"}``: review46d M2).
#: The pair's name, quoted too (``{name: "DB_PASSWORD", value: S3cret}``), blanks before its comma (red48 low).
_FLOW_NAME = (
    r"(?:[Nn]ame|[Kk]ey):[ \t]*(?P<nq>[\"']?)"
    r"(?P<name>(?=[A-Z0-9_]{0,96}?(?:PASS|PW|SECRET|TOKEN|KEY))[A-Z][A-Z0-9_]{0,99})(?P=nq)[ \t]*"
)
_FLOW_KEY_VALUE = rf"{_FLOW_NAME},[ \t]*[Vv]alue:[ \t]*{_SETTING_QUOTED}"
#: The same with its value unquoted (``{name: DB_PASSWORD, value: S3cret}``, a Kubernetes ``env:`` in YAML's flow),
#: up to the pair's ``,`` or ``}``: a value that looks made (``_flow_bare_value``), where a JavaScript object's may be
#: a variable (``value: dbPassword``, ``value: config.db.password``). The rule's match starts at the ``alue:`` of the
#: value's word (``_FLOW_BARE_VALUE``: the engine skips to it as a substring search does, where from the colon after
#: the name it was tried at every colon of a YAML or a Python text), and the pair's name is looked for before it
#: (``_FLOW_NAME_BEFORE``); the ``q`` group never matches (``_setting`` reads an unquoted value).
_FLOW_BARE_NAME = f"{_FLOW_NAME},"
_FLOW_BARE_WORD = r"alue:[ \t]*(?P<q>(?!))?(?P<value>[^\s,{}\[\]()'\"`]++)[ \t]*"
_FLOW_BARE_VALUE = _FLOW_BARE_WORD + r"(?=[,}])"
#: The same with the value first (``{value: S3cret, name: DB_PASSWORD}``), the name after it (red48 low).
_FLOW_VALUE_FIRST = rf"{_FLOW_BARE_WORD},[ \t]*{_FLOW_NAME}(?=[,}}])"
_FLOW_NAME_BEFORE = Lazy(globals(), "_FLOW_NAME_BEFORE", _FLOW_BARE_NAME + r"[ \t]*[Vv]\Z")
_FLOW_BARE_PAIR = Lazy(globals(), "_FLOW_BARE_PAIR", _FLOW_BARE_NAME + r"[ \t]*[Vv]" + _FLOW_BARE_VALUE)
#: How far before a value's word its pair's name is looked for: the longest name, its word, blanks.
_FLOW_NAME_REACH = 128
#: A value a shell comment gives after the secret-named word a command sets (``wrangler secret put API_KEY # then
#: typed: T…``, ``gh secret set TOKEN  # value: …``: trial48 F9), or after a secret-named key (``password = …  #
#: fallback: Hunter2Pass9``, ``secret  # was: P4ssw0rdXy``: review49e M2): the value after the comment's first ``:`` or
#: ``=``, one that looks made (``_commented``), unless the word before that ``:`` or ``=`` labels something else
#: (``_HARMLESS_LABEL``: ``token = None  # type: ignore``, ``MAX_KEY  # default: 4096``, ``auth_token  # ticket:
#: JIRA-4821``, ``password  # hash: bcrypt2b12``: review49a M2). The label is read in the pattern, not by
#: ``_commented``: a comment so labelled fails at its ``#`` in the engine, with no callback (review49a L1).
_HARMLESS_LABEL = (
    r"[^\n:=#]{0,60}?(?<![^\W_])(?i:ticket|issue|bug|pr|jira|hash|hashed|algorithm|algo|cipher|format|shape|pattern"
    r"|regex|prefix|type|kind|default|see|ref|docs?|url|link|todo|fixme|note|nb|example|e\.g|eg|id|length|size|version"
    r"|noqa|nosec|pylint|pragma|mypy|ruff)s?[ \t]*[:=]"
)
_COMMENTED = rf"#(?!{_HARMLESS_LABEL})[^\n:=#]{{0,60}}?[:=][ \t]*(?P<value>[^\s'\"`]*[^\s'\"`.,;:)])"
_DOCKER_ENV = rf"(?m)^[ \t]*ENV[ \t]+(?P<key>(?i:[\w.-]*{_NOUNS}))[ \t]+(?P<value>[^\s=$][^\s]*)[ \t]*$"


def _key_words(key: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(key)]


def secret_key(key: str) -> bool:
    """Whether a key (``API_KEY``, ``SecretAccessKey``, ``db.password``) names a secret value.

    Kept for a few thousand keys (``Remembered``):
    a build asks it of every string in every tool call's arguments, under the same few keys (``command``, ``path``,
    ``contents``), and it depends on the key alone.
    """
    return bool(_SECRET_KEYS(key))


#: How many keys ``secret_key`` remembers before it starts again.
KEYS_REMEMBERED = 4096


def _names_a_secret(key: str) -> bool:
    words = _key_words(key)
    while words and words[-1].isdigit():  # a numbered one (``DB_PASSWORD_2``, ``API_KEY1``)
        words.pop()
    if not words or key in _NOT_SECRET_KEYS:
        return False
    if words[-1] in _SECRET_WORDS or words[-1] == _PW or words[-1].endswith(_GLUED_SECRET_WORDS):
        return True
    if words[-2:] == ["key", "base"] and "secret" in words:  # Rails' ``SECRET_KEY_BASE``
        return True
    if words[-3:] == ["private", "key", "id"]:  # a service account's JSON key file (trial48 F9)
        return True
    return words[-1] == "key" and len(words) > 1 and words[-2] in _KEY_QUALIFIERS


_SECRET_KEYS = Remembered(_names_a_secret, KEYS_REMEMBERED)


def _unquote(value: str) -> tuple[str, str, str]:
    """``value`` split into (opening, contents, closing): a quoted literal's prefix and quotes, or nothing."""
    for escaped in ('\\\\\\"', '\\"'):  # (JSON in a JSON string, JSON in that)
        if len(value) >= 2 * len(escaped) and value.startswith(escaped) and value.endswith(escaped):
            return escaped, value[len(escaped) : -len(escaped)], escaped
    stripped = value.lstrip("bBrRuU")
    if stripped[:1] in ('"', "'", "`") and len(stripped) >= 2 and stripped[-1] == stripped[0]:
        return value[: len(value) - len(stripped) + 1], stripped[1:-1], stripped[-1]
    return "", value, ""


def _plain_value(value: str, key: str) -> bool:
    """Not a keyword (a sentence's full stop aside: ``**Password:** Required.``), a reference, a path, the key's own
    name or a small number."""
    return (
        value.lower().rstrip(".") not in _NOT_VALUES
        and _is_literal(value)
        and not _PATH.fullmatch(value)
        and not _SHORT_NUMBER.fullmatch(value)
        and not _named_after(value, key)
    )


def _named_after(value: str, key: str) -> bool:
    """A name built on the key's own (``token: Token``, ``api_key: ApiKey``, ``secret: SecretKey``): a type, not a
    value. Compared word by word, so a password that merely holds a short word is no name."""
    words = _key_words(key.rsplit(".", 1)[-1])
    own = _key_words(value)
    if not words or not own or not _IDENTIFIER.fullmatch(value) or any(c.isdigit() for c in value):
        return False
    # A type's name is capitalised and holds the key's word (``token: AccessToken``, ``password: PasswordHash``); a
    # password holding the word has a digit or a sign (``password123``, ``AdminPassword99``) or starts small.
    type_name = value[:1].isupper() and value.isalpha() and words[-1] in own
    return own == words or "".join(own) == "".join(words) or type_name


def _command_environment(text: str, begin: int, key: str, sep: str, end: int) -> bool:
    """``PGPASSWORD=CorrectHorse psql …``: a shell variable given a value on a command line, a value whatever its
    case: at a command's start, after ``time``/``nohup``/``env``/``sudo``, as ``docker run -e``'s or
    ``heroku config:set``'s argument, or ``--from-literal=``'s.

    A capitalised name glued to its value by ``=`` as a word of its own, the value then ending the line, a word, or
    a command (``;``, ``&``, ``|``, ``)``): code assigns with spaces (``token = access_token``) and names its
    variables in small letters.
    """
    if sep != "=" or not _ENV_NAME.fullmatch(key) or text[end : end + 1] not in _AFTER_A_COMMAND_WORD:
        return False
    return begin == 0 or text[begin - 1] in _BEFORE_A_COMMAND_WORD


#: What may follow a shell word, and precede one (``=`` too: ``--from-literal=DB_PASSWORD=…``).
_AFTER_A_COMMAND_WORD = frozenset(["", " ", "\t", "\n", "\r", ";", "&", "|", ")"])
_BEFORE_A_COMMAND_WORD = frozenset(" \t\n;&|(=")


def _bare_literal(value: str, key: str, config_line: bool) -> bool:
    """An unquoted value that is a literal secret, not code (a call, a type, a variable, an env lookup)."""
    if not _plain_value(value, key) or value[-1] == ":" or "::" in value or "->" in value:
        return False
    if value[0] in "([{<@&*!#?:" or any(c in value for c in "()[]{}<>"):
        # (not one holding a marker an earlier rule put in for a later key's value glued on: a second scrub then
        # redacted what the first kept, tests/test_escapes.py's property)
        return "[redacted:" not in value and _BRACKETED_CODE.fullmatch(value) is None and _A_CALL_CUT_SHORT.fullmatch(value) is None  # fmt: skip
    if _DOTTED_NAME.fullmatch(value):
        # An attribute (``token = self.token``, ``password=settings.DB_PASSWORD``), unless a part of it is generated
        # (``abc.defGHI123456789xyz``) or a configuration line gives it and it names no object or secret
        # (``DB_PASSWORD=correct.horse.battery.staple``).
        parts = value.rstrip("!?").split(".")
        if any(len(part) >= 12 and _mixed(part) for part in parts):
            return True
        return config_line and not _names_a_variable(parts)
    if _IDENTIFIER.fullmatch(value):
        # A bare name is a variable in code (``token = access_token``) unless it holds a digit or is the value of
        # a configuration line (``DB_PASSWORD=postgres``, ``password: CorrectHorseBatteryStaple``); a type named
        # after the key (``token: Token``) or a known one (``SecretStr``) is no value (``_plain_value``).
        return config_line or any(c.isdigit() for c in value)
    return True


#: A bare value with a bracket or a leading sign that is code (``_bare_literal``), what else such a value holds being a
#: password's or a Django key's signs (``Xy7#kq(9)Lm``, ``w6(y5)b0+n``, ``(Lrv8Kq2)x``, ``*w6(y5)b0+n``: trial59
#: F1): a name and a bracketed part that ends the value (a call, a subscript, a generic: ``getpass()``,
#: ``config[db]``, ``Vec<String>``), or one cut at its close or a blank (``get_pw(x`` of ``get_pw(x).strip()``,
#: ``env(NAME,`` of ``env(NAME, default=x)``), or a name its closing brackets end (help text's ``PASSWORD]`` of
#: ``[--password PASSWORD]``), after signs (``*args``, ``&pw``, ``@Value``, ``!secret``); or a bracket opening a name
#: (``(yield``, ``[a`` of ``[a, b]``). A name may follow a slice's or an array's type (Go's ``[]byte(cfg.Secret)``).
_BRACKETED_CODE = Lazy(
    globals(),
    "_BRACKETED_CODE",
    r"[@&*!#?:]*+(?:(?:\[\w*\])*[\w.$]++(?:\(.*\)|\[.*\]|\{.*\}|<[\w ,.:]*>|[(\[][\w.$,:=-]*+)?|[\w.$]*+[)\]}>]++"
    r"|[(\[{<][\w.$]*+[)\]}>]?)",
)
#: A call or a subscript an assignment's value stops inside, at a quote or a close the value cannot hold
#: (``hash_password(data[`` of ``hash_password(data["password"])``): code, where no secret variable's word is read
#: (``_SECRET_VARIABLE``, which runs to a blank).
_A_CALL_CUT_SHORT = Lazy(globals(), "_A_CALL_CUT_SHORT", r"[\w.$]++[(\[{][^)\]}]*+")


#: What a dotted name in code starts with: an object holding settings or the environment (``settings.DB_PASSWORD``).
_OBJECTS = frozenset(
    ["self", "this", "cls", "settings", "config", "conf", "cfg", "os", "process", "env", "app", "ctx", "request"]
    + ["secrets", "vars", "options", "opts", "args", "params", "credentials", "creds", "props", "state", "window"]
)


def _names_a_variable(parts: list[str]) -> bool:
    """A dotted name that reads as code: it starts with an object's usual name or ends with a secret's or an
    environment variable's (``self.token``, ``config.db.password``, ``settings.DB_PASSWORD``)."""
    last = parts[-1]
    return parts[0] in _OBJECTS or secret_key(last) or (_ENV_NAME.fullmatch(last) is not None and len(last) > 1)


#: A quoted value that is one inline element (``"<code>…</code>"``), read as what it wraps.
_WRAPPED_IN_A_TAG = Lazy(
    globals(),
    "_WRAPPED_IN_A_TAG",
    rf"[ \t]*<(?P<tag>{_INLINE_TAG_NAME}){_TAG_ATTRIBUTES}>(?P<inner>[^<]*)</(?P=tag)>[ \t]*\Z",
)


def _quoted_secret(contents: str, key: str) -> bool:
    """A quoted literal that is a secret: not empty, a placeholder, a path, or words for people ("Forgot password?").

    A value with blanks is a passphrase (``password = "correct horse battery staple"``) unless it reads as words for
    people (``_words_for_people``); under a key naming a passphrase it is one whatever it reads as."""
    contents = _unwrapped(contents)
    value = contents.strip()
    if _a_signed_word(value):
        return True
    if not _plain_value(value, key):
        return False
    if not any(c.isspace() for c in contents) or _key_words(key)[-1] == "passphrase":
        return True
    return not _words_for_people(value)


def _unwrapped(contents: str) -> str:
    """What a quoted value that is one inline element wraps (``"<b>…</b>"``: review62b F3), else the value."""
    wrapped = _WRAPPED_IN_A_TAG.match(contents)
    return contents if wrapped is None else wrapped.group("inner")


#: How a sentence ends: a quoted value ending so is a message (``"Invalid token."``), not a passphrase, unless a word
#: of it mixes letters and digits (``"My R00t Pw!"``: trial60 F3; ``"Must be 8 characters."`` is a message).
_SENTENCE_ENDS = (".", "?", "!", ":", "…")


def _a_made_word(word: str) -> bool:
    """Whether ``word`` mixes letters and digits (``R00t``), as a passphrase's words and a token do and a message's
    words do not."""
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def _words_for_people(value: str) -> bool:
    """A value with blanks that is a message or a label, not a passphrase: a sentence (``"Forgot password?"``), a
    label in sentence case (letters only, the first word alone capitalised: ``"Mot de passe"``), or words that name
    a secret (``"Reset Password"``, ``"no api key set"``). A passphrase in small letters or in capitalised words,
    or holding a digit or a sign, is none of them."""
    words = value.split()
    label = value[0].isupper() and all(w.isalpha() and w[0].islower() for w in words[1:]) and words[0].isalpha()
    if label or (value.endswith(_SENTENCE_ENDS) and not any(_a_made_word(word) for word in words)):
        return True
    return any(word in _SECRET_WORDS or word == "key" for word in _key_words(value))


def _key_before(text: str, start: int) -> tuple[str, int]:
    """The key that ends at ``start`` and where it begins."""
    head = _KEY_CHARS.search(text, max(0, start - 80), start)
    begin = head.start() if head else start
    while begin < start and not (text[begin].isalpha() or text[begin] == "_"):
        begin += 1
    return text[begin:start], begin


#: What a "key" opens when prose names it with a blank (the sentence rule's words, ``redaction.KEY_QUALIFIERS``):
#: "SSH key: id_ed25519", "Encryption key: AES-256", "GPG key: 0xABCD1234" name a key, not give its value.
_SPACED_KEY_QUALIFIERS = frozenset(["api", "access", "secret", "private", "auth", "admin", "master"])
#: The longest of them, and the blank after it.
_QUALIFIER_REACH = len("private") + 1


def _spaced_key(text: str, key: str, begin: int) -> tuple[str, int]:
    """A "key" with the word that says what it opens one blank before it (``API key: …``, ``**Secret Key:** …``,
    ``api key = …``), as people label it in prose, and where it begins; else ``key`` and ``begin`` as they were.
    (Read at most ``_QUALIFIER_REACH`` characters back: a long line's keys stay linear.)"""
    if key.lower() != "key" or text[begin - 1 : begin] != " ":  # (``_SPACED_KEY_QUALIFIERS``: the words)
        return key, begin
    low = max(0, begin - 1 - _QUALIFIER_REACH)
    at = begin - 1
    while at > low and text[at - 1].isalpha():
        at -= 1
    word = text[at : begin - 1].lower()
    if (at and (text[at - 1].isalnum() or text[at - 1] == "_")) or word not in _SPACED_KEY_QUALIFIERS:
        return key, begin
    return f"{text[at:begin]}{key}", at


def _a_made_key(value: str) -> bool:
    """Whether a spaced key's value (``API key: …``, ``Secret key: …``: a label in prose) is one, not a name: an
    environment variable's (``OPENAI_API_KEY``), a file's (``config/master.key``), a version (``v2``), an algorithm's
    or a format's (``Ed25519``, ``RSA4096``, ``HS256``) or a name built on one (``ed25519-sk``, ``id_ed25519``)
    (review9 R6). A weak value goes as a strong one does (``API key: hunter22``: review10 R-D)."""
    if _a_scheme(value) or _A_KEYS_NAME.fullmatch(value) is not None:
        return False
    # A key type's or a key file's name: words and numbers around an algorithm's (``ed25519-sk``, ``id_ed25519``).
    parts = value.replace("-", "_").replace(".", "_").split("_")
    return not (
        len(parts) > 1
        and any(_a_scheme(part) for part in parts)
        and all(part.isalpha() or part.isdigit() or _a_scheme(part) for part in parts)
    )


#: What a spaced key's label names rather than gives: a variable's name in capitals (``OPENAI_API_KEY``), a version
#: (``v2``, ``v1.3``), a JWT algorithm (``HS256``), a file's path ending in a name with its extension (``config/master.key``, ``~/.ssh/id_rsa``).
_A_KEYS_NAME = Lazy(
    globals(),
    "_A_KEYS_NAME",
    r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[vV]\d{1,3}(?:\.\d{1,3}){0,2}|(?:HS|RS|ES|PS)(?:256|384|512)"
    r"|(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*|[\w.-]+(?:/[\w.-]+)*/[\w-]+\.[A-Za-z]{1,5}",
)


def _assignment(match: re.Match[str]) -> str:
    import re  # (loaded already: ``match`` is one of its)

    text, whole = match.string, match.group(0)
    key, named, begin = _assignment_key(text, match.start(), match.start("kq"))
    quote, value, sep = match.group("kq")[-1:], match.group("value"), match.group("sep")
    opening, contents, closing = _unquote(value)
    contents = _unwrapped(contents) if opening else contents
    if key != named and not _a_made_key(contents.strip("*")):  # a label in prose: "API key: OPENAI_API_KEY"
        return whole
    before = text[begin - 1] if begin > 0 else "\n"
    # A quoted key has the same quote on both sides; an unquoted one inside a string is not followed by
    # the string's closing quote ("Password: " + pw).
    if (quote and before != quote) or (not quote and before in "\"'" and opening) or not secret_key(key):
        return whole
    line_start, whole_line = _line_start(text, begin)
    if not _markdown_label(text[line_start:begin], text[line_start : match.start()], whole_line, match):
        return whole
    config_line = (
        text[match.end() : match.end() + 1] in ("", "\n", "\r")
        and whole_line
        and text[line_start:begin].strip(" \t*_`") in _CONFIG_PREFIXES
        and (sep == "=" or sep.strip() == ":")
    ) or _command_environment(text, begin, key, sep, match.end())
    annotation = re.match(r"[ \t]*[|=\[]", text[match.end() : match.end() + 8]) is not None  # ``key: A | B``
    if "r" in opening.lower():  # a raw string is a regular expression, not a password
        return whole
    if value[:1] == "*":  # Markdown's emphasis (``Password: **Xy7#kq9!Lm**``): its word is read as a bare one
        opening, closing = value[: len(value) - len(value.lstrip("*"))], value[len(value.rstrip("*")) :]
        contents = value[len(opening) : len(value) - len(closing)]
        secret = _bare_literal(contents, key, config_line)
    elif opening == "`":
        secret = _quoted_secret(contents, key) and not _code_in_a_span(contents.strip())
    elif opening:
        secret = _quoted_secret(contents, key)
    else:
        secret = not annotation and _bare_literal(value, key, config_line)
    if not secret:
        return whole
    return _marked(match, "value", f"{opening}[redacted:secret]{closing}")


def _assignment_key(text: str, start: int, noun_end: int) -> tuple[str, str, int]:
    """The key of an assignment whose noun runs from ``start`` to ``noun_end`` (the words glued before it too:
    ``DB_PASSWORD``; a spaced label's word: ``API key``), the key as written before the noun, and where it begins.
    It depends on the key alone, so ``_assignments`` asks it before it reads the value."""
    prefix, begin = _key_before(text, start)
    named = prefix + text[start:noun_end]
    key, begin = _spaced_key(text, named, begin)
    return key, named, begin


#: How far back on its line the text before a key is read: a label's Markdown and a configuration line's prefix sit
#: before it (a bold label of a long sentence, ``**Production database credentials for …, admin password**:``,
#: within a few hundred characters), and reading back to a long line's start for each key in it made a one-line text's time grow
#: with its square (a minified JSON of many ``"password":…``).
_LINE_LOOK_BACK = 256


def _line_start(text: str, begin: int) -> tuple[int, bool]:
    """Where the text read before a key at ``begin`` starts: its line's start, or ``_LINE_LOOK_BACK`` characters
    back on a longer line; and whether that is its line's start."""
    low = max(0, begin - _LINE_LOOK_BACK)
    newline = text.rfind("\n", low, begin)
    if newline >= 0:
        return newline + 1, True
    return low, low == 0 or text[low - 1] == "\n"


def _code_in_a_span(value: str) -> bool:
    """Whether a code span's contents are code or a name, not a literal (``**Token:** `process.env.GITHUB_TOKEN```,
    `` `os.getenv(name)` ``, `` `config.db.password` ``, `` `SECRET_KEY` ``, `` `.env` ``): the span is
    Markdown's way to write any code, so what it holds is judged as a bare value's would be."""
    if _CODE_SHAPE.fullmatch(value) or "::" in value or "->" in value or _a_file(value):
        return True
    if _DOTTED_NAME.fullmatch(value):
        return _names_a_variable(value.rstrip("!?").split("."))
    return "_" in value and _ENV_NAME.fullmatch(value) is not None


def _markdown_label(before_key: str, before_noun: str, whole_line: bool, match: re.Match[str]) -> bool:
    """Whether the Markdown around an assignment's key (the text before it on its line: ``before_key``, and before
    its noun; ``whole_line`` when they reach the line's start) is a label's: a code span holds the key alone
    (`` `password`: ``, not `` `python -c pass`: 25.6``), bold or emphasis that closes after it opened before it
    (``**DB password**:``; ``password: **kwargs`` is code), and a value on the next line follows a line that is the
    label alone (``password:`` then ``> …``), or looks made after a sentence's label ("Here is the password:" then
    ``- Xy7#kq9!Lm``; "how to validate an id_token:" then ``- http://…`` is prose)."""
    close, bold, item = match.group("label"), match.group("bold"), match.group("item")
    if close == "`" and not before_key.endswith("`"):
        return False
    if (close and close not in before_noun) or (bold is not None and bold.strip() not in before_noun):
        return False
    if item is None:
        return True
    value = match.group("value").strip("`*")
    made = _looks_made(value, match.group(0)[:2].lower() in ("pa", "pw")) and not _names_a_field(
        value, match.group(0)[: match.start("kq") - match.start()]
    )
    # The next line alone (after a line's end or a JSON string's escaped one), no list's mark: a made value that ends
    # its line, or a quoted one.
    if not item.strip(" \t\r\n\\rn"):  # (blanks and line ends alone, escaped ones too)
        after = match.string[match.end() : match.end() + 80].lstrip(" \t")
        quoted = _unquote(match.group("value"))[0] != "" and after[:1] != ":"  # (``"type": …`` is the next key)
        return made and (quoted or _ends_its_line(match.string, match.end(), "\\n" in item))
    return (whole_line and not before_key.strip(" \t*_`->#")) or made


def _names_a_field(value: str, noun: str) -> bool:
    """Whether a next-line value is a name, not a label's value: an identifier in camelCase that starts with the label's
    word (``Password:`` then ``passwordField2``, a form's fields listed; ``MyPassword1`` is a password), or a product's
    name (``1Password``) (review9 R4)."""
    if value.lower() in _PRODUCTS:
        return True
    rest = value[len(noun) :]  # (a word and its number after the label's: Field2, Input; not Xk9mPq2Lw7, review10 R-F)
    return value.startswith(noun.lower()) and _A_FIELDS_NAME.fullmatch(rest) is not None


#: What follows the label's word in a field's name: capitalised words and a short number (``Field2``, ``InputBox``).
_A_FIELDS_NAME = Lazy(globals(), "_A_FIELDS_NAME", r"(?:[A-Z][a-z]{2,})+\d{0,3}")


#: Products whose name a label's next line may give and looks made: a password manager's.
_PRODUCTS = frozenset(["1password"])


def _ends_its_line(text: str, end: int, escaped: bool = False) -> bool:
    """Whether a next-line value ending at ``end`` ends its line: blanks after it (Markdown's hard break is two), a
    ``;`` or ``,``, or a note in parentheses (``Xk9mPq2Lw (prod)``), as the same line's rule reads them (review9 R1).
    A quoted value ends where its quote does (``"Zq7LeakA1xR",``: Prettier's wrap, R2), so it is not asked."""
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end == -1 else line_end]
    if escaped:  # a JSON string's line ends at its escaped line end, or where the string does
        rest = rest.split("\\", 1)[0].split('"', 1)[0]
    rest = rest.strip(" \t\r")
    if not rest or rest in (";", ","):
        return True
    rest = rest.lstrip(";,").lstrip(" \t")
    return rest[:1] == "(" and rest.rstrip(".;,")[-1:] == ")" and rest.count("(") == 1 and rest.count(")") == 1


def _flag_value(value: str, flag: str, sep: str) -> bool:
    """``--password=x`` gives a value whatever it is; after a space a plain word is prose (``--password options``,
    ``--password PASSWORD``), a word in mixed case is not (``--password CorrectHorseBattery``)."""
    if sep == "=":
        return _plain_value(value, flag)
    return _bare_literal(value, flag, False) or (_plain_value(value, flag) and _camel(value))


def _camel(word: str) -> bool:
    """A capital after a small letter: a word no sentence writes (``CorrectHorse``, ``hunTer``)."""
    return any(a.islower() and b.isupper() for a, b in zip(word, word[1:], strict=False))


def _flag(match: re.Match[str]) -> str:
    whole, value = match.group(0), match.group("value")
    flag = whole[: match.start("sep") - match.start()].lstrip("-")
    opening, contents, closing = _unquote(value)
    if not secret_key(flag) or not (
        _quoted_secret(contents, flag) if opening else _flag_value(value, flag, match.group("sep"))
    ):
        return whole
    return _marked(match, "value", f"{opening}[redacted:secret]{closing}")


#: An HTML form's password field given a value (``<input type="password" value="…">``), its attributes in any order
#: (each read whole, so ``data-type`` or a ``placeholder``'s words are none): a field named for a secret is the
#: setting rules' (``name="password" value="…"``), but ``type`` says it too.
_HTML_ATTRIBUTE = r"""[\w:.-]+(?:[ \t]*=[ \t]*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>`=]+))?"""
_PASSWORD_INPUT = (
    rf"(?i:<input)(?=(?:\s+{_HTML_ATTRIBUTE})*?\s+(?i:type)[ \t]*=[ \t]*[\"']?(?i:password)\b)"
    rf"(?:\s+{_HTML_ATTRIBUTE})*?\s+(?i:(?:default)?value)[ \t]*=[ \t]*"
    r"""(?:(?P<q>["'])(?P<value>(?:(?!(?P=q))[^<>\n])+)(?P=q)|(?P<bare>[^\s"'<>`=]+))"""
)


def _password_input(match: re.Match[str]) -> str:
    """A password field's value (``_PASSWORD_INPUT``: quoted or not, React's ``defaultValue`` too) replaced, but a
    reference or a placeholder (``{{ form.password }}``)."""
    group = "value" if match.group("value") is not None else "bare"
    if not _plain_value(match.group(group), "pw"):
        return match.group(0)
    return _marked(match, group, "[redacted:secret]")


#: An HTML table's or definition list's pair: a cell naming a secret, then the cell that gives it
#: (``<th>Password</th><td>…</td>``, ``<td>API key</td> <td>…</td>``, ``<dt>Token</dt><dd>…</dd>``), each in an
#: inline element or not. As in a Markdown table (``_grid``), the value must look made.
_CELL_PAIR = (
    rf"<(?P<kt>(?i:t[dh]|dt))\b{_TAG_ATTRIBUTES}>\s*{_AN_INLINE_TAG}(?P<name>[^<>\n]{{1,80}}?)"
    rf"(?:</{_INLINE_TAG_NAME}>){{0,3}}\s*</(?P=kt)[ \t]*>\s*<(?P<vt>(?i:td|dd))\b{_TAG_ATTRIBUTES}>\s*"
    rf"{_AN_INLINE_TAG}(?P<value>[^<>\s]+)(?:</{_INLINE_TAG_NAME}>){{0,3}}\s*</(?P=vt)[ \t]*>"
)


#: A label an inline element or a table's cell holds, then its value as text (``<strong>Password:</strong> …``,
#: ``<b>API key</b>: …``, ``<li><strong>Token</strong> — …</li>``): a colon inside the element or a colon, a dash or
#: ``=`` after it; a label with neither (``<b>Password</b> reset``) gives nothing. No two runs of blanks meet (the
#: name starts and ends with no blank): a long run after ``<b>`` took time cubic in its length (review64c).
_HTML_LABEL = (
    rf"<(?P<lt>(?i:b|strong|em|i|u|label|span|dt|th))\b{_TAG_ATTRIBUTES}>[ \t]*"
    r"(?P<name>[^<>\n: \t](?:[^<>\n:]{0,58}[^<>\n: \t])?)[ \t]*(?:(?P<inside>:)[ \t]*)?"
    rf"</(?P=lt)[ \t]*>[ \t]*(?:(?P<after>[:=\u2014\u2013-])[ \t]*)?{_AN_INLINE_TAG}"
    r"(?P<value>[^<>\s]+)"
)


#: The closing tags of ``_HTML_LABEL``'s elements.
_HTML_LABEL_NEEDLES = ("</b>", "</strong>", "</em>", "</i>", "</u>", "</label>", "</span>", "</dt>", "</th>")


def _html_label(match: re.Match[str]) -> str:
    """A label's value (``_HTML_LABEL``) replaced where the label names a secret and the value looks made
    (``_a_cells_secret``)."""
    name = match.group("name").strip()
    if not (match.group("inside") or match.group("after")) or not secret_key(name):
        return match.group(0)
    value = match.group("value").rstrip(".,;")
    if not _a_cells_secret(value, name):
        return match.group(0)
    return match.string[match.start() : match.start("value")] + "[redacted:secret]" + match.group("value")[len(value) :]


def _cell_pair(match: re.Match[str]) -> str:
    """A cell naming a secret and the next one giving it (``_CELL_PAIR``), its value replaced where it looks made."""
    name = match.group("name").strip()
    if not secret_key(name) or not _a_cells_secret(match.group("value"), name):
        return match.group(0)
    return _marked(match, "value", "[redacted:secret]")


def _tagged(match: re.Match[str]) -> str:
    tag = match.group("tag")
    if not secret_key(tag) or not _plain_value(match.group("value"), tag):
        return match.group(0)
    return _marked(match, "value", "[redacted:secret]")


def _key_value(match: re.Match[str]) -> str:
    """The match of a setting's name and value with its value redacted (``_setting``), from its first word."""
    return _setting(match, match.start(), match.group("kq"))


def _unquoted_key_value(match: re.Match[str]) -> str:
    """``_key_value`` of a match whose name is unquoted: the AWS command line's shorthand (``_SHORTHAND``, its value
    first too), YAML's flow (``_FLOW_KEY_VALUE``)."""
    return _setting(match, match.start(), "")


def _flow_bare_value(match: re.Match[str]) -> str:
    """``_key_value`` of a ``_FLOW_BARE_VALUE`` match after its pair's name (``_FLOW_NAME_BEFORE``), whose value looks
    made (``_looks_made``, as after its name's last word: ``hunter2`` after a password's)."""
    text, word = match.string, match.start() - 1  # (the value's word, its ``v``)
    named = _FLOW_NAME_BEFORE.search(text, max(0, word - _FLOW_NAME_REACH), word + 1)
    pair = named and _FLOW_BARE_PAIR.match(text, named.start())
    if not pair or pair.end() != match.end():
        return match.group(0)
    if not _looks_made(pair.group("value"), _key_words(pair.group("name"))[-1] in _PASSWORD_WORDS):
        return match.group(0)
    return _setting(pair, pair.start(), "")[match.start() - pair.start() :]


def _flow_value_first(match: re.Match[str]) -> str:
    """``_key_value`` of a ``_FLOW_VALUE_FIRST`` match, the word of its ``alue:`` a ``value`` of its own, whose value
    looks made (as ``_flow_bare_value``'s)."""
    word = match.start() - 1
    if match.string[word : word + 1] not in ("v", "V"):
        return match.group(0)
    if not _looks_made(match.group("value"), _key_words(match.group("name"))[-1] in _PASSWORD_WORDS):
        return match.group(0)
    return _setting(match, word, "")


def _key_value_lines(match: re.Match[str]) -> str:
    """``_key_value`` of a match that starts at the colon after the name's word (``_KEY_VALUE_LINES``)."""
    text, colon = match.string, match.start()
    word = next(word for word in _LINE_NAME_WORDS if text[max(0, colon - len(word)) : colon].lower() == word)
    gutter = match.group("gutter")
    if gutter is not None and not _same_gutter(text, colon - len(word), gutter):
        return match.group(0)
    return _setting(match, colon - len(word), "")


def _same_gutter(text: str, start: int, gutter: str) -> bool:
    """Whether the line of the name's word at ``start`` starts with a gutter like ``gutter``, the value's line's: a
    diff's mark (``+``, ``-`` or a blank: the name's line may be context), a line's number, a quote's ``>``."""
    low = max(0, start - _OPENED_REACH)
    head = text[text.rfind("\n", low, start) + 1 : start]
    if gutter in ("+", "-"):
        return head[:1] in ("+", "-", " ")
    lead = _GUTTER.match(head)
    return lead is not None and _gutter_kind(lead.group(0)) == _gutter_kind(gutter)


def _gutter_kind(gutter: str) -> str:
    """What a gutter is, whatever its number and blanks: ``>``, ``L``, or a number's ``0``."""
    first = gutter.lstrip(" \t")[:1]
    return "0" if first.isdigit() else first


def _setting(match: re.Match[str], start: int, quote: str) -> str:
    """The match with its value redacted when the name given beside it says secret (``secret_key``, as a
    ``name=value`` is read) and the value is a literal (``_quoted_secret``; one unquoted, ``_bare_literal``, as a
    configuration line's): ``<add key="Theme" value="dark"/>`` and ``value="${DB_PASSWORD}"`` stay. Its first word,
    from ``start``, is a word of its own (``monkey="…"`` is no key), a quoted one (``quote``) inside its quotes."""
    text = match.string
    before = text[max(0, start - len(quote)) : start] if quote else text[start - 1 : start]
    if (before != quote) if quote else (before != "" and (before.isalnum() or before in "_.-")):
        return match.group(0)
    name, value = match.group("name"), match.group("value")
    if not secret_key(name) or _a_template_reference(value):
        return match.group(0)
    field = _pair_names_a_field(text, match.start(), quote)
    if field and not _looks_made(value, _key_words(name)[-1] in _PASSWORD_WORDS):
        return match.group(0)  # a label or a description (``<input value="Save" name="change_password">``)
    if match.group("q"):
        secret = _quoted_secret(value, name)
    else:
        secret = _bare_literal(value, name, config_line=True) or _a_signed_word(value)
    if not secret:
        return match.group(0)
    return _marked(match, "value", "[redacted:secret]")


def _pair_names_a_field(text: str, start: int, quote: str) -> bool:
    """Whether a pair at ``start`` names a field, not a setting: an HTML form control's (``<input value="Save"
    name="change_password">``: its value is a label or what the page fills in) or an annotation's argument
    (``@ApiImplicitParam(name = "password", value = "密码")``: its value describes, names or aliases the field). Such
    a pair gives a secret only when its value looks made (``_looks_made``). An annotation's arguments are unquoted
    words (``quote`` is the one around the pair's words): a decorator's quoted tag or JSON
    (``@pytest.mark.parametrize('<add key="ApiKey" value="…"/>')``) gives a setting."""
    element = _open_element(text, start)
    if element:
        return element not in _SETTINGS_ELEMENTS
    return not quote and _in_an_annotation(text, start)


#: The elements whose ``name`` attribute names a setting (Spring's and Ant's ``<property>``, ``<param>``, Tomcat's
#: ``<Parameter>`` and ``<Environment>``, PHPUnit's ``<env>``/``<server>``/``<ini>``/``<const>``, IntelliJ's
#: ``<option>``).
_SETTINGS_ELEMENTS = frozenset(
    ["property", "param", "parameter", "environment", "env", "server", "ini", "const", "constant", "option"]
    + ["setting", "add", "entry", "variable", "var", "define", "arg", "system-property", "context-param"]
)
#: A password's own words (``_looks_made`` then takes ``hunter2`` for one).
_PASSWORD_WORDS = frozenset(["password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode"])
#: How far back a pair's element or annotation is looked for: its attributes or arguments before the pair.
_OPENED_REACH = 256


def _open_element(text: str, start: int) -> str:
    """The element (its name in small letters, a namespace's prefix dropped: ``jsp:param``) whose opening tag holds
    ``start``, or "" outside a tag."""
    low = max(0, start - _OPENED_REACH)
    at = text.rfind("<", low, start)
    if at < 0 or text.find(">", at, start) >= 0:
        return ""
    return element_name(text, at + 1).rsplit(":", 1)[-1].lower()


def _in_an_annotation(text: str, start: int) -> bool:
    """Whether ``start`` is among a Java or Kotlin annotation's arguments (``@ApiParam(name = "token", value = …``)."""
    low = max(0, start - _OPENED_REACH)
    at = text.rfind("(", low, start)
    if at < 0 or text.find(")", at, start) >= 0:
        return False
    head = at
    while head > low and (text[head - 1].isalnum() or text[head - 1] in "_."):
        head -= 1
    return head < at and text[head - 1 : head] == "@"


def _a_template_reference(value: str) -> bool:
    """A Razor expression (``@Model.ApiKey``, ``@(…)``): the page fills the value in (``_is_literal`` knows the
    other templates' ``{{ … }}``, ``${…}``, ``<%= … %>``)."""
    return value[:2] == "@(" or (value[:1] == "@" and _DOTTED_NAME.fullmatch(value[1:]) is not None)


def _docker_env(match: re.Match[str]) -> str:
    if not secret_key(match.group("key")) or not _plain_value(match.group("value"), match.group("key")):
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + "[redacted:secret]"


def _commented(match: re.Match[str]) -> str:
    """A ``_COMMENTED`` match with its value redacted, when a blank opens its comment after a word naming a secret on
    its line and the value looks made."""
    text, at = match.string, match.start()
    before = text[max(0, at - 80) : at]
    if not before[-1:].isspace():
        return match.group(0)
    words = before.rpartition("\n")[2].split()
    if not (words and secret_key(words[-1].strip("\"'")) and _looks_made(match.group("value"), password=True)):
        return match.group(0)
    return _marked(match, "value", "[redacted:secret]")


def _sql(match: re.Match[str]) -> str:
    if not _is_literal(match.group(1)) or _names_a_revision(match):
        return match.group(0)
    return _marked(match, 1, "[redacted:secret]")


def _names_a_revision(match: re.Match[str]) -> bool:
    """Whether ``identified by '…'`` follows ``locate revision``: Alembic's ``Can't locate revision identified by '9c0d1e2f'``
    quotes a migration's id, which a person searches for, not a password (SQL's ``IDENTIFIED BY`` follows a user)."""
    before = match.string[max(0, match.start() - 24) : match.start()].lower().split()
    return before[-2:] == ["locate", "revision"]


def _assignments(text: str) -> str:
    """``text`` with the literal values of secret-named keys redacted.

    Candidates are found in the lowercased text by a case-sensitive regex the engine can scan fast;
    the full rule is matched only there. A value is read to its end, so a key inside another's value (a line of
    ``?key=?key=…``, one of WeCom's ``send?key=`` URLs after another) read the rest of the line again: its time grew
    with the line's square (red58: 100 KB, 38 s). So a candidate is matched only when its key names a secret and its
    value may be one (``_may_give_a_secret``), and a line whose keys keep starting inside the value read before them
    is read again ``_REREADS`` times at most (``_Rereads``).
    """
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lowercase is longer: positions would not line up
        return _ASSIGNMENT.sub(_assignment, text)
    parts: list[str] = []
    last = 0
    run_start = run_end = 0  # a run of keys no value ends (``_in_a_keys_run``)
    rereads = _Rereads()
    for candidate in _NOUN_SEP.finditer(lowered):
        if candidate.start() < last or _in_a_keys_run(text, candidate, run_start, run_end):
            continue
        if not _may_give_a_secret(text, candidate):
            continue
        if rereads.spent(candidate.start(), candidate.end()):  # (a hostile line: the rest is redacted unread)
            parts += (text[last : candidate.end()], "[redacted:secret]")
            last = rereads.end
            continue
        match = _ASSIGNMENT.match(text, candidate.start())
        if match is None:
            continue
        if (replaced := _assignment(match)) != match.group(0):
            parts += (text[last : match.start()], replaced)
            last = match.end()
            continue
        rereads.read(match.start(), match.end())
        if match.group("value").endswith(":"):
            run_start, run_end = match.span("value")
    return "".join(parts) + text[last:] if parts else text


def _may_give_a_secret(text: str, candidate: re.Match[str]) -> bool:
    """Whether an ``_ASSIGNMENT`` at a ``_NOUN_SEP`` candidate may redact: its key names a secret (``_assignment``
    asks so first; the key is read back from the noun, not from the value), and its value does not start with a sign
    no bare secret starts with (``?token=?token=…``: ``_bare_literal``; no separator, blank, quote or emphasis can
    come between the ``=`` and such a sign)."""
    if text[candidate.end() : candidate.end() + 1] in _NO_SECRET_STARTS and not _A_VALUES_TAG.match(
        text, candidate.end()
    ):
        return False
    return secret_key(_assignment_key(text, candidate.start(), candidate.start("kq"))[0])


#: What no value ``_assignment`` redacts starts with right after its ``:`` or ``=`` (a bare value's first signs
#: ``_bare_literal`` refuses; a ``*`` may open emphasis, a ``&`` no value at all).
_NO_SECRET_STARTS = frozenset("([{<@!#?")
#: What opens the value of ``password=<b>…</b>`` all the same (``_AN_INLINE_TAG``).
_A_VALUES_TAG = Lazy(globals(), "_A_VALUES_TAG", _INLINE_TAG)
#: How many keys inside one value read before them are read: each reads the rest of it again.
_REREADS = 16


class _Rereads:
    """The span of the last assignment read and kept, and how many keys after it started inside it: a key that
    starts inside another's value has its own value read to the same end, so past ``_REREADS`` of them the rest
    of that span is redacted without reading it (only a hostile line gets there: more than ``_REREADS``
    secret-named keys one inside the other's value, none of them a secret)."""

    def __init__(self) -> None:
        self.start = self.end = self.count = 0

    def spent(self, start: int, end: int) -> bool:
        """Whether a key from ``start`` to its separator's ``end`` lies inside the span after ``_REREADS`` others
        did."""
        return self.start <= start and end < self.end and self.count >= _REREADS

    def read(self, start: int, end: int) -> None:
        """An assignment from ``start`` to ``end`` was read and kept."""
        if self.start <= start < self.end:
            self.count += 1
            self.end = max(self.end, end)
        else:
            self.start, self.end, self.count = start, end, 0


def _in_a_keys_run(text: str, candidate: re.Match[str], run_start: int, run_end: int) -> bool:
    """Whether a key lies inside a bare value that ends in a colon (and so is no secret: ``_bare_literal``), from
    ``run_start`` to ``run_end``, its value then bare too, the end of that one, and no quote or star after its
    separator (within an annotation's reach: ``password:str='…'``) opens a quoted or an emphasised one
    (``token:password:'Xk9m…':``, ``token:password:**Xk9m…**:``): such a key is skipped. A run of keys without
    blanks (``password:password:…``) read each key's value to the run's end: its time grew with its square (18 KB,
    1.8 s). A key whose separator ends the run has its value after it (``token:password:`` then ``- Xk9m…``)."""
    start, end = candidate.span()
    if not run_start <= start or not end < run_end:
        return False
    ahead = text[end : min(run_end, end + _QUOTE_REACH)]
    return "'" not in ahead and "*" not in ahead


#: How far after a key's colon a quote or a star may open its value: a type annotation's reach (``_ASSIGNMENT``).
_QUOTE_REACH = 72


#: A secret variable's name's stage (``redaction.NAME_STAGES``: ``SECRET_KEY_PROD``, ``SECRET_KEY_FALLBACKS``).
_A_NAMES_STAGE = f"(?:{'|'.join(NAME_STAGES)})"
#: A variable named a secret given a word as its value, as ``env``, ``printenv``, a ``.env``, ``export``, ``docker run
#: -e``, YAML, an ini file and code print it (``SECRET_KEY=…``, ``secret_key: …``, ``secretKey = …``, ``SECRET_KEY
#: =…``, ``SECRET_KEY:…``), in any case (``secret_key`` judges the name): the key starts a word after a line's start,
#: a blank, a quote, a shell sign or a query's ``?``, and the value runs to the next blank or quote, or is quoted.
#: Such a value is read as one word whatever signs it holds (``_secret_word``). (The key's noun ends it, so a word is
#: read from its start only; an ``=`` after a blank is no comparison's ``== ``, a ``:`` no scope's ``::``. A bare
#: value ends before a JSON string's escaped line end, ``\\n``, as ``_VALUE_CHAR`` does; its repeat is not possessive,
#: the lookahead inside it: ``tests/test_regex_old_python.py``.)
_SECRET_VARIABLE = (
    r"(?<![^\s;&|?(=+\"'\[,`>])(?:(?P<command>(?:setx|set(?:[ \t]+-[A-Za-z]+)+)[ \t]+)|--?"
    r"|(?P<make>(?<![^\n])(?:(?:export|override)[ \t]+)?))?"
    r"(?P<key>(?=[A-Za-z])[A-Za-z0-9_.-]*?"
    r"(?i:KEY|SECRET|TOKEN|PASS|PASSWORD|PASSWD|PASSPHRASE|PWD|PW|BASE)(?:_?[0-9]{1,3})?)"
    rf"(?i:_{_A_NAMES_STAGE})?"
    r"(?P<sep>(?(command)[ \t]+|(?:(?P<cell>`?[ \t]*\|[ \t]*`?)|[\"'],[ \t]*(?:default[ \t]*=[ \t]*)?(?=[\"'])"
    r"|[ \t]*=[ \t]*\[[ \t]*(?=[\"'])|=[ \t]*|[ \t]+=(?!=[ \t=])[ \t]*|[ \t]*(?:::|\?)=[ \t]*"
    r"|(?(make)[ \t]*:=[ \t]*|(?!))|:(?!:)[ \t]*)))"
    rf"{_AN_INLINE_TAG}(?P<value>\"[^\"\n]*+\"|'[^'\n]*+'|(?:[^\s\"'`\\<]|{_NOT_A_CLOSING_TAG}|\\++(?![nrt]))+)"
    r"(?(cell)(?=`?[ \t]*\|))"
)
#: What in a secret variable's word makes the assignment rule read only part of it or none (``_BARE``, ``_REFERENCE``,
#: ``_bare_literal``): brackets, ``$``, ``%``, ``&`` and ``=`` (a Django key's ``…$k2!pq7&t1*w6(y5)b0+n``).
_SPLIT_BY_THE_RULES = Lazy(globals(), "_SPLIT_BY_THE_RULES", r"[()$%&=]|\A[@*!#?:^+]")
#: A word that is a substitution, not a value: ``$VAR``, ``$VAR/path``, PowerShell's ``$env:VAR``, ``${VAR}``,
#: ``$(cat /run/secrets/key)`` (its first word, the blank ending the value), ``%VAR%``, cmd's ``%~1``, ``%(name)s``, a
#: format's ``%s``.
_SUBSTITUTION = Lazy(
    globals(),
    "_SUBSTITUTION",
    r"\$\{[^${}\s]*+\}|\A\$\([ \t]*[A-Za-z_./~]|\$\([a-z][\w.-]*+\)|\A\$(?:env:)?[A-Za-z_]\w*+(?:/|\Z)"
    r"|\A%\w+%(?:\Z|[\\/])|\A%~[a-z]*[0-9]|\A%\(\w+\)|\A%[-+ #0-9.]*[A-Za-z]\Z",
)
#: The marker the assignment rule (``_assignments``) puts in for a value: the only one whose tail is read as the
#: secret's, and only as the word's first (after what it kept: ``*…*``, ``h=…``). Another rule's marker
#: (``OPENAI_API_KEY=[redacted:openai-key]/index``, a key in a folder's name) ended its token where the token ends, and
#: a marker after it in the word is another key's (``[redacted:github-token]%20token:[redacted:secret]``).
_THE_ASSIGNMENTS_PART = Lazy(globals(), "_THE_ASSIGNMENTS_PART", r"[^\[]*+\[redacted:secret\]")
#: What the assignment rule leaves after a value on purpose: a call's close and what code writes after it
#: (``connect(password=…).cursor()``, ``f(token=…)->run()``, ``(password=None):``), a parameter expansion's close
#: (``${SECRET_KEY:-[redacted:secret]}``), or a query's next fields
#: (``?client_secret=…&state=x&next=/``, ``&`` alone at its end). A Django key's tail is neither: it draws no
#: ``.,:>/``, and a sign after ``&name=`` but for one in few hundred.
_LEFT_AS_WRITTEN = Lazy(
    globals(),
    "_LEFT_AS_WRITTEN",
    r"\)++(?:(?:[.,:]|->)\S*+)?|\}|(?:&[\w.-]+=(?:[\w.%+/:-]|\[redacted:secret\])*)*&?",
)


def _secret_word(match: re.Match[str]) -> str:
    """A secret variable's value (``_SECRET_VARIABLE``) redacted as one word when the assignment rule redacted its
    first part and left a tail that is no code or query (``_LEFT_AS_WRITTEN``), or when what it holds split it for
    that rule (``_SPLIT_BY_THE_RULES``) and it is no code or substitution (``_BRACKETED_CODE``, ``_SUBSTITUTION``):
    a Django key draws ``(-_=+)`` and ``!@#$%^&*``, and most of them kept a tail or stayed whole (trial59 F1: 173 of
    200 leaked 12 characters or more; review59e F2: 75 of 200 under a lowercase or oddly spaced name)."""
    key, value = match.group("key"), match.group("value")
    quote = value[0] if value[0] in "\"'" else ""
    contents = value[len(quote) : len(value) - len(quote)]
    if not secret_key(key) or not contents or _A_MARKER.fullmatch(contents) or _assigns_a_quoted_value(match):
        return match.group(0)
    if quote and match.string[match.start() - 1 : match.start()] == quote and match.group("sep")[:1] != quote:
        return match.group(0)  # (``'password: '); f('``: code, but ``("SECRET_KEY", "…"``'s key closes its quote)
    if any(secret_key(name) for name in _A_KEY_INSIDE.findall(contents)):
        return match.group(0)
    if "[redacted:" in contents:
        if _left_by_the_rules(contents):
            return match.group(0)
    elif not _a_signed_literal(contents) or _a_word_then_code_or_a_query(contents):
        return match.group(0)
    return _marked(match, "value", f"{quote}[redacted:secret]{quote}")


def _left_by_the_rules(contents: str) -> bool:
    """Whether a word holding a marker is what the rules meant to leave: its first marker another rule's, the tail
    after the assignment rule's code or a query (``_LEFT_AS_WRITTEN``), or one holding another marker (the rules read
    it already: ``[redacted:secret]&#38;client_secret&#61;[redacted:github-token]``, which a second scrub must leave
    as the first did)."""
    part = _THE_ASSIGNMENTS_PART.match(contents)
    if part is None or "[redacted:" in contents[part.end() :]:
        return True
    return bool(_LEFT_AS_WRITTEN.fullmatch(contents, part.end()))


def _a_word_then_code_or_a_query(contents: str) -> bool:
    """Whether a word is a name or a short value and, after it, what the assignment rule leaves (``_LEFT_AS_WRITTEN``):
    ``None):`` of ``def login(password=None):``, ``$PW&user=bob`` of ``-d "password=$PW&user=bob"``. (A Django key's
    first part draws a sign before its first ``)`` or ``&``, and its tail one before its end.)"""
    word = _A_WORD_CUT.match(contents)
    return word is not None and bool(_LEFT_AS_WRITTEN.fullmatch(contents, word.end()))


#: A key given a value inside a word (``token=a(token=a(``, ``token:password:**…**:``): when it names a secret, the
#: word is a run of keys the assignment rule read one by one, not one value. A key is a name of three characters or
#: more without digits: a Django key draws ``)pw=`` or ``+ji1pw=`` now and then, and was kept whole as a run of keys.
_A_KEY_INSIDE = Lazy(globals(), "_A_KEY_INSIDE", r"(?<![\w.-])([A-Za-z_][A-Za-z_.-]{2,}+)[:=]")
#: A word up to a close or a query's next field (``&name=``).
_A_WORD_CUT = Lazy(globals(), "_A_WORD_CUT", r"[\w.$-]*+(?=\)|&[\w.-]+=)")


def _assigns_a_quoted_value(match: re.Match[str]) -> bool:
    """Whether a bare word runs into a quote it did not open after a sign that code writes before one
    (``password:str="…"``, ``token=response.json()["token"]``, ``password=="…"``, ``token = jwt.encode({"sub": …``:
    review60c F1): code giving the quoted value, which the assignment rule reads. (A word in quotes of its own, docker
    inspect's ``"SECRET_KEY=…="``, ends at its own quote.)"""
    text, start, end = match.string, match.start(), match.end()
    after, before = text[end : end + 1], text[start - 1 : start]
    return match.group("value")[-1] in "=[(,{" and after in ("'", '"') and after != before


def _a_signed_word(value: str) -> bool:
    """Whether a value given to a secret name, a word (no blank), is a literal holding signs (as
    ``_a_signed_literal`` reads a secret variable's, but a substitution inside it is none) that a reference's look
    hid (``_REFERENCE``: a leading ``$`` or ``%``, a ``$(`` inside), and no substitution whole
    (``_A_WHOLE_SUBSTITUTION``): a Django key quoted in JSON, ``"SECRET_KEY": "%fqf#oeqh…"``, or a Kubernetes env
    entry's ``value: $k2!…`` (review59e F3, F4: 8 and 20 of 200 were kept). A template's braces or angle brackets
    (``{{ … }}``, ``<token>``) keep it a reference: a Django key draws none."""
    if not value or any(c.isspace() or c in "{}<>" for c in value) or _A_WHOLE_SUBSTITUTION.fullmatch(value):
        return False
    return bool(_SPLIT_BY_THE_RULES.search(value)) and _no_code_nor_filler(value)


def _no_code_nor_filler(value: str) -> bool:
    """Whether a word holding signs is no code (``_BRACKETED_CODE``: a call, an index, a path of names, with a
    statement's ``,;?:`` after it), no filler and no keyword: what ``_a_signed_word`` and ``_a_signed_literal`` ask
    last."""
    if _BRACKETED_CODE.fullmatch(value.rstrip(",;?:").replace("::", ".")):
        return False
    return not _FILLER.fullmatch(value) and value.lower() not in _NOT_VALUES


#: A value that is one substitution whole, so no secret: ``$X``, ``$X/path``, PowerShell's ``$env:X``, ``$1``,
#: ``$@``, ``$(cmd)``, ``%VAR%``, ``%VAR%\\path``, ``%(name)s``, a format of ``%s``/``%d`` and plain text (``%s-%s``).
#: A leading ``%f`` or ``$*`` followed by more signs is none.
_A_WHOLE_SUBSTITUTION = Lazy(
    globals(),
    "_A_WHOLE_SUBSTITUTION",
    r"\$(?:(?:env:)?[A-Za-z_]\w*+(?:/\S*+)?|[0-9@*#?$!])|\$\([^()]*+\)|%\w+%(?:[\\/]\S*+)?|%\(\w+\)[a-z]"
    r"|[\w./:-]*(?:%[-+ #0-9.]*[sdrfx][\w./:-]*)+",
)


#: A marker alone: a value redacted whole already.
_A_MARKER = Lazy(globals(), "_A_MARKER", r"\[redacted:[\w-]+\]")


def _a_signed_literal(value: str) -> bool:
    """Whether a secret variable's word holding signs (``_SPLIT_BY_THE_RULES``) is a literal: no code, substitution,
    filler or keyword."""
    if not _SPLIT_BY_THE_RULES.search(value.removeprefix("=")):  # (``==other``: a comparison)
        return False
    if _SUBSTITUTION.search(value) or _A_WHOLE_SUBSTITUTION.fullmatch(value):  # (a format, ``"%s-%s" % (…)``)
        return False
    return _no_code_nor_filler(value)


_KEY_RULES: tuple[Rule, ...] = (
    Rule("secret", _FLAG, ("--",), replace=_flag),
    Rule("secret", _XML, ("</",), replace=_tagged),
    Rule("secret", _PASSWORD_INPUT, ("<input",), replace=_password_input),
    Rule("secret", _CELL_PAIR, ("</td>", "</th>", "</dt>"), replace=_cell_pair),
    Rule("secret", _HTML_LABEL, _HTML_LABEL_NEEDLES, replace=_html_label),
    Rule("secret", _KEY_VALUE, _SETTING_NEEDLES, replace=_key_value, again=True),
    Rule("secret", _VALUE_KEY, _SETTING_NEEDLES, replace=_key_value),
    Rule("secret", _KEY_VALUE_LINES, ("name: ", "key: "), replace=_key_value_lines, again=True),
    Rule("secret", _SHORTHAND, ("Value=",), replace=_unquoted_key_value),
    Rule("secret", _SHORTHAND_VALUE_FIRST, ("Value=",), replace=_unquoted_key_value),
    Rule("secret", _FLOW_KEY_VALUE, ('value: "', "value: '"), replace=_unquoted_key_value),
    Rule("secret", _FLOW_BARE_VALUE, ("name: ", "key: "), replace=_flow_bare_value),
    Rule("secret", _FLOW_VALUE_FIRST, ("name: ", "key: "), replace=lambda m: _flow_value_first(m)),
    Rule("secret", _DOCKER_ENV, ("ENV",), replace=_docker_env),
    Rule("secret", _COMMENTED, SECRET_NOUNS, replace=_commented),
    Rule("secret", _SQL, ("identified", "password"), replace=_sql),  # "with\s+password": any space between
)
_SECRET_WORD = Rule("secret", _SECRET_VARIABLE, (), replace=_secret_word)


# --------------------------------------------------------------------------- secrets named in sentences

#: What names a secret in a sentence: a password's names, a token, a secret, a key with a word saying what it opens;
#: plural or possessive ("the passwords are", "my password's"), and in Markdown's bold or code ("**password** is").
_SENTENCE_NOUN = (
    r"(?:pass(?:word|wd|phrase|code)|pwd?|secret|token|(?:api|access|secret|private|auth|admin|master) ?key)"
    r"s?[*`]{0,2}"
)
#: The blanks between a sentence's words: a tab or a no-break space (pasted from a web page or Slack) too.
_BLANK = r"[ \t\u00a0]"
#: "<noun> [<up to six words, the first a preposition or a person>] is|was|are|were|will be|has been [now|…]
#: <value>" (the value may start the next line, after a JSON string's escaped ``\n`` too, as a Markdown list item or
#: quote), "my password's <value>", "<noun> for|of|on|to <words>: <value>", "<noun> (<words>): <value>", "<noun> —
#: <value>" (a dash or an arrow: an agent's list), "<noun> generated: <value>", "<noun> to <value>" (after "set",
#: "change", …), or the noun and its value alone (after "use", "enter", …: ``_after_a_verb``). A word between the noun
#: and its verb does not end a sentence (``.``, ``,``).
_SENTENCE_WORD = r"[^\s:=]*[^\s:=.,;!?]"
#: The first of the words between a noun and its verb: a preposition or a person ("the password to the db is", "the
#: password we use is"); "the password hashing algorithm is now Argon2id" names no password's value.
_SENTENCE_BETWEEN = r"(?:for|of|on|to|in|at|from|that|which|we|you|i|they)\b"
_SENTENCE_LINK = (
    rf"(?:{_BLANK}+{_SENTENCE_BETWEEN}(?:{_BLANK}+{_SENTENCE_WORD}){{0,5}}?)?{_BLANK}+(?:is|was|are|were"
    rf"|(?:will|would|should|must|shall){_BLANK}+be|(?:has|had|have){_BLANK}+been)"
    rf"(?:{_BLANK}+(?:now|still|just|set{_BLANK}+to|changed{_BLANK}+to))?"
    rf"(?:{_BLANK}*:?{_BLANK}*{_NEXT_LINE}(?:{_BLANK}*{_NEXT_LINE})?{_BLANK}*{_LINE_ITEM}?|{_BLANK}*:{_BLANK}*|{_BLANK}+)"
    rf"|['\u2019]s{_BLANK}+"
    rf"|{_BLANK}+(?:for|of|on|to)(?:{_BLANK}+[^\s:=]+){{1,6}}?{_BLANK}*[:=]{_BLANK}*"
    rf"|{_BLANK}+\((?P<qualifier>[^()\n]{{1,40}})\)[*`]{{0,2}}{_BLANK}*[:=][*`]{{0,2}}{_BLANK}*"  # password (prod): …
    rf"|{_BLANK}+(?P<dash>\u2014|\u2013|\u2192|->|--?){_BLANK}+"  # **password** — `…`, token → …
    rf"|{_BLANK}+(?P<done>(?:re)?(?:generated|created|issued|rotated|reset|changed|updated))[*`]{{0,2}}{_BLANK}*:{_BLANK}*"
    r"|(?P<to> +to +)"
    r"|(?P<bare> +)"
)
#: Matched in a lowercase copy of the text, where one of the words it starts with is (``_sentence_matches``); a
#: verb before the noun is looked for behind it (``_after_a_verb``).
_SENTENCE_SECRET = Lazy(
    globals(),
    "_SENTENCE_SECRET",
    rf"(?a)\b(?:"
    rf"{_SENTENCE_NOUN}(?:{_SENTENCE_LINK})"  # the admin password is …; password for prod db: …; (use) passphrase …
    rf"|log(?: ?in|ged +in|ging +in) +(?:with|as|using) +[\w.@+-]+:(?!/)"  # login with admin:…
    rf"|cred(?:ential)?s +(?:are|were|is) +[\w.@+-]+:(?!/)"  # credentials are admin:…
    rf")\(?(?P<quote>[\"'`]?)(?P<value>[^\s\"'`]+(?:'[^\s\"'`]+)*)(?P=quote)",
)
#: The verb a noun given its value alone comes after ("use passphrase …", "enter the admin password …", "here is your
#: token …").
_VERB_BEFORE = Lazy(
    globals(),
    "_VERB_BEFORE",
    r"(?a)\b(?:use|using|enter|try|with|here is|here's) +(?:(?:the|this|my|our|your) +)?(?:[a-z]+ +)?\Z",
)
#: The verb a noun given its value by "to" comes after ("set the password to …", "I changed my password to …").
_SET_BEFORE = Lazy(
    globals(),
    "_SET_BEFORE",
    r"(?a)\b(?:set|sets|setting|change|changed|changes|changing|reset|update|updated) +"
    r"(?:(?:the|this|my|our|your|its|their) +)?(?:[a-z]+ +)?\Z",
)
#: What ends a sentence after a value: kept out of the value, and of what decides whether it is a secret.
_AFTER_A_VALUE = ".,;:)"
#: Capitals to small letters, in ASCII alone: a copy of a text whose positions are the text's whatever it holds (a
#: tenth as fast as ``str.lower``, so only for the rare text ``str.lower`` makes longer).
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _sentences(text: str) -> str:
    """``text`` with a secret named in a sentence redacted: "the admin password is Xy7#kq9!Lm", "the api token was
    8f14…", "password for prod db: …", "use passphrase …", "login with admin:…", the commonest way a secret is
    pasted into a chat. No separator marks it, so the value itself must look made (``_looks_made``): "the password
    is wrong", "the token is stored in Redis" stay as written."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lowercase is longer: positions would not line up
        lowered = text.translate(_ASCII_LOWER)
    parts: list[str] = []
    last = 0
    for match in _sentence_matches(lowered):
        start, end = match.span("value")
        if match.start() < last:  # (inside the value of the one before)
            continue
        kept = _before_a_quote(text[start:end]).rstrip(_AFTER_A_VALUE)
        password = lowered.startswith(_PASSWORD_NAMES, match.start())
        if not _a_verb_gives_it(lowered, match, kept, password) or not _an_aside_gives_it(match, kept, password):
            continue
        if _looks_made(kept.rstrip("!?"), password):
            parts += (text[last:start], "[redacted:secret]")
            last = start + len(kept)
            # "the passwords are A and B", "A, B and C", "the password is A or B": each made value
            last = _listed_values(text, lowered, last, parts, password)
    return "".join(parts) + text[last:] if parts else text


def _a_verb_gives_it(lowered: str, match: re.Match[str], value: str, password: bool) -> bool:
    """Whether the verb a match's form needs comes before its noun: "use", "enter"… before a noun given its value by
    a blank alone (none before a password's full name and a value with a digit: ``_a_password_alone``), "set",
    "change"… before one given it by "to"."""
    at = match.start()
    if match.group("bare") is not None:
        alone = password and match.end("bare") == match.start("value") and _a_password_alone(lowered, at, value)
        return alone or _after_a_verb(lowered, at, _VERB_BEFORE)
    return match.group("to") is None or _after_a_verb(lowered, at, _SET_BEFORE)


def _an_aside_gives_it(match: re.Match[str], value: str, password: bool) -> bool:
    """Whether a noun given its value by no verb (``redaction.ASIDES``) is given a secret: not a number but a
    password's ("Max tokens (output): 128000", "token created: 1714000000"), not after a qualifier naming an
    attribute ("token (id): …", "secret (arn): …"), and after a dash or an arrow only a value no name or list holds
    ("`token` → `accessToken2`", "password -> argon2id", "- fix refresh token - a1b2c3d4e": a machine's, not words
    run together, no scheme, no short hex)."""
    dash, qualifier = match.group("dash"), match.group("qualifier")
    if dash is None and qualifier is None and match.group("done") is None:
        return True
    if value.isdigit() and not password:
        return False
    if qualifier is not None:
        return not _ATTRIBUTES.intersection(qualifier.lower().split()[-1:])
    if dash is not None:
        hexadecimal = all(c in "0123456789abcdefABCDEF" for c in value) and len(value) < 16
        return _machine_made(value) and not _words_run_together(value) and not _a_scheme(value) and not hexadecimal
    return True


#: A qualifier naming what of a secret follows, not the secret ("token (id): …", "API key (name): …").
_ATTRIBUTES = frozenset(  # (words split, not a list literal: one a line would take 36 lines)
    [
        *"id ids name names arn hash sha1 sha256 md5 kid jti iat exp ttl version length type format path".split(),  # noqa: SIM905
        *"uuid prefix suffix expiry expires scope scopes hint label ref count size limit input output".split(),  # noqa: SIM905
        *"prompt total".split(),  # noqa: SIM905
    ]
)


def _a_password_alone(lowered: str, at: int, value: str) -> bool:
    """Whether a password's name with no verb before it ("chat: password hunter2", "Wifi password Xk9mPq2Lw",
    "password Xy7#kq9!Lm"; not "password (review8a)", an aside) is given ``value``: its full
    name ("password", "passwd", "passphrase", "passcode": ``SENTENCE_PASSWORD_NAMES``; "pw" and "pwd" are a shell's
    words too), and a value with a digit that names no algorithm (``argon2id``, ``Argon2``: "we hash the password
    argon2id", review9 R8), so "password manager", "password reset" and "password hashing" name none. A word with a
    digit after it mid-sentence ("validate the password field2") goes too: keeping it kept "new password
    Xk9mPq2Lw" and "router admin password Summer2024" (review10 R-E)."""
    return lowered.startswith(SENTENCE_PASSWORD_NAMES, at) and any(c.isdigit() for c in value) and not _a_scheme(value)


#: The next value of a list after a noun's first ("the passwords are A and B", "A, B and C", "A / B", "the password is
#: A or B", "les mots de passe sont A et B", "die Passwörter sind A und B"): a closing quote or parenthesis of the one
#: before, "and", "or" (or their word in the other languages' rule), ",", "&" or "/", then the value.
_LISTED_VALUE = Lazy(
    globals(),
    "_LISTED_VALUE",
    rf"(?:{_BLANK}*[»“”‘’«])?[\"'`)]?(?:,?{_BLANK}+(?:and|or|&|et|ou|und|oder|y|o|e|en|of|и|или){_BLANK}+"
    rf"|{_BLANK}*[,/]{_BLANK}*)\(?(?:[«„‚“»]{_BLANK}*)?(?P<quote>[\"'`]?)(?P<value>[^\s\"'`«»“”„‚‘’]+)(?P=quote)",
)


def _listed_values(text: str, lowered: str, last: int, parts: list[str], password: bool) -> int:
    """Redact (into ``parts``) each made value listed from ``last`` on, up to the first that is not one ("the
    passwords are A and B, rotated monthly" keeps "rotated"); where the text is now kept from. (``password``: the
    noun is a password's own name, ``_looks_made``.)"""
    while (match := _LISTED_VALUE.match(lowered, last)) is not None:
        start, end = match.span("value")
        kept = _before_a_quote(text[start:end]).rstrip(_AFTER_A_VALUE)
        if not _looks_made(kept.rstrip("!?"), password):
            break
        parts += (text[last:start], "[redacted:secret]")
        last = start + len(kept)
    return last


#: What a match of ``_SENTENCE_SECRET`` starts with; the second group only names a key ("api key is").
_SENTENCE_STARTS = ("pass", "pw", "secret", "token", "log", "cred")
_KEY_STARTS = ("api", "access", "private", "auth", "admin", "master")


def _sentence_matches(lowered: str) -> list[re.Match[str]]:
    """Every match of ``_SENTENCE_SECRET`` in ``lowered``, by where it starts, none inside a word."""
    starts = (*_SENTENCE_STARTS, *_KEY_STARTS) if "key" in lowered else _SENTENCE_STARTS
    return _matches_from(_SENTENCE_SECRET, lowered, starts, inside_words=False)


def _matches_from(
    pattern: Lazy, lowered: str, starts: tuple[str, ...], inside_words: bool = True
) -> list[re.Match[str]]:
    """Every match of ``pattern`` in ``lowered``, by where it starts: the pattern is tried only where one of
    ``starts`` begins (found by ``str.find``, a fifth of the time the pattern's own scan takes), and, unless
    ``inside_words``, not right after a word's character."""
    found: dict[int, re.Match[str]] = {}
    for start in starts:
        at = lowered.find(start)
        while at != -1:
            if (
                at not in found
                and (inside_words or not (at and lowered[at - 1] in WORD_CHARS))
                and (match := pattern.match(lowered, at)) is not None
            ):
                found[at] = match
            at = lowered.find(start, at + 1)
    return [found[at] for at in sorted(found)]


#: What a quote stands for, however it is spelt.
_QUOTES = frozenset("\"'")


def _before_a_quote(value: str) -> str:
    """``value`` up to the first quote in it that ends it (a page's ``&quot;Password is correct.&quot;``), as a
    quote would: every spelling the one escape reader reads (``escapes``: ``&#x22;``, ``&QUOT;``, ``\\u0022``), not
    a list of four beside it (``&#x22;…&#x22;`` left the marker a stray ``;``: review44a L3), and a written ``'``. One
    that opens the value or ends it (nothing but signs and quotes after it), not one with letters or digits after it:
    ``Xk9m\\u0027Pq2Lw7``, ``Xk9m\\u0027-Pq2Lw7``, ``Xk9m'Pq2Lw7`` and ``Tr0%22ub4dor9xQ`` are one made value, and cut
    there their first letters kept them (review44e M3, review44g L3). A word's apostrophe (``isn&#39;t``,
    ``John\\u0027s``, ``John's``) cuts: "Your password isn't strong", "The password is John's" are prose."""
    spans = sorted([*((start, end) for start, end, _ in escapes(value, _QUOTES.__contains__)), *_apostrophes(value)])
    for (start, end), goes_on in zip(spans, _letters_after(value, spans), strict=True):
        if start == 0 or not goes_on or _a_words_apostrophe(value, start, end):
            return value[:start]
    return value


def _letters_after(value: str, spans: list[tuple[int, int]]) -> list[bool]:
    """For each quote of ``spans`` (in order), whether a letter or a digit follows it in ``value``, the quotes after it
    aside: read once, from the end (a value of many quotes was read again for each)."""
    found: list[bool] = []
    after, later = False, len(value)
    for start, end in reversed(spans):
        after = after or any(char.isalnum() for char in value[end:later])
        found.append(after)
        later = start
    return found[::-1]


def _apostrophes(value: str) -> list[tuple[int, int]]:
    """Where each ``'`` written in ``value`` is, as (start, end)."""
    spans = []
    at = value.find("'")
    while at >= 0:
        spans.append((at, at + 1))
        at = value.find("'", at + 1)
    return spans


#: What follows a word's apostrophe: a contraction's end (``isn't``, ``we're``, ``I've``, ``we'll``, ``I'd``, ``I'm``)
#: or a possessive's ``s``.
_APOSTROPHE_ENDINGS = frozenset(["t", "s", "re", "ve", "ll", "d", "m"])


def _a_words_apostrophe(value: str, start: int, end: int) -> bool:
    """Whether the quote from ``start`` to ``end`` of ``value`` is a word's apostrophe: letters alone before it, back
    to a blank or a sign, and one of ``_APOSTROPHE_ENDINGS`` after it, ending there (review44g M1). Only the words
    beside it are read: a value of many quotes was copied whole for each."""
    letters = end
    while letters < len(value) and value[letters].isalpha():
        letters += 1
    word = start
    while word > 0 and value[word - 1].isalnum():
        word -= 1
    return (
        value[end:letters].lower() in _APOSTROPHE_ENDINGS
        and not value[letters : letters + 1].isdigit()
        and value[word:start].isalpha()
    )


def _after_a_verb(lowered: str, at: int, verb: Lazy) -> bool:
    """Whether a verb that gives a value (``verb``: "use", "enter the admin", "try this"; "set the", "changed my")
    comes right before ``at``."""
    return verb.search(lowered, max(0, at - 40), at) is not None


#: Signs a made secret holds between its letters; a word, a name, an address or a path is written without them. (A
#: name's apostrophe too: "the password is O'Reilly" names no made one.)
_PLAIN_SIGNS = frozenset("-_.@/'")


#: What a password's own name starts with ("password", "passphrase", "pw", "pwd"), not a token's or a key's.
_PASSWORD_NAMES = ("pass", "pw")
#: What an algorithm's, a curve's or a character set's name starts with before its number: "the password is sha256
#: hashed", "… argon2i hashed", "… md5sum of the salt", "… utf8mb4 encoded", "… x25519 derived" name no password.
_SCHEMES = frozenset(
    ["sha", "md", "base", "argon", "pbkdf", "utf", "aes", "rsa", "oauth", "ed", "pkcs", "python", "crc", "latin"]
    + ["x", "ntlm", "blake", "scrypt", "bcrypt", "ucs", "iso", "cp", "rc", "chacha", "poly", "hmac"]
)
#: What follows a scheme's number in its names: ``argon2i``, ``argon2id``, ``md5sum``, ``crc32c``, ``utf8mb4``,
#: ``sha256sum``, ``blake2b``, ``ed25519``.
_SCHEME_SUFFIXES = frozenset(["", "i", "id", "d", "b", "s", "c", "sum", "hash", "mb4", "be", "le"])
#: What a number counts when a unit follows it: "the password is 12chars long", "… 90days old", "… 256bits".
_UNITS = frozenset(
    ["char", "chars", "characters", "digit", "digits", "letter", "letters", "bit", "bits", "byte", "bytes", "words"]
    + ["sec", "secs", "seconds", "min", "mins", "minutes", "hour", "hours", "day", "days", "week", "weeks"]
    + ["month", "months", "year", "years", "rounds", "times", "kb", "mb", "gb"]
)


def _looks_made(value: str, password: bool = False) -> bool:
    """A value no sentence writes as a word: six digits or more, letters with digits (eight characters or more, or
    fewer with both cases or a sign: ``Xy7#kq9!Lm``, ``8f14…``, ``hunter2hunter2``; after a ``password``'s own name,
    six or more, ``hunter2``, ``abc123``, unless an algorithm's name: ``sha256``), or eight characters or more of
    letters and signs. A word (``wrong``, ``expired``, ``Redis``), a short version or number (``v2``, ``3600``), a
    path, an address, a dotted name, code or a placeholder is none; nor is a word in Markdown's emphasis
    (``**required**``, ``*optional*``): its stars are not signs of the value."""
    if value[:1] == "*" and value[-1:] == "*":
        value = value.strip("*")
    if len(value) < 6 or not _is_literal(value) or "://" in value or any(c in value for c in "()[]{}<>"):
        return False
    if _PATH.fullmatch(value) or _DOTTED_NAME.fullmatch(value) or ("_" in value and _ENV_NAME.fullmatch(value)):
        return False
    if "-" in value and (_COMPOUND.fullmatch(value) or _TIMESTAMP.fullmatch(value)):
        return False
    if value.isdigit():
        return True
    if value[0].isdigit() and value.lstrip("0123456789").lower() in _UNITS:  # "12chars", "3600seconds"
        return False
    letters, digits = any(c.isalpha() for c in value), any(c.isdigit() for c in value)
    signs = any(not c.isalnum() and c not in _PLAIN_SIGNS for c in value)
    both_cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if letters and digits:
        return len(value) >= 8 or signs or both_cases or (password and _a_weak_password(value))
    return letters and signs and len(value) >= 8


def _a_scheme(value: str) -> bool:
    """Whether ``value`` is an algorithm's, a curve's or a format's name and number (``Ed25519``, ``RSA4096``,
    ``argon2id``, ``sha256sum``; ``_SCHEMES``), a version's ``v`` too (``ntlmv2``)."""
    lower = value.lower()
    head = lower[: len(lower) - len(lower.lstrip("abcdefghijklmnopqrstuvwxyz"))]
    number = lower[len(head) :]
    rest = number.lstrip("0123456789")
    scheme = head if head in _SCHEMES else head.removesuffix("v")
    return len(number) > len(rest) and scheme in _SCHEMES and rest in _SCHEME_SUFFIXES


def _a_weak_password(value: str) -> bool:
    """Six letters and digits or more that name no algorithm (``hunter2``, ``abc123``; not ``sha256``, ``base64``,
    ``argon2i``, ``ntlmv2``, ``x25519``): a sentence that gives a password such a value gives a password, a token's or
    a key's is no word yet."""
    if len(value) < 6 or not value.isalnum():
        return False
    lower = value.lower()
    head = lower[: len(lower) - len(lower.lstrip("abcdefghijklmnopqrstuvwxyz"))]
    scheme = head if head in _SCHEMES else head.removesuffix("v")  # a version's "v": ``ntlmv2``
    rest = lower[len(head) :].lstrip("0123456789")
    # A one-letter name (``x25519``) counts before a number alone: ``x9k2m3`` may be a password; so may a name's
    # letters before a number and a word (``ed4life``, ``cp3po99``): a scheme's suffix is short and known.
    if len(scheme) == 1:
        return not value[1:].isdigit()
    return scheme not in _SCHEMES or rest not in _SCHEME_SUFFIXES


# --------------------------------------------------------------------------- secrets named in other words

#: A password's, a token's or a key's name in French, German (compounds too: "Datenbankpasswort"), Spanish,
#: Portuguese, Italian and Dutch (Russian's below), plurals too, given its value by a verb ("le mot de passe de la base
#: est …", "das Passwort lautet …", "la contraseña del servidor es …", "het wachtwoord is …", "les mots de passe sont
#: …") or a colon ("senha: …", "Mot de passe : …", "mdp : …", "jeton : …").
_OTHER_NOUN = (
    r"(?:\b(?:mots? de passe|clé (?:d'|de l')?api)|(?:passw|kennw)(?:ort|örter)|\b(?:(?:api-?)?schlüssel"
    r"|(?:contraseña|clave|senha|jeton|mdp|chave|sleutel)s?|wachtwoord(?:en)?|chiave))"
)
_OTHER_VERB = r"(?:est|c['\u2019]est|était|ist|lautet|war|es|era|é|è|e'|luidt|sont|sind|son|são|zijn)"
#: The blanks between their words: a tab, and the no-break spaces French puts before a colon (U+00A0, U+202F).
_OTHER_BLANK = r"[ \t\u00a0\u202f]"
#: Up to five words between a name and its verb ("de la base", "del servidor", "für die Datenbank").
_OTHER_WORDS = rf"(?:{_OTHER_BLANK}+[^\s:=]+){{0,5}}?"
#: A line's end before a value on the next line (a JSON string's escaped one too), and a Markdown list's mark or a
#: quote there (``Passwort:`` then ``- …``, ``Пароль:`` then ``Xk9…``, ``"Contraseña:\\n- …"``: review9 R3, R7).
_OTHER_NEXT_LINE = rf"(?:{_NEXT_LINE}{_OTHER_BLANK}*(?:(?:[-*+>]|\d{{1,3}}[.)]){_OTHER_BLANK}+)?)"
#: What follows a verb before its value: blanks, or a line's end (the value on the next line), and a colon. (The line's
#: end itself, ``_OTHER_NEXT_LINE``, is read once after every name's link, not in each: the pattern compiles a fifth
#: faster so, and the other languages' rule is compiled by any text holding one of its names.)
_OTHER_AFTER_VERB = rf"(?:{_OTHER_BLANK}+|(?={_OTHER_BLANK}*{_NEXT_LINE}))(?:[:=]{_OTHER_BLANK}*)?"
#: A colon or ``=`` after a name, blanks (French's no-break space) on either side (the value maybe on the next line).
_OTHER_COLON = rf"{_EMPHASIS_CLOSE}?{_OTHER_BLANK}*[:=]{_EMPHASIS_CLOSE}?{_OTHER_BLANK}*"
#: What names a secret in other words, each with what gives it its value, matched in a lowercase copy of the text:
#: the names above (and Dutch's "is", "was"); "token", in every one of those languages, and the Italian "password" by
#: a verb of theirs alone (a colon after them, "is" or "was" are English's), at most five words of 30 characters after
#: it (``redaction.SHARED_REACH``); Russian's "пароль", "токен", "ключ" (a word of its own: "подключение" holds it)
#: and their plurals by a colon or a dash; the Chinese, Japanese and Korean names by "是", "为", "は", "が", "는", "은"
#: or a colon, blanks or none between ("密码是X", "密码：X", "パスワードは X", "비밀번호는 X"); and a user and its password as a pair ("the staging creds are
#: deploy / …", not "the creds are in /etc/app/…": a path's next piece is no password). A value ends at a blank, a
#: quote, or a character past U+2000 (a closing quote, a dash, "です"), a currency sign (``€``) aside; it may open
#: with a quote of those languages (``「“«„»‚``: German writes ``»…«`` and ``‚…‘`` too).
_OTHER_SECRET = Lazy(
    globals(),
    "_OTHER_SECRET",
    rf"(?:{_OTHER_NOUN}{_OTHER_WORDS}(?:{_OTHER_BLANK}+(?:{_OTHER_VERB}|is|was){_OTHER_AFTER_VERB}|{_OTHER_COLON})"
    rf"|\btoken(?: [^\s:=]{{1,30}}){{0,5}}?{_OTHER_BLANK}{_OTHER_VERB}{_OTHER_AFTER_VERB}"
    rf"|\bpassword(?: [^\s:=]{{1,30}}){{0,5}}?{_OTHER_BLANK}(?:é|è|était){_OTHER_AFTER_VERB}"
    rf"|\b(?:парол[ьи]|токены?|ключи?)(?: +[^\s:=]+){{0,4}}?(?:{_EMPHASIS_CLOSE}? *[:=]{_EMPHASIS_CLOSE}? *| +(?:—|–|-|это) +)"
    r"|(?:密码|口令|密钥|秘钥|令牌|パスワード|トークン|api ?キー|비밀번호|암호|패스워드|토큰|api ?키)"
    rf"[ \t]*(?:(?:是|为|為|は|が|는|은|:|：|=)[ \t]*{_EMPHASIS_CLOSE}?[ \t]*)+"
    r"|\bcred(?:ential)?s(?: +[^\s:=/]+){0,3}?(?: +(?:are|were|is)(?: *: *| +)| *: *)[\w.@+-]+ */ *(?![^\s/]*/)"
    rf")(?:{_OTHER_BLANK}*{_OTHER_NEXT_LINE})?(?P<quote>[\"'`]?)(?:[「“«„»‚]{_OTHER_BLANK}*)?(?P<value>[^\s\"'`«»\u2000-\u209f\u20d0-\U0010ffff]+)",
)
#: What a match of ``_OTHER_SECRET`` starts with: the pattern is tried only where one is (scanning a text with it
#: costs as much as every other rule together).
_OTHER_STARTS = ("mot de passe", "mots de passe", "clé", "passwort", "passwört", "kennwort", "kennwört", "api",
                 "schlüssel", "contraseña", "clave", "senha", "jeton", "mdp", "chave", "chiave", "sleutel", "wachtwoord",
                 "token", "password", "парол", "токен", "ключ", "密码", "口令", "密钥", "秘钥", "令牌", "パスワード", "トークン",
                 "비밀번호", "암호", "패스워드", "토큰", "cred")  # fmt: skip


#: What a password's own name starts with in those languages (``_looks_made``'s ``password``: "das Passwort ist
#: hunter2" gives a password as "the password is hunter2" does; a token's, a key's or a "clave"'s value is no word yet).
_OTHER_PASSWORD_NAMES = ("mot", "passw", "kennw", "contraseña", "senha", "wachtwoord", "mdp", "парол", "密码", "口令",
                         "パスワード", "비밀번호", "암호", "패스워드")  # fmt: skip


#: Words for "key" that name any key (a dictionary's, a table's primary key: "a chave primária é customerId1"): a
#: secret's with a word saying what it opens near it (``_KEY_OPENS``, starting a word), as English's "key" needs
#: one, or with a value no name holds (a sign: "la chiave è Kx9#mPq2Ic"). Not Spanish's "clave", which is a
#: password as often as a key (a bank's, the wifi's: "mi clave es Xk9mPq2Lw"): its value goes, as before rules 11.
_ANY_KEY_NAMES = ("chave", "chiave", "sleutel", "ключ", "schlüssel")
_KEY_OPENS = ("api", "secret", "segret", "privad", "privat", "acesso", "accesso", "acceso", "geheim", "zugang",
              "секрет", "приват", "доступ")  # fmt: skip
#: How far before a "key" name its qualifier may be ("секретный ключ", "geheime sleutel").
_KEY_OPENS_BEFORE = 16
#: French's links for "mdp" (a Markov decision process in a chat about learning: "mdp: FrozenLake-v1", "MDP =
#: GridWorld5x5"): a French colon with its blank before it ("mdp : …"), or a French verb; else a value with a sign.
_MDP_LINKS = (" :", "\u00a0:", "\u202f:", " est ", " c'est ", " c\u2019est ", " était ")


def _names_a_secret_here(lowered: str, noun: int, value: int) -> bool:
    """Whether the name at ``noun``, given the value at ``value``, names a secret: "chave" and its kin with a word
    saying what they open (``_KEY_OPENS``: "chave da API", "секретный ключ"), "mdp" with a French link."""
    if lowered.startswith(_ANY_KEY_NAMES, noun):
        return _a_word_starts(lowered[max(0, noun - _KEY_OPENS_BEFORE) : value], _KEY_OPENS)
    if lowered.startswith("mdp", noun):
        return any(link in lowered[noun:value] for link in _MDP_LINKS)
    return True


def _a_word_starts(text: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` starts or ends a word of ``text`` ("chave da api", "chiave segreta", "chave da
    openapi"; not the "api" inside "capitali" or "rapida": review9 R5, review10 R-G)."""
    for word in words:
        at = text.find(word)
        while at != -1:
            end = at + len(word)
            if at == 0 or not text[at - 1].isalpha() or end == len(text) or not text[end].isalpha():
                return True
            at = text.find(word, at + 1)
    return False


def _signed(value: str) -> bool:
    """Whether ``value`` holds a sign no name is written with (``_PLAIN_SIGNS`` aside): ``Kx9#mPq2Ic``, not
    ``customerId1`` or ``FrozenLake-v1``."""
    return any(not c.isalnum() and c not in _PLAIN_SIGNS for c in value)


def _in_other_words(text: str) -> str:
    """``text`` with a secret named in another language, or given as a user and password pair, redacted: "le mot de
    passe de la base est Kx9#mPq2Lw", "das Passwort ist …", "数据库密码是 …", "パスワードは … です", "creds are deploy /
    …". As in English (``_sentences``), the value must look made (``_looks_made``): "le mot de passe est incorrect",
    "das Passwort ist abgelaufen", "密码错误" stay as written."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lowercase is longer stays as written: positions line up
        lowered = "".join(low if len(low := c.lower()) == 1 else c for c in text)
    parts: list[str] = []
    last = 0
    for match in _matches_from(_OTHER_SECRET, lowered, _OTHER_STARTS):
        start, end = match.span("value")
        kept = text[start:end].rstrip(_AFTER_A_VALUE)
        if "\\n" in kept and "\\n" in lowered[match.start() : start]:  # a JSON string's lines: the value ends its own
            kept = kept.partition("\\n")[0].rstrip("\\").rstrip(_AFTER_A_VALUE)
        password = lowered.startswith(_OTHER_PASSWORD_NAMES, match.start())
        if not _names_a_secret_here(lowered, match.start(), start) and not _signed(kept):
            continue
        if match.start() >= last and _looks_made(kept.rstrip("!?"), password):
            parts += (text[last:start], "[redacted:secret]")
            last = _listed_values(text, lowered, start + len(kept), parts, password)
    return "".join(parts) + text[last:] if parts else text


# --------------------------------------------------------------------------- applying the rules


def _apply(rule: Rule, text: str) -> str:
    marker = f"[redacted:{rule.kind}]"
    if rule.fresh is not None:
        return _replaced(rule, rule.fresh(), text)
    if rule.replace is not None:
        done = _replaced(rule, rule.replace, text)
        while rule.again and done != text:
            text, done = done, _replaced(rule, rule.replace, done)
        return done
    if rule.group == 0 and rule.check is None:
        return rule.pattern.sub(marker, text)

    def replace(match: re.Match[str]) -> str:
        if rule.check is not None and not rule.check(match):
            return match.group(0)
        return _marked(match, rule.group, marker)

    return rule.pattern.sub(replace, text)


def _replaced(rule: Rule, replace: Replace, text: str) -> str:
    """``text`` with each match of ``rule`` given to ``replace``; with ``rule.retry``, a match it leaves as written is
    looked for again one character on, so the text it took stays open to the next match."""
    if not rule.retry:
        return rule.pattern.sub(replace, text)
    parts: list[str] = []
    last = at = 0
    while (match := rule.pattern.search(text, at)) is not None:
        replaced = replace(match)
        if replaced == match.group(0):
            at = match.start() + 1
            continue
        parts += (text[last : match.start()], replaced)
        last = at = match.end()
    return "".join(parts) + text[last:]


_CONTEXT_GATE = Lazy(globals(), "_CONTEXT_GATE", CONTEXT_GATE_BUT_NETRC)  # (see ``redaction``; ``_context_gate``)
#: ``TOKEN_GATE``'s second alternative (the first, ``\\S{16}``, is ``longest_run``'s): most texts hold no "basic"
#: to ask it about.
_BASIC = Lazy(globals(), "_BASIC", TOKEN_GATE.partition("|")[2])


def _token_gate(text: str, lowered: str, longest: int) -> bool:
    """Whether ``TOKEN_GATE`` finds ``text`` (``lowered`` is its lowercase, ``longest`` its ``longest_run``).

    A text without "basic" in its lowercase cannot match ``(?i:basic)`` unless it holds a character that pattern
    matches a letter of without lowering to it (``folds_into_ascii``: the long s); any other text is asked.
    """
    if longest >= 16:
        return True
    return ("basic" in lowered or folds_into_ascii(text)) and _BASIC.search(text) is not None


def _context_gate(text: str) -> bool:
    """Whether ``CONTEXT_GATE`` finds ``text``, by substring tests where they decide: each of ``:=<'`` and ``--`` is
    a match alone, ``login`` before a blank is one, so is a ``password`` after a ``machine`` or ``default``
    (``a_netrc_entry``), and a text with neither "ENV" nor "-p" (nor "define") cannot
    match the alternatives that need them; the pattern, but its netrc part (``CONTEXT_GATE_BUT_NETRC``, which scans
    every position of a text it does not find), is asked only about a text with one of those, and
    Redis's words are looked for in the lowered text (case folds nothing else into them but the few characters of
    ``folds_into_ascii``: a text holding one is asked)."""
    if ":" in text or "=" in text or "<" in text or "'" in text or "--" in text or a_netrc_entry(text):
        return True
    if folds_into_ascii(text):  # (the pattern's case-blind words match more than ``str.lower`` finds: ``rediſ-``)
        return _CONTEXT_GATE.search(text) is not None
    if ("ENV" in text or "-p" in text) and _CONTEXT_GATE.search(text) is not None:
        return True
    if "login " in text or "login\t" in text or "\tTRUE\t" in text or "\tFALSE\t" in text:
        return True
    lowered = text.lower()
    if "define" in lowered and _CONTEXT_GATE.search(text) is not None:
        return True
    if any(word in lowered for word in ARGUMENT_WORDS):
        return True
    return may_set_a_name_apart(text, lowered) and _CONTEXT_GATE.search(text) is not None


_TOKEN_RULES = (*_PROVIDER_RULES, *(rule for rule in _CONTEXT_RULES if rule.kind in ("bearer", "basic-auth")))
_KEYED_RULES = (*(rule for rule in _CONTEXT_RULES if rule.kind not in ("bearer", "basic-auth")), *_KEY_RULES)


def redact_value(value: object, key: str = "") -> object:
    """Tool-call arguments redacted: every string in them, and the whole of a literal under a secret-named key."""
    return scrub_value(value, key) if enabled() else value


def scrub_value(value: object, key: str = "") -> object:
    """``redact_value`` for a caller that has already asked ``enabled()`` (a build asks once per session)."""
    if isinstance(value, str):
        if key and secret_key(key) and _is_literal(value.strip()) and value.lower() not in _NOT_VALUES:
            return "[redacted:secret]"
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrub_value(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(v, key) for v in value]
    return value


def _holds(text: str, lowered: str, needles: tuple[str, ...]) -> bool:
    """Whether ``text`` holds a needle: a lowercase one in any case, one with capitals as written; no needles: yes."""
    return not needles or any(needle in (lowered if needle.islower() else text) for needle in needles)


#: Characters from the most to the least common in English and code: the letters by their frequency in English,
#: with the blank and the punctuation code is full of. A character not here (a capital, a digit, ``@``) is rarer.
_COMMON_FIRST = " etaoinsrhldcu._/-:=mfpgwybvkxjqz"


def _rarest(needle: str) -> str:
    """The character of ``needle`` least likely to be in a text (``_COMMON_FIRST``): its sentinel."""
    return max(needle, key=_rareness)


def _rareness(character: str) -> int:
    at = _COMMON_FIRST.find(character)
    return len(_COMMON_FIRST) if at == -1 else at


_Sentinels = tuple[tuple[str, tuple[tuple[str, tuple[int, ...]], ...]], ...]


class _Needles:
    """Which rules of a group a text may match, found in one pass over their needles instead of a call per rule.

    A rule runs on a text that holds one of its needles (as ``_holds`` says) or on every text when it has none;
    the rules that run do so in the group's order, as the loop they replace did. The needles are grouped by their
    rarest character (``_rarest``), looked for first: a text without it holds none of them, and looking for one
    character is a fraction of looking for a word (a 10k build's text passing the token gate holds no capital ``A``
    nearly three times in four, and skips the 15 needles of the access keys and the Atlassian tokens).
    """

    def __init__(self, rules: tuple[Rule, ...]):
        self.rules = rules
        self.always = frozenset(i for i, rule in enumerate(rules) if not rule.needles)
        #: Each needle once, with the rules it calls on: a needle is a pass over the text (``gl`` is GitLab's and
        #: Grafana's, ``AKIA`` an access key id's and a secret key's beside it), under its sentinel.
        self.in_lowered = self._grouped((n, i) for i, rule in enumerate(rules) for n in rule.needles if n.islower())
        self.as_written = self._grouped((n, i) for i, rule in enumerate(rules) for n in rule.needles if not n.islower())

    @staticmethod
    def _grouped(pairs: Iterable[tuple[str, int]]) -> _Sentinels:
        groups: dict[str, list[int]] = {}
        for needle, i in pairs:
            groups.setdefault(needle, []).append(i)
        sentinels: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        for needle, indices in groups.items():
            sentinels.setdefault(_rarest(needle), []).append((needle, tuple(indices)))
        return tuple((sentinel, tuple(needles)) for sentinel, needles in sentinels.items())

    def due(self, text: str, lowered: str) -> list[Rule]:
        found = set(self.always)
        for held, sentinels in ((lowered, self.in_lowered), (text, self.as_written)):
            for sentinel, needles in sentinels:
                if sentinel in held:
                    for needle, indices in needles:
                        if needle in held:
                            found.update(indices)
        return [self.rules[i] for i in sorted(found)]


_TOKEN_NEEDLES = _Needles(_TOKEN_RULES)
_KEYED_NEEDLES = _Needles(_KEYED_RULES)


def redact(text: str) -> str:
    """``text`` with every secret value it holds replaced by ``[redacted:<kind>]``."""
    return scrub(text) if text and enabled() else text


def scrub(text: str) -> str:
    """``redact`` for a caller that has already asked ``enabled()``: asking reads the settings, a build's hot path.

    A short text is scrubbed once and remembered: a history says the same short things again and again (a tool's
    path or command, "ok", a file's name), about two calls in five of a build at 10k sessions, and what ``scrub``
    makes of a text depends on the text alone. Kept as ``secret_key``'s answers are (``Remembered``).
    """
    return _scrubbed(text) if len(text) > SCRUBBED_CHARS else str(_SCRUBBED(text))


#: The longest text ``scrub`` remembers, and how many it remembers before it starts again (about 2 MB when full of
#: ASCII texts: a text with no secret is its own answer).
SCRUBBED_CHARS = 160
SCRUBBED_REMEMBERED = 8192


def _scrubbed(text: str) -> str:
    """``text`` with every secret value it holds replaced (``scrub``, worked out): what the rules find in it as
    written and as its escapes read (``_scrubbed_as_written``), and in it as a terminal shows it (``as_seen``):
    a secret with an invisible character inside (``AKIA\\u200bIOSF…``, a word joiner in a ``ghp_`` token) was no
    match, and ``deja show``, which takes that character out, printed it whole (review47a M2). What is no secret
    keeps its characters as stored: an emoji's joiners, a flag's tags, the marks of right-to-left text."""
    if not text:
        return text
    written = _scrubbed_as_written(text)
    seen, where = as_seen(text)
    if not seen:
        return written
    as_written = _redactions(text, written)
    if as_written is None:  # (two markers side by side: the text as seen is read from ``written``, and none may be)
        text, (seen, where), as_written = written, as_seen(written), []
    # (a span ends after its last character: the unseen ones after it are no part of it)
    as_read = [
        (where[start], where[max(start, end - 1)] + (end > start), marker)
        for start, end, marker in _redactions_made(seen, _scrubbed_as_written(seen))
    ]
    return _put_back(text, sorted([*as_written, *as_read]))


def _scrubbed_as_written(text: str) -> str:
    """``text`` with every secret value the rules find in it as written and as its escapes read
    (``_redacted_as_unescaped``) replaced."""
    written = _by_the_rules(text)
    decoded, where = unescaped(text)
    return _redacted_as_unescaped(text, written, decoded, where) if decoded else written


def _by_the_rules(text: str) -> str:
    """``text`` with every secret value the rules find in it as written replaced."""
    original, lowered, longest = text, text.lower(), longest_run(text)
    if _token_gate(text, lowered, longest):
        for rule in _TOKEN_NEEDLES.due(original, lowered):
            if rule.run <= longest:  # (a marker put in by an earlier rule makes no run a match could use)
                text = _apply(rule, text)
    if _context_gate(text):
        for rule in _KEYED_NEEDLES.due(original, lowered):
            text = _apply(rule, text)
        if _holds(original, lowered, SECRET_NOUNS):
            text = _assignments(text)
            text = _apply(_SECRET_WORD, text)
        text = _pgpass(text)
    if may_name_a_secret_in_english(lowered):
        text = _sentences(text)
    if may_name_a_secret_in_other_words(lowered):
        text = _in_other_words(text)
    return text


def _redacted_as_unescaped(text: str, written: str, decoded: str, where: list[int]) -> str:
    """``text`` with what the rules redact in it as written (``written``) and in ``decoded`` (its escapes read:
    ``unescaped``, which gives ``where`` each of its characters was) redacted where it was written, escapes and all:
    ``password%3D…``, ``&quot;password&quot;: &quot;…`` and ``postgres%3A%2F%2Fuser%3A…%40`` hid their secret from
    every rule (review43d M5).

    Both are read from ``text``, and their redactions put back together: read from ``written``, an escaped secret
    followed by a plain one (``client_secret%3d…&PGPASSWORD:…``) ran into the plain one's marker, and the rules
    leave alone a value that runs into a marker (review43e L1). The escapes are read once, not again in what they
    make: ``&amp;amp;…`` nested five hundred deep had the reading call itself as deep, and stopped every ``deja
    index`` at Python's recursion limit (review43e H1). The text is joined once, not again for each redaction
    (which took 6.7 s a megabyte of ``password%3D…&``: M1)."""
    as_written = _redactions(text, written)
    if as_written is None:  # (two markers side by side: the rules read ``written`` as its escapes read, as before)
        text, (decoded, where), as_written = written, unescaped(written), []
    as_read = [(where[start], where[end], marker) for start, end, marker in _redactions_read(decoded)]
    return _put_back(text, sorted([*as_written, *as_read]))


def _redactions_read(decoded: str) -> list[tuple[int, int, str]]:
    """Each redaction the rules make in ``decoded`` (``_redactions``). Where a rule rewrote a value's shape
    (terraform's sensitive object becomes one string), each marker stands for the value it replaced, found by walking
    both texts (``_aligned``), or else the whole run between what the rules left as it was is one redaction: those
    were dropped, and ``{&quot;pw&quot;: &quot;…`` kept its secret (review44a M2)."""
    return _redactions_made(decoded, _by_the_rules(decoded)) if decoded else []


def _redactions_made(decoded: str, scrubbed: str) -> list[tuple[int, int, str]]:
    """Each redaction ``scrubbed`` (what the rules made of ``decoded``) made in ``decoded`` (``_redactions_read``)."""
    spans = _redactions(decoded, scrubbed)
    if spans is None:
        spans = _aligned(decoded, scrubbed)
    if spans is None:
        start = _alike(decoded, 0, scrubbed, 0)
        after = _alike(decoded[start:][::-1], 0, scrubbed[start:][::-1], 0)  # (what both end with, after ``start``)
        spans = [(start, len(decoded) - after, _markers_in(scrubbed[start : len(scrubbed) - after]))]
    return [(start, end, marker) for start, end, marker in spans if decoded[start:end] != marker]


#: How many characters a rule may write beside its marker (terraform's quotes around the string an object becomes).
_BESIDE_A_MARKER = 4
#: How much of the text after a marker is looked for, to find where the value it replaced ends.
_ANCHOR = 32


def _aligned(decoded: str, scrubbed: str) -> list[tuple[int, int, str]] | None:
    """Each (start, end, marker) of ``decoded`` a marker of ``scrubbed`` (the rules' output) stands for, found by
    walking both: the text between markers is alike, but a few characters a rule wrote beside its marker
    (``_BESIDE_A_MARKER``), and a value ends where the text after its marker is next found. None where they do not
    walk together."""
    spans: list[tuple[int, int, str]] = []
    at = done = 0  # (in ``decoded``, in ``scrubbed``)
    while True:
        same = _alike(decoded, at, scrubbed, done)
        at, done = at + same, done + same
        if at == len(decoded) and done == len(scrubbed):
            return spans
        start = scrubbed.find(MARKER, done)
        if start < 0 or start - done > _BESIDE_A_MARKER:
            return None
        close = scrubbed.find("]", start) + 1
        while close and scrubbed.startswith(MARKER, close):  # (markers side by side: one span)
            close = scrubbed.find("]", close) + 1
        if not close:
            return None
        found = _value_end(decoded, at, scrubbed, close)
        if found is None:
            return None
        end, beside = found
        spans.append((at, end, scrubbed[start:close]))
        at, done = end, close + beside


#: How far after a value's start its end is first looked for; each later look goes twice as far.
_FIRST_REACH = 256


def _value_end(decoded: str, at: int, scrubbed: str, close: int) -> tuple[int, int] | None:
    """Where the value that starts at ``at`` in ``decoded`` ends, and how many characters its rule wrote after its
    marker (which ends at ``close`` in ``scrubbed``): where the text after them (``_ANCHOR`` of it) is next found,
    the fewest written characters first; None where it is nowhere. Looked for within a reach that doubles, so that
    a look that fails does not read the rest of the text for each value (a megabyte of escaped terraform objects,
    each one's first look failing, took 1.56 s, four megabytes 22 s: review44e M2); the last reach is the text."""
    reach = _FIRST_REACH
    while True:
        bound = at + reach
        for beside in range(_BESIDE_A_MARKER + 1):
            anchor = scrubbed[close + beside : close + beside + _ANCHOR]
            if close + beside + _ANCHOR < len(scrubbed):
                end = decoded.find(anchor, at, bound + len(anchor))
            else:  # (the rest of the text: where ``decoded`` ends with it, not the first ``"}}`` in the value)
                end = len(decoded) - len(anchor) if decoded.endswith(anchor) else -1
            if end >= at:
                return end, beside
        if bound >= len(decoded):
            return None
        reach *= 2


def _alike(one: str, at: int, other: str, start: int) -> int:
    """How many characters ``one`` from ``at`` and ``other`` from ``start`` have alike, in a row."""
    most = min(len(one) - at, len(other) - start)
    size = 0
    while size + 256 <= most and one[at + size : at + size + 256] == other[start + size : start + size + 256]:
        size += 256
    while size < most and one[at + size] == other[start + size]:
        size += 1
    return size


def _markers_in(text: str) -> str:
    """The markers in ``text``, side by side (``"[redacted:secret]"`` has ``[redacted:secret]``)."""
    markers = []
    at = text.find(MARKER)
    while at >= 0 and (end := text.find("]", at) + 1):
        markers.append(text[at:end])
        at = text.find(MARKER, end)
    return "".join(markers) or "[redacted:secret]"


def _put_back(text: str, spans: list[tuple[int, int, str]]) -> str:
    """``text`` with each of ``spans`` (start, end, marker; in order) replaced by its marker, joined once; a span
    that overlaps the one before is put back with it, as one redaction (the first's marker)."""
    parts: list[str] = []
    done = 0
    for start, end, marker in spans:
        if start < done:
            done = max(done, end)
            continue
        parts += (text[done:start], marker)
        done = end
    return "".join([*parts, text[done:]]) if parts else text


def _redactions(value: str, scrubbed: str) -> list[tuple[int, int, str]] | None:
    """Each (start, end, marker) where ``scrubbed`` redacted ``value`` (``redaction.replaced``), but one that was a
    marker already (a text indexed before, redacted again); None when they do not give ``scrubbed`` back (two
    markers side by side: where one secret ends and the next starts is not known)."""
    spans = replaced(value, scrubbed)
    rebuilt: list[str] = []
    done = 0
    for start, end, marker in spans:
        rebuilt += (value[done:start], marker)
        done = end
    if "".join([*rebuilt, value[done:]]) != scrubbed:
        return None
    return [(start, end, marker) for start, end, marker in spans if value[start:end] != marker]


_SCRUBBED = Remembered(_scrubbed, SCRUBBED_REMEMBERED)
