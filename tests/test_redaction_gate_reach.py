"""The gate for a secret named in other words finds a verb after "token" or "password" within its reach, however
many times the noun comes (a lexer's chat), as the definition reads: each window from a noun on, raw or with its
blanks read as spaces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core.redaction import _BLANKS, ACCENTED_VERBS, OTHER_VERBS, SHARED_REACH, _verb_after

#: (several nouns at once, so that a text may say one more often than there are verbs: both ways of looking run)
PIECES = ["token", "password", " est ", " es ", " é ", "x" * 40, " ", "\t", "\n", "\u00a0", "tok", " e", "st ",
          "token " * 6, "password " * 6]  # fmt: skip


def _defined(lowered: str, noun: str, verbs: tuple[str, ...]) -> bool:
    """The rule as written: a verb in the SHARED_REACH characters that begin at some noun."""
    for at in range(len(lowered)):
        if lowered.startswith(noun, at):
            reach = lowered[at : at + SHARED_REACH]
            if any(verb in reach or verb in reach.translate(_BLANKS) for verb in verbs):
                return True
    return False


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_a_verb_within_reach_of_any_noun_is_found_as_defined(text: str) -> None:
    for noun, verbs in (("token", OTHER_VERBS), ("password", ACCENTED_VERBS)):
        assert _verb_after(text, noun, verbs) == _defined(text, noun, verbs), (noun, text)


def test_the_edges_of_the_reach() -> None:
    verb = " est "
    inside = "token" + "x" * (SHARED_REACH - len("token") - len(verb)) + verb
    for said_often in ("", "token " * 30 + "y" * SHARED_REACH):  # (a noun said once, or more often than the verbs)
        assert _verb_after(said_often + inside, "token", OTHER_VERBS)
        assert not _verb_after(said_often + "token" + "x" + inside[5:], "token", OTHER_VERBS)  # one character too far
        assert not _verb_after(said_often + " est token", "token", OTHER_VERBS)  # before the noun
        assert _verb_after(said_often + "token\test\tok", "token", OTHER_VERBS)  # blanks read as spaces


class _Counted(str):
    """A text that counts the searches made in it (``find``), the gate's steps: the same on any machine."""

    finds = 0

    def find(self, *args: object) -> int:  # type: ignore[override]
        type(self).finds += 1
        return super().find(*args)  # type: ignore[arg-type]


def test_a_text_of_many_verbs_and_a_few_nouns_far_before_them_is_not_looked_at_verb_by_verb() -> None:
    """Spanish around a lexer's code: more "token" than there are verbs, then a megabyte of " es" with none in reach
    of them. Looked at from each verb back (the first cut of this gate), a million searches and 0.8 s of CPU for 3 MB;
    from verb to noun and back, a few searches a verb."""
    text = _Counted("token " * 20 + "y" * SHARED_REACH + " es" * 1_000_000)
    assert not _verb_after(text, "token", OTHER_VERBS)
    assert _Counted.finds <= 3 * len(OTHER_VERBS)
