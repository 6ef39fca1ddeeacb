"""The prompt gate: what lets a session through, what keeps it out, and what the decision log says about it.

The unit tests take the rules one by one; the others run ``deja hook-prompt`` as Cursor runs it, on a small
history of chats that all talk about Postgres, Docker and Redis, and read back ``deja hooks log``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import hook_prompt, index_asked_chats, last_hook_decision

from deja.core.search import Hit, SearchResult
from deja.hooks.prompt import GATES, Asked, _what_a_log_says, confident, time_terms

IDF = {"bounc": 4.0, "contain": 3.0, "empti": 3.0, "local": 2.5, "databas": 2.5}
PROMPT = "bounc contain empti local databas"
MISSING_IDF = 9.0


def _hit(score: float, matched: list[str], session_id: str = "s") -> Hit:
    return Hit(session_id, "cursor-cli", "shop", "/work/shop", "t", None, None, score=score, matched=matched)


def _asked(prompt: str = PROMPT, idf: dict[str, float] = IDF) -> Asked:
    result = SearchResult(query=prompt, total=1, hits=[], idf=idf)
    return Asked(prompt, prompt.split(), result, MISSING_IDF)


@pytest.mark.unit
def test_a_first_session_that_scores_high_and_stands_out_passes_with_few_words_as_written() -> None:
    """Asked in other words ("bouncing the containers" for "restarted the stack"), the session holds little of the
    prompt as written, yet its score, all fields and related words counted, is high and well ahead of the next."""
    asked = _asked()
    hit = _hit(score=0.5 * asked.total, matched=["empti"])
    assert "times the next session" in confident(hit, asked, {"empti"}, GATES["safe"], lead=2.0)


@pytest.mark.unit
@pytest.mark.parametrize(("score_share", "lead"), [(0.5, 1.2), (0.2, 2.0)])
def test_it_stays_out_when_it_scores_low_or_does_not_stand_out(score_share: float, lead: float) -> None:
    asked = _asked()
    hit = _hit(score=score_share * asked.total, matched=["empti"])
    assert confident(hit, asked, {"empti"}, GATES["safe"], lead=lead) == ""


@pytest.mark.unit
def test_a_session_scoring_under_the_floor_never_passes_even_on_an_identifier() -> None:
    """``node_modules`` alone is an identifier, but a session that matched the prompt this weakly is not an answer."""
    asked = _asked(PROMPT + " node_modules", {**IDF, "node_modules": 4.0})
    hit = _hit(score=0.1 * asked.total, matched=["node_modules", "contain"])
    assert confident(hit, asked, {"node_modules"}, GATES["safe"]) == ""
    strong = _hit(score=0.2 * asked.total, matched=["node_modules", "contain"])
    assert confident(strong, asked, {"node_modules"}, GATES["safe"]).startswith("names node_modules")


@pytest.mark.unit
@pytest.mark.parametrize(
    ("term", "logged"),
    [
        ("k1nitpw8vz", "k1n…"),
        ("k1nit-pw8vz", "k1n…"),
        ("sup3r_s3cret", "sup…"),
        ("pa55.w0rd.x9", "pa5…"),
        ("pw8vz", "pw8…"),
        ("node_modules", "node_modules"),
        ("utf8", "utf8"),
    ],
)
def test_the_log_names_an_identifier_whole_unless_it_holds_letters_and_digits(term: str, logged: str) -> None:
    """A value a redaction rule missed is in the index; the log's reason does not copy it again, joined by ``-``,
    ``_`` or ``.`` or not, nor a piece of it (trial57, review57c F3)."""
    asked = _asked(PROMPT + f" {term}", {**IDF, term: 4.0})
    strong = _hit(score=0.2 * asked.total, matched=[term, "contain"])
    assert confident(strong, asked, {term}, GATES["safe"]).startswith(f"names {logged} and holds")


@pytest.mark.unit
def test_a_date_the_prompt_names_weighs_nothing_in_what_it_asks() -> None:
    """Search matches a date against when sessions happened: a session from then lacks none of the prompt."""
    assert time_terms("What did Sam cook on 19 August, 2023?") == {"19", "august", "2023"}
    assert time_terms("What did Evan paint in October?") == {"octob"}
    assert time_terms("what did we decide about the release") == set()
    idf = {"sam": 0.5, "cook": 5.0, "19": 6.0, "august": 6.0, "2023": 6.0}
    prompt = "sam cook 19 august 2023"
    asked = Asked("What did Sam cook on 19 August, 2023?", prompt.split(), SearchResult("", 1, [], idf), MISSING_IDF)
    assert asked.total == pytest.approx(5.5)
    assert asked.share(["sam", "cook"]) == pytest.approx(1.0)


# --- as a user sees it --------------------------------------------------------------------------------------

PROJECT = "/home/dev/src/shop"
#: (chat id, what the user asked, what the agent answered): one project's chats, all about the same few libraries.
CHATS = [
    (
        "c-empty-db",
        "My local postgres database is empty after I restarted the docker compose stack. Where did the data go?",
        "The postgres service mounted an anonymous volume, and `docker compose down -v` removed it with the stack. "
        "I declared a named volume `pgdata` in docker-compose.yml so the data survives a restart.",
    ),
    (
        "c-redis-cache",
        "Add a redis cache in front of the product endpoint.",
        "Added a redis client in docker compose and cached the product list for 60 seconds, keyed by locale.",
    ),
    (
        "c-ci-refused",
        "The test job in CI fails with connection refused to postgres before any test runs.",
        "The tests start before the postgres container accepts connections. I added a healthcheck with "
        "pg_isready and made the test job wait for the service to be healthy.",
    ),
    (
        "c-ci-refused-again",
        "CI again: the test job gets connection refused from postgres, this time on the new runners.",
        "The new runners start services in parallel; the healthcheck interval was too long, so the tests still "
        "started first. A 2 s interval with 15 retries fixed it.",
    ),
    (
        "c-slow-orders",
        "Speed up the orders query on postgres, it takes seconds.",
        "EXPLAIN showed a sequential scan on orders; an index on orders(customer_id, created_at) brings it to 4 ms.",
    ),
    (
        "c-docker-build",
        "The docker build of the api image is slow.",
        "Moved to a multi-stage build and added a .dockerignore so node_modules is not sent to the daemon.",
    ),
    (
        "c-login-loop",
        "Login loops in production: after signing in you land on the login page again.",
        "Behind the proxy the app saw plain http and set the session cookie as secure only; trusting the proxy's "
        "forwarded headers fixed it.",
    ),
]


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, str]:
    """The chats above written as cursor-agent transcripts, indexed; deja's environment pointed at them."""
    return index_asked_chats(tmp_path, PROJECT, CHATS)


