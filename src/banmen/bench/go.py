"""Go benchmarks: playouts per second, one thread."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from banmen.games.go import Board
from banmen.games.go import kernels as K
from banmen.games.go.engine import GoEngine
from banmen.search.limits import Limit

__all__ = ["bench_random_playouts", "bench_mcts_playouts"]


def bench_random_playouts(size: int, n: int) -> dict[str, Any]:
    """Uniformly random playouts (never filling a player's own single-point eye) from the
    empty board to two passes, compiled (``kernels.run_playouts``)."""

    pos = Board(size).position
    scores = np.zeros(n, dtype=np.int64)
    own = np.zeros(pos.board.shape[0], dtype=np.int64)
    limit = 4 * size * size
    K.run_playouts(pos.board, pos.grp, pos.meta, 8, 1, limit, scores[:8], own)  # compile/load
    t0 = time.perf_counter()
    K.run_playouts(pos.board, pos.grp, pos.meta, n, 2, limit, scores, own)
    seconds = time.perf_counter() - t0
    return {
        "size": size,
        "playouts": n,
        "seconds": seconds,
        "playouts_per_second": n / seconds,
        "mean_black_area_minus_white": float(scores.mean()),
    }


def bench_mcts_playouts(size: int, playouts: int) -> dict[str, Any]:
    """The Go engine's search from the empty board with a playout budget: simulations
    (tree descent + policy playout + backup) per second."""

    engine = GoEngine(seed=1)
    engine.warm_up()
    board = Board(size)
    t0 = time.perf_counter()
    result = engine.think(board, Limit(nodes=playouts))
    seconds = time.perf_counter() - t0
    return {
        "size": size,
        "playouts": result.nodes,
        "seconds": seconds,
        "playouts_per_second": result.nodes / seconds,
        "move": result.move,
    }
