"""What a tool hook reads of a conversation's transcript: the newest prompt, for a conversation whose prompts reach
deja only there (``cursor-agent -p`` sends no beforeSubmitPrompt: ``HookCall.unread_prompt``). Its own module: no
hook in the editor reads a transcript, and every hook loads ``hooks/call.py``."""

from __future__ import annotations

import os

from ..core.cjson import load_json
from ..core.regular_files import open_regular
from .call import payload_text

#: How much of a transcript's end a tool hook reads for the newest prompt (a prompt's line longer than that is missed).
TRANSCRIPT_TAIL = 256 << 10


def transcript_prompt(path: str) -> str:
    """The newest user prompt in the transcript at ``path`` (its ``<user_query>``, as cursor-agent wraps it), read
    from the file's last TRANSCRIPT_TAIL bytes; "" when none is there or the file cannot be read."""
    try:
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(size - TRANSCRIPT_TAIL, 0))
            lines = handle.read(TRANSCRIPT_TAIL).split(b"\n")
    except (OSError, ValueError):
        return ""
    for line in reversed(lines[1:] if size > TRANSCRIPT_TAIL else lines):  # (the first line read may be cut)
        if b'"user"' not in line:
            continue
        try:
            record = load_json(line)
            message = record.get("message") if isinstance(record, dict) else None
            if not isinstance(message, dict) or (record.get("role") or message.get("role")) != "user":
                continue
            text = payload_text(message.get("content"))
        except (ValueError, RecursionError):  # (a part nested 500 deep: orjson takes it, ``payload_text`` cannot)
            continue
        from ..core.text import user_query  # (loaded with the recall that follows: a hook that reads none loads none)

        text = query[1] if (query := user_query(text)) else text
        if text.strip():
            return text.strip()
    return ""
