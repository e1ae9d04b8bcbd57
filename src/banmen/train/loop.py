"""A training run: iterations of self-play, fit and gate (:mod:`banmen.train`), resumable.

:func:`new_run` records a run (its configuration and first weights) in the arena's
SQLite file; :func:`train` plays its iterations, resuming where the file says it stopped:
the self-play games not yet stored are played (a game is a function of its seed: the
same as if never stopped), the fit is redone from the stored games if its candidate was
not stored, the gate's arena run (``NAME-gate-K``) is resumed as any arena run is. The
run's files — each iteration's weights and candidate, what the gate's players read — are
written from the database to ``<database folder>/train/NAME/``; the kept weights are
copied to the run's ``out`` file after every iteration.

Everything that decides which weights are kept is a function of the run's seed: the
deals, the random moves, each search (an engine forgets its table between games), the
fit (lsqr on the games in order), and the gate's SPRT, which is read pair by pair in
order (:func:`banmen.arena.runner.sprt_decisions`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from banmen.arena.runner import batch_size
from banmen.train.fit import Labels, fit_weights
from banmen.train.selfplay import SelfPlayGame, Settings, play_batch
from banmen.train.store import TrainStore
from banmen.train.trainers import ChoiceTrainer, LinearTrainer, Trainer, trainer_for

__all__ = ["RunSettings", "new_run", "train", "run_folder", "Event", "TrainError", "play_selfplay"]


class TrainError(RuntimeError):
    """A run that cannot go on (one line: what and why)."""


@dataclass
class RunSettings:
    """A run's configuration (stored as JSON with it)."""

    game: str
    evaluator: str
    out: str
    games: int = 200
    iterations: int = 4
    seed: int = 1
    size: int | None = None
    depth: int | None = None
    #: the playouts a move of a playout search (Go's ``mcts``), ``None``: the trainer's
    playouts: int | None = None
    exact_plies: int | None = None
    randomness: float = 0.1
    labels: str = "mix"
    #: the iterations whose games a fit reads (the last ones)
    window: int = 2
    #: lsqr's damping (``None``: the trainer's)
    damp: float | None = None
    #: what the damping pulls a weight toward: ``"previous"``, the weights the iteration
    #: starts from (a weight its positions say little about keeps its value), or
    #: ``"zero"`` (the runs recorded before this setting)
    damp_toward: str = "previous"
    lsqr_iterations: int = 300
    #: the gate: games per pairing at most, the SPRT's Elo bounds and error rates
    gate_games: int = 400
    gate_elo: tuple[float, float] = (0.0, 40.0)
    alpha: float = 0.05
    beta: float = 0.05
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        d = asdict(self)
        d["gate_elo"] = list(self.gate_elo)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunSettings:
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        known.setdefault("damp_toward", "zero")  # (recorded before there was a choice)
        if "gate_elo" in known:
            known["gate_elo"] = tuple(known["gate_elo"])
        return cls(**known)


@dataclass
class Event:
    """What the run tells its caller: ``phase`` (``selfplay``, ``fit``, ``gate``,
    ``iteration``), how far (``done`` of ``total``) and, at an iteration's end, its
    summary."""

    phase: str
    iteration: int
    done: int = 0
    total: int = 0
    summary: dict[str, Any] = field(default_factory=dict)


def run_folder(db: Path, name: str) -> Path:
    """Where a run's weights files live: beside the database."""
    return db.parent / "train" / name


def _search(t: Trainer, s: RunSettings) -> str:
    return t.search(s.depth, s.playouts)


def new_run(store: TrainStore, name: str, s: RunSettings) -> None:
    """Record the run ``name`` (one :class:`ValueError` line if the name is taken, the
    game cannot train the evaluator, or ``--from`` is not a weights file of it)."""
    from banmen.games.registry import get_game

    game = get_game(s.game)
    trainer = trainer_for(game, s.evaluator)
    if name in store.names():
        raise ValueError(f"a training run named {name!r} exists already: choose another "
                         f"--name, or continue it with --resume {name}")  # fmt: skip
    trainer.search(s.depth, s.playouts)  # (an option the search has no use for: one line)
    folder = run_folder(store.path, name)
    folder.mkdir(parents=True, exist_ok=True)
    first = folder / "start.npz"
    trainer.start(first, Path(s.source) if s.source else None, s.size)
    store.create_run(name, s.game, s.evaluator, s.to_dict(), first.read_bytes())


