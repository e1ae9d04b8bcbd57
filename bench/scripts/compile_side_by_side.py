"""Each kernel set's compile, before and after, side by side: for every set, each source
tree in turn loads it in a fresh process from an empty numba cache (``banmen bench
compile``'s profile), so both meet the machine in the same state. One JSON line per run.

    .venv/bin/python bench/scripts/compile_side_by_side.py \\
        --tree before=/tmp/before/src --tree after=src \\
        --out bench/results/compile28/sets.jsonl

``--only go.search --rounds 4``: that set only, four rounds, the trees' order reversed
every other round.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from _rows import record

from banmen.bench.compile import profile_set
from banmen.warmup import kernel_sets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", action="append", help="set ids (default: every set)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds, the order alternating")
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    trees = [t.split("=", 1) for t in args.tree]
    sets = [ks for ks in kernel_sets(everything=True) if not args.only or ks.id in args.only]
    for rnd, ks in ((r, ks) for ks in sets for r in range(args.rounds)):
        for name, src in trees if rnd % 2 == 0 else trees[::-1]:
            os.environ["PYTHONPATH"] = str(Path(src).resolve())  # (the children's banmen)
            rec = profile_set(ks.id, top=8)
            record({"tree": name, **rec}, args.out, show=False)
            print(name, ks.id, rec["cold_wall_seconds"], rec["cold_cpu_seconds"],
                  rec["specialisations_banmen"], flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
