"""Issue 40: how well an Othello evaluation chooses a move, on positions solved exactly.

Positions with ``--empties`` empty squares (default 22) from the games of arena runs (by
default banmen's games against Egaroucid-web in ``bench/results``: :data:`SOURCES`; each
game's first such position with a choice of moves, duplicates dropped). For each
position banmen's exact solver gives the value of every move. Then each evaluation —
the shipped weights and any ``--weights NAME=FILE`` — names a move with a full-width
``alphabeta`` search (ProbCut off, a cold table) at each depth of ``--depths``, as does
Egaroucid-web at that level (``d`` plies; exact at ``2d`` empties or fewer, so keep ``2d``
below the empties) unless ``--no-egaroucid``. Reported per player and depth: the share of
positions where the move keeps the true value, and the mean **regret** (the true value
given away by the move, in discs). The players are alternated position by position.

Usage::

    .venv/bin/python bench/scripts/othello_move_choice.py [--weights new=FILE ...]
        [--empties 22] [--positions 120] [--depths 1,2,4] [--out FILE.json]
        [--values VALUES.json]    # the exact values, solved once and kept for later runs
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

from _arena_games import positions as arena_positions
from othello_eval_error import egaroucid_text

from banmen.games.othello import Board
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.engine import OthelloEngine
from banmen.games.othello.evaluators import patterns
from banmen.search.limits import Limit

ROOT = Path(__file__).resolve().parents[2]
#: arena runs of games against Egaroucid-web (file in bench/results, run)
SOURCES = (
    "issue40-othello-scaling.sqlite3:d10",
    "issue40-othello-scaling.sqlite3:tscale",
    "issue40-othello-scaling.sqlite3:noprobcut",
    "othello18/oth18.sqlite3:oth18-egw-levels",
    "othello18/oth18.sqlite3:oth18-egw8",
    "issue38-evaluations.sqlite3:egw10-equal-time",
    "issue38-evaluations.sqlite3:egw10-equal-time-2",
)


def positions(sources: list[str], empties: int, count: int) -> list[Board]:
    """Each game's first position with ``empties`` empties and a choice, no repeats."""
    out: list[Board] = []
    seen: set[tuple[int, int]] = set()
    for source in sources:
        db, run = source.rsplit(":", 1)
        for boards in arena_positions(ROOT / "bench/results" / db, run, "othello"):
            for b in boards:
                if b.empties() == empties and len(b.legal_moves) > 1:
                    if b.pieces() not in seen:
                        seen.add(b.pieces())
                        out.append(b)
                    break
            if len(out) >= count:
                return out
    return out


def move_values(solver: EndgameSolver, board: Board) -> dict[str, int]:
    """The exact value of each legal move, for the mover (discs)."""
    values = {}
    for m in board.legal_moves:
        c = board.copy()
        c.push(m)
        p, o = c.pieces()
        solver.clear()
        s = solver.solve(p, o)
        assert s.score is not None
        values[board.move_name(m).lower()] = -int(s.score)
    return values


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--driver", default=os.path.expanduser("~/.cache/banmen-anchors/egaroucid-web-driver")
    )
    ap.add_argument("--no-egaroucid", action="store_true")
    ap.add_argument("--weights", action="append", default=[], help="NAME=FILE (repeatable)")
    ap.add_argument("--empties", type=int, default=22)
    ap.add_argument("--positions", type=int, default=120)
    ap.add_argument("--depths", default="1,2,4")
    ap.add_argument(
        "--source", action="append", help="FILE:RUN, FILE under bench/results (repeatable)"
    )
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument(
        "--values", type=Path, default=None,
        help="a JSON file of the positions' exact move values: read if there, kept up to date",
    )  # fmt: skip
    a = ap.parse_args()
    depths = [int(x) for x in a.depths.split(",")]
    engines: dict[str, OthelloEngine] = {"shipped": OthelloEngine(probcut=False)}
    for spec in a.weights:
        name, path = spec.split("=", 1)
        engines[name] = OthelloEngine(evaluator=patterns(None, {"weights": path}), probcut=False)
    for e in engines.values():
        e.warm_up()
    eg = None
    if not a.no_egaroucid:
        eg = subprocess.Popen([a.driver], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    solver = EndgameSolver(tt_bits=22)
    boards = positions(a.source or list(SOURCES), a.empties, a.positions)
    known: dict[str, dict[str, int]] = {}
    if a.values is not None and a.values.exists():
        known = json.loads(a.values.read_text())
    rows = []
    t0 = time.time()
    for i, board in enumerate(boards):
        p, o = board.pieces()
        key = f"{p:016x} {o:016x}"
        values = known[key] if key in known else move_values(solver, board)
        known[key] = values
        if a.values is not None:
            a.values.write_text(json.dumps(known))
        truth = max(values.values())
        row: dict[str, object] = {"values": values, "truth": truth}
        names = list(engines) + (["egaroucid"] if eg is not None else [])
        names = names[i % len(names) :] + names[: i % len(names)]  # (alternated)
        for d in depths:
            for name in names:
                if name == "egaroucid":
                    assert eg is not None and eg.stdin is not None and eg.stdout is not None
                    eg.stdin.write(f"{d} {egaroucid_text(board)}\n")
                    eg.stdin.flush()
                    move, _value = eg.stdout.readline().split()
                else:
                    e = engines[name]
                    e.new_game()
                    move = str(e.think(board, Limit(depth=d)).move)
                row[f"{name}_{d}"] = move.lower()
        rows.append(row)
        print(f"{i + 1}/{len(boards)} positions, {time.time() - t0:.0f} s", flush=True)
    if eg is not None and eg.stdin is not None:
        eg.stdin.close()
        eg.wait()
    summary: dict[str, dict[str, float]] = {}
    for d in depths:
        for name in list(engines) + (["egaroucid"] if eg is not None else []):
            regrets = [
                int(r["truth"]) - r["values"].get(str(r[f"{name}_{d}"]), -64)  # type: ignore[union-attr, call-overload]
                for r in rows
            ]
            s = {"best_move_share": sum(1 for x in regrets if x == 0) / len(rows),
                 "mean_regret": sum(regrets) / len(rows)}  # fmt: skip
            summary[f"{name}_{d}"] = s
            print(f"depth {d} {name:10s}: a best move {100 * s['best_move_share']:.1f}%, "
                  f"mean regret {s['mean_regret']:.2f} discs")  # fmt: skip
    if a.out is not None:
        a.out.write_text(json.dumps({
            "empties": a.empties, "depths": depths, "weights": a.weights,
            "positions": len(rows), "rows": rows, "summary": summary,
            "load": os.getloadavg(), "date": time.strftime("%Y-%m-%d %H:%M"),
        }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
