"""What a function of one argument gave, kept for the arguments asked again and again: a build asks the same keys,
commands and short texts thousands of times. A dict emptied when full, not ``functools.lru_cache``, whose import
costs every hook ``collections``."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable
    from typing import Any

_MISSING = object()


class Remembered:
    """``work``'s answers for up to ``most`` arguments (``known``); when full, it starts again: what a build asks comes
    back in runs, and an emptied dict keeps it bounded at no cost."""

    __slots__ = ("work", "most", "known")

    def __init__(self, work: Callable[[Any], Any], most: int) -> None:
        self.work, self.most = work, most
        self.known: dict[Hashable, Any] = {}

    def __call__(self, argument: Hashable) -> Any:
        found = self.known.get(argument, _MISSING)
        if found is _MISSING:
            if len(self.known) >= self.most:
                self.known.clear()
            found = self.known[argument] = self.work(argument)
        return found
