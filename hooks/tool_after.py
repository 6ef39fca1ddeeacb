"""postToolUse / postToolUseFailure: when a Shell command failed, where that error came up before and what fixed it."""

from __future__ import annotations

from typing import Any

import orjson

from ..core.index import Index, Segment
from ..core.keys import SHELL_TOOLS, command_head, error_keys, normalise_command
from ..core.model import one_line
from .call import HookCall, block_key, frame, frame_room, headed
from .describe import heading

BUDGET = 512
#: How far past the error the fix is looked for.
FOLLOW_DOCS = 30
#: Only the head and tail of a long output are scanned for error lines.
SCAN_CHARS = 8000


def failure(call: HookCall) -> str | None:
    """The failed command's output, or None when it did not fail."""
    error = call.payload.get("error_message")
    if isinstance(error, str) and error.strip():
        return error
    raw: Any = call.payload.get("tool_output", call.payload.get("tool_response"))
    if isinstance(raw, str):
        try:
            raw = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(raw, dict):
        return None
    code = raw.get("exitCode", raw.get("exit_code", raw.get("returncode")))
    output = "\n".join(str(raw.get(k) or "") for k in ("output", "stdout", "stderr")).strip()
    if isinstance(code, int) and code != 0:
        return output or f"exit code {code}"
    if code is None and raw.get("stderr") and (raw.get("interrupted") is False or "is_error" in raw):
        return output
    return None


def _what_followed(segment: Segment, doc: int, head: str) -> str:
    """The commands run after the failure up to a successful run of one like it, else the next answer given."""
    ordinal = segment.doc(doc)[0]
    meta = segment.session(ordinal)
    end = min(meta.first_doc + meta.n_docs, doc + FOLLOW_DOCS)
    steps: list[str] = []
    answer = ""
    past_failure = False
    for d in range(doc, end):
        message = segment.message(d)
        for tool in message.tool_calls:
            if d == doc and not past_failure:
                past_failure = bool(tool.exit_code)
                continue
            command = tool.args.get("command")
            if tool.name not in SHELL_TOOLS or not isinstance(command, str) or tool.exit_code:
                continue
            command = normalise_command(command)
            if tool.exit_code == 0 and (not head or command_head(command) == head):
                return ", then ".join(steps[-3:] + [f"`{command[:120]}` succeeded"])
            steps.append(f"`{command[:120]}`")
        if d > doc and not answer and message.role == "assistant" and message.text.strip():
            answer = one_line(message.text, 200)
    return answer


def after_tool(call: HookCall) -> str:
    if call.mode == "off":
        return call.silent("recall is off")
    if str(call.payload.get("tool_name") or "") not in SHELL_TOOLS:
        return call.silent("deja answers only failed Shell commands")
    output = failure(call)
    if not output:
        return call.silent("the command did not fail")
    if len(output) > SCAN_CHARS:
        output = output[: SCAN_CHARS // 2] + "\n" + output[-SCAN_CHARS // 2 :]
    index = call.index()
    if index is None:
        return call.silent("no index yet")
    command = call.tool_input().get("command")
    head = command_head(command) if isinstance(command, str) else ""
    return _recall_error(index, call, output, head)


def _recall_error(index: Index, call: HookCall, output: str, head: str) -> str:
    for key in error_keys(output):
        rows = []
        for _, segment, doc in index.newest(key, limit=20):
            meta = segment.session(segment.doc(doc)[0])
            if meta.id not in call.conversation_ids:
                rows.append((segment, doc, meta))
        if not rows:
            continue
        shown = block_key("e", key)
        if shown in call.seen():
            return call.silent("this error's history was shown in this conversation already")
        sessions = len({meta.id for _, _, meta in rows})
        segment, doc, meta = rows[0]
        followed = _what_followed(segment, doc, head)
        lines = [f"What followed: {followed}"] if followed else []
        if meta.concluded:
            lines.append(f"Concluded: {meta.concluded}")
        head_line = f"This error came up before, in {sessions} past session{'s' if sessions != 1 else ''}; the latest:"
        block = headed(
            heading(meta.title or meta.asked, meta.project, meta.updated, meta.id), lines, frame_room(BUDGET, head_line)
        )
        call.remember([shown])
        return frame([head_line, *block], BUDGET)
    return call.silent("no other session hit this error")
