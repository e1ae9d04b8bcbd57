"""banmen's own depth-1 alpha-beta wrapped as a ``python:`` player
(``python:banmen.bench.wrapped_player:Wrapped``): the benchmark of the routes a user's AI
can take (:mod:`banmen.bench.routes`) plays the same search in-process and through the
``python:`` door, so the difference is the door's cost."""

from __future__ import annotations

from banmen.engine import GameBoard


class Wrapped:
    """Plays what ``alphabeta:depth=DEPTH`` plays, as a user's Python player would."""

    def __init__(self, game: str = "mattix", depth: int = 1) -> None:
        from banmen.games.registry import make_engine

        self.engine = make_engine(game, f"alphabeta:depth={depth}")
        self.engine.warm_up()

    def new_game(self) -> None:
        self.engine.new_game()

    def play(self, board: GameBoard) -> str:
        move = self.engine.think(board).move
        assert move is not None  # (the arena asks only while the game goes on)
        return move
