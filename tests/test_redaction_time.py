"""Redaction's time grows with a text's size, not its square: the indexer redacts a tool's whole output (a minified
JSON answer is one line) before it caps it, so a rule that reads back over a line for each key in it would stall a
build. Asked as a ratio of CPU times, never as an absolute time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed

#: One redaction of a one-line text of ``argv[1]`` characters, its CPU seconds printed: by the rules (``scrub``) or
#: as the index and the hooks redact, through the gate first (``as_indexed``).
_REDACT_ONCE = """
import sys, time
from deja.core.redact import scrub
from deja.core.redaction import as_indexed
unit, head = sys.argv[2], sys.argv[3]
text = head + unit * (int(sys.argv[1]) // len(unit))
start = time.process_time()
scrub(text) if sys.argv[4] == "scrub" else as_indexed(text, whatever_the_setting=True)
print(time.process_time() - start)
"""


def _cpu_seconds(
    size: int, folder: Path, unit: str = '{"password":"abc"},', head: str = "", *, gate: bool = False
) -> float:
    """The CPU time of one redaction of a ``size``-character line (``head`` then ``unit`` over and over), by the
    rules or through the gate (``gate``), in an interpreter of its own as a build starts: in one that has copied big
    strings before, the allocator keeps their memory and a line's copies cost less."""
    done = subprocess.run(
        [sys.executable, "-c", _REDACT_ONCE, str(size), unit, head, "gate" if gate else "scrub"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout)


@pytest.mark.hostile
def test_a_long_line_of_many_secret_named_keys_is_redacted_in_time_linear_in_its_size(tmp_path: Path) -> None:
    assert redact('{"password":"abc"},{"password":"abc"}') == (
        '{"password":"[redacted:secret]"},{"password":"[redacted:secret]"}'
    )
    # Four times the text: four times the time when linear, sixteen when each key reads its line back.
    assert _cpu_seconds(400_000, tmp_path) / _cpu_seconds(100_000, tmp_path) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        '<add key="ApiKey" value="abc"/>',
        '{"name":"DB_PASSWORD","value":"abc"},',
        'key="pw" value="',
        "&lt;password&gt;abc&lt;/password&gt;",
        "-\\u003e \\u003cb\\u003e",
    ],
)
def test_a_long_line_of_settings_or_escaped_elements_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str
) -> None:
    """A minified config of many ``key="…" value="…"`` settings, or of escaped elements, as the line above."""
    assert _cpu_seconds(400_000, tmp_path, unit) / _cpu_seconds(100_000, tmp_path, unit) < 8


