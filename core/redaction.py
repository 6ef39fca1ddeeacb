"""Whether redaction is on, and what an index built now is redacted with, without compiling the rules.

Every read compares the index's redaction with :func:`mode` (another one rebuilds
the index), and ``redact``'s import compiles dozens of patterns; a read that finds
nothing changed never needs them, so the rule version and the switch live here.
"""

from __future__ import annotations

from . import config
from .escapes import escape_at, escapes, surrogate_pair_at
from .lines import cut
from .text import as_seen, holds_unseen

TYPE_CHECKING = False  # typing's own, without importing typing (hooks load this module); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: Bumped whenever the rules (``redact``) change to redact more, so an index redacted by older rules is rebuilt before
#: it is shown. A change that only redacts less (a false positive mended: Alembic's revision ids, trial20 F17) keeps
#: it: the older index is safe to show, and the rebuild would stop the next search for minutes (48 s at 10k:
#: review40a L1); what it hid shows again as its chats are read again (``deja index --full`` at once).
#: (38: a value a table gives a secret's name where it looks made (Markdown's, a text table's between ``+---+``
#: borders, HTML's ``<th>…</th><td>…</td>``), under a column named for one too; ``<input type="password" value=…>``;
#: an inline element around a value with attributes, nested or a ``<span>``/``<var>``, inside an element named for
#: the secret too (``<password><b>…</b></password>``); a secret named in a sentence with a qualifier in brackets
#: (``Password (prod): …``), a dash or an arrow (``**API key** — …``), a participle (``token generated: …``) or
#: after "here is your"; a value after an HTML label (``<b>API key</b>: …``): red64 (review64a, review64b after it);
#: 37: a secret variable's word under a name in any case and spaced any way (``secret_key: …``, ``secretKey=…``,
#: ``SECRET_KEY =…``, ``SECRET_KEY:…``), and the tail after another rule's marker kept (``…=[redacted:openai-key]/index``);
#: a quoted or a Kubernetes env entry's value under a secret name a substitution only when it is one whole (a Django
#: key in JSON, ``"%fqf#…"``, or ``value: $k2!…``): red60 (review59e F2, F3, F4); a URL's password holding a ``/``
#: (a base64-made one), or an ``@`` and a ``/``, the tail of a private key above its END line with no BEGIN line, a
#: quoted password with blanks starting with "My" or ending with "!" (a word mixing letters and digits in it), Yarn's
#: ``npmAuthIdent``, Google's ``1//0…`` refresh token: red60b (trial60 F1-F5); a Django key under a near form of a
#: secret's name (``secret-key:``, ``--set django.secretKey=``, Make's ``:=``/``?=``, ``setx``, fish's ``set -gx``,
#: ``SECRET_KEY_FALLBACKS``/``_PROD``, a Markdown table's cell, ``setdefault("SECRET_KEY", "…")``): red61
#: (review60c F3; and less: a value's closing tag ``</code>``, prose after a ``.netrc`` entry, audit60 N1);
#: 36: a URL whose slashes a JSON encoder escaped (``https:\\/\\/hooks.slack.com\\/…``, ``postgres:\\/\\/u:PW@…``),
#: the rest of a hostile line's value past 16 secret-named keys one inside the other's (red58's quadratic
#: ``?key=`` line), an ssm SecureString beside a plain parameter after ``&``, ``#`` or in the next JSON string
#: (review58f F2), pexpect's ``sendline("…")`` after its password's prompt (review58b F9): red59;
#: a value under a secret name holding brackets, ``$``, ``%`` or ``&`` (a Django key), whole, unless a call or a
#: substitution; ``wandb login KEY``, Heroku's ``HRKU-AA…``, ``az storage account keys list``'s ``"value"``: red59b
#: (trial59 F1, F3);
#: 35: the secret part of Microsoft Teams', Mattermost's, Rocket.Chat's, WeCom's, Feishu's and Lark's, Zapier's,
#: IFTTT's, Webex's and Make's webhook URLs, a Logic Apps or Power Automate ``sig=`` holding ``-`` or ``_`` (trial58
#: T1); rclone's secrets on CPython before 3.11.5, expect's ``send`` on its own line of a JSON string, an ssm
#: SecureString beside a plain parameter's command, ``HttpNtlmAuth``/``auth.HTTPBasicAuth``, ``dbpass``-like setting
#: names, expect's ``exp_send`` (review58b F1, F3, F4, F6, F8, F9): red58;
#: 34: a password fed to ``kinit``, PsExec's ``-p``, any ``vault login`` token, npm's ``:_authToken``/``:_password``
#: set with a space, Python's positional ``login('u', 'PW')``/``auth=('u', 'PW')``/``BasicAuth``, Oracle's
#: ``user/PW@db`` after its tools, ``oc``/``cf``/``influx`` ``-p``, ``ALTER ROLE … PASSWORD``, ``SET PASSWORD FOR``,
#: a ``git config`` key naming a token, ``snyk auth``, ``codecov -t``, ``netlify --auth``, prose ``login: u / PW``,
#: firebase config keys naming a secret, Facebook's ``EAA…`` tokens: red57b (trial57 F1);
#: 33: each line of a heredoc of several users fed to ``chpasswd``, a heredoc in a JSON string (its line ends
#: escaped), netlify's ``env:set`` after its options, expect's ``send`` in a JSON string's escaped quotes, aws's
#: service on a line a ``\\`` continues, ``--vault-id <(echo …)`` without a label (and less: rclone's remote name and
#: type, read as a key): red57;
#: 32: aws's global options before its service, every value of ``--secret-string``'s JSON, every pair of a long or
#: continued ``secrets set``/``--from-literal``, a pipe's line end, ``$'…'``, a quoted ``;`` before a here-string, a
#: heredoc fed to ``sudo -S``/``chpasswd``/a store, the password piped twice to ``passwd``, ``net use``'s other
#: spellings, rclone's, heroku's, netlify's secrets, ansible's ``<(echo …)``, expect's ``send``: red56;
#: 31: an escaped quote inside a curl/HTTPie password in a JSON string's escaped quotes (``\\"…\\\\\\"…\\"``) and in
#: bash's ``$'…\\'…'``, a made password in brackets (``[deploy:…]``), HTTPie's bearer token on a continued line and
#: after ``-A=bearer``, xh's ``--bearer``, curl's ``--oauth2-bearer``, a Makefile's ``@http -a …``, HTTPie's ``-a``
#: after a header it removes, a curl config file's ``user: …`` and its user line after any quote or an escaped line
#: end (``printf 'url = x\\nuser = …'``), a numeric user and PIN there (``104233:83726451``): red55; a password piped or
#: fed to ``sudo -S``/``--stdin``, ``passwd --stdin``, ``chpasswd``, a secret given to a secret store's CLI (``aws
#: secretsmanager``/``ssm``, ``az keyvault``, ``doppler``, ``wrangler``, ``vercel``, ``gcloud secrets``, …), twine's,
#: poetry's, nuget's ``-p``, ``ConvertTo-SecureString … -AsPlainText``, ``net use``, ``ngrok``, ``mc alias set``: red55b;
#: 30: bash's ``$'…'`` and an escaped ``\"`` in a curl/HTTPie password, HTTPie's ``-va`` cluster, xh, its
#: bearer token (``-A bearer -a …``), the names in capitals, a user holding ``[``/``<``, a single-quoted password
#: starting with ``$``, ``az login -p =…``, a curl config file's ``user = "…:…"`` line: red54;
#: 29: curl's ``-u`` glued to its value or last in a cluster (``-udeploy:…``, ``-sSfu deploy:…``), its proxy's ``-U``
#: and ``--proxy-user``, a quoted ``user:password`` with a blank in it whole, HTTPie's ``-a``/``--auth``, ``az login
#: -p…`` glued or after a ``=``: review52e's rule gaps, red53;
#: 28: a glued token after a prefix no English word ends in (``MYTOKEN_glpat-…``) though its value reads as words, a
#: comment's made value after a secret-named word unless its label names something else (``# fallback: …``), a
#: heredoc's value with blank lines before its closing word: fixr49b;
#: 27: ``gh secret set NAME --body …``/``-b …``, a heredoc of one line fed to ``--password-stdin``/``--with-token``
#: (and less: a glued token that is a CamelCase name, a comment's value no word says was typed): fixr49;
#: 26: a token or a password given to ``--with-token``/``--password-stdin`` by a here-string or an ``echo`` pipe, a
#: service account's ``private_key_id``, a made value a shell comment gives after a secret-named word, a known prefix's
#: generated token glued to the word before it, docker's quoted program path, ``'command'``/``"Command"`` beside
#: ``'args'``/``"Args"``, a listed program's name in capitals (``["SSHPASS", "-p", …]``): red49;
#: 25: a program run inside a PowerShell script block after a cmdlet, or after a Unix ``--``: fix48d;
#: 24: a command given as a tuple, a call's arguments, after a wrapper in its list, apart from its list or named by
#: ``"command"`` beside its ``"args"``; Vault's older token quoted, after an option's value and to ``vault token
#: capabilities``; ``docker.exe login``, ``WinRAR.exe``, ``htpasswd.exe``, ``az.cmd``; YAML's flow with its name
#: quoted or its value first; the AWS shorthand's value first holding a ``=``: red48;
#: 23: a secret with an invisible character inside it, read as a terminal shows it (``text.as_seen``);
#: 22: ``vault token lookup s.…``, YAML's flow with a bare value, Windows's tools' names and continuations, ``net -U``
#: before its subcommand, the AWS shorthand's value first, a command given as a list of strings;
#: 21: a password after quoted text naming its tool and option, ``echo "use mysql -p" && mysql -p"…"``, and one in
#: quotes a JSON string escapes twice;
#: 20: continued command lines, more tools' passwords, Vault's ``s.`` token, the AWS shorthand, a diff's new value,
#: sshpass's options in more shapes and ``SSHPASS=``, a list's word a command gives;
#: 19: sshpass's -p after long options of its own; 18: a setting's other spellings, ``&amp;#61;``, a quote in a made
#: value; 17: escaped brackets)
RULES_VERSION = 38


#: The characters outside ASCII that a case-blind pattern matches an ASCII letter with: the dotted capital I and the
#: dotless i (``i``), the long s (``s``) and the Kelvin sign (``k``). No other character does
#: (``tests/test_build_fast.py`` asks ``re`` about every one), so a text without them finds a gate's case-blind words
#: as its lowercase does: a prompt with an accent or an ellipsis and a long word (a path) in it compiles no gate, and
#: loads no ``re`` for one (about 20 M instructions of its hook).
FOLDED_INTO_ASCII = "\u0130\u0131\u017f\u212a"


def folds_into_ascii(text: str) -> bool:
    """Whether ``text`` holds a character of ``FOLDED_INTO_ASCII``."""
    return not text.isascii() and any(c in text for c in FOLDED_INTO_ASCII)


def enabled() -> bool:
    return bool(config.get("redact"))


def mode() -> str:
    """What redaction an index built now gets: ``off``, or the version of the rules."""
    return f"rules-{RULES_VERSION}" if enabled() else "off"


def withheld(built_with: str) -> str:
    """Why an index redacted with ``built_with`` (its ``mode()`` when built) may not be shown now, or "".

    With redaction on, an index built without it (a one-off ``DEJA_NO_REDACT=1`` rebuild) or under older rules
    may hold what the rules now hide: a read that cannot rebuild it first (a hook, the MCP server) shows nothing
    from it until it is rebuilt. With redaction off, any index may be shown.
    """
    now = mode()
    if now == "off" or built_with == now:
        return ""
    if built_with == "off":
        return "the index was built without redaction, which is now on"
    return "the index was redacted by older rules"


#: The nouns a secret's name is built on, in lowercase: what the assignments' rules look for first
#: (``redact._SECRET_WORD``), the names ``_NAME_APART`` sets apart, and the stems whose ends ``_NOUN_ENDS`` lists.
SECRET_NOUNS = ("pass", "pw", "secret", "token", "key")

#: Two cheap gates, so a text that cannot hold a match skips a group of rules (``redact.scrub``), or the rules'
#: import (``as_indexed``): every token is a run of 16 characters or more without a space (a basic credential may
#: be shorter), and every credential found by its context needs a separator, a quote, a flag (mysql's
#: ``-pS3cret`` and sshpass's ``-p S3cret`` among them, and a listed command's ``"-p…"``), a Dockerfile ENV, a word of Redis's (``redis-cli -a
#: S3cret``, ``requirepass S3cret``), ``.netrc``'s ``login``, or its ``machine`` or ``default`` with a ``password``
#: after it (``NETRC_GATE``), a ``cookies.txt`` line's ``TRUE``/``FALSE`` between tabs, or PHP's ``define(``.
#: The words of the commands and settings that give a password with none of the other signs the gate sees (``redis-cli -a
#: S3cret``, ``requirepass S3cret``, ``keytool -storepass …``, ``sqlcmd -P …``, ``gh secret set X -b …``:
#: ``redact._PASSWORD_ARGUMENTS``; HTTPie's ``-A bearer -a TOKEN``, ``redact._BEARER_TYPE``).
ARGUMENT_WORDS = ("redis-", "requirepass", "masterauth", "keytool", "htpasswd", "ldap", "smb", "sqlcmd",
                  "rabbitmqctl", "openssl", "ssh-keygen", "zip", "rar ", "rar.exe", "lftp", "mosquitto_", "net rpc",
                  "net ads", "net -u", "rpcclient", "secret set", "-a bearer",
                  # (a password given to a login: ``redact._LOGIN_RULES``; Python's ``smtp.login("me", "PW")``)
                  "kinit", "sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl", "rman", "login(", "auth(",
                  "git config", "snyk", "codecov", "wandb",
                  # (a password piped to ``sudo -S``, a secret to a store's CLI: ``redact._FED_AND_STORED_RULES``)
                  "sudo", "doppler", "wrangler", "vercel", "secret create", "http-basic", "pypi-token", "nuget",
                  "convertto-securestring", "net use", "net.exe use", "ngrok", "passwd", "rclone",
                  # (expect's ``send "PW\\r"`` after a prompt with no colon: ``expect "password" {…}``, review56c F3)
                  "send")  # fmt: skip
