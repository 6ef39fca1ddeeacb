"""What a hook loads as a user's Cursor starts it: no ``pathlib`` on any hook, and nothing for patterns or dates
in the hooks that need neither.

``pathlib`` brings ``re`` (with ``enum``, ``functools``, ``collections``), ``urllib.parse`` and ``ipaddress``:
about 5 ms, half of starting Python. So every hook works on ``os.path`` strings (``core/folders.py``), and a hook
that only names sessions (the session-start block, a file's past edits, a successful command, a session's end)
loads no ``re`` and no ``datetime`` either: a session's date comes from ``sessions.idx`` as seconds. A prompt that
recalls dates its sessions with ``_datetime`` alone, and reads its words and names with ``str``'s methods, not ``re``.
``tests/test_layers.py`` checks the other things no hook loads and the README's list of what hooks import.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness import Sample
from test_layers import _imports_without_site, _installed_as_pip_does

#: No hook loads these as it answers, whatever it is asked: nor ``os`` (6.4 M instructions of a hook's 35-105 M with
#: ``_collections_abc``, ``posixpath`` and ``stat``: ``core/oscalls.py``).
NO_HOOK = {"pathlib", "urllib", "ipaddress", "fnmatch", "importlib", "os", "posixpath", "_collections_abc"}
#: Nor do these, in a hook that matches no pattern and shows no date but as seconds.
NO_PATTERN_OR_DATE = NO_HOOK | {"re", "enum", "functools", "collections", "datetime"}
#: Nor ``_datetime``, in a hook that dates nothing by a datetime: a session's date or a past failure's is read as
#: seconds (``light.micros``), and so is the gap that ends a failure's episode (``ending.apart``).
NO_PATTERN_OR_TIME = NO_PATTERN_OR_DATE | {"_datetime"}
#: Nor a filtered search's code or the project-name resolution, in a prompt's recall, which has neither a filter nor a
#: project to name: ``core/search.py`` loads the first only for a filter (0.6 M instructions a recalling prompt).
NO_FILTER = NO_PATTERN_OR_DATE | {"deja.core.search_filters", "deja.core.project_names"}


def _events(project: Path) -> dict[str, tuple[str, dict[str, Any], set[str]]]:
    """label -> (command, payload, what it must not load): each answered from the sample as a user's Cursor asks."""
    base = {"cursor_version": "2.4.21", "workspace_roots": [str(project)]}
    tool = {**base, "hook_event_name": "preToolUse"}
    shell_done = {"output": "3 passed", "exitCode": 0}
    return {
        "session start": ("hook-context", {**base, "hook_event_name": "sessionStart"}, NO_PATTERN_OR_TIME),
        "a file's edits": (
            "hook-tool",
            {**tool, "tool_name": "Write", "tool_input": {"path": str(project / "api/cache.py")}},
            NO_PATTERN_OR_TIME,
        ),
        "a command that succeeded": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUse",
                "tool_name": "Shell",
                "tool_input": {"command": "pytest -q"},
                "tool_output": json.dumps(shell_done),
            },
            NO_PATTERN_OR_TIME,
        ),
        "session end": (
            "hook-session-end",
            {**base, "hook_event_name": "sessionEnd", "conversation_id": "c0ffee00-ended"},
            NO_PATTERN_OR_TIME,
        ),
        # A prompt's words are tokenised without a pattern (``text._scan``); it reads no date when no session holds them.
        "a prompt that recalls nothing": (
            "hook-prompt",
            {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": "frobnicate the quuxified wibblers"},
            NO_FILTER,
        ),
        # A session it recalls is dated by ``_datetime``, the C module alone (``datetime`` compiles a Python twin).
        "a prompt that recalls": (
            "hook-prompt",
            {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": "pytest cannot import api.cache"},
            NO_FILTER,
        ),
        # Said as people say it: "out" is no phrase's cue alone (``thesaurus.PHRASES``), and a path of 16 characters
        # in a text with an ellipsis is asked the redaction gates with ``str``'s methods (``redaction.folds_into_ascii``).
        "a prompt that recalls, with an ellipsis and a path": (
            "hook-prompt",
            {
                **base,
                "hook_event_name": "beforeSubmitPrompt",
                "prompt": "pytest cannot import api.cache… figure out why, see tests/test_cache.py",
            },
            NO_FILTER,
        ),
        # Its last failure's error lines are read with ``str``'s methods (``core/errors.py``).
        "a Shell command": (
            "hook-tool",
            {**tool, "tool_name": "Shell", "tool_input": {"command": "pytest -q"}},
            NO_PATTERN_OR_TIME,
        ),
        # A command no session ran: no error lines to match, and no secret gate that needs ``re`` (``as_indexed``).
        "a Shell command never run": (
            "hook-tool",
            {**tool, "tool_name": "Shell", "tool_input": {"command": "npm run build"}},
            NO_PATTERN_OR_TIME,
        ),
        # Quotes and non-ASCII are split with ``str``'s methods (``keys.command_words``), not ``shlex`` (``re``).
        "a Shell command quoted": (
            "hook-tool",
            {**tool, "tool_name": "Shell", "tool_input": {"command": 'pytest -k "cache and not slow" \\\n -q'}},
            NO_PATTERN_OR_TIME,
        ),
        "a Shell command in non-ASCII": (
            "hook-tool",
            {**tool, "tool_name": "Shell", "tool_input": {"command": "echo café"}},
            NO_PATTERN_OR_TIME,
        ),
        # Its error lines, their signatures and quoted names are read with ``str``'s methods, and no redaction rule's
        # needles are in it, so no rule's pattern is asked.
        "a failed command": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUseFailure",
                "tool_name": "Shell",
                "tool_input": {"command": "python -m pytest tests/"},
                "error_message": "E   ModuleNotFoundError: No module named 'api.cache'",
            },
            NO_PATTERN_OR_TIME,
        ),
        # Two log times make four colons, and "machine", "default" are everyday words: no ``.pgpass`` line and no
        # ``.netrc`` entry (a ``password`` after them) is in these, so no rule's pattern is asked (review7a 7, 3).
        "a failed command with timestamps": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUseFailure",
                "tool_name": "Shell",
                "tool_input": {"command": "python worker.py"},
                "error_message": "10:00:01 starting worker\n10:00:02 worker died: exit 1",
            },
            NO_PATTERN_OR_TIME,
        ),
        "a failed command naming a machine": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUseFailure",
                "tool_name": "Shell",
                "tool_input": {"command": "make build"},
                "error_message": "using default settings\nno machine found for this build\nfatal error: build failed",
            },
            NO_PATTERN_OR_TIME,
        ),
        # Russian's "ключ" (a key) is inside "подключение" (a connection): only a word of its own asks the rules.
        "a failed command in Russian": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUseFailure",
                "tool_name": "Shell",
                "tool_input": {"command": "python app.py"},
                "error_message": "Ошибка подключения к базе данных",
            },
            NO_PATTERN_OR_TIME,
        ),
        # A redaction rule's needle (``://``) is in this one: the rule's pattern is asked, and ``re`` loaded for it.
        "a failed command with a credential": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUseFailure",
                "tool_name": "Shell",
                "tool_input": {"command": "python -m pytest tests/"},
                "error_message": "Error: cannot reach postgres://app:Hunter2hunter2@db/app",
            },
            NO_HOOK,
        ),
    }


