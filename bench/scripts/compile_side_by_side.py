"""Each kernel set's compile, before and after, side by side: for every set, each source
tree in turn loads it in a fresh process from an empty numba cache (``banmen bench
compile``'s profile), so both meet the machine in the same state. One JSON line per run.

    .venv/bin/python bench/scripts/compile_side_by_side.py \\
        --tree before=/tmp/before/src --tree after=src \\
        --out bench/results/compile28/sets.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from banmen.bench.compile import profile_set
from banmen.warmup import kernel_sets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for ks in kernel_sets(everything=True):
        for name, src in (t.split("=", 1) for t in args.tree):
            os.environ["PYTHONPATH"] = str(Path(src).resolve())  # (the children's banmen)
            rec = profile_set(ks.id, top=8)
            row = {"tree": name, **rec, "load1": round(os.getloadavg()[0], 2),
                   "date": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip
            with args.out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(name, ks.id, rec["cold_wall_seconds"], rec["cold_cpu_seconds"],
                  rec["specialisations_banmen"], flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
