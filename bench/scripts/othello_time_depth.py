"""Issue 40, Othello: does more time change banmen's move? For midgame positions (30, 35
and 40 empties of an arena run's games, as ``othello_depth_profile.py`` picks them),
banmen's ``alphabeta`` (shipped weights, a cold table) at each time of ``--times``: the
nominal depth completed, the move and its value.

    .venv/bin/python bench/scripts/othello_time_depth.py [--times 0.1,0.4] [--positions 12]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from othello_depth_profile import positions

from banmen.games.othello.engine import OthelloEngine
from banmen.search.limits import Limit

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--times", default="0.1,0.4")
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--db", type=Path, default=ROOT / "bench/results/issue39-clocks.sqlite3")
    ap.add_argument("--run", default="clk-othello")
    a = ap.parse_args()
    times = [float(t) for t in a.times.split(",")]
    engine = OthelloEngine()
    engine.warm_up()
    same = 0
    boards = positions(a.db, a.run, a.positions)
    for board in boards:
        out, moves = [], []
        for t in times:
            engine.new_game()
            r = engine.think(board, Limit(time=t))
            moves.append(r.move)
            out.append(f"{t:g} s: depth {r.depth}, {r.move} {r.score:+.2f} ({r.nodes} nodes)")
        same += len(set(moves)) == 1
        print(f"{board.empties()} empties | " + " | ".join(out), flush=True)
    print(f"the same move at every time in {same} of {len(boards)}")


if __name__ == "__main__":
    main()
