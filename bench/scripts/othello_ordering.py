"""Issue 40, Othello: what a full-width search of ``--depth`` plies costs banmen (no
ProbCut: nodes and seconds, a cold table each position) beside what Egaroucid's web engine
takes for its level ``--level`` (``--level`` plies in the midgame, no MPC below level 11)
on the same positions, the two alternated position by position. A driver that prints the
search's node count after the move and value (the shared driver with ``r.nodes`` added to
its output line) gives Egaroucid's nodes too. banmen's node count is
exact (the same code gives the same count on any machine); the seconds are the machine's.

    .venv/bin/python bench/scripts/othello_ordering.py [--depth 10] [--level 10]
        [--positions 30] [--driver ~/.cache/banmen-anchors/egaroucid-web-driver] [--out F]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from othello_depth_profile import positions

from banmen.games.othello.engine import OthelloEngine
from banmen.search.limits import Limit

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--db", type=Path, default=ROOT / "bench/results/issue39-clocks.sqlite3")
    ap.add_argument("--run", default="clk-othello")
    ap.add_argument(
        "--driver", default=os.path.expanduser("~/.cache/banmen-anchors/egaroucid-web-driver")
    )
    ap.add_argument("--no-anchor", action="store_true")
    ap.add_argument("--label", default="")
    ap.add_argument("--set", action="append", default=[], help="ATTR=VALUE of the search")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    engine = OthelloEngine(probcut=False)
    engine.warm_up()
    for kv in a.set:
        k, v = kv.split("=", 1)
        setattr(engine.search, k, v if k == "method" else int(v))
    eng = None
    if not a.no_anchor:
        eng = subprocess.Popen([a.driver], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, bufsize=1)  # fmt: skip
    rows = []
    for board in positions(a.db, a.run, a.positions):
        engine.new_game()
        r = engine.think(board, Limit(depth=a.depth))
        row = {"empties": board.empties(), "nodes": r.nodes, "seconds": r.seconds,
               "move": str(r.move), "value": r.score}  # fmt: skip
        if eng is not None:
            me, op = board.pieces()
            s = "".join("P" if me >> i & 1 else "O" if op >> i & 1 else "." for i in range(64))
            t0 = time.perf_counter()
            eng.stdin.write(f"{a.level} {s}\n")
            eng.stdin.flush()
            mv, val, *more = eng.stdout.readline().split()
            row["anchor_seconds"] = time.perf_counter() - t0
            row["anchor_move"], row["anchor_value"] = mv, float(val)
            if more:  # a driver that also prints the search's nodes (and its milliseconds)
                row["anchor_nodes"] = int(more[0])
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary = {
        "label": a.label,
        "positions": len(rows),
        "nodes_total": sum(r["nodes"] for r in rows),
        "nodes_median": statistics.median(r["nodes"] for r in rows),
        "seconds_median": statistics.median(r["seconds"] for r in rows),
        "seconds_total": sum(r["seconds"] for r in rows),
    }
    if eng is not None:
        summary["anchor_seconds_median"] = statistics.median(r["anchor_seconds"] for r in rows)
        summary["anchor_seconds_total"] = sum(r["anchor_seconds"] for r in rows)
        summary["same_move"] = sum(r["move"] == r["anchor_move"] for r in rows)
        if all("anchor_nodes" in r for r in rows):
            summary["anchor_nodes_total"] = sum(r["anchor_nodes"] for r in rows)
            summary["anchor_nodes_median"] = statistics.median(r["anchor_nodes"] for r in rows)
    print(json.dumps(summary))
    if a.out is not None:
        with a.out.open("a") as fh:
            fh.write(json.dumps({"depth": a.depth, "level": a.level, "rows": rows,
                                 "summary": summary, "load": os.getloadavg()}) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
