"""A small, real Cursor history: every store, three projects, tool calls, a failed command and its fix.

One editor chat is shaped as Cursor 3.x writes it: its composer names no
workspace, and only the ``composerHeaders`` table places it in a project.

``deja demo`` indexes it on a machine with no Cursor at all, and the tests use
it as their everyday history. Every file is written the way Cursor writes it,
through ``deja.core.writers``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .lean_msgspec import msgspec
from .writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)
from .writers.ide import ComposerHeader, composer_data, tool_former_data, write_state_vscdb, write_workspace_json

UTC3 = timezone(timedelta(hours=3))

API_TEST_FAILURE = "E   ModuleNotFoundError: No module named 'api.cache'"
API_CHAT = "5d1c7a40-0c1e-4d33-9a59-1f2ab0c0a001"
API_CACHE_CHAT = "5d1c9b21-3f4e-4a77-8c1d-2e3fb1d0a002"
INFRA_CHAT = "8e4b2f10-7d2a-4c55-8b1e-3c9d0e0f0003"
WEB_COMPOSER = "c0ffee04-1a2b-4c3d-8e9f-0a1b2c3d0004"
WEB_MERGED_COMPOSER = "c0ffee05-1a2b-4c3d-8e9f-0a1b2c3d0005"
#: A cursor-agent chat whose transcript is gone: read from its store.db alone.
INFRA_STORE_CHAT = "8e4b3a77-5c19-4e08-a2d4-6f1e2d3c0006"
#: A Cursor 3.x editor chat: no workspaceIdentifier, placed by its composerHeaders row.
API_EDITOR_COMPOSER = "c0ffee07-1a2b-4c3d-8e9f-0a1b2c3d0007"
#: The api folder's ``workspaceStorage`` folder: the composerHeaders row names it.
API_WORKSPACE_ID = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"


class SampleHistory(msgspec.Struct):
    ide_root: Path
    cli_root: Path
    projects: dict[str, Path]

    def environment(self, home: Path) -> dict[str, str]:
        """The variables that point deja at this history and at ``home`` for its own files."""
        return {
            "DEJA_CURSOR_ROOT": str(self.ide_root),
            "DEJA_CURSOR_CLI_ROOT": str(self.cli_root),
            "DEJA_HOME": str(home),
        }


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def _cli_chat(
    cli_root: Path,
    cwd: Path,
    chat_id: str,
    records: list[dict[str, Any]],
    store_messages: list[dict[str, Any]],
    name: str,
) -> None:
    write_transcript(transcript_path(cli_root, str(cwd), chat_id), records)
    write_chat_store(chat_dir_for(cli_root, str(cwd), chat_id), cwd=str(cwd), messages=store_messages, name=name)


def _api_test_chat(cli_root: Path, api: Path, start: datetime) -> None:
    failing = f"============ test session starts ============\ncollected 0 items / 1 error\n{API_TEST_FAILURE}\n=== 1 error in 0.12s ==="
    records = [
        user_turn("pytest fails on a fresh checkout of the api, can you fix it?", start),
        assistant_turn(
            "Let me run the tests first.", tool_use("Shell", {"command": "pytest -q", "description": "Run tests"})
        ),
        assistant_turn(
            "The package is not installed, so `api.cache` cannot be imported. Installing it in editable mode.",
            tool_use("Shell", {"command": "pip install -e .", "description": "Install the package"}),
        ),
        assistant_turn(None, tool_use("Shell", {"command": "pytest -q", "description": "Run tests again"})),
        assistant_turn(
            "Fixed: the api package must be installed with `pip install -e .` before pytest can import `api.cache`. All 14 tests pass now."
        ),
        turn_ended(),
    ]
    store: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": f"<user_info>OS Version: linux\nWorkspace Path: {api}</user_info>"},
        {"role": "user", "content": [{"type": "text", "text": records[0]["message"]["content"][0]["text"]}]},
        {
            "role": "assistant",
            "content": [tool_call_part("toolu_01", "Shell", {"command": "pytest -q", "description": "Run tests"})],
        },
        tool_result_message("toolu_01", "Shell", shell_result_text(failing, exit_code=2)),
        {
            "role": "assistant",
            "content": [
                tool_call_part(
                    "toolu_02", "Shell", {"command": "pip install -e .", "description": "Install the package"}
                )
            ],
        },
        tool_result_message("toolu_02", "Shell", shell_result_text("Successfully installed api-0.1.0")),
        {
            "role": "assistant",
            "content": [
                tool_call_part("toolu_03", "Shell", {"command": "pytest -q", "description": "Run tests again"})
            ],
        },
        tool_result_message("toolu_03", "Shell", shell_result_text("14 passed in 0.31s")),
    ]
    _cli_chat(cli_root, api, API_CHAT, records, store, name="Fix pytest import error")


def _api_cache_chat(cli_root: Path, api: Path, start: datetime) -> None:
    records = [
        user_turn("Why does the price cache return stale prices after switching the locale?", start),
        assistant_turn(
            "The cache key in api/cache.py omits the locale, so every locale shares one entry.",
            tool_use("Read", {"path": str(api / "api/cache.py")}),
            tool_use(
                "StrReplace",
                {
                    "path": str(api / "api/cache.py"),
                    "old_string": 'key = f"price:{sku}"',
                    "new_string": 'key = f"price:{sku}:{locale}"',
                },
            ),
        ),
        user_turn("Add a regression test for it", start + timedelta(minutes=4)),
        assistant_turn(
            "Added tests/test_cache.py covering two locales; the cache key now includes the locale.",
            tool_use(
                "Write",
                {
                    "path": str(api / "tests/test_cache.py"),
                    "contents": "def test_locale_in_key():\n    assert cache_key('A1', 'de') != cache_key('A1', 'fr')\n",
                },
            ),
        ),
        turn_ended(),
    ]
    store: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "stale prices"}]},
        {"role": "assistant", "content": [tool_call_part("toolu_11", "Read", {"path": str(api / "api/cache.py")})]},
        tool_result_message("toolu_11", "Read", '     1|def cache_key(sku, locale):\n     2|    key = f"price:{sku}"'),
    ]
    _cli_chat(cli_root, api, API_CACHE_CHAT, records, store, name="New Agent")


def _infra_chat(cli_root: Path, infra: Path, start: datetime) -> None:
    records = [
        user_turn("docker build fails with no space left on device", start),
        assistant_turn(
            "Checking the build.", tool_use("Shell", {"command": "docker build -t infra-web .", "description": "Build"})
        ),
        assistant_turn(
            "The Docker build cache filled the disk. Pruning it.",
            tool_use("Shell", {"command": "docker builder prune -f", "description": "Free build cache"}),
            tool_use("Shell", {"command": "docker build -t infra-web .", "description": "Build again"}),
        ),
        assistant_turn("The image builds now. `docker builder prune -f` freed 11 GB of build cache."),
        turn_ended(),
    ]
    failing = "#8 ERROR: failed to copy files: write /var/lib/docker/tmp/buildkit-mount123/app: no space left on device"
    store: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": [
                tool_call_part("t1", "Shell", {"command": "docker build -t infra-web .", "description": "Build"})
            ],
        },
        tool_result_message("t1", "Shell", shell_result_text(failing, exit_code=1)),
        {
            "role": "assistant",
            "content": [
                tool_call_part("t2", "Shell", {"command": "docker builder prune -f", "description": "Free build cache"})
            ],
        },
        tool_result_message("t2", "Shell", shell_result_text("Total reclaimed space: 11.2GB")),
        {
            "role": "assistant",
            "content": [
                tool_call_part("t3", "Shell", {"command": "docker build -t infra-web .", "description": "Build again"})
            ],
        },
        tool_result_message("t3", "Shell", shell_result_text("naming to docker.io/library/infra-web done")),
    ]
    _cli_chat(cli_root, infra, INFRA_CHAT, records, store, name="Docker build out of disk")


def _infra_store_chat(cli_root: Path, infra: Path, start: datetime) -> None:
    """A chat cursor-agent kept only in its store (its transcript was pruned), with the times of its answers."""
    plan = {"command": "terraform plan", "description": "Plan the change"}
    init = {"command": "terraform init -upgrade", "description": "Upgrade the provider"}
    failed = "Error: Inconsistent dependency lock file\n  provider registry.terraform.io/hashicorp/aws: locked version 4.67.0 does not match ~> 5.0"
    messages = [
        *store_preamble(str(infra)),
        store_user_message("terraform plan fails after bumping the aws provider to 5.x", start),
        store_assistant_message("Running the plan to see the error.", tool_call_part("toolu_21", "Shell", plan)),
        tool_result_message("toolu_21", "Shell", shell_result_text(failed, exit_code=1)),
        store_assistant_message(
            "The lock file still pins the 4.x provider. Upgrading it.", tool_call_part("toolu_22", "Shell", init)
        ),
        tool_result_message("toolu_22", "Shell", shell_result_text("- Installed hashicorp/aws v5.31.0")),
        store_assistant_message(None, tool_call_part("toolu_23", "Shell", plan)),
        tool_result_message("toolu_23", "Shell", shell_result_text("Plan: 0 to add, 1 to change, 0 to destroy.")),
        store_assistant_message(
            "Fixed: `terraform init -upgrade` moved .terraform.lock.hcl to aws 5.31.0; the plan is clean now."
        ),
    ]
    t0 = _ms(start)
    times = [None] * 5 + [t0 + 20_000, None, t0 + 95_000, None, t0 + 130_000, None, t0 + 150_000]
    write_chat_store(
        chat_dir_for(cli_root, str(infra), INFRA_STORE_CHAT),
        cwd=str(infra),
        messages=messages,
        message_times=times,
        name="Terraform aws provider 5.x upgrade",
        created_ms=t0,
        updated_ms=t0 + 150_000,
    )


def _web_composers(ide_root: Path, cli_root: Path, web: Path, start: datetime) -> None:
    t0 = _ms(start)
    composers = {
        WEB_COMPOSER: {
            "_v": 10,
            "composerId": WEB_COMPOSER,
            "name": "Footer missing on mobile",
            "createdAt": t0,
            "lastUpdatedAt": t0 + 120_000,
            "fullConversationHeadersOnly": [
                {"bubbleId": "b1", "type": 1},
                {"bubbleId": "b2", "type": 2},
                {"bubbleId": "b3", "type": 2},
            ],
            "workspaceIdentifier": {"id": "ws1", "uri": {"fsPath": str(web), "scheme": "file"}},
        },
        WEB_MERGED_COMPOSER: {
            "_v": 13,
            "composerId": WEB_MERGED_COMPOSER,
            "name": "Dark mode toggle",
            "createdAt": t0 + 86_400_000,
            "lastUpdatedAt": t0 + 86_500_000,
            "fullConversationHeadersOnly": [{"bubbleId": "d1", "type": 1}, {"bubbleId": "d2", "type": 2}],
        },
    }
    bubbles = {
        WEB_COMPOSER: {
            "b1": {
                "type": 1,
                "text": "why is the footer missing on mobile?",
                "createdAt": (start).isoformat(),
                "workspaceProjectDir": str(web),
            },
            "b2": {
                "type": 2,
                "text": "",
                "createdAt": (start + timedelta(seconds=30)).isoformat(),
                "toolFormerData": {
                    "name": "edit_file",
                    "status": "completed",
                    "params": '{"target_file": "src/footer.css", "code_edit": "@media (max-width: 600px) { .footer { display: block; } }"}',
                    "result": '{"diff": "+ display: block"}',
                },
            },
            "b3": {
                "type": 2,
                "text": "A media query in src/footer.css set `display: none` below 600px. I changed it to `display: block`.",
                "createdAt": (start + timedelta(seconds=60)).isoformat(),
            },
            "orphan": {"type": 2, "text": "an abandoned draft answer", "createdAt": start.isoformat()},
        },
        WEB_MERGED_COMPOSER: {
            "d1": {
                "type": 1,
                "text": "add a dark mode toggle to the header",
                "timingInfo": {"clientRpcSendTime": t0 + 86_400_000},
                "workspaceProjectDir": str(web),
            },
            "d2": {
                "type": 2,
                "text": "Added a ThemeToggle component that stores the choice in localStorage.",
                "timingInfo": {"clientRpcSendTime": t0 + 86_460_000},
            },
        },
    }
    write_state_vscdb(ide_root / "globalStorage" / "state.vscdb", composers=composers, bubbles=bubbles)
    workspace = ide_root / "workspaceStorage" / "a1b2c3d4e5f6"
    write_workspace_json(workspace, folder=web.as_uri())
    write_state_vscdb(
        workspace / "state.vscdb", item_table={"composer.composerData": {"selectedComposerIds": [WEB_COMPOSER]}}
    )
    # The IDE agent also writes a transcript under the composer id: it adds the tool call the database lacks.
    write_transcript(
        transcript_path(cli_root, str(web), WEB_MERGED_COMPOSER),
        [
            user_turn("add a dark mode toggle to the header", start + timedelta(days=1)),
            assistant_turn(
                None,
                tool_use(
                    "Write",
                    {"path": str(web / "src/ThemeToggle.tsx"), "contents": "export function ThemeToggle() {}\n"},
                ),
            ),
            assistant_turn("Added a ThemeToggle component that stores the choice in localStorage."),
        ],
    )


def _api_editor_chat(ide_root: Path, api: Path, start: datetime) -> None:
    """A Cursor 3.x editor chat: no ``workspaceIdentifier``; its ``composerHeaders`` row names api's workspace."""
    t0 = _ms(start)
    composer = composer_data(
        API_EDITOR_COMPOSER,
        [("r1", 1), ("r2", 2), ("r3", 2)],
        created_at=t0,
        name="Rate limit the price endpoint",
    )
    bubbles = {
        "r1": {"type": 1, "text": "add rate limiting to the /prices endpoint, 60 requests a minute", "createdAt": t0},
        "r2": {
            "type": 2,
            "text": "",
            "createdAt": t0 + 20_000,
            "toolFormerData": tool_former_data(
                "edit_file",
                {"target_file": "api/limits.py", "code_edit": "PRICES_PER_MINUTE = 60"},
                {"diff": "+ PRICES_PER_MINUTE = 60"},
            ),
        },
        "r3": {
            "type": 2,
            "text": "Added a token bucket in api/limits.py: /prices now answers 429 after 60 requests a minute.",
            "createdAt": t0 + 40_000,
        },
    }
    write_state_vscdb(
        ide_root / "globalStorage" / "state.vscdb",
        composers={API_EDITOR_COMPOSER: composer},
        bubbles={API_EDITOR_COMPOSER: bubbles},
        composer_headers=[
            ComposerHeader(
                API_EDITOR_COMPOSER,
                workspace_id=API_WORKSPACE_ID,
                created_at=t0,
                last_updated_at=t0 + 40_000,
                value={"name": "Rate limit the price endpoint", "isDraft": False},
            )
        ],
    )
    write_workspace_json(ide_root / "workspaceStorage" / API_WORKSPACE_ID, folder=api.as_uri())


