"""History copied from another machine ran in another user's folders: ``deja wip`` in the same-named folder here
names where its sessions ran, and how to ask of them (trial49 F7: it said only that no session ran here).

Cursor's folders are copied as ``cp -a`` would leave them: the chats' folders spelt as on the other machine
(``/home/alice/code/shop``), this user's own project at ``~/code/shop``.
"""

from __future__ import annotations

from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

THERE = "/home/alice-elsewhere/code/shop"


def test_wip_in_a_folder_named_as_the_one_the_copied_sessions_ran_in_names_that_folder(fake_home: Path) -> None:
    write_chat_store(
        chat_dir_for(fake_home / ".cursor", THERE, "c0ffee00-0000-4000-8000-000000000001"),
        cwd=THERE,
        messages=[
            *store_preamble(THERE),
            store_user_message("add the basket discount for loyal customers"),
            store_assistant_message("added in basket.py"),
        ],
    )
    here = fake_home / "code" / "shop"
    here.mkdir(parents=True)
    assert run_deja("index").returncode == 0
    ran = run_deja("wip", cwd=here)
    assert ran.returncode == 1
    assert ran.stderr == (
        f"deja: no session ran in {here}, below it or in a folder above it; sessions ran in {THERE}, of the same "
        f"name: `deja wip {THERE}`\n"
    )
    there = run_deja("wip", THERE)
    assert there.returncode == 0 and "basket discount" in there.stdout, there.stdout + there.stderr
    (fake_home / "code" / "other").mkdir()
    elsewhere = run_deja("wip", cwd=fake_home / "code" / "other")
    assert elsewhere.returncode == 1 and "of the same name" not in elsewhere.stderr
