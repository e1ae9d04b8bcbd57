"""Read-only attributes computed from others: ``IntAt`` (an entry of an array) and
``PerSecond`` (a count per ``seconds``)."""

from __future__ import annotations

from typing import Any, overload


class IntAt:
    """``size = IntAt("meta", M_SIZE)`` in a class body: ``obj.size`` is
    ``int(obj.meta[M_SIZE])``, and cannot be assigned (like a getter-only property)."""

    __slots__ = ("array", "index", "name")

    def __init__(self, array: str, index: int) -> None:
        self.array = array
        self.index = index
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> IntAt: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> int: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> IntAt | int:
        if obj is None:
            return self
        return int(getattr(obj, self.array)[self.index])

    def __set__(self, obj: object, value: Any) -> None:
        raise AttributeError(f"{self.name} is read-only: it is {self.array}[{self.index}]")


class PerSecond:
    """``nps = PerSecond("nodes")`` in a class body: ``obj.nps`` is ``obj.nodes`` per
    ``obj.seconds`` (0.0 when no time has passed), and cannot be assigned."""

    __slots__ = ("count",)

    def __init__(self, count: str) -> None:
        self.count = count

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> PerSecond: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> float: ...
    def __get__(self, obj: Any, owner: type | None = None) -> PerSecond | float:
        if obj is None:
            return self
        seconds: float = obj.seconds
        count: float = getattr(obj, self.count)
        return count / seconds if seconds > 0 else 0.0

    def __set__(self, obj: object, value: Any) -> None:
        raise AttributeError(f"the rate of {self.count} per second is read-only")
