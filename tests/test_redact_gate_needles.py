"""The failure gate asks, around a common needle, what the rules that needle calls on need there
(``redaction.NEEDED_AROUND``, ``TOKEN_NEEDED_AROUND``): "12 passed", ``KeyError``, a URL without credentials and
pytest's ``--`` loaded the rules and ``re`` for every failed command's output, to change nothing.

The property kept: a text the gate says no to comes back from ``redact.scrub`` as it was. It is checked over the
tests' own strings, the redaction bench's texts, the real Cursor database's messages and random mutations around
each needle; and each narrowed needle's test, replaced by one that always says no, lets a secret of that corpus
through (so the corpus holds what each test is there for)."""

from __future__ import annotations

import ast
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
from conftest import SHARED
from redaction_corpus import SECRETS, code_lines

from deja.core import redact, redaction

TESTS = Path(__file__).resolve().parent
BENCH = TESTS.parent / "bench"

#: Failed commands' output as people get it, none holding a secret: none may load the rules.
PYTEST = """============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.0.2, pluggy-1.4.0
rootdir: /home/dev/shop
collected 13 items

tests/test_orders.py ....F........                                       [100%]

=================================== FAILURES ===================================
_________________________________ test_total __________________________________

    def test_total():
        order = make_order(items=[("apple", 3), ("pear", 1)])
>       assert order.total() == 4
E       KeyError: 'user_id'

tests/test_orders.py:12: KeyError
----------------------------- Captured stdout call -----------------------------
computing total for order 17
=========================== short test summary info ============================
FAILED tests/test_orders.py::test_total - KeyError: 'user_id'
========================= 1 failed, 12 passed in 0.31s =========================
"""
NODE = """/home/dev/app/src/server.js:14
TypeError: Cannot read properties of undefined (reading 'port')
    at Object.<anonymous> (/home/dev/app/src/server.js:14:30)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)
    at node:internal/main/run_main_module:23:47
ReferenceError: window is not defined
> 12 |     <h1>{post.title}</h1>
npm ERR! web@0.1.0 build: `next build`
npm ERR!     /home/dev/.npm/_logs/2026-01-12T10_22_41_123Z-debug-0.log
Error: Minified React error #185; visit https://react.dev/errors/185 for the full message, at
commitHookEffectListMount (webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:23150:26)
Tests:       1 failed, 17 passed, 18 total
"""
URL_AND_GIT = """requests.exceptions.HTTPError: 500 Server Error for url: http://localhost:8000/api/v2/invoices?page=3&limit=50
fatal: unable to access 'https://github.com/acme/shop.git/': Could not resolve host: github.com
hint: See the 'Note about fast-forwards' in 'git push --help' for details.
error: could not compile `demo` (bin "demo"), try `rustc --explain E0308`
src/api/client.ts(41,12): error TS2339: Property 'token_type' does not exist on type 'Session'.
sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "invoices_number_key"
"""
DOCKER = """docker: Error response from daemon: driver failed programming external connectivity on endpoint web (3f2a9c): Bind for 0.0.0.0:8080 failed: port is already allocated.
Error response from daemon: Get "https://registry.internal/v2/": unauthorized: authentication required
Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?
"""
PIP_AND_NPM = """$ pip install -U reqests --user
Defaulting to user installation because normal site-packages is not writeable
ERROR: Could not find a version that satisfies the requirement reqests (from versions: none)
ERROR: No matching distribution found for reqests
npm ERR! code E401
npm ERR! 401 Unauthorized - GET https://registry.npmjs.org/@acme%2fui - unable to login
"""
CURL_AND_HTTP = """$ curl -sS -u deploy https://api.internal/v1/health
curl: (6) Could not resolve host: api.internal
curl: (22) The requested URL returned error: 401
$ http -a deploy POST https://api.internal/v1/jobs
http: error: ConnectionError: HTTPSConnectionPool(host='api.internal', port=443): Max retries exceeded
HTTP/1.1 401 Unauthorized
$ grep -a -n "deploy:" build.log
$ xh -va deploy api.internal/v1/jobs
xh: error: 401 Unauthorized
$ CURL -u deploy https://api.internal/v1/health
"""
STORES_AND_SUDO = """ERROR: (gcloud.run.deploy) PERMISSION_DENIED: The caller does not have permission
Because app depends on requests (^9.0) which doesn't match any versions, version solving failed.
poetry install failed
Error: Failed to get Firebase project my-app. Please make sure the project exists.
Vercel CLI 33.0.1
Error: No existing credentials found. Please run `vercel login`
/src/App.csproj : error NU1101: Unable to find package Foo. No packages exist with this id in source(s): nuget.org
ERROR:  failed to start tunnel: The ngrok agent version 2.3 is too old.
Doppler Error: Unable to fetch secrets
HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/ (twine failed)
error: you cannot perform this operation unless you are root. (sudo pacman -Syu)
hint: run it with sudo
gcc -O2 -Wall -DSQLITE_THREADSAFE=1 -c sqlite3.c
Permission denied. Try again with sudo.
HTTP 403 X-Served-By: cache-fra
$ sudo ls -lS /var/log
$ ls -l /etc/passwd
-rw-r--r-- 1 root root 2764 Re-Start
 !    Couldn't find that app. heroku config:set failed
Usage: netlify env:set
Error: netlify env:set requires a site; run netlify link
System error 53 has occurred. The network path was not found. (net.exe use Z: \\\\srv\\share)
rclone: Failed to create file system for "s3r": didn't find section in config file
2024/01/01 ERROR : rclone config create failed: unknown backend "s4"
Usage: rclone config create name type [key value]* [flags]
expect: spawn id exp4 not open while executing "send yes"
"""
OUTPUTS = [PYTEST, NODE, URL_AND_GIT, DOCKER, PIP_AND_NPM, CURL_AND_HTTP]


