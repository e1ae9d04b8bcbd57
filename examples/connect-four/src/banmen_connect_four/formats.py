"""Connect Four's text: column names, move sequences, FEN and diagrams, read and written
as plain data (the board checks that what they describe is a position of the game).

A position as text is its 42 cells as a person reads the board: row by row from the
**top**, each row from column 1 (left) to column 7 — ``x`` a red disc, ``o`` a yellow disc,
``.`` an empty cell. Cell ``7 * row + column`` (both counted from 0, row 0 the top) is
what :func:`parse_fen` and :func:`parse_diagram` return and the web grid draws.

* **moves**: the column digits of the moves from the empty board, ``"4453"``; reading also
  allows spaces and commas between them (``"4 4 5 3"``);
* **FEN**: the six rows top first separated by ``/``, each seven cells (a digit ``1``-``7``
  may stand for that many empty cells, as in chess FEN), then a space and the side to
  move, ``x`` or ``o``::

      >>> grid = parse_fen("7/7/7/7/3o3/3x3 x")
      >>> write_fen(grid.cells, grid.turn)
      '......./......./......./......./...o.../...x... x'

* **diagram**: the board as :func:`write_diagram` draws it for the terminal (a header of
  column numbers, six rows of cells separated by spaces, a status line); reading takes the
  six rows and ignores the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from banmen_connect_four.errors import InvalidMoveError, InvalidPositionError

__all__ = [
    "COLS",
    "ROWS",
    "RED",
    "YELLOW",
    "EMPTY",
    "SIDE_NAMES",
    "Grid",
    "column_name",
    "parse_column",
    "parse_moves",
    "write_moves",
    "parse_fen",
    "write_fen",
    "parse_diagram",
    "write_diagram",
]

COLS, ROWS = 7, 6
RED, YELLOW, EMPTY = "x", "o", "."
#: side (1 or 2) -> (its name, its letter)
SIDE_NAMES = {1: ("red", RED), 2: ("yellow", YELLOW)}
_LETTER_SIDE = {RED: 1, YELLOW: 2}
_FEN_EXAMPLE = "'......./......./......./......./......./...x... o'"


class Grid(NamedTuple):
    """What a FEN or a diagram says: the 42 cells from the top (``x``, ``o`` or ``.``) and
    the side to move (1 red, 2 yellow; ``None``: not given, it follows from the discs)."""

    cells: list[str]
    turn: int | None


def column_name(col: int) -> str:
    """A column's name, ``"1"`` to ``"7"`` (columns are 0 to 6 inside)."""
    return str(col + 1)


def parse_column(text: str) -> int:
    """The column (0-6) a move's name gives (``"1"``-``"7"``); raises
    :class:`InvalidMoveError` for anything else.

    >>> parse_column(" 4 ")
    3
    """
    t = text.strip() if isinstance(text, str) else ""
    if len(t) != 1 or not "1" <= t <= "7":
        shown = text.strip() if isinstance(text, str) else text
        raise InvalidMoveError(f"bad move {shown!r}: expected a column number 1-7")
    return int(t) - 1


def parse_moves(text: str) -> list[int]:
    """The columns (0-6) of a move sequence such as ``"4453"`` (spaces and commas between
    moves allowed); raises :class:`InvalidPositionError` naming the first bad character.

    >>> parse_moves("4453")
    [3, 3, 4, 2]
    """
    if not isinstance(text, str):
        raise InvalidPositionError("a move sequence must be text such as '4453'")
    out = []
    for i, ch in enumerate(text):
        if ch in " ,\t\n\r":
            continue
        if not "1" <= ch <= "7":
            raise InvalidPositionError(
                f"bad move sequence: {ch!r} at position {i + 1} is not a column 1-7 "
                "(expected column digits such as '4453')"
            )
        out.append(int(ch) - 1)
    return out


