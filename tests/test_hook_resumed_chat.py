"""The hooks' recalled asks: a resumed chat's ``asked:`` is the ask its last answer answers (trial47 F1), and a
recalled question is in its own words, not the config pasted in it (trial47 F3, review47a H1).

Before, sessionStart's "Recent sessions" paired a chat's first question with its last answer: a chat resumed days
later on another problem told the model that the first question was answered by the later fix. And the prompt
hook's ``user:`` line spent most of its room on a pasted ``.env``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import ROUTINE_CHATS, hook_prompt, index_asked_chats, index_chat, run_deja, session_start_block
from test_wip_resumed_chat import (
    COMPOSE,
    ENV_ASK,
    ENV_LINE,
    GREETING_FIRST,
    KUBECONFIG,
    NPM_LOG,
    RUST_ERROR,
    TRACEBACK_FIRST,
    VALUED_FIRST_LINES,
)

from deja.core.writers.cursor_agent import assistant_turn, turn_ended, user_turn

CHAT = "f47f4700-0000-4000-8000-000000000047"
TODAY = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=1)
BEGAN = TODAY - timedelta(days=3)
FIRST = "this returns an empty list, why?"
FIRST_ANSWER = "The query filtered on a status no order has; it reads 'open' now."
AGAIN = "page 2 of the orders list repeats orders from page 1"
SETTLED = "The ORDER BY created_at is not unique; added id as a tie-breaker in orders/list.py."


def _resumed_chat(home: Path) -> Path:
    """The chat: a first ask and its answer, then three days later another problem and its fix."""
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    records = [
        user_turn(FIRST, BEGAN),
        assistant_turn(FIRST_ANSWER),
        turn_ended(),
        user_turn(AGAIN, TODAY),
        assistant_turn(SETTLED),
        turn_ended(),
    ]
    index_chat(home, project, CHAT, records)
    return project


def test_a_chat_resumed_days_later_is_listed_with_the_ask_its_last_answer_answers(fake_home: Path) -> None:
    project = _resumed_chat(fake_home)
    began = BEGAN.astimezone()
    expected = f"  asked: {AGAIN}  (chat began {began:%Y-%m-%d}: {FIRST})\n  concluded: {SETTLED}\n"
    block = session_start_block(project)
    assert expected in block, block
    # a prompt that no sessionStart came before (a resumed cursor-agent chat) carries the same block
    given = hook_prompt(dict(os.environ), "how do I rotate the deploy key?", str(project), "c-prompt")
    assert expected in given, given


def test_a_chat_continued_the_same_day_keeps_its_first_ask(fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [user_turn(FIRST, TODAY), assistant_turn(FIRST_ANSWER), turn_ended()]
    records += [user_turn(AGAIN, TODAY + timedelta(minutes=30)), assistant_turn(SETTLED), turn_ended()]
    index_chat(fake_home, project, CHAT, records)
    block = session_start_block(project)
    assert f"  asked: {FIRST}\n  concluded: {SETTLED}\n" in block, block


def test_a_chat_resumed_with_its_new_ask_not_answered_yet_pairs_its_last_answer_with_the_ask_it_answers(
    fake_home: Path,
) -> None:
    """The agent still at work on the resumed ask (or its turn cancelled): the last answer is the first ask's."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [user_turn(FIRST, BEGAN), assistant_turn(FIRST_ANSWER), turn_ended(), user_turn(AGAIN, TODAY)]
    index_chat(fake_home, project, CHAT, records)
    block = session_start_block(project)
    assert f"  asked: {FIRST}\n  concluded: {FIRST_ANSWER}\n" in block, block


ENV_ANSWER = (
    "The webhook looked up the signing secret under its old name; renaming the lookup fixed the signature check."
)


def test_a_recalled_question_is_its_own_words_not_the_env_pasted_under_it(tmp_path: Path) -> None:
    project = str(tmp_path / "shop")
    env = index_asked_chats(tmp_path, project, [*ROUTINE_CHATS, ("c-stripe-401", ENV_ASK, ENV_ANSWER)])
    prompt = "the stripe webhook signature check is failing again in staging, what did we do last time?"
    given = hook_prompt(env, prompt, project)
    assert "deja show c-stripe-401" in given, given
    assert f"  user: stripe webhook returns 401 in staging. here is my .env: {ENV_LINE}\n" in given, given
    assert "postgres://" not in given, given
    assert "REDIS_URL" not in given and "DEBUG=false" not in given, given
    assert "renaming the lookup fixed the signature check" in given, given


