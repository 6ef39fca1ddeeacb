"""What the hooks say a past session answered: the answer that closed the turn, the prose of a conclusion, each turn
once, and cuts between words (trial21 F3, F5, F7, F8).

A new user's trial saw the prompt hook recall "user: pytest fails … / assistant: Running the tests." (the agent's
opening line) and, for a chat whose answer came after tool calls alone, no answer at all; sessionStart's "concluded:"
lines of real editor chats were "I'll help you … Here are the necessary changes: ```scss …" cut mid-code; chats
repeating another chat's turn showed it three times; the failure hook cut "succeeded" to "succe…"; and the name of a
pasted secret (``AWS_SECRET_ACCESS_KEY=…``) recalled the session where keys were pasted.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness import failure_hook, hook_prompt, run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
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
from deja.core.writers.ide import composer_data, write_state_vscdb, write_workspace

NOW = datetime.now(UTC).replace(microsecond=0)
REFUSED = (
    'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused'
)
FIXED = "Fixed: the db container was down; `docker compose up -d db` then the 23 tests pass."
KEY_FIX = "The key lost its trailing newline when pasted; I rewrote it with one and set mode 600. ssh works now."
#: A private key pasted in a prompt (the index holds it redacted): a question that is mostly a secret.
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUTRIAL21PRIVATEKEYBODYAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBTRIAL21MOREKEYMATERIALxyzxyzxyzxyzxyzxyzxyzxyzAAAAJgAAAAA\n-----END OPENSSH PRIVATE KEY-----"
)
#: Chats of other things, so that words are as rare as in a history.
OTHERS = [
    ("bump the eslint config to flat config", "Moved .eslintrc to eslint.config.js."),
    ("the docs site build is slow", "Cached the node modules in CI."),
    ("rename the billing module to payments", "Renamed, imports updated."),
    ("add a healthcheck endpoint", "Added /healthz returning 200."),
    ("the celery worker can't reach redis", "Exported REDIS_URL from .env and it connects."),
    ("terraform plan shows drift on the bucket", "Imported the bucket into state."),
]


def _shell(n: int, command: str, output: str, code: int = 0) -> list[dict]:
    return [
        store_assistant_message(None, tool_call_part(f"t{n}", "Shell", {"command": command})),
        tool_result_message(f"t{n}", "Shell", shell_result_text(output, exit_code=code)),
    ]


def _agent_chat(
    home: Path, project: Path, chat: str, asked: str, records: list[dict], store: list[dict], days: int
) -> None:
    """A cursor-agent chat as cursor-agent writes it: its transcript (``asked``, then ``records``) and its store."""
    start = NOW - timedelta(days=days)
    write_transcript(transcript_path(home / ".cursor", str(project), chat), [user_turn(asked, start), *records])
    write_chat_store(
        chat_dir_for(home / ".cursor", str(project), chat),
        cwd=str(project),
        messages=[*store_preamble(str(project)), store_user_message(asked, start), *store],
        name=chat,
        created_ms=int(start.timestamp() * 1000),
        updated_ms=int(start.timestamp() * 1000) + 600_000,
    )


def _history(home: Path) -> dict[str, Path]:
    """Two projects: shop (the db fix, a chat with keys pasted) and infra (a store-only chat answered after tool calls
    alone), beside chats of other things."""
    shop, infra = home / "code" / "shop", home / "code" / "infra"
    for project in (shop, infra):
        (project / ".git").mkdir(parents=True)
    _agent_chat(
        home,
        shop,
        "a1000000-0000-4000-8000-000000000001",
        "pytest fails with a connection refused on the db, fix it",
        [
            assistant_turn("Running the tests.", tool_use("Shell", {"command": "pytest -q tests/test_orders.py"})),
            assistant_turn(
                "Postgres is not running locally. Starting it with docker compose.",
                tool_use("Shell", {"command": "docker compose up -d db"}),
            ),
            assistant_turn(None, tool_use("Shell", {"command": "pytest -q tests/test_orders.py"})),
            assistant_turn(FIXED),
            turn_ended(),
        ],
        [
            *_shell(1, "pytest -q tests/test_orders.py", f"E   {REFUSED}\n1 error in 0.40s", 1),
            *_shell(2, "docker compose up -d db", "Container shop-db-1  Started"),
            *_shell(3, "pytest -q tests/test_orders.py", "23 passed in 1.92s"),
            store_assistant_message(FIXED),
        ],
        19,
    )
    _agent_chat(
        home,
        infra,
        "b2000000-0000-4000-8000-000000000001",
        "terraform apply says no valid credential sources. my keys: aws_access_key_id=AKIAT21QWERTYUIOPASD "
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYTRIAL21KEY",
        [
            assistant_turn("Apply complete with AWS_PROFILE=acme-dev."),
            turn_ended(),
        ],
        [store_assistant_message("Apply complete with AWS_PROFILE=acme-dev.")],
        17,
    )
    start = NOW - timedelta(days=11)
    write_chat_store(
        chat_dir_for(home / ".cursor", str(infra), "b2000000-0000-4000-8000-000000000002"),
        cwd=str(infra),
        messages=[
            *store_preamble(str(infra)),
            store_user_message(
                f"ssh to the bastion fails with 'invalid format'. this is the key file:\n{PRIVATE_KEY}", start
            ),
            *_shell(
                1, "ssh -i ~/.ssh/bastion ec2-user@bastion", 'Load key "/home/me/.ssh/bastion": invalid format', 255
            ),
            *_shell(
                2, "chmod 600 ~/.ssh/bastion && ssh-keygen -y -f ~/.ssh/bastion", "ssh-ed25519 AAAAC3Nza me@laptop"
            ),
            store_assistant_message(KEY_FIX),
        ],
        name="Bastion ssh invalid format",
        created_ms=int(start.timestamp() * 1000),
        updated_ms=int(start.timestamp() * 1000) + 300_000,
    )
    for n, (asked, answered) in enumerate(OTHERS):
        records = [user_turn(asked, NOW - timedelta(days=n + 1)), assistant_turn(answered), turn_ended()]
        write_transcript(transcript_path(home / ".cursor", str(shop if n % 2 else infra), f"c-other-{n}"), records)
    assert run_deja("index").returncode == 0
    return {"shop": shop, "infra": infra}


def test_a_recalled_turn_ends_on_the_answer_that_closed_it(fake_home: Path) -> None:
    projects = _history(fake_home)
    prompt = "pytest says connection refused on port 5432 when running the orders tests, what do I do?"
    recalled = hook_prompt(dict(os.environ), prompt, str(projects["shop"]))
    assert "user: pytest fails with a connection refused on the db, fix it" in recalled, recalled
    assert f"assistant: {FIXED}" in recalled and "Running the tests." not in recalled


def test_a_turn_answered_after_tool_calls_alone_is_recalled_with_its_answer(fake_home: Path) -> None:
    projects = _history(fake_home)
    prompt = "ssh -i ~/.ssh/bastion ec2-user@bastion says invalid format"  # the command: its message has no text
    recalled = hook_prompt(dict(os.environ), prompt, str(projects["infra"]))
    assert "user: ssh to the bastion fails with 'invalid format'" in recalled, recalled
    assert f"assistant: {KEY_FIX}" in recalled


def test_a_pasted_secrets_name_recalls_nothing(fake_home: Path) -> None:
    projects = _history(fake_home)
    prompt = (
        "deploy fails, I set AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYTRIAL21NEW, what is wrong with alembic"
    )
    recalled = hook_prompt(dict(os.environ), prompt, str(projects["shop"]))
    assert "b2000000-0000-4000-8000-000000000001" not in recalled, recalled


def test_the_failure_hook_leaves_a_fix_its_conclusion_names_to_it_rather_than_cut_both(fake_home: Path) -> None:
    projects = _history(fake_home)
    said = failure_hook(projects["shop"], "pytest -q tests/test_orders.py", f"E   {REFUSED}\n1 error in 0.41s")
    assert "a1000000-0000-4000-8000-000000000001" in said, said
    assert f"Concluded: {FIXED}" in said and "What followed" not in said


T0 = int((NOW - timedelta(days=3)).timestamp() * 1000)
CODE_ANSWER = (
    "I'll help you apply dark mode styling to the copilot window. Here are the necessary changes:\n\n"
    "```scss:src/global.scss\nbody.dark {\n  .message { background: var(--ion-color-step-100); }\n}\n```\n\n"
    "```typescript:src/app/settings/settings.page.ts\nlocalStorage.setItem('theme', 'dark');\n```\n\n"
    "These changes will:\n1. Keep the dark theme after a reload\n2. Style the copilot messages in dark mode"
)
REPEATED = ("make the settings page switch between light and dark mode", "Added a toggle bound to body.dark.")


def _editor_history(home: Path, chats: dict[str, tuple[str, list[str]]], folder: Path) -> None:
    """Editor chats (name, then user and assistant turns in turn) in a workspace opened at ``folder``."""
    composers, bubbles = {}, {}
    for n, (cid, (name, turns)) in enumerate(chats.items()):
        ids = [(f"b{i}", 1 if i % 2 == 0 else 2) for i in range(len(turns))]
        composers[cid] = composer_data(cid, ids, created_at=T0 + n * 60_000, name=name)
        bubbles[cid] = {
            bid: {"type": kind, "text": text, "createdAt": T0 + n * 60_000 + i * 1000}
            for i, ((bid, kind), text) in enumerate(zip(ids, turns, strict=True))
        }
    user = home / ".config" / "Cursor" / "User"
    write_state_vscdb(user / "globalStorage" / "state.vscdb", composers=composers, bubbles=bubbles)
    write_workspace(user, "7a1e0000000000000000000000000001", folder=str(folder), all_composers=list(chats))
    assert run_deja("index").returncode == 0


def _session_start(project: Path) -> str:
    payload = {
        "conversation_id": "c-start",
        "hook_event_name": "sessionStart",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
    }
    done = run_deja("hook-context", input=json.dumps(payload))
    assert done.returncode == 0 and not done.stderr, done.stderr
    return json.loads(done.stdout)["additional_context"] if done.stdout.strip() else ""


def test_a_conclusion_is_the_prose_of_an_answer_not_its_code(fake_home: Path) -> None:
    notes = fake_home / "code" / "notes"
    notes.mkdir(parents=True)
    _editor_history(
        fake_home, {"d0000000-0000-4000-8000-000000000001": ("Dark mode", ["apply dark mode", CODE_ANSWER])}, notes
    )
    said = _session_start(notes)
    assert (
        "concluded: Code for src/global.scss, src/app/settings/settings.page.ts. These changes will: 1. Keep the dark "
        "theme after a reload 2. Style the copilot messages in dark mode" in said
    ), said
    assert "body.dark" not in said and "I'll help you" not in said


def test_a_turn_two_chats_repeat_is_shown_once(fake_home: Path) -> None:
    notes = fake_home / "code" / "notes"
    notes.mkdir(parents=True)
    chats = {
        "d0000000-0000-4000-8000-000000000002": ("Settings page", list(REPEATED)),
        "d0000000-0000-4000-8000-000000000003": ("Settings page again", list(REPEATED)),
        **{
            f"d0000000-0000-4000-8000-1000000000{n:02}": (asked, [asked, answered])
            for n, (asked, answered) in enumerate(OTHERS)
        },
    }
    _editor_history(fake_home, chats, notes)
    recalled = hook_prompt(dict(os.environ), "the settings toggle between light and dark mode", str(notes))
    assert "d0000000-0000-4000-8000-000000000002" in recalled and "d0000000-0000-4000-8000-000000000003" in recalled
    assert recalled.count(REPEATED[0]) == 1 and recalled.count(REPEATED[1]) == 1, recalled
    assert "  (the same turn as d0000000's above)\n" in recalled, recalled  # (which one: review41c M3)


def test_a_turn_two_chats_above_showed_between_them_is_one_line(fake_home: Path) -> None:
    """trial43 F10: a hit whose question one chat above showed and whose answer another did was nothing but
    "(the same as X's above)" twice in the prompt hook's recall."""
    notes = fake_home / "code" / "notes"
    notes.mkdir(parents=True)
    own = "Kept the palette in a CSS variable so only a class flips."
    chats = {
        "d1000000-0000-4000-8000-000000000002": ("Settings page", list(REPEATED)),
        "d2000000-0000-4000-8000-000000000003": ("Toggle", [REPEATED[0], own]),
        "d3000000-0000-4000-8000-000000000004": ("Again", [REPEATED[0], own]),
        **{
            f"d0000000-0000-4000-8000-1000000000{n:02}": (asked, [asked, answered])
            for n, (asked, answered) in enumerate(OTHERS)
        },
    }
    _editor_history(fake_home, chats, notes)
    recalled = hook_prompt(dict(os.environ), "the settings toggle between light and dark mode", str(notes))
    assert recalled.count("(the same as ") <= 1, recalled
    assert "\n  (the same turn as d1000000's and d2000000's above)\n" in recalled, recalled


