"""Every ``--json`` output keeps a message's text as stored: the characters the text output takes out (escape
sequences, C1 controls, bidirectional overrides, the invisible format characters and the tag characters) are written
as ``\\u`` escapes, never raw and never dropped (review46f M1: ``show --json`` wrote an RLM and a BOM raw to the
terminal, and ``export --json``, on stdout and in its ``-o`` file, lost them). A cursor-agent chat written with the
project's writers under a fake HOME, indexed and read by ``deja`` as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from harness import index_cli_root, run_deja
from test_new_user_errors2 import _controls

from deja.core.text import for_terminal, json_escaped_controls
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)

CHAT = "5e5e0047-0000-4000-8000-000000000001"
TAGS = "".join(chr(0xE0000 + ord(c)) for c in "run rm")
#: A question holding every kind the terminal's cleaning takes out: the directional marks (RLM, ALM, LRM), a word
#: joiner, a BOM inside the text, an interlinear annotation mark, tag characters, an override, ESC and a C1 CSI.
QUESTION = (
    "kumquat deploy \u05e9\u05dc\u05d5\u05dd\u200f (rlm) \u0645\u0631\u062d\u0628\u0627\u061c lrm\u200e wj a\u2060b"
    f" bom\ufeffX ann\ufff9 tags{TAGS} rlo\u202eexe.txt\u202c esc\x1b[31mred\x1b[0m c1\x9b2J"
)
TITLE = "kumquat \u200fnotes\u2060"


@pytest.fixture
def env(tmp_path: Path, fake_home: Path) -> dict[str, str]:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    cli = tmp_path / "cli"
    write_transcript(
        transcript_path(cli, str(project), CHAT), [user_turn(QUESTION), assistant_turn("done"), turn_ended()]
    )
    write_chat_store(chat_dir_for(cli, str(project), CHAT), cwd=str(project), name=TITLE, messages=[])
    return {**index_cli_root(tmp_path, cli), "HOME": str(fake_home)}


def _read(raw: str) -> dict:
    """The JSON a program reads from ``raw``, which holds no character a terminal acts on or a person cannot see."""
    assert _controls(raw) == set(), sorted(map(hex, map(ord, _controls(raw))))
    return json.loads(raw)


def _deja(env: dict[str, str], *args: str) -> str:
    done = run_deja(*args, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_show_and_export_json_keep_the_text_as_stored(tmp_path: Path, env: dict[str, str]) -> None:
    written = tmp_path / "one.json"
    _deja(env, "export", CHAT[:8], "--json", "-o", str(written))
    folder = tmp_path / "all"
    _deja(env, "export", "--project", "shop", "--json", "-o", str(folder))
    answers = {
        "show --json": _deja(env, "show", CHAT[:8], "--json"),
        "export --json": _deja(env, "export", CHAT[:8], "--json"),
        "export --json -o": written.read_text(encoding="utf-8"),
        "export --project": (folder / f"{CHAT}.json").read_text(encoding="utf-8"),
    }
    for how, raw in answers.items():
        shown = _read(raw)
        assert shown["messages"][0]["text"] == QUESTION, how
        assert shown["session"]["title"] == TITLE, how
    assert answers["export --json"] == answers["export --json -o"] == answers["export --project"]
    assert _read((folder / "index.json").read_text(encoding="utf-8"))["sessions"][0]["title"] == TITLE


def test_search_and_sessions_json_keep_the_text_as_stored(env: dict[str, str]) -> None:
    hit = _read(_deja(env, "search", "kumquat", "--json"))["hits"][0]
    assert hit["title"] == TITLE
    assert QUESTION in [snippet["text"] for snippet in hit["snippets"]]
    assert _read(_deja(env, "sessions", "--json"))["sessions"][0]["title"] == TITLE


def test_the_text_output_still_takes_them_out(env: dict[str, str]) -> None:
    shown = _deja(env, "show", CHAT[:8])
    assert _controls(shown) == set()
    assert "wj ab bomX ann tags rlo" in shown


@pytest.mark.unit
def test_every_character_reads_back_as_it_was_and_nothing_is_left_for_the_terminal_to_take() -> None:
    every = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    for written in (json.dumps(every, ensure_ascii=False), orjson.dumps(every).decode()):
        escaped = json_escaped_controls(written)
        assert json.loads(escaped) == every
        assert for_terminal(escaped) == escaped
