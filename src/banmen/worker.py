"""Engines in worker processes, so front ends never block while the AI thinks.

:class:`EngineWorker` is one spawned process that runs :meth:`Engine.think` jobs one at a
time; it shares a :class:`~banmen.search.limits.StopFlag` with its parent, so ``stop()``
makes the current search return its best move within milliseconds. Messages from the
worker (started, progress, info, result, error) are read by a thread and handed to
callbacks.

:class:`EnginePool` is the asyncio face used by the web app: a fixed number of workers
(the cap on concurrent searches), ``submit()`` returning a :class:`Job` whose
``on_info`` callbacks run on the event loop, and ``await job`` giving the result. Jobs
that find every worker busy wait in a bounded line, taking turns between their owners
(web sessions, tsume clients), and are told their place in it as it moves. Every job is a
search by some game's engine — a CPU move with the game's ``alphabeta``, a shogi mate
problem with ``mate`` — so one pool, one line and one set of promises serve every page.

The pool keeps a search's time-limit promise even when the engine does not: a job that has
not answered :data:`STOP_GRACE` seconds after it was stopped — or :data:`OVERRUN_GRACE`
seconds past its time limit, when it is stopped for it — fails with :class:`JobKilled`
and its worker is killed and restarted. A worker that dies fails its job with an
:class:`EngineError` and is restarted too.

An *analysis* job runs the game's :attr:`~banmen.games.GameDef.analyse` instead of a
search (:meth:`EnginePool.submit_analysis`): every legal move's value, streamed as it
deepens — each update an :meth:`~banmen.analysis.Analysis.to_dict`, at most one every
:data:`ANALYSIS_PERIOD` seconds, and always the last one — until every value is proved,
it is stopped, or :data:`ANALYSIS_SECONDS` have passed. Analyses run in the background:
they wait in line behind every search, and a search that finds every worker busy stops an
analysis holding one (the analysis ends at once, with ``job.preempted`` set). The
promises (stop grace, overrun, a killed worker) are a search's.

The synchronous :meth:`EngineWorker.think` serves the CLI and tests::

    worker = EngineWorker()
    result = worker.think("mattix", board.to_dict(), "alphabeta:time=1")
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import json
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from banmen.engine import (
    USER_KINDS,
    Engine,
    GameBoard,
    Info,
    PlayerSpec,
    Result,
    SpecError,
    parse_spec,
)
from banmen.games import GameDef, get_game, make_engine
from banmen.search.limits import Limit, StopFlag

if TYPE_CHECKING:
    from banmen.analysis import Analysis

__all__ = [
    "EngineError",
    "EngineWorker",
    "EnginePool",
    "Job",
    "JobCancelled",
    "JobKilled",
    "PoolBusy",
    "Progress",
    "STOP_GRACE",
    "OVERRUN_GRACE",
    "ANALYSIS_SECONDS",
    "ANALYSIS_PERIOD",
]

#: Seconds a stopped search has to answer before its worker is killed.
STOP_GRACE = 2.0
#: Seconds past its time limit a search may run before it is stopped (then killed).
OVERRUN_GRACE = 5.0

#: The longest an analysis runs (seconds) unless it proves every value or is stopped first.
ANALYSIS_SECONDS = 60.0
#: At most one analysis update per this many seconds goes to the parent (the last always).
ANALYSIS_PERIOD = 0.125

_PROGRESS_PERIOD = 0.25  # seconds between node-count updates during a long iteration
_ids = itertools.count(1)

#: what a job's future gives: a search's Result, an analysis's final Analysis.to_dict()
T = TypeVar("T")


@dataclass(frozen=True)
class _Request:
    """What a worker is asked to run: a search (``task`` "think") of ``game``'s position
    ``board`` (as JSON) by the player ``spec`` within ``limit`` (``factory``: a test's
    engine), or the game's analysis (``task`` "analyse"; no spec)."""

    game: str
    board: dict[str, Any]
    spec: str
    limit: Limit | None
    factory: str | None = None
    task: str = "think"


class EngineError(RuntimeError):
    """A job could not run: a bad request, or the worker process died."""


# --------------------------------------------------------------------------- child side


#: a spec's options that are its limit: a job brings its own, so they make no new engine
_LIMIT_OPTIONS = frozenset({"time", "depth", "nodes", "playouts"})


def _engine_spec(spec: PlayerSpec) -> tuple[str, PlayerSpec]:
    """The engine ``spec`` names with its limit left out, and a key for it: specs that
    differ only in their limit (``alphabeta:depth=1``, ``alphabeta:time=1``) share one
    engine and its table; every other option (``learned=0``, ``threads=2``, a
    ``python:`` player's file and options) makes an engine of its own."""
    options = {k: v for k, v in spec.options.items() if k not in _LIMIT_OPTIONS}
    key = json.dumps([spec.kind, options], sort_keys=True, default=str)
    return key, PlayerSpec(spec.kind, options, spec.text)


