"""A secret a person types into deja's arguments is never printed back as written (trial13 F3).

Pasting a token into the wrong argument is how secrets reach a terminal's scrollback, a CI log, or, through an MCP
tool's error, a model's context: deja's own lines that name a value they refuse or found nothing for (errors, "no
match" lines, a JSON answer's ``query``) say it as the index holds such text, ``[redacted:…]``, as ``deja fix``
already did.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from harness import index_chats, run_deja
from mcp.server.mcpserver.exceptions import ToolError

from deja.interfaces.mcp_server import build_server

OPENAI = "sk-proj-Q7vT3kLm9Xp2Rw8Yz4Nb6Hc1Jd5Fg0SaUe7Io3Pq2Wr9Ty6Ui4Op8As1Df5Gh"
GITHUB = "ghp_4fK9mQ2xR7vT1bN8cZ3wY6pL0sD5hJ2gA9eU"
PASSWORD = "Tr0ub4dorHorseBattery77"
CHATS = {
    "a1a1a1a1-0000-4000-8000-000000000003": ["why does the pool run dry?", "The pool size was 5."],
    "a1a1a1a1-0000-4000-8000-000000000004": ["tune the postgres pool", "Raised max_connections."],
}
OTHER = "ghp_9aB3cD5eF7gH1iJ3kL5mN7oP9qR1sT3uV5wX"


@pytest.fixture
def indexed(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    index_chats(tmp_path, monkeypatch, CHATS)
    return fake_home


@pytest.mark.parametrize(
    ("args", "code", "secret"),
    [
        (("show", OPENAI), 1, OPENAI),
        (("resume", f"postgres://admin:{PASSWORD}@db/x"), 1, PASSWORD),
        (("blame", f"src/{GITHUB}.py"), 0, GITHUB),
        (("search", "pool", "--project", GITHUB), 1, GITHUB),
        (("search", "pool", "--since", GITHUB), 2, GITHUB),
        (("search", GITHUB), 0, GITHUB),
        (("search", GITHUB, "--json"), 0, GITHUB),
        (("config", "set", "cursor_root", f"/tmp/nope/{GITHUB}"), 2, GITHUB),
        (("blame", f"postgres://admin:{PASSWORD}@db/x"), 0, PASSWORD),  # (the path tidied: postgres:/admin:…)
        (("blame", GITHUB, "--json"), 0, GITHUB),
        (("sessions", "--project", GITHUB), 1, GITHUB),
        (("files", GITHUB), 0, GITHUB),
        (("files", "pool", "--project", GITHUB), 1, GITHUB),
    ],
)
def test_a_value_typed_is_echoed_redacted(indexed: Path, args: tuple[str, ...], code: int, secret: str) -> None:
    done = run_deja(*args, cwd=indexed)
    said = done.stdout + done.stderr
    assert done.returncode == code, said
    assert secret not in said and "[redacted:" in said, said


def test_a_secret_refused_for_redactions_own_broken_setting_is_redacted(fake_home: Path) -> None:
    """Whether redaction is on is a setting: when that setting is the one refused, the value is redacted all the
    same, in one line, and no lookup of the setting goes round in circles (a RecursionError's traceback)."""
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'redact = "{OTHER}"\n')
    for args in (("config", "set", "redact", GITHUB), ("config", "set", "recall", GITHUB)):
        done = run_deja(*args, cwd=fake_home)
        assert done.returncode == 2 and done.stdout == "", done
        assert done.stderr.count("\n") == 1 and "[redacted:" in done.stderr, done.stderr
        assert GITHUB not in done.stderr and OTHER not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "query",
    [
        "nothing here matches " + "zq " * 10 + GITHUB,  # cut to 80 characters inside the token (review20 R20-1)
        f"{GITHUB}  {OTHER}",  # two tokens in one argument, spaces folded in the echo (review20 R20-2)
    ],
)
def test_a_query_echoed_shows_no_part_of_a_secret(indexed: Path, query: str) -> None:
    for args in (("search", query), ("search", query, "--json")):
        done = run_deja(*args, cwd=indexed)
        said = done.stdout + done.stderr
        assert GITHUB[:16] not in said and OTHER[:16] not in said, said


@pytest.mark.parametrize("args", [("sessions", "--project", "PGPASSWORD=hunter2pw"), ("show", "PGPASSWORD=hunter2pw")])
def test_a_short_secret_typed_is_redacted_where_its_value_is_named(indexed: Path, args: tuple[str, ...]) -> None:
    """A secret too short to look for anywhere is still redacted where an answer names the value as typed (review21
    R21-1: "No sessions with --project PGPASSWORD=hunter2pw")."""
    done = run_deja(*args, cwd=indexed)
    said = done.stdout + done.stderr
    assert "hunter2pw" not in said and "PGPASSWORD=[redacted:" in said, said


def test_a_short_secret_typed_is_not_cut_out_of_every_answer(indexed: Path) -> None:
    """``PGPASSWORD=postgres`` made every "postgres" in the hits ``[redacted:secret]`` (review20 R20-4): a word that
    short is redacted where the query is echoed, not wherever it occurs."""
    said = run_deja("search", "PGPASSWORD=postgres pool", cwd=indexed).stdout
    assert "tune the postgres pool" in said, said


def test_an_mcp_tools_answer_names_a_secret_redacted(indexed: Path) -> None:
    """A tool's answer (not an error) that names a value given to it: "No session of project 'ghp_…'" (review19)."""
    server = build_server()

    async def call() -> list[str]:
        said = []
        for name, arguments in (
            ("search", {"query": "pool", "project": GITHUB}),
            ("recent", {"project": GITHUB}),
            ("work", {"mode": "files", "query": GITHUB}),
            ("work", {"mode": "blame", "query": f"src/{GITHUB}.py"}),
        ):
            answer = await server.call_tool(name, arguments)
            said.append(json.dumps([answer.model_dump(mode="json")]))
        return said

    for said in anyio.run(call):
        assert GITHUB not in said and "[redacted:" in said, said


def test_an_mcp_tools_error_names_a_secret_redacted(indexed: Path) -> None:
    server = build_server()

    async def call() -> str:
        with pytest.raises(ToolError) as refused:
            await server.call_tool("show", {"session_id": OPENAI})
        return str(refused.value)

    said = anyio.run(call)
    assert OPENAI not in said and "[redacted:" in said, said
    json.dumps(said)  # (one line of text)
