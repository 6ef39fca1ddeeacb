"""A password an agent gives a command that would prompt for it (piped to ``sudo -S``, ``passwd --stdin``,
``chpasswd``, fed to a secret store's CLI by ``echo`` or a here-string) or gives a store's or a tool's CLI on its
line (``aws secretsmanager --secret-string``, ``az keyvault secret set --value``, ``twine -p`` …) is redacted, as
``--password-stdin`` and ``gh secret set -b`` were; the command still reads, and a variable, a file, help text and
the same words of other commands stay as written (trial55 F0)."""

from __future__ import annotations

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed

R = "[redacted:cli-credentials]"
PW = "Hx7Sud0Pw42"


@pytest.mark.parametrize(
    "written",
    [
        # sudo reading its password from its input: ``-S`` alone, in a cluster, after options with values, ``--stdin``
        "echo 'Hx7Sud0Pw42' | sudo -S systemctl restart nginx",
        "echo Hx7Sud0Pw42 | sudo -S -u postgres psql",
        "printf '%s\\n' Hx7Sud0Pw42 | sudo --stdin whoami",
        "sudo -S <<< 'Hx7Sud0Pw42' apt install nginx",
        'sudo -S apt install nginx <<< "Hx7Sud0Pw42"',
        "echo Hx7Sud0Pw42 | sudo -kS whoami",
        "echo Hx7Sud0Pw42 | sudo -u postgres -S psql",
        "echo Hx7Sud0Pw42 | sudo --user postgres -S psql",
        "echo -n Hx7Sud0Pw42 | sudo -S -p '' whoami",
        'echo "Hx7Sud0Pw42" | /usr/bin/sudo -S id',
        "echo 'Hx7Sud0Pw42'|sudo -S id",
        "echo Hx7Sud0Pw42 | sudo -S -u postgres -H psql -c 'select 1'",
        "echo Hx7Sud0Pw42 | sudo -S tee /dev/null",  # (data that looks made is a password)
        # passwd's and chpasswd's
        "echo Hx7Sud0Pw42 | passwd --stdin deploy",
        "echo 'deploy:Hx7Sud0Pw42' | chpasswd",
        "chpasswd <<< 'deploy:Hx7Sud0Pw42'",
        # the stores' CLIs reading the secret from their input
        "wrangler secret put API_KEY <<< Hx7Sud0Pw42",
        "echo Hx7Sud0Pw42 | npx wrangler secret put API_KEY",
        "vercel env add DB_PASSWORD production <<< Hx7Sud0Pw42",
        "echo Hx7Sud0Pw42 | vercel env add DB_PASSWORD production",
        "gcloud secrets versions add db --data-file=- <<< Hx7Sud0Pw42",
        "echo -n Hx7Sud0Pw42 | gcloud secrets create db --data-file=-",
        "echo Hx7Sud0Pw42 | gh secret set API_KEY",
        "printf Hx7Sud0Pw42 | docker secret create db_pw -",
        # and given to them on its line
        "aws secretsmanager create-secret --name shop/db --secret-string Hx7Sud0Pw42",
        "aws secretsmanager put-secret-value --secret-id db --secret-string='Hx7Sud0Pw42'",
        "aws ssm put-parameter --name /db/pw --type SecureString --value Hx7Sud0Pw42",
        "aws ssm put-parameter --name /db/pw --value Hx7Sud0Pw42 --overwrite",
        # a vault password echoed into ansible, expect's answer to a password prompt (red56)
        "ansible-vault decrypt vault.yml --vault-password-file <(echo Hx7Sud0Pw42)",
        'ansible-playbook site.yml --vault-password-file=<(echo "Hx7Sud0Pw42")',
        "ansible-playbook site.yml --vault-id dev@<(echo -n Hx7Sud0Pw42)",
        "ansible-playbook site.yml --vault-id <(echo Hx7Sud0Pw42)",  # (a source without its label: review56c F8)
        'expect "password:" { send "Hx7Sud0Pw42\\r" }',
        'expect "Password: "\nsend "Hx7Sud0Pw42\\r"',
        'expect -c \'spawn ssh h; expect "assword:"; send "Hx7Sud0Pw42\\r"; interact\'',
        # a prompt with no colon: nothing else in the text let the rules be asked (review56c F3)
        'expect "password" { send "Hx7Sud0Pw42\\r" }',
        'expect "assword" { send "Hx7Sud0Pw42\\r" }',
        'expect -re "(?i)password" { send "Hx7Sud0Pw42\\r" }',
        'expect "password:" { send_user "now\\n"; send "Hx7Sud0Pw42\\r" }',  # (send_user shows, answers nothing)
        # the quotes and the \r as a JSON string escapes them (review56c F4)
        '{"command": "expect -c \'spawn ssh h; expect \\"assword:\\"; send \\"Hx7Sud0Pw42\\\\r\\"; interact\'"}',
        'expect "password:" { send "Hx7Sud0Pw42\\\\r" }',
        'expect "password:" { exp_send "Hx7Sud0Pw42\\r" }',  # (expect's alias: review58b F9)
        # send on its own line of a JSON string, after its escaped line end (review58b F4)
        '{"command": "spawn ssh u@h\\nexpect \\"password:\\"\\nsend \\"Hx7Sud0Pw42\\\\r\\"\\ninteract"}',
        '{"contents": "expect <<\'EOF\'\\nspawn ssh u@h\\nexpect \\"password:\\"\\nsend \\"Hx7Sud0Pw42\\\\r\\"\\nEOF"}',
        # pexpect's, the Python an agent writes for the same job (review58b F9)
        'child.expect("Password:")\nchild.sendline("Hx7Sud0Pw42")',
        "child.expect('password: '); child.sendline('Hx7Sud0Pw42')",
        "p.expect(['Password:', pexpect.EOF], timeout=10)\n    p.send('Hx7Sud0Pw42\\n')",
        '{"contents": "child.expect(\\"Enter passphrase\\")\\nchild.sendline(\\"Hx7Sud0Pw42\\")"}',
        # after aws's global options (review55e F2.1)
        "aws --region eu-west-1 secretsmanager create-secret --name x --secret-string Hx7Sud0Pw42",
        "aws --profile prod ssm put-parameter --name x --type SecureString --value Hx7Sud0Pw42",
        "aws --no-cli-pager --region=eu-west-1 secretsmanager put-secret-value --secret-string Hx7Sud0Pw42",
        # on a continued line (review56c F7)
        "aws --region x \\\n  secretsmanager create-secret --name x --secret-string Hx7Sud0Pw42",
        "aws --profile prod \\\n  ssm \\\n  put-parameter --name x --type SecureString --value Hx7Sud0Pw42",
        # a plain type on the next command's line is not this one's (review57e F5)
        "aws ssm put-parameter \\\n  --name x \\\n  --value Hx7Sud0Pw42\necho --type String",
        # nor the next command's in a JSON string or after && (review58b F3)
        '{"command": "aws ssm put-parameter --name /db/pw --type SecureString --value Hx7Sud0Pw42 '
        '&& aws ssm put-parameter --name /app/url --type String --value https://example.com"}',
        '{"command": "aws ssm put-parameter --name /db/pw --value Hx7Sud0Pw42 --overwrite\\n'
        'aws ssm put-parameter --name /app/url --type String --value https://example.com"}',
        # after a background &, a comment, or in the next JSON string of the line (review58f F2)
        "aws ssm put-parameter --name /db/pw --type SecureString --value Hx7Sud0Pw42 "
        "& aws ssm put-parameter --name /app/url --type String --value https://example.com",
        "aws ssm put-parameter --name /db/pw --type SecureString --value Hx7Sud0Pw42  "
        "# then: aws ssm put-parameter --name /app/url --type String --value https://example.com",
        '{"a": "aws ssm put-parameter --name /db/pw --type SecureString --value Hx7Sud0Pw42", '
        '"b": "aws ssm put-parameter --name /app/url --type String --value https://example.com"}',
        '[{"command": "aws ssm put-parameter --name /db/pw --type SecureString --value Hx7Sud0Pw42"}, '
        '{"command": "aws ssm put-parameter --name /app/url --type String --value https://example.com"}]',
        # and in a JSON string, its \ line end escaped (review57e F1)
        '{"command": "aws --region x \\\\\\n  secretsmanager create-secret --name x --secret-string Hx7Sud0Pw42"}',
        '{"command": "aws --profile prod \\\\\\n  ssm \\\\\\n  put-parameter --type SecureString --value Hx7Sud0Pw42"}',
        "az keyvault secret set --vault-name shopkv --name db --value Hx7Sud0Pw42",
        "echo Hx7Sud0Pw42 | firebase functions:secrets:set API",
        # a tool's password or token on its line
        "twine upload -u __token__ -p Hx7Sud0Pw42 dist/*",
        "twine upload --password Hx7Sud0Pw42 dist/*",
        "poetry config http-basic.private me Hx7Sud0Pw42",
        "poetry config pypi-token.private Hx7Sud0Pw42",
        "dotnet nuget add source https://x/index.json -n x -u me -p Hx7Sud0Pw42",
        "dotnet nuget push pkg.nupkg -k Hx7Sud0Pw42 -s x",
        "nuget push pkg.nupkg -ApiKey Hx7Sud0Pw42 -Source x",
        "nuget.exe setapikey Hx7Sud0Pw42 -Source x",
        "nuget setapikey Hx7Sud0Pw42",
        "$cred = ConvertTo-SecureString 'Hx7Sud0Pw42' -AsPlainText -Force",
        '$s = ConvertTo-SecureString -String "Hx7Sud0Pw42" -AsPlainText -Force',
        "net use Z: \\\\srv\\share /user:corp\\me Hx7Sud0Pw42",
        "NET USE Z: \\\\srv\\share Hx7Sud0Pw42 /USER:corp\\me",
        # other spellings (review55e F2.7): a JSON string's, net.exe, a share in quotes, /u:
        '{"command": "net use Z: \\\\\\\\srv\\\\share /user:corp\\\\me Hx7Sud0Pw42"}',
        "net.exe use Z: \\\\srv\\share /user:me Hx7Sud0Pw42",
        'net use Z: "\\\\srv\\my share" /user:me Hx7Sud0Pw42',
        "net use Z: \\\\srv\\share /u:me Hx7Sud0Pw42",
        "ngrok config add-authtoken Hx7Sud0Pw42",
        "ngrok authtoken Hx7Sud0Pw42",
        "mc alias set s3 https://s3 minioadmin Hx7Sud0Pw42",
        # a command line continued after the pipe, with a backslash or none, or by PowerShell's backtick
        "echo Hx7Sud0Pw42 | \\\n  sudo -S whoami",
        "echo Hx7Sud0Pw42 |\n  sudo -S whoami",
        "echo Hx7Sud0Pw42 |\n  docker login -u me --password-stdin",
        "$cred = ConvertTo-SecureString -String 'Hx7Sud0Pw42' `\n  -AsPlainText -Force",
        # bash's $'…', a JSON string's printf '%s\\n', a quoted ; before the here-string
        "echo $'Hx7Sud0Pw42' | sudo -S whoami",
        "echo $'Hx7Sud0Pw42' | gh auth login --with-token",
        "sudo -S bash -c 'apt update; apt upgrade' <<< 'Hx7Sud0Pw42'",
        'sudo -S sh -c "a | b" <<< Hx7Sud0Pw42',
        '{"command": "printf \'%s\\\\n\' Hx7Sud0Pw42 | sudo -S whoami"}',
        # a heredoc fed to sudo -S, chpasswd or a store's CLI (review55e F2.4)
        "sudo -S whoami <<EOF\nHx7Sud0Pw42\nEOF",
        "cat <<EOF | sudo -S whoami\nHx7Sud0Pw42\nEOF",
        "chpasswd <<EOF\ndeploy:Hx7Sud0Pw42\nEOF",
        "cat <<'EOF' | sudo chpasswd\ndeploy:Hx7Sud0Pw42\nEOF",
        "wrangler secret put API_KEY <<EOF\nHx7Sud0Pw42\nEOF",
        # in a JSON string, its line ends escaped (red56)
        '{"command": "sudo -S whoami <<EOF\\nHx7Sud0Pw42\\nEOF"}',
        '{"command": "docker login -u me --password-stdin <<EOF\\nHx7Sud0Pw42\\nEOF\\necho ok"}',
        '{"command": "cat <<\'EOF\' | sudo chpasswd\\ndeploy:Hx7Sud0Pw42\\nEOF"}',
        # its tag in escaped double quotes, a <<- heredoc's tabs escaped (review57e F2)
        '{"command": "sudo -S whoami <<\\"EOF\\"\\nHx7Sud0Pw42\\nEOF"}',
        '{"command": "cat <<\\"EOF\\" | docker login -u me --password-stdin\\nHx7Sud0Pw42\\nEOF"}',
        '{"command": "sudo chpasswd <<\\"EOF\\"\\na:Hx7Sud0Pw42\\nEOF"}',
        '{"command": "sudo -S whoami <<-EOF\\n\\tHx7Sud0Pw42\\n\\tEOF"}',
        '{"command": "sudo chpasswd <<-EOF\\n\\ta:Hx7Sud0Pw42\\n\\tEOF"}',
        # in a command given whole in quotes, its closing word before the quote (review57e F10)
        "ssh h 'sudo -S whoami <<EOF\nHx7Sud0Pw42\nEOF'",
        "ssh h 'sudo chpasswd <<EOF\na:Hx7Sud0Pw42\nEOF'",
        # a lone < after the opening on its line: quoted, in a comment (review57e F3; only a << opens another)
        'docker login -u me --password-stdin registry.io <<EOF 2>&1 | grep -v "<none>"\nHx7Sud0Pw42\nEOF',
        "sudo -S cp a b <<EOF # copy <file>\nHx7Sud0Pw42\nEOF",
        "sudo chpasswd <<EOF # users <team>\na:Hx7Sud0Pw42\nEOF",
    ],
)
def test_a_password_fed_to_a_command_or_given_to_a_store_is_redacted_and_the_command_still_reads(
    written: str,
) -> None:
    shown = redact(written)
    assert PW not in shown
    assert shown == written.replace(PW, R)
    assert as_indexed(written, whatever_the_setting=True) == shown  # (the gate lets each through to the rules)


