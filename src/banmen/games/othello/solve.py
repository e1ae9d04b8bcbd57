"""Othello's exact endgame solver for ``banmen solve othello POSITION``
(:class:`~banmen.games.Solver`)."""

from __future__ import annotations

from typing import Any

from banmen.games._base import SolveLimits, Solver
from banmen.games.othello.board import Board
from banmen.games.othello.formats import BLACK, square_name


def solve(board: Board, limits: SolveLimits) -> dict[str, Any]:
    """The record ``solve othello`` prints: the final disc difference for the side to
    move under perfect play, and the best move (``all_best``: every one), or
    ``unknown`` if the time ran out first."""
    from banmen.games.othello.endgame import EndgameSolver

    p, o = board.pieces()
    sol = EndgameSolver().solve(p, o, time_limit=limits.time, all_best=limits.all_best)
    return {
        "game": "othello",
        "board": board.to_string(),
        "to_move": "X" if board.turn == BLACK else "O",
        "empties": board.empties(),
        "status": sol.status,
        "stopped_by": sol.stopped_by or None,
        "score": sol.score,
        "best_moves": [square_name(m) for m in sol.best_moves],
        "nodes": sol.nodes,
        "seconds": sol.seconds,
    }


def lines(rec: dict[str, Any]) -> list[str]:
    """The human form of a :func:`solve` record."""
    out = []
    side = "black (X)" if rec["to_move"] == "X" else "white (O)"
    if rec["status"] == "solved":
        out.append(
            f"score: {rec['score']:+d} — final disc difference for {side} to move under "
            f"perfect play (proved; {rec['empties']} empties)"
        )
        label = "best moves" if len(rec["best_moves"]) > 1 else "best move"
        out.append(f"{label}: {' '.join(rec['best_moves']) or '(none: the game is over)'}")
    else:
        out.append(f"unknown: stopped by {rec['stopped_by']} before the solve finished")
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    out.append(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.1f} M nodes/s)")
    return out


SOLVER: Solver[Board] = Solver(solve, lines, takes=("all_best",))
