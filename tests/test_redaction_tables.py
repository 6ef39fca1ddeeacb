"""A secret in a table: Markdown's (``| DB_PASSWORD | … |``, ``| user | password |`` over its rows), a text
table's between ``+---+`` borders (``mysql``'s) and HTML's (``<th>Password</th><td>…</td>``); and an HTML form's
password field. No ``:`` or ``=`` marks a table's value, so each is read as a sentence's is: a value that looks made
(``_looks_made``) is replaced, a word, a type or a placeholder stays."""

from __future__ import annotations

import pytest

from deja.core import redaction
from deja.core.redact import redact

PW = "Zx9mQ2vLp8Rt"
P = pytest.param


@pytest.mark.unit
@pytest.mark.parametrize(
    ("table", "shown"),
    [
        P(
            "| Variable | Value |\n|---|---|\n| DB_HOST | localhost |\n| DB_PASSWORD | Zx9mQ2vLp8Rt |\n",
            "| Variable | Value |\n|---|---|\n| DB_HOST | localhost |\n| DB_PASSWORD | [redacted:secret] |\n",
            id="key-value",
        ),
        P("| Password | `Zx9mQ2vLp8Rt` |", "| Password | `[redacted:secret]` |", id="in-code"),
        P(
            "| **API key** | Zx9mQ2vLp8Rt | the staging key |",
            "| **API key** | [redacted:secret] | the staging key |",
            id="bold-name",
        ),
        P("|`STRIPE_SECRET`|Zx9mQ2vLp8Rt|", "|`STRIPE_SECRET`|[redacted:secret]|", id="no-blanks"),
        P("| **`DB_PASSWORD`** | Zx9mQ2vLp8Rt |", "| **`DB_PASSWORD`** | [redacted:secret] |", id="bold-and-code"),
        P("| Backup token 2 | Zx9mQ2vLp8Rt |", "| Backup token 2 | [redacted:secret] |", id="words-after-the-noun"),
        P("| admin password | hunter22 |", "| admin password | [redacted:secret] |", id="weak-password"),
        P("| PIN password | 48213907 |", "| PIN password | [redacted:secret] |", id="digits-under-a-password"),
        P(
            "| DB_PASSWORD | `Zx9mQ2vLp8Rt` (rotated monthly) |",
            "| DB_PASSWORD | `[redacted:secret]` (rotated monthly) |",
            id="code-then-a-note",
        ),
        P(
            "| user | password | role |\n|:-----|:--------:|------|\n| admin | Zx9mQ2vLp8Rt | owner |\n"
            "| ci | `Qw8nB3xKp7Zs` | deploy |",
            "| user | password | role |\n|:-----|:--------:|------|\n| admin | [redacted:secret] | owner |\n"
            "| ci | `[redacted:secret]` | deploy |",
            id="column",
        ),
        P(
            "| user | password |\n|:-|:-:|\n| admin | **Zx9mQ2vLp8Rt** |",
            "| user | password |\n|:-|:-:|\n| admin | **[redacted:secret]** |",
            id="short-rule-and-bold-value",
        ),
        P(
            "| Name | Value | Notes |\n|---|---|---|\n| stripe secret | sk_Zx9mQ2vLp8Rt | live |",
            "| Name | Value | Notes |\n|---|---|---|\n| stripe secret | [redacted:secret] | live |",
            id="a-value-column",
        ),
        P(
            "| Service | Username | Password |\n| --- | :--- | ---: |\n| Postgres | admin | Zx9mQ2vLp8Rt |",
            "| Service | Username | Password |\n| --- | :--- | ---: |\n| Postgres | admin | [redacted:secret] |",
            id="spaced-rule",
        ),
        P(
            "+-------+--------------+\n| user  | password     |\n+-------+--------------+\n"
            "| admin | Zx9mQ2vLp8Rt |\n+-------+--------------+\n1 row in set",
            "+-------+--------------+\n| user  | password     |\n+-------+--------------+\n"
            "| admin | [redacted:secret] |\n+-------+--------------+\n1 row in set",
            id="mysql",
        ),
        P("  | token | Zx9mQ2vLp8Rt", "  | token | [redacted:secret]", id="no-closing-bar"),
    ],
)
def test_a_secret_a_table_gives_is_replaced_and_the_rest_of_the_table_kept(table: str, shown: str) -> None:
    assert redact(table) == shown


