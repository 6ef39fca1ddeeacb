"""A cursor-agent store's messages (Vercel AI SDK JSON) as deja messages, and its tool results.

The store keeps every message of a chat (README "What deja reads"): ``system``
prompts, ``user`` messages (Cursor's ``<user_info>``/``<rules>``/``<agent_skills>``
preambles, then each question as ``<timestamp>`` and ``<user_query>`` blocks),
``assistant`` messages of text, reasoning and ``tool-call`` parts, and ``tool``
messages holding each call's ``tool-result``. A chat with no transcript is read
from here alone, into the same shape a transcript gives.
"""

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

from ..cjson import dump_json
from ..model import Message, ToolCall, cap_text
from ..patterns import Lazy
from ..text import user_query
from .transcripts import clean_user_text, without_redacted_thinking

#: A root's child: the message, and its node's time when the store recorded one.
Child = tuple[dict[str, Any], datetime | None]

#: Their results are the MCP servers' own descriptions, not work done in the chat.
SKIPPED_TOOLS = frozenset({"GetMcpTools", "GetDynamicTools"})

#: Older builds' snake_case names whose current name is not their CamelCase spelling.
_RENAMED_TOOLS = {
    "run_terminal_cmd": "Shell",
    "run_terminal_command": "Shell",
    "run_terminal_command_v2": "Shell",
    "read_file": "Read",
    "search_replace": "StrReplace",
    "edit_file": "Edit",
    "delete_file": "Delete",
    "list_dir": "LS",
    "grep_search": "Grep",
    "glob_file_search": "Glob",
    "codebase_search": "SemanticSearch",
}
_SNAKE_CASE = Lazy(globals(), "_SNAKE_CASE", r"[a-z]+(?:_[a-z]+)*")


def normalise_tool_name(name: str) -> str:
    """A tool name as current builds spell it: ``run_terminal_cmd`` → ``Shell``, ``todo_write`` → ``TodoWrite``."""
    if name in _RENAMED_TOOLS:
        return _RENAMED_TOOLS[name]
    if _SNAKE_CASE.fullmatch(name):
        return "".join(word.capitalize() for word in name.split("_"))
    return name


def canonical_args(args: Any) -> str:
    """A call's arguments as sorted-key JSON, so equal arguments compare equal however they were ordered.

    Written by the standard library's C encoder (``cjson.dump_json``), not orjson, whose import a refresh of one
    turn would pay for this alone: the keys are only compared with each other and read back (``chatstore``), and
    arguments read from JSON give equal text exactly when orjson's text is equal."""
    return dump_json(args if isinstance(args, dict) else {}, sort_keys=True).decode()


def tool_result(name: str, part: dict[str, Any], message: dict[str, Any]) -> tuple[str, int | None]:
    """A ``tool-result`` part's text and (for Shell) exit status; ``name`` is normalised.

    The text is ``result`` (a string or ``{type: "text"}`` parts), else
    ``experimental_content``. For Shell, what the text lacks is taken from the
    message's ``providerOptions.cursor.highLevelToolCallResult.output``
    (``success`` or ``failure``: ``exitCode``, ``stdout``/``stderr``).
    """
    text = _text_of(part.get("result")) or _text_of(part.get("experimental_content"))
    if name != "Shell":
        return cap_text(text), None
    output, exit_code = split_shell_output(text)
    outcome = _dig(message, "providerOptions", "cursor", "highLevelToolCallResult", "output")
    outcome = _dig(outcome, "success") or _dig(outcome, "failure")
    outcome = outcome if isinstance(outcome, dict) else {}
    if exit_code is None and isinstance(outcome.get("exitCode"), int):
        exit_code = outcome["exitCode"]
    if not output:
        output = "\n".join(s for s in (outcome.get("stdout"), outcome.get("stderr")) if isinstance(s, str) and s)
    return cap_text(output), exit_code


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            p["text"]
            for p in value
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    return ""


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


_UNTRUSTED = Lazy(
    globals(),
    "_UNTRUSTED",
    r"\A\s*<cursor_untrusted_data_redacted\b[^>]*>\n?(.*?)\n?</cursor_untrusted_data_redacted>\s*\Z",
    re.S,
)
_EXIT_CODE = Lazy(globals(), "_EXIT_CODE", r"^Exit code: (-?\d+)[ \t]*$", re.M)
_OUTPUT_FENCE = Lazy(globals(), "_OUTPUT_FENCE", r"^Command output:[ \t]*\n\s*```[^\n]*\n", re.M)
_FRAMING = Lazy(
    globals(),
    "_FRAMING",
    r"(?:Exit code: -?\d+|Command output:|Command completed in .*|Shell state .*persists.*"
    r"|Current directory: .*|This command ran outside the sandbox.*)\s*",
)