@pytest.mark.parametrize(
    "written",
    [
        "doppler secrets set DB_PASSWORD Hx7Sud0Pw42",
        "doppler secrets set --project backend API_KEY=Hx7Sud0Pw42",
        "fly secrets set SESSION=Hx7Sud0Pw42",
        "flyctl secrets set -a app SESSION=Hx7Sud0Pw42",
        "supabase secrets set STRIPE=Hx7Sud0Pw42",
        "kubectl create secret generic db --from-literal=api=Hx7Sud0Pw42",
        "kubectl -n prod create secret generic db --from-literal api=Hx7Sud0Pw42",
        "kubectl create secret generic db --from-literal='api=Hx7Sud0Pw42'",
        # on the command's continued lines (review55e F2.3)
        "fly secrets set \\\n  DB=Hx7Sud0Pw42 \\\n  API=Hx7Sud0Pw42",
        "kubectl create secret generic db \\\n  --from-literal=a=Hx7Sud0Pw42 \\\n  --from-literal=b=Hx7Sud0Pw42",
        "kubectl -n prod \\\n  create secret generic db --from-literal=a=Hx7Sud0Pw42",
    ],
)
def test_a_secret_a_store_is_given_as_a_name_and_its_value_is_redacted_as_a_settings(written: str) -> None:
    """A pair's value is marked as a secret-named setting's is (``--from-literal=DB_PASSWORD=…`` was before)."""
    shown = redact(written)
    assert shown == written.replace(PW, "[redacted:secret]")
    assert as_indexed(written, whatever_the_setting=True) == shown


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (
            "printf 'a:Hx7Sud0Pw42\\nb:Zr8Kq3Vw7Mx\\n' | sudo chpasswd",
            f"printf 'a:{R}\\nb:{R}\\n' | sudo chpasswd",
        ),
        # a heredoc of several users fed to chpasswd, on lines or in a JSON string (red56)
        ("chpasswd <<EOF\na:Hx7Sud0Pw42\nb:Zr8Kq3Vw7Mx\nEOF", f"chpasswd <<EOF\na:{R}\nb:{R}\nEOF"),
        (
            "cat <<'EOF' | sudo chpasswd\r\na:Hx7Sud0Pw42\r\n\r\nb:$B_PW\r\nc:Zr8Kq3Vw7Mx\r\nEOF\r\n",
            f"cat <<'EOF' | sudo chpasswd\r\na:{R}\r\n\r\nb:$B_PW\r\nc:{R}\r\nEOF\r\n",
        ),
        (
            '{"command": "sudo chpasswd <<EOF\\na:Hx7Sud0Pw42\\nb:Zr8Kq3Vw7Mx\\nEOF"}',
            f'{{"command": "sudo chpasswd <<EOF\\na:{R}\\nb:{R}\\nEOF"}}',
        ),
        (
            "doppler secrets set API_KEY=Hx7Sud0Pw42 DB=Zr8Kq3Vw7Mx",
            "doppler secrets set API_KEY=[redacted:secret] DB=[redacted:secret]",
        ),
        (
            "fly secrets set SESSION=Hx7Sud0Pw42 OTHER=Zr8Kq3Vw7Mx",
            "fly secrets set SESSION=[redacted:secret] OTHER=[redacted:secret]",
        ),
        (
            "kubectl create secret generic db --from-literal=DB_PASS=Hx7Sud0Pw42 --from-literal=api=Zr8Kq3Vw7Mx",
            "kubectl create secret generic db --from-literal=DB_PASS=[redacted:secret] --from-literal=api=[redacted:secret]",
        ),
        (
            "mc alias set s3 https://s3 AKIAIOSFODNN7EXAMPLE Hx7Sud0Pw42",
            f"mc alias set s3 https://s3 [redacted:aws-key] {R}",
        ),
    ],
)
def test_each_of_several_passwords_a_command_is_given_is_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("sudo -S whoami <<< $'Hx7Sud0Pw42\\n'", f"sudo -S whoami <<< $'{R}'"),
        ('echo -e "Hx7Sud0Pw42\\nHx7Sud0Pw42" | passwd deploy', f'echo -e "{R}" | passwd deploy'),
        ("printf 'Hx7Sud0Pw42\\nHx7Sud0Pw42\\n' | sudo passwd deploy", f"printf '{R}' | sudo passwd deploy"),
        (
            '{"command": "sudo chpasswd <<EOF\\na:Zr8\\\\nKq3Vw7Mx\\nb:Hx7Sud0Pw42\\nEOF"}',
            f'{{"command": "sudo chpasswd <<EOF\\na:{R}\\nb:{R}\\nEOF"}}',
        ),
    ],
)
def test_a_password_fed_with_its_line_ends_goes_whole(written: str, shown: str) -> None:
    """``$'PW\\n'`` and the one password twice to ``passwd`` (review55e F2.5, F2.6), a JSON heredoc's password holding
    a backslash before an ``n`` (``Zr8\\nKq3…``, no line end: review57e F6): the value is redacted whole."""
    assert redact(written) == shown == as_indexed(written, whatever_the_setting=True)


