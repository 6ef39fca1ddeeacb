"""Redaction cost per MB of realistic text: code, chat prose, logs, and a mix with secrets in it.

    python bench/bench_redact.py [--mb 4] [--message-kb 4]

The indexer redacts every message, tool argument and tool result it stores, one
text at a time, so the text is cut into messages of ``--message-kb`` and each is
redacted on its own, as the indexer does. Code is deja's own source, prose is its
README, logs are generated; one fake secret is planted every ~8 KB of the mix.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def code_text() -> str:
    return "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted(ROOT.glob("*/**/*.py"))
        if path.parts[len(ROOT.parts)] not in (".venv", "tests") and path.name != "redact.py"
    )


def prose_text() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def log_text(lines: int = 20_000) -> str:
    rng = random.Random(7)
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")
    out = []
    for i in range(lines):
        level = rng.choice(levels)
        out.append(
            f"2026-07-20T09:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1000):03d}Z {level} "
            f"worker-{rng.randrange(8)} request_id={rng.getrandbits(64):016x} path=/api/v1/orders/{rng.randrange(10**6)} "
            f"status={rng.choice((200, 200, 201, 404, 500))} elapsed_ms={rng.randrange(400)} user=u{rng.randrange(999)}"
        )
        if level == "ERROR":
            out.append('Traceback (most recent call last):\n  File "/app/api/orders.py", line 88, in create')
            out.append("    token = issue_token(user)\nKeyError: 'password'")
    return "\n".join(out)


def secrets() -> list[str]:
    """Fake secrets in context, assembled from pieces."""
    return [
        "export GITHUB_TOKEN=" + "ghp_" + "R8c2Kq7LmX4vN9pZ3tW6yB1dF5gH0jS2uE8a",
        'password = "' + "hunter" + '2"',
        "OPENAI_API_KEY=" + "sk-proj-" + "T3BlbkFJ" + "R8c2Kq7LmX4vN9pZ3tW6yB1dF5gH0jS2uE8a",
        "postgres://app:" + "Sup3rS3cr3t" + "@db.internal:5432/app",
        "Authorization: Bearer " + "a9f8e7d6c5b4a3928170f6e5d4c3",
    ]


def repeat_to(text: str, size: int) -> str:
    return (text * (size // max(1, len(text)) + 1))[:size]


def messages(text: str, message_bytes: int) -> list[str]:
    return [text[i : i + message_bytes] for i in range(0, len(text), message_bytes)]


def measure(texts: list[str]) -> float:
    """Seconds to redact every text once (best of three)."""
    from deja.core.redact import redact

    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for text in texts:
            redact(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="MB of text of each kind")
    parser.add_argument("--message-kb", type=float, default=4.0, help="size of one redacted text")
    args = parser.parse_args()
    size, chunk = int(args.mb * 1e6), int(args.message_kb * 1000)
    code, prose, logs = repeat_to(code_text(), size), repeat_to(prose_text(), size), repeat_to(log_text(), size)
    planted = secrets()
    mixed_parts = []
    for i, start in enumerate(range(0, size, 8000)):
        mixed_parts.append((code, prose, logs)[i % 3][start : start + 8000] + "\n" + planted[i % len(planted)] + "\n")
    kinds = {
        "code (deja's own source)": code,
        "chat prose (README)": prose,
        "logs": logs,
        "mix + a secret every 8 KB": "".join(mixed_parts),
    }
    print(f"redaction of {args.mb:g} MB of each kind, in {args.message_kb:g} KB messages")
    print(f"{'text':<28} {'ms per MB':>10} {'MB/s':>8}")
    for name, text in kinds.items():
        seconds = measure(messages(text, chunk))
        mb = len(text.encode()) / 1e6
        print(f"{name:<28} {seconds * 1000 / mb:>10.1f} {mb / seconds:>8.1f}")
    for name, shorts in (
        ("short prose lines (titles, questions)", [line for line in prose_text().splitlines() if 0 < len(line) <= 120]),
        ("short code lines (arguments, commands)", [line for line in code_text().splitlines() if 0 < len(line) <= 120]),
    ):
        seconds = measure(shorts)
        print(f"{name}: {seconds / len(shorts) * 1e6:.1f} µs each ({len(shorts)} texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
