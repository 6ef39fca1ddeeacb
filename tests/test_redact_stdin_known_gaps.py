"""Known gaps of the rules for a password fed to a command or given to a store's CLI (red55b's, review55e F2, red56):
near variants of the forms ``tests/test_redact_stdin_passwords.py`` redacts, each kept today. Each is a strict xfail
with its reason and where a fix belongs; when one is fixed, its case moves beside its neighbours there."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

PW = "Hx7Sud0Pw42"


@pytest.mark.xfail(strict=True, reason="red56: rclone config create's KEY VALUE pairs are read by no rule")
def test_a_secret_given_to_rclone_config_create_is_redacted() -> None:
    assert PW not in redact("rclone config create s3r s3 access_key_id AKIAX secret_access_key Hx7Sud0Pw42")


@pytest.mark.xfail(strict=True, reason="red56: a process substitution's echo (<(echo PW)) is fed to no rule")
def test_a_vault_password_echoed_into_ansible_is_redacted() -> None:
    assert PW not in redact("ansible-vault decrypt vault.yml --vault-password-file <(echo Hx7Sud0Pw42)")


@pytest.mark.xfail(strict=True, reason="red56: heroku config:set and netlify env:set are no store the rules know")
@pytest.mark.parametrize(
    "written", ["heroku config:set STRIPE=Hx7Sud0Pw42 -a app", "netlify env:set STRIPE Hx7Sud0Pw42"]
)
def test_a_secret_set_in_a_hosts_environment_is_redacted(written: str) -> None:
    assert PW not in redact(written)


@pytest.mark.xfail(strict=True, reason="red56: expect's send of a password prompt's answer is read by no rule")
def test_a_password_expect_sends_is_redacted() -> None:
    assert PW not in redact('expect "password:" { send "Hx7Sud0Pw42\\r" }')
