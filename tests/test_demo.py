"""`deja demo` end to end, on a machine with no Cursor: search, show, resume and every hook's injection."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from harness import console_script, run_deja
from typer.testing import CliRunner

from deja.core.sample import API_CACHE_CHAT, API_CHAT, API_EDITOR_COMPOSER, INFRA_STORE_CHAT
from deja.interfaces.cli import app

HOOK_SECTIONS = {
    "sessionStart (deja hook-context)": "Recent sessions in this project",
    "beforeSubmitPrompt (deja hook-prompt)": "Past turns from other sessions that may answer this prompt",
    "preToolUse (deja hook-tool)": "`pytest -q` ran 2 times in this project before",
    "postToolUse (deja hook-tool-after)": "This error came up before",
}


def sections(out: str) -> dict[str, str]:
    """The demo's output by heading (``━━ …`` and ``▸ …`` lines), each with the text under it."""
    parts = re.split(r"^(?:━━|▸) (.*)$", out, flags=re.M)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def sample_folder(out: str) -> Path:
    match = re.search(r"indexed in (\S+)$", out.splitlines()[0])
    assert match, out.splitlines()[0]
    return Path(match[1])


def test_demo_shows_the_whole_product_and_leaves_nothing_behind(fake_home: Path) -> None:
    ran = run_deja("demo")
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
    out = ran.stdout
    assert out.startswith("deja demo: a sample Cursor history of 7 sessions in 3 projects")
    shown = sections(out)
    folder = sample_folder(out)

    listed = next(text for title, text in shown.items() if title.startswith("deja sessions"))
    store_only = next(line for line in listed.splitlines() if line.startswith(INFRA_STORE_CHAT))
    assert store_only.split()[3] == "infra", "the chat kept only in its store.db, in its project"
    assert store_only.endswith("Terraform aws provider 5.x upgrade")
    editor = next(line for line in listed.splitlines() if line.startswith(API_EDITOR_COMPOSER))
    assert editor.split()[3] == "api", "the 3.x editor chat, placed by its composerHeaders row"
    assert editor.endswith("Rate limit the price endpoint")
    assert len(listed.splitlines()) == 7
    assert "cursor-cli" not in listed and "cursor-ide" not in listed, "as `deja sessions` lists them (trial56)"

    search = shown["deja search stale prices locale"]
    assert search.startswith("Why does the price cache return stale prices after switching the locale?")
    assert f"  {API_CACHE_CHAT[:8]} · cursor-cli · api · " in search  # (the id a terminal shows, as README's)

    show = next(text for title, text in shown.items() if title.startswith(f"deja show {API_CACHE_CHAT[:8]}"))
    assert f"{API_CACHE_CHAT} · cursor-cli" in show
    assert "Add a regression test for it" in show and "⚙ StrReplace" in show

    resume = next(text for title, text in shown.items() if title.startswith(f"deja resume {API_CACHE_CHAT[:8]}"))
    history = folder / "history"
    assert resume == (  # (the sample's chats are filed under its own cursor-agent folder, which the line names)
        f"cd {shlex.quote(str(history / 'projects' / 'api'))} && "
        f"CURSOR_CONFIG_DIR={shlex.quote(str(history / 'cursor-agent'))} cursor-agent --resume {API_CACHE_CHAT}"
    )

    blame = next(text for title, text in shown.items() if title.startswith("deja blame "))
    assert blame.startswith("1 edit of ") and f"deja show {API_CACHE_CHAT}" in blame
    assert '    + key = f"price:{sku}:{locale}"' in blame
    fix = next(text for title, text in shown.items() if title.startswith("deja fix "))
    assert "fixed by: pip install -e ., then pytest -q" in fix and API_CHAT in fix
    export = next(text for title, text in shown.items() if title.startswith(f"deja export {API_CACHE_CHAT[:8]}"))
    assert ".html (" in export and "# Why does the price cache return stale prices" in export
    page = Path(re.findall(r"^wrote (\S+\.html) \(", export, flags=re.M)[0])
    assert page.is_relative_to(folder), "a page the demo removes (trial44b F4) ..."
    assert "It goes with the sample when the demo ends: `deja demo --keep` keeps both." in export, "... says so"
    markdown = export.split("Markdown (the default) begins:\n")[1].splitlines()
    assert markdown[-3].startswith("## user · "), markdown  # (it ended on this heading: trial45 F4)
    assert markdown[-1] == "Why does the price cache return stale prices after switching the locale?", markdown

    for title, injected in HOOK_SECTIONS.items():
        body = next(text for heading, text in shown.items() if heading.startswith(title))
        assert body.startswith("<deja-recall>") and body.endswith("</deja-recall>"), (title, body)
        assert injected in body, (title, body)
    assert API_CHAT[:12] in shown[next(h for h in shown if h.startswith("postToolUse"))], "the failure's past fix"
    session_start = shown[next(h for h in shown if h.startswith("sessionStart"))]
    assert '"Rate limit the price endpoint" (api, ' in session_start, "the 3.x editor chat, placed by composerHeaders"
    assert API_EDITOR_COMPOSER in session_start

    assert "deja install cursor-auto" in shown["Next: your own history"]
    assert not folder.exists(), "the temporary history is removed"
    assert not (fake_home / ".cache" / "deja").exists(), "the person's own deja home is never touched"


