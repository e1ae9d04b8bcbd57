"""Tsume-shogi in the web app: the ``/tsume`` page, SFEN checks and solves in worker processes.

Routes (see :func:`tsume_routes`; the page ``/tsume`` itself is one of :mod:`banmen.web.pages`:
``static/pages/tsume.html``, ``static/js/tsume.js``), ``GET /api/tsume/sfen?sfen=…``
(checks a position: ``{"ok": true, "sfen": canonical, "turn", "notes"}``, or
``{"ok": false, "error": one line}`` — the check itself succeeded, so both are 200s and the
browser logs no failed request; a missing ``?sfen=`` is a 400) and the socket ``/ws/tsume``.

The socket speaks JSON objects with a ``type``. Client → server:

``{"type": "solve", "sfen": str, "time"?: seconds}``
    solve the problem (the side to move attacks) within ``time`` seconds (default
    :data:`DEFAULT_SECONDS`, at most the service's ``max_seconds``, by default
    :data:`MAX_SECONDS`); one solve per connection, and per client address.
``{"type": "cancel"}``
    stop the running solve now: it ends with an ``unknown`` / ``stopped`` result.
``{"type": "check", "sfen": str}``
    answered with ``{"type": "position", "sfen": canonical, "turn", "notes"}``.
``{"type": "status"}``
    answered with ``{"type": "status", "running": bool, "sfen"?, "seconds"?, "queued"?,
    "position"?}`` (``position``: the place in line while queued).

Server → client: ``hello`` (the limits, on connecting), ``queued`` (every solver slot is
busy; the solve starts when one frees up: ``position`` in line and the ``message`` to show,
sent again whenever the place changes), ``started``, ``progress`` (about ten a second:
``nodes``, ``seconds``, ``nps``, ``pn``, ``dn``, ``phase``), ``result`` (the solver's
:class:`~banmen.games.shogi.tsume.TsumeResult` fields, plus ``steps`` — one
``{"usi", "kif", "sfen"}`` per move of the line, ``sfen`` being the position after it —
``summary``, one line saying what was and was not proved, and ``error`` if the solver
failed), ``notice`` and ``error`` (one line each; an error changes nothing).

Processes: every solve runs in its own spawned process, which runs that one solve and exits
(so its transposition table is returned to the system at once). One spare process is
started ahead of need — when the page's socket connects — so a solve starts without the
~0.5 s a fresh interpreter needs to import cshogi. A solve is stopped through a shared
:class:`~banmen.search.limits.StopFlag`; a solver that has not answered
:data:`STOP_GRACE` seconds later (or :data:`OVERRUN_GRACE` seconds past its time limit) is
killed. Closing the socket kills the connection's solve at once. At most ``max_solves``
solves run at a time; further ones wait in line (``queued``), at most ``max_queued`` of
them — beyond that, and for a second solve from a client address that has one running or
waiting, the ``solve`` gets a one-line ``error`` and nothing starts.

Nothing here runs cshogi on text from a client before :func:`parse_sfen` has checked it
(cshogi aborts the process on some malformed SFEN); the event loop only ever parses SFEN,
and the line of a solution is read (KIF, positions) in the solver's process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import math
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from banmen.games.shogi.sfen import ShogiError, normalize_sfen, parse_sfen
from banmen.search.limits import Limit, StopFlag
from banmen.web.limits import busy_line, client_address
from banmen.web.protocol import MAX_MESSAGE_BYTES
from banmen.web.replies import NO_STORE_JSON, one_line
from banmen.web.session import Client

__all__ = [
    "DEFAULT_SECONDS",
    "MAX_SECONDS",
    "DEFAULT_SOLVER",
    "SolverService",
    "SolveJob",
    "TsumeSession",
    "check_sfen",
    "line_steps",
    "summary",
    "tsume_routes",
]

#: The page's default time limit for a solve, in seconds.
DEFAULT_SECONDS = 30.0
#: The longest time limit a solve may ask for, unless the service says otherwise
#: (:attr:`banmen.web.limits.Limits.max_solve_seconds`).
MAX_SECONDS = 300.0
#: Solves that may wait in line, unless the service says otherwise.
MAX_QUEUED = 32
#: Seconds a stopped solver has to answer before its process is killed.
STOP_GRACE = 2.0
#: Seconds past its time limit a solver may run before it is stopped (then killed).
OVERRUN_GRACE = 5.0
#: The solve function the worker processes run, as ``module:function``.
DEFAULT_SOLVER = "banmen.games.shogi.tsume:solve"
#: Transposition table of one solve, in MB.
DEFAULT_HASH_MB = 256

_EXAMPLE = '{"type": "solve", "sfen": "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "time": 30}'
_TYPES = ("solve", "cancel", "check", "status")
_PROGRESS_KEYS = ("nodes", "seconds", "nps", "pn", "dn", "phase")


class RequestError(ValueError):
    """A client request that cannot be carried out; ``str(e)`` is the one-line reply."""


def jsonable(x: Any) -> Any:
    """``x`` as plain JSON values: non-finite floats become ``None`` (JSON has no
    infinity), numpy scalars plain numbers, tuples lists."""
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    item = getattr(x, "item", None)  # numpy scalars
    if callable(item):
        return jsonable(item())
    return str(x)


# --------------------------------------------------------------------------- positions


def check_sfen(text: Any) -> dict[str, Any]:
    """Check a problem position: ``{"sfen": canonical, "turn": "b"|"w", "notes": [...]}``
    (``notes``: what is unusual about it as a problem); raises :class:`ShogiError`, also
    when the defender (the side not to move) has no king."""
    if not isinstance(text, str):
        raise ShogiError("SFEN must be a string")
    if len(text) > 400:
        raise ShogiError(f"SFEN is {len(text)} characters long; a position needs at most ~150")
    sfen = normalize_sfen(text)
    board_text, turn = sfen.split()[:2]
    names = {"b": "black (sente)", "w": "white (gote)"}
    defender = "w" if turn == "b" else "b"
    if ("k" if turn == "b" else "K") not in board_text:
        raise ShogiError(f"{names[defender]} has no king: there is nothing to mate")
    board = parse_sfen(sfen)  # the checks that need the rules (the side not to move in check)
    notes = []
    if board.is_check():
        notes.append(f"{names[turn]}, the attacker, is in check")
    return {"sfen": sfen, "turn": turn, "notes": notes}


def line_steps(sfen: str, pv: list[str]) -> list[dict[str, str]]:
    """The moves of ``pv`` from ``sfen`` (already checked): each as ``usi``, ``kif``
    (``▲７二香成(75)``) and ``sfen``, the position after it. Stops at the first move that
    is not legal (a solver bug must not crash anything)."""
    import cshogi

    from banmen.games.shogi.notation import kif_move, parse_usi_move

    board = parse_sfen(sfen)
    steps: list[dict[str, str]] = []
    prev: int | None = None
    for usi in pv:
        try:
            move = parse_usi_move(board, usi)
        except ShogiError:
            break
        mark = "▲" if board.turn == cshogi.BLACK else "△"
        kif = mark + kif_move(move, prev)
        board.push(move)
        prev = move
        steps.append({"usi": usi, "kif": kif, "sfen": str(board.sfen())})
    return steps


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _count(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} M"
    if n >= 10_000:
        return f"{n / 1e3:.0f} k"
    return str(n)


_REASONS = {
    "timeout": "the time limit was reached",
    "node_limit": "the node limit was reached",
    "memory": "the solver ran out of memory",
    "stopped": "the solve was stopped",
    "crashed": "the solver process failed",
}


def summary(result: dict[str, Any], seconds: float | None = None) -> str:
    """One line saying what a result proved, and what it did not."""
    status = result.get("status")
    nodes = int(result.get("nodes") or 0)
    took = float(result.get("seconds") or 0.0)
    spent = f"{_count(nodes)} nodes, {took:.1f} s"
    if status == "mate":
        n = int(result.get("length") or len(result.get("pv") or []))
        if result.get("shortest"):
            return f"Solved: mate in {n}, proved shortest ({spent})."
        why = _REASONS.get(str(result.get("reason")), "it was not shortened")
        return (
            f"Solved: mate in {n}, not proved shortest — a mate is proved, but {why} "
            f"before a shorter one was ruled out ({spent})."
        )
    if status == "no_mate":
        return f"No mate: proved that every defence escapes ({spent})."
    reason = str(result.get("reason") or "")
    why = _REASONS.get(reason, "the solve ended early")
    if reason == "timeout" and seconds:
        why = f"the time limit ({seconds:g} s) was reached"
    return f"Unknown: {why} — neither a mate nor the absence of one was proved ({spent})."


# --------------------------------------------------------------------------- the process


def _solver_main(conn: Any, stop: StopFlag, solver: str) -> None:
    """A solver process: load the solver, say ready, run one solve, send its result."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when we stop
    lock = threading.Lock()

    def send(msg: tuple[Any, ...]) -> None:
        with lock:
            conn.send(msg)

    try:
        module, _, name = solver.partition(":")
        loaded = importlib.import_module(module)
        solve = getattr(loaded, name)
        warm_up = getattr(loaded, "warm_up", None)
        if callable(warm_up):
            warm_up()  # compiled code loaded before the clock of a solve starts
    except BaseException as e:
        send(("error", f"the solver {solver!r} could not be loaded: {one_line(e)}"))
        return
    send(("ready", os.getpid()))
    try:
        msg = conn.recv()
    except (EOFError, OSError):
        return
    if not isinstance(msg, tuple) or msg[0] != "solve":
        return
    _, sfen, seconds, hash_mb = msg

    def progress(info: dict[str, Any]) -> None:
        try:
            send(("progress", {k: info.get(k) for k in _PROGRESS_KEYS}))
        except (OSError, ValueError):
            stop.set()  # the server is gone

    t0 = time.perf_counter()
    try:
        result = solve(
            sfen, Limit(time=seconds), stop=stop, progress=progress, hash_mb=hash_mb
        ).to_dict()
        if result.get("status") == "mate":
            result["steps"] = line_steps(sfen, list(result.get("pv") or []))
        send(("result", result))
    except ShogiError as e:
        send(("error", one_line(e)))
    except MemoryError:
        send(
            (
                "result",
                {
                    "sfen": sfen,
                    "status": "unknown",
                    "reason": "memory",
                    "seconds": time.perf_counter() - t0,
                },
            )
        )
    except BaseException as e:
        send(("error", f"the solver failed: {type(e).__name__}: {one_line(e)}"))


