"""A password or a token given to a login command or a library's login call is redacted whatever CLI or library
carries it (trial57 F1: Kerberos's ``kinit``, PsExec, ``vault login``, npm's space form, Python's positional
``login``/``auth`` forms, Oracle's ``user/password@db``, ``oc``/``cf login``, ``influx``, SQL's ``ALTER ROLE …
PASSWORD`` and ``SET PASSWORD``, ``git config github.token``, ``snyk``, ``codecov``, ``netlify --auth``, firebase's
``functions:config:set``, prose's "login: admin / …"); the command still reads, and the same commands without a
password (``kinit -k -t``, ``sqlplus /nolog``, ``oc login --web``, ``auth=None``) stay as written. (Each line written
out, no f-string: ``test_redact_gate_needles`` reads these files' strings as its corpus of secrets.)"""

from __future__ import annotations

import pytest

from deja.core import redaction
from deja.core.redact import redact
from deja.core.redaction import as_indexed


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # trial57 F1's table, line by line
        ("vault login IxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh", "vault login [redacted:cli-credentials]"),
        (
            "npm config set //npm.corp/:_authToken IxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh",
            "npm config set //npm.corp/:_authToken [redacted:cli-credentials]",
        ),
        (
            "npm config set //npm.corp/:_password Hx7Sud0Pw42",
            "npm config set //npm.corp/:_password [redacted:cli-credentials]",
        ),
        ("echo Hx7Sud0Pw42 | kinit admin@CORP", "echo [redacted:cli-credentials] | kinit admin@CORP"),
        ("kinit admin <<< Hx7Sud0Pw42", "kinit admin <<< [redacted:cli-credentials]"),
        (
            "PsExec64.exe \\\\host -u CORP\\admin -p Hx7Sud0Pw42 cmd",
            "PsExec64.exe \\\\host -u CORP\\admin -p [redacted:cli-credentials] cmd",
        ),
        ("psexec \\\\host -u admin -p Hx7Sud0Pw42 cmd", "psexec \\\\host -u admin -p [redacted:cli-credentials] cmd"),
        ("smtp.login('me@x.com', 'Hx7Sud0Pw42')", "smtp.login('me@x.com', '[redacted:secret]')"),
        ("ftp.login('me', 'Hx7Sud0Pw42')", "ftp.login('me', '[redacted:secret]')"),
        ("requests.get(url, auth=('admin', 'Hx7Sud0Pw42'))", "requests.get(url, auth=('admin', '[redacted:secret]'))"),
        ('session.auth = ("admin", "Hx7Sud0Pw42")', 'session.auth = ("admin", "[redacted:secret]")'),
        ("httpx.get(url, auth=('admin', 'Hx7Sud0Pw42'))", "httpx.get(url, auth=('admin', '[redacted:secret]'))"),
        ('aiohttp.BasicAuth("admin", "Hx7Sud0Pw42")', 'aiohttp.BasicAuth("admin", "[redacted:secret]")'),
        ("HTTPBasicAuth('admin', 'Hx7Sud0Pw42')", "HTTPBasicAuth('admin', '[redacted:secret]')"),
        # requests_ntlm's class, requests' auth module by its own name (review58b F6)
        ("auth=HttpNtlmAuth('CORP\\\\jdoe', 'Hx7Sud0Pw42')", "auth=HttpNtlmAuth('CORP\\\\jdoe', '[redacted:secret]')"),
        ("auth=auth.HTTPBasicAuth('admin', 'Hx7Sud0Pw42')", "auth=auth.HTTPBasicAuth('admin', '[redacted:secret]')"),
        (
            "firebase functions:config:set stripe.key=Hx7Sud0Pw42",
            "firebase functions:config:set stripe.key=[redacted:secret]",
        ),
        ("sqlplus system/Oracle_123@ORCLPDB1", "sqlplus system/[redacted:cli-credentials]@ORCLPDB1"),
        ("sqlplus -s app/Hx7Sud0Pw42@//db:1521/svc", "sqlplus -s app/[redacted:cli-credentials]@//db:1521/svc"),
        ("expdp system/Hx7Sud0Pw42@db schemas=hr", "expdp system/[redacted:cli-credentials]@db schemas=hr"),
        ("rman target sys/Hx7Sud0Pw42@prod", "rman target sys/[redacted:cli-credentials]@prod"),
        (
            "oc login https://api.ocp:6443 -u kubeadmin -p Hx7Sud0Pw42",
            "oc login https://api.ocp:6443 -u kubeadmin -p [redacted:cli-credentials]",
        ),
        (
            "cf login -a https://api.cf.example -u me -p Hx7Sud0Pw42",
            "cf login -a https://api.cf.example -u me -p [redacted:cli-credentials]",
        ),
        (
            "influx setup -u admin -p Hx7Sud0Pw42 -o org -b b -f",
            "influx setup -u admin -p [redacted:cli-credentials] -o org -b b -f",
        ),
        ("ALTER ROLE app PASSWORD 'Hx7Sud0Pw42';", "ALTER ROLE app PASSWORD '[redacted:secret]';"),
        (
            "SET PASSWORD FOR root@localhost = PASSWORD('Hx7Sud0Pw42');",
            "SET PASSWORD FOR root@localhost = PASSWORD('[redacted:secret]');",
        ),
        ("git config --global github.token Hx7Sud0Pw42", "git config --global github.token [redacted:cli-credentials]"),
        ("snyk auth IxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh", "snyk auth [redacted:cli-credentials]"),
        # W&B's documented login: a 40-hex key, told apart by the command (trial59 F3).
        ("wandb login 9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c", "wandb login [redacted:cli-credentials]"),
        (
            "wandb login --relogin --host https://wandb.corp.io 9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c",
            "wandb login --relogin --host https://wandb.corp.io [redacted:cli-credentials]",
        ),
        ("codecov -t IxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh", "codecov -t [redacted:cli-credentials]"),
        (
            "netlify deploy --auth IxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh",
            "netlify deploy --auth [redacted:cli-credentials]",
        ),
        ("login: admin / Hx7Sud0Pw42", "login: admin / [redacted:secret]"),
        ("default login is admin / Hx7Sud0Pw42", "default login is admin / [redacted:secret]"),
        ("the grafana login is admin/Hx7Sud0Pw42 on :3000", "the grafana login is admin/[redacted:secret] on :3000"),
        # their near spellings
        ("kinit u@R <<< 'Hx7Sud0Pw42'", "kinit u@R <<< '[redacted:cli-credentials]'"),
        ("kinit admin@CORP <<EOF\nHx7Sud0Pw42\nEOF", "kinit admin@CORP <<EOF\n[redacted:cli-credentials]\nEOF"),
        (
            "vault login -no-print -method=token IxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh",
            "vault login -no-print -method=token [redacted:cli-credentials]",
        ),
        ('smtp.login("me@x.com", "Hx7Sud0Pw42")', 'smtp.login("me@x.com", "[redacted:secret]")'),
        ("server.login(settings.SMTP_USER, 'Hx7Sud0Pw42')", "server.login(settings.SMTP_USER, '[redacted:secret]')"),
        (
            'requests.get(url, auth=HTTPDigestAuth("admin", "Hx7Sud0Pw42"))',
            'requests.get(url, auth=HTTPDigestAuth("admin", "[redacted:secret]"))',
        ),
        (
            "sqlldr userid=scott/Hx7Sud0Pw42@db control=x.ctl",
            "sqlldr userid=scott/[redacted:cli-credentials]@db control=x.ctl",
        ),
        ("sqlplus 'sys/Hx7Sud0Pw42@db as sysdba'", "sqlplus 'sys/[redacted:cli-credentials]@db as sysdba'"),
        (
            "rman target sys/Hx7Sud0Pw42@prod catalog rcat/Hx7Sud0Pw42x@cat",
            "rman target sys/[redacted:cli-credentials]@prod catalog rcat/[redacted:cli-credentials]@cat",
        ),
        (
            "CREATE ROLE app WITH LOGIN PASSWORD 'Hx7Sud0Pw42';",
            "CREATE ROLE app WITH LOGIN PASSWORD '[redacted:secret]';",
        ),
        ("git config github.token Hx7Sud0Pw42", "git config github.token [redacted:cli-credentials]"),
        (
            "git config --global sendemail.smtppass Hx7Sud0Pw42",
            "git config --global sendemail.smtppass [redacted:cli-credentials]",
        ),
        # a name of words ending in "pass" the user made (review58b F8)
        ("git config --global mysql.dbpass Hx7Sud0Pw42", "git config --global mysql.dbpass [redacted:cli-credentials]"),
        (
            'firebase functions:config:set mail.userpass="Hx7Sud0Pw42"',
            'firebase functions:config:set mail.userpass="[redacted:secret]"',
        ),
        (
            "git config --global user.password Hx7Sud0Pw42",
            "git config --global user.password [redacted:cli-credentials]",
        ),
        (
            "firebase functions:config:set stripe.secret=Hx7Sud0Pw42 app.url=https://x.example",
            "firebase functions:config:set stripe.secret=[redacted:secret] app.url=https://x.example",
        ),
    ],
)
def test_a_password_given_to_a_login_is_redacted_and_the_command_still_reads(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written, whatever_the_setting=True) == shown  # (the gates let each through to the rules)


