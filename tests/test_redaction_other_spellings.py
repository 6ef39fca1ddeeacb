"""A secret the rules knew in one spelling is redacted in the others a chat holds too (red47b): Vault's older token
given to ``vault token lookup``, YAML's flow pair with a bare value, a Windows tool's name (``UnRAR.exe``,
``sshpass.exe``) or a quoted one, ``net -U user%…`` before its subcommand, the AWS shorthand with its value first,
PowerShell's and cmd's line continuations, and a command given as a list of strings (``subprocess.run([...])``).
Prose and code that merely name these tools stay as written."""

from __future__ import annotations

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed

R = "[redacted:cli-credentials]"
S = "[redacted:secret]"
TOKEN = "s.Ab3dEf6hIj9kLm2nOp5qRs8t"


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # 1. Vault's older token given to the token subcommands.
        (f"vault token lookup {TOKEN}", f"vault token lookup {R}"),
        (f"vault token revoke {TOKEN}", f"vault token revoke {R}"),
        (f"vault token renew -increment=1h {TOKEN}", f"vault token renew -increment=1h {R}"),
        # 2. YAML's flow (a Kubernetes env) with the value unquoted.
        ("{name: DB_PASSWORD, value: S3cret}", f"{{name: DB_PASSWORD, value: {S}}}"),
        (
            "env: [{name: API_TOKEN, value: abc123def456}, {name: LOG_LEVEL, value: debug}]",
            f"env: [{{name: API_TOKEN, value: {S}}}, {{name: LOG_LEVEL, value: debug}}]",
        ),
        ("- name: X_TOKEN\n  value: abc123def456", f"- name: X_TOKEN\n  value: {S}"),
        # 3. Windows's spellings of the tools, a quoted name, net's -U before its subcommand.
        ("UnRAR.exe x -pS3cret a.rar", f"UnRAR.exe x -p{R} a.rar"),
        ("unrar.exe x -pS3cret a.rar", f"unrar.exe x -p{R} a.rar"),
        ("rar.exe a -hpS3cret C:\\backup\\a.rar src", f"rar.exe a -hp{R} C:\\backup\\a.rar src"),
        (
            '"C:\\Program Files\\WinRAR\\Rar.exe" a -pS3cret a.rar',
            f'"C:\\Program Files\\WinRAR\\Rar.exe" a -p{R} a.rar',
        ),
        ("sshpass.exe -p S3cret ssh deploy@host", f"sshpass.exe -p {R} ssh deploy@host"),
        ('"sshpass" -p S3cret ssh deploy@host', f'"sshpass" -p {R} ssh deploy@host'),
        ("cd /srv && 'sshpass' -p S3cret ssh deploy@host", f"cd /srv && 'sshpass' -p {R} ssh deploy@host"),
        ('sudo "sshpass" -p S3cret ssh deploy@host', f'sudo "sshpass" -p {R} ssh deploy@host'),
        ('& "C:\\tools\\sshpass.exe" -p S3cret ssh h', f'& "C:\\tools\\sshpass.exe" -p {R} ssh h'),
        ("net -U admin%S3cretX rpc user", f"net -U admin%{R} rpc user"),
        ("net -S dc1 -U 'DOM\\admin%S3cretX' ads join", f"net -S dc1 -U 'DOM\\admin%{R}' ads join"),
        # 4. The AWS shorthand with the value before the key.
        (
            "aws cloudformation deploy --parameter-overrides ParameterValue=S3cretX,ParameterKey=DbPassword",
            f"aws cloudformation deploy --parameter-overrides ParameterValue={S},ParameterKey=DbPassword",
        ),
        ("Value=S3cretX==,Name=DB_PASSWORD", f"Value={S},Name=DB_PASSWORD"),
        # 5. PowerShell's and cmd's line continuations.
        ("mysql -u root `\n  -pS3cret app", f"mysql -u root `\n  -p{R} app"),
        ("mysql -u root ^\r\n  -pS3cret app", f"mysql -u root ^\r\n  -p{R} app"),
        ("docker login -u ci `\n  -p S3cret reg.io", f"docker login -u ci `\n  -p {R} reg.io"),
        ("sshpass `\n  -p S3cret ssh deploy@host", f"sshpass `\n  -p {R} ssh deploy@host"),
        # 6. A command given as a list of strings.
        (
            'subprocess.run(["mysql", "-u", "root", "-pS3cret", "app"])',
            f'subprocess.run(["mysql", "-u", "root", "-p{R}", "app"])',
        ),
        (
            'subprocess.run(["sshpass", "-p", "S3cret", "ssh", "deploy@host"], check=True)',
            f'subprocess.run(["sshpass", "-p", "{R}", "ssh", "deploy@host"], check=True)',
        ),
        ("['sshpass', '-p', 'two words', 'ssh', 'h']", f"['sshpass', '-p', '{R}', 'ssh', 'h']"),
        ('["/usr/bin/mysql", "-p" + "S3cret"]', f'["/usr/bin/mysql", "-p" + "{R}"]'),
        (
            '["docker", "login", "-u", "ci", "-p", "S3cret", "reg.io"]',
            f'["docker", "login", "-u", "ci", "-p", "{R}", "reg.io"]',
        ),
        ('{"args": ["redis-cli", "-a", "S3cret", "ping"]}', f'{{"args": ["redis-cli", "-a", "{R}", "ping"]}}'),
        ('{"c": "[\\"mysql\\", \\"-pS3cret\\"]"}', f'{{"c": "[\\"mysql\\", \\"-p{R}\\"]"}}'),
    ],
)
def test_a_secret_in_another_spelling_of_a_known_shape_is_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written) == shown


