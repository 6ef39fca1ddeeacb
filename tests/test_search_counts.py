"""A count said in two words finds the chat that said it in one: "executed two times" is "executed twice".

``deja search "background jobs executed two times, duplicate rows"`` put a flaky test's chat (a background job, a
``retry(times=5)``) above "Import tasks executed twice" (trial48b F9): "two" is a stopword, so the query asked for
``times``, which the flaky chat held and the right one did not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harness import index_chats

from deja.core.search import search

FLAKY = "00000000-0000-4000-8000-0000000000b1"
TWICE = "00000000-0000-4000-8000-0000000000b2"
THRICE = "00000000-0000-4000-8000-0000000000b3"

CHATS = {
    FLAKY: [
        "The checkout webhook test is flaky on CI: the background job sometimes has not sent the event yet.",
        "Wrapped the assertion in the retry decorator: @retry(times=5, wait=0.2); it ran ten times green since.",
    ],
    TWICE: [
        "The nightly import job ran twice and the orders table has duplicate rows.",
        "Two beat schedulers were running; the second one is gone and a unique key on (import_id, sku) stops repeats.",
    ],
    THRICE: [
        "The welcome email went out thrice to every new signup.",
        "The signal handler was connected by each app; it is connected once in apps.py now.",
    ],
    "00000000-0000-4000-8000-0000000000b4": [
        "The email preview shows the send times in UTC.",
        "The template formats them in the user's zone now.",
    ],
}


@pytest.fixture
def searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], list[str]]:
    index = index_chats(tmp_path, monkeypatch, CHATS)
    return lambda query: [hit.session_id for hit in search(index, query, snippets=0).hits]


def test_two_times_finds_the_chat_that_said_twice(searched: Callable[[str], list[str]]) -> None:
    assert searched("which job ran two times")[0] == TWICE
    assert searched("the job that ran 2 times")[0] == TWICE


def test_three_times_finds_the_chat_that_said_thrice(searched: Callable[[str], list[str]]) -> None:
    assert searched("the welcome email sent three times")[0] == THRICE


def test_times_alone_is_no_count(searched: Callable[[str], list[str]]) -> None:
    """ "retry five times" asks for no "twice": the flaky chat's words, as written, come first."""
    assert searched("retry times")[0] == FLAKY
    assert TWICE not in searched("what times out")
