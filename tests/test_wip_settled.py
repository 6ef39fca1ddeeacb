"""What ``deja wip`` and ``deja ctx`` say a session settled, and how its last command ended (trial23 F7.2, F7.9).

Before, ``settled:`` was the first line of the last answer, "I'll help you apply dark mode styling…. Here are the
necessary changes:", and ctx listed "Checking the worker." among the decisions and findings: an opener and a line
of progress, neither of them a finding. A command whose exit status no record kept "(ended unknown)". Then a line
that announced its code lost the diagnosis before it, and a one-line result that opens with a verb in -ing
("Adding the missing index fixed it.") was taken for progress (review43a H1).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import shared_path
from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_transcript,
)

CHAT = "f7200000-0000-4000-8000-000000000072"
FOUND = "The worker used the default redis://localhost; exported REDIS_URL from .env and it connects."
STYLED = "The sidebar now takes its colours from Ionic's step variables, so it follows the theme toggle."
DARK_MODE = f"""I'll help you apply dark mode styling to the sidebar. Here are the necessary changes:

```scss:src/global.scss
body.dark {{
  .sidebar {{ background: var(--ion-color-step-50); }}
}}
```

These changes will:
1. Give the sidebar a dark background in dark mode
2. Keep its light background otherwise

{STYLED}

Let me know if you'd like to adjust any of the specific colors!"""


def _chat(home: Path) -> Path:
    project = home / "code" / "shop-api"
    project.mkdir(parents=True)
    records = [
        user_turn("celery worker can't reach redis"),
        assistant_turn("Checking the worker.", tool_use("Shell", {"command": "celery -A shop worker -l info"})),
        assistant_turn(FOUND),
        turn_ended(),
        user_turn("apply dark mode to the sidebar"),
        assistant_turn(DARK_MODE),
        turn_ended(),
    ]
    write_transcript(transcript_path(home / ".cursor", str(project), CHAT), records)
    assert run_deja("index").returncode == 0
    return project


def test_wip_settles_on_what_the_answer_found_not_its_opener(fake_home: Path) -> None:
    project = _chat(fake_home)
    wip = run_deja("wip", cwd=project).stdout
    assert f"\nsettled: {STYLED}\n" in wip, wip
    assert "last command: celery -A shop worker -l info (exit status not recorded)" in wip, wip
    assert "ended unknown" not in wip and "I'll help you" not in wip, wip


def test_ctx_lists_findings_not_narration_of_progress(fake_home: Path) -> None:
    _chat(fake_home)
    ctx = run_deja("ctx", CHAT).stdout
    assert f"## Decisions and findings\n- {FOUND}\n- {STYLED}\n\n" in ctx, ctx
    assert "Checking the worker" not in ctx, ctx


def test_where_it_stopped_is_the_last_answers_last_sentences_in_wip_json_and_not_a_finding_again_in_ctx(
    fake_home: Path,
) -> None:
    """trial43 F10: ctx's "Where it stopped" repeated the whole last answer from its first line, and ``wip --json``'s
    ``stopped`` held all of it (2 KB of SCSS), though the session did not stop on a failed command. Where those last
    sentences are a finding ctx lists, ctx says them once (review44b M4: 11 of the 31 real digests said them twice)."""
    project = _chat(fake_home)
    assert json.loads(run_deja("wip", "--json", cwd=project).stdout)["stopped"] == STYLED
    ctx = run_deja("ctx", CHAT).stdout
    assert ctx.count(STYLED) == 1 and "## Where it stopped" not in ctx, ctx