@pytest.mark.unit
@pytest.mark.parametrize(
    "table",
    [
        P(
            "| Field | Type | Notes |\n|---|---|---|\n| password | string | hashed with argon2id |\n| token | required | |",
            id="schema",
        ),
        P("| Field | Type |\n|---|---|\n| signing_key | Ed25519x |\n| api_key | UUIDv4abc |", id="a-type-column"),
        P("| Field | Type |\n| --- | --- |\n| api_key | UUIDv4abc |", id="a-type-column-spaced-rule"),
        P("| signing_key | Ed25519 |\n| Password | argon2id |", id="a-scheme"),
        P("| Password | Notes |\n|---|---|\n| Xq | Zx9mQ2vLp8Rt |", id="a-header-row-gives-no-value"),
        P("| password | correct horse battery staple |", id="prose"),
        P("| password | ${DB_PASSWORD} |\n| token | <your-token> |\n| secret | xxxxxxxx |", id="placeholders"),
        P("| Key | Value |\n|---|---|\n| region | Zx9mQ2vLp8Rt |", id="not-named"),
        P("| password hash | Zx9mQ2vLp8Rt |", id="a-hash"),
        P("| Model | Token |\n|---|---|\n| gpt-4o | 128000 |\n| claude | 200000 |", id="counts"),
        P("cat notes.txt | grep password | Zx9mQ2vLp8Rt", id="a-shell-pipe"),
        P("| a | b |\n| \\| password | Zx9mQ2vLp8Rt |", id="an-escaped-bar"),
        P("| user | password |\n|---|---|\n| admin | [redacted:secret] |", id="already-redacted"),
    ],
)
def test_a_table_giving_no_secret_comes_out_as_written(table: str) -> None:
    assert redact(table) == table


@pytest.mark.unit
@pytest.mark.parametrize(
    "table",
    ["| PASSWORD_2 | Zx9mQ2vLp8Rt |", "| Name | Value |\n|---|---|\n| Token 1 | Zx9mQ2vLp8Rt |"],
)
def test_a_secret_in_a_table_loads_the_rules_where_the_failure_hook_asks(table: str) -> None:
    """The gate a failed command's output passes before the rules load says yes to a table naming a secret, a noun
    with no sign after it too (a number, a word)."""
    assert redaction._may_be_changed(table)
    assert PW not in redaction.as_indexed(table, whatever_the_setting=True)


@pytest.mark.unit
def test_a_prompt_pasting_such_a_table_asks_no_search_for_the_secret() -> None:
    """A prompt's words are searched without its secrets: one pasted in a table is no exception."""
    assert "Qw8nB3x" not in redaction.without_secrets("why does this fail?\n| API key | Qw8nB3x9 |")


@pytest.mark.unit
@pytest.mark.parametrize(
    ("html", "shown"),
    [
        P("<th>Password</th><td>Zx9mQ2vLp8Rt</td>", "<th>Password</th><td>[redacted:secret]</td>", id="th-td"),
        P(
            '<tr>\n  <td class="k">API key</td>\n  <td><code>Zx9mQ2vLp8Rt</code></td>\n</tr>',
            '<tr>\n  <td class="k">API key</td>\n  <td><code>[redacted:secret]</code></td>\n</tr>',
            id="td-td-in-code",
        ),
        P(
            "<td>Password</td>\n<td>\n  Zx9mQ2vLp8Rt\n</td >",
            "<td>Password</td>\n<td>\n  [redacted:secret]\n</td >",
            id="a-cell-on-lines-of-its-own",
        ),
        P("<dt>Token</dt><dd>Zx9mQ2vLp8Rt</dd>", "<dt>Token</dt><dd>[redacted:secret]</dd>", id="dt-dd"),
        P(
            "<td><b>DB password</b></td><td>hunter22</td>",
            "<td><b>DB password</b></td><td>[redacted:secret]</td>",
            id="weak-password",
        ),
        P(
            '<input value="Zx9mQ2vLp8Rt" type="password">',
            '<input value="[redacted:secret]" type="password">',
            id="input",
        ),
        P(
            "<INPUT TYPE=password VALUE='Zx9mQ2vLp8Rt' />",
            "<INPUT TYPE=password VALUE='[redacted:secret]' />",
            id="input-in-capitals",
        ),
        P("<input type=password value=Zx9mQ2vLp8Rt>", "<input type=password value=[redacted:secret]>", id="unquoted"),
        P(
            '<input type="password" defaultValue="Zx9mQ2vLp8Rt" />',
            '<input type="password" defaultValue="[redacted:secret]" />',
            id="react",
        ),
        P(
            "<strong>Password:</strong> Zx9mQ2vLp8Rt",
            "<strong>Password:</strong> [redacted:secret]",
            id="a-label-with-its-colon",
        ),
        P("<b>API key</b>: <code>Zx9mQ2vLp8Rt</code>", "<b>API key</b>: <code>[redacted:secret]</code>", id="a-label"),
        P(
            "<li><strong>Token</strong> \u2014 Zx9mQ2vLp8Rt</li>",
            "<li><strong>Token</strong> \u2014 [redacted:secret]</li>",
            id="a-label-and-a-dash",
        ),
    ],
)
def test_a_secret_an_html_table_or_form_gives_is_replaced(html: str, shown: str) -> None:
    assert redact(html) == shown
    assert redaction._may_be_changed(html)


