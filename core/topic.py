"""The stretch of a long chat its title names, which a session's summary is about.

A chat that opens on a chore ("first, fix the lint errors ruff reports"), works through the problem its title names
("Circular import between models and schemas") and closes on another chore ("bump the changelog") was summarised by
its first ask and its last answer: both chores, the real work nowhere (trial48b F5). Its title, Cursor's or deja's
own, names the topic; the turns whose words hold the title's are that topic's part. The session-start block's
``asked:``/``concluded:`` (``indexer.records.digest``), ``deja wip``'s task and settled line and ``deja ctx``'s Goal
(``work.digest``) all take their part from here.

A chat whose first turn is its title's (one topic, or a title taken from the first ask, as deja titles a chat Cursor
named none) is summarised as before, by its first ask and its last answer: a follow-up that names none of the
title's words ("that didn't work, still 401") is part of the work, not a new topic.
"""

from __future__ import annotations

from .ending import is_answer, resumed_ask
from .text import terms

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from .model import Message

#: How many times a title word in a turn's ask counts against one in its answers alone: the ask says what the turn
#: is about, an answer may name the title's words in passing (a follow-up's "Fixed the flaky test …").
ASK_WEIGHT = 2
#: How many words of the part before it a turn's ask must name to go on with it when it names no title word: one
#: is chance ("write a short summary for the PR" after "write a regex …"), two are a follow-up (:func:`_follows_on`).
FOLLOW_WORDS = 2
#: Words of an ask for a chore (:func:`_is_chore`), stemmed as the index stems them.
CHORE_WORDS = frozenset(terms("changelog commit bump lint readme typo"))
#: Words of an ask to undo work ("still loops. revert that commit", "roll it back"), stemmed: such an ask is the work,
#: never a chore ("back" is left out: alone it asks to undo nothing).
UNDO_WORDS = frozenset(terms("revert undo rollback roll"))
#: The words before "explain" that make it what an ask asks for ("can you commit this and explain the fix?",
#: :func:`_asks_why`): after "that" or "to" it is what the chore's text does ("a commit message that explains the
#: change", review50a M4), and "describe" is left out for the same reason ("add a changelog entry that describes…").
EXPLAIN_AFTER = frozenset("and also then you please".split())  # noqa: SIM905
#: The verbs that make an ask naming a test one for writing it (:func:`_writes_test`).
TEST_WRITING = frozenset(terms("add write"))
#: How an ask that starts another topic than the one before it opens (:func:`_new_topic`).
NEW_TOPIC = ("unrelated", "different question", "another question", "separate question", "side question", "off topic", "off-topic", "new question", "new topic")  # fmt: skip
#: The first words of an ask about the work, not a chore, though it names one of CHORE_WORDS (:func:`_asks_why`).
QUESTION_OPENERS = frozenset("why how what when where which who did does was".split())  # noqa: SIM905
#: How many words a chore's ask names at most (:func:`_is_chore`): one asking for more is about the work.
CHORE_TERMS = 8


def title_part(messages: list[Message], title: str) -> tuple[int, int] | None:
    """``(first, end)``, the positions in ``messages`` of the turns about the chat's title; None for a chat read whole.

    It begins at the first turn that names the title well (:func:`_anchor`), not the one naming it most: by its
    second turn a user names the problem as Cursor's title does ("now add a regression test for the login redirect"
    after "users land on /signin again and again", titled "Fix login redirect loop"), and the best-named turn was then
    a chore (review49b H1). A part begun later runs on through the turns that follow on from it (:func:`_follows_on`);
    one begun at the first turn through every turn (a follow-up that names no title word, "that didn't work, still
    401", is part of the work). Either ends before a chore (:func:`_is_chore`), or an ask that says it starts
    another topic (:func:`_new_topic`): what the chat concluded is the work's answer, not "Added a line under 2.3.1."
    nor the answer to "unrelated: how do I rename a git branch?" (review49b M3).

    A turn is a user's ask with text and the messages up to the next such ask. Its answers' words are read only where
    they are weighed (:class:`_Answers`)."""
    wanted = set(terms(title))
    asks = [at for at, message in enumerate(messages) if message.role == "user" and message.text.strip()]
    if not wanted or len(asks) < 2:
        return None
    bounds = list(zip(asks, [*asks[1:], len(messages)], strict=True))
    asked = [set(terms(messages[start].text)) for start, _ in bounds]
    answered = _Answers(messages, bounds)
    chores = [
        _is_chore(ask, wanted) and not _asks_why(messages[start].text)
        for ask, (start, _) in zip(asked, bounds, strict=True)
    ]
    first = _anchor(
        asked, answered, [chore or _writes_test(ask, wanted) for chore, ask in zip(chores, asked, strict=True)], wanted
    )
    ends = [chore or _new_topic(messages[start].text) for chore, (start, _) in zip(chores, bounds, strict=True)]
    last = first
    if first == 0:  # (a part begun at the first turn runs on to the first end, whatever the turns' words)
        while last + 1 < len(bounds) and not ends[last + 1]:
            last += 1
    else:
        said = asked[first] | answered[first]
        while (
            last + 1 < len(bounds)
            and not ends[last + 1]
            and _follows_on(asked[last + 1], answered[last + 1], wanted, said)
        ):
            last += 1
            said |= asked[last] | answered[last]
    return None if first == 0 and last + 1 == len(bounds) else (bounds[first][0], bounds[last][1])


