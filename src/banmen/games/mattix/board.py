"""The Mattix board: rules, notation and JSON in pure Python (no numpy, no numba).

Pieces with point values lie on an N×N board together with one cross chip. Player 1 always
takes a piece from the chip's **row**, player 2 always from its **column**; the taken piece's
value is added to the taker's score and the chip moves to the taken square. The game ends
when the player to move has no piece in their line (there is no pass); the higher score
wins, equal scores draw.

Sets (Gakken): 4×4 uses 15 pieces 1,1,2,2,…,7,7,8; 6×6 uses 35 pieces — 1, 2, 3 three times
each, 4–9 twice, 10 once, −1, −2, −3 twice and −4…−10 once. The chip's square starts empty.
Any N×N board from 2×2 to 8×8 can be given as a layout string (see :mod:`.formats`)::

    >>> board = Board.from_layout("3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6")
    >>> [board.move_name(sq) for sq in board.legal_moves]
    ['a1', 'c1', 'd1']
    >>> board.push_name("c1")
    >>> board.scores, board.turn
    ((7, 0), 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from banmen._random import SplitMix64
from banmen.games._base import StackBoard, read_record, replay_names
from banmen.games.mattix.errors import (
    IllegalMoveError,
    InvalidLayoutError,
    InvalidMoveError,
    MattixError,
)
from banmen.games.mattix.formats import (
    CHIP,
    MAX_SIZE,
    MIN_SIZE,
    parse_layout,
    parse_square,
    square_name,
    write_layout,
)

if TYPE_CHECKING:  # the search's context, kept on the board by kernels.kernel_position
    import numpy as np
    import numpy.typing as npt

__all__ = ["Board", "PIECES", "SIZES", "deal"]

#: Gakken's piece sets by board size (the cross chip is extra).
PIECES: dict[int, tuple[int, ...]] = {
    4: (1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8),
    6: tuple(
        sorted(
            [v for v in (1, 2, 3) for _ in range(3)]
            + [v for v in range(4, 10) for _ in range(2)]
            + [10]
            + [v for v in (-1, -2, -3) for _ in range(2)]
            + list(range(-10, -3))
        )
    ),
}
SIZES = tuple(sorted(PIECES))
_MAX_ABS_VALUE = 999


def deal(size: int, seed: int) -> list[int | str]:
    """Cells of a seeded deal, row-major: piece values and one ``"X"``.

    The set (sorted ascending, chip last) is shuffled by Fisher–Yates driven by
    ``SplitMix64(seed)``: for ``i`` from the last index down to 1, swap cell ``i`` with cell
    ``below(i + 1)``.
    """
    if size not in PIECES:
        sizes = ", ".join(map(str, SIZES))
        raise InvalidLayoutError(
            f"no piece set for a {size}x{size} board: seeded deals exist for sizes {sizes} "
            "(give any other board as a layout string)"
        )
    if not isinstance(seed, int) or seed < 0 or seed >= 1 << 64:
        raise InvalidLayoutError(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    cells: list[int | str] = [*PIECES[size], CHIP]
    rng = SplitMix64(seed)
    for i in range(len(cells) - 1, 0, -1):
        j = rng.below(i + 1)
        cells[i], cells[j] = cells[j], cells[i]
    return cells


@dataclass(frozen=True)
class _Undo:
    square: int
    value: int
    chip: int


class Board(StackBoard[_Undo]):
    """A Mattix position with its move history (``push`` / ``pop``, as in python-chess).

    ``cells[sq]`` is the piece value on ``sq`` or ``None`` (empty, or the chip's square);
    ``chip`` is the chip's square; ``turn`` is 1 (takes from the chip's row) or 2 (takes from
    its column); ``scores`` is ``(player 1, player 2)``.
    """

    _record_error = InvalidLayoutError

    def __init__(
        self,
        size: int,
        cells: Sequence[int | None],
        chip: int,
        turn: int = 1,
        scores: tuple[int, int] = (0, 0),
    ) -> None:
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise InvalidLayoutError(
                f"board size {size} is not supported: expected {MIN_SIZE} to {MAX_SIZE}"
            )
        if len(cells) != size * size:
            raise InvalidLayoutError(f"expected {size * size} cells, got {len(cells)}")
        if not 0 <= chip < size * size:
            raise InvalidLayoutError(f"chip square {chip} is off the {size}x{size} board")
        if cells[chip] is not None:
            raise InvalidLayoutError("the chip's square must be empty")
        if turn not in (1, 2):
            raise InvalidLayoutError(f"side to move must be 1 or 2, got {turn!r}")
        for v in cells:
            if v is not None and abs(v) > _MAX_ABS_VALUE:
                raise InvalidLayoutError(
                    f"piece value {v} is out of range: expected -{_MAX_ABS_VALUE}..{_MAX_ABS_VALUE}"
                )
        self.size = size
        self.cells: list[int | None] = list(cells)
        self.chip = chip
        self.turn = turn
        self._scores = [int(scores[0]), int(scores[1])]
        self.move_stack: list[int] = []
        self._undo: list[_Undo] = []
        self._start = (list(self.cells), chip, turn, (self._scores[0], self._scores[1]))
        #: the search's context of this game (see kernels.kernel_position)
        self._kernel_ctx: npt.NDArray[np.int64] | None = None

    # ---- construction

    @classmethod
    def from_seed(cls, seed: int, size: int = 6) -> Board:
        """The seeded deal for ``size`` (see :func:`deal`), player 1 to move."""
        cells = deal(size, seed)
        chip = cells.index(CHIP)
        return cls(size, [None if c == CHIP else int(c) for c in cells], chip)

    @classmethod
    def from_layout(cls, text: str) -> Board:
        """Parse a layout string (:func:`~banmen.games.mattix.formats.parse_layout`):
        rows top to bottom separated by ``/``, cells by ``,``; each cell an integer piece
        value, ``X`` (the chip) or ``.`` (empty); optionally a space and the side to move,
        ``1`` or ``2``."""
        return cls(*parse_layout(text))

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.size = self.size
        b.cells = list(self.cells)
        b.chip = self.chip
        b.turn = self.turn
        b._scores = list(self._scores)
        b.move_stack = list(self.move_stack)
        b._undo = list(self._undo)
        b._start = self._start
        b._kernel_ctx = self._kernel_ctx
        return b

    # ---- state

    @property
    def scores(self) -> tuple[int, int]:
        return (self._scores[0], self._scores[1])

    def line(self, turn: int | None = None) -> list[int]:
        """Squares of the line the side ``turn`` takes from (row for 1, column for 2)."""
        t = self.turn if turn is None else turn
        n = self.size
        if t == 1:
            r = self.chip // n
            return [r * n + c for c in range(n)]
        c = self.chip % n
        return [r * n + c for r in range(n)]

    @property
    def legal_moves(self) -> list[int]:
        """Squares the side to move may take, in square order."""
        return [sq for sq in self.line() if self.cells[sq] is not None]

    def moves_ahead(self) -> int:
        """The side to move's moves still to come, at most (a game clock shares its time
        among them): half the pieces left on the board."""
        return max(1, sum(1 for c in self.cells if c is not None) // 2)

    def is_legal(self, sq: int) -> bool:
        return 0 <= sq < self.size * self.size and sq in self.legal_moves

    def is_game_over(self) -> bool:
        return not self.legal_moves

    def pieces_left(self) -> int:
        return sum(v is not None for v in self.cells)

    def winner(self) -> int | None:
        """1 or 2 once the game is over with a winner; ``None`` while playing or on a draw."""
        if not self.is_game_over() or self._scores[0] == self._scores[1]:
            return None
        return 1 if self._scores[0] > self._scores[1] else 2

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"`` (game not over)."""
        if not self.is_game_over():
            return "*"
        w = self.winner()
        return "1/2-1/2" if w is None else ("1-0" if w == 1 else "0-1")

    def margin(self, turn: int | None = None) -> int:
        """Score of ``turn`` (default: side to move) minus the opponent's."""
        t = self.turn if turn is None else turn
        d = self._scores[0] - self._scores[1]
        return d if t == 1 else -d

    # ---- moves

    def move_name(self, sq: int) -> str:
        return square_name(sq, self.size)

    def parse_move(self, text: str) -> int:
        """Square of a move name, checked for legality (raises a :class:`MattixError`)."""
        sq = parse_square(text, self.size)
        self._check_legal(sq)
        return sq

    def _check_legal(self, sq: int) -> None:
        n = self.size
        if not isinstance(sq, int) or not 0 <= sq < n * n:
            raise InvalidMoveError(f"square {sq!r} is off the {n}x{n} board")
        if self.is_game_over():
            raise IllegalMoveError("the game is over")
        name = square_name(sq, n)
        if sq not in self.line():
            which = "row" if self.turn == 1 else "column"
            raise IllegalMoveError(
                f"{name} is not in the chip's {which}: player {self.turn} takes from "
                f"{', '.join(square_name(s, n) for s in self.legal_moves)}"
            )
        if self.cells[sq] is None:
            what = "is the chip's own square" if sq == self.chip else "has no piece to take"
            raise IllegalMoveError(
                f"{name} {what}: player {self.turn} takes from "
                f"{', '.join(square_name(s, n) for s in self.legal_moves)}"
            )

    def push(self, sq: int) -> None:
        """Take the piece on ``sq`` (raises :class:`IllegalMoveError` if not allowed)."""
        self._check_legal(sq)
        value = self.cells[sq]
        assert value is not None
        self._scores[self.turn - 1] += value
        self._pushed(sq, _Undo(sq, value, self.chip))
        self.cells[sq] = None
        self.chip = sq

    def pop(self) -> int:
        """Undo the last move and return its square."""
        u = self._popped()
        self._scores[self.turn - 1] -= u.value
        self.cells[u.square] = u.value
        self.chip = u.chip
        return u.square

    # ---- notation

    def layout(self) -> str:
        """The layout string of this position (side appended when it is 2)."""
        return write_layout(self.size, self.cells, self.chip, self.turn)

    def start_board(self) -> Board:
        """The position this board's move stack starts from."""
        cells, chip, turn, scores = self._start
        return Board(self.size, cells, chip, turn, scores)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the start position plus the moves, and the current state."""
        start = self.start_board()
        return {
            "game": "mattix",
            "size": self.size,
            "start": start.layout(),
            "start_scores": list(start.scores),
            "moves": [square_name(sq, self.size) for sq in self.move_stack],
            "layout": self.layout(),
            "turn": self.turn,
            "scores": list(self.scores),
            "result": self.result(),
        }

    @classmethod
    def from_dict(cls, d: Any) -> Board:
        """Rebuild a board from :meth:`to_dict` output by replaying its moves."""
        rec = read_record(d, "mattix", "a Mattix record", InvalidLayoutError)
        start = rec.get("start")
        if not isinstance(start, str):
            raise InvalidLayoutError("record needs 'start': the layout string it starts from")
        b = cls.from_layout(start)
        scores = rec.get("start_scores", [0, 0])
        if (
            not isinstance(scores, list)
            or len(scores) != 2
            or not all(isinstance(s, int) for s in scores)
        ):
            raise InvalidLayoutError("'start_scores' must be a list of two integers")
        b = cls(b.size, b.cells, b.chip, b.turn, (scores[0], scores[1]))
        replay_names(b, rec.get("moves", []), InvalidLayoutError, MattixError)
        return b

    def __iter__(self) -> Iterator[int | None]:
        return iter(self.cells)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.size == other.size
            and self.cells == other.cells
            and self.chip == other.chip
            and self.turn == other.turn
            and self.scores == other.scores
        )

    def __repr__(self) -> str:
        return f"Board.from_layout({self.layout()!r})"

    def __str__(self) -> str:
        n = self.size
        width = max(3, max((len(str(v)) for v in self.cells if v is not None), default=1) + 1)
        head = "   " + "".join(chr(ord("a") + c).rjust(width) for c in range(n))
        lines = [head]
        for r in range(n):
            row = []
            for c in range(n):
                sq = r * n + c
                v = self.cells[sq]
                row.append((CHIP if sq == self.chip else "." if v is None else str(v)).rjust(width))
            lines.append(f"{r + 1:>3}" + "".join(row))
        p1, p2 = self.scores
        if self.is_game_over():
            status = f"game over: {self.result()}"
        else:
            status = f"player {self.turn} ({'row' if self.turn == 1 else 'column'}) to move"
        lines.append(f"scores {p1} : {p2}, {status}")
        return "\n".join(lines)
