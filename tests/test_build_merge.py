"""The build's counting and final-merge shortcuts give what their plain forms give."""

from __future__ import annotations

import random
import re
import struct
from array import array
from collections import Counter
from itertools import groupby

import pytest

from deja.core import text as text_module
from deja.core.fields import MESSAGE_KINDS
from deja.core.index.format import K1, KIND_TITLE, KIND_WEIGHT, MAX_RUN, B
from deja.core.index.writer import _count_with_counter, _doc_shapes, _impact_runs, count_into

pytestmark = pytest.mark.unit


def test_counting_a_docs_terms_is_what_counter_counts_either_way() -> None:
    rng = random.Random(5)
    words = [rng.choice(["cache", "retry", "the", "fetchuser", "é"]) for _ in range(500)]
    for count in (count_into, _count_with_counter):
        counts: dict[str, int] = {"cache": 2}
        count(counts, words)
        assert counts == Counter(words) + Counter({"cache": 2})


def test_impact_runs_are_the_runs_of_equal_float16_impacts_cut_at_max_run() -> None:
    rng = random.Random(9)
    close = [1.0, 1.0001, 1.0002, 0.5]  # the first three are one float16
    for lengths in ([1], [3, 1, 2], [MAX_RUN], [MAX_RUN + 1, 2], [3 * MAX_RUN + 7], [1] * 40, [100, 100, 100, 3]):
        values = close if len(lengths) == len(close) else [rng.random() * 10 for _ in lengths]
        impacts = [v for v, n in zip(sorted(values, reverse=True), lengths, strict=True) for _ in range(n)]
        expected_values, expected_lengths = [], []
        # (each run's impact as its float16's bits, the way postings.bin holds it)
        for value, run in groupby(struct.unpack(f"<{len(impacts)}H", struct.pack(f"<{len(impacts)}e", *impacts))):
            length = len(list(run))
            while length > 0:
                expected_values.append(value)
                expected_lengths.append(min(length, MAX_RUN))
                length -= MAX_RUN
        assert _impact_runs(impacts) == (expected_values, bytearray(expected_lengths))


def test_doc_shapes_give_each_doc_the_factor_its_own_length_gives() -> None:
    rng = random.Random(11)
    kinds = [rng.choice(sorted(KIND_WEIGHT)) for _ in range(3000)]
    lengths = [rng.choice([0, 1, 5, 40, 41, 300]) for _ in kinds]
    chunks = [
        (array("I", lengths[:1000]), array("B", kinds[:1000])),
        (array("I", lengths[1000:]), array("B", kinds[1000:])),
    ]
    shapes, weights, norm = _doc_shapes(lambda: iter(chunks))

    def group(kind: int) -> int:
        return kind if kind not in MESSAGE_KINDS and kind != KIND_TITLE else -1

    average = {
        g: (sum(n for n, k in zip(lengths, kinds, strict=True) if group(k) == g) / kinds_in) or 1.0
        for g in {group(k) for k in kinds}
        for kinds_in in [sum(group(k) == g for k in kinds)]
    }
    first_met = list(dict.fromkeys(zip(kinds, lengths, strict=True)))
    assert list(shapes) == [first_met.index(shape) for shape in zip(kinds, lengths, strict=True)]
    for doc, (kind, dl) in enumerate(zip(kinds, lengths, strict=True)):
        assert weights[shapes[doc]] == KIND_WEIGHT[kind]
        assert norm[shapes[doc]] == K1 * (1 - B + B * dl / average[group(kind)])


def test_terms_are_the_same_when_the_cache_fills_midway(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "fetchUser retries the flaky upload in src/app.py; the uploader's cache_key retries again " * 3
    expected = [term for raw in re.findall(text_module.RAW_PATTERN, text) for term in text_module.token_terms(raw)]
    monkeypatch.setattr(text_module, "_CACHE_LIMIT", 3)
    text_module.forget_cached_terms()
    assert text_module.terms(text) == expected
    assert len(text_module._CACHE) <= 3
    assert [found for _, found in text_module.term_positions(text)] == [
        text_module.token_terms(raw) for raw in re.findall(text_module.RAW_PATTERN, text)
    ]
