"""Whether redaction is on, and what an index built now is redacted with, without compiling the rules.

Every read compares the index's redaction with :func:`mode` (another one rebuilds
the index), and ``redact``'s import compiles dozens of patterns; a read that finds
nothing changed never needs them, so the rule version and the switch live here.
"""

from __future__ import annotations

from . import config

#: Bumped whenever the rules (``redact``) change, so an index redacted by older rules is rebuilt.
RULES_VERSION = 3


def enabled() -> bool:
    return bool(config.get("redact"))


def mode() -> str:
    """What redaction an index built now gets: ``off``, or the version of the rules."""
    return f"rules-{RULES_VERSION}" if enabled() else "off"
