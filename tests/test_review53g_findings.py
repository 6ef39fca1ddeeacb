"""review53g's finding on redfix53 (stop 53), a strict xfail until the rules cover it.

G1: a PowerShell user that starts with ``$env:NAME`` and goes on (NTLM's ``$env:USERDOMAIN\\$env:USERNAME``, an
address ``$env:USERNAME@corp…``) leaves a literal password as written. redfix53 (review53a D2) reads a user that starts
with ``$env:`` only as ``$env:`` and a word; anything else after it and the rule finds no user at all. red53 redacted
these passwords (with the variable's name), so this is a leak redfix53 brought back."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

SECRET = "Xk9mPq2Lw7Zq"


@pytest.mark.xfail(
    strict=True,
    reason="review53g G1: a user starting with $env:NAME and going on (\\, @, .) is no user to the rules, so the "
    "literal password after it stays (red53 redacted it)",
)
@pytest.mark.parametrize(
    "written",
    [
        f'curl.exe --ntlm -u "$env:USERDOMAIN\\$env:USERNAME:{SECRET}" https://intranet',
        f"curl.exe --ntlm -u $env:USERDOMAIN\\$env:USERNAME:{SECRET} https://intranet",
        f'curl.exe -u "$env:USERNAME@corp.example.com:{SECRET}" https://jira',
        f'http -a "$env:USERDOMAIN\\$env:USERNAME:{SECRET}" https://intranet',
        f'"command": "curl.exe --ntlm -u \\"$env:USERDOMAIN\\\\$env:USERNAME:{SECRET}\\" https://intranet"',
    ],
)
def test_a_literal_password_after_a_powershell_user_that_goes_on_is_redacted(written: str) -> None:
    assert SECRET not in redact(written)
