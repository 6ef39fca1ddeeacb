"""A password given as an argument of a common command line tool is redacted, every one the command gives, as
``mysql -pS3cret``, ``sshpass -p`` and ``redis-cli -a`` were; Redis's ``requirepass`` in a sentence too (trial45 F1).
The same short options of other commands (ports, modes, messages) stay as written."""

from __future__ import annotations

import json

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed

R = "[redacted:cli-credentials]"
#: A file's path longer than the 200 characters a tool's name is looked for before its option.
_LONG_PATH = "/srv/deploy/" + "/".join(["credentials-of-the-build-machines"] * 7) + "/pw"


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("in redis.conf requirepass r3d1s-Pa55-w0rd", f"in redis.conf requirepass {R}"),
        ("I set requirepass r3d1s-Pa55-w0rd in redis.conf", f"I set requirepass {R} in redis.conf"),
        (
            "keytool -genkey -keystore ks.jks -storepass St0rePa55wd -keypass K3yPa55wd",
            f"keytool -genkey -keystore ks.jks -storepass {R} -keypass {R}",
        ),
        ('keytool -storepass "$SP" -keypass K3yPa55wd', f'keytool -storepass "$SP" -keypass {R}'),
        ("htpasswd -b .htpasswd admin Ht9a55w0rd!", f"htpasswd -b .htpasswd admin {R}"),
        ("htpasswd -nb admin Ht9a55w0rd! > .htpasswd", f"htpasswd -nb admin {R} > .htpasswd"),
        (
            "htpasswd -bB -C 10 /etc/nginx/.htpasswd admin Ht9a55w0rd!",
            f"htpasswd -bB -C 10 /etc/nginx/.htpasswd admin {R}",
        ),
        (
            "az login --service-principal -u http://app -p Az3PwdSecretX1 --tenant t",
            f"az login --service-principal -u http://app -p {R} --tenant t",
        ),
        ("ldapsearch -x -D cn=admin -w LdapB1ndPa55 -b dc=x", f"ldapsearch -x -D cn=admin -w {R} -b dc=x"),
        ("ldapmodify -x -D cn=admin -w 'Ldap B1nd' -f x.ldif", f"ldapmodify -x -D cn=admin -w '{R}' -f x.ldif"),
        ("smbclient //srv/share -U user%SmbPa55w0rd", f"smbclient //srv/share -U user%{R}"),
        ("smbclient //srv/share -U 'DOM\\user%SmbPa55w0rd'", f"smbclient //srv/share -U 'DOM\\user%{R}'"),
        ("sqlcmd -S db -U sa -P 'MsSqlCl1Pa55!'", f"sqlcmd -S db -U sa -P '{R}'"),
        ("rabbitmqctl add_user admin R4bbitPa55w0rd", f"rabbitmqctl add_user admin {R}"),
        ("rabbitmqctl change_password admin R4bbitPa55w0rd", f"rabbitmqctl change_password admin {R}"),
        ("mongosh -u admin -p MongoPa55w0rd --quiet", f"mongosh -u admin -p {R} --quiet"),
        ("openssl enc -aes-256-cbc -k Op3nSslPa55 -in f", f"openssl enc -aes-256-cbc -k {R} -in f"),
        ("ssh-keygen -p -P OldPa55phr -N NewPa55phr -f k", f"ssh-keygen -p -P {R} -N {R} -f k"),
        ("zip -rP ZipPa55w0rd out.zip dir", f"zip -rP {R} out.zip dir"),
        ("7z a -pSevenPa55w0rd out.7z f", f"7z a -p{R} out.7z f"),
        (
            "docker login -u ci -p Xk29fLq8 reg.io && docker login -p Zq81mLw2 ghcr.io",
            f"docker login -u ci -p {R} reg.io && docker login -p {R} ghcr.io",
        ),
        # The command's own password, not the port or the directory of the command it runs (review45e H3).
        ("sshpass -p Tr0ub4dor3x ssh -p 2222 deploy@host", f"sshpass -p {R} ssh -p 2222 deploy@host"),
        (
            "sshpass -p Tr0ub4dor3x ssh deploy@host mkdir -p /srv/app",
            f"sshpass -p {R} ssh deploy@host mkdir -p /srv/app",
        ),
        # A tool's own first -p given digits is its password, not a port (review45f H1).
        ("mysql -uroot -p12345 app", f"mysql -uroot -p{R} app"),
        ("zip -P 1234 out.zip notes.txt", f"zip -P {R} out.zip notes.txt"),
        ("sshpass -p 1234 ssh deploy@host", f"sshpass -p {R} ssh deploy@host"),
        ("ssh-keygen -p -P 1234 -N 5678 -f k", f"ssh-keygen -p -P {R} -N {R} -f k"),
        # A wrapper's long flag that takes no value is followed by a command (review45f H2).
        ("sudo --preserve-env mysql -uroot -pS3cretPw9", f"sudo --preserve-env mysql -uroot -p{R}"),
        ("xargs --no-run-if-empty mysql -uroot -pS3cretPw9", f"xargs --no-run-if-empty mysql -uroot -p{R}"),
        # A name inside another word first on the line (review45e M5).
        (
            "I installed pymysql and ran mysql -u root -pS3cretPw1 mydb",
            f"I installed pymysql and ran mysql -u root -p{R} mydb",
        ),
        ("gzip and zip: zip -P S3cretPw1 x.zip f", f"gzip and zip: zip -P {R} x.zip f"),
        ("/usr/bin/zip -P S3cretPw1 x.zip f", f"/usr/bin/zip -P {R} x.zip f"),
        # A value in a command, beside the prose words an option is written with (overred46).
        ("docker login -p hunter2 registry", f"docker login -p {R} registry"),
        ("ldapsearch -x -w S3cret -b dc=x", f"ldapsearch -x -w {R} -b dc=x"),
        ("docker login -p dragon is failing", f"docker login -p {R} is failing"),
        ("docker login -u ci -p 'flag' reg.io", f"docker login -u ci -p '{R}' reg.io"),
        ("ldapsearch -x -D cn=admin -wtakes -b dc=x", f"ldapsearch -x -D cn=admin -w{R} -b dc=x"),
        ("requirepass foobared", f"requirepass {R}"),
        ('requirepass "is not set"', f'requirepass "{R}"'),
        # sshpass's own options before its -p, and the command it runs after (overred46).
        ("sshpass -v -p S3cretPw1 ssh -p 2222 deploy@host", f"sshpass -v -p {R} ssh -p 2222 deploy@host"),
        ("sshpass -P assword: -p S3cretPw1 ssh deploy@host", f"sshpass -P assword: -p {R} ssh deploy@host"),
        ("sudo sshpass -p S3cretPw1 rsync -a d deploy@host:/srv", f"sudo sshpass -p {R} rsync -a d deploy@host:/srv"),
        (f"sshpass -f {_LONG_PATH} -p S3cretPw1 ssh deploy@host", f"sshpass -f {_LONG_PATH} -p {R} ssh deploy@host"),
        # A command continued with ``\\`` on the next lines, as agents write long ones (secrets46).
        ("mysql -h db -u root \\\n  -pS3cretPw9 mydb", f"mysql -h db -u root \\\n  -p{R} mydb"),
        ("mysql -u root \\\n-pS3cretPw9 mydb", f"mysql -u root \\\n-p{R} mydb"),
        (
            "docker login \\\n  -u ci \\\n  -p Xk29fLq8Zz \\\n  registry.example.com",
            f"docker login \\\n  -u ci \\\n  -p {R} \\\n  registry.example.com",
        ),
        # keytool's passwords after a long ``-dname`` (more than 200 characters from its name).
        (
            'keytool -genkeypair -alias app -keyalg RSA -keysize 2048 -validity 3650 -dname "CN=Payments Gateway, '
            'OU=Platform Engineering, O=Example Corporation Limited, L=San Francisco, ST=California, C=US" '
            "-keystore ks.jks -storepass St0rePa55wd -keypass K3yPa55wd",
            'keytool -genkeypair -alias app -keyalg RSA -keysize 2048 -validity 3650 -dname "CN=Payments Gateway, '
            'OU=Platform Engineering, O=Example Corporation Limited, L=San Francisco, ST=California, C=US" '
            f"-keystore ks.jks -storepass {R} -keypass {R}",
        ),
        # RAR's, lftp's, Mosquitto's and Samba's net/rpcclient's.
        ("unrar x -pS3cretPw9 archive.rar", f"unrar x -p{R} archive.rar"),
        ("unrar e -o+ -pS3cretPw9 archive.rar out/", f"unrar e -o+ -p{R} archive.rar out/"),
        ("rar a -pS3cretPw9 out.rar dir", f"rar a -p{R} out.rar dir"),
        ("rar a -hpS3cretPw9 out.rar dir", f"rar a -hp{R} out.rar dir"),
        # Vault's older token given to ``vault login`` (``hvs.…`` is a token rule's).
        ("vault login s.Xk9mPq2Lw7Rt5Yb3Nc8Vd1Za", f"vault login {R}"),
        ("vault login -method=token s.Xk9mPq2Lw7Rt5Yb3Nc8Vd1Za", f"vault login -method=token {R}"),
        ("vault login -no-print s.Xk9mPq2Lw7Rt5Yb3Nc8Vd1Za", f"vault login -no-print {R}"),  # (review46e M2)
        # A value in quotes a JSON string escapes: a command in tasks.json or a tool call's arguments (review46c P1).
        (
            '{"command": "docker login -u ci -p \\"Xy7kq9Lm2\\" reg.io"}',
            f'{{"command": "docker login -u ci -p \\"{R}\\" reg.io"}}',
        ),
        ('{"command": "mysql -u root -p\\"Xy7kq9Lm2\\" db"}', f'{{"command": "mysql -u root -p\\"{R}\\" db"}}'),
        ('{"command": "sshpass -p \\"Xy7kq9Lm2\\" ssh h"}', f'{{"command": "sshpass -p \\"{R}\\" ssh h"}}'),
        # Each of a command's passwords in such quotes, not its last alone (review46f H1).
        (
            '{"c": "keytool -list -storepass \\"Xy7kq9Lm2\\" -keypass \\"Ab3kq9Lm7\\""}',
            f'{{"c": "keytool -list -storepass \\"{R}\\" -keypass \\"{R}\\""}}',
        ),
        (
            '{"c": "ssh-keygen -P \\"Xy7kq9Lm2\\" -N \\"Ab3kq9Lm7\\" -f k"}',
            f'{{"c": "ssh-keygen -P \\"{R}\\" -N \\"{R}\\" -f k"}}',
        ),
        ("vault login -method=token token=s.Xk9mPq2Lw7Rt5Yb3Nc8Vd1Za", f"vault login -method=token token={R}"),
        ("lftp -u deploy,S3cretPw9 ftp.example.com", f"lftp -u deploy,{R} ftp.example.com"),
        (
            'lftp -e "open -u deploy,S3cretPw9 ftp.example.com; mirror -R dist"',
            f'lftp -e "open -u deploy,{R} ftp.example.com; mirror -R dist"',
        ),
        ("mosquitto_pub -h broker -u iot -P S3cretPw9 -t t -m hi", f"mosquitto_pub -h broker -u iot -P {R} -t t -m hi"),
        ("mosquitto_sub -h broker --pw S3cretPw9 -t t", f"mosquitto_sub -h broker --pw {R} -t t"),
        ("net rpc user -U admin%S3cretPw9 -S srv", f"net rpc user -U admin%{R} -S srv"),
        ("net ads join -U 'Administrator%S3cretPw9'", f"net ads join -U 'Administrator%{R}'"),
        ("rpcclient -U admin%S3cretPw9 srv -c enumdomusers", f"rpcclient -U admin%{R} srv -c enumdomusers"),
        # The tool by its path: a program's folder, or a path that starts a command (review46d M1).
        ("/usr/bin/mysql -u root \\\n  -pS3cretPw9 mydb", f"/usr/bin/mysql -u root \\\n  -p{R} mydb"),
        ("docker exec -it db /usr/bin/mysql -uroot -pS3cretPw9", f"docker exec -it db /usr/bin/mysql -uroot -p{R}"),
        ("sudo /usr/local/mysql/bin/mysql -pS3cretPw9", f"sudo /usr/local/mysql/bin/mysql -p{R}"),
        ("cd /srv && ./mysql -pS3cretPw9 mydb", f"cd /srv && ./mysql -p{R} mydb"),
        ("/opt/unrar/unrar x -pS3cretPw9 a.rar", f"/opt/unrar/unrar x -p{R} a.rar"),
        ("sudo -u backup /opt/unrar/unrar x -pS3cretPw9 a.rar", f"sudo -u backup /opt/unrar/unrar x -p{R} a.rar"),
        ('bash -c "/opt/mysql/mysql -pS3cretPw9"', f'bash -c "/opt/mysql/mysql -p{R}"'),
        ("for h in a b; do /opt/mysql/mysql -pS3cretPw9; done", f"for h in a b; do /opt/mysql/mysql -p{R}; done"),
        # sshpass's -p on a line a ``\\`` continues, as the other tools' (review46c H1).
        ("sshpass \\\n  -p Xy7kq9Lm2 ssh deploy@host", f"sshpass \\\n  -p {R} ssh deploy@host"),
        ("sshpass -v \\\n-p Xy7kq9Lm2 ssh deploy@host", f"sshpass -v \\\n-p {R} ssh deploy@host"),
        (
            'sshpass -P "Password:" \\\n  -d 3 \\\n  -p Xy7kq9Lm2 \\\n  ssh deploy@host',
            f'sshpass -P "Password:" \\\n  -d 3 \\\n  -p {R} \\\n  ssh deploy@host',
        ),
        # A word of the closed list of prose words given to a command, whose next words are no prose (review46c M1).
        ("sshpass -p will ssh root@10.0.0.5", f"sshpass -p {R} ssh root@10.0.0.5"),
        ("sshpass -p switch ssh admin@10.0.0.2", f"sshpass -p {R} ssh admin@10.0.0.2"),
        ("redis-cli -a may ping", f"redis-cli -a {R} ping"),
        ("redis-cli -h h -a this ping", f"redis-cli -h h -a {R} ping"),
        ("docker login -u ci -p and registry.gitlab.com", f"docker login -u ci -p {R} registry.gitlab.com"),
        ("zip -P the out.zip secret.txt", f"zip -P {R} out.zip secret.txt"),
        ("mongosh -u admin -p will admin", f"mongosh -u admin -p {R} admin"),
        ("docker login -u ci -p flag! reg.io", f"docker login -u ci -p {R} reg.io"),
        ("sshpass -p this! ssh host", f"sshpass -p {R} ssh host"),
        # sshpass's own options in the shapes getopt reads them (review46c M2).
        (
            '{"command": "sshpass -P \\"Enter password\\" -p Xy7kq9Lm2 ssh host"}',
            f'{{"command": "sshpass -P \\"Enter password\\" -p {R} ssh host"}}',
        ),
        (
            '{"command": "sshpass -f \\"/tmp/my pw\\" -p Xy7kq9Lm2 ssh host"}',
            f'{{"command": "sshpass -f \\"/tmp/my pw\\" -p {R} ssh host"}}',
        ),
        ("sshpass -P Enter\\ password: -p Xy7kq9Lm2 ssh host", f"sshpass -P Enter\\ password: -p {R} ssh host"),
        ("sshpass -vP assword: -p Xy7kq9Lm2 ssh host", f"sshpass -vP assword: -p {R} ssh host"),
        ("sshpass -p  Xy7kq9Lm2 ssh host", f"sshpass -p  {R} ssh host"),  # (two blanks: review46c P3)
        ("sshpass" + " -v" * 9 + " -p S3cretPw ssh host", "sshpass" + " -v" * 9 + f" -p {R} ssh host"),
        (
            "sshpass -f /a -f /b -d 3 -P pass -v -v -e -v -v -p S3cretPw ssh host",
            f"sshpass -f /a -f /b -d 3 -P pass -v -v -e -v -v -p {R} ssh host",
        ),
        ("sshpass" + " -v" * 16 + " -p S3cretPw ssh host", "sshpass" + " -v" * 16 + f" -p {R} ssh host"),
        # sshpass's password from the environment, as its manual has it (review46c P2).
        ("SSHPASS=Xy7kq9Lm2 sshpass -e ssh deploy@host", f"SSHPASS={R} sshpass -e ssh deploy@host"),
        ("export SSHPASS='Xy7#kq9!Lm'", f"export SSHPASS='{R}'"),
        ("docker login -p The1Pass reg.io", f"docker login -p {R} reg.io"),
        ("docker login -p THE password is", f"docker login -p {R} password is"),
        ("docker login -p The reg.io", f"docker login -p {R} reg.io"),
        (
            "find . -name '*.sql' -exec mysql -pS3cret db -e 'source {}' \\;",
            f"find . -name '*.sql' -exec mysql -p{R} db -e 'source {{}}' \\;",
        ),
        ("  env:\n    SSHPASS: Xy7kq9Lm2", f"  env:\n    SSHPASS: {R}"),
    ],
)
def test_a_password_given_to_a_tool_is_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written) == shown


