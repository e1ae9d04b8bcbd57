"""Engines in worker processes, so front ends never block while the AI thinks.

:class:`EngineWorker` is one spawned process that runs :meth:`Engine.think` jobs one at a
time; it shares a :class:`~banmen.search.limits.StopFlag` with its parent, so ``stop()``
makes the current search return its best move within milliseconds. Messages from the
worker (progress, result, error) are read by a thread and handed to callbacks.

:class:`EnginePool` is the asyncio face used by the web app: a fixed number of workers
(the cap on concurrent searches), ``submit()`` returning a :class:`Job` whose
``on_info`` callbacks run on the event loop, and ``await job`` giving the result. Jobs
that find every worker busy wait in a bounded line, taking turns between their owners
(web sessions), and are told their place in it as it moves.

The synchronous :meth:`EngineWorker.think` serves the CLI and tests::

    worker = EngineWorker()
    result = worker.think("mattix", board.to_dict(), "alphabeta:time=1")
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from banmen.engine import Info, Result
from banmen.search.limits import Limit, StopFlag

__all__ = [
    "EngineError",
    "EngineWorker",
    "EnginePool",
    "Job",
    "JobCancelled",
    "PoolBusy",
    "Progress",
]

_PROGRESS_PERIOD = 0.25  # seconds between node-count updates during a long iteration
_ids = itertools.count(1)


class EngineError(RuntimeError):
    """A job could not run: a bad request, or the worker process died."""


# --------------------------------------------------------------------------- child side


def _engine_for(cache: dict[tuple[str, str], Any], game: Any, kind: str) -> Any:
    """One engine per (game, kind) in this process, warmed up on first use; the limit comes
    with each job. Its table persists between jobs (keys are salted per deal)."""
    from banmen.games import make_engine

    engine = cache.get((game.name, kind))
    if engine is None:
        engine = cache[(game.name, kind)] = make_engine(game, kind)
        warm = getattr(engine, "warm_up", None)
        if warm is not None:
            warm()
    return engine


def _think_with_progress(
    engine: Any,
    board: Any,
    limit: Limit,
    stop: StopFlag,
    job_id: int,
    send: Callable[[tuple[Any, ...]], None],
) -> Result:
    """Run one search, relaying each iteration's info and, every quarter second, the
    node count (a long iteration is otherwise silent)."""
    done = threading.Event()
    t0 = time.perf_counter()
    search = getattr(engine, "search", None)

    def progress() -> None:
        while not done.wait(_PROGRESS_PERIOD):
            if search is not None:
                send(("progress", job_id, int(search.ctl[0]), time.perf_counter() - t0))

    ticker = threading.Thread(target=progress, daemon=True)
    ticker.start()
    try:
        result: Result = engine.think(
            board, limit, lambda info: send(("info", job_id, info.to_dict())), stop
        )
    finally:
        done.set()
        ticker.join()
    return result


def _worker_main(conn: Any, stop: StopFlag, warm: Sequence[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    from banmen.engine import parse_spec
    from banmen.games import get_game, make_engine

    lock = threading.Lock()

    def send(msg: tuple[Any, ...]) -> None:
        with lock:
            conn.send(msg)

    engines: dict[tuple[str, str], Any] = {}
    for g in warm:
        try:
            game = get_game(g)
            _engine_for(engines, game, game.default_engine)
        except Exception as e:  # pragma: no cover - reported, not fatal
            send(("log", f"warm-up of {g} failed: {e}"))
    send(("ready", os.getpid()))

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "quit":
            return
        if msg[0] != "think":
            continue
        _, job_id, game_name, board_dict, spec_text, limit_dict = msg
        try:
            game = get_game(game_name)
            board = game.board_from_dict(board_dict)
            spec = parse_spec(spec_text)
            limit = Limit.from_dict(limit_dict) if limit_dict else spec.limit
            if spec.kind == "random":
                engine: Any = make_engine(game, spec)
            else:
                engine = _engine_for(engines, game, spec.kind)
            result = _think_with_progress(engine, board, limit, stop, job_id, send)
            send(("result", job_id, result.to_dict()))
        except Exception as e:
            send(("error", job_id, str(e) or type(e).__name__))


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


class EngineWorker:
    """One engine process. ``think()`` blocks; ``start_job()`` does not."""

    def __init__(self, warm: Sequence[str] = ("mattix",)) -> None:
        self._warm = tuple(warm)
        self._lock = threading.Lock()
        self._handlers: dict[int, Callable[[tuple[Any, ...]], None]] = {}
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
        self.dead = threading.Event()
        self._reader = threading.Thread(target=self._read, args=(self._conn,), daemon=True)
        self._reader.start()

    def _read(self, conn: Any) -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                break
            if msg[0] == "ready":
                self.pid = msg[1]
                self.ready.set()
            elif msg[0] == "log":
                pass
            else:
                with self._lock:
                    handler = self._handlers.get(msg[1])
                if handler is not None:
                    handler(msg)
        # The process is gone: fail whatever was running.
        self.dead.set()
        with self._lock:
            handlers = list(self._handlers.items())
            self._handlers.clear()
        for job_id, handler in handlers:
            handler(("error", job_id, "the engine process stopped unexpectedly"))

    @property
    def alive(self) -> bool:
        return self.proc.is_alive()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the worker has warmed up; False if it died or time ran out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.ready.wait(0.05):
            if self.dead.is_set() or (deadline is not None and time.monotonic() > deadline):
                return False
        return True

    def restart(self) -> None:
        self.close()
        self._start()

    def start_job(
        self,
        game: str,
        board: dict[str, Any],
        spec: str,
        limit: Limit | None,
        handler: Callable[[tuple[Any, ...]], None],
    ) -> int:
        """Send a job; ``handler`` gets every message about it, on the reader thread."""
        if not self.alive:
            self.restart()
        job_id = next(_ids)
        self.stop_flag.clear()
        with self._lock:
            self._handlers[job_id] = handler
        try:
            self._conn.send(
                ("think", job_id, game, board, spec, None if limit is None else limit.to_dict())
            )
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

    def close(self) -> None:
        try:
            self._conn.send(("quit",))
        except (OSError, ValueError):
            pass
        self.proc.join(timeout=2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=2)
        self._conn.close()

    def __enter__(self) -> EngineWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Job:
    """A search in an :class:`EnginePool`, waiting in line or running; ``await job`` for
    its :class:`Result`."""

    def __init__(
        self,
        on_info: Callable[[Info], None] | None,
        on_progress: Callable[[Progress], None] | None,
        *,
        owner: Hashable | None = None,
        on_queue: Callable[[int], None] | None = None,
    ) -> None:
        self.future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self.on_info = on_info
        self.on_progress = on_progress
        self.owner = owner
        self.on_queue = on_queue
        #: place in line (1 = next to start) while waiting; 0 once started
        self.position = 0
        self.worker: EngineWorker | None = None
        self._stop_requested = False
        self._pool: EnginePool | None = None
        self._request: tuple[str, dict[str, Any], str, Limit | None] | None = None

    @property
    def waiting(self) -> bool:
        return self._request is not None and not self.future.done()

    def stop(self) -> None:
        """Ask the search to return its best move now (safe to call at any time; a job
        still waiting in line returns at once when its turn comes)."""
        self._stop_requested = True
        if self.worker is not None and not self.future.done():
            self.worker.stop()

    def cancel(self) -> None:
        """Abandon the job: taken out of the line if it waits there (it then fails with
        :class:`JobCancelled`), stopped if it runs."""
        if self._pool is not None and self._pool._withdraw(self):
            return
        self.stop()

    def __await__(self) -> Any:
        return self.future.__await__()


class JobCancelled(EngineError):
    """The job was cancelled while it waited for a worker."""


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
    """

    def __init__(
        self,
        size: int | None = None,
        warm: Sequence[str] = ("mattix",),
        *,
        max_queued: int | None = None,
        max_waiting_per_owner: int = 1,
    ) -> None:
        self.size = max(1, size or os.cpu_count() or 1)
        self.max_queued = max_queued
        self.max_waiting_per_owner = max_waiting_per_owner
        self._warm = tuple(warm)
        self._workers: list[EngineWorker] = []
        self._idle: list[EngineWorker] = []
        self._line: list[Job] = []  # waiting jobs, in the order they came
        self._tasks: set[asyncio.Task[None]] = set()
        self._started = False
        self.running = 0

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._workers = await loop.run_in_executor(
            None, lambda: [EngineWorker(self._warm) for _ in range(self.size)]
        )
        self._idle = list(self._workers)
        self._started = True
        self._dispatch()

    @property
    def ready(self) -> bool:
        return bool(self._workers) and all(w.ready.is_set() for w in self._workers)

    @property
    def waiting(self) -> int:
        """Jobs waiting in line for a worker."""
        return len(self._line)

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
    ) -> Job:
        """Queue a search; it starts as soon as a worker is free and it is its turn.
        Raises :class:`PoolBusy` (and queues nothing) if it would have to wait in a full
        line, or ``owner`` already has its share waiting."""
        must_wait = not (self._started and self._idle and not self._line)
        if must_wait and self.max_queued is not None and len(self._line) >= self.max_queued:
            raise PoolBusy(
                f"the server is busy: the line for an engine is full ({len(self._line)} waiting)"
            )
        if owner is not None:
            mine = sum(1 for j in self._line if j.owner == owner)
            if mine >= self.max_waiting_per_owner:
                raise PoolBusy("this game already has a CPU move waiting for an engine")
        job = Job(on_info, on_progress, owner=owner, on_queue=on_queue)
        job._pool = self
        job._request = (game, board, spec, limit)
        self._line.append(job)
        self._dispatch()
        return job

    def order(self) -> list[Job]:
        """The waiting jobs in the order they will start: turns between owners (each in
        the order it first joined the line), one job per owner and turn; jobs without an
        owner are each their own."""
        queues: dict[Hashable, list[Job]] = {}
        for job in self._line:
            key = job.owner if job.owner is not None else ("job", id(job))
            queues.setdefault(key, []).append(job)
        out: list[Job] = []
        rounds = max((len(q) for q in queues.values()), default=0)
        for k in range(rounds):
            out.extend(q[k] for q in queues.values() if k < len(q))
        return out

    def _dispatch(self) -> None:
        """Start waiting jobs on idle workers, then tell the rest their places."""
        line = self.order()
        while self._started and self._idle and line:
            job = line.pop(0)
            self._line.remove(job)
            worker = self._idle.pop(0)
            task = asyncio.get_running_loop().create_task(self._run(job, worker))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            self._tell(job, 0)
        for i, job in enumerate(line, 1):
            self._tell(job, i)

    @staticmethod
    def _tell(job: Job, position: int) -> None:
        """Tell a job its place in line if it changed (0: it has started)."""
        if job.position == position:
            return
        job.position = position
        if job.on_queue is not None:
            job.on_queue(position)

    def _withdraw(self, job: Job) -> bool:
        """Take a waiting job out of the line; False if it is not waiting."""
        if job not in self._line:
            return False
        self._line.remove(job)
        job._request = None
        if not job.future.done():
            job.future.set_exception(JobCancelled("cancelled while waiting for an engine"))
            job.future.exception()  # retrieved: nobody need await an abandoned job
        self._dispatch()
        return True

    async def _run(self, job: Job, worker: EngineWorker) -> None:
        loop = asyncio.get_running_loop()
        assert job._request is not None
        game, board, spec, limit = job._request
        job._request = None
        self.running += 1
        try:
            job.worker = worker

            def handle(msg: tuple[Any, ...]) -> None:
                try:
                    loop.call_soon_threadsafe(self._deliver, job, msg)
                except RuntimeError:  # the loop has closed: nobody is waiting any more
                    pass

            try:
                job_id = worker.start_job(game, board, spec, limit, handle)
            except EngineError as e:
                job.future.set_exception(e)
                return
            if job._stop_requested:
                worker.stop()
            try:
                await asyncio.shield(job.future)
            except Exception:
                pass
            worker.finish_job(job_id)
        finally:
            self.running -= 1
            job.worker = None
            if worker in self._workers:  # not closed meanwhile
                if not worker.alive:
                    await loop.run_in_executor(None, worker.restart)
                self._idle.append(worker)
                self._dispatch()

    @staticmethod
    def _deliver(job: Job, msg: tuple[Any, ...]) -> None:
        if job.future.done():
            return
        kind = msg[0]
        if kind == "info" and job.on_info is not None:
            job.on_info(Info(**msg[2]))
        elif kind == "progress" and job.on_progress is not None:
            job.on_progress(Progress(msg[2], msg[3]))
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
