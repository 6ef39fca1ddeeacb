"""A secret stored with an invisible character inside it is redacted as a terminal shows it (review47a M2).

``AKIA\\u200bIOSF…``, a ``ghp_`` token with a word joiner in it, a password after ``mysql -p`` or ``password=``
holding an RLM, a Bearer header holding a BOM: the rules read each as two words and kept it, and ``deja show``, which
takes the character out, printed the secret whole. Each invisible character inside each shape of secret is written
into a cursor-agent chat with the project's writers under a fake HOME, indexed by ``deja``, and looked for, as a
person would read it, in ``show``, ``show --json``, ``search``, ``export`` and the index's own bytes. What is no
secret keeps its characters as stored: an emoji's joiners, a flag's tags, the marks of right-to-left text.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from harness import index_cli_root, run_deja
from test_redaction import files_under

from deja.core.redaction import as_indexed, searched_words, without_secrets
from deja.core.text import as_seen
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, turn_ended, user_turn, write_transcript

CHAT = "5e5e0047-0000-4000-8000-00000000a247"
#: Each shape of secret: the line it is pasted in and the secret, which the invisible character goes in the middle of.
SHAPES = {
    "aws": ("the kumquat bucket uses {} for s3", "AKIAIOSFODNN7EXAMPLE"),
    "github": ("kumquat push with {} failed", "ghp_R8c2Kq7LmX4vN9pZ3tW6yB1dF5gH0jS2uE8a"),
    "mysql": ("kumquat db: mysql -u root -p{} shop", "S3cretPassw0rd99"),
    "password": ("kumquat settings password={}", "hunter2Secret77x"),
    "bearer": ("kumquat curl -H 'Authorization: Bearer {}' https://api.example.com", "a9f8e7d6c5b4a3928170f6e5d4c3"),
}
#: What a terminal shows as nothing: the directional marks, the word joiner, the zero-width space and joiners, the
#: soft hyphen, a BOM, a tag character, DEL, and a colour code's escape sequence.
UNSEEN = {
    "RLM": "\u200f",
    "LRM": "\u200e",
    "WJ": "\u2060",
    "ZWSP": "\u200b",
    "ZWJ": "\u200d",
    "ZWNJ": "\u200c",
    "SHY": "\u00ad",
    "BOM": "\ufeff",
    "tag": "\U000e0041",
    "DEL": "\x7f",
    "ESC": "\x1b[1m",
}
#: A password named in a sentence, the invisible character inside its name: no rule's gate saw "password".
NAMED = "kumquat: the pass{}word is Tr0ub4dor7"
NAMED_SECRET = "Tr0ub4dor7"
#: What is no secret, stored with such characters: kept as it is.
KEPT = [
    "kumquat family \U0001f468\u200d\U0001f469\u200d\U0001f467 and the flag \U0001f3f4\U000e0067\U000e0062"
    "\U000e0073\U000e0063\U000e0074\U000e007f",
    "kumquat \u05e9\u05dc\u05d5\u05dd\u200f \u05e2\u05d5\u05dc\u05dd\u200e and \u0645\u0631\u062d\u0628\u0627\u061c"
    " \u0628\u0643\u200c\u0645",
    "kumquat \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 soft\u00adhyphenated word\u2060joined",
]


def _inside(secret: str, char: str) -> str:
    middle = len(secret) // 2
    return secret[:middle] + char + secret[middle:]


LINES = [template.format(_inside(secret, char)) for template, secret in SHAPES.values() for char in UNSEEN.values()]


def _pieces(secret: str) -> set[str]:
    """What of a secret must not show: itself and each half (the character went between them), lowercased too."""
    middle = len(secret) // 2
    return {piece for part in (secret, secret[:middle], secret[middle:]) for piece in (part, part.lower())}


def leaks(shown: str) -> list[str]:
    """Each secret a person reads in ``shown``: read without the characters a terminal does not show."""
    read = shown
    for char in UNSEEN.values():
        read = read.replace(char, "")
    found = [name for name, (_, secret) in SHAPES.items() if any(piece in read for piece in _pieces(secret))]
    return [*found, "named"] if NAMED_SECRET in read else found


def _strings(value: object) -> str:
    """Every string in a JSON document, one a line: what a program reading the ``--json`` gets."""
    if isinstance(value, str):
        return value + "\n"
    if isinstance(value, dict):
        return "".join(map(_strings, value.values()))
    if isinstance(value, list):
        return "".join(map(_strings, value))
    return ""


@pytest.fixture
def env(tmp_path: Path, fake_home: Path) -> dict[str, str]:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    cli = tmp_path / "cli"
    turns = [turn for line in [*LINES, *KEPT] for turn in (user_turn(line), assistant_turn("noted"))]
    write_transcript(transcript_path(cli, str(project), CHAT), [*turns, turn_ended()])
    return {**index_cli_root(tmp_path, cli), "HOME": str(fake_home)}


def _deja(env: dict[str, str], *args: str) -> str:
    done = run_deja(*args, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


SEARCH = ("search", "kumquat", "--session", CHAT[:8], "-n", "200")


def _texts(env: dict[str, str]) -> list[str]:
    """The questions of the chat, as ``show --json`` gives them."""
    shown = json.loads(_deja(env, "show", CHAT[:8], "-n", "200", "--json"))
    return [message["text"] for message in shown["messages"] if message["role"] == "user"]


def test_no_secret_with_an_invisible_character_inside_shows_anywhere(tmp_path: Path, env: dict[str, str]) -> None:
    answers = {
        "show": _deja(env, "show", CHAT[:8], "-n", "200"),
        "export": _deja(env, "export", CHAT[:8]),
        "search": _deja(env, *SEARCH),
        **{
            f"search {words}": _deja(env, "search", words)
            for words in ("kumquat bucket s3", "kumquat push failed", "mysql root shop", "settings", "curl api")
        },
    }
    for args in (("show", CHAT[:8], "-n", "200"), ("export", CHAT[:8]), SEARCH):
        answers[f"{args[0]} --json"] = _strings(json.loads(_deja(env, *args, "--json")))
    for path, data in files_under(Path(env["DEJA_HOME"])):
        answers[str(path)] = data.decode("utf-8", "replace")
    assert {how: found for how, shown in answers.items() if (found := leaks(shown))} == {}
    texts = _texts(env)
    assert len(texts) == len(LINES) + len(KEPT)
    assert all("[redacted:" in text and text.startswith(line[:12]) for text, line in zip(texts, LINES, strict=False))


def test_what_is_no_secret_keeps_its_invisible_characters(env: dict[str, str]) -> None:
    assert _texts(env)[len(LINES) :] == KEPT


@pytest.mark.parametrize("name", list(UNSEEN))
def test_a_secret_typed_with_an_invisible_character_is_no_word_and_no_echo(name: str, fake_home: Path) -> None:
    """What a person types (a search, a prompt, an error a hook looks up) passes the same gates as the index's text."""
    for template, secret in SHAPES.values():
        typed = template.format(_inside(secret, UNSEEN[name]))
        assert not leaks(as_indexed(typed, whatever_the_setting=True)), typed
        assert not leaks(without_secrets(typed)), typed
    named = NAMED.format(UNSEEN[name])
    assert not leaks(as_indexed(named, whatever_the_setting=True)) and not leaks(without_secrets(named)), named
    token = _inside(SHAPES["github"][1], UNSEEN[name])
    assert not leaks(searched_words(f"why {token}"))


