"""The options several commands share, written once so that each reads and helps alike (typer's Annotated forms)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..core.dates import SINCE_FORMS

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of text.")]
ProjectOption = Annotated[
    str | None, typer.Option("--project", "-p", metavar="PROJECT", help="Only this project (name or directory).")
]
SourceOption = Annotated[
    str | None, typer.Option("--source", "-s", metavar="SOURCE", help="Only cursor-ide or cursor-cli.")
]
SinceOption = Annotated[
    str | None, typer.Option("--since", metavar="WHEN", help=f"Only sessions updated since: {SINCE_FORMS}.")
]
UntilOption = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="WHEN",
        help="Only sessions last updated before the end of: a day or period named counts whole (tuesday, "
        "2026-12-01, last week), a span (3d) is that long ago.",
    ),
]
AllProjectsFlag = Annotated[bool, typer.Option("--all-projects", help="Every project, not just this one.")]
