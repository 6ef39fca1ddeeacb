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
