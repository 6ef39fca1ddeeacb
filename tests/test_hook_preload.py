"""The hook launcher loads a hook's own modules from their ``.pyc`` files, and the C modules they import
(``interfaces/preload.py``), not through ``importlib``: the same modules in the same order, the same answer, and
``importlib`` for any whose ``.pyc`` is not the source's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from harness import ENTRY, Sample, imported_modules
from test_layers import _installed_as_pip_does

from deja.core.writers.cursor_agent import transcript_path, user_turn, write_transcript
from deja.hooks.run import HANDLERS
from deja.interfaces.preload import EVERY_HOOK, HOOK_MODULES

ROOT = Path(__file__).resolve().parents[1]
PROMPT = {"hook_event_name": "beforeSubmitPrompt", "prompt": "pytest cannot import api.cache", "cursor_version": "2"}


def _loaded_by_importlib(folder: Path, code: str) -> list[str]:
    """The modules ``python -I -S -X importtime -c CODE`` imported with ``folder`` on its path, as they finished."""
    command = [
        sys.executable,
        "-I",
        "-S",
        "-X",
        "importtime",
        "-c",
        f"import sys; sys.path.append({str(folder)!r}); {code}",
    ]
    done = subprocess.run(command, capture_output=True, timeout=60, check=True)
    return [
        line.rsplit("|", 1)[1].strip() for line in done.stderr.decode().splitlines() if line.startswith("import time:")
    ]


@pytest.mark.parametrize("command", sorted(HANDLERS))
def test_a_hooks_preloaded_modules_are_what_importing_its_module_loads_in_importlibs_order(
    command: str, tmp_path: Path
) -> None:
    folder = _installed_as_pip_does(tmp_path / "site-packages").parents[2]
    module = HANDLERS[command][0]
    # as the launcher imports them: itself, the folder check, the entry, the hook's path (``hooks/run.py``'s main,
    # and ``read_stdin``'s select)
    launched = (
        "deja.interfaces.preload, deja.core.folders, deja.interfaces.entry, deja.hooks.run, deja.hooks.call, select"
    )
    # and, for a prompt, what opening the index imports (``HookCall.index``)
    opening = "; import deja.core.index.light, deja.core.redaction" if command == "hook-prompt" else ""
    loaded = _loaded_by_importlib(folder, f"import {launched}; import deja.hooks.{module}{opening}")
    after = loaded[loaded.index("deja.interfaces.preload") + 1 :]  # (deja's modules, and the C modules they load)
    assert tuple(after) == (*EVERY_HOOK, *HOOK_MODULES[command])


def _hook(
    launcher: Path, payload: dict[str, Any], env: dict[str, str], hook: str = "hook-prompt"
) -> tuple[dict[str, Any], set[str]]:
    """The launcher's answer to ``hook`` (``{}`` for none), and the modules ``importlib`` imported (``python -v`` names
    each)."""
    command = [sys.executable, "-I", "-S", "-v", str(launcher), hook]
    done = subprocess.run(command, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    lines = done.stderr.decode(errors="replace").splitlines()
    imported = {line.split("'")[1] for line in lines if line.startswith("import '")}
    return json.loads(done.stdout) if done.stdout else {}, imported


def test_the_launcher_loads_a_recalling_prompts_modules_itself_and_answers_the_same(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    site = tmp_path / "site-packages"
    site.mkdir()
    for name in ("core", "hooks", "interfaces"):  # (a copy: the test changes a source)
        shutil.copytree(ROOT / name, site / "deja" / name, ignore=shutil.ignore_patterns("__pycache__"))
    import Stemmer

    (site / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
    launcher = site / "deja" / "interfaces" / "hook.py"
    preloaded = {*EVERY_HOOK, *HOOK_MODULES["hook-prompt"]}

    first, by_importlib = _hook(launcher, {**PROMPT, "conversation_id": "preload-1"}, indexed_sample.env)
    assert preloaded <= by_importlib  # no .pyc yet: importlib compiles and writes them
    again, by_importlib = _hook(launcher, {**PROMPT, "conversation_id": "preload-2"}, indexed_sample.env)
    assert again == first and "api.cache" in again["additional_context"]
    assert not preloaded & by_importlib
    # nor any other of deja's but the launcher's own and the session-start block (each conversation here is new):
    # what opening the index loads is preloaded too
    deja_by_importlib = {name for name in by_importlib if name.startswith("deja.")}
    assert deja_by_importlib == {"deja.interfaces", "deja.interfaces.preload", "deja.hooks.context"}

    source = site / "deja" / "core" / "search.py"
    source.write_text(source.read_text() + "\n# changed after it was compiled\n")
    changed, by_importlib = _hook(launcher, {**PROMPT, "conversation_id": "preload-3"}, indexed_sample.env)
    assert changed == first
    # its .pyc is not the source's: importlib loads it, and what follows it in the list
    after = (*EVERY_HOOK, *HOOK_MODULES["hook-prompt"])
    assert set(after[after.index("deja.core.search") :]) <= by_importlib
    assert "deja.core.text" not in by_importlib


def test_a_tasks_hook_loads_the_prompt_hooks_modules_as_the_launcher_loaded_its_own(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """A ``Task``'s hook recalls as a prompt's does, which it learns from its event only: it loads the prompt hook's
    modules the launcher's way then (``HookCall.preload_modules_of``), not one by one through ``importlib``."""
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    task = {
        "hook_event_name": "preToolUse",
        "cursor_version": "2",
        "tool_name": "Task",
        "tool_input": {"description": "fix the import", "prompt": PROMPT["prompt"]},
    }
    _hook(launcher, {**task, "conversation_id": "task-1"}, indexed_sample.env, "hook-tool")  # (the .pyc files)
    answer, by_importlib = _hook(launcher, {**task, "conversation_id": "task-2"}, indexed_sample.env, "hook-tool")
    assert "api.cache" in answer["additional_context"]
    assert not set(HOOK_MODULES["hook-prompt"]) & by_importlib


