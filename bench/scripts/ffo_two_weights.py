"""FFO positions solved exactly by banmen's endgame solver ordered by two weights files
(the shipped one and ``--weights``), one thread, a cleared table each, the two alternated
position by position (the order reversed every other position). The node counts are
exact — the same on any machine; the seconds are this machine's. A row per position and
solver appended to a JSON-lines file.

    .venv/bin/python bench/scripts/ffo_two_weights.py 40-49 --weights NEW.npz \\
        --out bench/results/issue40-othello-children/ffo-40-49.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from banmen.bench.othello import ffo_positions
from banmen.games.othello import Board
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.patterns import Weights, load_weights


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", help="e.g. 40-49")
    ap.add_argument("--weights", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    lo, _, hi = a.ids.partition("-")
    ids = list(range(int(lo), int(hi or lo) + 1))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    solvers = {"shipped": EndgameSolver(weights=load_weights()),
               "new": EndgameSolver(weights=Weights.load(a.weights))}  # fmt: skip
    suite = ffo_positions()
    for k, i in enumerate(ids):
        b = Board.from_string(suite[i]["board"])
        p, o = b.pieces()
        order = list(solvers) if k % 2 == 0 else list(solvers)[::-1]
        for name in order:
            s = solvers[name]
            s.clear()
            c0 = time.process_time()
            sol = s.solve(p, o)
            row = {"id": i, "weights": name, "score": sol.score, "right": sol.score ==
                   suite[i]["score"], "nodes": sol.nodes, "seconds": sol.seconds,
                   "cpu": time.process_time() - c0, "load": os.getloadavg()[0]}  # fmt: skip
            with open(a.out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
