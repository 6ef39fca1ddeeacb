"""Pairing one record's messages and tool calls with another record's of the same chat, which gives them no common id.

A cursor-agent transcript is paired with its ``store.db`` (which store result is each call's:
``chatstore.attach_tool_results``) and with an editor chat's database (which transcript calls the database lacks:
``history._calls_the_database_lacks``). Both pair in passes, each by a looser key than the one before (the whole
call, then what it acted on, …), and only one rule differs, the ``Pass``'s ``even``: here, in one place. A message
is known on both sides by its role and text (:func:`text_key`): a transcript's turns are merged so into an editor
chat's (``history.merge_transcript_into_ide``) and the store's beyond a transcript's (``cursor_agent``).
"""

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, NamedTuple

from ..keys import TARGET_ARGS
from ..model import Message, ToolCall
from ..text import normalise
from .conversation import canonical_args, normalise_tool_name


def text_key(message: Message) -> tuple[str, str]:
    """A message's role and the start of its text, normalised: what the same message read from two records shares
    ("" for a textless one, which its text cannot pair)."""
    return message.role, normalise(message.text)[:500]


class Pass(NamedTuple):
    """One pass of ``pair_calls``: the key of a call on each side (None: the call takes no part in this pass)."""

    ours: Callable[[Any], Hashable | None]
    theirs: Callable[[Any], Hashable | None]
    #: Pair a key's calls only where both sides have as many of them left. A result given by a loose key must be
    #: the call's own, or it shows another command's output as this one's: where the counts differ, which is
    #: whose is a guess. Counting what one side lacks needs no partner to be the right one, only the counts.
    even: bool = False


def pair_calls(ours: Sequence[Any], theirs: Sequence[Any], passes: Iterable[Pass]) -> dict[int, int]:
    """Which of ``theirs`` each of ``ours`` is (position -> position), pass by pass among the calls no earlier
    pass paired: a key's calls in order on each side, the first with the first (the same call made twice is
    recorded twice, in the order it ran)."""
    pairs: dict[int, int] = {}
    for step in passes:
        used = set(pairs.values())
        left: dict[Hashable, list[int]] = {}
        for at, call in enumerate(ours):
            if at not in pairs and (key := step.ours(call)) is not None:
                left.setdefault(key, []).append(at)
        free: dict[Hashable, list[int]] = {}
        for at, call in enumerate(theirs):
            if at not in used and (key := step.theirs(call)) is not None:
                free.setdefault(key, []).append(at)
        for key, ats in left.items():
            found = free.get(key, [])
            if not step.even or len(found) == len(ats):
                pairs.update(zip(ats, found, strict=False))  # (greedy: the shorter side's count)
    return pairs


def whole_call(call: ToolCall) -> tuple[str, str]:
    """A call by its tool and every argument, however either was spelled or ordered."""
    return normalise_tool_name(call.name), canonical_args(call.args)


def call_target(name: str, args: Any) -> tuple[str, str] | None:
    """(normalised tool name, what the call acted on as sorted-key JSON); None when its arguments name nothing of
    ``TARGET_ARGS`` (such a call pairs on its whole arguments only). The transcript and the store are written apart,
    and their arguments for one call can differ in the others (Shell's ``description``, ``working_directory``…)."""
    kept = {key: args[key] for key in TARGET_ARGS if key in args} if isinstance(args, dict) else {}
    return (normalise_tool_name(name), canonical_args(kept)) if kept else None


def target_of(call: ToolCall) -> tuple[str, str] | None:
    return call_target(call.name, call.args)
