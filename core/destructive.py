"""Commands that throw work or data away (force-push, ``rm -rf``, ``reset --hard``, dropping data, pruning or
deleting volumes, a cluster's objects or infrastructure): shown as history, never offered as a fix, and marked where
a hook reports their past runs.

Here, not in ``work.py``: the Shell pre-hook asks too, and must not load ``work.py``'s patterns and ``re`` for it.
"""

from __future__ import annotations

from .errors import folded, found, is_word

#: The commands, as one pattern (compiled when first needed: most commands hold none of its words). A tool's
#: subcommand is taken after its options (``kubectl -n prod delete``), so a subcommand that only names a deletion is
#: not one (``kubectl auth can-i delete``, ``terraform plan -destroy``). An option is read up to the next ``;``,
#: ``&`` or ``|`` (``git push && docker run -d`` deletes nothing), but a force-push anywhere after ``git push`` is
#: taken as one (``git push 2>&1 --force``, ``git push origin $(git branch --show-current | tr -d ' ') -f``).
DESTRUCTIVE = (
    r"\bgit\s+push\b.*(?:\s-f\b|--force|\s\+\w)|\bgit\s+push\b[^;&|]*(?:\s-\w*[fd]\w*\b|--delete\b|\s:\w)"
    r"|\bgit\s+stash\s+(?:drop|clear)\b"
    r"|\brm\s+-\w*[rf]\w*\b|\brm\s+(?:[^;&|]*\s)?--(?:recursive|force)\b"
    r"|\bgit\s+reset\s+--hard\b|\bgit\s+clean\b[^;&|]*\s(?:-\w*f|--force\b)|\bgit\s+checkout\s+--\s+\."
    r"|\bgit\s+branch\b[^;&|]*\s(?-i:-\w*D)"
    r"|\bdrop\s+(?:table|database|schema)\b|\btruncate\s+table\b|\bdelete\s+from\b|\bmkfs\b|\bdd\s+[^;&|]*\bof="
    r"|\bdocker\s+(?:system|volume|image)\s+prune\b[^;&|]*(?:\s-\w*a|--all|--volumes)|\bdocker\s+volume\s+rm\s"
    r"|\bdocker[\s-]compose\b[^;&|]*\sdown\b[^;&|]*\s(?:-\w*v|--volumes\b)"
    r"|\bterraform(?:\s+-\S+)*\s+(?:destroy\b|apply\b[^;&|]*\s-destroy\b)"
    r"|\bkubectl(?:\s+-\S+(?:\s+[^-\s]\S*)?)*\s+delete\b"
    r"|\bhelm(?:\s+-\S+(?:\s+[^-\s]\S*)?)*\s+(?:uninstall|un|delete|del)\b"
    r"|\bfind\b.*\s-delete\b|\bdropdb\b|\bflushall\b|\bflushdb\b|--force-reset\b"
)


#: What each of ``DESTRUCTIVE``'s alternatives holds (as ``(?i)`` reads it): every word of one of these groups; ``rm``
#: and ``dd`` begin a word and a blank follows them. Two words where one is common (``docker compose up``, ``helm
#: upgrade``), and a git or docker subcommand with what its destructive form adds (an option, ``+``, ``:``, ``hard``):
#: a command holding one alone loads no ``re`` (``git push origin main``, a step "What followed" names each time).
_DESTRUCTIVE_WORDS = (
    ("push", "-"),
    ("push", "+"),
    ("push", ":"),
    ("reset", "hard"),
    ("clean", "-"),
    ("checkout", "--"),
    ("branch", "-"),
    ("drop",),
    ("truncate",),
    ("delete",),
    ("mkfs",),
    ("prune", "-"),
    ("force-reset",),
    ("flush",),
    ("destroy",),
    ("stash", "clear"),
    ("compose", "down"),
    ("helm", "un"),
    ("helm", "del"),
)


def is_destructive(command: str) -> bool:
    """Whether ``command`` discards work or data (force-push, ``rm -rf``, ``reset --hard``, dropping data).

    The pattern (and ``re``) is asked only about a command holding one of its words: most commands hold none."""
    lowered = folded(command)
    if not any(all(word in lowered for word in group) for group in _DESTRUCTIVE_WORDS) and not _program_word(
        lowered, ("rm", "dd")
    ):
        return False
    import re

    return re.search(DESTRUCTIVE, command, re.IGNORECASE) is not None


def _program_word(lowered: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` begins a word of ``lowered`` with a blank (``\\s``) right after it."""
    return any(
        not is_word(lowered, at - 1) and lowered[at + len(word) : at + len(word) + 1].isspace()
        for word in words
        for at in found(lowered, word)
    )
