"""The arena on a Dask cluster: a real ``dask scheduler`` and ``dask worker`` processes on
127.0.0.1, killed workers, a killed driver, a worker that cannot start a player, and
``--cluster local:2`` against the local runner — every game once, the same games."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from banmen.arena.report import build_report
from banmen.arena.runner import Progress, run_arena
from banmen.arena.store import ArenaStore, RunConfig
from banmen.cli import app

distributed = pytest.importorskip("distributed")  # make test installs banmen[cluster]

runner = CliRunner()
DASK = str(Path(sys.executable).with_name("dask"))
PLAYERS = [{"name": "d4", "spec": "alphabeta:depth=4"}, {"name": "d5", "spec": "alphabeta:depth=5"}]
#: what a report holds that depends on the clock, not on the games
TIMING = ("mean_move_seconds", "this_session")

# Dask's scheduler and workers run as processes of their own: the ``server`` tier
pytestmark = pytest.mark.server


class Cluster:
    """A ``dask scheduler`` and its ``dask worker`` processes (no nanny: a killed worker
    stays dead), all on 127.0.0.1 with random ports."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.file = tmp / "scheduler.json"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.scheduler = self._start(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(self.file)], "scheduler"
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not self.file.exists():
            assert self.scheduler.poll() is None, self.log("scheduler")
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written in one go, but give it a moment
        self.address = json.loads(self.file.read_text())["address"]
        self.client = distributed.Client(self.address, timeout=30)

    def _start(self, argv: list[str], name: str, env: dict[str, str] | None = None) -> Any:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")[-3000:]

    def start_worker(self, name: str, env: dict[str, str] | None = None) -> str:
        """Start a worker and wait until it has joined; its address."""
        before = set(self.workers())
        if env is None:  # this Python's scripts (banmen, dask) on the PATH, as in a venv
            path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
            env = os.environ | {"PATH": path}
        self._start(
            [DASK, "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
             "--host", "127.0.0.1", "--name", name], name, env
        )  # fmt: skip
        deadline = time.monotonic() + 90
        while True:
            new = set(self.workers()) - before
            if new:
                return new.pop()
            assert time.monotonic() < deadline, self.log(name)
            time.sleep(0.1)

    def workers(self) -> list[str]:
        """The connected workers' addresses."""
        return list(self.client.scheduler_info(n_workers=-1)["workers"])

    def ensure_workers(self, n: int) -> None:
        while len(self.workers()) < n:
            self.start_worker(f"w{len(self.procs)}")

    def kill_worker(self, address: str) -> None:
        pid = int(self.client.run(os.getpid, workers=[address])[address])
        assert pid > 1
        os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        self.client.close()
        for proc in self.procs:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        c.ensure_workers(2)
        yield c
    finally:
        c.close()


def _config(games: int, seed: int) -> RunConfig:
    return RunConfig(game="mattix", players=PLAYERS, games=games, seed=seed, size=6)


def _rows(db: Path, run: str) -> dict[tuple[int, int, int], tuple[str, str]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT pairing, pair, swapped, moves, result FROM arena_games WHERE run_id = ?",
            (run,),
        ).fetchall()
    finally:
        con.close()
    return {(p, q, s): (m, r) for p, q, s, m, r in rows}


def _count(db: Path, run: str) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM arena_games WHERE run_id = ?", (run,))
                   .fetchone()[0])  # fmt: skip
    finally:
        con.close()


def _report(store: ArenaStore, run: str) -> dict[str, Any]:
    rep = build_report(store, run)
    for p in rep["players"]:
        p.pop("mean_move_seconds")
    rep.pop("run")
    return rep


def _local_run(tmp: Path, config: RunConfig) -> tuple[ArenaStore, str]:
    store = ArenaStore(tmp / "local.db")
    run = store.create_run(config, "local")
    run_arena(store, run, workers=1)
    return store, run