@pytest.mark.hostile
def test_a_text_of_many_escaped_terraform_objects_is_redacted_in_time_linear_in_its_size(tmp_path: Path) -> None:
    """Each escaped terraform object's value is found where the text after it is next found: a look that failed read
    the rest of the text for each object (review44e M2: 1.56 s a megabyte, 22 s at four)."""
    plain = '{"db": {"sensitive": true, "type": ["object", {"pw": "string"}], "value": {"pw": "Xk9mPq2LwRt8"}}}'
    unit = plain.replace('"', "&quot;") + "\n" + "w" * 1000 + "\n"
    assert "Xk9mPq2LwRt8" not in redact(unit * 2)
    assert _cpu_seconds(2_000_000, tmp_path, unit) / _cpu_seconds(500_000, tmp_path, unit) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ('<add value="abc"', " "),
        ('<add key="ApiKey"', " "),
        ("the password is ", "Xk9m'"),
        ("the password is ", "Xk9m%27"),
        ('"{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"', "\\"),
        ("password=a", "\\"),  # (each backslash of a bare value read the rest of the run: review59e F1)
        ("<b>Password:</b>", " "),  # (an HTML label's runs of blanks side by side: review64c)
        ("Token </b> <b>", " "),
    ],
)
def test_one_value_before_a_long_run_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, head: str, unit: str
) -> None:
    """A setting's value or name followed by a run of blanks (two runs of blanks side by side in the pattern tried
    each place between them: ten thousand blanks took seconds), a sentence's value of many quotes (each quote
    read the rest of the value again), or a JSON string's JSON value of many backslashes (two ways to read each
    pair of them). One text each, not a line of units."""
    small, large = (head + unit * (size // len(unit)) + "x" for size in (30_000, 120_000))
    assert _cpu_seconds(len(large), tmp_path, large) / _cpu_seconds(len(small), tmp_path, small) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ("", " SECRET_KEY=${x}"),
        ("", " SECRET_KEY=(x"),
        ("", 'KEY="'),
        ("", "KEY=KEY "),
        ("", " PASSWORD = $(a "),
        ("", "password=a)"),
        ("", "password:a)("),
        ("SECRET_KEY=", "${"),
        ("SECRET_KEY=", "$(a)"),
        ("SECRET_KEY=", "%("),
        ("password=a", ")a"),
        ("password=", "a("),
    ],
)
def test_a_long_line_of_secret_variables_or_of_a_value_holding_brackets_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, head: str, unit: str
) -> None:
    """trial59 F1's rules: a secret variable's word (``_SECRET_VARIABLE``, its substitutions and code read once) and a
    bare value going on past a ``)`` (``_BARE``), many of them on a line or one long one."""
    assert _cpu_seconds(400_000, tmp_path, unit, head) / _cpu_seconds(100_000, tmp_path, unit, head) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ("", "secret_key="),
        ("", "secret_key:"),
        ("", "secretKey = "),
        ("", "a secret="),
        ("", "password=="),
        ("", "token=a&b="),
        ("secret=[redacted:secret]", "&a="),
        ("secret=a", ")"),
        ("secret_key=", "\\"),
        ("", "- name: SECRET_KEY\n  value: "),
        ("", "- name: SECRET_KEY\n  value: #"),
        ("", '{"SECRET_KEY": "%'),
        ("", '{"name": "SECRET_KEY", "value": "%s'),
        ('{"SECRET_KEY": "', "%1"),
        ("- name: SECRET_KEY\n  value: ", "%.s"),
    ],
)
def test_a_megabyte_line_of_lowercase_secret_variables_or_their_tails_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, head: str, unit: str
) -> None:
    """red60's secret word under a name in any case and spaced any way (``_SECRET_VARIABLE``), what it leaves after
    the assignment rule's marker (``_LEFT_AS_WRITTEN``, ``_A_WORD_CUT``), and a signed word under a secret name in
    JSON or a Kubernetes env entry (``_a_signed_word``, ``_A_WHOLE_SUBSTITUTION``): a line of a megabyte."""
    assert _cpu_seconds(1_000_000, tmp_path, unit, head) / _cpu_seconds(250_000, tmp_path, unit, head) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("unit", "gate"),
    [
        ("set -a ", False),
        ("set -gx a.key ", False),
        ("setx ", False),
        ("a.", False),
        ("--a", False),
        ("| key ", False),
        ("|key|", False),
        ('"key", ', False),
        ("key_prod", False),
        ("a.secret.key=", False),
        ("secret-key: ", False),
        ("KEY ?= ", False),
        ("\nKEY := ", False),
        ("KEY_FALLBACKS = ['", False),
        ("key=a<", False),
        ("key=a</", False),
        ("key=a</b", False),
        ("key -set", False),  # (a ``set`` inside ``-set`` read every flag after it: review61c F1)
        ("password=<b>", False),  # (an inline element's tag before a value: review62b)
        ("--token <code>x", False),
        ("KEY=<i>$", False),
        ('"password": "<b>x</b>', False),
        ("machine a password b ", False),
        ("default password x ", False),
        ("keykey", True),
        ("set -a ", True),
        ("key|", True),
        ("key -set", True),
    ],
)
def test_a_megabyte_line_of_near_forms_of_a_secret_variable_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, gate: bool
) -> None:
    """review60c F3's forms (``_SECRET_VARIABLE``'s kebab and dotted names, Make's signs, ``setx`` and ``set -gx``, a
    stage, a table's cell, a call's next argument; the gate's ``_NAME_APART``), the closing tag a value stops at, the
    inline element's tag it may stand in, and a ``.netrc`` ``default`` asked for the entry right before it
    (``_MACHINE_ENTRY``): a line of a megabyte."""
    assert _cpu_seconds(1_000_000, tmp_path, unit, gate=gate) / _cpu_seconds(250_000, tmp_path, unit, gate=gate) < 8


