"""msgspec imported without ``typing_extensions`` (``core/lean_msgspec.py``): the refresh of a turn and the search
after it work on ``typing``'s own type hints, and whatever imports ``typing_extensions`` afterwards gets it.

These fail loudly if a msgspec release stops falling back to ``typing`` when ``typing_extensions`` is missing:
msgspec's import would fail, or ``typing_extensions`` would be loaded by a refresh, or a Struct would not decode.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from harness import index_chats

from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript

ROOT = Path(__file__).resolve().parents[1]
CHAT = "00000000-0000-4000-8000-0000000000e1"
FIRST = ["Why does the uploader retry forever?", "Its backoff never grows."]
STAMP = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)

#: A refresh of one turn and a search in a fresh process, then msgspec's type-information path over the index's
#: Structs, then what loads ``typing_extensions`` the usual way: the MCP SDK with pydantic, and a pydantic model.
AFTER_A_TURN = """
import sys
from pathlib import Path
from deja.core.index import Index, SessionMeta
from deja.core.indexer import refresh
from deja.core.lean_msgspec import msgspec
from deja.core.model import Message
from deja.core.search import search
home = Path(sys.argv[1])
print(refresh(home, only_chat_ids={sys.argv[2]}).updated)
print([hit.session_id for hit in search(Index.open(home), "zeppelin drains").hits] == [sys.argv[2]])
print(sorted({"typing_extensions", "inspect"} & set(sys.modules)))
print(msgspec.inspect.type_info(SessionMeta).cls is SessionMeta)
message = msgspec.convert({"role": "user", "text": "hi", "tool_calls": [{"name": "Shell", "exit_code": 2}]}, Message)
print(msgspec.msgpack.decode(msgspec.msgpack.encode(message), type=Message) == message)
try:
    msgspec.convert({"role": "system", "text": "hi"}, Message)
except msgspec.ValidationError as refused:  # (its wording is msgspec's: only where it points is checked)
    print("refused at", str(refused).rsplit("at ", 1)[-1])
import typing_extensions, mcp.types, pydantic
class Call(pydantic.BaseModel):
    name: typing_extensions.Annotated[str, pydantic.Field(min_length=1)]
print(Call(name="Shell").name, mcp.types.Tool.__name__)
"""


def test_a_refresh_of_a_turn_loads_no_typing_extensions_and_it_imports_as_usual_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    turn = [user_turn("And the zeppelin queue?", stamp=STAMP), assistant_turn("It drains.", tool_use("Shell", {}))]
    write_transcript(transcript_path(tmp_path / "cli", "/work/shop", CHAT), [user_turn(FIRST[0]), *turn])
    run = [sys.executable, "-c", AFTER_A_TURN, str(tmp_path / "deja"), CHAT]
    assert subprocess.run(run, capture_output=True, text=True, check=True).stdout.splitlines() == [
        "1",
        "True",
        "[]",
        "True",
        "True",
        "refused at `$.role`",
        "Shell Tool",
    ]


#: A refresh of one turn and a search in a fresh process, each ``compile()`` of a text counted (a module imported
#: without its bytecode compiles bytes): a ForwardRef compiles one, and a process's first compile builds the AST's
#: types, about 9 M instructions of a search after a turn.
COMPILES = """
import builtins, sys
compiled = []
compile_ = builtins.compile
def counted(source, *args, **kwargs):
    if isinstance(source, str):
        compiled.append(source)
    return compile_(source, *args, **kwargs)
builtins.compile = counted
from pathlib import Path
from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import search
home = Path(sys.argv[1])
print(refresh(home, only_chat_ids={sys.argv[2]}).updated, len(search(Index.open(home), "zeppelin drains").hits))
print(compiled)
"""


def test_a_refresh_of_a_turn_compiles_no_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Structs and NamedTuples a refresh of a turn reads and writes are defined with their annotations evaluated
    (their modules postpone none), and msgspec's own probe of ``typing.ForwardRef`` at import compiles nothing
    (``lean_msgspec._ProbedForwardRef``): a Struct module that postpones its annotations again compiles each field's
    type the first time the refresh decodes it."""
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    turn = [user_turn("And the zeppelin queue?", stamp=STAMP), assistant_turn("It drains.", tool_use("Shell", {}))]
    write_transcript(transcript_path(tmp_path / "cli", "/work/shop", CHAT), [user_turn(FIRST[0]), *turn])
    run = [sys.executable, "-c", COMPILES, str(tmp_path / "deja"), CHAT]
    assert subprocess.run(run, capture_output=True, text=True, check=True).stdout.splitlines() == ["1 1", "[]"]


