"""The handle of one worker process: start, restart, kill, and the jobs sent to it.

:class:`EngineWorker` spawns :func:`banmen.worker.child.main` with a pipe and a shared
:class:`~banmen.search.limits.StopFlag`; a reader thread per process hands each
:mod:`~banmen.worker.messages` message to the job it is about (or, for the warm-up, to
``on_event``), and fails that process's jobs when it dies.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from banmen.engine import Info, PlayerSpec, Result
from banmen.search.limits import Limit, StopFlag
from banmen.worker.child import main
from banmen.worker.messages import (
    Answer,
    Failure,
    Iteration,
    JobMessage,
    Notice,
    Quit,
    Ready,
    Request,
    Run,
    Update,
    WarmEvent,
    receive,
)

__all__ = ["EngineError", "EngineWorker", "Handler"]

_ids = itertools.count(1)

#: what the reader thread hands a job's handler: the worker's message about it
Handler = Callable[[JobMessage], None]


class EngineError(RuntimeError):
    """A job could not run: a bad request, or the worker process died."""


def _print_notice(msg: WarmEvent) -> None:
    if isinstance(msg, Notice):  # (a Log too)
        print(msg.line, file=sys.stderr, flush=True)


class EngineWorker:
    """One engine process. ``think()`` blocks; ``start_job()`` does not.

    ``warm`` names what the process loads before its first job (game names: their default
    kernel sets; or kernel set ids), compiling what is cold; ``on_event`` hears each step
    (a :data:`~banmen.worker.messages.WarmEvent`: ``Warming``, ``Warmed``, ``Notice``,
    ``Log``, ``Ready``) on the reader thread; by default the notices go to stderr."""

    def __init__(
        self,
        warm: Sequence[str] = (),
        on_event: Callable[[WarmEvent], None] | None = None,
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
        self.proc = ctx.Process(target=main, args=(child, self.stop_flag, self._warm), daemon=True)
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
        while (msg := receive(conn)) is not None:
            if isinstance(msg, JobMessage):
                with self._lock:
                    handler = jobs.get(msg.job_id)
                if handler is not None:
                    handler(msg)
            else:
                if isinstance(msg, Ready):
                    self.pid = msg.pid
                    self.ready.set()
                try:
                    self._on_event(msg)
                except Exception:  # pragma: no cover - a listener's bug must not stop reading
                    pass
        # The process is gone: fail whatever was running.
        dead.set()
        proc.join(0.5)  # for its exit code
        code = "" if proc.exitcode is None else f" (exit code {proc.exitcode})"
        with self._lock:
            handlers = list(jobs.items())
            jobs.clear()
        for job_id, handler in handlers:
            handler(Failure(job_id, f"the engine process stopped unexpectedly{code}"))

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

    def start_job(self, request: Request, handler: Handler) -> int:
        """Send a job; ``handler`` gets every message about it, on the reader thread.
        ``request.factory`` (``module:function``) builds the engine instead of the
        registry; ``request.task`` "analyse" runs the game's analysis instead of a search
        (``spec`` unused; ``limit`` ``None``: :data:`~banmen.worker.ANALYSIS_SECONDS`)."""
        if not self.alive:
            self.restart()
        job_id = next(_ids)
        self.stop_flag.clear()
        with self._lock:
            self._handlers[job_id] = handler
        run = Run.of(job_id, request)
        try:
            self._conn.send(run)
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

    def _wait(self, request: Request, on_message: Callable[[JobMessage], None]) -> Any:
        """Run ``request`` and wait for it: its :class:`~.messages.Answer`'s value (after
        ``on_message`` has seen it); ``on_message`` sees every message on the way, in this
        thread. A :class:`~.messages.Failure` raises :class:`EngineError`."""
        inbox: queue.Queue[JobMessage] = queue.Queue()
        job_id = self.start_job(request, inbox.put)
        try:
            while True:
                msg = inbox.get()
                on_message(msg)
                if isinstance(msg, Answer):
                    return msg.value
                if isinstance(msg, Failure):
                    raise EngineError(msg.text)
        finally:
            self.finish_job(job_id)

    def think(
        self,
        game: str,
        board: dict[str, Any],
        spec: PlayerSpec | str,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
    ) -> Result:
        """Run one search in the worker and wait for it (``on_info`` runs in this thread);
        a spec given as text is read here, once."""
        if isinstance(spec, str):
            from banmen.games.registry import parse_spec

            spec = parse_spec(spec, game)

        def on_message(msg: JobMessage) -> None:
            if isinstance(msg, Iteration) and on_info is not None:
                on_info(Info(**msg.info))

        return Result.from_dict(self._wait(Request(game, board, spec, limit), on_message))

    def analyse(
        self,
        game: str,
        board: dict[str, Any],
        limit: Limit | None = None,
        on_update: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Run ``game``'s analysis of ``board`` in the worker and wait for it: its final
        ``Analysis.to_dict()``; ``on_update`` (in this thread) gets the updates streamed
        on the way (at most one per :data:`~banmen.worker.ANALYSIS_PERIOD`) and the final
        one."""

        def on_message(msg: JobMessage) -> None:
            if isinstance(msg, Update) and on_update is not None:
                on_update(msg.analysis)
            elif isinstance(msg, Answer) and on_update is not None:
                on_update(msg.value)

        request = Request(game, board, None, limit, task="analyse")
        final: dict[str, Any] = self._wait(request, on_message)
        return final

    def close(self) -> None:
        # (after a restart running in another thread: the pool may close a worker it is
        # restarting, and must not meet a process made but not yet started)
        with self._life:
            try:
                self._conn.send(Quit())
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
