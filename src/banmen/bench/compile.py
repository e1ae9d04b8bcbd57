"""Compile time: what a first run costs, per kernel set and per compiled function.

``banmen bench compile`` loads each kernel set (:mod:`banmen.warm`) in a fresh process
with an empty ``NUMBA_CACHE_DIR`` — a first run, everything the set needs compiled — and
records numba's ``numba:compile`` events: every function it compiled, for which argument
types (a *specialisation*), and how long each took *itself* (its own time, less the
compiles nested in it) and in all. A second fresh process then loads the same set from the
cache, which must compile nothing. Figures: wall and CPU seconds of each, the number of
specialisations, the functions compiled more than once and those specialised on a literal
argument (a constant passed where a variable would do: each distinct constant is a compile
of its own), and the slowest functions.

``first_runs`` times the commands of a user's first minutes from a cold cache and then
warm; ``warm_up_total`` the whole ``banmen warm-up`` from a cold cache, beside the sum of
the sets' CPU times.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["bench_compile", "first_runs", "profile_set", "timed_run", "warm_up_total"]

#: The child: load one set under numba's compile events and report them.
_CHILD = r"""
import json, sys, time
t_start = time.perf_counter()
from numba.core import event
from banmen.games.registry import get_game
from banmen.warm import ensure

game, _, name = sys.argv[1].partition(".")
ks = get_game(game).kernel_set(name)
t0, c0 = time.perf_counter(), time.process_time()
with event.install_recorder("numba:compile") as rec:
    ensure(ks)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
stack, rows = [], []
for ts, ev in rec.buffer:
    d = ev.data
    fn = d["dispatcher"].py_func
    if ev.is_start:
        stack.append([f"{fn.__module__}.{fn.__qualname__}", ts, 0.0,
                      [str(a) for a in d["args"]]])
    else:
        name_, start, nested, args = stack.pop()
        total = ts - start
        rows.append({"function": name_, "self": total - nested, "total": total, "args": args})
        if stack:
            stack[-1][2] += total
print(json.dumps({"wall": wall, "cpu": cpu, "import_and_load": time.perf_counter() - t_start,
                  "rows": rows}))
"""


def _child(set_id: str, cache: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
    env["NUMBA_CACHE_DIR"] = str(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD, set_id], env=env, capture_output=True,
                         text=True, timeout=3600)  # fmt: skip
    process_wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{set_id}: {out.stderr.strip().splitlines()[-1:]}")
    rec: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    rec["process_wall"] = process_wall
    rec["process_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rec


def _ours(name: str) -> bool:
    return name.startswith("banmen.")


def profile_set(set_id: str, top: int = 12) -> dict[str, Any]:
    """One set from a cold cache, then from the warm one (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="banmen-compile-") as tmp:
        cold = _child(set_id, Path(tmp))
        warm = _child(set_id, Path(tmp))
    rows = cold.pop("rows")
    by_fn: dict[str, dict[str, Any]] = {}
    for r in rows:
        f = by_fn.setdefault(r["function"], {"function": r["function"], "self": 0.0,
                                             "total": 0.0, "specialisations": 0})  # fmt: skip
        f["self"] += r["self"]
        f["total"] = max(f["total"], r["total"])
        f["specialisations"] += 1
    ours = [f for f in by_fn.values() if _ours(f["function"])]
    literal = sorted(
        {
            r["function"]
            for r in rows
            if _ours(r["function"]) and any("Literal[" in a for a in r["args"])
        }
    )
    for f in by_fn.values():
        f["self"] = round(f["self"], 3)
        f["total"] = round(f["total"], 3)
    return {
        "set": set_id,
        "cold_wall_seconds": round(cold["wall"], 3),
        "cold_cpu_seconds": round(cold["cpu"], 3),
        "cold_process_wall_seconds": round(cold["process_wall"], 3),
        "warm_load_seconds": round(warm["wall"], 3),
        "warm_process_wall_seconds": round(warm["process_wall"], 3),
        "warm_compiled": len(warm["rows"]),  # must be 0: everything from the cache
        "specialisations": len(rows),
        "specialisations_banmen": sum(1 for r in rows if _ours(r["function"])),
        "functions_banmen": len(ours),
        "compiled_more_than_once": sorted(
            (f["function"], f["specialisations"]) for f in ours if f["specialisations"] > 1
        ),
        "literal_specialisations": literal,
        "slowest_self": sorted(by_fn.values(), key=lambda f: -f["self"])[:top],
    }


def timed_run(argv: Sequence[str], env: dict[str, str]) -> dict[str, float | int]:
    """Run ``argv``: its wall and CPU seconds (the child's user + system) and exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(list(argv), env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": round(wall, 3), "cpu": round(cpu, 3), "status": out.returncode}


#: The commands of issue 28's table: a user's first minutes (and issue 40's first
#: Othello move: its engine's search and endgame solver, as the first move of a game
#: loads them).
FFO40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"
OTHELLO_START = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27 + " X"
FIRST_RUNS: dict[str, list[str]] = {
    "solve mattix 4x4": ["solve", "mattix", "3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6"],
    "solve shogi mate in 3": ["solve", "shogi", "3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"],
    "analyse go 9x9 --time 1": ["analyse", "go", "(;SZ[9]KM[7.5];B[ee])", "--time", "1"],
    "solve othello FFO #40": ["solve", "othello", FFO40],
    "analyse othello start --time 1": ["analyse", "othello", OTHELLO_START, "--time", "1"],
}


def first_runs(commands: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Each command from a cold cache (its own), then again warm: wall and CPU seconds."""
    import shutil

    script = shutil.which("banmen", path=str(Path(sys.executable).parent))
    banmen = [script] if script else [sys.executable, "-m", "banmen"]
    rows = {}
    for name, args in (commands or FIRST_RUNS).items():
        with tempfile.TemporaryDirectory(prefix="banmen-first-") as tmp:
            env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
            env["NUMBA_CACHE_DIR"] = tmp
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            cold = timed_run([*banmen, *args], env)
            warm = timed_run([*banmen, *args], env)
        rows[name] = {"cold": cold, "warm": warm}
    return rows


def warm_up_total(everything: bool = False) -> dict[str, Any]:
    """``banmen warm-up`` from a cold cache: wall and CPU seconds, and its report."""
    with tempfile.TemporaryDirectory(prefix="banmen-warmup-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
        env["NUMBA_CACHE_DIR"] = tmp
        argv = [sys.executable, "-m", "banmen", "warm-up", "--json"]
        if everything:
            argv.append("--all")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=3600)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(out.stdout) if out.returncode == 0 else {"error": out.stderr[-500:]}
    return {"all": everything, "wall": round(wall, 3), "cpu": round(cpu, 3),
            "jobs": os.cpu_count(), "report": report}  # fmt: skip


def bench_compile(sets: Sequence[str] | None = None, quick: bool = False) -> dict[str, Any]:
    """The ``compile`` suite: every set's profile, the first runs, the whole warm-up."""
    from banmen.warmup import kernel_sets

    ids = list(sets) if sets else [k.id for k in kernel_sets(everything=True)]
    if quick:
        ids = ids[:1]
    out: dict[str, Any] = {"sets": [profile_set(i) for i in ids]}
    if not quick:
        out["first_runs"] = first_runs()
        out["warm_up"] = warm_up_total()
        out["warm_up_all"] = warm_up_total(everything=True)
    return out
