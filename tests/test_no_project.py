"""Sessions deja placed in no folder: ``deja stats`` lists them as ``(no project)``, which is no project's name, and
``deja wip`` where no session has a project says so (trial43 F8: ``--project '(no project)'`` said no session of it
was indexed and sent people back to ``deja stats``; ``wip`` said "every project is below it" where there was none)."""

from __future__ import annotations

from pathlib import Path

from harness import run_deja

from deja.core.index import Index
from deja.core.writers.ide import composer_data, write_state_vscdb
from deja.interfaces.mcp_server import work_answer

T0 = 1_780_000_000_000
CHAT = "bbbb0003-0000-4000-8000-00000000b003"


def _unplaced_chat(tmp_path: Path) -> None:
    """One editor chat in the global database, which no workspace lists: deja places it in no folder."""
    bubbles = {
        "b1": {"type": 1, "text": "invoice PDF renders the wrong fonts", "createdAt": T0 + 1000},
        "b2": {"type": 2, "text": "Embed the fonts with reportlab's TTFont.", "createdAt": T0 + 2000},
    }
    write_state_vscdb(
        tmp_path / "no-ide" / "globalStorage" / "state.vscdb",
        composers={CHAT: composer_data(CHAT, [("b1", 1), ("b2", 2)], created_at=T0, name="Invoice PDF fonts")},
        bubbles={CHAT: bubbles},
    )
    assert run_deja("index").returncode == 0


def test_no_project_is_named_as_no_project_and_how_to_reach_its_sessions(tmp_path: Path, cli_root: Path) -> None:
    _unplaced_chat(tmp_path)
    assert "(no project)" in run_deja("stats").stdout
    for verb in (["sessions"], ["search", "fonts"], ["export", "-f", "html", "-o", str(tmp_path / "out")]):
        ran = run_deja(*verb, "--project", "(no project)")
        assert ran.returncode == 2, ran.stderr
        assert ran.stderr == (
            "deja: (no project) is no project's name but the sessions deja placed in no folder: leave out --project to"
            " see them (`deja sessions` lists them with the rest), and give one's id to show or export it\n"
        )
    assert "Invoice PDF fonts" in run_deja("sessions").stdout


def test_wip_where_no_session_has_a_project_says_so(tmp_path: Path, cli_root: Path) -> None:
    _unplaced_chat(tmp_path)
    elsewhere = tmp_path / "code"
    elsewhere.mkdir()
    for folder in (tmp_path, elsewhere):  # (above the home folder, and a folder of no project)
        ran = run_deja("wip", cwd=folder)
        assert ran.returncode == 1, ran.stderr
        assert ran.stderr == (
            f"deja: no session ran in {folder}, and none has a project (deja placed none in a folder): `deja ctx ID`"
            " digests one that `deja sessions` lists\n"
        ), ran.stderr
    text, answer = work_answer(Index.open(tmp_path / "deja"), "wip", str(elsewhere), None)  # (the MCP tool's)
    assert text == (
        f"no session ran in {elsewhere}, and none has a project (deja placed none in a folder): `work` ctx with its id"
        " digests one that `recent` lists"
    )
    assert answer["session"] is None
