"""How a transcript's tool calls are paired with another record of the same chat, on the edge cases.

Two readers pair calls: the merge of an editor chat with its cursor-agent transcript (which transcript calls the
editor's database lacks: ``history._calls_the_database_lacks``) and a transcript with its ``store.db`` (which store
result is each call's: ``chatstore.attach_tool_results``). Both pair by whole call first, then by what the call
acted on (``call_target``); the merge then by the file an edit changed. They differ in one rule, on purpose: the
merge pairs a target greedily (it only needs to know how many calls the database holds: a wrong partner adds or
drops nothing), while a result is given by target only where both sides hold as many such calls (a wrong partner
would show another command's output as this one's).
"""

from __future__ import annotations

import pytest

from deja.core.history import _calls_the_database_lacks
from deja.core.model import Message, Session, ToolCall
from deja.core.readers.chatstore import StoreToolResult, attach_tool_results
from deja.core.readers.conversation import canonical_args, normalise_tool_name

pytestmark = pytest.mark.unit


def _session(source: str, *calls: ToolCall) -> Session:
    return Session(id="chat", source=source, messages=[Message(role="assistant", text="", tool_calls=list(calls))])  # type: ignore[arg-type]


def _lacking(ide_calls: list[ToolCall], cli_calls: list[ToolCall]) -> list[int]:
    """The positions of the transcript calls the database lacks."""
    lacking = _calls_the_database_lacks(_session("cursor-ide", *ide_calls), _session("cursor-cli", *cli_calls))
    return [at for at, call in enumerate(cli_calls) if id(call) in lacking]


def _shell(command: str, **more: str) -> ToolCall:
    return ToolCall(name="Shell", args={"command": command, **more})


def test_merge_a_call_both_hold_is_not_lacking() -> None:
    assert _lacking([_shell("ls")], [_shell("ls")]) == []


def test_merge_a_call_held_twice_in_the_transcript_and_once_in_the_database() -> None:
    assert _lacking([_shell("ls")], [_shell("ls"), _shell("ls")]) == [1]


def test_merge_pairs_by_target_when_the_arguments_differ_elsewhere() -> None:
    ide = [_shell("npm test", description="run the tests", working_directory="/w")]
    assert _lacking(ide, [_shell("npm test")]) == []


def test_merge_pairs_a_target_greedily_where_the_counts_differ() -> None:
    """Two transcript calls of one command, one in the database with other arguments: one is the database's."""
    ide = [_shell("npm test", description="run")]
    assert _lacking(ide, [_shell("npm test"), _shell("npm test")]) == [1]


def test_merge_the_whole_call_pairs_before_the_target() -> None:
    """The exact call takes its twin; the other transcript call then pairs by target with what is left."""
    ide = [_shell("make", description="a"), _shell("make", description="b")]
    assert _lacking(ide, [_shell("make", description="b"), _shell("make", description="c")]) == []


def test_merge_pairs_an_edit_by_its_file_however_the_tool_is_spelled() -> None:
    ide = [ToolCall(name="search_replace", args={"file_path": "/w/a.py", "old_string": "x", "new_string": "y"})]
    cli = [ToolCall(name="StrReplace", args={"path": "/w/a.py", "old": "x", "new": "y"})]
    assert _lacking(ide, cli) == []


def test_merge_a_deletion_is_no_edit_of_the_same_file() -> None:
    ide = [ToolCall(name="edit_file", args={"target_file": "/w/a.py", "code_edit": "z"})]
    cli = [ToolCall(name="Delete", args={"path": "/w/a.py"})]
    assert _lacking(ide, cli) == [0]


def test_merge_a_call_naming_nothing_pairs_only_whole() -> None:
    ide = [ToolCall(name="TodoWrite", args={"todos": [1]})]
    assert _lacking(ide, [ToolCall(name="TodoWrite", args={"todos": [2]})]) == [0]


def _result(call: ToolCall, text: str) -> StoreToolResult:
    return StoreToolResult(normalise_tool_name(call.name), canonical_args(call.args), text)


def _attached(calls: list[ToolCall], results: list[StoreToolResult]) -> tuple[int, list[str | None]]:
    paired = attach_tool_results([Message(role="assistant", text="", tool_calls=calls)], results)
    return paired, [call.result for call in calls]


def test_store_the_same_call_twice_takes_its_results_in_order() -> None:
    calls = [_shell("ls"), _shell("ls")]
    assert _attached(calls, [_result(_shell("ls"), "one"), _result(_shell("ls"), "two")]) == (2, ["one", "two"])


def test_store_a_call_the_transcript_lacks_is_left_alone() -> None:
    tools = ToolCall(name="GetDynamicTools", args={})
    calls = [_shell("ls")]
    assert _attached(calls, [_result(tools, "tools"), _result(_shell("ls"), "a.py")]) == (1, ["a.py"])


def test_store_pairs_by_target_where_both_sides_hold_as_many() -> None:
    calls = [_shell("npm test"), _shell("make")]
    results = [_result(_shell("make", description="b"), "built"), _result(_shell("npm test", description="t"), "ok")]
    assert _attached(calls, results) == (2, ["ok", "built"])


def test_store_gives_no_result_by_target_where_the_counts_differ() -> None:
    """Two transcript calls of one command, one store call with other arguments: whose it is is a guess."""
    calls = [_shell("npm test"), _shell("npm test")]
    assert _attached(calls, [_result(_shell("npm test", description="t"), "ok")]) == (0, [None, None])


def test_store_the_whole_call_pairs_before_the_target() -> None:
    calls = [_shell("make", description="b"), _shell("make", description="c")]
    results = [_result(_shell("make", description="a"), "first"), _result(_shell("make", description="b"), "second")]
    assert _attached(calls, results) == (2, ["second", "first"])


def test_store_pairs_no_edit_by_its_file_alone() -> None:
    """The store names its tools as the transcript does: an edit that differs but in its file is another edit."""
    calls = [ToolCall(name="StrReplace", args={"path": "/w/a.py", "old": "x", "new": "y"})]
    results = [_result(ToolCall(name="Write", args={"path": "/w/a.py", "contents": "z"}), "wrote")]
    assert _attached(calls, results) == (0, [None])