@pytest.mark.parametrize("command", ["fly secrets set", "doppler secrets set", "supabase secrets set"])
def test_every_pair_of_a_long_secrets_set_is_redacted(command: str) -> None:
    """Past 200 characters of the command too (review55e F2.2: each pass read a reach of 200 from its start)."""
    pairs = " ".join(f"APP_SERVICE_CONFIGURATION_VALUE_{i}=Hx7Sud0Pw42v{i}" for i in range(8))
    written = f"{command} {pairs}"
    assert PW not in redact(written)
    assert redact(written).count("=[redacted:secret]") == 8
    assert as_indexed(written, whatever_the_setting=True) == redact(written)


@pytest.mark.parametrize(
    "written",
    [
        "rclone config create s3r s3 access_key_id AKIAX secret_access_key Hx7Sud0Pw42",
        "rclone config update s3r secret_access_key Hx7Sud0Pw42 region eu",
        "rclone config create r sftp host h user me pass Hx7Sud0Pw42 key_file ~/.ssh/id",
        "heroku config:set STRIPE=Hx7Sud0Pw42 -a app",
        "heroku config:set NODE_ENV=production DATABASE_PASSWORD=Hx7Sud0Pw42",
        "netlify env:set STRIPE Hx7Sud0Pw42",
        "netlify env:set API_TOKEN 'Hx7Sud0Pw42' --context production",
        # after netlify's options (review56c); after rclone's remote named with a secret's noun (last56 F2)
        "netlify env:set --context production STRIPE Hx7Sud0Pw42",
        "netlify env:set --secret --scope functions STRIPE Hx7Sud0Pw42",
        "netlify env:set --site mysite STRIPE Hx7Sud0Pw42",  # (--site and --auth take a value: review57e F7)
        "netlify env:set --auth $NETLIFY_AUTH_TOKEN API_KEY Hx7Sud0Pw42",
        "rclone config create mysecret s3 secret_access_key Hx7Sud0Pw42",
        "rclone config update mytoken pass Hx7Sud0Pw42",
        "rclone config create --non-interactive r s3 secret_access_key Hx7Sud0Pw42",
        # rclone's config password, its options before config (review57e F9)
        "rclone config password r pass Hx7Sud0Pw42",
        "rclone -vv config create r s3 secret_access_key Hx7Sud0Pw42",
        "rclone --config /x/rclone.conf config create r s3 secret_access_key Hx7Sud0Pw42",
        # past rclone's options that take a value (review57e F8)
        "rclone config update --config x.conf r pass Hx7Sud0Pw42",
        "rclone config create --log-level DEBUG mytoken s3 secret_access_key Hx7Sud0Pw42",
    ],
)
def test_a_secret_given_to_rclone_or_a_hosts_environment_is_redacted_as_a_settings(written: str) -> None:
    """red56: rclone's ``KEY VALUE`` pairs (a secret-named key's), heroku's and netlify's settings (a secret-named
    key's, or a value that looks made)."""
    shown = redact(written)
    assert shown == written.replace(PW, "[redacted:secret]")
    assert as_indexed(written, whatever_the_setting=True) == shown


