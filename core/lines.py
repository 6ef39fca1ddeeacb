"""A text as one line: what a title, an answer or an error shows where there is room for one line.

Apart from ``text.py`` (the index's tokeniser, its tables and caches): the failure hook shows what followed a past
failure on one line, and loads none of those for it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (the failure hook loads this module)
if TYPE_CHECKING:
    from datetime import datetime

#: How many characters a cut gives back to end between words rather than inside one; a longer word (a path, a
#: hash) is cut inside.
WORD_SLACK = 24
#: How a secret's marker starts, as ``core.redact`` writes it (``[redacted:slack-token]``): a cut never ends inside one.
MARK = "[redacted:"
#: What a shown side of a turn says in place of a text a session above it in the same answer showed: which session
#: (its id as shown there). Chats that repeat another chat's turns showed one question and answer three or four
#: times over (trial21 F5 in the prompt hook, trial22 N5 in ``deja search`` and MCP ``search``).
SAME_AS = "(the same as {}'s above)"
#: What a session's turn says in place of its sides when a session above it showed them all.
SAME_TURN_AS = "  (the same turn as {}'s above)"


def same_turn_as(texts: list[str], shown: dict[str, str]) -> str:
    """``SAME_TURN_AS`` naming the sessions above that showed every one of ``texts`` (``shown``: text -> that
    session's id as shown), in the order they come; "" when one of them is new. A turn whose question one session
    showed and whose answer another did was two lines of "(the same as X's above)", which gave nothing (trial43
    F10)."""
    if not texts or any(text not in shown for text in texts):
        return ""
    return SAME_TURN_AS.format("'s and ".join(dict.fromkeys(shown[text] for text in texts)))


def one_line(text: str, limit: int = 80, words: bool = False) -> str:
    """The first non-empty line of ``text``, trimmed to ``limit`` characters (with ``words``, between words: ``cut``)."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return cut(line, limit, words)
    return ""


def first_line(ask: str, chars: int) -> str:
    """The first line of ``ask`` that is not a code fence, cut between words to ``chars``, ending in ``…`` where more
    of the ask follows: a whole pasted config or ``.env`` flattened onto one line read as noise (trial45 F5)."""
    lines = [line for line in ask.splitlines() if line.strip() and not line.lstrip().startswith(("```", "~~~"))]
    if not lines:
        return ""
    shown = one_line(lines[0], chars, words=True)
    return shown if len(lines) == 1 or shown.endswith("…") else f"{shown} …"


def chat_began(started: datetime | None, first_ask: str, chars: int) -> str:
    """``(chat began DATE: FIRST ASK)``, said beside the ask that resumed a chat after a gap (``model.resumed_ask``):
    that ask and the chat's last answer belong together, its first ask is only where the chat began (trial20 F18,
    trial47 F1). The date is the local one the chat ``started`` on ("earlier" when not known)."""
    date = started.astimezone().strftime("%Y-%m-%d") if started else "earlier"
    return f"(chat began {date}: {first_line(first_ask, chars)})"


def cut(text: str, limit: int | None, words: bool = False) -> str:
    """``text`` whole when it fits in ``limit`` characters (or ``limit`` is None), else cut to them ending in ``…``:
    a cut is never taken for the whole (a command copied from it would be a broken one: trial20 F5). With ``words``,
    the cut ends between words (:func:`to_word`)."""
    if limit is None or len(text) <= limit:
        return text
    return (to_word(text, limit - 1) if words else text[: limit - 1]).rstrip() + "…"


def to_word(text: str, end: int) -> str:
    """``text[:end]``, or when ``end`` falls inside a word, up to the space before that word if it is at most
    ``WORD_SLACK`` characters back: "then `pytest -q` succe…" left an agent to guess what the run did (trial21 F8).
    Never inside a secret's marker (``[redacted:sla…`` read as a broken one: trial22 N6)."""
    marker = text.rfind(MARK, 0, end + len(MARK) - 1)  # (one the cut is in, its "[redacted:" too: review41d L1)
    if marker >= 0 and marker < end < len(text) and text.find("]", marker, end) < 0:
        end = marker
    if end >= len(text) or text[end].isspace():
        return text[:end]
    space = text.rfind(" ", 0, end)
    return text[:space] if space >= 0 and end - space <= WORD_SLACK else text[:end]


def stretch(flat: str, hits: list[int], width: int) -> str:
    """The stretch of ``flat`` (longer than ``width``) about ``width`` long holding the most of ``hits`` (where the
    words looked for start), ``…`` marking a cut end: a search's snippet, a long output line that holds an error's
    words. It starts at a word's start when one is at most ``WORD_SLACK`` characters back (review43d M1), and ends at
    a word's end the same way (:func:`to_word`): "…Load theme prefer…" and "…{ thi…" read as words broken
    (review43e L6)."""
    if not hits:
        return cut(flat, width)
    best_start, best_count, j = hits[0], 0, 0
    for i, start in enumerate(hits):
        while hits[j] < start - width + 40:
            j += 1
        if i - j + 1 > best_count:
            best_count, best_start = i - j + 1, hits[j]
    start = max(0, best_start - 40)
    # (back to a word's start only nearby: minified JSON's one space far back took the window off every hit; the
    # text's start is one, no space before it: review44b L5)
    space = flat.rfind(" ", 0, start + 1)
    start = space + 1 if start and start - space <= WORD_SLACK else start
    window = to_word(flat, start + width)[start:]
    return ("…" if start else "") + window.strip() + ("…" if start + width < len(flat) else "")