#: A password curl, HTTPie or the Azure CLI is given with its user on the command line, in the forms their manuals
#: give and people write (review52e's rule gaps, stop 52: each was indexed as written).
P = "Xk9mPq2Lw7Zq"


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # curl's -u glued to its value, its proxy's -U and --proxy-user, and -u/--user quoted or after a `=`.
        (f"curl -udeploy:{P} https://api.example.com", f"curl -udeploy:{R} https://api.example.com"),
        (f"curl -U deploy:{P} https://api.example.com", f"curl -U deploy:{R} https://api.example.com"),
        (f"curl --proxy-user deploy:{P} https://x", f"curl --proxy-user deploy:{R} https://x"),
        (f"curl --proxy-user=deploy:{P} https://x", f"curl --proxy-user=deploy:{R} https://x"),
        (f"curl -u 'deploy:{P}' https://x", f"curl -u 'deploy:{R}' https://x"),
        (f'curl -u "deploy:{P}" https://x', f'curl -u "deploy:{R}" https://x'),
        (f"curl -u'deploy:{P}' https://x", f"curl -u'deploy:{R}' https://x"),
        (f"curl -Udeploy:{P} https://x", f"curl -Udeploy:{R} https://x"),
        (f"curl --user=deploy:{P} https://x", f"curl --user=deploy:{R} https://x"),
        # A quoted password with a blank in it goes whole; `@`, `%`, `!` are a password's characters.
        (f"curl -u 'deploy:two {P}' https://x", f"curl -u 'deploy:{R}' https://x"),
        (f"curl -u deploy@corp.example:p@s%{P}! https://x", f"curl -u deploy@corp.example:{R} https://x"),
        (f"curl -u :{P} https://x", f"curl -u :{R} https://x"),  # (a token as the password, no user)
        # Last in a cluster of curl's options, after a proxy, in a longer line, on a continued one, curl.exe.
        (f"curl -sSfu deploy:{P} https://x", f"curl -sSfu deploy:{R} https://x"),
        (
            f"curl -x proxy:3128 --proxy-user 'ops:{P}' https://x",
            f"curl -x proxy:3128 --proxy-user 'ops:{R}' https://x",
        ),
        (f"cd /srv && curl -s -udeploy:{P} https://x | jq .", f"cd /srv && curl -s -udeploy:{R} https://x | jq ."),
        (f"curl -sS \\\n  -U deploy:{P} \\\n  https://x", f"curl -sS \\\n  -U deploy:{R} \\\n  https://x"),
        (f"C:\\tools\\curl.exe -U deploy:{P} https://x", f"C:\\tools\\curl.exe -U deploy:{R} https://x"),
        # Every one the command gives.
        (
            f"curl -u deploy:{P} --proxy-user ops:Zq81mLw2Tx https://x",
            f"curl -u deploy:{R} --proxy-user ops:{R} https://x",
        ),
        # In a traceback, a JSON string, a list of strings.
        (
            f"subprocess.CalledProcessError: Command 'curl -udeploy:{P} https://x' returned non-zero exit status 6.",
            f"subprocess.CalledProcessError: Command 'curl -udeploy:{R} https://x' returned non-zero exit status 6.",
        ),
        (
            f'{{"command": "curl -u \\"deploy:{P}\\" https://x"}}',
            f'{{"command": "curl -u \\"deploy:{R}\\" https://x"}}',
        ),
        (f'["curl", "-sSfu", "deploy:{P}", "https://x"]', f'["curl", "-sSfu", "deploy:{R}", "https://x"]'),
        (f'run(["curl", "-U", "deploy:{P}"])', f'run(["curl", "-U", "deploy:{R}"])'),
        # HTTPie's -a and --auth (`=` too, glued as argparse reads it), its `https` command.
        (f"http -a deploy:{P} https://api.example.com", f"http -a deploy:{R} https://api.example.com"),
        (f"http --auth deploy:{P} example.org", f"http --auth deploy:{R} example.org"),
        (f"http --auth=deploy:{P} example.org", f"http --auth=deploy:{R} example.org"),
        (f"http -adeploy:{P} example.org", f"http -adeploy:{R} example.org"),
        (f"https -a 'deploy:p@ss%{P}!' example.org", f"https -a 'deploy:{R}' example.org"),
        (f"http -v -a deploy:{P} POST example.org x=1", f"http -v -a deploy:{R} POST example.org x=1"),
        # The Azure CLI's -p glued to its value, or after a `=` (argparse reads both as `-p VALUE`).
        (f"az login -u deploy@example.com -p{P}", f"az login -u deploy@example.com -p{R}"),
        (f"az login -u deploy@example.com -p={P}", f"az login -u deploy@example.com -p={R}"),
        (f'["az", "login", "-u", "x", "-p{P}"]', f'["az", "login", "-u", "x", "-p{R}"]'),
        (f"az login -u deploy@example.com -p=={P}", f"az login -u deploy@example.com -p={R}"),
        # NTLM's DOMAIN\user quoted, as Windows' shells and curl's manual write it (review53a L1).
        (
            f'curl --ntlm -u "CORP\\deploy:{P}" https://intranet.example.com',
            f'curl --ntlm -u "CORP\\deploy:{R}" https://intranet.example.com',
        ),
        (f"curl --ntlm -u 'CORP\\\\deploy:{P}' https://x", f"curl --ntlm -u 'CORP\\\\deploy:{R}' https://x"),
        (
            f'{{"command": "curl.exe --ntlm -u \\"CORP\\\\deploy:{P}\\" https://intranet"}}',
            f'{{"command": "curl.exe --ntlm -u \\"CORP\\\\deploy:{R}\\" https://intranet"}}',
        ),
        # The password quoted alone (a `!` or `$` in it), the user bare or quoted on its own (review53a L2).
        (f"curl -u deploy:'{P}' https://x", f"curl -u deploy:'{R}' https://x"),
        (f'curl -u deploy:"{P}" https://x', f'curl -u deploy:"{R}" https://x'),
        (f'curl -u "deploy":"{P}" https://x', f'curl -u "deploy":"{R}" https://x'),
        (f"curl -u 'deploy':{P} https://x", f"curl -u 'deploy':{R} https://x"),
        (f'{{"command": "curl -u deploy:\\"{P}\\" x"}}', f'{{"command": "curl -u deploy:\\"{R}\\" x"}}'),
        (f"curl -u deploy:{P} -U ops:'{P}' https://x", f"curl -u deploy:{R} -U ops:'{R}' https://x"),
        (f"http -a deploy:'{P}' api.example.com", f"http -a deploy:'{R}' api.example.com"),
        (f"python -m httpie -a deploy:{P} api.example.com", f"python -m httpie -a deploy:{R} api.example.com"),
        # PowerShell's variable as the user, the password a literal.
        (f"curl.exe -u $env:JIRA_USER:{P} https://x", f"curl.exe -u $env:JIRA_USER:{R} https://x"),
        (f'curl.exe -u "$env:JIRA_USER:{P}" https://x', f'curl.exe -u "$env:JIRA_USER:{R}" https://x'),
    ],
)
def test_a_password_given_with_its_user_to_curl_httpie_or_az_is_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written) == shown


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (f"docker exec app wget -u deploy:{P} http://x", f"docker exec app wget -u deploy:{R} http://x"),
        (f"podman exec app lftp -u admin:{P} ftp.example.com", f"podman exec app lftp -u admin:{R} ftp.example.com"),
        (
            f"docker compose exec web ncftpput -u admin:{P} host /x f",
            f"docker compose exec web ncftpput -u admin:{R} host /x f",
        ),
        (
            f"docker run -e X=1 alpine sh -c 'ftp -u deploy:{P}'",
            f"docker run -e X=1 alpine sh -c 'ftp -u deploy:{R}'",
        ),
        (f"docker exec -it db wget -u deploy:{P} x", f"docker exec -it db wget -u deploy:{R} x"),
    ],
)
def test_a_password_given_with_u_to_a_tool_a_container_runs_is_redacted(written: str, shown: str) -> None:
    """A container tool's own ``-u`` is its user and group (kept, in ``KEPT``); another tool's on its line is not
    (review55e F0: red55 kept every ``-u`` pair on a docker line)."""
    assert redact(written) == shown
    assert as_indexed(written) == shown


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # review53a L3 (strict xfails until stop 54): bash's $'…', an escaped quote inside a double-quoted password,
        # an argparse cluster ending in HTTPie's -a.
        (f"curl -u $'deploy:{P}' https://x", f"curl -u $'deploy:{R}' https://x"),
        (f'curl -u "deploy:a\\"{P}" https://x', f'curl -u "deploy:{R}" https://x'),
        (f"http -va deploy:{P} api.example.com", f"http -va deploy:{R} api.example.com"),
        (f"https -bqadeploy:{P} api.example.com", f"https -bqadeploy:{R} api.example.com"),
        # review53g and stop 53's leftovers: a user holding `[` or `<` (not before its `:`, as help text's
        # USER[:PASS]), az's `-p =…`, the names in capitals, xh (HTTPie's twin), HTTPie's bearer token, a curl config
        # file's user line (`curl -K`), a password in single quotes of its own that starts with `$`.
        (f"curl -u deploy[1]:{P} https://x", f"curl -u deploy[1]:{R} https://x"),
        (f"curl -u dep<loy:{P} https://x", f"curl -u dep<loy:{R} https://x"),
        (f"az login -u ci@example.com -p ={P}", f"az login -u ci@example.com -p ={R}"),
        (f"CURL -sSfu deploy:{P} https://x", f"CURL -sSfu deploy:{R} https://x"),
        (f"Curl.exe --proxy-user deploy:{P} https://x", f"Curl.exe --proxy-user deploy:{R} https://x"),
        (f"HTTP -a deploy:{P} api.example.com", f"HTTP -a deploy:{R} api.example.com"),
        (f"xh -a deploy:{P} api.example.com", f"xh -a deploy:{R} api.example.com"),
        (f"xhs --auth=deploy:{P} api.example.com", f"xhs --auth=deploy:{R} api.example.com"),
        (f"http -A bearer -a {P} api.example.com", f"http -A bearer -a {R} api.example.com"),
        (f"xh --auth-type=bearer --auth {P} x", f"xh --auth-type=bearer --auth {R} x"),
        (f"http -a {P} -A bearer api.example.com", f"http -a {R} -A bearer api.example.com"),
        (f'url = "https://x"\nuser = "deploy:{P}"\n', f'url = "https://x"\nuser = "deploy:{R}"\n'),
        (f"  --proxy-user ops:{P}\n", f"  --proxy-user ops:{R}\n"),
        (f"user deploy:{P}", f"user deploy:{R}"),
        (f"curl -u deploy:'${P}' https://x", f"curl -u deploy:'{R}' https://x"),
        # HTTPie's header with a blank after its `:` is quoted: no sentence's colon (review53a D3's rule).
        (
            f"http api.example.com 'Accept: text/html' -a deploy:{P}",
            f"http api.example.com 'Accept: text/html' -a deploy:{R}",
        ),
        # red54's and review54d's strict xfails (stop 55): an escaped quote inside a password in a JSON string's
        # escaped quotes and in bash's $'…', a made password in brackets (help text's `<user:password>` stays), a
        # curl config's `user: …`, and its user line after an escaped line end.
        (
            f'{{"command": "curl -u \\"deploy:a\\\\\\"{P}\\" x"}}',
            f'{{"command": "curl -u \\"deploy:{R}\\" x"}}',
        ),
        (f"curl -u $'deploy:Xk9m\\'{P}' https://x", f"curl -u $'deploy:{R}' https://x"),
        (f"curl -u [deploy:{P}] x", f"curl -u [deploy:{R}] x"),
        (f"curl -u <deploy:{P}> x", f"curl -u <deploy:{R}> x"),
        (f'url: "https://x"\nuser: "deploy:{P}"\n', f'url: "https://x"\nuser: "deploy:{R}"\n'),
        (f"printf 'url = x\\nuser = \"deploy:{P}\"' > .curlrc", f"printf 'url = x\\nuser = \"deploy:{R}\"' > .curlrc"),
        # HTTPie's bearer token on a line a `\` or a backtick continues, after `-A=bearer`, xh's `--bearer`, a
        # Makefile's silenced command, HTTPie's password after a header it removes (`Accept:`).
        (f"http -A bearer \\\n  -a {P} example.org", f"http -A bearer \\\n  -a {R} example.org"),
        (f"http --auth-type=bearer \\\n  --auth {P} x", f"http --auth-type=bearer \\\n  --auth {R} x"),
        (f"http -a {P} \\\n  -A bearer example.org", f"http -a {R} \\\n  -A bearer example.org"),
        (f"http -A bearer `\n  -a {P} example.org", f"http -A bearer `\n  -a {R} example.org"),
        (f"http -A=bearer -a {P} example.org", f"http -A=bearer -a {R} example.org"),
        (f"xh --bearer {P} api.example.org", f"xh --bearer {R} api.example.org"),
        (f"xh --bearer={P} api.example.org", f"xh --bearer={R} api.example.org"),
        (f"deploy:\n\t@http -a deploy:{P} x\n", f"deploy:\n\t@http -a deploy:{R} x\n"),
        (f"deploy:\n\t@xh -a deploy:{P} x\n", f"deploy:\n\t@xh -a deploy:{R} x\n"),
        (f"http POST example.org Accept: -a deploy:{P}", f"http POST example.org Accept: -a deploy:{R}"),
        # curl's own bearer option, a token shorter than the `Bearer …` rule's 16 characters.
        (f"curl --oauth2-bearer {P} https://x", f"curl --oauth2-bearer {R} https://x"),
    ],
)
def test_rarer_spellings_of_a_curl_httpie_or_az_password_are_redacted(written: str, shown: str) -> None:
    assert redact(written) == shown
    assert as_indexed(written) == shown