@pytest.fixture
def launcher(tmp_path: Path) -> Path:
    return _installed_as_pip_does(tmp_path / "site-packages")


@pytest.mark.parametrize(
    "label",
    [
        "session start",
        "a file's edits",
        "a command that succeeded",
        "session end",
        "a prompt that recalls nothing",
        "a prompt that recalls",
        "a prompt that recalls, with an ellipsis and a path",
        "a Shell command",
        "a Shell command never run",
        "a Shell command quoted",
        "a Shell command in non-ASCII",
        "a failed command",
        "a failed command with timestamps",
        "a failed command naming a machine",
        "a failed command in Russian",
    ],
)
def test_a_hook_loads_no_pathlib_and_only_what_its_answer_needs(
    indexed_sample: Sample, launcher: Path, label: str
) -> None:
    command, payload, forbidden = _events(indexed_sample.history.projects["api"])[label]
    payload = {**payload, "conversation_id": payload.get("conversation_id", f"imports-{label}")}
    loaded, printed = _imports_without_site([str(launcher), command], json.dumps(payload).encode(), indexed_sample.env)
    assert "deja.hooks.run" in loaded  # (the hook ran)
    if (
        command in ("hook-context", "hook-tool")
        and not label.startswith("a Shell command")
        or label in ("a prompt that recalls", "a prompt that recalls, with an ellipsis and a path")
    ):
        assert b"deja show" in printed, f"{label}: the sample should have given an answer that names a session"
    assert (loaded | {name.split(".")[0] for name in loaded}) & forbidden == set()  # (deja's by their whole names)


