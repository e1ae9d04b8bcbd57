"""Playing an arena run: games in worker processes, each committed as it finishes.

The parent builds the job list from the run's configuration, skips the games the database
already holds (that is all ``--resume`` is), and keeps a bounded number of tasks in flight
on a pool of spawned workers. A task is a few games (more when games are quick, so the
parent's bookkeeping stays small beside the play); the worker **commits each game to the
database the moment it ends**, so a finished game is never lost or replayed, whatever
happens to the parent. Each worker caches one engine per player spec and clears its table
before every game, so a game depends only on its seed and the two specs — never on which
worker played it or what that worker played before.

Workers ignore Ctrl-C (the parent decides) and exit by themselves if the parent dies, so a
``kill -9`` of the parent leaves no orphans searching on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any

from banmen.arena.schedule import Job, Player, make_jobs, make_pairings
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.engine import Engine, parse_spec
from banmen.games import GameDef, get_game, make_engine
from banmen.games.engines import RandomEngine
from banmen.stats import sprt_bounds, sprt_llr

__all__ = ["play_game", "run_arena", "Progress", "sprt_decisions", "planned_jobs"]


# --------------------------------------------------------------------------- one game


class EngineCache:
    """One engine per (game, spec) in this process, reused across games."""

    def __init__(self) -> None:
        self._engines: dict[tuple[str, str], Engine[Any]] = {}

    def get(self, game: GameDef[Any], spec_text: str) -> Engine[Any] | None:
        """The engine for ``spec_text``, started and warmed up (compiled kernels loaded,
        external programs running) before any clock runs; ``None`` for ``random``,
        which is built per game, seeded from the deal."""
        key = (game.name, spec_text)
        engine = self._engines.get(key)
        if engine is None:
            spec = parse_spec(spec_text)
            if spec.kind == "random":
                return None
            engine = self._engines[key] = make_engine(game, spec)
            engine.warm_up()
        return engine


def _random_engine(spec_text: str, deal_seed: int, side: int) -> RandomEngine:
    base = parse_spec(spec_text).options.get("seed", 0)
    # A fixed function of (spec seed, deal, side): reproducible, and different per game.
    return RandomEngine(zlib.crc32(f"{base}:{deal_seed}:{side}".encode()), name=spec_text)


def _first_mover_result(res: str) -> str:
    """A result from the first mover's side: ``1-0``, ``0-1``, ``1/2-1/2`` (or ``*``);
    Go's ``B+3.5``, ``W+R``, ``0`` are translated (black moves first in arena games)."""
    if res.startswith("B+"):
        return "1-0"
    if res.startswith("W+"):
        return "0-1"
    return "1/2-1/2" if res == "0" else res


def play_game(
    game_name: str, size: int | None, job: Job, specs: dict[str, str], cache: EngineCache
) -> GameRecord:
    """Play ``job`` to the end and return its record."""
    game = get_game(game_name)
    assert game.new_board is not None
    board = game.new_board(job.deal_seed, size)
    engines: dict[int, Engine[Any]] = {}
    for side, name in ((1, job.first), (2, job.second)):
        spec = specs[name]
        cached = cache.get(game, spec)
        if cached is None:
            engines[side] = _random_engine(spec, job.deal_seed, side)
        else:
            cached.new_game()
            engines[side] = cached
    moves: list[str] = []
    times: list[float] = []
    for _ in range(game.max_plies + 1):
        if board.is_game_over():
            break
        t0 = time.perf_counter()
        result = engines[board.turn].think(board)
        times.append(round(time.perf_counter() - t0, 6))
        if result.move is None:  # pragma: no cover - an engine that gives up a live game
            break
        board.push(board.parse_move(result.move))  # Go's "resign" too: it ends the game
        moves.append(result.move)
    s1, s2 = game.scores(board)
    res = _first_mover_result(board.result())
    if res == "*":  # pragma: no cover - the ply guard tripped
        res = "1/2-1/2"
    return GameRecord(job.pairing, job.pair, job.swapped, job.first, job.second, job.deal_seed,
                      res, int(s1), int(s2), moves, times)  # fmt: skip


# --------------------------------------------------------------------------- worker side

_cache: EngineCache | None = None
_store: ArenaStore | None = None
_run_id = ""
_parent = 0


def _exit_if_orphaned() -> None:
    if os.getppid() != _parent:
        os._exit(0)  # the parent is gone: nobody will read our result


