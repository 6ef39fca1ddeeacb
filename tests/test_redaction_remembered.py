"""A build remembers what it made of a short text (``redact.scrub``): a history says the same short things again and
again. What is remembered must be what redacting the text again would give, in every chat that says it, and the
memory must stay bounded whatever the number of distinct texts a build meets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from harness import index_chats

from deja.core import redact

TOKEN = "ghp_" + "R8c2Kq7LmX4vN9pZ3tW6yB1dF5gH0jS2uE8a"


def test_a_short_text_holding_a_secret_is_redacted_in_every_chat_that_repeats_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = f"use token {TOKEN}"
    assert len(said) <= redact.SCRUBBED_CHARS
    index = index_chats(tmp_path, monkeypatch, {f"chat-{n}": [said, said] for n in range(3)})
    stored = [
        message.text
        for segment in index.segments
        for _, meta in segment.live_sessions()
        for message in segment.messages(meta)
    ]
    assert len(stored) == 6
    assert all(TOKEN not in text and "[redacted:" in text for text in stored), stored


@pytest.mark.unit
def test_what_scrub_remembers_is_what_it_works_out_and_stays_bounded() -> None:
    short = f"export GITHUB_TOKEN={TOKEN}"
    assert redact.scrub(short) == redact.scrub(short) == redact._scrubbed(short) != short
    assert redact._SCRUBBED.known[short] == redact._scrubbed(short)
    long = "x " * redact.SCRUBBED_CHARS + short
    assert redact.scrub(long) == redact._scrubbed(long) != long
    assert long not in redact._SCRUBBED.known
    for n in range(redact.SCRUBBED_REMEMBERED + 10):
        redact.scrub(f"ran step {n}")
    assert 0 < len(redact._SCRUBBED.known) <= redact.SCRUBBED_REMEMBERED


@pytest.mark.unit
def test_a_long_text_is_held_by_nothing_once_redacted() -> None:
    """Only a short text is remembered: a long one, its secret in it as written, is let go once redacted (the ``-b``
    rule kept the last text it read in the module, until the next text with a ``-b``: overred46)."""
    text = "".join(["curl https://app.example.com/api -b 'sid=Xk9mPq2LwRt8Zz4' ", "-H 'accept: application/json' " * 6])
    assert len(text) > redact.SCRUBBED_CHARS
    held = sys.getrefcount(text)
    assert redact.scrub(text) == text.replace("Xk9mPq2LwRt8Zz4", "[redacted:cookie]")
    assert sys.getrefcount(text) == held
