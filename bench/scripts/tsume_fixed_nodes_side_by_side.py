"""The compiled mate solver's speed, two source trees side by side (issue 40): each round,
each tree in a fresh process (``PYTHONPATH`` at its ``src``; its compiled code loaded
first) solves the problems of 13-31 plies of the shared suite with at most 800,000 nodes
each, and the CPU seconds and nodes are summed. The search is deterministic, so both trees
must count the same nodes; the figure is nodes per CPU second. The trees' order is
reversed every other round. One JSON line per run.

    .venv/bin/python bench/scripts/tsume_fixed_nodes_side_by_side.py --rounds 2 \\
        --tree head=/tmp/head/src --tree after=src --out bench/results/compile40/x.jsonl
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _rows import child_json, record, trees_in_turn

_CHILD = r"""
import json, time
from banmen.bench.tsume import group_of, tsume_rows
from banmen.games.shogi import tsume
from banmen.search.limits import Limit
tsume.warm_up()
nodes, cpu, rows = 0, 0.0, []
for r in tsume_rows():
    if group_of(r["mate_length"]) != "13-31":
        continue
    t0 = time.process_time()
    res = tsume.solve(r["sfen"], Limit(nodes=800_000, time=60), hash_mb=256)
    c = time.process_time() - t0
    nodes += res.nodes
    cpu += c
    rows.append([r["name"], res.nodes, round(c, 2), res.status, res.length])
print(json.dumps({"nodes": nodes, "cpu": round(cpu, 2), "knps": round(nodes / cpu / 1000, 1),
                  "rows": rows}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name, src in trees_in_turn(args.tree, args.rounds):
        record({"tree": name, **child_json(src, _CHILD)}, args.out)


if __name__ == "__main__":
    main()
