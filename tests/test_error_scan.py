"""A failed command's error lines and their signature, read without ``re`` (what the Shell and failure hooks run),
are what the regular expressions they stand for find: each scanner against its pattern on every code point (in the
places where it could part ways) and on many random lines of the characters and words that matter; then the whole
of ``error_lines`` and ``error_signature`` against the ``re`` functions they replaced."""

from __future__ import annotations

import random
import re

import pytest

from deja.core import destructive, errors, failures

pytestmark = pytest.mark.unit

#: Characters where a scanner and a pattern could part ways: word and non-word, the four non-ASCII letters ``(?i)``
#: folds into ASCII ones, digits that are decimal or not, every blank kind, quotes, slashes, a drive's colon, hex.
CHARS = list("aEeRr_0189fFxX:;/\\.~-+! \t'\"`[]@=<>,*#") + list(
    "\u0130\u0131\u017f\u212a\u00e9\u0660\u00b2\u00a0\u2003\x1c\x85"
)
#: Pieces of the words the patterns look for, so random lines hold near-misses as well as hits.
WORDS = [
    "error", "Error", "ERROR", "ERR!", "ERR_", "E  ", "E   x", "fail", "failed", "failure", "FAILED", "fatal",
    "panic", "cannot", "can't", "could not", "not found", "no such", "no module named", "denied", "undefined",
    "segmentation", "exception", "Exception", "traceback", "error TS", "E123", "[E0382]", "found ", "2 failed",
    "1 error", " passed", " in 0.1s", "collected 3 items", "complete log of this run can be found", "/_logs/", "debug",
    "2 errors", "3 warnings", " deselected", " skipped", "1 failures", " in ", "ms", "s", "==", ",", " in 1.5ms", "2",
    "0x1f", "deadbeef", "C:", "src/a.py", "\\\\", "12.5", "'", "ſ", "K",
    "HTTP", "http", "HTTP/2 ", "HTTP/1.1 ", "HTTP/", "< ", "GET ", "POST", "DELETE ", " /x ", "403", "5", "4", " 503",
    "1.",
]  # fmt: skip


def _random_lines(count: int, seed: int, longest: int = 12) -> list[str]:
    rng = random.Random(seed)
    pieces = CHARS + WORDS
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, longest))) for _ in range(count)]


def _code_points() -> str:
    """Every code point but the surrogates, in one text."""
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def _kind(char: str) -> tuple[bool, bool, bool]:
    return (char.isalnum() or char == "_", char.isdecimal(), char.isspace())


def test_every_code_point_is_one_of_the_kinds_the_patterns_tell_apart() -> None:
    """What the patterns ask of a character outside ASCII is whether it is ``\\w``, ``\\d`` or ``\\s`` and, under
    ``(?i)``, whether it matches an ASCII letter: over every code point, ``re`` says exactly what ``str``'s methods
    say, and only the four folded letters match one. So one character of each kind stands for all of its kind."""
    text = _code_points()
    assert re.findall(r"\w", text) == [c for c in text if _kind(c)[0]]
    assert re.findall(r"\d", text) == [c for c in text if c.isdecimal()]
    assert re.findall(r"\s", text) == [c for c in text if c.isspace()]
    assert re.findall(r"(?i)[a-z]", text) == [c for c in text if c.isascii() and c.isalpha()] + list(errors.FOLDS)


def _one_of_each_kind() -> list[str]:
    """Every ASCII character, the four folded letters, and one code point of each kind of the rest (``_kind``)."""
    chosen = {**{chr(c): None for c in range(128)}, **dict.fromkeys(errors.FOLDS)}
    kinds = set()
    for char in _code_points():
        if char not in chosen and _kind(char) not in kinds:
            kinds.add(_kind(char))
            chosen[char] = None
    return list(chosen)


def _every_code_point(around: str) -> list[str]:
    """Each character standing for its kind (``_one_of_each_kind``) put in ``around``'s places, one line each."""
    return [around.format(char) for char in EACH_KIND]


EACH_KIND = _one_of_each_kind()


def _agree(scanner, pattern: str, lines: list[str]) -> None:
    compiled = re.compile(pattern)
    for line in lines:
        assert scanner(line) == (compiled.search(line) is not None), repr(line)


