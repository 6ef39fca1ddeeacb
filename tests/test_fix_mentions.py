"""``deja fix`` on an error that was pasted into a chat (no command printed it): the sessions whose messages hold it,
with what was answered after it, said as such; never "this error has not come up in a past session".

Before, only failed tool calls were looked at, and an editor chat where the user pasted the error has none: the
verb named for this answered a flat, false "never" while ``deja search`` found the chats (trialI F3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import index_chats, run_deja

ERROR = "main.js:23 ChunkLoadError: Loading chunk 179 failed."
ANSWER = "The service worker served a stale main.js: bump the cache name in sw.js and reload."


def test_a_pasted_error_finds_the_chat_and_its_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, {"c-chunk": [ERROR, ANSWER], "c-other": ["rename the orders table", "Done."]})
    ran = run_deja("fix", "ChunkLoadError: Loading chunk 179 failed.")
    assert ran.returncode == 0, ran.stderr
    assert "has not come up" not in ran.stdout, ran.stdout
    assert ran.stdout.startswith("no failed command printed this error; it was written in 1 past session"), ran.stdout
    assert "deja show c-chunk" in ran.stdout and "c-other" not in ran.stdout
    assert f"answered after it: {ANSWER}" in ran.stdout and "fixed by" not in ran.stdout
    (found,) = json.loads(run_deja("fix", "ChunkLoadError", "--json").stdout)["occurrences"]
    assert found["mentioned"] is True and found["answer"] == ANSWER and found["steps"] == []


def test_an_error_no_chat_holds_still_never_came_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, {"c-chunk": [ERROR, ANSWER]})
    ran = run_deja("fix", "ModuleNotFoundError: No module named 'stripe'")
    assert ran.stdout.startswith("this error has not come up in a past session"), ran.stdout


def test_the_words_are_found_whatever_their_case_and_only_the_messages_holding_them_are_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # speed9's rule for the fallbacks (Segment.message_holding): a record lacking a word is never decoded; folded as
    # str.lower() folds, so a shouted error, even one whose K is the Kelvin sign (lowered to k), is still found
    shouted = "MAIN.JS:23 CHUN\u212aLOADERROR: LOADING CHUN\u212a 179 FAILED."
    index = index_chats(tmp_path, monkeypatch, {"c-loud": ["rename the orders table", shouted, ANSWER]})
    (segment, _, meta), *_ = index.find("c-loud")
    needles = [b"chunkloaderror", b"loading", b"chunk", b"179", b"failed"]
    held = [segment.message_holding(doc, needles, folded=True) for doc in range(meta.first_doc, meta.first_doc + 3)]
    assert [message.text if message else None for message in held] == [None, shouted, None]
    ran = run_deja("fix", "ChunkLoadError: Loading chunk 179 failed.")
    assert "deja show c-loud" in ran.stdout and f"answered after it: {ANSWER}" in ran.stdout, ran.stdout


def test_a_camel_case_word_is_found_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``deja fix OOMKilled`` said the error never came up, while ``deja search OOMKilled`` found the chat: the words
    were searched in lowercase, and ``oomkilled`` is no word the index holds (trial20 F11)."""
    said = "Raised the memory limit to 2Gi; no OOMKilled pods during the 20 minute test."
    index_chats(tmp_path, monkeypatch, {"c-oom": ["shop-api pods get OOMKilled during the load test", said]})
    ran = run_deja("fix", "OOMKilled")
    assert ran.stdout.startswith("no failed command printed this error; it was written in 1 past session"), ran.stdout
    assert (
        "deja show c-oom" in ran.stdout and "  said: shop-api pods get OOMKilled during the load test\n" in ran.stdout
    )
    assert f"answered after it: {said}" in ran.stdout
