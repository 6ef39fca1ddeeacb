"""The detached ``deja index`` a hook starts when there is no index it can read (none, or a damaged file met while
reading it): its own module, as most hooks find one and every hook loads ``hooks/call.py``."""

from __future__ import annotations

import os
import time

from ..core.private import private_dir
from ..core.regular_files import read_regular

#: The file saying a hook started a build, holding the builder's pid.
BUILD_SENTINEL = "index-build.requested"
#: A build a hook started is not started again for this long while its builder runs.
BUILD_RETRY_SECONDS = 600


def request_build(home: str, after_damage: bool = False) -> str:
    """Start one detached ``deja index`` unless the one a hook started is still running; what it did, for the log.

    The sentinel holds the builder's pid, so a build that died (killed, an OOM, a laptop shut mid-build) is noticed
    by the next hook, which starts another, instead of recall staying off for ``BUILD_RETRY_SECONDS``. A sentinel
    without a pid (an older deja's, or one being written) and Windows (where no signal probes a process) go by
    its age alone. ``after_damage`` (a damaged file met while reading): a build started in the last
    ``BUILD_RETRY_SECONDS`` that ended and left the damage is not started again, where every hook would start one
    (review57c F2: a build that cannot mend it, a full disk, a decoding deja cannot do).
    """
    from ..core import detached

    sentinel = os.path.join(home, BUILD_SENTINEL)
    try:
        private_dir(home)
        try:
            age = time.time() - os.stat(sentinel).st_mtime
            if age < BUILD_RETRY_SECONDS and _builder_alive(sentinel):
                return f"a build started {age:.0f} s ago is still running; not starting another"
            if age < BUILD_RETRY_SECONDS and after_damage:
                return f"a build started {age:.0f} s ago did not mend it; `deja index` says why"
            os.unlink(sentinel)
        except FileNotFoundError:
            pass
        try:  # the one process that creates the sentinel starts the build
            fd = os.open(sentinel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return "another hook is starting a build"
        try:
            os.write(fd, b"%d" % detached.start_index())
        finally:
            os.close(fd)
        return "started a build"
    except OSError as exc:
        return f"cannot start a background index build: {exc}"


def _builder_alive(sentinel: str) -> bool:
    """Whether the build the sentinel names may still run: False only when its pid is known and gone."""
    try:
        pid = int(read_regular(sentinel, 32) or b"0")
    except (OSError, ValueError):
        return True
    if pid <= 0 or os.name == "nt":  # (Windows: signal 0 there would be CTRL_C_EVENT)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process now holds that pid, or no permission to ask: it runs
        return True
    return True
