"""Playing an arena run: batches of games on worker processes or a Dask cluster.

The parent builds the job list from the run's configuration, skips the games the database
already holds (that is all ``--resume`` is), and keeps a bounded number of tasks in flight
on a :class:`GamePool`. A task is a batch of games (more when games are quick, so the
parent's bookkeeping stays small beside the play; fewer towards the end, so every worker
stays busy to the last).

* :class:`LocalPool` (the default): spawned worker processes on this machine, each of which
  **commits each game to the database the moment it ends**, so a finished game is never
  lost or replayed, whatever happens to the parent. Workers ignore Ctrl-C (the parent
  decides) and exit by themselves if the parent dies, so a ``kill -9`` of the parent
  leaves no orphans searching on.
* :class:`banmen.arena.cluster.ClusterPool` (``--cluster``): Dask workers play, the parent
  (the driver) commits each batch as it comes back.

A game itself is played by :mod:`banmen.arena.play`, the same code on both.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from banmen.arena.play import EngineCache, GameFailed, play_games, warm_up
from banmen.arena.schedule import Job, Player, make_jobs, make_pairings, player_specs
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.engine import PlayerSpec
from banmen.stats import sprt_bounds, sprt_llr

__all__ = [
    "run_arena", "Progress", "sprt_decisions", "planned_jobs", "GamePool", "LocalPool",
    "batch_size", "RunDeleted",
]  # fmt: skip


class RunDeleted(RuntimeError):
    """The run was deleted from the database while it played (``banmen arena delete
    --force``): it stopped, and the games its workers recorded after are deleted too."""


# --------------------------------------------------------------------------- worker side

_cache: EngineCache | None = None
_store: ArenaStore | None = None
_run_id = ""
_parent = 0
_setup_error: GameFailed | None = None


def _exit_if_orphaned() -> None:
    if os.getppid() != _parent:
        os._exit(0)  # the parent is gone: nobody will read our result


def _watch_parent() -> None:
    # For long games; between games _work checks too, so quick games (a few ms each) do
    # not play on for the watcher's half second after a ``kill -9`` of the parent.
    while True:
        time.sleep(0.5)
        _exit_if_orphaned()


def _init_worker(
    game_name: str, specs: list[PlayerSpec], parent: int, db_path: str, run_id: str
) -> None:
    global _cache, _store, _run_id, _parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _parent = parent
    threading.Thread(target=_watch_parent, daemon=True).start()
    _cache = EngineCache()
    _store = ArenaStore(db_path)
    _run_id = run_id
    global _setup_error
    try:
        warm_up(_cache, game_name, specs, f"worker process {os.getpid()}")
    except GameFailed as e:  # told at the first task: a failing initializer breaks the pool
        _setup_error = e


def _work(
    game_name: str, size: int | None, jobs: list[Job], specs: dict[str, PlayerSpec],
    start: str | None = None,
) -> tuple[str, list[GameRecord]]:  # fmt: skip
    """Play ``jobs``, committing each game as it ends. The parent gets the records back
    without their moves and times (it only counts them): less to pickle per game."""
    assert _cache is not None and _store is not None
    if _setup_error is not None:
        raise _setup_error
    where = f"worker process {os.getpid()}"
    out = []
    for record in play_games(game_name, size, jobs, specs, _cache, where, _exit_if_orphaned,
                             start):  # fmt: skip
        stored = _store.add_game(_run_id, record)
        out.append(replace(record, stored=stored, moves=[], times=[]))
    return str(os.getpid()), out


# --------------------------------------------------------------------------- parent side


def planned_jobs(config: RunConfig) -> list[Job]:
    players = [Player(p["name"], p["spec"]) for p in config.players]
    return make_jobs(make_pairings(players, config.gauntlet), config.games, config.seed)


def _pair_scores(games: list[GameRecord], a: str) -> dict[int, dict[int, float]]:
    """For each pairing, the points of its first-named player ``a`` in each complete pair."""
    out: dict[int, dict[int, list[float]]] = {}
    for g in games:
        pts = g.points_first() if g.first == a else 1 - g.points_first()
        out.setdefault(g.pairing, {}).setdefault(g.pair, []).append(pts)
    return {p: {q: sum(v) / 2 for q, v in d.items() if len(v) == 2} for p, d in out.items()}


def sprt_decisions(config: RunConfig, games: list[GameRecord]) -> dict[int, dict[str, Any]]:
    """Per pairing: the SPRT's log-likelihood ratio over complete pairs, and its decision
    (``H1``, ``H0`` or ``None``) — evaluated pair by pair in order, so the decision is the
    same whatever order the games finished in."""
    if not config.sprt:
        return {}
    elo0, elo1 = config.sprt
    lo, hi = sprt_bounds(config.alpha, config.beta)
    pairings = make_pairings([Player(p["name"], p["spec"]) for p in config.players],
                             config.gauntlet)  # fmt: skip
    out: dict[int, dict[str, Any]] = {}
    for index, (a, _b) in enumerate(pairings):
        by_pair = _pair_scores([g for g in games if g.pairing == index], a).get(index, {})
        scores: list[float] = []
        decision = None
        llr = 0.0
        for q in sorted(by_pair):
            scores.append(by_pair[q])
            llr = sprt_llr(scores, elo0, elo1)
            if llr >= hi:
                decision = "H1"
                break
            if llr <= lo:
                decision = "H0"
                break
        out[index] = {"llr": llr, "lower": lo, "upper": hi, "decision": decision,
                      "pairs": len(scores)}  # fmt: skip
    return out


@dataclass
class Progress:
    """What the progress display shows; updated after every finished game."""

    total: int
    done: int
    started: float
    games: list[GameRecord] = field(default_factory=list)
    new_this_session: int = 0
    stopped_pairings: set[int] = field(default_factory=set)
    replayed: int = 0  # games played again although recorded already (should stay 0)
    workers: int = 1
    #: when each worker first reported, and the games counted since all had
    _seen: dict[str, float] = field(default_factory=dict)
    _steady_games: int = 0
    _steady_since: float | None = None

    def record(self, worker: str, games: int) -> None:
        """Account ``games`` just reported by ``worker``."""
        if worker not in self._seen:
            self._seen[worker] = time.monotonic()
            if len(self._seen) >= self.workers:
                # Every worker is up and playing: from here on the rate is steady-state
                # (worker start-up and engine warm-up are not counted).
                self._steady_since = time.monotonic()
                return
        if self._steady_since is not None:
            self._steady_games += games

    @property
    def seen_workers(self) -> set[str]:
        """The workers that have reported games."""
        return set(self._seen)

    @property
    def rate(self) -> float:
        """Games per second since every worker had started playing."""
        if self._steady_since is None or self._steady_games == 0:
            return 0.0
        elapsed = time.monotonic() - self._steady_since
        return self._steady_games / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        r = self.rate
        return (self.total - self.done) / r if r > 0 else None


class GamePool(Protocol):
    """Where a run's games are played: worker processes on this machine
    (:class:`LocalPool`) or a Dask cluster (:class:`banmen.arena.cluster.ClusterPool`).

    A task is a batch of jobs; :meth:`wait` gives back finished batches with each game's
    record ``stored`` flag set (the games are in the database by then, whoever wrote
    them), and raises :class:`GameFailed` for a batch whose game failed."""

    #: the most games in one task (see :func:`batch_size`)
    max_batch: int

    @property
    def task_seconds(self) -> float:
        """The play time a task aims at (see :func:`batch_size`)."""
        ...

    def slots(self) -> int:
        """How many batches can be played at once now (worker processes or threads)."""
        ...

    def submit(self, jobs: list[Job]) -> Hashable:
        """Start playing ``jobs``; the token :meth:`wait` will give back with them."""
        ...

    def wait(self, timeout: float | None = None) -> list[tuple[Hashable, str, list[GameRecord]]]:
        """Block until at least one batch has finished: ``(token, worker, records)``;
        with ``timeout``, at most that many seconds (then maybe nothing)."""
        ...

    def close(self) -> None:
        """All submitted batches have been waited for: let the workers go."""
        ...

    def abort(self) -> None:
        """Stop at once; batches under way are dropped (their games are played on resume)."""
        ...


def batch_size(
    game_seconds: list[float], task_seconds: float, max_batch: int, left: int, slots: int
) -> int:
    """Games per task: ``task_seconds`` of play at the recent mean game time, in whole
    pairs, between one pair and ``max_batch`` — one pair until games have been timed —
    and towards the end of a run no more than a share of the ``left`` games that keeps
    all ``slots`` busy to the last (guided self-scheduling), so no worker is left with a
    long batch while the others are idle.

    >>> batch_size([], 0.25, 64, 1000, 2), batch_size([0.001] * 10, 0.25, 64, 1000, 2)
    (2, 64)
    >>> batch_size([0.05] * 10, 0.25, 64, 1000, 2), batch_size([3.0], 0.25, 64, 1000, 2)
    (4, 2)
    >>> batch_size([0.001] * 10, 0.25, 64, 100, 2)
    24
    """
    if not game_seconds:
        return 2
    recent = game_seconds[-50:]
    mean = sum(recent) / len(recent)
    size = min(max_batch, int(task_seconds / max(mean, 1e-6)), left // (2 * slots))
    return max(2, size // 2 * 2)


class LocalPool:
    """Spawned worker processes on this machine, each committing its games itself."""

    task_seconds = 0.25
    max_batch = 64

    def __init__(self, store: ArenaStore, run_id: str, config: RunConfig, workers: int) -> None:
        # (each spec read once, here: the workers get them as data)
        self._specs = player_specs(config.game, config.players)
        specs = list({s.text: s for s in self._specs.values()}.values())
        self.workers = workers
        self._config = config
        self._pending: set[Future[tuple[str, list[GameRecord]]]] = set()
        self._ex = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(config.game, specs, os.getpid(), str(store.path), run_id),
        )

    def slots(self) -> int:
        return self.workers

    def submit(self, jobs: list[Job]) -> Hashable:
        fut = self._ex.submit(_work, self._config.game, self._config.size, jobs, self._specs,
                              self._config.start)  # fmt: skip
        self._pending.add(fut)
        return fut

    def wait(self, timeout: float | None = None) -> list[tuple[Hashable, str, list[GameRecord]]]:
        finished, self._pending = wait(self._pending, timeout, return_when=FIRST_COMPLETED)
        out: list[tuple[Hashable, str, list[GameRecord]]] = []
        for fut in finished:
            where, records = fut.result()
            out.append((fut, where, records))
        return out

    def close(self) -> None:
        self._ex.shutdown(wait=True)

    def abort(self) -> None:
        """A worker mid-game is simply killed (its game is replayed on resume). Returns
        once the workers are gone, so no game is committed after."""
        for fut in self._pending:
            fut.cancel()
        procs = list(getattr(self._ex, "_processes", {}).values())
        for proc in procs:
            try:
                proc.kill()
            except Exception:  # pragma: no cover - already gone
                pass
        for proc in procs:
            try:
                proc.join(5)
            except Exception:  # pragma: no cover - reaped by the executor already
                pass
        self._ex.shutdown(wait=False, cancel_futures=True)


def run_arena(
    store: ArenaStore,
    run_id: str,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    in_flight: int | None = None,
    cluster: Any = None,
) -> Progress:
    """Play every game of ``run_id`` not yet in the database, on ``workers`` local
    processes or, with ``cluster`` (a scheduler address, ``local:K``, a scheduler file or
    a ``distributed.Client``), on a Dask cluster. Raises ``KeyboardInterrupt`` (after
    marking the run interrupted) if interrupted, :class:`GameFailed` if a game could not
    be played, and :class:`banmen.arena.cluster.ClusterError` if the cluster cannot play
    the run; the games finished so far stay. Raises :class:`RunDeleted` if the run is
    deleted from the database while it plays (checked after each batch)."""
    config = store.run_config(run_id)
    jobs = planned_jobs(config)
    done_keys = store.done_keys(run_id)
    games = store.games(run_id)
    decided = {i for i, d in sprt_decisions(config, games).items() if d["decision"]}
    todo = [j for j in jobs if j.key not in done_keys and j.pairing not in decided]
    progress = Progress(
        total=len(done_keys) + len(todo),
        done=len(done_keys),
        started=time.monotonic(),
        games=games,
        stopped_pairings=decided,
    )
    if on_progress:
        on_progress(progress)
    if not todo:
        store.set_status(run_id, "done")
        return progress
    store.set_status(run_id, "running")
    pool: GamePool
    try:
        if cluster is not None:
            from banmen.arena.cluster import ClusterPool  # Dask is an optional extra

            pool = ClusterPool(cluster, store, run_id, config)
        else:
            n = max(1, min(workers or os.cpu_count() or 1, len(todo)))
            pool = LocalPool(store, run_id, config, n)
    except BaseException:
        store.set_status(run_id, "interrupted")
        raise
    progress.workers = pool.slots()
    interrupted = _interrupt_at_safe_points()
    pending: dict[Hashable, list[Job]] = {}
    next_job = 0  # todo[next_job:] are not submitted yet
    counted = {g.key for g in games}
    game_seconds: list[float] = []

    def remaining() -> int:
        if not progress.stopped_pairings:
            return len(todo) - next_job
        rest = todo[next_job:]
        return sum(1 for j in rest if j.pairing not in progress.stopped_pairings)

    try:
        while True:
            limit = in_flight or 2 * pool.slots()
            while len(pending) < limit and next_job < len(todo):
                size = batch_size(game_seconds, pool.task_seconds, pool.max_batch,
                                  remaining(), pool.slots())  # fmt: skip
                chunk: list[Job] = []
                while len(chunk) < size and next_job < len(todo):
                    job = todo[next_job]
                    next_job += 1
                    if job.pairing not in progress.stopped_pairings:
                        chunk.append(job)
                if chunk:
                    pending[pool.submit(chunk)] = chunk
            if not pending:
                break
            finished = pool.wait(_TICK)
            while not finished:
                if interrupted.is_set():
                    raise KeyboardInterrupt
                finished = pool.wait(_TICK)
            if not store.status(run_id):
                raise RunDeleted(f"run {run_id!r} was deleted from {store.path} while it played")
            for token, where, records in finished:
                chunk = pending.pop(token)
                progress.record(where, len(records))
                for record in records:
                    game_seconds.append(record.seconds)
                    if not record.stored or record.key in counted:
                        progress.replayed += 1
                        continue
                    counted.add(record.key)
                    progress.done += 1
                    progress.new_this_session += 1
                    progress.games.append(record)
                for p in {j.pairing for j in chunk}:
                    if config.sprt and p not in progress.stopped_pairings:
                        mine = [g for g in progress.games if g.pairing == p]
                        d = sprt_decisions(config, mine).get(p)
                        if d and d["decision"]:
                            # Games of this pairing already under way still finish and count.
                            progress.stopped_pairings.add(p)
            progress.total = progress.done + sum(map(len, pending.values())) + remaining()
            if on_progress:
                on_progress(progress)
        store.set_status(run_id, "done")
    except BaseException as e:
        store.set_status(run_id, "interrupted")  # (nothing, if the run was deleted)
        pool.abort()
        if isinstance(e, RunDeleted):
            store.delete_orphan_games(run_id)
        raise
    finally:
        _restore_interrupts(interrupted)
    pool.close()
    return progress


#: how often the parent looks up from waiting for games (for a Ctrl-C), in seconds
_TICK = 0.25


class _Interrupts(threading.Event):
    """Set by a SIGINT while a run plays; what the handler it replaced was."""

    previous: Any = None
    installed = False


def _interrupt_at_safe_points() -> _Interrupts:
    """While a run plays, a Ctrl-C (SIGINT) sets a flag the main loop reads between its
    waits, and becomes ``KeyboardInterrupt`` there — never in the middle of the pool's
    own locks and threads, where an exception thrown by a signal can leave a lock held
    and the process unable to exit. (Only in the main thread: signals go there.)"""
    event = _Interrupts()
    if threading.current_thread() is threading.main_thread():
        try:
            event.previous = signal.signal(signal.SIGINT, lambda *_: event.set())
            event.installed = True
        except ValueError:  # pragma: no cover - not the main interpreter
            pass
    return event


def _restore_interrupts(event: _Interrupts) -> None:
    if event.installed:
        signal.signal(signal.SIGINT, event.previous)
