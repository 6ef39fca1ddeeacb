"""A failed command that printed only an HTTP status line (curl's ``HTTP/2 403``, ``-w 'HTTP %{http_code}'``'s ``HTTP
403``, an access log's ``GET /x HTTP/1.1 503 9ms``) is recalled by its status and the host its command named
(trial53 F6): the same status from the same host is the same error, another status or host is not. The first fix
keyed such a line by its words alone (``HTTP/2 404`` read as a path, ``HTTP 404`` and ``HTTP 500`` alike), so a
failed curl printing ``HTTP/2 503`` was "the same error" as a past curl's ``HTTP/2 404`` from another host (review53e
F2, that fix taken back)."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import as_format_wrote_it, failure_hook, run_deja, store_shell

from deja.core import keys
from deja.core.errors import error_lines
from deja.core.index.format import FORMAT_VERSION
from deja.core.indexer.driver import refresh
from deja.core.paths import deja_home
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)


def _failed_curl_chat(
    home: Path, project: Path, chat: str, command: str, output: str, answer: str, fix: tuple[str, ...] = ()
) -> None:
    """A chat in which ``command`` failed printing ``output``, ``answer`` came next, then the commands ``fix`` (each
    passing) and ``command`` again, passing, when ``fix`` is given."""
    ran = [
        *(part for at, step in enumerate(fix) for part in store_shell(f"f{at}", step, "ok", 0)),
        *(store_shell("s2", command, "HTTP/2 200", 0) if fix else ()),
    ]
    messages = [
        *store_preamble(str(project)),
        store_user_message("why does the fetch fail"),
        *store_shell("s1", command, output, 22, "Checking."),
        store_assistant_message(answer),
        *ran,
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=chat, messages=messages)


@pytest.mark.parametrize(
    ("past", "now"),
    [
        ("HTTP/2 404 \nserver: nginx\ncontent-length: 0", "HTTP/2 503 \nretry-after: 30"),
        ("HTTP 404", "HTTP 500"),  # (curl -w 'HTTP %{http_code}')
        (
            "[2026-11-02 09:12] GET /left-pad/1.3.0 HTTP/1.1 404 3ms",
            "[2026-12-06 10:00] GET /v1/charges HTTP/1.1 503 9ms",
        ),
    ],
)
def test_the_failure_hook_does_not_recall_another_hosts_other_status_as_this_error(
    fake_home: Path, past: str, now: str
) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    _failed_curl_chat(
        fake_home,
        project,
        "c-registry",
        "curl -fsSI https://registry.example.org/left-pad/1.3.0",
        past,
        "The left-pad 1.3.0 tarball was unpublished: pinned 1.2.9 in package.json.",
    )
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "curl -fsS https://payments.example.com/v1/charges", now)
    # (the conversation's first event gives the session-start block, which lists the curl chat as recent work)
    assert "This error came up before" not in said and "unpublished" not in said.split("Recent sessions")[0], said


SHAPES = [
    ("HTTP/2 503 \nserver: nginx\nretry-after: 30", "HTTP/2 503 \nretry-after: 60", "HTTP/2 404 \nserver: nginx"),
    ("HTTP 403", "HTTP 403", "HTTP 401"),  # (curl -w 'HTTP %{http_code}')
    (
        "[2026-11-02 09:12] GET /v1/charges HTTP/1.1 503 9ms",
        "[2026-12-06 10:00] GET /v1/refunds HTTP/1.1 503 12ms",
        "[2026-12-06 10:00] GET /v1/refunds HTTP/1.1 502 12ms",
    ),
    (  # curl --fail's own line, which named every status alike (and comes before the status line: it names an error)
        "curl: (22) The requested URL returned error: 503",
        "HTTP/2 503 \ncurl: (22) The requested URL returned error: 503",
        "curl: (22) The requested URL returned error: 404",
    ),
]


def _payments_chat(home: Path, past: str) -> Path:
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    _failed_curl_chat(
        home,
        project,
        "c-payments",
        "curl -fsS https://payments.example.com/v1/charges",
        past,
        "The payments sandbox key had expired: rotated it in .env.",
        fix=("./scripts/rotate-sandbox-key.sh",),
    )
    assert run_deja("index").returncode == 0
    return project


@pytest.mark.parametrize(("past", "now", "_other"), SHAPES)
def test_the_same_status_from_the_same_host_recalls_the_past_fix(
    fake_home: Path, past: str, now: str, _other: str
) -> None:
    project = _payments_chat(fake_home, past)
    said = failure_hook(project, "curl -fsS -X POST https://payments.example.com/v1/refunds", now)
    assert "This error came up before, in 1 past session" in said, said
    assert "./scripts/rotate-sandbox-key.sh" in said, said


@pytest.mark.parametrize(("past", "_now", "other"), SHAPES)
def test_another_status_from_the_same_host_is_another_error(fake_home: Path, past: str, _now: str, other: str) -> None:
    project = _payments_chat(fake_home, past)
    said = failure_hook(project, "curl -fsS https://payments.example.com/v1/charges", other)
    assert "This error came up before" not in said and "rotate" not in said.split("Recent sessions")[0], said


@pytest.mark.parametrize(("past", "now", "_other"), SHAPES)
def test_the_same_status_from_another_host_is_another_error(fake_home: Path, past: str, now: str, _other: str) -> None:
    project = _payments_chat(fake_home, past)
    said = failure_hook(project, "curl -fsS https://payments.staging.example.com/v1/charges", now)
    assert "This error came up before" not in said and "rotate" not in said.split("Recent sessions")[0], said


def test_a_status_whose_command_names_no_host_is_no_error_recalled(fake_home: Path) -> None:
    """``./smoke.sh`` printing ``HTTP 503`` names no server: keyed by the status alone, any script's 503 would be
    this one."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    _failed_curl_chat(fake_home, project, "c-smoke", "./scripts/smoke.sh", "HTTP 503", "The queue was down.")
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "./scripts/smoke.sh", "HTTP 503")
    assert "This error came up before" not in said, said