@pytest.mark.hostile
@pytest.mark.parametrize("unit", ["password:", "token:", "password:token:"])
def test_a_long_run_of_keys_without_blanks_is_redacted_in_time_linear_in_its_size(tmp_path: Path, unit: str) -> None:
    """Each key's value ran to the run's end, ending in a colon (no secret), and the next key read it again (fix45e:
    18 KB took 1.8 s)."""
    assert _cpu_seconds(80_000, tmp_path, unit) / _cpu_seconds(20_000, tmp_path, unit) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit", ["?key=", "a/send?key=", "?token=", "x?key=1", "token=a(", "token=your-", "{password:e.p,", "password=a{"]
)
def test_a_long_line_of_keys_each_inside_the_value_before_it_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str
) -> None:
    """Each key's value ran to the line's end and the next key, inside it, read it again: a query string's ``key``
    (WeCom's webhook: ``…send?key=``), a value no secret starts so or one holding code (red58: ``?key=`` 25 KB 2.2 s,
    100 KB 38 s); a value of many ``{`` was read from each of them to the end (``_is_literal``)."""
    assert _cpu_seconds(100_000, tmp_path, unit) / _cpu_seconds(25_000, tmp_path, unit) < 8


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("?key=?password=Xk9mPq2LwRt8", "?key=?password=[redacted:secret]"),
        ("?token=?password=Xk9mPq2LwRt8", "?token=?password=[redacted:secret]"),
        ("send?key=a&token=Xk9mPq2LwRt8", "send?key=a&token=[redacted:secret]"),
        ("token=a(" * 3 + " x", "token=a(" * 3 + " x"),
    ],
)
def test_a_key_inside_the_value_of_a_key_kept_before_it_is_still_read(written: str, shown: str) -> None:
    """The keys above are read once, not dropped: a secret's key after a kept one still has its value redacted,
    and a few keys of code stay as written."""
    assert redact(written) == shown


def test_a_line_of_more_secret_named_keys_inside_each_others_value_than_are_read_again_loses_its_tail() -> None:
    """Past 16 keys one inside the other's value, none of them given a secret, the rest of that value is redacted
    unread (a hostile line: reading each again took time quadratic in its length), never kept."""
    written = "token=a(" * 40 + "password=Xk9mPq2LwRt8 next"
    shown = redact(written)
    assert "Xk9mPq2LwRt8" not in shown
    assert shown.startswith("token=a(" * 16) and shown.endswith("[redacted:secret] next")


@pytest.mark.hostile
@pytest.mark.parametrize("unit", ["-", "--a", "--password"])
def test_a_long_run_of_flags_or_dashes_is_redacted_in_time_linear_in_its_size(tmp_path: Path, unit: str) -> None:
    """A flag named a secret is read from the ``--`` that starts its word: read from each ``--`` of a run to its end,
    20 KB of dashes took 12 s where the text held a ``password=x`` too (red57)."""
    assert redact("---a--password Xk9mPq2LwRt8 a-b--token Xk9mPq2LwRt8") == (
        "---a--password [redacted:secret] a-b--token Xk9mPq2LwRt8"  # (the second inside a word, as before)
    )
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, "password=x ") for size in (400_000, 100_000))
    assert longer / shorter < 8


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("token:password:\n- Xk9mPq2LwRt8", "token:password:\n- [redacted:secret]"),
        ("token:password: Xk9mPq2LwRt8", "token:password: [redacted:secret]"),
        ("token:password:**Xk9m#Pq2Lw**:", "token:password:**[redacted:secret]**:"),
        ("token:password:'Xk9mPq2LwRt8':", "token:password:'[redacted:secret]':"),
        ("secret:token:" * 50 + "password:'Xk9mPq2LwRt8':", "secret:token:" * 50 + "password:'[redacted:secret]':"),
    ],
)
def test_a_key_ending_a_run_of_keys_or_given_a_quoted_or_emphasised_value_in_it_still_has_its_value_redacted(
    written: str, shown: str
) -> None:
    """A run of keys is read once (the time test above), but a key whose colon ends the run has its value after it,
    and one after a quote or a star in the run has its value quoted or emphasised."""
    assert redact(written) == shown