#: (Patterns, compiled where used: every read imports this module, few need them.)
TOKEN_GATE = r"\S{16}|(?i:basic)\s"
#: A ``password`` after the text's first ``machine`` or ``default`` and a blank (``a_netrc_entry`` asks it with
#: ``str``'s methods): "no machine found", "using default settings" name no entry. From the text's start, and the
#: walk to that first word atomic, so a text of many such words is read once (an atomic group, not ``*+``: before
#: 3.11.5 Python's possessive repeat walked past a failing lookahead, and the pattern missed every entry).
NETRC_GATE = r"\A(?>(?:(?!(?:machine|default)\s)[\s\S])*)(?:machine|default)\s[\s\S]*password"
#: ``ARGUMENT_WORDS`` as a pattern's alternatives, a word's ``(`` read as itself (``login(``).
_ARGUMENT_WORDS_PATTERN = "|".join(word.replace("(", "\\(") for word in ARGUMENT_WORDS)
#: A word holding a secret's noun set apart from a value by no ``:`` or ``=`` (``redact._SECRET_VARIABLE``): a
#: Markdown table's cell (``| SECRET_KEY | … |``, in code or bold, a word or a number after it: ``| **Password** |
#: … |``, ``| API key 2 | … |``), a call's first argument (``setdefault("SECRET_KEY", "…")``), a
#: name Windows' ``setx`` or fish's ``set -gx`` gives a value. (The word is read from its start, its noun looked for
#: ahead: read from each noun in it, a word of ``keykey…`` would take time growing with its square.)
_A_WORD_NAMING_A_SECRET = rf"(?=[\w.-]*?(?i:{'|'.join(SECRET_NOUNS)}))[\w.-]*+"
_NAME_APART = (
    rf"(?<![\w.-]){_A_WORD_NAMING_A_SECRET}(?:(?:[ \t]+[\w.:-]+){{0,4}}[`*]{{0,3}}[ \t]*\||[\"'],)"
    rf"|(?<![^\s;&|?(=+\"'\[,`>])(?i:setx|set(?:[ \t]+-[a-z]+)+)[ \t]+{_A_WORD_NAMING_A_SECRET}[ \t]"
)


def may_set_a_name_apart(text: str, lowered: str) -> bool:
    """Whether ``_NAME_APART`` may find ``text`` (``lowered``: its lowercase), asked with ``str``'s methods: a noun
    and a ``|``, a quote before a ``,``, or ``setx`` or a ``set`` and a flag (more texts, never fewer)."""
    if not any(noun in lowered for noun in SECRET_NOUNS):
        return False
    return "|" in text or '",' in text or "'," in text or _a_set_command(lowered)


#: ``CONTEXT_GATE`` but ``NETRC_GATE`` (``redact._context_gate`` asks that one with ``a_netrc_entry``, not by a walk).
CONTEXT_GATE_BUT_NETRC = (
    rf"[:=<']|--|ENV[ \t]|[\s\"]-p|(?i:{_ARGUMENT_WORDS_PATTERN})|login[ \t]|\t(?:TRUE|FALSE)\t"
    rf"|(?i:define)[ \t]*\(|{_NAME_APART}"
)
CONTEXT_GATE = f"{CONTEXT_GATE_BUT_NETRC}|{NETRC_GATE}"


def a_netrc_entry(text: str) -> bool:
    """Whether ``NETRC_GATE`` finds ``text``: a ``password`` after its first ``machine`` or ``default`` that has a
    blank after it (what every ``.netrc`` entry with a password holds)."""
    first = -1
    for word in ("machine", "default"):  # (both of seven letters)
        at = text.find(word)
        while at != -1 and not text[at + 7 : at + 8].isspace():
            at = text.find(word, at + 1)
        if at != -1 and (first == -1 or at < first):
            first = at
    return first != -1 and text.find("password", first + 8) != -1


#: A secret named in a sentence ("the admin password is …", "use passphrase …", "login with admin:…") needs no
#: separator: its rule (``redact._sentences``) runs on a text whose lowercase holds one of these nouns as a word of
#: its own (a plural too: "passwords"), "cred…" at a word's start or "key" after a word saying what it opens ("api
#: key is", "apikey is"), and one of these verbs or links, which every text it matches holds once a tab or a no-break space
#: is read as a space: a failed command's "tests passed on linux", "the build log of" or "unexpected token < in json"
#: imports no rules.
SENTENCE_NOUNS = ("password", "passwd", "passphrase", "passcode", "pw", "pwd", "secret", "token", "login", "log in",
                  "logged in", "logging in")  # fmt: skip
#: What names the key a "key" opens in the rule ("api key", "apikey", "secret key").
KEY_QUALIFIERS = tuple(
    f"{word}{blank}"
    for word in ("api", "access", "secret", "private", "auth", "admin", "master")
    for blank in ("", " ")
)
# (then a blank, a colon or a line's end: ``_VERB_ENDS``; "will be", "has been" end with the last two)
SENTENCE_VERBS = (" is", " was", " are", " were", " be", " been")
#: A password's full names, which give a value with a blank alone ("chat: password hunter2"): each is a link too.
SENTENCE_PASSWORD_NAMES = ("password ", "passwd ", "passphrase ", "passcode ")
#: The common ones first: ``_a_link`` stops at the first it finds, and a text without a password's name was read
#: whole four times before " for " was asked.
SENTENCE_LINKS = (
    " for ",
    " of ",
    " on ",
    " to ",
    "'s ",
    "\u2019s ",
    "use ",
    "using ",
    "enter ",
    "try ",
    "with ",
    " as ",
    *SENTENCE_PASSWORD_NAMES,
)
_VERB_ENDS = frozenset(" :\n\r\\")  # (a backslash: a JSON string's escaped line end, ``is\n``)


#: What every noun above holds. A short text (a title, a command, a line of code) seldom holds one, and seven tests
#: for them answer it before the links' sixteen; a long one nearly always does, and is asked for the links first.
_NOUN_STEMS = ("pass", "pw", "secret", "token", "key", "log", "cred")
_SHORT = 200
#: ``SENTENCE_NOUNS`` under the stem each holds: a noun is looked for only in a text holding its stem, one search
#: where there were four for the password's names and four for logging in.
_NOUNS_BY_STEM = tuple(
    (stem, tuple(noun for noun in SENTENCE_NOUNS if stem in noun)) for stem in ("pass", "pw", "secret", "token", "log")
)


def may_name_a_secret(lowered: str) -> bool:
    """Whether a lowercased text may name a secret in a sentence, in English or in other words."""
    return may_name_a_secret_in_english(lowered) or may_name_a_secret_in_other_words(lowered)


def may_name_a_secret_in_english(lowered: str) -> bool:
    """Whether a lowercased text may name a secret in a sentence: it holds a link and a noun of the rule's. (A tab or
    a no-break space is read as a space only in a text with no link otherwise: most texts hold neither.)"""
    if len(lowered) <= _SHORT and not any(stem in lowered for stem in _NOUN_STEMS):
        return False
    if _an_aside_after_a_noun(lowered):
        return True
    if not _a_link(lowered):
        if "\t" not in lowered and "\u00a0" not in lowered:
            return False
        if not _a_link(lowered.replace("\t", " ").replace("\u00a0", " ")):
            return False
    return (
        _a_word(lowered, "key", after=KEY_QUALIFIERS)
        or _a_word(lowered, "cred", end=False)
        or any(_a_word(lowered, noun) for stem, nouns in _NOUNS_BY_STEM if stem in lowered for noun in nouns)
    )


#: What gives a noun its value with no verb in ``redact``'s sentence rule (``_SENTENCE_LINK``): a qualifier in
#: brackets ("password (prod): …"), a dash or an arrow ("**API key** — …", "token → …"), a participle ("token
#: generated: …"); each after a blank.
ASIDES = ("(", "\u2014", "\u2013", "\u2192", "->", "-") + tuple(
    f"{again}{done}"
    for again in ("", "re")
    for done in ("generated", "created", "issued", "rotated", "reset", "changed", "updated")
)
#: The nouns an aside may follow (``redact._SENTENCE_NOUN``, each as its last letters: "api key", "db password").
_ASIDE_NOUNS = ("password", "passwd", "passphrase", "passcode", "pw", "pwd", "secret", "token", "key")


def _an_aside_after_a_noun(lowered: str) -> bool:
    """Whether an aside (``ASIDES``) follows a noun of the sentence rule's, its plural's ``s`` and two Markdown marks
    at most and a blank or more between (``password (prod):``, ``**api key** —``, ``tokens generated``): "unexpected
    token (3:10)" does too, "invalid token - please log in" too, "npm run build -- --prod" does not. Read from each
    noun, rarer than a dash in code."""
    for noun in _ASIDE_NOUNS:
        at = lowered.find(noun)
        while at != -1:
            end = at + len(noun)
            end += lowered.startswith("s", end)
            marks = end
            while marks < len(lowered) and marks - end < 2 and lowered[marks] in "*`":
                marks += 1
            blanks = marks
            while blanks < len(lowered) and lowered[blanks] in " \t\u00a0":
                blanks += 1
            if blanks > marks and lowered.startswith(ASIDES, blanks):
                return True
            at = lowered.find(noun, at + 1)
    return False


def _a_link(lowered: str) -> bool:
    """Whether ``lowered`` holds a link, or a verb with a blank, a colon or a line's end after it (``" issue"`` holds
    ``" is"``: each place the verb is found is looked at, in one scan of the text)."""
    if any(link in lowered for link in SENTENCE_LINKS):
        return True
    for verb in SENTENCE_VERBS:
        at = lowered.find(verb)
        while at != -1:
            if lowered[at + len(verb) : at + len(verb) + 1] in _VERB_ENDS:
                return True
            at = lowered.find(verb, at + 1)
    return False


#: What may follow a noun of the rule's (or its plural's ``s``): a blank before its link, Markdown's ``**``/`````, a
#: possessive's quote.
_AFTER_A_NOUN = frozenset(" \t\u00a0*`'\u2019")


#: What a word holds to an ASCII ``\b`` in a lowercased text (``str.lower`` leaves no ASCII capital): a noun right
#: after one is inside a word. The one test of it, here and in ``redact``'s rules.
WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _a_word(lowered: str, word: str, end: bool = True, after: tuple[str, ...] = ()) -> bool:
    """Whether ``word`` is in ``lowered`` with no ASCII letter, digit or ``_`` before it (``WORD_CHARS``), or one of
    ``after`` right before it, and (``end``) what may follow a noun after it or after its plural's ``s``
    (``_AFTER_A_NOUN``)."""
    at = lowered.find(word)
    while at != -1:
        if lowered.endswith(after, 0, at) if after else not (at and lowered[at - 1] in WORD_CHARS):
            ends = at + len(word)
            ends += lowered.startswith("s", ends)
            if not end or lowered[ends : ends + 1] in _AFTER_A_NOUN:
                return True
        at = lowered.find(word, at + 1)
    return False


#: A secret named in another language (``redact._in_other_words``): its names for a password or a key in a Latin
#: script, given a value by a verb or a colon ("mot de passe", "Passwort", "Kennwort", "wachtwoord", "clave", "senha",
#: "jeton", "mdp", "chave", "chiave", "sleutel"; outside ASCII "contraseña", "clé", "Schlüssel", "Passwörter" too);
#: "token" by a verb of those languages alone, and the Italian "password" by "è" (a colon, "is" or "was" after them
#: are English's); and the names other scripts write, by any link. A text in ASCII, most texts, pays eleven substring
#: tests for the names ("tests passed: 3" holds none) and a few
#: for the characters after each "token" (code is full of them); a name outside ASCII is looked for only where its
#: first character is (a test of one character is a twentieth of one of a word).
OTHER_NOUNS_ASCII = ("de passe", "passwort", "kennwort", "wachtwoord", "clave", "senha", "jeton", "mdp", "chave", "chiave",
                     "sleutel")  # fmt: skip
OTHER_VERBS_ASCII = (" est ", " c'est ", " ist ", " lautet ", " war ", " es ", " era ", " e' ", " luidt ", " sont ",
                     " sind ", " son ", " zijn ")  # fmt: skip
OTHER_LINKS_ASCII = (*OTHER_VERBS_ASCII, " is ", " was ", ":", "=")
ACCENTED_VERBS = (" é ", " è ", " était ", " c\u2019est ", " são ")
OTHER_NOUNS = (*OTHER_NOUNS_ASCII, "contraseña", "clé", "schlüssel", "passwört", "kennwört")
OTHER_VERBS = (*OTHER_VERBS_ASCII, *ACCENTED_VERBS)
OTHER_LINKS = (*OTHER_LINKS_ASCII, *ACCENTED_VERBS)
SCRIPT_NOUNS = ("пароль", "пароли", "токен", "密码", "口令", "密钥", "秘钥", "令牌", "パスワード", "トークン", "キー", "비밀번호", "암호",
                "패스워드", "토큰", "키")  # fmt: skip
#: A user and its password given as a pair ("the staging creds are deploy / Wm4$kR9pLx", "creds: deploy/…").
PAIR_LINKS = (" are ", " were ", " is ", ":")


