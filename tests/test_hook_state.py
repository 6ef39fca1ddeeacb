"""The hooks' per-conversation state stays bounded: past SEEN_CONVERSATIONS, the oldest fifth goes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deja.hooks.call import SEEN_CONVERSATIONS, STARTED, HookCall


def _start(conversation: str) -> None:
    HookCall({"conversation_id": conversation, "hook_event_name": "sessionStart"}, "").remember([STARTED])


def _seen(home: Path) -> list[Path]:
    return list((home / "hooks" / "seen").iterdir())


@pytest.mark.unit
def test_the_seen_state_keeps_the_newest_conversations_and_prunes_only_past_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "home"))
    for n in range(SEEN_CONVERSATIONS):
        _start(f"c{n}")
    files = sorted(_seen(tmp_path / "home"))
    for age, path in enumerate(files):  # the first file written is the oldest
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    newest = files[-1]
    _start("one-more")
    assert len(_seen(tmp_path / "home")) == SEEN_CONVERSATIONS + 1  # at the bound: nothing pruned yet
    _start("and-another")
    kept = _seen(tmp_path / "home")
    assert len(kept) == SEEN_CONVERSATIONS * 4 // 5 + 1
    assert newest in kept and files[0] not in kept
    assert HookCall({"conversation_id": "one-more"}, "").started()
