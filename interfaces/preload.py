"""Loads the deja modules a hook imports straight from their compiled files, before it runs.

Importing one module through ``importlib`` runs the import system's own Python (a lock, a spec, the finders,
the module's attributes) before the module's code: about 220k instructions for a module, empty or not.
A hook knows which of deja's modules it will import (``HOOK_MODULES``), so the launcher (``interfaces/hook.py``) loads
each here as ``importlib`` would (its ``.pyc``, checked against the source's time and size as ``importlib`` checks
it), and the ``import`` statements that follow find it in ``sys.modules``: a recalling prompt (28 of deja's modules)
runs 4.4 M fewer of its 117 M instructions. The standard library's C modules they import (``_json``, ``zlib``, …) it
loads as ``importlib``'s own finders do, by ``_imp``, without their Python: 0.8 M fewer. Any module it cannot load so
(no ``.pyc`` yet, a stale one, another Python's, a C module not where it looks) it leaves, with those after it, to
``importlib``: never another answer, only a slower one. A module of deja's a hook imports beyond its list (a Shell
command's, the session start's block, …) the launcher's finder (``_OnDemand``) loads from its ``.pyc`` so too.

Under ``python -X importtime`` it loads nothing, so that what a hook imports is listed as ever (``bench_hooks.py``,
the tests that pin what hooks load).
"""

from __future__ import annotations

import _imp
import marshal
import sys

# (the two calls it makes of ``os``, without importing ``os``: ``deja.core.oscalls`` says why; that module is
# loaded here from its ``.pyc`` too)
if sys.platform == "win32":  # pragma: no cover - the tests run on POSIX
    from nt import stat

    SEP = "\\"
else:
    from posix import stat

    SEP = "/"

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: The modules importing every hook's module loads (``hooks/run.py``'s), in the order ``importlib`` finishes them:
#: deja's, and the standard library's C modules (a name not of deja: built in, or a file in ``lib-dynload``).
EVERY_HOOK = (
    "deja.core",
    "deja.core.oscalls",
    "deja.core.record",
    "deja.core.config",
    "deja.core.folders",
    "deja.interfaces.entry",
    "deja.hooks",
    "deja.hooks.run",
    "_json",
    "deja.core.cjson",
    "_blake2",
    "deja.core.digests",
    "deja.core.lines",
    "errno",
    "deja.core.private",
    "deja.core.regular_files",
    "deja.hooks.call",
    "select",  # (``hooks/run.py`` imports it as it reads the event, before the hook's module)
)
#: The packages among them (an ``__init__.py`` each).
PACKAGES = frozenset({"deja.core", "deja.hooks", "deja.interfaces", "deja.core.index"})
_ANSWERING = ("deja.core.remembered", "deja.core.keys")
#: What opening the index loads (``HookCall.index``: the light reader, redaction's gate). A prompt's hook opens it for
#: every prompt but an empty one or one with recall off: loaded by ``importlib`` there, they cost a recalling prompt
#: 0.8 M instructions more, and loaded for nothing they cost an empty prompt about 2 M (2.0 to 2.4 M in two runs).
OPENING_THE_INDEX = ("deja.core.index.light", "deja.core.escapes", "deja.core.redaction")
#: command -> what importing its module in ``deja.hooks`` loads beyond ``EVERY_HOOK``, in that order too, and for
#: ``hook-prompt`` what opening the index loads after it (``tests/test_hook_preload.py`` checks both against
#: ``importlib``'s).
HOOK_MODULES = {
    "hook-context": (*_ANSWERING, "deja.hooks.describe", "deja.hooks.context"),
    "hook-prompt": (
        *_ANSWERING,
        "deja.core.dates",
        "math",
        "_operator",
        "itertools",
        "deja.core.fields",
        "deja.core.index",
        "_struct",
        "zlib",
        "deja.core.index.format",
        "mmap",
        "deja.core.faults",
        "deja.core.index.reader",
        "deja.core.text",
        "deja.core.thesaurus",
        "deja.core.search",
        "deja.hooks.describe",
        "deja.hooks.prompt",
        *OPENING_THE_INDEX,
    ),
    "hook-tool": (
        "deja.core.index",
        *_ANSWERING,
        "deja.core.fields",
        "_struct",
        "zlib",
        "_operator",
        "deja.core.index.format",
        "mmap",
        "itertools",
        "deja.core.faults",
        "deja.core.index.reader",
        "deja.hooks.describe",
        "deja.hooks.tool",
    ),
    "hook-tool-after": (*_ANSWERING, "deja.hooks.describe", "deja.hooks.tool_after"),
    "hook-session-end": ("deja.hooks.session_end",),
}