KEPT = [
    "docker run -p 8080:80 nginx",
    "ssh -p 22 deploy@build-01",
    "kubectl port-forward svc/api 8080:80",
    "mkdir -p build/out",
    "cp -p a.txt b.txt",
    'git commit -m "fix login"',
    "grep -w word notes.txt",
    "sort -k2 names.txt",
    "tar -k -xf backup.tar",
    "ls -P",
    'sqlcmd -S db -U sa -Q "select 1"',
    "smbclient //srv/share -U user",
    "keytool -list -keystore x.jks",
    "keytool -list -keystore x.jks -storepass:env STOREPASS",
    "ldapsearch -x -LLL -s sub -b dc=example,dc=org",
    "ldapsearch -x -W -D cn=admin",
    "htpasswd -c .htpasswd admin",
    "htpasswd -B .htpasswd admin",
    "rabbitmqctl list_users",
    "zip -r out.zip dir",
    "7z a -p out.7z f",
    "openssl req -new -key k.pem -out c.csr",
    'ssh-keygen -t ed25519 -N "" -f k',
    "mongosh --port 27017",
    "az login --use-device-code",
    "I set requirepass in redis.conf and restarted",
    "the requirepass directive is commented out",
    "gzip -P Xk9mPq2Lw7 notes.txt",  # (zip's name inside another word)
    "pigz -p 4 backup.tar",
    # A tool's name as a container's, an image's or a file's, and the ports of other commands (review45e H1-H3).
    "docker run --name mongo -p 27017:27017 mongo",
    "podman run -d --name mongo -p 127.0.0.1:27017:27017/tcp mongo:7",
    "docker run --name mongo -p 127.0.0.1::27017 mongo",
    "docker run --name=mongo -p 127.0.0.1::27017 mongo",
    "wget https://services.gradle.org/distributions/gradle-8.7-bin.zip -P /tmp",
    "cp backup.7z /mnt -pv",
    'sshpass -p "$SSHPASS" ssh -p 2222 deploy@build-01',
    "docker run -d --name mongo -p 27017 mongo",
    "docker run --name mysql -p 3306 mysql",
    "find . -name mysql -print",  # (find's file name: red47a)
    "find / -type d -iname mysql -prune -o -print",
    # A sentence about an option: the word after it is prose, no password (overred46).
    "the docker login -p flag is deprecated",
    "ldapsearch -w takes the bind password",
    "ldapsearch's -w option is deprecated in favour of -y",
    "use keytool -storepass to give it and -keypass for the key",
    "              then the keytool command attempts to use -srcstorepass to recover the entry.  If -srcstorepass is"
    " not provided or is incorrect, then the user is prompted for a password.",  # (keytool's man page)
    "requirepass is not set",
    "requirepass is not set, so anyone can connect",
    # The command sshpass runs has options of its own; sshpass's -p comes before it (overred46).
    'sshpass -p "$S" ssh deploy@host mkdir -p /srv',
    "sshpass -e ssh -p 2222 deploy@host",
    "sshpass -f ~/.sshpass ssh -p 2222 deploy@host",
    'zip -P "$P" out.zip f, then scp -P 2222 out.zip host:',  # (another command's -P after the tool's own)
    # Lines continued with ``\\``, and the new tools' other options (secrets46).
    "docker run \\\n  -p 8080:80 \\\n  nginx",
    "mysql -u root \\\n  -p mydb",
    "mysql -u root -p \\\n  mydb",
    'keytool -genkeypair -dname "CN=x" -keystore ks.jks -storepass "$STOREPASS"',
    "rar a -m5 -r backup.rar src/",
    "unrar x -p- archive.rar",
    "rar a -p secure.rar notes.txt",
    "pip install rarfile && unrar l x.rar",
    "lftp -u deploy ftp.example.com",
    'lftp -e "set ssl:verify-certificate no; mirror -R dist /www" ftp.example.com',
    "mosquitto_sub -h broker -p 1883 -t 'sensors/#' -v",
    'mosquitto_pub -h broker -P "$MQTT_PASSWORD" -t t -m hi',
    "net rpc user -U admin -S server",
    "net ads join -U Administrator",
    "dotnet ads -U admin%prod",
    "curl -k https://localhost:8443/health",
    "vault login -method=userpass username=admin",
    "run vault login to authenticate, then vault kv get secret/app",
    "vault login -method=oidc role=dev",
    "vault login -no-print -method=oidc role=dev",
    '{"command": "docker run -p \\"8080:80\\" nginx"}',
    '{"command": "mysql -u root -p\\"$DB_PASSWORD\\" db"}',
    "vault read -field=value s.aaaaaaaaaaaaaaaaaaaaaaaa",
    # sshpass's options on continued lines, its environment's variable named, and more prose (fix46b).
    "sshpass -e \\\n  ssh -p 2222 deploy@host",
    "sshpass -f ~/.pw \\\n  ssh deploy@host \\\n  mkdir -p /srv",
    'export SSHPASS="$DEPLOY_PW"',
    "SSHPASS=$(cat ~/.pw) sshpass -e ssh deploy@host",
    "the SSHPASS variable holds it; sshpass -e reads it",
    "requirepass is not set.",
    "use the -p flag: it is deprecated",
    # A sentence's first word after the option, a capital first (red47a).
    "ldapsearch -w The bind password is asked for",
    "docker login -p The password is read from stdin",
    "ldapsearch -x -w This option takes the password",
    # curl's -u without a password (curl asks for it), a variable's, other commands' -U and -a, HTTPie's -a without
    # one, a URL's `http:` (review52e's rules).
    "curl -u deploy https://api.example.com",
    "curl -U proxyuser -x proxy:3128 https://x",
    'curl -u "deploy:$DEPLOY_PW" https://x',
    "curl -u deploy: https://x",
    "curl -XPUT https://h:9200/x",
    "curl -F upload=@notes.txt:text/plain https://x",
    "the curl -U flag: it sets the proxy's user",
    "pip install -U requests",
    "pip install -U pkg --user",
    "grep -a pattern: file",
    "http -a deploy example.org",
    "http -a deploy: example.org",
    "http -a $AUTH example.org",
    "see http://example.org -a x:y",
    "HTTP/1.1 401 Unauthorized: http -a needed",
    # A variable's value after az's `=` (review53a D1), PowerShell's variables given to curl (D2), help text's
    # placeholders (D4), the password quoted alone from a variable.
    "az login -u ci@example.com --password=$AZ_PASSWORD",
    "az login --service-principal -u $APP_ID -p=$AZ_SECRET --tenant $TENANT",
    'curl.exe -u "$env:JIRA_USER:$env:JIRA_TOKEN" https://jira.example.com',
    "curl.exe -u $env:JIRA_USER:$env:JIRA_TOKEN https://jira.example.com",
    "curl -U, --proxy-user <user:password>  Proxy user and password",
    "http  -a, --auth USER[:PASS]  credentials",
    'curl -u deploy:"$DEPLOY_PW" https://x',
    'curl -u "deploy":"$DEPLOY_PW" https://x',
    # Stop 54's forms' neighbours: help text in brackets, a variable in single quotes' braces, HTTPie's -a with a
    # user alone, another auth type, a compose file's `user: "1000:1000"`, php-fpm's `user = www-data`, a user
    # named in a sentence, az's `= $VAR`.
    "curl -u [user:password] https://x",
    "curl -u USER[:PASSWORD] https://x",
    "curl -u deploy:'${DEPLOY_PW}' https://x",
    "xh -a deploy example.org",
    "http -A digest -a deploy example.org",
    "http -A bearer example.org",
    'user: "1000:1000"',
    "user = www-data",
    "Defaulting to user installation because normal site-packages is not writeable",
    "the user deploy:staging can read it",
    "az login -u ci@example.com -p =$AZ_PASSWORD",
    # Another tool's -a after a sentence's colon that follows the word http (review53a D3), -va too.
    "copy the http conf: docker cp -a web:/etc/nginx ./nginx",
    "For the http root: rsync -a web1:/srv/www/ ./backup/",
    "For the http root: rsync -va web1:/srv/www/ ./backup/",
    # red54's and review54d's strict xfails (stop 55): the word http as sudo's user or in a sentence before
    # another tool's -a host:path, docker's user and group; their neighbours: help text's words in brackets, a
    # compose file's user and group, HTTPie's -a with a variable after a header removed.
    "sudo -u http rsync -a web1:/srv/http ./",
    "The http server failed, so I ran rsync -va web1:/srv/www ./backup",
    "docker run -u 1000:1000 alpine id",
    "docker exec -u root:root web sh",
    "docker run --user 1000:1000 img",
    "podman run --user app:app img",
    "docker exec -u root:root web id",
    "docker run --name db -e X=1 -u 1000:1000 alpine id",
    "docker compose exec -u app:app web id",
    "docker container run --rm --user app:app img",
    "curl -u <username:token> https://x",
    "http -a [USER:PASS] example.org",
    'user: "www-data:www-data"',
    "user: node:node",
    "http POST example.org Accept: -a deploy:$PW",
    "xh --bearer $TOKEN api.example.org",
    'curl --oauth2-bearer "$TOKEN" https://x',
]