def _watch_parent() -> None:
    # For long games; between games _work checks too, so quick games (a few ms each) do
    # not play on for the watcher's half second after a ``kill -9`` of the parent.
    while True:
        time.sleep(0.5)
        _exit_if_orphaned()


def _init_worker(game_name: str, specs: list[str], parent: int, db_path: str, run_id: str) -> None:
    global _cache, _store, _run_id, _parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _parent = parent
    threading.Thread(target=_watch_parent, daemon=True).start()
    _cache = EngineCache()
    _store = ArenaStore(db_path)
    _run_id = run_id
    game = get_game(game_name)
    for spec in specs:
        _cache.get(game, spec)  # build and warm up before the first timed game


def _work(
    game_name: str, size: int | None, jobs: list[Job], specs: dict[str, str]
) -> tuple[int, list[GameRecord]]:
    """Play ``jobs``, committing each game as it ends. The parent gets the records back
    without their moves and times (it only counts them): less to pickle per game."""
    assert _cache is not None and _store is not None
    out = []
    for job in jobs:
        _exit_if_orphaned()
        t0 = time.perf_counter()
        record = play_game(game_name, size, job, specs, _cache)
        seconds = time.perf_counter() - t0
        stored = _store.add_game(_run_id, record)
        out.append(replace(record, seconds=seconds, stored=stored, moves=[], times=[]))
    return os.getpid(), out


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
    #: when each worker process first reported, and the games counted since all had
    _seen: dict[int, float] = field(default_factory=dict)
    _steady_games: int = 0
    _steady_since: float | None = None

    def record(self, pid: int, games: int) -> None:
        """Account ``games`` just reported by worker ``pid``."""
        if pid not in self._seen:
            self._seen[pid] = time.monotonic()
            if len(self._seen) >= self.workers:
                # Every worker is up and playing: from here on the rate is steady-state
                # (worker start-up and engine warm-up are not counted).
                self._steady_since = time.monotonic()
                return
        if self._steady_since is not None:
            self._steady_games += games

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


def run_arena(
    store: ArenaStore,
    run_id: str,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    in_flight: int | None = None,
) -> Progress:
    """Play every game of ``run_id`` not yet in the database. Raises ``KeyboardInterrupt``
    (after marking the run interrupted) if interrupted; the games finished so far stay."""
    config = store.run_config(run_id)
    jobs = planned_jobs(config)
    specs = {p["name"]: p["spec"] for p in config.players}
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
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    limit = in_flight or 2 * n_workers
    store.set_status(run_id, "running")
    ex = ProcessPoolExecutor(
        n_workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(config.game, sorted(set(specs.values())), os.getpid(), str(store.path), run_id),
    )
    pending: dict[Future[tuple[int, list[GameRecord]]], list[Job]] = {}
    progress.workers = n_workers
    next_job = 0  # todo[next_job:] are not submitted yet
    counted = {g.key for g in games}
    game_seconds: list[float] = []

    def remaining() -> int:
        if not progress.stopped_pairings:
            return len(todo) - next_job
        rest = todo[next_job:]
        return sum(1 for j in rest if j.pairing not in progress.stopped_pairings)

    def chunk_size() -> int:
        # Aim at ~0.25 s of play per task; one pair (2 games) until games have been timed.
        if not game_seconds:
            return 2
        mean = sum(game_seconds[-50:]) / len(game_seconds[-50:])
        return max(2, min(64, int(0.25 / max(mean, 1e-6)) // 2 * 2))

    try:
        while True:
            while len(pending) < limit and next_job < len(todo):
                size = chunk_size()
                chunk: list[Job] = []
                while len(chunk) < size and next_job < len(todo):
                    job = todo[next_job]
                    next_job += 1
                    if job.pairing not in progress.stopped_pairings:
                        chunk.append(job)
                if chunk:
                    pending[ex.submit(_work, config.game, config.size, chunk, specs)] = chunk
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                chunk = pending.pop(fut)
                pid, records = fut.result()
                progress.record(pid, len(records))
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
    except BaseException:
        store.set_status(run_id, "interrupted")
        for fut in pending:
            fut.cancel()
        _kill_pool(ex)
        raise
    ex.shutdown(wait=True)
    return progress


def _kill_pool(ex: ProcessPoolExecutor) -> None:
    """Stop at once: a worker mid-game is simply killed (its game is replayed on resume)."""
    procs = list(getattr(ex, "_processes", {}).values())
    for p in procs:
        try:
            p.kill()
        except Exception:  # pragma: no cover - already gone
            pass
    ex.shutdown(wait=False, cancel_futures=True)
