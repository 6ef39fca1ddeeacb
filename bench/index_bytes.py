"""Where an index's bytes go: each kind of segment file, its share of the source, and how much further zlib
would shrink it (what is left to gain there).

    python bench/index_bytes.py [--sizes 1000,10000]
    python bench/index_bytes.py --home DEJA_HOME --history HISTORY_ROOT

The first form reads the indexes ``bench/bench_index.py`` built under ``bench/out/home-N`` of the generated
histories; the second any index and the history it was built from (a folder holding ``cursor/User`` and
``cursor-agent``, as ``bench/generate.py`` writes it). Nothing is written.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SOURCE_NOTE, source_bytes  # noqa: E402

from deja.core.index import Index  # noqa: E402
from deja.core.sample import SampleHistory  # noqa: E402


def file_bytes(home: Path) -> tuple[Counter[str], Counter[str]]:
    """Per kind of file (``records.bin``…, every segment's together): its bytes, and its bytes deflated at 6."""
    size: Counter[str] = Counter()
    deflated: Counter[str] = Counter()
    for segment in Index.open(home).segments:
        for path in Path(segment.path).iterdir():
            data = path.read_bytes()
            size[path.name] += len(data)
            deflated[path.name] += len(zlib.compress(data, 6))
    return size, deflated


def report(home: Path, history: Path) -> None:
    source = source_bytes(
        SampleHistory(ide_root=history / "cursor" / "User", cli_root=history / "cursor-agent", projects={})
    )
    size, deflated = file_bytes(home)
    print(f"{home}: {len(Index.open(home).segments)} segments, source {source / 1e6:.1f} MB")
    print(f"  {'file':14}{'MB':>9}{'÷ source':>10}{'zlib -6 ÷ file':>16}")
    for name, total in size.most_common():
        print(f"  {name:14}{total / 1e6:9.2f}{total / source:10.3f}{deflated[name] / max(1, total):16.2f}")
    print(f"  {'index':14}{sum(size.values()) / 1e6:9.2f}{sum(size.values()) / source:10.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--home", type=Path, help="an index's DEJA_HOME (with --history)")
    parser.add_argument("--history", type=Path, help="the generated history that index was built from")
    args = parser.parse_args()
    print(SOURCE_NOTE)
    if args.home:
        report(args.home, args.history)
        return
    for size in (int(s) for s in args.sizes.split(",")):
        report(HERE / "out" / f"home-{size}", HERE / "out" / f"hist-{size}")


if __name__ == "__main__":
    main()
