"""What an answer settled, as ``wip``'s ``settled:`` line and ``ctx``'s decisions and findings give it.

An answer's first line is often no finding at all: an opener ("I'll help you apply dark mode styling to the
sidebar. Here are the necessary changes:"), with the changes in code and what they do after them; or the whole
answer is the agent saying what it is about to do ("Checking the worker."). Taken as what was settled, both read as
a conclusion that is none (trial23 F7.2, F7.9). So an answer gives the first line of its prose that says something,
read sentence by sentence: an opener, a sign-off, a question and a sentence that only announces what follows (ends
in ``:``) go, and the line keeps what else it says ("The error occurs because X is not imported. Let's fix that
by adding it:" gives its diagnosis: review43a H1). Code is no line, nor a heading ("## Summary"), and a list item only where nothing else is,
and only one that says what was done or found ("- Fixed the null check", "1. The cache key omits the locale."), not a step to take ("1. Delete the dist folder", "1. It is best to delete node_modules").
An answer that is only such sentences, or one short sentence of
progress, settles nothing. Where a session stopped is its last answer's last sentences (``where_it_stopped``). An answer's prose apart from its code (``prose_and_code``) is what the indexer keeps as
its ``concluded`` too, and an answer that is only a line of progress (``only_progress``) none.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .lines import FENCES, cut, one_line
from .patterns import Lazy  # (a refresh imports this module for ``prose_and_code`` and ``only_progress``)

#: The start of a sentence that closes an answer without saying what was found or done, nor where it stopped
#: ("Let me know if you need anything else.", "If you have any questions, just ask."); "If you need to run this on
#: CI, set ANDROID_HOME there too." is an instruction (review44b L1: two lists of these disagreed).
_SIGN_OFF_WORDS = (
    r"let me know|feel free|hope this|i hope|happy to help|if you have any|is there anything|would you like|"
    r"if you(?:'d| would) like(?=,| me\b| any| more| further| to see)|"
    r"if you need (?:any|anything|more|further|help|additional|assistance)"
)
_SIGN_OFF = Lazy(globals(), "_SIGN_OFF", rf"({_SIGN_OFF_WORDS})\b", re.IGNORECASE)

#: The start of a sentence that opens or closes an answer rather than saying what was found or done, after a word
#: of order ("First, let's…") or a reference to the ask ("Based on your request, I'll…"): the sentence goes.
_OPENER = Lazy(
    globals(),
    "_OPENER",
    r"((now|first|next|then|so|finally)\b,?\s*|based on [^,.]*,\s*)?"
    r"(i'll|i will|i'm going to|i am going to|i'd be happy|happy to|let me|let's|let us|we'll need|we will need|"
    rf"we need|{_SIGN_OFF_WORDS})\b",
    re.IGNORECASE,
)

#: An apology or an admission before the correction it gives, up to the dash, colon, semicolon or comma after it:
#: "I apologize for the confusion - the error is actually caused by…" settles on the cause, not on nothing (review43d
#: M2), and "You're right - let's keep…" is an opener once its admission goes. One without a correction goes whole.
_ADMISSION = Lazy(
    globals(),
    "_ADMISSION",
    r"(i apologi[sz]e|my apologies|apologies|sorry|i was wrong|i stand corrected|you're right|you are right|"
    r"i made a mistake|my mistake)\b"
    r"[^-–—:;,]*?(\s[-–—]\s|[:;,]\s|$)",
    re.IGNORECASE,
)

#: What follows an apology when it corrects nothing but says what the agent cannot do, does not have or recall, or
#: should have done ("I apologize, but I cannot see the file.", "Sorry, I don't actually have access to it.", "I
#: don't think I can run that here."): the sentence goes whole, not as the finding "But I cannot see the file."
#: (review43e L3, review45b M4). Any other remainder states something about the work, the correction, even one that
#: opens with "but" or "I" ("…, but the error is actually in main.ts", "I made a mistake: I imported X twice.":
#: review44b M1; "Sorry, I don't think the port is the cause: …" says what the cause is not: fix44b); and so does
#: what a refusal's colon leads to ("I don't see a bug in parse(): the fixture is stale." → "The fixture is stale.").
_NO_CORRECTION = Lazy(
    globals(),
    "_NO_CORRECTION",
    r"(but\s+)?i\s*(['’]m|am|was)?\s*(\w+ly\s+)?(can['’]t|cannot|can not|couldn['’]t|could not|unable|not able|"
    r"should have|should['’]ve|(don['’]t|do not|didn['’]t|did not)\s+(\w+ly\s+)?"
    r"(have|see|know|recall|remember|possess|understand|think\s+i\s*(['’]m|am)?\s*(can|could|able|will be able))\b)\b"
    r"(?P<then>[^:]*:\s+(?=\S))?",
    re.IGNORECASE,
)

#: The "but" that joins an apology to its correction: "…, but the error is in main.ts" gives "The error is in…".
_BUT = Lazy(globals(), "_BUT", r"but\s+", re.IGNORECASE)

#: A word of assent opening a sentence, with its punctuation: it alone goes (``_after_assent``: "OK: the key lost its
#: newline." → "The key lost…"; "Great catch: the pool…" keeps its "Great"; "Good. Now let me update the README."
#: names a next step alone: review54f F9). Only where the sentence opens: "…the fix is good: the race was…" keeps its
#: colon, and "webhook:" its "ok:" (review55a F1).
_INTERJECTION = Lazy(
    globals(),
    "_INTERJECTION",
    r"(sure|certainly|of course|great|okay|ok|alright|absolutely|good question|great question|perfect|excellent|"
    r"good)\b"
    r"[!.,:;]+\s*",
    re.IGNORECASE,
)

#: Where one sentence ends and the next begins.
_SENTENCE_END = Lazy(globals(), "_SENTENCE_END", r"(?<=[.!?])\s+")

#: A Markdown heading ("## Summary") or a line that is only a bold label ("**Summary**", "**Changes made:**"): it
#: names a part of the answer, never what was found (review43d H1: ``settled: ## Summary`` for every agent-mode
#: answer that opened with one). A bold sentence ("**Done.**", "**Understood.**") is none: the block concludes it, or
#: nothing of an acknowledgement (review55c F6).
_HEADING = Lazy(globals(), "_HEADING", r"#{1,6}(\s|$)|(\*\*|__)[^*_]*[^*_.!?](\*\*|__):?$|(\*\*|__)[^*_]+:(\*\*|__)$")

#: A list item: ``1.``, ``2)``, ``-``, ``*``, ``•``.
_LIST_ITEM = Lazy(globals(), "_LIST_ITEM", r"(\d+[.)]|[-*•])\s+")

#: A list item that says what was done ("- Fixed the null check in parse()", "- **Fixed** the null check") or what
#: was found ("1. The cache key omits the locale."), not a step to take ("1. Delete the dist folder: `rm -rf dist`"),
#: what a change will do ("1. Creates a sidebar") or a thing ("- Background colors"). (A list of findings settled
#: nothing, and the Markdown bold around "Fixed" hid its past tense: review43d M3; "Need", "Speed" and "Embed" are
#: none.)
_DONE = Lazy(
    globals(),
    "_DONE",
    r"(\*\*|__)?((?!(Need|Speed|Embed|Feed|Seed|Bleed)\b)[A-Z][a-z]+ed\b|"
    r"(?P<opener>(The|This|That|It|Its|There)\s\w+\s+\w+\b))",
)

#: Words that make an item opening with "The"/"It" a step to take, not a finding, when they are among its first
#: words: "1. The first thing to do is delete the dist folder.", "1. It is best to delete node_modules" (review43e
#: L4). Further on they say what was found ("1. It turned out the key needs to be base64."), and after a past tense
#: what was done ("- Fixed the import so the page should load now": review44b M2).
_ADVICE = Lazy(
    globals(), "_ADVICE", r"\b(first thing|next thing|best to|should|must|need to|needs to|have to|recommended)\b", re.I
)

#: How many of an item's first words ``_ADVICE`` looks at.
_ADVICE_WORDS = 4

#: An item's first words in bold ("**Fixed** the null check"): shown without the Markdown.
_BOLD_LEAD = Lazy(globals(), "_BOLD_LEAD", r"\A(\*\*|__)(.+?)\1")

#: Words ending in "ing" that are no verb of progress ("Nothing changed.", "Missing import in utils.py." say something).
_NOT_PROGRESS = frozenset(
    {"anything", "bring", "during", "everything", "existing", "failing", "missing", "nothing", "pending", "remaining"}
    | {"something", "string", "thing"}
)

#: Verbs in -ing that open a decision or progress by the word after them (``_decided``): for "keeping" and "leaving"
#: the words that make it progress, any other a decision ("Keeping Postgres.", "Leaving it as is." decide; "Keeping
#: track of the retries.", "Leaving now to check the CI." are under way: review53h, review54b F4, review54e F1; after
#: "keeping a", the noun decides: ``_KEPT_WATCH``); for those of ``_DECIDING_BEFORE`` the words that make it a
#: decision, any other progress. ("Going with option B." decides, "Going to check the logs." does not: ``_decided``.)
_DECIDING = {
    "keeping": frozenset({"track", "watch", "going", "busy", "up", "on", "now", "at"}),
    "leaving": frozenset({"now", "for", "soon", "a", "an"}),
    "sticking": frozenset({"with", "to"}),
    "staying": frozenset({"with", "on", "put", "at"}),
}
#: The verbs of ``_DECIDING`` that decide only before one of their words ("Sticking with Postgres.", "Staying put."),
#: where the others decide but before theirs ("Sticking a breakpoint in the handler." is progress: review54f F13).
_DECIDING_BEFORE = frozenset({"sticking", "staying"})
#: Head nouns that make "Keeping a …" or "Keeping an …" progress ("Keeping a very close eye on the build.", "Keeping a
#: close watch on it."), where any other keeps a thing chosen ("Keeping a single worker.": review54f F8); and those
#: that do before "of" alone ("Keeping a log of the retries.", not "Keeping a single record per job.": review55a F3).
#: The head is the last word before one of ``_KEPT_UNTIL`` ("an eye out for…") or the end.
_KEPT_WATCH = frozenset({"eye", "watch", "lookout"})
_KEPT_TALLY = frozenset({"note", "log", "record", "count", "tally"})
_KEPT_UNTIL = frozenset({"of", "on", "in", "per", "for", "at", "to", "out"})
#: What, in a sentence that opens on a next step, leads to a clause saying more: what was found or decided ("Let me
#: check the config — the port is wrong.", "I'll fix the port, it was 8080.", "… because it no longer exists",
#: "… (`prot` → `port`)": review54b F3), as a colon or a semicolon does; " as well" is another step, and so is a
#: clause after a comma or a bracket that adds one or says how it is taken ("Let me check the logs, then the
#: config.", "…, this time with -v": ``_another_step``, review54e F2, review54f F9).
_SAYS_MORE = (":", ";", "—", "–", " - ", " because ", " since ", " now that ", " as ")
#: Words of a clause that says what is, not a step: "…, and the port was 8080 all along" (``_another_step``).
_BEING = frozenset({"was", "were", "is", "are", "had", "has", "isn't", "wasn't"})
#: Words that open a clause saying how a step is taken ("…, this time with -v", "(using the debug build)"): no more
#: than the step (review54f F9).
_HOW_TAKEN = frozenset({"with", "without", "using", "via"})

#: Sounds of thinking aloud before a next step ("Hmm, let me…", "Well, let me…") or an acknowledgement ("Ah, I see.").
_MUSING = r"hmm+|ah|oh|well|right"

#: What opens a sentence that names the agent's next step ("Let me look at the logs.", "Now I'll check the config
#: next.", "I’m going to rerun the tests.", "Oh right, I'll…": review55a F5), with the verb of that step.
_STEP_OPENER = Lazy(
    globals(),
    "_STEP_OPENER",
    rf"((now|first|next|then|so|finally|{_MUSING})\b,?\s*){{0,2}}"
    r"(i['’]ll|i will|i['’]m going to|i am going to|let me|let['’]s|let us)\s+"
    r"((also|just|quickly|now|first|then|briefly|actually)\s+)?(go ahead and\s+)?(?P<verb>[a-z-]+)\b",
    re.IGNORECASE,
)

#: A sentence of acknowledgement alone ("I see.", "Got it!", "Ah, I see.", "Thanks!", "Good catch."), without its
#: closing stop: before a next step it says nothing found (review54b F7, review54f F12, review55a F5), nor as what an
#: answer settled ("settled: I see.": F11). (A list that grows as forms are found; "Well." stays out: "Well... we
#: planned…" is no acknowledgement.)
_ACKNOWLEDGEMENT = Lazy(
    globals(),
    "_ACKNOWLEDGEMENT",
    rf"(({_MUSING})\b[,!]?\s*)?(i see|got it|understood|interesting|hmm+|right|ah|oh|thanks|thank you|good catch|"
    r"good point|(that )?makes sense)",
    re.IGNORECASE,
)

#: What an ASCII answer holds where ``_STEP_OPENER`` can match it.
_STEP_WORDS = ("let me", "let's", "let us", "i'll", "i will", "going to")

#: How an ASCII answer that says nothing can open: on a word of assent (``_INTERJECTION``), an acknowledgement
#: (``_ACKNOWLEDGEMENT``), a sign-off (``_SIGN_OFF``) or bare punctuation. One that opens otherwise and names no step
#: (``_STEP_WORDS``) says something, seen without a pattern: a refresh reads each changed session's last answer.
_NOTHING_OPENERS = (
    ("sure", "certainly", "of course", "great", "ok", "alright", "absolutely", "perfect", "excellent", "good")
    + ("hm", "ah", "oh", "well", "right", "i see", "got it", "understood", "interesting", "thank", "makes sense")
    + ("that makes sense", "feel free", "hope this", "i hope", "happy to help", "if you", "is there", "would you")
    + (".", "!")
)

#: Verbs of a step still to take, looking or doing (``only_next_steps``): "I'll keep it as is.", "Let's go with option
#: B.", "I'll need access to staging." and "I will not change the schema." say a decision or a blocker, and are not
#: among them.
_NEXT_STEP_VERBS = frozenset(
    {"look", "check", "double-check", "run", "rerun", "re-run", "inspect", "examine", "search", "read", "review"}
    | {"verify", "investigate", "open", "try", "test", "debug", "find", "explore", "dig", "see", "take", "start"}
    | {"fix", "update", "implement", "add", "create", "write", "apply", "change", "edit", "install", "restart"}
    | {"build", "grep", "trace", "reproduce", "compare", "confirm", "figure", "modify", "refactor", "continue"}
    | {"get", "pull", "fetch", "query", "scan", "print", "list", "compile", "deploy", "commit", "push", "make"}
)

#: Words of a state reached after a verb of progress: "Working now.", "Passing again." say a result.
_STATE = frozenset({"again", "correctly", "fine", "now", "properly"})

#: Verbs that give a result after a verb of progress ("Pinning numpy fixed it.", "Failing test was flaky.", "Setting
#: the header fixes it.": review53h H2) besides a past tense in -ed; words that start a clause of what is being looked
#: at ("Checking why it fails.") end the search.
_RESULT_VERBS = frozenset(
    {"broke", "did", "does", "is", "made", "was", "were", "are", "works"}
    | {"breaks", "causes", "fixes", "helps", "resolves", "solves"}
)
_CLAUSE = frozenset({"how", "if", "that", "what", "whether", "where", "which", "who", "why"})

#: Words after which an -ed word describes a thing ("the updated config") rather than saying what happened.
_DETERMINERS = frozenset({"a", "an", "its", "my", "our", "the", "their", "these", "this", "those", "your"})

#: The most of a last answer that says where its session stopped: ``ctx`` repeated a whole answer from its first
#: line, and ``wip --json``'s ``stopped`` held 2 KB of SCSS (trial43 F10).
STOPPED_CHARS = 300

#: The longest answer that can be mere narration of progress ("Checking the worker.", "Now running the tests.").
_NARRATION_CHARS = 60


def settled_line(answer: str, limit: int = 240) -> str:
    """The line of ``answer`` that says what it settled, cut to ``limit`` characters; "" when it says nothing so, as
    for an answer the index concludes nothing of: a line of progress (``_narration``, ``only_progress``'s test) or
    next steps or acknowledgements alone (``only_next_steps``). ``_said``'s own rules drop a sentence opening on "Let
    me" but not on "Hmm, let me", so ``deja wip`` gave ``settled: Hmm, let me look at the worker.`` where the
    session-start block concluded nothing (review54f F11)."""
    if _narration(answer) or only_next_steps(answer):
        return ""
    said: list[str] = []
    done: list[str] = []
    for line in _prose(answer):
        if _HEADING.match(line):
            continue
        if item := _LIST_ITEM.match(line):
            if _done(line[item.end() :]):  # (not "1. Delete the dist folder")
                done.append(_BOLD_LEAD.sub(r"\2", line[item.end() :], count=1))
        elif kept := _said(line):
            said.append(kept)
    return one_line((said or done or [""])[0], limit)


def where_it_stopped(answer: str, limit: int = STOPPED_CHARS) -> str:
    """The last sentences of ``answer``'s prose, up to ``limit`` characters (the last one cut between words when it
    alone is longer): where a session whose last answer it is left off. Its code, headings, sign-offs ("Let me
    know if…") and a sentence that introduced code are none of it, but for one command on one line, shown inline
    ("Now restart the dev server: `ng serve`": ``_short_code_inline``); an answer that ends in a list gives that list
    after its lead-in (``_the_list``); "" for an answer of code alone."""
    lines = _prose(_short_code_inline(answer))
    while lines:
        line = lines.pop()
        if _LIST_ITEM.match(line):
            return _cut_before_code(_the_list(line, lines), limit)
        sentences = [] if _HEADING.match(line) else [s for s in _SENTENCE_END.split(line) if _stop_sentence(s)]
        if sentences:
            kept = sentences.pop()
            while sentences and len(kept) + 1 + len(sentences[-1]) <= limit:
                kept = f"{sentences.pop()} {kept}"
            return _cut_before_code(kept, limit)
    return ""


def ends_on_a_next_step(answer: str) -> bool:
    """Whether ``answer``'s last sentence of prose (a sign-off passed over) says what the agent does next ("Let me
    check the node's clock.", "I'll rerun the tests.", or progress alone, "Checking the worker."): said last in a
    chat, the turn never closed, and it is no answer to what came before it (review49c M3)."""
    for line in reversed(_prose(answer)):
        sentences = [s for s in _SENTENCE_END.split(line) if not _SIGN_OFF.match(s)]
        if sentences:
            last = _after_assent(sentences[-1])
            return bool(_OPENER.match(last)) or _narration(last)
    return False


def only_progress(answer: str) -> bool:
    """Whether ``answer`` is one short line of progress and nothing else ("Checking.", "Now running the tests…",
    "Still waiting on the build.": ``_narration``), which says nothing found or done: the last answer of a session
    stopped mid-work, which concluded nothing, and ``concluded: Checking.`` read as its outcome where ``deja wip``
    gave no ``settled:`` (trial53 F2). A next step the agent names ("Let me look at the logs.") stays the conclusion:
    an opener leads decisions and findings as well ("I'll keep it as is; the current behaviour is correct.", "Let me
    explain: the cache key omits the locale", review53e F1), which a session's conclusion must keep."""
    if answer.isascii() and "ing" not in answer.lower():
        return False  # (``_narration``'s verb of progress ends in "-ing": a refresh reads each changed session's last
        # answer, and most hold none; tests/test_refresh_turn.py)
    lines = _prose(answer)
    return len(lines) == 1 and _narration(lines[0]) and not gives_steps(answer)


def only_next_steps(answer: str) -> bool:
    """Whether every sentence of ``answer``'s prose names a step the agent takes next ("Let me look at the worker's
    logs.", "I'll check the config next."), and it gives no steps or code: the last answer of a session stopped before
    the step, which found or did nothing, and the session-start block gave it as what the session concluded
    (review53h, stop 53's note). Sign-offs, a word of assent opening a sentence ("Good.") and acknowledgements alone
    ("I see.", "Ah, got it.", "Thanks!") are passed over, and an answer of acknowledgements or assent alone names no
    step but says nothing found either: it counts too, as ``deja wip`` settles nothing of it ("Understood.": review55a
    F4); one of sign-offs and no step does not ("Would you like me to restart the pods?", "Got it. Would you like…" is
    where it stopped: review55c F1). A step
    may open on a word of order or of thinking aloud ("Now let me…", "Hmm, let me…": ``_STEP_OPENER``; review54b F7,
    review54f F9, F12). A verb not of a step (``_NEXT_STEP_VERBS``: keep, go with, need, not) is a decision or a
    blocker. A sentence says more where a colon, a semicolon, a dash, "because", "since", "now that" or "as" leads to
    what was found or decided (``_SAYS_MORE``: "Let's go with option B: it avoids the migration.", "I'll keep it as
    is; the current behaviour is correct.": review53e F1, review54b F3), but a colon that ends it leads to the tool
    call it announces ("Now let me check the remaining files:", F7) and "as well" is another step; and where a clause
    after a comma or a bracket says anything but another step or how it is taken ("…, then the config", "(and the
    worker)", "…, this time with -v": ``_another_step``; "…, and the port was 8080 all along" and "…, with the fixture
    regenerated" say what was: review54e F2, review54f F7, F9, review55a F2)."""
    lowered = answer.lower()
    # (what ``_STEP_OPENER`` or ``_says_nothing`` needs: a refresh reads each changed session's last answer, and most
    # hold none of it)
    if (
        answer.isascii()
        and not any(word in lowered for word in _STEP_WORDS)
        and not lowered.lstrip(" \t\n*_").startswith(_NOTHING_OPENERS)  # (in bold too: "**Understood.**")
    ):
        return False
    # (an answer that names no step and signs off, "Would you like me to restart the pods?", is where it stopped: its
    # own conclusion, with or without a "Got it." before it: review55c F1)
    signed_off = acknowledged = stepped = False
    for sentence in (_after_assent(sentence) for line in _prose(answer) for sentence in _SENTENCE_END.split(line)):
        if _SIGN_OFF.match(sentence):
            signed_off = True
        elif _says_nothing(sentence):
            acknowledged = True
        elif _a_next_step(sentence):
            stepped = True
        else:
            return False  # (read no further: review55a F7)
    return (stepped or (acknowledged and not signed_off)) and not gives_steps(answer)


def _says_nothing(sentence: str) -> bool:
    """Whether ``sentence`` is empty or acknowledgements alone ("I see.", "Ah, got it!", "Got it, thanks!":
    ``_ACKNOWLEDGEMENT``; review55c F5), in bold too ("**Understood.**", which ``_HEADING`` passes over as a label:
    review55c F6)."""
    bare = sentence.strip(" .!*_")
    return not bare or all(map(_ACKNOWLEDGEMENT.fullmatch, _ACKNOWLEDGEMENTS_APART.split(bare)))


#: What parts acknowledgements run together in one sentence ("Got it, thanks", "Thanks, got it").
_ACKNOWLEDGEMENTS_APART = Lazy(globals(), "_ACKNOWLEDGEMENTS_APART", r"[,!.]+\s*")


def _a_next_step(sentence: str) -> bool:
    """Whether ``sentence`` only names the agent's next step (``only_next_steps``)."""
    step = _STEP_OPENER.match(sentence)
    if not step or step["verb"].lower() not in _NEXT_STEP_VERBS:
        return False
    # (after the opener, whose "Next, I'll" has a comma of its own; a colon that ends it leads to a tool call)
    rest = sentence[step.end() :].rstrip().removesuffix(":").replace(" as well", "")
    clauses = [*rest.split(", ")[1:], *rest.split("(")[1:]]
    return not any(map(rest.__contains__, _SAYS_MORE)) and all(map(_another_step, clauses))


def _another_step(clause: str) -> bool:
    """Whether ``clause``, after a comma or a bracket of a sentence naming a next step, names another ("then the
    config", "and the worker)") or how the step is taken ("this time with -v", "using the debug build":
    ``_HOW_TAKEN``), not what came of it ("with the fixture regenerated", "without the retry that caused it", "with 41
    of 42 now passing": review55a F2)."""
    words = clause.lower().rstrip(" .!)").split()
    if any(word in _BEING for word in words):  # ("…, and the port was 8080 all along": what was found, review54f F7)
        return False
    if words[:2] == ["this", "time"]:
        words = words[2:]
    if words[:1] and words[0] in _HOW_TAKEN:
        return not (_STATE.intersection(words) or any(_happened(words, at) for at in range(1, len(words))))
    return bool(words) and (words[0] in ("then", "and", "also", "too") or words[:3] == ["one", "by", "one"])


def ends_on_a_question(answer: str) -> bool:
    """Whether ``answer``'s last sentence of prose asks the user something ("Would you like me to restart it?", "Can
    you share the log?"): an answer that closes on it, and says nothing found or done (``settled_line``), answered
    nothing of what came before it."""
    lines = _prose(answer)
    return bool(lines) and lines[-1].rstrip("*_ ").endswith("?")


def gives_steps(answer: str) -> bool:
    """Whether ``answer`` gives steps or code (a list item, a fenced block): "1. Run `sysctl …` 2. Restart the dev
    server. Did that work?" closes on a question to the user, yet answered with the fix to take (review50a M2)."""
    return len(prose_and_code(answer)[0]) > 1 or any(_LIST_ITEM.match(line) for line in _prose(answer))


def _cut_before_code(text: str, limit: int) -> str:
    """``text`` cut between words to ``limit`` characters, and before the inline code the cut fell in: half a
    command, its backtick unclosed, is no command to copy (review45b L2)."""
    shown = cut(text, limit, words=True)
    if shown != text and shown.count("`") % 2:
        shown = shown[: shown.rindex("`")].rstrip() + "…"
    return shown


#: A line ending in ":" and the fenced block of one short line (up to 80 characters) after it: "Now restart the dev
#: server:" and ``ng serve``.
_INTRODUCED_ONE_LINER = Lazy(
    globals(),
    "_INTRODUCED_ONE_LINER",
    r":[ \t]*\n(?:[ \t]*\n)*[ \t]*(```|~~~)[^\n]*\n[ \t]*(\S[^`\n]{0,79}?)[ \t]*\n[ \t]*\1[ \t]*(?=\n|$)",
)


#: A line that opens or closes a fenced block.
_FENCE_LINE = Lazy(globals(), "_FENCE_LINE", r"^[ \t]*(?:```|~~~)", re.MULTILINE)


def _short_code_inline(answer: str) -> str:
    """``answer`` with each one-line block that a line ending in ":" introduced put on that line as inline code:
    "Now restart the dev server: `ng serve`" says where the session stopped, where the line alone introduced what
    no digest shows and was dropped (fix44b). Longer code stays a block, which no digest shows, and so does a
    command that discards work (``git reset --hard``, ``rm -rf``): inline, it read as the step to take, without the
    warning the digest's commands give it (review45b L1). A line ending in ":" inside a block (YAML's ``web:``) and
    its closing fence introduce nothing: the prose after them is no code (review45b L3)."""
    if "```" not in answer and "~~~" not in answer:
        return answer
    from .destructive import is_destructive

    # (where each fence starts, found once: counted from the answer's start for each block, a 100 KB answer of
    # introduced one-liners took 17 s: review55c F4)
    fences = [fence.start() for fence in _FENCE_LINE.finditer(answer)]

    def inline(block: re.Match[str]) -> str:
        if bisect_left(fences, block.start()) % 2 or is_destructive(block[2]):
            return block[0]
        return f": `{block[2]}`"

    return _INTRODUCED_ONE_LINER.sub(inline, answer)


def _stop_sentence(sentence: str) -> bool:
    """Whether ``sentence`` may say where an answer stopped: not a sign-off, nor one that introduced what followed."""
    return not _SIGN_OFF.match(sentence) and not sentence.endswith(":")


def _the_list(last: str, before: list[str]) -> str:
    """The list that ends with item ``last`` (``before`` holds the prose lines before it), its items without their
    markers after the sentence that introduced it: "The dark mode toggle will now affect: Background colors; Text
    colors; And all other UI elements". Its last item alone ("- And all other UI elements", "5. Implement the actual
    navigation logic") said nothing (review44b M3)."""
    items = [last]
    while before and _LIST_ITEM.match(before[-1]):
        items.append(before.pop())
    listed = "; ".join(_LIST_ITEM.sub("", item, count=1) for item in reversed(items))
    return f"{_lead_in(before[-1])} {listed}" if before and _lead_in(before[-1]) else listed


def _lead_in(line: str) -> str:
    """What ``line`` says to introduce the list after it, ending in ":": its last sentence when that ends so ("The
    toggle will now affect:"), or the name a heading gives the list ("## Next steps", "**Changes made:**" → "Next
    steps:"; a list under a heading had no lead-in: fix44b); "" when it introduces nothing."""
    if _HEADING.match(line):
        return line.strip("#*_ ").rstrip(":*_ ") + ":"
    return _SENTENCE_END.split(line)[-1] if line.endswith(":") else ""


def _prose(answer: str) -> list[str]:
    """The lines of ``answer`` outside its fenced code blocks, blanks joined."""
    return [
        joined for part in prose_and_code(answer)[0] for line in part.splitlines() if (joined := " ".join(line.split()))
    ]


def _done(item: str) -> bool:
    """Whether list item ``item`` (without its marker) says what was done or found, not a step to take."""
    if not (done := _DONE.match(item)):
        return False
    return not (done["opener"] and _ADVICE.search(" ".join(item.split()[:_ADVICE_WORDS])))


def _said(line: str) -> str:
    """The sentences of ``line`` that say something, without its openers, sign-offs, questions and announcements
    ("I'll help you with that. The cache key omits the locale. Here is the fix:" → "The cache key omits the
    locale."); "" when it is only those."""
    kept = []
    for sentence in map(_after_assent, _SENTENCE_END.split(line)):
        if _says_nothing(sentence):
            continue
        corrected = 0  # (where the run of apologies ends: sliced once, a megabyte of "Sorry, " took 13 s: review55a F6)
        while admitted := _ADMISSION.match(sentence, corrected):
            corrected = admitted.end()
        apologised = corrected > 0
        if apologised:
            sentence = _capitalised(sentence[corrected:])
        if apologised and (refusal := _NO_CORRECTION.match(sentence)):
            if not refusal["then"]:  # (no colon: nothing said of the work)
                continue
            sentence = _capitalised(sentence[refusal.end() :])
        if apologised and (but := _BUT.match(sentence)):
            sentence = _capitalised(sentence[but.end() :])
        if _OPENER.match(sentence):
            sentence = _finding_after_opener(sentence)
        if sentence and not sentence.endswith((":", "?")):
            kept.append(sentence)
    return " ".join(kept)


#: What ends the part of a sentence opened on a next step where what was found or decided begins ("Let me check the
#: config — the port is wrong.": ``_finding_after_opener``).
_FINDING_AFTER = Lazy(globals(), "_FINDING_AFTER", r"(?:[:;]|\s-)\s+(?=\S)|[—–]\s*(?=\S)")


def _finding_after_opener(sentence: str) -> str:
    """What ``sentence``, opening on a next step or a decision (``_OPENER``), says was found or decided, as the
    session-start block concludes it (``only_next_steps``): after the step its colon, semicolon or dash ends, "Let me
    confirm the fix is good: the race was in the ack handler." → "The race was in the ack handler."; the sentence
    whole where a decision leads ("Let's go with option B: it avoids the migration.") or a clause says what was ("Let
    me rerun the tests, and the port was 8080 all along."); "" for a step alone, a sign-off or an opener that only
    says what follows ("I'll help you with that."); the sentence whole where another opener follows the dash. ``deja
    wip`` dropped each whole (review55c F3)."""
    step = _STEP_OPENER.match(sentence)
    if not step or _SIGN_OFF.match(sentence) or sentence.rstrip().endswith(":"):
        return ""
    if ends := _FINDING_AFTER.search(sentence, step.end()):
        found = sentence[
            ends.end() :
        ]  # (itself a next step, "Let's find a time - I'll check my schedule.": no finding)
        stepped = _a_next_step(sentence[: ends.start()].rstrip()) and not _OPENER.match(found)
        return _capitalised(found) if stepped else sentence
    stepping = step["verb"].lower() in _NEXT_STEP_VERBS
    return sentence if stepping and not _a_next_step(sentence) else ""


def _after_assent(sentence: str) -> str:
    """``sentence`` without the words of assent it opens on (``_INTERJECTION``: "OK: the key…" → "The key…"; "Ok,
    good." → "": review55c F5)."""
    opens = 0
    while assent := _INTERJECTION.match(sentence, opens):
        opens = assent.end()
    return _capitalised(sentence[opens:]) if opens else sentence


def _capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _narration(answer: str) -> bool:
    """Whether ``answer`` is one short sentence of progress ("Checking the worker.", "Now running the tests…"), which
    says no result (a number, a second clause: "Running the tests again: all 42 pass." does; a verb of what it did:
    "Adding the missing index fixed it."; a state: "Working now.")."""
    text = " ".join(answer.split())
    if not text or len(text) > _NARRATION_CHARS or _SENTENCE_END.search(text) or re.search(r"[\d;:]", text):
        return False
    words = re.findall(r"[a-z']+", text.lower())
    if words and words[0] in ("now", "next", "first", "then", "still", "also", "and"):
        words = words[1:]
    if not words or not words[0].endswith("ing") or words[0] in _NOT_PROGRESS or _decided(words):
        return False
    return not _a_result(words)


def _decided(words: list[str]) -> bool:
    """Whether ``words``, opening with a verb in -ing, say what was chosen ("Keeping the current behaviour.", "Going
    with option B."), not what is under way ("Going to check the logs.")."""
    if words[0] == "going":
        return words[1:2] == ["with"]
    if words[0] not in _DECIDING or len(words) < 2:
        return False
    if words[0] == "keeping" and words[1] in ("a", "an"):
        return not _kept_watch(words[2:])
    return (words[1] in _DECIDING[words[0]]) == (words[0] in _DECIDING_BEFORE)


def _kept_watch(phrase: list[str]) -> bool:
    """Whether ``phrase``, after "keeping a"/"an", names a watch kept rather than a thing chosen, by its head noun (the
    last word before a preposition, ``_KEPT_UNTIL``): "a very close eye on the build", "a log of the retries" are
    under way, "a single record per job", "a log file per worker" decided (review55a F3)."""
    end = next((at for at, word in enumerate(phrase) if word in _KEPT_UNTIL), len(phrase))
    if not end:
        return False
    head = phrase[end - 1]
    return head in _KEPT_WATCH or (head in _KEPT_TALLY and phrase[end : end + 1] == ["of"])


def _a_result(words: list[str]) -> bool:
    """Whether the words after a verb of progress (``words[0]``) say what came of it: a state ("now"), or a verb of
    what happened before any clause of what is looked at ("…fixed it", not "Checking why it failed")."""
    if words[1:] and set(words[1:]) <= _STATE:
        return True
    for at, word in enumerate(words[1:], 1):
        if word in _CLAUSE:
            return False
        if _happened(words, at):
            return True
    return False


def _happened(words: list[str], at: int) -> bool:
    """Whether ``words[at]``, after a verb or a preposition (``words[0]``), says what happened: a verb of a result
    ("fixes"), or a past tense that describes no thing ("Checking failed tests", "with the updated config")."""
    word = words[at]
    described = at == 1 or words[at - 1] in _DETERMINERS
    return word in _RESULT_VERBS or (word.endswith("ed") and len(word) > 4 and not described)


def prose_and_code(text: str) -> tuple[list[str], list[str]]:
    """``text``'s prose between its fenced code blocks (the first part before the first block, the last after the
    last: empty when the text ends inside one), and the files its blocks were for (a fence's ``lang:path``, as Cursor
    writes it)."""
    parts: list[list[str]] = [[]]
    files: list[str] = []
    fence = ""
    for line in text.splitlines():
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
                parts.append([])
            continue
        if stripped.startswith(FENCES):
            fence = stripped[:3]
            info = stripped.lstrip(fence[0]).strip()
            if ":" in info and (path := info.rpartition(":")[2].strip()) and path not in files:
                files.append(path)
            continue
        parts[-1].append(line)
    if fence:
        parts.append([])
    return ["\n".join(part) for part in parts], files
