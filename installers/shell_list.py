"""Where deja's command ends in a hook command the user extended: the end of its and-or list, read as ``sh`` reads it.

A user's ending after deja's ``hook-…`` word (``2>/dev/null; exit``, ``> "/tmp/a||b"``, ``| tee log && echo ok``)
is shell text. deja's fail-open (``entries.FAIL_OPEN``) must end the and-or list that starts with deja's command,
before the first ``;``, ``&``, line break or comment that ends it: appended after the whole ending, it follows an
``exit`` that never reaches it (review44g M2), and a ``||`` in quotes or in a ``$(…)`` is none of the list's
(review44g L1). Only as much of the shell grammar as finds that end is read: quotes, backslashes, ``$(…)``,
backticks, subshells, braces and compound commands (whose ``;`` are their own), operators and comments.
"""

from __future__ import annotations

from typing import NamedTuple

#: Words that open (and close) a compound command whose own ``;`` and line breaks end nothing outside it.
_OPENS = frozenset({"{", "if", "while", "until", "for", "case"})
_CLOSES = frozenset({"}", "fi", "done", "esac"})
_RESERVED = _OPENS | _CLOSES
_OPERATOR_CHARS = ";&|<>()\n"


class FirstList(NamedTuple):
    """The and-or list a shell text starts with (after deja's ``hook-…`` word, which it continues)."""

    end: int  # where it ends: the index of the ``;``, ``&``, line break or ``#`` after it, else the text's length
    handled: bool  # it has a ``||`` of its own: the user decides what a failure of deja's command gives


def first_list(text: str) -> FirstList:
    """The first and-or list of ``text``; ``text`` starts inside a command (its first word continues deja's)."""
    depth, handled, after_operator, i = 0, False, False, 0
    while i < len(text):
        char, word_start = text[i], i > 0 and (text[i - 1] in " \t" or text[i - 1] in _OPERATOR_CHARS)
        if char in "\\'\"`":
            i = _after_quoted(text, i)
        elif text.startswith("$(", i) or char == "(":
            depth, i = depth + 1, i + (2 if char == "$" else 1)
        elif char == ")" and depth:
            depth, i = depth - 1, i + 1
        elif word_start and (word := _word(text, i)) in _RESERVED:
            depth, i = max(0, depth + (1 if word in _OPENS else -1)), i + len(word)
        elif char == "#" and word_start:
            if not depth:
                return FirstList(i, handled)
            i = _line_end(text, i)
        elif depth or char in " \t" or (char == "\n" and after_operator):  # (a line break after ``&&``: the same list)
            i += 1
            continue
        elif char in ";\n)" or (char == "&" and not _in_redirect(text, i) and not text.startswith("&&", i)):
            return FirstList(i, handled)
        elif text.startswith(("&&", "||"), i) or char == "|":
            handled = handled or text.startswith("||", i)
            after_operator, i = True, i + (2 if text.startswith(("&&", "||", "|&"), i) else 1)
            continue
        else:
            i += 1
        after_operator = False
    return FirstList(len(text), handled)


def _after_quoted(text: str, i: int) -> int:
    """The index after the quoted part or escaped character at ``i`` (the text's length when unterminated)."""
    quote = text[i]
    if quote == "\\":
        return i + 2
    j = i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" and quote != "'" else 1
    return j + 1


def _word(text: str, i: int) -> str:
    """The reserved word at ``i``, when one stands there as a whole word; else ""."""
    for word in _RESERVED:
        after = i + len(word)
        if text.startswith(word, i) and (after == len(text) or text[after] in " \t" or text[after] in _OPERATOR_CHARS):
            return word
    return ""


def _in_redirect(text: str, i: int) -> bool:
    """Whether the ``&`` at ``i`` belongs to a redirect (``2>&1``, ``<&3``, bash's ``&>file``), not ending a list."""
    return text.startswith("&>", i) or (i > 0 and text[i - 1] in "<>")


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end
