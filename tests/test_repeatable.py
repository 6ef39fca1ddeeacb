"""A test's texts are the same on every run: a failure one run finds, the next run finds again.

The CI's nested README run failed on a needles test that walked a ``set`` while drawing from a seeded
``random.Random``: the set's order follows PYTHONHASHSEED, so each run asked other texts (stop 61). Hypothesis
draws afresh on each run unless told ``derandomize=True`` (which also keeps no example database to replay), and an
unseeded ``random.Random()`` draws from the clock. Both are read here from the tests' source (``ast``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _calls(name: str) -> list[tuple[str, ast.Call]]:
    """Every call of ``name`` (``settings(...)``, ``random.Random(...)``) in the tests, with its file and line."""
    found = []
    for path in sorted(TESTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == name:
                found.append((f"{path.name}:{node.lineno}", node))
    return found


@pytest.mark.unit
def test_every_hypothesis_test_draws_the_same_examples_on_every_run() -> None:
    settings = _calls("settings")
    assert settings, "the tests hold hypothesis settings (test_pack.py): this walk must see them"
    drawn_afresh = [
        where
        for where, call in settings
        if not any(k.arg == "derandomize" and ast.unparse(k.value) == "True" for k in call.keywords)
    ]
    assert drawn_afresh == [], "give these @settings derandomize=True"


@pytest.mark.unit
def test_every_random_generator_of_the_tests_is_seeded() -> None:
    generators = _calls("random.Random")
    assert generators, "the tests draw texts from seeded generators (test_redact_lazy.py): this walk must see them"
    unseeded = [where for where, call in generators if not call.args and not call.keywords]
    assert unseeded == [], "give these random.Random a seed"
