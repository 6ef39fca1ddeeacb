"""The build's faster ways give what the pattern-per-text ways gave: the same terms, the same redaction gates'
answers, and so the same segments byte for byte.

Each shortcut is checked against the way it replaced on random texts (the characters tokens and secrets are made
of, the ASCII ones that part them, Unicode that lowers or folds oddly) and on the redaction corpus; then a whole
build with every shortcut is checked against one with the old ways put back, file by file.
"""

from __future__ import annotations

import random
import re
import sys
from itertools import chain
from pathlib import Path

import pytest
from harness import Sample
from redaction_corpus import SECRETS, code_lines
from test_build import _split_build, many  # noqa: F401  (the fixture)

from deja.core import redact, redaction
from deja.core import text as text_module
from deja.core.index import index_dir, read_manifest
from deja.core.indexer import refresh
from deja.core.readers import conversation, projects
from deja.core.readers.cursor_agent import read_cli_chat
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

#: What texts are made of here: letters, digits, every joiner, underscores, ASCII that parts tokens, the
#: separators the gates look for, whitespace ASCII and not, and letters whose case is odd (the long s, the dotted
#: capital I, Kelvin, final sigma), accents, CJK.
_ALPHABET = [
    *"abcXYZ019_./-:#@ \t\n,;!?()[]{}\"'=<>`~|\\$%^&*+",
    "--",
    "ENV ",
    "ENV\t",
    " -p",
    "basic ",
    "BaSiC\n",
    "ba\u017fic ",  # long s: matches "s" case-insensitively, lowers to itself
    "\u0130",
    "\u212a",
    "\u03a3",
    "\u00e9",
    "e\u0301",
    "\u4e2d\u6587",
    "\u00a0",
    "\u2028",
    "\x1c",
    "\u2014",
    "fetchUser",
    "HTTPServer",
    "src/app.py",
    "cache_key",
    "__init__",
    "a" * 16,
    # netrc's words: a password after the first machine or default, with a blank after it (``a_netrc_entry``).
    "machine ",
    "machine",
    "default\x1c",
    "password",
]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 40))) for _ in range(count)]


def _corpus() -> list[str]:
    return [secret.text for secret in SECRETS] + [line for _, line in code_lines()]


def _terms_by_pattern(text: str) -> list[str]:
    """What ``terms`` gave before pieces: the pattern's raw tokens of the whole text (its accents composed first:
    ``text.composed``), each token's terms."""
    composed = text_module.composed(text)
    return list(chain.from_iterable(map(text_module.token_terms, re.findall(text_module.RAW_PATTERN, composed))))


@pytest.mark.unit
def test_a_texts_terms_are_its_pattern_tokens_terms() -> None:
    text_module.forget_cached_terms()
    for text in _texts(4000, 15) + _corpus():
        assert text_module.terms(text) == _terms_by_pattern(text), repr(text)


@pytest.mark.unit
def test_a_text_is_cut_into_pieces_as_str_translate_cuts_it() -> None:
    every_character = ["".join(map(chr, range(256))), *map(chr, range(256))]
    for text in _texts(4000, 18) + _corpus() + every_character:
        assert text_module._apart(text) == text.translate(text_module._APART), repr(text)


@pytest.mark.unit
def test_terms_stay_the_same_when_the_piece_cache_fills_midway(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_module, "_CACHE_LIMIT", 5)
    text_module.forget_cached_terms()
    texts = _texts(300, 16)
    for text in texts + texts:
        assert text_module.terms(text) == _terms_by_pattern(text), repr(text)
    assert len(text_module._PIECES) <= 5


@pytest.mark.unit
def test_the_redaction_gates_answer_as_their_patterns_do() -> None:
    token_gate, context_gate = re.compile(redaction.TOKEN_GATE), re.compile(redaction.CONTEXT_GATE)
    texts = _texts(20000, 17) + _corpus()
    for text in texts:
        assert redact._token_gate(text, text.lower(), redact.longest_run(text)) == bool(token_gate.search(text)), repr(
            text
        )
        assert redact._context_gate(text) == bool(context_gate.search(text)), repr(text)
    # Both answers come up often in these texts: neither check is vacuous.
    assert 0.1 < sum(bool(token_gate.search(t)) for t in texts) / len(texts) < 0.9
    assert 0.1 < sum(bool(context_gate.search(t)) for t in texts) / len(texts) < 0.9


#: Non-ASCII texts without a separator that decides the context gate alone (``:=<'``, ``--``): what the gates ask of
#: an accented prompt, with the gates' words in every case and the characters that fold into them.
_WIDE = [
    *"abc XYZ\t\n.é…中",
    "\u00a0",
    "\u2003",
    "\u0130",
    "\u0131",
    "\u017f",
    "\u212a",
    "basic ",
    "BASIC\u00a0",
    "ba\u017fic ",
]
_WIDE += [
    "redis-",
    "REDIS-",
    "redi\u017f-",
    "red\u0131s-",
    "requirepass",
    "requ\u0130repass",
    "masterauth",
    "ma\u017fterauth",
]
_WIDE += ["define(", "DEFINE (", "def\u0131ne(", "ENV ", " -p", "\u2003-p", "login ", "\tTRUE\t", "a" * 16]


