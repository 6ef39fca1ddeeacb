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

if _TYPING_EXTENSIONS not in sys.modules:
    sys.modules[_TYPING_EXTENSIONS] = None  # type: ignore[assignment]  # (an import of it raises ImportError)
    try:
        import msgspec as msgspec
    except ImportError:  # (what it imported before it failed is imported again below, with typing_extensions)
        for name in [name for name in sys.modules if name.partition(".")[0] == "msgspec"]:
            del sys.modules[name]
    finally:
        del sys.modules[_TYPING_EXTENSIONS]
import msgspec as msgspec  # noqa: E402  # (imported above, or as usual)

__all__ = ["msgspec"]
