"""msgspec, imported without ``typing_extensions``: every deja module takes msgspec from here.

msgspec's ``_utils`` imports ``typing_extensions`` when it can (its ``get_type_hints``, ``Required`` and
``NotRequired``) and otherwise falls back to ``typing``'s own, which are the same names on the Pythons deja runs on
(3.11 and later). ``typing_extensions`` imports ``inspect`` with ``ast``, ``dis`` and ``tokenize``: about 7 of the
15 ms of CPU msgspec's import costs, paid by every ``deja search`` right after a turn. deja's Structs use nothing of
``typing_extensions``, so while msgspec is first imported ``typing_extensions`` is made to look missing, and
``sys.modules`` is put back exactly as it was afterwards, so whatever imports it later (typer, the MCP SDK, pydantic)
imports it as usual. When it is already imported (the MCP server's pydantic) it is left alone: another thread might
be importing from it, and there is nothing to save. A msgspec release that cannot do without it (its import raises
``ImportError``) is imported again as usual, slower but working: every deja command died of "import of
typing_extensions halted" (review44a L2). ``tests/test_lean_msgspec.py`` fails if a msgspec release stops falling
back (``typing_extensions`` would be loaded, or the index's Structs would not decode).
"""

from __future__ import annotations

import sys

_TYPING_EXTENSIONS = "typing_extensions"


class _AsForwardRef(type):
    """Outside msgspec's first import the stand-in is ``typing.ForwardRef`` to ``isinstance`` and ``issubclass`` too."""

    def __instancecheck__(cls, instance: object) -> bool:
        import typing

        return isinstance(instance, typing.ForwardRef)

    def __subclasscheck__(cls, subclass: type) -> bool:
        import typing

        return issubclass(subclass, typing.ForwardRef)


class _ProbedForwardRef(metaclass=_AsForwardRef):
    """What ``typing.ForwardRef`` is while msgspec is first imported: its ``_utils`` makes one to learn whether it
    takes ``is_class`` (every Python deja runs on does), and that ForwardRef's ``compile()``, the process's first, builds
    the AST's types: about 9 M instructions, 2% of a ``deja search`` after a turn, which otherwise compiles nothing
    (the Structs it decodes are defined with their annotations evaluated). Only while no other thread runs: one that
    made a ForwardRef meanwhile would keep this stand-in. Made after that import (by a msgspec that kept the name it
    found then: none from 0.18 to 0.23 does), it is the real one (review54c L1)."""

    #: Whether msgspec's first import is under way (the stand-in then compiles nothing).
    probing = False

    def __new__(
        cls, arg: str, is_argument: bool = True, module: object = None, *, is_class: bool = False
    ) -> _ProbedForwardRef:
        import typing

        if cls.probing:
            return super().__new__(cls)
        return typing.ForwardRef(arg, is_argument, module, is_class=is_class)  # type: ignore[return-value]


if _TYPING_EXTENSIONS not in sys.modules:
    import _thread
    import typing

    forward_ref = typing.ForwardRef
    sys.modules[_TYPING_EXTENSIONS] = None  # type: ignore[assignment]  # (an import of it raises ImportError)
    if _thread._count() == 0:  # (the main thread alone)
        typing.ForwardRef = _ProbedForwardRef  # type: ignore[misc,assignment]
        _ProbedForwardRef.probing = True
    try:
        import msgspec as msgspec
    except ImportError:  # (what it imported before it failed is imported again below, with typing_extensions)
        for name in [name for name in sys.modules if name.partition(".")[0] == "msgspec"]:
            del sys.modules[name]
    finally:
        typing.ForwardRef = forward_ref  # type: ignore[misc]
        _ProbedForwardRef.probing = False
        del sys.modules[_TYPING_EXTENSIONS]
import msgspec as msgspec  # noqa: E402  # (imported above, or as usual)

__all__ = ["msgspec"]
