"""Secrets the rules kept in trial48's probes and review48d's near shapes (red49): a token given to a command on its
input (``gh auth login --with-token <<< …``, ``echo … | docker login --password-stdin``), a service account's
``private_key_id``, a value a shell comment says was typed for a secret-named word, a known prefix's token glued to
the word before it (``tokenghp_…``), docker's quoted program path, a command's ``'command'``/``"Args"`` keys and a
listed program's name in capitals (``["SSHPASS", "-p", …]``).
Code and prose that merely look alike stay as written. Each text is asked of ``redact`` and ``as_indexed`` (what the
index stores); ``test_redaction``'s corpus carries the same shapes through every store and every way out."""

from __future__ import annotations

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed

R = "[redacted:cli-credentials]"
S = "[redacted:secret]"
#: A GitHub classic token's 36 characters, assembled so no line of this file is a live-looking token.
GH36 = "".join(("R8c2Kq7Lm", "X4vN9pZ3tW", "6yB1dF5gH0", "jS2uE8a"))
AKIA = "".join(("AKIA", "Q3EGRT5KL", "7WXB2MZ"))
SLACK = "-".join(("xoxb", "123456789012", "1234567890123", "Ab3dEf6hIj9kLm2nOp5qRs8t"))
OPENAI = "".join(("sk-proj-", "T3BlbkFJ", GH36))
GLPAT = "".join(("glpat-", "Ab3dEf6hIj9kLm2nOp5q"))
#: review49e M1's random values that read as words run together (3 characters in 4 in words), glued after a name.
GLPAT_WORDY = "".join(("glpat-", "Jupc94tnwla", "vyfErGPmp"))
STRIPE_WORDY = "".join(("sk_live_", "MbdKbseui0xa", "ScnIanaJHOQ7"))


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # trial48 F9: a token a command reads from its input, in a here-string or from echo/printf.
        ("gh auth login --with-token <<< T48ghWithTokenPlain1234567", f"gh auth login --with-token <<< {R}"),
        ("echo T48ghWithTokenPlain1234567 | gh auth login --with-token", f"echo {R} | gh auth login --with-token"),
        (
            "echo -n 'T48gh With' | gh auth login -h ghe.io --with-token",
            f"echo -n '{R}' | gh auth login -h ghe.io --with-token",
        ),
        ("printf '%s\\n' T48ghToken9 | gh auth login --with-token", f"printf '%s\\n' {R} | gh auth login --with-token"),
        (
            "echo S3cretPw9x|docker login -u ci --password-stdin reg.io",
            f"echo {R}|docker login -u ci --password-stdin reg.io",
        ),
        (
            'podman login --password-stdin -u ci reg.io <<< "S3cretPw9x"',
            f'podman login --password-stdin -u ci reg.io <<< "{R}"',
        ),
        (
            '{"command": "echo T48ghWithTokenPlain1234567 | gh auth login --with-token"}',
            f'{{"command": "echo {R} | gh auth login --with-token"}}',
        ),
        # trial48 F9: a service account's JSON key file.
        (
            '{"type": "service_account", "private_key_id": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"}',
            f'{{"type": "service_account", "private_key_id": "{S}"}}',
        ),
        ("privateKeyId: a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", f"privateKeyId: {S}"),
        (
            '{"client_secret": "d1Xq9Lm2Pw7Zr4Kt", "refresh_token": "1//0gAbCdEf9"}',
            f'{{"client_secret": "{S}", "refresh_token": "{S}"}}',
        ),
        # trial48 F9: what a comment says was typed for the secret a command prompts for.
        (
            "wrangler secret put API_KEY # then typed: T48wranglerTyped (pasted into prompt)",
            f"wrangler secret put API_KEY # then typed: {S} (pasted into prompt)",
        ),
        ("gh secret set DB_PASSWORD  # value: Hunter2!x", f"gh secret set DB_PASSWORD  # value: {S}"),
        ("gh secret set DB_PASSWORD  # value = Hunter2!x", f"gh secret set DB_PASSWORD  # value = {S}"),
        (
            "vault kv put secret/db password  # entered: Zq8vN3pLw2Rt",
            f"vault kv put secret/db password  # entered: {S}",
        ),
        ("export API_KEY=abc123def456 # prod", f"export API_KEY={S} # prod"),
        ("# password: hunter2", f"# password: {S}"),
        # review49a M3: a heredoc of one line fed to the option's command.
        ("docker login --password-stdin <<EOF\nZq8vN3pLw2Rt\nEOF", f"docker login --password-stdin <<EOF\n{R}\nEOF"),
        (
            "cat <<'EOF' | gh auth login --with-token\nT49ghHeredocToken1234\nEOF\necho ok",
            f"cat <<'EOF' | gh auth login --with-token\n{R}\nEOF\necho ok",
        ),
        (
            "gh auth login --with-token <<-END\n\tT49ghToken9x\n\tEND",
            f"gh auth login --with-token <<-END\n\t{R}\n\tEND",
        ),
        # review49a H2: gh's secret given on its line, not at its prompt.
        ("gh secret set DB_PASSWORD -b Zq8vN3pLw2Rt", f"gh secret set DB_PASSWORD -b {R}"),
        ("gh secret set DB_PASSWORD --body 'Zq8vN3pLw2Rt'", f"gh secret set DB_PASSWORD --body '{R}'"),
        ('gh secret set DB_PASSWORD -b"Zq8vN3pLw2Rt"', f'gh secret set DB_PASSWORD -b"{R}"'),
        ("gh secret set HOOK --repo o/r --body=Zq8vN3pLw2Rt", f"gh secret set HOOK --repo o/r --body={R}"),
        # A known prefix's token glued to the word before it.
        (f"tokenghp_{GH36}", "token[redacted:github-token]"),
        (f"xxghp_{GH36}", "xx[redacted:github-token]"),
        (f"url=xghp_{GH36}&a=1", "url=x[redacted:github-token]&a=1"),
        (f"=ghp_{GH36}", "=[redacted:github-token]"),
        (f"my{AKIA}", "my[redacted:aws-key]"),
        (f"bot{SLACK}", "bot[redacted:slack-token]"),
        (f"key{OPENAI}", "key[redacted:openai-key]"),
        (f"deploy-{GLPAT}", "deploy-[redacted:gitlab-token]"),
        # review49e M1: no English word ends in glpat- or sk_live_, so a value that reads as words is a token still.
        (f"export MYTOKEN_{GLPAT_WORDY}", "export MYTOKEN_[redacted:gitlab-token]"),
        (f"STRIPE_KEY_{STRIPE_WORDY}", "STRIPE_KEY_[redacted:stripe-key]"),
        # review49e M2: a comment's label that says what the value was, not what kind of thing it is.
        (
            "password = os.environ['PW']  # fallback: Hunter2Pass9",
            f"password = os.environ['PW']  # fallback: {S}",
        ),
        ("secret  # was: P4ssw0rdXy", f"secret  # was: {S}"),
        ("token  # old: ZmFrZVRva2VuMTIz", f"token  # old: {S}"),
        ("api_key  # prod key: a8Fj3kLm9QzX2", f"api_key  # prod key: {S}"),
        # review49e L3: a blank line before the heredoc's closing word.
        (
            "docker login -u me --password-stdin <<EOF\nXy7kL9pQ2m\n\nEOF",
            f"docker login -u me --password-stdin <<EOF\n{R}\n\nEOF",
        ),
        # review48d's lows: a quoted program path, a command's keys in other spellings.
        (
            '"C:\\Program Files\\Docker\\docker.exe" login -p S3cretPw9x r',
            f'"C:\\Program Files\\Docker\\docker.exe" login -p {R} r',
        ),
        (
            '& "C:\\Program Files\\Docker\\docker.exe" login -u ci -p S3cretPw9x r',
            f'& "C:\\Program Files\\Docker\\docker.exe" login -u ci -p {R} r',
        ),
        ('["SSHPASS", "-p", "S3cretPw9x", "ssh", "h"]', f'["SSHPASS", "-p", "{R}", "ssh", "h"]'),
        (
            'subprocess.run(["Mysql.exe", "-u", "root", "-pS3cretPw9x"])',
            f'subprocess.run(["Mysql.exe", "-u", "root", "-p{R}"])',
        ),
        ("{'command': 'mysql', 'args': ['-pS3cretPw9x']}", f"{{'command': 'mysql', 'args': ['-p{R}']}}"),
        (
            '{"Command": "mysql", "Args": ["-u", "root", "-pS3cretPw9x"]}',
            f'{{"Command": "mysql", "Args": ["-u", "root", "-p{R}"]}}',
        ),
    ],
)
def test_a_secret_trial48_and_review48d_found_kept_is_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written) == shown


