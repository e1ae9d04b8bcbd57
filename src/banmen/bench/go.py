"""Go benchmarks: playouts per second, one thread."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from banmen.games.go import Board
from banmen.games.go import kernels as K
from banmen.games.go.engine import GoEngine
from banmen.search.limits import Limit

__all__ = ["bench_random_playouts", "bench_mcts_playouts", "bench_policies", "bench_threads"]


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


#: the policies :func:`bench_policies` compares: GoEngine parameters
POLICIES: dict[str, dict[str, Any]] = {
    "hand-set priors": {"learned": 0},
    "learned priors": {},
}


def _midgame(size: int) -> Board:
    """A middle-game position: the first 30% of the board's points in moves from the
    first finished GNU Go game of that size in the test data (or a seeded random game)."""
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[3] / "tests" / "data" / f"go-dead-{size}x{size}.jsonl"
    board = Board(size)
    moves: list[str] = []
    if data.exists():
        moves = json.loads(data.open().readline())["moves"]
    for text in moves[: int(0.3 * size * size)]:
        board.push(board.parse_move(text))
    return board


def bench_policies(size: int, playouts: int, rounds: int) -> dict[str, Any]:
    """The search's simulations per CPU second with each of :data:`POLICIES`, from the
    empty board and from a middle-game position, the policies alternated round by round
    (median over the rounds)."""
    boards = {"empty": Board(size), "midgame": _midgame(size)}
    engines = {name: GoEngine(seed=1, **params) for name, params in POLICIES.items()}
    for e in engines.values():
        e.warm_up()
    rates: dict[str, dict[str, list[float]]] = {b: {name: [] for name in engines} for b in boards}
    for _ in range(rounds):
        for bname, board in boards.items():
            for name, e in engines.items():
                e.new_game()
                t0 = time.process_time()
                r = e.think(board, Limit(nodes=playouts))
                rates[bname][name].append(r.nodes / max(time.process_time() - t0, 1e-9))
    return {
        "size": size,
        "playouts": playouts,
        "rounds": rounds,
        "simulations_per_cpu_second": {
            b: {name: float(np.median(v)) for name, v in per.items()} for b, per in rates.items()
        },
    }


def bench_threads(size: int, playouts: int, rounds: int) -> dict[str, Any]:
    """The search from the empty board with 1 and 2 threads on one tree (``GoEngine(threads=
    T)``), alternated round by round: simulations per wall-clock second and per CPU second
    of the process (medians), and the speed-up in wall-clock time."""
    engines = {t: GoEngine(seed=1, threads=t) for t in (1, 2)}
    for e in engines.values():
        e.warm_up()
    wall: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(rounds):
        for t, e in engines.items():
            e.new_game()
            w0, c0 = time.perf_counter(), time.process_time()
            r = e.think(Board(size), Limit(nodes=playouts))
            w, c = time.perf_counter() - w0, time.process_time() - c0
            wall[t].append(r.nodes / w)
            cpu[t].append(r.nodes / max(c, 1e-9))
    med = {t: float(np.median(wall[t])) for t in wall}
    return {
        "size": size,
        "playouts": playouts,
        "rounds": rounds,
        "per_wall_second": med,
        "per_cpu_second": {t: float(np.median(cpu[t])) for t in cpu},
        "speedup": med[2] / med[1],
    }
