"""Positions the tests share: seeded random games, each position with its oracle twin."""

from __future__ import annotations

import random
from collections.abc import Iterator

import oracle

from banmen_connect_four import Board


def random_game(seed: int, plies: int = 42) -> Iterator[tuple[Board, oracle.Position]]:
    """The positions of a seeded random game, up to ``plies`` moves or its end: the board
    (moved on after each yield) and the oracle's position."""
    rng = random.Random(seed)
    board = Board()
    p = oracle.EMPTY
    for _ in range(plies):
        yield board, p
        legal = board.legal_moves
        if not legal:
            return
        col = rng.choice(legal)
        board.push(col)
        p = oracle.play(p, col)
    yield board, p


def position_with(seed: int, max_empties: int) -> Board | None:
    """A random game's position with at most ``max_empties`` empty cells, not over
    (``None`` if the game ended first)."""
    for board, _ in random_game(seed):
        if board.is_game_over():
            return None
        if board.empties() <= max_empties:
            return board.copy()
    return None


def one_line_value_error(e: BaseException) -> bool:
    return isinstance(e, ValueError) and "\n" not in str(e) and bool(str(e))
