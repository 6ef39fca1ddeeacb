"""The redaction rules compile their module patterns when a text first needs them, not on import: the failure hook
imports the rules for one error's output (its ``:`` passes the gate) and had paid for compiling a dozen patterns
that output never calls on. A pattern used once is put in its own place, so later texts use it directly. A text
that holds no rule's needles loads no ``re`` at all, and a rule's needles (and the run of characters without a
blank it needs) are in every text its pattern matches, so skipping it never changes what comes out."""

from __future__ import annotations

import ast
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from redaction_corpus import SECRETS, code_lines

from deja.core import redact, redaction
from deja.core.redaction import may_name_a_secret, may_name_a_secret_in_english, may_name_a_secret_in_other_words

MODULE_PATTERNS = [
    "_REFERENCE",
    "_FILLER",
    "_WORDS",
    "_KEY_CHARS",
    "_DOTTED_NAME",
    "_IDENTIFIER",
    "_PATH",
    "_SHORT_NUMBER",
    "_ASSIGNMENT",
    "_NOUN_SEP",
    "_ENV_NAME",
    "_BASIC",
    "_CONTEXT_GATE",
]

_PROBE = """
import sys
from deja.core import redact
from deja.core.patterns import Lazy
names = sys.argv[1].split(",")
before = [n for n in names if not isinstance(getattr(redact, n), Lazy)]
loaded = "re" in sys.modules
out = [redact.scrub(text) for text in sys.argv[2:]]
after = [n for n in names if not isinstance(getattr(redact, n), Lazy)]
print(repr({"before": before, "after": after, "out": out, "re": ["re" in sys.modules, loaded]}))
"""