def _prompt(env: dict[str, str], prompt: str, conversation: str = "c-new") -> str:
    return hook_prompt(env, prompt, PROJECT, conversation)


def test_a_prompt_that_the_history_answers_is_given_that_session_and_the_log_says_why(shop: dict[str, str]) -> None:
    given = _prompt(shop, "why was my local postgres database empty after restarting the docker compose stack?")
    assert "deja show c-empty-db" in given and "named volume `pgdata`" in given
    decision = last_hook_decision(shop)
    assert decision["command"] == "hook-prompt" and decision["gave_bytes"]
    assert str(decision["notes"]).startswith("recalled c-empty-: ")


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I set up logical replication from postgres to the analytics warehouse?",
        "configure pgbouncer pooling for postgres in the docker compose stack",
        "the redis cluster returns MOVED errors to the python client",
    ],
)
def test_a_prompt_on_the_same_libraries_that_the_history_does_not_answer_gets_nothing(
    shop: dict[str, str], prompt: str
) -> None:
    assert _prompt(shop, prompt) == ""
    why = str(last_hook_decision(shop)["why"])
    assert why.startswith("no match was strong enough for recall=safe (the best, ")
    assert "of what the prompt asks" in why and "times the next session" in why


def test_the_same_session_is_not_given_twice_in_one_conversation_and_the_log_says_so(shop: dict[str, str]) -> None:
    prompt = "the CI test job failed with connection refused to postgres, how did we fix it?"
    assert "deja show c-ci-refused" in _prompt(shop, prompt, "c-twice")
    assert _prompt(shop, prompt, "c-twice") == ""
    assert last_hook_decision(shop)["why"] == "what matched best was shown in this conversation already"


