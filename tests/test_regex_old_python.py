"""No pattern of deja's puts a lookaround inside a possessive repeat: CPython before 3.11.5 (Debian 12's python3 is
3.11.2, which README's install accepts) loops forever on a lookbehind that fails there and walks past a failing
lookahead (gh-106052, gh-100061). ``as_seen``'s run of unseen characters had ``(?<=\\x1b)`` in a ``*+``, and ``deja
index`` hung at the first chat holding a zero-width space beside a quote (HTML pasted from a browser's console), its
memory growing by gigabytes (trial52 F1); ``NETRC_GATE``, which the tests hold ``a_netrc_entry`` to, missed entries
there. An atomic group
(``(?>…*)``) is the same repeat and is read right by every 3.11.

The test reads each pattern's parse tree, so it fails on any Python, not only on the one that hangs."""

from __future__ import annotations

import importlib
import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest
from test_layers import package_modules

from deja.core.text import as_seen

pytestmark = pytest.mark.unit


def _lookaround_in_possessive(items: object, inside: bool = False) -> bool:
    """Whether the parsed ``items`` hold a lookaround (``(?<=…)``, ``(?!…)``) inside a possessive repeat."""
    for op, av in items:  # type: ignore[attr-defined]
        if op is sre.POSSESSIVE_REPEAT:
            found = _lookaround_in_possessive(av[2], True)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            found = _lookaround_in_possessive(av[2], inside)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found = inside or _lookaround_in_possessive(av[1], inside)
        elif op is sre.SUBPATTERN:
            found = _lookaround_in_possessive(av[3], inside)
        elif op is sre.ATOMIC_GROUP:
            found = _lookaround_in_possessive(av, inside)
        elif op is sre.BRANCH:
            found = any(_lookaround_in_possessive(branch, inside) for branch in av[1])
        else:
            found = False
        if found:
            return True
    return False


def _module_patterns() -> dict[str, str]:
    """Every pattern a deja module keeps at its top level, compiled or as the string it compiles, by its name."""
    patterns = {}
    for module_name in package_modules():
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            pattern = value.pattern if isinstance(value, re.Pattern) else value
            if isinstance(pattern, str) and any(mark in pattern for mark in ("*+", "++", "?+", "}+", "(?<")):
                patterns[f"{module_name}.{name}"] = pattern
    return patterns


def test_the_check_finds_a_lookaround_in_a_possessive_repeat() -> None:
    assert _lookaround_in_possessive(sre_parse.parse("a(?:(?<=\x1b)b|c)*+"))
    assert _lookaround_in_possessive(sre_parse.parse("(?:(?!C).)++"))
    assert not _lookaround_in_possessive(sre_parse.parse("a(?>(?:(?<=\x1b)b|c)*)"))


def test_no_pattern_puts_a_lookaround_in_a_possessive_repeat() -> None:
    patterns = _module_patterns()
    assert "deja.core.text._UNSEEN_RUN" in patterns
    parsed = {}
    for name, pattern in patterns.items():
        try:
            parsed[name] = sre_parse.parse(pattern)
        except re.error:
            continue  # (a text that only looks like a pattern)
    assert [name for name, tree in parsed.items() if _lookaround_in_possessive(tree)] == []


def test_a_zero_width_space_from_a_browser_console_is_read_as_seen() -> None:
    pasted = 'the icon: <ion-icon slot=\u200b"icon-only" class=\u200b"md">\u200b…\u200b</ion-icon>\u200bslot\n\x1b[31mred\x1b[0m'
    assert as_seen(pasted)[0] == 'the icon: <ion-icon slot="icon-only" class="md">…</ion-icon>slot\nred'
