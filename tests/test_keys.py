"""The exact lookup keys the hooks ask the index for: what counts as the same command, project, file or error."""

from __future__ import annotations

import pytest

from deja.core.errors import error_lines, error_signature
from deja.core.keys import (
    PREFIX,
    command_head,
    command_keys,
    command_words,
    error_key,
    error_keys,
    only_looks,
    path_key,
    project_key,
    session_key,
)
from deja.core.text import terms

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("git push -f origin main", "git push"),
        ("pytest -x tests/test_a.py", "pytest"),
        ("python -m pytest -q", "python -m pytest"),
        ("python3 script.py", "python3 script.py"),
        ("sudo apt-get install foo", "apt-get install"),
        ("npm run build -- --watch", "npm run build"),
        ("FOO=1 make test", "make test"),
        ("/usr/bin/git status", "git status"),
        ("cargo test --release", "cargo test"),
        ("docker compose up -d", "docker compose up"),
        ("pytest -q && echo ok", "pytest"),
        ("ls | grep x", "ls"),
        ("echo 'unclosed", "echo"),
        ("", ""),
    ],
)
def test_a_command_head_is_its_program_and_subcommand(command: str, head: str) -> None:
    assert command_head(command) == head


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("kubectl -n prod get pods", "kubectl get"),
        ("kubectl --context staging -n prod apply -f x.yaml", "kubectl apply"),
        ("git -C dir status", "git status"),
        ("git -c user.name=x commit -m wip", "git commit"),
        ("docker -H ssh://host ps", "docker ps"),
        ("helm -n ns upgrade api ./chart", "helm upgrade"),
        ("npm --prefix web run build", "npm run build"),
        ("pnpm --filter web build", "pnpm build"),
        ("cargo +nightly build --release", "cargo build"),
        ("make -C sub test", "make test"),
        ("make -j 4 test", "make test"),
        ("make V=1 test", "make test"),
        ("terraform -chdir=infra plan", "terraform plan"),
        ("aws --profile prod s3 cp a.txt s3://b/", "aws s3 cp"),
        ("sudo -u deploy make test", "make test"),
        ("nice -n 5 make test", "make test"),
        ("timeout 30s pytest -q", "pytest"),
        ("env -u DEBUG FOO=1 node x.js", "node x.js"),
    ],
)
def test_a_flags_value_is_no_subcommand(command: str, head: str) -> None:
    """A global flag's value is skipped with it: ``kubectl -n prod get pods`` was ``kubectl prod`` (review40b M6)."""
    assert command_head(command) == head