@pytest.mark.unit
def test_a_failed_commands_usual_output_loads_no_rules_and_no_re() -> None:
    """pytest's header, rules and summary, a ``KeyError``, a node stack, JSX, an npm package's ``@``, URLs without
    credentials and git's ``--help``: each holds a needle, and none what its rules need around it."""
    assert not any(redaction._may_be_changed(output) for output in OUTPUTS)
    assert _as_indexed_afresh(OUTPUTS) == {"out": OUTPUTS, "loaded": [False, False]}


@pytest.mark.unit
@pytest.mark.parametrize("output", [DOCKER, PIP_AND_NPM, CURL_AND_HTTP], ids=["docker", "pip-npm", "curl-http"])
def test_dockers_pips_and_npms_usual_errors_load_no_rules_and_no_re(output: str) -> None:
    """docker's daemon errors, pip's ``-U``/``--user`` and npm's "unable to login", curl's and HTTPie's errors with
    a user and no password (``curl -u deploy``, ``http -a deploy``): each held a needle its rules were loaded for,
    and none what those rules need around it."""
    assert _as_indexed_afresh([output]) == {"out": [output], "loaded": [False, False]}


@pytest.mark.unit
@pytest.mark.parametrize("line", STORES_AND_SUDO.splitlines())
def test_a_failed_store_or_tool_and_a_sudo_hint_load_no_rules(line: str) -> None:
    """gcloud's, poetry's, firebase's, vercel's, nuget's, ngrok's, doppler's and twine's failures name their tool,
    and a hint names sudo beside an unrelated ``-…S…`` word (``pacman -Syu``, ``-DSQLITE_…``, ``ls -lS``): each
    loaded the rules, 30-130 ms instead of 1 (review55e F1). Their rules need a subcommand, an option or sudo's own
    ``-S`` there."""
    assert redact.scrub(line) == line
    assert not redaction._may_be_changed(line)


@pytest.mark.unit
@pytest.mark.parametrize(
    "secret",
    [
        "echo Xk9mPq2Lw7 | sudo -S pacman -Syu",
        "sudo -u postgres -kS psql <<< Xk9mPq2Lw7",
        "echo Xk9mPq2Lw7 | gcloud secrets versions add api --data-file=-",
        "poetry config pypi-token.pypi Xk9mPq2Lw7",
        "echo Xk9mPq2Lw7 | vercel env add API production",
        "dotnet nuget add source x -u deploy -p Xk9mPq2Lw7",
        "ngrok config add-authtoken Xk9mPq2Lw7",
        "doppler secrets set API Xk9mPq2Lw7",
        "twine upload --password Xk9mPq2Lw7 dist/*",
        "heroku config:set STRIPE=Xk9mPq2Lw7",
        "netlify env:set STRIPE Xk9mPq2Lw7",
        "net.exe use Z: \\\\srv\\share /u:me Xk9mPq2Lw7",
        "rclone config create s3r s3 secret_access_key Xk9mPq2Lw7",
        "rclone config update s3r pass Xk9mPq2Lw7",
        'expect "Password:" { send "Xk9mPq2Lw7\\r" }',
        'child.expect("Password:")\nchild.sendline("Xk9mPq2Lw7")',
    ],
)
def test_a_secret_given_to_those_tools_beside_their_failures_still_loads_the_rules(secret: str) -> None:
    assert redaction._may_be_changed(f"{STORES_AND_SUDO}{secret}\n"), secret
    assert "Xk9mPq2Lw7" not in redact.scrub(f"{STORES_AND_SUDO}{secret}\n")


_PROBE = """
import sys
from deja.core.redaction import as_indexed
out = [as_indexed(text, whatever_the_setting=True) for text in sys.argv[1:]]
print(repr({"out": out, "loaded": ["re" in sys.modules, "deja.core.redact" in sys.modules]}))
"""