def _drop_user_engine(
    cache: dict[tuple[str, str, str], Engine[GameBoard]],
    game_name: str,
    spec_text: str,
    factory: str | None,
) -> None:
    """After a failed move, forget the engine of a user's player (``python:``, ``ugi:``,
    ``gtp:``, ``nboard:``): its program may have died or its state gone wrong, so the
    next move starts it afresh. banmen's own engines are kept (their failure is a bug)."""
    try:
        spec = parse_spec(spec_text)
    except SpecError:
        return
    if spec.kind not in USER_KINDS:
        return
    key = (game_name, factory or "", _engine_spec(spec)[0])
    engine = cache.pop(key, None)
    if engine is not None:
        try:
            engine.close()
        except Exception:  # its process is gone already: nothing to close
            pass


def _engine_for(
    cache: dict[tuple[str, str, str], Engine[GameBoard]],
    game: GameDef[Any],
    spec: PlayerSpec | str,
    factory: str | None = None,
) -> Engine[GameBoard]:
    """One engine per (game, engine spec) in this process (:func:`_engine_spec`: a
    job's limit comes with the job), built from the whole spec and warmed up on first
    use. Its table persists between jobs (keys are salted per deal). ``factory``
    (``module:function``, called as the registry's factories are) builds an engine the
    registry does not list — a test's stand-in."""
    shape, whole = _engine_spec(parse_spec(spec) if isinstance(spec, str) else spec)
    key = (game.name, factory or "", shape)
    engine = cache.get(key)
    if engine is None:
        if factory is None:
            engine = make_engine(game, whole)
        else:
            module, _, name = factory.partition(":")
            engine = getattr(importlib.import_module(module), name)(game, whole)
        engine.warm_up()
        cache[key] = engine
    return engine


def _think_with_progress(
    engine: Engine[GameBoard],
    board: GameBoard,
    limit: Limit,
    stop: StopFlag,
    job_id: int,
    send: Callable[[tuple[Any, ...]], None],
) -> Result:
    """Run one search, relaying each iteration's info and, every quarter second, the
    node count (a long iteration is otherwise silent)."""
    done = threading.Event()
    t0 = time.perf_counter()
    search = getattr(engine, "search", None)  # alpha-beta's: its node count is ctl[0]

    def progress() -> None:
        while not done.wait(_PROGRESS_PERIOD):
            if search is not None:
                send(("progress", job_id, int(search.ctl[0]), time.perf_counter() - t0))

    ticker = threading.Thread(target=progress, daemon=True)
    ticker.start()
    try:
        result = engine.think(
            board, limit, lambda info: send(("info", job_id, info.to_dict())), stop
        )
    finally:
        done.set()
        ticker.join()
    return result


def _analyse_with_updates(
    game: GameDef[Any],
    board: GameBoard,
    limit: Limit,
    stop: StopFlag,
    job_id: int,
    send: Callable[[tuple[Any, ...]], None],
    warmed: set[str],
) -> dict[str, Any]:
    """Run ``game``'s analysis of ``board``, sending its updates (``Analysis.to_dict()``)
    at most one per :data:`ANALYSIS_PERIOD` — the latest one when the period is up, by a
    ticker if the analysis is quiet meanwhile — and return the final one (which supersedes
    any update still held back)."""
    if game.analyse is None:
        raise ValueError(f"{game.title} has no analysis")
    if game.name not in warmed:
        # Loads (or compiles) the analysis's engines before the job's clock starts: a
        # stop cannot reach a search that is still being loaded. Its own flag: a stop
        # meanwhile is for the analysis proper, which then returns at once. One node
        # too: a depth alone does not bound a tree search (Go's would run for ever).
        game.analyse(board, Limit(depth=1, nodes=1), None, StopFlag())
        warmed.add(game.name)
    send(("started", job_id))
    lock = threading.Lock()
    held: list[dict[str, Any]] = []  # the latest update not yet sent (at most one)
    sent_at = [-ANALYSIS_PERIOD]
    done = threading.Event()

    def flush(now: float) -> None:  # (under the lock)
        if held and now - sent_at[0] >= ANALYSIS_PERIOD:
            send(("analysis", job_id, held.pop()))
            sent_at[0] = now

    def on_update(a: Analysis) -> None:
        d = a.to_dict()  # now: the analysis goes on changing its record
        with lock:
            held[:] = [d]
            flush(time.monotonic())

    def ticker() -> None:
        while not done.wait(ANALYSIS_PERIOD / 2):
            with lock:
                flush(time.monotonic())

    thread = threading.Thread(target=ticker, daemon=True)
    thread.start()
    try:
        final = game.analyse(board, limit, on_update, stop)
    finally:
        done.set()
        thread.join()
    return final.to_dict()


