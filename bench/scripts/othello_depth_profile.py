"""Issue 40, "profile first": what banmen's Othello alpha-beta reaches at Egaroucid-web
level 10's time a move, and what its level (10 plies) costs banmen, on the same midgame
positions.

Egaroucid's web engine at level 10 searches 10 plies in the midgame (exact at 20 empties
or fewer) and took 67–75 ms a move in issue 38's equal-time matches. The positions: the
midgame plies (30 to 40 empties) of the games of an arena run (by default ``clk-othello``
in ``bench/results/issue39-clocks.sqlite3``). For each: banmen's ``alphabeta`` (the shipped
weights, a cold table) at ``--time`` seconds — the depth it completes and its nodes a
second — and at depth 10 — its seconds and nodes. One thread; positions in order.

Usage::

    .venv/bin/python bench/scripts/othello_depth_profile.py [--time 0.07] [--depth 10]
        [--positions 30] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from _arena_games import positions as arena_positions

from banmen.games.othello import Board
from banmen.games.othello.engine import OthelloEngine
from banmen.search.limits import Limit

ROOT = Path(__file__).resolve().parents[2]


def positions(db: Path, run: str, count: int) -> list[Board]:
    """Midgame positions with a choice: 30, 35 or 40 empties, in the run's games' order."""
    out: list[Board] = []
    for boards in arena_positions(db, run, "othello"):
        out += [b for b in boards if b.empties() in (30, 35, 40) and len(b.legal_moves) > 1]
        if len(out) >= count:
            break
    return out[:count]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time", type=float, default=0.07)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--db", type=Path, default=ROOT / "bench/results/issue39-clocks.sqlite3")
    ap.add_argument("--run", default="clk-othello")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    engine = OthelloEngine()
    engine.warm_up()
    rows = []
    for board in positions(a.db, a.run, a.positions):
        engine.new_game()
        timed = engine.think(board, Limit(time=a.time))
        engine.new_game()
        deep = engine.think(board, Limit(depth=a.depth))
        rows.append({"empties": board.empties(), "depth_at_time": timed.depth,
                     "nps_at_time": timed.nps, "seconds_to_depth": deep.seconds,
                     "nodes_to_depth": deep.nodes})  # fmt: skip
        print(
            f"{board.empties()} empties: {timed.depth} plies in {a.time:g} s "
            f"({timed.nps / 1e6:.2f} M nodes/s); depth {a.depth} in {deep.seconds:.3f} s, "
            f"{deep.nodes} nodes",
            flush=True,
        )
    summary = {
        "positions": len(rows),
        "depth_at_time_median": statistics.median(r["depth_at_time"] for r in rows),
        "depth_at_time_range": [min(r["depth_at_time"] for r in rows),
                                max(r["depth_at_time"] for r in rows)],
        "nps_median": statistics.median(r["nps_at_time"] for r in rows),
        "seconds_to_depth_median": statistics.median(r["seconds_to_depth"] for r in rows),
        "nodes_to_depth_median": statistics.median(r["nodes_to_depth"] for r in rows),
    }  # fmt: skip
    print(json.dumps(summary))
    if a.out is not None:
        a.out.write_text(
            json.dumps(
                {
                    "time": a.time,
                    "depth": a.depth,
                    "rows": rows,
                    "summary": summary,
                    "load": os.getloadavg(),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
