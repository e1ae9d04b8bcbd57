"""Issue 40: the evaluation's error, banmen beside Egaroucid's web engine, on positions
whose true value the exact solver gives.

Positions at ``--empties`` empty squares (default 22) from the games of an arena run (by
default ``clk-othello`` in ``bench/results/issue39-clocks.sqlite3``); the truth is banmen's
exact solve (final disc difference for the side to move, the empties to the winner). Each
program then gives its value at the same nominal depth, for each depth of ``--depths``:
banmen's ``alphabeta`` (shipped weights, ProbCut on, a cold table) at ``Limit(depth=d)``,
Egaroucid-web at level ``d`` (``d`` plies, exact at ``2d`` empties or fewer: keep ``2d`` below
the empties, or it is exact too), through its driver's stdin ("LEVEL BOARD" → "MOVE
VALUE"). Reported: the mean absolute error and the RMSE of each, in discs, and the share of
positions where each names a move that keeps the true value.

Usage::

    .venv/bin/python bench/scripts/othello_eval_error.py [--driver PATH] [--empties 22]
        [--positions 40] [--depths 1,4,8] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
from pathlib import Path

from _arena_games import positions as arena_positions

from banmen.games.othello import Board
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.engine import OthelloEngine
from banmen.search.limits import Limit

ROOT = Path(__file__).resolve().parents[2]


def positions(db: Path, run: str, empties: int, count: int) -> list[Board]:
    """Each game's first position with ``empties`` empty squares and a choice of moves."""
    out: list[Board] = []
    for boards in arena_positions(db, run, "othello"):
        out += [b for b in boards if b.empties() == empties and len(b.legal_moves) > 1][:1]
        if len(out) >= count:
            break
    return out


def egaroucid_text(board: Board) -> str:
    """The driver's board: 64 squares a1..h8 row by row, P the mover's, O the other's."""
    p, o = board.pieces()
    return "".join("P" if p >> sq & 1 else "O" if o >> sq & 1 else "." for sq in range(64))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--driver", default=os.path.expanduser("~/.cache/banmen-anchors/egaroucid-web-driver")
    )
    ap.add_argument("--empties", type=int, default=22)
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--depths", default="1,4,8")
    ap.add_argument("--db", type=Path, default=ROOT / "bench/results/issue39-clocks.sqlite3")
    ap.add_argument("--run", default="clk-othello")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    depths = [int(x) for x in a.depths.split(",")]
    solver = EndgameSolver(tt_bits=20)
    engine = OthelloEngine()
    engine.warm_up()
    eg = subprocess.Popen([a.driver], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert eg.stdin is not None and eg.stdout is not None
    rows = []
    for board in positions(a.db, a.run, a.empties, a.positions):
        p, o = board.pieces()
        solver.clear()
        sol = solver.solve(p, o, all_best=True)
        truth = int(sol.score)
        best = {board.move_name(m) if isinstance(m, int) else str(m) for m in sol.best_moves}
        row: dict[str, object] = {"truth": truth, "best": sorted(best)}
        for d in depths:
            engine.new_game()
            r = engine.think(board, Limit(depth=d))
            eg.stdin.write(f"{d} {egaroucid_text(board)}\n")
            eg.stdin.flush()
            move, value = eg.stdout.readline().split()
            row[f"banmen_{d}"] = float(r.score)
            row[f"banmen_move_{d}"] = r.move
            row[f"egaroucid_{d}"] = float(value)
            row[f"egaroucid_move_{d}"] = move.lower()
        rows.append(row)
    eg.stdin.close()
    eg.wait()
    summary: dict[str, dict[str, float]] = {}
    for d in depths:
        for who in ("banmen", "egaroucid"):
            errs = [float(r[f"{who}_{d}"]) - float(r["truth"]) for r in rows]  # type: ignore[arg-type]
            kept = sum(1 for r in rows if str(r[f"{who}_move_{d}"]).lower() in r["best"])  # type: ignore[operator]
            summary[f"{who}_{d}"] = {"mae": sum(map(abs, errs)) / len(errs),
                                     "rmse": math.sqrt(sum(e * e for e in errs) / len(errs)),
                                     "best_move_share": kept / len(rows)}  # fmt: skip
            s = summary[f"{who}_{d}"]
            print(
                f"depth {d} {who:9s}: MAE {s['mae']:.2f} discs, RMSE {s['rmse']:.2f}, "
                f"a best move {100 * s['best_move_share']:.0f}%"
            )
    if a.out is not None:
        a.out.write_text(
            json.dumps(
                {
                    "empties": a.empties,
                    "depths": depths,
                    "rows": rows,
                    "summary": summary,
                    "load": os.getloadavg(),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
