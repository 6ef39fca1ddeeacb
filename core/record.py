"""Small result types that a hook can import for free: keyword construction, defaults, equality, a repr.

What a search, a work lookup or a hook computes for one call (a hit, a fix, a
recall) is a ``Record``, not a ``msgspec.Struct``: msgspec's import costs a
hook about as much as starting Python does, and these values are never
encoded. What is stored in the index stays a msgspec Struct
(``model.py``, ``index/records.py``).

    class Step(Record):
        command: str
        exit_code: int | None = None
        tags: list[str] = []      # a mutable default is copied for each record

Fields are the class's annotations in order (a subclass's after its base's);
they can be given by position or by name. ``frozen=True`` in the class line
makes records immutable and hashable.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self, dataclass_transform
else:

    def dataclass_transform() -> Any:
        """What tells a type checker that a Record's fields make its ``__init__``; nothing at run time."""
        return lambda cls: cls


_MUTABLE = (list, dict, set, bytearray)


@dataclass_transform()
class Record:
    """The base: a subclass's annotated class attributes are its fields."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _frozen: ClassVar[bool] = False

    def __init_subclass__(cls, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [
            name
            for name, kind in cls.__dict__.get("__annotations__", {}).items()
            if not str(kind).startswith("ClassVar")
        ]
        cls._fields = tuple(dict.fromkeys([*cls._fields, *own]))
        cls._defaults = {**cls._defaults, **{name: cls.__dict__[name] for name in own if name in cls.__dict__}}
        cls._frozen = frozen or cls._frozen

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(fields)} positional arguments")
        values = dict(zip(fields, args, strict=False))
        if kwargs:  # (the names checked at once, not one by one: a search makes dozens of records)
            if not values.keys().isdisjoint(kwargs) or kwargs.keys() - fields:
                wrong = next(name for name in kwargs if name not in fields or name in values)
                raise TypeError(f"{type(self).__name__}: unexpected or repeated field {wrong!r}")
            values.update(kwargs)
        if len(values) < len(fields):  # (every field given, as most records are: none to fill in)
            for name in fields:
                if name not in values:
                    if name not in self._defaults:
                        raise TypeError(f"{type(self).__name__}: missing field {name!r}")
                    default = self._defaults[name]
                    values[name] = default.copy() if isinstance(default, _MUTABLE) else default
        object.__setattr__(self, "__dict__", values)
        post_init = getattr(self, "__post_init__", None)
        if post_init is not None:
            post_init()

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is frozen")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        if not self._frozen:
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        return hash((type(self), *vars(self).values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` made (what ``msgspec.structs.replace`` does for a Struct)."""
        return type(self)(**{**vars(self), **changes})
