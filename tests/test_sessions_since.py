"""``deja sessions --since``: what a person did lately, as ``deja search --since`` reads the period."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import run_deja

from deja.core import library
from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.library import newest_sessions, sessions_left_out
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

#: (id, folder, days back) of each chat: two projects, the newest first.
CHATS = [
    ("00000000-0000-4000-8000-0000000000a0", "/work/web", 0.1),
    ("00000000-0000-4000-8000-0000000000a1", "/work/api", 2),
    ("00000000-0000-4000-8000-0000000000a2", "/work/web", 5),
    ("00000000-0000-4000-8000-0000000000a3", "/work/api", 40),
]


@pytest.fixture
def home(fake_home: Path) -> Path:
    now = datetime.now(UTC)
    for chat_id, folder, days in CHATS:
        when = now - timedelta(days=days)
        write_transcript(
            transcript_path(fake_home / ".cursor", folder, chat_id),
            [user_turn(f"the chat of {days} days back", when), assistant_turn("Done.", when)],
        )
    return fake_home


def _ids(*args: str) -> list[str]:
    result = run_deja("sessions", *args)
    assert result.returncode == 0, result.stderr
    return [line.split()[0] for line in result.stdout.splitlines() if line.startswith("0000")]


def test_since_lists_the_sessions_updated_in_that_period_newest_first(home: Path) -> None:
    assert _ids("--since", "3d") == [CHATS[0][0], CHATS[1][0]]
    assert _ids("--since", "1w") == [chat_id for chat_id, _, _ in CHATS[:3]]
    assert _ids("--since", "7d", "--project", "work-api") == [CHATS[1][0]]
    assert _ids("--since", (datetime.now() - timedelta(days=60)).strftime("%Y-%m-%d")) == [c[0] for c in CHATS]


def test_a_full_page_counts_the_sessions_of_the_period_it_left_out(home: Path) -> None:
    result = run_deja("sessions", "--since", "7d", "--limit", "1")
    assert result.stdout.splitlines()[-1] == "2 more; --limit to see them"
    listed = json.loads(run_deja("sessions", "--since", "7d", "--limit", "1", "--json").stdout)
    assert [s["id"] for s in listed["sessions"]] == [CHATS[0][0]] and listed["more"] == 2
    assert json.loads(run_deja("sessions", "--since", "7d", "--json").stdout)["more"] == 0


def test_a_period_with_no_session_says_which_filter_left_nothing(home: Path) -> None:
    result = run_deja("sessions", "--since", "1h")
    assert result.returncode == 0
    assert result.stdout.strip() == "No sessions with --since 1h; drop the filter to see the 4 in the index."


def test_a_since_that_is_no_time_is_a_usage_error(home: Path) -> None:
    result = run_deja("sessions", "--since", "lately")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "deja: --since 'lately' is not a date: use 30d, 12h, 45m (minutes), 2w, 3mo, 1y, YYYY-MM-DD, today, yesterday, "
        "tuesday, last week or 3 days ago"
    )


def test_today_and_yesterday_start_at_that_days_first_local_moment(home: Path) -> None:
    """``today`` is since this morning's midnight, ``yesterday`` since the one before, in the asker's own zone."""
    now = datetime.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for word, start in (("today", midnight), ("yesterday", midnight - timedelta(days=1))):
        expected = [c[0] for c in CHATS if now - timedelta(days=c[2]) >= start]
        assert _ids("--since", word) == expected, word
        assert _ids("--since", word.upper()) == expected, word
    found = run_deja("search", "chat", "--since", "yesterday")
    assert found.returncode == 0 and CHATS[0][0] in found.stdout and CHATS[2][0] not in found.stdout


def test_a_period_in_words_starts_at_its_first_local_moment_as_a_search_reads_it(home: Path) -> None:
    """``last week`` is since last Monday's midnight, ``3 days ago`` since that day's, ``this month`` since the
    first's: the words ``deja search`` reads a period from, which a person then tries on ``--since``."""
    now = datetime.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    starts = {
        "last week": midnight - timedelta(days=now.weekday() + 7),
        "3 days ago": midnight - timedelta(days=3),
        "this month": midnight.replace(day=1),
    }
    for words, start in starts.items():
        expected = [c[0] for c in CHATS if now - timedelta(days=c[2]) >= start]
        assert _ids("--since", words) == expected, words
    assert _ids("--since", "Last Week") == [c[0] for c in CHATS if now - timedelta(days=c[2]) >= starts["last week"]]
    refused = run_deja("sessions", "--since", "last week or so")
    assert refused.returncode == 2 and "'last week or so' is not a date" in refused.stderr


