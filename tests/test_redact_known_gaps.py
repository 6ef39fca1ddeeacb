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


@pytest.mark.xfail(
    strict=True,
    reason="review54d FN: HTTPie's bearer rules read `-A bearer` and `-a TOKEN` on one line only "
    "([^\\n|;&]{0,200}); a command continued with `\\` or PowerShell's backtick between them keeps its token",
)
@pytest.mark.parametrize(
    "written",
    [
        f"http -A bearer \\\n  -a {SECRET} example.org",
        f"http --auth-type=bearer \\\n  --auth {SECRET} example.org",
        f"http -a {SECRET} \\\n  -A bearer example.org",
        f"http -A bearer `\n  -a {SECRET} example.org",
    ],
)
def test_an_httpie_bearer_token_on_a_continued_line_is_redacted(written: str) -> None:
    assert SECRET not in redact(written)


@pytest.mark.xfail(
    strict=True,
    reason="review54d FN: xh's own `--bearer TOKEN` (xh, which red54 reads as HTTPie's twin) is no rule's",
)
@pytest.mark.parametrize("written", [f"xh --bearer {SECRET} api.example.org", f"xh --bearer={SECRET} api.example.org"])
def test_an_xh_bearer_token_is_redacted(written: str) -> None:
    assert SECRET not in redact(written)


@pytest.mark.xfail(
    strict=True,
    reason="review54d FN (http before red54, xh new): a Makefile's silenced command (`\\t@http -a …`): "
    "`_a_command_word` refuses a name after `@`; curl's is caught by the older generic `-u` rule",
)
@pytest.mark.parametrize("program", ["http", "xh"])
def test_a_makefile_silenced_httpie_command_has_its_password_redacted(program: str) -> None:
    assert SECRET not in redact(f"deploy:\n\t@{program} -a deploy:{SECRET} api.example.org\n")


@pytest.mark.xfail(
    strict=True,
    reason="review54d FN: in bash's `$'…'` an escaped `\\'` stays inside; the password's rest after it is kept",
)
def test_an_escaped_quote_inside_a_dollar_quoted_password_is_redacted() -> None:
    assert "Pq2Lw7Zq" not in redact("curl -u $'deploy:Xk9m\\'Pq2Lw7Zq' https://x")


@pytest.mark.xfail(
    strict=True,
    reason="review54d FN: `-A=bearer` (argparse reads it as `-A bearer`) is not `_BEARER_TYPE`'s `-A[ \\t]*bearer`",
)
def test_an_httpie_bearer_type_after_an_equals_sign_is_redacted() -> None:
    assert SECRET not in redact(f"http -A=bearer -a {SECRET} example.org")


@pytest.mark.xfail(
    strict=True,
    reason="review54d FN: HTTPie's unquoted `Header:` (remove a default header) before `-a` reads as a sentence's "
    "colon to `_httpie_argument` (0f11df6), which leaves the password",
)
def test_an_httpie_password_after_a_header_removal_is_redacted() -> None:
    assert SECRET not in redact(f"http POST example.org Accept: -a deploy:{SECRET}")


@pytest.mark.xfail(
    strict=True,
    reason="review54d FP: HTTPie's `-va` cluster (91da11e) reads rsync's `-va host:path` as a password when the "
    "word `http` is earlier on the line with no colon between (D3's damage, now for `-va` too)",
)
def test_rsync_va_after_the_word_http_keeps_its_path() -> None:
    written = "The http server failed, so I ran rsync -va web1:/srv/www ./backup"
    assert redact(written) == written


@pytest.mark.xfail(
    strict=True,
    reason="review54d FP (before red54): the generic `-u user:password` rule (`-(?:u|-user)[ =]…`) reads docker's "
    "`-u uid:gid`, `--user user:group` as a password",
)
@pytest.mark.parametrize(
    "written",
    ["docker run -u 1000:1000 alpine id", "docker exec -u root:root web sh", "docker run --user 1000:1000 img"],
)
def test_a_docker_user_and_group_is_kept(written: str) -> None:
    assert redact(written) == written