def test_a_worker_killed_mid_run_loses_only_its_games(cluster: Cluster, tmp_path: Path) -> None:
    cluster.ensure_workers(2)
    config = _config(400, 21)
    store = ArenaStore(tmp_path / "cluster.db")
    run = store.create_run(config, "c")
    victim = sorted(cluster.workers())[0]
    killed_at: list[int] = []
    under_way: list[str] = []

    def kill_once(p: Progress) -> None:
        # Once it is playing (a batch under way, another queued): kill it mid-batch.
        if not killed_at and p.done >= 60 and victim in p.seen_workers:
            killed_at.append(p.done)
            under_way.extend(cluster.client.processing([victim])[victim])
            cluster.kill_worker(victim)

    # Through the scheduler file, as a SLURM job would give it.
    progress = run_arena(store, run, on_progress=kill_once, cluster=str(cluster.file))
    assert killed_at and killed_at[0] < 400, "the worker was not killed mid-run"
    assert under_way, "the worker had no batch under way when it was killed"
    assert victim not in cluster.workers()
    rows = _rows(tmp_path / "cluster.db", "c")
    assert set(rows) == {(0, q, s) for q in range(200) for s in (0, 1)}  # every game, once
    assert progress.done == 400 and progress.replayed == 0
    assert store.status("c") == "done"
    # The same games as the local runner's with the same seeds, so the same report.
    local, lrun = _local_run(tmp_path, config)
    assert _rows(tmp_path / "local.db", lrun) == rows
    assert _report(store, "c") == _report(local, lrun)


def test_the_driver_killed_mid_run_resumes_against_the_same_cluster(
    cluster: Cluster, tmp_path: Path
) -> None:
    cluster.ensure_workers(2)
    db = tmp_path / "arena.db"
    args = ["arena", "mattix", "--size", "6", "-p", "d5=alphabeta:depth=5", "-p",
            "d6=alphabeta:depth=6", "--games", "3000", "--seed", "5", "--db", str(db),
            "--name", "k", "--cluster", cluster.address]  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "banmen", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 120
    while True:
        try:
            n = _count(db, "k") if db.exists() else 0
        except sqlite3.OperationalError:  # the tables are not made yet
            n = 0
        if n >= 100:
            break
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "no games were committed"
        time.sleep(0.05)
    proc.kill()  # the driver only: the cluster plays on, and forgets its tasks
    proc.wait()
    before = _rows(db, "k")
    assert 100 <= len(before) < 3000, "the driver was not killed mid-run"

    res = runner.invoke(app, ["arena", "--resume", "k", "--db", str(db), "--json",
                              "--cluster", cluster.address])  # fmt: skip
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    after = _rows(db, "k")
    assert set(after) == {(0, q, s) for q in range(1500) for s in (0, 1)}
    assert rep["games_played"] == 3000
    assert rep["this_session"]["played"] == 3000 - len(before)
    assert rep["this_session"]["replayed"] == 0
    assert all(after[key] == row for key, row in before.items())  # kept as they were


def test_external_engines_run_on_the_workers_and_stop_after(
    cluster: Cluster, tmp_path: Path
) -> None:
    cluster.ensure_workers(2)
    # An engine that takes a while to start: the set-up tasks outlast the driver's 1 s
    # waits for them (which once ended the run with a TimeoutError).
    gtp = "g=gtp:sh -c 'sleep 1.5; exec banmen gtp --engine random --size 5'"
    res = runner.invoke(app, ["arena", "go", "--size", "5", "-p", "r=random", "-p", gtp,
                              "--games", "4", "--db", str(tmp_path / "a.db"), "--json",
                              "--cluster", cluster.address])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games_played"] == 4

    def children() -> int:  # sent by value (cloudpickle): the workers cannot import tests
        import psutil  # a dependency of distributed

        from banmen._reaper import reaper_pid  # (it waits for the worker to end)

        return len([p for p in psutil.Process().children() if p.pid != reaper_pid()])

    assert set(cluster.client.run(children).values()) == {0}  # no GTP engine left running


def test_a_worker_that_cannot_start_a_player_is_named(cluster: Cluster, tmp_path: Path) -> None:
    """``banmen`` (as a GTP engine) is on the PATH of one worker and not of the other."""
    cluster.ensure_workers(2)
    bare = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin"}
    lost = cluster.start_worker("no-banmen", env=bare)
    db = tmp_path / "arena.db"
    gtp = "g=gtp:banmen gtp --engine random --size 5"
    res = runner.invoke(app, ["arena", "go", "--size", "5", "-p", "r=random", "-p", gtp,
                              "--games", "2", "--db", str(db), "--name", "x",
                              "--cluster", cluster.address])  # fmt: skip
    assert res.exit_code == 2
    line = res.output.strip().splitlines()[-1]
    assert line.startswith(f"error: worker {lost} cannot start player 'gtp:banmen gtp")
    # It failed before the first game: no run is left behind to resume.
    assert line.endswith("No game was played: run x not kept.") and "--resume" not in line
    assert "Traceback" not in res.output
    assert ArenaStore(db).run_ids() == []
    assert len([w for w in cluster.workers() if w != lost]) >= 2  # the others could
    cluster.kill_worker(lost)


