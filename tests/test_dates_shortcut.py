"""A query that cannot name a date skips the date patterns (compiling them cost every prompt hook about a ms)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core import dates

PIECES = ["in", "of", "since", "May", "march", "Mar", "2023", "19", "20", "-", "05", "8th", "8", ",", "the", "build"]


@pytest.mark.unit
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=8))
def test_the_shortcut_finds_what_the_patterns_find(pieces: list[str]) -> None:
    query = " ".join(pieces)
    found = dates.split_dates(query)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dates, "_DATE_MARKS", ("",))  # every query through every pattern
        assert dates.split_dates(query) == found


@pytest.mark.unit
def test_a_query_naming_no_date_comes_back_whole() -> None:
    assert dates.split_dates("why does the kafka consumer lag?") == ([], "why does the kafka consumer lag?")
    assert dates.split_dates("what broke in May 2023?")[0] == [(dates.year_month_key(2023, 5), "month")]