def test_a_session_scoring_close_to_a_first_that_passed_is_shown_beside_it(shop: dict[str, str]) -> None:
    """The same failure came back, fixed twice: both sessions are given, and the log says why the second was."""
    given = _prompt(shop, "the CI test job fails with connection refused to postgres, what fixed it?")
    assert "deja show c-ci-refused " in given.replace("`", " ") and "deja show c-ci-refused-again" in given
    assert "of the first session's score" in str(last_hook_decision(shop)["notes"])


# --- a pasted log -------------------------------------------------------------------------------------------

#: A session that met a CI failure and fixed it, beside the chats above.
STATE_LOCK = (
    "c-state-lock",
    "terraform apply fails: Error acquiring the state lock, ConditionalCheckFailedException",
    "A crashed CI run held the DynamoDB lock; force-unlock with its id, then apply succeeded.",
)


def _ci_log(before: int, after: int) -> str:
    """A person's line, then a service log of ``before`` job lines, terraform's two error lines and ``after`` more:
    every job line with its own time, id and duration (trial18 F1)."""
    jobs = [
        f"2026-12-04T10:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z INFO worker-{i % 8} processed job "
        f"id={329920128 + i * 7919} in {100 + i * 37 % 800}ms queue=default"
        for i in range(before + after)
    ]
    errors = [
        "2026-12-04T10:25:00.000Z ERROR Error: Error acquiring the state lock",
        "ConditionalCheckFailedException: The conditional request failed",
    ]
    return "\n".join(["terraform apply in CI keeps failing, here is the log:", *jobs[:before], *errors, *jobs[before:]])


@pytest.fixture
def infra(tmp_path: Path) -> dict[str, str]:
    return index_asked_chats(tmp_path, PROJECT, [*CHATS, STATE_LOCK])


@pytest.mark.parametrize(
    ("before", "after"),
    [(5, 5), (150, 5), (57000, 5)],
    ids=["11 lines", "14 KB, its error past 4000 characters", "5 MB, its error near its end"],
)
def test_a_pasted_log_recalls_the_session_that_met_its_error(infra: dict[str, str], before: int, after: int) -> None:
    """Its ids, times and durations are no words of what the prompt asks: its error lines and the person's are."""
    given = _prompt(infra, _ci_log(before, after))
    assert "deja show c-state-lock" in given and "force-unlock" in given
    assert str(last_hook_decision(infra)["notes"]).startswith("recalled c-state-: ")


@pytest.mark.unit
@pytest.mark.parametrize(
    "prompt",
    [
        "1. fix the cache error\n2. add a test for it\n3. run pytest\n4. commit it",
        "the worker logs\n2026-12-04 INFO started\n2026-12-04 INFO processed 3 jobs\n2026-12-04 INFO stopped",
        'why does this fail?\nTraceback (most recent call last):\n  File "a.py", line 1\nValueError: bad\nhelp',
        "my tickets:\nSHOP-1234 checkout cannot load the cart\nSHOP-1240 add a coupon field\nSHOP-1251 faster search",
    ],
    ids=["a numbered list", "a log without an error", "a traceback", "a ticket list (review38c L2)"],
)
def test_a_prompt_that_holds_no_log_with_an_error_is_asked_as_written(prompt: str) -> None:
    assert _what_a_log_says(prompt) == prompt


