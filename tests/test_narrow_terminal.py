"""A narrow terminal keeps ids and dates whole and the titles readable (trial20 F6).

At ``COLUMNS=40`` ``deja sessions`` kept one letter of each title (``0000000a  2026-12-04 18:45  shop-api  W…``), the
one thing that tells sessions apart, and a search hit's line lost its project to ``…`` and cut its date. Now the
project's column narrows first, then the title goes on a line of its own, cut with ``…`` to the width; a hit's line
leaves out its source before it cuts the project below a few letters.
"""

from __future__ import annotations

from pathlib import Path

from harness import index_asked_chats, run_deja

from deja.interfaces.views import text_columns

CHATS = [
    ("c-narrow-1", "Why are the shop-api pods OOMKilled under the load test?", "The memory limit was 512Mi."),
    ("c-narrow-2", "Customers get charged twice when the stripe webhook retries", "An idempotency key fixes it."),
    ("c-narrow-3", "Add a wishlist endpoint to the API", "Added GET and POST /wishlist."),
]


def _deja(env: dict[str, str], columns: int, *args: str) -> list[str]:
    done = run_deja(*args, env={**env, "COLUMNS": str(columns), "TZ": "UTC"})
    assert done.returncode == 0 and not done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert all(text_columns(line) <= columns for line in lines), done.stdout
    return lines


def test_sessions_at_forty_columns_put_the_title_on_its_own_line(tmp_path: Path, fake_home: Path) -> None:
    env = index_asked_chats(tmp_path, "/work/shop-api", CHATS)
    assert _deja(env, 40, "sessions") == [
        "c-narrow-3  2026-03-04 09:00  work-shop…",
        "  Add a wishlist endpoint to the API",
        "c-narrow-2  2026-03-03 09:00  work-shop…",
        "  Customers get charged twice when the …",
        "c-narrow-1  2026-03-02 09:00  work-shop…",
        "  Why are the shop-api pods OOMKilled u…",
    ]


def test_sessions_keep_one_line_a_row_while_the_title_has_room(tmp_path: Path, fake_home: Path) -> None:
    env = index_asked_chats(tmp_path, "/work/shop-api", CHATS)
    assert _deja(env, 60, "sessions")[1] == "c-narrow-2  2026-03-03 09:00  work-sh…  Customers get charg…"
    assert (
        _deja(env, 80, "sessions")[1]
        == "c-narrow-2  2026-03-03 09:00  work-shop-api  Customers get charged twice when t…"
    )


def test_a_search_hit_keeps_its_date_whole_at_forty_columns(tmp_path: Path, fake_home: Path) -> None:
    env = index_asked_chats(tmp_path, "/work/shop-api", CHATS)
    assert _deja(env, 40, "search", "charged", "twice")[1] == "  c-narrow-2 · work-… · 2026-03-03 09:00"
    assert (
        _deja(env, 60, "search", "charged", "twice")[1]
        == "  c-narrow-2 · cursor-cli · work-shop-api · 2026-03-03 09:00"
    )


LONG_IDS = [  # (two that tell apart only at their last character: each one's shortest unique prefix is all of it)
    ("e6000000-0000-4000-8000-000000000001", "Storybook OOM on CI", "NODE_OPTIONS raised the heap."),
    ("e6000000-0000-4000-8000-000000000002", "Vitest hangs in CI", "A leaked timer kept it alive."),
    ("d5000000-0000-4000-8000-000000000001", "celery worker can't reach redis", "The REDIS_URL lacked its port."),
]


def test_long_ids_leave_the_project_eight_columns_at_least_on_the_titles_line(tmp_path: Path, fake_home: Path) -> None:
    """trial23 F6: at 60 columns, 36-character ids and the date left the project "web…"; the ids stay lined up (each
    padded to the longest), and the project goes before the title, on its line, in 8 columns or more."""
    env = index_asked_chats(tmp_path, "/work/shop-api", LONG_IDS)
    assert _deja(env, 60, "sessions") == [
        "d5000000                              2026-03-04 09:00",
        "  work-shop-api  celery worker can't reach redis",
        "e6000000-0000-4000-8000-000000000002  2026-03-03 09:00",
        "  work-shop-api  Vitest hangs in CI",
        "e6000000-0000-4000-8000-000000000001  2026-03-02 09:00",
        "  work-shop-api  Storybook OOM on CI",
    ]
    assert _deja(env, 80, "sessions")[:2] == [
        "d5000000                              2026-03-04 09:00  work-shop-api",
        "  celery worker can't reach redis",
    ]


def test_a_terminal_too_narrow_for_id_date_and_eight_of_the_project_puts_it_with_the_title(
    tmp_path: Path, fake_home: Path
) -> None:
    env = index_asked_chats(tmp_path, "/work/shop-api", CHATS)
    assert _deja(env, 32, "sessions")[:2] == ["c-narrow-3  2026-03-04 09:00", "  work-sh…  Add a wishlist endp…"]


def test_a_whole_passage_keeps_its_matched_word_far_into_its_line(tmp_path: Path, fake_home: Path) -> None:
    """review47k M1: a passage shown whole (under 240 characters, so not cut around its match) whose matched word
    lay 80 characters or more into it lost that word to the cut at the terminal's width; it now begins nearer the
    word, with ``…`` for what it leaves out."""
    answer = (
        "We looked at the dashboards and the queue depth all week, and then we finally found that the lagging "
        "kafkaconsumer stalls whenever the nightly batch job runs."
    )
    env = index_asked_chats(tmp_path, "/work/lag", [("c-lag-1", "why does the lag grow at night", answer)])
    shown = _deja(env, 80, "search", "kafkaconsumer")
    (line,) = [line for line in shown if "assistant:" in line]
    assert line.startswith("  assistant: …") and "kafkaconsumer " in line, shown
    whole = _deja(env, 200, "search", "kafkaconsumer")
    assert f"  assistant: {answer}" in whole  # (a line with room for it shows it whole)
