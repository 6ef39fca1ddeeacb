"""An error or command holding a secret is looked up as the index holds it, redacted, and never echoed.

The index keeps ``postgres://svc:[redacted:url-credentials]@…``; the raw text a person pastes into ``deja fix``,
or Cursor hands the failure hook and the preToolUse hook, holds the password itself. Real cursor-agent chats
(transcript and store.db) are written and indexed; deja runs as a separate process, as a person or Cursor runs it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness import run_deja
from redaction_corpus import SECRETS

from deja.core.indexer import refresh
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)

SECRET = "Pw99secretXYZ"
ERROR = f"FATAL: could not connect to postgres://svc:{SECRET}@dbhost/orders: password authentication failed"
PSQL = f"psql postgres://svc:{SECRET}@dbhost/orders -c 'select 1'"
CHAT = "f2f2f2f2-0000-4000-8000-000000000002"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A chat where ``./dbcheck.sh`` failed with ``ERROR``, ``PSQL`` ran, and ``./dbcheck.sh`` then passed."""
    project = tmp_path / "shop"
    project.mkdir()
    cli_root = tmp_path / "cursor-agent"
    calls = [("a", "./dbcheck.sh", ERROR, 1), ("b", PSQL, "1", 0), ("c", "./dbcheck.sh", "ok", 0)]
    write_transcript(
        transcript_path(cli_root, str(project), CHAT),
        [
            user_turn("dbcheck fails"),
            *(assistant_turn("Running.", tool_use("Shell", {"command": command})) for _, command, _, _ in calls),
            assistant_turn("Fixed: restarted pgbouncer."),
            turn_ended(),
        ],
    )
    messages: list[dict[str, Any]] = [store_user_message("dbcheck fails")]
    for call_id, command, output, code in calls:
        messages.append(store_assistant_message("Running.", tool_call_part(call_id, "Shell", {"command": command})))
        messages.append(tool_result_message(call_id, "Shell", shell_result_text(output, exit_code=code)))
    messages.append(store_assistant_message("Fixed: restarted pgbouncer."))
    write_chat_store(
        chat_dir_for(cli_root, str(project), CHAT), cwd=str(project), name="dbcheck fails", messages=messages
    )
    (tmp_path / "no-ide").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli_root))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    refresh(tmp_path / "deja")
    return project


def test_deja_fix_finds_an_error_that_holds_a_secret_and_does_not_echo_it(project: Path) -> None:
    done = run_deja("fix", ERROR)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("this error came up in 1 past session"), done.stdout
    assert SECRET not in done.stdout + done.stderr


def test_deja_fix_echoes_no_secret_when_nothing_matches(project: Path) -> None:
    done = run_deja("fix", f"ERROR: token=ghp_{'a' * 36} rejected by quuxhost")
    assert done.stdout.startswith("this error has not come up in a past session: ERROR: token=[redacted:")
    assert "ghp_aaaa" not in done.stdout


def _hook(name: str, payload: dict[str, Any], project: Path) -> str:
    base = {"conversation_id": "x2", "generation_id": "g", "workspace_roots": [str(project)], "tool_name": "Shell"}
    done = run_deja(name, input=json.dumps({**base, **payload}).encode(), env=dict(os.environ))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return str(json.loads(done.stdout)["additional_context"]) if done.stdout.strip() else ""


def test_the_failure_hook_recalls_an_error_that_holds_a_secret(project: Path) -> None:
    payload = {
        "hook_event_name": "postToolUseFailure",
        "tool_input": {"command": "./dbcheck.sh"},
        "error_message": ERROR,
    }
    recalled = _hook("hook-tool-after", payload, project)
    assert "This error came up before, in 1 past session" in recalled
    assert SECRET not in recalled


def test_the_pre_tool_hook_knows_a_command_that_holds_a_secret(project: Path) -> None:
    recalled = _hook("hook-tool", {"hook_event_name": "preToolUse", "tool_input": {"command": PSQL}}, project)
    redacted = PSQL.replace(SECRET, "[redacted:url-credentials]")
    assert f"`{redacted}` ran 1 time in this project before" in recalled, "the command itself, not only its head"
    assert SECRET not in recalled


