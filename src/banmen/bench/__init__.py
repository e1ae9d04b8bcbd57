"""``banmen bench``: measured figures, written as JSON under ``bench/results/``.

Each suite returns a JSON-ready dict. A run records the machine, the versions and the
command beside the figures, so docs/BENCHMARKS.md can cite them. Speed is measured here,
never asserted in a test. Each suite imports its module when it runs, so a run of one
suite loads no other game (nor the web server).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy

__all__ = ["DEFAULT_SUITES", "SUITES", "machine", "run_suites"]


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": numpy.__version__,
    }


def _mattix_solve(quick: bool) -> dict[str, Any]:
    from banmen.bench.mattix import bench_solve

    return bench_solve(5 if quick else 20)


def _mattix_depth(quick: bool) -> dict[str, Any]:
    from banmen.bench.mattix import bench_depth

    return bench_depth([0] if quick else [0, 1, 2, 3, 4], seconds=1.0)


def _mattix_first_player(quick: bool) -> dict[str, Any]:
    from banmen.bench.mattix import first_player

    workers = min(2, os.cpu_count() or 1)
    return {
        "6x6": first_player(6, 20 if quick else 1000, workers),
        "4x4": first_player(4, 200 if quick else 10000, workers),
    }


def _deadline(quick: bool) -> dict[str, Any]:
    from banmen.bench.mattix import deadline_overshoot

    return deadline_overshoot(0.1, 10 if quick else 50)


def _arena_scaling(quick: bool) -> dict[str, Any]:
    from banmen.bench.arena import scaling

    return scaling(600 if quick else 20000, 1 if quick else 3)


def _arena_cluster(quick: bool) -> dict[str, Any]:
    from banmen.bench.arena import cluster_overhead

    if quick:
        return cluster_overhead({"mattix-6x6-depth1": 2000, "othello-depth4": 100}, 1)
    return cluster_overhead({"mattix-6x6-depth1": 30000, "othello-depth4": 2000}, 3)


def _train_selfplay(quick: bool) -> dict[str, Any]:
    from banmen.bench.train import throughput

    if quick:
        return throughput({"connect-four-depth4": 60}, 1)
    return throughput({"connect-four-depth4": 2000, "othello-depth2": 3000}, 3)


def _web_lag(quick: bool) -> dict[str, Any]:
    from banmen.web.lagbench import measure

    result: dict[str, Any] = measure(1.0)
    return result


def _othello_perft(quick: bool) -> dict[str, Any]:
    from banmen.bench.othello import bench_perft

    return bench_perft(9 if quick else 11, rounds=1 if quick else 5)


def _othello_midgame(quick: bool) -> dict[str, Any]:
    from banmen.bench.othello import bench_midgame

    return bench_midgame(depth=6 if quick else 9, n=5 if quick else 20, rounds=1 if quick else 3)


def _othello_ffo(quick: bool) -> dict[str, Any]:
    from banmen.bench.othello import bench_ffo

    return bench_ffo([40] if quick else list(range(40, 50)))


def _othello_ffo_hard(quick: bool) -> dict[str, Any]:
    from banmen.bench.othello import bench_ffo

    return bench_ffo([50] if quick else list(range(50, 60)), time_limit=60.0 if quick else 600.0)


def _analysis(quick: bool) -> dict[str, Any]:
    from banmen.bench.analysis import (
        bench_go_analysis,
        bench_mattix_analysis,
        bench_othello_analysis,
    )

    return {
        "mattix_6x6": bench_mattix_analysis([0] if quick else [0, 1, 2, 3, 4]),
        "othello": bench_othello_analysis([20] if quick else [20, 22, 24], n=1 if quick else 2),
        "go_19x19": bench_go_analysis(19, 1.0 if quick else 2.0, 1 if quick else 5),
    }


def _go_playouts(quick: bool) -> dict[str, Any]:
    from banmen.bench.go import bench_mcts_playouts, bench_policies, bench_random_playouts

    k = 10 if quick else 1
    return {
        "random_9x9": bench_random_playouts(9, 200_000 // k),
        "random_19x19": bench_random_playouts(19, 40_000 // k),
        "mcts_9x9": bench_mcts_playouts(9, 100_000 // k),
        "mcts_19x19": bench_mcts_playouts(19, 20_000 // k),
        "policies_9x9": bench_policies(9, 20_000 // k, 1 if quick else 5),
        "policies_19x19": bench_policies(19, 5_000 // k, 1 if quick else 5),
    }


def _go_threads(quick: bool) -> dict[str, Any]:
    from banmen.bench.go import bench_threads

    k = 10 if quick else 1
    rounds = 1 if quick else 5
    return {
        "threads_9x9": bench_threads(9, 60_000 // k, rounds),
        "threads_19x19": bench_threads(19, 12_000 // k, rounds),
    }


def _shogi_kernel(quick: bool) -> dict[str, Any]:
    from banmen.bench.shogi_kernel import bench_kernel

    return bench_kernel(quick=quick)


def _tsume(quick: bool) -> dict[str, Any]:
    from banmen.bench.tsume import bench_tsume, tsume_limit, tsume_rows

    return bench_tsume(tsume_rows(), tsume_limit(5.0 if quick else 30.0))


def _tsume_quick(quick: bool) -> dict[str, Any]:
    from banmen.bench.tsume import bench_tsume, quick_rows, tsume_limit, tsume_rows

    return bench_tsume(quick_rows(tsume_rows()), tsume_limit(1.0 if quick else 5.0))


def _time_limits(quick: bool) -> dict[str, Any]:
    from banmen.bench.timelimits import bench_time_limits

    if quick:
        return bench_time_limits(limits=(0.5,), runs=2)
    return bench_time_limits(limits=(0.5, 2.0), runs=6)


def _routes(quick: bool) -> dict[str, Any]:
    from banmen.bench.routes import bench_routes

    return bench_routes(games=40 if quick else 400, repeats=1 if quick else 3)


def _compile(quick: bool) -> dict[str, Any]:
    from banmen.bench.compile import bench_compile

    return bench_compile(quick=quick)


def _cli_startup(quick: bool) -> dict[str, Any]:
    from banmen.bench.startup import startup

    return startup(runs=3 if quick else 10)


SUITES: dict[str, tuple[str, Callable[[bool], dict[str, Any]]]] = {
    "mattix-solve": ("exact solves of seeded 6x6 deals", _mattix_solve),
    "mattix-depth": (
        "depth reached in 1 s: plain negamax, plain alpha-beta, banmen",
        _mattix_depth,
    ),
    "mattix-first-player": ("perfect-play first-player advantage", _mattix_first_player),
    "search-deadline": ("how far past a 0.1 s deadline a search returns", _deadline),
    "arena-scaling": ("arena games/s, Mattix 6x6 depth-1 pairs, 1 and 2 workers", _arena_scaling),
    "arena-cluster": (
        "arena games/s: local runner and Dask --cluster local:K, 1 and 2 workers, "
        "Mattix depth-1 and Othello depth-4 (needs the cluster extra)",
        _arena_cluster,
    ),
    "train-selfplay": (
        "banmen train's self-play: positions a second on 1 and 2 workers and on "
        "--cluster local:2, Connect Four depth 4 and Othello depth 2 (needs the cluster extra)",
        _train_selfplay,
    ),
    "time-limits": (
        "overrun of time limits by every engine and front end, with two busy loops",
        _time_limits,
    ),
    "web-lag": ("web server event-loop lag during a 1 s search", _web_lag),
    "othello-perft": (
        "Othello perft 11 from the start: moves made per second; bulk-counted beside Edax "
        "and Egaroucid",
        _othello_perft,
    ),
    "othello-midgame": (
        "Othello midgame search to depth 9 on 20 positions: nodes per CPU second with the "
        "hand-set evaluation, the learned patterns, and with ProbCut",
        _othello_midgame,
    ),
    "othello-ffo": ("Othello FFO #40-#49 exact, one thread", _othello_ffo),
    "othello-ffo-hard": ("Othello FFO #50-#59, at most 10 minutes each", _othello_ffo_hard),
    "analysis": (
        "analysis: seconds until every move is proved (Mattix 6x6 deals; Othello at 20, 22 "
        "and 24 empties beside Egaroucid's hint); Go 19x19 simulations/s with analysis "
        "streaming against without",
        _analysis,
    ),
    "go-playouts": (
        "Go playouts/s on 9x9 and 19x19: random, and the engine's search (hand-set "
        "priors, learned priors, learned playouts alternated)",
        _go_playouts,
    ),
    "go-threads": (
        "Go search with 1 and 2 threads on one tree, alternated: simulations/s and speed-up",
        _go_threads,
    ),
    "shogi-kernel": (
        "shogi kernels beside cshogi: perft 5 from the start, checks/evasions/mate-in-1 calls",
        _shogi_kernel,
    ),
    "tsume": (
        "tsume-shogi suite: banmen, cshogi's DfPn and KomoringHeights (when built), "
        "30 s per problem (60 s over 40 plies), one thread each",
        _tsume,
    ),
    "tsume-quick": (
        "tsume-shogi problems of 1-11 plies, the same three solvers, 5 s per problem",
        _tsume_quick,
    ),
    "compile": (
        "compile time: each kernel set from a cold cache in a fresh process (per function "
        "and specialisation), then its load from the warm cache; a user's first commands "
        "cold and warm; the whole banmen warm-up from a cold cache",
        _compile,
    ),
    "cli-startup": (
        "banmen commands in fresh processes (median wall and CPU time), and the floors",
        _cli_startup,
    ),
    "your-ai-routes": (
        "Mattix games per second by the routes a user's AI takes: banmen's depth-1 "
        "alpha-beta in-process, the same wrapped as a python: player, the C example over UGI",
        _routes,
    ),
}

#: Suites ``banmen bench`` runs when none is named (the rest take hours, or tens of minutes).
DEFAULT_SUITES = [name for name in SUITES if name not in ("othello-ffo-hard", "tsume")]


def run_suites(
    names: list[str],
    quick: bool,
    out_dir: Path,
    progress: Callable[[str], None] = lambda s: None,
) -> tuple[dict[str, Any], Path]:
    """Run ``names`` (all if empty) and write one JSON file; returns it and its path."""
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        raise ValueError(f"unknown benchmark {unknown[0]!r}: expected one of {', '.join(SUITES)}")
    chosen = names or DEFAULT_SUITES
    started = _dt.datetime.now(_dt.UTC)
    record: dict[str, Any] = {
        "date": started.isoformat(timespec="seconds"),
        "command": "banmen bench " + " ".join(sys.argv[2:]) if len(sys.argv) > 1 else "",
        "quick": quick,
        "machine": machine(),
        "results": {},
    }
    for name in chosen:
        progress(f"{name}: {SUITES[name][0]} …")
        t0 = time.perf_counter()
        record["results"][name] = SUITES[name][1](quick)
        record["results"][name]["suite_seconds"] = time.perf_counter() - t0
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = started.strftime("%Y%m%d-%H%M%S")
    path = out_dir / f"bench-{stamp}{'-quick' if quick else ''}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    return record, path