def may_name_a_secret_in_other_words(lowered: str) -> bool:
    """Whether a lowercased text may name a secret in another language, or give a user and its password as a pair:
    it holds a name of the rule's and its link, or "cred", a slash and a link."""
    if "/" in lowered and "cred" in lowered and any(link in lowered for link in PAIR_LINKS):
        return True
    if lowered.isascii():
        return _named(lowered, OTHER_NOUNS_ASCII, OTHER_LINKS_ASCII) or _verb_after(lowered, "token", OTHER_VERBS_ASCII)
    return (
        any(noun[0] in lowered and noun in lowered for noun in SCRIPT_NOUNS)
        or _starts_a_word(lowered, "ключ")
        or _named(lowered, OTHER_NOUNS, OTHER_LINKS)
        or _verb_after(lowered, "token", OTHER_VERBS)
        or _verb_after(lowered, "password", ACCENTED_VERBS)
    )


def _starts_a_word(lowered: str, noun: str) -> bool:
    """Whether ``noun`` starts a word of ``lowered``: Russian's "ключ" (a key) is inside "подключение" (a connection),
    in many an error a failed command prints, which would load the rules for nothing."""
    at = lowered.find(noun)
    while at != -1:
        if not (at and lowered[at - 1].isalnum()):
            return True
        at = lowered.find(noun, at + 1)
    return False


#: The blanks the rule reads as a space around a verb: a tab, a line's end (the value on the next line), and the
#: no-break spaces French puts before a colon. Looked for only where a name is and no link was found as written
#: (``str.isprintable`` is false for each of them: one C call says whether a text may hold one).
_BLANKS = str.maketrans("\t\r\n\u00a0\u202f", "     ")


def _named(lowered: str, nouns: tuple[str, ...], links: tuple[str, ...]) -> bool:
    if not any(noun in lowered for noun in nouns):
        return False
    return _a_link_in(lowered, links) or (not lowered.isprintable() and _a_link_in(lowered.translate(_BLANKS), links))


def _a_link_in(text: str, links: tuple[str, ...]) -> bool:
    return any(link in text for link in links)


#: How far after "password" or "token" the rule looks for a verb: the word, five words of 30 characters and a blank
#: each, and the longest verb between blanks.
SHARED_REACH = len("password") + 5 * 31 + len(" lautet ")


def _verb_after(lowered: str, noun: str, verbs: tuple[str, ...]) -> bool:
    """Whether one of ``verbs`` is in the ``SHARED_REACH`` characters that begin with a ``noun`` of ``lowered``.

    A text saying the noun more often than there are verbs is looked at from each verb back to a noun: a lexer's
    chat says "token" thousands of times and these verbs seldom (a 42 MB transcript of "token stream" talk spent 5 of
    its 13.5 s indexing in the windows after each "token")."""
    count = lowered.count(noun)
    if not count:
        return False
    if count <= len(verbs):
        at = lowered.find(noun)
        while at != -1:
            reach = lowered[at : at + SHARED_REACH]
            if _a_link_in(reach, verbs) or (not reach.isprintable() and _a_link_in(reach.translate(_BLANKS), verbs)):
                return True
            at = lowered.find(noun, at + 1)
        return False
    text = lowered if lowered.isprintable() else lowered.translate(_BLANKS)  # (one character for one: same places)
    for verb in verbs:
        at = text.find(verb)
        while at != -1:
            # the first noun that starts at most SHARED_REACH - len(verb) characters before the verb: the verb is
            # within its reach unless it starts after the verb; then a later verb needs a noun at or before it, and
            # none lies before this one (from verb to noun and back: a text full of verbs and a few nouns far from
            # them, Spanish around a lexer's code, is not looked at verb by verb)
            noun_at = text.find(noun, max(at + len(verb) - SHARED_REACH, 0))
            if noun_at == -1:
                break
            if noun_at <= at:
                return True
            at = text.find(verb, noun_at)
    return False


def as_indexed(text: str, *, whatever_the_setting: bool = False) -> str:
    """A person's text (an error, a command) as the index holds such text: redacted when redaction is on (or
    ``whatever_the_setting``).

    A secret in it would never match its indexed ``[redacted:…]`` form, and would be echoed back; every place
    that looks a user's error or command up in the index goes through here. The rules are imported (a few ms,
    on a hook's path) only when a gate says the text may hold a secret and a rule may change it
    (``_may_be_changed``).
    """
    if not text or not any(_may_pass_a_gate(read) and _may_be_changed(read) for read in _and_as_seen(text)):
        return text
    if not whatever_the_setting and not enabled():
        return text
    from .redact import scrub

    return scrub(text)


#: How much of a value an answer repeats (a session id, a project, a query, a folder): enough to recognise it by its
#: start; a blob pasted by mistake as one (a log, a file, megabytes) is never echoed back whole (trial17 F4).
ECHO_CHARS = 80
#: ...and of a folder or a file's path (a project may be one): Windows' ``MAX_PATH``, longer than nearly any real
#: path (one of 95 characters is common, and cut at 80 it lost the file's name), a few lines at most.
PATH_CHARS = 260
#: ...and of a value an answer's JSON field gives back whole (``query``, ``error``, ``path``): a question or a
#: traceback a person pastes stays whole, a megabyte pasted by mistake does not (review38b M2: 80 cut questions).
FIELD_CHARS = 4096


def echoed(value: str, limit: int = ECHO_CHARS) -> str:
    """``value`` as a message or an answer's field repeats it: a secret in it as the index holds it (``as_indexed``,
    before it is cut: a cut token no longer looks like one, review20 R20-1); a value longer than ``limit`` characters,
    or not on one line, on one line and cut to ``limit`` with "…"."""
    return _cut(as_indexed(value), limit)


def refused(value: object, limit: int = ECHO_CHARS) -> str:
    """A setting's value as the config's refusal repeats it, in ``repr``'s quotes: as ``echoed`` does, but a secret
    in it redacted whether redaction is on or not. Whether it is on is a setting, maybe the one being refused: reading
    it to decide refused it again, and again."""
    shown = as_indexed(value, whatever_the_setting=True) if isinstance(value, str) else value
    return repr(_cut(shown, limit)) if isinstance(shown, str) else _cut(repr(shown), limit)


def _cut(value: str, limit: int) -> str:
    """``value`` on one line and cut to ``limit`` characters with "…" when it is longer or not on one line."""
    if len(value) <= limit and value.isprintable():
        return value
    return cut(" ".join(value.split()), limit)


def repeated(value: str) -> str:
    """``value`` as an answer's field gives it back: a secret in it as the index holds it (``as_indexed``), its lines
    as given, and past ``FIELD_CHARS`` characters its head with "…" (``echoed`` is for a message's line)."""
    value = as_indexed(value)
    return cut(value, FIELD_CHARS)


#: A secret shorter than this, found in what a person typed, is not looked for in deja's answers: replaced
#: wherever it occurs, it cut into words that have nothing to do with it (``PGPASSWORD=postgres`` made every
#: "postgres" in the hits' titles ``[redacted:secret]``, review20 R20-4). Such a value is still redacted where an
#: answer names it as typed (an error line, ``quoted_query``).
TYPED_SECRET_CHARS = 12
MARKER = "[redacted:"


def typed_secrets(values: Iterable[str]) -> dict[str, str]:
    """The secrets in what a person typed (a command's arguments, a tool call's values), each mapped to what the
    index writes instead (``as_indexed``), as typed and as JSON or Python would escape it: what deja's answers must
    not print back (``hidden``). Only a value that names a secret or holds what may be a key loads the rules, as
    ``without_secrets`` asks: ``deja search "command: docker build"`` loads no ``re``."""
    found: dict[str, str] = {}
    for value in values:
        if not _may_hold_a_secret(value):
            continue
        scrubbed = as_indexed(value)
        if scrubbed == value:
            continue
        # The value whole, where an answer names it as typed (``--project PGPASSWORD=hunter2pw``: a secret too short
        # to look for alone, review21 R21-1), then each secret long enough to look for anywhere.
        pairs = [(value, scrubbed), *((value[start:end], marker) for start, end, marker in replaced(value, scrubbed))]
        for secret, marker in pairs:
            if len(secret) >= TYPED_SECRET_CHARS:
                found[secret] = marker
                found[_escaped(secret)] = marker
    return found


def replaced(value: str, scrubbed: str) -> list[tuple[int, int, str]]:
    """Each (start, end, marker) where ``scrubbed`` replaced ``value[start:end]``: the text around each marker is
    kept as it was, so the secret is what lies between that text in ``value`` (two tokens in one argument are two
    secrets, not the span from the first to the last: review20 R20-2); markers side by side are one span (the secrets
    of ``AKIA…LS0tLS1…``: the spans after them were lost, and with them what ``redact`` put back of an escaped one)."""
    spans: list[tuple[int, int, str]] = []
    pieces = scrubbed.split(MARKER)
    if pieces[0] != value[: len(pieces[0])]:
        return spans
    at = len(pieces[0])  # (in ``value``)
    side_by_side = ""  # (markers with nothing between: one span, where one secret ends in it is not known)
    for number, piece in enumerate(pieces[1:], start=1):
        close = piece.find("]")
        if close < 0:
            break
        marker, after = MARKER + piece[: close + 1], piece[close + 1 :]
        last = number == len(pieces) - 1
        if not after and not last:
            side_by_side += marker
            continue
        end = len(value) - len(after) if last else value.find(after, at + 1)
        if end < at or (last and not value.endswith(after)):
            break
        spans.append((at, end, side_by_side + marker))
        side_by_side = ""
        at = end + len(after)
    return spans


def _escaped(secret: str) -> str:
    """``secret`` as a JSON string holds it (``\"``, ``\\``): an answer's ``--json`` is checked as written."""
    return secret.replace("\\", "\\\\").replace('"', '\\"')


