"""A search naming a day or a period from now ("yesterday", "last week", "3 days ago") finds the sessions from then,
in the asker's own calendar; the prompt hook's searches do not read them (a prompt's "today" is no date to look up)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

#: A Friday, noon, in the machine's own zone: the "now" of the in-process searches.
NOW = datetime(2026, 12, 4, 12, 0)
#: id -> (local time written, what it said)
CHATS = {
    "00000000-0000-4000-8000-00000000000a": (datetime(2026, 12, 4, 9, 30), "deploy the api to staging"),
    "00000000-0000-4000-8000-00000000000b": (datetime(2026, 12, 3, 16, 0), "deploy the api with the new flag"),
    "00000000-0000-4000-8000-00000000000c": (datetime(2026, 11, 25, 11, 0), "deploy the api after the freeze"),
    "00000000-0000-4000-8000-00000000000d": (datetime(2026, 11, 10, 11, 0), "rotate the deploy keys"),
    "00000000-0000-4000-8000-00000000000e": (datetime(2025, 6, 2, 11, 0), "first deploy of the api"),
}


def _write(cli: Path, chats: dict[str, tuple[datetime, str]]) -> None:
    for chat_id, (when, said) in chats.items():
        local = when.astimezone()  # (a naive time read as the machine's own)
        write_transcript(
            transcript_path(cli, "/work/api", chat_id), [user_turn(said, local), assistant_turn("Done.", local)]
        )


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    _write(tmp_path / "cli", CHATS)
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(tmp_path / "cli"))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    refresh(tmp_path / "deja")
    return Index.open(tmp_path / "deja")


def _found(index: Index, query: str, relative: bool = True) -> list[str]:
    hits = search(index, query, snippets=0, now=NOW.astimezone().timestamp(), relative=relative).hits
    return [hit.session_id[-1] for hit in hits]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("today", ["a"]),
        ("what did I do yesterday", ["b"]),
        ("9 days ago", ["c"]),
        ("this week", ["a", "b"]),
        ("last week", ["c"]),
        ("What did I do Last Week", ["c"]),  # (as a person capitalises it: not this year)
        ("THIS MONTH", ["a", "b"]),
        ("a week ago", ["c"]),
        ("last month", ["c", "d"]),
        ("last year", ["e"]),
        ("what did I do last Thursday", ["b"]),  # (a weekday: its last day before today, trial48b F7)
        ("on thursday", ["b"]),
        ("thursday", []),  # (a weekday alone is a word, which no session holds: review48f M1)
        ("on Friday", []),  # (a Friday's "Friday" is a week ago, not today)
        ("1.5 days ago", []),  # (no count of days: words, which no session holds)
    ],
)
def test_a_day_or_period_alone_lists_the_sessions_from_then(index: Index, query: str, found: list[str]) -> None:
    assert _found(index, query) == found


def test_with_words_the_sessions_from_then_come_first(index: Index) -> None:
    assert _found(index, "deploy the api")[0] == "a"  # the newest, all else equal
    assert _found(index, "deploy the api last week")[0] == "c"
    assert _found(index, "deploy the api last month")[0] == "c"


def test_a_weekday_alone_is_searched_as_a_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """review48f M1: "sunday" found no session though one says "The Sunday cron job", and "friday deploy" ranked last
    Friday's session about something else; "next friday" is no day past, so not last Friday either."""
    _write(
        tmp_path / "cli",
        {
            "00000000-0000-4000-8000-00000000001a": (datetime(2026, 11, 4, 9, 0), "The Sunday cron job runs twice"),
            "00000000-0000-4000-8000-00000000001b": (datetime(2026, 11, 4, 9, 0), "Friday deploy freeze rule in CI"),
            "00000000-0000-4000-8000-00000000001c": (datetime(2026, 11, 27, 9, 0), "Fix the navbar css"),
        },
    )
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(tmp_path / "cli"))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    refresh(tmp_path / "deja")
    index = Index.open(tmp_path / "deja")
    assert _found(index, "sunday") == ["a"]
    assert _found(index, "friday deploy") == ["b"]
    assert _found(index, "next friday") == ["b"]
    assert _found(index, "last friday") == ["c"]  # (as a date it still names the day)


def test_the_prompt_hooks_searches_read_no_relative_date(index: Index) -> None:
    assert _found(index, "what did I do yesterday", relative=False) == []
    assert _found(index, "deploy the api last week", relative=False)[0] == "a"


def test_deja_search_reads_them_from_the_real_now(fake_home: Path) -> None:
    today = datetime.now().replace(hour=12, minute=0, second=0, microsecond=0)
    _write(
        fake_home / ".cursor",
        {
            "00000000-0000-4000-8000-0000000000f1": (today - timedelta(days=1), "tuned the worker pool"),
            "00000000-0000-4000-8000-0000000000f2": (today - timedelta(days=10), "tuned the cache"),
        },
    )
    listed = run_deja("search", "what did I do yesterday")
    assert listed.returncode == 0, listed.stderr
    assert "0000000000f1" in listed.stdout and "0000000000f2" not in listed.stdout
    assert "0000000000f2" in run_deja("search", "tuned", "10 days ago").stdout.split("\n\n")[0]


def test_a_period_no_session_was_active_in_is_named_with_the_newest_date(fake_home: Path) -> None:
    today = datetime.now().replace(hour=12, minute=0, second=0, microsecond=0)
    older = today - timedelta(days=20)
    _write(fake_home / ".cursor", {"00000000-0000-4000-8000-0000000000f3": (older, "tuned the worker pool")})
    yesterday = (today - timedelta(days=1)).date().isoformat()
    # (not a bare "No session matches", which reads as if the word found nothing: trial43 F4)
    said = f"No session was active in {yesterday}; the newest is from {older.date().isoformat()}: give words to look for, with --since to keep to a period."
    listed = run_deja("search", "yesterday")
    assert (listed.returncode, listed.stdout.strip()) == (0, said), listed.stderr
    assert json.loads(run_deja("search", "--json", "what did I do yesterday").stdout)["notice"] == said
    assert run_deja("search", "what did I do last week").stdout.startswith("No session was active in ")
    given = run_deja("search", "yesterday", "--since", "7d")  # (--since is not advised when given: review43e L8)
    assert given.stdout.strip() == said.replace(", with --since to keep to a period.", "."), given.stdout
