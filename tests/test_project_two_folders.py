"""``--project api`` where two folders are called ``api`` (``~/work/api``, ``~/legacy/api``): the hooks label them
apart (``legacy/api``), but the CLI and MCP read both as one project, so ``deja search --project api`` gave the
legacy project's fix as this one's. A name two folders share is now a usage error naming them and how to choose;
the label the hooks print chooses one (README: "--project")."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from harness import run_deja
from mcp.server.mcpserver.exceptions import ToolError
from test_hooks_other_project import _chat

from deja.core.keys import telling_tail
from deja.core.writers.cursor_agent import store_assistant_message, store_user_message


def _asked(question: str, answer: str) -> list:
    return [store_user_message(question), store_assistant_message(answer)]


@pytest.fixture
def two_apis(fake_home: Path) -> dict[str, Path]:
    places = {
        "work": fake_home / "work" / "api",
        "legacy": fake_home / "legacy" / "api",
        "billing": fake_home / "billing",
    }
    _chat(
        fake_home, places["work"], "work-api", 1, _asked("why does the widget cache miss", "The key lacked the tenant.")
    )
    _chat(
        fake_home, places["legacy"], "legacy-api", 2, _asked("why does the widget cache miss", "Legacy needs the VPN.")
    )
    _chat(fake_home, places["billing"], "billing-one", 3, _asked("widget invoices", "Billing widget invoices fixed."))
    assert run_deja("index").returncode == 0
    return places


def _refused(ran_stderr: str, places: dict[str, Path], flag: str = "--project") -> None:
    lines = ran_stderr.splitlines()
    assert len(lines) == 1, ran_stderr
    assert str(places["legacy"]) in lines[0] and str(places["work"]) in lines[0]
    assert f"{flag} legacy/api" in lines[0] and f"{flag} work/api" in lines[0]


@pytest.mark.parametrize(
    "args",
    [("search", "widget"), ("sessions",), ("files", "widget"), ("export",)],
    ids=["search", "sessions", "files", "export"],
)
def test_a_name_two_folders_share_is_refused_naming_both(
    two_apis: dict[str, Path], tmp_path: Path, args: tuple[str, ...]
) -> None:
    extra = ["-o", str(tmp_path / "out")] if args == ("export",) else []
    ran = run_deja(*args, "--project", "api", *extra)
    assert ran.returncode == 2 and ran.stdout == "", (ran.stdout, ran.stderr)
    assert ran.stderr.startswith("deja: --project api names 2 folders")
    _refused(ran.stderr, two_apis)
    assert not (tmp_path / "out").exists()


def test_the_label_the_hooks_print_chooses_one(two_apis: dict[str, Path], tmp_path: Path) -> None:
    """``legacy/api``, typed where no such folder is below (the agent's MCP server, a shell elsewhere), is the one
    folder of that name it ends; a folder's path chooses as before."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for project in ("legacy/api", str(two_apis["legacy"]), "LEGACY/api/"):
        ran = run_deja("search", "widget", "--project", project, "--json", cwd=elsewhere)
        assert ran.returncode == 0, ran.stderr
        assert [hit["session_id"] for hit in json.loads(ran.stdout)["hits"]] == ["legacy-api"], project
    listed = run_deja("sessions", "--project", "work/api", "--json", cwd=elsewhere)
    assert [row["id"] for row in json.loads(listed.stdout)["sessions"]] == ["work-api"]


def test_a_name_of_one_folder_is_that_project(two_apis: dict[str, Path]) -> None:
    listed = run_deja("sessions", "--project", "billing", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)["sessions"]] == ["billing-one"]


