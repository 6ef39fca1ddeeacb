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
        f"echo '{PW}' | sudo -S systemctl restart nginx",
        f"echo {PW} | sudo -S -u postgres psql",
        f"printf '%s\\n' {PW} | sudo --stdin whoami",
        f"sudo -S <<< '{PW}' apt install nginx",
        f'sudo -S apt install nginx <<< "{PW}"',
        f"echo {PW} | sudo -kS whoami",
        f"echo {PW} | sudo -u postgres -S psql",
        f"echo {PW} | sudo --user postgres -S psql",
        f"echo -n {PW} | sudo -S -p '' whoami",
        f'echo "{PW}" | /usr/bin/sudo -S id',
        f"echo '{PW}'|sudo -S id",
        f"echo {PW} | sudo -S -u postgres -H psql -c 'select 1'",
        # passwd's and chpasswd's
        f"echo {PW} | passwd --stdin deploy",
        f"echo 'deploy:{PW}' | chpasswd",
        f"chpasswd <<< 'deploy:{PW}'",
        # the stores' CLIs reading the secret from their input
        f"wrangler secret put API_KEY <<< {PW}",
        f"echo {PW} | npx wrangler secret put API_KEY",
        f"vercel env add DB_PASSWORD production <<< {PW}",
        f"echo {PW} | vercel env add DB_PASSWORD production",
        f"gcloud secrets versions add db --data-file=- <<< {PW}",
        f"echo -n {PW} | gcloud secrets create db --data-file=-",
        f"echo {PW} | gh secret set API_KEY",
        f"printf {PW} | docker secret create db_pw -",
        # and given to them on its line
        f"aws secretsmanager create-secret --name shop/db --secret-string {PW}",
        f"aws secretsmanager put-secret-value --secret-id db --secret-string='{PW}'",
        f"aws ssm put-parameter --name /db/pw --type SecureString --value {PW}",
        f"aws ssm put-parameter --name /db/pw --value {PW} --overwrite",
        f"az keyvault secret set --vault-name shopkv --name db --value {PW}",
        f"doppler secrets set DB_PASSWORD {PW}",
        f"doppler secrets set --project backend API_KEY={PW}",
        # a tool's password or token on its line
        f"twine upload -u __token__ -p {PW} dist/*",
        f"twine upload --password {PW} dist/*",
        f"poetry config http-basic.private me {PW}",
        f"poetry config pypi-token.private {PW}",
        f"dotnet nuget add source https://x/index.json -n x -u me -p {PW}",
        f"dotnet nuget push pkg.nupkg -k {PW} -s x",
        f"nuget push pkg.nupkg -ApiKey {PW} -Source x",
        f"$cred = ConvertTo-SecureString '{PW}' -AsPlainText -Force",
        f'$s = ConvertTo-SecureString -String "{PW}" -AsPlainText -Force',
        f"net use Z: \\\\srv\\share /user:corp\\me {PW}",
        f"NET USE Z: \\\\srv\\share {PW} /USER:corp\\me",
        f"ngrok config add-authtoken {PW}",
        f"ngrok authtoken {PW}",
        f"mc alias set s3 https://s3 minioadmin {PW}",
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
    ("written", "shown"),
    [
        (
            "printf 'a:Hx7Sud0Pw42\\nb:Zr8Kq3Vw7Mx\\n' | sudo chpasswd",
            f"printf 'a:{R}\\nb:{R}\\n' | sudo chpasswd",
        ),
        (
            "doppler secrets set API_KEY=Hx7Sud0Pw42 DB=Zr8Kq3Vw7Mx",
            f"doppler secrets set API_KEY={R} DB={R}",
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
    "line",
    [
        "echo hello | sudo tee /etc/motd",
        "echo y | sudo pacman -S vim",  # (pacman's -S, after the command sudo runs)
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
        "ngrok config add-authtoken $NGROK_TOKEN",
        "mc alias set s3 https://s3 $AK $SK",
    ],
)
def test_a_variable_a_file_help_text_and_other_commands_stay_as_written(line: str) -> None:
    assert redact(line) == line


def test_the_json_a_store_is_given_keeps_its_keys() -> None:
    """``--secret-string '{"pw":"…"}'``: the settings' rules redact its values, and its keys still read."""
    written = """aws secretsmanager create-secret --name db --secret-string '{"pw":"Hx7Sud0Pw42"}'"""
    assert redact(written) == written.replace(PW, "[redacted:secret]")
