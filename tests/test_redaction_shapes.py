"""Secret shapes whose rule ran only when a cheap pre-check said it might match: the pre-check must not skip them."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

SHAPES = [
    ("ALTER USER app WITH\n  PASSWORD 'Sup3rS3cretPw'", "Sup3rS3cretPw"),
    ("CREATE ROLE app WITH  PASSWORD 'Sup3rS3cretPw'", "Sup3rS3cretPw"),
    ("ENV\tDB_PASSWORD hunter22-prod", "hunter22-prod"),
    ("Authorization: BASIC dXNlcjpwdzE=", "dXNlcjpwdzE="),
    ("Authorization: Basic\tdXNlcjpwdzE=", "dXNlcjpwdzE="),
    ("secretaccess_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("SECRET_ACCESSKEY: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
]


@pytest.mark.unit
@pytest.mark.parametrize(("text", "secret"), SHAPES)
def test_a_secret_in_a_spacing_or_case_its_rule_allows_is_redacted(text: str, secret: str) -> None:
    shown = redact(text)
    assert secret not in shown and "[redacted:" in shown, shown
