"""Other words for what a query asks: how a developer says it weeks later is rarely how the chat said it.

"bouncing the containers" was "restarted the stack" at the time; "signed out" was "kicked back to login";
"gateway errors" were 502s. A query term also looks for the words of its group here, each at a share of its
weight (``RELATED_WEIGHT``), and counts as matched when one of them is found; a word's other forms the
stemmer cannot join (``ran``/``run``) count in full. Only the query is expanded: the index is unchanged.

The groups are general developer vocabulary, not a benchmark's answers: words used for the same failure,
operation or thing.
"""

from __future__ import annotations

from itertools import product

from .record import Record
from .text import terms, token_terms

#: Forms of one word the stemmer leaves apart (irregular verbs): each finds the others at full weight. Each group's
#: words, and their terms, each once, as the index makes them (``token_terms``: each word is one token; here and in
#: RELATED written rather than stemmed for every query, which cost a recalling prompt about 0.5 M instructions;
#: tests/test_thesaurus_table.py checks each against the stemmer).
FORMS = {
    "run ran": ("run", "ran"),
    "break broke broken": ("break", "broke", "broken"),
    "write wrote written": ("write", "wrote", "written"),
    "hang hung": ("hang", "hung"),
    "freeze froze frozen": ("freez", "froze", "frozen"),
    "send sent": ("send", "sent"),
    "build built": ("build", "built"),
    "lose lost": ("lose", "lost"),
    "keep kept": ("keep", "kept"),
    "begin began begun": ("begin", "began", "begun"),
    "take took taken": ("take", "took", "taken"),
    "throw threw thrown": ("throw", "threw", "thrown"),
    "go went gone": ("go", "went", "gone"),
    "do did done": ("done",),
    "find found": ("find", "found"),
    "hide hid hidden": ("hide", "hid", "hidden"),
    "shut": ("shut",),
    "bring brought": ("bring", "brought"),
    "leave left": ("leav", "left"),
    "come came": ("come", "came"),
}

#: Words developers use for the same thing, and their terms (as FORMS'); each finds the others at ``RELATED_WEIGHT``.
RELATED = {
    # what happened to a process or a request
    "restart reboot bounce relaunch respawn recreate": ("restart", "reboot", "bounc", "relaunch", "respawn", "recreat"),
    "kill cancel abort terminate": ("kill", "cancel", "abort", "termin"),
    "crash die dead exit crashloop": ("crash", "die", "dead", "exit", "crashloop"),
    "hang stuck freeze block wedge": ("hang", "stuck", "freez", "block", "wedg"),
    "fail failure broken error": ("fail", "failur", "broken", "error"),
    "timeout deadline": ("timeout", "deadlin"),
    "flaky intermittent sometimes occasionally random nondeterministic": (
        "flaki",
        "intermitt",
        "sometim",
        "occasion",
        "random",
        "nondeterminist",
    ),
    "slow latency sluggish lag": ("slow", "latenc", "sluggish", "lag"),
    "leak leaking exhaust exhausted": ("leak", "exhaust"),
    # shipping and running it
    "deploy release rollout ship": ("deploy", "releas", "rollout", "ship"),
    "server node host machine box instance": ("server", "node", "host", "machin", "box", "instanc"),
    "container docker pod": ("contain", "docker", "pod"),
    "stack compose": ("stack", "compos"),
    "replica standby secondary": ("replica", "standbi", "secondari"),
    "primary master leader": ("primari", "master", "leader"),
    "job pipeline workflow runner ci": ("job", "pipelin", "workflow", "runner", "ci"),
    "disk storage space volume": ("disk", "storag", "space", "volum"),
    "memory oom ram": ("memori", "oom", "ram"),
    "gateway 502 504 upstream proxy": ("gateway", "502", "504", "upstream", "proxi"),
    "forbidden 403 unauthorized 401 denied": ("forbidden", "403", "unauthor", "401", "deni"),
    "404 missing": ("404", "miss"),
    # data and state
    "database postgres mysql sqlite": ("databas", "postgr", "mysql", "sqlite"),
    "credential password secret passwd": ("credenti", "password", "secret", "passwd"),
    "empty wiped gone lost": ("empti", "wipe", "gone", "lost"),
    "delete remove drop purge": ("delet", "remov", "drop", "purg"),
    "old previous stale outdated": ("old", "previous", "stale", "outdat"),
    "duplicate twice double": ("duplic", "twice", "doubl"),
    "big large huge heavy": ("big", "larg", "huge", "heavi"),
    "edit change modify tweak": ("edit", "chang", "modifi", "tweak"),
    # people and places
    "user people customer": ("user", "peopl", "customer"),
    "admin backoffice dashboard": ("admin", "backoffic", "dashboard"),
    "site website storefront frontend": ("site", "websit", "storefront", "frontend"),
    "phone mobile device": ("phone", "mobil", "devic"),
    "email mail": ("email", "mail"),
    "bill invoice": ("bill", "invoic"),
    "refund chargeback": ("refund", "chargeback"),
    "signup register registration": ("signup", "regist", "registr"),
    "login signin": ("login", "signin"),
    "logout signout": ("logout", "signout"),
    # more of the same kind, for what the benchmark does not ask about
    "browser chrome firefox safari": ("browser", "chrome", "firefox", "safari"),
    "secure safe https tls ssl certificate": ("secur", "safe", "https", "tls", "ssl", "certif"),
    "fast quick speed performance": ("fast", "quick", "speed", "perform"),
    "setting option configuration": ("set", "option", "configur"),
    "exception error traceback": ("except", "error", "traceback"),
    "schedule cron nightly overnight": ("schedul", "cron", "night", "overnight"),
    "upload import ingest": ("upload", "import", "ingest"),
    "download fetch": ("download", "fetch"),
    "permission access": ("permiss", "access"),
    "token jwt": ("token", "jwt"),
    "payment charge": ("payment", "charg"),
    "cpu processor": ("cpu", "processor"),
    "mac macos osx": ("mac", "maco", "osx"),
    "kubernetes k8s": ("kubernet", "k8s"),
    "javascript js": ("javascript", "js"),
    "typescript ts": ("typescript", "ts"),
    "python py": ("python", "py"),
}


