"""review51b: the failure gate's narrowed needles (fail51) ask what follows a noun in the text as written, but
``redact.scrub`` reads the text as a terminal shows it too (``text.as_seen``: a zero-width character, a word joiner,
a colour code taken out). ``redaction._may_be_changed`` alone said no to a secret with such a character between its
noun and its sign, where the needle alone said yes before; in such a text the needle alone says yes again.
``as_indexed``, its one caller, also asks it of the text as seen (``_and_as_seen``): the last test pins that path."""

from __future__ import annotations

import pytest

from deja.core import redact, redaction

#: Each holds only narrowed needles, a fake secret, and an unseen character or a colour code where the needle's test
#: looks for the sign or the URL's ``@`` (or inside a discord token): ``scrub`` redacts each.
UNSEEN_BETWEEN = [
    'token\u200b: "Xy7pQ2rT9mLw"',  # pass/pw/secret/token/key: _a_noun_given_a_value
    "cmd --api-key\u2060=Xk9mPq2Lw7",  # --: _a_flag_named_a_secret
    '"auth\x1b[0m": "dXNlcjpYazltUHEyTHc3WnE="',  # auth: _an_auth_given
    "postgres:\x1b[0m//app:Hunter2hunter2@db:5432/app",  # ://, @: _credentials_in_a_url
    "MTk4NjIyNDgzNDcxOTI1MjQ4\u200b.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",  # .: _a_discord_token
]


@pytest.mark.unit
@pytest.mark.parametrize("text", UNSEEN_BETWEEN)
def test_scrub_changes_each(text: str) -> None:
    assert redact.scrub(text) != text


@pytest.mark.unit
@pytest.mark.parametrize("text", UNSEEN_BETWEEN)
def test_the_gate_alone_says_yes_to_a_secret_with_an_unseen_character_before_its_sign(text: str) -> None:
    assert redaction._may_be_changed(text)


@pytest.mark.unit
@pytest.mark.parametrize("text", UNSEEN_BETWEEN)
def test_as_indexed_redacts_a_secret_with_an_unseen_character_before_its_sign(text: str) -> None:
    assert redaction.as_indexed(text, whatever_the_setting=True) == redact.scrub(text) != text