def _same_sub(replace, pattern: str, by: str, lines: list[str]) -> None:
    compiled = re.compile(pattern)
    for line in lines:
        assert replace(line) == compiled.sub(by, line), repr(line)


LINES = _random_lines(30_000, seed=41)
AROUND = ["{0}rror", "fai{0}", "fail{0}", "x{0}fail", "{0}annot x", "ERR{0}", "ERR_{0}", "E {0}x", "E  {0}", "E12{0}"]
AROUND += ["E123{0}", "Error{0}", "{0}error:", "error[{0}]:", "error TS1{0}:", "3 fai{0}ed", "{0}ound 2 errors"]
AROUND += ["/_log{0}/debug", "pan{0}c", "can{0}t", "{0}ERROR: x", "fa{0}l", "tracebac{0}", "no {0}uch", "2 pa{0}sed"]
AROUND += [
    "{0}1 failed",
    "1 failed{0}",
    "1 failed{0}2 passed",
    "1 failed in 1{0}s",
    "1 failed in 1.2m{0}",
    "3 error{0}",
]
AROUND += ["collected 2 item{0} 1 error", "collected 2 items{0}1 error", "= 1 error in 2s {0}", "found 1 error{0}"]
AROUND += ["x/_logs/{0}debug", "found {0} errors", "1 skipped{0}in 3s", "{0}collected 1 item 2 passed"]
AROUND += ["HTTP{0}404", "HTTP/1{0}1 503", "HTTP/{0} 404", "HTTP 40{0}", "HTTP 404{0}", "{0}HTTP 404", "<{0}HTTP/2 403"]
AROUND += ["GET /x{0}HTTP/1.1 503", "GET{0}/x HTTP/1.1 404", "{0}GET /x HTTP/1.1 404", "GET /{0} HTTP/2 500"]
AROUND += ["GET /x HTTP/1.{0} 500", "x{0}PUT /x HTTP/1.1 404 9ms", "HT{0}P 500"]


@pytest.mark.parametrize("around", AROUND)
def test_every_code_point_is_read_as_the_line_patterns_read_it(around: str) -> None:
    lines = _every_code_point(around)
    _agree(errors.is_error_line, errors.ERROR_LINE, lines)
    _agree(errors.names_error, errors.NAMED_ERROR, lines)
    _agree(errors.is_summary, errors.SUMMARY_LINE, lines)


def test_random_lines_are_read_as_the_line_patterns_read_them() -> None:
    _agree(errors.is_error_line, errors.ERROR_LINE, LINES)
    _agree(errors.names_error, errors.NAMED_ERROR, LINES)
    _agree(errors.is_summary, errors.SUMMARY_LINE, LINES)


def test_lines_of_counts_are_read_as_the_summary_pattern_reads_them() -> None:
    """Lines made of a summary's own parts, in any order, so that most come close to one and many are one."""
    rng = random.Random(45)
    parts = ["=", "= ", " ", "*", "_", "-", "collected ", "3", "12", " items", " item", "s", ",", "/", ", ", "x"]
    parts += ["1 failed", "2 passed", " error", " errors", " warnings", "4 deselected", " in ", "in ", "0.5", ".", "ms"]
    lines = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 9))) for _ in range(30_000)]
    _agree(errors.is_summary, errors.SUMMARY_LINE, lines)
    assert sum(re.search(errors.SUMMARY_LINE, line) is not None for line in lines) > 500


@pytest.mark.parametrize("around", ["a{0}0x1f", "0x{0}", "{0}deadbeef0{0}", "x{0}/{0}y", "C{0}a/b", "1{0}2", "'{0}'"])
def test_every_code_point_is_replaced_as_the_signature_patterns_replace_it(around: str) -> None:
    lines = _every_code_point(around)
    _same_sub(errors._replace_hex, errors.HEX, "#", lines)
    _same_sub(errors._replace_paths, errors.PATH, "<path>", lines)
    _same_sub(errors._replace_numbers, errors.NUMBER, "#", lines)
    _same_sub(errors._replace_quoted, errors.QUOTED, "<q>", lines)


