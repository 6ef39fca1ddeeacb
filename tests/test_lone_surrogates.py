"""Half an emoji in a stored record: a JavaScript string cut inside a UTF-16 pair is written by
``JSON.stringify`` as a lone escape (``"\\ud83d"``), valid JSON that ``orjson`` refuses. The record is kept, the half
read as U+FFFD, in each of Cursor's stores (trialH F6); each test reads real stores written with the project's
writers, as the user runs deja."""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest
from harness import index_cli_root, run_deja

from deja.core.cjson import lone_surrogates_replaced
from deja.core.readers.jsonvalue import NotJson, loads
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import composer_data, write_state_vscdb

PROJECT = "/work/shop"
#: "deploy done 🚀" cut after the rocket's first UTF-16 unit, as JSON.stringify writes it.
CUT = "deploy done \\ud83d"


def _cut(record: dict[str, object], marker: str) -> str:
    """``record``'s JSON with ``marker`` followed by the lone half (orjson cannot write one)."""
    return orjson.dumps(record).decode().replace(marker, f"{marker} {CUT}")


def _show(env: dict[str, str], chat: str) -> str:
    done = run_deja("show", chat, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return "\n".join(str(m) for m in json.loads(done.stdout)["messages"])


def test_a_transcript_turn_cut_inside_an_emoji_is_kept(tmp_path: Path) -> None:
    cli = tmp_path / "cli"
    answer = {"role": "assistant", "message": {"content": [{"type": "text", "text": "PLOVERANSWER"}]}}
    write_transcript(
        transcript_path(cli, PROJECT, "b0b0b0b0-0000-4000-8000-000000000001"),
        [user_turn("ship it"), _cut(answer, "PLOVERANSWER")],
    )
    env = index_cli_root(tmp_path, cli)
    assert "PLOVERANSWER deploy done \ufffd" in _show(env, "b0b0b0b0")
    assert "unreadable" not in run_deja("index", env=env).stdout


def test_a_failed_shell_output_cut_inside_an_emoji_keeps_its_output_and_exit_code(tmp_path: Path) -> None:
    cli = tmp_path / "cli"
    cid = "c0c0c0c0-0000-4000-8000-000000000001"
    result = tool_result_message("c1", "Shell", shell_result_text("PLOVERFAILED", exit_code=1))
    write_chat_store(
        chat_dir_for(cli, PROJECT, cid),
        cwd=PROJECT,
        messages=[
            *store_preamble(PROJECT),
            store_user_message("run the deploy"),
            store_assistant_message(None, tool_call_part("c1", "Shell", {"command": "./deploy.sh"})),
            _cut(result, "PLOVERFAILED"),
            store_assistant_message("the deploy failed"),
        ],
        title="deploy",
    )
    env = index_cli_root(tmp_path, cli)
    shown = _show(env, "c0c0c0c0")
    assert "PLOVERFAILED deploy done \ufffd" in shown
    assert "'exit_code': 1" in shown


def test_an_editor_bubble_cut_inside_an_emoji_is_kept(tmp_path: Path) -> None:
    cid = "d0d0d0d0-0000-4000-8000-000000000001"
    user = tmp_path / "ide" / "User"
    answer = _cut({"bubbleId": "b2", "type": 2, "text": "PLOVERIDE"}, "PLOVERIDE")
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={cid: composer_data(cid, [("b1", 1), ("b2", 2)], created_at=1784278800000)},
        bubbles={cid: {"b1": {"bubbleId": "b1", "type": 1, "text": "where is it"}, "b2": answer}},
    )
    (tmp_path / "no-cli").mkdir()
    env = {**os.environ, "DEJA_CURSOR_ROOT": str(user), "DEJA_CURSOR_CLI_ROOT": str(tmp_path / "no-cli")}
    env["DEJA_HOME"] = str(tmp_path / "deja")
    assert run_deja("index", env=env).returncode == 0
    assert "PLOVERIDE deploy done \ufffd" in _show(env, "d0d0d0d0")


