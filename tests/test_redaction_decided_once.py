"""A refresh decides once whether it redacts: what it writes and what its manifest says agree, even when the setting
changes while it runs (a ``deja config set redact true`` in another shell), so an index written unredacted is
never labelled redacted, which would let the hooks and the MCP server show it."""

from __future__ import annotations

from typing import Any

import pytest
from harness import Sample

from deja.core.index import index_dir, read_manifest
from deja.core.indexer import driver, refresh
from deja.core.redaction import withheld


def test_a_setting_changed_during_a_refresh_does_not_relabel_what_it_wrote(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEJA_NO_REDACT", "1")
    real = driver._write_changes

    def then_turned_on(*args: Any, **kwargs: Any) -> Any:
        written = real(*args, **kwargs)
        monkeypatch.delenv("DEJA_NO_REDACT")  # redaction turned on while the refresh runs
        return written

    monkeypatch.setattr(driver, "_write_changes", then_turned_on)
    refresh(sample.home)
    built_with = read_manifest(index_dir(sample.home)).redaction
    assert built_with == "off"
    assert withheld(built_with) == "the index was built without redaction, which is now on"
