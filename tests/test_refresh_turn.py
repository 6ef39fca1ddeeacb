"""The small refresh after one appended turn: what it loads and the order its files are made durable in."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from harness import index_chats

from deja.core.bookkeeping import FOLDER, State, read_record
from deja.core.index import MANIFEST, Index, SessionMeta, index_dir, read_manifest
from deja.core.indexer import MAX_SEGMENTS, records, refresh
from deja.core.model import Message
from deja.core.search import search
from deja.core.writers import cursor_agent as agent
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CHAT = "00000000-0000-4000-8000-0000000000d1"
FIRST = ["Why does the uploader retry forever?", "Its backoff never grows."]
GROWN = "00000000-0000-4000-8000-0000000000d2"
STAMP = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def _grow(tmp_path: Path) -> None:
    more = [user_turn("And the zeppelin queue?"), assistant_turn("It drains once the backoff grows.")]
    records = [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *more]
    write_transcript(transcript_path(tmp_path / "cli", "/work/shop", CHAT), records)


def _written_by_the_build(directory: Path) -> set[str]:
    """The bookkeeping and segment files the live manifest names."""
    manifest = read_manifest(directory)
    state = read_record(directory / manifest.state, State)
    files = {str(directory / manifest.state), *(str(directory / FOLDER / name) for name in state.shards if name)}
    return files | {str(directory / ref.name / name) for ref in manifest.segments for name in ref.files}


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads open files' names from /proc")
def test_what_a_refresh_writes_is_synced_before_the_manifest_naming_it_is_swapped_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the rename finds every file the new manifest names whole: the refresh synced each it wrote."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    directory = index_dir(tmp_path / "deja")
    before = _written_by_the_build(directory)
    _grow(tmp_path)
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("sync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: str | Path, dst: str | Path) -> None:
        events.append(("rename", str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    assert refresh(tmp_path / "deja", only_chat_ids={CHAT}).updated == 1

    swapped = events.index(("rename", str(directory / MANIFEST)))
    synced_before = {path for kind, path in events[:swapped] if kind == "sync"}
    written = _written_by_the_build(directory) - before
    assert any("/state/shard-" in path for path in written)  # the grown chat's shard, and a new segment
    assert any("/seg-" in path for path in written)
    assert written <= synced_before


def test_a_refresh_compiles_only_the_redaction_rules_its_text_calls_on() -> None:
    """Importing the rules compiles none of the rules' own regexes; a text holding a token compiles its rule."""
    code = (
        "import deja.core.redact as r\n"
        "rules = [*r._PROVIDER_RULES, *r._CONTEXT_RULES, *r._KEY_RULES]\n"
        "print(sum(rule._pattern is not None for rule in rules))\n"
        "print(r.scrub('token ghp_' + 'a' * 36 + ' here'))\n"
        "print(sorted({rule.kind for rule in rules if rule._pattern is not None}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "0"
    assert out[1] == "token [redacted:github-token] here"
    assert "github-token" in out[2] and "openai-key" not in out[2]


def test_a_refresh_of_one_turn_compiles_only_the_readers_patterns_its_lines_call_on_and_loads_no_orjson(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Importing the readers, the model and ``settled`` (whose ``prose_and_code`` the records use) compiles none of
    their patterns; reading one appended turn compiles the few its lines call on, none of ``settled``'s, and reads
    them without importing orjson (nor ``json`` and ``dataclasses`` with it); the grown chat is found by its new
    words."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    more = [user_turn("And the zeppelin queue?", stamp=STAMP), assistant_turn("It drains once the backoff grows.")]
    write_transcript(transcript_path(tmp_path / "cli", "/work/shop", CHAT), [user_turn(FIRST[0]), *more])
    code = (
        "import re, sys\n"
        "from pathlib import Path\n"
        "from deja.core.indexer import refresh\n"
        "from deja.core.readers import conversation, projects, transcripts\n"
        "from deja.core import model, settled\n"
        "def compiled():\n"
        "    modules = (conversation, projects, transcripts, model, settled)\n"
        "    return sorted(k for m in modules for k, v in vars(m).items() if isinstance(v, re.Pattern))\n"
        "print(compiled())\n"
        "print(refresh(Path(sys.argv[1]), only_chat_ids={sys.argv[2]}).updated)\n"
        "print(compiled())\n"
        "print(sorted({'orjson', 'json', 'dataclasses'} & set(sys.modules)))\n"
    )
    run = [sys.executable, "-c", code, str(tmp_path / "deja"), CHAT]
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[:2] == ["[]", "1"]
    assert "_STAMP" in out[2] and "_WORKSPACE_PATH" not in out[2] and "_DRIVE_PATH" not in out[2]
    assert "_SENTENCE_END" not in out[2] and "_FENCE_LINE" not in out[2]
    assert out[3] == "[]"
    assert [hit.session_id for hit in search(Index.open(tmp_path / "deja"), "zeppelin drains").hits] == [CHAT]


def test_a_refresh_of_a_turn_to_a_chat_with_a_store_loads_no_orjson(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn appended to a chat with a ``meta.json`` and a ``store.db`` (its tool results keyed to the transcript's
    calls) is read without importing orjson, and the chat is found by its new words with the store's tool result."""
    cwd, later = "/work/shop", STAMP + timedelta(minutes=5)
    call = agent.tool_use("Shell", {"command": "cat build.log", "cwd": cwd})
    transcript = [user_turn("why is the deploy refused?", stamp=STAMP), assistant_turn("Let me look.", call)]
    store = [
        *agent.store_preamble(cwd),
        agent.store_user_message("why is the deploy refused?", STAMP),
        agent.store_assistant_message(
            "Let me look.", agent.tool_call_part("c1", "Shell", {"cwd": cwd, "command": "cat build.log"})
        ),
        agent.tool_result_message("c1", "Shell", agent.shell_result_text("quokka step failed\n")),
    ]
    cli = tmp_path / "cli"
    write_transcript(transcript_path(cli, cwd, GROWN), transcript)
    agent.write_chat_store(agent.chat_dir_for(cli, cwd, GROWN), cwd=cwd, messages=store)
    index_chats(tmp_path, monkeypatch, {})
    transcript += [user_turn("and the zeppelin queue?", stamp=later), assistant_turn("It drains.")]
    store += [agent.store_user_message("and the zeppelin queue?", later), agent.store_assistant_message("It drains.")]
    write_transcript(transcript_path(cli, cwd, GROWN), transcript)
    agent.write_chat_store(agent.chat_dir_for(cli, cwd, GROWN), cwd=cwd, messages=store)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from deja.core.indexer import refresh\n"
        "print(refresh(Path(sys.argv[1]), only_chat_ids={sys.argv[2]}).updated)\n"
        "print(sorted({'orjson', 'json', 'dataclasses'} & set(sys.modules)))\n"
    )
    run = [sys.executable, "-c", code, str(tmp_path / "deja"), GROWN]
    assert subprocess.run(run, capture_output=True, text=True, check=True).stdout.splitlines() == ["1", "[]"]
    index = Index.open(tmp_path / "deja")
    assert [hit.session_id for hit in search(index, "zeppelin drains").hits] == [GROWN]
    [(segment, _, meta)] = index.find(GROWN)
    assert [c.result for m in segment.messages(meta) for c in m.tool_calls] == ["quokka step failed\n"]


def _stored(home: Path) -> tuple[SessionMeta, list[Message]]:
    """The grown chat as the index stores it, its place in its segment left out."""
    [(segment, _, meta)] = Index.open(home).find(GROWN)
    return msgspec.structs.replace(meta, first_doc=0), segment.messages(meta)


def test_a_grown_chat_has_only_its_new_turn_redacted_and_is_stored_as_a_rebuild_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn appended to a chat is redacted, and the earlier turns, read back from the index already redacted, are
    not redacted again (a cost that grew with the chat, not with the turn): the chat found by search and shown is
    the same as a full rebuild gives."""
    token = "ghp_" + "k7Qx2" * 7 + "a"  # (36 characters after the prefix: a GitHub token's shape, made up)
    first = [
        user_turn(f"the deploy token is {token}, why is it refused?", stamp=STAMP),
        assistant_turn("Rotate it: the password and token were revoked yesterday."),
    ]
    path = transcript_path(tmp_path / "cli", "/work/shop", GROWN)
    write_transcript(path, first)
    index_chats(tmp_path, monkeypatch, {})
    home = tmp_path / "deja"
    more = [user_turn("And the zeppelin queue?", stamp=STAMP + timedelta(minutes=5)), assistant_turn("It drains.")]
    write_transcript(path, [*first, *more])
    scrubbed: list[str] = []
    real = records.scrub
    monkeypatch.setattr(records, "scrub", lambda text: scrubbed.append(text) or real(text))

    assert refresh(home, only_chat_ids={GROWN}).updated == 1
    assert not [text for text in scrubbed if "token" in text]  # the first turn, as stored, is not redacted again
    assert any("zeppelin" in text for text in scrubbed) and any("drains" in text for text in scrubbed)

    meta, messages = _stored(home)
    assert "[redacted:github-token]" in messages[0].text and token not in messages[0].text
    assert [m.text for m in messages][2:] == ["And the zeppelin queue?", "It drains."]
    hits = search(Index.open(home), "deploy token refused").hits
    assert [hit.session_id for hit in hits] == [GROWN]
    refresh(home, full=True)
    assert _stored(home) == (meta, messages)
    assert [(hit.session_id, hit.score) for hit in search(Index.open(home), "deploy token refused").hits] == [
        (hit.session_id, hit.score) for hit in hits
    ]


def test_segments_merged_after_many_turns_are_not_redacted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One turn appended to each of ten chats in turn leaves a small segment per turn, which a refresh merges once
    there are too many (``MAX_SEGMENTS``): the sessions it writes again were stored redacted and are not redacted
    again, and every chat is stored as a full rebuild stores it."""
    token = "ghp_" + "k7Qx2" * 7 + "a"  # (made up, a GitHub token's shape)
    chats = [f"00000000-0000-4000-8000-0000000001{n:02d}" for n in range(MAX_SEGMENTS + 2)]
    firsts = {
        chat: [user_turn(f"the deploy token is {token}, why is it refused?", stamp=STAMP), assistant_turn("Rotate it.")]
        for chat in chats
    }
    for chat, first in firsts.items():
        write_transcript(transcript_path(tmp_path / "cli", "/work/shop", chat), first)
    index_chats(tmp_path, monkeypatch, {})
    home = tmp_path / "deja"
    scrubbed: list[str] = []
    real = records.scrub
    monkeypatch.setattr(records, "scrub", lambda text: scrubbed.append(text) or real(text))
    written = 0
    for chat, first in firsts.items():
        more = [user_turn("And the zeppelin queue?", stamp=STAMP + timedelta(minutes=5)), assistant_turn("It drains.")]
        write_transcript(transcript_path(tmp_path / "cli", "/work/shop", chat), [*first, *more])
        assert refresh(home, only_chat_ids={chat}).updated == 1
        written += 1
    assert len(read_manifest(index_dir(home)).segments) < written  # merged on the way
    assert not [text for text in scrubbed if "token" in text]

    def stored() -> list[tuple[str, list[str]]]:
        index = Index.open(home)
        found = [index.find(chat)[0] for chat in chats]
        return [(meta.title, [m.text for m in segment.messages(meta)]) for segment, _, meta in found]

    refreshed = stored()
    assert refreshed[0][1][0] == "the deploy token is [redacted:github-token], why is it refused?"
    refresh(home, full=True)
    assert stored() == refreshed


def test_a_grown_chat_without_times_has_only_its_new_turn_redacted_and_is_stored_as_a_rebuild_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript with no ``<timestamp>`` is read whole again after a turn (its messages are dated by the file's
    modification time, which the turn moved): its earlier turns, equal to their stored form but for that time, are
    not redacted again (a cost that grew with the chat); a turn redaction changed is, and the chat is stored as a
    full rebuild stores it, each message dated anew."""
    token = "ghp_" + "k7Qx2" * 7 + "a"  # (36 characters after the prefix: a GitHub token's shape, made up)
    first = [user_turn("Why does the uploader retry forever?"), assistant_turn("Its backoff never grows.")]
    secret = [user_turn(f"the deploy token is {token}, why is it refused?"), assistant_turn("Rotate it.")]
    path = transcript_path(tmp_path / "cli", "/work/shop", GROWN)
    write_transcript(path, [*first, *secret])
    index_chats(tmp_path, monkeypatch, {})
    home = tmp_path / "deja"
    more = [user_turn("And the zeppelin queue?"), assistant_turn("It drains.")]
    write_transcript(path, [*first, *secret, *more])
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 60 * 10**9))
    scrubbed: list[str] = []
    real = records.scrub
    monkeypatch.setattr(records, "scrub", lambda text: scrubbed.append(text) or real(text))

    assert refresh(home, only_chat_ids={GROWN}).updated == 1
    assert not [text for text in scrubbed if "uploader" in text or "backoff" in text]
    assert any(token in text for text in scrubbed)  # (after it, the prefix taken as stored ends)
    assert any("zeppelin" in text for text in scrubbed) and any("drains" in text for text in scrubbed)

    meta, messages = _stored(home)
    assert [m.text for m in messages] == [
        "Why does the uploader retry forever?",
        "Its backoff never grows.",
        "the deploy token is [redacted:github-token], why is it refused?",
        "Rotate it.",
        "And the zeppelin queue?",
        "It drains.",
    ]
    assert {m.timestamp for m in messages} == {datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)}
    refresh(home, full=True)
    assert _stored(home) == (meta, messages)


TOKEN = "ghp_" + "k7Qx2" * 7 + "a"  # (a GitHub token's shape, made up)


_CAT = agent.tool_use("Shell", {"command": "cat .env"})


def _no_token_stored(home: Path) -> None:
    """The grown chat, as stored, holds the token only redacted, and equals what a full rebuild stores."""
    stored = _stored(home)
    texts = [part for message in stored[1] for part in (message.text, str(msgspec.to_builtins(message.tool_calls)))]
    assert not [text for text in texts if TOKEN in text] and any("[redacted:github-token]" in text for text in texts)
    refresh(home, full=True)
    assert _stored(home) == stored


def test_a_tool_call_appended_to_a_chats_last_message_is_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review39a M2: a record holding only a tool call joins the last stored message, which is then no longer as
    stored: the whole message is redacted again, the token in the new call with it."""
    first = [user_turn("why is the deploy refused?", stamp=STAMP), assistant_turn("Let me look.")]
    path = transcript_path(tmp_path / "cli", "/work/shop", GROWN)
    write_transcript(path, first)
    index_chats(tmp_path, monkeypatch, {})
    call = assistant_turn(None, agent.tool_use("Shell", {"command": f"export GH_TOKEN={TOKEN}"}))
    write_transcript(path, [*first, call])
    assert refresh(tmp_path / "deja", only_chat_ids={GROWN}).updated == 1
    _no_token_stored(tmp_path / "deja")


def test_a_chat_stores_raw_tool_results_put_back_on_a_grown_chat_are_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review39a M2: a grown chat with a store.db whose stored tool result held a token: that result, as stored
    (redacted), is what the chat keeps, never the store's raw one."""
    cwd, start = "/work/shop", STAMP
    transcript = [user_turn("why is the deploy refused?", stamp=start), assistant_turn("Let me look.", _CAT)]
    store = [
        *agent.store_preamble(cwd),
        agent.store_user_message("why is the deploy refused?", start),
        agent.store_assistant_message("Let me look.", agent.tool_call_part("c1", "Shell", {"command": "cat .env"})),
        agent.tool_result_message("c1", "Shell", agent.shell_result_text(f"GH_TOKEN={TOKEN}\n")),
    ]
    cli = tmp_path / "cli"
    write_transcript(transcript_path(cli, cwd, GROWN), transcript)
    agent.write_chat_store(agent.chat_dir_for(cli, cwd, GROWN), cwd=cwd, messages=store)
    index_chats(tmp_path, monkeypatch, {})
    later = start + timedelta(minutes=5)
    transcript += [user_turn("and the zeppelin queue?", stamp=later), assistant_turn("It drains.")]
    store += [agent.store_user_message("and the zeppelin queue?", later), agent.store_assistant_message("It drains.")]
    write_transcript(transcript_path(cli, cwd, GROWN), transcript)
    agent.write_chat_store(agent.chat_dir_for(cli, cwd, GROWN), cwd=cwd, messages=store)
    assert refresh(tmp_path / "deja", only_chat_ids={GROWN}).updated == 1
    _no_token_stored(tmp_path / "deja")


def test_a_grown_chat_with_a_store_has_only_its_new_turn_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review39a L7: the store's raw tool results, put back over the stored calls' redacted and capped ones, made
    the earlier messages differ from their stored form, so each read of a grown chat with a store.db redacted them
    again (a cost that grew with the chat). Only the new turn is redacted, and the chat is stored as a rebuild
    stores it."""
    cwd, start = "/work/shop", STAMP
    log = agent.tool_use("Shell", {"command": "cat build.log"})
    transcript = [user_turn("why is the deploy refused?", stamp=start), assistant_turn("Let me look.", _CAT, log)]
    store = [
        *agent.store_preamble(cwd),
        agent.store_user_message("why is the deploy refused?", start),
        agent.store_assistant_message(
            "Let me look.",
            agent.tool_call_part("c1", "Shell", {"command": "cat .env"}),
            agent.tool_call_part("c2", "Shell", {"command": "cat build.log"}),
        ),
        agent.tool_result_message("c1", "Shell", agent.shell_result_text(f"GH_TOKEN={TOKEN}\n")),
        agent.tool_result_message("c2", "Shell", agent.shell_result_text("step ok\n" * 4000)),  # (capped at 16 KiB)
    ]
    cli = tmp_path / "cli"
    write_transcript(transcript_path(cli, cwd, GROWN), transcript)
    agent.write_chat_store(agent.chat_dir_for(cli, cwd, GROWN), cwd=cwd, messages=store)
    index_chats(tmp_path, monkeypatch, {})
    later = start + timedelta(minutes=5)
    transcript += [user_turn("and the zeppelin queue?", stamp=later), assistant_turn("It drains.")]
    store += [agent.store_user_message("and the zeppelin queue?", later), agent.store_assistant_message("It drains.")]
    write_transcript(transcript_path(cli, cwd, GROWN), transcript)
    agent.write_chat_store(agent.chat_dir_for(cli, cwd, GROWN), cwd=cwd, messages=store)
    scrubbed: list[str] = []
    real = records.scrub
    monkeypatch.setattr(records, "scrub", lambda text: scrubbed.append(text) or real(text))

    assert refresh(tmp_path / "deja", only_chat_ids={GROWN}).updated == 1
    assert sorted(scrubbed) == ["It drains.", "and the zeppelin queue?"]
    _no_token_stored(tmp_path / "deja")
