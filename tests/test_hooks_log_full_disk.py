"""A full disk under deja's home: the hooks still answer, and ``deja hooks log`` says their log could not be
written, not that no hook has run (trial49 F12: hooks.log was made, 0 bytes, its append failed).

The disk is real: a 1 MiB tmpfs mounted at DEJA_HOME in a user and mount namespace of its own (``unshare -rm``),
filled before a real ``deja hook-prompt`` runs; a skip where this machine makes no such namespace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Mount a 1 MiB tmpfs at ``$DEJA_HOME``, fill it, give ``$1`` to a prompt hook (its stderr into the file ``$2``,
#: off the full disk), then list ``deja hooks log``.
_SCRIPT = """
mount -t tmpfs -o size=1m tmpfs "$DEJA_HOME" || exit 97
head -c 2000000 /dev/zero > "$DEJA_HOME/filler" 2>/dev/null
printf '%s' "$1" | "$PYTHON" -m deja.interfaces.entry hook-prompt > /dev/null 2> "$2" || exit 98
"$PYTHON" -m deja.interfaces.entry hooks log
echo "hooks.log: $(wc -c < "$DEJA_HOME/hooks.log") bytes"
"""


def test_hooks_log_on_a_full_disk_says_the_log_could_not_be_written(fake_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "deja"
    home.mkdir()
    payload = {
        "hook_event_name": "beforeSubmitPrompt",
        "conversation_id": "c1",
        "prompt": "why?",
        "workspace_roots": [],
    }
    env = {**os.environ, "DEJA_HOME": str(home), "PYTHON": sys.executable}
    hook_stderr = tmp_path / "hook.err"
    try:
        ran = subprocess.run(
            ["unshare", "-rm", "sh", "-c", _SCRIPT, "sh", json.dumps(payload), str(hook_stderr)],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    except FileNotFoundError:
        pytest.skip("no unshare here")
    if ran.returncode == 97 or ran.stderr.startswith("unshare:"):
        pytest.skip(f"cannot mount a tmpfs in a namespace here: {ran.stderr.strip()}")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.endswith("hooks.log: 0 bytes\n"), ran.stdout  # the hook made it; its line did not fit
    assert "no deja hook has run" not in ran.stdout
    assert ran.stderr == (
        f"note: {home}/hooks.log could not be written (No space left on device): the hooks' decisions since are "
        f"missing from it; fix: free space on the disk that holds {home}; the next hook writes its line\n"
    )
    # The hook itself said so once, in the Hooks output Cursor keeps (lows50r: never silently)
    assert hook_stderr.read_text() == (
        f"deja: cannot write {home}/hooks.log: No space left on device; this hook answered but could not log it: "
        f"free space on the disk that holds {home}, or set DEJA_HOME to a folder you can write\n"
    )


def test_a_hooks_log_emptied_by_hand_on_a_disk_with_room_is_no_full_disk(fake_home: Path, tmp_path: Path) -> None:
    """``: > hooks.log`` on a disk with room: `deja hooks log` sends no one to free space (review49d L3: any empty
    log was said to be one a full disk left)."""
    home = tmp_path / "deja"
    home.mkdir()
    (home / "hooks.log").write_bytes(b"")
    env = {**os.environ, "DEJA_HOME": str(home)}
    ran = subprocess.run(
        [sys.executable, "-m", "deja.interfaces.entry", "hooks", "log"], env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert "could not be written" not in ran.stderr and "free space" not in ran.stderr, ran.stderr
    assert "no deja hook has run" in ran.stdout, ran.stdout
