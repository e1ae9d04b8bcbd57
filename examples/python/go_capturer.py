"""A Python Go player: it captures when it can, never fills one of its own eyes, and
otherwise plays at random; it passes when nothing else is left. It gets a banmen Go game
record (``banmen.games.go.Game``): ``legal_moves``, ``move_name``, ``push``/``pop``, and
the position as ``game.board`` (``size``, ``turn``, ``color_at(p)``, ``prisoners``).

    banmen gtp --engine python:examples/python/go_capturer.py:Capturer --size 9  # Sabaki
    banmen arena go -p cap=python:examples/python/go_capturer.py:Capturer,seed=3 \\
        -p mc=mcts:time=0.2 --games 4
"""

import random

from banmen.games.go import PASS, coords, point


class Capturer:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self) -> None:
        self.rng = random.Random(self.seed)

    def _own_eye(self, board, p: int) -> bool:
        col, row = coords(p, board.size)
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            c, r = col + dc, row + dr
            if 0 <= c < board.size and 0 <= r < board.size:
                if board.color_at(point(c, r, board.size)) != board.turn:
                    return False
        return True

    def play(self, game):
        board = game.board
        mover = board.turn - 1  # prisoners are (black's, white's)
        moves = [m for m in game.legal_moves if m != PASS and not self._own_eye(board, m)]
        for m in moves:
            before = board.prisoners[mover]
            game.push(m)  # (a copy: the real game does not see it)
            took = game.board.prisoners[mover] > before
            game.pop()
            if took:
                return game.move_name(m)
        return game.move_name(self.rng.choice(moves)) if moves else "pass"