KEPT = [
    # A file or a variable given on the command's input is no literal.
    "gh auth login --with-token < mytoken.txt",
    "gh auth login --with-token < ~/.config/gh/token",
    "cat ~/token.txt | gh auth login --with-token",
    'echo "$GH_TOKEN" | gh auth login --with-token',
    "echo $GH_TOKEN | gh auth login --with-token",
    'gh auth login --with-token <<< "$GH_TOKEN"',
    "gh auth login --with-token <<< $(pass show gh)",
    "aws ecr get-login-password | docker login --username AWS --password-stdin 1234.dkr.ecr.eu-west-1.amazonaws.com",
    "myecho T48ghToken9 | gh auth login --with-token",
    "echo done; gh auth login --with-token",
    # A heredoc giving a variable, more than one line, or fed to another command.
    "docker login --password-stdin <<EOF\n$REGISTRY_PASSWORD\nEOF",
    "docker login --password-stdin <<EOF\nfirst\nsecond\nEOF",
    "mycat <<EOF | gh auth login --with-token\nT49ghHeredocToken1234\nEOF",
    "cat <<EOF > notes.txt\nZq8vN3pLw2Rt\nEOF\ngh auth login --with-token < token.txt",
    # gh's variable is no secret; a secret from a variable or a file gives no literal.
    "gh variable set REGION --body eu-west-1",
    'gh secret set TOKEN --body "$TOKEN"',
    "gh secret set TOKEN < token.txt",
    # An id beside a key that is no private key's.
    '"access_key_id": "foo123bar456baz"',
    '"kms_key_id": "arn:aws:kms:eu-west-1:123456789012:key/abc"',
    "key_id = 42",
    "api_key_id: 1234abcd5678efgh",
    # Ordinary comments after a secret-named word.
    "token = None  # type: ignore",
    "MAX_KEY = 4  # default: 4096",
    "sort_key  # e.g: created_at",
    "secret_key  # see: https://docs.example.com/x",
    "password  # TODO: rotate",
    "x = 1  # note: abcDEF123xyz",
    "wrangler secret put API_KEY  # prompts for the value",
    # review49a M2: a comment that says no value was typed, whatever follows its colon.
    "access_token  # shape: Xy12abCD",
    "secret  # id: a8Fj3kLm9Q",
    "x = cfg.token # legacy id: AbC123xYz",
    "api_key  # format: sk_abc123def",
    # review49e M2: a label naming another thing, in capitals or before a blank, or a linter's code.
    "password  # Ticket : JIRA-4821",
    "password = 'x'  # noqa: S105",
    "secret  # Hash = Argon2id19",
    # Words holding a known prefix's letters: no generated value after them.
    "highp_abcdefghijklmnopqrstuvwxyzabcdefghij",
    "the_ghs_notGeneratedButLongEnoughWordsHereXyz",
    "task-Runner2-Config-file-abcdefg",
    "disk-usagereport2024finalversion",
    "desk-ManagementSystemConfigFile",
    "isk-ant-api03-thisIsSomeLongKebabNameNotAKey",
    "mask-proj-frontend-dashboard-v2-release-notes",
    "THEAKIAXXXXXXXXXXXXXXXX",
    "my-glpat-some-long-kebab-case-name-here",
    "cfgGOCSPX-abcdefghijklmnopqrstuvwxyzab",
    # A quoted name that starts no command, a list that gives no literal password.
    'echo "docker" login -p S3cretPw9x r',
    "{'command': 'docker', 'args': ['run', '-p', '8080:80']}",
    '{"Command": "mysql", "Args": ["-u", "root", "-p"]}',
    '["Docker", "run", "-p", "8080:80", "nginx"]',
    '["MySQL", "-p", "app"]',
    '["Net", "use", "Z:"]',
]


@pytest.mark.parametrize("line", KEPT)
def test_code_and_prose_that_look_alike_stay_as_written(line: str) -> None:
    assert redact(line) == line
    assert as_indexed(line) == line