def write_moves(cols: Sequence[int]) -> str:
    """The move sequence of ``cols``: ``[3, 3, 4, 2]`` -> ``"4453"``."""
    return "".join(column_name(c) for c in cols)


def _fen_row(row: str, r: int) -> list[str]:
    cells: list[str] = []
    for ch in row.lower():
        if ch in (RED, YELLOW, EMPTY):
            cells.append(ch)
        elif "1" <= ch <= "7":
            cells.extend(EMPTY * int(ch))
        else:
            raise InvalidPositionError(
                f"bad FEN: {ch!r} in row {r + 1} (from the top): expected x, o, . or a "
                f"digit 1-7 (empty cells), like {_FEN_EXAMPLE}"
            )
    if len(cells) != COLS:
        raise InvalidPositionError(
            f"bad FEN: row {r + 1} (from the top) has {len(cells)} cells, expected {COLS}"
        )
    return cells


def parse_fen(text: str) -> Grid:
    """Read a FEN (see the module's doc); raises :class:`InvalidPositionError` for text
    that is not one (whether it is a position of the game, the board checks)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidPositionError(
            f"empty FEN: expected six rows and the side, like {_FEN_EXAMPLE}"
        )
    parts = text.split()
    if len(parts) != 2:
        raise InvalidPositionError(
            f"bad FEN: expected the rows, a space and the side to move (x or o), like "
            f"{_FEN_EXAMPLE}; got {len(parts)} space-separated fields"
        )
    rows = parts[0].split("/")
    if len(rows) != ROWS:
        raise InvalidPositionError(f"bad FEN: {len(rows)} rows, expected {ROWS} separated by /")
    cells = [c for r, row in enumerate(rows) for c in _fen_row(row, r)]
    side = parts[1].lower()
    if side not in _LETTER_SIDE:
        raise InvalidPositionError(
            f"bad FEN: side to move {parts[1]!r}: expected x (red) or o (yellow)"
        )
    return Grid(cells, _LETTER_SIDE[side])


def write_fen(cells: Sequence[str], turn: int) -> str:
    """The FEN of a position: 42 cells from the top and the side to move (1 or 2)."""
    rows = ["".join(cells[r * COLS : (r + 1) * COLS]) for r in range(ROWS)]
    return "/".join(rows) + " " + SIDE_NAMES[turn][1]


def parse_diagram(text: str) -> Grid:
    """The six rows of a diagram (:func:`write_diagram`): the lines that are seven cells
    ``x``/``o``/``.`` (spaces between them allowed); other lines are ignored."""
    if not isinstance(text, str):
        raise InvalidPositionError("a diagram must be text")
    rows = []
    for line in text.splitlines():
        squeezed = "".join(line.split()).lower()
        if squeezed and all(ch in (RED, YELLOW, EMPTY) for ch in squeezed):
            if len(squeezed) != COLS:
                raise InvalidPositionError(
                    f"bad diagram: the row {line.strip()!r} has {len(squeezed)} cells, "
                    f"expected {COLS}"
                )
            rows.append(squeezed)
    if len(rows) != ROWS:
        raise InvalidPositionError(
            f"bad diagram: {len(rows)} rows of cells (x, o, .), expected {ROWS}"
        )
    return Grid([c for row in rows for c in row], None)


def write_diagram(cells: Sequence[str], status: str) -> str:
    """The board for the terminal: column numbers, the rows from the top, ``status``.

    >>> print(write_diagram(parse_fen("7/7/7/7/3o3/3x3 x").cells, "red (x) to move"))
     1 2 3 4 5 6 7
     . . . . . . .
     . . . . . . .
     . . . . . . .
     . . . . . . .
     . . . o . . .
     . . . x . . .
    red (x) to move
    """
    lines = [" " + " ".join(column_name(c) for c in range(COLS))]
    for r in range(ROWS):
        lines.append(" " + " ".join(cells[r * COLS : (r + 1) * COLS]))
    lines.append(status)
    return "\n".join(lines)