@pytest.mark.hostile
@pytest.mark.parametrize("unit", ["x -b -B -C 10 = ", "x -b a=Xk9mPq2LwRt8Zz \\\n", "curl x -b a=Xk9mPq2LwRt8Zz "])
def test_a_long_line_of_many_b_options_is_redacted_in_time_linear_in_its_size(tmp_path: Path, unit: str) -> None:
    """Whether each ``-b`` is curl's read its line back to its start (fix45c: 400 KB, 1.1 s; lines a ``\\`` continues,
    100 KB, 7.7 s): the next one on the line reads on from the last."""
    assert redact(
        "curl -H 'a: b' \\\n -b 'sid=Xk9mPq2LwRt8Zz' -b a=Xk9mPq2LwRt8Zq | git checkout -b a=Xk9mPq2LwRt8Zw"
    ) == ("curl -H 'a: b' \\\n -b 'sid=[redacted:cookie]' -b a=[redacted:cookie] | git checkout -b a=Xk9mPq2LwRt8Zw")
    assert _cpu_seconds(400_000, tmp_path, unit) / _cpu_seconds(100_000, tmp_path, unit) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        "mysql \\\n",
        'keytool -dname "',
        'keytool "' + "b" * 299 + '" ',
        "lftp -u user",
        "net rpc -U u",
        "unrar -p",
        "rar -hp",
        "Name=DbPassword,Value=",
        "ParameterKey=DbPassword,A=b,",
        "curl -u a:b ",  # (curl's and HTTPie's user:password, read again for the command's next one: red53)
        "curl -sSfU 'a:",
        "http -a x:y ",
        "user=",  # (a curl config file's user line, read from each ``user`` took quadratic time: red54)
        "-user=a:{x}",
        "\\nuser=",
        "curl -u $'a:",
        'curl -u "a:\\"',
        # red55: an escaped quote in JSON's quotes and in $'…', brackets, a continued bearer, xh's, a Makefile's @.
        'curl -u \\"a:\\\\\\"',
        "curl -u $'a:\\'",
        "curl -u [a:",
        "curl -u <a:b> ",
        "http -A bearer \\\n",
        "xh --bearer ",
        "curl --oauth2-bearer ",
        "\t@http -a a:b\n",
        "http Accept: x: -a a:b ",
        "docker -u a:b ",
        "http -a x:/a/b ",
        "http -A bearer -a T ",
        "vault login s.Xk9mPq2Lw7Rt5Yb3Nc8Vd1Z",
        "name: pw, value: '",
        "- name: DB_PASSWORD\n-  value: a\n+  value: b\n",
        '+ {"name": "DB_PASSWORD",\n-  "value": "abc",\n+  "value": "abd"},\n',
        '{"name":"DB_PASSWORD","value":"abc","value":"abd","value":"abe","value":"abf","value":"abg"},',
        '\\\\\\"password\\\\\\": \\\\\\"',
    ],
)
def test_a_long_text_of_continued_command_lines_or_new_shapes_of_a_setting_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str
) -> None:
    """A command's name reads up to 200 characters of its line on, lines a ``\\`` continues and one quoted field
    (keytool's ``-dname``) too: each name's look is bounded, so the time grows with the text; a setting's pair read
    again for its next value (a diff's new one) is read a bounded number of times (secrets46)."""
    assert _cpu_seconds(1_000_000, tmp_path, unit) / _cpu_seconds(250_000, tmp_path, unit) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    ["\\nuser=", "\\nuser=a:", "\\\\nuser=a", "'user=", "`user=", "'user='\\nuser=", "user: ", "'user=a:", "1\tuser="],
)
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_line_of_config_user_lines_inside_it_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, *, gate: bool
) -> None:
    """A curl config's ``user`` line is read after each quote, backtick or escaped line end of a line (review54f F4),
    each at once: read from the line's start, a line of many took a pass of the rule for each, and a user read past
    the next ``\\n`` (or, by the gate, past the next backtick) read the line's rest again for each."""
    assert _cpu_seconds(1_000_000, tmp_path, unit, gate=gate) / _cpu_seconds(250_000, tmp_path, unit, gate=gate) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        "sshpass -f ",
        "sshpass -v \\\n",
        "sshpass -vPx ",
        'sshpass -P \\"sshpass ',
        "sshpass -P a\\ b\\ ",
        "-esshpass ",
        "SSHPASS=x ",
        "redis-cli -a is not ",
    ],
)
def test_a_long_run_of_sshpass_options_is_redacted_in_time_linear_in_its_size(tmp_path: Path, unit: str) -> None:
    """sshpass's ``-p`` is looked for among its own options, sixteen at most and each read one way (overred46,
    fix46b): looked for among any number, ``sshpass -f sshpass -f …`` had each ``sshpass`` read the rest of the run
    (55 KB, 4 s). One text each, after a line that lets a text through the gate of options (``-p``)."""
    assert redact("sshpass -f ~/.pw -v -p Xk9mPq2Lw ssh -p 2222 h") == (
        "sshpass -f ~/.pw -v -p [redacted:cli-credentials] ssh -p 2222 h"
    )
    small, large = ("ssh -p 22\n" + unit * (size // len(unit)) for size in (25_000, 100_000))
    assert _cpu_seconds(len(large), tmp_path, large) / _cpu_seconds(len(small), tmp_path, small) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        '["curl", "-u", "a:b", ',
        '["sshpass", "-p", "x", ',
        "['mysql', 'x' + ",
        "mysql `\n",
        "sshpass ^\n",
        "name: DB_PASSWORD, value: S3cretX1}",
        "ParameterValue=a,",
        "Value=Value=",
        "'sshpass' -p ",
        "UnRAR.exe ",
        "vault token lookup ",
        "net -U a%",
        # red48: a list's wrappers, its program beside it or apart, a tuple, Vault's options with values, a cmdlet.
        '("sudo", "-u", "x", ',
        '{"command": "mysql", "args": ["-u", ',
        "spawn('sshpass', ['-p', 'x', ",
        'exec.Command("mysql", ',
        "vault token renew -increment 1h ",
        '-increment 1h "',
        "Get-Service mysql -p",
        "value: S3cretX1, name: ",
        "Value=a=b=c=d=e=f=g=h=i=j=k",
        '{name: "DB_PASSWORD" , ',
        # red49: a command's input given a token, a comment after a secret-named word, a glued token, the keys.
        "echo T48tok | gh auth login --with-token ",
        "echo -n 'a' | echo ",
        "--with-token <<< a ",
        "--with-token x",
        "API_KEY # typed: Xk9mPq2Lw7 ",
        "API_KEY # # # ",
        "token#a:",
        "xxghp_" + "aB3" * 12 + " ",
        "ghp_" * 20,
        "xsk-" + "a-" * 20,
        "{'Command': 'mysql', 'Args': ['-u', ",
        '["SSHPASS", "-p", "x", ',
        '["C:/Tools/MYSQL.EXE", "-px", ',
        '"C:\\Docker\\docker.exe" login -p x ',
        # fixr49: a heredoc fed to the option, gh's secret on its line, a glued name's words.
        "--with-token <<E ",
        "--password-stdin <<E\nx\n",
        "--password-stdin <<E\nx \t x \t ",
        "cat <<E | gh auth login --with-token ",
        "gh secret set x -b ",
        "xtask-Ab1Cd2Ef3Gh4Ij5Kl6",
    ],
)
def test_a_long_text_of_listed_commands_or_other_spellings_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str
) -> None:
    """A command given as a list is read whole once (one long list of passwords too: each redaction is put back from
    the string after the last), and the other spellings of a tool's name, a continuation, a pair read a bounded reach
    on (red47b)."""
    assert _cpu_seconds(1_000_000, tmp_path, unit) / _cpu_seconds(250_000, tmp_path, unit) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        "echo a | sudo -u x ",
        "echo a | sudo -kS ",
        "sudo -S ",
        "sudo -u sudo -u ",
        "sudo --user ",
        "sudo -S <<< a ",
        "echo a | ",
        "passwd x --stdin ",
        "echo 'a:b' | chpasswd ",
        "chpasswd <<< 'a:b\\n",
        "wrangler secret put x ",
        "gcloud secrets create x --data-file=- ",
        "docker secret create x - ",
        "doppler secrets set A B ",
        "doppler secrets set ",
        "aws secretsmanager --secret-string x ",
        "aws ssm put-parameter --value x ",
        "poetry config --local ",
        "mc alias set a b c d ",
        "net use Z: \\\\s\\x ",
        "ConvertTo-SecureString x ",
        "ConvertTo-SecureString -Force ",
        "kubectl create secret x --from-literal=a=b ",
        "kubectl create secret ",
        "fly secrets set A=b ",
        "echo a | firebase functions:secrets:set x ",
        # review55e F1's gate and F3's data: sudo's reach, passwd's line, data fed to sudo -S or vercel env add
        "echo 'a b 1' | sudo -S x ",
        "echo a.b=1 | vercel env add x ",
        "sudo -S x <<< 'y' ",
        "sudo -u sudo -k ",
        "passwd passwd ",
        "twine nuget -p ",
        "nuget setapikey x ",
        # red56: review55e F2's near variants and the new shapes
        "aws --region x --profile y secretsmanager --secret-string ",
        "aws --a --b ",
        'aws secretsmanager --secret-string \'{"a":"b"} ',
        'net use Z: "\\\\s ',
        "net use Z: \\\\\\\\s\\\\x ",
        "echo a |\n",
        "echo a | \\\n sudo -S ",
        "echo $'a' | sudo -S x ",
        "sudo -S '",
        "sudo -S x 'a;b' <<< ",
        "ConvertTo-SecureString x `\n",
        "sudo -S x <<EOF\n",
        "cat <<EOF | sudo -S x\n",
        "chpasswd <<EOF\n",
        'echo -e "a\\na" | passwd ',
        "fly secrets set A=b ",
        "fly secrets set \\\n",
        "kubectl \\\n create secret --from-literal=a=b ",
        "heroku config:set A=b ",
        "netlify env:set A b ",
        "rclone config create a b pass c ",
        "--vault-password-file <(echo a) ",
        'expect "password:" send "a" ',
        "password send ",
        # review56c: JSON objects in escaped quotes (F2), never closed
        'aws secretsmanager --secret-string "{\\"a\\":\\"b ',
        "aws secretsmanager --secret-string '{:\"",
        'aws secretsmanager --secret-string \\"{\\\\\\"a\\\\\\": ',
        # red57: heredocs in a JSON string, chpasswd's of many lines, a line of many openings, netlify's options,
        # rclone's remote, aws's continued line, expect's escaped quotes
        "chpasswd <<EOF\\n",
        "chpasswd:<<A chpasswd <<A chpasswd <<A chpasswd <<A\n",
        "chpasswd:<<A chpasswd <<A chpasswd <<A chpasswd <<A\\n",
        "chpasswd chpasswd chpasswd chpasswd <<A\n" + ("a:" + "b" * 190 + "\n") * 31,
        "sudo -S x <<EOF\\n",
        "sudo -S sudo -S sudo -S sudo -S x <<A\\n" + "a" * 990 + " \\n",
        "netlify env:set --context a ",
        "rclone config create a - ",
        "aws --a b \\\n ",
        'assword send \\\\\\"a\\\\\\\\r',
        "--vault-id <(echo ",
        # red57c: a lone < on a heredoc's opening line (review57e F3)
        "sudo -S x <<A <a <b <c <d\\n",
        "chpasswd:<<A chpasswd <<A < chpasswd <<A <\n",
        # red57c: a heredoc's tag in a JSON string's escaped quotes, its lines' escaped tabs (review57e F2)
        'cat <<\\"A\\" | sudo -S ',
        'chpasswd <<\\"A\\"\\n\\ta:b\\t\\n',
        # red57c: a heredoc of many users fed to chpasswd (review57e F11: read up to 4000)
        "cat <<A | chpasswd chpasswd chpasswd chpasswd\n" + ("a:" + "b" * 190 + "\n") * 200,
        # red57c: netlify's --site and --auth take a value (review57e F7)
        "netlify env:set --site a --auth b ",
        # red57c: rclone's options that take a value (review57e F8)
        "rclone config create --config a --config ",
        "rclone config update --config --config - ",
        # red57c: a heredoc's closing word before a quote (review57e F10)
        "sudo -S x <<A\nb\nA' ",
        # red57c: rclone's options before config, its config password (review57e F9)
        "rclone -vv --config a rclone -v ",
        # red58: a valued option's value the word rclone itself, each rclone read the rest (review58b F2)
        "rclone --config ",
        "rclone --log-level ",
        "rclone config password a - ",
        # red57c: aws's words across a JSON string's escaped \ line end (review57e F1)
        "aws --a b \\\\\\n ",
        "aws \\\\\\n \\\\\\n ",
        # red59: pexpect's prompt and its answer (review58b F9), a command's ends (review58f F2)
        'x.expect("password:") x.sendline(',
        ".expect(password\\n a.send(",
        "aws ssm put-parameter --type SecureString --value a & ",
    ],
)
def test_a_long_text_of_commands_fed_a_password_or_given_a_stored_secret_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str
) -> None:
    """sudo's options are each read one way (an atomic group), and each command reads a bounded reach on (red55b)."""
    assert _cpu_seconds(1_000_000, tmp_path, unit) / _cpu_seconds(250_000, tmp_path, unit) < 8