@pytest.mark.parametrize("line", KEPT)
def test_the_same_options_of_other_commands_stay_as_written(line: str) -> None:
    assert redact(line) == line
    assert redact("\n".join(KEPT)) == "\n".join(KEPT)


@pytest.mark.parametrize(
    "written",
    [
        "CFLAGS = -I/usr/include/mysql \\\n\t-pthread -O2",
        "gcc -I/usr/include/mysql \\\n  -pedantic -Wall main.c",
        "find /var/lib/mysql \\\n  -path '*/tmp' -prune -o -print",
        "find /etc/mysql/conf.d \\\n  -type f \\\n  -print0 | xargs -0 ls",
        "cp -r /etc/mysql /backup \\\n  -preserve",
        "ls /opt/unrar \\\n  -prt",
        "find /var/lib/mysql -print",
        "g++ -I/usr/include/mysql -pthread -o app main.cpp",
        "find \\\n  /var/lib/mysql -print",
    ],
)
def test_a_tools_name_as_a_folder_in_a_path_takes_no_later_option_of_another_command(written: str) -> None:
    """``/var/lib/mysql`` is mysql's folder, an argument: ``-print``, ``-pthread`` are find's and gcc's, on the line
    or one a ``\\`` continues (review46d M1)."""
    assert redact(written) == written
    assert as_indexed(written) == written


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # Quoted text naming the tool and its option, then the command: its password goes (review46f M3).
        ('echo "use mysql -p" && mysql -p"Ab9xq2Lm7"', f'echo "use mysql -p" && mysql -p"{R}"'),
        ('echo "use mysql -p" && mysql -u u -p"Ab9xq2Lm7"', f'echo "use mysql -p" && mysql -u u -p"{R}"'),
        ("echo 'use mysql -p' && mysql -p'Ab9xq2Lm7'", f"echo 'use mysql -p' && mysql -p'{R}'"),
        (
            '{"command": "echo \\"use mysql -p\\" && mysql -u u -p\\"Ab9xq2Lm7\\""}',
            f'{{"command": "echo \\"use mysql -p\\" && mysql -u u -p\\"{R}\\""}}',
        ),
        (
            'echo "docker login -p" && docker login -p "Ab9xq2Lm7" reg.io',
            f'echo "docker login -p" && docker login -p "{R}" reg.io',
        ),
        (
            'echo "ldapsearch -w" && ldapsearch -x -w "Ab9xq2Lm7" -b dc=x',
            f'echo "ldapsearch -w" && ldapsearch -x -w "{R}" -b dc=x',
        ),
        (
            '{"command": "echo \\"sshpass -p\\" && sshpass -p \\"Ab9xq2Lm7\\" ssh h"}',
            f'{{"command": "echo \\"sshpass -p\\" && sshpass -p \\"{R}\\" ssh h"}}',
        ),
        # The guards: a quote that opens the value, after another quoted text or an apostrophe, stays one.
        ('mysql -p"S3cret"', f'mysql -p"{R}"'),
        ('{"c": "mysql -p\\"S3cret\\""}', f'{{"c": "mysql -p\\"{R}\\""}}'),
        ("echo \"it's\" && mysql -p'Ab9xq2Lm7'", f"echo \"it's\" && mysql -p'{R}'"),
        ("I can't connect: mysql -u root -p'S3cret'", f"I can't connect: mysql -u root -p'{R}'"),
        ("the users' mysql -p'S3cret'", f"the users' mysql -p'{R}'"),
        ('echo "a b " && mysql -p"S3cret"', f'echo "a b " && mysql -p"{R}"'),
        ("bash -c \"mysql -p'S3cret'\"", f"bash -c \"mysql -p'{R}'\""),
        ('ssh db1 "mysql -u root -p\\"S3cret\\" app"', f'ssh db1 "mysql -u root -p\\"{R}\\" app"'),
    ],
)
def test_a_quote_after_the_option_closes_the_one_the_tools_name_is_in(written: str, shown: str) -> None:
    """A quote right after the option that closes quoted text holding the tool's name gives no value: the next
    quoted text is another word's (``grep -v "test"``) or the next command's password, whichever comes first."""
    assert redact(written) == shown
    assert as_indexed(written) == shown


