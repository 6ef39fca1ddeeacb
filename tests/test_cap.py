"""Nothing cut silently: a message over a cap keeps its head and its tail around a marker saying what was left out."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest
from harness import Sample, run_deja

from deja.core.model import cap_text, human_size
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, turn_ended, user_turn, write_transcript

CHAT = "ca9ca9ca-0000-4000-8000-000000000001"


def build_log(lines: int) -> str:
    body = "".join(f"2026-07-20T09:00:{i % 60:02d}Z INFO step {i}: compiling module_{i}.py\n" for i in range(lines))
    return f"BUILD START: release 4.2 on runner-7\n{body}FATAL: disk quota exceeded writing dist/app.tar\n"


def test_show_gives_the_head_the_tail_and_how_much_was_elided(sample: Sample) -> None:
    log = build_log(25_000)  # about 1.5 MB: over the reader's 1 MiB cap and the index's 64 KiB
    project = str(sample.history.projects["api"])
    write_transcript(
        transcript_path(sample.history.cli_root, project, CHAT),
        [
            user_turn(f"the release build dies, here is the log:\n{log}", datetime.now(UTC)),
            assistant_turn("The runner's disk quota is full; clear dist/ first."),
            turn_ended(),
        ],
    )
    shown = run_deja("show", CHAT, env=sample.env)
    assert shown.returncode == 0, shown.stderr
    assert "BUILD START: release 4.2" in shown.stdout
    assert "FATAL: disk quota exceeded writing dist/app.tar" in shown.stdout
    marker = next(line for line in shown.stdout.splitlines() if "elided" in line)
    size = float(marker.strip().removeprefix("[… ").split()[0])
    assert marker.strip().endswith(" MB elided …]") and 1.3 <= size <= 1.5
    data = orjson.loads(run_deja("show", CHAT, "--json", env=sample.env).stdout)
    text = data["messages"][0]["text"]
    assert marker.strip() in text and text.endswith("FATAL: disk quota exceeded writing dist/app.tar")


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short", 100, "short"),
        ("a" * 50 + " " + "b" * 150, 200, "a" * 50 + "\n[… 74 bytes elided …]\n" + "b" * 76),
        ("line one\n" + "x" * 300 + "\nline three", 120, "line one\n[… 300 bytes elided …]\nline three"),
    ],
)
def test_cap_text_cuts_at_boundaries_and_names_what_it_left_out(text: str, limit: int, expected: str) -> None:
    assert cap_text(text, limit) == expected


@pytest.mark.parametrize("char", ["é", "€", "🚀", "a"])
def test_cap_text_never_splits_a_character_and_keeps_to_its_limit(char: str) -> None:
    text = char * 5000
    capped = cap_text(text, 1000)
    assert len(capped.encode()) <= 1000
    head, marker, tail = capped.split("\n")
    assert set(head) == set(tail) == {char} and marker.endswith("elided …]")


@pytest.mark.parametrize(
    ("size", "said"),
    [(0, "0 bytes"), (999, "999 bytes"), (1000, "1.0 KB"), (1_400_000, "1.4 MB"), (3 * 10**9, "3.0 GB")],
)
def test_sizes_read_as_people_read_them(size: int, said: str) -> None:
    assert human_size(size) == said


def test_a_text_capped_twice_counts_what_both_caps_left_out() -> None:
    text = "head\n" + "x" * 2_000_000 + "\ntail"  # 1.93 MB more than the 64 KiB kept
    twice = cap_text(cap_text(text), 64 * 1024)
    assert "[… 1.9 MB elided …]" in twice and twice.startswith("head") and twice.endswith("tail")