#: Asks whose first line is not the question (review47a H1), the answer that closed each, a prompt that recalls it,
#: and the ask in its own words as ``asked:`` and a recalled ``user:`` line give it.
OWN_WORDS = [
    (
        TRACEBACK_FIRST,
        "The settings split moved DATABASE_URL into settings/base.py; create_app reads it from there now.",
        "the server refuses to start with KeyError DATABASE_URL since the settings split, what fixed it?",
        "KeyError: 'DATABASE_URL' … Why does the server refuse to start since the settings split?",
    ),
    (
        GREETING_FIRST,
        "The mobile client uses the authorization code flow with PKCE now; auth/oauth.py dropped the implicit grant.",
        "how did we migrate the auth module to OAuth2 with PKCE from the implicit flow?",
        " ".join(GREETING_FIRST.split()),
    ),
    (
        COMPOSE,
        "In the api container localhost is the container itself: DATABASE_URL points at the db service host now.",
        "the api container can't reach the database in docker compose, what did we change?",
        "Here is my docker-compose file: services: … Why can't the api container reach the database?",
    ),
    (
        RUST_ERROR,
        "Borrowing v instead of moving it into w fixed the borrow of the moved value.",
        "rust borrow of moved value error in main.rs, how did we fix it?",
        "error[E0382]: borrow of moved value: `v` … help?",
    ),
    (
        NPM_LOG,
        "Vercel built with node 18; pinning node 20 in package.json engines fixed the build.",
        "the build breaks on vercel only with npm ELIFECYCLE, what fixed it?",
        "npm ERR! code ELIFECYCLE … the build breaks on vercel only, why?",
    ),
]


@pytest.mark.parametrize(
    ("ask", "answer", "prompt", "words"), OWN_WORDS, ids=["traceback", "greeting", "compose", "rust", "npm"]
)
def test_asked_and_a_recalled_question_are_the_asks_own_words(
    fake_home: Path, tmp_path: Path, ask: str, answer: str, prompt: str, words: str
) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [user_turn(ask, TODAY), assistant_turn(answer), turn_ended()]
    index_chat(fake_home, project, CHAT, records)
    block = session_start_block(project)
    assert f"  asked: {words}\n" in block, block
    env = index_asked_chats(tmp_path, str(project), [*ROUTINE_CHATS, ("c-own-words", ask, answer)])
    given = hook_prompt(env, prompt, str(project))
    assert "deja show c-own-words" in given, given
    # (a title that says the question, an ask's own words where its first line was pasted, leaves the user: line out)
    assert f"  user: {words}\n" in given or f'- "{words[:60]}' in given, given
    assert "Traceback" not in given and "postgres:16" not in given, given