@pytest.mark.unit
@pytest.mark.parametrize(
    "html",
    [
        P("<td>Token</td><td>Required</td>", id="a-word"),
        P("<td>Name</td><td>Zx9mQ2vLp8Rt</td>", id="not-named"),
        P("<th>Max token</th><td>4096000</td>", id="a-count"),
        P('<input type="text" value="Zx9mQ2vLp8Rt">', id="a-text-field"),
        P('<input type="text" data-type="password" value="Zx9mQ2vLp8Rt">', id="a-data-attribute"),
        P('<input placeholder="value=Zx9mQ2vLp8Rt" type="password" value="">', id="a-placeholder"),
        P('<input type="password" value="{{ form.password }}">', id="a-template"),
        P('<input type="password" value="">', id="empty"),
        P("<b>Password</b> reset Zx9mQ2vLp8Rt", id="a-label-without-a-sign"),
        P("<strong>Password:</strong> required", id="a-label-and-a-word"),
        P("<b>Max token:</b> 128000", id="a-label-and-a-count"),
    ],
)
def test_html_giving_no_secret_comes_out_as_written(html: str) -> None:
    assert redact(html) == html


@pytest.mark.unit
@pytest.mark.parametrize(
    ("said", "shown"),
    [
        P("Password (prod): Zx9mQ2vLp8Rt", "Password (prod): [redacted:secret]", id="a-qualifier"),
        P("API key (staging): `Zx9mQ2vLp8Rt`", "API key (staging): `[redacted:secret]`", id="a-qualifier-in-code"),
        P("- **API key** \u2014 `Zx9mQ2vLp8Rt`", "- **API key** \u2014 `[redacted:secret]`", id="a-dash"),
        P("staging token \u2192 Zx9mQ2vLp8Rt", "staging token \u2192 [redacted:secret]", id="an-arrow"),
        P("New token generated: Zx9mQ2vLp8Rt", "New token generated: [redacted:secret]", id="a-participle"),
        P("Password reset: hunter22", "Password reset: [redacted:secret]", id="a-weak-password"),
        P("Here is your token Zx9mQ2vLp8Rt (keep it)", "Here is your token [redacted:secret] (keep it)", id="here-is"),
    ],
)
def test_a_secret_a_sentence_gives_without_a_verb_is_replaced(said: str, shown: str) -> None:
    """A noun given its value by a qualifier in brackets, a dash, an arrow or a participle (an agent's lists and
    summaries), or after "here is your"."""
    assert redact(said) == shown
    assert redaction._may_be_changed(said)


@pytest.mark.unit
@pytest.mark.parametrize(
    "said",
    [
        P("Max tokens (output): 128000", id="a-count"),
        P("token created: 1714000000", id="a-time"),
        P("token (id): 4f1d2c3b", id="an-attribute"),
        P("- `token` \u2192 `accessToken2`", id="a-rename"),
        P("password -> argon2id", id="a-scheme"),
        P("- fix refresh token - a1b2c3d4e", id="a-commit"),
        P("Password (min 8 chars): required", id="a-word"),
    ],
)
def test_a_sentence_without_a_verb_giving_no_secret_comes_out_as_written(said: str) -> None:
    assert redact(said) == said