class _Proc:
    """One solver process and the thread that reads its messages into an asyncio queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop, solver: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.stop = StopFlag.shared()
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=_solver_main, args=(child, self.stop, solver), daemon=True, name="tsume"
        )
        self.proc.start()
        child.close()
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._loop = loop
        threading.Thread(target=self._read, daemon=True, name="tsume-reader").start()

    def _read(self) -> None:
        while True:
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                break
            except Exception as e:  # pragma: no cover - an unpicklable message
                msg = ("error", f"unreadable message from the solver: {one_line(e)}")
            self._put(msg)
        self._put(("eof",))

    def _put(self, msg: tuple[Any, ...]) -> None:
        try:
            self._loop.call_soon_threadsafe(self.inbox.put_nowait, msg)
        except RuntimeError:  # the loop has closed
            pass

    def alive(self) -> bool:
        return self.proc.is_alive()

    def send(self, msg: tuple[Any, ...]) -> bool:
        try:
            self.conn.send(msg)
            return True
        except (OSError, ValueError):
            return False

    def kill(self) -> None:
        """Kill the process and reap it (blocks briefly: call in a thread)."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        with contextlib.suppress(OSError):
            self.conn.close()

    def finish(self) -> None:
        """Wait for a process that has sent its result to exit; kill it if it lingers."""
        self.proc.join(timeout=2)
        self.kill()


