"""The cost of each route a user's AI takes into banmen (docs/YOUR_AI.md): Mattix games
per second with banmen's depth-1 alpha-beta in-process, the same search wrapped as a
``python:`` player (:mod:`banmen.bench.wrapped_player`), and the C example over UGI
(``examples/ugi/mattix_ugi.c``, built with ``cc``: a two-ply search of its own, so its
figure is the protocol's cost plus a search about as cheap).

Each route's player plays itself on one arena worker, so one process runs both sides'
searches and the games are alike; the routes alternate run by run, so a drift in the
machine's speed hits them all. The rate is the arena's steady-state rate (the worker's
start and the engines' warm-up excluded); a move's cost is a game's time over its plies.
``cpu_us_per_move`` is the CPU time of the worker and its children (a UGI engine's
process included) a move, less that of a two-game run of the same route (the start, the
imports and the warm-up): less noisy on a shared machine than the wall-clock rate.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig

#: where the C example sits in a clone of the repository
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "ugi" / "mattix_ugi.c"


def _build(tmp: Path) -> Path | None:
    cc = shutil.which("cc")
    if cc is None or not EXAMPLE.exists():
        return None
    exe = tmp / "mattix_ugi"
    subprocess.run([cc, "-O2", "-o", str(exe), str(EXAMPLE)], check=True)
    return exe


def _run(spec: str, games: int, size: int, db: Path, name: str) -> dict[str, float]:
    store = ArenaStore(db)
    try:
        config = RunConfig(
            game="mattix",
            players=[{"name": "a", "spec": spec}, {"name": "b", "spec": spec}],
            games=games,
            seed=1,
            size=size,
        )
        run_id = store.create_run(config, name)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        rate = run_arena(store, run_id, 1).rate
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        records = store.games(run_id)
    finally:
        store.close()
    plies = statistics.mean(len(g.moves) for g in records) if records else 0.0
    forfeits = sum(1 for g in records if "forfeit" in g.extra)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"games_per_second": rate, "plies_per_game": plies, "forfeits": forfeits,
            "cpu_seconds": cpu, "moves": plies * len(records)}  # fmt: skip


def bench_routes(games: int = 400, size: int = 6, repeats: int = 3) -> dict[str, Any]:
    """Games per second and microseconds a move for each route, medians of ``repeats``
    alternated runs of ``games`` games."""
    with tempfile.TemporaryDirectory(prefix="banmen-routes-") as tmp:
        exe = _build(Path(tmp))
        routes = {
            "in-process": "alphabeta:depth=1",
            "python": "python:banmen.bench.wrapped_player:Wrapped,depth=1",
        }
        if exe is not None:
            routes["ugi"] = f"ugi:depth=2 {exe}"
        runs: dict[str, list[dict[str, float]]] = {k: [] for k in routes}
        # a two-game run per route: the fixed CPU cost of starting (worker, imports,
        # warm-up, the engine's process), taken off the others' CPU time
        fixed = {route: _run(spec, 2, size, Path(tmp) / f"{route}-fixed.sqlite3", route + "-f")
                 for route, spec in routes.items()}  # fmt: skip
        for r in range(repeats):
            for route, spec in routes.items():
                db = Path(tmp) / f"{route}-{r}.sqlite3"
                runs[route].append(_run(spec, games, size, db, f"{route}-{r}"))
    out: dict[str, Any] = {
        "game": f"mattix {size}x{size}",
        "games_per_run": games,
        "repeats": repeats,
        "specs": routes,
        "ugi_example": "built with cc -O2" if exe is not None else "left out: no cc or no example",
    }
    base = None
    for route, rs in runs.items():
        rate = statistics.median(x["games_per_second"] for x in rs)
        plies = statistics.mean(x["plies_per_game"] for x in rs)
        per_move = 1e6 / (rate * plies) if rate > 0 and plies > 0 else None
        base = per_move if route == "in-process" else base
        out[route] = {
            "games_per_second": rate,
            "plies_per_game": plies,
            "us_per_move": per_move,
            "x_in_process": per_move / base if per_move and base else None,
            "cpu_us_per_move": 1e6
            * statistics.median(
                (x["cpu_seconds"] - fixed[route]["cpu_seconds"])
                / max(1.0, x["moves"] - fixed[route]["moves"])
                for x in rs
            ),
            "forfeits": sum(x["forfeits"] for x in rs),
            "runs": [x["games_per_second"] for x in rs],
        }
    return out
