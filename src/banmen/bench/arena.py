"""Arena throughput: games per second with the local runner and on a Dask cluster."""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig

#: the two kinds of game the cluster benchmark plays: quick and slower
LOADS: dict[str, tuple[str, int | None, str]] = {
    "mattix-6x6-depth1": ("mattix", 6, "alphabeta:depth=1"),
    "othello-depth4": ("othello", None, "alphabeta:depth=4"),
}


def games_per_second(
    games: int,
    db: Path,
    name: str,
    workers: int | None = None,
    cluster: str | None = None,
    load: str = "mattix-6x6-depth1",
) -> float:
    """Steady-state rate (worker start-up and warm-up excluded: the clock starts once
    every worker has reported its first games) of ``load``'s player against itself."""
    game, size, spec = LOADS[load]
    store = ArenaStore(db)
    try:
        config = RunConfig(
            game=game,
            players=[{"name": "a", "spec": spec}, {"name": "b", "spec": spec}],
            games=games,
            seed=1,
            size=size,
        )
        run_id = store.create_run(config, name)
        return run_arena(store, run_id, workers, cluster=cluster).rate
    finally:
        store.close()


def scaling(games: int = 6000, repeats: int = 3) -> dict[str, Any]:
    rates: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory(prefix="banmen-arena-bench-") as tmp:
        for r in range(repeats):  # alternate, so drifts in machine speed hit both alike
            for w in (1, 2):
                db = Path(tmp) / f"bench-{r}-{w}.sqlite3"  # a fresh database per run
                rates[w].append(games_per_second(games, db, f"w{w}-{r}", workers=w))
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    return {
        "games_per_run": games,
        "repeats": repeats,
        "games_per_second_1_worker": one,
        "games_per_second_2_workers": two,
        "scaling": two / one,
        "runs": {str(k): v for k, v in rates.items()},
    }


def cluster_overhead(games: dict[str, int], repeats: int = 3) -> dict[str, Any]:
    """For each load: the local runner with 1 and 2 worker processes and ``--cluster
    local:1`` / ``local:2`` (a Dask LocalCluster, the driver committing), alternated run by
    run (in reverse order every other repeat, so a drift in machine speed hits all
    alike); the median run of each, the cluster path's overhead against the local runner at
    the same number of workers, and each path's scaling from 1 to 2 workers."""
    modes = {"local-1": (1, None), "cluster-1": (None, "local:1"),
             "local-2": (2, None), "cluster-2": (None, "local:2")}  # fmt: skip
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="banmen-cluster-bench-") as tmp:
        for load, n in games.items():
            runs: dict[str, list[float]] = {m: [] for m in modes}
            for r in range(repeats):
                order = list(modes.items())
                for mode, (workers, cluster) in order if r % 2 == 0 else order[::-1]:
                    db = Path(tmp) / f"{load}-{mode}-{r}.sqlite3"
                    rate = games_per_second(n, db, mode, workers, cluster, load)
                    runs[mode].append(rate)
            med = {m: statistics.median(v) for m, v in runs.items()}
            out[load] = {
                "games_per_run": n,
                "repeats": repeats,
                "games_per_second": med,
                "cluster_overhead_1": _less(med["cluster-1"], med["local-1"]),
                "cluster_overhead_2": _less(med["cluster-2"], med["local-2"]),
                "scaling_local": _ratio(med["local-2"], med["local-1"]),
                "scaling_cluster": _ratio(med["cluster-2"], med["cluster-1"]),
                "runs": runs,
            }
    return out


def _ratio(a: float, b: float) -> float | None:
    """``a / b``; ``None`` when a run was too short to have a steady rate."""
    return a / b if a > 0 and b > 0 else None


def _less(a: float, b: float) -> float | None:
    """How much less ``a`` is than ``b``, as a fraction of ``b`` (negative: more)."""
    r = _ratio(a, b)
    return None if r is None else 1 - r
