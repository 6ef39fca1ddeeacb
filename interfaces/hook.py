"""How Cursor and Claude Code start a hook: ``<python> -I -S <this file> hook-prompt || true`` (the tail: a
Python whose launcher file is gone exits 2, which the harnesses read as "block"; ``installers/entries.py``).

A hook runs on every prompt and Shell call, so its start is most of its cost.
pip's ``deja`` launcher goes through ``site`` (every ``.pth`` file of the
environment, setuptools' ``_distutils_hack`` among them) and imports ``re``
before deja runs: about 2.5 ms of the 9 of ``python -c pass``. Started by this
file with ``-S`` (no ``site``) and ``-I`` (no user site, no ``PYTHON*``
variables, not even the script's own folder on ``sys.path``), Python knows only
the standard library, and this file adds the one folder deja is installed in
(``…/site-packages``, which holds ``deja/interfaces/hook.py``), after checking
that PyStemmer, the one module a hook loads from outside the standard library,
is there too (``deja.core.folders.launcher_folder``). Anywhere else (an editable
install, whose ``deja`` is found by an import hook that a ``.pth`` file
installs; a user install whose PyStemmer is in the system's site-packages) it
runs ``site``, the user site included, as pip's launcher would have, and the
hook works, only not faster.

Installed so, it first loads the deja modules the hook will import from their ``.pyc`` files itself, without
``importlib``'s own cost (``deja.interfaces.preload``).

The installers write this command (``installers/entries.py``) only where
``launcher_folder`` finds that folder; the hook itself
is ``deja.interfaces.entry``'s, as from the ``deja`` console script.
"""

import gc

if __name__ == "__main__":
    # A hook's process lives for one answer: what it allocates is freed as it goes or when it exits, and the cyclic
    # collector's passes over the objects its imports and its search make (about 3% of a recalling prompt's
    # instructions) would free nothing worth their time. Off before the first import (``os`` and what it loads: 0.2 M
    # instructions of passes), so this file imports no ``__future__`` either.
    gc.disable()

import os  # noqa: E402
import sys  # noqa: E402


def main() -> None:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    installed = os.path.basename(package) == "deja"
    if installed:
        # This launcher's own deja, found even where ``site`` would not look (``-I`` hides the user site).
        sys.path.append(os.path.dirname(package))
        # the modules the hook (``hook-prompt``) will import, loaded from their .pyc files without ``importlib``'s cost
        command = sys.argv[1] if len(sys.argv) > 1 else ""
        __import__("deja.interfaces.preload", fromlist=["_"]).preload(command, os.path.dirname(package))
    if not installed or __import__("deja.core.folders", fromlist=["_"]).launcher_folder(package) is None:
        import site

        site.main()
        if sys.prefix == sys.base_prefix:  # as pip's launcher would (a user install's dependencies), never in a venv
            site.addsitedir(site.getusersitepackages())
    # An absolute import by name: this file runs as ``__main__``, outside the package it then loads.
    __import__("deja.interfaces.entry", fromlist=["main"]).main()


if __name__ == "__main__":
    main()
