"""What of a message is searchable, field by field.

A message is indexed as its own words (with its tool calls' commands and paths)
and, beside that, as up to four field docs sharing its record: what its tool
calls printed, the error lines of its failed commands, the new text of its
edits, and its Shell commands alone (what ``--role command`` searches). Each field is its own doc with its own weight (``index.KIND_WEIGHT``) and
its own length normalisation, so a long build log neither drowns the message's
words nor is drowned by them, and ``deja search 1893112`` finds the session
whose command printed that number.
"""

from __future__ import annotations

from . import keys

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from .model import Message

KIND_USER, KIND_ASSISTANT, KIND_TITLE, KIND_OUTPUT, KIND_ERROR, KIND_EDIT, KIND_COMMAND = range(7)
#: The kinds whose docs are a session's messages (the others point at a message's record or hold the title).
MESSAGE_KINDS = frozenset({KIND_USER, KIND_ASSISTANT})
#: The role a snippet from each field doc is shown with.
FIELD_ROLE = {KIND_OUTPUT: "tool", KIND_ERROR: "tool", KIND_EDIT: "edit", KIND_COMMAND: "command"}

#: Of a long tool result, the head and tail are indexed: what a command printed first and how it ended.
OUTPUT_HEAD = 16_384
OUTPUT_TAIL = 4_096
#: How many error lines of one failed command are indexed in the error field.
ERROR_LINES = 5
_EDIT_KEYS = ("new_string", "contents", "content", "code_edit", "new_str", "file_text")


def doc_text(message: Message) -> str:
    """A message doc's text: its own words and what its tool calls acted on (``keys.TARGET_ARGS``: an editor's
    ``target_file`` as cursor-agent's ``path``, so ``deja search '"x.py"'`` and ``blame`` find either's chat)."""
    extra = acted_on(message)
    return message.text + "\n" + "\n".join(extra) if extra else message.text


def acted_on(message: Message) -> list[str]:
    """What ``message``'s tool calls acted on (``keys.TARGET_ARGS``), in order."""
    return [
        value for call in message.tool_calls for key in keys.TARGET_ARGS if isinstance(value := call.args.get(key), str)
    ]


def _clip(text: str) -> str:
    if len(text) <= OUTPUT_HEAD + OUTPUT_TAIL:
        return text
    return text[:OUTPUT_HEAD] + "\n…\n" + text[-OUTPUT_TAIL:]


def _edit_texts(args: dict) -> list[str]:
    found = [args[k] for k in _EDIT_KEYS if isinstance(args.get(k), str)]
    edits = args.get("edits")
    if isinstance(edits, list):
        found += [e[k] for e in edits if isinstance(e, dict) for k in _EDIT_KEYS if isinstance(e.get(k), str)]
    return found


def field_texts(message: Message, only: int | None = None) -> dict[int, str]:
    """The message's field docs: kind -> text, for the fields it has; with ``only``, that kind's alone is sure to be
    right (a snippet of what a command printed, or of its command, reads no error lines)."""
    outputs: list[str] = []
    errors: list[str] = []
    edits: list[str] = []
    commands: list[str] = []
    for call in message.tool_calls:
        if call.name in keys.EDIT_TOOLS:
            edits += _edit_texts(call.args)
            continue
        command = call.args.get("command")
        if call.name in keys.SHELL_TOOLS and isinstance(command, str):
            commands.append(command)
        if not call.result:
            continue
        outputs.append(_clip(call.result))
        if call.exit_code and call.name in keys.SHELL_TOOLS and only in (None, KIND_ERROR):
            from .errors import error_lines  # (here: a hook that shows no error loads none of it)

            errors += error_lines(call.result, ERROR_LINES)
    found = {
        KIND_OUTPUT: "\n".join(outputs),
        KIND_ERROR: "\n".join(dict.fromkeys(errors)),  # calls that failed alike: their line once
        KIND_EDIT: _clip("\n".join(edits)),
        KIND_COMMAND: "\n".join(commands),
    }
    return {kind: text for kind, text in found.items() if text.strip()}


def kind_text(message: Message, kind: int) -> str:
    """What a doc of ``kind`` built from ``message`` indexes (what snippets and hooks look for matches in)."""
    if kind in MESSAGE_KINDS:
        return doc_text(message)
    if kind == KIND_TITLE:
        return message.text
    return field_texts(message, kind).get(kind, "")
