"""A mixed-case word typed in lowercase finds the chat that wrote it: ``deja search oomkilled`` for ``OOMKilled``."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import index_chats, run_deja

from deja.core.search import search
from deja.core.text import spellings

OOM = "00000000-0000-4000-8000-0000000000b1"
OTHER = "00000000-0000-4000-8000-0000000000b2"


def test_a_mixed_case_word_typed_in_lowercase_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """trial20: the index holds ``OOMKilled`` as ``oomkilled`` (whole, unstemmed), ``oom`` and ``kill``; the query
    ``oomkilled``, a plain lowercase word, was stemmed to ``oomkil``, which no chat holds: nothing found, while
    ``OOMKilled`` found the chat."""
    chats = {
        OOM: ["shop-api pods get OOMKilled during the load test", "Raised the memory limit to 1Gi."],
        OTHER: ["The pods restart during the deploy.", "A liveness probe was too strict."],
    }
    index = index_chats(tmp_path, monkeypatch, chats)
    for query in ("oomkilled", "OOMKilled", "pods getting oomkilled"):
        assert [hit.session_id for hit in search(index, query, snippets=0).hits][:1] == [OOM], query
    found = run_deja("search", "oomkilled")
    assert found.returncode == 0 and OOM[:8] in found.stdout, found.stdout + found.stderr
    assert spellings("pods getting oomkilled OOMKilled cache_key") == {"pod": "pods", "oomkil": "oomkilled"}
