"""``deja search`` and ``deja index`` without typer (``interfaces/fastpath.py``) answer as the typer command does.

Every argument list below runs twice as a separate process: once through the
console script's entry (the fast path, or typer where the fast path leaves it),
once through typer alone. stdout, stderr and the exit code must be the same bytes;
only the seconds a refresh took may differ.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from harness import Sample, deja_imports, run_deja

from deja.core.sample import API_CHAT
from deja.interfaces.fastpath import SearchArgs, parse_index, parse_search

#: The typer command line alone, as the console script runs it but without the fast path.
TYPER = (
    "import sys; from deja.interfaces.entry import use_utf8; use_utf8(); "
    "from deja.interfaces.cli import run; sys.argv[0] = 'deja'; run()"
)

SEARCHES = [
    ["search", "pytest", "import"],
    ["search", "pytest", "--json"],
    ["search", "--json", "docker", "disk"],
    ["search", "-n", "1", "pytest"],
    ["search", "-n1", "pytest", "--json"],
    ["search", "--limit=2", "docker"],
    ["search", "pytest", "--project", "api"],
    ["search", "-p", "api", "docker"],
    ["search", "docker", "-s", "cursor-cli", "--json"],
    ["search", "docker", "--source=cursor-ide"],
    ["search", "docker", "--since", "2000-01-01", "--role", "user"],
    ["search", "pytest", "--re", "import.*error"],
    ["search", "pytest", "--session", API_CHAT[:8], "--json"],
    ["search", "pytest", "--session", f"`{API_CHAT[:8].upper()}`"],
    ["search", "--", "-v", "pytest"],
    ["search", "zeppelinqux"],
    ["search", "the"],
]
SEARCH_ERRORS = [
    ["search"],
    ["search", ""],
    ["search", "pytest", "--limit", "0"],
    ["search", "pytest", "-n", "x"],
    ["search", "pytest", "--limit=500"],
    ["search", "pytest", "--source", "bogus"],
    ["search", "pytest", "--role", "bogus"],
    ["search", "pytest", "--re", "("],
    ["search", "pytest", "--since", "someday"],
    ["search", "pytest", "--session", "ffffffff"],
    ["search", "pytest", "--bogus"],
    ["search", "pytest", "--json=1"],
    ["search", "pytest", "-p"],
    ["search", "-", "pytest"],
    ["search", "--help"],
]
INDEXES = [["index"], ["index", "--json"], ["index", "--json", "--full"], ["index", "--bogus"], ["index", "extra"]]


def _through_typer(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", TYPER, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def _seen(done: subprocess.CompletedProcess[str]) -> tuple[str, str, int]:
    """What a person sees, with the time a refresh took and a hit's score (its recency part moves with the clock
    between the two processes: a flaky last digit) masked; the order of the hits is still compared."""
    mask = re.compile(r'("seconds": |indexed in |"score": )\d+(\.\d+)?(e-?\d+)?')
    return mask.sub(r"\1N", done.stdout), mask.sub(r"\1N", done.stderr), done.returncode


def _same_either_way(args: list[str], env: dict[str, str]) -> tuple[str, str, int]:
    fast, typer = _seen(run_deja(*args, env=env)), _seen(_through_typer(args, env))
    assert fast == typer, args
    return fast


@pytest.mark.parametrize("args", SEARCHES + SEARCH_ERRORS + INDEXES, ids=" ".join)
def test_the_fast_path_answers_as_typer_does(indexed_sample: Sample, args: list[str]) -> None:
    _same_either_way(args, indexed_sample.env)


def test_a_session_id_copied_with_its_backticks_or_typed_in_capitals_is_the_session(indexed_sample: Sample) -> None:
    """``--session`` reads an id as ``deja show`` does: copied from a hook's text with its backticks or quotes, or in
    capitals, it was "no session" (trial59 F5)."""
    plain = run_deja("search", "pytest", "--session", API_CHAT[:8], "--json", env=indexed_sample.env)
    assert plain.returncode == 0 and API_CHAT in plain.stdout, plain
    for given in (f"`{API_CHAT[:8]}`", f"'{API_CHAT[:8].upper()}'", f' "{API_CHAT}" '):
        copied = run_deja("search", "pytest", "--session", given, "--json", env=indexed_sample.env)
        assert _seen(copied) == _seen(plain), given


def test_the_forms_typer_reports_are_left_to_it(indexed_sample: Sample) -> None:
    out, err, code = _same_either_way(["search", "pytest", "--limit", "0"], indexed_sample.env)
    assert code == 2 and not out
    assert err == "deja: --limit 0 is not allowed: give 1 to 200\n", err


def test_an_empty_index_and_a_missing_root_read_alike(sample: Sample, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "ide").mkdir(parents=True)
    (empty / "cli").mkdir()
    nothing = {**sample.env, "DEJA_CURSOR_ROOT": str(empty / "ide"), "DEJA_CURSOR_CLI_ROOT": str(empty / "cli")}
    for args in (["index"], ["search", "pytest"], ["search", "pytest", "--json"]):
        _same_either_way(args, nothing)
    out, _, code = _same_either_way(["search", "pytest"], nothing)
    assert code == 0 and out.startswith("The index is empty"), out
    missing = {**sample.env, "DEJA_CURSOR_ROOT": str(tmp_path / "nowhere")}
    for args in (["search", "pytest"], ["index", "--json"]):
        _, err, code = _same_either_way(args, missing)
        assert code == 1 and "DEJA_CURSOR_ROOT" in err and "no such folder" in err, err


@pytest.mark.unit
def test_the_parser_reads_every_flag_as_typer_does() -> None:
    read = parse_search(["-p", "api", "cache", "--source=cursor-cli", "-n5", "key", "--json", "--", "--re"])
    assert read == SearchArgs(["cache", "key", "--re"], project="api", source="cursor-cli", limit=5, json=True)
    read = parse_search(["x", "--since", "2w", "--role", "user", "--re", "a.b", "--session", "ab12", "--limit", "200"])
    assert read == SearchArgs(["x"], since="2w", role="user", pattern="a.b", session="ab12", limit=200)
    assert parse_index([]) == {"full": False, "json": False}
    assert parse_index(["--json", "--full"]) == {"full": True, "json": True}


@pytest.mark.unit
@pytest.mark.parametrize(
    "args",
    [[], ["-h"], ["x", "--help"], ["x", "--limit"], ["x", "-n", "-1"], ["x", "-n", "1_0"], ["x", "--limit", "٣"]]
    + [["x", "-p", "a", "-p", "b"], ["x", "--json", "--json"], ["x", "--jso"], ["x", "-q"], ["x", "-p=a"], ["-"]]
    + [["x", "-n", "1" * 4301]],  # more digits than int() converts: typer's one line, not a traceback
    ids=lambda args: repr(args)[:40],
)
def test_the_parser_leaves_any_other_form_to_typer(args: list[str]) -> None:
    assert parse_search(args) is None


@pytest.mark.unit
def test_index_forms_other_than_its_flags_are_left_to_typer() -> None:
    for args in (["--full", "--full"], ["-h"], ["--verify"], ["x"]):
        assert parse_index(args) is None


def test_a_search_that_finds_nothing_changed_imports_no_typer_msgspec_or_orjson(indexed_sample: Sample) -> None:
    run_deja("search", "pytest", env=indexed_sample.env)  # any catch-up done first
    printed, loaded = deja_imports(indexed_sample.env, "search", "pytest", "--json")
    assert '"session_id"' in printed
    assert not {"typer", "click", "pydantic", "msgspec", "orjson", "deja.interfaces.cli"} & loaded
