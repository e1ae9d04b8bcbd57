"""Go's playout and search speed, two or more source trees side by side (issue 40): each
round, each tree in a fresh process (``PYTHONPATH`` at its ``src``, its compiled code
loaded from the cache first) measures

* ``playout_us_midgame``: CPU microseconds a playout of the policy alone from a middle-game
  9x9 position (:func:`banmen.bench.go._midgame`), the best of five batches of 4,000;
* ``empty`` and ``midgame``: the search's playouts a CPU second, 50,000 playouts from the
  empty board and from that position.

The trees' order is reversed every other round. One JSON line per run.

    .venv/bin/python bench/scripts/go_playout_speed_side_by_side.py --rounds 6 \\
        --tree head=/tmp/head/src --tree variant=src --out bench/results/compile40/x.jsonl
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _rows import child_json, record, trees_in_turn

_CHILD = r"""
import json, time
import numpy as np
from banmen.bench.go import _midgame
from banmen.games.go import Board
from banmen.games.go import policy as P
from banmen.games.go.engine import GoEngine
from banmen.search.limits import Limit

res = {}
for name, board in (("empty", Board(9)), ("midgame", _midgame(9))):
    e = GoEngine(seed=1)
    e.warm_up()
    e.think(board, Limit(nodes=2000))
    e.new_game()
    c0 = time.process_time()
    r = e.think(board, Limit(nodes=50000))
    res[name] = round(r.nodes / (time.process_time() - c0))
b = _midgame(9)
ctx = P.context(9, 7.5)
own = np.zeros(len(b.position.board), dtype=np.int64)
P.playout_ownership(ctx, b.position, 100, 1, own)
best = 1e9
for i in range(5):
    c0 = time.process_time()
    P.playout_ownership(ctx, b.position, 4000, i, own)
    best = min(best, time.process_time() - c0)
res["playout_us_midgame"] = round(best / 4000 * 1e6, 2)
print(json.dumps(res))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name, src in trees_in_turn(args.tree, args.rounds):
        speeds = child_json(src, _CHILD)
        record({"tree": name, "playouts_per_cpu_second": speeds}, args.out)


if __name__ == "__main__":
    main()