def test_random_lines_are_replaced_as_the_signature_patterns_replace_them() -> None:
    lines = [*LINES, *_random_lines(10_000, seed=42, longest=30), "a\n'b'\n'c", "x'\ny'z'"]
    _same_sub(errors._replace_hex, errors.HEX, "#", lines)
    _same_sub(errors._replace_paths, errors.PATH, "<path>", lines)
    _same_sub(errors._replace_numbers, errors.NUMBER, "#", lines)
    _same_sub(errors._replace_quoted, errors.QUOTED, "<q>", lines)


#: Pieces of what prints an error before its message (``errors.PRINTED_BY``), and near misses of each.
PRINTER_PIECES = [
    "psql", "psql-1", "-x", "1x", "_x", "x.py", ":", ": ", ":  ", ":\t", " ", "error", "ERROR", "Error", "errors",
    "fatal", "FATAL", "fatality", "psycopg2.", "OperationalError", "Exception", "Errors", "(", ")", ".", "..", "a1",
    "2", "x", "\u0130", "\u212a", "\u00e9", "E  ", "'q'",
]  # fmt: skip


@pytest.mark.parametrize("around", ["{0}sql: error: x", "psql{0} error: x", "psql: erro{0}: x", "(a.{0}Error) x"])
def test_every_code_point_ends_what_printed_an_error_where_the_pattern_ends_it(around: str) -> None:
    _same_end(_every_code_point(around))


def test_random_lines_end_what_printed_an_error_where_the_pattern_ends_it() -> None:
    rng = random.Random(44)
    lines = ["".join(rng.choice(PRINTER_PIECES) for _ in range(rng.randint(0, 12))) for _ in range(30_000)]
    _same_end(lines)
    assert sum(errors.printed_by(line) > 0 for line in lines) > 500  # (a program alone is none: review41b M4)


def _same_end(lines: list[str]) -> None:
    compiled = re.compile(errors.PRINTED_BY)
    for line in lines:
        found = compiled.match(line)
        assert errors.printed_by(line) == (found.end() if found else 0), repr(line)


def _error_lines_by_pattern(output: str, limit: int = 3) -> list[str]:
    """``error_lines`` as it was written with ``re``."""
    found = []
    for line in output.splitlines():
        line = line.strip()
        error = len(line) > 8 and re.search(errors.ERROR_LINE, line) or re.search(errors.STATUS_LINE, line)
        if error and not re.search(errors.SUMMARY_LINE, line):
            found.append(line[:400])
    named = [line for line in found if re.search(errors.NAMED_ERROR, line)]
    rest = [line for line in reversed(found) if line not in named]
    return (list(reversed(named)) + rest)[:limit]


def _signature_by_pattern(line: str) -> str:
    """``error_signature`` as it was written with ``re``."""
    line = re.sub(r"0x[0-9a-fA-F]+|\b[0-9a-f]{8,}\b", "#", line)
    line = re.sub(r"(?:[A-Za-z]:)?[\w.~-]*[/\\][\w./\\~-]+", "<path>", line)
    line = re.sub(r"\d+(?:\.\d+)?", "#", line)
    line = re.sub(r"(['\"`]).*?\1", "<q>", line)
    return " ".join(line.lower().split())[:200]


def test_error_lines_and_signatures_are_what_the_patterns_made() -> None:
    outputs = ["\n".join(_random_lines(8, seed=seed, longest=10)) for seed in range(3_000)]
    outputs += [
        "Traceback (most recent call last):\n  File \"/app/x.py\", line 3\nModuleNotFoundError: No module named 'lodash'",
        "FAILED tests/test_a.py::test_b - AssertionError\n==== 1 failed, 2 passed in 0.12s ====",
        "npm ERR! code ERR_PNPM_NO_SCRIPT\nnpm ERR! A complete log of this run can be found in:\nnpm ERR! /r/_logs/x-debug.log",
        "error[E0382]: borrow of moved value: `x`\nerror TS2304: Cannot find name 'foo'.\nE   assert 1 == 2",
        "Error: connect ECONNREFUSED 127.0.0.1:5432 at 0xDEADbeef and deadbeef01 in C:\\src\\app.py",
    ]
    for output in outputs:
        lines = errors.error_lines(output)
        assert lines == _error_lines_by_pattern(output), repr(output)
        for line in [*lines, *output.splitlines()]:
            assert errors.error_signature(line) == _signature_by_pattern(line), repr(line)