def _joined(*choices: str) -> tuple[str, ...]:
    """Every way to say a phrase: one word of each of ``choices`` (words between blanks), in order, a space between
    them. The cues of a phrase whose pattern is those words with whitespace between."""
    return tuple(map(" ".join, product(*map(str.split, choices))))


#: What two words of a query say together, as the term a chat would have used for it: (cues, pattern, term). Every
#: match of a pattern holds one of its cues once each run of whitespace is one space, so a query holding none is not
#: matched (most prompts hold none, and importing ``re`` for the patterns cost a prompt's hook about 20 M
#: instructions, half of starting Python). A cue is the phrase's words as the pattern joins them, not one word of it:
#: "out", "time", "let" (in "delete", "complete") and "log" (in "blog", "catalog") are in many a prompt that says no
#: "timed out" or "log in".
PHRASES = [
    (
        _joined("log logs logging logged sign signs signing signed", "in on")
        + _joined("let", "me us them him her", "in on"),
        r"\b(?:log|logs|logging|logged|sign|signs|signing|signed|let\s+(?:me|us|them|him|her))\s+(?:in|on)\b",
        "login",
    ),
    (
        _joined("log logs logging logged sign signs signing signed kicked kick thrown threw", "out"),
        r"\b(?:log|logs|logging|logged|sign|signs|signing|signed|kicked|kick|thrown|threw)\s+out\b",
        "logout",
    ),
    (("office",), r"\bback[\s-]?office\b", "admin"),
    (("only cop",), r"\bread[\s-]?only\s+cop(?:y|ies)\b", "replica"),
    (("bad gateway",), r"\bbad\s+gateway\b", "502"),
    (("money back",), r"\bmoney\s+back\b", "refund"),
    (_joined("no", "room space", "left"), r"\bno\s+(?:room|space)\s+left\b", "disk"),
    (("out of memory",), r"\bout\s+of\s+memory\b", "oom"),
    # a count said in two words, as the chat may have said it in one ("ran twice"; "once" is a stopword, as "one
    # time" is all but one: neither is looked for); the other way, "twice" is not looked for as "two times", which
    # the index cannot tell from "two" and "times" apart (it keeps no word's place) (trial48b F9)
    (_joined("two 2", "times"), r"\b(?:two|2)\s+times\b", "twice"),
    (_joined("three 3", "times"), r"\b(?:three|3)\s+times\b", "thrice"),
]

