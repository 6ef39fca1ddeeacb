"""The error lines of common tools' failures (README: a failed command's error lines are searched and matched).

Each case is what the tool prints on a failure; the first error line is what a hook shows as "Last failure" and
what ``deja fix`` matches first.
"""

from __future__ import annotations

import pytest

from deja.core.errors import error_lines
from deja.core.keys import error_keys

pytestmark = pytest.mark.unit

NPM8 = """\
npm ERR! code ENOSPC
npm ERR! nospc ENOSPC: no space left on device, write
npm ERR! A complete log of this run can be found in:
npm ERR!     /home/me/.npm/_logs/2026-11-20T10_00_00_000Z-debug-0.log
"""


@pytest.mark.parametrize(
    ("output", "first"),
    [
        (NPM8, "npm ERR! nospc ENOSPC: no space left on device, write"),
        ("npm error code ENOSPC\nnpm error nospc ENOSPC: no space left on device, write", "npm error nospc ENOSPC: no space left on device, write"),
        ('error An unexpected error occurred: "https://registry.yarnpkg.com/lodash: Not found".', 'error An unexpected error occurred: "https://registry.yarnpkg.com/lodash: Not found".'),
        ("Progress: resolved 1\n ERR_PNPM_NO_MATCHING_VERSION  No matching version found for left-pad@9", "ERR_PNPM_NO_MATCHING_VERSION  No matching version found for left-pad@9"),
        ("Collecting foo==9\nERROR: Could not find a version that satisfies the requirement foo==9", "ERROR: Could not find a version that satisfies the requirement foo==9"),
        ("   Compiling api v0.1.0\nerror[E0425]: cannot find value `x` in this scope", "error[E0425]: cannot find value `x` in this scope"),
        ("=== RUN   TestParse\n--- FAIL: TestParse (0.00s)", "--- FAIL: TestParse (0.00s)"),
        (">       assert parse('1') == 2\nE       assert 1 == 2\nE        +  where 1 = parse('1')", "E       assert 1 == 2"),
        ("src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\nFound 1 error in src/a.ts:3", "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."),
    ],
)  # fmt: skip
def test_a_tools_failure_has_its_error_line_first(output: str, first: str) -> None:
    assert error_lines(output, limit=1) == [first]


def test_npms_log_lines_are_not_error_lines() -> None:
    """The same for every npm failure: as error lines they would make every npm failure the same error."""
    assert error_lines(NPM8) == ["npm ERR! nospc ENOSPC: no space left on device, write", "npm ERR! code ENOSPC"]
    other = NPM8.replace("ENOSPC: no space left on device, write", "EACCES: permission denied").replace("nospc", "code")
    assert not set(error_keys(NPM8)) & set(error_keys(other.replace("code ENOSPC", "code EACCES")))


def test_summaries_are_not_error_lines() -> None:
    assert error_lines("Found 2 errors in 2 files.\n14 passed in 0.31s") == []