def preload(command: str, folder: str) -> None:
    """Load ``command``'s modules of the ``deja`` package in ``folder`` (a site-packages), as far as each loads."""
    magic = _magic()
    if magic is None:
        return
    for name in (*EVERY_HOOK, *HOOK_MODULES.get(command, ())):
        if name in sys.modules:
            continue
        if not (_load(name, folder, magic) if name.startswith("deja.") else _load_c(name)):
            return


def _magic() -> bytes | None:
    """The first bytes of this Python's ``.pyc`` files; None where none should be read here: under ``-X importtime``
    (so that what a hook imports is listed as ever), and where ``importlib`` names them otherwise."""
    if "importtime" in sys._xoptions or sys.flags.optimize or sys.pycache_prefix:
        return None
    try:
        from _frozen_importlib_external import MAGIC_NUMBER
    except ImportError:  # pragma: no cover - another Python than CPython
        return None
    return MAGIC_NUMBER


def _compiled(name: str, folder: str, magic: bytes) -> tuple[str, str, bytes] | None:
    """Module ``name``'s source and ``.pyc`` paths in ``folder`` and the ``.pyc``'s bytes, if it is the source's as
    ``importlib`` checks it (the source's time and size); None where it is not, or either is missing."""
    path = folder + SEP + name.replace(".", SEP)
    head, tail = (path, "__init__") if name in PACKAGES else path.rsplit(SEP, 1)
    source = f"{head}{SEP}{tail}.py"
    cached = f"{head}{SEP}__pycache__{SEP}{tail}.{sys.implementation.cache_tag}.pyc"
    try:
        with open(cached, "rb", buffering=0) as file:
            data = file.readall()
        found = stat(source)
    except OSError:
        return None
    # A timestamp .pyc's header: magic, flags 0, the source's modification time and size (PEP 552)
    if data[:8] != magic + bytes(4) or data[8:16] != _stamp(found.st_mtime, found.st_size):
        return None
    return source, cached, data


def _run(module: ModuleType, source: str, data: bytes) -> None:
    """Run a ``.pyc``'s code in ``module``, as ``importlib`` would."""
    code = marshal.loads(memoryview(data)[16:])
    # (as importlib does: a traceback names the file the module was loaded from, not the one it was compiled from)
    _imp._fix_co_filename(code, source)  # type: ignore[attr-defined]
    exec(code, module.__dict__)


def _load(name: str, folder: str, magic: bytes) -> bool:
    """Run module ``name``'s compiled code as ``importlib`` would, if its ``.pyc`` is the source's; whether it did."""
    compiled = _compiled(name, folder, magic)
    if compiled is None:
        return False
    source, cached, data = compiled
    module = type(sys)(name)
    module.__file__ = source
    module.__dict__["__cached__"] = cached
    package = name in PACKAGES
    module.__package__ = name if package else name.rpartition(".")[0]
    if package:
        module.__path__ = [_parent(source)]
    sys.modules[name] = module
    try:
        _run(module, source, data)
    except Exception:  # (importlib raises it again, from the same code, when the hook imports the module)
        del sys.modules[name]
        return False
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)
    return True


class _OnDemand:
    """The finder of the ``deja`` modules a hook imports beyond its list (a Shell's commands' modules, the session
    start's block, …): each from its ``.pyc`` as ``preload`` loads them, which spares ``importlib``'s own finder
    (the folder's listing, the ``.pyc``'s checks in Python): about 0.1 M instructions a module. A module whose
    ``.pyc`` is not the source's it leaves to that finder, which compiles it as ever."""

    def __init__(self, folder: str, magic: bytes) -> None:
        self.folder = folder
        self.magic = magic

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        """Module ``name``'s spec, from its ``.pyc``, where it is deja's and that ``.pyc`` is the source's."""
        if not name.startswith("deja."):
            return None
        compiled = _compiled(name, self.folder, self.magic)
        if compiled is None:
            return None
        source, cached, data = compiled
        from _frozen_importlib import ModuleSpec

        # (a loader by its methods, as importlib's own are: importing ``importlib.abc`` would cost every hook)
        spec = ModuleSpec(name, self, origin=source, loader_state=(source, data), is_package=name in PACKAGES)  # type: ignore[arg-type]
        spec.cached = cached
        spec.has_location = True
        if name in PACKAGES:
            spec.submodule_search_locations = [_parent(source)]
        return spec

    def create_module(self, spec: ModuleSpec) -> None:
        """None: ``importlib`` makes the module as for any other."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Run the module's ``.pyc`` in it (``find_spec`` read it)."""
        source, data = module.__spec__.loader_state  # type: ignore[union-attr]  # (find_spec's spec)
        _run(module, source, data)