class _Answers:
    """The words of each turn's answers' texts (not its tools' output: a log names every word), read when first asked
    for: a chat whose first ask names its title (most: deja titles a chat Cursor named none by its first ask) weighs
    none of them, and a refresh after a turn reads the grown chat's every message again (about 4 ms of a 350-message
    chat's summary)."""

    def __init__(self, messages: list[Message], bounds: list[tuple[int, int]]) -> None:
        self._messages = messages
        self._bounds = bounds
        self._read: dict[int, set[str]] = {}

    def __getitem__(self, turn: int) -> set[str]:
        """The words of turn ``turn``'s answers."""
        if (words := self._read.get(turn)) is None:
            start, end = self._bounds[turn]
            turn_messages = self._messages[start + 1 : end]
            answers = [terms(message.text) for message in turn_messages if message.role == "assistant" and message.text]
            words = self._read[turn] = set().union(*answers)
        return words


def _anchor(asked: list[set[str]], answered: _Answers, chores: list[bool], wanted: set[str]) -> int:
    """The turn the title's part begins at: the first (0) when its ask names a title word at all, or no turn names
    the title (an ask one of its words, or answers two: a title word in an ask weighs ``ASK_WEIGHT``), or the first
    turn holds half as many of them as the turn holding most or more; else the first turn not a chore (nor a test's
    writing, :func:`_writes_test`) that holds half
    as many as that one or more (a chat opened on "first, fix the lint errors ruff reports" under the title "Circular
    import between models and schemas")."""
    if asked[0] & wanted and not chores[0]:
        return 0
    scores = [ASK_WEIGHT * len(ask & wanted) + len((answered[turn] - ask) & wanted) for turn, ask in enumerate(asked)]
    top = max(scores)
    if top < ASK_WEIGHT or 2 * scores[0] >= top:
        return 0
    well = [not chore and score >= ASK_WEIGHT and 2 * score >= top for chore, score in zip(chores, scores, strict=True)]
    return next((turn for turn in range(1, len(scores)) if well[turn]), 0)


def _follows_on(asked: set[str], answered: set[str], wanted: set[str], said: set[str]) -> bool:
    """Whether a turn goes on with the part before it: it names a title word, or its ask ``FOLLOW_WORDS`` words of the
    part ("I can't change the staging nginx today, any workaround for local dev?" after a CORS error from
    api.shop.local that nginx answered). "ok, also bump the version in the changelog" names neither: the part ended
    before it."""
    return bool((asked | answered) & wanted) or len(asked & said) >= FOLLOW_WORDS


def _is_chore(asked: set[str], wanted: set[str]) -> bool:
    """Whether an ask is for one of the routine steps that close (or open) a piece of work, not the work: a short one
    (``CHORE_TERMS`` words at most) that names one of ``CHORE_WORDS`` ("update the changelog", "commit it", "fix the
    lint errors"; a longer ask that names a commit is about the work: "since commit 3f2a the importer drops rows whose
    supplier id has a leading zero"). A word of the title (``wanted``) names the work, not a chore: under "Recover
    commits after rebase", "my last 3 commits are gone from the branch" is the problem. An ask to undo
    (``UNDO_WORDS``: "still loops. revert that commit") says the work went wrong, and its answer is often the real fix
    (review49e M4)."""
    return bool((asked - wanted) & CHORE_WORDS) and len(asked) <= CHORE_TERMS and not asked & UNDO_WORDS


def _asks_why(ask: str) -> bool:
    """Whether ``ask`` opens with a question word (``QUESTION_OPENERS``): "why did this commit break login" asks about
    the work, where "commit it" is a chore; or asks to explain (``EXPLAIN_AFTER``): "can you commit this and explain
    the fix?" is answered by what the work came to (fixw49b)."""
    words = [word.strip(",:?.!") for word in ask.lower().split()]
    if words and words[0] in QUESTION_OPENERS:
        return True
    return any(word == "explain" and (at == 0 or words[at - 1] in EXPLAIN_AFTER) for at, word in enumerate(words))


def _writes_test(asked: set[str], wanted: set[str]) -> bool:
    """Whether a short ask (as :func:`_is_chore`'s) asks to add or write a test ("now add a regression test for the
    login redirect"; "the checkout test still fails" is the work). Such a turn does not begin the title's part, whose
    words it repeats, but goes on with it: its answer often says what the work came to ("Added tests/test_cache.py
    covering two locales; the cache key now includes the locale.")."""
    own = asked - wanted
    return "test" in own and bool(own & TEST_WRITING) and len(asked) <= CHORE_TERMS


def _new_topic(ask: str) -> bool:
    """Whether ``ask`` opens by saying it is about something else (``NEW_TOPIC``: "unrelated: how do I rename a git
    branch?", "different question: …")."""
    return ask.lstrip().lower().startswith(NEW_TOPIC)


def summarised_part(messages: list[Message], title: str) -> tuple[int, int, int] | None:
    """``(ask, answer, end)``: where the chat's summary is read from, the ask of its :func:`title_part` and the last
    answer in it (``ending.is_answer``), and where the part ends; None for a chat summarised whole (by its first ask,
    or the ask that resumed it, and its last answer). The part is sought among the messages up to the last answer (an
    ask not answered yet is no part of what was concluded), and not in a chat resumed after a gap
    (``ending.resumed_ask``), whose task is the ask that resumed it."""
    last = next((at for at in range(len(messages) - 1, -1, -1) if is_answer(messages[at])), None)
    answered = messages if last is None else messages[: last + 1]
    if last is None or resumed_ask(answered) is not None or (part := title_part(answered, title)) is None:
        return None
    first, end = part
    answer = next((at for at in range(end - 1, first, -1) if is_answer(messages[at])), None)
    return None if answer is None else (first, answer, end)