def test_a_tool_hooks_recall_for_a_prompt_only_the_transcript_holds_loads_the_prompt_hooks_modules_so_too(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """``cursor-agent -p`` sends no prompt event: its first tool event recalls for the prompt its transcript holds
    (``prompt.with_prompt``), and loads the prompt hook's modules the launcher's way first, as a ``Task``'s does."""
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    api = indexed_sample.history.projects["api"]

    def shell(conversation: str) -> dict[str, Any]:
        path = transcript_path(indexed_sample.history.cli_root, str(api), conversation)
        write_transcript(path, [user_turn(PROMPT["prompt"])])
        return {
            "hook_event_name": "preToolUse",
            "cursor_version": "2",
            "conversation_id": conversation,
            "workspace_roots": [str(api)],
            "tool_name": "Shell",
            "tool_input": {"command": "ls -la"},
            "transcript_path": str(path),
        }

    _hook(launcher, shell("print-1"), indexed_sample.env, "hook-tool")  # (the .pyc files)
    answer, by_importlib = _hook(launcher, shell("print-2"), indexed_sample.env, "hook-tool")
    assert "may answer this prompt" in answer["additional_context"] and "api.cache" in answer["additional_context"]
    # the same call again, its prompt read: what reading the transcript and the Shell's own answer import
    again, own = _hook(launcher, shell("print-2"), indexed_sample.env, "hook-tool")
    assert not again and "deja.hooks.prompt" not in own
    assert set(HOOK_MODULES["hook-prompt"]) & by_importlib <= own


def _modules_read(launcher: Path, payload: dict[str, Any], env: dict[str, str], hook: str) -> tuple[bytes, set[str]]:
    """What the launcher printed for ``hook``, and the modules of deja's folder whose source or ``.pyc`` it opened,
    through ``importlib`` or preloaded (an audit hook sees both)."""
    folder = launcher.parents[2]
    code = (
        "import os, sys, runpy\n"
        "sys.addaudithook(lambda event, args: event == 'open' and isinstance(args[0], str)"
        " and os.write(2, b'opened ' + args[0].encode() + b'\\n'))\n"
        f"sys.argv = [{str(launcher)!r}, {hook!r}]\n"
        f"runpy.run_path({str(launcher)!r}, run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], input=json.dumps(payload).encode(), capture_output=True, env=env
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    modules = set()
    for line in done.stderr.decode(errors="replace").splitlines():
        path = Path(line.removeprefix("opened "))
        if line.startswith("opened ") and path.suffix in (".py", ".pyc") and path.is_relative_to(folder):
            *package, file = (part for part in path.relative_to(folder).parts if part != "__pycache__")
            name = file.split(".")[0]
            modules.add(".".join([*package, name] if name != "__init__" else package))
    return done.stdout, modules


def test_a_task_with_no_description_loads_none_of_what_a_recall_loads(indexed_sample: Sample, tmp_path: Path) -> None:
    """A ``Task`` with nothing to recall for says so at once: neither preloaded nor imported, none of the prompt
    hook's modules beyond the tool hook's own is read."""
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    task = {
        "hook_event_name": "preToolUse",
        "cursor_version": "2",
        "tool_name": "Task",
        "tool_input": {"description": " ", "prompt": ""},
    }
    recalling = {
        name
        for name in HOOK_MODULES["hook-prompt"]
        if name.startswith("deja.") and name not in HOOK_MODULES["hook-tool"]
    }
    _modules_read(launcher, {**task, "conversation_id": "empty-1"}, indexed_sample.env, "hook-tool")  # (the .pyc)
    printed, read = _modules_read(launcher, {**task, "conversation_id": "empty-2"}, indexed_sample.env, "hook-tool")
    assert "deja.hooks.tool" in read and "deja.hooks.context" in read  # (it sees what it loads)
    assert not recalling & read, recalling & read


def test_a_hook_not_started_by_the_launcher_imports_no_preload(indexed_sample: Sample) -> None:
    """``deja hook-…`` (the console script an editable install's ``hooks.json`` names) preloads nothing, and its
    ``Task`` recalls all the same: it imports no ``interfaces/preload.py`` to say so (0.35 M instructions a hook)."""
    task = {
        "hook_event_name": "preToolUse",
        "cursor_version": "2",
        "conversation_id": "console-1",
        "tool_name": "Task",
        "tool_input": {"description": "fix the import", "prompt": PROMPT["prompt"]},
    }
    done = subprocess.run(
        [ENTRY[0], "-X", "importtime", *ENTRY[1:], "hook-tool"],
        input=json.dumps(task).encode(),
        capture_output=True,
        env=indexed_sample.env,
        timeout=60,
    )
    assert done.returncode == 0 and "api.cache" in json.loads(done.stdout)["additional_context"]
    imported = imported_modules(done.stderr.decode(errors="replace"))
    assert "deja.hooks.prompt" in imported and "deja.interfaces.preload" not in imported


def _loaders(launcher: Path, payload: dict[str, Any], env: dict[str, str], hook: str) -> tuple[bytes, dict[str, str]]:
    """What the launcher printed for ``hook``, and which loader ``importlib`` imported each of deja's modules with
    (``python -v`` names both)."""
    command = [sys.executable, "-I", "-S", "-v", str(launcher), hook]
    done = subprocess.run(command, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    loaders = {}
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith("import 'deja."):
            name, loader = line.split("'")[1], line.split("# <")[1]
            loaders[name] = loader.split(" object")[0].rsplit(".", 1)[1]
    return done.stdout, loaders


def test_a_module_a_hook_imports_beyond_its_list_is_loaded_from_its_pyc_too(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """A Shell call's hook imports what its command asks (``errors``, ``destructive``, the scope, …) and a new
    conversation's first hook the session-start block: none of them in its list, each loaded from its ``.pyc`` by
    the launcher's finder (``preload._OnDemand``), and by ``importlib``'s own where that ``.pyc`` is not the source's,
    with the same answer."""
    site = tmp_path / "site-packages"
    site.mkdir()
    for name in ("core", "hooks", "interfaces"):  # (a copy: the test changes a source)
        shutil.copytree(ROOT / name, site / "deja" / name, ignore=shutil.ignore_patterns("__pycache__"))
    import Stemmer

    (site / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
    launcher = site / "deja" / "interfaces" / "hook.py"
    api = indexed_sample.history.projects["api"]
    shell = {
        "hook_event_name": "preToolUse",
        "cursor_version": "2",
        "workspace_roots": [str(api)],
        "tool_name": "Shell",
        "tool_input": {"command": "sudo rm -rf /var/lib/docker"},
    }

    first, _ = _loaders(launcher, {**shell, "conversation_id": "shell-1"}, indexed_sample.env, "hook-tool")
    again, loaders = _loaders(launcher, {**shell, "conversation_id": "shell-2"}, indexed_sample.env, "hook-tool")
    assert again == first
    beyond = {"deja.core.errors", "deja.core.destructive", "deja.hooks.scope", "deja.hooks.context"}
    assert beyond <= set(loaders) and not set(loaders) & {*EVERY_HOOK, *HOOK_MODULES["hook-tool"]}
    launchers_own = {"deja.interfaces", "deja.interfaces.preload"}
    assert {name: loader for name, loader in loaders.items() if name not in launchers_own} == dict.fromkeys(
        loaders.keys() - launchers_own, "_OnDemand"
    )

    source = site / "deja" / "core" / "destructive.py"
    source.write_text(source.read_text() + "\n# changed after it was compiled\n")
    changed, loaders = _loaders(launcher, {**shell, "conversation_id": "shell-3"}, indexed_sample.env, "hook-tool")
    assert changed == first
    assert loaders["deja.core.destructive"] == "SourceFileLoader" and loaders["deja.hooks.scope"] == "_OnDemand"