@pytest.mark.hostile
@pytest.mark.parametrize("head", ["echo a | sudo -u x -", "echo a | sudo ", "sudo -"])
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_cluster_of_sudos_option_letters_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, head: str, *, gate: bool
) -> None:
    """``sudo -kkk…``: each letter of the run may end a cluster taking a value, or hold ``S``; read once."""
    assert redact("echo Xk9mPq2Lw7 | sudo -kkS x") == "echo [redacted:cli-credentials] | sudo -kkS x"
    longer, shorter = (_cpu_seconds(size, tmp_path, "k", head, gate=gate) for size in (1_000_000, 250_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("unit", "head"),
    [
        ("pass", "rclone config create r s3 "),
        ("key-", "rclone config update r "),
        ("secret_", "rclone config create r s3 "),
        ("token", "rclone config update r "),
    ],
)
@pytest.mark.parametrize("gate", [True, False])
def test_one_long_word_holding_secrets_nouns_after_rclone_config_create_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, head: str, *, gate: bool
) -> None:
    """rclone's key holding a secret's noun: read as ``[\\w-]*noun[\\w-]*``, one long word of nouns was read to its
    end again for each noun in it (review56c F1: 16 KB, 0.8 s; the failure hook's 8 KB window, 0.2 s)."""
    assert redact(head + "secret_access_key Xk9mPq2Lw7") == head + "secret_access_key [redacted:secret]"
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, head, gate=gate) for size in (200_000, 50_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize("unit", ["u", "sSu"])
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_run_of_curls_option_letters_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, *, gate: bool
) -> None:
    """``curl`` and `` -uuu…``: each ``u`` of the run may end a cluster of options before a user and a ``:``; the
    gate read the run's rest for each (review53a C1: 32 K letters, 33 s; the failure hook's 8 K window, 0.5 s), the
    rule reads it once."""
    head = "curl: (22) The requested URL returned error: 401 -"
    shown = head + "sSu" * 9 + ":[redacted:cli-credentials] x"
    assert as_indexed(head + "sSu" * 9 + ":Xk9mPq2Lw x", whatever_the_setting=True) == shown
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, head, gate=gate) for size in (40_000, 10_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "head",
    [
        '["sshpass", "-p", "Xk9mPq2Lw", "ssh", ',
        '["mysql", "-pXk9mPq2Lw", ',
        '{"command": "mysql", "args": ["-pXk9mPq2Lw", ',
        "spawn('sshpass', ['-p', 'Xk9mPq2Lw', ",
    ],
)
def test_one_long_listed_command_is_redacted_in_time_linear_in_its_size(tmp_path: Path, head: str) -> None:
    """One list of many strings: the line its strings make was joined again for each one, and 1 MB took minutes
    (review47h H1; the test above starts a new list with each unit)."""
    assert "Xk9mPq2Lw" not in redact(head + '"a", ' * 50 + '"b"]')
    unit = '"host-a", '
    assert _cpu_seconds(200_000, tmp_path, unit, head) / _cpu_seconds(50_000, tmp_path, unit, head) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        # red57b: the logins' rules (trial57 F1), each shape and its half-written forms
        "echo a | kinit ",
        "kinit a <<< ",
        "kinit a <<EOF\n",
        "cat <<EOF | kinit\n",
        "psexec \\\\h -u a -p ",
        "PsExec64.exe -p ",
        "vault login -a ",
        "vault login -a=b ",
        "npm config set //h/:_authToken ",
        "npm set :_:_password ",
        "smtp.login('a', ",
        "x.login(a.b[c], ",
        "auth=('a', ",
        "auth = (a, 'b' ",
        "BasicAuth(a, ",
        "a.a.a.a.BasicAuth(",
        "a.auth(",
        "sqlplus a/",
        "sqlplus -s -l ",
        "sqlplus a/b@c ",
        "expdp userid=a/",
        "sqlldr userid=",
        "rman target a/b ",
        "rman target ",
        "12/07/2026 rman ",
        "oc login -u a ",
        "cf login ",
        "influx setup -p ",
        "ALTER ROLE a PASSWORD ",
        "alter role a b c d ",
        "SET PASSWORD FOR a = ",
        "git config --global a.token ",
        "git config ",
        "snyk auth ",
        "wandb login --relogin ",
        '"keyName": "key1", "a": "b", ',
        "HRKU-AA",
        "codecov -t ",
        "netlify deploy --auth ",
        "firebase functions:config:set a.key=b ",
        "login: a / ",
        "login is a/",
        "login a b c ",
        "EAA",
        "EAAa1",
    ],
)
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_text_of_logins_given_a_password_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, *, gate: bool
) -> None:
    """Each login's rule reads a bounded reach on from its command's name, and its gate (``redaction.NEEDED_AROUND``)
    each place once (red57b)."""
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, gate=gate) for size in (1_000_000, 250_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        "https://a/hooks/",
        "http://a/b/c/d/hooks/x",
        "https://a.webhook.office.com/webhookb2/0000000000@",
        "https://outlook.office.com/webhook/a@b/IncomingWebhook/",
        "qyapi.weixin.qq.com/cgi-bin/webhook/send?a=b&",
        "qyapi.weixin.qq.com/cgi-bin/webhook/send?k",
        "/open-apis/bot/v2/hook/",
        "hooks.zapier.com/hooks/catch/1",
        "maker.ifttt.com/trigger/a/with/key/",
        "webexapis.com/v1/webhooks/incoming/",
        "https://hook.a.make.com/",
        "?sig=a-b_",
    ],
)
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_text_of_webhook_urls_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, *, gate: bool
) -> None:
    """Each webhook's rule reads its URL's host and a bounded few folders from its ``http`` (trial58 T1)."""
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, gate=gate) for size in (1_000_000, 250_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    [
        "data:\n  k: dmFsdWU=\n",
        "  data:\n",
        "data:\n\n",
        "- data:\n  - data:\n    a: b\n",
        '"data": {"k": "v"}, ',
        '"data": {',
    ],
)
def test_a_long_text_of_kubernetes_secrets_data_maps_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str
) -> None:
    """Each ``data:`` map asks whether its document is a Secret's: where each ``kind: Secret`` and ``---`` is, read
    once per text (trial59 F2), not the text around each map read again."""
    head = "kind: Secret\n"
    assert _cpu_seconds(1_000_000, tmp_path, unit, head) / _cpu_seconds(250_000, tmp_path, unit, head) < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ("postgres://a:", "/"),
        ("postgres://a:", "x:/"),
        ("", "://a:/"),
        ("", "://a:b/@"),
        ("postgres://a:", "@a.b"),
        ("postgres://a:", "@a.b/@"),
        ("", "x:/@"),
    ],
)
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_line_of_url_passwords_holding_slashes_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, head: str, unit: str, *, gate: bool
) -> None:
    """A URL's password is read past a ``/`` to its last ``@`` (trial60 F1), never past the next URL's ``://``."""
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, head, gate=gate) for size in (1_000_000, 250_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ("-----END RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\n"),
        ("-----END RSA PRIVATE KEY-----\n", "A\n"),
        ("-----END RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM "),
        ("", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\n-----END PRIVATE KEY-----\n"),
        ("", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\n-----END\n"),
    ],
)
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_text_of_base64_lines_before_or_without_a_keys_end_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, head: str, unit: str, *, gate: bool
) -> None:
    """The lines above a key's END line are read from each run's first line once (trial60 F2), not from each line."""
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, head, gate=gate) for size in (1_000_000, 250_000))
    assert longer / shorter < 8


@pytest.mark.hostile
@pytest.mark.parametrize(
    "unit",
    ["npmAuthIdent:", "npmAuthIdent: $", "config set npmAuthIdent ", "YARN_NPM_AUTH_IDENT=a ", "1//0", "1//0a-"],
)
@pytest.mark.parametrize("gate", [True, False])
def test_a_long_line_of_yarn_idents_or_google_refresh_tokens_is_redacted_in_time_linear_in_its_size(
    tmp_path: Path, unit: str, *, gate: bool
) -> None:
    """Yarn's ``npmAuthIdent`` value is read once from its name, a ``1//0`` token once from its prefix (trial60 F4, F5)."""
    longer, shorter = (_cpu_seconds(size, tmp_path, unit, gate=gate) for size in (1_000_000, 250_000))
    assert longer / shorter < 8