def _fresh(texts: list[str]) -> dict:
    """What a new interpreter compiled on import, what after scrubbing ``texts``, what it made of them, and whether
    ``re`` was loaded then (and before): without ``site`` (the editable install's finder loads ``re``), deja found
    in a folder of its own, as a hook finds it."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "deja").symlink_to(Path(redact.__file__).parents[1])
        probe = f"import sys; sys.path.insert(0, {folder!r})\n{_PROBE}"
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", probe, ",".join(MODULE_PATTERNS), *texts],
            capture_output=True,
            text=True,
            check=True,
        )
    return ast.literal_eval(done.stdout)


@pytest.mark.unit
def test_importing_the_rules_compiles_no_module_pattern() -> None:
    assert _fresh([])["before"] == []


@pytest.mark.unit
def test_an_error_line_and_a_command_without_needles_load_no_re() -> None:
    texts = [
        "error[E0382]: borrow of moved value: `kanupe_pequ`",
        "FAILED tests/test_kanupe_pequ.py::test_kanupe_pequ_roundtrip - AssertionError",
        "go test ./kanupe_pequ/...",
        "ModuleNotFoundError: No module named 'kanupe.pequ'",
    ]
    seen = _fresh(texts)
    assert seen["out"] == texts
    assert seen["after"] == [] and seen["re"] == [False, False]


@pytest.mark.unit
def test_an_accented_prompt_with_a_long_path_loads_no_re() -> None:
    """A prompt with an ellipsis or an accent and a path of 16 characters passes the token gate and must be asked
    the context gate outside ASCII: it is asked with ``str``'s methods, as an ASCII one is (no character of it folds
    into a letter), so it changes nothing and compiles nothing."""
    texts = [
        "So the hook component reducer from src/vojegu_ziba.py some…",
        "Pourquoi le café de src/kanupe_pequ.py plante-t-il après la mise à jour ?",
    ]
    seen = _fresh(texts)
    assert seen["out"] == texts
    assert seen["after"] == [] and seen["re"] == [False, False]


@pytest.mark.unit
def test_a_text_with_a_letter_folded_outside_ascii_is_asked_by_the_gate() -> None:
    seen = _fresh(["start rediſ-server with src/kanupe_pequ.py"])
    assert seen["after"] == ["_CONTEXT_GATE"]


@pytest.mark.unit
def test_a_text_with_a_rules_needle_loads_re_to_ask_the_rule() -> None:
    seen = _fresh(["could not connect to postgres://app:Hunter2hunter2@db:5432/app"])
    assert seen["out"] == ["could not connect to postgres://app:[redacted:url-credentials]@db:5432/app"]
    assert seen["re"] == [True, False]


#: Pieces of secrets and of what rules look for around them, so random texts hold near-misses and matches.
PIECES = [
    *"aAzZ09_-.:/@=<>'\"` \t\n[]",
    "://", "-u ", "--user=", "--password ", "<password>", "</password>", "AKIA", "ASIA", "AIDA", "A", "M", "N",
    "xxxxxxxxxxxxxxxxxxxxxxxx", "abcdef", "0123456789abcdef0123456789", "@db", "pw", "ENV ", "sk-", "ghp_",
]  # fmt: skip


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 30))) for _ in range(count)]


def _discord_like(count: int, seed: int) -> list[str]:
    """Texts around the discord token's shape: three dotted parts of about the lengths it needs, some blanks in."""
    rng = random.Random(seed)
    alphabet = "aZ9_-"
    texts = []
    for _ in range(count):
        parts = [rng.choice("MNOx") + "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 29)))]
        parts += [
            "".join(rng.choice(alphabet + " ") for _ in range(n)) for n in (rng.randint(5, 7), rng.randint(25, 42))
        ]
        texts.append(".".join(parts))
    return texts


def _needles_in_every_match() -> list[redact.Rule]:
    """The rules whose needles (and run) are what every match of theirs holds, not the context a secret needs around
    it (``aws-secret``'s ``AKIA``): a text without them is not asked, so it must hold no match."""
    by_kind = [rule for rule in redact._TOKEN_RULES if rule.kind in ("aws-key", "discord-bot-token")]
    return [*by_kind, redact._CONTEXT_RULES[0], redact._CONTEXT_RULES[2], *redact._KEY_RULES[:2]]


@pytest.mark.unit
def test_a_rule_matches_only_texts_holding_its_needles_and_its_run() -> None:
    texts = [secret.text for secret in SECRETS] + [line for _, line in code_lines()]
    texts += _random_texts(20_000, seed=5) + _discord_like(5_000, seed=6)
    for rule in _needles_in_every_match():
        matched = [text for text in texts if rule.pattern.search(text)]
        assert matched, rule.regex  # (the texts do hold matches: the check below is not vacuous)
        for text in matched:
            assert redact._holds(text, text.lower(), rule.needles), (rule.regex, text)
            assert redaction.longest_run(text) >= rule.run, (rule.regex, text)


@pytest.mark.unit
def test_the_longest_run_is_what_the_pattern_finds() -> None:
    for text in [*_random_texts(5_000, seed=7), "", " ", "a" * 16, "\u2003" + "b" * 15 + "\x1c"]:
        runs = [len(run) for run in re.findall(r"\S+", text)]
        assert redaction.longest_run(text) == max(runs, default=0), repr(text)


@pytest.mark.unit
def test_a_secret_assignment_is_redacted_and_its_patterns_then_take_their_place() -> None:
    seen = _fresh(['db: password = "Hunter2hunter2"', 'token: "Xy7pQ2rT9mLw"'])
    assert seen["out"] == ['db: password = "[redacted:secret]"', 'token: "[redacted:secret]"']
    assert {"_ASSIGNMENT", "_NOUN_SEP"} <= set(seen["after"])


@pytest.mark.unit
def test_a_used_pattern_is_the_compiled_one_in_the_module() -> None:
    redact.scrub('password = "Hunter2hunter2"')
    assert isinstance(redact._ASSIGNMENT, re.Pattern)


#: Pieces of sentences naming a secret, so random texts hold the sentence rule's matches and near-misses.
SENTENCE_PIECES = [
    "the ", "password", "pw", "token", "api key", "secret", " is", " was", " for ", " now", "prod db", ":", "=", " ",
    "use ", "passphrase ", "login", "log in", " with ", " as ", "admin", "creds are ", "credentials were ", "\t",
    "Xy7#kq9!Lm", "8f14e45fceea167a", "hunter7hunter7", "wrong", "`", ".", "IS", "PASSWORD", "Use ",
    "the admin password is ", "The API token was ", "password for prod db: ", "use passphrase ", "login with admin:",
    "creds are bob:", "Xy7#kq9!Lm", "8f14e45fceea167a", "hunter7hunter7",
    "**", "s", "'s ", "\u2019s ", " are", " were", " to ", " the db", "\u00a0", "\n", "(", ")", "*", "keys",
    "\\n", "\\r\\n", " and ", ", ", " / ", "**required**",
    " (prod): ", " (", "):", " \u2014 ", " \u2192 ", " - ", " -> ", " -- ", " generated: ", " rotated:", "here is your ",
    "here's the ", "Password (staging): ", "- **API key** \u2014 ",
]  # fmt: skip


#: Pieces of sentences naming a secret in other languages, or as a pair, with their near-misses.
OTHER_PIECES = [
    "le ", "mot de passe", "Passwort", "Datenbankkennwort", "contraseña", "contrasena", "senha", "password",
    "token", "wachtwoord", "clé API", "Schlüssel", "пароль", "Токен", "密码", "令牌", "パスワード", "APIキー", "비밀번호",
    "토큰", "API 키", "creds", "credentials", " de la base", " del servidor", " est", " ist", " lautet", " es", " é",
    " è", " e'", " is", " was", " war", " luidt", " —", " это", "是", "为", "は", "는", "：", ":", "=", " ", "\t", "/",
    " / ", " are ", "deploy", "「", "」", "です", "Kx9#mPq2Lw", "8f14e45fceea167a", "incorrect", "abgelaufen", "错误",
    "İ", "/etc/app", "Sakura-Himitsu-77", ".", "»", "«", "le mot de passe de la base est ", "das Passwort ist ",
    "la contraseña es ", "il token è ", "la password è ", "het wachtwoord is ", "Пароль: ", "数据库密码是", "パスワードは ", "비밀번호는 ",
    "creds are deploy / ", "Kx9#mPq2Lw", "Sakura-Himitsu-77", " dell'api", " " + "abcdefghij" * 3 + "k",
    "\u00a0", "\u202f", "\n", "\r\n", " c'est ", " c\u2019est", "« ", " »", "„", "“", " ist\t", " est\n",
]  # fmt: skip


@pytest.mark.unit
@pytest.mark.parametrize(
    ("pieces", "rule", "gate"),
    [
        (SENTENCE_PIECES, "_sentences", may_name_a_secret_in_english),
        (OTHER_PIECES, "_in_other_words", may_name_a_secret_in_other_words),
    ],
    ids=["english", "other"],
)
def test_a_secret_named_in_a_sentence_is_found_only_in_texts_its_gate_lets_through(
    pieces: list[str], rule: str, gate: Callable[[str], bool]
) -> None:
    """A sentence rule (English's, and the one for other languages and pairs) runs on a text its gate lets through,
    and ``may_name_a_secret`` (both gates) decides whether a hook imports the rules: every text a rule matches must
    pass its gate."""
    rng = random.Random(8)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))) for _ in range(20_000)]
    texts += [secret.text for secret in SECRETS] + [line for _, line in code_lines()]
    matched = [text for text in texts if getattr(redact, rule)(text) != text]
    assert len(matched) > 500  # (the texts do hold secrets the rule finds: the check below is not vacuous)
    for text in matched:
        assert gate(text.lower()) and may_name_a_secret(text.lower()), text


