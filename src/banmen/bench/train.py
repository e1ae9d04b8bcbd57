"""Self-play throughput of ``banmen train``: positions a second, on 1 and 2 local worker
processes and on a Dask ``LocalCluster`` of 2 (``--cluster local:2``), alternated.

The rate is the steady state's: the clock starts once every worker has delivered a
batch (worker start-up and the engines' warm-up left out, as the arena's benchmark does)
and stops at the last game. A position is one labelled position stored.
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

#: the loads: game, evaluator, search depth, exact labels within this many plies
LOADS: dict[str, tuple[str, str, int, int | None]] = {
    "connect-four-depth4": ("connect-four", "ntuple", 4, None),
    "othello-depth2": ("othello", "patterns", 2, 10),
}


def selfplay_rate(load: str, games: int, workers: int = 1, cluster: str | None = None) -> float:
    """Positions a second of ``games`` self-play games of ``load`` (steady state)."""
    from banmen.games.registry import get_game, why_not
    from banmen.train.loop import Event, RunSettings, new_run, play_selfplay, run_folder
    from banmen.train.selfplay import Settings
    from banmen.train.store import TrainStore
    from banmen.train.trainers import trainer_for

    game_name, evaluator, depth, exact = LOADS[load]
    game = get_game(game_name)
    trainer = trainer_for(game, evaluator)
    with tempfile.TemporaryDirectory(prefix="banmen-train-bench-") as tmp:
        db = Path(tmp) / "bench.sqlite3"
        store = TrainStore(db)
        client = None
        stack = contextlib.ExitStack()
        try:
            new_run(store, "bench", RunSettings(game_name, evaluator, str(Path(tmp) / "w.npz")))
            start = run_folder(db, "bench") / "start.npz"
            solver = "perfect" if why_not(game, "perfect") is None else None
            settings = Settings(game_name, None, trainer.player(f"alphabeta:depth={depth}", start),
                                solver, exact if exact is not None else trainer.exact_plies,
                                0.1, trainer.units, trainer.bound, 1, 0)  # fmt: skip
            slots = workers
            if cluster is not None:
                from banmen.arena.cluster import connected

                client = stack.enter_context(connected(cluster))
                slots = max(1, len(client.scheduler_info()["workers"]))
            marks: list[tuple[float, int, int]] = []

            def on_event(e: Event) -> None:
                marks.append((time.perf_counter(), e.done, int(e.summary.get("positions", 0))))

            play_selfplay(store, "bench", 0, settings, games, workers, client, on_event)
        finally:
            try:
                stack.close()
            finally:
                store.close()
    batches = [m for m in marks if m[2] > 0]
    if len(batches) <= slots:
        return 0.0
    t0, _, p0 = batches[slots - 1]  # every worker has delivered once
    t1, _, p1 = batches[-1]
    return (p1 - p0) / (t1 - t0) if t1 > t0 else 0.0


def throughput(games: dict[str, int], repeats: int = 3) -> dict[str, Any]:
    """Each load on 1 worker, 2 workers and ``local:2``, ``repeats`` times alternated."""
    out: dict[str, Any] = {"repeats": repeats, "games": games, "loads": {}}
    for load, n in games.items():
        rates: dict[str, list[float]] = {"workers-1": [], "workers-2": [], "cluster-local-2": []}
        for _ in range(repeats):
            rates["workers-1"].append(selfplay_rate(load, n, 1))
            rates["workers-2"].append(selfplay_rate(load, n, 2))
            rates["cluster-local-2"].append(selfplay_rate(load, n, 1, "local:2"))
        med = {k: statistics.median(v) for k, v in rates.items()}
        one = med["workers-1"]
        out["loads"][load] = {
            "positions_per_second": med,
            "runs": rates,
            "workers_2_over_1": med["workers-2"] / one if one else None,
            "cluster_local_2_over_workers_1": med["cluster-local-2"] / one if one else None,
        }
    return out
