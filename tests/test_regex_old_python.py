"""No pattern of deja's puts a lookaround inside a possessive repeat: CPython before 3.11.5 (Debian 12's python3 is
3.11.2, which README's install accepts) loops forever on a lookbehind that fails there and walks past a failing
lookahead (gh-106052, gh-100061). ``as_seen``'s run of unseen characters had ``(?<=\\x1b)`` in a ``*+``, and ``deja
index`` hung at the first chat holding a zero-width space beside a quote (HTML pasted from a browser's console), its
memory growing by gigabytes (trial52 F1); ``NETRC_GATE``, which the tests hold ``a_netrc_entry`` to, missed entries
there. Nor does one repeat possessively a body that may backtrack (``(?:ab?c)*+``, a group of options): those
versions do not give back an iteration that failed part-way, and rclone's secrets were kept (review58b F1). An atomic
group (``(?>…*)``) is the same repeat and is read right by every 3.11.

The test reads each pattern's parse tree, so it fails on any Python, not only on the one that hangs."""

from __future__ import annotations

import importlib
import re
import subprocess
import sysconfig
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest
from test_layers import package_modules

from deja.core import redact
from deja.core.patterns import Lazy
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
    """Every pattern a deja module keeps at its top level, compiled, as the string it compiles or as a ``Lazy`` one
    (read whether or not a test before this one compiled it: review58f F3), by its name."""
    patterns = {}
    for module_name in package_modules():
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            pattern = value.pattern if isinstance(value, re.Pattern) else value
            if isinstance(value, Lazy):
                pattern = object.__getattribute__(value, "_regex")
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


#: A body of one character: a possessive repeat of it gives back nothing part-way, on any 3.11.
_ONE_CHARACTER = (sre.LITERAL, sre.NOT_LITERAL, sre.IN, sre.ANY, sre.CATEGORY)


def _possessive_repeats_that_backtrack(items: object) -> list[str]:
    """The possessive repeats in the parsed ``items`` whose body is more than one character and may backtrack
    (``_backtracks``): CPython before 3.11.5 does not give back an iteration that failed part-way in such a repeat
    (gh-106052: any subpattern that backtracks, its own example ``(?:ab?c)*+``, not only a lookaround or a group), so
    what follows the repeat is tried at the wrong place."""
    found: list[str] = []
    for op, av in items:  # type: ignore[attr-defined]
        if op is sre.POSSESSIVE_REPEAT:
            body = av[2]
            if not (len(body) == 1 and body[0][0] in _ONE_CHARACTER) and _backtracks(body):
                found.append(str(body)[:80])
            found += _possessive_repeats_that_backtrack(body)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            found += _possessive_repeats_that_backtrack(av[2])
        elif op is sre.SUBPATTERN:
            found += _possessive_repeats_that_backtrack(av[3])
        elif op is sre.ATOMIC_GROUP:
            found += _possessive_repeats_that_backtrack(av)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found += _possessive_repeats_that_backtrack(av[1])
        elif op is sre.BRANCH:
            for branch in av[1]:
                found += _possessive_repeats_that_backtrack(branch)
        elif op is sre.GROUPREF_EXISTS:
            found += [*_possessive_repeats_that_backtrack(av[1]), *_possessive_repeats_that_backtrack(av[2] or [])]
    return found


def _backtracks(items: object) -> bool:
    """Whether the parsed ``items`` may match in more than one way: a repeat of a varying count (``b?``, ``[ ]+``,
    ``{0,4}``), an alternation, a lookaround or a conditional, however deep."""
    for op, av in items:  # type: ignore[attr-defined]
        if op in (sre.BRANCH, sre.ASSERT, sre.ASSERT_NOT, sre.GROUPREF_EXISTS):
            return True
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            varies = av[0] != av[1] or _backtracks(av[2])
        else:
            varies = op is sre.SUBPATTERN and _backtracks(av[3]) or op is sre.ATOMIC_GROUP and _backtracks(av)
        if varies:
            return True
    return False


