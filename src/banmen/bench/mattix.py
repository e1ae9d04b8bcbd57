"""Mattix benchmarks: exact solves, depth in one second, first-player advantage.

The "plain" searches are the baselines the WebMattix write-up describes: negamax with no
pruning, and alpha-beta with no table and no move ordering (pieces in board order). They
are compiled with numba like banmen's own search, so the comparison is of algorithms,
not of languages.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from numba import types

from banmen._jit import njit
from banmen.games.engines import AlphaBetaEngine
from banmen.games.mattix import Board, kernel_position
from banmen.games.registry import get_game
from banmen.search.alphabeta import AlphaBeta
from banmen.search.limits import Deadline, Limit, StopFlag
from banmen.stats import mean_ci, wilson

# --------------------------------------------------------------------------- baselines


@njit(cache=True)
def _line_moves(values: Any, mask: int, chip: int, side: int, size: int, buf: Any) -> int:
    """Legal squares in board order (no ordering at all)."""
    n = 0
    for i in range(size):
        sq = (chip // size) * size + i if side == 0 else i * size + chip % size
        if (mask >> sq) & 1:
            buf[n] = sq
            n += 1
    return n


@njit(cache=True, nogil=True, returns=types.int64)
def _plain(
    values: Any, mask: int, chip: int, side: int, size: int, depth: int, alpha: int,
    beta: int, prune: bool, bufs: Any, ply: int, counters: Any, stop: Any,
) -> int:  # fmt: skip
    """Plain negamax over the rules (moves in board order, no table); with ``prune``,
    alpha-beta (the window is never narrowed without it)."""
    counters[0] += 1
    if stop[0] != 0:
        return 0
    if depth == 0:
        return 0
    buf = bufs[ply]
    n = _line_moves(values, mask, chip, side, size, buf)
    if n == 0:
        return 0
    best = -(1 << 30)
    for i in range(n):
        sq = buf[i]
        g = values[sq]
        v = g - _plain(
            values, mask & ~(np.int64(1) << sq), sq, 1 - side, size, depth - 1,
            g - beta, g - alpha, prune, bufs, ply + 1, counters, stop,
        )  # fmt: skip
        if v > best:
            best = v
            if prune and v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


def plain_depth_in(board: Board, seconds: float, pruning: bool) -> dict[str, Any]:
    """Deepest iteration a plain search completes within ``seconds`` (iterative deepening)."""
    ctx, (mask, chip, side) = kernel_position(board)
    size = board.size
    values = ctx[: size * size].copy()
    bufs = np.zeros((size * size + 2, size), dtype=np.int64)
    counters = np.zeros(1, dtype=np.int64)
    flag = StopFlag()
    window = (-(1 << 30), 1 << 30)
    # Compile outside the timed region.
    _plain(values, mask, chip, side, size, 1, *window, pruning, bufs, 0, counters, flag.array)
    counters[0] = 0
    completed = 0
    t0 = time.perf_counter()
    with Deadline(flag, seconds):
        for depth in range(1, board.pieces_left() + 1):
            _plain(values, mask, chip, side, size, depth, *window, pruning, bufs, 0, counters,
                   flag.array)  # fmt: skip
            if flag.is_set():
                break
            completed = depth
    elapsed = time.perf_counter() - t0
    return {"depth": completed, "nodes": int(counters[0]), "seconds": min(elapsed, seconds)}


# --------------------------------------------------------------------------- suites


def solve_boards(seeds: list[int], size: int = 6) -> list[dict[str, Any]]:
    """Cold exact solves (table cleared before each board)."""

    game = get_game("mattix")
    assert game.kernels is not None
    search = AlphaBeta(game.kernels, tt_bits=game.tt_bits)
    search.solve_horizon = game.solve_horizon
    search.search(*kernel_position(Board.from_seed(0, 4)), Limit(depth=2))  # compile/load
    rows = []
    for seed in seeds:
        board = Board.from_seed(seed, size)
        search.clear()
        ctx, state = kernel_position(board)
        t0 = time.perf_counter()
        r = search.search(ctx, state, Limit())
        dt = time.perf_counter() - t0
        assert r.exact
        best = board.move_name(r.move) if r.move is not None else None
        rows.append(
            {"seed": seed, "value": r.score, "seconds": dt, "nodes": r.nodes, "best_move": best}
        )
    return rows


def bench_solve(n: int = 20) -> dict[str, Any]:
    rows = solve_boards(list(range(n)))
    secs = [r["seconds"] for r in rows]
    nodes = [r["nodes"] for r in rows]
    return {
        "boards": n,
        "size": 6,
        "seeds": f"0..{n - 1}",
        "median_seconds": statistics.median(secs),
        "max_seconds": max(secs),
        "mean_seconds": statistics.mean(secs),
        "median_nodes": statistics.median(nodes),
        "max_nodes": max(nodes),
        "nodes_per_second": sum(nodes) / sum(secs),
        "rows": rows,
    }


def bench_depth(seeds: list[int], seconds: float = 1.0) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        board = Board.from_seed(seed, 6)
        neg = plain_depth_in(board, seconds, pruning=False)
        ab = plain_depth_in(board, seconds, pruning=True)
        engine = AlphaBetaEngine(get_game("mattix"))
        engine.think(Board.from_seed(0, 4), Limit(depth=2))  # compile/load
        r = engine.think(board, Limit(time=seconds))
        rows.append({
            "seed": seed,
            "plain_negamax": neg,
            "plain_alphabeta": ab,
            "banmen": {"depth": r.depth, "exact": r.exact, "nodes": r.nodes, "seconds": r.seconds},
        })  # fmt: skip
    return {
        "seconds": seconds,
        "median_depth": {
            k: statistics.median(row[k]["depth"] for row in rows)
            for k in ("plain_negamax", "plain_alphabeta", "banmen")
        },
        "banmen_exact": sum(row["banmen"]["exact"] for row in rows),
        "rows": rows,
    }


def _solve_chunk(args: tuple[int, list[int]]) -> list[int]:
    size, seeds = args
    return [r["value"] for r in solve_boards(seeds, size)]


def first_player(size: int, n: int, workers: int = 2) -> dict[str, Any]:
    """Perfect-play outcome for player 1 (who moves first) over seeds 0..n-1."""
    t0 = time.perf_counter()
    chunk = max(1, min(250, n // (4 * workers) or 1))
    jobs = [(size, list(range(i, min(n, i + chunk)))) for i in range(0, n, chunk)]
    values: list[int] = []
    if workers > 1:
        import multiprocessing

        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as ex:
            for part in ex.map(_solve_chunk, jobs):
                values.extend(part)
    else:
        for job in jobs:
            values.extend(_solve_chunk(job))
    wins = sum(v > 0 for v in values)
    draws = sum(v == 0 for v in values)
    losses = sum(v < 0 for v in values)
    mean, lo, hi = mean_ci([float(v) for v in values])

    def share(k: int) -> dict[str, Any]:
        a, b = wilson(k, n)
        return {"count": k, "share": k / n, "ci95": [a, b]}

    return {
        "size": size,
        "boards": n,
        "seeds": f"0..{n - 1}",
        "first_player_wins": share(wins),
        "draws": share(draws),
        "first_player_losses": share(losses),
        "mean_margin": mean,
        "mean_margin_ci95": [lo, hi],
        "margin_histogram": {str(v): values.count(v) for v in sorted(set(values))},
        "seconds": time.perf_counter() - t0,
        "workers": workers,
    }


def deadline_overshoot(limit_seconds: float = 0.1, runs: int = 30) -> dict[str, Any]:
    """How far past its deadline a time-limited search returns (an 8x8 board, never solved
    in time, so every run ends by the clock)."""

    layout = "/".join(
        ",".join("X" if (r, c) == (3, 4) else str((r * 8 + c) * 37 % 23 - 9) for c in range(8))
        for r in range(8)
    )
    board = Board.from_layout(layout)
    engine = AlphaBetaEngine(get_game("mattix"))
    engine.warm_up()
    over = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = engine.think(board, Limit(time=limit_seconds))
        over.append((time.perf_counter() - t0 - limit_seconds) * 1000)
        assert r.stopped_by == "time"
    over.sort()
    return {
        "limit_seconds": limit_seconds,
        "runs": runs,
        "overshoot_ms_median": statistics.median(over),
        "overshoot_ms_p90": over[int(0.9 * (runs - 1))],
        "overshoot_ms_max": over[-1],
    }
