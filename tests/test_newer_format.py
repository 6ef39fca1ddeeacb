"""An index a newer deja wrote (a higher format number): this deja leaves it as it is and says so in one line, in
the CLI, the hooks' log and doctor, rather than rebuilding it in its own format, which the newer deja would then
rebuild back on its next read, each undoing the other (trial49 F9). An older format is still rebuilt
(tests/test_upgrade_format.py)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from harness import Sample, as_format_wrote_it, hook_prompt, last_hook_decision, run_deja, snapshot

from deja.core.index import FORMAT_VERSION, MANIFEST, IndexNewerFormat, index_dir
from deja.core.index.format import NEWER_FORMATS
from deja.core.indexer import refresh


@pytest.fixture
def newer(indexed_sample: Sample) -> Sample:
    """The sample's index as the next format's deja leaves it."""
    as_format_wrote_it(indexed_sample.home, FORMAT_VERSION + 1)
    return indexed_sample


def _said(home: Path) -> str:
    """The line naming the newer index and what to do."""
    return (
        f"{index_dir(home) / MANIFEST} is index format {FORMAT_VERSION + 1}, written by a newer deja (this one reads "
        f"{FORMAT_VERSION}): upgrade deja, or set DEJA_HOME to another folder for this one"
    )


@pytest.mark.parametrize("command", [["search", "docker"], ["index"], ["index", "--full"], ["sessions"]])
def test_the_cli_refuses_a_newer_index_in_one_line_and_leaves_it(newer: Sample, command: list[str]) -> None:
    before = snapshot(index_dir(newer.home))
    done = run_deja(*command)
    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert done.stderr == f"deja: {_said(newer.home)}\n"
    assert snapshot(index_dir(newer.home)) == before


def test_a_refresh_raises_rather_than_rebuilding_it(newer: Sample) -> None:
    before = snapshot(index_dir(newer.home))
    with pytest.raises(IndexNewerFormat):
        refresh(newer.home, full=True)
    assert snapshot(index_dir(newer.home)) == before


def test_a_hook_stays_silent_and_logs_why(newer: Sample) -> None:
    before = snapshot(index_dir(newer.home))
    project = next(iter(newer.history.projects.values()))
    assert hook_prompt(newer.env, "why did the docker build fail?", str(project)) == ""
    decision = last_hook_decision(newer.env, "hook-prompt")
    assert decision["why"] == "no index to read" and _said(newer.home) in str(decision["notes"]), decision
    assert snapshot(index_dir(newer.home)) == before


def test_doctor_says_to_upgrade_not_to_rebuild(newer: Sample) -> None:
    report = orjson.loads(run_deja("doctor", "--json").stdout)
    assert report["index"]["state"] == "newer"
    [found] = [p for p in report["problems"] if p["area"] == "index"]
    assert found["level"] == "error" and "built by a newer deja" in found["message"], found
    assert found["fix"] == "upgrade deja, or set DEJA_HOME to another folder for this one"


def test_an_older_index_is_still_rebuilt(indexed_sample: Sample) -> None:
    as_format_wrote_it(indexed_sample.home, FORMAT_VERSION - 1)
    done = run_deja("search", "docker")
    assert done.returncode == 0 and "rebuilt the index" in done.stderr, done.stderr


@pytest.mark.parametrize("version", [2**32 + FORMAT_VERSION, FORMAT_VERSION + NEWER_FORMATS + 1, -1, 0, "21"])
@pytest.mark.parametrize("command", [["index"], ["index", "--full"], ["search", "docker"]])
def test_a_format_number_no_deja_wrote_is_damage_a_rebuild_mends(
    indexed_sample: Sample, version: object, command: list[str]
) -> None:
    """A damaged byte reads as a huge format number: that is a damaged manifest, rebuilt (``--full`` included), not a
    newer deja's index left alone (review49c L3: every command refused it, saying to upgrade deja)."""
    as_format_wrote_it(indexed_sample.home, version)  # type: ignore[arg-type]  # (what no deja writes)
    manifest = index_dir(indexed_sample.home) / MANIFEST
    report = orjson.loads(run_deja("doctor", "--json").stdout)
    [found] = [p for p in report["problems"] if p["area"] == "index"]
    assert f"{manifest} is damaged: its index format reads {version!r}, which no deja writes" in found["message"]
    assert report["index"]["state"] == "damaged" and found["fix"].startswith("deja index"), found
    done = run_deja(*command)
    assert done.returncode == 0 and "newer" not in done.stderr, done.stderr
    assert run_deja("sessions").stdout.count("\n") > 1 and run_deja("index").stderr == ""


def test_a_format_a_few_past_this_one_is_still_a_newer_deja(indexed_sample: Sample) -> None:
    as_format_wrote_it(indexed_sample.home, FORMAT_VERSION + NEWER_FORMATS)
    done = run_deja("index", "--full")
    assert done.returncode == 1 and "written by a newer deja" in done.stderr, done.stderr
