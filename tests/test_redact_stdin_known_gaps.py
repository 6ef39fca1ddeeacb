"""Known gaps of the rules for a password fed to a command or given to a store's CLI (red55b's, review55e F2): near
variants of the forms ``tests/test_redact_stdin_passwords.py`` redacts, each kept today. Each is a strict xfail with
its reason and where a fix belongs; when one is fixed, its case moves beside its neighbours there."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

PW = "Hx7Sud0Pw42"


@pytest.mark.xfail(
    strict=True,
    reason="review55e F2.2: each pass of an again=True rule reads from the command's start, and its lazy reach of "
    "200 characters misses the pairs past it",
)
@pytest.mark.parametrize("command", ["fly secrets set", "doppler secrets set", "supabase secrets set"])
def test_every_pair_of_a_long_secrets_set_is_redacted(command: str) -> None:
    pairs = " ".join(f"APP_SERVICE_CONFIGURATION_VALUE_{i}=Hx7Sud0Pw42v{i}" for i in range(8))
    assert PW not in redact(f"{command} {pairs}")


@pytest.mark.xfail(strict=True, reason="review55e F2.2: --from-literal pairs past the 200-character reach are kept")
def test_every_from_literal_of_a_long_kubectl_create_secret_is_redacted() -> None:
    literals = " ".join(f"--from-literal=APP_SERVICE_CONFIGURATION_VALUE_{i}=Hx7Sud0Pw42v{i}" for i in range(8))
    assert PW not in redact(f"kubectl create secret generic app {literals}")


@pytest.mark.xfail(
    strict=True,
    reason="review55e F2.3: the fed and stored rules read one line (the pipe's, the command's); _CONTINUED_LINES "
    "is the piece to reuse, and _plain_secure_string reads only the first line for -AsPlainText",
)
@pytest.mark.parametrize(
    "written",
    [
        "fly secrets set \\\n  DB=Hx7Sud0Pw42 \\\n  API=Hx7Sud0Pw42b",
    ],
)
def test_a_secret_on_a_continued_command_line_is_redacted(written: str) -> None:
    assert PW not in redact(written)
