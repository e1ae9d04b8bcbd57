"""FFO positions solved exactly by banmen, Edax and Egaroucid, one thread each, one
position at a time in that order (so all three meet the machine in the same state), a row
per position appended to a JSON-lines file as soon as it is done. Optionally banmen's
solver without the learned move order too, for the before/after figure.

    .venv/bin/python bench/scripts/ffo_side_by_side.py 40-59 --limit 600 \\
        --out bench/results/othello18/ffo-40-59.jsonl [--unordered-upto 49]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from banmen.bench.othello import bench_ffo, ffo_positions
from banmen.games.othello import Board
from banmen.games.othello.endgame import EndgameSolver


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", help="e.g. 40-59")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per program")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--unordered-upto", type=int, default=0)
    args = ap.parse_args()
    lo, _, hi = args.ids.partition("-")
    ids = list(range(int(lo), int(hi or lo) + 1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plain = EndgameSolver(eval_order=False) if args.unordered_upto else None
    suite = ffo_positions()
    for i in ids:
        t0 = time.time()
        rec = bench_ffo([i], time_limit=args.limit)
        row = rec["positions"][0]
        row["load_before"] = os.getloadavg()[0]
        if plain is not None and i <= args.unordered_upto:
            b = Board.from_string(suite[i]["board"])
            p, o = b.pieces()
            plain.clear()
            sol = plain.solve(p, o, time_limit=args.limit)
            row["unordered"] = {
                "status": sol.status,
                "score": sol.score,
                "seconds": sol.seconds,
                "nodes": sol.nodes,
            }
        row["wall"] = time.time() - t0
        with open(args.out, "a") as fh:
            fh.write(json.dumps(row) + "\n")
        theirs = {k: v["seconds"] for k, v in row["anchors"].items()}
        print(i, row["status"], row["seconds"], theirs, flush=True)


if __name__ == "__main__":
    main()
