"""`deja resume ID`: the line that reopens a cursor-agent chat where it ran, or one line saying why not.

Chats are written the way cursor-agent writes them (``deja.core.writers.cursor_agent``):
a transcript under ``projects/<encoded cwd>/`` and a chat folder under
``chats/<md5 of cwd>/<id>/``. Every printed line is checked by a real ``sh``. Most are
written under a ``cli_root`` of their own, not ``~/.cursor``, so the line names it as
``CURSOR_CONFIG_DIR`` (``test_resume_xdg.py`` has the chats under ``~/.cursor``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from harness import Sample, run_deja
from typer.testing import CliRunner

from deja.core.index import SessionMeta
from deja.core.resume import ResumeRefused, resume_line
from deja.core.sample import API_CHAT, WEB_COMPOSER, WEB_MERGED_COMPOSER
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import composer_data, write_state_vscdb
from deja.interfaces.cli import app

T0 = datetime(2026, 7, 26, 10, 6, tzinfo=UTC)
CHAT = "7a1e0c55-5d2b-4f0e-9c1a-6b3d2e1f0a01"

HOSTILE_NAMES = [
    "my project",
    "it's mine",
    'say "hi"',
    "$HOME",
    "a;touch pwned-semicolon",
    "`touch pwned-backtick`",
    "$(touch pwned-dollar)",
    "-rf",
    "-",
    "tab\tand  spaces",
    "back\\slash",
    "café ☕",
    "'\"$;`& |*?",
]


def write_chat(
    cli_root: Path, cwd: Path, chat_id: str = CHAT, *, meta_cwd: str | None = "same", bucket_cwd: Path | None = None
) -> None:
    """A cursor-agent chat run in ``cwd``: its transcript and its chat folder (filed under ``bucket_cwd``'s md5)."""
    write_transcript(
        transcript_path(cli_root, str(cwd), chat_id),
        [user_turn("why is the cache stale?", T0), assistant_turn("The key omits the locale.")],
    )
    write_chat_store(
        chat_dir_for(cli_root, str(bucket_cwd or cwd), chat_id),
        cwd=str(cwd) if meta_cwd == "same" else meta_cwd,
        messages=[],
        name="Stale cache",
    )


def resume(*args: str):
    return CliRunner().invoke(app, ["resume", *args])


def line_under(cli_root: Path, project: Path, chat_id: str = CHAT) -> str:
    """The line that resumes ``chat_id`` run in ``project`` and filed under ``cli_root``, which it names."""
    return f"cd {project} && CURSOR_CONFIG_DIR={cli_root} cursor-agent --resume {chat_id}\n"


def assert_refused(result, session_id: str, *words: str) -> str:
    """Exit 1, nothing on stdout, one line on stderr naming the id and suggesting `deja show`."""
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    message = result.stderr
    assert message.startswith("deja: ") and message.endswith("\n") and message.count("\n") == 1, message
    assert session_id in message
    assert message.rstrip().endswith(f"read it with `deja show {session_id}`"), message
    for word in words:
        assert word in message, message
    return message


@pytest.fixture
def fake_agent(tmp_path: Path) -> Path:
    """A ``cursor-agent`` that prints where it runs, its ``CURSOR_CONFIG_DIR`` and its arguments, one per line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "cursor-agent"
    agent.write_text(
        '#!/bin/sh\npwd -P\nprintf "%s\\n" "${CURSOR_CONFIG_DIR-unset}"\nfor arg in "$@"; do printf "%s\\n" "$arg"; done\n'
    )
    agent.chmod(0o755)
    return bin_dir


def run_in_sh(line: str, bin_dir: Path, cwd: Path) -> list[str]:
    """Run the printed line in ``sh``, with the fake ``cursor-agent`` first on PATH."""
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    ran = subprocess.run(["sh", "-c", line], env=env, cwd=cwd, capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.splitlines()


# --------------------------------------------------------------------------- the line


def test_resume_prints_cd_and_cursor_agent_resume_as_a_subprocess(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "code" / "api"
    project.mkdir(parents=True)
    write_chat(cli_root, project)
    ran = run_deja("resume", CHAT[:8])
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == line_under(cli_root, project)


def test_a_unique_prefix_is_enough(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "api"
    project.mkdir()
    write_chat(cli_root, project)
    assert resume(CHAT[:4]).stdout == resume(CHAT).stdout == line_under(cli_root, project)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_directory_names_are_quoted_for_the_shell(
    cli_root: Path, tmp_path: Path, fake_agent: Path, name: str
) -> None:
    project = tmp_path / "code" / name
    project.mkdir(parents=True)
    write_chat(cli_root, project)
    result = resume(CHAT)
    assert result.exit_code == 0, result.stderr
    line = result.stdout.rstrip("\n")
    assert "\n" not in line
    assert line.endswith(f" && CURSOR_CONFIG_DIR={cli_root} cursor-agent --resume {CHAT}")

    syntax = subprocess.run(["sh", "-n", "-c", line], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    # The cd part alone, evaluated: it lands in the project, and the name runs nothing.
    cd_part = line.removesuffix(f" && CURSOR_CONFIG_DIR={cli_root} cursor-agent --resume {CHAT}")
    assert run_in_sh(f"{cd_part} && pwd -P", fake_agent, tmp_path) == [str(project.resolve())]
    # The whole line, with a cursor-agent that reports where it ran and what it was given.
    assert run_in_sh(line, fake_agent, tmp_path) == [str(project.resolve()), str(cli_root), "--resume", CHAT]
    assert not list(tmp_path.glob("pwned*")) and not list(project.glob("pwned*"))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_of_the_folder_the_chat_is_filed_under_is_quoted_for_the_shell(
    cli_root: Path, tmp_path: Path, fake_agent: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    root = tmp_path / name / "cursor-agent"
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(root))
    project = tmp_path / "api"
    project.mkdir()
    write_chat(root, project)
    result = resume(CHAT)
    assert result.exit_code == 0, result.stderr
    line = result.stdout.rstrip("\n")
    assert "\n" not in line
    assert run_in_sh(line, fake_agent, tmp_path) == [str(project.resolve()), str(root), "--resume", CHAT]
    assert not list(tmp_path.glob("pwned*")) and not list(project.glob("pwned*"))


def test_the_encoded_project_folder_is_the_fallback_when_meta_json_has_no_cwd(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "code" / "web-app"
    project.mkdir(parents=True)
    write_chat(cli_root, project, meta_cwd=None)
    result = resume(CHAT)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == line_under(cli_root, project)


# --------------------------------------------------------------------------- refusals


def test_refused_when_the_directory_is_gone(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "code" / "api"
    project.mkdir(parents=True)
    write_chat(cli_root, project)
    project.rmdir()
    assert_refused(resume(CHAT), CHAT, f"its directory {project} is gone")


def test_of_folders_whose_names_encode_alike_the_one_its_chat_folder_is_filed_under_is_resumed_in(
    cli_root: Path, tmp_path: Path
) -> None:
    """``chats/<md5 of the folder>`` names one of the folders the transcript folder's slug encodes (review38b H2)."""
    project = tmp_path / "code" / "my-app"
    project.mkdir(parents=True)
    (tmp_path / "code" / "my" / "app").mkdir(parents=True)  # encodes alike: "…-code-my-app"
    (project / "文档").mkdir()  # so does a folder below it whose name encodes to nothing
    write_chat(cli_root, project, meta_cwd=None)
    result = resume(CHAT)
    assert (result.exit_code, result.stdout) == (0, line_under(cli_root, project))
    write_chat(cli_root, tmp_path / "code" / "my_app", "c-gone", meta_cwd=None)  # the bucket's folder is not there
    assert_refused(resume("c-gone"), "c-gone", "not recorded", "meta.json has no cwd")


def test_refused_when_the_folder_name_decodes_to_a_directory_the_chat_is_not_filed_under(
    cli_root: Path, tmp_path: Path
) -> None:
    project = tmp_path / "code" / "api"
    project.mkdir(parents=True)
    write_chat(cli_root, project, meta_cwd=None, bucket_cwd=tmp_path / "elsewhere")
    assert_refused(resume(CHAT), CHAT, "not recorded")


def test_refused_when_meta_json_names_a_directory_the_chat_is_not_filed_under(cli_root: Path, tmp_path: Path) -> None:
    project, other = tmp_path / "api", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    write_chat(cli_root, project, meta_cwd=str(other))
    assert_refused(resume(CHAT), CHAT, str(other), "not the one cursor-agent files it under")


def test_refused_when_the_chat_is_no_longer_in_cursor_agents_store(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "api"
    project.mkdir()
    write_chat(cli_root, project)
    shutil.rmtree(chat_dir_for(cli_root, str(project), CHAT))
    assert_refused(resume(CHAT), CHAT, "no longer in cursor-agent's store", str(cli_root / "chats"))


@pytest.mark.parametrize("composer", [WEB_COMPOSER, WEB_MERGED_COMPOSER])
def test_refused_for_editor_chats_which_reopen_only_in_the_editor(sample: Sample, composer: str) -> None:
    assert_refused(resume(composer), composer, "Cursor editor chat", "only in the editor")
    history = sample.history
    assert resume(API_CHAT).stdout == line_under(history.cli_root, history.projects["api"], API_CHAT)


def test_a_cursor_agent_chat_continued_in_the_editor_resumes_from_its_store(cli_root: Path, tmp_path: Path) -> None:
    """trial14 F5: one session, read as the editor's, was refused as an editor chat though cursor-agent's store of it
    was there to reopen; once that store is gone, it is an editor chat again."""
    project = tmp_path / "shop"
    project.mkdir()
    write_chat(cli_root, project)
    assert run_deja("index").returncode == 0
    later = int(T0.timestamp() * 1000) + 3_600_000
    bubbles = {"q1": {"type": 1, "text": "do not retry on 402", "createdAt": later}}
    write_state_vscdb(
        tmp_path / "no-ide" / "globalStorage" / "state.vscdb",
        composers={CHAT: composer_data(CHAT, [("q1", 1)], created_at=later, name="Stale cache")},
        bubbles={CHAT: bubbles},
    )
    assert run_deja("index").returncode == 0
    assert '"source": "cursor-ide"' in run_deja("show", CHAT, "--json").stdout
    assert resume(CHAT).stdout == line_under(cli_root, project)
    (chat_dir_for(cli_root, str(project), CHAT) / "store.db").unlink()
    assert_refused(resume(CHAT), CHAT, "Cursor editor chat")


def test_refused_for_a_subagent_transcript_naming_its_parent(
    cli_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEJA_INCLUDE_SUBAGENTS", "1")
    project = tmp_path / "api"
    project.mkdir()
    write_chat(cli_root, project)
    child = transcript_path(cli_root, str(project), CHAT).parent / "subagents" / "explore-1.jsonl"
    write_transcript(child, [user_turn("look around", T0), assistant_turn("Found the cache module.")])
    session_id = f"{CHAT}/explore-1"
    assert_refused(resume(session_id), session_id, f"subagent of chat {CHAT}", f"deja resume {CHAT}")


def test_a_prefix_matching_two_ids_is_refused_listing_both(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "api"
    project.mkdir()
    first, second = "abc12345-0000-4000-8000-000000000001", "abc12345-0000-4000-8000-000000000002"
    write_chat(cli_root, project, first)
    write_chat(cli_root, project, second)
    result = resume("abc1")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert first in result.stderr and second in result.stderr and "matches 2 sessions" in result.stderr


def test_an_unknown_id_is_refused(cli_root: Path, tmp_path: Path) -> None:
    write_chat(cli_root, tmp_path)  # (an index with a session: an empty one says so instead, trial47 F5)
    result = resume("nope")
    assert result.exit_code == 1 and "no session has the id 'nope'" in result.stderr


def test_the_refusal_keeps_its_reason_apart_for_agents(tmp_path: Path, cli_root: Path) -> None:
    meta = SessionMeta(id=WEB_COMPOSER, source="cursor-ide")
    with pytest.raises(ResumeRefused) as refused:
        resume_line(meta)
    assert WEB_COMPOSER not in refused.value.reason and "editor" in refused.value.reason
    assert str(refused.value).startswith(f"{WEB_COMPOSER} cannot be resumed: {refused.value.reason}")


# --------------------------------------------------------------------------- --exec


def test_exec_runs_cursor_agent_in_the_project(cli_root: Path, tmp_path: Path, fake_agent: Path) -> None:
    project = tmp_path / "code" / "it's a project"
    project.mkdir(parents=True)
    write_chat(cli_root, project)
    env = {**os.environ, "PATH": f"{fake_agent}{os.pathsep}{os.environ['PATH']}"}
    ran = run_deja("resume", CHAT[:8], "--exec", env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [str(project.resolve()), str(cli_root), "--resume", CHAT]


def test_exec_without_cursor_agent_says_so(cli_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "api"
    project.mkdir()
    write_chat(cli_root, project)
    env = {**os.environ, "PATH": str(tmp_path / "empty-bin")}
    ran = run_deja("resume", CHAT, "--exec", env=env)
    assert ran.returncode == 1 and ran.stdout == ""
    assert ran.stderr.startswith("deja: cursor-agent is not on PATH") and ran.stderr.count("\n") == 1
    assert f"cursor-agent --resume {CHAT}" in ran.stderr


def test_a_store_only_chat_without_a_cwd_resumes_in_the_folder_its_chat_folder_names(
    cli_root: Path, tmp_path: Path
) -> None:
    """trial44 F4: cursor-agent files a chat under ``chats/<md5 of its folder>``; a chat read from its store alone,
    whose ``meta.json`` has no ``cwd``, was placed in the known folder of that md5 (``deja show`` named it), and
    ``deja resume`` refused it as "not recorded". The md5 proves it as it proves a decoded transcript folder."""
    project = tmp_path / "code" / "blog"
    project.mkdir(parents=True)
    write_chat(cli_root, project)  # a chat that makes the folder known
    store_only = "6d6d0010-0000-4000-8000-000000000001"
    question = {"role": "user", "content": [{"type": "text", "text": "draft the release notes"}]}
    write_chat_store(chat_dir_for(cli_root, str(project), store_only), cwd=None, messages=[question], name="Notes")

    result = resume(store_only[:8])

    assert (result.exit_code, result.stdout) == (0, line_under(cli_root, project, store_only))