def _describe(e: Exception) -> str:
    """One line for a failed job: a bad request's own message (a ``ValueError`` names the
    fix); for anything else, the exception's type too."""
    text = " ".join(str(e).split())
    if isinstance(e, ValueError):
        return text or type(e).__name__
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def kernel_set_ids(warm: Sequence[str]) -> list[str]:
    """The kernel sets (ids, ``game.name``) ``warm`` names: a set id as it is, a game's
    name as the game's default sets, in its order."""
    out: list[str] = []
    for name in warm:
        ids = [name] if "." in name else [k.id for k in get_game(name).kernel_sets if k.default]
        out += [i for i in ids if i not in out]
    return out


def _warm_up(warm: Sequence[str], send: Callable[[tuple[Any, ...]], None]) -> None:
    """Load ``warm``'s kernel sets (compiling the cold ones), saying what each is doing:
    ``("warming", set, label, cold)`` before, ``("warmed", set, seconds, cold)`` after,
    ``("notice", line)`` for what a user would be told; then each game's default engine."""
    from banmen.warm import ensure, is_warm, set_notice

    set_notice(lambda line: send(("notice", line)))
    for set_id in kernel_set_ids(warm):
        game_name, _, name = set_id.partition(".")
        try:
            ks = get_game(game_name).kernel_set(name)
            if ks is None:
                raise ValueError(f"{game_name} has no kernel set {name!r}")
            send(("warming", set_id, ks.label, not is_warm(ks)))
            t0 = time.monotonic()
            cold = ensure(ks)
            send(("warmed", set_id, time.monotonic() - t0, cold))
        except Exception as e:  # reported, not fatal: the jobs that need it will fail
            send(("log", f"warm-up of {set_id} failed: {_describe(e)}"))
            send(("warmed", set_id, 0.0, False))


