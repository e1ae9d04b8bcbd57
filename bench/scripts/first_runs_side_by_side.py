"""A user's first commands, before and after, side by side: each command from an empty
numba cache (a first run) and then again (warm), for two source trees in turn — item by
item, so both meet the machine in the same state — optionally beside ``busy`` busy-loop
processes (one per core: the "two busy loops" of a loaded 2-core machine). One JSON line
per run, appended as it ends.

    .venv/bin/python bench/scripts/first_runs_side_by_side.py \\
        --tree before=/tmp/orig/src --tree after=src --busy 0 \\
        --out bench/results/compile28/first-runs.jsonl

Each tree runs with the same interpreter and packages (``PYTHONPATH`` points at its
``src``); wall and CPU seconds (the child's user + system) are recorded.

``--second-clone`` measures, per command and tree, a user's second clone on a machine
where the first has run: with no ``NUMBA_CACHE_DIR`` and an empty user cache
(``XDG_CACHE_HOME``), the command runs in a copy of the tree (``first``), then in another
copy at another path (``second``); the copies have no ``__pycache__``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

from _rows import record

from banmen.bench.compile import FIRST_RUNS, timed_run


def _spin() -> None:
    while True:
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes beside")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", action="append", help="command names (default: all)")
    ap.add_argument("--second-clone", action="store_true",
                    help="a first clone, then a second one sharing the user's cache")  # fmt: skip
    args = ap.parse_args()
    trees = [t.split("=", 1) for t in args.tree]
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for s in spinners:
        s.start()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    try:
        for name, cmd in FIRST_RUNS.items():
            if args.only and name not in args.only:
                continue
            for tree, src in trees:
                if args.second_clone:
                    record(_two_clones(name, cmd, tree, Path(src)), args.out)
                    continue
                with tempfile.TemporaryDirectory(prefix="banmen-first-") as cache:
                    env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
                    env["NUMBA_CACHE_DIR"] = cache
                    env["PYTHONPATH"] = str(Path(src).resolve())
                    env.pop("PYTHONDONTWRITEBYTECODE", None)
                    argv = [sys.executable, "-m", "banmen", *cmd]
                    cold = timed_run(argv, env)
                    warm = timed_run(argv, env)
                record({"command": name, "tree": tree, "busy": args.busy, "cold": cold,
                        "warm": warm}, args.out)  # fmt: skip
    finally:
        for s in spinners:
            s.kill()


def _two_clones(name: str, cmd: list[str], tree: str, src: Path) -> dict[str, object]:
    import shutil

    with tempfile.TemporaryDirectory(prefix="banmen-clones-") as tmp:
        dropped = ("BANMEN_DEBUG", "NUMBA_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        runs = {}
        for clone in ("first", "second"):
            dest = Path(tmp) / clone / "src"
            shutil.copytree(src.resolve(), dest, ignore=shutil.ignore_patterns("__pycache__"))
            env["PYTHONPATH"] = str(dest)
            runs[clone] = timed_run([sys.executable, "-m", "banmen", *cmd], {**env})
    return {
        "command": name,
        "tree": tree,
        "mode": "two clones",
        **runs,
    }


if __name__ == "__main__":
    main()