def test_a_weekday_is_its_last_day_before_today(home: Path) -> None:
    """trial48b F7: ``--since tuesday`` and ``--since "last tuesday"`` were "not a date"; a weekday named is the last
    one before today (on a Tuesday, a week ago), from its first local moment."""
    now = datetime.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for back in range(1, 8):
        day = midnight - timedelta(days=back)
        name = day.strftime("%A")
        expected = [c[0] for c in CHATS if now - timedelta(days=c[2]) >= day]
        assert _ids("--since", name.lower()) == _ids("--since", f"last {name}") == expected, name


def test_since_and_until_one_day_lists_the_sessions_last_updated_that_day(home: Path) -> None:
    """trial48b F7: "what did I do on Tuesday" had no ``--until``: ``--since`` alone gave every session since. A day
    named to ``--until`` counts whole; a span is that long ago."""
    now = datetime.now()
    two_back = (now - timedelta(days=2)).strftime("%Y-%m-%d")
    assert _ids("--since", two_back, "--until", two_back) == [CHATS[1][0]]
    assert _ids("--until", "3d") == [CHATS[2][0], CHATS[3][0]]
    assert _ids("--until", "3d", "--limit", "1") == [CHATS[2][0]]
    assert run_deja("sessions", "--until", "3d", "--limit", "1").stdout.splitlines()[-1] == "1 more; --limit to see it"
    weekday = (now - timedelta(days=5)).strftime("%A").lower()
    assert _ids("--since", weekday, "--until", weekday) == [CHATS[2][0]]
    found = run_deja("search", "chat", "--since", two_back, "--until", two_back, "--json")
    assert [hit["session_id"] for hit in json.loads(found.stdout)["hits"]] == [CHATS[1][0]]
    none = run_deja("sessions", "--until", "60d")
    assert none.stdout.strip() == "No sessions with --until 60d; drop the filter to see the 4 in the index."


def test_an_until_that_is_no_time_or_ends_before_since_is_a_usage_error(home: Path) -> None:
    for command in (["sessions"], ["search", "chat"]):
        refused = run_deja(*command, "--until", "lately")
        assert refused.returncode == 2 and refused.stderr.startswith("deja: --until 'lately' is not a date: use 30d")
        backwards = run_deja(*command, "--since", "yesterday", "--until", "3d")
        assert (backwards.returncode, backwards.stderr) == (
            2,
            "deja: --until '3d' ends before --since begins: give an --until after it\n",
        )
        same = run_deja(*command, "--since", "3d", "--until", "3d")  # (one "now" for both: review48f L2)
        assert (same.returncode, same.stderr) == (
            2,
            "deja: --until '3d' ends before --since begins: give an --until after it\n",
        )


def test_an_until_period_the_shell_cut_is_told_to_be_quoted(home: Path) -> None:
    """review48f L2: ``--until last tuesday`` unquoted was "'last' is not a date" (search) or typer's extra argument
    (sessions), with no word of quoting, where ``--since last tuesday`` gets one."""
    hint = "quote a period of several words, `--until 'last tuesday'`\n"
    for command in (["sessions"], ["search", "chat"], ["search"]):
        refused = run_deja(*command, "--until", "last", "tuesday")
        assert refused.returncode == 2 and refused.stderr.endswith(hint), refused.stderr


def test_a_search_with_a_period_and_no_words_names_the_listing_of_that_period(home: Path) -> None:
    result = run_deja("search", "--project", "work-api", "--since", "7d")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "deja: Missing argument 'WORDS': `deja sessions --project work-api --since 7d` lists the sessions of that "
        "period, without words"
    )
    hinted = result.stderr.split("`")[1].split()[2:]
    assert _ids(*hinted) == [CHATS[1][0]]
    for flags in (["--since", "a while"], ["--source", "cursor", "--since", "7d"], ["--project", "/", "--since", "7d"]):
        assert run_deja("search", *flags).stderr.strip() == (  # (no command that would fail in turn)
            "deja: Missing argument 'WORDS' (see `deja search --help`)"
        ), flags