KEPT = [
    # Vault's token subcommands without a token, and prose.
    "vault token lookup",
    "vault token revoke -self",
    "vault token lookup -accessor 8609694a-cdbc-db9b-d345-e782dbb562ed",
    "run vault token lookup to see the token's policies",
    # A JavaScript object whose value is a variable, a call, a reference or a word.
    "{name: DB_PASSWORD, value: dbPassword}",
    "{ name: API_TOKEN, value: token }",
    "{name: DB_PASSWORD, value: config.db.password}",
    "{name: DB_PASSWORD, value: getPassword()}",
    "{name: DB_PASSWORD, value: $(DB_PASSWORD)}",
    "{name: LOG_LEVEL, value: Debug123}",
    "{ name: apiKey, value: S3cret }",
    # The tools' names as files, values and words.
    'find . -name "sshpass" -print',
    "grep -rn 'sshpass' -print0 .",
    'see the "sshpass" -p flag in its manual',
    "cc -o a.rar.exe -pthread main.c",
    "copy C:\\tools\\unrar.exe -p",
    "dotnet -U admin%prod rpc",
    "asp.net -U admin%prod",
    "net use Z: \\\\srv\\share /user:admin",
    # The shorthand's other fields.
    "ParameterValue=prod,ParameterKey=Env",
    "UsePreviousValue=true,ParameterKey=DbPassword",
    "ParameterValue=$DB_PASSWORD,ParameterKey=DbPassword",
    "Value=web-01,Key=Name",
    # A Markdown line ending in a backtick or a caret before an option of another command.
    "Run `mysql`\n-p is the port flag of `ssh`",
    "x = 2^\n-p",
    # A command given as a list: options of other tools, no literal.
    'subprocess.run(["mysql", "-u", "root", "-p" + pw, "app"])',
    'subprocess.run(["mysql", "-p", "app"])',
    'cmd = ["sshpass", "-p", os.environ["PW"], "ssh", host]',
    '["docker", "run", "-p", "8080:80", "nginx"]',
    '["mysql", "--version"]',
    '["ssh", "-p", "2222", "host"]',
    'tools = ["mysql", "psql", "sqlite3"]',
]


