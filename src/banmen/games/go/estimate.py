"""Estimates of a Go position from playouts of the search's policy: the points' final
ownership, and the dead stones of a finished game.

Counting (:mod:`.scoring`) is exact and takes the dead stones as given; these are guesses
for the players to correct, made by playing the position out many times with the playout
policy (:mod:`.policy`, loaded when an estimate is first asked for) and looking at who owns
each point at the end, with Benson's pass-alive chains and seki points
(:func:`.scoring.pass_alive`, :func:`.scoring.seki_stones`) as the sure parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from banmen.games.go import kernels as K
from banmen.games.go.errors import ScoringError
from banmen.games.go.kernels import BLACK, WHITE
from banmen.games.go.scoring import chains, pass_alive, seki_stones

if TYPE_CHECKING:  # the board is read through its public API; board.py imports scoring
    from banmen.games.go.board import Board

__all__ = ["ownership", "estimate_dead", "DEAD_THRESHOLD", "SEKI_CERTAINTY"]


def ownership(board: Board, playouts: int = 1024, seed: int = 0) -> dict[int, float]:
    """Average final ownership of every board point over ``playouts`` playouts of the
    search's playout policy (:func:`.policy.policy_ownership`: captures, atari answers,
    patterns, no self-atari) from the position, every other one with the other side to
    move first: +1 always black's, -1 always white's."""
    from banmen.games.go import policy  # the search's kernels: loaded when a count needs them
    from banmen.games.go.sets import SCORING
    from banmen.warm import ensure

    ensure(SCORING)  # (a cold cache: compiled now, and the user told so)
    if playouts < 1:
        raise ScoringError(f"playouts must be at least 1, got {playouts}")
    pos = board.position
    own = np.zeros(len(pos.board), dtype=np.int64)
    # the playout policy: the one the dead-stone thresholds were set with
    ctx = policy.context(board.size, board.komi)
    policy.playout_ownership(ctx, pos, playouts, seed, own)
    return {int(p): float(own[p]) / playouts for p in K.board_points(board.size)}


#: ownership a chain's stones must lean to the opponent, on average, to be called dead
DEAD_THRESHOLD = 0.2
#: a chain next to a seki point is kept alive unless the playouts kill it this surely
SEKI_CERTAINTY = 0.9


def estimate_dead(
    board: Board, playouts: int = 1024, seed: int = 0, threshold: float = DEAD_THRESHOLD
) -> frozenset[int]:
    """The dead stones of a finished position, estimated: the chains inside the
    opponent's pass-alive territory, and the chains whose average :func:`ownership` leans
    to the opponent by more than ``threshold``. Never dead: the stones of a pass-alive
    chain (Benson), and a chain next to a seki point (:func:`.scoring.seki_stones`) unless the
    playouts take it nearly always (``SEKI_CERTAINTY``: the seki test also fires on a
    group whose outside liberties the opponent can simply fill).

    Against GNU Go 3.8's ``final_status_list dead`` on positions where GNU Go passed twice
    (``tools/go_dead_stones.py``, tests/test_go_dead_stones.py), it gives the same dead
    stones in the figures docs/BENCHMARKS.md quotes. It is a proposal for the players to
    correct, not a proof."""
    own = ownership(board, playouts, seed)
    grid = board.grid().tolist()
    alive_b, terr_b = pass_alive(board, BLACK)
    alive_w, terr_w = pass_alive(board, WHITE)
    alive = alive_b | alive_w
    seki = seki_stones(grid, board.size)
    dead: set[int] = set()
    for c, stones, _ in chains(grid, board.size):
        if stones & alive:
            continue
        enemy_terr = terr_w if c == BLACK else terr_b
        mean = sum(own[p] for p in stones) / len(stones)
        lean = -mean if c == BLACK else mean
        if stones <= enemy_terr or (
            lean > threshold and (lean >= SEKI_CERTAINTY or not stones & seki)
        ):
            dead |= stones
    return frozenset(dead)