def test_demo_keep_leaves_a_history_to_try_more_commands_on(fake_home: Path, tmp_path: Path) -> None:
    ran = run_deja("demo", "--keep")
    assert ran.returncode == 0, ran.stderr
    folder = sample_folder(ran.stdout)
    try:
        assert folder.is_dir()
        assert Path(re.findall(r"^wrote (\S+\.html) \(", ran.stdout, flags=re.M)[0]).is_file()
        assert "It goes with the sample" not in ran.stdout, "the page it names stays"
        export = ran.stdout.rstrip().splitlines()[-1].strip()
        assert export.startswith("export DEJA_")
        env = dict(os.environ)
        env.update(dict(pair.split("=", 1) for pair in shlex.split(export.removeprefix("export "))))
        search = run_deja("search", "docker", "disk", env=env)
        assert search.returncode == 0 and search.stdout.startswith("Docker build out of disk"), search.stderr
        # The resume line it printed runs, in the sample's project.
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "cursor-agent").write_text('#!/bin/sh\npwd -P\necho "$@"\n')
        (bin_dir / "cursor-agent").chmod(0o755)
        line = next(text for title, text in sections(ran.stdout).items() if title.startswith("deja resume"))
        env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
        ran_line = subprocess.run(["sh", "-c", line], env=env, capture_output=True, text=True, timeout=30)
        expected = (folder / "history" / "projects" / "api").resolve()
        assert ran_line.stdout.splitlines() == [str(expected), f"--resume {API_CACHE_CHAT}"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_demo_in_process_puts_the_environment_back() -> None:
    before = dict(os.environ)
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "This error came up before" in result.stdout
    assert dict(os.environ) == before


def test_demo_run_by_its_full_path_says_how_to_put_deja_on_path_first(fake_home: Path, tmp_path: Path) -> None:
    """After the README's first command deja is not on PATH: the "Next" lines began with `deja index`, which a new
    user typed into "command not found" (trial23 F7)."""
    script = console_script(tmp_path / "venv-bin")
    ran = run_deja("demo", script=script, env={**os.environ, "PATH": os.defpath})
    assert ran.returncode == 0, ran.stderr
    step = f"  mkdir -p ~/.local/bin && ln -sf {script} ~/.local/bin/deja   put deja on your PATH first"
    assert step in ran.stdout.splitlines(), ran.stdout[-600:]
    on_path = run_deja("demo", script=script, env={**os.environ, "PATH": f"{script.parent}{os.pathsep}{os.defpath}"})
    assert "ln -sf" not in on_path.stdout


def test_demo_run_from_a_local_bin_off_path_says_to_put_that_folder_on_path(fake_home: Path) -> None:
    """Where deja already lives in ~/.local/bin (pipx's layout) and that folder is not on PATH, the step linked the
    script to itself (``ln -sf ~/.local/bin/deja ~/.local/bin/deja``: "are the same file"; review42d M3)."""
    script = console_script(fake_home / ".local" / "bin")
    ran = run_deja("demo", script=script, env={**os.environ, "HOME": str(fake_home), "PATH": os.defpath})
    assert ran.returncode == 0, ran.stderr
    step = '  export PATH="$HOME/.local/bin:$PATH"   put ~/.local/bin on your PATH first (and in your shell\'s profile)'
    assert step in ran.stdout.splitlines(), ran.stdout[-600:]
    assert "ln -sf" not in ran.stdout


def test_the_demo_folders_name_reads_as_the_same_words_every_time() -> None:
    """The sample's folder is in every path its chats hold: named as ``mkdtemp`` names one (letters, digits, ``_``),
    it read as one to nine words, so the sessions' lengths and the search's near ties moved from one ``deja demo``
    to the next (pyver53: its second snippet changed between runs). Each folder is this user's alone, as
    ``mkdtemp``'s."""
    from deja.core.text import terms
    from deja.interfaces.demo import _sample_folder

    words = set()
    for _ in range(200):
        folder = _sample_folder()
        try:
            assert folder.stat().st_mode & 0o777 == 0o700
            words.add(len(terms(str(folder / "history"))))
        finally:
            folder.rmdir()
    assert len(words) == 1
