"""review52c: a stranger's review of index format 23 (keys spelt as 14 base64 digits, checksums per session).

Each test here is a finding's reproduction, strict xfail until it is fixed.
"""

from __future__ import annotations

from hashlib import blake2b
from pathlib import Path

import pytest
from harness import failure_hook, run_deja, store_shell

from deja.core.errors import error_identity
from deja.core.keys import error_key
from deja.core.writers.cursor_agent import chat_dir_for, store_preamble, store_user_message, write_chat_store
from deja.hooks.call import block_key

DISK = "Error response from daemon: write /var/lib/docker/overlay2/f00/diff: no space left on device"


def _format_22_error_key(line: str) -> str:
    """The error key as format 22 spelt it: 20 hex digits of a 10-byte blake2b (``keys._digest`` before fmt52)."""
    return "\x01e:" + blake2b(error_identity(line).encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


@pytest.mark.xfail(
    strict=True,
    reason="review52c F1: the failure hook's once-a-conversation key holds the index's error key, whose spelling "
    "format 23 changed: an error block shown before the upgrade is shown again in the same conversation",
)
def test_an_error_block_shown_before_the_upgrade_is_not_shown_again_after_it(fake_home: Path) -> None:
    project = fake_home / "code" / "api"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("docker compose cannot start the db"),
        *store_shell("t1", "docker compose up -d", DISK, 1),
        *store_shell("t2", "docker builder prune --force", "Total reclaimed space: 31.2GB", 0),
        *store_shell("t3", "docker compose up -d", "Container api-db-1 Started", 0),
    ]
    cursor = fake_home / ".cursor"
    write_chat_store(chat_dir_for(cursor, str(project), "c-disk"), cwd=str(project), name="docker disk", messages=messages)
    assert run_deja("index").returncode == 0
    assert "This error came up before" in failure_hook(project, "docker compose up -d", DISK)
    # What format 22's deja had written in that conversation's seen-set: the same block, keyed by its own spelling.
    (seen,) = [path for path in fake_home.rglob("hooks/seen/*") if path.is_file()]
    new = block_key("e", error_key(DISK), "c-disk")
    assert new in seen.read_text().split()
    seen.write_text(seen.read_text().replace(new, block_key("e", _format_22_error_key(DISK), "c-disk")))
    assert failure_hook(project, "docker compose up -d", DISK) == ""