def test_bad_cluster_values_give_one_line_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    base = ["arena", "mattix", "-p", "a=random", "-p", "b=random", "--games", "2", "--db", db]
    for value, expected in [
        ("local:0", "needs K >= 1"),
        ("nonsense", "takes a Dask scheduler's address"),
        ("tcp://127.0.0.1:1", "no Dask scheduler answered at tcp://127.0.0.1:1"),
        (str(tmp_path / "none.json"), "no Dask scheduler file"),
    ]:
        res = runner.invoke(app, [*base, "--cluster", value])
        assert res.exit_code == 2, res.output
        assert expected in res.output and "Traceback" not in res.output
    res = runner.invoke(app, [*base, "--cluster", "local:2", "--workers", "2"])
    assert res.exit_code == 2 and "--workers is for the local runner" in res.output


def test_local_cluster_plays_the_local_runners_games(tmp_path: Path) -> None:
    config = _config(200, 8)
    store = ArenaStore(tmp_path / "cluster.db")
    run = store.create_run(config, "c")
    progress = run_arena(store, run, cluster="local:2")
    assert progress.done == 200 and store.status("c") == "done"
    local, lrun = _local_run(tmp_path, config)
    assert _rows(tmp_path / "cluster.db", "c") == _rows(tmp_path / "local.db", lrun)
    assert _report(store, "c") == _report(local, lrun)


def test_sprt_on_a_cluster_decides_as_the_local_runner(tmp_path: Path) -> None:
    """The decision is taken pair by pair in order, so batches in flight cannot change it."""
    base = ["arena", "mattix", "--size", "4", "-p", "d2=alphabeta:depth=2", "-p", "r=random",
            "--games", "400", "--seed", "3", "--sprt", "0,150", "--json"]  # fmt: skip
    reports = []
    for where in (["--workers", "1"], ["--cluster", "local:2"]):
        res = runner.invoke(app, [*base, *where, "--db", str(tmp_path / f"{where[1]}.db")])
        assert res.exit_code == 0, res.output
        reports.append(json.loads(res.stdout))
    local, cluster = (r["pairings"][0]["sprt"] for r in reports)
    assert local["decision"] == "H1" and cluster == local
    assert all(r["games_played"] < 400 for r in reports)


def test_cluster_benchmark_rows() -> None:
    from banmen.bench.arena import cluster_overhead
    from banmen.cli.bench import _summary

    res = cluster_overhead({"mattix-6x6-depth1": 20}, repeats=1)["mattix-6x6-depth1"]
    assert set(res["games_per_second"]) == {"local-1", "cluster-1", "local-2", "cluster-2"}
    assert all(len(v) == 1 and v[0] >= 0 for v in res["runs"].values())
    rate = res["games_per_second"]
    if rate["local-2"] and rate["cluster-2"]:
        assert res["cluster_overhead_2"] == pytest.approx(1 - rate["cluster-2"] / rate["local-2"])
    else:  # a run too short for a steady rate has no ratio, rather than a division by zero
        assert res["cluster_overhead_2"] is None
    table = _summary({"results": {"arena-cluster": {"mattix-6x6-depth1": res}}})
    assert table.row_count == 1


def test_a_client_given_to_the_api_is_used_and_left_open(cluster: Cluster, tmp_path: Path) -> None:
    """As with dask-jobqueue: the caller makes the ``Client`` and keeps it."""
    cluster.ensure_workers(1)
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(_config(40, 2), "c")
    assert run_arena(store, run, cluster=cluster.client).done == 40
    assert cluster.client.status == "running"
    assert cluster.client.submit(sum, [1, 2], pure=False).result() == 3


def test_the_clocks_cross_the_cluster(tmp_path: Path) -> None:
    """A run on clocks (time odds) played by a Dask cluster's workers: each game's record
    keeps both players' controls and the clock left after every move of the player on
    one (the clocks ride in the specs' limits)."""
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=4, seed=2, size=4, players=[
        {"name": "a", "spec": "alphabeta", "tc": "30+0.1"},
        {"name": "b", "spec": "alphabeta:depth=2"}]), "c")  # fmt: skip
    assert run_arena(store, run, cluster="local:1").done == 4
    for g in store.games(run):
        clock = g.extra["clock"]
        a = 0 if g.first == "a" else 1
        assert clock["controls"][a] == "30+0.1" and clock["controls"][1 - a] is None
        left = clock["left"]
        assert len(left) == len(g.moves)
        mine = range(a, len(left), 2)  # (each move of a adds 0.1 s)
        assert all(left[k] is not None and 0 < left[k] <= 30 + 0.1 * (k // 2 + 1) for k in mine)
        assert all(left[k] is None for k in range(1 - a, len(left), 2))
