"""Three toy games for the generic board page's tests (banmen.web.grid), defined here and
nowhere else: they stand in for a game package (Connect Four) that brings no web page of
its own, only a ``GameDef`` with a ``GridView``.

* :data:`GAME`, tic-tac-toe: a square 3×3 grid, one click one move (``a1`` … ``c3``,
  columns a-c from the left, rows 1-3 from the top), random CPU moves, an exact analysis,
  a record format (``.ttt``) and a position to paste. Its board has neither ``copy`` nor
  ``start_board``: the page gets by with ``to_dict`` and ``pop``.
* :data:`HOPPER`: a hex grid of 3 rows × 4 cells, played from cell to cell: each side
  moves its one piece to a neighbouring empty cell; the game ends after 6 plies, and
  each side scores a point for each move that ended in the middle row. Its start depends
  on the seed (where the two pieces stand). Its view gives no ``origin_of``: the page
  takes any two cells and the server judges them.
* :data:`MINI_ATAXX`: Ataxx on a square 5×5 grid, played from cell to cell with every
  optional part of a ``GridView``: ``origin_of`` (the page shows a picked piece's
  targets), ``side_pieces`` (the sides' colours from the start) and ``coordinates``
  (files a-e over the board, ranks 5-1 beside it, as its move names ``a5b4`` say).

The board classes keep python-chess's contract (``push`` / ``pop`` / ``move_stack`` /
``legal_moves`` / ``turn``) and raise :class:`ToyError` (one line) for a bad name.
:func:`install` makes them an installed game package: an entry point (a ``dist-info``
folder on ``sys.path``), which the app's engine workers — processes of their own — find
as they would a real package's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from banmen.analysis import Analysis, MoveValue
from banmen.games import GameDef, GridView
from banmen.games.engines import STANDARD_ENGINES

HERE = Path(__file__).parent


class ToyError(ValueError):
    """A bad move or record of a toy game."""


LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
_NAME = re.compile(r"([abc])([123])")


def square_name(sq: int) -> str:
    return "abc"[sq % 3] + str(sq // 3 + 1)


class Board:
    """Tic-tac-toe: cells 0-8 row by row from the top; 1 is X (moves first), 2 is O."""

    def __init__(self) -> None:
        self.cells = [0] * 9
        self.turn = 1
        self.move_stack: list[int] = []

    def winner(self) -> int | None:
        for a, b, c in LINES:
            if self.cells[a] and self.cells[a] == self.cells[b] == self.cells[c]:
                return self.cells[a]
        return None

    def is_game_over(self) -> bool:
        return self.winner() is not None or all(self.cells)

    def result(self) -> str:
        w = self.winner()
        if w is not None:
            return "1-0" if w == 1 else "0-1"
        return "1/2-1/2" if all(self.cells) else "*"

    @property
    def legal_moves(self) -> list[int]:
        return [] if self.is_game_over() else [i for i in range(9) if not self.cells[i]]

    def push(self, move: int) -> None:
        self.cells[move] = self.turn
        self.move_stack.append(move)
        self.turn = 3 - self.turn

    def pop(self) -> int:
        move = self.move_stack.pop()
        self.cells[move] = 0
        self.turn = 3 - self.turn
        return move

    def move_name(self, move: int) -> str:
        return square_name(move)

    def parse_move(self, text: str) -> int:
        m = _NAME.fullmatch(text.strip().lower()) if isinstance(text, str) else None
        if m is None:
            raise ToyError(f"bad square {text!r}: expected a1 to c3")
        sq = "abc".index(m.group(1)) + 3 * (int(m.group(2)) - 1)
        if self.is_game_over():
            raise ToyError("the game is over")
        if self.cells[sq]:
            raise ToyError(f"{square_name(sq)} is taken")
        return sq

    def push_name(self, text: str) -> None:
        self.push(self.parse_move(text))

    def to_dict(self) -> dict[str, Any]:
        return {"game": "tictactoe", "moves": [square_name(m) for m in self.move_stack]}

    @classmethod
    def from_dict(cls, d: Any) -> Board:
        if not isinstance(d, dict) or not isinstance(d.get("moves"), list):
            raise ToyError("a tic-tac-toe record is an object with a list of 'moves'")
        b = cls()
        for name in d["moves"]:
            b.push_name(str(name))
        return b

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Nine squares ``x``, ``o`` or ``.`` row by row; the side to move follows."""
        s = "".join(text.split()).lower()
        if len(s) != 9 or set(s) - set("xo."):
            raise ToyError(f"not a position: expected nine squares x, o or ., got {text[:20]!r}")
        xs = [i for i, c in enumerate(s) if c == "x"]
        os = [i for i, c in enumerate(s) if c == "o"]
        if len(xs) - len(os) not in (0, 1):
            raise ToyError("not a position: X moves first, so X has as many as O or one more")
        b = cls()
        for k in range(len(xs) + len(os)):  # X and O in turn: the moves that lead there
            b.push(xs[k // 2] if k % 2 == 0 else os[k // 2])
        return b


def _value(b: Board, memo: dict[tuple[int, ...], int]) -> int:
    """The exact value for the side to move: +1 a win, 0 a draw, -1 a loss."""
    key = (*b.cells, b.turn)
    if key not in memo:
        if b.winner() is not None:
            memo[key] = -1  # the side that just moved has won
        elif all(b.cells):
            memo[key] = 0
        else:
            best = -2
            for m in b.legal_moves:
                b.push(m)
                best = max(best, -_value(b, memo))
                b.pop()
            memo[key] = best
    return memo[key]


def analyse(board: Board, limit: Any, on_update: Any = None, stop: Any = None) -> Analysis:
    """Every legal move's exact value (whole-game search: instant on 3×3)."""
    memo: dict[tuple[int, ...], int] = {}
    b = Board.from_dict(board.to_dict())
    rows = []
    for m in b.legal_moves:
        b.push(m)
        rows.append(
            MoveValue(square_name(m), float(-_value(b, memo)), "exact", 9, pv=[square_name(m)])
        )
        b.pop()
    rows.sort(key=lambda r: -(r.value or 0))
    out = Analysis("tictactoe", rows, stopped_by="exact", nodes=len(memo))
    if on_update is not None:
        on_update(out)
    return out


def write_record(board: Board, first: str, second: str) -> str:
    moves = " ".join(square_name(m) for m in board.move_stack)
    return f"X {first}\nO {second}\n{moves}\n{board.result()}\n"


def _cell_of(board: Board, name: str) -> int | None:
    m = _NAME.fullmatch(name)
    return None if m is None else "abc".index(m.group(1)) + 3 * (int(m.group(2)) - 1)


GAME: GameDef[Board] = GameDef(
    name="tictactoe",
    title="Tic-tac-toe",
    board_from_dict=Board.from_dict,
    engines={"random": STANDARD_ENGINES["random"]},
    new_board=lambda seed, size: Board(),
    max_plies=9,
    default_engine="random",
    sides=("X", "O"),
    write_record=write_record,
    record_suffix=".ttt",
    board_from_text=Board.from_text,
    position_hint="nine squares x, o or . row by row from a1",
    analyse=analyse,
    summary="Three in a row on a 3×3 board: a toy game for the tests of the generic page.",
    grid=GridView(
        rows=lambda b: 3,
        cols=lambda b: 3,
        cells=lambda b: [("", "x", "o")[c] for c in b.cells],
        pieces={"x": ("#1d4ed8", "X"), "o": ("#dc2626", "O")},
        move_at=lambda b, cell: None if b.cells[cell] else square_name(cell),
        cell_of=_cell_of,
    ),
)


# --------------------------------------------------------------------------- hopper

ROWS, COLS = 3, 4
HOPPER_PLIES = 6


def _neighbours(cell: int) -> list[int]:
    """The cells next to ``cell`` on an odd-r hex grid (odd rows shifted right)."""
    r, c = divmod(cell, COLS)
    if r % 2 == 0:
        steps = [(0, -1), (0, 1), (-1, -1), (-1, 0), (1, -1), (1, 0)]
    else:
        steps = [(0, -1), (0, 1), (-1, 0), (-1, 1), (1, 0), (1, 1)]
    out = []
    for dr, dc in steps:
        rr, cc = r + dr, c + dc
        if 0 <= rr < ROWS and 0 <= cc < COLS:
            out.append(rr * COLS + cc)
    return out


class HopperBoard:
    """Hopper: each side has one piece (``pieces[side - 1]``, a cell); a move, named
    ``"<from>-<to>"`` in cell numbers, takes the mover's piece to a neighbouring empty
    cell."""

    def __init__(self, pieces: tuple[int, int] = (0, ROWS * COLS - 1)) -> None:
        self.start = pieces
        self.pieces = list(pieces)
        self.turn = 1
        self.move_stack: list[int] = []

    @property
    def legal_moves(self) -> list[int]:
        if self.is_game_over():
            return []
        here = self.pieces[self.turn - 1]
        return [here * 100 + n for n in _neighbours(here) if n not in self.pieces]

    def is_game_over(self) -> bool:
        return len(self.move_stack) >= HOPPER_PLIES

    def scores(self) -> tuple[int, int]:
        out = [0, 0]
        for k, m in enumerate(self.move_stack):
            if (m % 100) // COLS == 1:
                out[k % 2] += 1
        return out[0], out[1]

    def winner(self) -> int | None:
        if not self.is_game_over():
            return None
        a, b = self.scores()
        return None if a == b else (1 if a > b else 2)

    def result(self) -> str:
        w = self.winner()
        if not self.is_game_over():
            return "*"
        return "1/2-1/2" if w is None else ("1-0" if w == 1 else "0-1")

    def push(self, move: int) -> None:
        self.pieces[self.turn - 1] = move % 100
        self.move_stack.append(move)
        self.turn = 3 - self.turn

    def pop(self) -> int:
        move = self.move_stack.pop()
        self.turn = 3 - self.turn
        self.pieces[self.turn - 1] = move // 100
        return move

    def move_name(self, move: int) -> str:
        return f"{move // 100}-{move % 100}"

    def parse_move(self, text: str) -> int:
        a, dash, b = text.partition("-")
        if not (dash and a.isdigit() and b.isdigit()):
            raise ToyError(f"bad move {text!r}: expected FROM-TO, like 0-1")
        return int(a) * 100 + int(b)

    def push_name(self, text: str) -> None:
        self.push(self.parse_move(text))

    def to_dict(self) -> dict[str, Any]:
        return {"start": list(self.start), "moves": [self.move_name(m) for m in self.move_stack]}

    @classmethod
    def from_dict(cls, d: Any) -> HopperBoard:
        try:
            b = cls((int(d["start"][0]), int(d["start"][1])))
        except (TypeError, KeyError, IndexError, ValueError):
            raise ToyError("a hopper record has a 'start' (two cells) and 'moves'") from None
        for name in d.get("moves", []):
            move = b.parse_move(name)
            if move not in b.legal_moves:
                raise ToyError(f"illegal move {name!r}")
            b.push(move)
        return b

    def copy(self) -> HopperBoard:
        return HopperBoard.from_dict(json.loads(json.dumps(self.to_dict())))


def _hopper_between(board: HopperBoard, a: int, b: int) -> str | None:
    move = a * 100 + b
    return board.move_name(move) if move in board.legal_moves else None


HOPPER: GameDef[HopperBoard] = GameDef(
    name="hopper",
    title="Hopper",
    board_from_dict=HopperBoard.from_dict,
    engines={"random": STANDARD_ENGINES["random"]},
    new_board=lambda seed, size: HopperBoard((seed % COLS, ROWS * COLS - 1 - seed % COLS)),
    scores=lambda b: b.scores(),
    max_plies=HOPPER_PLIES,
    default_engine="random",
    summary="Hop your piece over a hex grid: a toy game played from cell to cell.",
    grid=GridView(
        rows=lambda b: ROWS,
        cols=lambda b: COLS,
        cells=lambda b: [
            "a" if c == b.pieces[0] else "b" if c == b.pieces[1] else "" for c in range(ROWS * COLS)
        ],
        pieces={"a": ("#0f766e", "A"), "b": ("", "B")},
        move_at=lambda b, cell: None,
        cell_of=lambda b, name: int(name.partition("-")[2]) if "-" in name else None,
        shape="hex",
        click="from-to",
        move_between=_hopper_between,
    ),
)


# --------------------------------------------------------------------------- mini Ataxx

AX = 5  # the board's side
AX_PLIES = 40
AX_FILES = "abcde"
_AX_NAME = re.compile(r"([a-e])([1-5])([a-e])([1-5])")


def ax_cell(name: str) -> int:
    """Cell number (row by row from the top) of a square's name: ``a5`` is 0, ``e1`` 24
    (rank 1 is the bottom row, as in chess and Ataxx)."""
    return (AX - int(name[1])) * AX + AX_FILES.index(name[0])


def ax_square(cell: int) -> str:
    return AX_FILES[cell % AX] + str(AX - cell // AX)


def _ax_distance(a: int, b: int) -> int:
    return max(abs(a // AX - b // AX), abs(a % AX - b % AX))


class AtaxxBoard:
    """Mini Ataxx on 5×5: a move takes one of the mover's pieces to an empty cell one
    step away (a clone: the piece stays) or two steps away (a jump: it leaves), and turns
    every enemy piece next to where it lands. Side 1 plays ``x``, side 2 ``o``; a move is
    named from-to in squares (``a5b4``: files a-e, ranks 1-5 from the bottom). The game
    ends when the side to move has no move or after :data:`AX_PLIES` plies; the side with
    more pieces wins."""

    def __init__(self, cells: str = "x...o" + "." * 15 + "o...x", turn: int = 1) -> None:
        self.start = (cells, turn)
        self.cells = ["" if c == "." else c for c in cells]
        self.turn = turn
        self.move_stack: list[int] = []
        self._undo: list[list[str]] = []

    def _mine(self, side: int) -> str:
        return "xo"[side - 1]

    @property
    def legal_moves(self) -> list[int]:
        if len(self.move_stack) >= AX_PLIES:
            return []
        me = self._mine(self.turn)
        return [
            a * 100 + b
            for a in range(AX * AX)
            if self.cells[a] == me
            for b in range(AX * AX)
            if not self.cells[b] and 1 <= _ax_distance(a, b) <= 2
        ]

    def is_game_over(self) -> bool:
        return not self.legal_moves

    def scores(self) -> tuple[int, int]:
        return self.cells.count("x"), self.cells.count("o")

    def winner(self) -> int | None:
        if not self.is_game_over():
            return None
        x, o = self.scores()
        return None if x == o else (1 if x > o else 2)

    def result(self) -> str:
        if not self.is_game_over():
            return "*"
        w = self.winner()
        return "1/2-1/2" if w is None else ("1-0" if w == 1 else "0-1")

    def push(self, move: int) -> None:
        a, b = divmod(move, 100)
        self._undo.append(list(self.cells))
        me, them = self._mine(self.turn), self._mine(3 - self.turn)
        if _ax_distance(a, b) == 2:
            self.cells[a] = ""
        self.cells[b] = me
        for c in range(AX * AX):
            if self.cells[c] == them and _ax_distance(b, c) == 1:
                self.cells[c] = me
        self.move_stack.append(move)
        self.turn = 3 - self.turn

    def pop(self) -> int:
        move = self.move_stack.pop()
        self.cells = self._undo.pop()
        self.turn = 3 - self.turn
        return move

    def move_name(self, move: int) -> str:
        return ax_square(move // 100) + ax_square(move % 100)

    def parse_move(self, text: str) -> int:
        m = _AX_NAME.fullmatch(text.strip().lower()) if isinstance(text, str) else None
        if m is None:
            raise ToyError(f"bad move {text!r}: expected FROM and TO squares, like a5b4")
        return ax_cell(m.group(1) + m.group(2)) * 100 + ax_cell(m.group(3) + m.group(4))

    def push_name(self, text: str) -> None:
        self.push(self.parse_move(text))

    def to_dict(self) -> dict[str, Any]:
        cells, turn = self.start
        return {"start": cells, "turn": turn, "moves": [self.move_name(m) for m in self.move_stack]}

    @classmethod
    def from_dict(cls, d: Any) -> AtaxxBoard:
        try:
            b = cls(str(d["start"]), int(d["turn"]))
        except (TypeError, KeyError, ValueError):
            raise ToyError("a mini Ataxx record has a 'start', a 'turn' and 'moves'") from None
        for name in d.get("moves", []):
            move = b.parse_move(name)
            if move not in b.legal_moves:
                raise ToyError(f"illegal move {name!r}")
            b.push(move)
        return b

    @classmethod
    def from_text(cls, text: str) -> AtaxxBoard:
        """25 cells ``x``, ``o`` or ``.`` row by row from the top (rank 5), then the side
        to move, ``x`` or ``o``."""
        s = "".join(text.split()).lower()
        if len(s) != AX * AX + 1 or set(s[:-1]) - set("xo.") or s[-1] not in "xo":
            raise ToyError(
                f"not a position: expected 25 cells x, o or . and the side to move, "
                f"got {text[:30]!r}"
            )
        return cls(s[:-1], 1 if s[-1] == "x" else 2)

    def copy(self) -> AtaxxBoard:
        return AtaxxBoard.from_dict(self.to_dict())


def _ax_between(board: AtaxxBoard, a: int, b: int) -> str | None:
    move = a * 100 + b
    return board.move_name(move) if move in board.legal_moves else None


def _ax_end(name: str, part: slice) -> int | None:
    m = _AX_NAME.fullmatch(name)
    return None if m is None else ax_cell(name[part])


MINI_ATAXX: GameDef[AtaxxBoard] = GameDef(
    name="mini-ataxx",
    title="Mini Ataxx",
    board_from_dict=AtaxxBoard.from_dict,
    engines={"random": STANDARD_ENGINES["random"]},
    new_board=lambda seed, size: AtaxxBoard(),
    scores=lambda b: b.scores(),
    max_plies=AX_PLIES,
    default_engine="random",
    sides=("purple", "green"),
    board_from_text=AtaxxBoard.from_text,
    position_hint="25 cells x, o or . from a5, then x or o to move",
    summary="Ataxx on 5×5: a toy game played from cell to cell, with coordinates.",
    grid=GridView(
        rows=lambda b: AX,
        cols=lambda b: AX,
        cells=lambda b: list(b.cells),
        pieces={"x": ("#7c3aed", ""), "o": ("#059669", "")},
        move_at=lambda b, cell: None,
        cell_of=lambda b, name: _ax_end(name, slice(2, 4)),
        click="from-to",
        move_between=_ax_between,
        origin_of=lambda b, name: _ax_end(name, slice(0, 2)),
        side_pieces=("x", "o"),
        coordinates=lambda b: (list(AX_FILES), [str(AX - r) for r in range(AX)]),
    ),
)


# --------------------------------------------------------------------------- install


def write_package(where: Path) -> Path:
    """A ``dist-info`` folder in ``where`` that makes this module's games an installed
    game package (entry points ``tictactoe``, ``hopper`` and ``mini-ataxx`` of the group
    ``banmen.games``); returns ``where``, the folder to put on ``sys.path`` (with this
    module's own folder)."""
    info = where / "banmen_toy_grid-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: banmen-toy-grid\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[banmen.games]\ntictactoe = toy_grid:GAME\nhopper = toy_grid:HOPPER\n"
        "mini-ataxx = toy_grid:MINI_ATAXX\n"
    )
    return where


@contextmanager
def installed(where: Path) -> Iterator[None]:
    """The toy games as games of this process (:func:`banmen.games.registry.register`) and of the
    processes it spawns (its engine workers), which find them by entry point: a game
    ``register()``-ed here is not known in another process. Undone on the way out."""
    import sys

    from banmen.games import registry

    # this process read the entry points before: it knows the toys by register()
    registry.game_names()
    path = str(write_package(where))
    sys.path.insert(0, path)
    if str(HERE) not in sys.path:
        sys.path.append(str(HERE))
    registry.register(GAME)
    registry.register(HOPPER)
    registry.register(MINI_ATAXX)
    try:
        yield
    finally:
        registry.unregister(GAME.name)
        registry.unregister(HOPPER.name)
        registry.unregister(MINI_ATAXX.name)
        sys.path.remove(path)
