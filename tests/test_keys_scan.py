"""A Shell command's head is read with ``str``'s methods (a Shell hook loads ``re`` only for a failure's error
lines): the first command of a chain, a subcommand and whether ``shlex`` is needed come out as the regular
expressions they stand for said."""

from __future__ import annotations

import random
import re
import shlex

import pytest

from deja.core import keys

pytestmark = pytest.mark.unit

ALPHABET = list("ab gitpushz09:_-&|;\t\n\u00a0\u2003'\"\\\x0b\x0c\x1c\x1f=/.") + ["&&", "||", " | ", " ; "]


def _commands(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 16))) for _ in range(count)]


def test_the_first_command_of_a_chain_is_what_the_pattern_splits_off() -> None:
    for command in _commands(20_000, seed=31):
        expected = re.split(r"\s*(?:&&|\|\||;|\|)\s*", command, maxsplit=1)[0]
        assert keys._first_of_chain(command) == expected, repr(command)


def test_a_subcommand_is_what_the_pattern_matches() -> None:
    words = [*_commands(20_000, seed=32), "push", "run", "db:migrate", "a-b_c9", "Push", "9x", "", "é"]
    for word in words:
        assert keys._subcommand(word) == bool(re.fullmatch(r"[a-z][a-z0-9:_-]*", word)), repr(word)


def test_a_command_is_split_as_shlex_splits_it() -> None:
    for command in _commands(20_000, seed=33):
        try:
            expected = shlex.split(command)
        except ValueError:
            expected = command.split()
        assert keys.command_words(command) == expected, repr(command)
