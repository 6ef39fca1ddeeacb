"""HOME on a read-only file system: the fix deja gives is one that works there (trial49 F10: it offered
``deja config set home DIR``, whose write fails on the same disk, and ``chmod u+w ~/.cursor``, which no mount takes).

The mount is real: HOME bind-mounted read-only in a user and mount namespace of its own (``unshare -rm``), so every
write under it fails with EROFS as on a read-only disk; a skip where this machine makes no such namespace.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from harness import ENTRY, ROUTINE_CHATS, run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

#: ``CMD`` run with ``$1`` bind-mounted read-only over itself.
_READ_ONLY = '(mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1") || exit 97; shift; exec "$@"'


def on_read_only(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``deja ARGS`` with ``folder`` on a read-only mount."""
    command = ["unshare", "-rm", "sh", "-c", _READ_ONLY, "sh", str(folder), *ENTRY, *args]
    try:
        ran = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("no unshare here")
    if ran.returncode == 97 or ran.stderr.startswith("unshare:"):
        pytest.skip(f"cannot mount read-only in a namespace here: {ran.stderr.strip()}")
    return ran


def test_a_read_only_home_is_told_to_set_deja_home_and_config_set_home_says_the_same(fake_home: Path) -> None:
    write_transcript(transcript_path(fake_home / ".cursor", "/work/app", "b1"), [user_turn("narwhal?"), assistant_turn("ok")])  # fmt: skip
    searched = on_read_only(fake_home, "search", "narwhal")
    assert searched.returncode == 1
    assert searched.stderr.endswith("(Read-only file system): deja's home "
                                    f"{fake_home}/.cache/deja does not exist and cannot be made there: set DEJA_HOME "
                                    "to a folder on a writable disk\n"), searched.stderr  # fmt: skip
    assert "config set home" not in searched.stderr
    doctor = on_read_only(fake_home, "doctor")
    assert "fix: set DEJA_HOME to a folder on a writable disk" in doctor.stdout, doctor.stdout
    assert "config set home" not in doctor.stdout
    config = on_read_only(fake_home, "config", "set", "home", "/tmp/elsewhere")
    assert (config.returncode, config.stderr) == (1, (
        f"deja: cannot write {fake_home}/.config/deja/config.toml: Read-only file system: set DEJA_HOME=/tmp/elsewhere "
        "instead, or set XDG_CONFIG_HOME to a folder on a writable disk\n"
    ))  # fmt: skip


def test_install_on_a_read_only_home_offers_no_chmod(fake_home: Path) -> None:
    (fake_home / ".cursor").mkdir()
    ran = on_read_only(fake_home, "install", "cursor-auto")
    assert ran.returncode == 1
    assert ran.stderr == (
        f"deja: {fake_home}/.cursor: is on a read-only file system; deja changed nothing; Cursor reads its settings "
        "from there, so no other folder will do: mount that disk read-write, then run the command again\n"
    )


@pytest.mark.parametrize(("value", "variable"), [("true", "DEJA_NO_REDACT=0"), ("false", "DEJA_NO_REDACT=1")])
def test_config_set_redact_on_a_read_only_disk_offers_the_variable_that_does_what_was_asked(
    fake_home: Path, value: str, variable: str
) -> None:
    """``DEJA_NO_REDACT`` says the opposite of ``redact``: offering ``DEJA_NO_REDACT=true`` for ``redact true`` told a
    user who asked for redaction how to turn it off (review49d H2)."""
    (fake_home / ".config" / "deja").mkdir(parents=True)
    config = on_read_only(fake_home, "config", "set", "redact", value)
    assert (config.returncode, config.stderr) == (1, (
        f"deja: cannot write {fake_home}/.config/deja/config.toml: Read-only file system: set {variable} "
        "instead, or set XDG_CONFIG_HOME to a folder on a writable disk\n"
    ))  # fmt: skip


def test_a_hook_on_a_read_only_home_still_answers_and_says_once_why_it_cannot_log(fake_home: Path) -> None:
    """Indexed while the disk was writable, then read-only: the hook still recalls, exits 0, and says on stderr (which
    Cursor keeps in its Hooks output, never in the model's context) why it could not log (drift49: silent)."""
    project = "/work/app"
    asked = [*ROUTINE_CHATS, ("b1", "Why does the narwhal importer crash on empty files?", "An empty header row.")]
    for chat, question, answer in asked:
        write_transcript(
            transcript_path(fake_home / ".cursor", project, chat), [user_turn(question), assistant_turn(answer)]
        )
    assert run_deja("index").returncode == 0
    payload = {"hook_event_name": "beforeSubmitPrompt", "conversation_id": "c-ro", "workspace_roots": [project],
               "prompt": "the narwhal importer crashes on empty files again"}  # fmt: skip
    command = ["unshare", "-rm", "sh", "-c", _READ_ONLY, "sh", str(fake_home), *ENTRY, "hook-prompt"]
    try:
        ran = subprocess.run(command, input=json.dumps(payload), capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("no unshare here")
    if ran.returncode == 97 or ran.stderr.startswith("unshare:"):
        pytest.skip(f"cannot mount read-only in a namespace here: {ran.stderr.strip()}")
    assert ran.returncode == 0 and ran.stdout, ran.stderr
    assert "empty header row" in json.loads(ran.stdout)["additional_context"]
    log = fake_home / ".cache" / "deja" / "hooks.log"
    assert ran.stderr == (
        f"deja: cannot write {log}: Read-only file system; this hook answered but could not log it: set DEJA_HOME "
        "to a folder on a writable disk\n"
    )
