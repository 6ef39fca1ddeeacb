"""How Cursor and Claude Code start a hook: ``<python> -I -S <this file> hook-prompt || true`` (the tail: a
Python whose launcher file is gone exits 2, which the harnesses read as "block"; ``installers/entries.py``).

Python compiles the file it is started with from its source on every run (no ``.pyc`` is kept for it): parsing this
file's former 3 KB (and compiling it) cost every hook 1.5 M instructions. So it only finds its folder; what it does there and why
(no ``site``, the preload, the collector off first) is ``deja.interfaces.preload.launched``'s, loaded from its ``.pyc``.
"""

import gc

if __name__ == "__main__":
    gc.disable()

import os  # noqa: E402
import sys  # noqa: E402

if __name__ == "__main__":
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    installed = os.path.basename(package) == "deja"
    if installed:
        sys.path.append(os.path.dirname(package))
    if not installed or not __import__("deja.interfaces.preload", fromlist=["_"]).launched(package):
        import site

        site.main()
        if sys.prefix == sys.base_prefix:  # (as pip's launcher would: a user install's dependencies)
            site.addsitedir(site.getusersitepackages())
    __import__("deja.interfaces.entry", fromlist=["main"]).main()
