"""What the arena's cluster path costs, for docs/DESIGN.md ("At 100 workers, on paper")
and docs/BENCHMARKS.md: a real ``dask scheduler`` and two ``dask worker`` processes on
127.0.0.1, Mattix 6x6 depth-1 and Othello depth-4 runs through them, and

* the driver's CPU per game and the scheduler's CPU per task;
* the store's commit rate for batches of 1,000 games (in the driver, alone);
* ``--cluster local:1`` with and without ``QUIET_WORKER`` (Dask's housekeeping wake-ups),
  alternated run by run.

Run: ``.venv/bin/python tools/bench_cluster_costs.py`` (needs ``banmen[cluster]``);
writes ``bench/results/cluster-costs-YYYYMMDD-HHMMSS.json``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import distributed

import banmen.arena.cluster as cluster
from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, GameRecord, RunConfig, encode_moves
from banmen.bench.arena import games_per_second

QUIET_ENV = {
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
    "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s",
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def driver_and_scheduler(tmp: Path) -> list[dict[str, Any]]:
    dask = str(Path(sys.executable).with_name("dask"))
    env = os.environ | QUIET_ENV | {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    file = tmp / "scheduler.json"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)],
                              stderr=subprocess.DEVNULL, env=env)]  # fmt: skip
    try:
        while not file.exists():
            time.sleep(0.1)
        time.sleep(0.3)
        address = json.loads(file.read_text())["address"]
        worker = [dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                  "--host", "127.0.0.1"]  # fmt: skip
        procs += [subprocess.Popen(worker, stderr=subprocess.DEVNULL, env=env) for _ in range(2)]
        with distributed.Client(address) as c:
            c.wait_for_workers(2)
        out = []
        loads = [("mattix", 6, "alphabeta:depth=1", 30000),
                 ("othello", None, "alphabeta:depth=4", 2000)]  # fmt: skip
        for game, size, spec, n in loads:
            store = ArenaStore(tmp / f"{game}.db")
            players = [{"name": "a", "spec": spec}, {"name": "b", "spec": spec}]
            run = store.create_run(RunConfig(game, players, n, 1, size), game)
            tasks: list[int] = []
            submit = cluster.ClusterPool.submit

            def counting(self: Any, jobs: Any, submit: Any = submit, tasks: Any = tasks) -> Any:
                tasks.append(len(jobs))
                return submit(self, jobs)

            cluster.ClusterPool.submit = counting  # type: ignore[method-assign]
            s0, d0, t0 = cpu_seconds(procs[0].pid), time.process_time(), time.monotonic()
            progress = run_arena(store, run, cluster=address)
            wall, driver = time.monotonic() - t0, time.process_time() - d0
            scheduler = cpu_seconds(procs[0].pid) - s0
            cluster.ClusterPool.submit = submit  # type: ignore[method-assign]
            out.append({
                "game": game, "spec": spec, "games": n, "tasks": len(tasks),
                "mean_batch": sum(tasks) / len(tasks), "max_batch": max(tasks),
                "wall_seconds": wall, "games_per_second": progress.rate,
                "driver_cpu_seconds": driver, "driver_cpu_us_per_game": driver / n * 1e6,
                "scheduler_cpu_seconds": scheduler,
                "scheduler_cpu_ms_per_task": scheduler / len(tasks) * 1e3,
            })  # fmt: skip
            print(out[-1], flush=True)
        return out
    finally:
        for p in procs:
            p.kill()
            p.wait()


def commit_rate(tmp: Path, games: int = 100_000, batch: int = 1000) -> float:
    store = ArenaStore(tmp / "commit.db")
    players = [{"name": "a", "spec": "random"}, {"name": "b", "spec": "random"}]
    run = store.create_run(RunConfig("mattix", players, 2, 1), "x")
    moves = [f"{i % 6}{i // 6}" for i in range(36)]
    records = [GameRecord(0, q, False, "a", "b", q, "1-0", 40, 30, moves, [0.0005] * 36)
               for q in range(games)]  # fmt: skip
    encoded = [encode_moves(r) for r in records]
    t = time.process_time()
    for i in range(0, games, batch):
        store.add_games(run, records[i : i + batch], encoded[i : i + batch])
    return games / (time.process_time() - t)


def quiet_or_not(tmp: Path, games: int = 15000, repeats: int = 4) -> dict[str, Any]:
    quiet = dict(cluster.QUIET_WORKER)
    runs: dict[str, list[float]] = {"quiet": [], "dask-defaults": []}
    for r in range(repeats):
        for mode in list(runs) if r % 2 == 0 else list(runs)[::-1]:
            cluster.QUIET_WORKER = quiet if mode == "quiet" else {}
            db = tmp / f"q-{mode}-{r}.db"
            runs[mode].append(games_per_second(games, db, mode, None, "local:1"))
            print(mode, round(runs[mode][-1]), flush=True)
    cluster.QUIET_WORKER = quiet
    med = {k: statistics.median(v) for k, v in runs.items()}
    return {"games_per_run": games, "median_games_per_second": med, "runs": runs,
            "gain": med["quiet"] / med["dask-defaults"] - 1}  # fmt: skip


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="banmen-cluster-costs-") as t:
        tmp = Path(t)
        record = {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "command": "python tools/bench_cluster_costs.py",
            "cores": os.cpu_count(),
            "load_average_at_start": os.getloadavg(),
            "driver_and_scheduler": driver_and_scheduler(tmp),
            "commit_games_per_cpu_second_batches_of_1000": commit_rate(tmp),
            "quiet_worker_mattix_depth1_local_1": quiet_or_not(tmp),
        }
    out = Path("bench/results") / f"cluster-costs-{dt.datetime.now():%Y%m%d-%H%M%S}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print("written:", out)


if __name__ == "__main__":
    main()
