"""How precise ``hook-prompt`` is, measured on LoCoMo.

For each LoCoMo conversation, each of its sessions is written as one Cursor CLI
chat (turns as ``Speaker: text``, the first speaker as the user, the session's
date as its time) into a fresh store, which is indexed with the normal
pipeline. Then every question goes through the prompt-recall path:

- present: a question against its own conversation's index. It counts when a
  session named in its evidence is among the injected ones (adversarial
  questions, category 5, are left out: their answer is not in the history).
- absent: every question against each OTHER conversation's index. Anything
  injected counts against it.
- absent, names swapped: the same, with the two people of the question's
  conversation renamed to the two of the other one, so that only the topic
  tells the histories apart (a harder test than the one the targets are set on).

Targets: right session injected >= 70% when present, any injection <= 10% when absent.

    python bench/bench_prompt_precision.py [--data DIR] [--modes safe,aggressive] [--confirm 20]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from locomo import CATEGORIES, DEFAULT_DATA, HALVES, gold_sessions, half_of, write_conversation  # noqa: E402

from deja.core.index import Index  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402
from deja.hooks.prompt import recall_for  # noqa: E402

ADVERSARIAL = 5
_SHOWN = re.compile(r"`deja show ([^`]+)`")
#: How a hook's log line names the catch-up it started in the background (``hooks.call.request_catch_up``).
_CATCH_UP = re.compile(r"catching up in a background process \(pid (\d+)\)")


@dataclass
class Question:
    text: str
    category: int
    gold: set[str]  # chat ids of the sessions holding the answer


@dataclass
class Conversation:
    name: str
    store: Path
    home: Path
    speakers: tuple[str, str]
    questions: list[Question]
    #: "tuning" or "reporting" (see ``locomo.half_of``).
    half: str = ""

    def renamed(self, question: str, other: Conversation) -> str:
        """``question`` about this conversation's people asked about ``other``'s instead."""
        for mine, theirs in zip(self.speakers, other.speakers, strict=True):
            question = re.sub(rf"\b{re.escape(mine)}\b", "\0" + theirs, question)
        return question.replace("\0", "")

    def environment(self, work: Path) -> dict[str, str]:
        return {
            "DEJA_CURSOR_CLI_ROOT": str(self.store),
            "DEJA_CURSOR_ROOT": str(work / "no-ide"),
            "DEJA_HOME": str(self.home),
        }


def prepare(data_dir: Path, work: Path) -> list[Conversation]:
    """Write and index every conversation in ``data_dir``, each in its own store and DEJA_HOME."""
    conversations = []
    files = sorted(data_dir.glob("*.json"))
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        c = Conversation(
            path.stem,
            work / path.stem / "cursor-agent",
            work / path.stem / "deja",
            (data["speaker_a"], data["speaker_b"]),
            [],
            half_of(files, path),
        )
        chats = write_conversation(data, c.name, c.store)
        for qa in data["qa"]:
            gold = {chat for chat, number in chats.items() if number in gold_sessions(qa)}
            c.questions.append(Question(text=str(qa["question"]), category=int(qa["category"]), gold=gold))
        os.environ.update(c.environment(work))
        refresh(c.home)
        conversations.append(c)
    return conversations


def injected(index: Index, question: str, mode: str) -> set[str]:
    """The session ids ``hook-prompt`` would inject for ``question``."""
    return set(recall_for(index, question, mode, exclude=set(), seen=set()).session_ids)


@dataclass
class Rate:
    count: int = 0
    hits: int = 0

    def add(self, hit: bool) -> None:
        self.count += 1
        self.hits += hit

    def __str__(self) -> str:
        return f"{100 * self.hits / self.count:5.1f}% of {self.count:<5}" if self.count else "    —"


@dataclass
class Tally:
    present: Rate = field(default_factory=Rate)  # the right session injected
    absent: Rate = field(default_factory=Rate)  # anything injected
    swapped: Rate = field(default_factory=Rate)  # anything injected, names swapped

    def line(self, label: str) -> str:
        return f"{label:<16} {self.present!s:<20} {self.absent!s:<20} {self.swapped!s}"


def evaluate(conversations: list[Conversation], mode: str) -> tuple[dict[str, Tally], dict[int, Tally]]:
    """Tallies per half (by the asking conversation's half) and per category (both halves)."""
    halves: dict[str, Tally] = {half: Tally() for half in HALVES}
    by_category: dict[int, Tally] = {}
    indexes = {c.name: Index.open(c.home) for c in conversations}
    for conversation in conversations:
        for q in conversation.questions:
            tallies = (halves[conversation.half], by_category.setdefault(q.category, Tally()))
            if q.category != ADVERSARIAL and q.gold:
                right = bool(injected(indexes[conversation.name], q.text, mode) & q.gold)
                for t in tallies:
                    t.present.add(right)
            for other in conversations:
                if other is conversation:
                    continue
                noisy = bool(injected(indexes[other.name], q.text, mode))
                swapped = bool(injected(indexes[other.name], conversation.renamed(q.text, other), mode))
                for t in tallies:
                    t.absent.add(noisy)
                    t.swapped.add(swapped)
    return halves, by_category


def confirm(conversations: list[Conversation], mode: str, count: int, work: Path) -> tuple[int, int]:
    """Run ``count`` questions through the real ``deja hook-prompt`` process.

    Returns how many of them injected something and how many disagreed with the in-process path.
    """
    asked = [(c, q) for c in conversations for q in c.questions if q.category != ADVERSARIAL]
    shown_any = disagreements = 0
    for conversation, q in asked[:: max(1, len(asked) // count)][:count]:
        env = {**os.environ, **conversation.environment(work), "DEJA_RECALL": mode}
        payload = {
            "cursor_version": "2.4.21",
            "hook_event_name": "beforeSubmitPrompt",
            "conversation_id": str(uuid.uuid4()),
            "prompt": q.text,
        }
        done = subprocess.run(
            [sys.executable, "-m", "deja.interfaces.entry", "hook-prompt"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            timeout=30,
        )
        shown = set(_SHOWN.findall(json.loads(done.stdout)["additional_context"])) if done.stdout.strip() else set()
        shown_any += bool(shown)
        if shown != injected(Index.open(conversation.home), q.text, mode):
            disagreements += 1
            print(f"  disagrees: {q.text!r}: the process showed {sorted(shown)}", file=sys.stderr)
    wait_for_catch_ups(conversations)
    return shown_any, disagreements


def wait_for_catch_ups(conversations: list[Conversation], seconds: float = 60) -> None:
    """Wait for the catch-ups the hooks started: a hook that finds its index unchecked for 30 s hands the check to a
    detached process, which was still writing the home (``checked-whole``, its claim) while the temporary folder
    was removed, and the removal failed with "Directory not empty". Their pids are in each home's hooks.log."""
    deadline = time.monotonic() + seconds
    for conversation in conversations:
        log = conversation.home / "hooks.log"
        for pid in map(int, _CATCH_UP.findall(log.read_text(encoding="utf-8")) if log.exists() else []):
            while _running(pid) and time.monotonic() < deadline:
                time.sleep(0.05)


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs: there, and not a zombie (a container's first process may reap none)."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except ProcessLookupError:
        return False
    except FileNotFoundError:  # no /proc (macOS): os.kill found it
        return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of LoCoMo conversation JSON files")
    parser.add_argument("--modes", default="safe,aggressive")
    parser.add_argument(
        "--confirm", type=int, default=10, help="questions to re-run through the real hook process, per mode"
    )
    args = parser.parse_args()
    if not args.data.is_dir() or not any(args.data.glob("*.json")):
        print(f"LoCoMo data not found at {args.data}: see shared/bench-data/README.md; skipping.")
        return 0
    with tempfile.TemporaryDirectory(prefix="deja-locomo-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        conversations = prepare(args.data, work)
        print(f"indexed {len(conversations)} conversations in {time.perf_counter() - started:.1f} s")
        for mode in args.modes.split(","):
            started = time.perf_counter()
            halves, by_category = evaluate(conversations, mode)
            print(f"\nDEJA_RECALL={mode}   ({time.perf_counter() - started:.1f} s)")
            print(f"{'category':<16} {'present: right':<20} {'absent: any':<20} absent, names swapped: any")
            for category in sorted(by_category):
                print(by_category[category].line(f"  {category} {CATEGORIES[category]}"))
            for half, tally in halves.items():
                print(tally.line(half + " half"))
            if args.confirm:
                shown, wrong = confirm(conversations, mode, args.confirm, work)
                print(
                    f"through the real hook process: {args.confirm - wrong}/{args.confirm} agree with the in-process path ({shown} injected)"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
