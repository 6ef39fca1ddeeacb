"""The redaction rules compile their module patterns when a text first needs them, not on import: the failure hook
imports the rules for one error's output (its ``:`` passes the gate) and had paid for compiling a dozen patterns
that output never calls on. A pattern used once is put in its own place, so later texts use it directly."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from deja.core import redact

MODULE_PATTERNS = [
    "_REFERENCE",
    "_FILLER",
    "_WORDS",
    "_KEY_CHARS",
    "_DOTTED_NAME",
    "_IDENTIFIER",
    "_PATH",
    "_SHORT_NUMBER",
    "_ASSIGNMENT",
    "_NOUN_SEP",
    "_ENV_NAME",
    "_LONG_RUN",
    "_BASIC",
    "_CONTEXT_GATE",
]

_PROBE = """
import json, sys
from deja.core import redact
names = json.loads(sys.argv[1])
before = [n for n in names if not isinstance(getattr(redact, n), redact._Compiled)]
out = [redact.scrub(text) for text in json.loads(sys.argv[2])]
after = [n for n in names if not isinstance(getattr(redact, n), redact._Compiled)]
print(json.dumps({"before": before, "after": after, "out": out}))
"""


def _fresh(texts: list[str]) -> dict:
    """What a new interpreter compiled on import, what after scrubbing ``texts``, and what it made of them."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(MODULE_PATTERNS), json.dumps(texts)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.unit
def test_importing_the_rules_compiles_no_module_pattern() -> None:
    assert _fresh([])["before"] == []


@pytest.mark.unit
def test_an_error_line_compiles_only_the_gates_it_asks() -> None:
    seen = _fresh(["error[E0382]: borrow of moved value: `kanupe_pequ`"])
    assert seen["out"] == ["error[E0382]: borrow of moved value: `kanupe_pequ`"]
    assert set(seen["after"]) <= {"_LONG_RUN", "_BASIC", "_CONTEXT_GATE"}
    assert "_LONG_RUN" in seen["after"]  # every text asks it (the ``:`` answers the context gate without it)


@pytest.mark.unit
def test_a_secret_assignment_is_redacted_and_its_patterns_then_take_their_place() -> None:
    seen = _fresh(['db: password = "Hunter2hunter2"', 'token: "Xy7pQ2rT9mLw"'])
    assert seen["out"] == ['db: password = "[redacted:secret]"', 'token: "[redacted:secret]"']
    assert {"_ASSIGNMENT", "_NOUN_SEP", "_LONG_RUN"} <= set(seen["after"])


@pytest.mark.unit
def test_a_used_pattern_is_the_compiled_one_in_the_module() -> None:
    redact.scrub('password = "Hunter2hunter2"')
    assert isinstance(redact._ASSIGNMENT, re.Pattern)
    assert isinstance(redact._LONG_RUN, re.Pattern)
