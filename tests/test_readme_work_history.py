"""Every example of README's work-history section, run as written on the sample a user gets from ``deja demo --keep``."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from harness import Sample, run_deja

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
#: Where the README's sample lives; a test's sample lives elsewhere.
README_SAMPLE = "/tmp/deja-demo-x1y2/history"
DATE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d")


def examples() -> list[tuple[str, list[str]]]:
    """(command line, the output lines README shows for it) of the work-history section's console block."""
    section = README.split("\n## Work history", 1)[1]
    block = section.split("```console\n", 1)[1].split("\n```", 1)[0]
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif line.strip():
            found[-1][1].append(line)
    return found


def test_the_section_has_its_examples() -> None:
    commands = [command.split()[1] for command, _ in examples()]
    assert commands == ["blame", "blame", "fix", "how", "wip", "files", "ctx", "handoff", "export"]


@pytest.mark.parametrize(("command", "shown"), examples(), ids=[c for c, _ in examples()])
def test_a_work_history_example_gives_what_readme_shows(
    indexed_sample: Sample, tmp_path: Path, command: str, shown: list[str]
) -> None:
    api = indexed_sample.history.projects["api"]
    ran = run_deja(*shlex.split(command)[1:], env=indexed_sample.env, cwd=api)
    assert ran.returncode == 0, ran.stderr
    root = str(api.parent.parent)
    got = [DATE.sub("DATE", line) for line in (ran.stdout + ran.stderr).splitlines()]
    for line in shown:
        if "…" not in line:
            assert DATE.sub("DATE", line.replace(README_SAMPLE, root)) in got, f"{command}: {line!r} not in {got}"