@pytest.mark.parametrize("end", ["\n", "\\n"], ids=["lines", "json"])
def test_every_user_of_a_long_heredoc_fed_to_chpasswd_is_redacted(end: str) -> None:
    """Past 32 users too, red57's bound (review57e F11): on lines and in a JSON string."""
    users = "".join(f"u{i}:Hx7Sud0Pw42v{i}{end}" for i in range(1000))
    written = f"sudo chpasswd <<EOF{end}{users}EOF"
    assert PW not in redact(written)
    assert redact(written).count(f":{R}{end}") == 1000
    assert as_indexed(written, whatever_the_setting=True) == redact(written)


def test_every_from_literal_of_a_long_kubectl_create_secret_is_redacted() -> None:
    literals = " ".join(f"--from-literal=APP_SERVICE_CONFIGURATION_VALUE_{i}=Hx7Sud0Pw42v{i}" for i in range(8))
    written = f"kubectl create secret generic app {literals}"
    assert PW not in redact(written)
    assert redact(written).count("[redacted:secret]") == 8


@pytest.mark.parametrize(
    "line",
    [
        "echo hello | sudo tee /etc/motd",
        "echo y | sudo pacman -S vim",  # (pacman's -S, after the command sudo runs)
        # data piped through sudo -S (with a cached credential it goes to the command) or to vercel's plain setting
        "echo y | sudo -S apt install nginx",
        "echo 3 | sudo -S tee /proc/sys/vm/drop_caches",
        "echo 'nameserver 8.8.8.8' | sudo -S tee /etc/resolv.conf",
        "echo 'vm.max_map_count=262144' | sudo -S tee -a /etc/sysctl.conf",
        "echo 'SELECT 1' | sudo -S -u postgres psql",
        "sudo -S tee /etc/resolv.conf <<< 'nameserver 1.1.1.1'",
        "sudo -S bash -c 'apt update; apt upgrade' <<< 'y'",
        "sudo -S tee /etc/resolv.conf <<EOF\nnameserver 1.1.1.1\nEOF",
        "sudo -S x <<EOF\n$SUDO_PASS\nEOF",
        "chpasswd <<EOF\ndeploy:$PW\nEOF",
        "echo y | passwd deploy",
        'echo -e "Hx7Sud0Pw42\\nZr8Kq3Vw7Mx" | passwd deploy',  # (two answers, not the one password twice)
        "printf 'a\\nb\\n' | passwd",
        "echo $'y\\n' | sudo -S apt install nginx",
        "echo https://api.example.com | vercel env add API_URL production",
        'echo "$SUDO_PASS" | sudo -S systemctl restart nginx',
        "echo ${PW} | sudo -S whoami",
        "echo $(cat ~/.pw) | sudo -S whoami",
        "sudo -S systemctl restart nginx",
        "sudo -S --help",
        "the sudo -S flag reads the password from stdin",
        'echo "deploy:$PW" | chpasswd',
        "cat /etc/passwd | grep deploy",
        "doppler secrets set API_KEY",
        "doppler secrets set --help",
        "aws secretsmanager create-secret --name db --secret-string file://secret.json",
        'aws secretsmanager put-secret-value --secret-id db --secret-string "$PW"',
        "aws ssm put-parameter --name /app/url --type String --value https://api.example.com",
        # its type on a continued line (review57e F5)
        "aws --region eu-west-1 \\\n  ssm put-parameter --name /app/url --type String --value https://example.com",
        "aws --profile prod \\\n  ssm put-parameter --name x --type StringList --value a,b,c",
        "aws ssm put-parameter \\\n  --name x \\\n  --type String \\\n  --value hello",
        "aws ssm put-parameter \\\n  --name x \\\n  --value hello \\\n  --type String",
        '{"command": "aws ssm put-parameter \\\\\\n  --name x \\\\\\n  --value hello \\\\\\n  --type String"}',
        # a & inside its value, a JSON string's quote inside it escaped (review58f F2's ends are a command's only)
        'aws ssm put-parameter --name /app/url --value "https://x.example/?a=1&b=2" --type String',
        '{"command": "aws ssm put-parameter --name /app/motd --value \\"hi, all\\" --type String"}',
        "az keyvault secret set --vault-name v --name db --file secret.txt",
        'az keyvault secret set --vault-name v --name db --value "$DB_PW"',
        "kubectl set env deploy/web --value x",
        'twine upload -u __token__ -p "$PYPI_TOKEN" dist/*',
        "twine upload --help",
        "poetry config http-basic.private me",
        "ConvertTo-SecureString $enc",
        "$s = ConvertTo-SecureString $env:PW -AsPlainText -Force",
        "net use Z: \\\\srv\\share /persistent:no",
        "net use Z: \\\\srv\\share * /user:corp\\me",
        'net use Z: "\\\\srv\\my share" * /u:me',
        "ngrok config add-authtoken $NGROK_TOKEN",
        "nuget setapikey $NUGET_KEY -Source x",
        "nuget setapikey --help",
        "mc alias set s3 https://s3 $AK $SK",
        "kubectl create configmap app --from-literal=mode=prod",
        "kubectl create secret generic db --from-literal=pw=$PW",
        "fly secrets list",
        "supabase secrets set --env-file .env",
        "rclone config create r s3 provider AWS env_auth true",
        "rclone config create r s3 access_key_id x key_file ~/.ssh/id",
        # the remote's name and type are no key (last56 F2)
        "rclone config update mytoken token_url https://x",
        "rclone config update --config x.conf mytoken token_url https://x",  # (review57e F8)
        "rclone --config x.conf config password mytoken token_url https://x",
        "rclone config create mysecret s3 provider AWS",
        "rclone config create mytoken drive scope drive",
        "rclone copy a b",
        "rclone copy mytoken:backup /srv/backup",
        "heroku config:set NODE_ENV=production WEB_CONCURRENCY=2 -a app",
        # a number, a version, a short git sha, a list of flags: no token (review56c F5)
        "heroku config:set MAX_UPLOAD=10485760",
        "heroku config:set APP_VERSION=v1.2.3-rc1",
        "heroku config:set GIT_SHA=3f2a9c1b7e",
        "heroku config:set FEATURE_FLAGS=new_ui,beta_search",
        "netlify env:set NODE_ENV production",
        "netlify env:set --context production NODE_ENV production",
        "netlify env:set --site mysite NODE_ENV production",
        "netlify deploy",
        "netlify deploy --prod --dir dist",
        "aws s3 ls",
        "aws --region x \\\n  s3 ls s3://bucket",
        "expect -f script.exp",
        "chpasswd < users.txt",
        "sudo chpasswd < users.txt",
        '{"command": "sudo -S whoami <<EOF\\n$SUDO_PASS\\nEOF"}',
        '{"command": "sudo -S tee /etc/resolv.conf <<EOF\\nnameserver 1.1.1.1\\nEOF"}',
        "chpasswd <<EOF\na:$A_PW\nb:${B_PW}\nEOF",
        "ansible-playbook site.yml --vault-id <(echo $VAULT_PW)",
        "ansible-playbook site.yml --vault-id dev@prompt",
        'netlify env:set API_TOKEN "$TOKEN"',
        "ansible-vault view x --vault-password-file <(echo $PW)",
        "ansible-vault view x --vault-password-file ~/.vault_pass",
        'expect "password:" { send "$pw\\r" }',
        'expect "login:" { send "deploy\\r" }',
        # the prompt answered by a variable's send; a later send answers another (review57e F4)
        'expect -c \'spawn ssh h; expect "assword:" { send "$env(PW)\\r" }; expect "$ "; send "exit\\r"\'',
        'expect -c \'expect { "password:" { send "$pw\\r" } "yes/no" { send "yes\\r"; exp_continue } }\'',
        '{"command": "expect -c \'spawn ssh h; expect \\"assword:\\" { send \\"$env(PW)\\\\r\\" }; expect \\"$ \\"; send \\"exit\\\\r\\"\'"}',
        '{"command": "expect -c \'expect { \\"password:\\" { send \\"$pw\\\\r\\" } \\"yes/no\\" { send \\"yes\\\\r\\"; exp_continue } }\'"}',
        '{"command": "expect \\"password:\\"\\nsend \\"$pw\\\\r\\"\\nexpect \\"$ \\"\\nsend \\"exit\\\\r\\""}',
        # pexpect's prompt answered by a variable; a later sendline answers another
        'child.expect("Password:")\nchild.sendline(password)',
        "child.expect('password:'); child.sendline(os.environ['PW']); child.expect('$ '); child.sendline('exit')",
        'child.expect("login:")\nchild.sendline("deploy")',
        "fly secrets set A=$A B=${B} C=$(cat c)",
        "fly secrets set --app web; echo DB=x",  # (the command ends at its ;)
    ],
)
def test_a_variable_a_file_help_text_and_other_commands_stay_as_written(line: str) -> None:
    assert redact(line) == line


