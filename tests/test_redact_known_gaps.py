"""Redaction's known gaps after review57e, review58b, review58f, review59d, trial59 and review59e (RULES_VERSION 37):
a secret a near variant of a redacted command keeps, or a value a rule reads wider than it is. Each is a strict xfail
naming its finding; when one is fixed its case moves, as a plain test, to the file where its neighbours live
(``test_redact_stdin_passwords.py``, ``test_redaction_time.py``, ``test_redaction.py``)."""

from __future__ import annotations

import json

import pytest

from deja.core.redact import redact

PW = "Hx7Sud0Pw42"


@pytest.mark.xfail(
    strict=True,
    reason="review57e F6, its pre-existing half: _users_passwords (printf, echo, a here-string fed to chpasswd) splits "
    "at every backslash-n, so a password holding a literal backslash before an n (printf's \\\\n) shows its tail. "
    "Splitting as _escaped_lines does would read a JSON string's printf 'a:PW\\\\nb:PW2' (its \\n escaped once more) "
    "as one line and hide the second user's name: the match cannot tell which level it is read at",
)
@pytest.mark.parametrize(
    "command",
    ["printf 'a:Zr8\\\\nKq3Vw7Mx\\n' | chpasswd", "chpasswd <<< 'a:Zr8\\\\nKq3Vw7Mx'"],
)
def test_a_password_holding_a_backslash_n_printed_to_chpasswd_is_redacted_whole(command: str) -> None:
    assert "Kq3Vw7Mx" not in redact(command)


# --------------------------------------------------------------------------- review58b's, not fixed by red58


@pytest.mark.xfail(
    strict=True,
    reason="review58b F7: _RCLONE_OPTIONS gives a value to 9 named options only, so any other valued global option "
    "before config (--transfers 4, --bwlimit 10M) stops the row; rclone obscure's plain password is read by no rule",
)
@pytest.mark.parametrize(
    "written",
    [
        "rclone --transfers 4 config create r s3 secret_access_key Hx7Sud0Pw42",
        "rclone --bwlimit 10M config create r s3 secret_access_key Hx7Sud0Pw42",
        "rclone obscure Hx7Sud0Pw42",
        "rclone config create r sftp host h user me pass $(rclone obscure Hx7Sud0Pw42)",
    ],
)
def test_a_secret_given_to_rclone_after_another_option_or_to_obscure_is_redacted(written: str) -> None:
    assert PW not in redact(written)


# --------------------------------------------------------------------------- review58f's, not fixed by red58b


@pytest.mark.xfail(
    strict=True,
    reason="review58f F4: mattermost-webhook takes any 26 of [a-z0-9] after /hooks/ on any host: a docs page's "
    "26-letter word is redacted (Mattermost's ids are z-base-32, which has no l, v, 0 or 2)",
)
def test_a_docs_page_under_hooks_is_kept() -> None:
    text = "See https://docs.example.com/hooks/preinstallationrequirement.html first"
    assert redact(text) == text


# --------------------------------------------------------------------------- review59d's and trial59's, left by red59/59b
SECRET = "Xk9mQ2vLp8Rt"


@pytest.mark.xfail(
    strict=True,
    reason="review59d F2: pexpect's sendline is read right after its prompt's expect only; its usual "
    "`i = child.expect([...])` / `if i == 0:`, a line between, or the code in a JSON string escaped twice keep it",
)
@pytest.mark.parametrize(
    "code",
    [
        f'i = child.expect(["Password:", pexpect.EOF])\nif i == 0:\n    child.sendline("{SECRET}")',
        f'child.expect("Password:")\n# answer the prompt\nchild.sendline("{SECRET}")',
        json.dumps(json.dumps({"code": f'child.expect("Password:")\nchild.sendline("{SECRET}")'})),
    ],
)
def test_pexpect_sendline_after_its_prompt_in_other_shapes_is_redacted(code: str) -> None:
    assert SECRET not in redact(code)


@pytest.mark.xfail(
    strict=True,
    reason="review59d F3: an ssm SecureString beside a plain --type String in JSON escaped twice is kept "
    "(red59 reads a JSON string's end as its command's end once escaped only)",
)
def test_ssm_secure_string_beside_a_plain_one_in_a_twice_escaped_json_is_redacted() -> None:
    fields = {
        "command": f"aws ssm put-parameter --name /p/db --value {SECRET} --type SecureString",
        "next": "aws ssm put-parameter --name /p/region --value eu --type String",
    }
    assert SECRET not in redact(json.dumps(json.dumps(fields)))


# --------------------------------------------------------------------------- review59e's, left after red60
@pytest.mark.xfail(strict=True, reason="review59e F6: wandb.login(key=...) and az keys list -o yaml keep the key")
@pytest.mark.parametrize(
    "text",
    [
        'import wandb\nwandb.login(key="9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c")',
        "- keyName: key1\n  permissions: FULL\n  value: Tm9uZVNlY3JldEF6dXJlS2V5TWF0ZXJpYWwxMjM0NTY3ODkwYWJjZGVm",
    ],
)
def test_a_wandb_key_given_to_its_python_login_or_an_azure_key_listed_as_yaml_is_redacted(text: str) -> None:
    shown = redact(text)
    assert "9d8c7b6a5f4e3d2c1b0a" not in shown and "Tm9uZVNlY3JldEF6dXJl" not in shown, shown


@pytest.mark.xfail(
    strict=True,
    reason="review59e F7: code and shell under a secret name redacted since red59b ($env:, %~1 and a %s format mended by red60)",
)
@pytest.mark.parametrize(
    "line",
    [
        'AUTH_HEADER_TOKEN="Bearer $TOKEN"',
        "API_KEY: \"{{ lookup('env', 'API_KEY') }}\"",
    ],
)
def test_a_substitution_under_a_secret_name_comes_out_as_written(line: str) -> None:
    assert redact(line) == line
