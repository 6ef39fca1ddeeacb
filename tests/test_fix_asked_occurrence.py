"""One session, several failures of one error key (numbers ignored) with different test ids, each with its own fix:
``deja fix``, the failure hook and the MCP ``work`` tool show the failure whose line is the one asked, and the
answer after it, not the session's newest failure of that shape (trial58 T5).

Before, asked about ``test_tenant_t013``'s exact line, all three showed ``test_tenant_t143``'s failure and its
answer ("fixed in … line 243"), from the same session: the digits of a test's id are its name, not a count.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)

TENANTS = {"t003": 103, "t013": 113, "t130": 230, "t143": 243}
NAN = "FloatingPointError: nan loss at step {}"
STEPS = (300, 3000, 7900)


def failed(tenant: str) -> str:
    return f"FAILED tests/test_proration.py::test_tenant_{tenant} - AssertionError: 1299 != 1300"


def answer(tenant: str) -> str:
    return f"Tenant {tenant}: fixed in billing/prorate.py line {TENANTS[tenant]}."


def _marathon(home: Path) -> Path:
    """A cursor-agent chat where each tenant's test failed once and got its own answer, oldest tenant first; and
    a training run whose nan came up at several steps, each with its own answer."""
    project = home / "code" / "billing"
    project.mkdir(parents=True)
    began = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
    messages = [*store_preamble(str(project))]
    runs = [(f"pytest tests/test_proration.py -k {t}", failed(t), answer(t)) for t in TENANTS]
    runs += [(f"python train.py --steps {s}", NAN.format(s), f"Step {s}: clipped the gradients.") for s in STEPS]
    for n, (command, output, said) in enumerate(runs):
        messages += [
            store_user_message(f"next one, please ({n})", began + timedelta(minutes=10 * n)),
            store_assistant_message(None, tool_call_part(f"t{n}", "Shell", {"command": command})),
            tool_result_message(f"t{n}", "Shell", shell_result_text(output, exit_code=1)),
            store_assistant_message(said),
        ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), "c-marathon"), cwd=str(project), name="Proration marathon", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def _fix(error: str) -> dict:
    ran = run_deja("fix", error, "--json")
    assert ran.returncode == 0, ran.stderr
    (found,) = json.loads(ran.stdout)["occurrences"]
    return found


def test_deja_fix_shows_the_failure_with_the_line_asked_and_its_answer(fake_home: Path) -> None:
    _marathon(fake_home)
    for tenant in TENANTS:
        ran = run_deja("fix", failed(tenant))
        assert ran.stdout.startswith("this error came up in 1 past session,"), ran.stdout
        assert f"  error: {failed(tenant)}\n" in ran.stdout and answer(tenant) in ran.stdout, (tenant, ran.stdout)
        found = _fix(failed(tenant))
        assert found["error"] == failed(tenant) and found["answer"] == answer(tenant), found


def test_a_line_closer_to_one_failure_shows_that_one_and_a_line_like_none_the_newest(fake_home: Path) -> None:
    """Another count beside the same test id is still that test's failure; an id the session never failed with gets
    its newest failure, as before; a number is matched as a whole word (``step 300`` is not ``step 3000``)."""
    _marathon(fake_home)
    assert _fix(failed("t013").replace("1300", "1301"))["answer"] == answer("t013")
    assert _fix(failed("t999"))["answer"] == answer("t143")
    assert _fix(failed("t13"))["answer"] == answer("t143")  # (not t013's, nor t130's: t13 is neither)
    for step in STEPS:
        assert _fix(NAN.format(step))["error"] == NAN.format(step)
    assert _fix(NAN.format(30))["error"] == NAN.format(7900)


def _after(project: Path, conversation: str, tenant: str) -> str:
    payload = {
        "conversation_id": conversation,
        "hook_event_name": "postToolUseFailure",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": f"pytest tests/test_proration.py -k {tenant}"},
        "error_message": failed(tenant),
    }
    ran = run_deja("hook-tool-after", input=json.dumps(payload))
    assert ran.returncode == 0, ran.stderr
    return str(json.loads(ran.stdout)["additional_context"]) if ran.stdout.strip() else ""


def test_the_failure_hook_shows_the_asked_failures_answer_and_another_ids_after_it(fake_home: Path) -> None:
    """In one conversation, t013's failure, then t143's: each its own answer (the second is news, not "shown
    already"); t013's again is not told again."""
    project = _marathon(fake_home)
    first = _after(project, "conv-a", "t013")
    assert answer("t013") in first and answer("t143") not in first, first
    second = _after(project, "conv-a", "t143")
    assert answer("t143") in second and answer("t013") not in second, second
    again = _after(project, "conv-a", "t013")
    assert "This error came up before" not in again and "Tenant" not in again, again


def test_the_mcp_work_tool_shows_the_asked_failures_answer(fake_home: Path) -> None:
    from deja.interfaces.fastpath import open_index
    from deja.interfaces.mcp_server import work_answer

    _marathon(fake_home)
    for asked, said in ((failed("t003"), answer("t003")), (NAN.format(300), "Step 300: clipped the gradients.")):
        text, found = work_answer(open_index(), "fix", asked, None)
        (occurrence,) = found["occurrences"]
        assert occurrence["error"] == asked and occurrence["answer"] == said, text
        assert f"error: {asked}\n" in text and said in text, text


def test_of_one_output_printing_two_ids_the_line_shown_is_the_one_asked(fake_home: Path) -> None:
    """One pytest run printed the FAILED lines of two tests, one key: asked about the second, ``deja fix`` shows its
    line, not the first one's."""
    project = fake_home / "code" / "billing"
    project.mkdir(parents=True)
    output = f"{failed('t003')}\n{failed('t143')}\n2 failed in 0.4s"
    messages = [
        *store_preamble(str(project)),
        store_user_message("proration tests fail"),
        store_assistant_message(None, tool_call_part("t0", "Shell", {"command": "pytest tests/test_proration.py"})),
        tool_result_message("t0", "Shell", shell_result_text(output, exit_code=1)),
        store_assistant_message("Both tenants used the old plan's day count; fixed in billing/prorate.py."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-two"), cwd=str(project), name="Two tenants", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    for tenant in ("t003", "t143"):
        assert _fix(failed(tenant))["error"] == failed(tenant)