def test_the_check_sees_what_a_hook_that_needs_patterns_loads(indexed_sample: Sample, launcher: Path) -> None:
    """The walk above would notice: a failed command's output that holds a credential is redacted by pattern, so
    ``re`` is loaded."""
    command, payload, _ = _events(indexed_sample.history.projects["api"])["a failed command with a credential"]
    loaded, _ = _imports_without_site([str(launcher), command], json.dumps(payload).encode(), indexed_sample.env)
    assert "re" in loaded


def test_only_a_conversations_first_event_loads_the_session_start_block(indexed_sample: Sample, launcher: Path) -> None:
    """A prompt of a conversation given the session-start block already is answered without ``hooks/context.py``
    (``HookCall.owed_opening`` is asked first); the first event of a conversation still carries the block."""
    events = _events(indexed_sample.history.projects["api"])
    _, start, _ = events["session start"]
    command, prompt, _ = events["a prompt that recalls"]

    def run(command: str, payload: dict[str, Any], conversation: str) -> tuple[set[str], bytes]:
        sent = json.dumps({**payload, "conversation_id": conversation}).encode()
        return _imports_without_site([str(launcher), command], sent, indexed_sample.env)

    first, printed = run(command, prompt, "opening-first")
    assert "deja.hooks.context" in first
    assert b"Recent sessions in this project" in printed
    run("hook-context", start, "opening-later")
    later, printed = run(command, prompt, "opening-later")
    assert b"deja show" in printed  # (it recalled)
    assert b"Recent sessions in this project" not in printed
    assert "deja.hooks.context" not in later


def test_only_a_hook_that_searches_loads_math(indexed_sample: Sample, launcher: Path) -> None:
    """``math`` (0.4 M instructions to load) scores a search's words (``Index.idf``): the hooks that name a file's,
    a command's or a session's past search nothing, and load none of it."""
    events = _events(indexed_sample.history.projects["api"])
    for label in ("session start", "a file's edits", "a command that succeeded", "a Shell command", "a failed command"):
        command, payload, _ = events[label]
        sent = json.dumps({**payload, "conversation_id": f"math-{label}"}).encode()
        loaded, _ = _imports_without_site([str(launcher), command], sent, indexed_sample.env)
        assert "deja.hooks.run" in loaded and "math" not in loaded, label
    command, payload, _ = events["a prompt that recalls"]
    sent = json.dumps({**payload, "conversation_id": "math-prompt"}).encode()
    assert "math" in _imports_without_site([str(launcher), command], sent, indexed_sample.env)[0]


def test_a_failed_command_holding_a_token_is_recalled_without_its_redaction_rules(
    indexed_sample: Sample, tmp_path: Path
) -> None:
    """The failure hook read its command ``as_indexed`` (redacted as the index holds it) for the host of an HTTP
    status line (errs54): so a failed ``git push`` whose remote URL holds a token compiles the
    redaction rules (``re`` and a dozen patterns) though its output holds no status line and no credential, and the
    command's host is never asked. Callgrind (/tmp/review54e/cg, 1k index, no past failure): 55.0 M instructions
    before errs54, 115.6-118.2 M after (2.1x); 53.6 M for the same push without the token. The host of a status line
    drops a URL's user and password anyway (``errors.url_host``)."""
    project = indexed_sample.history.projects["api"]
    payload = {
        "cursor_version": "2.4.21",
        "workspace_roots": [str(project)],
        "conversation_id": "review54e-token",
        "hook_event_name": "postToolUseFailure",
        "tool_name": "Shell",
        "tool_input": {
            "command": "git push https://x-access-token:ghp_0123456789abcdefABCDEF0123456789abcd@github.com/o/r"
        },
        "error_message": "remote: Permission to o/r.git denied to bot.\nfatal: Authentication failed for 'https://github.com/o/r/'",
    }
    launcher = _installed_as_pip_does(tmp_path / "site-packages")
    loaded, _ = _imports_without_site(
        [str(launcher), "hook-tool-after"], json.dumps(payload).encode(), indexed_sample.env
    )
    assert "deja.hooks.run" in loaded  # (the hook ran)
    assert (loaded | {name.split(".")[0] for name in loaded}) & NO_PATTERN_OR_TIME == set(), sorted(
        loaded & NO_PATTERN_OR_TIME
    )