def _write(path: Path, data: bytes) -> Path:
    if not path.exists() or path.read_bytes() != data:
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path


# --------------------------------------------------------------------------- self-play


def _watch(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def _init_worker(parent: int, settings: Settings) -> None:
    from banmen.train.selfplay import warm

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    warm(settings)


def play_selfplay(store: TrainStore, name: str, k: int, settings: Settings, games: int,
              workers: int, client: Any, on_event: Callable[[Event], None]) -> float:  # fmt: skip
    """Play and store the games of iteration ``k`` not stored yet; the positions a second
    a worker (0 if none were played)."""
    have = store.game_indices(name, k)
    todo = [i for i in range(games) if i not in have]
    on_event(Event("selfplay", k, len(have), games))
    if not todo:
        return 0.0
    played_positions = 0
    busy = 0.0
    done = len(have)
    game_seconds: list[float] = []

    def took(batch: list[SelfPlayGame]) -> None:
        nonlocal played_positions, busy, done
        store.add_games(name, k, batch)
        played_positions += sum(g.states.shape[0] for g in batch)
        busy += sum(g.seconds for g in batch)
        game_seconds.extend(g.seconds for g in batch)
        done += len(batch)
        on_event(Event("selfplay", k, done, games, {"positions": played_positions}))

    ex: ProcessPoolExecutor | None = None
    if client is not None:
        slots = max(1, len(client.scheduler_info().get("workers", {})))

        def submit(chunk: list[int]) -> Any:
            return client.submit(play_batch, settings, chunk, pure=False)

        def first_done(pending: list[Any]) -> list[Any]:
            from distributed import wait as dask_wait

            ready = dask_wait(pending, return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
            return list(ready.done)
    else:
        slots = workers
        spawn = multiprocessing.get_context("spawn")
        ex = ProcessPoolExecutor(workers, mp_context=spawn, initializer=_init_worker,
                                 initargs=(os.getpid(), settings))  # fmt: skip

        def submit(chunk: list[int]) -> Any:
            assert ex is not None
            return ex.submit(play_batch, settings, chunk)

        def first_done(pending: list[Any]) -> list[Any]:
            return list(wait(pending, return_when=FIRST_COMPLETED).done)

    pending: dict[Any, list[int]] = {}
    queue = list(todo)
    # a Dask task costs the scheduler more than a local one: longer tasks on a cluster
    task_seconds, most = (TASK_SECONDS, 64) if client is None else (CLUSTER_TASK_SECONDS, 256)
    try:
        while queue or pending:
            while queue and len(pending) < 2 * slots:
                # a task is about task_seconds of play (one pair until games are timed):
                # quick games in batches, so a task's overhead stays small
                size = min(len(queue), batch_size(game_seconds, task_seconds, most, len(queue),
                                                  slots))  # fmt: skip
                chunk, queue = queue[:size], queue[size:]
                pending[submit(chunk)] = chunk
            for fut in first_done(list(pending)):
                pending.pop(fut)
                took(fut.result())
    except BaseException:
        if client is not None:
            client.cancel(list(pending))
        else:
            assert ex is not None
            for fut in pending:
                fut.cancel()
            for proc in list(getattr(ex, "_processes", {}).values()):
                try:
                    proc.kill()
                except Exception:  # pragma: no cover - gone already
                    pass
            ex.shutdown(wait=False, cancel_futures=True)
        raise
    if ex is not None:
        ex.shutdown(wait=True)
    return played_positions / busy if busy > 0 else 0.0


#: the play time a self-play task aims at (its games batched to it), on local workers
#: and on a Dask cluster
TASK_SECONDS = 0.5
CLUSTER_TASK_SECONDS = 2.0


# --------------------------------------------------------------------------- the gate


def _gate(db: Path, name: str, k: int, s: RunSettings, trainer: Trainer, candidate: Path,
          previous: Path, workers: int, cluster: Any,
          on_event: Callable[[Event], None]) -> dict[str, Any]:  # fmt: skip
    """Play (or resume) the gate's arena run and read its decision."""
    from banmen.arena.runner import Progress, run_arena, sprt_decisions
    from banmen.arena.store import ArenaStore, RunConfig
    from banmen.games.registry import parse_spec
    from banmen.stats import wilson

    search = _search(trainer, s)
    players = [("new", trainer.player(search, candidate)),
               ("previous", trainer.player(search, previous)),
               ("baseline", trainer.baseline(search))]  # fmt: skip
    run_id = f"{name}-gate-{k}"
    store = ArenaStore(db)
    try:
        if run_id not in store.run_ids():
            config = RunConfig(
                game=s.game,
                players=[{"name": n, "spec": t, "parsed": parse_spec(t, s.game).to_dict()}
                         for n, t in players],  # fmt: skip
                games=s.gate_games, seed=s.seed * 1000 + k, size=s.size, gauntlet="new",
                sprt=list(s.gate_elo), alpha=s.alpha, beta=s.beta,
            )  # fmt: skip
            store.create_run(config, run_id)
        config = store.run_config(run_id)

        def progress(p: Progress) -> None:
            on_event(Event("gate", k, p.done, p.total))

        run_arena(store, run_id, workers=workers, on_progress=progress, cluster=cluster)
        games = store.games(run_id)
        decisions = sprt_decisions(config, games)
    finally:
        store.close()
    out: dict[str, Any] = {"run": run_id}
    for index, opponent in ((0, "previous"), (1, "baseline")):
        mine = [g for g in games if g.pairing == index]
        points = sum(g.points_first() if g.first == "new" else 1 - g.points_first() for g in mine)
        n = len(mine)
        score = points / n if n else 0.5
        lo, hi = wilson(points, n) if n else (0.0, 1.0)
        d = decisions.get(index, {})
        out[opponent] = {"games": n, "points": points, "score": score,
                         "elo": _elo(score), "elo_ci": [_elo(lo), _elo(hi)],
                         "llr": d.get("llr"), "decision": d.get("decision")}  # fmt: skip
    out["passed"] = out["previous"]["decision"] == "H1"
    return out


def _elo(score: float) -> float | None:
    """The Elo difference a score means (``None`` at 0 or 1: beyond measure)."""
    from banmen.stats import elo_from_score

    return elo_from_score(score) if 0.0 < score < 1.0 else None


# --------------------------------------------------------------------------- the loop


def train(db: Path, name: str, workers: int = 1, cluster: Any = None,
          on_event: Callable[[Event], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Play the run ``name`` to its last iteration (resuming it); returns its summary."""
    from banmen.games.registry import get_game, parse_spec, why_not

    emit = on_event or (lambda e: None)
    store = TrainStore(db)
    client = None
    stack = contextlib.ExitStack()
    try:
        run = store.run(name)
        s = RunSettings.from_dict(run.config)
        game = get_game(s.game)
        trainer = trainer_for(game, s.evaluator)
        folder = run_folder(db, name)
        folder.mkdir(parents=True, exist_ok=True)
        store.set_status(name, "running")
        if cluster is not None:
            from banmen.arena.cluster import connected

            client = stack.enter_context(connected(cluster))
        current = store.start_weights(name)
        exact = "perfect" if why_not(game, "perfect") is None else None
        exact_plies = s.exact_plies if s.exact_plies is not None else trainer.exact_plies
        summaries = []
        for k in range(s.iterations):
            it = store.iteration(name, k)
            cur_path = _write(folder / f"weights-{k}.npz", current)
            if it is not None and it.kept is not None:
                if it.kept and it.candidate is not None:
                    current = it.candidate
                summaries.append(_summary(it))
                continue
            weights_now = trainer.read(cur_path)
            zero = not np.any(weights_now)
            store.begin_iteration(name, k, zero)
            it = store.iteration(name, k)
            assert it is not None
            zero = it.zero
            settings = Settings(s.game, s.size, trainer.player(_search(trainer, s), cur_path),
                                exact, exact_plies, s.randomness, trainer.units, trainer.bound,
                                s.seed, k)  # fmt: skip
            parse_spec(settings.player, game)  # (a bad spec is one line, before any worker)
            t0 = time.perf_counter()
            rate = play_selfplay(store, name, k, settings, s.games, workers, client, emit)
            selfplay_seconds = time.perf_counter() - t0
            cand_path = folder / f"candidate-{k}.npz"
            if it.candidate is None:
                from banmen.train.fit import fit_set
                from banmen.warm import ensure

                ensure(fit_set(s.game, s.evaluator))  # (said, if it must compile)
                emit(Event("fit", k))
                window = list(range(max(0, k - s.window + 1), k + 1))
                zeros = {i.iteration: i.zero for i in store.iterations(name)}
                games = ((g, zeros.get(g_k, False)) for g_k in window
                         for g in store.games(name, [g_k]))  # fmt: skip
                meta = {"trained": f"banmen train {name}, iteration {k}"}
                fresh = folder / f"candidate-{k}.new.npz"

                def fitting(phase: str, n: int, k: int = k) -> None:
                    emit(Event("fit", k, n, 0, {"step": phase}))

                if isinstance(trainer, ChoiceTrainer):
                    figures = trainer.fit((g for g, _zero in games), s.size, cur_path, fresh,
                                          meta, fitting)  # fmt: skip
                else:
                    assert isinstance(trainer, LinearTrainer)
                    result = fit_weights(
                        games, trainer.features(cur_path), len(weights_now), weights_now,
                        folder, Labels(s.labels),
                        s.damp if s.damp is not None else trainer.damp, s.lsqr_iterations,
                        trainer.bound,
                        fitting,
                        weights_now if s.damp_toward == "previous" else None,
                    )  # fmt: skip
                    meta["positions"] = str(result.positions)
                    trainer.write(fresh, cur_path, result.weights, meta)
                    figures = {**result.to_dict(), "error": "rmse",
                               "held_out_error": result.rmse,
                               "held_out_error_before": result.rmse_before}  # fmt: skip
                fit = {**figures, "selfplay_seconds": round(selfplay_seconds, 2),
                       "positions_per_second": round(rate, 1),
                       "positions_this_iteration": store.positions(name, k)}  # fmt: skip
                store.set_candidate(name, k, fresh.read_bytes(), fit)
                fresh.unlink()
                it = store.iteration(name, k)
                assert it is not None and it.candidate is not None
            _write(cand_path, it.candidate)
            gate = _gate(db, name, k, s, trainer, cand_path, cur_path, workers,
                         client if client is not None else None, emit)  # fmt: skip
            store.finish_iteration(name, k, gate, bool(gate["passed"]))
            if gate["passed"]:
                current = it.candidate
            _write_out(Path(s.out), current)
            it = store.iteration(name, k)
            assert it is not None
            summary = _summary(it)
            summaries.append(summary)
            emit(Event("iteration", k, summary=summary))
        _write_out(Path(s.out), current)
        store.set_status(name, "done")
        return {"name": name, "out": s.out, "iterations": summaries}
    except BaseException:
        try:
            store.set_status(name, "interrupted")
        except Exception:  # pragma: no cover - the run was never recorded
            pass
        raise
    finally:
        try:
            stack.close()
        finally:
            store.close()


def _write_out(path: Path, data: bytes) -> None:
    path = path.expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _summary(it: Any) -> dict[str, Any]:
    fit = it.fit or {}
    gate = it.gate or {}
    return {"iteration": it.iteration, "positions": fit.get("positions"),
            "held_out_rmse": fit.get("rmse"), "held_out_rmse_before": fit.get("rmse_before"),
            "error": fit.get("error", "rmse"),
            "held_out_error": fit.get("held_out_error", fit.get("rmse")),
            "held_out_error_before": fit.get("held_out_error_before", fit.get("rmse_before")),
            "held_out_mae": fit.get("mae"), "held_out_mae_before": fit.get("mae_before"),
            "positions_per_second": fit.get("positions_per_second"),
            "gate": gate.get("previous"), "baseline": gate.get("baseline"),
            "kept": it.kept, "fit_seconds": fit.get("seconds"),
            "selfplay_seconds": fit.get("selfplay_seconds")}  # fmt: skip
