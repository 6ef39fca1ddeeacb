"""Secrets pasted into chats become ``[redacted:<kind>]`` before anything is indexed or printed.

``DEJA_NO_REDACT=1`` (or ``redact = false`` in the config file) turns it off.
"""

from __future__ import annotations

import re

from . import config

# Order matters: the specific shapes go before the generic assignment rule.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("pem", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S)),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+")),
    ("url-credentials", re.compile(r"(?<=://)[^\s:/@]+:[^\s@/]+(?=@)")),
    ("bearer", re.compile(r"(?i)(?<=\bbearer )[A-Za-z0-9._~+/=-]{16,}")),
    ("basic-auth", re.compile(r"(?i)(?<=\bbasic )[A-Za-z0-9+/]{12,}={0,2}")),
    (
        "aws-secret",
        re.compile(r"(?i)(?<=aws_secret_access_key)(\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
    ),
    (
        "secret",
        re.compile(
            r"(?i)\b((?:[a-z0-9_]*_)?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?token|client[_-]?secret))"
            r"(\s*[:=]\s*[\"']?)(?!\[redacted)([^\s\"',;]{6,})"
        ),
    ),
]


# Every pattern above needs one of these (lowercased); most texts hold none and skip the rest.
_NEEDLES = (
    "-----begin",
    "eyj",
    "akia",
    "asia",
    "abia",
    "acca",
    "gh",
    "sk-",
    "xox",
    "hooks.slack",
    "://",
    "bearer ",
    "basic ",
    "aws_secret",
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
)


def enabled() -> bool:
    return bool(config.get("redact"))


def redact(text: str) -> str:
    """``text`` with every secret it holds replaced by ``[redacted:<kind>]``."""
    if not text:
        return text
    lowered = text.lower()
    if not any(needle in lowered for needle in _NEEDLES) or not enabled():
        return text
    for kind, pattern in _PATTERNS:
        if kind == "secret":
            text = pattern.sub(r"\1\2[redacted:secret]", text)
        elif kind == "aws-secret":
            text = pattern.sub(r"\1[redacted:aws-secret]", text)
        else:
            text = pattern.sub(f"[redacted:{kind}]", text)
    return text
