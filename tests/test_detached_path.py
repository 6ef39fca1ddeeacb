"""deja's own processes import deja's modules, not a file of the folder they start in (review41b M6).

A hook runs in the user's repository, and hands work to a process of its own (a catch-up, a build, an ingest): run
as ``python -m``, that process put its folder first on the import path, and a ``msgspec.py`` there ran inside it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from deja.core.detached import python_module


def test_a_process_deja_starts_imports_nothing_from_its_folder(fake_home: Path, tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    marker = tmp_path / "SHADOWED"
    (repository / "msgspec.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(3)\n")
    ran = subprocess.run(
        python_module("deja.core.indexer", "catch-up"),
        cwd=repository,
        env={**os.environ, "DEJA_HOME": str(tmp_path / "deja")},
        capture_output=True,
        timeout=120,
    )
    assert not marker.exists(), ran.stderr
    assert ran.returncode == 0, ran.stderr
