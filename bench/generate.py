"""Generate a large synthetic Cursor history across the three stores, for benchmarks.

Sessions are split between the IDE's global ``state.vscdb`` (40%), cursor-agent
transcripts with a ``store.db`` beside them (30%) and transcripts alone (30%).
Each has about 20 messages of varied text around a topic of its own, with Shell
calls (some failing), edits and reads. The same seed gives the same history.

    python bench/generate.py OUT_DIR --sessions 10000
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from deja.core.regular_files import SQLITE_COMPANIONS
from deja.core.sample import SampleHistory
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import DISK_KV_SCHEMA, ITEM_TABLE_SCHEMA, bubble_key, composer_key, put_values

COMMON = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "this",
    "as",
    "be",
    "are",
    "not",
    "can",
    "but",
    "we",
    "you",
    "at",
    "from",
    "or",
    "by",
    "an",
    "have",
    "was",
    "will",
    "if",
    "so",
    "do",
    "all",
    "what",
    "about",
    "when",
    "there",
    "which",
    "up",
    "out",
    "then",
    "them",
    "more",
    "some",
    "would",
    "into",
    "time",
    "like",
    "just",
    "should",
    "could",
    "need",
    "make",
    "see",
    "use",
    "work",
    "also",
    "because",
    "first",
    "now",
    "new",
    "way",
    "only",
    "over",
    "any",
    "look",
    "after",
    "check",
    "run",
    "still",
]
TECH = [
    "cache",
    "deploy",
    "docker",
    "migration",
    "endpoint",
    "schema",
    "query",
    "index",
    "build",
    "test",
    "pipeline",
    "config",
    "handler",
    "router",
    "middleware",
    "session",
    "token",
    "auth",
    "login",
    "logout",
    "refresh",
    "retry",
    "timeout",
    "queue",
    "worker",
    "job",
    "scheduler",
    "cron",
    "parser",
    "lexer",
    "compiler",
    "bundle",
    "webpack",
    "vite",
    "eslint",
    "prettier",
    "typescript",
    "python",
    "rust",
    "golang",
    "kubernetes",
    "helm",
    "terraform",
    "nginx",
    "postgres",
    "redis",
    "kafka",
    "grpc",
    "websocket",
    "upload",
    "download",
    "stream",
    "buffer",
    "socket",
    "thread",
    "mutex",
    "lock",
    "deadlock",
    "race",
    "memory",
    "leak",
    "profile",
    "latency",
    "throughput",
    "benchmark",
    "fixture",
    "mock",
    "snapshot",
    "coverage",
    "lint",
    "format",
    "release",
    "version",
    "branch",
    "merge",
    "rebase",
    "commit",
    "diff",
    "patch",
    "hotfix",
    "rollback",
    "feature",
    "flag",
    "metric",
    "alert",
    "dashboard",
    "logging",
    "tracing",
    "span",
    "component",
    "hook",
    "state",
    "reducer",
    "store",
    "props",
    "render",
    "layout",
    "grid",
    "flex",
    "modal",
    "dialog",
    "button",
    "form",
    "input",
    "validation",
    "locale",
    "translation",
    "currency",
    "timezone",
    "date",
    "format",
    "serializer",
    "payload",
    "response",
    "request",
    "header",
    "cookie",
    "cors",
    "csrf",
]
ERRORS = [
    "ModuleNotFoundError: No module named '{m}'",
    "TypeError: Cannot read properties of undefined (reading '{m}')",
    "error[E0382]: borrow of moved value: `{m}`",
    "FAILED tests/test_{m}.py::test_{m}_roundtrip - AssertionError",
    "fatal: not a git repository (or any of the parent directories): .git",
    "Error: connect ECONNREFUSED 127.0.0.1:{n}",
    "npm ERR! missing script: {m}",
    "ImportError: cannot import name '{m}' from partially initialized module",
]
COMMANDS = [
    "pytest -q tests/test_{m}.py",
    "npm run build",
    "cargo test {m}",
    "go test ./{m}/...",
    "make {m}",
    "docker compose up -d {m}",
    "git push origin {m}",
    "npm test -- {m}",
]
SYLLABLES = ["ka", "lo", "mi", "nu", "ra", "te", "vo", "zi", "pe", "qu", "ba", "do", "fi", "gu", "ha", "je"]


class Topic(msgspec.Struct):
    words: list[str]
    identifier: str
    module: str


def random_word(rng: random.Random, n: int = 3) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(n))


def random_topic(rng: random.Random) -> Topic:
    a, b = random_word(rng), random_word(rng, 2)
    return Topic(
        words=rng.sample(TECH, 3) + [random_word(rng, 4)], identifier=f"{a}{b.capitalize()}", module=f"{a}_{b}"
    )


def _sentence(rng: random.Random, topic: Topic, length: int) -> str:
    words = []
    for _ in range(length):
        roll = rng.random()
        if roll < 0.55:
            words.append(rng.choice(COMMON))
        elif roll < 0.8:
            words.append(rng.choice(TECH))
        elif roll < 0.93:
            words.append(rng.choice(topic.words))
        else:
            words.append(rng.choice((topic.identifier, topic.module, f"src/{topic.module}.py")))
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random, topic: Topic, sentences: int) -> str:
    return " ".join(_sentence(rng, topic, rng.randint(6, 18)) for _ in range(sentences))


def query_for(rng: random.Random) -> str:
    """A query of the kind the benchmarks ask: tech words, sometimes with an identifier."""
    topic = random_topic(rng)
    words = rng.sample(topic.words, 2) + rng.sample(TECH, 1)
    return " ".join(words)


def random_conversation(
    rng: random.Random, topic: Topic, messages: int
) -> list[tuple[str, str, list[tuple[str, dict, str, int]]]]:
    """(role, text, [(tool, args, result, exit code)]) turns."""
    turns = []
    for i in range(messages):
        if i % 4 == 0:
            turns.append(("user", _paragraph(rng, topic, rng.randint(1, 3)), []))
            continue
        calls = []
        if rng.random() < 0.35:
            command = rng.choice(COMMANDS).format(m=topic.module)
            failed = rng.random() < 0.3
            output = rng.choice(ERRORS).format(m=topic.module, n=rng.randint(1000, 9999)) if failed else "ok: 12 passed"
            calls.append(("Shell", {"command": command, "description": "run"}, output, 1 if failed else 0))
        if rng.random() < 0.25:
            path = f"/work/{topic.module}/src/{topic.module}.py"
            calls.append(
                (
                    "StrReplace",
                    {"path": path, "old_string": topic.identifier, "new_string": topic.identifier + "V2"},
                    "ok",
                    0,
                )
            )
        turns.append(("assistant", _paragraph(rng, topic, rng.randint(2, 6)), calls))
    return turns


def write_ide_chats(db: Path, chats: list[tuple[str, str, datetime, str, list]]) -> None:
    """Write composers into the IDE's global ``state.vscdb``: (id, project, start, name, turns); one tool call per bubble."""
    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(ITEM_TABLE_SCHEMA)
        conn.execute(DISK_KV_SCHEMA)
        for cid, project, start, name, turns in chats:
            rows: dict = {}
            headers = []
            for i, (role, text, calls) in enumerate(turns):
                bid = f"{cid[:8]}-{i:04d}"
                bubble: dict = {
                    "type": 1 if role == "user" else 2,
                    "text": text,
                    "createdAt": (start + timedelta(seconds=30 * i)).isoformat(),
                }
                if calls:
                    tool, args, result, code = calls[0]
                    bubble["toolFormerData"] = {
                        "name": "run_terminal_cmd" if tool == "Shell" else "edit_file",
                        "params": msgspec.json.encode(args).decode(),
                        "result": msgspec.json.encode({"output": result, "exitCode": code}).decode(),
                        "status": "completed",
                    }
                if i == 0:
                    bubble["workspaceProjectDir"] = project
                rows[bubble_key(cid, bid)] = bubble
                headers.append({"bubbleId": bid, "type": bubble["type"]})
            rows[composer_key(cid)] = {
                "_v": 10,
                "composerId": cid,
                "name": name,
                "createdAt": int(start.timestamp() * 1000),
                "lastUpdatedAt": int(start.timestamp() * 1000) + 30_000 * len(turns),
                "fullConversationHeadersOnly": headers,
            }
            put_values(conn, "cursorDiskKV", rows)
    conn.close()