def split_shell_output(text: str) -> tuple[str, int | None]:
    """A Shell result's printed output without Cursor's framing, and its ``Exit code``.

    The output is the fenced block after ``Command output:`` (up to the last
    fence); without a fence, the text less its framing lines. An
    ``<cursor_untrusted_data_redacted>`` wrapper is removed first.
    """
    wrapped = _UNTRUSTED.match(text)
    if wrapped:
        text = wrapped[1]
    code = _EXIT_CODE.search(text)
    exit_code = int(code[1]) if code else None
    # (the pattern, anchored at each line's start, tries every position of a text without its literal)
    fence = _OUTPUT_FENCE.search(text) if "Command output:" in text else None
    if fence:
        body = text[fence.end() :]
        close = body.rfind("```")
        if close >= 0:
            return body[:close].removesuffix("\n"), exit_code
        text = body
    kept = [line for line in text.split("\n") if not _FRAMING.fullmatch(line)]
    return "\n".join(kept).strip("\n"), exit_code


# --- the conversation ---------------------------------------------------------

_PREAMBLE = Lazy(globals(), "_PREAMBLE", r"<(user_info|rules|agent_skills)\b[^>]*>.*?</\1>\s*", re.S)
_WORKSPACE_PATH = Lazy(
    globals(), "_WORKSPACE_PATH", r"<user_info\b[^>]*>.*?^Workspace Path: *([^\n]*?) *$", re.S | re.M
)


class StoreConversation(NamedTuple):
    messages: list[Message]
    #: A message's time was known.
    dated: bool
    #: The folder the first ``<user_info>`` preamble names (``Workspace Path: /x``), or "".
    workspace: str


def store_conversation(children: Iterable[Child]) -> StoreConversation:
    """The user and assistant messages of a store's latest root, whether any time was known, and the folder the
    ``<user_info>`` preamble names (a chat whose ``meta.json`` has no ``cwd`` still says where it ran there).

    As a transcript reads: system messages and preambles are left out, a turn's
    tool-only assistant messages join its last assistant message, and each tool
    call takes its result (joined by ``toolCallId``; a Shell result with its exit
    code). ``GetMcpTools``/``GetDynamicTools`` calls are left out. A message's time
    is the latest known at or before it (a user message's ``<timestamp>`` block,
    a node's time); messages before the first take the first; with none at all
    every time is None.
    """
    messages: list[Message] = []
    calls: dict[str, ToolCall] = {}
    undated: list[Message] = []
    turn: Message | None = None  # the current turn's last assistant message
    current: datetime | None = None
    workspace = ""
    for message, when in children:
        role, content = message.get("role"), message.get("content")
        new: Message | None = None
        if role == "user":
            workspace = workspace or _workspace_path(content)
            text, written = _user_text(content)
            when = when or written
            if text:
                new, turn = Message(role="user", text=cap_text(text)), None
        elif role == "assistant":
            text, made = _assistant_parts(content, calls)
            if not text and made and turn is not None:
                turn.tool_calls.extend(made)
            elif text or made:
                new = turn = Message(role="assistant", text=cap_text(text), tool_calls=made)
        elif role == "tool":
            _attach_results(content, message, calls)
        if when is not None:
            current = when
            for earlier in undated:
                earlier.timestamp = when
            undated.clear()
        if new is not None:
            new.timestamp = current
            messages.append(new)
            if current is None:
                undated.append(new)
    return StoreConversation(messages, current is not None, workspace)


def _workspace_path(content: Any) -> str:
    """The ``Workspace Path:`` line of a user message's ``<user_info>`` preamble, or ""."""
    found = _WORKSPACE_PATH.search("\n".join(_texts(content)))
    return found[1] if found and found[1].startswith("/") else ""


def _texts(content: Any) -> list[str]:
    """The text of a string content, or of its ``text`` parts."""
    if isinstance(content, str):
        return [content]
    parts = content if isinstance(content, list) else []
    return [
        p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]


def _user_text(content: Any) -> tuple[str, datetime | None]:
    """A user message's question without Cursor's wrappers or preambles, and its ``<timestamp>`` time."""
    text = "\n".join(_texts(content))
    cut = user_query(text)
    if cut is not None:
        before, query, after = cut
        text = f"{_PREAMBLE.sub('', before)}<user_query>{query}</user_query>{_PREAMBLE.sub('', after)}"
    else:
        text = _PREAMBLE.sub("", text)
    return clean_user_text(text)


def _assistant_parts(content: Any, calls: dict[str, ToolCall]) -> tuple[str, list[ToolCall]]:
    """An assistant message's text (less a trailing ``[REDACTED]``) and its tool calls, registered by id."""
    texts = [t for t in map(without_redacted_thinking, _texts(content)) if t.strip()]
    made: list[ToolCall] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict) or part.get("type") != "tool-call":
            continue
        name, call_id, args = part.get("toolName"), part.get("toolCallId"), part.get("args")
        if not isinstance(name, str) or normalise_tool_name(name) in SKIPPED_TOOLS:
            continue
        call = ToolCall(name=name, args=args if isinstance(args, dict) else {})
        made.append(call)
        if isinstance(call_id, str):
            calls.setdefault(call_id, call)
    return "\n".join(texts), made


def _attach_results(content: Any, message: dict[str, Any], calls: dict[str, ToolCall]) -> None:
    """Give each call its ``tool-result``: the first result for a call id wins."""
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict) or part.get("type") != "tool-result":
            continue
        call = calls.get(part.get("toolCallId"))  # type: ignore[arg-type]
        if call is not None and call.result is None:
            call.result, call.exit_code = tool_result(normalise_tool_name(call.name), part, message)
