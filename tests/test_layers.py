"""The layers are a fact of the folders: core at the bottom, hooks and installers on it, interfaces on top.

Every module's imports are read from its source (``ast``), function-level ones included, since a
function-level import is still a dependency: it only moves the cost to the first call.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from harness import ENTRY, Sample, imported_modules

from deja.hooks.run import HANDLERS

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("core", "hooks", "installers", "interfaces")
#: What may never load while a hook answers: a CLI framework, a terminal renderer, the MCP SDK, the writer's lock.
HEAVY = {"typer", "click", "rich", "mcp", "filelock"}
#: The session-end hook ingests the closing chat, so it takes the writer's lock: everything else stays out.
WRITER_HOOK = "hook-session-end"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["deja", *parts])


@cache
def package_modules() -> dict[str, Path]:
    """Every module of the installed package ``deja``, by dotted name, from the repository's layer folders."""
    return {_module_name(p): p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))}


def _resolve(module: str, node: ast.ImportFrom) -> list[str]:
    """The absolute names a ``from … import …`` loads; ``from . import x`` names the submodule x where there is one."""
    if node.level:
        package = module.split(".") if package_modules()[module].name == "__init__.py" else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in package_modules()]
    return submodules or [base]


@cache
def imports_of(module: str) -> frozenset[str]:
    """The absolute names of every module ``module`` imports anywhere in its source."""
    tree = ast.parse(package_modules()[module].read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names.update(_resolve(module, node))
    return frozenset(names)


def _layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "deja" and len(parts) > 1 else None


def _crossings(layer: str, allowed: set[str]) -> list[str]:
    return sorted(
        f"{module} imports {name}"
        for module in package_modules()
        if _layer(module) == layer
        for name in imports_of(module)
        if _layer(name) is not None and _layer(name) not in allowed
    )


def closure(*start: str) -> set[str]:
    """Every module reachable from ``start`` through imports: the package's own, followed; others, collected."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in package_modules():
            todo.extend(imports_of(name))
    return seen


def hook_path(command: str) -> set[str]:
    """What ``deja COMMAND`` can load: entry's own imports, the hook runner and the command's handler module."""
    entry_imports = {
        name
        for node in ast.parse(package_modules()["deja.interfaces.entry"].read_text(encoding="utf-8")).body
        if isinstance(node, ast.Import)
        for name in (alias.name for alias in node.names)
    }
    return closure(*entry_imports, "deja.hooks.run", f"deja.hooks.{HANDLERS[command][0]}")


def _heavy(names: set[str], forbidden: set[str]) -> set[str]:
    return {name for name in names if name.split(".")[0] in forbidden}


@pytest.mark.unit
def test_core_imports_nothing_above_it() -> None:
    assert _crossings("core", {"core"}) == []


@pytest.mark.unit
@pytest.mark.parametrize("layer", ["hooks", "installers"])
def test_hooks_and_installers_import_only_core(layer: str) -> None:
    assert _crossings(layer, {"core", layer}) == []


@pytest.mark.unit
def test_a_prompt_is_cut_from_its_user_query_block_in_one_place() -> None:
    """The transcript reader, the store reader and the tool hooks' ``transcript_prompt`` each looked for the
    ``<user_query>`` block with a copy of the same ``find``: one helper (``core.text.user_query``) cuts it for all."""
    cutting = sorted(
        name
        for name, path in package_modules().items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and any(isinstance(arg, ast.Constant) and "user_query>" in str(arg.value) for arg in node.args)
    )
    assert cutting == ["deja.core.text", "deja.core.text"]


@pytest.mark.unit
def test_package_imports_are_relative() -> None:
    """Inside the package every import of its own modules is relative, so the folders resolve as they stand."""
    absolute = sorted(
        f"{module}: import {alias.name}"
        for module, path in package_modules().items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
        if alias.name.split(".")[0] == "deja"
    )
    assert absolute == []


@pytest.mark.unit
@pytest.mark.parametrize("command", sorted(HANDLERS))
def test_hook_entrypoints_never_import_heavy_modules(command: str) -> None:
    reached = hook_path(command)
    assert f"deja.hooks.{HANDLERS[command][0]}" in reached
    assert _heavy(reached, HEAVY) == set()


@pytest.mark.unit
def test_the_import_walk_sees_what_the_cli_and_the_writer_load() -> None:
    """The walk above would notice: the CLI reaches typer, the session-end hook's ingest reaches the writer lock."""
    assert "typer" in {name.split(".")[0] for name in closure("deja.interfaces.entry")}
    assert "deja.core.indexer.lock" in hook_path(WRITER_HOOK)


def _imported_at_runtime(*args: str, payload: bytes, env: dict[str, str] | None = None) -> set[str]:
    """The modules ``deja ARGS`` imported, as ``python -X importtime`` reports them on stderr."""
    command = [sys.executable, "-X", "importtime", *ENTRY[1:], *args]
    done = subprocess.run(command, input=payload, capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return imported_modules(done.stderr.decode(errors="replace"))


def test_an_empty_prompt_event_loads_nothing_heavy() -> None:
    loaded = _imported_at_runtime("hook-prompt", payload=b"")
    assert "deja.hooks.run" in loaded
    assert _heavy(loaded, HEAVY) == set()


def test_a_prompt_answered_from_the_index_loads_nothing_heavy(indexed_sample: Sample) -> None:
    payload = (
        b'{"hook_event_name": "beforeSubmitPrompt", "prompt": "pytest cannot import api.cache", "cursor_version": "2"}'
    )
    loaded = _imported_at_runtime("hook-prompt", payload=payload, env=indexed_sample.env)
    assert "deja.core.search" in loaded  # the handler ran (import_module's own line is not reported, its imports are)
    assert _heavy(loaded, HEAVY) == set()


# --- what a hook imports as it answers: nothing beyond the standard library, and the README's list ---------------

#: Never loaded by a hook as it answers, besides HEAVY: each costs a hook more than its work. The index is read
#: without msgspec (core/index/light.py), payloads with the stdlib's json, the config file deja writes without
#: tomllib, typing's names only by type checkers; hashlib would load OpenSSL for one blake2b.
NEVER_WHILE_ANSWERING = HEAVY | {"msgspec", "orjson", "typing", "tomllib", "hashlib"}
README_IMPORTS = ("<!-- hook imports: bench/bench_hooks.py prints this table -->", "<!-- end of hook imports -->")
#: The Python the README's list of standard-library modules was measured with (another one imports others).
README_PYTHON = (3, 11)


def _hook_payloads(project: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """label -> (command, a payload each hook answers from the sample), as bench/bench_hooks.py sends them."""
    base = {"cursor_version": "2.4.21", "workspace_roots": [str(project)]}
    tool = {**base, "hook_event_name": "preToolUse", "tool_name": "Shell"}
    return {
        "context": ("hook-context", {**base, "hook_event_name": "sessionStart"}),
        "prompt": (
            "hook-prompt",
            {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": "pytest cannot import api.cache"},
        ),
        "shell": ("hook-tool", {**tool, "tool_input": {"command": "pytest -q"}}),  # ran in the sample: an answer
        "task": (
            "hook-tool",
            {**tool, "tool_name": "Task", "tool_input": {"prompt": "why can pytest not import api.cache"}},
        ),
        "failure": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUseFailure",
                "tool_input": {"command": "python -m pytest tests/"},
                "error_message": "E   ModuleNotFoundError: No module named 'api.cache'",
            },
        ),
        "end": ("hook-session-end", {**base, "hook_event_name": "sessionEnd", "conversation_id": "c0ffee00-ended"}),
    }


def _installed_as_pip_does(folder: Path) -> Path:
    """``folder`` laid out as the site-packages pip installs deja into, holding deja (this checkout) and PyStemmer's
    one module and nothing else; the hook launcher in it (what ``deja install`` writes into ``hooks.json``)."""
    import Stemmer

    folder.mkdir()
    (folder / "deja").symlink_to(ROOT)
    (folder / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
    return folder / "deja" / "interfaces" / "hook.py"


def _imports_without_site(args: list[str], payload: bytes, env: dict[str, str]) -> tuple[set[str], bytes]:
    """The modules ``python -I -S ARGS`` imports (no site-packages: of deja's, the launcher finds its own folder,
    where no third-party module but PyStemmer could load at all), and what it printed."""
    command = [sys.executable, "-I", "-S", "-X", "importtime", *args]
    done = subprocess.run(command, input=payload, capture_output=True, env=env, timeout=60, cwd=ROOT.parent)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return imported_modules(done.stderr.decode(errors="replace")) - {"module"}, done.stdout


def module_group(name: str) -> str:
    """How the README lists a module: deja's by name, the standard library's by package (``re._parser`` is ``re``)."""
    return name if name.startswith("deja.") else name.split(".")[0]


def test_hooks_answer_with_the_standard_library_and_pystemmer_alone_and_the_readme_lists_what_they_import(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    project = indexed_sample.history.projects["api"]
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    floor, _ = _imports_without_site(["-c", "import site"], b"", indexed_sample.env)  # what `python -c pass` loads
    groups: set[str] = set()
    for label, (command, payload) in _hook_payloads(project).items():
        payload = {**payload, "conversation_id": payload.get("conversation_id", f"layers-{label}")}
        loaded, printed = _imports_without_site(
            [str(launcher), command], json.dumps(payload).encode(), indexed_sample.env
        )
        assert "site" not in loaded, f"{label}: the launcher found deja and PyStemmer in its own folder"
        assert bool(printed.strip()) == (command != "hook-session-end"), f"{label}: {printed!r}"
        assert {name.split(".")[0] for name in loaded} & NEVER_WHILE_ANSWERING == set(), label
        groups |= {module_group(name) for name in loaded - floor if not name.startswith("_")}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = (readme.index(marker) for marker in README_IMPORTS)
    listed = {line.split("`")[1] for line in readme[start:end].splitlines() if line.startswith("| `")}
    assert {g for g in listed if g.startswith("deja")} == {g for g in groups if g.startswith("deja")}
    if sys.version_info[:2] == README_PYTHON:
        assert listed == groups, "run `python bench/bench_hooks.py --sizes 1000` and put its import table in the README"
