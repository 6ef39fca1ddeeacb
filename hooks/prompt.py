"""beforeSubmitPrompt: the past turns that answer what this prompt asks, or nothing when the match is weak.

A session is recalled only when its best messages hold enough of what the
prompt asks, weighed by rarity (idf): the rare words of a prompt say what it is
about, the common ones don't. A term the index has never seen counts at the
highest rarity, and a name it has never seen (``Kafka``, ``fetchUserProfile``,
a person) three times that: a prompt about something the history never
mentions is not answered by sessions that share its everyday words.
"""

from __future__ import annotations

import re

from ..core.dates import MONTHS
from ..core.record import Record
from ..core.search import Filters, Hit, SearchResult, best_terms, best_turn, query_terms, search
from ..core.text import terms
from .call import FRAME_CLOSE, FRAME_OPEN, HookCall, frame, frame_room, headed
from .describe import heading

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from ..core.index import Index

BUDGET = 1536
HEADER = "Past turns from other sessions that may answer this prompt:"
#: A term at least this rare (idf) says something about what the prompt is after.
INFORMATIVE_IDF = 2.0
#: How many times its idf a name the index has never seen weighs in what the prompt asks.
UNSEEN_NAME_WEIGHT = 3.0
#: The most postings of a prompt term search reads (its highest-impact ones; a quarter of that for a common word),
#: whatever the index's size: a whole read of a 1k-session index (33k docs) cost the hook about 60 ms of its 100.
#: On both gate benchmarks every prompt recalls what a whole read recalls, in both modes (bench/coding_history.py:
#: 97 prompts; bench/bench_prompt_precision.py: 37,284); 2,048 changed 37 of LoCoMo's in safe mode, and 1,024
#: (search's budget for a large index, which caps this one there) 3 and 6 of the coding benchmark's.
POSTINGS_READ = 4096
#: Capitalised words that name a time, not a thing (the index keeps times as dates, not words).
TIME_WORDS = frozenset(
    [*MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    + ["today", "yesterday", "tomorrow"]
)
_OWN_FRAME = re.compile(re.escape(FRAME_OPEN) + r".*?" + re.escape(FRAME_CLOSE), re.S)
_IDENTIFIER = re.compile(r"[_./:#-]|\d|[a-z][A-Z]")
_WORD = re.compile(r"[^\W\d_][\w./:#-]*")


class Gate(Record, frozen=True):
    #: Matched terms at least INFORMATIVE_IDF rare.
    informative: int
    #: Share of the prompt's weight the session's best messages hold.
    share: float
    #: Share of it the single best message holds.
    best_share: float
    #: At most this many sessions are shown.
    sessions: int
    #: A session scoring at least ``lead`` times the next one stands out from the rest: it passes with a share
    #: of ``lead_share`` (a question asked in other words than the session's still picks it out clearly).
    lead: float = 0.0
    lead_share: float = 1.0
    #: A first session whose score is at least ``scored`` times what the prompt asks (its idf), and ``scored_lead``
    #: times the next one's, matched the prompt as a whole (words together, in the weighty fields, the chat's
    #: other words for them): it passes whatever its share of the prompt's words as written.
    scored: float = 0.0
    scored_lead: float = 1.0
    #: Below ``floor`` times what the prompt asks a session never passes: it matched too weakly, whatever words.
    floor: float = 0.0


#: ``safe``'s lead rule was tuned on the tuning halves of LoCoMo (bench/bench_prompt_precision.py) and of the coding
#: benchmark (bench/coding_history.py): right session 70.7% -> 72.9% and 40.6% -> 46.9%, anything injected when the
#: answer is absent 3.0% -> 4.9% and 11.8% -> 11.8%. A lead of 2, or a lead share of 0.1, injected far more often
#: when the answer was absent (19% to 66% on LoCoMo). ``aggressive`` is unchanged: a lead added 5 points of noise.
#: ``safe``'s scored rule and floor were tuned on the same tuning halves. The rule (0.4, 1.5) alone: right session
#: LoCoMo 72.8% -> 75.4%, coding 56.2% -> 68.8%; anything injected 5.3% -> 5.5%, 11.8% -> 11.8%. A floor of 0.15
#: then cut what is injected when the answer is absent to 4.0% and 5.9% at the same right share (0.25: 2.9% but
#: 74.6% and 62.5% right), which let the rule come down to 0.3: 76.2% and 78.1% right, 4.6% and 5.9% injected
#: (0.25 injected 5.3% on LoCoMo; a lead of 1.3 injected 17.6% on the coding benchmark).
GATES = {
    "safe": Gate(
        informative=1,
        share=0.37,
        best_share=0.25,
        sessions=2,
        lead=3.0,
        lead_share=0.2,
        scored=0.3,
        scored_lead=1.5,
        floor=0.15,
    ),
    "aggressive": Gate(informative=1, share=0.3, best_share=0.2, sessions=3),
}


class Recall(Record):
    lines: list[str] = []
    #: Dedupe keys of the blocks shown, one per session.
    keys: list[str] = []
    session_ids: list[str] = []
    #: Why nothing is recalled, when nothing is.
    why: str = ""


def _names(prompt: str) -> list[list[str]]:
    """The terms of each name in ``prompt``: a capitalised word inside a sentence, or an identifier."""
    names = []
    sentence_start, last = True, 0
    for match in _WORD.finditer(prompt):
        if any(mark in prompt[last : match.start()] for mark in ".!?:\n"):
            sentence_start = True
        raw, last = match.group(), match.end()
        word = raw.rstrip(".:-/#")
        capitalised = word[:1].isupper() and not sentence_start and word.lower() not in TIME_WORDS
        sentence_start = raw[-1] in ".:"
        if capitalised or _IDENTIFIER.search(word):
            found = terms(word)
            if found:
                names.append(found)
    return names


def weight_asked(prompt: str, words: list[str], result: SearchResult, missing_idf: float) -> float:
    """What the prompt asks, in idf: each term's rarity, unseen terms at the highest, unseen names three times that.

    An unseen compound (``locale-aware``) whose parts are known weighs nothing of its own: its parts say it.
    """
    weights = {t: 1.0 for t in words}
    for name in _names(prompt):
        if not any(t in result.idf for t in name):
            weights.update((t, UNSEEN_NAME_WEIGHT) for t in name)
        elif len(name) > 1 and name[0] not in result.idf:
            weights[name[0]] = 0.0
    return sum(result.idf.get(t, missing_idf * weights[t]) for t in words) or 1.0


def confident(
    hit: Hit, result: SearchResult, asked: float, best_terms: set[str], gate: Gate, lead: float = 1.0
) -> bool:
    """Whether ``hit`` holds enough of what the query asks to be worth the model's attention.

    ``lead`` is how many times the next session's score ``hit`` scores.
    """
    if hit.score < gate.floor * asked:
        return False
    share = sum(result.idf[t] for t in hit.matched) / asked
    informative = [t for t in hit.matched if result.idf[t] >= INFORMATIVE_IDF]
    if any(_IDENTIFIER.search(t) for t in informative) and share >= gate.share / 2:
        return True
    if gate.lead and lead >= gate.lead and share >= gate.lead_share and informative:
        return True
    if gate.scored and hit.score >= gate.scored * asked and lead >= gate.scored_lead and informative:
        return True
    best_share = sum(result.idf.get(t, 0.0) for t in best_terms) / asked
    return len(informative) >= gate.informative and share >= gate.share and best_share >= gate.best_share


def recall_for(
    index: Index, prompt: str, mode: str, exclude: set[str], seen: set[str], room: int = frame_room(BUDGET, HEADER)
) -> Recall:
    """The blocks to inject for ``prompt``, sized to fit ``room`` bytes together."""
    words, _ = query_terms(prompt)
    if not words:
        return Recall(why="nothing searchable in it")
    gate = GATES[mode]
    result = search(
        index,
        prompt,
        filters=Filters(exclude_ids=frozenset(exclude)),
        limit=gate.sessions + 2,
        snippets=0,
        budget=POSTINGS_READ,
    )
    asked = weight_asked(prompt, words, result, index.idf(0))
    wanted = set(words)
    chosen: list[Hit] = []
    fresh = [hit for hit in result.hits if _key(hit) not in seen]
    for hit in fresh[: gate.sessions + 2]:
        if len(chosen) >= gate.sessions:
            break
        if confident(hit, result, asked, best_terms(index, hit, wanted), gate, _lead(result, hit)):
            chosen.append(hit)
    if not chosen:
        return Recall(why=_why_none(result.hits, fresh, mode))
    recall = Recall()
    for hit in chosen:
        recall.lines.extend(_block(index, hit, wanted, room // len(chosen)))
        recall.keys.append(_key(hit))
        recall.session_ids.append(hit.session_id)
    return recall


def _lead(result: SearchResult, hit: Hit) -> float:
    """How many times the next session's score ``hit`` scores: only the first session can stand out."""
    hits = result.hits
    if hit is not hits[0] or len(hits) < 2 or not hits[1].score:
        return 1.0
    return hit.score / hits[1].score


def _key(hit: Hit) -> str:
    return f"p:{hit.session_id}:{hit.best[1]}"


def _why_none(hits: list[Hit], fresh: list[Hit], mode: str) -> str:
    if not hits:
        return "no past session matched"
    if not fresh:
        return "what matched was shown in this conversation already"
    return f"no match was strong enough for recall={mode}"


def _block(index: Index, hit: Hit, wanted: set[str], room: int) -> list[str]:
    """The session's heading, then its best matching turn (question and answer), within ``room`` bytes."""
    lines = [f"  {side.role}: {side.text}" for side in best_turn(index, hit, wanted, room)]
    return headed(heading(hit.title, hit.project, hit.updated, hit.session_id), lines, room)


def before_prompt(call: HookCall) -> str:
    if call.mode == "off":
        return call.silent("recall is off")
    prompt = _OWN_FRAME.sub(" ", call.text("prompt")).strip()[:4000]
    if not prompt:
        return call.silent("the prompt is empty")
    index = call.index()
    if index is None:
        return call.silent("no index yet")
    recall = recall_for(index, prompt, call.mode, call.conversation_ids, call.seen())
    if not recall.lines:
        return call.silent(recall.why)
    call.remember(recall.keys)
    return frame([HEADER, *recall.lines], BUDGET)