@pytest.mark.unit
@pytest.mark.parametrize(
    "line",
    [
        "error on line 3 of the build log",
        "build failed for catalog",
        "tests passed on linux",
        "No module named keyring on this host",
        "SyntaxError: Unexpected token < in JSON at position 0",
        "bypass the cache for tokenizer tests",
        "the passwordless sign-up flow is broken",
    ],
)
def test_an_ordinary_error_line_does_not_pass_the_sentence_gate(line: str) -> None:
    """The gate saves a failed command's hook importing the rules and ``re``: a noun inside a longer word
    (``passed``, ``catalog``, ``keyring``, ``tokenizer``, ``passwordless``) names no secret."""
    assert not may_name_a_secret(line.lower())


@pytest.mark.unit
@pytest.mark.parametrize(
    "line",
    [
        "tests passed: 3, failed: 0",
        "FAILED tests/test_auth.py::test_login - AssertionError: assert 401 == 200",
        "error: could not read Username for 'https://github.com': terminal prompts disabled",
        "Traceback (most recent call last): KeyError: 'token_type'",
        "npm ERR! code E401 npm ERR! Unable to authenticate, your authentication token seems to be invalid.",
    ],
)
def test_an_ordinary_error_line_names_no_secret_in_other_words(line: str) -> None:
    """A failed command's hook imports no rules (and no ``re``) for an error line no secret is named in."""
    assert not may_name_a_secret_in_other_words(line.lower())


@pytest.mark.unit
def test_the_needles_the_failure_gate_asks_for_are_the_keyed_rules_and_the_assignments_own() -> None:
    """``redaction.KEYED_NEEDLES`` are the needles of every rule a separator lets a text be asked: each of those
    rules has some (one without would run on every such text, and the gate could skip none)."""
    from deja.core import redaction

    assert all(rule.needles for rule in redact._KEYED_RULES)
    own = {needle for rule in redact._KEYED_RULES for needle in rule.needles} | set(redaction.SECRET_NOUNS)
    assert set(redaction.KEYED_NEEDLES) == own and len(redaction.KEYED_NEEDLES) == len(own)