def test_only_lone_halves_are_replaced() -> None:
    assert lone_surrogates_replaced('"a \\ud83d"') == '"a \\ufffd"'
    assert lone_surrogates_replaced('"\\ude80 b"') == '"\\ufffd b"'  # a low half alone
    assert lone_surrogates_replaced('"\\ud83d\\ud83d\\ude80"') == '"\\ufffd\\ud83d\\ude80"'  # a half, then a pair
    assert lone_surrogates_replaced('"\\ud83d\\ude80"') == '"\\ud83d\\ude80"'  # the whole emoji
    assert lone_surrogates_replaced('"C:\\\\ud83d"') == '"C:\\\\ud83d"'  # an escaped backslash, then text
    assert lone_surrogates_replaced('"\\u00e9\\n\\ud8"') == '"\\u00e9\\n\\ud8"'  # not an escape of a half


def test_a_transcript_line_holding_a_raw_control_character_in_a_string_is_read(tmp_path: Path) -> None:
    """trial19 F6: a line whose string holds a raw NUL or ESC (a writer that did not escape them: not strict JSON)
    was dropped without a word. It is read as a non-strict JSON parser reads it, the characters kept as text: found,
    redacted, and shown without them."""
    cli = tmp_path / "cli"
    token = "ghp_" + "k7Qx2" * 7 + "a"  # (a GitHub token's shape, made up)
    record = user_turn(f"raw nul NULMARK in json string marmoset, token {token}")
    raw = orjson.dumps(record).decode().replace("NULMARK", "\x00 and \x1b]0;pwned\x07")
    write_transcript(transcript_path(cli, PROJECT, "c0c0c0c0-0000-4000-8000-000000000001"), [raw])
    env = index_cli_root(tmp_path, cli)
    found = run_deja("search", "marmoset", env=env)
    assert found.returncode == 0 and "c0c0c0c0" in found.stdout, found
    shown = run_deja("show", "c0c0c0c0", env=env).stdout
    assert "marmoset" in shown and "[redacted:github-token]" in shown and token not in shown
    assert not {"\x00", "\x1b", "\x07"} & set(shown)
    as_json = json.loads(run_deja("show", "c0c0c0c0", "--json", env=env).stdout)  # (escaped there, and kept)
    assert as_json["messages"][0]["text"].startswith("raw nul \x00 and \x1b]0;pwned\x07 in json string marmoset")


def test_a_store_value_read_loosely_keeps_orjsons_number_rules(tmp_path: Path) -> None:
    """review40a M2: a store message holding a raw ESC, read by the loose fallback, gave an exit code past 64 bits as
    a Python int, which the index's msgpack cannot write: every `deja index` and search then failed. Read as orjson
    reads numbers (a float past 64 bits, ``1e400`` refused), the chat is indexed and found."""
    cli = tmp_path / "cli"
    chat = "b1b1b1b1-0000-4000-8000-000000000001"
    call = tool_call_part("c1", "Shell", {"command": "make build"})
    result = tool_result_message("c1", "Shell", "done \x1b[32mOK\x1b[0m marmoset")
    result["providerOptions"] = {"cursor": {"highLevelToolCallResult": {"output": {"success": {"exitCode": 12345}}}}}
    raw = orjson.dumps(result).decode().replace("\\u001b", "\x1b").replace("12345", "1" + "0" * 30).encode()
    messages = [*store_preamble(PROJECT), store_user_message("build it"), store_assistant_message("running", call), raw]
    write_chat_store(chat_dir_for(cli, PROJECT, chat), cwd=PROJECT, messages=messages)
    env = index_cli_root(tmp_path, cli)
    found = run_deja("search", "marmoset", env=env)
    assert found.returncode == 0 and "b1b1b1b1" in found.stdout, found
    assert loads('{"a": "\x1b", "n": 123456789012345678901234567890}')["n"] == 1.2345678901234568e29
    for beyond in ("1e400", "1" + "0" * 400):  # (review40b M4: the int past a double's range raised OverflowError)
        with pytest.raises(NotJson):
            loads('{"a": "\x1b", "n": ' + beyond + "}")
