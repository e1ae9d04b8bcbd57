"""The games of an arena run, read-only, for the profiling scripts beside this file: each
game's positions replayed from its deal (``banmen.arena.play.start_board``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from banmen.arena.play import start_board
from banmen.arena.store import ArenaStore, GameRecord
from banmen.games.registry import get_game


def games(db: Path, run: str) -> list[GameRecord]:
    """The run's games in the store's order, the file opened read-only (never upgraded)."""
    store = ArenaStore(db, readonly=True)
    try:
        return store.games(run)
    finally:
        store.close()


def positions(db: Path, run: str, game_name: str) -> Iterator[list[Any]]:
    """For each game of the run, in order, the board before each of its moves (copies)."""
    game = get_game(game_name)
    for g in games(db, run):
        board = start_board(game, None, g.deal_seed)
        boards = []
        for m in g.moves:
            boards.append(board.copy())
            board.push(board.parse_move(m))
        yield boards