def test_while_another_thread_runs_msgspec_probes_the_real_forward_ref() -> None:
    """A thread that made a ForwardRef while msgspec was first imported would keep the stand-in: with one running, the
    stand-in is not put in place (msgspec's probe compiles its text), and ``typing.ForwardRef`` is never changed."""
    code = (
        "import builtins, threading, typing\n"
        "compiled = []\n"
        "compile_ = builtins.compile\n"
        "builtins.compile = lambda source, *a, **k: (compiled.append(source), compile_(source, *a, **k))[1]\n"
        "real = typing.ForwardRef\n"
        "done = threading.Event()\n"
        "threading.Thread(target=done.wait).start()\n"
        "from deja.core.lean_msgspec import msgspec\n"
        "done.set()\n"
        "print(typing.ForwardRef is real, 'Foo' in compiled)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


def test_a_typing_extensions_already_imported_is_left_in_place() -> None:
    """A process that imported ``typing_extensions`` first (the MCP server's pydantic) keeps that very module."""
    code = (
        "import sys, typing_extensions\n"
        "from deja.core.lean_msgspec import msgspec\n"
        "print(sys.modules['typing_extensions'] is typing_extensions, msgspec.Struct.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "Struct"]


def test_deja_takes_msgspec_only_from_lean_msgspec() -> None:
    """Any other ``import msgspec`` might be a process's first, and load ``typing_extensions`` after all."""
    importers = []
    for layer in ("core", "hooks", "installers", "interfaces"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                if any(name.split(".")[0] == "msgspec" for name in names):
                    importers.append(str(path.relative_to(ROOT)))
    assert importers == ["core/lean_msgspec.py", "core/lean_msgspec.py"]


def test_a_msgspec_that_cannot_do_without_typing_extensions_is_imported_as_usual(tmp_path: Path) -> None:
    """A msgspec release that imports ``typing_extensions`` with no fallback (a stand-in here, first on the path,
    whose ``_core`` tries it and falls back, then whose ``__init__`` needs it): deja imports it as usual, slower, and
    anew, not the half its first try left; before, every deja command died of "import of typing_extensions halted"
    (review44a L2)."""
    package = tmp_path / "msgspec"
    package.mkdir()
    (package / "_core.py").write_text(
        "try:\n    import typing_extensions\n    LEAN = False\nexcept ImportError:\n    LEAN = True\n"
    )
    (package / "__init__.py").write_text("from . import _core\nimport typing_extensions\nStruct = object\n")
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "from deja.core.lean_msgspec import msgspec\n"
        "print(msgspec.__file__.startswith(sys.path[0]), msgspec._core.LEAN, 'typing_extensions' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False", "True"]


BOUND_CHAT = "00000000-0000-4000-8000-0000000000c5"
OTHER = "00000000-0000-4000-8000-0000000000c6"
QUESTION = ["Why does the uploader retry forever?", "Its backoff never grows."]

#: A msgspec whose ``_utils`` took ``ForwardRef`` by name when it was imported (``from typing import ForwardRef``),
#: made from the installed one: its ``_forward_ref`` builds whatever ``typing.ForwardRef`` was while ``_utils`` ran.
BINDS_FORWARD_REF = """
import importlib.abc, importlib.machinery, sys, typing
class BindsForwardRef(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "msgspec._utils":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            bound = typing.ForwardRef
            module._forward_ref = lambda value: bound(value, is_argument=False, is_class=True)
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, BindsForwardRef())
"""

#: Two chats are written by parts in parallel, as 400 are (``parts.PARALLEL_MIN_CHATS``, which tests/test_build.py
#: lowers the same way).
PARALLEL = """
import deja.core.indexer.parts
deja.core.indexer.parts.PARALLEL_MIN_CHATS = 2
"""

#: The command line, as the ``deja`` script runs it.
DEJA = """
import runpy
sys.argv = ["deja", *sys.argv[1:]]
runpy.run_module("deja.interfaces.entry", run_name="__main__", alter_sys=True)
"""


def test_a_msgspec_that_binds_forward_ref_at_import_still_builds_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A msgspec that kept the name ``ForwardRef`` it found when imported (none from 0.18 to 0.23 does) keeps the
    stand-in; made after the import, it is the real one, and a parallel ``deja index --full`` builds (review54c L1:
    it died of "Type '<…_ProbedForwardRef object>' is not supported")."""
    index_chats(tmp_path, monkeypatch, {BOUND_CHAT: QUESTION, OTHER: QUESTION})
    run = [sys.executable, "-c", BINDS_FORWARD_REF + PARALLEL + DEJA, "index", "--full"]
    ran = subprocess.run(run, capture_output=True, text=True)
    assert (ran.returncode, ran.stderr) == (0, ""), ran.stderr


#: Ctrl-C while msgspec is first imported (raised when its ``_core`` imports ``decimal``, after ``_utils`` probed
#: the stand-in), caught; then what the process has in ``typing.ForwardRef`` and ``sys.modules``, and a Struct with a
#: string annotation decoded after a second import.
INTERRUPTED = """
import sys, typing
real = typing.ForwardRef
class Interrupts:
    def find_spec(self, name, path=None, target=None):
        if name == "decimal":
            sys.meta_path.remove(self)
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupts())
try:
    import deja.core.lean_msgspec
except KeyboardInterrupt:
    print(typing.ForwardRef is real, sys.modules.get("typing_extensions", "absent"))
from deja.core.lean_msgspec import msgspec
class Later(msgspec.Struct):
    counts: "list[int]"
print(msgspec.json.decode(b'{"counts": [1, 2]}', type=Later).counts, typing.ForwardRef is real)
"""


@pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="msgspec 0.23 itself crashes (SIGSEGV) when imported again after an interrupted import on Python 3.12+, "
    "deja or not (review54e F4)",
)
def test_an_interrupt_while_msgspec_is_first_imported_leaves_the_real_forward_ref() -> None:
    out = subprocess.run([sys.executable, "-c", INTERRUPTED], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["True absent", "[1, 2] True"]