@pytest.mark.parametrize(
    "written",
    [
        'grep -rn "mysql -p" scripts/ | grep -v "test"',
        '{"command": "grep -rn \\"mysql -p\\" scripts/ | grep -v \\"test\\""}',
        '{"command": "grep -rn \\"docker login -p\\" scripts/", "description": "find the \\"logins\\""}',
        'rg \\"sshpass -p\\" -g \\"*.sh\\"',
        'rg "sshpass -p" -g "*.sh"',
        'grep -rn "ldapsearch -w" . | grep -v "test"',
        "grep -rn 'mysql -p' scripts/ | grep -v 'test'",
    ],
)
def test_quoted_text_naming_a_tool_and_its_option_keeps_the_next_quoted_text(written: str) -> None:
    assert redact(written) == written
    assert as_indexed(written) == written


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ('mysql -p"Ab9xq2Lm7" db', f'mysql -p"{R}" db'),
        ('docker login -p "Ab9xq2Lm7" reg.io', f'docker login -p "{R}" reg.io'),
        (
            'keytool -genkey -storepass "St0rePa55wd" -keypass "K3yPa55wd"',
            f'keytool -genkey -storepass "{R}" -keypass "{R}"',
        ),
        ('echo "use mysql -p" && mysql -u u -p"Ab9xq2Lm7"', f'echo "use mysql -p" && mysql -u u -p"{R}"'),
        ('grep -rn "mysql -p" scripts/ | grep -v "test"', 'grep -rn "mysql -p" scripts/ | grep -v "test"'),
        ('mysql -p"$DB_PASSWORD" db', 'mysql -p"$DB_PASSWORD" db'),
        ('docker run -p "8080:80" nginx', 'docker run -p "8080:80" nginx'),
    ],
)
def test_a_quoted_password_in_json_escaped_twice_is_redacted(command: str, shown: str) -> None:
    """A tool call's arguments are a JSON string held in a JSON string: the password's quotes are ``\\\\\\"``."""
    written = json.dumps({"arguments": json.dumps({"command": command})})
    assert redact(written) == json.dumps({"arguments": json.dumps({"command": shown})})
    assert as_indexed(written) == redact(written)