def test_asked_is_the_question_before_a_pasted_kubeconfig(fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    records = [user_turn(KUBECONFIG, TODAY), assistant_turn("The cluster's CA rotated; fetched a new kubeconfig.")]
    index_chat(fake_home, project, CHAT, [*records, turn_ended()])
    block = session_start_block(project)
    assert "  asked: kubectl can't connect to the staging cluster. my kubeconfig: apiVersion: …\n" in block, block
    assert "certificate-authority-data" not in block and "6443" not in block, block


@pytest.mark.parametrize(("ask", "words"), VALUED_FIRST_LINES[:2], ids=["yaml", "log"])
def test_asked_gives_a_paste_by_a_line_without_its_values(fake_home: Path, ask: str, words: str) -> None:
    """A paste's first line stood for it whole in every new chat's session-start block unless it was ``NAME=value``:
    a YAML ``password:``'s value or a log line's, which the redaction rules do not know for a secret, reached the
    model (review47k)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    index_chat(fake_home, project, CHAT, [user_turn(ask, TODAY), assistant_turn(FIRST_ANSWER), turn_ended()])
    block = session_start_block(project)
    assert f"  asked: {words}\n" in block, block
    assert "tangerine" not in block, block


def test_a_chat_whose_ask_begins_with_a_paste_is_headed_by_its_own_words(fake_home: Path) -> None:
    """Its title, the first line of its first ask, was the paste's first line, values and all (review47k)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    log = "2026-12-05 03:00:01 INFO logging in as shop/tangerine\n2026-12-05 03:00:02 ERROR connection reset\n"
    index_chat(fake_home, project, CHAT, [user_turn(f"{log}what stops it", TODAY), assistant_turn(FIRST_ANSWER)])
    block = session_start_block(project)
    assert '- "2026-12-05 03:00:01 INFO … what stops it" (shop, ' in block, block
    assert "tangerine" not in block, block


PARTS = [
    f"{area} {piece}"
    for area in ("catalogue", "account", "admin", "checkout", "search", "mailer")
    for piece in ("page", "worker", "cache", "dashboard", "cron job", "log shipping")
]
LONG_ASK = (
    "We moved the shop to the new cluster last week and most of it went fine. "
    + " ".join(f"The {part} came up on the first try and looks as it did before the move." for part in PARTS)
    + " One thing is left that I cannot explain: since the move the stripe webhook signature check fails for every "
    "event in staging, while production is fine."
)


def test_a_long_recalled_question_is_shown_where_it_says_what_the_prompt_asks(tmp_path: Path) -> None:
    """Its own words cut from their start gave the move's story and lost the words the prompt matched (review47c)."""
    project = str(tmp_path / "shop")
    env = index_asked_chats(tmp_path, project, [*ROUTINE_CHATS, ("c-stripe-moved", LONG_ASK, ENV_ANSWER)])
    prompt = "the stripe webhook signature check is failing again in staging, what did we do last time?"
    given = hook_prompt(env, prompt, project)
    assert "deja show c-stripe-moved" in given, given
    user = next(line for line in given.splitlines() if line.lstrip().startswith("user:"))
    assert "stripe webhook signature check fails" in user, user


def test_a_password_inside_a_powershell_script_block_reaches_neither_search_norsession_start_block(
    fake_home: Path,
) -> None:
    """The tool inside ``ForEach-Object { … }`` was read as the cmdlet's argument and its password kept, in ``deja
    search`` and in every new chat's session-start block (review48d H1)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    ask = "this hangs: Get-ChildItem *.sql | ForEach-Object { mysql -u root -pQx7vRt2mZk db }"
    index_chat(fake_home, project, CHAT, [user_turn(ask, TODAY), assistant_turn(FIRST_ANSWER), turn_ended()])
    found = run_deja("search", "hangs").stdout
    block = session_start_block(project)
    assert "ForEach-Object" in found and "ForEach-Object" in block, found + block
    assert "Qx7vRt2mZk" not in found + block, found + block


#: A paste the session-start block showed whole (review48d M1): a log's line alone, and pastes split by a line ending
#: in ``?`` that is no question (a query's placeholder, a log's URL) or a quoted value that is a sentence's word; ``tangerine`` is a value the rules do not know.
SPLIT_PASTES = [
    (
        "2026-12-05 03:00:01 INFO logging in as shop/tangerine\nwhat stops it",
        "2026-12-05 03:00:01 INFO … what stops it",
    ),
    (
        "SELECT id FROM users\nWHERE api_token = ?\nAND salt = 'tangerine'\nwhy is it slow",
        "SELECT id FROM users … why is it slow",
    ),
    (
        "SELECT id FROM users\nWHERE country = 'us'\nAND salt = 'tangerine'\nwhy is it slow",
        "SELECT id FROM users … why is it slow",
    ),
    (
        "2026-12-05 03:00:01 INFO GET /a?\n2026-12-05 03:00:02 INFO GET /login?pw=tangerine&next=?\nwhy 404",
        "2026-12-05 03:00:01 INFO … why 404",
    ),
    # A single setting before the question (review48g): its value titled the chat, and the question was left out.
    ("host: db.internal.tangerine\nwhy does it time out", "host: … why does it time out"),
    ("API_HOST=tangerine.internal\nwhy does it time out", "API_HOST=… why does it time out"),
]


@pytest.mark.parametrize(
    ("ask", "words"),
    SPLIT_PASTES,
    ids=["one log line", "sql placeholder", "sql quoted us", "log url ?", "key: value", "NAME=value"],
)
def test_a_one_line_log_or_setting_or_a_paste_with_a_question_mark_stands_without_its_values(
    fake_home: Path, ask: str, words: str
) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    index_chat(fake_home, project, CHAT, [user_turn(ask, TODAY), assistant_turn(FIRST_ANSWER), turn_ended()])
    block = session_start_block(project)
    assert f'- "{words}" (shop, ' in block and f"  asked: {words}\n" in block, block
    assert "tangerine" not in block, block


def test_a_sentence_after_a_key_is_written_not_pasted(fake_home: Path) -> None:
    """A key before several words is a sentence (``fix: …``), which heads the session as written: only a setting of
    one value is pasted alone (``lines.one_setting``)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    ask = "fix: the login loops after the tangerine redirect\nit started today"
    index_chat(fake_home, project, CHAT, [user_turn(ask, TODAY), assistant_turn(FIRST_ANSWER), turn_ended()])
    block = session_start_block(project)
    assert '- "fix: the login loops after the tangerine redirect" (shop, ' in block, block
    assert "  asked: fix: the login loops after the tangerine redirect it started today\n" in block, block


@pytest.mark.parametrize(
    "ask",
    [
        "status: 502\nwhy does nginx return this right after every deploy?",
        "python: 3.12\nwhich numpy version supports it?",
    ],
    ids=["status code", "version"],
)
def test_a_number_or_version_before_a_question_is_kept_as_its_subject(fake_home: Path, ask: str) -> None:
    """``status: 502`` is what the question after it is about, no value to leave out: the title and ``asked:`` read
    ``status: 502 why does nginx …``, not ``status: … why does nginx …`` (review49b L3)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    index_chat(fake_home, project, CHAT, [user_turn(ask, TODAY), assistant_turn(FIRST_ANSWER), turn_ended()])
    block = session_start_block(project)
    words = " ".join(ask.split())
    assert f'- "{words}" (shop, ' in block and f"  asked: {words}\n" in block, block