def hidden(text: str, secrets: dict[str, str]) -> str:
    """``text`` with each of ``secrets`` (``typed_secrets``) as the index writes it, the longest first (a value whole
    before the secret inside it)."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, secrets[secret])
    return text


def without_secrets(text: str, names: bool = True) -> str:
    """A person's text (a prompt) with its secrets left out: the words a search for it can match; without ``names``,
    the name each is assigned to too (``NAME=secret``, ``"name": "secret"``).

    The index holds a secret as ``[redacted:…]``, so the pieces of one pasted in a prompt are words no session
    holds, and counted as what the prompt asks, they kept a prompt that carried a password and a token from recalling
    the session it was about (trial10 F12); nor are the marker's own words asked. The name a secret is assigned to is
    no more what a prompt asks than the secret is: ``AWS_SECRET_ACCESS_KEY=…`` in a prompt about alembic recalled
    the session where keys were pasted, through that name alone (trial21 F7). Only a text that names a secret or
    holds what may be a key (``may_be_a_key``) loads the rules: most prompts hold a colon or an equals sign, which
    ``as_indexed``'s wider gate would load them for (about 5 ms, on every prompt's hook)."""
    if not _may_hold_a_secret(text):
        return text
    scrubbed = as_indexed(text)
    while (start := scrubbed.find("[redacted:")) >= 0:
        end = scrubbed.find("]", start)
        end = len(scrubbed) if end < 0 else _escapes_end(scrubbed, end + 1)
        start = _escapes_start(scrubbed, start)
        start = start if names else _assigned_from(scrubbed, start)
        scrubbed = scrubbed[:start] + " " + scrubbed[end:]
    return scrubbed


#: The longest escape ``escape_ending`` looks back for: a URL's four bytes of one character (``%F0%9F%98%80``), a JSON
#: string's surrogate pair (``\\ud83d\\udd11``), ``\\U0001F600``, ``&NewLine;``: a token after an emoji so escaped was
#: read as inside a word, and kept (review44a L1).
_LONGEST_ESCAPE = 12
#: A JSON or C string's escapes of one character after the backslash, and what each stands for.
_BACKSLASHED = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", '"': '"', "'": "'", "\\": "\\",
                "/": "/"}  # fmt: skip


def _escape_read(text: str, at: int) -> tuple[str, int] | None:
    """The character the escape that starts at ``at`` of ``text`` stands for and where it ends, None where none
    starts: one the escape reader reads (``escapes.escape_at``: ``%22``, ``\\u0022``, ``&quot;``, ``&#x27;``), or a
    JSON or C string's ``\\n``, ``\\"`` and surrogate pair (``surrogate_pair_at``). What a secret was pasted wrapped in
    when copied out of JSON, a log or a web page."""
    mark = text[at : at + 1]
    if mark == "\\" and (character := _BACKSLASHED.get(text[at + 1 : at + 2])) is not None:
        return character, at + 2
    if mark == "\\" and (pair := surrogate_pair_at(text, at)) is not None:
        return pair
    return escape_at(text, at) if mark and mark in "%&\\" else None


def escape_ending(text: str, at: int) -> tuple[str, int] | None:
    """The character an escape (``_escape_read``) that ends at ``at`` of ``text`` stands for and where it starts,
    None where none ends there."""
    for size in range(2, min(at, _LONGEST_ESCAPE) + 1):
        escape = _escape_read(text, at - size)
        if escape is not None and escape[1] == at:
            return escape[0], at - size
    return None


def _escapes_start(text: str, at: int) -> int:
    """Where the escapes right before ``at`` start (``at`` when none is): a secret pasted as ``&quot;ghp_…&quot;``
    or ``%22ghp_…%22`` left "quot" or "22" a word to search on (review43c M2)."""
    while (escape := escape_ending(text, at)) is not None:
        at = escape[1]
    return at


def _escapes_end(text: str, at: int) -> int:
    """Where the escapes from ``at`` on end: after a secret, a JSON string's ``\\n`` left the word "n"."""
    while (escape := _escape_read(text, at)) is not None:
        at = escape[1]
    return at


def _assigned_from(text: str, start: int) -> int:
    """Where the name that the secret at ``start`` is assigned to begins (``NAME=``, ``name: ``, ``"name": "``,
    quotes and blanks around the sign), or ``start`` when it follows no such name (``token ghp_…``, a URL's
    ``://:secret@``)."""
    at = start
    while at and text[at - 1] in " \t\"'":
        at -= 1
    if not at or text[at - 1] not in "=:":
        return start
    at -= 1
    while at and text[at - 1] in " \t\"'":
        at -= 1
    end = at
    while at and (text[at - 1].isalnum() or text[at - 1] in "_-."):
        at -= 1
    return at if at < end else start


def _may_hold_a_secret(text: str) -> bool:
    """Whether a person's text (a prompt, a value typed) names a secret, holds what may be a key or a table's cell
    naming a secret (``| DB_PASSWORD | … |``), as written or as a terminal shows it (``_and_as_seen``): only such a text loads the rules in ``without_secrets``."""
    return any(
        may_name_a_secret(read.lower())
        or any(may_be_a_key(word) for word in read.split())
        or _a_cell_naming_a_secret(read)
        for read in _and_as_seen(text)
    )


def _and_as_seen(text: str) -> tuple[str, ...]:
    """``text``, and ``text`` as a terminal shows it where that differs (``as_seen``): a gate that looks at the text
    as written alone let a secret with an invisible character inside it through to the answer (review47a M2)."""
    seen = as_seen(text)[0]
    return (text, seen) if seen else (text,)


def may_be_a_key(word: str) -> bool:
    """Whether a word of a prompt or a query may be a pasted key, or hold one: 16 characters or more. (A test for a
    path's shape let keys through: a git remote's ``token@host/org/repo.git``, a key followed by ``/README.md``,
    review14 R14-1; a long path loads the rules, about 2 ms, only where it holds a token rule's needle:
    ``_may_be_changed``.)"""
    return len(word) >= 16


def _may_pass_a_gate(text: str) -> bool:
    """Whether ``TOKEN_GATE`` or ``CONTEXT_GATE`` may find ``text``, asked with ``str``'s methods: a Shell hook for a
    command that never failed loads no ``re`` (about 3 ms). It says yes wherever a gate would (``ENV`` without the
    blank after it, ``-p`` anywhere, ``basic`` anywhere: more texts, never fewer), and ``scrub`` asks the gates."""
    if any(c in text for c in ":=<'") or "--" in text or "-p" in text or "ENV" in text or "login" in text:
        return True
    if "\tTRUE\t" in text or "\tFALSE\t" in text or a_netrc_entry(text):
        return True
    lowered = text.lower()
    if "basic" in lowered or "define" in lowered or any(word in lowered for word in ARGUMENT_WORDS):
        return True
    if may_set_a_name_apart(text, lowered):
        return True
    if may_name_a_secret(lowered):
        return True
    if any(len(word) >= 16 for word in text.split()):  # a run of 16 characters without a blank: ``\S{16}``
        return True
    decoded = unescaped(text)[0]  # (``scrub`` reads it too)
    return bool(decoded) and _may_pass_a_gate(decoded)


#: What a text must hold for ``redact.scrub`` to change it, but a token (``TOKEN_NEEDLES``), a ``.pgpass`` line or
#: a named secret: a needle of a keyed rule (``redact._KEYED_RULES``, the rules a separator lets a text be asked)
#: or of the assignments (``SECRET_NOUNS``). A lowercase needle is looked for in the lowercased text,
#: any other as written, as ``redact`` looks for them; ``tests/test_redact_lazy.py`` checks that these are the
#: rules' own.
KEYED_NEEDLES = ('"sensitive"', "--", "-----", "|", "<input", "</td>", "</th>", "</dt>", "</b>", "</strong>", "</em>",
                 "</i>", "</u>", "</label>", "</span>", "--cookie", "-b", "-u", ".dockerconfigjson", ":\t>", ":\t|", ":   >",
                 ":   |", ":  >", ":  |", ": >", ": |", "://", "</", "> auth", ">auth", "@", "E\t", "ENV", "auth",
                 "npmAuthIdent", "YARN_NPM_AUTH_IDENT",
                 "buildah", "cookie", "define", "docker", "identified", "key", "login", "mariadb", "masterauth", "mysql",
                 "nerdctl", "oras", "pass", "password", "podman", "pw", "redis-", "redis-cli", "rediscli_auth",
                 "requirepass", "secret", "sentry", "skopeo", "sshpass", "token", "sqlcmd", "mongo", "7z", "ldap", "keytool", "htpasswd", "ldappasswd",
                 "rabbitmqctl", "openssl", "ssh-keygen", "zip", "rar ", "rar.exe", "mosquitto_", "Value=", "value=", 'value"',
                 "value'", 'value\\"', 'value = "', "value = '", 'value: "', "value: '", 'value:"', "value:'", "name: ", "key: ",
                 "--with-token", "--password-stdin", "curl", "http", "xh", "user", "bearer",
                 # (``redact._LOGIN_RULES``)
                 "kinit", "psexec", "vault", ":_auth", ":_password", "login(", "auth(", "sqlplus", "sqlcl", "expdp",
                 "impdp", "sqlldr", "dgmgrl", "userid=", "rman", "influx", "set password", "git config", "snyk",
                 "codecov", "--auth", "functions:config:set", "wandb",
                 # (``redact._FED_AND_STORED_RULES``)
                 "sudo", "passwd", "chpasswd", "wrangler", "vercel", "gcloud", "doppler", "secret create",
                 "secretsmanager", "put-parameter", "keyvault", "twine", "poetry", "nuget", "convertto-securestring",
                 "net use", "net.exe use", "ngrok", "alias set", "host add", "functions:secrets:set", "secrets set", "setapikey", "from-literal",
                 "config:set", "env:set", "rclone", "vault-pass", "vault-id", "send",
                 # (a Kubernetes Secret's ``data:``)
                 "kind: secret", '"kind": "secret"', '"kind":"secret"')  # fmt: skip


#: The needles of the token rules (``redact._TOKEN_RULES``, the rules a run of 16 characters lets a text be asked):
#: a text holding none of them is changed by none of those rules. Looked for as ``KEYED_NEEDLES`` are;
#: ``tests/test_redact_lazy.py`` checks that these are the rules' own.
TOKEN_NEEDLES = ("PRIVATE KEY", "-----END", "LS0tLS1CRUdJTi", "Private-Lines:", "sk-ant-", "sk-", "k_live_", "k_test_",
                 "whsec_", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "gh",
                 "github_pat_", "gl", "AIza", "GOCSPX-", "ya29.", "1//0", "xox", "xapp-", "https://hooks.slack.com/",
                 ".com/api/webhooks/", ".webhook.office.com/webhookb2/", "outlook.office.com/webhook/",
                 "outlook.office365.com/webhook/", "/hooks/", "qyapi.weixin.qq.com/cgi-bin/webhook/",
                 "/open-apis/bot/v2/hook/", "hooks.zapier.com/hooks/", "maker.ifttt.com/", "/v1/webhooks/incoming/",
                 "make.com/", "integromat.com/", "SG.", "hf_", "_v1_", "npm_", "HRKU-AA", "pypi-", "key-", ":aa", "shp", "hv",
                 "AGE-SECRET-KEY-1", "dapi", "lin_api_", "PMAK-", "NRAK-", "dp.", "sq0", "gsk_", "r8_", "xai-", "pplx-",
                 "sbp_", "dckr_pat_", "figd_", "secret_", "ntn_", "ATATT3", "ATCTT3", "pul-", "tskey-", "sntry",
                 "pscale_", ".atlasv1.", "ops_eyJ", "FlyV1 ", "fm1", "fm2_", "fo1_", "sk.eyJ", "re_", "SK", "AC", ".",
                 ".eyJ", "EAA", "Key", "\"keyName\"", "sig=", "secret", "aws_secret_access_key", "aws_access_key_id", "aws_session_token",
                 "aws secret access key", "aws access key id", "aws session token", "vault token", "bearer", "basic",
                 "authorization")  # fmt: skip
#: The shortest run a needle's rules need (``Rule.run``), where one needs more than the gate's 16: a text holding the discord bot
#: token's ``.`` (every sentence) is asked only with a run of 59.
TOKEN_RUNS = {".": 59, "vault token": 26}


def _may_be_changed(text: str) -> bool:
    """Whether ``redact.scrub`` may change ``text``, asked without importing its rules: a failed command's output
    nearly always holds a colon, which passes the context gate, and the failure hook imported the rules (about 5 M
    instructions, an eighth of ``python -c pass``) to change nothing. It may where a token rule may run (``_may_hold_a_token``), a keyed rule or the
    assignments may (``KEYED_NEEDLES``), a line may be a ``.pgpass`` one, or a sentence may name a secret: what
    ``scrub`` asks, in its order, of the text as written and as its escapes read (once: ``unescaped``).
    ``tests/test_redact_lazy.py`` checks that a text it says no to comes back from ``scrub`` as it was."""
    if _may_be_changed_as_written(text):
        return True
    decoded = unescaped(text)[0]  # (``scrub`` reads it too)
    return bool(decoded) and _may_be_changed_as_written(decoded)


def _may_be_changed_as_written(text: str) -> bool:
    """``_may_be_changed`` of ``text`` as written. Around a common needle (``NEEDED_AROUND``) it asks what the rules
    that needle calls on need there, but in a text holding a character a case-blind pattern reads as an ASCII letter
    (``folds_into_ascii``), which ``str.lower`` does not show, or one a terminal does not show (``holds_unseen``:
    ``token\u200b: …``, which ``scrub`` reads as ``as_seen`` gives it, review51b L1): there the needle alone says
    yes, as before."""
    lowered = text.lower()
    exact = len(lowered) == len(text) and not folds_into_ascii(text) and not holds_unseen(text)
    if _may_hold_a_token(text, lowered, exact):
        return True
    if _a_keyed_rule_may_run(text, lowered, exact):
        return True
    return may_hold_a_pgpass_line(text) or may_name_a_secret(lowered)


def _a_keyed_rule_may_run(text: str, lowered: str, exact: bool) -> bool:
    """Whether ``text`` holds a needle of ``KEYED_NEEDLES`` and, where the needle is a common one and ``exact``,
    what its rules need around it (``NEEDED_AROUND``; each asked once)."""
    asked: dict[Callable[[str, str], bool], bool] = {}
    for needle in KEYED_NEEDLES:
        if needle not in (lowered if needle.islower() else text):
            continue
        needed = NEEDED_AROUND.get(needle) if exact else None
        if needed is None:
            return True
        if needed not in asked:
            asked[needed] = needed(text, lowered)
        if asked[needed]:
            return True
    return False


def _may_hold_a_token(text: str, lowered: str, exact: bool) -> bool:
    """Whether a token rule may change ``text`` (``lowered``: its lowercase): the token gate may pass (a run of 16
    characters, or a text outside ASCII or holding "basic": ``redact._token_gate``) and the text holds a needle of
    a token rule, with as long a run as that rule needs (``TOKEN_NEEDLES``, ``TOKEN_RUNS``) and, where ``exact``
    (``_may_be_changed_as_written``), what it needs around it (``TOKEN_NEEDED_AROUND``): ``scrub`` runs only
    those rules. A prompt naming a path of 16 characters (``src/vojegu_ziba.py``) loaded the rules for none of
    them to run: about 6 M instructions, a thirtieth of a recalling prompt's hook at 1k sessions."""
    longest = longest_run(text)
    gate = longest >= 16 or not text.isascii() or "basic" in lowered  # (``_token_gate``'s, without its pattern)
    return gate and any(
        needle in (lowered if needle.islower() else text)
        and longest >= TOKEN_RUNS.get(needle, 0)
        and (not exact or needle not in TOKEN_NEEDED_AROUND or TOKEN_NEEDED_AROUND[needle](text, lowered))
        for needle in TOKEN_NEEDLES
    )


#: The forms of a secret's noun in the rules (``redact._NOUNS``): what a flag's or an element's name ends with.
NOUN_FORMS = ("pass", "password", "passwd", "passphrase", "passcode", "pw", "pwd", "secret", "token", "key",
              "key_base", "key_id", "keyid")  # fmt: skip
#: What follows each of ``SECRET_NOUNS`` in the assignments' noun (``redact._NOUN_SEP``).
_NOUN_ENDS = {"pass": ("", "word", "wd", "phrase", "code"), "pw": ("", "d"), "secret": ("",), "token": ("",),
              "key": ("", "_base", "_id", "id")}  # fmt: skip
#: What ``redact._NOUN_SEP`` lets stand between a noun and its ``:`` or ``=`` but blanks (digits too: ``_2``, a
#: quote, an escape, a bracket, Markdown's emphasis).
_BEFORE_A_SIGN = frozenset("_\\\"']*`")


def _after(text: str, at: int, chars: str) -> int:
    """Where the run of ``chars`` that starts at ``at`` of ``text`` ends."""
    while at < len(text) and text[at] in chars:
        at += 1
    return at


#: What a secret variable's name may end with after its noun (``redact._SECRET_VARIABLE``), naming a deployment or
#: the keys a rotation keeps (``SECRET_KEY_PROD``, Django's ``SECRET_KEY_FALLBACKS``): the noun before it says what the
#: value is.
NAME_STAGES = ("prod", "production", "dev", "development", "staging", "stage", "test", "testing", "local", "qa", "uat",
               "live", "old", "new", "prev", "previous", "backup", "fallbacks", "fallback")  # fmt: skip


def _a_noun_given_a_value(text: str, lowered: str) -> bool:
    """What the rules called on by ``pass``, ``pw``, ``secret``, ``token`` and ``key`` need around one: a noun with
    a ``:`` or ``=`` after it (``redact._NOUN_SEP``, every assignment's), a comment after a blank and a word holding
    one (``redact._COMMENTED``, whose ``_commented`` asks ``secret_key`` of that word), or ``gh secret set``.
    "12 passed", ``KeyError: 'id'`` and "duplicate key value" hold none of them."""
    for stem, ends in _NOUN_ENDS.items():
        at = lowered.find(stem)
        while at != -1:
            end = at + len(stem)
            for noun_end in ends:
                if lowered.startswith(noun_end, end) and _a_sign_after(
                    lowered, _past_a_stage(lowered, end + len(noun_end))
                ):
                    return True
            at = lowered.find(stem, at + 1)
    return _a_comment_after_a_noun(text) or _gh_secret_set(text) or _a_set_command(lowered)


def _past_a_stage(lowered: str, at: int) -> int:
    """Where a name's stage (``_prod``: ``NAME_STAGES``) that starts at ``at`` of ``lowered`` ends, after the number
    the rule reads before it (``_2_prod``, ``1_prod``: ``redact._SECRET_VARIABLE``'s ``_?[0-9]{1,3}``, review61c F2),
    or ``at``."""
    numbered = at + lowered.startswith("_", at)
    digits = _after(lowered, numbered, "0123456789")
    start = digits if digits > numbered else at
    if lowered[start : start + 1] == "_":
        for stage in NAME_STAGES:
            if lowered.startswith(stage, start + 1) and _a_sign_after(lowered, start + 1 + len(stage)):
                return start + 1 + len(stage)
    return at


def _a_set_command(lowered: str) -> bool:
    """Whether ``lowered`` holds Windows' ``setx`` or a ``set`` and a flag after blanks (fish's ``set -gx``), which
    give a name its value after a blank (``redact._SECRET_VARIABLE``)."""
    at = lowered.find("set")
    while at != -1:
        after = _after(lowered, at + 3, " \t")
        if lowered[at + 3 : at + 4] == "x" or (after > at + 3 and lowered[after : after + 1] == "-"):
            return True
        at = lowered.find("set", at + 1)
    return False


def _a_sign_after(lowered: str, at: int) -> bool:
    """Whether what ``redact._NOUN_SEP`` reads after a noun (``_BEFORE_A_SIGN``, digits, then blanks) ends at ``at``
    of ``lowered`` in a ``:`` or ``=``."""
    while at < len(lowered) and (lowered[at] in _BEFORE_A_SIGN or lowered[at].isdigit()):
        at += 1
    at = _after(lowered, at, " \t\u00a0")
    if lowered[at : at + 1] == "," and lowered[at - 1 : at] in ("'", '"'):  # (``setdefault("SECRET_KEY", "…")``)
        return True
    return lowered[at : at + 1] in (":", "=", "|") or lowered[at : at + 2] == "?="


def _a_comment_after_a_noun(text: str) -> bool:
    """Whether a ``#`` has a blank before it and, on its line, a word holding a noun right before that blank: what
    ``redact._commented`` asks before it redacts a comment's value (``secret_key`` of that word, whose last word is
    a noun or holds one)."""
    at = text.find("#")
    while at != -1:
        if at and text[at - 1].isspace():
            words = text[max(0, at - 80) : at].rpartition("\n")[2].split()
            if words and any(stem in words[-1].lower() for stem in _NOUN_ENDS):
                return True
        at = text.find("#", at + 1)
    return False


def _gh_secret_set(text: str) -> bool:
    """Whether ``text`` holds ``secret`` then blanks and ``set`` (``gh secret set NAME --body …``'s rule)."""
    return _blanks_between(text, "secret", "set")


def _blanks_between(text: str, word: str, then: str) -> bool:
    """Whether ``text`` holds ``word``, one blank or tab or more, then ``then``."""
    at = text.find(word)
    while at != -1:
        after = _after(text, at + len(word), " \t")
        if after > at + len(word) and text.startswith(then, after):
            return True
        at = text.find(word, at + 1)
    return False


#: What ends a URL's user and password (``redact``'s URL rules read no blank, quote or bracket there).
_URL_USERINFO_ENDS = " \t\n\r\f\v\"'<>"
#: What ``redact``'s URL user (before its ``:``) holds none of.
_NOT_IN_A_USER = frozenset(_URL_USERINFO_ENDS + ":/@")


def _credentials_in_a_url(text: str, lowered: str) -> bool:
    """Whether a ``://`` has an ``@`` after it before a blank, a quote, a bracket or the next ``://`` (but one whose
    ``:`` ends a user, as a password opening ``//`` makes: ``https://user://pw@host``), and no ``/`` before that
    ``@`` but in a password (after the user's ``:``, trial60 F1): what the URL rules (``://``'s, ``@``'s and
    ``sentry``'s) need. ``https://react.dev/errors/185``, ``http://localhost:8000/api``, ``https://host/@me`` and
    ``web@0.1.0`` hold none."""
    at = text.find("://")
    while at != -1:
        following = text.find("://", at + 3)
        end = following
        if following != -1 and _NOT_IN_A_USER.isdisjoint(text[at + 3 : following]):
            end = text.find("://", following + 3)  # (that ``://``'s ``:`` is the user's)
        sign = text.find("@", at + 3, end if end != -1 else len(text))
        if sign != -1:
            userinfo = text[at + 3 : sign]
            user, slash, _ = userinfo.partition("/")
            if not any(c in userinfo for c in _URL_USERINFO_ENDS) and (":" in user or not slash):
                return True
        at = following
    return False


def _a_flag_named_a_secret(text: str, lowered: str) -> bool:
    """Whether a ``--`` starts a name of letters, digits, ``_`` and ``-`` that ends with a noun (``NOUN_FORMS``) and
    has a ``=``, a blank or a tab after it: what ``redact._FLAG`` needs (``--api-key=…``, ``--password …``).
    pytest's ``platform linux -- Python``, its ``-----`` rules and ``git push --help`` hold none."""
    at = text.find("--")
    while at != -1:
        end = at + 2
        while end < len(text) and (text[end].isalnum() or text[end] in "_-"):
            end += 1
        if text[end : end + 1] in ("=", " ", "\t") and text[at + 2 : end].lower().endswith(NOUN_FORMS):
            return True
        at = text.find("--", max(end, at + 1))
    return False


def _a_key_value_table(text: str, lowered: str) -> bool:
    """Whether ``Key``, blanks and ``Value`` are in ``text``: the head of Vault's table (``redact``'s ``-----``
    rule). pytest's ``----- Captured stdout -----`` holds none."""
    return _blanks_between(text, "Key", "Value")


def _a_define_call(text: str, lowered: str) -> bool:
    """Whether ``define``, blanks or tabs and a ``(`` are in ``lowered``: PHP's ``define(`` (``redact``'s rule).
    Node's ``ReferenceError: window is not defined`` holds none."""
    at = lowered.find("define")
    while at != -1:
        if lowered.startswith("(", _after(lowered, at + 6, " \t")):
            return True
        at = lowered.find("define", at + 1)
    return False


def _an_element_named_a_secret(text: str, lowered: str) -> bool:
    """Whether a ``</`` closes an element whose name (letters, digits, ``_``, ``.``, ``-``) ends with a noun
    (``NOUN_FORMS``): what ``redact._XML`` needs (``<password>…</password>``). JSX's ``</h1>`` is none."""
    at = text.find("</")
    while at != -1:
        end = at + 2
        while end < len(text) and (text[end].isalnum() or text[end] in "_.-"):
            end += 1
        if text.startswith(">", end) and text[at + 2 : end].lower().endswith(NOUN_FORMS):
            return True
        at = text.find("</", at + 2)
    return False


def _a_cell_naming_a_secret(text: str, lowered: str = "") -> bool:
    """Whether a ``|`` in a line starting with one closes a table's cell that may name a secret: before it, after
    blanks and up to ``CELL_MARKS`` code or bold marks, a run of what a name holds (``cell_name``) holding a noun
    (``SECRET_NOUNS``): ``| DB_PASSWORD |``, ``| **API key** |``, ``| Token 1 |``. What ``redact._grid`` needs
    before it reads a value from a table; ``env | grep token`` holds none. (Each line is read once: a run read back
    from a ``|`` stops at the ``|`` before it.)"""
    at = text.find("|")
    while at != -1:
        line = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        first = line
        while text[first] in " \t":
            first += 1
        bar = at if first == at else -1
        while bar != -1:
            if _a_name_before(text, bar):
                return True
            bar = text.find("|", bar + 1, end)
        at = text.find("|", end)
    return False


def _a_name_before(text: str, bar: int) -> bool:
    """Whether the run of what a cell's name holds before ``bar`` (past blanks and ``CELL_MARKS`` marks) holds a
    noun."""
    end = bar
    while end and text[end - 1] in " \t\r":
        end -= 1
    marks = end
    while marks and end - marks < CELL_MARKS and text[marks - 1] in "`*":
        marks -= 1
    start = marks
    while start and (text[start - 1].isalnum() or text[start - 1] in _CELL_NAME_SIGNS):
        start -= 1
    run = text[start:marks].lower()
    return any(noun in run for noun in SECRET_NOUNS)


#: The most code or bold marks around a table cell's name (``**`DB_PASSWORD`**``: three).
CELL_MARKS = 3
#: What a table cell's name holds but letters and digits.
_CELL_NAME_SIGNS = frozenset("_.-: \t")


def cell_name(cell: str) -> str:
    """The name a table's cell gives: its text without its blanks and up to ``CELL_MARKS`` code or bold marks a side
    (``**`DB_PASSWORD`**``), where what is left is letters, digits, blanks and ``_.-:``; else ""."""
    text = cell.strip(" \t\r")
    bare = text.strip("`*")
    if len(text) - len(text.lstrip("`*")) > CELL_MARKS or len(text) - len(text.rstrip("`*")) > CELL_MARKS:
        return ""
    letters = bare
    for sign in _CELL_NAME_SIGNS:
        letters = letters.replace(sign, "")
    return bare if not letters or letters.isalnum() else ""


def _a_noun_anywhere(text: str, lowered: str) -> bool:
    """Whether ``lowered`` holds a noun (``SECRET_NOUNS``) anywhere: what an HTML table's cell or label naming a
    secret holds (``redact._CELL_PAIR``: ``<th>Password</th><td>…</td>``; ``redact._HTML_LABEL``: ``<b>API key</b>:
    …``). A page of results with none loads no rules."""
    return any(noun in lowered for noun in SECRET_NOUNS)


def _an_auth_given(text: str, lowered: str) -> bool:
    """Whether ``auth`` has a ``:`` or ``=`` right after it (an escape, a quote and blanks between): a registry's
    ``"auth": "…"`` (``redact``'s rule). "Unable to authenticate" holds none."""
    at = text.find("auth")
    while at != -1:
        after = at + 4
        after += text.startswith("\\", after)
        after += text[after : after + 1] in ("'", '"')
        if text.startswith((":", "="), _after(text, after, " \t")):
            return True
        at = text.find("auth", at + 1)
    return False


def _a_cookie_option(text: str, lowered: str) -> bool:
    """Whether ``-b`` has a blank, a tab or a ``=`` right after it: curl's cookies (``redact``'s rule, whose other
    needle, ``--cookie``, is asked as before). ``docker compose up --build`` and ``e2e-build`` hold none."""
    at = text.find("-b")
    while at != -1:
        if text.startswith((" ", "\t", "="), at + 2):
            return True
        at = text.find("-b", at + 1)
    return False


def _an_azure_key(text: str, lowered: str) -> bool:
    """Whether ``Key``, blanks and a ``=`` are in ``text`` (the Azure key's rule). ``KeyError: 'id'`` is none."""
    at = text.find("Key")
    while at != -1:
        after = at + 3
        while after < len(text) and text[after].isspace():
            after += 1
        if text.startswith("=", after):
            return True
        at = text.find("Key", at + 1)
    return False


def _a_discord_token(text: str, lowered: str) -> bool:
    """Whether a word holds 24 letters, digits, ``_`` or ``-``, a ``.``, 6 of them, a ``.`` and 27 more (the discord
    bot token's rule, whose needle, the ``.``, is in nearly every long path)."""
    for word in text.split():
        if len(word) < 59:
            continue
        at = word.find(".", 24)
        while at != -1:
            if (
                word[at + 7 : at + 8] == "."
                and all(
                    _a_token_character(c)
                    for c in (*word[at - 24 : at], *word[at + 1 : at + 7], *word[at + 8 : at + 35])
                )
                and len(word) >= at + 35
            ):
                return True
            at = word.find(".", at + 1)
    return False


def _a_token_character(character: str) -> bool:
    return character.isalnum() or character in "_-"


def _a_password_rule_may_match(text: str, lowered: str) -> bool:
    """What the rules ``password`` calls on need around it: SQL's ``WITH PASSWORD '…'`` (a ``password``, in any case,
    blanks and a ``'``), or a ``.netrc`` entry's ``password`` and a blank after it with a ``machine`` and a blank or
    a ``default`` and a blank in the text (those rules' words are written in small letters). ``FATAL:  password
    authentication failed`` holds none of them."""
    at = lowered.find("password")
    while at != -1:
        after = at + 8
        while after < len(lowered) and lowered[after].isspace():
            after += 1
        if after > at + 8 and lowered.startswith("'", after):
            return True
        at = lowered.find("password", at + 1)
    return _a_word_then(text, "password", " \t") and (
        _a_word_then(text, "machine", " \t") or _a_word_then(text, "default")
    )


def _a_word_then(text: str, word: str, blanks: str = "") -> bool:
    """Whether ``word`` is in ``text`` with a character of ``blanks`` right after it, or any blank ``str.isspace``
    knows (``\\s``) where ``blanks`` is empty."""
    at = text.find(word)
    while at != -1:
        after = text[at + len(word) : at + len(word) + 1]
        if after and (after in blanks if blanks else after.isspace()):
            return True
        at = text.find(word, at + 1)
    return False


#: The programs a listed command's rules (``redact._LISTED_COMMANDS``) read from a list, a call's arguments or a
#: ``"command"`` key, as their names start (``redact._LISTED_TOOLS``: ``mysql\w*``, ``ldap\w+``…).
LISTED_PROGRAMS = ("mysql", "mariadb", "docker", "podman", "buildah", "skopeo", "nerdctl", "oras", "sshpass",
                   "redis-cli", "keytool", "htpasswd", "az", "ldap", "smbclient", "sqlcmd", "rabbitmqctl", "mongo",
                   "openssl", "ssh-keygen", "lftp", "mosquitto_", "net", "rpcclient", "curl")  # fmt: skip


def _a_listed_program(lowered: str) -> bool:
    """Whether a name of ``LISTED_PROGRAMS`` has a quote after it (letters, digits, ``_`` and ``-`` of its own,
    ``.exe`` and an escape between): what each listed command's rule needs, whichever of its needles called on it
    (``["docker", "login", "-p", …]``). ``docker: Error response from daemon`` holds none."""
    for name in LISTED_PROGRAMS:
        at = lowered.find(name)
        while at != -1:
            end = at + len(name)
            while end < len(lowered) and (lowered[end].isalnum() or lowered[end] in "_-"):
                end += 1
            end += 4 * lowered.startswith(".exe", end)
            end += lowered.startswith("\\", end)
            if lowered.startswith(('"', "'"), end):
                return True
            at = lowered.find(name, at + 1)
    return False


def _a_docker_login_may_match(text: str, lowered: str) -> bool:
    """What the rules ``docker`` calls on need around it: a quoted program of a list (``_a_listed_program``), or
    ``docker``, ``.exe`` and a quote maybe, blanks, ``login`` and later a ``-p`` (``docker login -p …``'s rule, whose
    words are written in small letters)."""
    if _a_listed_program(lowered):
        return True
    at = text.find("docker")
    while at != -1:
        end = at + 6
        end += 4 * text.startswith(".exe", end)
        end += text[end : end + 1] in ('"', "'")
        blanks = end
        while end < len(text) and text[end].isspace():
            end += 1
        if end > blanks and text.startswith("login", end) and text.find("-p", end) != -1:
            return True
        at = text.find("docker", at + 1)
    return False


def _a_user_option_may_match(text: str, lowered: str) -> bool:
    """What the rules ``-u`` calls on need around it: a quoted program of a list (``_a_listed_program``); ``-u`` or
    ``--user``, a blank or a ``=``, a quote maybe, a user of letters, digits and ``_.@-`` and a ``:`` (``curl -u
    user:pw``'s rule, whose ``-u`` is a small letter); Samba's ``%`` with ``smb``, ``net`` or ``rpcclient``; lftp's
    ``,`` with ``lftp``. ``pip install -U requests`` holds none of them."""
    if _a_listed_program(lowered):
        return True
    if "%" in text and ("smb" in text or "net" in text or "rpcclient" in text):
        return True
    if "lftp" in text and "," in text:
        return True
    at = text.find("-u")
    while at != -1:
        end = at + 2
        end += 3 * text.startswith("ser", end)
        if text[end : end + 1] in (" ", "="):
            end += 1
            end += text[end : end + 1] in ('"', "'")
            user = end
            while end < len(text) and (text[end].isalnum() or text[end] in "_.@-"):
                end += 1
            if end > user and text.startswith(":", end):
                return True
        at = text.find("-u", at + 1)
    return False


def _a_curl_user_may_match(text: str, lowered: str) -> bool:
    """What the rules ``curl`` calls on need around it: a quoted program of a list (``_a_listed_program``), or an
    option after a blank that is ASCII letters and digits with a ``u`` or ``U`` among them (``-u``, ``-U``,
    ``-sSfu``, glued to its value too: ``-udeploy:…``) or ``--user``/``--proxy-user``, and a user and a ``:`` after it
    (``_a_user_then_a_colon``; ``curl -U deploy:…``'s rule). ``curl: (6) Could not resolve host`` and ``curl -u
    deploy https://…`` hold none of them."""
    return _a_listed_program(lowered) or _an_option_then_a_user(text, ("-user", "-proxy-user"), "uU")


def _an_httpie_auth_may_match(text: str, lowered: str) -> bool:
    """What the rule ``http`` calls on needs around it: ``-a`` or ``--auth`` after a blank, and a user and a ``:``
    after it (``http -a deploy:… example.org``). A URL, ``HTTP/1.1 401``, ``http -a deploy`` hold none of them."""
    return _an_option_then_a_user(text, ("a", "-auth"), "a")


def _a_bearer_token_may_match(text: str, lowered: str) -> bool:
    """What the rules ``bearer`` calls on need around it: HTTPie's name (``http``, ``xh``; ``http -A bearer -a
    TOKEN``) or curl's (``curl --oauth2-bearer TOKEN``). ``Authorization: Bearer …`` alone, with no URL, holds none."""
    return "http" in lowered or "xh" in lowered or "curl" in lowered


def _a_config_user_may_match(text: str, lowered: str) -> bool:
    """What the rules ``user`` calls on need around it: a curl config file's line, ``user`` first on it (after blanks,
    ``--``, ``proxy-``, at its line's start or after what shows the line there, a quote, a backtick or an escaped line
    end: ``_config_line_start``), a blank, a ``=`` or a ``:`` after it, and a user and a ``:`` that are no uid and gid
    (``user = "deploy:…"``). Asked at each ``user`` of the text alone (a line without one is not read), each value
    read once. "permission denied for user deploy" and pip's "Defaulting to user installation" hold none."""
    read_to = {False: 0, True: 0}  # (where the last user read ends, on lines whose ends are escaped or not)
    at = lowered.find("user")
    while at != -1:
        start = _config_line_start(lowered, at)
        escaped_lines = start == "\\n"
        value = _a_config_users_value(lowered, at + 4) if start else -1
        # (a value inside the last user read ends where it did, with the same answer: read again, a line of
        # ```user=`` repeated took time quadratic in its length)
        if value >= read_to[escaped_lines] and not _uid_and_gid(text, value):
            end = _user_end(lowered, value, escaped_lines=escaped_lines)
            if lowered.startswith(":", _after(lowered, end, "\\'\"")):
                return True
            if escaped_lines and _a_quoted_user_then_a_colon(lowered, value):
                return True
            read_to[escaped_lines] = end
        at = lowered.find("user", at + 4)
    return False


def _config_line_start(lowered: str, at: int) -> str:
    """What starts the config line whose ``user`` is at ``at`` (``--`` and ``proxy-`` before it, blanks before them),
    as ``redact``'s ``user`` rules read it: ``"line"`` (its line's start, or ``redact.CONFIG_LINE_SHOWN`` from there:
    a diff's ``+``/``-``, a quote's ``>``, ``cat -n``'s number and tab, a grep hit's ``path:`` or ``path:2:``), the
    quote or backtick before it, ``"\\n"`` (an escaped line end: ``redact._CONFIG_LINE_INSIDE``), or "" (none)."""
    at -= 6 * lowered.endswith("proxy-", 0, at)
    at -= 2 * lowered.endswith("--", 0, at)
    at = _back_over(lowered, at, " \t")
    before = lowered[at - 1 : at]
    if before in ("`", "'", '"'):
        return before
    if lowered.endswith("\\n", 0, at) and not lowered.endswith("\\\\n", 0, at):
        return "\\n"
    return "line" if _shown_from_the_line_start(lowered, at, before) else ""


def _shown_from_the_line_start(lowered: str, at: int, before: str) -> bool:
    """Whether ``lowered`` up to ``at`` (``before``, the character there) is blanks from its line's start, and what
    ``redact.CONFIG_LINE_SHOWN`` reads between them and ``at`` (blanks taken off its end already)."""
    if before.isascii() and before.isdigit():  # (``cat -n``: the number, then the tab taken off as a blank)
        digits = _back_over(lowered, at, "0123456789")
        if lowered.startswith("\t", at):
            return _a_line_start(lowered, _back_over(lowered, digits, " \t"))
    if before in ("+", ">", "-"):
        return _a_line_start(lowered, _back_over(lowered, at - 1, " \t"))
    if before == ":":
        path = _back_over_a_path(lowered, at - 1)
        if path < at - 1 and _a_line_start(lowered, _back_over(lowered, path, " \t")):
            return True
        number = _back_over(lowered, at - 1, "0123456789")
        if number < at - 1 and lowered.endswith(":", 0, number):  # (``path:2:``)
            path = _back_over_a_path(lowered, number - 1)
            return path < number - 1 and _a_line_start(lowered, _back_over(lowered, path, " \t"))
    return _a_line_start(lowered, at)


def _a_line_start(text: str, at: int) -> bool:
    return at == 0 or text[at - 1] == "\n"


def _back_over(text: str, at: int, chars: str) -> int:
    """Where the run of ``chars`` that ends at ``at`` of ``text`` starts."""
    while at > 0 and text[at - 1] in chars:
        at -= 1
    return at


def _back_over_a_path(text: str, at: int) -> int:
    """Where a grep hit's path (no blank, ``:``, quote nor backtick) that ends at ``at`` of ``text`` starts."""
    while at > 0 and not text[at - 1].isspace() and text[at - 1] not in ":`'\"":
        at -= 1
    return at


def _a_config_users_value(lowered: str, at: int) -> int:
    """Where the value of the ``user`` ending at ``at`` starts as ``redact._CONFIG_USER`` reads it, after blanks, a
    ``=`` or a ``:`` (blanks around it), or -1 (neither). A ``:`` after blanks is left to the value: it may be its
    own, an empty user's (``user :token``)."""
    value = _after(lowered, at, " \t")
    if lowered.startswith("=", value) or (value == at and lowered.startswith(":", value)):
        return _after(lowered, value + 1, " \t")
    return value if value > at else -1


def _a_quoted_user_then_a_colon(text: str, at: int) -> bool:
    """Whether the value at ``at`` opens a quote (``"``, ``'``, ``$'``, a JSON string's ``\\"``) whose user ends at a
    ``:``, as ``redact``'s quoted user reads it (``_QUOTED_USER``): a ``\\`` there is the user's own, where a line
    among escaped ones reads ``\\:`` as one character (``printf '…\\nuser = "deplo\\:…"'``, flake61). It stops at the
    next quote, so a line of many users is read once."""
    at += text.startswith("$", at)
    at += text.startswith("\\", at)
    if text[at : at + 1] not in ("'", '"'):
        return False
    end = at + 1
    while end < len(text) and not text[end].isspace() and text[end] not in ":'\"":
        end += 1
    return text.startswith(":", end)


def _uid_and_gid(text: str, at: int) -> bool:
    """Whether a config line's value at ``at`` is one the ``user`` rules keep (``redact._CONFIG_USER``): a uid and gid
    (``"1000:1000"``, quoted or not, the same number twice or two of five digits at most, then a blank, a quote, a
    ``\\`` or the end) or a sudoers line's ``ALL=`` (in capitals, as the rule reads it): the gate loads no rules for
    them (review54f F10)."""
    if text.startswith("ALL=", at):
        return True
    at += text[at : at + 1] in ("'", '"')
    colon = _after(text, at, "0123456789")
    end = _after(text, colon + 1, "0123456789")
    uid, gid = text[at:colon], text[colon + 1 : end]
    if not (uid and gid and text.startswith(":", colon)) or not (uid == gid or max(len(uid), len(gid)) <= 5):
        return False
    end += text[end : end + 1] in ("'", '"')
    return end == len(text) or text[end].isspace() or text[end] in "\\'\"`"


def _an_option_then_a_user(text: str, names: tuple[str, ...], letters: str) -> bool:
    """Whether ``text`` holds an option after a blank (``str.isspace``, as ``\\s``), a ``-`` and then one of
    ``names`` or ASCII letters and digits holding one of ``letters`` (where a cluster of options ends), with a user
    and a ``:`` right after either (``_a_user_then_a_colon``)."""
    at = text.find("-")
    while at != -1:
        if at and text[at - 1].isspace() and _a_user_after_an_option(text, at + 1, names, letters):
            return True
        at = text.find("-", at + 1)
    return False


def _a_user_after_an_option(text: str, start: int, names: tuple[str, ...], letters: str) -> bool:
    """Whether the option at ``start`` (after its ``-``), one of ``names`` or a run of ASCII letters and digits, has a
    user and a ``:`` after it, after a letter of ``letters`` in the run too (``-udeploy:…``). From a letter inside
    the run, the user is the run's rest and on: each such letter's answer is the first one's, read once (read from
    each, ``-uuu…`` cost time quadratic in the run: review53a C1)."""
    for name in names:
        if text.startswith(name, start) and _a_user_then_a_colon(text, start + len(name)):
            return True
    end = start
    while end < len(text) and text[end].isascii() and text[end].isalnum():
        end += 1
    inside = next((at + 1 for at in range(start, end - 1) if text[at] in letters), None)
    if inside is not None and _a_user_then_a_colon(text, inside):
        return True
    return end > start and text[end - 1] in letters and _a_user_then_a_colon(text, end)


def _a_user_then_a_colon(text: str, at: int) -> bool:
    """Whether an option's value at ``at`` may be ``user:password`` as ``redact._USER_AND_PASSWORD`` reads it: after
    blanks or tabs, a ``=``, and quotes, backslashes or bash's ``$'`` (``$'deploy:…'``), a user (no blank, ``'``,
    ``"`` nor ``:``; a bracket is one of its characters: ``[deploy:…]``), quotes or backslashes again
    (``"deploy":"…"``), then a ``:``."""
    return text.startswith(":", _after(text, _user_end(text, at), "\\'\""))


def _user_end(text: str, at: int, *, escaped_lines: bool = False) -> int:
    """Where the user of ``_a_user_then_a_colon``'s value at ``at`` ends (before the quotes after it), on lines whose
    ends are escaped at the next one's ``\\n`` (``redact._BARE_USER_ON_ESCAPED_LINES``)."""
    at = _after(text, at, " \t")
    at += text.startswith("=", at)
    at = _after(text, at, "\\'\"$")
    while at < len(text) and not text[at].isspace() and text[at] not in ":'\"":
        if escaped_lines and text[at] == "\\":
            if text[at + 1 : at + 2] in ("n", "'", '"', "`") or text[at + 1 : at + 2].isspace():
                break
            at += 1  # (an escaped backslash is read whole: ``\\n`` is no line's end)
        at += 1
    return at


def _a_login_rule_may_match(text: str, lowered: str) -> bool:
    """What the rules ``login`` calls on need around it: a quoted program of a list (``_a_listed_program``); ``az
    login`` (``.cmd``/``.exe`` between) and a ``-p`` after it; ``vault`` and an ``s.`` (its older token); a
    ``.netrc`` entry's ``login`` and ``password``, each with a blank after it (each rule's words in small letters).
    ``npm ERR! … unable to login`` and ``may require 'docker login'`` hold none of them."""
    if _a_listed_program(lowered):
        return True
    for az in ("az login", "az.cmd login", "az.exe login"):
        at = text.find(az)
        if at != -1 and text.find("-p", at) != -1:
            return True
    if "vault" in text and "s." in text:
        return True
    if _a_login_given_a_password(text, lowered):
        return True
    return _a_word_then(text, "login", " \t") and _a_word_then(text, "password", " \t")


def _an_option_to_read_input(text: str, lowered: str) -> bool:
    """What the rules of ``sudo`` and ``passwd`` reading a password from their input need (``redact._FED_COMMANDS``):
    sudo's own ``-S`` (alone or in a cluster, ``-kS``) or ``--stdin`` (``_sudo_reads_its_input``), or a ``--stdin``
    on ``passwd``'s line, or two lines piped to it (``_passwd_piped_twice``). Looked for anywhere, "sudo" in a hint
    and any ``-…S…`` word (``pacman -Syu``, ``-DSQLITE_…``) loaded the rules for every such failure (review55e F1)."""
    return _sudo_reads_its_input(text) or _passwd_reads_its_input(text) or _passwd_piped_twice(text)


def _passwd_piped_twice(text: str) -> bool:
    """What ``redact._piped_twice`` needs: an escaped line end (``echo -e "PW\\nPW"``) and a ``|`` within the pipe
    rule's reach (210 characters) before a ``passwd``. Each ``passwd`` reads a bounded reach back: linear."""
    if "\\n" not in text:
        return False
    at = text.find("passwd")
    while at != -1:
        if text.rfind("|", max(0, at - 210), at) != -1:
            return True
        at = text.find("passwd", at + 1)
    return False


def _sudo_reads_its_input(text: str) -> bool:
    """Whether a ``sudo`` word has ``-S`` (in a cluster too) or ``--stdin`` among its first 16 options on its line,
    before its command's name, as ``redact._SUDO_READS_ITS_INPUT`` reads them: an option word, the value after an
    option that may take one (``-u postgres``, ``--user postgres``; any one-letter or long option, more than the
    rule's), no other word. Bounded, so ``sudo`` many times on a line costs linear time."""
    at = text.find("sudo")
    while at != -1:
        end = at + 4
        if not (text[end : end + 1].isalnum() or text[end : end + 1] in "_.-") and _an_input_option_after(text, end):
            return True
        at = text.find("sudo", at + 1)
    return False


def _an_input_option_after(text: str, at: int) -> bool:
    """``_sudo_reads_its_input`` of the options after the ``sudo`` ending at ``at``."""
    takes_a_value = False
    for _ in range(34):  # (16 options, each with its value, then ``-S``)
        start = _after(text, at, " \t")
        if start == at or start == len(text):
            return False
        at = _word_end(text, start)
        word = text[start:at]
        if word == "--stdin" or (word[:1] == "-" and word[1:2] != "-" and "S" in word and word[1:].isalpha()):
            return True
        if word.startswith("-"):
            takes_a_value = "=" not in word
        elif takes_a_value:
            takes_a_value = False
        else:
            return False
    return False


def _word_end(text: str, at: int) -> int:
    """Where the word at ``at`` of a command line ends: at a blank, or past its quotes on the line (``-p 'a b'``)."""
    quote = text[at] if text[at] in "'\"" else ""
    if quote:
        close = text.find(quote, at + 1)
        line_end = text.find("\n", at)
        if close != -1 and (line_end == -1 or close < line_end):
            at = close + 1
    while at < len(text) and not text[at].isspace():
        at += 1
    return at


def _passwd_reads_its_input(text: str) -> bool:
    """Whether a ``--stdin`` follows a ``passwd`` on its line (RHEL's ``passwd --stdin``). The next ``--stdin`` and
    line end are found once per place they stand, so many ``passwd`` cost linear time."""
    stdin = line_end = -1
    at = text.find("passwd")
    while at != -1:
        if stdin < at:
            stdin = text.find("--stdin", at)
            if stdin == -1:
                return False
        if line_end < at:
            line_end = text.find("\n", at)
            line_end = len(text) if line_end == -1 else line_end
        if stdin < line_end:
            return True
        at = text.find("passwd", at + 1)
    return False


def _an_option_given(text: str, options: tuple[str, ...]) -> bool:
    """Whether one of ``options`` stands after a blank (``\\s``) with a ``=``, a blank or a tab after it, as
    ``redact._option_of``'s rules read a store's or a tool's option (twine's and nuget's ``-p``, ``--api-key``)."""
    for option in options:
        at = text.find(option)
        while at != -1:
            after = text[at + len(option) : at + len(option) + 1]
            if at and text[at - 1].isspace() and after in ("=", " ", "\t"):
                return True
            at = text.find(option, at + 1)
    return False


def _a_secret_put(text: str, lowered: str) -> bool:
    """``wrangler secret put``'s words."""
    return _blanks_between(lowered, "secret", "put")


def _an_env_add(text: str, lowered: str) -> bool:
    """``vercel env add``'s words."""
    return _blanks_between(lowered, "env", "add")


def _a_data_file(text: str, lowered: str) -> bool:
    """``gcloud secrets create|versions add … --data-file=-``'s option."""
    return "--data-file" in lowered


def _a_secrets_set(text: str, lowered: str) -> bool:
    """``doppler secrets set``'s words (its rule piped to and given on its line)."""
    return _blanks_between(lowered, "secrets", "set")


def _a_password_option(text: str, lowered: str) -> bool:
    """twine's ``-p``/``--password`` and nuget's (``-Password``, ``-k``, ``--api-key``, ``-ApiKey``) given a value."""
    return _an_option_given(lowered, ("-p", "--password", "-password", "-k", "--api-key", "-apikey"))


def _a_poetry_credential(text: str, lowered: str) -> bool:
    """``poetry config http-basic.NAME USER PW`` or ``pypi-token.NAME TOKEN``."""
    return "http-basic." in lowered or "pypi-token." in lowered


def _an_ngrok_token(text: str, lowered: str) -> bool:
    """``ngrok authtoken``, ``ngrok config add-authtoken`` or ``add-api-key``."""
    return "authtoken" in lowered or "add-api-key" in lowered


def _a_pair_to_a_secrets_set(text: str, lowered: str) -> bool:
    """fly's, flyctl's or supabase's ``secrets set NAME=VALUE``: the tool's name and a ``=``."""
    return ("fly" in lowered or "supabase" in lowered) and "=" in text


def _an_mc_alias(text: str, lowered: str) -> bool:
    """MinIO's ``mc alias set`` or ``mc config host add``: ``mc`` and blanks before the subcommand."""
    return _blanks_between(lowered, "mc", "alias") or _blanks_between(lowered, "mc", "config") or "mc.exe" in lowered


def _an_expect_send(text: str, lowered: str) -> bool:
    """expect's ``send "…"`` after a password's prompt: "assword" or "passphrase", and a ``send``, blanks, ``"``
    (``--`` between them too; the quote escaped as a JSON string escapes it too, ``\\"``: review56c F4), or pexpect's
    ``.sendline(``/``.send(`` (review58b F9). "sending", "Send" alone load nothing."""
    if "assword" not in lowered and "passphrase" not in lowered:
        return False
    at = text.find("send")
    while at != -1:
        if text[at - 1 : at] == "." and text.startswith(("(", "line("), at + 4):  # (pexpect's ``.sendline(``)
            return True
        after = _after(text, at + 4, " \t")
        if text.startswith("--", after):
            after = _after(text, after + 2, " \t")
        if after > at + 4 and text[after : after + 4].lstrip("\\").startswith('"'):
            return True
        at = text.find("send", at + 1)
    return False


def _a_heroku_pair(text: str, lowered: str) -> bool:
    """``heroku config:set NAME=…``: heroku's name, and a ``=`` after its ``config:set`` ("heroku config:set failed"
    loads nothing)."""
    at = lowered.find("config:set")
    return "heroku" in lowered and text.find("=", at) != -1


def _a_netlify_pair(text: str, lowered: str) -> bool:
    """``netlify env:set NAME VALUE``: netlify's name, and after the first ``env:set`` two words in a row that
    ``redact._a_secrets_setting`` may take, wherever the pair is (the rule reads every pair of the command's rest): a
    name holding a secret's noun, or a value quoted or of six characters or more not all letters (which
    ``_looks_made`` asks). "netlify env:set requires a site" loads nothing. The words after it are read once."""
    at = lowered.find("env:set")
    if "netlify" not in lowered or at == -1:
        return False
    words = text[at + 7 :].split()
    return any(
        value[0] in "'\"" or (len(value) >= 6 and not value.isalpha()) or _a_nouns_name(name.lower())
        for name, value in zip(words, words[1:], strict=False)
    )


def _a_nouns_name(name: str) -> bool:
    """Whether a lowercase name holds a secret's noun, as every name ``redact.secret_key`` says yes to does."""
    return any(noun in name for noun in SECRET_NOUNS)


def _a_net_use_password(text: str, lowered: str) -> bool:
    """``net use … \\\\srv\\share … PW``: after a ``net use`` (``net.exe use``), a share (``\\\\`` within 40
    characters) and, on its line after it, a word that is no ``/option`` nor ``*``. "net.exe use Z: \\\\srv\\share)"
    at an error's end loads nothing. Each ``net`` reads a bounded reach on (300 characters of its line)."""
    at = lowered.find("net")
    while at != -1:
        share = text.find("\\\\", at, at + 40)
        if share != -1 and (lowered.startswith("net use", at) or lowered.startswith("net.exe use", at)):
            words = text[share : share + 300].partition("\n")[0].split()[1:]
            if any(not word.startswith(("/", "*")) for word in words):
                return True
        at = lowered.find("net", at + 1)
    return False


def _an_rclone_config(text: str, lowered: str) -> bool:
    """``rclone config create`` or ``update`` given a secret's key: after the first ``config``, blanks and subcommand,
    a word of letters, digits, ``_`` and ``-`` holding a secret's noun (the rule's key) and a word after it. "rclone
    config create failed: unknown backend" and its usage's ``[key value]*`` load nothing (review56c F9). The words
    after the first subcommand are read once."""
    at = lowered.find("config")
    while at != -1:
        after = _after(lowered, at + 6, " \t")
        if after > at + 6 and lowered.startswith(("create", "update"), after):
            words = lowered[after + 6 :].split()[:-1]
            return any(_a_nouns_name(word) and all(c.isalnum() or c in "_-" for c in word) for word in words)
        at = lowered.find("config", at + 1)
    return False


def _a_login_given_a_password(text: str, lowered: str) -> bool:
    """What ``redact._LOGIN_RULES`` that ``login`` calls on need: ``oc login`` or ``cf login`` and a ``-p`` after it
    (OpenShift's, Cloud Foundry's), or "login", a blank, a tab or a colon after it, and a ``/`` in the text (prose's
    "login: admin / PW")."""
    last_p = lowered.rfind("-p")
    for tool in ("oc", "cf"):
        at = lowered.find(tool)
        while at != -1 and at < last_p:
            end = at + 2
            end += lowered[end : end + 1] in ("7", "8")
            end += 4 * lowered.startswith(".exe", end)
            after = _after(lowered, end, " \t")
            if after > end and lowered.startswith("login", after) and last_p > after:
                return True
            at = lowered.find(tool, at + 1)
    return "/" in text and _a_word_then(lowered, "login", " \t:")


def _kinit_fed(text: str, lowered: str) -> bool:
    """What kinit's rules need (``redact._LOGIN_RULES``): a ``|`` within the pipe rule's reach (210 characters) before
    a ``kinit``, or a ``<<`` after one (a here-string or a heredoc). "kinit: Cannot find KDC for realm" loads
    nothing. Each ``kinit`` reads a bounded reach back: linear."""
    at = lowered.find("kinit")
    while at != -1:
        if text.rfind("|", max(0, at - 210), at) != -1 or "<<" in text[at : at + 400]:
            return True
        at = lowered.find("kinit", at + 1)
    return False


def _an_oracle_login(text: str, lowered: str) -> bool:
    """What the Oracle tools' rules need: after the tool's name, on its line and within 400 characters, a ``/`` after a
    user and before no blank (``_a_users_slash``: ``system/PW@ORCL``, ``userid=app/PW``). ``sqlplus
    /nolog``, ``sqlplus / as sysdba`` and rman's ``RMAN-03002: failure`` hold none. The next such ``/`` and the next
    line end are found once per place they stand, so many names cost linear time."""
    slash = line_end = -1
    for tool in ("sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl", "rman"):
        at = lowered.find(tool)
        while at != -1:
            if slash < at:
                slash = _a_users_slash(text, at)
                if slash == -1:
                    break
            if line_end < at:
                line_end = text.find("\n", at)
                line_end = len(text) if line_end == -1 else line_end
            if slash < min(line_end, at + 400):
                return True
            at = lowered.find(tool, at + 1)
        slash = line_end = -1  # (the next tool's places start again from the text's start)
    return False


def _a_users_slash(text: str, at: int) -> int:
    """The first ``/`` from ``at`` after a user as Oracle's ``user/password`` writes it (a letter or ``_``, then
    letters, digits, ``_``, ``$`` and ``#``) with no blank after it, or -1. A date's ``12/07`` is none. Each user is
    read back to its start once: a ``/`` ends the run the next one reads."""
    slash = text.find("/", at)
    while slash != -1:
        start = slash
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_$#"):
            start -= 1
        after = text[slash + 1 : slash + 2]
        if start < slash and (text[start].isalpha() or text[start] == "_") and after and not after.isspace():
            return slash
        slash = text.find("/", slash + 1)
    return -1


def _a_vault_login(text: str, lowered: str) -> bool:
    """``vault login`` (blanks between) and a word after it on its line that may be its token as ``_looks_made`` reads
    one: quoted, or no option of six characters or more not all letters ("vault login -method=oidc timed out" loads
    nothing). Each ``vault`` reads on to the next at most: linear."""
    at = lowered.find("vault")
    while at != -1:
        after = _after(lowered, at + 5 + 4 * lowered.startswith(".exe", at + 5), " \t")
        following = lowered.find("vault", at + 1)
        if after > at + 5 and lowered.startswith("login", after):
            end = min(after + 600, len(lowered) if following == -1 else following + 5)
            words = lowered[after + 5 : end].partition("\n")[0].split()
            if any(word[0] in "'\"" or (len(word) >= 6 and not word.isalpha() and word[0] != "-") for word in words):
                return True
        at = following
    return False


def _a_psexec_password(text: str, lowered: str) -> bool:
    """PsExec's ``-p`` given a value."""
    return _an_option_given(text, ("-p",))


def _an_influx_password(text: str, lowered: str) -> bool:
    """influx's ``-p``, ``--password`` or ``-password`` given a value."""
    return _an_option_given(text, ("-p", "--password", "-password"))


def _a_codecov_token(text: str, lowered: str) -> bool:
    """codecov's ``-t`` or ``--token`` given a value."""
    return _an_option_given(text, ("-t", "--token"))


def _a_snyk_auth(text: str, lowered: str) -> bool:
    """``snyk auth`` (blanks between)."""
    return _blanks_between(lowered, "snyk", "auth")


def _a_wandb_login(text: str, lowered: str) -> bool:
    """``wandb login`` (blanks between)."""
    return _blanks_between(lowered, "wandb", "login")


def _a_git_config_secret(text: str, lowered: str) -> bool:
    """``git config`` and, on its line, a word holding a secret's noun (``github.token``, as every key
    ``redact._a_secret_setting`` says yes to holds one): "hint: git config pull.rebase false" loads nothing. Each reads on to the next at most: linear."""
    at = lowered.find("git config")
    while at != -1:
        following = lowered.find("git config", at + 1)
        end = min(at + 600, len(lowered) if following == -1 else following)
        words = lowered[at + 10 : end].partition("\n")[0].split()
        if any(_a_nouns_name(word) for word in words):
            return True
        at = following
    return False


#: What the rules a common needle calls on need around it, asked only where the needle is in the text (and the text
#: lowers exactly: ``_may_be_changed_as_written``): a needle alone let nearly every failed command's output load the
#: rules (``pass`` in "12 passed", ``key`` in ``KeyError``, ``://`` in any URL, ``--`` in pytest's header): about 38 M
#: instructions of the failure hook, to change nothing. Each is a test the rules' matches all pass, read off their
#: patterns; ``tests/test_redact_gate_needles.py`` checks that a text it says no to comes back from ``scrub`` as it
#: was, over the tests' secrets, the bench's texts and mutations around each needle.
NEEDED_AROUND: dict[str, Callable[[str, str], bool]] = {
    **dict.fromkeys(SECRET_NOUNS, _a_noun_given_a_value),
    "|": _a_cell_naming_a_secret,
    **dict.fromkeys(("://", "@", "sentry"), _credentials_in_a_url),
    "--": _a_flag_named_a_secret,
    "-----": _a_key_value_table,
    "define": _a_define_call,
    "</": _an_element_named_a_secret,
    **dict.fromkeys(
        ("</td>", "</th>", "</dt>", "</b>", "</strong>", "</em>", "</i>", "</u>", "</label>", "</span>"),
        _a_noun_anywhere,
    ),
    "auth": _an_auth_given,
    "-b": _a_cookie_option,
    "password": _a_password_rule_may_match,
    "docker": _a_docker_login_may_match,
    "-u": _a_user_option_may_match,
    "login": _a_login_rule_may_match,
    "curl": _a_curl_user_may_match,
    "http": _an_httpie_auth_may_match,
    "xh": _an_httpie_auth_may_match,
    "user": _a_config_user_may_match,
    "bearer": _a_bearer_token_may_match,
    **dict.fromkeys(("sudo", "passwd"), _an_option_to_read_input),
    "wrangler": _a_secret_put,
    "vercel": _an_env_add,
    "gcloud": _a_data_file,
    "doppler": _a_secrets_set,
    **dict.fromkeys(("twine", "nuget"), _a_password_option),
    "poetry": _a_poetry_credential,
    "ngrok": _an_ngrok_token,
    "secrets set": _a_pair_to_a_secrets_set,
    **dict.fromkeys(("alias set", "host add"), _an_mc_alias),
    "rclone": _an_rclone_config,
    "config:set": _a_heroku_pair,
    "env:set": _a_netlify_pair,
    **dict.fromkeys(("net use", "net.exe use"), _a_net_use_password),
    "send": _an_expect_send,
    "kinit": _kinit_fed,
    **dict.fromkeys(("sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl", "rman"), _an_oracle_login),
    "vault": _a_vault_login,
    "psexec": _a_psexec_password,
    "influx": _an_influx_password,
    "codecov": _a_codecov_token,
    "snyk": _a_snyk_auth,
    "wandb": _a_wandb_login,
    "git config": _a_git_config_secret,
}
#: ``NEEDED_AROUND`` for the token rules' needles (``TOKEN_NEEDLES``): ``Key`` is in every ``KeyError`` and the
#: ``.`` in every long path.
TOKEN_NEEDED_AROUND: dict[str, Callable[[str, str], bool]] = {"Key": _an_azure_key, ".": _a_discord_token}


def searched_words(query: str) -> str:
    """What a search for ``query`` can match: its words without the secrets in it, which the index holds redacted.
    A pasted key matched unrelated sessions through its pieces (``sk_live_…`` through "live"), which read as a leak
    to a user checking whether deja kept it (trial11 F2), and the redaction marker's own words ("github token")
    chose another session's digest for ``deja ctx`` (trial23 F2). (The rules load only for a query that may hold
    one: a key is one long run, and a search for "password reset" need not load them: 15-25 ms, review13 R13-2.)
    The punctuation a pasted secret came wrapped in (``'ghp_…'``, ``(ghp_…)``, ``AKIA…,``) is no word either: left
    alone, it made a query of a secret alone read as words no session holds (review42d L3), so what is left without
    a letter or a digit is nothing; nor are the escapes it came in (``\\n``, ``&quot;``, ``%22``: ``without_secrets``)."""
    if not any(may_be_a_key(word) for read in _and_as_seen(query) for word in read.split()):
        return query
    left = without_secrets(query)
    return left if any(c.isalnum() for c in left) else ""


def longest_run(text: str) -> int:
    """The most characters without a blank (``\\S``: ``str.split``'s blanks) in a row in ``text``."""
    return max(map(len, text.split()), default=0)


def may_hold_a_pgpass_line(text: str) -> bool:
    """Whether a line of ``text`` may be one ``redact._PGPASS`` takes, asked with ``str``'s methods: five fields or
    more, a port or ``*`` second, a letter, a dot or ``*`` in the first (``10:00:01 …`` is a time); a line with a
    ``\\`` (an escaped colon moves the fields) is asked about."""
    if text.count(":") < 4:
        return False
    for line in text.split("\n"):
        if line.count(":") >= 4:
            host, port, _ = line.split(":", 2)
            if "\\" in line:
                return True
            if (port == "*" or port.isdigit() and len(port) <= 5) and any(c.isalpha() or c in ".*" for c in host):
                return True
    return False


#: The characters read in place of their escapes (``unescaped``): what a name, its value and a URL's parts are told
#: apart by. A letter, a digit, a line's end or other punctuation give no rule a new context, and code full of
#: ``\\"`` or ``%2d`` would be read twice for nothing (a JSON string's ``\\"`` is read by the rules as written).
_SEPARATORS = frozenset(" \"&',/:;=?@")
#: An element's brackets, read only in a text that closes an element with them (``&lt;/``, ``\\u003c/``,
#: ``%3C%2F``): ``&lt;password&gt;…&lt;/password&gt;``, a config pasted from a page's source, was kept where
#: ``<password>…`` was not (trial44 F1). A rule reads them as an element's alone, and Go's JSON escapes every
#: ``<`` and ``>`` (``-\\u003e``, ``\\u003c=``): read wherever one was, such code took 1.7 times as long.
_BRACKETS = frozenset("<>")
_READ = _SEPARATORS | _BRACKETS


def unescaped(text: str) -> tuple[str, list[int]]:
    """``text`` with each escape of a separator or a quote (``_SEPARATORS``) read once as the character it stands
    for, and where each character of it (and its end) was in ``text``: a secret named in a URL-encoded query
    (``password%3D…``), JSON copied from HTML (``&quot;password&quot;: &quot;…``) or escaped in a string
    (``\\u0022password\\u0022``) was kept as written, every rule reading its name and value as one word (review43d
    M5). Every spelling the hooks' frame reads is read (``escapes``: ``&#61;``, ``&#x3D;``, ``&colon;``), not only
    the common few: ``password&#61;…`` was kept (escape44); an element's brackets too, where one closes
    (``_BRACKETS``). ``("", [])`` for a text without one."""
    found = list(escapes(text, _READ.__contains__))
    if slashes := _json_slashes(text):
        found = sorted([*found, *slashes])
    if any(escape[2] in _BRACKETS for escape in found) and not _closes_an_element(text, found):
        found = [escape for escape in found if escape[2] not in _BRACKETS]
    parts: list[str] = []
    where: list[int] = []
    done = 0
    for at, end, character in found:
        parts += (text[done:at], character)
        where += (*range(done, at), at)
        done = end
    if not where:
        return "", []
    parts.append(text[done:])
    return "".join(parts), [*where, *range(done, len(text) + 1)]


def _json_slashes(text: str) -> list[tuple[int, int, str]]:
    """Each slash a JSON encoder escaped (``\\/``: PHP's ``json_encode``, some loggers), as ``escapes`` gives one, in
    a text holding a URL so escaped (``https:\\/\\/``; in a JSON string again, ``https:\\\\/\\\\/`` or
    ``https:\\\\\\/\\\\\\/``): its webhook's secret or its password was read by no URL rule (red58). The run of
    backslashes before a slash is read as the slash, whatever its length (the escape of an escape); a text without
    such a URL, where ``\\/`` is a path's or a regular expression's, is read as written. Each run is read back once:
    the runs before two slashes do not overlap."""
    if not _an_escaped_scheme(text):
        return []
    slashes = []
    at = text.find("\\/")
    while at >= 0:
        start = at
        while start > 0 and text[start - 1] == "\\":
            start -= 1
        slashes.append((start, at + 2, "/"))
        at = text.find("\\/", at + 2)
    return slashes


def _an_escaped_scheme(text: str) -> bool:
    """Whether ``text`` holds a URL's ``://`` whose slashes are escaped (``:\\/\\/``, ``:\\\\/\\\\/``): a colon, then twice
    a run of backslashes and a slash. (Each colon's runs are read once: the next colon is past them.)"""
    at = text.find(":\\")
    while at >= 0:
        end = at + 1
        for _ in range(2):
            run = end
            while end < len(text) and text[end] == "\\":
                end += 1
            if end == run or text[end : end + 1] != "/":
                break
            end += 1
        else:
            return True
        at = text.find(":\\", max(end, at + 1))
    return False


def _closes_an_element(text: str, found: list[tuple[int, int, str]]) -> bool:
    """Whether an escaped ``<`` of ``found`` (``unescaped``'s escapes of ``text``) has a slash after it, as written
    or escaped (``&lt;/``, ``%3C%2F``), or opens an element closed as written (``_closed_as_written``)."""
    opened = [end for _, end, character in found if character == "<"]
    slashes = {at for at, _, character in found if character == "/"} if opened else set()
    if any(text.startswith("/", end) or end in slashes for end in opened):
        return True
    closed = _closed_as_written(text) if opened else set()
    return bool(closed) and any(element_name(text, end) in closed for end in opened)


def _closed_as_written(text: str) -> set[str]:
    """The names of the elements ``text`` closes as written (``</password>``) that may name a secret (a noun of
    ``_NOUN_STEMS`` in them, as ``redact._XML`` asks): ``&lt;password&gt;…</password>`` was kept. Not any written
    ``</``: a page's source escapes the tags it shows among its own (``&lt;b&gt;`` then ``</p>``), and each of its
    texts would be read twice."""
    names = set()
    at = text.find("</")
    while at >= 0:
        name = element_name(text, at + 2)
        if any(stem in name.lower() for stem in _NOUN_STEMS):
            names.add(name)
        at = text.find("</", at + 2)
    return names


def element_name(text: str, at: int) -> str:
    """The name of the element that starts at ``at`` of ``text`` (after its ``<`` or ``</``), a namespace's prefix
    with it (``jsp:param``)."""
    end = at
    while end < len(text) and (text[end].isalnum() or text[end] in "_.-:"):
        end += 1
    return text[at:end]
