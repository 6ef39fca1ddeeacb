"""A session holding a query's rare word comes before long ones holding only its common word (trial55 F2).

``deja search kingfisher component`` listed a chat that said "component" 54 times in code pastes, and never
"kingfisher", above the one chat that said "kingfisher" twice; the prompt hook recalled such chats for "the
kingfisher component fails again" and left the kingfisher chat out. Each session holds one of the two words, so the
share of the query's words a session holds does not tell them apart, and the long chat's turns (each a message and
its edit, both saying the common word; its best turn and a share of the next two) outscore the rare word's one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from harness import hook_prompt, index_chats, run_deja

from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript

#: The parts of an Angular app each long chat edits, one a turn.
PARTS = ("header", "footer", "menu", "settings", "copilot", "sidebar", "list", "item")


def _long_chat(n: int) -> list[dict]:
    """A chat pasting Angular components again and again: "component" in every turn's words and in its edit, "fails"
    in the question."""
    records = [user_turn(f"the header component fails to render on page {n}")]
    for part in PARTS:
        code = f"import {{ Component }} from '@angular/core';\n@Component({{ selector: 'app-{part}' }})\n"
        code += f"export class {part.title()}Component {{}}  // the toolbar component is imported by this component"
        edit = tool_use("Write", {"path": f"src/app/{part}/{part}.component.ts", "contents": code})
        records.append(assistant_turn(f"Update the {part} component to import the toolbar component.", edit))
    return records


#: Long chats importing Angular modules in every answer, one of which says "checking out" in passing: a compound's
#: two words side by side hold it nearly ("check out" for ``checkout``, ``thesaurus.closed_compounds``).
IMPORTS = {
    f"imports-{n:02d}": [
        f"the settings page {n} shows a blank screen",
        "Whether you are checking out Angular for the first time or not, the fix is short.",
        *(f"Add import {{ {part.title()}Module }} from './{part}'; and import it in the page" for part in PARTS),
    ]
    for n in range(4)
}
#: Chats about other things, so that "component" is a word of some messages, not of nearly all.
OTHER = {
    f"other-{n:03d}": [f"lunch plan {n}", *(f"the weather on day {i} was fine" for i in range(20))] for n in range(120)
}
RARE = {
    "kingfisher-500": [
        "still 500 on the kingfisher endpoint",
        "The kingfisher endpoint reads a stale DATABASE_URL from its own configmap.",
    ],
    "checkout-refactor": ["refactor the checkout service into modules", "Split checkout into cart.py and pay.py."],
}
#: Known gap (rank55): weighing each word by its idf in that share puts the kingfisher chat first in search, but lost
#: questions on the tuning halves of LoCoMo and the coding benchmark (paraphrased questions whose answer holds the
#: common words), so it is not in.
SEARCH_GAP = pytest.mark.xfail(
    strict=True,
    reason="trial55 F2: a session's share of the query counts its words alike, so long chats whose every turn holds "
    "the common word outscore the short chat holding the rare one",
)
#: The prompt hook's gap is wider: the long chats hold "component" and "fails", more of the prompt than "kingfisher"
#: alone by count and by idf, so an idf-weighted share leaves them first too.
PROMPT_GAP = pytest.mark.xfail(
    strict=True,
    reason="trial55 F2: the prompt hook recalls long chats holding the prompt's common words, not the one chat "
    "holding its rarest word",
)

#: The share counts a word held only nearly as held: "checking out" once makes a chat hold ``checkout`` as much as the
#: chat about the checkout service does, and its many imports do the rest.
NEARLY_GAP = pytest.mark.xfail(
    strict=True,
    reason="trial55 F2: a chat saying a compound's two words in passing holds it in full in its share of the query, "
    "so long chats saying the query's common word often outscore the chat saying the rare word as written",
)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of a search of the chats above (indexed once)."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("rare")
        for n in range(6):
            write_transcript(transcript_path(folder / "cli", "/work/shop", f"ionic-{n:02d}"), _long_chat(n))
        index_chats(folder, patch, {**IMPORTS, **OTHER, **RARE})
        yield dict(os.environ)


def _sessions(env: dict[str, str], *query: str) -> list[str]:
    ran = run_deja("search", *query, "--json", "--limit", "3", env=env)
    assert ran.returncode == 0, ran.stderr
    return [hit["session_id"] for hit in json.loads(ran.stdout)["hits"]]


def test_each_word_alone_finds_its_chats(history: dict[str, str]) -> None:
    """(what the tests below stand on: each rare word is in one chat, "component" in the long chats)"""
    assert _sessions(history, "kingfisher") == ["kingfisher-500"]
    assert all(session.startswith("ionic-") for session in _sessions(history, "component"))
    assert _sessions(history, "checkout")[0] == "checkout-refactor"


@SEARCH_GAP
def test_the_chat_holding_the_rare_word_comes_first(history: dict[str, str]) -> None:
    assert _sessions(history, "kingfisher", "component")[0] == "kingfisher-500"


@PROMPT_GAP
def test_the_prompt_hook_recalls_the_chat_holding_the_rare_word(history: dict[str, str]) -> None:
    recalled = hook_prompt(history, "the kingfisher component fails again", "/work/shop")
    assert "kingfisher-500" in recalled
    assert "ionic-" not in recalled


@NEARLY_GAP
def test_the_chat_saying_the_rare_word_comes_before_chats_saying_its_halves_in_passing(history: dict[str, str]) -> None:
    assert _sessions(history, "checkout", "import")[0] == "checkout-refactor"
