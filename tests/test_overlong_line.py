"""A transcript line over 32 MiB (a pasted dump, a Write of a large generated file) keeps its message by its head and
its tail around the elision line, as a long tool result does; it was dropped silently, and the chat lost its question
and its title (trial49 F4). The line is never held whole (tests/test_hostile_files.py bounds the memory)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.readers import transcripts
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, turn_ended, user_turn, write_transcript

LOG_LINE = "2026-01-01 12:00:00 ERROR worker-7 reset by peer\n"


def test_a_message_longer_than_a_line_may_be_keeps_its_question_its_end_and_says_what_was_left_out(
    tmp_path: Path, cli_root: Path
) -> None:
    big = LOG_LINE * (transcripts.MAX_LINE_BYTES // len(LOG_LINE) + 1000)
    chat = [user_turn(f"why does the worker die? narwhal\n{big}the last line names a tapir"), assistant_turn("Raise the keepalive.")]  # fmt: skip
    write_transcript(transcript_path(cli_root, str(tmp_path), "c-big"), [*chat, turn_ended()])
    indexed = run_deja("index")
    assert indexed.returncode == 0 and "1 session, 2 messages indexed" in indexed.stdout, indexed.stderr
    listed = json.loads(run_deja("sessions", "--json").stdout)["sessions"]
    assert [session["title"] for session in listed] == ["why does the worker die? narwhal"]
    for word in ("narwhal", "tapir"):
        assert "c-big" in run_deja("search", word).stdout
    shown = run_deja("show", "c-big").stdout
    assert re.search(r"\n\[… 3\d\.\d MB elided …\]\n", shown) and "the last line names a tapir" in shown, shown[-2000:]
    assert "Raise the keepalive." in shown


#: Text whose every few bytes are an escape in JSON (a quote, a backslash, a newline, a control character) or a
#: character of several bytes, so that the cuts fall inside one, whatever the padding before it.
HOSTILE = 'é🔑\\"\n\x01 ' * 600


@pytest.mark.parametrize("pad", range(16))
def test_the_head_and_tail_join_whatever_escape_or_character_the_cuts_fall_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pad: int
) -> None:
    monkeypatch.setattr(transcripts, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(transcripts, "OVERLONG_KEPT", 1024)
    path = write_transcript(tmp_path / "t.jsonl", [user_turn("x" * pad + HOSTILE + "tail"), assistant_turn("ok")])
    problems: Counter[str] = Counter()
    read = transcripts.read_transcript(path, problems=problems)
    assert not problems and [m.role for m in read.messages] == ["user", "assistant"]
    head, marker, tail = read.messages[0].text.partition(" elided …]")
    assert head.startswith("x" * pad + "é🔑") and tail.endswith(" tail") and marker, read.messages[0].text[:200]


def test_a_long_line_whose_cuts_fall_in_two_values_is_passed_over_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcripts, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(transcripts, "OVERLONG_KEPT", 1024)
    record = {"role": "user", "message": {"content": [{"type": "text", "text": "a" * 3000}]}, "sizes": [0] * 2000}
    path = write_transcript(tmp_path / "t.jsonl", [record, assistant_turn("ok")])
    problems: Counter[str] = Counter()
    read = transcripts.read_transcript(path, problems=problems)
    assert [m.role for m in read.messages] == ["assistant"] and problems == {transcripts.OVERLONG_LINE: 1}


def test_a_long_last_line_with_no_newline_is_read_when_whole_and_left_for_later_when_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose last line has no newline (a writer that ends none, a copy) lost that line when it was over the
    cap, while a short one was read (review49c L2). One still being written, cut short, waits for the next read, as
    a short one does, and counts as no problem."""
    monkeypatch.setattr(transcripts, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(transcripts, "OVERLONG_KEPT", 1024)
    path = write_transcript(
        tmp_path / "t.jsonl", [user_turn("why does the worker die"), assistant_turn("narwhal " + "x" * 6000 + " tapir")]
    )
    whole = path.read_bytes().removesuffix(b"\n")
    for written, roles in [(whole, ["user", "assistant"]), (whole[:-10], ["user"])]:
        path.write_bytes(written)
        problems: Counter[str] = Counter()
        read = transcripts.read_transcript(path, problems=problems)
        assert [m.role for m in read.messages] == roles and not problems, (roles, problems)
        assert read.end == (len(written) if len(roles) == 2 else written.index(b"\n") + 1)
    assert read.messages[0].text == "why does the worker die"
    path.write_bytes(whole)
    answer = transcripts.read_transcript(path).messages[1].text
    assert answer.startswith("narwhal ") and answer.endswith(" tapir") and " elided …]" in answer, answer[:100]