#: Quotes before the tool that a count of quotes read as one left open (an apostrophe, a cmd.exe path's ``\"``, a
#: ``"`` inside ``'…'``, a line longer than the count's reach): the quote after the option opens the password still.
_ODD_QUOTES_BEFORE = [
    "echo \"it is the '90s\" && mysql -p'&Ab9xq2Lm7'",
    "echo \"rock 'n roll\" && mysql -u root -p'&Ab9xq2Lm7' db",
    'cd "C:\\Users\\me\\" && mysql -p"&Ab9xq2Lm7"',
    'echo \' "\' && mysql -p" Ab9xq2Lm7"',
    'echo \'say "hi\' && mysql -p")Ab9xq2Lm7"',
    "echo \"it's\" && mysql -p';Ab9xq2Lm7'",
    "the users' mysql -p'|Ab9xq2Lm7'",
    "echo '" + "x" * 1200 + "' ; IFS=' ' ; mysql -u root -p'&Xk9vQ2mL7pR' app",
]


@pytest.mark.parametrize("command", _ODD_QUOTES_BEFORE)
@pytest.mark.parametrize("levels", [0, 1, 2])
def test_a_password_starting_with_a_sign_or_a_blank_after_other_quotes_is_redacted(command: str, levels: int) -> None:
    """A password may start with a blank or a sign that ends a word (``&``, ``)``); the quotes before the tool on its
    line say nothing of whether the one after the option opens it (review47d H1), in a JSON string too."""
    written = command
    for _ in range(levels):
        written = json.dumps({"command": written})
    assert "Ab9xq2Lm7" not in redact(written) and "Xk9vQ2mL7pR" not in redact(written)
    assert "[redacted:" in as_indexed(written) and "Ab9xq2Lm7" not in as_indexed(written)