@pytest.mark.parametrize(
    ("command", "looks"),
    [
        ("kubectl -n prod logs deploy/api --tail 50", True),
        ("kubectl -n prod apply -f deploy.yaml", False),
        ("docker compose -f dev.yml logs --tail 50 api 2>&1 | tail -5", True),
        ("docker compose up -d", False),
        ("kubectl rollout status deploy/api", True),
        ("kubectl rollout restart deploy/api", False),
        ("git stash list", True),
        ("git stash pop", False),
        ("gh pr checks 12", True),
        ("gh pr merge 12", False),
    ],
)
def test_a_look_is_told_by_its_head(command: str, looks: bool) -> None:
    """A look between a failure and its fix is no step of the fix (``deja fix``'s "fixed by"): ``kubectl -n prod
    logs`` was ``kubectl prod``, and ``docker compose logs`` was ``docker compose``, as ``docker compose up`` was."""
    assert only_looks(command) is looks


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("docker compose logs -f web", "docker compose logs"),
        ("docker compose -f dev.yml up -d", "docker compose up"),
        ("docker buildx build .", "docker buildx build"),
        ("kubectl rollout restart deploy/api", "kubectl rollout restart"),
        ("gh pr create --fill", "gh pr create"),
        ("gh api repos/o/r/pulls", "gh api"),
        ("gcloud compute instances list", "gcloud compute instances"),
        ("git stash pop", "git stash pop"),
        ("git stash", "git stash"),
        ("uv pip install -e .", "uv pip install"),
    ],
)
def test_a_group_of_subcommands_takes_one_word_more(command: str, head: str) -> None:
    """``docker compose up`` and ``docker compose logs`` are two commands, not one ``docker compose``."""
    assert command_head(command) == head


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("python manage.py migrate --noinput", "python manage.py migrate"),
        ("python train.py --epochs 3", "python train.py"),
        ("python -u scripts/train.py", "python train.py"),
        ("python3.12 -W ignore train.py", "python3.12 train.py"),
        ("python -m pytest -q", "python -m pytest"),
        (".venv/bin/python -m pip install -e .", "python -m pip install"),
        ("python -c 'import sys; print(sys.path)'", "python"),
        ("python3 - <<'EOF'\nimport json\nprint(1)\nEOF", "python3"),
        ("python3 - << EOF import json print(1) EOF", "python3"),  # (as the index keeps it: on one line)
        ("node x.js < input.txt", "node x.js"),
        ("python < script.py", "python"),
        ("node --require ts-node/register scripts/seed.ts", "node seed.ts"),
        ("bash ./deploy.sh prod", "bash deploy.sh prod"),
        ("bash -lc 'make test'", "bash"),
        ("sh x.sh", "sh x.sh"),
        ("uv run pytest -q", "pytest"),
        ("uv run --with rich python train.py", "python train.py"),
        ("poetry run python manage.py migrate", "python manage.py migrate"),
        ("uv sync", "uv sync"),
        ("npx jest --watch", "jest"),
        ("env", "env"),
    ],
)
def test_a_script_is_its_interpreters_head(command: str, head: str) -> None:
    """Every Python script was plain ``python``: ``python train.py`` counted as a rerun of ``python manage.py
    migrate``. A wrapper runs the command after it: ``uv run pytest`` was ``run pytest``."""
    assert command_head(command) == head


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("python -m pytest -k test_login", "python -m pytest"),
        ("python -m pytest -n auto", "python -m pytest"),
        ("python -m pytest -p no:cacheprovider tests", "python -m pytest"),
        ("uv run pytest -k login", "pytest"),
        ("pytest -n 4", "pytest"),
        ("python train.py --device cuda", "python train.py"),
        ("node build.js --mode production", "node build.js"),
        ("bash deploy.sh --env prod", "bash deploy.sh"),
        ("python manage.py migrate --fake", "python manage.py migrate"),
        ("uv run --env-file .env python x.py", "python x.py"),
        ("time -f %e make test", "make test"),
        ("node --test tests/", "node tests"),
        ("bash scripts/", "bash scripts"),
        ("jest -t login", "jest"),
        ("mvn -q test", "mvn test"),
        ("apt-get -y install jq", "apt-get install"),
        ("pip -q install requests", "pip install"),
        ("systemctl --user restart api", "systemctl restart"),
        ("ruff --fix check .", "ruff check"),
        ("mvn -pl core test", "mvn test"),
        ("./mvnw -pl core test", "mvnw test"),
        ("./gradlew -I init.gradle test", "gradlew test"),
        ("gradle -p sub test", "gradle test"),
        ("psql -h localhost -U app", "psql"),
        ("curl -o out.json https://x.test/a", "curl"),
        ("tox -e py311", "tox"),
        ("ctest -R unit", "ctest"),
    ],
)
def test_a_flag_of_a_program_deja_has_no_table_for_may_take_the_next_word(command: str, head: str) -> None:
    """Which flags of ``pytest``, a module or a script take a value is unknown: the word after such a flag is no
    subcommand (``python -m pytest -k test_login`` was ``python -m pytest test_login``, so the passing ``python -m
    pytest`` was no rerun of it: review41a H1). A wrapper's value is skipped (``--env-file .env`` made ``.env python``:
    M1), and a folder run is named without its slash (``node --test tests/`` was ``node `` : L1). Another program's
    flag is a switch: ``mvn -q test`` stays ``mvn test`` (review41b H2)."""
    assert command_head(command) == head


def test_a_commands_words_are_the_ones_shlex_gives() -> None:
    """The Shell hook splits a quoted command with ``str``'s methods (``shlex`` loads ``re``): the same words as
    ``shlex.split`` over quotes, escapes, env assignments, non-ASCII and unbalanced quotes (where shlex raises, the
    command's own blank-separated words)."""
    import random
    import shlex

    pieces = ["git", "a", " ", "  ", "\t", "\n", '"', "'", "\\", "é", "=", "-m", "$X", "#", "\x0b", "\u00a0", "x y"]
    pick = random.Random(21)
    commands = [
        'git commit -m "fix the cache"',
        "DATABASE_URL='postgres://a@b/c' alembic upgrade head",
        'pytest -k "cache and not slow"',
        r'echo "a \"quoted\" \$word\\" \ b',
        "echo café 'unclosed",
        "echo ''",
        'grep -r "x" . \\',
        *("".join(pick.choice(pieces) for _ in range(pick.randint(0, 12))) for _ in range(20000)),
    ]
    for command in commands:
        try:
            expected = shlex.split(command)
        except ValueError:
            expected = command.split()
        assert command_words(command) == expected, command


@pytest.mark.parametrize(
    ("one", "other", "same_exact", "same_head"),
    [
        ("pytest -q", "pytest   -q", True, True),  # spacing is not a different command
        ("pytest -q", "pytest -x tests/a.py", False, True),
        ("git push", "git pull", False, False),
        ("npm run build", "npm run test", False, False),
    ],
)
def test_command_keys_say_when_two_commands_are_the_same(
    one: str, other: str, same_exact: bool, same_head: bool
) -> None:
    (exact_a, head_a), (exact_b, head_b) = command_keys(one), command_keys(other)
    assert (exact_a == exact_b, head_a == head_b) == (same_exact, same_head)


@pytest.mark.parametrize("command", ["", "   ", "\n"])
def test_no_command_has_no_keys(command: str) -> None:
    assert command_keys(command) == ()


