"""Known gaps of the curl/HTTPie/az command-line rules (review53a, stop 53; stop 54's red54), each a strict xfail
until a rules change covers it: passwords of rarer spellings the rules leave as written and words a chat loses that
hold no secret (D3: another tool's ``-a host:path`` after the word ``http``). The forms stop 54 mended are plain
tests in tests/test_redaction_arguments.py (``test_rarer_spellings_of_a_curl_httpie_or_az_password_are_redacted``,
D3's sentences in ``KEPT``)."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

SECRET = "Xk9mPq2Lw7Zq"


@pytest.mark.xfail(
    strict=True,
    reason="red54: an escaped quote inside a password is read in plain double quotes only, not in a JSON string's "
    'escaped ones (\\"…\\\\\\"…\\"), where the password ends at the escaped quote',
)
def test_an_escaped_quote_inside_a_json_escaped_password_is_redacted() -> None:
    assert SECRET not in redact(f'{{"command": "curl -u \\"deploy:a\\\\\\"{SECRET}\\" x"}}')


@pytest.mark.xfail(
    strict=True,
    reason="red54: a user and password in brackets has help text's shape ([user:password], <user:password>), "
    "kept on purpose (review53a D4)",
)
@pytest.mark.parametrize("written", [f"curl -u [deploy:{SECRET}] x", f"curl -u <deploy:{SECRET}> x"])
def test_a_bracketed_user_and_password_is_redacted(written: str) -> None:
    assert SECRET not in redact(written)


@pytest.mark.xfail(
    strict=True,
    reason="red54: a curl config file's `user: deploy:…` (a `:` after the key) has the shape of a compose file's "
    '`user: "1000:1000"`; the `=` and blank forms are redacted',
)
def test_a_curl_config_user_after_a_colon_is_redacted() -> None:
    assert SECRET not in redact(f'url: "https://x"\nuser: "deploy:{SECRET}"\n')


@pytest.mark.xfail(
    strict=True,
    reason="red54: a curl config file's user line after an escaped line end (printf 'url = x\\nuser = …' > .curlrc) "
    "is not read: the rule reads from a line's start only, so a line of many users costs linear time",
)
def test_a_curl_config_user_after_an_escaped_line_end_is_redacted() -> None:
    assert SECRET not in redact(f"printf 'url = x\\nuser = \"deploy:{SECRET}\"' > .curlrc")


@pytest.mark.xfail(
    strict=True,
    reason="review53a D3, what red54 left: the word http as sudo's user (no colon between it and another tool's -a) "
    "is still read as HTTPie",
)
def test_another_tools_a_after_sudos_user_http_stays() -> None:
    written = "sudo -u http rsync -a web1:/srv/http ./"
    assert redact(written) == written
