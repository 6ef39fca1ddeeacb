"""What a hook's command and error lines are made of is read without compiling a pattern where none could match:
a command that chains nothing is its own first command, a line that quotes nothing names nothing, and both give what
the patterns give."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core import failures, keys

pytestmark = pytest.mark.unit

PIECES = ["git", "push", "&&", "&", "||", "|", ";", " ", "\t", "'", '"', "`", "x1", "a/b", "-m", "=", "Error:"]


def _fail(*_: object, **__: object) -> None:
    pytest.fail("a pattern was used where none could match")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=10))
def test_the_first_command_and_the_quoted_names_are_what_the_patterns_give(pieces: list[str]) -> None:
    line = "".join(pieces)
    first = re.split(r"\s*(?:&&|\|\||;|\|)\s*", line.strip(), maxsplit=1)[0]
    assert keys.command_head(line) == keys.command_head(first)  # the head of the first command alone
    if not any(c in line for c in "&|;"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(re, "split", _fail)
            keys.command_head(line)
    quoted = [name for _, name in re.findall(r"(?<!\w)(['\"`])(.+?)\1(?!\w)", line)]
    assert failures.quoted_names(line) == [name for name in quoted if not re.search(r"\d|^[^@].*[/\\]", name)]


@pytest.mark.parametrize(("command", "head"), [("make build; make test", "make build"), ("a|| b", "a")])
def test_a_chained_command_is_still_cut_at_its_first_link(command: str, head: str) -> None:
    assert keys.command_head(command) == head


def test_a_line_without_quotes_compiles_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re, "findall", _fail)
    assert failures.quoted_names("ModuleNotFoundError: No module named api.cache") == []
