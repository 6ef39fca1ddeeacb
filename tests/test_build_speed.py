"""The build's shortcuts give what the slow way gave: the same heads, the same best postings, the same blocks."""

from __future__ import annotations

import gc
import random
import shlex
import weakref
import zlib
from pathlib import Path

import pytest

from deja.core import parallel, text
from deja.core.fields import doc_text
from deja.core.index import SegmentWriter
from deja.core.index.format import RECORDS_LEVEL, SYNC, WBITS, Inflating, deflater, inflate
from deja.core.index.writer import _best, _doc_terms
from deja.core.indexer import parts
from deja.core.indexer.records import NewSegments, indexable
from deja.core.keys import command_words
from deja.core.model import Message, Session, ToolCall
from deja.core.text import lend_terms, lent_terms, terms

pytestmark = pytest.mark.unit


def _words_by_shlex(command: str) -> list[str]:
    """What ``command_words`` gave before its fast path: every command through ``shlex``."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


COMMANDS = [
    "git push -f origin",
    "pytest -x a.py",
    "  sudo  env FOO=1 npm run build  ",
    "git\tcommit -m 'fix: the thing'",
    'git commit -m "two words"',
    "echo a\\ b c",
    "'quoted prog' sub",
    "ls # a comment",
    "git\x0bstatus",
    "git\x0cstatus x",
    "git\x1fstatus",
    "python -m pytest tests",
    "python3 -m http.server 8000",
    "docker build -t infra-web .",
    "git\u00a0push origin",
    "unterminated 'quote here",
    "",
    "   ",
    "cat file | grep x && echo done",
    "git\r\nlog",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_command_words_are_what_shlex_gives(command: str) -> None:
    assert command_words(command) == _words_by_shlex(command)


def test_command_words_match_shlex_on_generated_commands() -> None:
    pieces = ["git", "push", "-f", "npm", "run", "a=b", "'x y'", '"q"', "\\", "#", "\t", "\n", "\x0b", " ", "é", "sub"]
    rng = random.Random(15)
    for _ in range(3000):
        command = " ".join(rng.choice(pieces) for _ in range(rng.randrange(1, 7)))
        assert command_words(command) == _words_by_shlex(command), repr(command)


def test_best_keeps_what_a_whole_sort_keeps() -> None:
    rng = random.Random(7)
    for kept in (1, 3, 50, None):
        # As the final merge gives them: each doc once, last doc first; many equal impacts.
        pairs = [(float(rng.randrange(20)), doc) for doc in sorted(rng.sample(range(100_000), 2_000), reverse=True)]
        assert _best(iter(pairs), kept) == sorted(pairs, reverse=True)[:kept]


def test_deflater_writes_the_bytes_a_new_compressor_writes() -> None:
    rng = random.Random(3)
    words = [f"word{n}" for n in range(300)]
    zdict = " ".join(rng.choice(words) for _ in range(6000)).encode()[-32768:]
    deflate = deflater(zdict)
    meta = " ".join(rng.choice(words) for _ in range(40)).encode()
    for size in (0, 10, 500, 40_000):
        data = " ".join(rng.choice(words) for _ in range(size)).encode()
        fresh = zlib.compressobj(RECORDS_LEVEL, zlib.DEFLATED, WBITS, zdict=zdict)
        lead = fresh.compress(meta) + fresh.flush(zlib.Z_SYNC_FLUSH)
        assert deflate(meta, data) == (lead[: -len(SYNC)], fresh.compress(data) + fresh.flush())
        assert inflate(deflate(meta, data)[0], zdict) == meta
        assert Inflating(*deflate(meta, data), zdict).whole() == data


class _Node:
    """An object in a reference cycle, seen through a weak reference."""

    def __init__(self) -> None:
        self.me = self


def _cycle_kept_until_a_spill(directory: Path) -> tuple[bool, bool, bool]:
    """In a part: whether a dropped cycle outlives a burst of allocations, and whether a spill frees it (and
    whether the collector was off in between)."""
    parts._collect_at_spills()
    node = _Node()
    seen = weakref.ref(node)
    del node
    _ = [[n] for n in range(100_000)]  # the collector, on, would run hundreds of times here
    before = seen() is not None
    spill = parts._Spill(directory, 0)
    spill.write(parts.Written(), NewSegments(directory, redacting=True))
    spill.close()
    return before, seen() is None, gc.isenabled()


def test_a_part_collects_its_cycles_at_its_spills_only(tmp_path: Path) -> None:
    [(kept, freed, enabled)] = parallel.run_parts(lambda number, tell: _cycle_kept_until_a_spill(tmp_path), 1)
    assert kept and freed and not enabled
    assert gc.isenabled()  # the builder's own collector is untouched


#: Texts whose terms a joined doc text could get wrong: none, a mark that composes, one that starts a text, a joiner,
#: several scripts, several lines.
TEXTS = ["", "Fix the login redirect in fetchUser", "de\u0301filement", "\u0301after", "a\u200db"]
TEXTS += ["naïve 東京 src/app.py", "one\ntwo  three\t"]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("paths", [[], ["src/app.py"], ["\u0301odd name.py", "b c.txt"]])
def test_a_docs_terms_are_its_doc_texts(text: str, paths: list[str]) -> None:
    """A message doc's terms, its text's (lent or not) then its tool calls' targets', are what its doc text gives."""
    message = Message("assistant", text, tool_calls=[ToolCall("Read", {"path": path}) for path in paths])
    assert _doc_terms(message, {}) == terms(doc_text(message))
    lent = {text: terms(text)}
    assert _doc_terms(message, lent) == terms(doc_text(message))
    assert lent == {}  # taken, not held on


def _session() -> Session:
    """A chat whose summary reads its turns' words (a title naming its second turn, not its first)."""
    said = [
        ("user", "first, fix the lint errors ruff reports"),
        ("assistant", "Fixed the lint errors."),
        ("user", "now the circular import between models and schemas breaks startup"),
        ("assistant", "Moved the schemas import into the function: no circular import at startup."),
        ("user", "does the circular import come back with lazy models?"),
        ("assistant", "No: models import schemas lazily now."),
    ]
    return Session(
        id="c1",
        source="cursor-cli",
        title="Circular import between models and schemas",
        messages=[Message(role, text) for role, text in said],  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("room", [text.LENT_TERMS, 3])
def test_a_session_is_written_the_same_with_its_summarys_terms_lent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    """The terms a session's summary worked out, lent to its writer, write the segment tokenising again wrote, all
    of them lent or (past the room for them) none; nothing is held once the session is written."""
    monkeypatch.setattr(text, "LENT_TERMS", room)
    lend_terms()
    meta, messages = indexable(_session(), on=True)
    lent = lent_terms()
    held = {m.text for m in messages} & lent.keys()
    assert len(held) == (len(messages) if room > 3 else 0)  # (the title's terms, worked out first, fill a room of 3)
    own = SegmentWriter(tmp_path / "own")
    own.add(meta, messages)
    tokenised = own.finish()
    segments = NewSegments(tmp_path / "lent", redacting=True)
    segments.add(_session())
    segments.flush()
    assert text._LENT is None
    [written] = segments.done
    files = sorted(p.name for p in (tmp_path / "own" / tokenised.name).iterdir())
    assert files == sorted(p.name for p in (tmp_path / "lent" / written.name).iterdir())
    for name in files:
        assert (tmp_path / "own" / tokenised.name / name).read_bytes() == (
            tmp_path / "lent" / written.name / name
        ).read_bytes(), name