def test_the_mcp_tools_refuse_the_shared_name_and_take_the_label(
    two_apis: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deja.interfaces.mcp_server import Tools

    monkeypatch.chdir(tmp_path)
    tools = Tools()

    async def ask() -> None:
        for call in (
            lambda: tools.search("widget", project="api"),
            lambda: tools.recent(project="api"),
            lambda: tools.work("files", "widget", project="api"),
        ):
            with pytest.raises(ToolError) as refused:
                call()
            assert "legacy/api" in str(refused.value) and str(two_apis["work"]) in str(refused.value)
        recent = tools.recent(project="legacy/api")
        assert [row["id"] for row in (recent.structured_content or {})["sessions"]] == ["legacy-api"]

    anyio.run(ask)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("folder", "others", "told"),
    [
        ("/h/legacy/api", ["/h/work/api"], "legacy/api"),
        ("/h/work/api", ["/h/legacy/api", "/h/billing"], "work/api"),
        ("/h/billing", ["/h/work/api"], "billing"),
        ("/h/a/x/api", ["/h/b/x/api"], "a/x/api"),
        ("/x/api", ["/h/x/api"], "/x/api"),
        ("/h/API", ["/h2/api"], "h/API"),
    ],
)
def test_telling_tail(folder: str, others: list[str], told: str) -> None:
    assert telling_tail(folder, others) == told


def test_an_unknown_project_is_offered_the_projects_alike_and_both_folders_of_one_name(
    two_apis: dict[str, Path], fake_home: Path, tmp_path: Path
) -> None:
    """review43a L1: a name that began with a shorter project's was offered it (``xylophone``: ``x``,
    ``application``: ``app``), of two folders called ``api`` only the last was offered, and a misspelt label
    (``legacy/ap``) was read as a folder and offered none."""
    for name in ("x", "app"):
        _chat(fake_home, fake_home / "code" / name, f"{name}-one", 4, _asked("widget", "Widget done."))
    assert run_deja("index").returncode == 0
    listed = "`deja stats` lists the projects there are.\n"
    for typed, meant in (
        ("xylophone", ""),
        ("x-ray", ""),
        ("application", ""),
        ("apis", "did you mean --project legacy/api or --project work/api? "),
        ("legacy/ap", "did you mean --project legacy/api? "),
        ("biling", "did you mean --project billing? "),
    ):
        ran = run_deja("sessions", "--project", typed, cwd=tmp_path)
        missing = " (there is no such folder)" if "/" in typed else ""
        assert ran.stderr == f"deja: No session of project {typed!r} is indexed{missing}; {meant}{listed}", typed


def test_two_folders_of_one_name_are_listed_apart(two_apis: dict[str, Path], tmp_path: Path) -> None:
    """``deja stats`` and ``--project`` named them ``work/api`` and ``legacy/api``, but ``deja sessions``, search hits
    and MCP ``recent`` showed both as ``api`` (trial48 F6); a name no other listed folder has stays a name."""
    listed = run_deja("sessions", cwd=tmp_path).stdout.splitlines()
    assert [line.split()[3] for line in listed] == ["billing", "legacy/api", "work/api"], listed
    hits = run_deja("search", "widget", "cache", cwd=tmp_path).stdout
    assert " · cursor-cli · legacy/api · " in hits and " · cursor-cli · work/api · " in hits, hits
    assert " · api · " not in hits


