"""A curl config file's ``user`` line as a shell, a diff, grep, cat or Markdown shows it keeps no password, and a uid
and gid shown so loads no rules (review54f's findings on review54d F1's first fix, F4 and F5 mended by red55; what is
still open, a strict xfail)."""

from __future__ import annotations

import pytest

from deja.core.redact import redact

SECRET = "Xk9mPq2Lw7Zq"


def test_a_curl_config_user_line_removed_in_a_diff_is_redacted() -> None:
    """``git diff ~/.curlrc`` after a password change: the old password is on the ``-`` line, with no blank after
    the ``-`` (CONFIG_LINE_SHOWN reads ``-`` only before blanks, a list's)."""
    diff = (
        f'@@ -1,2 +1,2 @@\n url = "https://api.example.com"\n-user = "deploy:{SECRET}"\n+user = "deploy:N3wPassw0rd"\n'
    )
    assert SECRET not in redact(diff)


def test_a_curl_config_user_line_in_a_grep_hit_of_one_file_is_redacted() -> None:
    """``grep -n user ~/.curlrc`` prints ``2:user = …`` (no path: one file), read by the agent."""
    assert SECRET not in redact(f'2:user = "deploy:{SECRET}"')


def test_a_curl_config_user_line_numbered_by_cat_is_redacted() -> None:
    """``cat -n ~/.curlrc``: the agent's most common way to show a file with its line numbers."""
    assert SECRET not in redact(f'     1\turl = "https://api.example.com"\n     2\tuser = "deploy:{SECRET}"\n')


def test_a_curl_config_user_line_in_a_grep_hit_without_a_number_is_redacted() -> None:
    """``grep user ~/.curlrc ~/.config/curlrc`` (several files, no -n) prints ``path:user = …``."""
    assert SECRET not in redact(f'/home/dev/.curlrc:user = "deploy:{SECRET}"')


def test_a_curl_config_user_line_in_printf_s_second_argument_is_redacted() -> None:
    """``printf '%s\\n' 'user = …' >> ~/.curlrc``: the line is the second quoted word (review54f F4: each quote of a
    line is read, at once, not from the line's start for each)."""
    assert SECRET not in redact(f"printf '%s\\n' 'user = \"deploy:{SECRET}\"' >> ~/.curlrc")


def test_a_curl_config_user_line_after_an_escaped_newline_of_echo_e_is_redacted() -> None:
    """``echo -e``'s ``\\n`` starts a line of the file (review54f F4); the password ends at the next one."""
    written = f'echo -e "url = https://api.example.com\\nuser = deploy:{SECRET}\\nproxy = p:3128" >> ~/.curlrc'
    assert redact(written) == written.replace(SECRET, "[redacted:cli-credentials]")


def test_a_numeric_user_and_pin_in_a_curl_config_is_redacted() -> None:
    """The uid:gid exception (review54d D1) kept any ``digits:digits``, an account number and a numeric PIN too
    (review54f F5): a uid and gid is the same number twice or two of five digits at most."""
    assert "83726451" not in redact('url = "https://voip.example.com/api"\nuser = "104233:83726451"\n')


@pytest.mark.xfail(
    strict=True,
    reason="red55: a user and PIN of five digits at most each have a uid and gid's shape (1000:100, 501:20), kept",
)
def test_a_short_numeric_user_and_pin_in_a_curl_config_is_redacted() -> None:
    assert "6789" not in redact('url = "https://voip.example.com/api"\nuser = "12345:6789"\n')


@pytest.mark.parametrize("line", ['user = "100000:100000"', "user: 1000:100", '  user = "501:20"'])
def test_a_uid_and_gid_is_kept(line: str) -> None:
    """A rootless container's mapped ids (the same number twice), a user and a group id of five digits at most."""
    assert redact(line) == line


TERRAFORM_PLAN = """  # nomad_job.web will be updated in-place
  ~ resource "nomad_job" "web" {
      + user  = "1000:1000"
        name  = "web"
    }

Plan: 0 to add, 1 to change, 0 to destroy.
nomad_job.web: Modifying...
Error: error applying jobspec: Unexpected response code: 500
"""
DOCKERFILE_DIFF = """diff --git a/Dockerfile b/Dockerfile
@@ -3,3 +3,3 @@ FROM python:3.11-slim
-USER 1000:1000
+USER 10001:10001
 WORKDIR /app
"""


@pytest.mark.parametrize("output", [TERRAFORM_PLAN, DOCKERFILE_DIFF], ids=["terraform-plan", "dockerfile-diff"])
def test_a_uid_and_gid_shown_by_a_plan_or_a_diff_loads_no_rules(output: str) -> None:
    """A failed ``terraform apply``'s plan (``+ user = "1000:1000"``) or a Dockerfile's diff (``+USER 10001:10001``):
    the rule keeps a uid:gid (review54d D1), but the gate, reading the line after its ``+`` since 72e63d8, loads
    ``re`` and the rules for it on the failure hook's path."""
    from test_redact_gate_needles import _as_indexed_afresh

    assert _as_indexed_afresh([output]) == {"out": [output], "loaded": [False, False]}
