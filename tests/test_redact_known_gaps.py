"""Known gaps of the curl/HTTPie/az command-line rules (review53a, stop 53), each a strict xfail until a rules change
covers it: passwords of rarer spellings the rules leave as written (L3) and words a chat loses that hold no secret
(D3: another tool's ``-a host:path`` after the word ``http``)."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

SECRET = "Xk9mPq2Lw7Zq"


@pytest.mark.xfail(
    strict=True,
    reason="review53a L3: bash's $'…', an escaped quote inside the value and an argparse cluster (-va) are not read",
)
@pytest.mark.parametrize(
    "written",
    [
        f"curl -u $'deploy:{SECRET}' https://api.example.com",
        f'curl -u "deploy:a\\"{SECRET}" https://api.example.com',
        f"http -va deploy:{SECRET} api.example.com",
    ],
)
def test_rarer_spellings_of_a_curl_or_httpie_password_are_redacted(written: str) -> None:
    assert SECRET not in redact(written)


@pytest.mark.xfail(
    strict=True,
    reason="review53a D3: HTTPie's name is looked for anywhere in the 200 characters before -a, not as the command",
)
@pytest.mark.parametrize(
    "written",
    [
        "copy the http conf: docker cp -a web:/etc/nginx ./nginx",
        "For the http root: rsync -a web1:/srv/www/ ./backup/",
    ],
)
def test_another_tools_a_after_the_word_http_stays(written: str) -> None:
    assert redact(written) == written