@pytest.mark.unit
def test_the_needles_the_token_gate_asks_for_are_the_token_rules_own() -> None:
    """``redaction.TOKEN_NEEDLES`` are the needles of every rule a run of 16 characters lets a text be asked, each
    with the shortest run its rules need (``TOKEN_RUNS``): each of those rules has some (one without would run on
    every such text, and the gate could skip none)."""
    from deja.core import redaction

    assert all(rule.needles for rule in redact._TOKEN_RULES)
    runs: dict[str, int] = {}
    for rule in redact._TOKEN_RULES:
        for needle in rule.needles:
            runs[needle] = min(runs.get(needle, rule.run), rule.run)
    assert set(redaction.TOKEN_NEEDLES) == set(runs) and len(redaction.TOKEN_NEEDLES) == len(runs)
    assert {needle: run for needle, run in runs.items() if run} == redaction.TOKEN_RUNS


ERROR_PIECES = [
    *PIECES, *SENTENCE_PIECES, "error[E0382]: borrow of moved value: `x`", "E   ModuleNotFoundError: ", "\n",
    "10:00:01 ", "db.local:5432:*:app:", "basic ", "docker login", "password", "token ", " is ", "Error: ", "::", "\\",
]  # fmt: skip


@pytest.mark.unit
def test_a_text_the_failure_gate_lets_pass_unimported_comes_back_from_the_rules_as_it_was() -> None:
    """What ``as_indexed`` no longer imports the rules for (``redaction._may_be_changed`` says no) is what they leave
    as it was: secrets, code, random texts of the rules' needles and separators, and error lines."""
    from deja.core import redaction

    rng = random.Random(11)
    texts = [secret.text for secret in SECRETS] + [line for _, line in code_lines()]
    texts += _random_texts(20_000, seed=7)
    texts += ["".join(rng.choice(ERROR_PIECES) for _ in range(rng.randrange(0, 12))) for _ in range(20_000)]
    texts += [f"{text.replace('s', 'ſ')} café…" for text in texts[-5_000:]]  # (outside ASCII: the gate's own case)
    skipped = [text for text in texts if not redaction._may_be_changed(text)]
    assert len(skipped) > 5_000  # (not vacuous: many texts skip the rules)
    for text in skipped:
        assert redact.scrub(text) == text, repr(text)
    assert not redaction._may_be_changed("error[E0382]: borrow of moved value: `kanupe_pequ`")
    assert not redaction._may_be_changed("fatal: not a git repository (or any of the parent directories): .git")
    assert not redaction._may_be_changed("E   ModuleNotFoundError: No module named 'api.cache'")  # (no token's needle)
    assert redaction._may_be_changed("E   ModuleNotFoundError: No module named 'ghost.cache'")  # (``gh``'s rule)


@pytest.mark.unit
def test_the_rules_due_for_a_text_are_those_whose_needles_it_holds_whatever_their_sentinels() -> None:
    """``redact._Needles.due`` looks for a group of needles only where their rarest character (``_rarest``) is: the
    rules it gives are still those whose needles the text holds (``_holds``), in their order, for secrets, code,
    every needle in several cases and random texts of needles and their characters."""
    groups = (redact._TOKEN_NEEDLES, redact._KEYED_NEEDLES)
    needles = [
        needle
        for group in groups
        for held in (group.in_lowered, group.as_written)
        for _, of in held
        for needle, _ in of
    ]
    assert set(needles) == {needle for group in groups for rule in group.rules for needle in rule.needles}
    # (the characters sorted: a set's order follows PYTHONHASHSEED, and each run drew other texts from it, flake61)
    pieces = [*needles, *sorted({c for needle in needles for c in needle}), " ", "x", "\n"]
    rng = random.Random(15)
    texts = [
        *(secret.text for secret in SECRETS),
        *(line for _, line in code_lines()),
        *(variant for needle in needles for variant in (needle, needle.upper(), f"a {needle.lower()} b", needle[:-1])),
        *("".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)),
    ]
    for text in texts:
        for group in groups:
            held = [rule for rule in group.rules if redact._holds(text, text.lower(), rule.needles)]
            assert group.due(text, text.lower()) == held, text


@pytest.mark.unit
def test_every_sentence_noun_is_looked_for_under_a_stem_it_holds() -> None:
    """``may_name_a_secret_in_english`` looks for a noun only in a text holding its stem (``_NOUNS_BY_STEM``): a noun
    under no stem would never be looked for, and a stem it does not hold could hide it."""
    grouped = [(stem, noun) for stem, nouns in redaction._NOUNS_BY_STEM for noun in nouns]
    assert sorted(noun for _, noun in grouped) == sorted(redaction.SENTENCE_NOUNS)
    assert all(stem in noun for stem, noun in grouped)
    for noun in redaction.SENTENCE_NOUNS:
        assert may_name_a_secret_in_english(f"the {noun} is x"), noun