def test_a_text_without_invisible_characters_is_read_as_written() -> None:
    assert as_seen("kumquat\tpassword=hunter2\r\n\u00e9t\u00e9 \u05e9\u05dc\u05d5\u05dd") == ("", [])
    assert as_seen("a\u200bb\x1b[31mc\U000e0041d") == ("abcd", [0, 2, 8, 10, 11])
    # (only what is next to ASCII: an emoji's joiners, a Persian word's are read as they are; a Hebrew mark or a
    # colour code before a blank is read through, and what is no secret is kept as stored)
    assert as_seen("\U0001f468\u200d\U0001f469 \u0645\u06cc\u200c\u062e") == ("", [])
    from deja.core.redact import scrub

    kept = " ".join(KEPT) + " \x1b[32mPASSED\x1b[0m ok \u05e9\u05dc\u05d5\u05dd\u200f ok"
    assert as_seen(kept)[0] and scrub(kept) == kept


def test_a_long_run_of_invisible_characters_is_read_once() -> None:
    """A run with no ASCII character after it was read again from each of its characters: a megabyte of tag
    characters did not finish in ten minutes. Budgeted far above the 0.1 s it takes."""
    from deja.core.redact import scrub

    text = "x" + "\U000e0041" * 300_000 + " AKIA\u200bIOSFODNN7EXAMPLE"
    started = time.perf_counter()
    assert scrub(text).endswith(" [redacted:aws-key]")
    assert time.perf_counter() - started < 5


