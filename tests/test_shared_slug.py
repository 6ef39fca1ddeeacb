"""Transcript-only chats whose transcript folder's slug several existing folders encode to (trial17 F5).

``~/code/my app/é``, ``~/code/my-app`` and ``~/code/my_app`` all slug to ``…-code-my-app``, and
``~/code/日本語 プロジェクト`` slugs to ``…-code`` (cursor-drift-2026 §9: every run of non-alphanumerics becomes one
``-``). Before, the chats of ``my-app`` and ``my_app`` went to ``my app/é`` in one build and nowhere in the next, and
the Japanese project's chats (and an editor composer whose only signal is that transcript folder) went to ``~/code``.
Now the chat itself decides: the candidate folder holding most of the absolute paths its tools touched and its
messages name; with nothing to tell them apart it is left with no project, and doctor names the slug and its folders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.readers import slug_of
from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import composer_data, write_state_vscdb

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms


class Home:
    def __init__(self, home: Path) -> None:
        self.code = home / "code"
        self.cli = home / ".cursor"
        self.user = home / ".config" / "Cursor" / "User"
        self.spaced, self.dashed, self.snake = self.code / "my app" / "é", self.code / "my-app", self.code / "my_app"
        self.japanese = self.code / "日本語 プロジェクト"
        for folder in (self.spaced, self.dashed, self.snake, self.japanese):
            folder.mkdir(parents=True)

    def chat(self, folder: Path, chat_id: str, question: str, *calls: dict[str, object]) -> None:
        """A cursor-agent chat kept as its transcript alone (no ``chats/<md5>/<id>/`` store, no meta.json)."""
        write_transcript(
            transcript_path(self.cli, str(folder), chat_id), [user_turn(question), assistant_turn("Done.", *calls)]
        )


@pytest.fixture
def home(fake_home: Path) -> Home:
    return Home(fake_home)


def _projects() -> dict[str, str]:
    ran = run_deja("sessions", "--json", "--limit", "50")
    assert ran.returncode == 0, ran.stderr
    return {s["id"]: s["project_dir"] for s in json.loads(ran.stdout)["sessions"]}


def test_a_chat_is_filed_where_most_of_its_files_are(home: Home) -> None:
    write = tool_use("Write", {"path": f"{home.dashed}/src/app.py", "contents": "x"})
    edit = tool_use("StrReplace", {"path": f"{home.dashed}/src/db.py", "old_string": "a", "new_string": "b"})
    peek = tool_use("Read", {"path": f"{home.snake}/src/app.py"})  # a look at the sibling copy
    home.chat(home.dashed, "c-dashed", "port the db layer from my_app", write, edit, peek)
    asked = f"what does {home.snake}/README.md say about the release steps"
    home.chat(home.snake, "c-snake", asked)  # its only path is in the question
    assert run_deja("index").returncode == 0
    projects = _projects()
    assert projects["c-dashed"] == str(home.dashed)
    assert projects["c-snake"] == str(home.snake)
    listed = run_deja("sessions", "--project", "my-app")
    assert "port the db layer" in listed.stdout, listed.stdout
    assert "release steps" not in listed.stdout


def test_a_chat_that_says_nothing_is_not_filed_in_a_guessed_folder(home: Home) -> None:
    """Of folders side by side, none is guessed; of a folder and one below it whose name encodes to nothing, the
    folder above, a project's root, where such chats nearly always ran (review38b H1: ``app/文档``)."""
    assert len({slug_of(str(f)) for f in (home.spaced, home.dashed, home.snake)}) == 1
    assert slug_of(str(home.japanese)) == slug_of(str(home.code))
    home.chat(home.dashed, "c-dashed", "hello there")
    home.chat(home.japanese, "c-japanese", "こんにちは")
    assert run_deja("index").returncode == 0
    assert _projects() == {"c-dashed": "", "c-japanese": str(home.code)}


def test_doctor_names_a_shared_slug_and_its_folders(home: Home) -> None:
    home.chat(home.dashed, "c-dashed", "hello there")
    home.chat(home.japanese, "c-japanese", "こんにちは")
    assert run_deja("index").returncode == 0
    doctor = run_deja("doctor")
    slug = slug_of(str(home.dashed))
    line = next((line for line in doctor.stdout.splitlines() if slug + " " in line or slug + ":" in line), "")
    assert line, doctor.stdout
    flat = " ".join(doctor.stdout.split())
    for folder in (home.code / "my app", home.spaced, home.dashed, home.snake):
        assert str(folder) in flat, flat
    assert str(home.japanese) not in flat, flat  # (below ~/code: the chat went there)
    assert "1 from a transcript folder's name several folders share" in flat, flat


def test_a_git_repository_among_the_folders_takes_the_chat(home: Home) -> None:
    (home.japanese / ".git").mkdir()
    home.chat(home.japanese, "c-japanese", "こんにちは")
    assert run_deja("index").returncode == 0
    assert _projects() == {"c-japanese": str(home.japanese)}


def test_an_editor_chat_placed_by_its_transcript_folder_alone_is_not_filed_in_the_parent(home: Home) -> None:
    """A 3.0–3.9 composer (no headers row, no ``allComposers``: drift §1) whose transcript sits under the Japanese
    slug ``my-app``, which ``my_app`` and ``my app/é`` share: no project, rather than one of them."""
    cid = "2dea0001-1111-4222-8333-444455556666"
    write_state_vscdb(
        home.user / "globalStorage" / "state.vscdb",
        composers={cid: composer_data(cid, [("u", 1), ("a", 2)], created_at=T0, name="kestrel chat")},
        bubbles={
            cid: {
                "u": {"type": 1, "text": "why is the kestrel build slow", "createdAt": T0 + 1000},
                "a": {"type": 2, "text": "The cache is cold.", "createdAt": T0 + 2000},
            }
        },
    )
    home.chat(home.dashed, cid, "why is the kestrel build slow")
    assert run_deja("index").returncode == 0
    ran = run_deja("sessions", "--json", "--limit", "50")
    sessions = {s["id"]: s for s in json.loads(ran.stdout)["sessions"]}
    assert sessions[cid]["project_dir"] == "", sessions[cid]
    assert sessions[cid]["project"] not in ("my-app", "my_app", "é"), sessions[cid]


def test_a_placement_the_slug_alone_gave_is_not_kept_once_folders_share_it(home: Home) -> None:
    """An index built when ``~/code/my-app`` alone encoded the slug (by an earlier deja, or before the other folders
    were made) placed the chat there by its transcript folder; rebuilt now, that guess is not kept as if a store had
    said it, while a folder a store gave is (``Placements.keep``)."""
    for folder in (home.spaced, home.spaced.parent, home.snake):
        folder.rmdir()
    home.chat(home.dashed, "c-dashed", "hello there")
    assert run_deja("index").returncode == 0
    assert _projects() == {"c-dashed": str(home.dashed)}
    home.snake.mkdir()
    assert run_deja("index", "--full").returncode == 0
    assert _projects() == {"c-dashed": ""}
