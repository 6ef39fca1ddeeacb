"""Where deja's own simple command ends in a hook command the user extended, and what the user's text goes on with.

A user's ending after deja's ``hook-…`` word (``2>/dev/null; exit``, ``| tee log``, ``# quiet``) is shell text.
deja's fail-open (``entries.FAIL_OPEN``) goes where deja's simple command ends, so only that command is read: its
arguments and redirections (``2>&1``, ``&>log``, ``>|f``, ``<<EOF``), ``\\``+newline, quoted words and the ``$(…)``,
``${…}`` and backticks in them (bash's ``<(…)`` and ``>(…)`` as ``$(…)``), up to the first control operator, line
break or comment. Nothing after it is read, so nothing of the user's there (a comment after ``|``, a ``case``, a
``for`` used as an argument, a here-doc's body) can be misread (review45a H1, H2, M1). Text it cannot read (an unterminated quote, an unquoted ``(``, a comment,
``case`` or here-doc inside a ``$(…)``) is said as its end: ``sh`` refuses most such text anyway.
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: What ends a simple command, the longer first where one starts another (``;;``, ``;&`` read as ``;``).
_CONTROL_OPERATORS = ("||", "|&", "&&", "|", "&", ";", "\n")
#: Redirection operators, which a simple command goes on after, the longer first (bash's ``&>``, ``&>>``, ``<<<``).
_REDIRECTS = ("<<<", "<<-", "&>>", "<<", "<>", "<&", ">>", ">&", ">|", "&>", "<", ">")
#: In a ``$(…)``, what makes its closing ``)`` unknowable without reading the whole script: a comment, a ``case``
#: (whose patterns end in ``)``) or a here-doc.
_UNREADABLE_IN_SCRIPT = re.compile(r"(?<![^\s;&|(])(?:#|case(?![^\s;&|()<>]))|<<")
#: Within which closer the nested parts are read: double quotes and ``${…}`` hold ``$(…)``, ``${…}`` and backticks,
#: ``${…}`` quotes too; a backtick's text holds nothing but escapes.
_NESTED = {'"': "$`", "}": "$`'\"", "`": ""}


class CommandEnd(NamedTuple):
    """Where deja's simple command ends in the text after its ``hook-…`` word, and what ends it."""

    at: int  # the index of the operator, line break or ``#`` that ends it, else the text's length
    follows: str  # that operator (``;``, ``&&``, ``|``, ``||``, ``\n``, ``#``…); "" at the end or text it cannot read


def command_end(text: str) -> CommandEnd:
    """Where the simple command ``text`` continues (its first character goes on deja's ``hook-…`` word) ends."""
    i, word_start = 0, False
    while i < len(text):
        substitution = text.startswith(("<(", ">("), i)  # (bash's process substitution, read as ``$(…)``)
        redirect = "" if substitution else next((found for found in _REDIRECTS if text.startswith(found, i)), "")
        operator = next((found for found in _CONTROL_OPERATORS if text.startswith(found, i)), "")
        if text.startswith("\\\n", i):  # (a continuation joins the lines, and the word it is in)
            i += 2
        elif redirect:
            i, word_start = i + len(redirect), True
        elif operator or (word_start and text[i] == "#"):
            return CommandEnd(i, operator or "#")
        elif text[i] in " \t":
            i, word_start = i + 1, True
        elif text[i] in "()" or (after := _after_part(text, i)) is None:
            return CommandEnd(len(text), "")
        else:
            i, word_start = after, False
    return CommandEnd(len(text), "")


def _after_part(text: str, i: int) -> int | None:
    """The index after the part of a word at ``i``: an escaped character, a quoted text, a ``$(…)``, ``<(…)``,
    ``>(…)``, ``${…}`` or backtick substitution, else the one character; None when unterminated or unreadable."""
    if text[i] == "\\":
        return i + 2
    if text[i] == "'":
        close = text.find("'", i + 1)
        return None if close < 0 else close + 1
    if text[i] in '"`':
        return _after_quoted(text, i + 1, text[i])
    if text.startswith(("$(", "<(", ">("), i):
        return _after_script(text, i + 2)
    if text.startswith("${", i):
        return _after_quoted(text, i + 2, "}")
    return i + 1


def _after_quoted(text: str, j: int, closer: str) -> int | None:
    """The index after ``closer`` ending the quoted text or ``${…}`` whose inside starts at ``j``."""
    while j < len(text):
        char = text[j]
        if char == closer:
            return j + 1
        if char == "\\":
            j += 2
        elif char in _NESTED[closer] and (char != "$" or text.startswith(("$(", "${"), j)):
            if (after := _after_part(text, j)) is None:
                return None
            j = after
        else:
            j += 1
    return None


def _after_script(text: str, j: int) -> int | None:
    """The index after the ``)`` closing the ``$(`` whose script starts at ``j`` (``$((…))`` too)."""
    depth = 1
    while j < len(text):
        if text[j] in "()":
            depth += 1 if text[j] == "(" else -1
            if not depth:
                return j + 1
            j += 1
        elif _UNREADABLE_IN_SCRIPT.match(text, j) or (after := _after_part(text, j)) is None:
            return None
        else:
            j = after
    return None
