"""The pool of worker processes and its line of jobs: the asyncio face the web app uses.

:class:`EnginePool` holds a fixed number of :class:`~banmen.worker.process.EngineWorker`
(the cap on concurrent searches); ``submit()`` returns a :class:`Job` whose ``on_info``
callbacks run on the event loop, and ``await job`` gives the result. Jobs that find every
worker busy wait in a bounded line, taking turns between their owners (web sessions, tsume
clients), and are told their place in it as it moves; analyses wait behind every search,
and a search that finds every worker busy stops an analysis holding one.

The pool keeps a search's time-limit promise even when the engine does not: a job that has
not answered :data:`STOP_GRACE` seconds after it was stopped — or :data:`OVERRUN_GRACE`
seconds past its time limit, when it is stopped for it — fails with :class:`JobKilled`
and its worker is killed and restarted. A worker that dies fails its job with an
:class:`~banmen.worker.process.EngineError` and is restarted too.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Generic, TypeVar

from banmen.engine import Info, PlayerSpec, Result
from banmen.games.registry import get_game
from banmen.search.limits import Limit
from banmen.worker.child import ANALYSIS_SECONDS, kernel_set_ids
from banmen.worker.messages import (
    Answer,
    Failure,
    Iteration,
    JobMessage,
    Nodes,
    Notice,
    Ready,
    Request,
    Started,
    Update,
    Warmed,
    WarmEvent,
    Warming,
)
from banmen.worker.process import EngineError, EngineWorker

__all__ = [
    "OVERRUN_GRACE",
    "STOP_GRACE",
    "EnginePool",
    "Job",
    "JobCancelled",
    "JobKilled",
    "PoolBusy",
    "Progress",
]

#: Seconds a stopped search has to answer before its worker is killed.
STOP_GRACE = 2.0
#: Seconds past its time limit a search may run before it is stopped (then killed).
OVERRUN_GRACE = 5.0

#: what a job's future gives: a search's Result, an analysis's final Analysis.to_dict()
T = TypeVar("T")


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


@dataclass(eq=False)  # a job is itself: compared and hashed by identity
class Job(Generic[T]):
    """A search in an :class:`EnginePool`, waiting in line or running; ``await job`` for
    its :class:`Result` (``Job[Result]``). An analysis job (``Job[dict[str, Any]]``, see
    :meth:`EnginePool.submit_analysis`) gives its final ``Analysis.to_dict()`` and hands
    every update to ``on_analysis``, the final one included."""

    _request: Request | None
    on_info: Callable[[Info], None] | None
    on_progress: Callable[[Progress], None] | None
    _: KW_ONLY
    owner: Hashable | None = None
    on_queue: Callable[[int], None] | None = None
    on_release: Callable[[], None] | None = None
    on_analysis: Callable[[dict[str, Any]], None] | None = None
    future: asyncio.Future[T] = field(init=False)
    #: an analysis: it waits behind every search, and a search may stop it
    background: bool = field(init=False)
    #: stopped by the pool to free its worker for a search
    preempted: bool = field(default=False, init=False)
    #: place in line (1 = next to start) while waiting; 0 once started
    position: int = field(default=0, init=False)
    #: handed to a worker (it may still be loading the engine)
    started: bool = field(default=False, init=False)
    #: when the worker began the search (``time.monotonic()``), once it has
    began: float | None = field(default=None, init=False)
    #: when a stop was asked for
    stop_at: float | None = field(default=None, init=False)
    #: stopped by the pool for overrunning its time limit
    overran: bool = field(default=False, init=False)
    worker: EngineWorker | None = field(default=None, init=False)
    _pool: EnginePool | None = field(default=None, init=False)
    _wake: asyncio.Event = field(init=False)

    def __post_init__(self) -> None:
        self.future = asyncio.get_running_loop().create_future()
        self.background = self._request is not None and self._request.task == "analyse"
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

        def event(i: int, msg: WarmEvent) -> None:
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
            if w.ready.is_set() and w.pid is not None:  # (its pid is set before ready is)
                self._worker_event(i, Ready(w.pid))

    def _worker_event(self, i: int, msg: WarmEvent) -> None:
        if isinstance(msg, Warming):
            self._warming[i] = (msg.label, bool(msg.cold))
            self._warm_cold = self._warm_cold or bool(msg.cold)
        elif isinstance(msg, Warmed):
            self._warming.pop(i, None)
            weight = self._warm_weight.get(msg.set_id, 1.0)
            self._warm_done[i] = self._warm_done.get(i, 0.0) + weight
        elif isinstance(msg, Notice):  # (a Log too)
            if msg.line not in self._noticed:  # (every worker meets the same cold set)
                self._noticed.add(msg.line)
                print(msg.line, file=sys.stderr, flush=True)
            return
        elif isinstance(msg, Ready):
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
        spec: PlayerSpec | str,
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
        (``module:function``) builds the engine instead of the game's registry. A spec
        given as text is read here, once (:class:`~banmen.engine.SpecError` if it names
        no player of ``game``); the worker gets the value."""
        if isinstance(spec, str):
            from banmen.games.registry import parse_spec

            spec = parse_spec(spec, game)
        self._admit(owner, background=False)
        request = Request(game, board, spec, limit, factory)
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
        request = Request(game, board, None, limit or Limit(time=ANALYSIS_SECONDS),
                          task="analyse")  # fmt: skip
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

            def handle(msg: JobMessage) -> None:
                try:
                    loop.call_soon_threadsafe(self._deliver, job, msg)
                except RuntimeError:  # the loop has closed: nobody is waiting any more
                    pass

            try:
                job_id = worker.start_job(request, handle)
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
    def _deliver(job: Job[Any], msg: JobMessage) -> None:
        if job.future.done():
            return
        if isinstance(msg, Started):
            job.began = time.monotonic()
            job._wake.set()
        elif isinstance(msg, Iteration):
            if job.on_info is not None:
                job.on_info(Info(**msg.info))
        elif isinstance(msg, Nodes):
            if job.on_progress is not None:
                job.on_progress(Progress(msg.nodes, msg.seconds))
        elif isinstance(msg, Update):
            if job.on_analysis is not None:
                job.on_analysis(msg.analysis)
        elif isinstance(msg, Answer) and job.background:
            if job.on_analysis is not None:
                job.on_analysis(msg.value)
            job.future.set_result(msg.value)
        elif isinstance(msg, Answer):
            job.future.set_result(Result.from_dict(msg.value))
        elif isinstance(msg, Failure):
            job.future.set_exception(EngineError(msg.text))

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        for job in list(self._line):
            self._withdraw(job)
        workers, self._workers, self._idle = self._workers, [], []

        def close_all() -> None:
            for w in workers:
                w.close()

        await loop.run_in_executor(None, close_all)


def _time_limit(spec: PlayerSpec | None, limit: Limit | None) -> float | None:
    """The seconds a job's search may take: its limit's, else its spec's (``None``: no time
    limit)."""
    if limit is None:
        limit = spec.limit if spec is not None else None
    return None if limit is None else limit.time