@pytest.mark.parametrize(
    "line",
    [
        "(expect HTTP 404)",
        "Retries on HTTP 503: enabled",
        '{"message": "HTTP 404"}',
        "GET https://registry.example.org/HTTP/404",
        '127.0.0.1 - - "GET /x HTTP/1.1" 404 -',
        "HTTP/1.1 200 OK",
    ],
)
def test_a_line_that_only_names_a_status_further_on_is_no_error_line(line: str) -> None:
    """The shapes review53e F2 listed stay as they were: none is an error line."""
    assert error_lines(line) == []


PAYMENTS = "https://payments.example.com/v1/charges"
SANDBOX_FIX = "The payments sandbox key had expired: rotated it in .env."


def _payments_403(home: Path, command: str) -> Path:
    """A project whose past chat's ``command`` failed with ``HTTP/2 403`` and a key rotation fixed it, indexed."""
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    fix = ("./scripts/rotate-sandbox-key.sh",)
    _failed_curl_chat(home, project, "c-payments", command, "HTTP/2 403", SANDBOX_FIX, fix=fix)
    assert run_deja("index").returncode == 0
    return project


@pytest.mark.parametrize(
    "form",
    [
        "curl -x http://proxy.corp.example:3128 -fsS {url}",
        "HTTPS_PROXY=http://proxy.corp.example:3128 curl -fsS {url}",
        "curl -fsS -H 'Origin: https://shop.example.com' {url}",
    ],
)
def test_a_403_from_another_site_through_the_same_proxy_is_another_error(fake_home: Path, form: str) -> None:
    """The host is the URL the command fetches, not a proxy's, nor a header's (review54b F1: the first URL of the
    command keyed both sites' 403s by the proxy, and the payments fix was given for the registry)."""
    project = _payments_403(fake_home, form.format(url=PAYMENTS))
    said = failure_hook(project, form.format(url="https://registry.example.org/left-pad/1.3.0"), "HTTP/2 403")
    assert "This error came up before" not in said and "rotate" not in said.split("Recent sessions")[0], said
    again = failure_hook(project, form.format(url=PAYMENTS.replace("charges", "refunds")), "HTTP/2 403")
    assert "This error came up before, in 1 past session" in again and "rotate" in again, again


@pytest.mark.parametrize(
    "now", ["curl -fsS https://payments.example.com:443/v1/refunds", 'curl -fsS "$(echo https://payments.example.com)"']
)
def test_the_same_server_named_with_its_default_port_or_in_brackets_is_the_same_host(fake_home: Path, now: str) -> None:
    """``host:443`` of https is ``host``; a URL closed by a bracket ends before it (review54b F8)."""
    project = _payments_403(fake_home, f"curl -fsS {PAYMENTS}")
    said = failure_hook(project, now, "HTTP/2 403")
    assert "This error came up before, in 1 past session" in said, said


def test_an_index_of_the_format_before_is_rebuilt_with_the_status_keys(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index of format 24 held git's ``The requested URL returned error: 403`` by its words, a key the failure hook
    no longer looks up (review54b F2): format 25 rebuilds it at the first refresh, and the failure is recalled."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    command, output = (
        "git push origin main",
        ("fatal: unable to access 'https://github.com/acme/shop.git/': The requested URL returned error: 403"),
    )
    fix = ("gh auth refresh -h github.com",)
    _failed_curl_chat(fake_home, project, "c-before", command, output, "The token had expired.", fix=fix)
    with monkeypatch.context() as patched:  # (the index as format 24 wrote it: the line keyed by its words)
        patched.setattr(keys, "error_keys", lambda output, command="": [f"{keys.PREFIX}e:{keys._digest('old')}"])
        refresh(deja_home())
    as_format_wrote_it(deja_home(), FORMAT_VERSION - 1)
    assert run_deja("index").returncode == 0
    said = failure_hook(project, command, output)
    assert "This error came up before, in 1 past session" in said and "gh auth refresh" in said, said
