"""The one path every hook takes: read the event on stdin, look up the index, print context.

A hook never breaks the agent. Whatever goes wrong (bad stdin, no index, a
corrupt one, an exception), it exits 0, prints valid output or nothing. Every
call leaves one line in ``<DEJA_HOME>/hooks.log``: what it gave, or why it
stayed silent (``deja hooks log`` lists them).

The first prompt or tool event of a conversation deja has not seen also
carries the session-start block: a resumed chat and ``/new`` send no
``sessionStart`` (``context.with_opening``). A tool event of a conversation
whose prompts no prompt hook answered (``cursor-agent -p``) also carries the
recall for the newest prompt its transcript holds, once (``prompt.with_prompt``).
"""

from __future__ import annotations

import sys
import time

from ..core import oscalls

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

    from .call import HookCall

#: command -> (module in deja.hooks, function, default event name for Claude-style output)
HANDLERS = {
    "hook-context": ("context", "session_start", "SessionStart"),
    "hook-prompt": ("prompt", "before_prompt", "UserPromptSubmit"),
    "hook-tool": ("tool", "before_tool", "PreToolUse"),
    "hook-tool-after": ("tool_after", "after_tool", "PostToolUse"),
    "hook-session-end": ("session_end", "session_end", "SessionEnd"),
}

#: The hooks whose first event in a conversation also carries the session-start block.
OPENERS = frozenset({"hook-prompt", "hook-tool", "hook-tool-after"})
#: The hooks that also give the recall for a prompt only the transcript holds (``HookCall.unread_prompt``).
TOOL_HOOKS = frozenset({"hook-tool", "hook-tool-after"})
STDIN_LIMIT = 8 << 20
#: Why a payload was read only in part: the log says so, not that Cursor's JSON is bad.
TOO_LARGE = f"stdin is larger than {STDIN_LIMIT >> 20} MiB"
STDIN_SECONDS = 0.5


def main(command: str, argv: list[str], preloader: Callable[[str], None] | None = None, not_served: str = "") -> int:
    """Answer one hook event; ``preloader`` loads another hook's modules as the launcher loaded this one's
    (``HookCall.preload_modules_of``), where the entry gives it; ``not_served``: why a resident process did not
    answer it instead, which its line in hooks.log says."""
    from ..core.config import bad_file_value, file_problem, relative_folder
    from .call import HookCall, log

    started = time.perf_counter()
    call: HookCall | None = None
    try:
        spec = HANDLERS.get(command)
        if spec is None:
            log(f"{command} - -: silent: unknown hook command")
            return 0
        module, function, default_event = spec
        raw, why = read_stdin(sys.stdin)
        call = HookCall.from_stdin(raw, default_event)
        if call is None:
            if why == TOO_LARGE:  # a payload cut short is no bad JSON of Cursor's (trial50), nor empty (trial60 F9)
                what = f"{why}: the event was not read whole"
            elif not raw.strip():
                what = f"stdin is empty{f' ({why})' if why else ''}"
            else:  # (stdin left open may still have held the whole event: review50d L3)
                what = f"stdin is not a JSON object{f' ({why})' if why else ''}"
            log(f"{command} - -: silent: {what}")
            return 0
        if why:
            call.notes.append(why)
        if not_served:
            call.notes.append(f"not served: {not_served}")
        call.preloader = preloader
        if problem := file_problem() or bad_file_value() or relative_folder():  # settings unknown, or a home per folder
            call.why = problem
            log(decision(command, call, "", time.perf_counter() - started))
            return 0
        handlers = __import__(f"{__package__}.{module}", fromlist=[function])  # (``-X importtime`` sees it)
        text = getattr(handlers, function)(call)
        if command in TOOL_HOOKS and call.mode != "off" and (prompt := call.unread_prompt()):
            call.preload_modules_of("hook-prompt")
            from .prompt import with_prompt

            text = with_prompt(call, text, prompt, handlers.BUDGET)
        if command in OPENERS and call.owed_opening():  # (asked first: a later event loads no ``hooks/context.py``)
            from .context import with_opening

            text = with_opening(call, text, handlers.BUDGET)
        if text:
            sys.stdout.buffer.write(call.output(text))
            sys.stdout.flush()
        log(decision(command, call, text, time.perf_counter() - started))
    except BaseException as exc:  # noqa: BLE001 - a hook must never fail the agent
        failed = f"failed: {type(exc).__name__}: {' '.join(str(exc).split())}"
        if call is None:
            log(f"{command} - -: silent: {failed}")
        else:
            call.why = failed
            if _damaged_index(exc):
                call.notes.append(call.request_build())
            log(decision(command, call, "", time.perf_counter() - started))
    return 0


def _damaged_index(exc: BaseException) -> bool:
    """Whether ``exc`` is a damaged index file met while reading, after the index opened (a checksum that fails, a
    row that does not decode): the build a missing index gets mends it too, where the hooks stayed silent until a
    person ran ``deja index`` (trial57)."""
    fmt = sys.modules.get("deja.core.index.format")  # (loaded by whatever raised it)
    return fmt is not None and isinstance(exc, fmt.IndexUnreadable) and not isinstance(exc, fmt.IndexKeptOut)


def decision(command: str, call: HookCall, text: str, seconds: float) -> str:
    """``hook-prompt beforeSubmitPrompt <conversation>: gave 812 bytes | <note> | 41.2 ms``, or ``…: silent: <why>``.

    ``deja hooks log`` reads these lines back (``interfaces/delivery.py``).
    """
    from ..core import config

    parts = [f"gave {len(text.encode())} bytes" if text else f"silent: {call.why or 'nothing to add'}", *call.notes]
    if text and call.why:  # the session-start block alone: why the event's own answer was nothing (trial10 F12)
        parts.insert(1, f"nothing of its own: {call.why}")
    if config.get("trace"):
        parts.append(f"{1000 * seconds:.1f} ms")
    event, conversation = ("_".join(x.split())[:80] or "-" for x in (call.event, call.conversation))
    return f"{command} {event} {conversation}: {' | '.join(parts)}"


def read_stdin(stream: IO[Any]) -> tuple[bytes, str]:
    """Up to 8 MiB of stdin, stopping at end of input, at complete JSON, or after half a second.

    The second value says why the read stopped early, if it did.
    """
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return b"", "no stdin"
    try:
        import select
    except ImportError:  # pragma: no cover - every supported OS has it
        return oscalls.read(fd, STDIN_LIMIT), ""
    deadline = time.monotonic() + STDIN_SECONDS
    chunks: list[bytes] = []
    size = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return b"".join(chunks), "stdin was still open after 0.5 s"
        try:
            ready, _, _ = select.select([fd], [], [], remaining)
        except (OSError, ValueError):
            return b"".join(chunks) + oscalls.read(fd, STDIN_LIMIT), ""
        if not ready:
            continue
        chunk = oscalls.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), ""
        chunks.append(chunk)
        size += len(chunk)
        if size >= STDIN_LIMIT:
            return b"".join(chunks), TOO_LARGE
        if chunk.rstrip().endswith(b"}") and _complete(chunks):
            return b"".join(chunks), ""


def _complete(chunks: list[bytes]) -> bool:
    from ..core.cjson import load_host_json
    from .call import stdin_text

    try:
        load_host_json(stdin_text(b"".join(chunks)))
    except ValueError:
        return False
    return True
