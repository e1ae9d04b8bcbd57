"""A small, independent Mattix reference used only by the tests.

It shares no code with ``banmen.games.mattix``: a 2-D grid of values, the chip as
(row, col), and a memoised plain negamax for the exact value. Keep it obviously correct
rather than fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache


@dataclass
class RefGame:
    grid: list[list[int | None]]  # None: empty square (or the chip's square)
    chip: tuple[int, int]
    turn: int = 1  # 1 takes along the chip's row, 2 along its column
    scores: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def n(self) -> int:
        return len(self.grid)

    def moves(self) -> list[tuple[int, int]]:
        r0, c0 = self.chip
        if self.turn == 1:
            cand = [(r0, c) for c in range(self.n)]
        else:
            cand = [(r, c0) for r in range(self.n)]
        return [(r, c) for r, c in cand if self.grid[r][c] is not None]

    def play(self, r: int, c: int) -> None:
        assert (r, c) in self.moves()
        v = self.grid[r][c]
        assert v is not None
        self.scores[self.turn - 1] += v
        self.grid[r][c] = None
        self.chip = (r, c)
        self.turn = 3 - self.turn

    def over(self) -> bool:
        return not self.moves()

    def winner(self) -> int | None:
        if not self.over() or self.scores[0] == self.scores[1]:
            return None
        return 1 if self.scores[0] > self.scores[1] else 2


def parse(layout: str) -> RefGame:
    rows_text, _, side = layout.partition(" ")
    grid: list[list[int | None]] = []
    chip = (-1, -1)
    for r, row in enumerate(rows_text.split("/")):
        line: list[int | None] = []
        for c, cell in enumerate(row.split(",")):
            if cell == "X":
                chip = (r, c)
                line.append(None)
            elif cell == ".":
                line.append(None)
            else:
                line.append(int(cell))
        grid.append(line)
    return RefGame(grid, chip, int(side) if side else 1)


def exact_value(game: RefGame) -> int:
    """Final margin (mover minus opponent) of the rest of the game under perfect play."""
    n = game.n
    values = {(r, c): game.grid[r][c] for r in range(n) for c in range(n)}
    start = frozenset(k for k, v in values.items() if v is not None)

    @cache
    def negamax(left: frozenset[tuple[int, int]], chip: tuple[int, int], turn: int) -> int:
        r0, c0 = chip
        if turn == 1:
            moves = [(r0, c) for c in range(n) if (r0, c) in left]
        else:
            moves = [(r, c0) for r in range(n) if (r, c0) in left]
        if not moves:
            return 0
        return max(values[m] - negamax(left - {m}, m, 3 - turn) for m in moves)  # type: ignore[operator]

    return negamax(start, game.chip, game.turn)
