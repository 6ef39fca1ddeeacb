"""Known gaps of the rules for a password fed to a command or given to a store's CLI (red55b's, review55e F2, red56):
near variants of the forms ``tests/test_redact_stdin_passwords.py`` redacts, each kept today. Each is a strict xfail
with its reason and where a fix belongs; when one is fixed, its case moves beside its neighbours there."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

PW = "Hx7Sud0Pw42"


@pytest.mark.xfail(
    strict=True,
    reason="red56: _HEREDOC_LINE reads a heredoc of one line; chpasswd's of several (a user a line) is kept whole",
)
def test_each_line_of_a_heredoc_fed_to_chpasswd_is_redacted() -> None:
    assert PW not in redact("chpasswd <<EOF\na:Hx7Sud0Pw42\nb:Zr8Kq3Vw7Mx\nEOF")


@pytest.mark.xfail(
    strict=True,
    reason="red56: a heredoc in a JSON string (its line ends escaped, \\n) is read by no heredoc rule, "
    "--password-stdin's included; _HEREDOC_LINE would take an escaped line end",
)
def test_a_heredoc_fed_to_sudo_in_a_json_string_is_redacted() -> None:
    assert PW not in redact('{"command": "sudo -S whoami <<EOF\\nHx7Sud0Pw42\\nEOF"}')


@pytest.mark.xfail(
    strict=True,
    reason="red56: _STORED_PAIRS reads netlify's NAME VALUE from its first word, so an option's value before the "
    "name (--context production) is read as the name",
)
def test_a_secret_given_to_netlify_after_its_options_is_redacted() -> None:
    assert PW not in redact("netlify env:set --context production STRIPE Hx7Sud0Pw42")


@pytest.mark.xfail(
    strict=True,
    reason='review56c F4: _EXPECT_SENT\'s value takes no backslash, so expect in a JSON string (\\"…\\\\r\\") or a '
    'send "PW\\\\r" keeps its password; the value should end at an optional \\ and a quote, as curl\'s JSON rules do',
)
@pytest.mark.parametrize(
    "written",
    [
        '{"command": "expect -c \'spawn ssh h; expect \\"assword:\\"; send \\"Hx7Sud0Pw42\\\\r\\"; interact\'"}',
        'expect "password:" { send "Hx7Sud0Pw42\\\\r" }',
    ],
)
def test_expects_answer_in_a_json_string_is_redacted(written: str) -> None:
    assert PW not in redact(written)


@pytest.mark.xfail(
    strict=True,
    reason="review56c F7: _AWS_GLOBAL_OPTIONS reads aws's global options on its line only; a \\ line end between "
    "them and the service (which fly and kubectl follow) keeps the secret",
)
def test_a_secret_string_after_aws_options_on_a_continued_line_is_redacted() -> None:
    assert PW not in redact("aws --region x \\\n  secretsmanager create-secret --name x --secret-string Hx7Sud0Pw42")


@pytest.mark.xfail(
    strict=True,
    reason="review56c F8: _VAULT_ECHOED asks --vault-id for a label@ before <(echo …); ansible takes a bare source",
)
def test_a_vault_id_without_a_label_is_redacted() -> None:
    assert PW not in redact("ansible-playbook site.yml --vault-id <(echo Hx7Sud0Pw42)")
