"""One project folder reached two ways (``~/code`` a link to a data disk) is one project in the hooks' blocks.

The editor keeps a folder as it was opened (``~/code/shop``), cursor-agent as its resolved working folder
(``/data/code/shop``). Both are one project (``--project``, ``deja stats``), but the session-start block labelled
their sessions ``code/shop`` and ``data/shop``, as if two folders of one name (trial13 F1).
"""

from __future__ import annotations

from pathlib import Path

import orjson
from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def test_sessions_of_one_folder_spelt_through_a_link_are_labelled_as_one_project(
    tmp_path: Path, cli_root: Path
) -> None:
    data = tmp_path / "data" / "code"
    (data / "shop").mkdir(parents=True)
    (tmp_path / "other" / "shop").mkdir(parents=True)
    (tmp_path / "home" / "code").symlink_to(data)
    opened = tmp_path / "home" / "code" / "shop"
    for chat_id, folder, task in (
        ("c-opened", opened, "pin the node engine"),
        ("c-resolved", data / "shop", "cache the npm layer"),
        ("c-other", tmp_path / "other" / "shop", "another shop's checkout"),
    ):
        write_transcript(transcript_path(cli_root, str(folder), chat_id), [user_turn(task), assistant_turn("Done.")])
    assert run_deja("index").returncode == 0
    for n, root in enumerate((opened, data / "shop")):
        payload = {"conversation_id": f"c-now-{n}", "hook_event_name": "sessionStart"}
        ran = run_deja("hook-context", input=orjson.dumps({**payload, "workspace_roots": [str(root)]}).decode())
        assert ran.returncode == 0 and not ran.stderr, ran.stderr
        said = orjson.loads(ran.stdout)["additional_context"]
        assert '"pin the node engine" (shop, ' in said and '"cache the npm layer" (shop, ' in said, said
        assert "another shop's checkout" not in said, said


def test_a_linked_folder_beside_another_of_its_name_has_one_label(tmp_path: Path, cli_root: Path) -> None:
    """In a workspace that also holds another ``shop``, both spellings of the linked one are named as one folder
    (where the link leads), and the other apart from it (review22 R1: ``code/shop`` and ``projects/shop``)."""
    data = tmp_path / "disk" / "projects"
    (data / "shop").mkdir(parents=True)
    (tmp_path / "work" / "shop").mkdir(parents=True)
    (tmp_path / "home" / "code").symlink_to(data)
    opened = tmp_path / "home" / "code" / "shop"
    for chat_id, folder, task in (
        ("c-opened", opened, "pin the node engine"),
        ("c-resolved", data / "shop", "cache the npm layer"),
        ("c-work", tmp_path / "work" / "shop", "another shop's checkout"),
    ):
        write_transcript(transcript_path(cli_root, str(folder), chat_id), [user_turn(task), assistant_turn("Done.")])
    assert run_deja("index").returncode == 0
    roots = [str(opened), str(tmp_path / "work" / "shop")]
    payload = {"conversation_id": "c-now", "hook_event_name": "sessionStart", "workspace_roots": roots}
    ran = run_deja("hook-context", input=orjson.dumps(payload).decode())
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    said = orjson.loads(ran.stdout)["additional_context"]
    for task, label in (
        ("pin the node engine", "projects/shop"),
        ("cache the npm layer", "projects/shop"),
        ("another shop's checkout", "work/shop"),
    ):
        assert f'"{task}" ({label}, ' in said, said
