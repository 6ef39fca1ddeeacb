"""What finding each editor chat's project costs on a Cursor 3.x-shaped install.

    python bench/bench_projects.py [--composers 2000] [--workspaces 300] [--transcripts 500]

The install is written once under ``bench/out/projects-*`` (git-ignored): a
global database whose composers carry no ``workspaceIdentifier`` (a third with
a ``composerHeaders`` row, a third listed by a workspace database, a third
found only through the files they touched), one ``workspaceStorage`` folder per
workspace with its ``workspace.json`` and ``state.vscdb``, and cursor-agent
transcripts. The same global database is then read twice in fresh catalogs:
as it is, and with every composer given its ``workspaceIdentifier`` (the old
layout, where no other store is asked). The difference is what resolution costs.
"""

from __future__ import annotations

import argparse
import shutil
import time
from collections import Counter
from pathlib import Path

from deja.core.readers import Projects
from deja.core.readers.ide import read_ide_database
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import (
    ComposerHeader,
    composer_data,
    tool_former_data,
    write_state_vscdb,
    write_workspace,
)

HERE = Path(__file__).resolve().parent

T0 = 1784278800000


def build(root: Path, composers: int, workspaces: int, transcripts: int, *, identified: bool) -> Path:
    """Write the install under ``root`` (kept from an earlier run if there); return its global database."""
    user, cli = root / "User", root / "cli"
    database = user / "globalStorage" / "state.vscdb"
    if database.is_file():
        return database
    shutil.rmtree(root, ignore_errors=True)
    folders = [root / "code" / f"project{w}" for w in range(workspaces)]
    listed: dict[int, list[str]] = {}
    data, bubbles, headers = {}, {}, []
    for i in range(composers):
        cid = f"composer-{i:06d}"
        w = i % workspaces
        fields = {"workspaceIdentifier": {"id": f"ws{w}", "uri": {"fsPath": str(folders[w])}}} if identified else {}
        data[cid] = composer_data(cid, [("u", 1), ("a", 2)], created_at=T0, name=f"chat {i}", **fields)
        answer = {"type": 2, "text": f"answer {i}", "createdAt": T0 + 2000}
        if i % 3 == 0:
            headers.append(ComposerHeader(cid, workspace_id=f"ws{w}"))
        elif i % 3 == 1:
            listed.setdefault(w, []).append(cid)
        else:
            answer["toolFormerData"] = tool_former_data("edit_file", {"target_file": str(folders[w] / "src/x.py")})
        bubbles[cid] = {"u": {"type": 1, "text": f"question {i}", "createdAt": T0 + 1000}, "a": answer}
    for w, folder in enumerate(folders):
        write_workspace(user, f"ws{w}", folder=str(folder), all_composers=listed.get(w, []))
    for t in range(transcripts):
        path = transcript_path(cli, str(folders[t % workspaces]), f"agent-{t:06d}")
        write_transcript(path, [user_turn(f"question {t}"), assistant_turn("done")])
    write_state_vscdb(database, composers=data, bubbles=bubbles, composer_headers=headers)
    return database


def read(database: Path, cli: Path) -> tuple[float, Counter[str]]:
    started = time.perf_counter()
    projects = Projects(database.parent.parent, [cli])
    signals = Counter(s.project_from or "none" for s in read_ide_database(database, projects=projects))
    return time.perf_counter() - started, signals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composers", type=int, default=2000)
    parser.add_argument("--workspaces", type=int, default=300)
    parser.add_argument("--transcripts", type=int, default=500)
    args = parser.parse_args()
    sizes = (args.composers, args.workspaces, args.transcripts)
    timings = {}
    for identified in (True, False):
        root = HERE / "out" / f"projects-{'old' if identified else '3x'}-{'-'.join(map(str, sizes))}"
        database = build(root, *sizes, identified=identified)
        best = min(read(database, root / "cli")[0] for _ in range(5))
        timings[identified] = best
        signals = read(database, root / "cli")[1]
        layout = "every composer has workspaceIdentifier" if identified else "Cursor 3.x: no workspaceIdentifier"
        print(f"{layout:<42} {args.composers} composers read in {best * 1000:7.1f} ms   {dict(signals)}")
    extra = timings[False] - timings[True]
    print(
        f"resolution cost: {extra * 1000:.1f} ms for {args.composers} composers "
        f"({extra / args.composers * 1e6:.0f} µs each) over {args.workspaces} workspaces and {args.transcripts} transcripts"
    )


if __name__ == "__main__":
    main()