@pytest.mark.parametrize(
    "written", ["echo 'correct horse Hx7Sud0Pw42' | sudo -S whoami", "sudo -S whoami <<< 'x=Hx7Sud0Pw42'"]
)
def test_data_fed_to_sudo_s_with_a_word_that_looks_made_is_redacted_whole(written: str) -> None:
    """Data fed to ``sudo -S`` stays where it cannot be a password (review55e F3); a word or a setting's value that
    looks made is one, and the value goes whole."""
    assert redact(written) == written.replace(written[written.index("'") : written.rindex("'") + 1], f"'{R}'")


@pytest.mark.parametrize(
    "written",
    [
        """aws secretsmanager create-secret --name db --secret-string '{"pw":"Hx7Sud0Pw42"}'""",
        # every value, not a secret-named key's alone (review55e F2.8)
        """aws secretsmanager create-secret --name x --secret-string '{"db":"Hx7Sud0Pw42"}'""",
        """aws --region x secretsmanager put-secret-value --secret-id x --secret-string '{"db": "Hx7Sud0Pw42"}'""",
        # in escaped double quotes, as AWS's documentation writes it, and in a JSON string (review56c F2)
        'aws secretsmanager create-secret --name x --secret-string "{\\"db\\":\\"Hx7Sud0Pw42\\"}"',
        'aws secretsmanager create-secret --secret-string "{\\"password\\":\\"Hx7Sud0Pw42\\",\\"db\\":\\"Hx7Sud0Pw42\\"}"',
        '{"command": "aws secretsmanager create-secret --name x --secret-string \'{\\"db\\":\\"Hx7Sud0Pw42\\"}\'"}',
        '{"command": "aws secretsmanager create-secret --secret-string \\"{\\\\\\"db\\\\\\":\\\\\\"Hx7Sud0Pw42\\\\\\"}\\""}',
    ],
)
def test_the_json_a_store_is_given_keeps_its_keys(written: str) -> None:
    """``--secret-string '{"pw":"…"}'``: each secret string value is redacted, and its keys still read."""
    assert redact(written) == written.replace(PW, "[redacted:secret]")
    assert as_indexed(written, whatever_the_setting=True) == redact(written)


def test_the_plain_fields_of_an_rds_secret_string_stay() -> None:
    """review56c F6: a value under a plain key stays unless it looks made: an RDS secret's user, engine, host and
    database name are what a user searches a chat for; its password goes."""
    written = (
        "aws secretsmanager create-secret --name x --secret-string "
        """'{"username":"admin","engine":"postgres","host":"db.local","port":5432,"dbname":"app","password":"Hx7Sud0Pw42"}'"""
    )
    assert redact(written) == written.replace(PW, "[redacted:secret]")


def test_a_variable_and_a_number_in_the_json_a_store_is_given_stay() -> None:
    written = (
        """aws secretsmanager create-secret --name x --secret-string '{"db":"Hx7Sud0Pw42","port":5432,"u":"$U"}'"""
    )
    assert redact(written) == written.replace(PW, "[redacted:secret]")