#: The api project's files as the sample's chats left them, so ``deja blame api/cache.py:2`` has a line to read.
API_FILES = {
    "api/cache.py": 'def cache_key(sku, locale):\n    key = f"price:{sku}:{locale}"\n    return key\n',
    "tests/test_cache.py": "def test_locale_in_key():\n    assert cache_key('A1', 'de') != cache_key('A1', 'fr')\n",
}


def _api_files(api: Path) -> None:
    for name, text in API_FILES.items():
        (api / name).parent.mkdir(parents=True, exist_ok=True)
        (api / name).write_text(text, encoding="utf-8")


def build_sample_history(root: Path, now: datetime | None = None) -> SampleHistory:
    """Write the sample history under ``root`` (projects, IDE user folder, cursor-agent folder)."""
    now = (now or datetime.now(UTC3)).astimezone(UTC3).replace(second=0, microsecond=0)
    projects = {name: root / "projects" / name for name in ("api", "web", "infra")}
    for folder in projects.values():
        folder.mkdir(parents=True, exist_ok=True)
    ide_root = root / "cursor" / "User"
    cli_root = root / "cursor-agent"
    _api_test_chat(cli_root, projects["api"], now - timedelta(days=6))
    _api_cache_chat(cli_root, projects["api"], now - timedelta(days=2))
    _infra_chat(cli_root, projects["infra"], now - timedelta(days=9))
    _infra_store_chat(cli_root, projects["infra"], now - timedelta(days=3))
    _web_composers(ide_root, cli_root, projects["web"], now - timedelta(days=4))
    _api_editor_chat(ide_root, projects["api"], now - timedelta(days=3))
    _api_files(projects["api"])
    return SampleHistory(ide_root=ide_root, cli_root=cli_root, projects=projects)