def write_cli_chat(cli_root: Path, cid: str, project: str, start: datetime, turns: list, with_store: bool) -> None:
    """Write one cursor-agent chat: its transcript and, with ``with_store``, a ``store.db`` holding the tool results."""
    records = []
    store = []
    n = 0
    for role, text, calls in turns:
        if role == "user":
            records.append(user_turn(text, start))
            store.append({"role": "user", "content": [{"type": "text", "text": text}]})
            continue
        records.append(assistant_turn(text, *(tool_use(tool, args) for tool, args, _, _ in calls)))
        for tool, args, result, code in calls:
            n += 1
            store.append({"role": "assistant", "content": [tool_call_part(f"t{n}", tool, args)]})
            store.append(
                tool_result_message(f"t{n}", tool, shell_result_text(result, code) if tool == "Shell" else result)
            )
        start += timedelta(minutes=2)
    write_transcript(transcript_path(cli_root, project, cid), records)
    if with_store:
        write_chat_store(
            chat_dir_for(cli_root, project, cid), cwd=project, messages=store, name="New Agent", stale_root=False
        )


def generate(root: Path, sessions: int, *, seed: int = 1, messages: int = 20, progress: bool = False) -> SampleHistory:
    """Write ``sessions`` sessions under ``root`` and return where they are."""
    rng = random.Random(seed)
    ide_root, cli_root = root / "cursor" / "User", root / "cursor-agent"
    base = datetime(2026, 1, 1, tzinfo=UTC)
    projects = [f"/work/{random_word(rng, 2)}-{i}" for i in range(max(3, sessions // 200))]
    ide_batch: list = []
    db = ide_root / "globalStorage" / "state.vscdb"
    started = time.time()
    for i in range(sessions):
        topic = random_topic(rng)
        turns = random_conversation(rng, topic, messages)
        start = base + timedelta(minutes=37 * i)
        project = rng.choice(projects)
        kind = i % 10
        cid = f"{i:08d}-{rng.getrandbits(32):08x}-4000-8000-{rng.getrandbits(48):012x}"
        if kind < 4:
            ide_batch.append((cid, project, start, " ".join(topic.words[:2]).title(), turns))
            if len(ide_batch) >= 500:
                write_ide_chats(db, ide_batch)
                ide_batch = []
        else:
            write_cli_chat(cli_root, cid, project, start, turns, with_store=kind < 7)
        if progress and i % 1000 == 999:
            print(f"  generated {i + 1}/{sessions} sessions ({time.time() - started:.0f}s)", flush=True)
    if ide_batch:
        write_ide_chats(db, ide_batch)
    return SampleHistory(ide_root=ide_root, cli_root=cli_root, projects={Path(p).name: Path(p) for p in projects})


#: What every benchmark calls source: the files Cursor writes, not SQLite's companions beside a database.
SOURCE_NOTE = "source = Cursor's own files (state.vscdb, store.db, .jsonl, meta.json); no -wal/-shm/-journal"


def source_bytes(history: SampleHistory) -> int:
    """The bytes of the files Cursor writes (:data:`SOURCE_NOTE`).

    A generated history is written and closed cleanly, so a ``-wal``, ``-shm`` or
    ``-journal`` beside one of its databases was created by a reader: counting it
    would flatter every figure divided by the source.
    """
    return sum(
        p.stat().st_size
        for base in (history.ide_root, history.cli_root)
        if base.exists()
        for p in base.rglob("*")
        if p.is_file() and not p.name.endswith(SQLITE_COMPANIONS)
    )


def companions(history: SampleHistory) -> set[Path]:
    """The ``-wal``, ``-shm`` and ``-journal`` files beside the history's databases: a benchmark counts those that
    appear while it runs, which deja's reads must never leave in Cursor's folders."""
    return {
        p
        for base in (history.ide_root, history.cli_root)
        if base.exists()
        for p in base.rglob("*")
        if p.name.endswith(SQLITE_COMPANIONS)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    history = generate(args.out, args.sessions, seed=args.seed, progress=True)
    print(f"{args.sessions} sessions, {source_bytes(history) / 1e6:.1f} MB under {args.out} ({SOURCE_NOTE})")


if __name__ == "__main__":
    main()