# --------------------------------------------------------------------------- jobs


class SolveJob:
    """One solve requested by a connection: queued, running, then done."""

    def __init__(self, service: SolverService, sfen: str, seconds: float, client: str = "") -> None:
        self.service = service
        self.sfen = sfen
        self.seconds = seconds
        self.client = client  # the client's address: one solve each
        self.created = time.monotonic()
        self.started: float | None = None
        self.progress: dict[str, Any] | None = None
        self.cancelled = False
        #: place in line while waiting for a slot (0: not waiting)
        self.position = 0
        self.on_queued: Callable[[int], None] | None = None
        self._proc: _Proc | None = None
        self._wake = asyncio.Event()
        self._admitted = False  # counted by the service, until _finish
        self._slot = False  # holds a solver slot not yet handed to a process
        self._turn: asyncio.Future[None] | None = None  # resolved when handed a slot

    def cancel(self) -> None:
        """Stop the solve: it ends with an ``unknown`` / ``stopped`` result."""
        self.cancelled = True
        if self._proc is not None:
            self._proc.stop.set()
        self._wake.set()

    def _stopped(self, reason: str = "stopped", error: str | None = None) -> dict[str, Any]:
        p = self.progress or {}
        spent = time.monotonic() - self.started if self.started is not None else 0.0
        out: dict[str, Any] = {
            "sfen": self.sfen,
            "status": "unknown",
            "pv": [],
            "length": None,
            "shortest": False,
            "reason": reason,
            "nodes": int(p.get("nodes") or 0),
            "seconds": spent,
            "steps": [],
        }
        if error is not None:
            out["error"] = error
        return out

    async def run(
        self,
        on_started: Callable[[], None],
        on_queued: Callable[[int], None],
        on_progress: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any]:
        """Wait for a slot, solve in a fresh process, return the result's fields.
        Cancelled (the task), it kills the process at once."""
        service = self.service
        if not await service._wait_turn(self, on_queued):
            return self._stopped()
        proc: _Proc | None = None
        answered = False  # the process said its last word (and exits by itself)
        try:
            proc = await service._take_process()
            self._slot = False  # the slot goes with the process: freed once it has exited
            self._proc = proc
            if self.cancelled:
                return self._stopped()
            self.started = time.monotonic()
            if not proc.send(("solve", self.sfen, self.seconds, service.hash_mb)):
                return self._stopped("crashed", "could not reach the solver process")
            on_started()
            deadline = self.started + self.seconds + OVERRUN_GRACE
            kill_at: float | None = None
            while True:
                now = time.monotonic()
                if self.cancelled and kill_at is None:
                    proc.stop.set()
                    kill_at = now + STOP_GRACE
                if kill_at is None and now >= deadline:
                    proc.stop.set()  # the solver overran its own time limit
                    kill_at = now + STOP_GRACE
                if kill_at is not None and now >= kill_at:
                    return self._stopped("stopped" if self.cancelled else "timeout")
                wait = (kill_at if kill_at is not None else deadline) - now
                msg = await self._next(proc, wait)
                if msg is None:
                    continue
                kind = msg[0]
                if kind == "progress":
                    info = _progress(msg[1])
                    self.progress = info
                    on_progress(info)
                elif kind == "result":
                    answered = True
                    return _result(msg[1], self.sfen)
                elif kind == "error":
                    answered = True
                    raise RequestError(msg[1])
                elif kind == "eof":
                    answered = True
                    if self.cancelled:
                        return self._stopped()
                    code = proc.proc.exitcode
                    if code is None:
                        await asyncio.sleep(0.05)
                        code = proc.proc.exitcode
                    return self._stopped(
                        "crashed", f"the solver process stopped unexpectedly (exit code {code})"
                    )
        finally:
            self._proc = None
            if proc is not None:  # (if not, the service frees the slot in _finish)
                if not answered:
                    proc.proc.kill()  # a signal: it does not wait
                # single use: the process exits (or is reaped) and then frees its slot
                service._retire(proc)

    async def _next(self, proc: _Proc, wait: float) -> tuple[Any, ...] | None:
        """The process's next message, or ``None`` after ``wait`` seconds or a cancel."""
        getter = asyncio.ensure_future(proc.inbox.get())
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            done, _ = await asyncio.wait(
                {getter, waker}, timeout=max(0.0, wait), return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waker.cancel()
            if not getter.done():
                getter.cancel()
        self._wake.clear()
        if getter in done:
            return getter.result()
        if getter.done() and not getter.cancelled():  # arrived while cancelling
            return getter.result()
        return None


def _progress(raw: Any) -> dict[str, Any]:
    info = {k: raw.get(k) for k in _PROGRESS_KEYS} if isinstance(raw, dict) else {}
    for k in ("pn", "dn"):  # an infinite proof number stays readable in JSON
        v = info.get(k)
        if isinstance(v, float) and math.isinf(v):
            info[k] = "inf"
    out: dict[str, Any] = jsonable(info)
    if not isinstance(out.get("phase"), str):
        out["phase"] = None
    return out


def _result(raw: Any, sfen: str) -> dict[str, Any]:
    out: dict[str, Any] = jsonable(raw) if isinstance(raw, dict) else {}
    out.setdefault("sfen", sfen)
    out.setdefault("pv", [])
    out.setdefault("length", None)
    out.setdefault("shortest", False)
    out.setdefault("reason", None)
    out.setdefault("nodes", 0)
    out.setdefault("seconds", 0.0)
    out.setdefault("steps", [])
    return out


# --------------------------------------------------------------------------- the service


class SolverService:
    """The solver processes of one app: a spare warmed up ahead of need, a cap on solves
    running at once (further ones wait in line, at most ``max_queued``; one solve per
    client address), the longest time limit a solve may ask for, and clean-up at
    shutdown."""

    def __init__(
        self,
        max_solves: int = 1,
        *,
        max_queued: int = MAX_QUEUED,
        max_seconds: float = MAX_SECONDS,
        solver: str = DEFAULT_SOLVER,
        hash_mb: int = DEFAULT_HASH_MB,
    ) -> None:
        if max_solves < 1:
            raise ValueError(f"max_solves must be at least 1, got {max_solves}")
        if max_queued < 1 or not max_seconds > 0:
            raise ValueError("max_queued and max_seconds must be positive")
        self.max_solves = max_solves
        self.max_queued = max_queued
        self.max_seconds = float(max_seconds)
        self.solver = solver
        self.hash_mb = hash_mb
        self.running = 0
        self._waiting: list[SolveJob] = []
        self._clients: Counter[str] = Counter()
        self._spare: _Proc | None = None
        self._spawning: asyncio.Task[None] | None = None
        self._live: set[_Proc] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    # ---- slots

    @property
    def waiting(self) -> int:
        """Solves waiting in line for a slot."""
        return len(self._waiting)

    def admit(self, job: SolveJob) -> None:
        """Take ``job`` on: give it a free slot, or a place in line. Raises
        :class:`RequestError` (and takes nothing on) if its client already has a solve,
        or the line is full."""
        if self._closed:
            raise RequestError("the server is shutting down: no new solves")
        if self._clients[job.client] > 0:
            raise RequestError(
                "you already have a solve running or waiting (in another tab or window): "
                "one at a time; cancel it there first"
            )
        free = self.running < self.max_solves and not self._waiting
        if not free and len(self._waiting) >= self.max_queued:
            raise RequestError(
                f"the server is busy: the line for a solver is full ({len(self._waiting)} "
                "waiting); try again in a while"
            )
        self._clients[job.client] += 1
        job._admitted = True
        if free:
            self.running += 1
            job._slot = True
        else:
            job._turn = asyncio.get_running_loop().create_future()
            self._waiting.append(job)
            job.position = len(self._waiting)

    async def _wait_turn(self, job: SolveJob, on_queued: Callable[[int], None]) -> bool:
        """Wait until ``job`` holds a slot; False if it was cancelled first. Its place in
        line goes to ``on_queued`` now and whenever it changes."""
        if job._slot:
            return True
        turn = job._turn
        if turn is None:  # not admitted, or already gone
            return False
        job.on_queued = on_queued
        on_queued(job.position)
        while not turn.done():
            waker: asyncio.Future[Any] = asyncio.ensure_future(job._wake.wait())
            waiters: set[asyncio.Future[Any]] = {turn, waker}
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waker.cancel()
            job._wake.clear()
            if job.cancelled and not turn.done():
                self._leave_line(job)
                return False
        return job._slot  # handed over by _release

    def _leave_line(self, job: SolveJob) -> None:
        if job in self._waiting:
            self._waiting.remove(job)
            job.position = 0
            self._renumber()

    def _renumber(self) -> None:
        """Tell every waiting job its place in line, if it changed."""
        for i, job in enumerate(self._waiting, 1):
            if job.position != i:
                job.position = i
                if job.on_queued is not None:
                    job.on_queued(i)

    def _release(self) -> None:
        """A slot is free: hand it to the first job in line, or give it back."""
        if self._waiting:
            job = self._waiting.pop(0)
            job.position = 0
            job._slot = True  # the slot passes on: running stays the same
            if job._turn is not None and not job._turn.done():
                job._turn.set_result(None)
            self._renumber()
            return
        self.running -= 1

    def _finish(self, job: SolveJob) -> None:
        """``job`` is over (or was never started): out of the line, its unused slot freed,
        its client free to solve again. Safe to call more than once."""
        if not job._admitted:
            return
        job._admitted = False
        self._leave_line(job)
        if job._slot:
            job._slot = False
            self._release()
        self._clients[job.client] -= 1
        if self._clients[job.client] <= 0:
            del self._clients[job.client]

    # ---- processes

    def warm(self) -> None:
        """Start a spare solver process in the background (if there is none)."""
        if self._closed or self._spare is not None or self._spawning is not None:
            return
        self._spawning = asyncio.get_running_loop().create_task(self._spawn_spare())

    async def _spawn_spare(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            proc = await loop.run_in_executor(None, _Proc, loop, self.solver)
        finally:
            self._spawning = None
        if self._closed:
            await loop.run_in_executor(None, proc.kill)
            return
        self._live.add(proc)
        self._spare = proc

    async def _take_process(self) -> _Proc:
        loop = asyncio.get_running_loop()
        if self._spawning is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._spawning)
        proc, self._spare = self._spare, None
        if proc is None or not proc.alive():
            if proc is not None:
                self._forget(proc)
                await loop.run_in_executor(None, proc.kill)
            proc = await loop.run_in_executor(None, _Proc, loop, self.solver)
            self._live.add(proc)
        self.warm()
        return proc

    def _forget(self, proc: _Proc) -> None:
        self._live.discard(proc)

    def _retire(self, proc: _Proc) -> None:
        """In the background: wait for a used process to exit (kill it if it lingers),
        then free its slot — the result need not wait for that."""
        loop = asyncio.get_running_loop()

        async def retire() -> None:
            try:
                await loop.run_in_executor(None, proc.finish)
            finally:
                self._live.discard(proc)
                self._release()

        task = loop.create_task(retire())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Kill every solver process (running solves end as stopped)."""
        self._closed = True
        if self._spawning is not None:
            with contextlib.suppress(Exception):
                await self._spawning
        procs = list(self._live)
        self._live.clear()
        self._spare = None
        for p in procs:
            p.stop.set()
        if procs:

            def kill_all() -> None:
                for p in procs:
                    p.kill()

            await asyncio.get_running_loop().run_in_executor(None, kill_all)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


# --------------------------------------------------------------------------- a connection


def _decode(raw: str | bytes | None) -> dict[str, Any]:
    if raw is None:
        raise RequestError(f"empty message: expected a JSON object like {_EXAMPLE}")
    if isinstance(raw, bytes):
        raise RequestError(f"binary frame: expected a text frame holding JSON like {_EXAMPLE}")
    size = len(raw) if len(raw) > MAX_MESSAGE_BYTES else len(raw.encode("utf-8", "replace"))
    if size > MAX_MESSAGE_BYTES:
        raise RequestError(
            f"message too long ({size} bytes): the limit is {MAX_MESSAGE_BYTES} bytes"
        )
    try:
        data = json.loads(raw, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise RequestError(
            f"not valid JSON ({e.msg} at position {e.pos}): expected an object like {_EXAMPLE}"
        ) from None
    except (RecursionError, ValueError):
        raise RequestError(f"not usable JSON: expected a flat object like {_EXAMPLE}") from None
    if not isinstance(data, dict):
        raise RequestError(f'expected a JSON object with a "type" field, like {_EXAMPLE}')
    kind = data.get("type")
    if kind not in _TYPES:
        shown = repr(kind)[:40] if kind is not None else "missing"
        raise RequestError(f"unknown message type {shown}: expected one of {', '.join(_TYPES)}")
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _seconds(value: Any, most: float = MAX_SECONDS) -> float:
    if value is None:
        return min(DEFAULT_SECONDS, most)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f'"time" must be a number of seconds, got {json.dumps(value)[:40]}')
    t = float(value)
    if not math.isfinite(t) or t <= 0 or t > most:
        raise RequestError(
            f'"time" must be more than 0 and at most {most:g} seconds (the server\'s limit)'
        )
    return t


class TsumeSession:
    """One ``/ws/tsume`` connection: its requests, and at most one solve."""

    def __init__(self, service: SolverService, client: Client) -> None:
        self.service = service
        self.client = client
        self.job: SolveJob | None = None
        self._task: asyncio.Task[None] | None = None

    def hello(self) -> None:
        self.client.send(
            {
                "type": "hello",
                "default_time": min(DEFAULT_SECONDS, self.service.max_seconds),
                "max_time": self.service.max_seconds,
                "max_solves": self.service.max_solves,
            }
        )

    async def handle(self, raw: str | bytes | None) -> None:
        try:
            data = _decode(raw)
            kind = data["type"]
            if kind == "solve":
                self._solve(data)
            elif kind == "cancel":
                if self.job is None:
                    self.client.send({"type": "notice", "message": "no solve is running"})
                else:
                    self.job.cancel()
            elif kind == "check":
                self.client.send({"type": "position", **_checked(data.get("sfen"))})
            elif kind == "status":
                self.client.send(self._status())
        except (RequestError, ShogiError) as e:
            self.client.error(one_line(e))

    def _status(self) -> dict[str, Any]:
        job = self.job
        if job is None:
            return {"type": "status", "running": False}
        return {
            "type": "status",
            "running": True,
            "queued": job.started is None,
            "position": job.position,  # place in line while queued, else 0
            "sfen": job.sfen,
            "time": job.seconds,
            "seconds": time.monotonic() - (job.started or job.created),
            "cancelled": job.cancelled,
        }

    def _solve(self, data: dict[str, Any]) -> None:
        sfen = _checked(data.get("sfen"))["sfen"]
        seconds = _seconds(data.get("time"), self.service.max_seconds)
        if self.job is not None:
            raise RequestError("a solve is already running: cancel it first")
        job = SolveJob(self.service, sfen, seconds, self.client.address)
        self.service.admit(job)  # RequestError if the client has one, or the line is full
        self.job = job
        self._task = asyncio.get_running_loop().create_task(self._run(job))

    async def _run(self, job: SolveJob) -> None:
        send = self.client.send
        try:
            result = await job.run(
                on_started=lambda: send({"type": "started", "sfen": job.sfen, "time": job.seconds}),
                on_queued=lambda n: send(
                    {"type": "queued", "position": n, "message": busy_line(n, "a solver")}
                ),
                on_progress=lambda info: send({"type": "progress", **info}),
            )
        except RequestError as e:
            result = job._stopped("crashed", one_line(e))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # never lose the connection over a solver problem
            result = job._stopped("crashed", f"the solve failed: {one_line(e)}")
        finally:
            self.service._finish(job)
            if self.job is job:
                self.job = None
        if job.cancelled and result.get("status") == "unknown":
            result["reason"] = "stopped"
        result["summary"] = summary(result, job.seconds)
        if result.get("error"):
            send({"type": "error", "message": result["error"]})
        send({"type": "result", "time": job.seconds, **result})

    async def close(self) -> None:
        """The connection is gone: kill its solve."""
        task, self._task = self._task, None
        job = self.job
        if job is not None:
            job.cancel()
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if job is not None:
            self.service._finish(job)  # if the task was cancelled before it started


def _checked(text: Any) -> dict[str, Any]:
    if text is None:
        raise RequestError('missing "sfen": expected the position as an SFEN string')
    return check_sfen(text)


# --------------------------------------------------------------------------- routes


def tsume_routes(service: SolverService) -> list[BaseRoute]:
    """``/api/tsume/sfen`` and ``/ws/tsume``."""

    async def sfen_api(request: Request) -> Response:
        text = request.query_params.get("sfen")
        if text is None:
            return JSONResponse(
                {"ok": False, "error": "missing ?sfen=: expected a position as SFEN"},
                status_code=400,
                headers=NO_STORE_JSON,
            )
        try:
            return JSONResponse({"ok": True, **check_sfen(text)}, headers=NO_STORE_JSON)
        except ShogiError as e:
            return JSONResponse({"ok": False, "error": one_line(e)}, headers=NO_STORE_JSON)

    async def socket(websocket: WebSocket) -> None:
        # (the app's SocketGuard has checked the origin and the connection limits)
        await websocket.accept()
        service.warm()
        client = Client(websocket.send_text, "tsume", client_address(websocket))
        session = TsumeSession(service, client)
        session.hello()
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                await session.handle(raw if raw is not None else message.get("bytes"))
        finally:
            await session.close()
            await client.close()

    return [
        Route("/api/tsume/sfen", sfen_api),
        WebSocketRoute("/ws/tsume", socket, name="ws-tsume"),
    ]
