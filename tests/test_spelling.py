"""A search that finds nothing for a misspelt word names the indexed word it most likely meant (trial48b F11)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.spelling import distance
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

WHEN = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


@pytest.fixture
def indexed(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = tmp_path / "cli"
    chats = {
        "00000000-0000-4000-8000-0000000000e1": (
            "The header regex hangs on long lines.",
            "Catastrophic backtracking: the nested quantifier tries every split.",
        ),
        "00000000-0000-4000-8000-0000000000e2": (
            "Workers drop tasks after a deploy.",
            "Celery acks them early; set acks_late and the preflight check passes.",
        ),
        # (a stem's forms: ``cahce`` is near ``cache`` as written, not ``caching``; ``retreive`` is near the
        # ``retrieves`` of the chat also holding ``retrieving``, nearer than ``receives``: review61a F1, F2)
        "00000000-0000-4000-8000-0000000000c1": (
            "Caching the product list breaks the search results.",
            "The cached page ignores the cursor; key the cache on it.",
        ),
        "00000000-0000-4000-8000-0000000000c2": (
            "Retrieving the report times out.",
            "The query retrieves every row; retrieved rows are now streamed.",
        ),
        "00000000-0000-4000-8000-0000000000c4": (
            "Authenticate with OAuth.",
            "The OAuth flow authenticates; authentication stores the refresh token.",
        ),
        "00000000-0000-4000-8000-0000000000c3": (
            "The API receives a webhook but the handler never fires.",
            "The signature check rejects it.",
        ),
        "00000000-0000-4000-8000-0000000000e9": (  # (``pins``' stem is two letters off ``pagination``'s: audit60 F4)
            "The lockfile pins an old driver.",
            "Bumped the pins.",
        ),
    }
    for chat_id, (asked, answered) in chats.items():
        write_transcript(transcript_path(cli, "/work/api", chat_id), [user_turn(asked, WHEN), assistant_turn(answered)])
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    assert run_deja("index").returncode == 0


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("backtraking", "backtracking"),
        ("celary", "celery"),
        ("preflite", "preflight"),
        ("cahce", "cache"),
        ("retreive", "retrieves"),
        ("authetication", "authentication"),
    ],
)
def test_a_misspelt_word_that_finds_nothing_is_told_the_word_meant(indexed: None, typed: str, meant: str) -> None:
    ran = run_deja("search", typed)
    assert (ran.returncode, ran.stdout.strip()) == (0, f'No session matches "{typed}"; did you mean {meant}?')
    assert "did you mean" not in run_deja("search", meant).stdout  # a hit is answered as before


def test_several_words_that_find_nothing_each_name_their_own(indexed: None) -> None:
    said = run_deja("search", "celary zeppelinx").stdout.strip()
    assert (
        said
        == 'No session matches "celary zeppelinx"; no session holds: celary zeppelinx; did you mean celery for celary?'
    )


def test_a_word_near_none_is_offered_nothing(indexed: None) -> None:
    assert run_deja("search", "zeppelin").stdout.strip() == 'No session matches "zeppelin".'
    assert run_deja("search", "pagination").stdout.strip() == 'No session matches "pagination".'  # (not "pins"?)
    assert run_deja("search", "hedr").stdout.strip() == 'No session matches "hedr".'  # (short: one letter off only)


def test_the_edit_distance_counts_a_swap_as_one_and_stops_past_the_most() -> None:
    assert distance("celari", "celeri", 2) == 1
    assert distance("bakctrack", "backtrack", 2) == 1
    assert distance("preflit", "preflight", 2) == 2
    assert distance("zeppelin", "backtrack", 2) == 3


def test_a_word_only_a_deleted_chat_held_is_never_offered(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One chat of five deleted leaves its segment as it is (below the share that rewrites it), terms and all: its
    words are not offered back (review48f H1)."""
    cli = tmp_path / "cli"
    asked = [f"Chat {n} about the deploy pipeline." for n in range(4)] + [
        "Draft the severance letter for Hollingsworth."
    ]
    paths = [transcript_path(cli, "/work/api", f"00000000-0000-4000-8000-0000000000f{n}") for n in range(5)]
    for path, text in zip(paths, asked, strict=True):
        write_transcript(path, [user_turn(text, WHEN), assistant_turn("Done.")])
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    assert run_deja("index").returncode == 0
    assert "did you mean hollingsworth?" in run_deja("search", "hollingswoth").stdout  # (the probe finds it live)
    paths[-1].unlink()
    assert "1 removed" in run_deja("index").stdout
    assert run_deja("search", "hollingswoth").stdout.strip() == 'No session matches "hollingswoth".'


def test_a_word_only_another_project_holds_is_not_offered_under_project(indexed: None, tmp_path: Path) -> None:
    """``--project`` keeps the suggestion to the project searched: ``celery`` is api's (review48f L4)."""
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/web", "00000000-0000-4000-8000-0000000000e3"),
        [user_turn("Center the navbar.", WHEN), assistant_turn("Use flexbox.")],
    )
    assert run_deja("index").returncode == 0
    assert run_deja("search", "celary", "--project", "work-web").stdout.strip() == 'No session matches "celary".'
    assert "did you mean celery?" in run_deja("search", "celary", "--project", "work-api").stdout


@pytest.mark.parametrize(
    ("elsewhere", "there"),
    [
        (["--session", "00000000-0000-4000-8000-0000000000e1"], ["--session", "00000000-0000-4000-8000-0000000000e2"]),
        (["--role", "user"], ["--role", "assistant"]),
        (["--re", "hangs"], ["--re", "acks_late"]),
    ],
)
def test_a_word_the_same_filters_would_not_find_is_not_offered(
    indexed: None, elsewhere: list[str], there: list[str]
) -> None:
    """``celery`` is only in e2's answer: under a filter that keeps to e1, to the questions or to a pattern e2 does
    not match, ``did you mean celery?`` sent the user to a search that found nothing again (review48g); under one
    that keeps e2's answer it is offered, and that search finds it."""
    _offered_only_where_found(elsewhere, there)


def test_a_word_only_another_folders_sessions_hold_is_not_offered_under_that_folder(
    indexed: None, tmp_path: Path
) -> None:
    """A project given as a folder keeps the suggestion to the sessions that ran there or below (review48g, fix48f's
    note): ``celery`` is said in svc's folder, not in web's."""
    web, svc = tmp_path / "code" / "web", tmp_path / "code" / "svc"
    for folder, chat_id, answer in ((web, "e3", "Use flexbox."), (svc, "e4", "Celery retries it.")):
        folder.mkdir(parents=True)
        write_transcript(
            transcript_path(tmp_path / "cli", str(folder), f"00000000-0000-4000-8000-0000000000{chat_id}"),
            [user_turn("Center the navbar.", WHEN), assistant_turn(answer)],
        )
    assert run_deja("index").returncode == 0
    _offered_only_where_found(["--project", str(web)], ["--project", str(svc)])


def _offered_only_where_found(elsewhere: list[str], there: list[str]) -> None:
    """``celary`` gets no word under the filters ``elsewhere``, where ``celery`` finds nothing, and ``celery`` under
    ``there``, where it finds a session."""
    said = run_deja("search", "celary", *elsewhere)
    assert (said.returncode, said.stdout.strip()) == (0, 'No session matches "celary".'), said
    assert run_deja("search", "celery", *elsewhere).stdout.startswith('No session matches "celery" with ')
    assert run_deja("search", "celary", *there).stdout.strip() == 'No session matches "celary"; did you mean celery?'
    assert "00000000-0000-4000-8000-0000000000e" in run_deja("search", "celery", *there).stdout