@pytest.mark.parametrize(
    ("written", "password"),
    [
        # A word glued to the quote after the option is its value to the shell (``-pAb9xq2Lm7``).
        ('sh -c "mysql -p"Ab9xq2Lm7 | tee "log"', "Ab9xq2Lm7"),
        # Signs and blanks that are no command's word: a ``|`` or ``&&`` glued to a word, an option's dash inside one.
        ('echo "mysql -p" && mysql -p"&Ab9-xq2Lm7"', "&Ab9-xq2Lm7"),
        ('echo "mysql -p" && mysql -p" -Ab9xq2Lm7!"', " -Ab9xq2Lm7!"),
        ('echo "mysql -p" && mysql -p"&&Ab9xq2Lm7"', "&&Ab9xq2Lm7"),
        ('echo "mysql -p" && mysql -p" |Ab9xq2Lm7"', " |Ab9xq2Lm7"),
        # A ``"`` inside a password quoted with ``'`` (or an escaped ``'``) ends no JSON string.
        ("echo 'mysql -p' && mysql -p'&\"Ab9xq2Lm7'", '&"Ab9xq2Lm7'),
        ("cmd = 'mysql -p\\'&\"Ab9xq2Lm7\\' db'", '&"Ab9xq2Lm7'),
        # Words of a sentence only when each is in small letters, the first a function word.
        ('echo "mysql -p" && mysql -p" is Ab9xq2Lm7"', " is Ab9xq2Lm7"),
        ('echo "mysql -p" && mysql -p" is ab9xq2"', " is ab9xq2"),
        ('echo "mysql -p" && mysql -p" hunter two"', " hunter two"),
    ],
)
def test_a_password_that_a_closing_quote_could_be_read_before_is_redacted(written: str, password: str) -> None:
    """The closing reading needs what the quotes would hold to be no password's: each of its conditions pinned by a
    password that only it keeps redacted (review47d M2)."""
    assert password not in redact(written)
    assert password not in as_indexed(written)


