"""What ``deja search`` loads when the freshness check finds nothing changed: no ``pathlib`` (with ``fnmatch``,
``urllib.parse``, ``ipaddress``: a few ms of imports), nor ``json`` (its C half reads the freshness record); no
``heapq`` (a sort ranks the shortlist), ``unicodedata`` (only a non-ASCII text is folded with it) or hash module
(only a command's or an error's key is digested), nor ``struct`` (the index's readers take its C half, ``_struct``,
which is all it re-exports): each a module file to find and load, a few tenths of a ms."""

from __future__ import annotations

from pathlib import Path

from harness import Sample, run_deja
from test_layers import _imports_without_site, _installed_as_pip_does

from deja.core.sample import INFRA_CHAT

NOT_LOADED = {"pathlib", "fnmatch", "urllib", "ipaddress", "importlib", "json", "typer", "msgspec", "orjson"}
#: What a plain search of ASCII words needs none of (``search._Ranking``, ``text.fold``, ``keys._digest``, ``index``).
NOT_LOADED_EITHER = {
    "heapq",
    "_heapq",
    "unicodedata",
    "hashlib",
    "_hashlib",
    "_blake2",
    "_md5",
    "_sha2",
    "_sha256",
    "struct",
}


def test_a_search_that_finds_nothing_changed_loads_no_pathlib(indexed_sample: Sample, tmp_path: Path) -> None:
    assert run_deja("search", "docker", env=indexed_sample.env).returncode == 0  # any catch-up done first
    folder = _installed_as_pip_does(tmp_path / "site-packages").parents[2]
    code = (
        f"import sys; sys.path.insert(0, {str(folder)!r}); sys.argv = ['deja', 'search', 'docker']\n"
        "from deja.interfaces.entry import main; main()"
    )
    loaded, printed = _imports_without_site(["-c", code], b"", indexed_sample.env)
    assert INFRA_CHAT.encode() in printed  # (it answered)
    assert {name.split(".")[0] for name in loaded} & NOT_LOADED == set()
    assert loaded & NOT_LOADED_EITHER == set()
    assert {"deja.core.digests", "deja.core.regular_files"} & loaded == set()