@pytest.mark.parametrize(
    "pattern", ["a(?:[ ]+(?>b|c))*+[ ]+d", "(?:ab?c)*+", "x(?:[ ]+[a-z]+=)*+[ ]+d", "(x)?(?:a|b(?(1)c|d)e)++"]
)
def test_the_check_finds_a_possessive_repeat_that_backtracks(pattern: str) -> None:
    assert _possessive_repeats_that_backtrack(sre_parse.parse(pattern))


@pytest.mark.parametrize("pattern", ["a(?>(?:[ ]+(?>b|c))*)[ ]+d", "a[^ ]*+b", "(?:abc)*+", "(?:a[bc]{2})++"])
def test_the_check_lets_an_atomic_group_or_a_repeat_that_cannot_backtrack_be(pattern: str) -> None:
    assert not _possessive_repeats_that_backtrack(sre_parse.parse(pattern))


def _all_patterns() -> dict[str, str]:
    """``_module_patterns`` and every redaction rule's, those in a module's tuple of rules too."""
    patterns = dict(_module_patterns())
    for name, value in vars(redact).items():
        rules = [value] if isinstance(value, redact.Rule) else value if isinstance(value, tuple) else ()
        for i, rule in enumerate(rules):
            if isinstance(rule, redact.Rule):
                patterns[f"redact.{name}[{i}] {rule.kind}"] = rule.regex
    return patterns


def test_the_scan_reads_lazy_patterns_and_every_rule() -> None:
    patterns = _all_patterns()
    assert {"deja.core.redact._ASSIGNMENT", "deja.core.redact._CHPASSWD_OPTIONS"} <= set(patterns)
    assert any(name.startswith("redact._PGPASS") for name in patterns)


def test_no_pattern_repeats_possessively_what_may_backtrack() -> None:
    """review58b F1's and review58f F3's: rclone's, chpasswd's, netlify's, sshpass's options, a listed program's
    arguments, a command's rest, a ``.pgpass`` field, ``--secret-string``'s object, the AWS shorthand's value:
    each now an atomic group of a greedy repeat, the same match, read right by every 3.11."""
    found = {}
    for name, pattern in _all_patterns().items():
        try:
            tree = sre_parse.parse(pattern)
        except re.error:
            continue  # (a text that only looks like a pattern)
        if _possessive_repeats_that_backtrack(tree):
            found[name] = pattern
    assert found == {}


#: Debian 12's python3, 3.11.2: its ``re`` walks a possessive repeat of a group wrongly (gh-106052).
OLD_PYTHON = Path("/usr/bin/python3.11")


@pytest.mark.parametrize(
    "command",
    [
        "rclone config create s3r s3 access_key_id AKIAX secret_access_key Hx7Sud0Pw42",
        "rclone config update mytoken pass Hx7Sud0Pw42",
        "rclone -vv --config a.conf config create r s3 secret_access_key Hx7Sud0Pw42",
    ],
)
def test_a_secret_given_to_rclone_is_redacted_on_a_python_before_3_11_5(command: str) -> None:
    """Where this machine has one (Debian 12's), deja's rules as its ``re`` reads them (review58b F1)."""
    if not OLD_PYTHON.exists():
        pytest.skip(f"no {OLD_PYTHON}")
    micro = subprocess.run(
        [OLD_PYTHON, "-c", "import sys; print(sys.version_info[:3] < (3, 11, 5))"], capture_output=True, text=True
    )
    if micro.stdout.strip() != "True":
        pytest.skip(f"{OLD_PYTHON}'s re reads possessive repeats right")
    site = sysconfig.get_paths()["purelib"]  # (this venv's, with deja's editable finder; the same 3.11 ABI)
    script = f"import site; site.addsitedir({site!r}); from deja.core.redact import redact; print(redact({command!r}))"
    shown = subprocess.run([OLD_PYTHON, "-c", script], capture_output=True, text=True, check=True).stdout
    assert "Hx7Sud0Pw42" not in shown and "[redacted:" in shown, shown