@pytest.mark.parametrize("line", KEPT)
def test_prose_and_code_naming_these_tools_stay_as_written(line: str) -> None:
    assert redact(line) == line
    assert as_indexed(line) == line


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # M1: a command given as a list of strings in its other spellings (red48).
        (
            '{"label": "db", "type": "shell", "command": "mysql", "args": ["-u", "root", "-pS3cret"]}',
            f'{{"label": "db", "type": "shell", "command": "mysql", "args": ["-u", "root", "-p{R}"]}}',
        ),
        (
            '{\\"command\\": \\"mysql\\", \\"args\\": [\\"-pS3cret\\"]}',
            f'{{\\"command\\": \\"mysql\\", \\"args\\": [\\"-p{R}\\"]}}',
        ),
        (
            '"db": {"command": "sshpass", "args": ["-p", "S3cret", "ssh", "h", "mcp"]}',
            f'"db": {{"command": "sshpass", "args": ["-p", "{R}", "ssh", "h", "mcp"]}}',
        ),
        ('["sudo", "mysql", "-pS3cret"]', f'["sudo", "mysql", "-p{R}"]'),
        ('["sudo", "-u", "backup", "mysql", "-pS3cret"]', f'["sudo", "-u", "backup", "mysql", "-p{R}"]'),
        ("spawn('sshpass', ['-p', 'S3cret', 'ssh', 'h'])", f"spawn('sshpass', ['-p', '{R}', 'ssh', 'h'])"),
        ('execFile("mysql", ["-u", "root", "-pS3cret"])', f'execFile("mysql", ["-u", "root", "-p{R}"])'),
        ('exec.Command("mysql", "-pS3cret")', f'exec.Command("mysql", "-p{R}")'),
        ("('sshpass', '-p', 'S3cret', 'ssh', 'h')", f"('sshpass', '-p', '{R}', 'ssh', 'h')"),
        ('("mysql", "-u", "root", "-pS3cret")', f'("mysql", "-u", "root", "-p{R}")'),
        # M3: Vault's older token quoted, after an option's value, to ``vault token capabilities``.
        (f'vault token revoke "{TOKEN}"', f'vault token revoke "{R}"'),
        (f"vault token lookup -format=json '{TOKEN}'", f"vault token lookup -format=json '{R}'"),
        (f"vault token renew -increment 1h {TOKEN}", f"vault token renew -increment 1h {R}"),
        (f"vault token capabilities {TOKEN} kv/app", f"vault token capabilities {R} kv/app"),
        (f'vault login "{TOKEN}"', f'vault login "{R}"'),
        (f'{{"cmd": "vault token revoke \\"{TOKEN}\\""}}', f'{{"cmd": "vault token revoke \\"{R}\\""}}'),
        (f"X-Vault-Token: {TOKEN}", f"X-Vault-Token: {S}"),
        (
            f'curl -H "X-Vault-Token: {TOKEN}" https://vault:8200/v1/kv/app',
            f'curl -H "X-Vault-Token: {S}" https://vault:8200/v1/kv/app',
        ),
        (f"https://vault:8200/ui/?token={TOKEN}&ns=x", f"https://vault:8200/ui/?token={S}&ns=x"),
        (f'vault {{\n  token = "{TOKEN}"\n}}', f'vault {{\n  token = "{S}"\n}}'),
        # M2: Windows's tools' names README gives.
        ("docker.exe login -u ci -p S3cret reg.io", f"docker.exe login -u ci -p {R} reg.io"),
        ("WinRAR.exe a -pS3cret a.rar", f"WinRAR.exe a -p{R} a.rar"),
        ("Rar.exe a -hpS3cret a.rar", f"Rar.exe a -hp{R} a.rar"),
        ("mysql.exe -u root -pS3cret", f"mysql.exe -u root -p{R}"),
        ("htpasswd.exe -b .htpasswd admin S3cret", f"htpasswd.exe -b .htpasswd admin {R}"),
        ("az.cmd login -u http://app -p S3cret", f"az.cmd login -u http://app -p {R}"),
        # YAML's flow pair with its name quoted, blanks before its comma, or its value first (red48 lows).
        ('{name: "DB_PASSWORD", value: S3cretX1}', f'{{name: "DB_PASSWORD", value: {S}}}'),
        ("{name: 'DB_PASSWORD', value: S3cretX1}", f"{{name: 'DB_PASSWORD', value: {S}}}"),
        ("{name: DB_PASSWORD , value: S3cretX1}", f"{{name: DB_PASSWORD , value: {S}}}"),
        ("{value: S3cretX1, name: DB_PASSWORD}", f"{{value: {S}, name: DB_PASSWORD}}"),
        ("{ value: S3cretX1 , key: API_TOKEN }", f"{{ value: {S} , key: API_TOKEN }}"),
        # The AWS shorthand's value first with a ``=`` inside it (red48 low).
        (
            "aws cloudformation deploy --parameter-overrides ParameterValue=S3c=ret9,ParameterKey=DbPassword",
            f"aws cloudformation deploy --parameter-overrides ParameterValue={S},ParameterKey=DbPassword",
        ),
        # A program run inside a PowerShell script block after a cmdlet, or after a Unix ``--`` (review48d H1).
        (
            "Get-ChildItem *.sql | ForEach-Object { mysql -u root -pS3cret db < $_ }",
            f"Get-ChildItem *.sql | ForEach-Object {{ mysql -u root -p{R} db < $_ }}",
        ),
        ("gci | ForEach-Object -Parallel { mysql -pS3cret }", f"gci | ForEach-Object -Parallel {{ mysql -p{R} }}"),
        ("gci | Where-Object { mysql -pS3cret }", f"gci | Where-Object {{ mysql -p{R} }}"),
        ("Measure-Command { mysql.exe -pS3cret }", f"Measure-Command {{ mysql.exe -p{R} }}"),
        ("gci | ForEach-Object { sshpass -p S3cret ssh h }", f"gci | ForEach-Object {{ sshpass -p {R} ssh h }}"),
        ("1..3 | ForEach-Object { docker login -p S3cret r }", f"1..3 | ForEach-Object {{ docker login -p {R} r }}"),
        (f"gci | ForEach-Object {{ vault login {TOKEN} }}", f"gci | ForEach-Object {{ vault login {R} }}"),
        ("wait-for db:3306 -- mysql -u root -pS3cret", f"wait-for db:3306 -- mysql -u root -p{R}"),
        # A JSON string's line end after a Windows path, escaped once or twice.
        ('{"cmd": "cd C:\\\\srv\\nmysql -pS3cret"}', f'{{"cmd": "cd C:\\\\srv\\nmysql -p{R}"}}'),
        ('"cd C:\\srv\\\\nmysql -pS3cret"', f'"cd C:\\srv\\\\nmysql -p{R}"'),
    ],
)
def test_a_secret_in_more_spellings_of_a_known_shape_is_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written) == shown