@pytest.mark.parametrize(
    "line",
    [
        # the same commands and calls without a password
        "kinit -k -t /etc/krb5.keytab host/x",
        "kinit admin@CORP.EXAMPLE",
        "echo $PW | kinit admin@CORP",
        "sqlplus /nolog",
        "sqlplus / as sysdba",
        "sqlplus -s app@db @sql/run.sql",
        "sqlplus app/$DB_PASSWORD@db",
        "rman target / cmdfile=backup/full.rman",
        "oc login --web",
        "oc login --token=$(cat token) https://api.ocp:6443",
        "ftp.login()",
        "ftp.login('anonymous')",
        "smtp.login(user, password)",
        "requests.get(url, auth=None)",
        "requests.get(url, auth=token_auth)",
        "requests.get(url, auth=(user, pw))",
        "vault login",
        "vault login -",
        "vault login -method=userpass username=me",
        "snyk auth",
        "wandb login",
        "wandb login --relogin",
        "run wandb login first, then train",
        # any name ending in "auth", any object's login method (review57f F4)
        "export default withAuth(Dashboard, 'admin')",
        "const ok = checkAuth(req, 'admin')",
        'return requireAuth(user, "write")',
        'app.use(useAuth(config, "/login"))',
        "OAuth(app, 'github')",
        'await page.login(user, "Submit")',
        "await page.login(email, 'fixtures/user.json')",
        # a git setting ending in "pass" that names no secret (review57f F5)
        "git config --global core.askpass /usr/bin/ksshaskpass",
        "git config --global alias.bypass 'commit --no-verify'",
        "psexec \\\\host -u admin cmd",
        "git config user.name Jane",
        "git config --global user.signingkey 3AA5C34371567BD2",
        "git config --global credential.helper store",
        "git config --global github.token",
        "npm config set registry https://npm.corp/",
        "firebase functions:config:set app.url=https://x.example",
        "SET PASSWORD FOR root@localhost = PASSWORD($pw);",
        # prose
        "login: see the wiki",
        "login: email/password",
        "the login is admin/admin on the test box",
        "login: /api/auth/login returns 401",
        "the performance target is 3/4 of the last release",
        "vault login failed",
    ],
)
def test_the_same_commands_without_a_password_stay_as_written(line: str) -> None:
    assert redact(line) == line


@pytest.mark.parametrize(
    "output",
    [
        "kinit: Client 'admin@CORP.EXAMPLE' not found in Kerberos database",
        "SP2-0306: Invalid option.\nUsage: CONN[ECT] [{logon|/|proxy} [AS {SYSDBA|SYSOPER}] [edition=value]]",
        "RMAN-03002: failure of backup command at 12/07/2026 10:00:00",
        "hint: git config pull.rebase false  # merge",
        "Error: vault login -method=oidc timed out",
        "codecov: command not found",
        "snyk: Authentication failed. Please check the API token",
        "psexec: The handle is invalid.",
        "influx: error: unauthorized access",
        "the permanent redirect moved /old to /new",
    ],
)
def test_their_ordinary_failures_load_no_rules(output: str) -> None:
    """What these tools print when they fail names them: the failure hook asks what each rule needs around its name
    (``redaction.NEEDED_AROUND``), and loads nothing for them."""
    assert not redaction._may_be_changed(output)
    assert redact(output) == output