@pytest.mark.unit
def test_a_logs_error_keeps_its_code_after_its_level() -> None:
    """``ERROR 1045`` is MySQL's code, the one word that names the error, not a time (review38c L2)."""
    log = "\n".join(["INFO connecting to db"] * 3 + ["ERROR 1045 (28000): Access denied for user 'app'"])
    assert _what_a_log_says(f"why?\n{log}") == "why?\n1045 (28000): Access denied for user 'app'"


@pytest.mark.unit
def test_a_logs_time_of_two_words_and_its_level_are_cut_at_once() -> None:
    """Python's ``2026-12-04 10:25:00,120 ERROR`` is a time of two words and a level: the prompt hook reads a log
    once, so all three are cut in that one reading (they were cut only by reading the cut log a second time)."""
    jobs = [f"2026-12-04 10:24:{i:02d},120 INFO worker processed job {i}" for i in range(4)]
    errors = [f"2026-12-04 10:25:0{i},120 ERROR payment webhook failed: signature {i} mismatch" for i in range(4)]
    said = "\n".join(f"payment webhook failed: signature {i} mismatch" for i in range(4))
    assert _what_a_log_says("\n".join(["why?", *jobs, *errors])) == f"why?\n{said}"


@pytest.mark.unit
def test_a_paste_of_megabytes_is_read_for_a_log_at_its_start_and_end_only() -> None:
    """The log check reads a paste's first and last 32 KiB of lines: a 5 MB paste cost 0.4-0.65 s of the prompt
    hook's 5 s, and it costs what a 64 KiB one does. An error in its middle is not read there; one near its end is."""
    jobs = _ci_log(57000, 5).split("\n")
    assert len("\n".join(jobs)) > 5_000_000
    near_end = "\n".join(jobs)
    assert _what_a_log_says(near_end).startswith("terraform apply in CI keeps failing, here is the log:\nError: ")
    middle = "\n".join(jobs[:28000] + jobs[-7:-5] + jobs[28000:-7] + jobs[-5:])  # its error lines in the middle
    assert _what_a_log_says(middle) == middle


def test_a_pasted_log_whose_error_no_session_met_recalls_nothing(infra: dict[str, str]) -> None:
    """Cut to its error lines and the person's, a log about another failure is judged on those and stays out."""
    log = _ci_log(5, 5).replace("terraform apply", "the deploy job").split("\n")
    log[6:8] = ["2026-12-04T10:25:00.000Z ERROR Error: ENOSPC: no space left on device, write", "npm ERR! code ENOSPC"]
    assert _prompt(infra, "\n".join(log)) == ""
    assert str(last_hook_decision(infra)["why"]).startswith("no match was strong enough for recall=safe")


#: A pasted server log whose only line in 4xx is a browser's favicon request, served as it should be: the stall is in
#: its WARN lines, which hold no error word.
SERVER_LOG = [
    "INFO  GET /favicon.ico HTTP/1.1 404",
    "WARN  jobs get requeued with an ack timeout after 30s",
    "WARN  the redis queue length keeps growing",
    "WARN  jobs get requeued with an ack timeout after 30s",
]


def test_a_pasted_log_whose_only_4xx_is_a_served_request_is_asked_by_its_other_lines(tmp_path: Path) -> None:
    """An HTTP status line is an error line of a failed command's output only: read as a pasted log's error, the
    favicon's 404 was asked alone and the session that met the WARN lines' stall was not recalled (review54b F6)."""
    ack = (
        "c-ack-timeout",
        "jobs get requeued with an ack timeout after 30s and the redis queue length keeps growing",
        "ACK_TIMEOUT was 30s while the export jobs take 45s: raised it to 120s in worker/config.py; the queue drained.",
    )
    env = index_asked_chats(tmp_path, PROJECT, [*CHATS, ack])
    given = hook_prompt(env, "\n".join(["the worker stalls again after the deploy, log:", *SERVER_LOG]), PROJECT)
    assert "deja show c-ack-timeout" in given, given