#: Words developers write closed, spaced or hyphenated ("rollback", "rolled back", "roll-back"), as their two words:
#: the first in any form the stemmer joins ("rolled", "rolling"), the second as written or, when it is no stopword,
#: in its plural too ("user names"). Two of a query's words side by side look for the closed word (``related``), and
#: the closed word for the hyphenated one and for the two words side by side in a chat (``closed_compounds``).
#: ("log in" and "log out" are in PHRASES too, which gives their closed words other spellings: "signed in".)
#: Each with its words' terms as ``token_terms`` makes them: the first word's, the second's ("" for a stopword), the
#: closed word's. Written here, not made: stemming their 57 words cost every recalling prompt about 1 M instructions
#: (tests/test_thesaurus_table.py checks each against the stemmer).
COMPOUNDS = [
    ("roll back", "roll", "back", "rollback"),
    ("roll out", "roll", "", "rollout"),
    ("log in", "log", "", "login"),
    ("log out", "log", "", "logout"),
    ("sign up", "sign", "", "signup"),
    ("set up", "set", "", "setup"),
    ("start up", "start", "", "startup"),
    ("shut down", "shut", "", "shutdown"),
    ("check out", "check", "", "checkout"),
    ("back up", "back", "", "backup"),
    ("time out", "time", "", "timeout"),
    ("look up", "look", "", "lookup"),
    ("clean up", "clean", "", "cleanup"),
    ("tear down", "tear", "", "teardown"),
    ("hot fix", "hot", "fix", "hotfix"),
    ("health check", "health", "check", "healthcheck"),
    ("code base", "code", "base", "codebas"),
    ("file name", "file", "name", "filenam"),
    ("user name", "user", "name", "usernam"),
]

#: A related word's share of the weight the query term it stands for has. Tuned on the coding benchmark's tuning
#: half (bench/coding_history.py); LoCoMo (bench/locomo.py) checked not to lose.
RELATED_WEIGHT = 0.7

#: Each group's terms and the weight its terms get for one another: FORMS' in full, RELATED's at RELATED_WEIGHT.
_GROUPS = [(held, weight) for groups, weight in ((FORMS, 1.0), (RELATED, RELATED_WEIGHT)) for held in groups.values()]
#: A term -> the groups (in order) holding it, made when a query first needs it.
_BY_TERM: dict[str, list[int]] = {}


def others(term: str) -> list[tuple[str, float]]:
    """The other terms ``term`` also looks for, with their weights: every group's that holds it, in the groups'
    order."""
    if not _BY_TERM:
        for i, (held, _) in enumerate(_GROUPS):
            for one in held:
                _BY_TERM.setdefault(one, []).append(i)
    found: list[tuple[str, float]] = []
    for i in _BY_TERM.get(term, ()):
        group, weight = _GROUPS[i]
        found.extend((other, weight) for other in group if other != term)
    return found


def related(query: str, words: list[str]) -> tuple[dict[str, list[tuple[str, float]]], list[str]]:
    """For each of ``words`` (the query's terms), the other terms it also looks for, with their weights; and the
    terms of phrases made only of noise words (``let me in``), which the query lacks and gains.

    A phrase (``signed out``) adds its term to the phrase's first word; a compound's two words side by side (``rolled
    back``, ``roll-back``) add the closed word (``rollback``) to their terms, its weight shared between them. A term
    already among ``words``, or already looked for by the word, is not added again.
    """
    own = set(words)
    found: dict[str, list[tuple[str, float]]] = {}
    for word in words:
        kept = [(t, w) for t, w in others(word) if t not in own]
        if kept:
            found[word] = kept
    gained: list[str] = []
    lowered = query.lower()
    spaced = " ".join(lowered.split())  # every run of whitespace one space: where a cue's leading space is looked for
    for cues, pattern, term in PHRASES:
        if not any(cue in spaced for cue in cues):
            continue
        import re  # (here: a query holding no cue, as most do, never loads it)

        for match in re.finditer(pattern, lowered):  # (re keeps what it compiled)
            anchor = next(iter(terms(match.group())), None)
            if term in own or term in gained:
                continue
            if anchor is None:
                gained.append(term)
            elif anchor in own:
                found.setdefault(anchor, []).extend([(term, 1.0), *others(term)])
    for word, compound in closed_compounds(words).items():
        if compound.hyphenated not in own:
            found.setdefault(word, []).append((compound.hyphenated, 1.0))
    for pair_terms, closed in _closed_words(query):
        held = [term for term in pair_terms if term in own]
        if closed in own or not held:
            continue
        for term in held:
            alternatives = found.setdefault(term, [])
            looked_for = {t for t, _ in alternatives}
            share = 1.0 / len(held)
            alternatives.extend(
                (t, w * share) for t, w in [(closed, 1.0), *others(closed)] if t not in looked_for and t not in own
            )
    return found, gained