@pytest.mark.parametrize(
    "written",
    [
        'Run "mysql -p" and type "yes" when asked',
        '{"c": "grep \\"mysql -p\\"", "d": "the \\"x\\""}',
        "grep -rn -e'mysql -p' . | grep -v 'test'",
    ],
)
def test_text_after_quoted_text_naming_a_tool_and_its_option_stays_as_written(written: str) -> None:
    """A sentence's words, the end of a JSON string, or a command's after the quote closing ``"mysql -p"``."""
    assert redact(written) == written
    assert as_indexed(written) == written


@pytest.mark.parametrize(
    "script",
    [
        "set -e\nmysql -u root -pXk9vQ2mL7pR archive",
        "set -e\r\nmysql -u root -pXk9vQ2mL7pR archive",
        "set -e\ndocker login -u ci -p Xk9vQ2mL7pR reg.io",
        "set -e\nsshpass -p Xk9vQ2mL7pR ssh root@h",
        "#!/bin/bash\n# restore the '90s archive\nset -e\nmysql -u root -p'&Xk9vQ2mL7pR' archive",
    ],
)
@pytest.mark.parametrize("levels", [1, 2])
def test_a_tool_starting_a_line_of_a_json_string_is_a_command(script: str, levels: int) -> None:
    """A script in a JSON string (a ``tasks.json``'s ``"command"``, a tool call's arguments) has its lines' ends
    escaped: the tool after a ``\\n`` starts a command (review47d M1)."""
    written = script
    for _ in range(levels):
        written = json.dumps({"command": written})
    assert "Xk9vQ2mL7pR" not in redact(written)
    assert "Xk9vQ2mL7pR" not in as_indexed(written)


@pytest.mark.parametrize(
    "written",
    [
        f'curl.exe --ntlm -u "$env:USERDOMAIN\\$env:USERNAME:{P}" https://intranet',
        f"curl.exe --ntlm -u $env:USERDOMAIN\\$env:USERNAME:{P} https://intranet",
        f'curl.exe -u "$env:USERNAME@corp.example.com:{P}" https://jira',
        f'http -a "$env:USERDOMAIN\\$env:USERNAME:{P}" https://intranet',
        f'"command": "curl.exe --ntlm -u \\"$env:USERDOMAIN\\\\$env:USERNAME:{P}\\" https://intranet"',
    ],
)
def test_a_literal_password_after_a_powershell_user_that_goes_on_is_redacted(written: str) -> None:
    """A user starting with ``$env:NAME`` and going on (NTLM's ``$env:USERDOMAIN\\$env:USERNAME``, an address) was no
    user to the rules, so the literal password after it stayed as written (review53g G1)."""
    assert P not in redact(written)
    assert P not in as_indexed(written, whatever_the_setting=True)


CONFIG_SECRET = "Xk9mPq2Lw7Zq"


@pytest.mark.parametrize(
    "written",
    [
        f"echo 'user = \"deploy:{CONFIG_SECRET}\"' >> ~/.curlrc",
        f'echo "user deploy:{CONFIG_SECRET}" >> ~/.curlrc',
        f'@@ -1 +1,2 @@\n url = "https://api.example.com"\n+user = "deploy:{CONFIG_SECRET}"\n',
        f'~/.curlrc:2:user = "deploy:{CONFIG_SECRET}"',
        f'Add `user = "deploy:{CONFIG_SECRET}"` to your ~/.curlrc.',
        f'- user = "deploy:{CONFIG_SECRET}"',
        # (an empty user and its password after a dashed option, as curl reads ``--user :PW``: review61a F3)
        f"--user :{CONFIG_SECRET}",
        f"  --user :{CONFIG_SECRET} \\",
        f"+  --proxy-user :{CONFIG_SECRET} \\",
        f'echo "--user :{CONFIG_SECRET}" >> ~/.curlrc',
    ],
)
def test_a_curl_config_user_line_not_at_a_line_start_is_redacted(written: str) -> None:
    """Written by a shell command, shown in a diff, a grep hit, a Markdown span or a list (review54d F1)."""
    assert CONFIG_SECRET not in redact(written)


def test_a_printed_curl_config_users_quoted_name_ending_in_a_backslash_loads_the_rules() -> None:
    """The quoted user of a line among escaped ones ends at its ``:`` though a ``\\`` is before it, as the rule reads
    it: the gate read ``\\:`` as one escaped character and said no, so ``as_indexed`` kept the password (flake61)."""
    written = f"printf 'url = x\\nuser = \"deplo\\:{CONFIG_SECRET}\"' > .curlrc"
    assert as_indexed(written) == "printf 'url = x\\nuser = \"deplo\\:[redacted:cli-credentials]\"' > .curlrc"


@pytest.mark.parametrize(
    "written",
    [
        'resource "docker_container" "web" {\n  user = "1000:1000"\n}',
        "user ALL=(ALL:ALL) ALL",
        "user =1000:1000 app",  # (a ``=`` after blanks is the sign's: the uid check is its too, stop 61)
    ],
)
def test_a_user_and_group_setting_outside_a_curl_config_is_kept(written: str) -> None:
    """Terraform's uid and gid, a sudoers line: no password (review54d D1)."""
    assert redact(written) == written


@pytest.mark.parametrize(
    "written",
    [
        "docker run --rm curlimages/curl -u deploy:S3cretPW99 https://x.example.com",  # (after a flag: the image)
        "docker run -d --init curlimages/curl -u deploy:S3cretPW99 https://x.example.com",
        "watch -g mysql -pS3cretPW99 -e 'show processlist'",  # (watch's -g is no user)
        "parallel -u mysql -pS3cretPW99 ::: a b",
    ],
)
def test_a_password_after_a_flag_or_another_tools_u_is_redacted(written: str) -> None:
    """last55: a container tool's flag (``--rm``) was read as taking the image for its value, and ``-u``/``-g`` after
    any tool as naming a user, so these passwords, redacted before stop 55, were kept."""
    assert "S3cretPW99" not in redact(written)


@pytest.mark.parametrize(
    "written", ["docker run --rm -u 1000:1000 alpine id", "sudo -E -u http rsync -a web1:/srv/x ."]
)
def test_a_containers_user_after_a_flag_and_sudos_user_are_kept(written: str) -> None:
    assert redact(written) == written
