"""A game that does not know how long it lasts, as a package would write it (issue 37):
``subtract`` — a heap of stones, each move takes 1, 2 or 3 (never more than there are),
and whoever takes the last stone wins. Every game ends, but the rules contract says no
bound (``horizon`` is ``-1``), so the searches must find out what is exact by themselves:
the side to move loses exactly when the heap is a multiple of 4.

Moves are the number taken, named ``"1"``, ``"2"``, ``"3"``. :func:`write_package` makes
it an installed package (a ``dist-info`` with an entry point in ``banmen.games``) for
processes of their own (the arena's workers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from banmen._jit import kernel
from banmen.games import GameDef
from banmen.games._base import StackBoard
from banmen.games.engines import STANDARD_ENGINES
from banmen.search.alphabeta import Kernels

HERE = Path(__file__).parent


class SubtractError(ValueError):
    """A bad move or record."""


class Board(StackBoard[int]):
    """A heap of ``stones``; side 1 moves first."""

    _record_error = SubtractError

    def __init__(self, stones: int = 21) -> None:
        if not isinstance(stones, int) or stones < 0:
            raise SubtractError(f"a heap is a number of stones, got {stones!r}")
        self.start = stones
        self.stones = stones
        self.turn = 1
        self.move_stack: list[int] = []
        self._undo: list[int] = []

    @property
    def legal_moves(self) -> list[int]:
        return [m for m in (1, 2, 3) if m <= self.stones]

    def push(self, move: int) -> None:
        if move not in self.legal_moves:
            raise SubtractError(f"cannot take {move} of {self.stones}")
        self.stones -= move
        self._pushed(move, move)

    def pop(self) -> int:
        move = self._popped()
        self.stones += move
        return move

    def copy(self) -> Board:
        b = Board(self.start)
        for m in self.move_stack:
            b.push(m)
        return b

    def is_game_over(self) -> bool:
        return self.stones == 0

    def winner(self) -> int | None:
        return (3 - self.turn) if self.stones == 0 else None  # who took the last

    def result(self) -> str:
        w = self.winner()
        return "*" if w is None else ("1-0" if w == 1 else "0-1")

    def move_name(self, move: int) -> str:
        return str(move)

    def parse_move(self, text: str) -> int:
        if text.strip() not in ("1", "2", "3") or int(text) not in self.legal_moves:
            raise SubtractError(f"no move {text!r}: expected 1, 2 or 3 (at most {self.stones})")
        return int(text)

    def to_dict(self) -> dict[str, Any]:
        return {"game": "subtract", "start": self.start, "moves": list(self.move_stack)}

    @classmethod
    def from_dict(cls, d: Any) -> Board:
        if not isinstance(d, dict):
            raise SubtractError("a record is a JSON object")
        b = cls(d.get("start", 21))
        for m in d.get("moves", []):
            b.push(m)
        return b


# --------------------------------------------------------------------------- kernels


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> int:
    n = 0
    for m in range(1, 4):
        if m <= st[0]:
            buf[n] = m
            n += 1
    return n


@kernel
def _play(ctx: Any, st: Any, move: int) -> Any:
    return (st[0] - move, st[1])


@kernel
def _gain(ctx: Any, st: Any, move: int) -> int:
    return 0


@kernel
def _evaluate(ctx: Any, st: Any) -> int:
    return 0


@kernel
def _final(ctx: Any, st: Any) -> int:
    return -1  # no stone left: the other side took the last


@kernel
def _key(ctx: Any, st: Any) -> int:
    return st[0] * 1_000_003 + 17


@kernel
def _horizon(ctx: Any, st: Any) -> int:
    return st[1] - 1  # -1: this game says no bound


KERNELS = Kernels(_gen_moves, _play, _gain, _evaluate, _final, _key, _horizon,
                  max_moves=3, max_plies=0)  # fmt: skip


def search_position(board: Board) -> tuple[Any, tuple[Any, ...]]:
    return np.zeros(1, dtype=np.int64), (np.int64(board.stones), np.int64(0))


GAME: GameDef[Board] = GameDef(
    name="subtract",
    title="Subtract",
    board_from_dict=Board.from_dict,
    engines={k: STANDARD_ENGINES[k] for k in ("alphabeta", "perfect", "random")},
    kernels=KERNELS,
    search_position=search_position,
    sample=Board,
    new_board=lambda seed, size: Board(17 + seed % 8),
    scores=lambda board: (int(board.winner() == 1), int(board.winner() == 2)),
    max_plies=200,
    kernel_moves=lambda board: list(board.legal_moves),
    board_from_text=lambda text: Board(int(text)),
    position_hint="a number of stones",
)


def write_package(where: Path) -> Path:
    """A ``dist-info`` in ``where`` that makes this module the installed game ``subtract``
    (put ``where`` and this module's folder on the path)."""
    info = where / "banmen_toy_subtract-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: banmen-toy-subtract\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[banmen.games]\nsubtract = toy_unbounded:GAME\n")
    return where
