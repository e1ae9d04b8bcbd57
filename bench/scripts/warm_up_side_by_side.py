"""``banmen warm-up`` from an empty numba cache, for two source trees in turn (issue 40):
wall and CPU seconds (the child and its processes). ``PYTHONPATH`` points at each tree's
``src``; one JSON line per tree on stdout.

    .venv/bin/python bench/scripts/warm_up_side_by_side.py before=/tmp/before40/src after=src
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

from _rows import record


def main() -> None:
    trees = dict(arg.split("=", 1) for arg in sys.argv[1:])
    for tree, src in trees.items():
        with tempfile.TemporaryDirectory(prefix="banmen-warmup-") as tmp:
            env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
            env["NUMBA_CACHE_DIR"] = tmp
            env["PYTHONPATH"] = os.path.abspath(src)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "banmen", "warm-up", "--json"], env=env,
                               capture_output=True, text=True)  # fmt: skip
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        record({"tree": tree, "wall": round(wall, 2), "cpu": round(cpu, 2),
                "status": p.returncode})  # fmt: skip


if __name__ == "__main__":
    main()
