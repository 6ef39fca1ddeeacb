"""beforeSubmitPrompt: the past turns that answer what this prompt asks, or nothing when the match is weak."""

from __future__ import annotations

import re

import msgspec

from deja.core.index import KIND_ASSISTANT, KIND_USER, Index
from deja.core.search import Filters, Hit, SearchResult, densest_window, search
from deja.hooks.call import FRAME_CLOSE, FRAME_OPEN, HookCall, frame
from deja.hooks.describe import heading

BUDGET = 1536
#: A term at least this rare (idf) says something about what the prompt is after.
INFORMATIVE_IDF = 2.0
_OWN_FRAME = re.compile(re.escape(FRAME_OPEN) + r".*?" + re.escape(FRAME_CLOSE), re.S)
_IDENTIFIER = re.compile(r"[_./:#-]|\d|[a-z][A-Z]")


class Gate(msgspec.Struct, frozen=True):
    informative: int
    share: float
    sessions: int


GATES = {"safe": Gate(informative=2, share=0.5, sessions=2), "aggressive": Gate(informative=1, share=0.35, sessions=3)}


def confident(hit: Hit, result: SearchResult, query_terms: list[str], gate: Gate, missing_idf: float) -> bool:
    """Whether ``hit`` holds enough of what the query asks to be worth the model's attention."""
    total = sum(result.idf.get(t, missing_idf) for t in query_terms) or 1.0
    matched = sum(result.idf[t] for t in hit.matched)
    informative = [t for t in hit.matched if result.idf[t] >= INFORMATIVE_IDF]
    share = matched / total
    if any(_IDENTIFIER.search(t) for t in informative) and share >= gate.share / 2:
        return True
    return len(informative) >= gate.informative and share >= gate.share


def recall_for(index: Index, prompt: str, mode: str, exclude: set[str], seen: set[str]) -> tuple[list[str], list[str]]:
    """The lines to inject for ``prompt`` and the keys of the blocks they show."""
    from deja.core.search import query_terms

    words, _ = query_terms(prompt)
    if not words:
        return [], []
    gate = GATES[mode]
    result = search(index, prompt, filters=Filters(exclude_ids=frozenset(exclude)), limit=gate.sessions + 2, snippets=0)
    missing_idf = index.idf(0)
    lines: list[str] = []
    keys: list[str] = []
    for hit in result.hits:
        if len(keys) >= gate.sessions or not confident(hit, result, words, gate, missing_idf):
            continue
        key = f"p:{hit.session_id}:{hit.best[1]}"
        if key in seen:
            continue
        keys.append(key)
        lines.append(heading(hit.title, hit.project, hit.updated, hit.session_id))
        lines.extend(_turns(index, hit, set(hit.matched)))
    return lines, keys


def _turns(index: Index, hit: Hit, wanted: set[str]) -> list[str]:
    """The best matching turn and the answer that follows it (or the question before it)."""
    segment = index.segments[hit.best[0]]
    doc = hit.best[1]
    ordinal, kind = segment.doc(doc)
    meta = segment.session(ordinal)
    last = meta.first_doc + meta.n_docs - 1
    pair = [doc]
    if kind == KIND_USER:
        nxt = next((d for d in range(doc + 1, min(last, doc + 4) + 1) if segment.doc(d)[1] == KIND_ASSISTANT), None)
        pair = [doc] + ([nxt] if nxt is not None else [])
    elif kind == KIND_ASSISTANT:
        prev = next((d for d in range(doc - 1, max(meta.first_doc, doc - 4) - 1, -1) if segment.doc(d)[1] == KIND_USER), None)
        pair = ([prev] if prev is not None else []) + [doc]
    out = []
    for d in pair:
        message = segment.message(d)
        if message.text.strip():
            out.append(f"  {message.role}: {densest_window(message.text, wanted, 300)}")
    return out


def before_prompt(call: HookCall) -> str:
    if call.mode == "off":
        return ""
    prompt = _OWN_FRAME.sub(" ", call.text("prompt")).strip()[:4000]
    if not prompt:
        return ""
    index = call.index()
    if index is None:
        return ""
    lines, keys = recall_for(index, prompt, call.mode, call.conversation_ids, call.seen())
    if not lines:
        return ""
    call.remember(keys)
    return frame(["Past turns from other sessions that may answer this prompt:", *lines], BUDGET)
