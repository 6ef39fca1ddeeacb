"""``deja fix``'s "fixed by" names the change, then the command that passed: a rerun of the failed command with other
flags is that command run again, and a command that only looked (``kubectl logs … | tail -3``, ``cat``) is no fix.

Before, the edit came first only when the command that passed was exactly the failed one: the test rerun with
``--repeat-each=20`` after ``=10`` failed was "fixed by" alone, the edit between only listed below it; and a
``kubectl logs`` run between a failed and a passing ``helm upgrade`` was called part of the fix (trial20 F1).
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import failure_hook, run_deja, store_shell

from deja.core.index import Index
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    write_chat_store,
)
from deja.interfaces.mcp_server import work_answer

TIMEOUT = "    TimeoutError: locator.click: Timeout 5000ms exceeded.\n    waiting for locator('#pay-button')"
HELM = "Error: UPGRADE FAILED: release shop-api failed, and has been rolled back due to atomic being set"
FLAKY = "E   AssertionError: assert 9 == 10"
PLAYWRIGHT = "npx playwright test checkout.spec.ts --retries=0"


def _chat(home: Path, chat_id: str, messages: list[dict]) -> Path:
    project = home / "code" / "shop"
    project.mkdir(parents=True, exist_ok=True)
    chat = chat_dir_for(home / ".cursor", str(project), chat_id)
    write_chat_store(chat, cwd=str(project), name=chat_id, messages=[*store_preamble(str(project)), *messages])
    return project


def _history(home: Path) -> Path:
    spec = home / "code" / "shop" / "e2e" / "checkout.spec.ts"
    wait = tool_call_part(
        "e1", "StrReplace", {"path": str(spec), "old_string": "await page.click", "new_string": "await ready; click"}
    )
    _chat(
        home,
        "c-e2e",
        [
            store_user_message("checkout.spec.ts times out on the pay button in CI"),
            *store_shell("t1", f"{PLAYWRIGHT} --repeat-each=10", TIMEOUT, 1),
            store_assistant_message("The button renders after Stripe Elements loads: waiting for it.", wait),
            *store_shell("t2", "cat playwright.config.ts", "export default { timeout: 5000 }", 0),
            *store_shell("t3", f"{PLAYWRIGHT} --repeat-each=20", "20 passed (1.2m)", 0),
            store_assistant_message("Fixed the flaky checkout test."),
        ],
    )
    _chat(
        home,
        "c-helm",
        [
            store_user_message("deploy v1.15.0"),
            *store_shell("t1", "helm upgrade --install shop ./chart --set image.tag=v1.15.0 --atomic", HELM, 1),
            *store_shell("t2", "kubectl logs -n prod deploy/shop --previous | tail -3", "Can't locate revision", 0),
            *store_shell(
                "t3", "helm upgrade --install shop ./chart --set image.tag=v1.15.0-1 --atomic", "REVISION: 44", 0
            ),
            store_assistant_message("v1.15.0-1 is live."),
        ],
    )
    project = _chat(
        home,
        "c-flaky",
        [
            store_user_message("the reserve test fails now and then"),
            *store_shell("t1", "pytest -q tests/test_stock.py", FLAKY, 1),
            *store_shell("t2", "git status", "nothing to commit, working tree clean", 0),
            *store_shell("t3", "pytest -q tests/test_stock.py", "3 passed", 0),
        ],
    )
    assert run_deja("index").returncode == 0
    return project


def test_the_edit_comes_first_when_the_rerun_has_other_flags(fake_home: Path) -> None:
    _history(fake_home)
    fix = run_deja("fix", "Timeout 5000ms exceeded")
    fixed = f"  fixed by: edited e2e/checkout.spec.ts, then {PLAYWRIGHT} --repeat-each=20\n"
    assert fixed in fix.stdout, fix.stdout
    assert "  edited: e2e/checkout.spec.ts\n" in fix.stdout, fix.stdout  # (relative, as "fixed by" names it)
    (occurrence,) = json.loads(run_deja("fix", "Timeout 5000ms exceeded", "--json").stdout)["occurrences"]
    assert occurrence["fixed_by"] == ["edited e2e/checkout.spec.ts", f"{PLAYWRIGHT} --repeat-each=20"], occurrence
    text, answer = work_answer(Index.open(fake_home / ".cache" / "deja"), "fix", "Timeout 5000ms exceeded", None)
    assert fixed in text + "\n", text  # the MCP `work` tool's fix: the same answer
    assert answer["occurrences"][0]["fixed_by"] == occurrence["fixed_by"]


def test_a_look_at_the_logs_is_not_part_of_the_fix(fake_home: Path) -> None:
    _history(fake_home)
    fix = run_deja("fix", HELM)
    helm = "helm upgrade --install shop ./chart --set image.tag=v1.15.0-1 --atomic"
    # (other arguments, nothing else changed: no "fixed by", review40b M1)
    assert f"  passed when run again with other arguments, nothing changed between: {helm}\n" in fix.stdout, fix.stdout
    assert "    $ kubectl logs -n prod deploy/shop --previous | tail -3  (ok)\n" in fix.stdout  # (still in what ran)


def test_a_rerun_after_only_a_look_is_still_a_flaky_failure(fake_home: Path) -> None:
    _history(fake_home)
    fix = run_deja("fix", FLAKY)
    assert "  passed when run again with nothing changed between (a flaky failure?)\n" in fix.stdout, fix.stdout
    assert "fixed by" not in fix.stdout


IN_PLACE = [  # an edit in place whose writing flag hides in a cluster or an argument (review40b H1)
    ("sed -ri 's/TOKN/SEDRI_TOKEN/' config.ini", "KeyError: 'SEDRI_TOKEN'"),
    ("sed -Ei.bak 's/X/SEDEI_VAR/' .env", "KeyError: 'SEDEI_VAR'"),
    ("sed -ni 's/X/SEDNI_VAR/p' .env", "KeyError: 'SEDNI_VAR'"),
    ("""awk -i inplace '{sub(/X/,"AWKIN_VAR")}1' .env""", "KeyError: 'AWKIN_VAR'"),
    ("sort -uo data.txt data.txt", "AssertionError: sortozz"),
]


def test_an_edit_in_place_with_a_flag_cluster_is_the_fix(fake_home: Path) -> None:
    for n, (step, error) in enumerate(IN_PLACE):
        _chat(
            fake_home,
            f"c-inplace{n}",
            [
                store_user_message("the config test fails"),
                *store_shell("t1", f"pytest -q tests/test_cfg{n}.py", f"E   {error}", 1),
                *store_shell("t2", step, "", 0),
                *store_shell("t3", f"pytest -q tests/test_cfg{n}.py", "1 passed", 0),
            ],
        )
    assert run_deja("index").returncode == 0
    for n, (step, error) in enumerate(IN_PLACE):
        fix = run_deja("fix", error)
        assert f"  fixed by: {step}, then pytest -q tests/test_cfg{n}.py\n" in fix.stdout, fix.stdout
        (occurrence,) = json.loads(run_deja("fix", error, "--json").stdout)["occurrences"]
        assert occurrence["fixed_by"] == [step, f"pytest -q tests/test_cfg{n}.py"], occurrence
        assert occurrence["flaky"] is False


def test_a_look_with_a_quiet_redirect_or_a_quoted_bar_is_no_step(fake_home: Path) -> None:
    """``2>&1``, ``2>/dev/null`` write no file and a ``|`` in quotes is no pipe: those looks are no part of the fix
    (review40b M5); a look writing a file still is."""
    helm = "helm upgrade --install shop ./chart --set image.tag=v2 --atomic"
    _chat(
        fake_home,
        "c-redir",
        [
            store_user_message("deploy v2"),
            *store_shell("t1", helm, HELM.replace("shop-api", "shop-redir"), 1),
            *store_shell("t2", "kubectl logs deploy/shop --previous 2>&1 | tail -3", "Can't locate revision", 0),
            *store_shell("t3", "cat chart/values.yaml 2>/dev/null", "image: shop", 0),
            *store_shell("t4", "ls chart &>/dev/null && git status >/dev/null", "", 0),
            *store_shell("t5", helm.replace("v2", "v2-1"), "REVISION: 45", 0),
        ],
    )
    _chat(
        fake_home,
        "c-grepor",
        [
            store_user_message("test_go fails"),
            *store_shell("t1", "pytest -q tests/test_go.py", "E   AssertionError: greporzz", 1),
            *store_shell("t2", "grep -E 'foo|bar' src/x.py", "foo = 1", 0),
            *store_shell("t3", "pytest -q tests/test_go.py", "1 passed", 0),
        ],
    )
    _chat(
        fake_home,
        "c-wrote",
        [
            store_user_message("test_wr fails"),
            *store_shell("t1", "pytest -q tests/test_wr.py", "E   AssertionError: wrotezz", 1),
            *store_shell("t2", "cat fixtures/base.json 2>&1 > fixtures/wr.json", "", 0),
            *store_shell("t3", "pytest -q tests/test_wr.py", "1 passed", 0),
        ],
    )
    assert run_deja("index").returncode == 0
    redir = run_deja("fix", "shop-redir failed")
    rerun = helm.replace("v2", "v2-1")
    assert f"  passed when run again with other arguments, nothing changed between: {rerun}\n" in redir.stdout, (
        redir.stdout
    )
    grep = run_deja("fix", "AssertionError: greporzz")
    assert "  passed when run again with nothing changed between (a flaky failure?)\n" in grep.stdout, grep.stdout
    wrote = run_deja("fix", "AssertionError: wrotezz")
    assert "  fixed by: cat fixtures/base.json 2>&1 > fixtures/wr.json, then pytest -q tests/test_wr.py\n" in (
        wrote.stdout
    ), wrote.stdout


def test_a_rerun_with_other_arguments_and_nothing_changed_is_no_fix(fake_home: Path) -> None:
    """The failed command run again with other flags or a narrower target, nothing edited or run between but a look,
    passed: that is no fix (a plain retry), and not a flaky failure either (it ran something else) (review40b M1)."""
    repeat = "npx playwright test checkout.spec.ts --repeat-each"
    _chat(
        fake_home,
        "c-flagsonly",
        [
            store_user_message("checkout.spec.ts times out"),
            *store_shell("t1", f"{repeat}=10", "TimeoutError: flagszz exceeded", 1),
            *store_shell("t2", "cat playwright.config.ts", "export default {}", 0),
            *store_shell("t3", f"{repeat}=20", "20 passed", 0),
        ],
    )
    project = _chat(
        fake_home,
        "c-narrower",
        [
            store_user_message("the suite fails"),
            *store_shell("t1", "pytest -q tests/", "E   AssertionError: narrowzz", 1),
            *store_shell("t2", "pytest -q tests/test_a.py", "3 passed", 0),
        ],
    )
    assert run_deja("index").returncode == 0
    index = Index.open(fake_home / ".cache" / "deja")
    for error, rerun in (
        ("flagszz exceeded", f"{repeat}=20"),
        ("AssertionError: narrowzz", "pytest -q tests/test_a.py"),
    ):
        said = f"  passed when run again with other arguments, nothing changed between: {rerun}\n"
        fix = run_deja("fix", error)
        assert said in fix.stdout, fix.stdout
        assert "fixed by" not in fix.stdout and "flaky" not in fix.stdout
        (occurrence,) = json.loads(run_deja("fix", error, "--json").stdout)["occurrences"]
        assert (occurrence["fixed_by"], occurrence["flaky"], occurrence["rerun_differs"]) == ([], False, True)
        assert occurrence["resolved_by"] == rerun
        text, answer = work_answer(index, "fix", error, str(project))
        assert said in text + "\n" and "fixed by" not in text, text
        assert answer["occurrences"][0]["rerun_differs"] is True


def test_the_failure_hook_says_what_deja_fix_says(fake_home: Path) -> None:
    """The failure hook's "What followed" named the look run after the edit and dropped the edit, where deja fix
    named the edit (review40b M2); after a retry with only a look between it named the look as what followed."""
    le = fake_home / "code" / "shop" / "src" / "le.py"
    edit = tool_call_part("e1", "StrReplace", {"path": str(le), "old_string": "x = 1", "new_string": "x = 2"})
    _chat(
        fake_home,
        "c-lookedit",
        [
            store_user_message("test_le fails"),
            *store_shell("t1", "pytest -q tests/test_le.py", "E   AssertionError: lookeditzz", 1),
            store_assistant_message("x must be 2.", edit),
            *store_shell("t2", "cat src/le.py", "x = 2", 0),
            *store_shell("t3", "pytest -q tests/test_le.py", "1 passed", 0),
        ],
    )
    project = _history(fake_home)
    said = failure_hook(project, "pytest -q tests/test_le.py", "E   AssertionError: lookeditzz")
    assert "What followed: edited src/le.py, then `pytest -q tests/test_le.py` succeeded" in said, said
    assert "  fixed by: edited src/le.py, then pytest -q tests/test_le.py\n" in run_deja("fix", "lookeditzz").stdout
    said = failure_hook(project, "pytest -q tests/test_stock.py", FLAKY, conversation="conv-flaky")
    flaky = "What followed: `pytest -q tests/test_stock.py` succeeded, run again with nothing changed between (a flaky"
    assert flaky in said and "git status" not in said, said