def test_a_line_that_names_its_error_comes_first_and_a_summary_is_no_error() -> None:
    output = "collected 3 items\nsomething failed here\nTypeError: x is undefined\n==== 2 failed in 0.5s ===="
    assert errors.error_lines(output) == ["TypeError: x is undefined", "something failed here"]
    assert errors.error_signature("Error at /home/a/b.py:12 'x' 0xff") == "error at <path>:# <q> #"


QUOTE_LINES = [*LINES, *_random_lines(10_000, seed=43, longest=20), "'a'b' 'c'", "x'\n'y'", "'\n'", "`a`\n`b`"]


@pytest.mark.parametrize("around", ["'{0}'", "{0}'a'", "'a'{0}", "'{0}a'b'", "'@{0}/'", "'a{0}/b'"])
def test_every_code_point_quotes_a_name_as_the_patterns_read_it(around: str) -> None:
    _same_names([*_every_code_point(around), *_every_code_point(around.replace("'", '"'))])


def test_random_lines_quote_names_as_the_patterns_read_them() -> None:
    _same_names(QUOTE_LINES)
    for name in [*QUOTE_LINES, "@a/b", "a\n/b", "\n/x", "ab\\c", "a1", "\u0661"]:
        assert failures._not_a_name(name) == (re.search(failures.NOT_A_NAME, name) is not None), repr(name)


def _same_names(lines: list[str]) -> None:
    for line in lines:
        expected = [
            name for _, name in re.findall(failures.QUOTED_NAME, line) if not re.search(failures.NOT_A_NAME, name)
        ]
        assert failures.quoted_names(line) == expected, repr(line)


COMMANDS = [
    "git push -f",
    "rm -rf x",
    "RM -Rf x",
    "git reset --hard",
    "git clean -fd",
    "git checkout -- .",
    "dd if=a of=b",
]
COMMANDS += ["drop table t", "truncate table t", "delete from t", "mkfs.ext4", "docker system prune -a", "dropdb x"]
COMMANDS += ["redis-cli flushall", "flushdb", "prisma db push --force-reset", "npm run format", "pytest -x", "ls"]
COMMANDS += ["docker volume prune --all", "docker compose up -d", "docker system prune"]
COMMANDS += ["docker system prune -af", "rm --recursive --force b", "git push origin +main", "terraform destroy"]
COMMANDS += ["kubectl delete ns x", "docker volume rm v", "git branch -D f", "git branch -d f", "find . -delete"]
COMMANDS += ["git push -d o x", "git stash clear", "docker compose down -v", "helm -n p un x", "helm upgrade x"]
COMMANDS += ["terraform plan -destroy", "kubectl auth can-i delete x", "docker image prune -a", "git clean -d -f"]


@pytest.mark.parametrize("around", ["r{0} -rf x", "{0}rm -rf x", "rm{0}-rf x", "d{0} if=a of=b", "git pu{0}h -f"])
def test_every_code_point_is_judged_destructive_as_the_pattern_judges_it(around: str) -> None:
    _same_judgement(_every_code_point(around))


def test_random_commands_are_judged_destructive_as_the_pattern_judges_them() -> None:
    rng = random.Random(44)
    pieces = [*COMMANDS, *" -f-r\tx.=", "\u017f", "\u0131", "of=", "--force", " -a", "git ", "rm ", "dd "]
    _same_judgement(
        [*COMMANDS, *("".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(20_000))]
    )


def _same_judgement(commands: list[str]) -> None:
    pattern = re.compile(destructive.DESTRUCTIVE, re.IGNORECASE)
    judged = [destructive.is_destructive(command) for command in commands]
    assert judged == [pattern.search(command) is not None for command in commands]
    assert any(judged) and not all(judged)


@pytest.mark.parametrize("around", AROUND)
def test_every_code_point_ends_an_http_status_where_the_pattern_ends_it(around: str) -> None:
    _same_status_end(_every_code_point(around))


def test_random_lines_end_an_http_status_where_the_pattern_ends_it() -> None:
    _same_status_end(LINES)


def _same_status_end(lines: list[str]) -> None:
    compiled = re.compile(errors.STATUS_LINE)
    for line in lines:
        found = compiled.search(line)
        assert errors.status_end(line) == (found.end(found.lastindex or 0) if found else 0), repr(line)
