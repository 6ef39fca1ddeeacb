"""Named points where the crash tests stop or kill a deja process (tests/test_faults.py).

``DEJA_FAULT=<point>`` or ``<point>@<n>`` kills this process with SIGKILL the
n-th time (first by default) it passes ``point``; ``DEJA_FAULT_SIGNAL=STOP``
stops it there instead, so a test can change the world and let it go on.
Unset, a point costs one dictionary lookup.
"""

from __future__ import annotations

from . import oscalls

_passes: dict[str, int] = {}


def point(name: str) -> None:
    spec = oscalls.getenv("DEJA_FAULT")
    if not spec:
        return
    wanted, _, nth = spec.partition("@")
    if wanted != name:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if _passes[name] == (int(nth) if nth.isdigit() else 1):
        import signal  # here, not at the top: its import builds enums that every hook would pay for

        stop = oscalls.getenv("DEJA_FAULT_SIGNAL", "").upper() == "STOP"
        oscalls.kill(oscalls.getpid(), signal.SIGSTOP if stop else signal.SIGKILL)


def forget_passes() -> None:
    """Count every point's passes from none again: a hook server's spare, whose rehearsal passed points under the
    server's environment, takes its call counting as a child forked for the call does."""
    _passes.clear()