#: A secret beside a blank with an invisible character between them (review47i H1), and one with an escape sequence
#: other than a colour code inside it (review47i M1): the line, its secret, and what is kept before the secret.
AROUND = [
    ("kumquat one: my db password\u2060 is {}", "Tr0ub4dor7"),
    ("kumquat two: password\u200b = {}", "hunter2Secret77x"),
    ("kumquat three: export AWS_SECRET_ACCESS_KEY=\u200b {}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("kumquat four: key {}", _inside("AKIAIOSFODNN7EXAMPLE", "\x1b7")),
    ("kumquat five: key {} ok", _inside("AKIAIOSFODNN7EXAMPLE", "\x1b(B")),
    ("kumquat six: push {} now", _inside(SHAPES["github"][1], "\x1b]8;;http://x\x1b\\")),
    ("kumquat seven: push {} now", _inside(SHAPES["github"][1], "\x1b]0;title\x07")),
]


def _around_pieces(secret: str) -> set[str]:
    """What of a secret must not show: itself and either half, the escape inside it taken out."""
    for escape in ("\x1b7", "\x1b(B", "\x1b]8;;http://x\x1b\\", "\x1b]0;title\x07"):
        if escape in secret:
            return _pieces(secret.replace(escape, ""))
    return _pieces(secret)


def _around_leaks(shown: str) -> list[str]:
    return [secret for _, secret in AROUND if any(piece in shown for piece in _around_pieces(secret))]


def test_a_secret_beside_a_blank_or_with_an_escape_inside_shows_nowhere(tmp_path: Path, fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    cli = tmp_path / "cli"
    lines = [template.format(secret) for template, secret in AROUND]
    turns = [turn for line in lines for turn in (user_turn(line), assistant_turn("noted"))]
    write_transcript(transcript_path(cli, str(project), CHAT), [*turns, turn_ended()])
    env = {**index_cli_root(tmp_path, cli), "HOME": str(fake_home)}
    answers = {
        "show": _deja(env, "show", CHAT[:8], "-n", "200"),
        "search": _deja(env, *SEARCH),
        "show --json": _strings(json.loads(_deja(env, "show", CHAT[:8], "-n", "200", "--json"))),
    }
    assert {how: found for how, shown in answers.items() if (found := _around_leaks(shown))} == {}
    texts = _texts(env)
    assert all("[redacted:" in text and text.startswith(line[:16]) for text, line in zip(texts, lines, strict=True))


@pytest.mark.parametrize(("template", "secret"), AROUND)
def test_a_secret_typed_beside_a_blank_or_with_an_escape_inside_is_no_echo(template: str, secret: str) -> None:
    typed = template.format(secret)
    assert not _around_leaks(as_indexed(typed, whatever_the_setting=True)), typed
    assert not _around_leaks(without_secrets(typed)), typed
    if "password\u2060 is" not in template:  # (no query gate takes a password named in a sentence, written plainly too)
        assert not _around_leaks(" ".join(searched_words(typed))), typed


#: A control a terminal moves its cursor down for after a secret (review47i L3): what follows it is no part of the
#: secret. (A backspace is no blank to the rules as written: ``hunter2xx\\x08PATH=…`` is one value to them.)
MOVED = [
    f"kumquat {name}: DB_PASSWORD=hunter2xx{control}PATH=/usr/bin"
    for name, control in [("vt", "\x0b"), ("ff", "\x0c"), ("nel", "\x85"), ("zwsp-vt", "\u200b\x0b")]
]


def test_what_follows_a_secret_after_a_control_that_moves_the_cursor_is_kept(tmp_path: Path, fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    cli = tmp_path / "cli"
    turns = [turn for line in MOVED for turn in (user_turn(line), assistant_turn("noted"))]
    write_transcript(transcript_path(cli, str(project), CHAT), [*turns, turn_ended()])
    env = {**index_cli_root(tmp_path, cli), "HOME": str(fake_home)}
    for text, line in zip(_texts(env), MOVED, strict=True):
        assert "hunter2xx" not in text and text.endswith("[redacted:secret]" + line[-14:])
    shown = _deja(env, "show", CHAT[:8], "-n", "200")
    assert "hunter2xx" not in shown and shown.count("\nPATH=/usr/bin") == 4