@pytest.mark.parametrize(
    ("one", "other"),
    [("/home/me/api", "/home/me/api/"), ("/home/me/api", "/home/me/API"), ("api", " api ")],
)
def test_a_project_is_the_same_whatever_its_spelling(one: str, other: str) -> None:
    assert project_key(one) == project_key(other)


def test_different_projects_files_and_sessions_have_different_keys() -> None:
    assert project_key("/home/me/api") != project_key("/home/me/web")
    assert path_key("src/app.py") == path_key(" src/app.py\n") != path_key("src/app.pyc")
    assert session_key("5d1c") < session_key("5d1c9b21") < session_key("5d1d")  # a prefix sorts before its ids


def test_no_word_of_text_can_be_a_key() -> None:
    keys = [
        project_key("api"),
        path_key("a.py"),
        session_key("x"),
        *command_keys("git push"),
        *error_keys("Error: x y z"),
    ]
    assert all(key.startswith(PREFIX) for key in keys)
    assert not any(PREFIX in term for term in terms("\x01p:abc \x01 git push Error: " + " ".join(keys)))


PYTEST_OUTPUT = """\
collecting ...
ImportError while importing test module '/home/me/api/tests/test_cache.py'.
E   ModuleNotFoundError: No module named 'api'
=== 1 error in 0.12s ===
2 failed, 3 passed in 1.2s
fatal: could not read Username
"""


def test_error_lines_put_named_errors_first_and_skip_summaries() -> None:
    assert error_lines(PYTEST_OUTPUT) == [
        "E   ModuleNotFoundError: No module named 'api'",
        "ImportError while importing test module '/home/me/api/tests/test_cache.py'.",
        "fatal: could not read Username",
    ]
    assert error_lines(PYTEST_OUTPUT, limit=1) == ["E   ModuleNotFoundError: No module named 'api'"]
    assert error_lines("all good\n14 passed in 0.31s") == []


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("Error at /home/me/a.py:12", "Error at /tmp/b/c.py:40", True),  # paths and numbers vary run to run
        ("KeyError: 'user_id'", "KeyError: 'locale'", True),  # so do quoted values
        ("segfault at 0x7ffd5e8a", "segfault at 0x0040aa10", True),
        ("ModuleNotFoundError: No module named 'api'", "ImportError: cannot import name 'x'", False),
    ],
)
def test_the_same_error_has_the_same_key_run_to_run(one: str, other: str, same: bool) -> None:
    assert (error_signature(one) == error_signature(other)) is same


PG_REFUSED = 'connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused'


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        (f"E   psycopg2.OperationalError: {PG_REFUSED}", f"psql: error: {PG_REFUSED}", True),  # who printed it
        (f"sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) {PG_REFUSED}", PG_REFUSED, True),
        ("E   KeyError: 'user_id'", "KeyError: 'locale'", True),  # pytest's marker, always
        ("KeyError: 'x'", "ValueError: 'x'", False),  # a message too short to be known without its class
        ("helm: error: not found", "curl: error: not found", False),  # or without its program
        ("bash: foo: command not found", "bash: bar: command not found", False),  # the program's name alone
        ("app.py: No such file or directory", "db.py: No such file or directory", False),  # a file's is no program's
    ],
)
def test_an_error_is_known_by_its_message_whoever_printed_it(one: str, other: str, same: bool) -> None:
    assert (error_key(one) == error_key(other)) is same


def test_a_folder_longer_than_any_path_is_kept_as_it_is_not_resolved() -> None:
    """A hook's payload may name a "folder" of megabytes, whose ``realpath`` takes minutes (its time grows with the
    square of the parts): no such path is on disk, so it is kept as written (review8c)."""
    from deja.core.keys import resolved_folder

    longer = "/x" + "/y/.." * 1000
    assert len(longer) > 4096 and resolved_folder(longer) == longer
    assert resolved_folder("/x/y/..") == "/x"


@pytest.mark.parametrize("text", ["/home/me/api", "c:\\users\\me\\app", "/srv/ünïcode/\udcff", ""])
def test_a_hashed_key_is_14_base64_digits_of_its_digests_bytes(text: str) -> None:
    """Format 23: each of 14 digest bytes' low 6 bits as a base64 digit (84 bits), where 20 hex digits held 80."""
    import binascii

    from deja.core import keys
    from deja.core.digests import blake2b

    digest = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=14).digest()
    spelt = keys._digest(text)
    assert len(spelt) == 14
    assert binascii.a2b_base64(spelt[:12]) == bytes(_six_bits_packed(digest[:12]))  # (base64's own digits)
    assert keys.tree_key("/home/me/api") == f"{keys.PREFIX}t:{keys._digest('/home/me/api')}"


def _six_bits_packed(data: bytes) -> bytearray:
    """``data``'s bytes' low 6 bits, four to three bytes as base64 packs its digits."""
    bits = 0
    for byte in data:
        bits = bits << 6 | byte & 63
    return bytearray(bits.to_bytes(len(data) * 6 // 8, "big"))