def test_a_line_cut_to_fit_ends_between_words(fake_home: Path) -> None:
    notes = fake_home / "code" / "notes"
    notes.mkdir(parents=True)
    asked = " ".join(["why does the nightly migration deadlock against the reporting replica"] * 3)
    answer = " ".join(["The migration now runs each step inside its own transaction and retries deadlocks"] * 4)
    chats = {f"d0000000-0000-4000-8000-00000000000{n}": (f"Migrations {n}", [asked, answer]) for n in range(4, 8)}
    _editor_history(fake_home, chats, notes)
    said = _session_start(notes)
    cut = [line for line in said.splitlines() if line.startswith(("  asked: ", "  concluded: ")) and line.endswith("…")]
    assert cut, said  # four sessions' details do not fit 2 KiB whole
    for line in cut:
        kept = line.removesuffix("…").split(": ", 1)[1]
        whole = asked if line.startswith("  asked: ") else answer
        assert whole.startswith(kept) and whole[len(kept)] == " ", line


def test_deja_search_shows_a_turn_two_chats_repeat_once_and_names_the_first(fake_home: Path) -> None:
    """``deja search`` (and MCP ``search``, which prints the same text) says a hit's passages a hit above showed are
    that hit's, as the prompt hook does: a real editor database printed one turn in three or four hits (trial22 N5).
    Its JSON keeps every hit's passages whole."""
    notes = fake_home / "code" / "notes"
    notes.mkdir(parents=True)
    first, second = "d0000000-0000-4000-8000-000000000002", "d0000000-0000-4000-8000-000000000003"
    _editor_history(fake_home, {first: ("Settings page", list(REPEATED)), second: ("Again", list(REPEATED))}, notes)
    done = run_deja("search", "settings toggle light dark mode")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(REPEATED[1]) == 1 and done.stdout.count(first) == 2, done.stdout
    assert f"\n  (the same turn as {first}'s above)" in done.stdout, done.stdout
    hits = json.loads(run_deja("search", "settings toggle light dark mode", "--json").stdout)["hits"]
    assert [REPEATED[1] in json.dumps(hit["snippets"]) for hit in hits] == [True, True]


def test_deja_search_says_whose_a_passage_a_hit_above_showed_was(fake_home: Path) -> None:
    """A hit whose question a hit above showed, and whose answer is its own, says so of the question alone."""
    notes = fake_home / "code" / "notes"
    notes.mkdir(parents=True)
    own = "Kept the dark palette in a CSS variable so the settings toggle only flips a class."
    chats = {
        "d0000000-0000-4000-8000-000000000002": ("Settings page", list(REPEATED)),
        "d0000000-0000-4000-8000-000000000003": ("Again", [REPEATED[0], own]),
    }
    _editor_history(fake_home, chats, notes)
    done = run_deja("search", "settings page light dark mode toggle")
    first, second = done.stdout.split("\n\n")[:2]
    first_id = first.splitlines()[1].split()[0]
    assert f"user: {REPEATED[0]}" in first and f"user: (the same as {first_id}'s above)" in second, done.stdout
    assert "assistant: " in second and "(the same turn" not in second, done.stdout
