"""How Cursor and Claude Code start a hook: ``<python> -I -S <this file> hook-prompt || true`` (the tail: a
Python whose launcher file is gone exits 2, which the harnesses read as "block"; ``installers/entries.py``).

Python compiles the file it is started with from source on every run (no ``.pyc`` is kept for it): this file's
former 3 KB cost every hook 1.5 M instructions. So it only finds deja's folder; why ``-I -S`` and when it runs
``site`` anyway is ``deja.interfaces.preload.ready_without_site``'s, loaded from its ``.pyc``.
"""

if __name__ == "__main__":
    # A hook lives for one answer: the cyclic collector's passes (3% of a recalling prompt) free nothing worth them.
    # Off before the first import, so no ``from __future__`` in this file either.
    __import__("gc").disable()
    import sys

    try:  # (``os`` costs every hook 6.4 M instructions: ``posix``'s calls instead, as ``deja.core.oscalls`` says)
        from posix import _path_normpath, getcwd  # type: ignore[attr-defined]

        # the site-packages holding deja/interfaces/hook.py, and whether it is deja's folder
        folder, _, name = (
            _path_normpath(__file__ if __file__[:1] == "/" else f"{getcwd()}/{__file__}")
            .rsplit("/", 2)[0]
            .rpartition("/")
        )
    except ImportError:  # (Windows)
        from os.path import abspath, dirname, split

        folder, name = split(dirname(dirname(abspath(__file__))))
    if name == "deja":
        sys.path.append(folder or "/")
    if name != "deja" or not __import__("deja.interfaces.preload", fromlist=["_"]).ready_without_site(folder or "/"):
        import site

        site.main()
        if sys.prefix == sys.base_prefix:  # (as pip's launcher would: a user install's dependencies)
            site.addsitedir(site.getusersitepackages())
    __import__("deja.interfaces.entry", fromlist=["main"]).main()