@pytest.mark.unit
def test_the_redaction_gates_answer_as_their_patterns_do_outside_ascii() -> None:
    """An accented text is asked as an ASCII one is unless it holds a character that folds into a letter (the long
    s, the dotless i, Kelvin): the gates' answers are the patterns' all the same."""
    token_gate, context_gate = re.compile(redaction.TOKEN_GATE), re.compile(redaction.CONTEXT_GATE)
    rng = random.Random(19)
    texts = ["".join(rng.choice(_WIDE) for _ in range(rng.randrange(1, 12))) for _ in range(20000)]
    texts = [text for text in texts if not text.isascii()]
    for text in texts:
        longest = redact.longest_run(text)
        assert redact._token_gate(text, text.lower(), longest) == bool(token_gate.search(text)), repr(text)
        assert redact._context_gate(text) == bool(context_gate.search(text)), repr(text)
    for gate in (token_gate, context_gate):  # both answers come up: neither check is vacuous
        assert 0.1 < sum(bool(gate.search(t)) for t in texts) / len(texts) < 0.9


@pytest.mark.unit
def test_only_the_characters_named_fold_into_an_ascii_letter() -> None:
    """What lets an accented text skip the patterns: no other character matches an ASCII letter case-blindly, or
    lowers to one."""
    letter = re.compile("(?i:[a-z])")
    folded = {c for c in map(chr, range(128, sys.maxunicode + 1)) if letter.fullmatch(c)}
    assert folded == set(redaction.FOLDED_INTO_ASCII)
    lowered = {c for c in map(chr, range(128, sys.maxunicode + 1)) if any(x.isascii() for x in c.lower())}
    assert lowered <= folded


def _segment_files(home: Path) -> list[dict[str, bytes]]:
    directory = index_dir(home)
    return [
        {name: (directory / ref.name / name).read_bytes() for name in sorted(ref.files)}
        for ref in read_manifest(directory).segments
    ]


def _old_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tokeniser and the gates as they were: the pattern over each whole text."""
    token_gate, context_gate = re.compile(redaction.TOKEN_GATE), re.compile(redaction.CONTEXT_GATE)
    monkeypatch.setattr(
        text_module,
        "terms",
        lambda text: list(chain.from_iterable(map(text_module._CACHE.__getitem__, text_module._finder()(text)))),
    )
    monkeypatch.setattr("deja.core.index.writer.text_terms", text_module.terms)
    monkeypatch.setattr(redact, "_token_gate", lambda text, lowered, longest: bool(token_gate.search(text)))
    monkeypatch.setattr(redact, "_context_gate", lambda text: bool(context_gate.search(text)))


def test_a_build_writes_the_segments_the_old_ways_wrote(
    many: Sample,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cwd = str(many.history.projects["api"])
    corpus = _corpus()
    write_transcript(  # secrets and code, so the redaction rules run and the gates say yes and no
        transcript_path(many.history.cli_root, cwd, "secrets"),
        [(user_turn if i % 2 == 0 else assistant_turn)(text) for i, text in enumerate(corpus)],
    )
    _split_build(monkeypatch, run_docs=4)
    refresh(many.home, full=True)
    fast = _segment_files(many.home)
    text_module.forget_cached_terms()
    with monkeypatch.context() as old:
        _old_ways(old)
        refresh(many.home, full=True)
    assert _segment_files(many.home) == fast
    assert len(fast) == 2 and all(files["postings.bin"] and files["records.bin"] for files in fast)


def test_a_projects_chats_read_together_decode_its_folder_once(
    many: Sample,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cwd = many.history.projects["api"]
    transcripts = [transcript_path(many.history.cli_root, str(cwd), f"chat{i:02d}") for i in range(3)]
    alone = [read_cli_chat(path, None).session for path in transcripts]
    calls: list[str] = []
    decode = projects.slug_folders
    monkeypatch.setattr(projects, "slug_folders", lambda slug: calls.append(slug) or decode(slug))
    decoded: dict[str, list[Path]] = {}
    together = [read_cli_chat(path, None, decoded=decoded).session for path in transcripts]
    assert together == alone
    assert all(session and session.project_dir == str(cwd) for session in together)
    assert len(calls) == 1 and decoded == {calls[0]: [cwd]}


@pytest.mark.unit
def test_a_shell_result_is_split_as_when_the_fence_pattern_ran_on_every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = ["Command output:", "Command output:\n```sh\n", "\n", "```", "```\n", "Exit code: 1", " ", "ok", "x\n"]
    rng = random.Random(18)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))) for _ in range(3000)]
    fast = [conversation.split_shell_output(text) for text in texts]

    class Always(str):  # every text "holds" the literal: the pattern runs, as it did on every text
        def __contains__(self, _: object) -> bool:
            return True

    assert [conversation.split_shell_output(Always(text)) for text in texts] == fast
    assert sum(1 for text in texts if conversation._OUTPUT_FENCE.search(text)) > 500