def test_a_finding_that_opens_with_assent_or_a_verb_of_progress_is_kept(fake_home: Path) -> None:
    """What an answer found is kept: after "OK:" (which alone goes), and a line of progress that gives its result."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [
        user_turn("the reserve test is flaky"),
        assistant_turn("Running the tests again: all 42 pass."),
        assistant_turn("OK: the fixture shared one session; it is per test now."),
        turn_ended(),
    ]
    write_transcript(transcript_path(fake_home / ".cursor", str(project), CHAT), records)
    assert run_deja("index").returncode == 0
    assert "\nsettled: The fixture shared one session; it is per test now.\n" in run_deja("wip", cwd=project).stdout
    found = "- Running the tests again: all 42 pass.\n- The fixture shared one session; it is per test now.\n"
    assert found in run_deja("ctx", CHAT).stdout


def _answers(home: Path, folder: str, *answers: str) -> Path:
    """A chat in ``~/code/FOLDER`` (its id ends in the folder's name) whose agent gave ``answers``, the last with a
    command."""
    project = home / "code" / folder
    project.mkdir(parents=True)
    said = [assistant_turn(answer) for answer in answers[:-1]]
    shell = tool_use("Shell", {"command": "pytest -q"})
    records = [user_turn(f"fix {folder}"), *said, assistant_turn(answers[-1], shell), turn_ended()]
    write_transcript(transcript_path(home / ".cursor", str(project), _chat_id(folder)), records)
    return project


def _chat_id(folder: str) -> str:
    return CHAT[: -len(folder.encode().hex())] + folder.encode().hex()


def test_a_diagnosis_before_the_fix_it_announces_and_a_one_line_result_are_settled(fake_home: Path) -> None:
    """The cause before "Here is the fix:" is kept, and "Adding … fixed it." is a result, not progress."""
    shop = _answers(
        fake_home,
        "shop",
        "I'll look at the query plan. It does a sequential scan on orders.customer_id.",
        "Adding the missing index on orders.customer_id fixed it.",
    )
    cause = "The session secret is read before .env is loaded."
    auth = _answers(fake_home, "auth", f"{cause} Here is the fix:\n\n```python\nload_dotenv()\n```")
    assert run_deja("index").returncode == 0
    assert "\nsettled: Adding the missing index on orders.customer_id fixed it.\n" in run_deja("wip", cwd=shop).stdout
    assert f"\nsettled: {cause}\n" in run_deja("wip", cwd=auth).stdout


def test_ctx_keeps_results_and_leaves_out_narration_steps_and_questions(fake_home: Path) -> None:
    steps = "After making these changes:\n\n1. Delete the dist folder: `rm -rf dist`\n2. Start it again: `ng serve`"
    answers = [
        "First, let's create the necessary files.",
        "Checking why the test fails.",
        "Pinning numpy fixed it.",
        "Great catch: the pool is too small.",
        steps,
        "Could you verify that the settings folder exists?",
        "Working now.",
    ]
    _answers(fake_home, "api", *answers)
    assert run_deja("index").returncode == 0
    ctx = run_deja("ctx", _chat_id("api")).stdout
    found = "- Pinning numpy fixed it.\n- Great catch: the pool is too small.\n- Working now.\n\n"
    assert f"## Decisions and findings\n{found}" in ctx, ctx


def test_the_real_database_settles_on_the_diagnoses_its_answers_give(fake_home: Path) -> None:
    """slevin48/cursor-history: 9 answers give their diagnosis, then announce the code ("… directive. Let's fix
    that by adding it to the imports array in the component:"); each was lost whole, and a later line taken."""
    store = fake_home / ".config" / "Cursor" / "User" / "globalStorage"
    store.mkdir(parents=True)
    shutil.copy(shared_path("realdata", "slevin48-cursor-history", "state.vscdb"), store / "state.vscdb")
    assert run_deja("index").returncode == 0
    android = "This error occurs when trying to run an Android app (likely with Ionic/Cordova) and the Android SDK"
    assert _findings("33d81a85") == f"- {android} cannot be found."
    assert _findings("484448da").startswith("- The error occurs because we haven't imported the NgClass directive.\n")
    settings = _findings("a76419da")
    compiled = "The error suggests that the settings page files need to be properly included in the TypeScript"
    assert settings.startswith(f"- {compiled} compilation.\n"), settings
    assert "Could you verify" not in settings and "Delete the dist folder" not in settings, settings
    for session in ("cf2ead9f", "33904b7b", "d9908bbd"):
        assert "First, let's create" not in _findings(session)


def _findings(session: str) -> str:
    """``deja ctx SESSION``'s decisions and findings."""
    ctx = run_deja("ctx", session).stdout
    return ctx.partition("## Decisions and findings\n")[2].partition("\n\n")[0]


def test_an_answer_that_opens_with_a_heading_settles_on_what_follows_it(fake_home: Path) -> None:
    """Agent mode often ends a task with "## Summary": ``wip`` said ``settled: ## Summary`` (review43d H1)."""
    found = "The worker crashed because the queue name had a trailing space; I trimmed it."
    folders = {}
    for folder, heading in (("md", "## Summary"), ("h3", "### Changes made"), ("bold", "**Summary**")):
        folders[folder] = _answers(fake_home, folder, f"{heading}\n\n{found}")
    assert run_deja("index").returncode == 0
    for folder, project in folders.items():
        assert f"\nsettled: {found}\n" in run_deja("wip", cwd=project).stdout, folder


def test_an_apology_gives_its_correction_and_praise_and_admissions_go(fake_home: Path) -> None:
    """An opener dropped its whole sentence: an apology's correction after its dash or colon went with it (review43d
    M2); "Great question!" and "Perfect!" stayed, "You're right - let's …" was kept, and "We'll use …", a decision,
    went as an opener (L6), though "We'll need to update …" is one (c3a2617b's real answer)."""
    apologies = [
        "I apologize for the confusion - the error is actually caused by the missing HttpClientModule import.",
        "Sorry, I was wrong earlier: the timeout comes from nginx, not from gunicorn.",
        "Great question! The cache key omits the locale.",
    ]
    praise = [
        "Perfect! The build passes now.",
        "You're right - let's remove those toolbar-related styles that I added.",
        "We'll use Redis for the session store, since it is already deployed.",
        "We'll need to update the app.component.ts and app.component.html files.",
    ]
    _answers(fake_home, "sorry", *apologies)
    _answers(fake_home, "praise", *praise)
    assert run_deja("index").returncode == 0
    assert _findings(_chat_id("sorry")) == "\n".join(
        [
            "- The error is actually caused by the missing HttpClientModule import.",
            "- The timeout comes from nginx, not from gunicorn.",
            "- The cache key omits the locale.",
        ]
    )
    found = "- The build passes now.\n- We'll use Redis for the session store, since it is already deployed."
    assert _findings(_chat_id("praise")) == found


def test_findings_given_as_a_list_are_settled(fake_home: Path) -> None:
    """A list of findings settled nothing, and "- **Fixed** …" no longer counted: its Markdown bold hid the past
    tense (review43d M3). A list of steps or of things still settles nothing."""
    problems = (
        "I found two problems:\n\n1. The cache key omits the locale.\n2. The TTL is in seconds, not ms.\n\nFix both?"
    )
    changed = "Here's what I changed:\n\n- **Fixed** the null check in parse()\n- **Added** a test"
    steps = "Next:\n\n- Need a restart\n- Speed up the build\n- The button"
    projects = {
        "The cache key omits the locale.": _answers(fake_home, "found", problems),
        "Fixed the null check in parse()": _answers(fake_home, "changed", changed),
        "": _answers(fake_home, "steps", steps),
    }
    assert run_deja("index").returncode == 0
    for settled, project in projects.items():
        shown = run_deja("wip", cwd=project).stdout
        assert (f"\nsettled: {settled}\n" in shown) if settled else ("settled:" not in shown), shown


def test_an_apology_that_corrects_nothing_settles_nothing(fake_home: Path) -> None:
    """review43e L3: an apology with no correction left its remainder as a finding ("But I cannot see the file you
    mentioned.", "I made a mistake."); a later answer's finding is what the chat settled."""
    _answers(
        fake_home,
        "apology",
        "I apologize, but I cannot see the file you mentioned.",
        "Sorry, I made a mistake.",
        "The cache key omits the locale.",
    )
    assert run_deja("index").returncode == 0
    assert _findings(_chat_id("apology")) == "- The cache key omits the locale."


def test_a_list_of_steps_opening_with_the_or_it_settles_nothing(fake_home: Path) -> None:
    """review43e L4: "1. The first thing to do is delete the dist folder." and "1. It is best to delete
    node_modules" settled as findings: they are steps to take."""
    project = _answers(
        fake_home,
        "advice",
        "To get it building again:\n\n1. The first thing to do is delete the dist folder.\n"
        "2. It is best to delete node_modules\n3. Then run npm install",
    )
    found = _answers(fake_home, "found", "What I found:\n\n1. The best fix was pinning numpy to 1.26.")
    assert run_deja("index").returncode == 0
    shown = run_deja("wip", cwd=project).stdout
    assert "settled:" not in shown, shown
    assert "\nsettled: The best fix was pinning numpy to 1.26.\n" in run_deja("wip", cwd=found).stdout


def test_an_apology_followed_by_its_correction_keeps_the_correction(fake_home: Path) -> None:
    """review44b M1: a remainder after an apology that opened with "but" or "I" was taken to correct nothing, so "I
    apologize for the confusion, but the error is actually in main.ts: …" lost its diagnosis; only one that says what
    the agent cannot do goes."""
    but = "I apologize for the confusion, but the error is actually in main.ts: the import path is wrong."
    _answers(fake_home, "but", but, "I apologize, but I cannot see the file.")
    _answers(
        fake_home,
        "i",
        "Sorry, I missed that: the config is YAML, so the key is `port`.",
        "I made a mistake: I imported IonicModule twice.",
        "You're right, I was using the wrong port: the server listens on 8100.",
    )
    assert run_deja("index").returncode == 0
    assert _findings(_chat_id("but")) == "- The error is actually in main.ts: the import path is wrong."
    assert _findings(_chat_id("i")) == "\n".join(
        [
            "- I missed that: the config is YAML, so the key is `port`.",
            "- I imported IonicModule twice.",
            "- I was using the wrong port: the server listens on 8100.",
        ]
    )


def test_a_list_item_saying_what_was_done_is_no_step_for_the_advice_it_mentions(fake_home: Path) -> None:
    """review44b M2: "should" or "needs to" anywhere in an item made it a step to take, so "- Fixed the import so
    the page should load now" and "1. It turned out the key needs to be base64." settled nothing; only an item whose
    first words advise ("1. It is best to …") is a step."""
    fixed = _answers(fake_home, "fixed", "Here is what I did:\n\n- Fixed the import so the page should load now")
    found = _answers(fake_home, "found", "Summary:\n\n1. It turned out the key needs to be base64.")
    assert run_deja("index").returncode == 0
    assert "\nsettled: Fixed the import so the page should load now\n" in run_deja("wip", cwd=fixed).stdout
    assert "\nsettled: It turned out the key needs to be base64.\n" in run_deja("wip", cwd=found).stdout


def test_one_list_of_sign_offs_settles_none_and_keeps_an_instruction_where_it_stopped(fake_home: Path) -> None:
    """review44b L1: the sign-offs the findings drop and those "Where it stopped" drops were two lists that disagreed:
    "If you have any questions, just ask." settled as a finding, and "If you need to run this on CI, …", an
    instruction, was dropped from where the session stopped."""
    _answers(fake_home, "asked", "The cache key omits the locale.", "If you have any questions, just ask.")
    fixed = "The build failed because the SDK path was unset; I set it in local.properties."
    ci = _answers(fake_home, "ci", f"{fixed}\n\nIf you need to run this on CI, set ANDROID_HOME there too.")
    assert run_deja("index").returncode == 0
    assert _findings(_chat_id("asked")) == "- The cache key omits the locale."
    stopped = json.loads(run_deja("wip", "--json", cwd=ci).stdout)["stopped"]
    assert stopped == "If you need to run this on CI, set ANDROID_HOME there too.", stopped


def test_where_it_stopped_gives_a_closing_list_with_its_lead_in_and_no_lead_in_without_its_code(
    fake_home: Path,
) -> None:
    """review44b M3: an answer that ended in a list stopped at its last item alone ("- And all other UI elements",
    the real 2aa483d1's), and a line that introduced code was shown without it ("Now restart the dev server:")."""
    listed = "The dark mode toggle will now affect:\n- Background colors\n- Text colors\n- And all other UI elements"
    _answers(fake_home, "list", f"The theme was never saved; it is kept in localStorage now.\n\n{listed}")
    restart = "Now restart the dev server:\n\n```bash\nnpm ci\nng serve\n```"
    _answers(fake_home, "code", f"I added the route.\n\nThe old bundle is still served. {restart}")
    assert run_deja("index").returncode == 0
    affect = "The dark mode toggle will now affect: Background colors; Text colors; And all other UI elements"
    assert run_deja("ctx", _chat_id("list")).stdout.endswith(f"## Where it stopped\n{affect}\n")
    assert run_deja("ctx", _chat_id("code")).stdout.endswith("## Where it stopped\nThe old bundle is still served.\n")


def test_where_it_stopped_shows_a_one_line_command_inline_and_a_headings_list_under_its_name(fake_home: Path) -> None:
    """fix44b left: "Now restart the dev server:" before a one-line ``ng serve`` was dropped, where the command is
    where the session stopped; and a list under a heading ("## Next steps") was its items alone."""
    restart = "Now restart the dev server:\n\n```bash\nng serve\n```"
    _answers(fake_home, "serve", f"I added the route.\n\nThe old bundle is still served. {restart}")
    steps = "## Next steps\n\n- Run the migration on staging\n- Restart the worker"
    _answers(fake_home, "steps", f"The queue name had a trailing space; I trimmed it in settings.py.\n\n{steps}")
    assert run_deja("index").returncode == 0
    served = "The old bundle is still served. Now restart the dev server: `ng serve`"
    assert run_deja("ctx", _chat_id("serve")).stdout.endswith(f"## Where it stopped\n{served}\n")
    stopped = json.loads(run_deja("wip", "--json", cwd=fake_home / "code" / "steps").stdout)["stopped"]
    assert stopped == "Next steps: Run the migration on staging; Restart the worker"


def test_an_apology_before_what_the_agent_thinks_keeps_it(fake_home: Path) -> None:
    """fix44b left: "Sorry, I don't think …" was taken for an apology that corrects nothing, like "I don't have
    access to it", and the finding after it was lost."""
    _answers(
        fake_home,
        "think",
        "Sorry, I don't think the port is the cause: the server binds to 127.0.0.1 only.",
        "I apologize, but I don't have access to that file.",
    )
    assert run_deja("index").returncode == 0
    assert _findings(_chat_id("think")) == "- I don't think the port is the cause: the server binds to 127.0.0.1 only."


def test_an_apology_that_says_what_the_agent_cannot_do_corrects_nothing(fake_home: Path) -> None:
    """review45b M4: "I don't actually have access…", "I don't recall…" and "I don't think I can…" were taken for
    findings once only "I don't have/see/know" said the agent could not do a thing; what follows a refusal's colon
    is one ("I don't see a bug in parse(): the fixture is stale"), and so is what the agent thinks of the work."""
    refusals = [
        "Sorry, I don't actually have access to your files.",
        "I apologize, but I don't recall the earlier error.",
        "Sorry, I don't think I can run that here.",
        "I apologize, but I don\u2019t have access to the repo.",
        "Sorry, I do not currently see the file.",
    ]
    _answers(fake_home, "refuse", *refusals, "The cache key omits the locale.")
    findings = [
        "Sorry, I don't see any bug in parse(): the fixture is stale.",
        "Sorry, I don't think the port is the cause: the server binds to 127.0.0.1 only.",
    ]
    _answers(fake_home, "found", *findings, "I trimmed the trailing space.")
    assert run_deja("index").returncode == 0
    assert _findings(_chat_id("refuse")) == "- The cache key omits the locale."
    assert _findings(_chat_id("found")) == (
        "- The fixture is stale.\n- I don't think the port is the cause: the server binds to 127.0.0.1 only.\n"
        "- I trimmed the trailing space."
    )


def test_where_it_stopped_shows_no_destructive_command_no_half_command_and_no_prose_as_code(fake_home: Path) -> None:
    """review45b L1-L3: a one-line ``git reset --hard`` after "To start over clean:" was shown inline as the step to
    take, without the warning the commands list gives it; a cut at 300 characters fell inside the inline command;
    and a YAML block's last line ``web:`` with its closing fence took the prose after it for a one-line block."""
    reset = "Everything is fixed. To start over clean:\n\n```\ngit reset --hard origin/main && rm -rf node_modules\n```"
    reset_at = _answers(fake_home, "reset", reset)
    long = "The worker reads its settings from the environment, " + "and picks them up on start, " * 7
    command = "docker compose -f docker-compose.prod.yml up -d --build worker"
    long_at = _answers(fake_home, "long", f"{long}which you do by running this:\n```\n{command}\n```")
    yaml = "Add the service:\n```yaml\nservices:\n  web:\n```\nThe web service is now defined.\n```\nimage: nginx\n```"
    yaml_at = _answers(fake_home, "yaml", yaml)
    assert run_deja("index").returncode == 0

    def stopped(project: Path) -> str:
        return str(json.loads(run_deja("wip", "--json", cwd=project).stdout)["stopped"])

    assert stopped(reset_at) == "Everything is fixed."
    cut = stopped(long_at)
    assert cut.endswith("by running this:…") and "`" not in cut and len(cut) <= 300, cut
    assert stopped(yaml_at) == "The web service is now defined."


def test_where_it_stopped_keeps_the_last_whole_sentences_within_300_characters(fake_home: Path) -> None:
    """review44b L4: nothing held the 300-character limit: the last sentences that fit whole, and one sentence longer
    than that cut between words."""
    first = (
        "The worker read its queue name from the environment, " + "where a trailing space had crept in, " * 5 + "too. "
    )
    closing = "I trimmed it in settings.py. The worker connects now. Restart it once after you pull."
    several = _answers(fake_home, "several", f"{first}{closing}")
    long = "The route table " + "lists the settings page under its old name and " * 8 + "never loads it."
    one = _answers(fake_home, "one", long)
    assert run_deja("index").returncode == 0
    assert json.loads(run_deja("wip", "--json", cwd=several).stdout)["stopped"] == closing
    stopped = json.loads(run_deja("wip", "--json", cwd=one).stdout)["stopped"]
    assert len(stopped) <= 300 and stopped.endswith("old name and…") and long.startswith(stopped[:-1]), stopped
