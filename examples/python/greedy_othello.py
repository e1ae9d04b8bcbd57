"""A greedy Othello player in a dozen lines: it takes the move that flips the most discs
(ties: the first in square order). Play it against banmen's engines:

    banmen arena othello -p greedy=python:examples/python/greedy_othello.py:Greedy \\
        -p d4=alphabeta:depth=4 --games 20
    banmen play othello --second python:examples/python/greedy_othello.py:Greedy
    banmen nboard --engine python:examples/python/greedy_othello.py:Greedy   # for NBoard

``corners=1`` (``python:…:Greedy,corners=1``) makes it take a corner whenever it can.
"""

CORNERS = {"a1", "h1", "a8", "h8"}


class Greedy:
    def __init__(self, corners: int = 0) -> None:
        self.corners = bool(corners)

    def play(self, board):
        counts = board.flip_counts()  # {square: discs it would flip}; empty when passing
        if not counts:
            return "pass"
        names = {sq: board.move_name(sq) for sq in counts}
        if self.corners:
            for name in names.values():
                if name in CORNERS:
                    return name
        best = max(counts, key=lambda sq: counts[sq])
        return names[best]
