"""The Connect Four board: rules, notation and JSON in pure Python (no numpy, no numba).

The discs are two bitboards in the usual layout: 7 bits per column — bit ``7 * col + row``
is the cell in column ``col`` (0 = column 1, the left) and row ``row`` (0 = the bottom);
the seventh bit of each column is never set (the sentinel row), so a shift by 1
(vertical), 7 (horizontal), 6 and 8 (the diagonals) never wraps from one column into the
next. Four in a row in direction ``s`` is ``m & (m >> 2s)`` with ``m = b & (b >> s)``.
The compiled kernels (:mod:`.kernels`) use the same layout.

    >>> board = Board.from_moves("4453")
    >>> board.legal_moves, board.turn
    ([0, 1, 2, 3, 4, 5, 6], 1)
    >>> board.push_name("4")
    >>> print(board)
     1 2 3 4 5 6 7
     . . . . . . .
     . . . . . . .
     . . . . . . .
     . . . x . . .
     . . . o . . .
     . . o x x . .
    yellow (o) to move
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any

from banmen.games import StackBoard, read_record, replay_names

from banmen_connect_four.errors import (
    ConnectFourError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
)
from banmen_connect_four.formats import (
    COLS,
    EMPTY,
    RED,
    ROWS,
    SIDE_NAMES,
    YELLOW,
    Grid,
    column_name,
    parse_column,
    parse_diagram,
    parse_fen,
    parse_moves,
    write_diagram,
    write_fen,
    write_moves,
)

__all__ = ["Board", "has_four", "bit", "STRIDE", "BOTTOM", "FULL", "CELLS", "WIN"]

STRIDE = ROWS + 1  #: bits per column: six cells and the sentinel
BOTTOM = sum(1 << (c * STRIDE) for c in range(COLS))  #: the bottom cell of every column
FULL = BOTTOM * ((1 << ROWS) - 1)  #: every cell of the board
CELLS = COLS * ROWS
#: a won game is worth ``WIN`` plus the cells still empty (see the package's doc)
WIN = 100
_DIRECTIONS = (1, STRIDE, STRIDE - 1, STRIDE + 1)  # vertical, horizontal, the diagonals


def bit(col: int, row: int) -> int:
    """The bit of the cell in column ``col`` and row ``row`` (0 = the bottom)."""
    return 1 << (col * STRIDE + row)


def has_four(b: int) -> bool:
    """Whether the discs ``b`` hold four in a row (any direction)."""
    for s in _DIRECTIONS:
        m = b & (b >> s)
        if m & (m >> (2 * s)):
            return True
    return False


def _count(b: int) -> int:
    return bin(b).count("1")


class Board(StackBoard[int]):
    """A Connect Four position with its move history (``push`` / ``pop``, as in
    python-chess). Moves are columns 0-6, named ``"1"``-``"7"``; side 1 is red (``x``,
    moves first), side 2 yellow (``o``). ``Board()`` is the empty board."""

    _record_error = InvalidPositionError

    def __init__(self) -> None:
        self._discs = [0, 0]  # red's and yellow's discs
        self._heights = [0] * COLS
        self.turn = 1
        self._winner: int | None = None
        self.move_stack: list[int] = []
        self._undo: list[int] = []
        self._start = (0, 0)
        #: the columns played from the empty board to the start position (``None``: not
        #: known, a position read from a FEN or a diagram)
        self._opening: tuple[int, ...] | None = ()

    # ---- construction

    @classmethod
    def from_discs(cls, red: int, yellow: int, turn: int | None = None) -> Board:
        """The position with these discs (bitboards, see the module's doc), checked to be
        one a game can reach: no disc floats, red has as many discs as yellow or one more
        (red moves first; the side to move follows, and ``turn``, if given, must agree),
        and at most the side that moved last has four in a row, made by a disc on top of
        its column. Raises :class:`InvalidPositionError` otherwise."""
        if red & yellow or (red | yellow) & ~FULL:
            raise InvalidPositionError("two discs on one cell, or a disc off the board")
        occupied = red | yellow
        heights = []
        for c in range(COLS):
            column = (occupied >> (c * STRIDE)) & ((1 << ROWS) - 1)
            if column & (column + 1):
                raise InvalidPositionError(
                    f"column {column_name(c)} has a disc above an empty cell: discs fall "
                    "to the lowest empty cell"
                )
            heights.append(_count(column))
        nr, ny = _count(red), _count(yellow)
        if nr not in (ny, ny + 1):
            raise InvalidPositionError(
                f"red has {nr} discs and yellow {ny}: red moves first, so red has as many "
                "discs as yellow or one more"
            )
        side = 1 if nr == ny else 2
        if turn is not None and turn != side:
            raise InvalidPositionError(
                f"{SIDE_NAMES[turn][0]} cannot be to move with {nr} red and {ny} yellow "
                f"discs: it is {SIDE_NAMES[side][0]}'s turn"
            )
        fours = [has_four(red), has_four(yellow)]
        winner = None
        if any(fours):
            last = 3 - side  # the side that moved last
            if fours[side - 1]:
                raise InvalidPositionError(
                    f"{SIDE_NAMES[side][0]} has four in a row but {SIDE_NAMES[last][0]} "
                    "moved last: the game would have ended at that four"
                )
            mine = red if last == 1 else yellow
            tops = [bit(c, heights[c] - 1) for c in range(COLS) if heights[c]]
            if not any(t & mine and not has_four(mine & ~t) for t in tops):
                raise InvalidPositionError(
                    f"{SIDE_NAMES[last][0]}'s fours cannot all have been made by its last "
                    "disc: the game would have ended earlier"
                )
            winner = last
        b = cls()
        b._discs = [red, yellow]
        b._heights = heights
        b.turn = side
        b._winner = winner
        b._start = (red, yellow)
        b._opening = () if occupied == 0 else None
        return b

    @classmethod
    def from_grid(cls, grid: Grid) -> Board:
        """The position of 42 cells from the top (``x``/``o``/``.``) and an optional side
        to move (see :mod:`.formats`)."""
        red = yellow = 0
        for i, ch in enumerate(grid.cells):
            r, c = divmod(i, COLS)
            if ch == RED:
                red |= bit(c, ROWS - 1 - r)
            elif ch == YELLOW:
                yellow |= bit(c, ROWS - 1 - r)
        return cls.from_discs(red, yellow, grid.turn)

    @classmethod
    def from_fen(cls, text: str) -> Board:
        """The position a FEN gives (:func:`~.formats.parse_fen`)."""
        return cls.from_grid(parse_fen(text))

    @classmethod
    def from_diagram(cls, text: str) -> Board:
        """The position a diagram shows (:func:`~.formats.parse_diagram`; the side to
        move follows from the discs)."""
        return cls.from_grid(parse_diagram(text))

    @classmethod
    def from_moves(cls, text: str) -> Board:
        """The game a move sequence from the empty board gives (``"4453"``), its moves
        on the stack; a move that cannot be played raises :class:`InvalidPositionError`
        naming it."""
        b = cls()
        for i, col in enumerate(parse_moves(text)):
            try:
                b.push(col)
            except ConnectFourError as e:
                raise InvalidPositionError(f"move {i + 1} ({column_name(col)}): {e}") from None
        return b

    @classmethod
    def from_text(cls, text: str) -> Board:
        """A position typed as text: a diagram (several lines), a FEN (it has ``/``) or a
        move sequence from the empty board."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidPositionError(
                "empty position: expected a move sequence such as 4453, or a FEN such as "
                "'......./......./......./......./......./...x... o'"
            )
        t = text.strip()
        if "\n" in t:
            return cls.from_diagram(t)
        if "/" in t:
            return cls.from_fen(t)
        return cls.from_moves(t)

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b._discs = list(self._discs)
        b._heights = list(self._heights)
        b.turn = self.turn
        b._winner = self._winner
        b.move_stack = list(self.move_stack)
        b._undo = list(self._undo)
        b._start = self._start
        b._opening = self._opening
        return b

    def start_board(self) -> Board:
        """The position this board's move stack starts from."""
        b = Board.from_discs(*self._start)
        b._opening = self._opening
        return b

    def fresh(self) -> Board:
        """This position as the start of a new game: no moves on the stack (the moves
        that led here, if known, are its opening: :meth:`moves` still writes them)."""
        b = Board.from_discs(*self._discs)
        if self._opening is not None:
            b._opening = self._opening + tuple(self.move_stack)
        return b

    # ---- state

    @property
    def discs(self) -> tuple[int, int]:
        """Red's and yellow's discs as bitboards (see the module's doc)."""
        return (self._discs[0], self._discs[1])

    @property
    def heights(self) -> tuple[int, ...]:
        """The number of discs in each column."""
        return tuple(self._heights)

    def position(self) -> tuple[int, int]:
        """``(mine, occupied)``: the side to move's discs and every disc, as bitboards
        (what the compiled kernels take)."""
        return self._discs[self.turn - 1], self._discs[0] | self._discs[1]

    def empties(self) -> int:
        """Cells still empty."""
        return CELLS - sum(self._heights)

    @property
    def legal_moves(self) -> list[int]:
        """The columns that can be played, left to right (none once the game is over)."""
        if self._winner is not None:
            return []
        return [c for c in range(COLS) if self._heights[c] < ROWS]

    def is_legal(self, col: int) -> bool:
        return col in self.legal_moves

    def is_game_over(self) -> bool:
        return self._winner is not None or sum(self._heights) == CELLS

    def winner(self) -> int | None:
        """1 (red) or 2 (yellow) once one has four in a row; ``None`` otherwise."""
        return self._winner

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"`` (game not over)."""
        if self._winner is not None:
            return "1-0" if self._winner == 1 else "0-1"
        return "1/2-1/2" if self.is_game_over() else "*"

    def scores(self) -> tuple[int, int]:
        """Red's and yellow's points at the end: the winner's is ``WIN`` (100) plus the
        cells left empty, the loser's 0; a draw (or a game not over) is 0 : 0."""
        if self._winner is None:
            return (0, 0)
        points = WIN + self.empties()
        return (points, 0) if self._winner == 1 else (0, points)

    def cells(self) -> list[str]:
        """The 42 cells row by row from the top: ``"x"`` (red), ``"o"`` (yellow) or
        ``"."``."""
        red, yellow = self._discs
        out = []
        for r in range(ROWS - 1, -1, -1):
            for c in range(COLS):
                b = bit(c, r)
                out.append(RED if red & b else YELLOW if yellow & b else EMPTY)
        return out

    def landing_row(self, col: int) -> int | None:
        """The row (0 = the bottom) a disc dropped in ``col`` lands on; ``None`` if the
        column is full."""
        h = self._heights[col]
        return h if h < ROWS else None

    # ---- moves

    def move_name(self, col: int) -> str:
        try:
            c = operator.index(col)
        except TypeError:
            raise InvalidMoveError(f"move {col!r} is not a column: expected 0 to 6") from None
        if not 0 <= c < COLS:
            raise InvalidMoveError(f"column {c} is off the board: expected 0 to 6")
        return column_name(c)

    def parse_move(self, text: str) -> int:
        """The column a move's name gives, checked for legality."""
        col = parse_column(text)
        self._check_legal(col)
        return col

    def _check_legal(self, col: int) -> None:
        if self._winner is not None:
            raise IllegalMoveError(f"the game is over: {SIDE_NAMES[self._winner][0]} has won")
        if self._heights[col] >= ROWS:
            if self.is_game_over():
                raise IllegalMoveError("the game is over: the board is full (a draw)")
            legal = ", ".join(column_name(c) for c in self.legal_moves)
            raise IllegalMoveError(f"column {column_name(col)} is full: play one of {legal}")

    def push(self, move: int) -> None:
        """Drop a disc of the side to move in column ``move`` (0-6)."""
        try:
            col = operator.index(move)
        except TypeError:
            raise InvalidMoveError(f"move {move!r} is not a column: expected 0 to 6") from None
        if not 0 <= col < COLS:
            raise InvalidMoveError(f"column {col} is off the board: expected 0 to 6")
        self._check_legal(col)
        side = self.turn - 1
        self._discs[side] |= bit(col, self._heights[col])
        self._heights[col] += 1
        if has_four(self._discs[side]):
            self._winner = self.turn
        self._pushed(col, col)

    def pop(self) -> int:
        """Take back the last move and return its column."""
        col = self._popped()
        self._heights[col] -= 1
        self._discs[self.turn - 1] &= ~bit(col, self._heights[col])
        self._winner = None  # a move was made, so the game had not ended before it
        return col

    # ---- notation

    def fen(self) -> str:
        """The FEN of this position (see :mod:`.formats`)."""
        return write_fen(self.cells(), self.turn)

    def moves(self) -> str:
        """The move sequence from the empty board to this position (``"4453"``): the
        opening of its start, if any, then the moves on the stack. Raises
        :class:`InvalidPositionError` for a game from a FEN or a diagram (no moves known
        lead to its start)."""
        if self._opening is None:
            raise InvalidPositionError(
                "this game started from a position given as a FEN or a diagram: no move "
                "sequence is known to lead to it (write its FEN instead)"
            )
        return write_moves(self._opening + tuple(self.move_stack))

    def status(self) -> str:
        """One line: who is to move, or how the game ended."""
        if self._winner is not None:
            name, letter = SIDE_NAMES[self._winner]
            return f"{name} ({letter}) wins"
        if self.is_game_over():
            return "draw: the board is full"
        name, letter = SIDE_NAMES[self.turn]
        return f"{name} ({letter}) to move"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the start position (FEN; with ``opening``, the moves from
        the empty board that lead to it, when there are some and they are known) plus the
        moves, and the current state."""
        d: dict[str, Any] = {"game": "connect-four", "start": self.start_board().fen()}
        if self._opening:
            d["opening"] = write_moves(self._opening)
        d.update(
            moves=[column_name(c) for c in self.move_stack],
            fen=self.fen(),
            turn=self.turn,
            result=self.result(),
        )
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Board:
        """Rebuild a board from :meth:`to_dict` output (the start, default the empty
        board, and its moves replayed)."""
        rec = read_record(d, "connect-four", "a Connect Four record", InvalidPositionError)
        start, opening = rec.get("start"), rec.get("opening")
        if start is not None and not isinstance(start, str):
            raise InvalidPositionError("'start' must be a FEN string")
        if opening is not None and not isinstance(opening, str):
            raise InvalidPositionError("'opening' must be a move sequence such as '4453'")
        if opening is not None:
            b = cls.from_moves(opening).fresh()
            if start is not None and cls.from_fen(start) != b:
                raise InvalidPositionError("'opening' does not lead to the 'start' position")
        elif start is not None:
            b = cls.from_fen(start)
        else:
            b = cls()
        replay_names(b, rec.get("moves", []), InvalidPositionError, ConnectFourError)
        return b

    def __iter__(self) -> Iterator[str]:
        return iter(self.cells())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._discs == other._discs

    def __repr__(self) -> str:
        return f"Board.from_fen({self.fen()!r})"

    def __str__(self) -> str:
        return write_diagram(self.cells(), self.status())