def test_the_mcp_recent_lists_them_apart(
    two_apis: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deja.interfaces.mcp_server import Tools

    monkeypatch.chdir(tmp_path)
    tools = Tools()

    async def ask() -> str:
        return " ".join(block.text for block in tools.recent().content)

    text = anyio.run(ask)
    assert "  legacy/api  " in text and "  work/api  " in text and "  api  " not in text, text


def test_a_hook_names_two_recalled_projects_of_one_name_apart(two_apis: dict[str, Path]) -> None:
    """Working in ``billing``, a recall of both ``api`` projects' sessions said ``(api, …)`` twice (trial48 F6): each
    hook names what it recalls as ``describe.project_labels`` does (one the prompt hook's gate passes both of needs
    an index of many sessions: its other tests' machine)."""
    from deja.hooks.describe import project_labels

    work, legacy, billing = str(two_apis["work"]), str(two_apis["legacy"]), str(two_apis["billing"])
    shown = [("api", legacy), ("api", work), ("billing", billing)]
    assert project_labels(shown, billing) == ["legacy/api", "work/api", "billing"]
    assert project_labels(shown[:1], work) == ["legacy/api"]  # (told apart from the project the agent works in)
    assert project_labels(shown[1:2], work) == ["api"]  # (that project itself keeps its name)


def _labels_taken(listed: list[str], column: int, cwd: Path) -> list[str]:
    """The project column of ``listed`` (``deja sessions``' lines), each checked to be one ``--project`` takes."""
    labels = [line.split()[column] for line in listed]
    for label in labels:
        ran = run_deja("sessions", "--project", label, cwd=cwd)
        assert ran.returncode == 0, (label, ran.stderr)
    return labels


def test_a_project_alone_in_a_listing_is_named_as_project_takes_it(two_apis: dict[str, Path], tmp_path: Path) -> None:
    """One hit or one row of ``work/api`` said ``api``, which ``--project`` then refused as naming two folders: a
    label is told apart from every indexed folder of its name, not only the listed ones (review48b M3)."""
    hits = run_deja("search", "tenant", cwd=tmp_path).stdout
    assert " · cursor-cli · work/api · " in hits and " · api · " not in hits, hits
    alone = run_deja("sessions", "--project", "work/api", cwd=tmp_path).stdout.splitlines()
    assert _labels_taken(alone, 3, tmp_path) == ["work/api"], alone
    newest = run_deja("sessions", "-n", "2", cwd=tmp_path).stdout.splitlines()
    assert _labels_taken(newest[:2], 3, tmp_path) == ["billing", "legacy/api"], newest  # (then: 1 more …)


def test_a_folder_reached_through_a_link_is_named_as_project_takes_it(fake_home: Path, tmp_path: Path) -> None:
    """``~/work/api`` a link to ``~/mnt/api-v2`` was labelled ``api-v2`` (where the link leads), which no
    ``--project`` takes (review48b M2); it is ``work/api``, as ``deja stats`` names it."""
    target = fake_home / "mnt" / "api-v2"
    target.mkdir(parents=True)
    (fake_home / "work").mkdir()
    (fake_home / "work" / "api").symlink_to(target)
    _chat(fake_home, fake_home / "work" / "api", "work-api", 1, _asked("widget cache", "The key lacked the tenant."))
    _chat(fake_home, fake_home / "legacy" / "api", "legacy-api", 2, _asked("widget cache", "Legacy needs the VPN."))
    assert run_deja("index").returncode == 0
    listed = run_deja("sessions", cwd=tmp_path).stdout.splitlines()
    assert _labels_taken(listed, 3, tmp_path) == ["legacy/api", "work/api"], listed
    hits = run_deja("search", "widget", cwd=tmp_path).stdout
    assert " · work/api · " in hits and " · legacy/api · " in hits and "api-v2" not in hits, hits


def test_a_folder_reached_through_a_link_of_its_own_name_is_named_where_it_leads(
    fake_home: Path, tmp_path: Path
) -> None:
    """``~/code/shop`` a link to ``~/data/shop`` beside ``~/old/shop``: its label is told from where the link leads
    (``data/shop``, one label for both its spellings: trial13 F1), and ``--project data/shop`` takes it, though the
    index keeps the folder as ``~/code/shop``."""
    target = fake_home / "data" / "shop"
    target.mkdir(parents=True)
    (fake_home / "code").mkdir()
    (fake_home / "code" / "shop").symlink_to(target)
    _chat(fake_home, fake_home / "code" / "shop", "code-shop", 1, _asked("cart total", "Rounded the total."))
    _chat(fake_home, fake_home / "old" / "shop", "old-shop", 2, _asked("cart total", "Old cart."))
    assert run_deja("index").returncode == 0
    listed = run_deja("sessions", cwd=tmp_path).stdout.splitlines()
    assert _labels_taken(listed, 3, tmp_path) == ["old/shop", "data/shop"], listed
