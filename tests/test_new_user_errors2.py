"""What a second new-user trial met: stored text that drives the terminal, messages dropped for a Latin-1 byte or
kept only in richText, filters and usage errors that said the wrong thing, a pipe closed early. Each test runs deja
as the user does, on real stores written under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from harness import ENTRY, Sample, index_cli_root, run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import composer_data, write_state_vscdb
from deja.hooks.describe import ago

PROJECT = "/work/shop"
CONTROLS = "\x1b]0;PWNED-TITLE\x07deploy\x00 with \x1b[31mred\x1b[0m ssh\r\x9b2J \u202eexe.txt\u2066 \u2069"


def _controls(text: str) -> set[str]:
    """The characters of ``text`` a terminal would act on or a person could not see and a model would read."""
    return {
        c
        for c in text
        if (c < " " and c not in "\n\t") or "\x7f" <= c <= "\x9f" or c in BIDI_CONTROLS or c in INVISIBLE
    }


#: The bidirectional overrides and isolates: a line holding one reads otherwise than it is (trialN F13).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Invisible characters a model reads and a person does not see: the tag characters that spell hidden ASCII ("ASCII
#: smuggling"), the directional marks, the word joiner, a byte order mark, the interlinear annotation marks
#: (review45b M5).
INVISIBLE = frozenset([*map(chr, range(0xE0000, 0xE0080)), "\u061c", "\u200e", "\u200f", "\u2060", "\ufeff", "\ufff9"])


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, str]:
    """One cursor-agent chat whose question holds a title-setting OSC, a NUL, colour codes, a C1 CSI and the
    bidirectional controls that show ``txt.exe`` as ``exe.txt``."""
    cli = tmp_path / "cli"
    records = [user_turn(CONTROLS), assistant_turn("run the deploy script over ssh")]
    write_transcript(transcript_path(cli, PROJECT, "c0ffee00-0000-4000-8000-000000000001"), records)
    return index_cli_root(tmp_path, cli)


@pytest.mark.parametrize(
    "args",
    [
        ("show", "c0ffee00"),
        ("search", "deploy"),
        ("sessions",),
        ("handoff", "c0ffee00"),
        ("ctx", "c0ffee00"),
        ("export", "c0ffee00"),
        ("show", "c0ffee00", "--json"),
        ("search", "deploy", "--json"),
        ("export", "c0ffee00", "--json"),
    ],
)
def test_no_control_character_from_a_stored_chat_reaches_the_terminal(
    hostile: dict[str, str], args: tuple[str, ...]
) -> None:
    done = run_deja(*args, env=hostile)
    assert done.returncode == 0, done.stderr
    assert _controls(done.stdout) == set()
    assert "PWNED-TITLE" not in done.stdout or "--json" in args  # JSON keeps the text, its controls escaped


def test_show_keeps_the_words_around_the_control_characters(hostile: dict[str, str]) -> None:
    done = run_deja("show", "c0ffee00", env=hostile)
    assert "deploy with red ssh" in done.stdout


# --- item 11: messages kept whole -------------------------------------------


def _ide(tmp_path: Path, bubbles: dict[str, object]) -> dict[str, str]:
    """deja pointed at one editor chat (no cursor-agent) with ``bubbles`` in order, user first, indexed."""
    cid = "a1a1a1a1-0000-4000-8000-000000000001"
    user = tmp_path / "ide" / "User"
    order = [(bid, 1 if i % 2 == 0 else 2) for i, bid in enumerate(bubbles)]
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={cid: composer_data(cid, order, created_at=1784278800000)},
        bubbles={cid: bubbles},  # type: ignore[dict-item]
    )
    (tmp_path / "no-cli").mkdir()
    env = {**os.environ, "DEJA_CURSOR_ROOT": str(user), "DEJA_CURSOR_CLI_ROOT": str(tmp_path / "no-cli")}
    env["DEJA_HOME"] = str(tmp_path / "deja")
    assert run_deja("index", env=env).returncode == 0
    return env


def _bubble(kind: int, text: str, **fields: object) -> dict[str, object]:
    return {"type": kind, "text": text, **fields}


def test_an_editor_bubble_with_a_latin1_byte_is_kept_with_the_byte_replaced(tmp_path: Path) -> None:
    latin1 = orjson.dumps(_bubble(1, "CAFEMARK where is the caf")).replace(b"caf", b"caf\xe9")
    env = _ide(tmp_path, {"b1": latin1, "b2": _bubble(2, "in the kitchen")})
    shown = run_deja("show", "a1a1a1a1", env=env)
    assert "CAFEMARK where is the caf\ufffd" in shown.stdout
    doctor = run_deja("doctor", env=env)
    assert "malformed bubble" not in doctor.stdout


def test_a_user_bubble_with_only_rich_text_is_shown_with_its_paragraphs(tmp_path: Path) -> None:
    def paragraph(*words: str) -> dict[str, object]:
        return {"type": "paragraph", "children": [{"type": "text", "text": w} for w in words]}

    rich = {"root": {"type": "root", "children": [paragraph("why is the ", "footer missing"), paragraph("on mobile")]}}
    bubbles = {
        "b1": _bubble(1, "hello"),
        "b2": _bubble(2, "hi"),
        "b3": _bubble(1, "", richText=json.dumps(rich)),
        "b4": _bubble(2, "the footer is hidden by a media query"),
    }
    env = _ide(tmp_path, bubbles)
    shown = run_deja("show", "a1a1a1a1", "--json", env=env)
    texts = [m["text"] for m in json.loads(shown.stdout)["messages"]]
    assert texts == ["hello", "hi", "why is the footer missing\non mobile", "the footer is hidden by a media query"]


def test_a_transcript_line_with_a_latin1_byte_is_kept(tmp_path: Path) -> None:
    cli = tmp_path / "cli"
    path = write_transcript(transcript_path(cli, PROJECT, "c0ffee00-0000-4000-8000-000000000002"), [])
    line = orjson.dumps(user_turn("CAFEMARK the caf menu")).replace(b"caf menu", b"caf\xe9 menu")
    path.write_bytes(line + b"\n" + orjson.dumps(assistant_turn("it is upstairs")) + b"\n")
    env = index_cli_root(tmp_path, cli)
    shown = run_deja("show", "c0ffee00", env=env)
    assert "CAFEMARK the caf\ufffd menu" in shown.stdout
    assert "it is upstairs" in shown.stdout


# --- items 18, 19: stdout ---------------------------------------------------


def test_export_to_dash_writes_stdout_and_no_file_named_dash(hostile: dict[str, str], tmp_path: Path) -> None:
    done = run_deja("export", "c0ffee00", "-f", "md", "-o", "-", env=hostile, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "run the deploy script over ssh" in done.stdout
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("args", [("sessions",), ("stats",), ("show", "c0ffee00"), ("search", "deploy"), ("doctor",)])
def test_a_reader_that_closes_the_pipe_early_ends_the_command_quietly_with_exit_0(
    hostile: dict[str, str], args: tuple[str, ...]
) -> None:
    """As ``deja ARGS | head -0``: the reader is gone before the first line."""
    with subprocess.Popen([*ENTRY, *args], env=hostile, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=60)
    assert (code, err) == (0, b"")


# --- items 12, 13, 14: search's filters and quotes ----------------------------


def test_project_dot_inside_the_project_is_that_project(indexed_sample: Sample) -> None:
    api = indexed_sample.history.projects["api"]
    by_dot = run_deja("search", "price", "--project", ".", env=indexed_sample.env, cwd=api)
    by_path = run_deja("search", "price", "--project", str(api), env=indexed_sample.env)
    assert by_dot.returncode == 0 and "Rate limit the price endpoint" in by_dot.stdout
    assert by_dot.stdout == by_path.stdout
    up = run_deja("sessions", "--project", "../api", env=indexed_sample.env, cwd=api)
    assert "Rate limit the price endpoint" in up.stdout


def test_an_unbalanced_quote_searches_the_words_after_it(indexed_sample: Sample) -> None:
    done = run_deja("search", '"price cache', env=indexed_sample.env)
    assert done.returncode == 0
    assert "price cache return stale prices" in done.stdout
    assert "too common" not in done.stdout


def test_a_re_that_filters_every_match_out_is_named_with_the_way_back(indexed_sample: Sample) -> None:
    done = run_deja("search", "price", "--re", "zzzq", env=indexed_sample.env)
    assert done.stdout.startswith('No session matches "price" with --re zzzq; drop the filter to see the ')


# --- item 15: hook dates ------------------------------------------------------


@pytest.fixture
def in_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC+9 (no daylight saving) for the test."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _local(text: str) -> float:
    return time.mktime(time.strptime(text, "%Y-%m-%d %H:%M"))


@pytest.mark.parametrize(
    ("then", "now", "said"),
    [
        ("2026-11-30 10:30", "2026-12-01 09:00", "2026-11-30, yesterday"),  # 22.5 hours: the day before
        ("2026-11-29 23:00", "2026-12-01 01:00", "2026-11-29, 2 days ago"),  # 26 hours: two dates back
        ("2026-12-01 00:10", "2026-12-01 23:50", "2026-12-01, today"),
        ("2025-12-31 23:00", "2026-01-01 08:00", "2025-12-31, yesterday"),  # across a new year
        ("2026-11-18 12:00", "2026-12-01 09:00", "2026-11-18, 13 days ago"),
        ("2026-11-17 12:00", "2026-12-01 09:00", "2026-11-17, 2 weeks ago"),  # ("748 days ago": trial45 F5)
        ("2026-09-01 12:00", "2026-12-01 09:00", "2026-09-01, 3 months ago"),
        ("2025-11-01 12:00", "2026-12-01 09:00", "2025-11-01, a year ago"),
        ("2024-11-17 12:00", "2026-12-04 09:00", "2024-11-17, 2 years ago"),
    ],
)
def test_a_hook_counts_days_between_local_dates_as_it_writes_them(
    in_zone: None, then: str, now: str, said: str
) -> None:
    assert ago(_local(then), now=_local(now)) == said


# --- item 16: JSON and help that say what they do --------------------------


def test_export_json_is_show_json_with_its_schema_version_and_takes_json(hostile: dict[str, str]) -> None:
    shown = json.loads(run_deja("show", "c0ffee00", "--json", env=hostile).stdout)
    exported = json.loads(run_deja("export", "c0ffee00", "--format", "json", env=hostile).stdout)
    by_flag = run_deja("export", "c0ffee00", "--json", env=hostile)
    assert exported["schema_version"] == shown["schema_version"] == 1
    assert exported == shown
    assert by_flag.returncode == 0 and json.loads(by_flag.stdout) == exported
    both = run_deja("export", "c0ffee00", "--json", "-f", "html", env=hostile)
    assert both.returncode == 2 and both.stderr.count("\n") == 1


def test_hooks_log_json_times_carry_their_utc_offset(hostile: dict[str, str]) -> None:
    payload = {"conversation_id": "c", "hook_event_name": "beforeSubmitPrompt", "prompt": "deploy over ssh"}
    assert run_deja("hook-prompt", env=hostile, input=json.dumps(payload)).returncode == 0
    when = json.loads(run_deja("hooks", "log", "--json", env=hostile).stdout)["decisions"][-1]["when"]
    assert datetime.fromisoformat(when).utcoffset() is not None


def test_wip_help_shows_dir_as_optional(hostile: dict[str, str]) -> None:
    assert "Usage: deja wip [OPTIONS] [DIR]" in run_deja("wip", "--help", env=hostile).stdout


# --- item 20: one line for a home deja cannot write ----------------------------


@pytest.mark.parametrize("args", [("search", "deploy"), ("sessions",), ("stats",), ("index",)])
def test_a_deja_home_that_cannot_be_made_is_one_line(hostile: dict[str, str], args: tuple[str, ...]) -> None:
    done = run_deja(*args, env={**hostile, "DEJA_HOME": "/proc/nope"})
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "deja: cannot write the index (/proc/nope: No such file or directory): is DEJA_HOME writable?"
    ]


def test_a_cache_folder_that_is_a_file_is_named_with_its_fix(hostile: dict[str, str], tmp_path: Path) -> None:
    """With ``XDG_CACHE_HOME`` a file and no ``DEJA_HOME``, the line asked whether DEJA_HOME was writable (review16),
    then whether XDG_CACHE_HOME was: a question, where doctor names the file and the fix (review43c L4)."""
    cache = tmp_path / "cache-file"
    cache.write_text("")
    env = {key: value for key, value in hostile.items() if key != "DEJA_HOME"}
    for args in (("index",), ("search", "deploy")):
        done = run_deja(*args, env={**env, "XDG_CACHE_HOME": str(cache)})
        assert (done.returncode, done.stderr) == (
            1,
            f"deja: cannot write the index: deja's home {cache}/deja cannot be made: {cache} is a file: move {cache} "
            "aside, or give deja another home: deja config set home DIR\n",
        )
    (tmp_path / "h2").mkdir()
    (tmp_path / "h2" / ".cache").write_text("")  # a relative XDG_CACHE_HOME is ignored: ~/.cache is the one
    done = run_deja("index", env={**env, "HOME": str(tmp_path / "h2"), "XDG_CACHE_HOME": "relative/cache"})
    assert done.returncode == 1 and done.stderr.endswith(
        f"move {tmp_path / 'h2' / '.cache'} aside, or give deja another home: deja config set home DIR\n"
    ), done.stderr


# --- item 21: blame's target --------------------------------------------------


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("", "deja: give a file to blame: `deja blame app.py`, or `deja blame app.py:12` for a line"),
        ("app.py:abc", "deja: 'app.py:abc': a line must be a positive number, as in app.py:12"),
        ("app.py:0", "deja: 'app.py:0': a line must be a positive number, as in app.py:12"),
    ],
)
def test_blame_of_no_file_or_no_line_is_a_usage_error(
    hostile: dict[str, str], tmp_path: Path, target: str, said: str
) -> None:
    (tmp_path / "app.py").write_text("print('hi')\n")
    done = run_deja("blame", target, env=hostile, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (2, "", [said])


def test_blame_of_a_file_whose_name_holds_a_colon_is_that_file(hostile: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "notes:draft").write_text("x\n")
    done = run_deja("blame", "notes:draft", env=hostile, cwd=tmp_path)
    assert done.returncode == 0 and f"no session edited {tmp_path / 'notes:draft'}" in done.stdout


def test_records_cursor_left_empty_or_damaged_are_information_not_a_warning_every_run(tmp_path: Path) -> None:
    """A NULL or malformed bubble reads the same every time (real databases hold hundreds): `deja index` does not
    repeat it on every run, and doctor counts it without a warning whose fix cannot change Cursor's rows."""
    bubbles = {"b1": _bubble(1, "where is the footer"), "b2": None, "b3": b"{not json", "b4": _bubble(2, "below")}
    env = _ide(tmp_path, bubbles)
    again = run_deja("index", env=env)
    assert again.returncode == 0 and "unreadable record" not in again.stderr
    doctor = run_deja("doctor", env=env)
    assert "passed over, empty or damaged in Cursor's own files" in doctor.stdout
    assert "1 × ide: null bubble" in doctor.stdout and "1 × ide: malformed bubble" in doctor.stdout
    assert "skipped what it could not read" not in doctor.stdout and "index --full" not in doctor.stdout
    report = orjson.loads(run_deja("doctor", "--json", env=env).stdout)
    assert report["skipped"] == {"ide: null bubble": 1, "ide: malformed bubble": 1}
    assert not [p for p in report["problems"] if p["area"] == "history"]
