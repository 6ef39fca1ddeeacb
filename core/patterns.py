"""Regular expressions compiled when first used, not when their module is imported.

A pattern compiled at a module's top level is paid by every process that imports the module, whether or not it
calls on it: the redaction rules' helpers (a hook that redacts one failed command's output), and the readers' and
the model's sixteen patterns (about 2 ms of CPU), which a ``deja search`` right after one turn paid to read a few
lines that call on a handful of them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from typing import Any


class Lazy:
    """A module's pattern, compiled when first used and then put in its own place in ``namespace`` (the module's
    ``globals()``), so later uses are the compiled pattern's own, with no lookup through this one. A module that
    imported the name keeps this object, which asks ``re``'s cache of compiled patterns on each use."""

    __slots__ = ("_flags", "_name", "_namespace", "_regex")

    def __init__(self, namespace: dict[str, Any], name: str, regex: str | bytes, flags: int = 0) -> None:
        self._namespace, self._name, self._regex, self._flags = namespace, name, regex, flags

    def __getattr__(self, attr: str) -> Any:
        import re

        pattern = self._namespace[self._name] = re.compile(self._regex, self._flags)
        return getattr(pattern, attr)
