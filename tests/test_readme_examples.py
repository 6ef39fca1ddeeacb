"""README examples said to be real runs, checked against a run on the sample history (dates and folders aside)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness import Sample, run_deja

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
#: Where README's examples put the sample's api project.
README_API = "/tmp/deja-demo/history/projects/api"


def _block_after(marker: str) -> str:
    """The first fenced block after ``marker``, without its fences."""
    return README.split(marker, 1)[1].split("```\n", 1)[1].split("\n```", 1)[0]


def _undated(text: str) -> str:
    """The sample's dates, which move with the clock (``describe.ago``: a chat of two days ago at noon is yesterday's
    just after midnight, when this failed in CI), as DATE."""
    return re.sub(r"\(api, \d{4}-\d\d-\d\d, (?:\d+ days? ago|yesterday|today), ", "(api, DATE, ", text)


def test_the_session_start_example_is_what_the_hook_gives_for_the_sample(indexed_sample: Sample) -> None:
    api = str(indexed_sample.history.projects["api"])
    payload = {"conversation_id": "r1", "hook_event_name": "sessionStart", "workspace_roots": [api]}
    done = run_deja("hook-context", input=json.dumps({**payload, "cursor_version": "2.4.21"}), env=indexed_sample.env)
    given = json.loads(done.stdout)["additional_context"].replace(api, README_API)
    assert _undated(_block_after("**sessionStart** (`hook-context`)")) == _undated(given)


def test_the_prompt_example_is_what_the_hook_gives_after_that_session_start(indexed_sample: Sample) -> None:
    """README showed the turn whole, which a conversation that had the sessionStart before it never gets: its block
    already lists that session's asked:/concluded: (audit60 F2)."""
    api = str(indexed_sample.history.projects["api"])
    start = {"conversation_id": "r2", "hook_event_name": "sessionStart", "workspace_roots": [api]}
    assert run_deja("hook-context", input=json.dumps(start), env=indexed_sample.env).returncode == 0
    prompt = "pytest can't import api.cache on my new laptop, what was the fix?"
    payload = {**start, "hook_event_name": "beforeSubmitPrompt", "prompt": prompt}
    done = run_deja("hook-prompt", input=json.dumps(payload), env=indexed_sample.env)
    given = json.loads(done.stdout)["additional_context"]
    assert _undated(_block_after("**beforeSubmitPrompt** (`hook-prompt`)")) == _undated(given)


def _fields(cell: str) -> set[str]:
    """The field names a table cell lists: its backquoted words outside parentheses."""
    return set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", cell)))


def test_the_json_envelopes_and_the_mcp_example_name_the_fields_the_product_sends(indexed_sample: Sample) -> None:
    index_row = next(line for line in README.splitlines() if line.startswith("| `index` | `sessions`"))
    indexed = json.loads(run_deja("index", "--json", env=indexed_sample.env).stdout)
    assert _fields(index_row.split("|")[2]) == set(indexed) - {"schema_version"}
    answer = README.split("An example call and its answer:", 1)[1].split("```json\n")[2].split("\n```", 1)[0]
    example: dict[str, Any] = json.loads(answer)  # (the call comes first, then its answer)
    shown = example["result"]["structuredContent"]
    searched = json.loads(run_deja("search", "stale prices", "--json", env=indexed_sample.env).stdout)
    assert set(shown) == set(searched) and shown["schema_version"] == searched["schema_version"]
    assert set(shown["hits"][0]) == set(searched["hits"][0])
