"""A secret in a table: Markdown's (``| DB_PASSWORD | … |``, ``| user | password |`` over its rows), a text
table's between ``+---+`` borders (``mysql``'s, ``psql``'s) and HTML's (``<th>Password</th><td>…</td>``); and an HTML
form's password field. No ``:`` or ``=`` marks a table's value, so each is read as a sentence's is: a value that
looks made (``_looks_made``) is replaced, a word, a type or a placeholder stays."""

from __future__ import annotations

import pytest

from deja.core import redaction
from deja.core.redact import redact

PW = "Zx9mQ2vLp8Rt"


@pytest.mark.unit
@pytest.mark.parametrize(
    ("table", "shown"),
    [
        (
            "| Variable | Value |\n|---|---|\n| DB_HOST | localhost |\n| DB_PASSWORD | Zx9mQ2vLp8Rt |\n",
            "| Variable | Value |\n|---|---|\n| DB_HOST | localhost |\n| DB_PASSWORD | [redacted:secret] |\n",
        ),
        ("| Password | `Zx9mQ2vLp8Rt` |", "| Password | `[redacted:secret]` |"),
        ("| **API key** | Zx9mQ2vLp8Rt | the staging key |", "| **API key** | [redacted:secret] | the staging key |"),
        ("|`STRIPE_SECRET`|Zx9mQ2vLp8Rt|", "|`STRIPE_SECRET`|[redacted:secret]|"),
        ("| admin password | hunter22 |", "| admin password | [redacted:secret] |"),
        (
            "| user | password | role |\n|:-----|:--------:|------|\n| admin | Zx9mQ2vLp8Rt | owner |\n"
            "| ci | `Qw8nB3xKp7Zs` | deploy |",
            "| user | password | role |\n|:-----|:--------:|------|\n| admin | [redacted:secret] | owner |\n"
            "| ci | `[redacted:secret]` | deploy |",
        ),
        (
            "+-------+--------------+\n| user  | password     |\n+-------+--------------+\n"
            "| admin | Zx9mQ2vLp8Rt |\n+-------+--------------+\n1 row in set",
            "+-------+--------------+\n| user  | password     |\n+-------+--------------+\n"
            "| admin | [redacted:secret] |\n+-------+--------------+\n1 row in set",
        ),
        ("  | token | Zx9mQ2vLp8Rt", "  | token | [redacted:secret]"),
    ],
    ids=["key-value", "in-code", "bold-name", "no-blanks", "weak-password", "column", "mysql", "no-closing-bar"],
)
def test_a_secret_a_table_gives_is_replaced_and_the_rest_of_the_table_kept(table: str, shown: str) -> None:
    assert redact(table) == shown


@pytest.mark.unit
@pytest.mark.parametrize(
    "table",
    [
        "| Field | Type | Notes |\n|---|---|---|\n| password | string | hashed with argon2id |\n| token | required | |",
        "| Password | Notes |\n|---|---|\n| Xq | Zx9mQ2vLp8Rt |",  # (a header row gives no value)
        "| password | correct horse battery staple |",
        "| password | ${DB_PASSWORD} |\n| token | <your-token> |\n| secret | xxxxxxxx |",
        "| Key | Value |\n|---|---|\n| region | Zx9mQ2vLp8Rt |",
        "| password hash | Zx9mQ2vLp8Rt |",
        "cat notes.txt | grep password | Zx9mQ2vLp8Rt",
        "| user | password |\n|---|---|\n| admin | [redacted:secret] |",
    ],
    ids=["schema", "header-row", "prose", "placeholders", "not-named", "hash", "shell-pipe", "already-redacted"],
)
def test_a_table_giving_no_secret_comes_out_as_written(table: str) -> None:
    assert redact(table) == table


@pytest.mark.unit
def test_a_secret_in_a_table_loads_the_rules_where_the_failure_hook_asks() -> None:
    """The gate a failed command's output passes before the rules load says yes to a table naming a secret: a
    numbered name has no noun right before its ``|``."""
    row = "| PASSWORD_2 | Zx9mQ2vLp8Rt |"
    assert redaction._may_be_changed(row)
    assert PW not in redaction.as_indexed(row, whatever_the_setting=True)


@pytest.mark.unit
def test_a_prompt_pasting_such_a_table_asks_no_search_for_the_secret() -> None:
    """A prompt's words are searched without its secrets: one pasted in a table is no exception."""
    assert "Qw8nB3x" not in redaction.without_secrets("why does this fail?\n| API key | Qw8nB3x9 |")


@pytest.mark.unit
@pytest.mark.parametrize(
    ("html", "shown"),
    [
        ("<th>Password</th><td>Zx9mQ2vLp8Rt</td>", "<th>Password</th><td>[redacted:secret]</td>"),
        (
            '<tr>\n  <td class="k">API key</td>\n  <td><code>Zx9mQ2vLp8Rt</code></td>\n</tr>',
            '<tr>\n  <td class="k">API key</td>\n  <td><code>[redacted:secret]</code></td>\n</tr>',
        ),
        ("<dt>Token</dt><dd>Zx9mQ2vLp8Rt</dd>", "<dt>Token</dt><dd>[redacted:secret]</dd>"),
        ("<td><b>DB password</b></td><td>hunter22</td>", "<td><b>DB password</b></td><td>[redacted:secret]</td>"),
        ('<input value="Zx9mQ2vLp8Rt" type="password">', '<input value="[redacted:secret]" type="password">'),
        ("<INPUT TYPE=password VALUE='Zx9mQ2vLp8Rt' />", "<INPUT TYPE=password VALUE='[redacted:secret]' />"),
    ],
    ids=["th-td", "td-td-in-code", "dt-dd", "weak-password", "input", "input-in-capitals"],
)
def test_a_secret_an_html_table_or_form_gives_is_replaced(html: str, shown: str) -> None:
    assert redact(html) == shown


@pytest.mark.unit
@pytest.mark.parametrize(
    "html",
    [
        "<td>Token</td><td>Required</td>",
        "<td>Name</td><td>Zx9mQ2vLp8Rt</td>",
        '<input type="text" value="Zx9mQ2vLp8Rt">',
        '<input type="password" value="{{ form.password }}">',
        '<input type="password" value="">',
    ],
    ids=["a-word", "not-named", "text-field", "template", "empty"],
)
def test_html_giving_no_secret_comes_out_as_written(html: str) -> None:
    assert redact(html) == html