def _as_indexed_afresh(texts: list[str]) -> dict:
    """What ``as_indexed`` makes of ``texts`` in a new interpreter without ``site``, deja in a folder of its own as a
    hook finds it, and whether it loaded ``re`` and the rules."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "deja").symlink_to(Path(redact.__file__).parents[1])
        probe = f"import sys; sys.path.insert(0, {folder!r})\n{_PROBE}"
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", probe, *texts], capture_output=True, text=True, check=True
        )
    return ast.literal_eval(done.stdout)


@pytest.mark.unit
def test_a_secret_beside_that_output_still_loads_the_rules() -> None:
    for secret in (
        "https://deploy:Hunter2hunter2@db:5432",
        "--api-key=Xk9mPq2Lw7",
        "password: Xk9mPq2Lw7",
        "docker login -u deploy -p Xk9mPq2Lw7",
        "curl -u deploy:Xk9mPq2Lw7 https://api.internal",
        "curl -udeploy:Xk9mPq2Lw7 https://api.internal",
        "curl -sSU deploy:Xk9mPq2Lw7 https://api.internal",
        "http -a deploy:Xk9mPq2Lw7 api.internal",
        "az login -u deploy -pXk9mPq2Lw7",
    ):
        assert redaction._may_be_changed(f"{PYTEST}{secret}\n"), secret
        assert secret not in redact.scrub(f"{PYTEST}{secret}\n")


@pytest.mark.unit
def test_each_narrowed_needle_calls_on_the_rules_its_test_was_read_off() -> None:
    """A rule added on a narrowed needle must have its needs read into that needle's test: this list changes with
    it."""
    calls = {
        needle: sorted(
            f"{group}:{rule.regex[:20]}"
            for group, rules in (("keyed", redact._KEYED_RULES), ("token", redact._TOKEN_RULES))
            for rule in rules
            if needle in rule.needles and (group == "token") == (needle in redaction.TOKEN_NEEDED_AROUND)
        )
        for needle in (*redaction.NEEDED_AROUND, *redaction.TOKEN_NEEDED_AROUND)
    }
    comment = "keyed:#(?![^\\n:=#]{0,60}?("
    piped, heredoc = "keyed:(?:echo|printf)(?:[ ", "keyed:cat(?<![\\w.-]cat)[ \\"  # (a heredoc fed: red56)
    listed = [
        "keyed:[Cc]ommand\\\\?[\\\"'][ ",
        "keyed:\\([ \\t\\r\\n]*(?:(?:\\\\",
        "keyed:\\[[ \\t\\r\\n]*(?:(?:\\\\",
    ]  # (the listed commands': a list, a call, a "command" key)
    assert calls == {
        **dict.fromkeys(("pass", "pw", "token", "key"), [comment]),
        "secret": [
            comment,
            piped,
            "keyed:(?:gh(?:\\.exe)?[ \\t]",
            heredoc,
            *["keyed:gh(?:\\.exe)?[ \\t]+se"] * 2,
        ],
        "sudo": [piped, heredoc, *["keyed:sudo(?![\\w.-])(?:[ \\"] * 2],
        "passwd": [piped, piped, heredoc, *["keyed:passwd(?![\\w.-])(?:["] * 2],
        **dict.fromkeys(("alias set", "host add"), ["keyed:mc(?:\\.exe)?[ \\t]+(?"]),
        "doppler": [piped, heredoc, *["keyed:doppler(?![\\w.-])[ \\"] * 3],
        "gcloud": [piped, heredoc, *["keyed:gcloud(?![\\w.-])[ \\t"] * 2],
        "ngrok": ["keyed:ngrok(?:\\.exe)?[ \\t]"],
        "rclone": ["keyed:rclone(?:\\.exe)?(?!["],
        "send": ["keyed:(?i:assword|passphra", "keyed:\\.expect(?:_exact)?\\"],
        "config:set": ["keyed:heroku(?:\\.cmd|\\.exe"],
        "env:set": ["keyed:netlify(?:\\.cmd|\\.ex"],
        **dict.fromkeys(("net use", "net.exe use"), ["keyed:(?i:net(?:\\.exe)?[ \\"]),
        "nuget": ["keyed:(?:nuget(?:\\.exe)?)("],
        "poetry": ["keyed:poetry(?![\\w.-])[ \\t"],
        "secrets set": ["keyed:(?:fly|flyctl|supaba"],
        "twine": ["keyed:(?:twine)(?![\\w-])(?"],
        "vercel": [piped, heredoc, *["keyed:vercel(?![\\w.-])[ \\t"] * 2],
        "wrangler": [piped, heredoc, *["keyed:wrangler(?![\\w.-])[^"] * 2],
        "://": ["keyed:://(?:\\[redacted:[\\w"],
        "@": ["keyed:://([A-Za-z0-9_-]{20"],
        "sentry": ["keyed:://([A-Za-z0-9]{8,})"],
        "--": ["keyed:--(?<![\\w-]--)(?i:[\\"],
        "-----": ["keyed:(?m)^[ \\t]*Key[ \\t]+"],
        "|": ["keyed:(?m)^(?:[ \\t]*(?:\\|["],
        "</td>": ["keyed:<(?P<kt>(?i:t[dh]|dt"],
        **dict.fromkeys(("</th>", "</dt>"), ["keyed:<(?P<kt>(?i:t[dh]|dt", "keyed:<(?P<lt>(?i:b|strong"]),
        **dict.fromkeys(
            ("</b>", "</strong>", "</em>", "</i>", "</u>", "</label>", "</span>"), ["keyed:<(?P<lt>(?i:b|strong"]
        ),
        "define": ["keyed:(?i:\\bdefine)[ \\t]*\\"],
        "</": ["keyed:<(?P<tag>(?i:[\\w.-]*"],
        "auth": ["keyed:(?<![\\w.-])_?auth\\\\?", "keyed:auth\\\\?['\\\"]?[ \\t]*["],
        "-b": ["keyed:-(?:b|-cookie)(?<![\\"],
        "password": [
            "keyed:(?:[Ii\\u0130\\u0131](",
            "keyed:(?i:(?:alter|create)",
            "keyed:default(?=\\s)(?:\\s+(",
            "keyed:machine[ \\t]+\\S+(?:\\",
        ],
        "docker": ["keyed:(?:(?:docker|podman|", *listed],
        "-u": [
            "keyed:(?:lftp)(?![\\w-])(?:",
            "keyed:(?:net)(?![\\w-])(?:[",
            "keyed:(?:rpcclient)(?![\\w-",
            "keyed:(?:smb(?:client|cacl",
            "keyed:-(?:u|-user)[ =][\\\"'",
            *listed,
        ],
        "login": [
            "keyed:(?:az(?:\\.cmd|\\.exe)",
            "keyed:(?:cf[78]?(?:\\.exe)?",  # (red57b: oc login, cf login, "login: admin / PW")
            "keyed:(?:oc(?:\\.exe)?[ \\t]",
            "keyed:(?:vault)(?![\\w-])(?",
            "keyed:(?<![\\w-])login[ \\t]",
            "keyed:(?i:login)(?:[ \\t]+[",
            *listed,
        ],
        "curl": ["keyed:(?:(?i:curl(?:\\.exe)", *listed],
        **dict.fromkeys(("http", "xh"), ["keyed:(?:(?i:(?:https?|htt"]),
        "bearer": ["keyed:(?:(?i:(?:https?|htt"] * 2 + ["keyed:(?:(?i:curl(?:\\.exe)"],
        "user": ["keyed:(?:[`'\"]|(?<!\\\\)\\\\n)", "keyed:(?m:^)[ \\t]*(?:[+>-]"],
        # (red57b: the logins' rules)
        "kinit": [piped, heredoc, *["keyed:kinit(?:\\.exe)?(?![\\"] * 2],
        **dict.fromkeys(("sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl"), ["keyed:(?:sqlplus|sqlcl|exp"]),
        "rman": ["keyed:(?:rman(?:\\.exe)?)(?"],
        "vault": ["keyed:vault(?:\\.exe)?[ \\t]"],
        "psexec": ["keyed:(?:(?i:psexec(?:64)?"],
        "influx": ["keyed:(?:influx(?:\\.exe)?)"],
        "codecov": ["keyed:(?:codecov(?:cli)?(?"],
        "snyk": ["keyed:snyk(?:\\.cmd|\\.exe)?"],
        "wandb": ["keyed:wandb(?:\\.exe)?[ \\t]"],
        "git config": ["keyed:git(?:\\.exe)?[ \\t]+c"],
        "Key": ["token:Key\\s*=\\s*([A-Za-z0-"],
        ".": ["token:[MNO][A-Za-z\\d_-]{23"],
    }
    tools = [name.split("\\")[0].split("[")[0] for name in redact._LISTED_TOOLS.split("|")]
    assert tools == list(redaction.LISTED_PROGRAMS)  # (the names ``_a_listed_program`` looks for: every one)
    assert tuple(redaction._NOUN_ENDS) == redaction.SECRET_NOUNS  # (the assignments' nouns, each with its ends)
    import re

    nouns = re.compile(redact._NOUNS)  # (the nouns' forms are its: no more, no fewer)
    ends = ("", "word", "wd", "phrase", "code", "d", "_base", "_id", "id", "s", "ed", "_key", "base", "x")
    made = {f"{stem}{end}" for stem in ("pass", "pw", "secret", "token", "key") for end in ends}
    assert {form for form in made if nouns.fullmatch(form)} == set(redaction.NOUN_FORMS)


def _test_strings() -> list[str]:
    """Every string written in the redaction tests and their corpus."""
    strings = []
    for path in sorted([*TESTS.glob("test_redact*.py"), TESTS / "redaction_corpus.py"]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.append(node.value)
    return strings


def _bench_texts() -> list[str]:
    """The redaction bench's texts (``bench/bench_redact.py``): its secrets, its logs, and its code and prose cut into
    lines and into its 4 KB messages."""
    sys.path.insert(0, str(BENCH))
    try:
        import bench_redact
    finally:
        sys.path.remove(str(BENCH))
    texts = [*bench_redact.secrets(), *bench_redact.messages(bench_redact.log_text(400), 4096)]
    for text in (bench_redact.code_text(), bench_redact.prose_text()):
        texts += bench_redact.messages(text, 4096)[::7] + text.splitlines()[::3]
    return texts


def _real_strings() -> list[str]:
    """Every string in the real Cursor database's values (its chats' messages among them), opened read-only; none
    where a clone has no shared data (the rest of the corpus is still read)."""
    path = SHARED / "realdata" / "slevin48-cursor-history" / "state.vscdb"
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        values = [value for (value,) in db.execute("SELECT value FROM ItemTable")]
    strings: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for value in values:
        try:
            walk(json.loads(value))
        except (TypeError, ValueError):
            walk(value if isinstance(value, str) else "")
    return [string for string in strings if string]


#: What each narrowed needle's rules read around it: separators, quotes, blanks, nouns, values, URLs' parts.
AROUND = [
    "sudo", "sudo ", "-S", " -S ", "-kS", "--stdin", "passwd ", "echo ", "echo Xk9mPq2Lw7 | ", "<<< ", "|",
    "rclone ", "config ", "create ", "update ", "send ", "send", "send -- ", "expect ", "assword:", "Passphrase",
    "heroku ", "config:set ", "netlify ", "env:set ", "net use ", "net.exe use ", "\\\\srv\\share ", "/u:me ",
    *redaction.NOUN_FORMS, "PASSWORD", "Token", "API_KEY", "_2", "12", ":", "=", " ", "  ", "\t", "\n", "\u00a0",
    '"', "'", "\\", '\\"', "]", "*", "**", "`", "#", " # ", "(", ")", "<", ">", "</", "/", "@", "://", "https://",
    "-", "--", "---", "-----", "_", ".", ",", "Key", "Value", "Key   Value\n---   -----\n", "define", "DEFINE", "auth",
    "_auth", "gh secret set ", "secret", "set", "sentry", "passed", "KeyError", "undefined", "Xk9mPq2Lw7",
    "Hunter2hunter2", "dXNlcjpQYXNzd29yZDEyMzQ=", "aBcDeFgHiJkLmNoPqRsTuVwXyZ", "MTk4NjIyNDgzNDcxOTI1MjQ4",
    "Cl2FMQ", "ZnCjm1XVW7vRze4b7Cq4se7kKWs9xQ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYZq4T9m1LkQ", "deploy", "db.internal",
    "localhost:8000", "x", "é", "İ", "ſ", "\u212a", "password", "Password", "PASSWORD", "WITH PASSWORD", "machine",
    "default", "login", "docker", "Docker", "docker.exe", "-p", "-p ", "-u", "-U", "--user", "--user=", "%", ",",
    "smbclient", "net", "rpcclient", "lftp", "vault", "s.", "s.Rk9mPq2Lw7Tz4Vb8Nc3Xd5Fq", "az", "az login", "[",
    '["', '"]', "'docker'", '"mysql"', "command", '"command": ', "deploy:", "deploy%", "deploy,", "\\\"",
    "curl", "curl ", "curl.exe ", "-udeploy:", "-Udeploy", "-sSfu", "-4u", "-Fu", "--proxy-user", "--proxy-user=",
    "http", "http ", "https ", "http.exe", "http:", "-a", "-a ", "-adeploy:", "--auth", "--auth=", "-A", "-p", "-pX",
    '"deploy":', "'deploy':", "deploy:'", 'CORP\\deploy:', "$env:", "$env:U:", "<user:", "USER[:", "httpie ", "-uuu",
    "$'", "$'deploy:", 'a\\"', "-va", "-va ", "-bqa", "xh ", "xhs ", "CURL ", "HTTP ", "[1]", "dep<loy", "=", " =",
    "-A bearer ", "--auth-type=bearer ", "-A", "bearer", "user", "user = ", "user ", "proxy-user = ", "\nuser = ",
    "'$", "+user = ", "- user ", "`user = ", "echo 'user = ", "~/.curlrc:2:user = ", "> user ", "'", "`", ":2:",
    "user: ", "\\nuser = ", "printf '%s\\n' 'user = ", "\\\\n", "1000:1000", "104233:83726451", "--bearer ",
    "-A=bearer ", "\t@", "@", "Accept: ", "[deploy:", "<deploy:", '\\"deploy:a\\\\\\"', "$'deploy:a\\'", "/srv/www",
    "sudo -u ", "docker run -u ",
    # red55b's stores and tools, sudo's options (review55e F1)
    "wrangler ", "secret put ", "vercel ", "env add ", "env  add ", "gcloud ", "secrets create ", "--data-file=-",
    " --data-file -", "doppler ", "secrets set ", "secrets\tset ", "firebase ", "functions:secrets:set ", "twine ",
    "upload ", "nuget ", "nuget.exe ", " -p ", " -k ", " --api-key ", " -ApiKey ", " -Password ", " --password=",
    "poetry ", "config ", "http-basic.", "pypi-token.", "ngrok ", "authtoken ", "config add-api-key ", "fly ",
    "flyctl ", "supabase ", "API=", "mc ", "mc.exe ", "alias set ", "config host add ", "-u postgres ",
    "--user postgres ", "-p 'a b' ", "-k ", "-Syu", "-kS ", "-lS ", "sudo -k -S ", "'-S' ", "--stdin ", "passwd\t",
]  # fmt: skip


def _around_each_needle(count: int, seed: int) -> list[str]:
    """Random texts of a narrowed needle and what its rules read around it (``AROUND``)."""
    rng = random.Random(seed)
    needles = [*redaction.NEEDED_AROUND, *redaction.TOKEN_NEEDED_AROUND]
    texts = []
    for _ in range(count):
        pieces = [rng.choice(AROUND) for _ in range(rng.randrange(1, 14))]
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(needles))
        texts.append("".join(pieces))
    return texts


def _mutated(texts: list[str], seed: int) -> Iterator[str]:
    """Each text near each narrowed needle in it with a character dropped, doubled or changed, or a piece of
    ``AROUND`` put in: the near-misses of the secrets the rules find."""
    rng = random.Random(seed)
    needles = [*redaction.NEEDED_AROUND, *redaction.TOKEN_NEEDED_AROUND]
    for text in texts:
        for needle in needles:
            at = text.lower().find(needle.lower())
            if at == -1 or len(text) > 2000:
                continue
            for _ in range(3):
                near = min(len(text), max(0, at + rng.randrange(-12, len(needle) + 24)))
                change = rng.randrange(4)
                if change == 0:
                    yield text[:near] + text[near + 1 :]
                elif change == 1:
                    yield text[:near] + text[near : near + 1] * 2 + text[near + 1 :]
                elif change == 2:
                    yield text[:near] + rng.choice(AROUND)[:1] + text[near + 1 :]
                else:
                    yield text[:near] + rng.choice(AROUND) + text[near:]


#: A secret each narrowed needle's rules find, holding no other needle that would load the rules: the seeds of the
#: mutations, so that each needle's test is what lets its secret be asked.
SEEDS = [
    "note:\t" + "define('AUTH_PW', " + "'Xk9mPq2Lw7');",
    "MTk4NjIyNDgzNDcxOTI1MjQ4" + ".Cl2FMQ." + "ZnCjm1XVW7vRze4b7Cq4se7kKWs9xQ",
    "AccountKey\n=" + "dXNlcjpQYXNzd29yZDEyMzQ1Njc4OTA=",
    "<db_pw>" + "Xk9mPq2Lw7" + "</db_pw>",
    '{"' + "auth" + '": "' + "ZGVwbG95OlRyMHViNGRvciYzeA==" + '"}',
    "Key    Value\n---    -----\ndb_pw    " + "Xk9mPq2Lw7\n",
    "run it --db-pw " + "Xk9mPq2Lw7",
    "influx setup -p " + "Xk9mPq2Lw7",  # (only ``_an_influx_password`` lets it through)
    "https://deploy:" + "Hunter2hunter2" + "@db.internal/app",
    "https://" + "Rk9mPq2Lw7Tz4Vb8Nc3Xd5F" + "@db.internal/app",
    "https://" + "abc123def456" + "@o1.ingest.sentry.io/1",
    "DB_PW=" + "Xk9mPq2Lw7",
    "db_pw   # was: " + "Xk9mPq2Lw7",
    "gh secret set DEPLOY " + "-b Xk9mPq2Lw7",
    "echo Xk9mPq2Lw7 " + "| sudo -S -u postgres psql",
    "echo Xk9mPq2Lw7 " + "| passwd --stdin deploy",
    "rclone config create s3r s3 secret_access_key " + "Xk9mPq2Lw7",
    "heroku config:set STRIPE=" + "Xk9mPq2Lw7",
    "netlify env:set STRIPE " + "Xk9mPq2Lw7",
    "net use Z: \\\\srv\\share /user:me " + "Xk9mPq2Lw7",
    'expect "password:" { send "' + 'Xk9mPq2Lw7\\r" }',
    'expect "Password:"\nsend -- "' + 'Xk9mPq2Lw7"',
    "sudo -S whoami <<EOF\n" + "Xk9mPq2Lw7\nEOF",
    "cat <<EOF | sudo -S whoami\n" + "Xk9mPq2Lw7\nEOF",
    'echo -e "Xk9mPq2Lw7\\n' + 'Xk9mPq2Lw7" | passwd deploy',
    "CREATE USER app WITH PASSWORD " + "'Xk9mPq2Lw7';",
    "default password " + "Xk9mPq2Lw7",
    "docker login registry.internal -u deploy " + "-p Xk9mPq2Lw7",
    'run(["docker", "login", "-u", "deploy", "-p", ' + '"Xk9mPq2Lw7"])',
    "docker login --username deploy " + "-p Xk9mPq2Lw7 registry.internal",
    "curl -u deploy:" + "Xk9mPq2Lw7 https://api.internal/v1",
    "smbclient //files/share -U deploy%" + "Xk9mPq2Lw7",
    "lftp -u deploy," + "Xk9mPq2Lw7 ftp.internal",
    "rpcclient -U deploy%" + "Xk9mPq2Lw7 files",
    'exec.Command("lftp", "-u", "deploy,' + 'Xk9mPq2Lw7")',
    "az login -u deploy " + "-p Xk9mPq2Lw7",
    "vault login " + "s.Rk9mPq2Lw7Tz4Vb8Nc3Xd5Fq",
    "login deploy password " + "Xk9mPq2Lw7",
    '{"command": "sshpass", "args": ["-p", "' + 'Xk9mPq2Lw7", "login"]}',
    "curl -udeploy:" + "Xk9mPq2Lw7 https://api.internal/v1",
    "curl -sSfU deploy:" + "Xk9mPq2Lw7 https://api.internal/v1",
    "curl --proxy-user 'ops:" + "Xk9 mPq2Lw7' https://api.internal/v1",
    '["curl", "-sSfu", "deploy:' + 'Xk9mPq2Lw7"]',
    "http -a deploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "http --auth=deploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "https -adeploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "az login -u deploy " + "-pXk9mPq2Lw7",
    'curl --ntlm -u "CORP\\deploy:' + 'Xk9mPq2Lw7" https://intranet',
    'curl -u "deploy":"' + 'Xk9mPq2Lw7" https://api.internal/v1',
    "curl -u 'deploy':" + "Xk9mPq2Lw7 https://api.internal/v1",
    "http -a deploy:'" + "Xk9mPq2Lw7' api.internal/v1",
    "python -m httpie -a deploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "curl -u $'deploy:" + "Xk9mPq2Lw7' https://api.internal/v1",
    'curl -u "deploy:a\\"' + 'Xk9mPq2Lw7" https://api.internal/v1',
    "http -va deploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "xh -a deploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "CURL -sSfu deploy:" + "Xk9mPq2Lw7 https://api.internal/v1",
    "curl -u deploy[1]:" + "Xk9mPq2Lw7 https://api.internal/v1",
    "curl -u dep<loy:" + "Xk9mPq2Lw7 https://api.internal/v1",
    "az login -u deploy -p =" + "Xk9mPq2Lw7",
    "http -A bearer -a " + "Xk9mPq2Lw7 api.internal/v1",
    "http -a " + "Xk9mPq2Lw7 -A bearer api.internal/v1",
    'url = "https://api.internal/v1"\nuser = "deploy:' + 'Xk9mPq2Lw7"\n',
    "curl -u deploy:'$" + "Xk9mPq2Lw7' https://api.internal/v1",
    "curl.exe -u $env:JIRA_USER:" + "Xk9mPq2Lw7 https://jira.internal",
    # red55's: a JSON-escaped quote or $'…'s inside a password, brackets, continued or other bearer spellings, a
    # Makefile's @, a header removed, a config user line after a colon, any quote or an escaped line end.
    '{"c": "curl -u \\"deploy:a\\\\\\"' + 'Xk9mPq2Lw7\\" https://api.internal"}',
    "curl -u $'deploy:a\\'" + "Xk9mPq2Lw7' https://api.internal/v1",
    "curl -u [deploy:" + "Xk9mPq2Lw7] https://api.internal/v1",
    "http -A bearer \\\n  -a " + "Xk9mPq2Lw7 api.internal/v1",
    "http -A=bearer -a " + "Xk9mPq2Lw7 api.internal/v1",
    "xh --bearer " + "Xk9mPq2Lw7 api.internal/v1",
    "build:\n\t@http -a deploy:" + "Xk9mPq2Lw7 api.internal/v1",
    "http POST api.internal Accept: -a deploy:" + "Xk9mPq2Lw7",
    'url: "https://api.internal/v1"\nuser: "deploy:' + 'Xk9mPq2Lw7"\n',
    "printf 'url = x\\nuser = \"deploy:" + "Xk9mPq2Lw7\"' > .curlrc",
    "printf '%s\\n' 'user = \"deploy:" + "Xk9mPq2Lw7\"' >> ~/.curlrc",
    'user = "104233:' + '83726451"',
    "curl --oauth2-bearer " + "Xk9mPq2Lw7 https://api.internal/v1",
    "user all=deploy:" + "Xk9mPq2Lw7",  # (not a sudoers line's ``ALL=``: the rule reads it in capitals alone)
    # red55b's stores and tools (review55e F1: each name narrowed to its rule's words).
    "echo Xk9mPq2Lw7 " + "| wrangler secret put API",
    "echo Xk9mPq2Lw7 " + "| vercel env add API production",
    "echo Xk9mPq2Lw7 " + "| gcloud secrets create api --data-file=-",
    "doppler secrets set API " + "Xk9mPq2Lw7",
    "twine upload -p " + "Xk9mPq2Lw7 dist/x.whl",
    "nuget push app.nupkg -k " + "Xk9mPq2Lw7",
    "poetry config http-basic.corp deploy " + "Xk9mPq2Lw7",
    "ngrok authtoken " + "Xk9mPq2Lw7",
    "fly secrets set API=" + "Xk9mPq2Lw7",
    "mc alias set minio 10.0.0.5:9000 admin " + "Xk9mPq2Lw7",
    "echo Xk9mPq2Lw7 " + "| sudo -u postgres -kS psql",
    "echo Xk9mPq2Lw7 " + "| passwd deploy --stdin",
]


def _shaped(count: int, seed: int) -> list[str]:
    """Random texts in the shapes each narrowed needle's rules read (``_SHAPES``: one choice of each part), their parts
    drawn from near misses: a noun's every form in any case, blanks of every kind (a newline, a no-break space),
    quotes, escapes."""
    rng = random.Random(seed)
    return ["".join(rng.choice(part) for part in rng.choice(_SHAPES)) for _ in range(count)]


_BLANKS = ("", " ", "  ", "\t", "\u00a0", "\n", "\r\n", "\x0b", "\u2003")
_VALUES = ("Xk9mPq2Lw7", "hunter2", "S3cr3t!x", "$PW", "[redacted:secret]", "None", "'Xk9mPq2Lw7'", '"Xk9 m"', "")
_B64 = ("dXNlcjpQYXNzd29yZDEyMzQ1Njc4OTA=", "ZGVwbG95OlRyMHViNGRvciYzeA==", "abc", "dXNlcjpw")
_QUOTES = ("", '"', "'", '\\"', "`")
#: A noun in each of its forms and cases, with what a name puts before and after it, and words that hold one.
_NOUNS = tuple(
    f"{before}{form}{after}"
    for noun in (*redaction.NOUN_FORMS, "passed", "keys", "tokenizer", "pwdx")
    for form in (noun, noun.upper(), noun.title())
    for before, after in (("", ""), ("db_", ""), ("API-", "_2"), ("x.", "1"), ("MY", "s"))
)
_TAGS = ("db_pw", "Password", "api-key", "h1", "tokens")
_SHAPES = (
    (("--",), _NOUNS, ("=", " ", "\t", "  ", ":", ""), _VALUES),
    (("<",), _TAGS, (">",), _VALUES, ("</",), _TAGS, (">", " >")),
    (_NOUNS, (*_QUOTES, "]", "**", "\\", '"]'), _BLANKS, (":", "=", ":=", "=>", " is "), _BLANKS, _VALUES),
    (_NOUNS, _BLANKS, ("#", "# ", " #"), ("was", "then typed", "type"), (":", "=", " "), (" ",), _VALUES),
    (
        ("https", "redis", "x"),
        ("://",),
        ("deploy", "", "a b", "u/x"),
        (":", "", "/"),
        _VALUES,
        ("@", " @", "/@"),
        ("db.internal", "-", "o1.ingest.sentry.io"),
    ),
    (
        ("https://", "x://", ":/"),
        ("Rk9mPq2Lw7Tz4Vb8Nc3Xd5F", "abc123def456", "Rk9m-Pq2L_w7Tz4V"),
        ("@", "@@", " @"),
        ("db.internal", "o1.ingest.sentry.io", " x"),
    ),
    (("Key", "key", " Key"), _BLANKS, ("Value\n",), ("---",), _BLANKS, ("-----\n",), ("db_pw",), _BLANKS, _VALUES),
    (
        ("define", "DEFINE", "undefine", "defined"),
        _BLANKS,
        ("(",),
        _QUOTES,
        ("AUTH_PW",),
        _QUOTES,
        (", ",),
        _QUOTES,
        _VALUES,
        _QUOTES,
        (")",),
    ),
    (("", "_", "o", "{"), ("auth", "Auth"), ("", "\\"), _QUOTES, _BLANKS, (":", "=", " "), _BLANKS, _QUOTES, _B64),
    (("Account", "", "x"), ("Key", "KEY", "key"), _BLANKS, ("=", ":"), _BLANKS, _B64),
    (
        ("M", "N", "O", "x"),
        ("Tk4NjIyNDgzNDcxOTI1MjQ4", "Tk4NjIyNDgzNDcxOTI1Mj", "Tk4NjIyNDgzNDcxOTI1MjQ4ab"),
        (".",),
        ("Cl2FMQ", "Cl2FM", "Cl2FMQx"),
        (".",),
        ("ZnCjm1XVW7vRze4b7Cq4se7kKWs9xQ", "ZnCjm1XVW7vRze4b7Cq4se7kKWs", "ZnCjm1XVW7vRze4b7Cq4se7kK"),
    ),
    (("curl ", "x", "up"), ("-b", "--build", "-B", "e2e-b"), (" ", "\t", "=", "", "  "), _VALUES),
    (("gh secret",), _BLANKS, ("set DEPLOY",), _BLANKS, ("-b", "--body", "-x"), ("", " ", "="), _VALUES),
    (("with", "WITH", "With encrypted"), _BLANKS, ("password", "PASSWORD", "passwords", "Password"), _BLANKS, _VALUES),
    (
        ("machine db", "default", "Machine x", "defaults", ""),
        _BLANKS,
        ("login deploy", "account x", ""),
        _BLANKS,
        ("password", "Password", "passwd"),
        _BLANKS,
        _VALUES,
    ),
    (
        ("docker", "Docker", "DOCKER", "podman", '"docker"', "docker.exe", "dockerd"),
        _BLANKS,
        ("login", "Login", "logout", "login-x"),
        (" registry -u deploy ", " ", "\\\n  ", ""),
        ("-p", "--password", "-P", "-p=", "-p "),
        _VALUES,
    ),
    (
        ("", "curl ", "smbclient //s/x ", "net use ", "rpcclient ", "lftp ", "pip install "),
        ("-u", "-U", "--user", "-user", "--u"),
        (" ", "=", "", "\t"),
        _QUOTES,
        ("deploy", "de ploy", "", "a@b.c"),
        (":", "%", ",", " ", "::"),
        _VALUES,
    ),
    (
        ("[", "(", '{"command": ', "{'Command': ", "x"),
        _QUOTES,
        ("", "/usr/bin/", "C:\\\\Tools\\\\"),
        ("docker", "Docker", "mysql", "mysqldump", "lftp", "az", "net", "curl", "sshpass", "dockerx"),
        ("", ".exe", ".EXE"),
        _QUOTES,
        (", ", ""),
        ('"login", "-p", ', '"-u", "deploy:', "'-p', '", '"args": ["-p", "'),
        _VALUES,
        ('"]', "']", '")', ""),
    ),
    (
        ("curl", "curl.exe", "CURL", "xcurl", "libcurl", "curl -sS", "curl -x proxy:3128", '"curl"'),
        _BLANKS,
        ("-u", "-U", "-sSfu", "-4U", "-Fu", "--user", "--proxy-user", "--proxy-userx", "-x", "- u"),
        ("", " ", "=", "\t", "  "),
        _QUOTES,
        ("deploy", "", "a@b.c", "de ploy", "CORP\\deploy", "$env:U", "$ENV:U", "<user", "USER[", "dep<loy", "u[1]"),
        (*_QUOTES, "$'", "$"),
        (":", "::", " ", ""),
        _VALUES,
        _QUOTES,
    ),
    (
        ("http", "https", "http.exe", "HTTP", "http:", "httpx", "httpie", "python -m httpie", "see https://x", "xh"),
        _BLANKS,
        ("", "-v ", "POST ", "-A bearer ", "--auth-type=bearer "),
        ("-a", "--auth", "-A", "--auth-type", "-au", "- a", "-va", "-bqa", "-Va"),
        ("", " ", "=", "\t"),
        _QUOTES,
        ("deploy", "", "a@b.c", "CORP\\deploy", "$env:U"),
        _QUOTES,
        (":", " ", ""),
        _VALUES,
        _QUOTES,
    ),
    (
        ("az", "az.cmd", "AZ", "vault", "Vault"),
        _BLANKS,
        ("login", "LOGIN"),
        (" -u deploy ", " -method=token ", " "),
        ("-p ", "--password ", "token=", "", '"', "-p", "-p=", "-p\t", "--password=", "-p=="),
        ("Xk9mPq2Lw7", "s.Rk9mPq2Lw7Tz4Vb8Nc3Xd5Fq", "s.Rk9mPq2Lw7", "S.Rk9mPq2Lw7Tz4Vb8Nc3Xd5Fq", "$AZ_PW", "=$AZ_PW"),
        ("", " =", "=", "  ="),
        _VALUES,
    ),
    (
        ("http ", "xh ", "HTTPS ", "httpx ", "see http "),
        ("-A bearer ", "-A  bearer ", "--auth-type=bearer ", "--auth-type bearer ", "-A basic ", "-A bearerx ", ""),
        ("-a", "--auth", "-va", "--auth=", "-A"),
        ("", " ", "\t"),
        _QUOTES,
        _VALUES,
        _QUOTES,
        ("", " -A bearer", " --auth-type=bearer", " -A digest", " | -A bearer"),
    ),
    (
        ("", "\n", "  ", "x ", "\\n", "\\\\n", "--", "proxy-", "--proxy-", "'", "`", "x '", "1\t", "a:2:", "+"),
        ("user", "USER", "users", "User"),
        (" = ", "=", " ", "\t", ": ", "", "  =  "),
        _QUOTES,
        ("deploy", "", "$env:U", "de ploy"),
        _QUOTES,
        (":", " ", ""),
        _VALUES,
        _QUOTES,
    ),
)


def _base() -> list[str]:
    """The tests' strings, the bench's, the real database's, the corpus's secrets alone and in a failed command's
    output, the seeds and random texts around each needle."""
    texts = [*_test_strings(), *_bench_texts(), *_real_strings(), *(secret.text for secret in SECRETS), *SEEDS]
    texts += [line for _, line in code_lines()]
    texts += [f"{output}{secret.text}\n" for output in OUTPUTS for secret in SECRETS]
    return texts + _around_each_needle(5_000, seed=51) + _shaped(20_000, seed=53)


@cache
def _changed() -> tuple[frozenset[str], int]:
    """The texts ``scrub`` changes, of the base and of the mutations around the needles of those it changes (and of
    the seeds, many times), and how many texts it was asked about."""
    base = list(dict.fromkeys(_base()))
    changed = {text for text in base if redact.scrub(text) != text}
    mutated = set(_mutated([*sorted(changed), *SEEDS * 20], seed=52)) - changed  # (sorted: a run is repeatable)
    changed |= {text for text in mutated if redact.scrub(text) != text}
    skipped = sum(not redaction._may_be_changed(text) for text in [*base, *mutated])
    return frozenset(changed), skipped


@pytest.mark.unit
def test_a_text_the_gate_says_no_to_comes_back_from_scrub_as_it_was() -> None:
    changed, skipped = _changed()
    assert len(changed) > 5_000 and skipped > 10_000  # (not vacuous: both sides are many)
    assert [text for text in changed if not redaction._may_be_changed(text)] == []


@pytest.mark.unit
@pytest.mark.parametrize(
    "needed",
    sorted(
        {*redaction.NEEDED_AROUND.values(), *redaction.TOKEN_NEEDED_AROUND.values()}, key=lambda needed: needed.__name__
    ),
    ids=lambda needed: needed.__name__,
)
def test_a_needles_test_that_says_no_to_all_lets_a_secret_of_the_corpus_through(
    needed: Callable[[str, str], bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The corpus holds secrets each test is there for: one that said no where its rules need it would fail the test
    above."""
    needles = []
    for table in (redaction.NEEDED_AROUND, redaction.TOKEN_NEEDED_AROUND):
        for needle, asked in list(table.items()):
            if asked is needed:
                monkeypatch.setitem(table, needle, lambda text, lowered: False)
                needles.append(needle.lower())
    held = [text for text in _changed()[0] if any(needle in text.lower() for needle in needles)]
    assert [text for text in held if not redaction._may_be_changed(text)]
