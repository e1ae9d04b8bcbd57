"""Othello benchmarks: perft make-moves per second and the FFO endgame suite."""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any

from banmen.games.othello import BLACK, Board, square_name
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.kernels import U, perft

__all__ = ["ffo_positions", "bench_perft", "bench_ffo"]

#: The FFO endgame suite in the shared reference data (positions #40-#59).
FFO_CSV = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "othello" / "ffo.csv"


def ffo_positions(path: Path | None = None) -> dict[int, dict[str, Any]]:
    """``{id: {"board": "<64 squares> X", "score": int, "moves": [names]}}`` from ffo.csv."""
    src = path or FFO_CSV
    if not src.is_file():
        raise ValueError(f"FFO suite not found at {src}: expected the shared reference data")
    out: dict[int, dict[str, Any]] = {}
    with open(src, newline="") as fh:
        for row in csv.DictReader(fh):
            out[int(row["id"])] = {
                "board": f"{row['board']} {row['to_move']}",
                "score": int(row["best_score"]),
                "moves": row["best_moves"].split(),
            }
    return out


def bench_perft(depth: int = 11, pass_free: bool = False) -> dict[str, Any]:
    """Perft from the start on one thread: every move of every ply made (passes
    included), nothing bulk-counted."""

    b = Board()
    perft(U(b.black), U(b.white), 2, False, pass_free)  # load the compiled code
    t0 = time.perf_counter()
    leaves, made = perft(U(b.black), U(b.white), depth, False, pass_free)
    seconds = time.perf_counter() - t0
    return {
        "depth": depth,
        "convention": "pass-free" if pass_free else "pass counts as a ply",
        "leaves": int(leaves),
        "moves_made": int(made),
        "seconds": seconds,
        "moves_per_second": int(made) / seconds,
    }


def bench_ffo(ids: list[int], time_limit: float | None = None,
              path: Path | None = None) -> dict[str, Any]:  # fmt: skip
    """Solve FFO positions exactly, one thread, a cleared table for each; check the score
    and the move against the suite. A position stopped by ``time_limit`` is reported as
    unsolved ("unknown"), never with a score."""

    suite = ffo_positions(path)
    solver = EndgameSolver()
    rows = []
    for i in ids:
        pos = suite[i]
        b = Board.from_string(pos["board"])
        p, o = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
        solver.clear()
        sol = solver.solve(p, o, time_limit=time_limit)
        moves = [square_name(m) for m in sol.best_moves]
        solved = sol.status == "solved"
        rows.append(
            {
                "id": i,
                "empties": b.empties(),
                "status": sol.status,
                "stopped_by": sol.stopped_by or None,
                "score": sol.score,
                "best_move": moves[0] if moves else None,
                "expected_score": pos["score"],
                "expected_moves": pos["moves"],
                "correct": solved and sol.score == pos["score"] and moves[0] in pos["moves"],
                "seconds": sol.seconds,
                "nodes": sol.nodes,
                "nodes_per_second": sol.nodes / sol.seconds if sol.seconds > 0 else None,
            }
        )
    solved_rows = [r for r in rows if r["status"] == "solved"]
    return {
        "time_limit": time_limit,
        "positions": rows,
        "solved": len(solved_rows),
        "correct": sum(r["correct"] for r in rows),
        "total_seconds_solved": sum(r["seconds"] for r in solved_rows),
        "total_nodes_solved": sum(r["nodes"] for r in solved_rows),
    }