def test_the_check_before_the_rules_says_yes_wherever_a_gate_would() -> None:
    """``as_indexed`` asks the gates with ``str``'s methods (a Shell hook loads no ``re``): it may say yes where no
    gate would, never no where one would, so no secret a gate lets through is looked up unredacted."""
    import random
    import re

    from deja.core import redaction

    gates = re.compile(f"{redaction.TOKEN_GATE}|{redaction.CONTEXT_GATE}")
    alphabet = list("abENVBASICp-:=<'\" \t\n\x1c\u2003_./x0123456789") + ["ENV ", "basic ", " -p", "--"]
    alphabet += ["redis-", "REDIS-cli", "requirepass", "MasterAuth", " -a "]
    alphabet += ["machine ", "machine", "default\u2028", "password"]
    rng = random.Random(5)
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(20_000)]
    texts += [secret.text for secret in SECRETS] + ["a" * 15, "a" * 16, "npm run build", "ls -la src"]
    for text in texts:
        if gates.search(text):
            assert redaction._may_pass_a_gate(text), repr(text)


def test_a_title_cut_from_the_first_question_shows_no_piece_of_a_secret(cli_root: Path, tmp_path: Path) -> None:
    """The title is the first question's line cut at 80 characters; cut before it was redacted, the cut left a piece
    no rule knows ("… the api token is 8f14…", trialG's F6). It is cut from the redacted question."""
    token = "8f14e45f" + "ceea167a" + "5a36dedd" + "4bea2543"
    question = f"grafana login fails. the admin password is Xy7#kq9!Lm and the api token is {token}"
    project = tmp_path / "ops"
    project.mkdir()
    chat = "66666666-bbbb-4ccc-8ddd-000000000001"
    write_transcript(
        transcript_path(cli_root, str(project), chat),
        [user_turn(question), assistant_turn("Reset it with grafana-cli admin reset-admin-password.")],
    )
    refresh()
    shown = run_deja("show", chat, "--json")
    assert shown.returncode == 0, shown.stderr
    title = json.loads(shown.stdout)["session"]["title"]
    assert title.startswith("grafana login fails. the admin password is [redacted:secret] and the api token")
    assert "8f14" not in title and "8f14" not in shown.stdout


