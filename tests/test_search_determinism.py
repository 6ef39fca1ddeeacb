"""The same history gives the same index, byte for byte, and the same results, whatever Python's hash seed."""

from __future__ import annotations

import os
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

TOPICS = ["postgres connection pool", "docker compose volume", "auth token refresh", "redis cache ttl", "flaky test"]


def _write_history(cli_root: Path) -> None:
    """Forty chats over five topics that share their words, so ties and common terms abound."""
    for n in range(40):
        topic = TOPICS[n % len(TOPICS)]
        chat_id = f"{n:08d}-0000-4000-8000-000000000000"
        write_transcript(
            transcript_path(cli_root, f"/work/project-{n % 3}", chat_id),
            [
                user_turn(f"the {topic} misbehaves again in case {n}"),
                assistant_turn(f"Looking at the {topic}: it was the {TOPICS[(n + 1) % len(TOPICS)]} all along."),
            ],
        )


def _segment_bytes(home: Path) -> list[tuple[str, bytes]]:
    """Every segment file's name (without the segment's random folder name) and bytes."""
    index = home / "index"
    return sorted((f.name, f.read_bytes()) for seg in sorted(index.glob("seg-*")) for f in sorted(seg.iterdir()))


def _run_with_seed(tmp_path: Path, seed: str) -> tuple[list[tuple[str, bytes]], str]:
    home = tmp_path / f"home-{seed}"
    env = {
        **os.environ,
        "PYTHONHASHSEED": seed,
        "DEJA_HOME": str(home),
        "DEJA_CURSOR_CLI_ROOT": str(tmp_path / "cli"),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
    }
    assert run_deja("index", env=env).returncode == 0
    found = run_deja("search", "postgres cache test", "--limit", "20", "--json", env=env)
    assert found.returncode == 0, found.stderr
    return _segment_bytes(home), found.stdout


def test_two_hash_seeds_build_identical_segments_and_rank_identically(tmp_path: Path) -> None:
    _write_history(tmp_path / "cli")
    (tmp_path / "no-ide").mkdir()
    first_segments, first_results = _run_with_seed(tmp_path, "1")
    second_segments, second_results = _run_with_seed(tmp_path, "4242")
    assert [name for name, _ in first_segments] == [name for name, _ in second_segments]
    assert first_segments == second_segments
    assert first_results == second_results
    assert first_results.count('"session_id"') == 20