class Compound(Record, frozen=True):
    """One of ``COMPOUNDS`` as the index spells it."""

    #: Its first word's term.
    first: str
    #: Its second word as written.
    second: str
    #: The second word's term ("" for a stopword: "up", "in").
    second_term: str
    #: The closed word's term.
    closed: str
    #: The hyphenated word.
    hyphenated: str


#: ``COMPOUNDS`` as ``Compound``s, made when a query first needs them.
_COMPOUNDS: list[Compound] = []
#: Each way a query may write a compound's second word (as written; plural for one that is no stopword: "names",
#: "fixes") -> the compounds with that second word.
_BY_SECOND: dict[str, list[Compound]] = {}


def _compounds() -> list[Compound]:
    if not _COMPOUNDS:
        for words, first_term, second_term, closed in COMPOUNDS:
            first, second = words.split()
            compound = Compound(first_term, second, second_term, closed, f"{first}-{second}")
            _COMPOUNDS.append(compound)
            for form in [second, second + "s", second + "es"] if second_term else [second]:
                _BY_SECOND.setdefault(form, []).append(compound)
    return _COMPOUNDS


def _side_by_side(query: str) -> list[tuple[str, str]]:
    """The query's pairs of words with only whitespace or a hyphen between them (``rolled back``, ``roll-back``),
    lowercase; a word is letters alone (a path or a number joins no compound), and punctuation parts a pair."""
    pairs: list[tuple[str, str]] = []
    before = ""
    for chunk in query.lower().split():
        core = chunk.strip(".,;:!?()[]{}'\"`")
        if core != chunk and not chunk.startswith(core):
            before = ""  # (punctuation ahead of the chunk parts it from the word before)
        for word in core.split("-"):
            if word.isalpha():
                if before:
                    pairs.append((before, word))
                before = word
            else:
                before = ""
        if not chunk.endswith(core) or not core:
            before = ""
    return pairs


def _closed_words(query: str) -> list[tuple[list[str], str]]:
    """Each compound the query says in two words: the terms of its two words as the query wrote them, and the closed
    word's term."""
    _compounds()
    found: list[tuple[list[str], str]] = []
    for word, after in _side_by_side(query):
        for compound in _BY_SECOND.get(after, ()):
            if _joins(word, compound):
                found.append(([compound.first, *token_terms(after)[:1]], compound.closed))
    return found


#: First words whose ``-s`` form before a particle is more often a noun's plural than a verb: "the logs in production"
#: is no login, "the checks out of date" no checkout (review41b H1); "times out", "sets up" are the verbs.
PLURAL_NOUNS = ("logs", "checks")


def _joins(word: str, compound: Compound) -> bool:
    """Whether ``word``, written before ``compound``'s second word, is its first in a form the stemmer joins (``rolled``
    back, ``user`` names), but a plural noun's (``PLURAL_NOUNS``)."""
    return token_terms(word)[:1] == [compound.first] and word not in PLURAL_NOUNS


def closed_compounds(words: list[str]) -> dict[str, Compound]:
    """Each of ``words`` (the query's terms) that is a compound's closed word (``rollback``), with the compound: it
    looks for the hyphenated word (``related``) and the two words side by side (``says_spaced``) as well."""
    closed = {compound.closed: compound for compound in _compounds()} if words else {}
    return {word: closed[word] for word in words if word in closed}


def says_spaced(text: str, compound: Compound) -> bool:
    """Whether ``text`` (``text.normalise``'d: lowercase, one space between words) says ``compound``'s two words side
    by side, the first in any form the stemmer joins (``rolled back``, ``user names``), with ``str``'s own search."""
    needle = " " + compound.second
    at = text.find(needle)
    while at > 0:
        end = at + len(needle)
        if compound.second_term and text.startswith("s", end):
            end += 1  # (a plural: "file names")
        start = at
        while start and text[start - 1].isalpha():
            start -= 1
        if (end == len(text) or not text[end].isalnum()) and _joins(text[start:at], compound):
            return True
        at = text.find(needle, at + 1)
    return False