def test_a_prompt_that_carries_a_password_and_a_token_still_recalls_its_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index holds a secret redacted, so a prompt's secret is no word a session can hold: counted as asked, a
    password and a token pasted with the question kept it from recalling the session it was about (trial10 F12)."""
    from harness import hook_prompt

    cli_root = tmp_path / "cursor-agent"
    chats = {
        "c-compose": (
            "docker compose up fails: the web container cannot reach postgres",
            "Put web and db on one network.",
        ),  # fmt: skip
        "c-css": ("the cart button is misaligned on mobile", "A flex-basis of 0 on the cart row."),
        "c-sql": ("the invoice report query is slow", "Added an index on invoices.customer_id."),
    }
    topics = [
        "flaky login test",
        "slow webpack build",
        "typo in the README",
        "bump the eslint config",
        "rename a column",
    ]
    chats.update({f"c-{n}": (f"{topic} again", f"Done: {topic}.") for n, topic in enumerate(topics)})
    for chat_id, (ask, answer) in chats.items():
        folder = tmp_path / "code" / chat_id
        folder.mkdir(parents=True)
        write_transcript(transcript_path(cli_root, str(folder), chat_id), [user_turn(ask), assistant_turn(answer)])
    (tmp_path / "no-ide").mkdir()
    (tmp_path / "elsewhere").mkdir()
    env = {
        **os.environ,
        "DEJA_HOME": str(tmp_path / "deja"),
        "DEJA_CURSOR_CLI_ROOT": str(cli_root),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
    }
    assert run_deja("index", env=env).returncode == 0
    asked = "docker compose web cannot reach postgres"
    secrets = ", DATABASE_URL has password Xk9mPq2Lw7zQ and token ghp_Bb1Cc2Dd3Ee4Ff5Gg6Hh7Ii8Jj9Kk0Ll1Mm2Nn"
    assert "Put web and db on one network." in hook_prompt(env, asked, str(tmp_path / "elsewhere"), "c-1")
    said = hook_prompt(env, asked + secrets, str(tmp_path / "elsewhere"), "c-2")
    assert "Put web and db on one network." in said, said
    assert "Xk9mPq2Lw7zQ" not in said and "ghp_" not in said
    # a conversation's first prompt that recalls nothing still gets the session-start block: the log says both
    hook_prompt(env, "harmonise the quaternion gimbal", str(tmp_path / "code" / "c-css"), "c-3")
    logged = run_deja("hooks", "log", env=env).stdout.splitlines()[-1]
    assert "gave " in logged and "nothing of its own: " in logged and "with the session-start block" in logged, logged


def test_a_search_for_a_pasted_key_matches_no_session_through_its_pieces(tmp_path: Path) -> None:
    """``deja search sk_live_…`` (a user checking whether deja kept the key) found sessions through the ``live`` of
    its prefix, which read as a leak (trial11 F2): the key is no word of the query, and the answer says why (the MCP
    ``search`` tool searches the same words: ``redaction.searched_words``)."""
    cli_root = tmp_path / "cursor-agent"
    key = "sk_live_51HxQz7TuV9wXyZa2bCdEfGhIjKlMnOpQrStUvWx"
    chats = {"c-live": "list of recent live scripts", "c-key": f"the stripe key is {key}"}
    for chat_id, text in chats.items():
        write_transcript(transcript_path(cli_root, str(tmp_path / "shop"), chat_id), [user_turn(text), assistant_turn("Ok.")])  # fmt: skip
    (tmp_path / "no-ide").mkdir()
    env = {**os.environ, "DEJA_HOME": str(tmp_path / "deja"), "DEJA_CURSOR_CLI_ROOT": str(cli_root), "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide")}  # fmt: skip
    assert run_deja("index", env=env).returncode == 0
    found = run_deja("search", key, env=env)
    assert found.returncode == 0, found.stderr
    # (the key itself never printed back: trial13 F3)
    assert found.stdout == 'No session matches "[redacted:stripe-key]": it is a secret, which deja never keeps as written.\n'  # fmt: skip
    as_json = json.loads(run_deja("search", key, "--json", env=env).stdout)
    assert as_json["hits"] == [] and as_json["query"] == "[redacted:stripe-key]"  # what was asked (review13 R13-3)
    assert "c-key" in run_deja("search", "stripe", key, env=env).stdout  # the other words still search
    # ctx and handoff chose a session holding another key by the marker's words, "stripe key" (trial23 F2)
    for verb in ("ctx", "handoff"):
        done = run_deja(verb, key, env=env)
        assert (done.returncode, done.stdout) == (1, ""), done.stdout
        assert done.stderr == (
            "deja: [redacted:stripe-key] is a secret, which deja never keeps as written: give a session's id or other "
            "words\n"
        )


GITHUB_TOKEN = "ghp_" + "R8x2Lq9ZtV4mK7pW1nY6cJ3hF0sD5aB2eG8u"
AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"


@pytest.mark.parametrize(
    ("pasted", "marker", "quoted"),
    [
        (f"'{GITHUB_TOKEN}'", "'[redacted:github-token]'", "\"'[redacted:github-token]'\""),
        (f"{GITHUB_TOKEN},", "[redacted:github-token],", '"[redacted:github-token],"'),
        (f"({GITHUB_TOKEN})", "([redacted:github-token])", '"([redacted:github-token])"'),
        (f'"{AWS_KEY}"', '"[redacted:aws-key]"', "'\"[redacted:aws-key]\"'"),  # (a double quote in single ones)
        # Escapes whose letters and digits were left as words ("n", "quot", "22": review43c M2).
        (f"{GITHUB_TOKEN}\\n", "[redacted:github-token]\\n", '"[redacted:github-token]\\n"'),
        (f"&quot;{GITHUB_TOKEN}&quot;", "&quot;[redacted:github-token]&quot;", '"&quot;[redacted:github-token]&quot;"'),
        (f"%22{AWS_KEY}%22", "%22[redacted:aws-key]%22", '"%22[redacted:aws-key]%22"'),
        (
            f"\\u0022{GITHUB_TOKEN}\\u0022",
            "\\u0022[redacted:github-token]\\u0022",
            '"\\u0022[redacted:github-token]\\u0022"',
        ),
    ],
)
def test_a_secret_pasted_with_the_punctuation_around_it_is_still_named_a_secret(
    tmp_path: Path, pasted: str, marker: str, quoted: str
) -> None:
    """A key copied with its quotes, brackets or comma left the punctuation as the query's words, and ``search``,
    ``ctx`` and ``handoff`` said no session's words matched it rather than why (review42d L3); no piece of the key
    is said back."""
    cli_root = tmp_path / "cursor-agent"
    write_transcript(transcript_path(cli_root, str(tmp_path / "shop"), "c-1"), [user_turn("ship it"), assistant_turn("Ok.")])  # fmt: skip
    (tmp_path / "no-ide").mkdir()
    env = {**os.environ, "DEJA_HOME": str(tmp_path / "deja"), "DEJA_CURSOR_CLI_ROOT": str(cli_root), "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide")}  # fmt: skip
    assert run_deja("index", env=env).returncode == 0
    found = run_deja("search", pasted, env=env)
    assert (found.returncode, found.stderr) == (0, "")
    assert found.stdout == f"No session matches {quoted}: it is a secret, which deja never keeps as written.\n"
    said = found.stdout
    for verb in ("ctx", "handoff"):
        done = run_deja(verb, pasted, env=env)
        assert (done.returncode, done.stdout) == (1, ""), done.stdout
        assert done.stderr == (
            f"deja: {marker} is a secret, which deja never keeps as written: give a session's id or other words\n"
        )
        said += done.stderr
    assert "ghp_" not in said and "AKIA" not in said and "EXAMPLE" not in said


@pytest.mark.parametrize(
    ("prompt", "loads"),
    [
        ("pytest cannot import api.cache on my laptop", False),
        ("why does src/vojegu_ziba.py fail the lint after the hotfix", False),  # a long path, no token's needle
        ("why does src/vojegu_ziba.py fail the lint after the hotfix…", False),  # (outside ASCII too)
        ("why does src/ghost_client.py fail the lint", True),  # a long path holding a needle (``gh``)
        ("clone x-access-token:ghp_R8x2Lq9ZtV4mK7pW1nY6cJ3hF0sD5aB2eG8u@github.com/org/repo.git fails", True),
        ("the deploy fails, DATABASE_URL=postgres://svc:Pw99secretXYZ@db/app", True),
        ("is the key sk_live_51HxQz7TuV9wXyZa2bCdEfGh still valid", True),
        ("the aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY stopped working", True),  # a key holding "/"
    ],
)
def test_a_prompt_loads_the_redaction_rules_only_when_it_may_hold_a_key(prompt: str, loads: bool) -> None:
    """Every prompt's hook takes the secrets out of it; the rules (about 2 ms with their gates) load only for one
    that may hold a key (a git remote's token ending in ``.git`` passed a test for a path's shape: review14 R14-1):
    a run of 16 characters holding a needle of a token rule (``redaction.TOKEN_NEEDLES``), or what another gate
    lets through."""
    import subprocess
    import sys

    code = f"import sys; from deja.core.redaction import without_secrets; without_secrets({prompt!r}); print('deja.core.redact' in sys.modules)"  # fmt: skip
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == str(loads), ran.stdout + ran.stderr
