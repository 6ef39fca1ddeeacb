"""A search's best session does not hang on ``--limit``: a short chat holding every query word in its title is
found first even when many long chats, each saying one of the words over and over, outtotal it (trial49 F2: the
session "Deploy key rotation" was listed first with ``--limit 25`` and not at all with the default 10)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from harness import index_chats, run_deja

#: Long chats that each say "deploy" in twenty short answers and "key" once: each one's total (the sum of its
#: matching messages' scores) is higher than the short chat's, its score ranked in full far lower.
LONG = {
    f"long-{n:03d}": [
        f"service {n} will not deploy",
        *(f"deploy {i} done" for i in range(20)),
        f"the API key of service {n} lives in the vault, as documented for every service we run",
    ]
    for n in range(90)
}
#: Chats about other things, so that "deploy" is a word of some messages, not of nearly all.
OTHER = {
    f"other-{n:03d}": [f"lunch plan {n}", *(f"the weather on day {i} was fine" for i in range(30))] for n in range(150)
}
SHORT = {"short-rotation": ["Deploy key rotation: how do I rotate the deploy key?", "Generate a new deploy key."]}


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of a search of the chats above (indexed once: some 250 chats)."""
    with pytest.MonkeyPatch.context() as patch:
        index_chats(tmp_path_factory.mktemp("shortlist"), patch, {**LONG, **OTHER, **SHORT})
        yield dict(os.environ)


def _first_sessions(env: dict[str, str], *args: str) -> list[str]:
    ran = run_deja("search", "deploy", "key", "--json", *args, env=env)
    assert ran.returncode == 0, ran.stderr
    return [hit["session_id"] for hit in json.loads(ran.stdout)["hits"]]


@pytest.mark.parametrize("limit", ["1", "5", "10", "40"])
def test_the_short_chat_holding_both_words_comes_first_at_any_limit(searched: dict[str, str], limit: str) -> None:
    assert _first_sessions(searched, "--limit", limit)[0] == "short-rotation"


def test_the_first_ten_are_the_same_whatever_the_limit(searched: dict[str, str]) -> None:
    assert _first_sessions(searched)[:10] == _first_sessions(searched, "--limit", "40")[:10]
