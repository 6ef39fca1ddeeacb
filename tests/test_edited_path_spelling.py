"""A file the Write/Edit hook is asked about is the same file however its path is spelled (README: Write gives the
sessions that edited the file): ``./api/cache.py`` and ``api/../api/cache.py`` are ``api/cache.py``.

The sample history's API_CACHE_CHAT edited ``api/cache.py`` in the api project.
"""

from __future__ import annotations

import pytest
from test_hooks import Machine, claude, cursor_tool, framed

from deja.core.index import edited_paths
from deja.core.sample import API_CACHE_CHAT


@pytest.mark.parametrize("spelling", ["./api/cache.py", "api/../api/cache.py", "api//cache.py", "{api}/./api/cache.py"])
def test_write_recalls_the_file_however_its_path_is_spelled(indexed: Machine, spelling: str) -> None:
    path = spelling.format(api=indexed.api)
    answer = indexed.run("hook-tool", cursor_tool("preToolUse", "c-1", indexed.api, "Write", {"path": path}))
    assert API_CACHE_CHAT in framed(answer.text, 512), indexed.log()
    edit = indexed.run(
        "hook-tool", claude("PreToolUse", "s-1", indexed.api, tool_name="Edit", tool_input={"file_path": path})
    )
    assert API_CACHE_CHAT in framed(edit.text, 512)


@pytest.mark.unit
def test_an_edit_is_indexed_under_its_tidy_path() -> None:
    assert edited_paths({"path": "./alembic/env.py"}, "/work/api/") == ["alembic/env.py", "/work/api/alembic/env.py"]
    assert edited_paths({"file_path": "/work/api/./alembic/../alembic/env.py"}, "/work/api") == [
        "/work/api/alembic/env.py"
    ]
