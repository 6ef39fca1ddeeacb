"""The refresh after one appended turn loads only what that turn needs: a chat store's blobs are checked with the
interpreter's own sha256, not OpenSSL's (``hashlib``), and give the same digests either way."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deja.core import digests
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

pytestmark = pytest.mark.unit

CHAT = "00000000-0000-4000-8000-0000000000e1"
CWD = "/work/shop"


def _records(*more: dict[str, object]) -> list[dict[str, object]]:
    return [
        user_turn("Why does the uploader retry forever?"),
        assistant_turn("Running the tests.", tool_use("Shell", {"command": "pytest -q"})),
        *more,
    ]


def test_a_refresh_of_a_grown_chat_with_a_store_checks_its_blobs_without_loading_openssl(tmp_path: Path) -> None:
    cli = tmp_path / "cli"
    transcript = write_transcript(transcript_path(cli, CWD, CHAT), _records())
    write_chat_store(
        chat_dir_for(cli, CWD, CHAT),
        cwd=CWD,
        name="Uploader retries",
        messages=[
            store_user_message("Why does the uploader retry forever?"),
            store_assistant_message("Running the tests.", tool_call_part("c1", "Shell", {"command": "pytest -q"})),
            tool_result_message("c1", "Shell", "1 failed: test_backoff_grows"),
        ],
    )
    (tmp_path / "no-ide").mkdir()
    env = {
        **os.environ,
        "DEJA_CURSOR_CLI_ROOT": str(cli),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
        "DEJA_HOME": str(tmp_path / "deja"),
    }
    code = (
        "import sys\n"
        "from deja.core.indexer import refresh\n"
        f"print(refresh(only_chat_ids={{{CHAT!r}}}).COUNT)\n"
        "print('_hashlib' in sys.modules)\n"
    )
    built = subprocess.run(
        [sys.executable, "-c", code.replace("COUNT", "added")], env=env, capture_output=True, text=True
    )
    assert built.stdout.split() == ["1", "False"], built.stderr
    write_transcript(transcript, _records(user_turn("And the zeppelin queue?"), assistant_turn("It drains.")))
    grown = subprocess.run(
        [sys.executable, "-c", code.replace("COUNT", "updated")], env=env, capture_output=True, text=True
    )
    assert grown.stdout.split() == ["1", "False"], grown.stderr

    found = subprocess.run(
        [sys.executable, "-m", "deja.interfaces.entry", "search", "test_backoff_grows", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert CHAT in found.stdout  # the store's tool result was read: its blob passed the check


@pytest.mark.parametrize("size", [0, 1, 63, 64, 1000, 70_000])
def test_the_blob_digest_is_sha256_whichever_module_computes_it(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    monkeypatch.setattr(digests, "_hashed", [0])
    own = digests.sha256_hex(data)
    monkeypatch.setattr(digests, "_hashed", [digests.OWN_SHA256_BYTES])  # past it: OpenSSL's, as a build does
    assert own == digests.sha256_hex(data) == hashlib.sha256(data).hexdigest()