def _worker_main(conn: Connection, stop: StopFlag, warm: Sequence[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    lock = threading.Lock()

    def send(msg: tuple[Any, ...]) -> None:
        with lock:
            conn.send(msg)

    engines: dict[tuple[str, str, str], Engine[GameBoard]] = {}
    analysed: set[str] = set()  # the games whose analysis engines are loaded
    _warm_up(warm, send)
    for g in dict.fromkeys(s.partition(".")[0] for s in kernel_set_ids(warm)):
        try:
            game = get_game(g)
            _engine_for(engines, game, game.default_engine)
        except Exception as e:  # pragma: no cover - reported, not fatal
            send(("log", f"warm-up of {g} failed: {_describe(e)}"))
    send(("ready", os.getpid()))

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "quit":
            return
        if msg[0] not in ("think", "analyse"):
            continue
        task, job_id, game_name, board_dict, spec_text, limit_dict, factory = msg
        try:
            game = get_game(game_name)
            board = game.board_from_dict(board_dict)
            if task == "analyse":
                limit = Limit.from_dict(limit_dict) if limit_dict else Limit(time=ANALYSIS_SECONDS)
                final = _analyse_with_updates(game, board, limit, stop, job_id, send, analysed)
                send(("result", job_id, final))
                continue
            spec = parse_spec(spec_text)
            limit = Limit.from_dict(limit_dict) if limit_dict else spec.limit
            if spec.kind == "random" and factory is None:
                engine: Engine[GameBoard] = make_engine(game, spec)  # seeded per job
            else:
                engine = _engine_for(engines, game, spec, factory)
            send(("started", job_id))  # the search's own clock starts now
            result = _think_with_progress(engine, board, limit, stop, job_id, send)
            send(("result", job_id, result.to_dict()))
        except Exception as e:
            send(("error", job_id, _describe(e)))
            if task == "think":
                _drop_user_engine(engines, game_name, spec_text, factory)


# --------------------------------------------------------------------------- parent side


class Progress:
    """Node count of a running search, between iterations (for live display)."""

    __slots__ = ("nodes", "seconds")

    def __init__(self, nodes: int, seconds: float) -> None:
        self.nodes = nodes
        self.seconds = seconds

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "seconds": self.seconds, "nps": self.nps}


#: what the reader thread hands a job's handler: the worker's message about it
Handler = Callable[[tuple[Any, ...]], None]


#: what a worker says about its warm-up, to the ``on_event`` of :class:`EngineWorker`
_WARM_EVENTS = ("warming", "warmed", "notice", "log", "ready")


def _print_notice(msg: tuple[Any, ...]) -> None:
    if msg[0] in ("notice", "log"):
        print(msg[1], file=sys.stderr, flush=True)


class EngineWorker:
    """One engine process. ``think()`` blocks; ``start_job()`` does not.

    ``warm`` names what the process loads before its first job (game names: their default
    kernel sets; or kernel set ids), compiling what is cold; ``on_event`` hears each step
    (``("warming", set_id, label, cold)``, ``("warmed", set_id, seconds, cold)``,
    ``("notice", line)``, ``("log", line)``, ``("ready", pid)``) on the reader thread;
    by default the notices go to stderr."""

    def __init__(
        self,
        warm: Sequence[str] = (),
        on_event: Callable[[tuple[Any, ...]], None] | None = None,
    ) -> None:
        self._warm = tuple(warm)
        self._on_event = on_event if on_event is not None else _print_notice
        self._lock = threading.Lock()
        #: held while the process is closed or restarted (one at a time, from any thread)
        self._life = threading.RLock()
        self.ready = threading.Event()
        self.pid: int | None = None
        self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.stop_flag = StopFlag.shared()
        self._conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=_worker_main, args=(child, self.stop_flag, self._warm), daemon=True
        )
        self.proc.start()
        child.close()
        self.ready.clear()
        # each process has its own reader, "dead" event and jobs: a reader still
        # finishing with the previous process never touches the next one's
        self.dead = threading.Event()
        self._handlers: dict[int, Handler] = {}  # this process's jobs
        self._reader = threading.Thread(
            target=self._read,
            args=(self._conn, self.proc, self.dead, self._handlers),
            daemon=True,
        )
        self._reader.start()

    def _read(
        self, conn: Connection, proc: Any, dead: threading.Event, jobs: dict[int, Handler]
    ) -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                break
            if msg[0] in _WARM_EVENTS:
                if msg[0] == "ready":
                    self.pid = msg[1]
                    self.ready.set()
                try:
                    self._on_event(msg)
                except Exception:  # pragma: no cover - a listener's bug must not stop reading
                    pass
            else:
                with self._lock:
                    handler = jobs.get(msg[1])
                if handler is not None:
                    handler(msg)
        # The process is gone: fail whatever was running.
        dead.set()
        proc.join(0.5)  # for its exit code
        code = "" if proc.exitcode is None else f" (exit code {proc.exitcode})"
        with self._lock:
            handlers = list(jobs.items())
            jobs.clear()
        for job_id, handler in handlers:
            handler(("error", job_id, f"the engine process stopped unexpectedly{code}"))

    @property
    def alive(self) -> bool:
        # The reader reaps a dead process for its exit code; a second thread joining it at
        # the same time sees ECHILD, and Process.is_alive() then answers True for a
        # process that is gone. The reader's "dead" event is set before it reaps.
        return not self.dead.is_set() and self.proc.is_alive()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the worker has warmed up; False if it died or time ran out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.ready.wait(0.05):
            if self.dead.is_set() or (deadline is not None and time.monotonic() > deadline):
                return False
        return True

    def restart(self) -> None:
        with self._life:
            self.close()
            self._start()

    def start_job(
        self,
        game: str,
        board: dict[str, Any],
        spec: str,
        limit: Limit | None,
        handler: Handler,
        factory: str | None = None,
        task: str = "think",
    ) -> int:
        """Send a job; ``handler`` gets every message about it, on the reader thread.
        ``factory`` (``module:function``) builds the engine instead of the registry;
        ``task`` "analyse" runs the game's analysis instead of a search (``spec`` unused;
        ``limit`` ``None``: :data:`ANALYSIS_SECONDS`)."""
        if not self.alive:
            self.restart()
        job_id = next(_ids)
        self.stop_flag.clear()
        with self._lock:
            self._handlers[job_id] = handler
        limit_dict = None if limit is None else limit.to_dict()
        try:
            self._conn.send((task, job_id, game, board, spec, limit_dict, factory))
        except (OSError, ValueError) as e:
            with self._lock:
                self._handlers.pop(job_id, None)
            raise EngineError(f"could not reach the engine process: {e}") from None
        return job_id

    def finish_job(self, job_id: int) -> None:
        with self._lock:
            self._handlers.pop(job_id, None)

    def stop(self) -> None:
        """Make the running search return its best move now."""
        self.stop_flag.set()

    def kill(self) -> None:
        """Kill the process now (a search that would not stop); blocks until it is gone."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)

    def think(
        self,
        game: str,
        board: dict[str, Any],
        spec: str,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
    ) -> Result:
        """Run one search in the worker and wait for it (``on_info`` runs in this thread)."""
        inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        job_id = self.start_job(game, board, spec, limit, inbox.put)
        try:
            while True:
                msg = inbox.get()
                if msg[0] == "info" and on_info is not None:
                    on_info(Info(**msg[2]))
                elif msg[0] == "result":
                    return Result.from_dict(msg[2])
                elif msg[0] == "error":
                    raise EngineError(msg[2])
        finally:
            self.finish_job(job_id)

    def analyse(
        self,
        game: str,
        board: dict[str, Any],
        limit: Limit | None = None,
        on_update: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Run ``game``'s analysis of ``board`` in the worker and wait for it: its final
        ``Analysis.to_dict()``; ``on_update`` (in this thread) gets the updates streamed
        on the way (at most one per :data:`ANALYSIS_PERIOD`) and the final one."""
        inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        job_id = self.start_job(game, board, "", limit, inbox.put, task="analyse")
        try:
            while True:
                msg = inbox.get()
                if msg[0] == "analysis" and on_update is not None:
                    on_update(msg[2])
                elif msg[0] == "result":
                    final: dict[str, Any] = msg[2]
                    if on_update is not None:
                        on_update(final)
                    return final
                elif msg[0] == "error":
                    raise EngineError(msg[2])
        finally:
            self.finish_job(job_id)

    def close(self) -> None:
        # (after a restart running in another thread: the pool may close a worker it is
        # restarting, and must not meet a process made but not yet started)
        with self._life:
            try:
                self._conn.send(("quit",))
            except (OSError, ValueError):
                pass
            self.proc.join(timeout=2)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join(timeout=2)
            self._conn.close()
            self._reader.join(timeout=2)

    def __enter__(self) -> EngineWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Job(Generic[T]):
    """A search in an :class:`EnginePool`, waiting in line or running; ``await job`` for
    its :class:`Result` (``Job[Result]``). An analysis job (``Job[dict[str, Any]]``, see
    :meth:`EnginePool.submit_analysis`) gives its final ``Analysis.to_dict()`` and hands
    every update to ``on_analysis``, the final one included."""

    def __init__(
        self,
        request: _Request,
        on_info: Callable[[Info], None] | None,
        on_progress: Callable[[Progress], None] | None,
        *,
        owner: Hashable | None = None,
        on_queue: Callable[[int], None] | None = None,
        on_release: Callable[[], None] | None = None,
        on_analysis: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.on_info = on_info
        self.on_progress = on_progress
        self.on_analysis = on_analysis
        self.owner = owner
        self.on_queue = on_queue
        self.on_release = on_release
        #: an analysis: it waits behind every search, and a search may stop it
        self.background = request.task == "analyse"
        #: stopped by the pool to free its worker for a search
        self.preempted = False
        #: place in line (1 = next to start) while waiting; 0 once started
        self.position = 0
        #: handed to a worker (it may still be loading the engine)
        self.started = False
        #: when the worker began the search (``time.monotonic()``), once it has
        self.began: float | None = None
        #: when a stop was asked for
        self.stop_at: float | None = None
        #: stopped by the pool for overrunning its time limit
        self.overran = False
        self.worker: EngineWorker | None = None
        self._pool: EnginePool | None = None
        self._request: _Request | None = request
        self._wake = asyncio.Event()

    @property
    def waiting(self) -> bool:
        return self._request is not None and not self.future.done()

    def stop(self) -> None:
        """Ask the search to return its best move now (safe to call at any time; a job
        still waiting in line returns at once when its turn comes). A search that has not
        answered :data:`STOP_GRACE` seconds later is killed."""
        if self.stop_at is None:
            self.stop_at = time.monotonic()
        if self.worker is not None and not self.future.done():
            self.worker.stop()
        self._wake.set()

    def cancel(self) -> None:
        """Abandon the job: taken out of the line if it waits there (it then fails with
        :class:`JobCancelled`), stopped if it runs."""
        if self._pool is not None and self._pool._withdraw(self):
            return
        self.stop()

    def _release(self) -> None:
        """The job is over and holds no worker (or never had one): tell ``on_release``,
        once."""
        callback, self.on_release = self.on_release, None
        if callback is not None:
            callback()

    def __await__(self) -> Any:
        return self.future.__await__()


class JobCancelled(EngineError):
    """The job was cancelled while it waited for a worker."""


class JobKilled(EngineError):
    """The search did not answer in time — :data:`STOP_GRACE` seconds after it was
    stopped (``reason`` ``"stop"``), or after it was stopped for running
    :data:`OVERRUN_GRACE` seconds past its time limit (``reason`` ``"time"``) — so its
    worker was killed (and restarted)."""

    def __init__(self, reason: str) -> None:
        what = "its time limit" if reason == "time" else "being stopped"
        super().__init__(f"the search did not stop after {what}: its process was killed")
        self.reason = reason


class PoolBusy(EngineError):
    """The pool's line is full, or the owner already has a job waiting."""


class EnginePool:
    """A fixed set of engine workers shared by all web sessions, and the line of jobs
    waiting for them.

    Jobs that find no idle worker wait in line, in turns between owners (a web session
    is one owner): each owner in the order it first joined the line, one job per turn.
    ``max_queued`` bounds the line and ``max_waiting_per_owner`` what one owner may have
    waiting (:class:`PoolBusy` beyond either); a job's ``on_queue`` is told its place in
    line whenever it changes, and 0 when the job starts.

    Analyses (:meth:`submit_analysis`) come after every search in the line — their own
    turns between owners, their own bounds — and a search waiting for a worker stops an
    analysis that holds one (``job.preempted``): CPU moves and solves keep priority.
    """

    def __init__(
        self,
        size: int | None = None,
        warm: Sequence[str] = (),
        *,
        max_queued: int | None = None,
        max_waiting_per_owner: int = 1,
    ) -> None:
        self.size = max(1, size or os.cpu_count() or 1)
        self.max_queued = max_queued
        self.max_waiting_per_owner = max_waiting_per_owner
        self._warm = tuple(warm)
        #: called (on the loop) whenever :meth:`warm_status` may have changed
        self.on_status: Callable[[], None] | None = None
        self._warming: dict[int, tuple[str, bool]] = {}  # worker -> (set label, cold)
        self._warm_done: dict[int, float] = {}  # worker -> estimated seconds of sets loaded
        self._warm_weight: dict[str, float] = {}  # set -> its estimated compile seconds
        self._warm_total = 0.0
        self._warm_cold = False  # some set was compiled
        self._warm_t0 = 0.0
        self._ready_once: set[int] = set()
        self._noticed: set[str] = set()
        self._workers: list[EngineWorker] = []
        self._idle: list[EngineWorker] = []
        self._line: list[Job[Any]] = []  # waiting jobs, in the order they came
        self._active: list[Job[Any]] = []  # jobs handed to a worker, not yet over
        self._tasks: set[asyncio.Task[None]] = set()
        self._started = False
        self.running = 0

    async def start(self) -> None:
        """Spawn the workers. Each loads (compiling what is cold) the kernel sets of the
        games it was given, in its own order — game by game, the first game a different
        one for each worker — so that a cold start compiles the games side by side (a
        set one worker is compiling, the next waits for and loads: :func:`banmen.warm.
        ensure`). A worker takes jobs from its first ``ready`` on."""
        loop = asyncio.get_running_loop()
        ids = await loop.run_in_executor(None, kernel_set_ids, self._warm)
        groups: dict[str, list[str]] = {}
        for set_id in ids:
            groups.setdefault(set_id.partition(".")[0], []).append(set_id)
            game, _, name = set_id.partition(".")
            ks = get_game(game).kernel_set(name)
            self._warm_weight[set_id] = ks.estimate if ks is not None else 1.0
        order = list(groups.values())
        self._warm_total = sum(self._warm_weight.values())
        self._warm_t0 = time.monotonic()

        def event(i: int, msg: tuple[Any, ...]) -> None:
            try:
                loop.call_soon_threadsafe(self._worker_event, i, msg)
            except RuntimeError:  # the loop has closed
                pass

        def spawn(i: int) -> EngineWorker:
            k = i % max(1, len(order))
            mine = [s for g in order[k:] + order[:k] for s in g]
            return EngineWorker(mine, on_event=lambda msg: event(i, msg))

        self._workers = await loop.run_in_executor(
            None, lambda: [spawn(i) for i in range(self.size)]
        )
        self._started = True
        for i, w in enumerate(self._workers):  # (those that were ready before we listened)
            if w.ready.is_set():
                self._worker_event(i, ("ready", w.pid))

    def _worker_event(self, i: int, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "warming":
            self._warming[i] = (msg[2], bool(msg[3]))
            self._warm_cold = self._warm_cold or bool(msg[3])
        elif kind == "warmed":
            self._warming.pop(i, None)
            self._warm_done[i] = self._warm_done.get(i, 0.0) + self._warm_weight.get(msg[1], 1.0)
        elif kind in ("notice", "log"):
            if msg[1] not in self._noticed:  # (every worker meets the same cold set)
                self._noticed.add(msg[1])
                print(msg[1], file=sys.stderr, flush=True)
            return
        elif kind == "ready":
            self._warming.pop(i, None)
            if i in self._ready_once or i >= len(self._workers):
                return  # a restarted worker: its jobs were sent to it already
            self._ready_once.add(i)
            self._idle.append(self._workers[i])
            self._dispatch()
        if self.on_status is not None:
            self.on_status()

    @property
    def ready(self) -> bool:
        return bool(self._workers) and all(w.ready.is_set() for w in self._workers)

    def warm_status(self) -> dict[str, Any] | None:
        """``None`` once every worker has warmed up; before, what they are doing:
        ``compiling`` (the labels of cold sets being compiled), ``percent`` (of every
        worker's sets, each weighed by its compile time's estimate), ``seconds`` since the
        start, ``cold`` (some set was compiled: a first run), and ``workers_ready``."""
        if self._started and len(self._ready_once) >= len(self._workers):
            return None
        total = max(1.0, self._warm_total * self.size)
        done = sum(min(n, self._warm_total) for n in self._warm_done.values())
        compiling = sorted({label for label, cold in self._warming.values() if cold})
        return {
            "compiling": compiling,
            "percent": round(100 * done / total),
            "seconds": round(time.monotonic() - self._warm_t0, 1) if self._warm_t0 else 0.0,
            "cold": self._warm_cold,
            "workers_ready": len(self._ready_once),
            "workers": self.size,
        }

    @property
    def waiting(self) -> int:
        """Jobs waiting in line for a worker."""
        return len(self._line)

    @property
    def free(self) -> bool:
        """Whether a search submitted now would start at once (a worker is idle, no
        search waits)."""
        return self.idle > 0

    @property
    def idle(self) -> int:
        """Idle workers a search submitted now could have (0 while a search waits)."""
        if not self._started or any(not j.background for j in self._line):
            return 0
        return len(self._idle)

    @property
    def yielding(self) -> int:
        """Analyses holding a worker that are stopping (for a search, or cancelled): the
        jobs first in line get those workers within moments."""
        return sum(1 for j in self._active if j.background and j.stop_at is not None)

    def _admit(self, owner: Hashable | None, background: bool) -> None:
        """Raise :class:`PoolBusy` if a job of this kind (search or analysis) would have
        to wait in a full line, or ``owner`` already has its share of them waiting."""
        line = [j for j in self._line if j.background == background]
        what = "an analysis" if background else "a CPU move"
        if not self.free and self.max_queued is not None and len(line) >= self.max_queued:
            raise PoolBusy(
                f"the server is busy: the line for an engine is full ({len(line)} waiting)"
            )
        if owner is not None:
            mine = sum(1 for j in line if j.owner == owner)
            if mine >= self.max_waiting_per_owner:
                raise PoolBusy(f"this game already has {what} waiting for an engine")

    def _enqueue(self, job: Job[Any]) -> None:
        job._pool = self
        self._line.append(job)
        self._dispatch()

    def submit(
        self,
        game: str,
        board: dict[str, Any],
        spec: str,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        *,
        owner: Hashable | None = None,
        on_queue: Callable[[int], None] | None = None,
        on_release: Callable[[], None] | None = None,
        factory: str | None = None,
    ) -> Job[Result]:
        """Queue a search; it starts as soon as a worker is free and it is its turn.
        Raises :class:`PoolBusy` (and queues nothing) if it would have to wait in a full
        line, or ``owner`` already has its share waiting. ``on_release`` is called once
        the job is over and its worker free again (or it left the line); ``factory``
        (``module:function``) builds the engine instead of the game's registry."""
        self._admit(owner, background=False)
        request = _Request(game, board, spec, limit, factory)
        job: Job[Result] = Job(request, on_info, on_progress, owner=owner, on_queue=on_queue,
                               on_release=on_release)  # fmt: skip
        self._enqueue(job)
        return job

    def submit_analysis(
        self,
        game: str,
        board: dict[str, Any],
        on_analysis: Callable[[dict[str, Any]], None] | None = None,
        *,
        limit: Limit | None = None,
        owner: Hashable | None = None,
        on_queue: Callable[[int], None] | None = None,
        on_release: Callable[[], None] | None = None,
    ) -> Job[dict[str, Any]]:
        """Queue ``game``'s analysis of ``board`` (see the module docstring): it starts
        when a worker is free and no search waits for one, within ``limit`` (default
        :data:`ANALYSIS_SECONDS`); ``on_analysis`` gets each update as it comes, the final
        one (which ``await job`` gives too) included. :class:`PoolBusy` as for
        :meth:`submit`, counting analyses only."""
        self._admit(owner, background=True)
        request = _Request(game, board, "", limit or Limit(time=ANALYSIS_SECONDS), task="analyse")
        job: Job[dict[str, Any]] = Job(request, None, None, owner=owner, on_queue=on_queue,
                                       on_release=on_release, on_analysis=on_analysis)  # fmt: skip
        self._enqueue(job)
        return job

    def order(self) -> list[Job[Any]]:
        """The waiting jobs in the order they will start: the searches, then the analyses;
        each in turns between owners (each in the order it first joined the line), one job
        per owner and turn; jobs without an owner are each their own."""
        out: list[Job[Any]] = []
        for background in (False, True):
            queues: dict[Hashable, list[Job[Any]]] = {}
            for job in self._line:
                if job.background == background:
                    key = job.owner if job.owner is not None else ("job", id(job))
                    queues.setdefault(key, []).append(job)
            rounds = max((len(q) for q in queues.values()), default=0)
            for k in range(rounds):
                out.extend(q[k] for q in queues.values() if k < len(q))
        return out

    def _dispatch(self) -> None:
        """Start waiting jobs on idle workers, stop analyses for the searches still
        waiting, then tell the rest their places."""
        line = self.order()
        while self._started and self._idle and line:
            job = line.pop(0)
            self._line.remove(job)
            worker = self._idle.pop(0)
            job.started = True
            self._active.append(job)
            task = asyncio.get_running_loop().create_task(self._run(job, worker))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            self._tell(job, 0)
        # Searches first: each search left waiting stops an analysis holding a worker
        # (one already stopping frees its worker within moments anyway).
        need = sum(1 for j in line if not j.background) - self.yielding
        for job in self._active:
            if need <= 0:
                break
            if job.background and job.stop_at is None:
                job.preempted = True
                job.stop()
                need -= 1
        for i, job in enumerate(line, 1):
            self._tell(job, i)

    @staticmethod
    def _tell(job: Job[Any], position: int) -> None:
        """Tell a job its place in line if it changed (0: it has started)."""
        if job.position == position:
            return
        job.position = position
        if job.on_queue is not None:
            job.on_queue(position)

    def _withdraw(self, job: Job[Any]) -> bool:
        """Take a waiting job out of the line; False if it is not waiting."""
        if job not in self._line:
            return False
        self._line.remove(job)
        job._request = None
        if not job.future.done():
            job.future.set_exception(JobCancelled("cancelled while waiting for an engine"))
            job.future.exception()  # retrieved: nobody need await an abandoned job
        job._release()
        self._dispatch()
        return True

    async def _run(self, job: Job[Any], worker: EngineWorker) -> None:
        loop = asyncio.get_running_loop()
        request = job._request
        assert request is not None
        job._request = None
        self.running += 1
        killed = False
        try:
            job.worker = worker

            def handle(msg: tuple[Any, ...]) -> None:
                try:
                    loop.call_soon_threadsafe(self._deliver, job, msg)
                except RuntimeError:  # the loop has closed: nobody is waiting any more
                    pass

            try:
                job_id = worker.start_job(request.game, request.board, request.spec,
                                          request.limit, handle, request.factory,
                                          request.task)  # fmt: skip
            except EngineError as e:
                job.future.set_exception(e)
                return
            if job.stop_at is not None:
                worker.stop()
            killed = await self._watch(job, worker, _time_limit(request.spec, request.limit))
            worker.finish_job(job_id)
        finally:
            self.running -= 1
            job.worker = None
            if job in self._active:
                self._active.remove(job)
            if worker in self._workers:  # not closed meanwhile
                if killed or not worker.alive:
                    await loop.run_in_executor(None, worker.restart)
                self._idle.append(worker)
                self._dispatch()
            job._release()

    @staticmethod
    async def _watch(job: Job[Any], worker: EngineWorker, seconds: float | None) -> bool:
        """Wait for ``job``'s answer, keeping its promises: stopped :data:`OVERRUN_GRACE`
        seconds past its time limit, failed with :class:`JobKilled` and its worker killed
        :data:`STOP_GRACE` seconds after a stop it did not answer (both counted from when
        the search began: loading an engine is not the search's time). True if killed."""
        while not job.future.done():
            now = time.monotonic()
            wait: float | None = None
            if job.began is not None:
                if seconds is not None and job.stop_at is None:
                    overrun = job.began + seconds + OVERRUN_GRACE
                    if now >= overrun:
                        job.overran = True
                        job.stop()
                        continue
                    wait = overrun - now
                if job.stop_at is not None:
                    kill_at = max(job.stop_at, job.began) + STOP_GRACE
                    if now >= kill_at:
                        job.future.set_exception(JobKilled("time" if job.overran else "stop"))
                        job.future.exception()  # retrieved: the caller may have gone
                        await asyncio.get_running_loop().run_in_executor(None, worker.kill)
                        return True
                    wait = kill_at - now
            job._wake.clear()
            waker: asyncio.Future[Any] = asyncio.ensure_future(job._wake.wait())
            waiters: set[asyncio.Future[Any]] = {job.future, waker}
            try:
                await asyncio.wait(waiters, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waker.cancel()
        return False

    @staticmethod
    def _deliver(job: Job[Any], msg: tuple[Any, ...]) -> None:
        if job.future.done():
            return
        kind = msg[0]
        if kind == "started":
            job.began = time.monotonic()
            job._wake.set()
        elif kind == "info" and job.on_info is not None:
            job.on_info(Info(**msg[2]))
        elif kind == "progress" and job.on_progress is not None:
            job.on_progress(Progress(msg[2], msg[3]))
        elif kind == "analysis" and job.on_analysis is not None:
            job.on_analysis(msg[2])
        elif kind == "result" and job.background:
            if job.on_analysis is not None:
                job.on_analysis(msg[2])
            job.future.set_result(msg[2])
        elif kind == "result":
            job.future.set_result(Result.from_dict(msg[2]))
        elif kind == "error":
            job.future.set_exception(EngineError(msg[2]))

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        for job in list(self._line):
            self._withdraw(job)
        workers, self._workers, self._idle = self._workers, [], []

        def close_all() -> None:
            for w in workers:
                w.close()

        await loop.run_in_executor(None, close_all)


def _time_limit(spec: str, limit: Limit | None) -> float | None:
    """The seconds a job's search may take: its limit's, else its spec's (``None``: no time
    limit, or a spec the worker will refuse)."""
    if limit is None:
        try:
            limit = parse_spec(spec).limit
        except SpecError:
            return None
    return limit.time