def test_a_period_of_a_folder_below_a_project_names_the_project(fake_home: Path) -> None:
    """``--project .`` in ``shop/src`` with ``--since 7d``: no session ever ran there, which dropping the period would
    not mend; the answer names the project, as it does without ``--since`` and as ``deja search`` does with it."""
    shop = fake_home / "code" / "shop"
    (shop / "src").mkdir(parents=True)
    when = datetime.now(UTC) - timedelta(days=2)
    write_transcript(
        transcript_path(fake_home / ".cursor", str(shop), CHATS[0][0]),
        [user_turn("orders pagination", when), assistant_turn("Done.", when)],
    )
    for verb in (["sessions"], ["search", "pagination"]):
        ran = run_deja(*verb, "--project", ".", "--since", "7d", cwd=shop / "src")
        said = f"deja: No session ran in {shop / 'src'} or below it; its project is {shop}: give --project {shop}\n"
        assert (ran.returncode, ran.stderr) == (1, said), verb
    assert _ids("--project", str(shop), "--since", "7d") == [CHATS[0][0]]
    said = run_deja("sessions", "--project", ".", "--source", "cursor-cli", cwd=shop / "src").stderr  # (README: any)
    assert said == f"deja: No session ran in {shop / 'src'} or below it; its project is {shop}: give --project {shop}\n"


def test_a_period_of_several_words_typed_unquoted_is_told_to_be_quoted(home: Path) -> None:
    """The shell gives ``--since last week`` as two words: typer's "unexpected extra argument (week)" said nothing of
    quoting (trial23 F7)."""
    done = run_deja("sessions", "--since", "last", "week")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "deja: Got unexpected extra argument(s) (week): quote a period of several words, `--since 'last week'`\n"
    )
    assert "quote" not in run_deja("sessions", "--since", "7d", "api").stderr  # no period: typer's own line


def test_sessions_and_search_find_the_same_period_among_other_words(home: Path) -> None:
    """``deja sessions`` and a plain search find the period to quote by one rule (``dates.period_cut``): the given
    value and one or two of the words after it, other words beside them left out. ``deja sessions`` once offered a
    period only when every extra word was part of it, so ``--since last week api`` said nothing of quoting; it now
    says what ``deja search --since last week api`` says (twins50)."""
    sessions = run_deja("sessions", "--since", "last", "week", "api")
    assert sessions.returncode == 2
    assert sessions.stderr.endswith("(week api): quote a period of several words, `--since 'last week'`\n")
    search = run_deja("search", "--since", "last", "week", "api")
    assert search.stderr.endswith("quote a period of several words, `--since 'last week'`\n")
    assert run_deja("sessions", "--since", "3", "days", "ago").stderr.endswith("`--since '3 days ago'`\n")


def test_a_period_cut_into_a_searchs_words_is_told_to_be_quoted(home: Path) -> None:
    """``deja search --since last week cache`` takes "week" as a word to search, and "last" was refused with the
    list of periods, "last week" among them: the refusal says to quote it, as ``deja sessions`` does (review42d)."""
    done = run_deja("search", "--since", "last", "week", "cache")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "deja: --since 'last' is not a date: quote a period of several words, `--since 'last week'`\n"
    assert run_deja("search", "--since", "3", "days", "ago", "cache").stderr.endswith("`--since '3 days ago'`\n")
    assert "quote" not in run_deja("search", "--since", "soon", "cache").stderr  # no period: the forms it takes


def test_an_early_until_reaches_the_sessions_before_it_past_the_scan_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review48f M2: ``--until`` read a fixed window of the newest sessions (``SOURCE_SCAN_LIMIT``, 20,000) and
    dropped those after the cutoff, so on a longer history an early ``--until`` listed nothing. The listing and its
    count of those left out start at the first session before the cutoff; the window here is four."""
    now = datetime.now(UTC)
    ids = [f"00000000-0000-4000-8000-0000000001{n:02d}" for n in range(10)]  # (n days back)
    for n, chat_id in enumerate(ids):
        when = now - timedelta(days=n, hours=1)
        write_transcript(
            transcript_path(tmp_path / "cli", "/work/api", chat_id),
            [user_turn(f"chat {n}", when), assistant_turn("Done.", when)],
        )
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(tmp_path / "cli"))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    refresh(tmp_path / "deja")
    index = Index.open(tmp_path / "deja")
    monkeypatch.setattr(library, "SOURCE_SCAN_LIMIT", 4)
    until = (now - timedelta(days=6)).timestamp()
    for source in (None, "cursor-cli"):
        listed = newest_sessions(index, source=source, limit=2, until=until)
        assert [meta.id for meta in listed] == ids[6:8], source
        assert sessions_left_out(index, 2, source=source, until=until) == 2, source
    assert [meta.id for meta in newest_sessions(index, limit=9, until=until, since=until - 2.5 * 86400)] == ids[6:9]
