"""Connect Four by brute force, independent of the package: a list of columns, the rules
read straight off the definition (every cell, every direction, four cells compared), no
bitboards. The tests hold the board and the compiled kernels to it.

A position is a tuple of 7 tuples, each the sides (1 red, 2 yellow) of a column's discs
from the bottom."""

from __future__ import annotations

from functools import cache

ROWS, COLS = 6, 7
WIN = 100
Position = tuple[tuple[int, ...], ...]
EMPTY: Position = tuple(() for _ in range(COLS))
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))  # across, up, the two diagonals


def from_moves(cols: list[int]) -> Position:
    p = EMPTY
    for c in cols:
        assert c in legal(p), (cols, c)
        p = play(p, c)
    return p


def disc(p: Position, col: int, row: int) -> int:
    """The side of the disc at (col, row), 0 for none or off the board."""
    if 0 <= col < COLS and 0 <= row < len(p[col]):
        return p[col][row]
    return 0


def fours(p: Position) -> set[int]:
    """The sides with four in a row."""
    out = set()
    for col in range(COLS):
        for row in range(ROWS):
            side = disc(p, col, row)
            if not side:
                continue
            for dc, dr in _DIRECTIONS:
                if all(disc(p, col + k * dc, row + k * dr) == side for k in range(4)):
                    out.add(side)
    return out


def fours_by_direction(p: Position) -> set[tuple[int, int]]:
    """The directions (dc, dr) in which some side has four in a row."""
    out = set()
    for col in range(COLS):
        for row in range(ROWS):
            side = disc(p, col, row)
            for dc, dr in _DIRECTIONS:
                if side and all(disc(p, col + k * dc, row + k * dr) == side for k in range(4)):
                    out.add((dc, dr))
    return out


def count(p: Position) -> int:
    return sum(len(c) for c in p)


def to_move(p: Position) -> int:
    return 1 if count(p) % 2 == 0 else 2


def winner(p: Position) -> int | None:
    f = fours(p)
    assert len(f) <= 1, p
    return next(iter(f)) if f else None


def is_over(p: Position) -> bool:
    return winner(p) is not None or count(p) == ROWS * COLS


def legal(p: Position) -> list[int]:
    if is_over(p):
        return []
    return [c for c in range(COLS) if len(p[c]) < ROWS]


def play(p: Position, col: int) -> Position:
    side = to_move(p)
    return tuple(p[c] + (side,) if c == col else p[c] for c in range(COLS))


def perft(p: Position, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(play(p, c), depth - 1) for c in legal(p))


def positions(depth: int) -> list[int]:
    """Distinct positions after 0..depth plies from the empty board."""
    level = {EMPTY}
    out = [1]
    for _ in range(depth):
        level = {play(p, c) for p in level for c in legal(p)}
        out.append(len(level))
    return out


@cache
def value(p: Position) -> int:
    """The exact value for the side to move: WIN + the empty cells at the end for a win,
    the negative for a loss, 0 for a draw (negamax over every legal move)."""
    empties = ROWS * COLS - count(p)
    w = winner(p)
    if w is not None:
        assert w != to_move(p)
        return -(WIN + empties)
    if empties == 0:
        return 0
    return max(-value(play(p, c)) for c in legal(p))


def immediate_wins(p: Position) -> list[int]:
    """The columns whose disc wins at once for the side to move."""
    return [c for c in legal(p) if winner(play(p, c)) == to_move(p)]


def cells(p: Position) -> list[str]:
    """The 42 cells from the top, ``x`` / ``o`` / ``.``."""
    letters = {0: ".", 1: "x", 2: "o"}
    return [letters[disc(p, c, r)] for r in range(ROWS - 1, -1, -1) for c in range(COLS)]


def wins_for(p: Position, side: int) -> list[int]:
    """The columns where a disc of ``side`` dropped now would make four in a row."""
    out = []
    for c in range(COLS):
        if len(p[c]) < ROWS:
            q = tuple(p[k] + (side,) if k == c else p[k] for k in range(COLS))
            if side in fours(q):
                out.append(c)
    return out
