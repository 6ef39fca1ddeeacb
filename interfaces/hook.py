"""How Cursor and Claude Code start a hook: ``<python> -I -S <this file> hook-prompt``.

A hook runs on every prompt and Shell call, so its start is most of its cost.
pip's ``deja`` launcher goes through ``site`` (every ``.pth`` file of the
environment, setuptools' ``_distutils_hack`` among them) and imports ``re``
before deja runs: about 2.5 ms of the 9 of ``python -c pass``. Started by this
file with ``-S`` (no ``site``) and ``-I`` (no user site, no ``PYTHON*``
variables, not even the script's own folder on ``sys.path``), Python knows only
the standard library, and this file adds the one folder deja is installed in
(``…/site-packages``, which holds ``deja/interfaces/hook.py``), after checking
that PyStemmer, the one module a hook loads from outside the standard library,
is there too. Anywhere else (an editable install, whose ``deja`` is found by an
import hook that a ``.pth`` file installs; a user install whose PyStemmer is in
the system's site-packages) it runs ``site`` as Python would have, and the hook
works as from pip's launcher, only not faster.

The installers write this command (``installers/entries.py``); the hook itself
is ``deja.interfaces.entry``'s, as from the ``deja`` console script.
"""

from __future__ import annotations

import os
import sys

#: What a hook imports from outside the standard library (``tests/test_layers.py`` checks it).
DEPENDENCIES = ("Stemmer",)


def installed_folder() -> str | None:
    """The folder to put on ``sys.path`` for ``deja`` and its dependencies, or None to let ``site`` find them."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder = os.path.dirname(package)
    if os.path.basename(package) != "deja":
        return None
    from importlib.machinery import PathFinder  # (its directory listing is cached for the imports that follow)

    return folder if all(PathFinder.find_spec(name, [folder]) for name in DEPENDENCIES) else None


def main() -> None:
    folder = installed_folder()
    if folder is not None:
        sys.path.append(folder)
    else:
        import site

        site.main()
    # An absolute import by name: this file runs as ``__main__``, outside the package it then loads.
    __import__("deja.interfaces.entry", fromlist=["main"]).main()


if __name__ == "__main__":
    main()