def _load_c(name: str) -> bool:
    """Load the standard library's C module ``name`` as ``importlib``'s finders for them do (built in, else its file
    in ``lib-dynload``), without their Python: about 0.1 M instructions less a module; whether it did."""
    try:
        from _frozen_importlib import ModuleSpec

        if name in sys.builtin_module_names:
            module = _imp.create_builtin(ModuleSpec(name, None, origin="built-in"))
            _imp.exec_builtin(module)
        else:
            folder = next(path for path in sys.path if path.rpartition(SEP)[2] == "lib-dynload")
            path = folder + SEP + name + _imp.extension_suffixes()[0]
            module = _imp.create_dynamic(ModuleSpec(name, None, origin=path))
            _imp.exec_dynamic(module)
            module.__file__ = path
    except Exception:  # (none there, or another Python's ``_imp``: ``importlib`` looks for it as ever)
        return False
    sys.modules[name] = module
    return True


def _parent(path: str) -> str:
    """The folder holding ``path``, one of the absolute, normalised paths this module makes (``os.path.dirname``)."""
    return path.rpartition(SEP)[0] or SEP


def _stamp(mtime: float, size: int) -> bytes:
    """The source's time and size as a .pyc's header holds them (``importlib``'s ``_pack_uint32``)."""
    return (int(mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")


#: The folder the launcher loaded this hook's modules from (``ready_without_site``), "" where it did not.
_folder = ""


def ready_without_site(folder: str) -> bool:
    """Load the modules the hook will import from ``folder``, the ``site-packages`` holding deja (put on
    ``sys.path`` by the launcher, ``interfaces/hook.py``, started with ``-I -S``: ``preload``); and whether the
    launcher may run the hook without ``site``: that folder holds PyStemmer too
    (``deja.core.folders.launcher_folder``).

    First the resident hook server is asked to answer the call (``hook_client.answer``, loaded from its ``.pyc``
    here): where it does, this process ends there, having loaded nothing else of deja's.

    A hook runs on every prompt and Shell call, so its start is most of its cost. pip's ``deja`` launcher goes
    through ``site`` (every ``.pth`` file of the environment, setuptools' ``_distutils_hack`` among them) and imports
    ``re`` before deja runs: about 2.5 ms of the 9 of ``python -c pass``. Started with ``-S`` (no ``site``) and
    ``-I`` (no user site, no ``PYTHON*`` variables, not even the script's own folder on ``sys.path``), Python knows
    only the standard library and deja's folder. Anywhere else (an editable install, whose ``deja`` is found by an
    import hook that a ``.pth`` file installs; a user install whose PyStemmer is in the system's site-packages) the
    launcher runs ``site``, the user site included, as pip's launcher would have, and the hook works, only not faster.
    The installers write the launcher's command (``installers/entries.py``) only where ``launcher_folder`` finds that
    folder.
    """
    global _folder
    _folder = folder
    magic = _magic()
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if magic is not None and command.startswith("hook-") and _load("deja.interfaces.hook_client", folder, magic):
        sys.modules["deja.interfaces.hook_client"].answer(folder, command)  # (ends here where the server answered)
    if magic is not None:
        sys.meta_path.insert(0, _OnDemand(_folder, magic))
    preload(command, _folder)
    from ..core.folders import launcher_folder

    return launcher_folder(folder.rstrip(SEP) + SEP + "deja") is not None


def preload_as_launched(command: str) -> None:
    """Load ``command``'s modules as the launcher loaded this hook's, where it did: a hook that learns from its event
    that it will recall (a ``Task``'s, a tool hook's for a prompt only the transcript holds) loads the prompt hook's,
    which ``importlib`` loaded one by one (-1.9 M of a ``Task``'s 111 M instructions at 1k sessions)."""
    if _folder:
        preload(command, _folder)
