"""Mattix's text: square names and layout strings, read and written as plain data.

A layout lists the rows top to bottom separated by ``/`` and the cells of a row by ``,``;
each cell is an integer piece value, ``X`` (the cross chip) or ``.`` (empty); a space and
``2`` may follow when player 2 is to move::

    >>> layout = parse_layout("3,X/.,-5 2")
    >>> layout
    Layout(size=2, cells=[3, None, None, -5], chip=1, turn=2)
    >>> write_layout(*layout)
    '3,X/.,-5 2'

Squares are numbered ``row * N + col`` with row 0 at the top; a name is a column letter and
a row number counted from the top, so ``a1`` is the top-left square (as in Othello).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from banmen.games.mattix.errors import InvalidLayoutError, InvalidMoveError

__all__ = [
    "CHIP",
    "MIN_SIZE",
    "MAX_SIZE",
    "Layout",
    "square_name",
    "parse_square",
    "parse_layout",
    "write_layout",
]

CHIP = "X"
#: the board sizes a layout may describe
MIN_SIZE, MAX_SIZE = 2, 8


def square_name(sq: int, size: int) -> str:
    """``"c2"``-style name: column letter, then row number counted from the top."""
    return f"{chr(ord('a') + sq % size)}{sq // size + 1}"


def parse_square(text: str, size: int) -> int:
    """Square index from a name like ``"c2"`` (case-insensitive).

    >>> parse_square("c2", 4)
    6
    """
    t = text.strip().lower()
    last = chr(ord("a") + size - 1)
    if len(t) < 2 or not ("a" <= t[0] <= last) or not t[1:].isdigit():
        raise InvalidMoveError(
            f"bad square {text.strip()!r}: expected a column a-{last} and a row 1-{size}, "
            f"like 'a1' or '{last}{size}'"
        )
    row = int(t[1:]) - 1
    if not 0 <= row < size:
        raise InvalidMoveError(f"bad square {text.strip()!r}: rows run from 1 to {size}")
    return row * size + (ord(t[0]) - ord("a"))


class Layout(NamedTuple):
    """What a layout string says: the size, the cells row-major (a piece value, or
    ``None`` for an empty square and the chip's), the chip's square, the side to move."""

    size: int
    cells: list[int | None]
    chip: int
    turn: int


def parse_layout(text: str) -> Layout:
    """Read a layout string (see the module's doc); raises :class:`InvalidLayoutError`."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidLayoutError("empty layout: expected rows like '3,X,7,1/5,2,8,4/...'")
    parts = text.split()
    if len(parts) > 2:
        raise InvalidLayoutError(
            f"layout has {len(parts)} space-separated fields: expected 'ROWS' or 'ROWS SIDE'"
        )
    turn = 1
    if len(parts) == 2:
        if parts[1] not in ("1", "2"):
            raise InvalidLayoutError(f"side to move must be 1 or 2, got {parts[1]!r}")
        turn = int(parts[1])
    rows = parts[0].split("/")
    size = len(rows)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidLayoutError(
            f"layout has {size} rows: expected a square board of {MIN_SIZE} to {MAX_SIZE} rows"
        )
    cells: list[int | None] = []
    chip = -1
    for r, row in enumerate(rows):
        items = row.split(",")
        if len(items) != size:
            raise InvalidLayoutError(
                f"row {r + 1} has {len(items)} cells, expected {size} (the board is square)"
            )
        for c, raw in enumerate(items):
            item = raw.strip()
            if item.upper() == CHIP:
                if chip >= 0:
                    raise InvalidLayoutError(
                        f"second cross chip at {square_name(r * size + c, size)}: "
                        "a layout has exactly one X"
                    )
                chip = r * size + c
                cells.append(None)
            elif item == ".":
                cells.append(None)
            else:
                try:
                    value = int(item)
                except ValueError:
                    raise InvalidLayoutError(
                        f"bad cell {item!r} at {square_name(r * size + c, size)}: "
                        "expected an integer piece value, X or ."
                    ) from None
                cells.append(value)
    if chip < 0:
        raise InvalidLayoutError("no cross chip in layout: exactly one cell must be X")
    return Layout(size, cells, chip, turn)


def write_layout(size: int, cells: Sequence[int | None], chip: int, turn: int) -> str:
    """The layout string of a position (the side appended when it is 2)."""
    rows = []
    for r in range(size):
        items = []
        for sq in range(r * size, r * size + size):
            v = cells[sq]
            items.append(CHIP if sq == chip else ("." if v is None else str(v)))
        rows.append(",".join(items))
    text = "/".join(rows)
    return text if turn == 1 else f"{text} 2"