MORE_KEPT = [
    # A list whose program gives no literal password, or is no tool of the rules.
    '{"command": "mysql", "args": ["-u", "root", "-p"]}',
    '{"command": "docker", "args": ["run", "-p", "8080:80", "nginx"]}',
    'spawn("docker", ["run", "-p", "3000:3000", "app"])',
    'exec.Command("mysql", "-u", "root", "-p"+pw)',
    'exec.Command("net", "use", "Z:")',
    'print("mysql", "-p", x)',
    '("mysql", "postgres", "sqlite")',
    'os.path.join("mysql", "data")',
    '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "-p", "5432"]}',
    # mysql's -p apart from its value asks for the password; the next word is the database (as on a command line).
    '("mysql", "-p", "app")',
    # Vault's token commands without a token, with an accessor, a token in words.
    "vault token capabilities kv/app",
    "vault token renew -increment 1h",
    "vault token lookup -accessor 8609694a-cdbc-db9b-d345-e782dbb562ed",
    'vault token revoke "$VAULT_TOKEN"',
    # M4: a PowerShell cmdlet's parameters after a tool's name it is given, on its line or the next.
    "Get-Service mysql `\n  -pipelinevariable svc",
    "Get-Service mysql -pipelinevariable svc",
    "restart-service mysql -passthru",
    "gci | ForEach-Object { Get-Service mysql -pipelinevariable svc }",
    # YAML's flow with its value first: a variable's name, another setting's value, a reference.
    "{value: dbPassword, name: DB_PASSWORD}",
    "{value: S3cretX1, name: LOG_LEVEL}",
    "{value: $(DB_PASSWORD), name: DB_PASSWORD}",
    "{avalue: S3cretX1, name: DB_PASSWORD}",
    # A Windows folder whose name starts with an n after a backslash is no JSON string's line end (red48 low).
    "cl C:\\data\\nmysql -pthread",
    '{"cmd": "cl C:\\\\data\\\\nmysql -pthread"}',
]


@pytest.mark.parametrize("line", MORE_KEPT)
def test_more_prose_and_code_naming_these_tools_stay_as_written(line: str) -> None:
    assert redact(line) == line
    assert as_indexed(line) == line


@pytest.mark.parametrize(
    "line",
    [
        'Start-Process mysql -ArgumentList "-u root -pS3cret"',
        "Get-Content dump.sql | mysql -u root -pS3cret app",
        "& mysql.exe -u root -pS3cret",
    ],
)
def test_a_program_a_cmdlet_runs_or_a_pipe_feeds_keeps_its_password_redacted(line: str) -> None:
    assert "S3cret" not in redact(line)
    assert "S3cret" not in as_indexed(line)
