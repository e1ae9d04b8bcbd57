"""Tsume-shogi in the web app: the ``/tsume`` page, SFEN checks, and solves as jobs of the
app's engine pool.

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
``{"type": "analysis", "on": true, "sfen": str}`` / ``{"type": "analysis", "on": false}``
    analyse the problem ``sfen`` (checked as a solve's is) — every check of the attacker
    proved mate in N, no mate, or still open (:mod:`banmen.games.shogi.analysis`) — or
    stop. One analysis per connection: another ``sfen`` stops the old one at once and
    starts its own, the same one again is answered with where it stands, and a ``solve``
    of another position moves it to that position. Solves keep priority: an analysis
    waits in the pool's line behind every search, gives its worker up to a search that
    finds none free, and starts again (keeping what it proved) once an engine is free.

Server → client: ``hello`` (the limits, on connecting), ``queued`` (every engine worker is
busy; the solve starts when one frees up: ``position`` in line and the ``message`` to show,
sent again whenever the place changes), ``started``, ``progress`` (about ten a second:
``nodes``, ``seconds``, ``nps``, ``pn``, ``dn``, ``phase``), ``result`` (the solver's
:class:`~banmen.games.shogi.tsume.TsumeResult` fields, plus ``steps`` — one
``{"usi", "kif", "sfen"}`` per move of the line, ``sfen`` being the position after it —
``summary``, one line saying what was and was not proved, and ``error`` if the solver
failed), ``analysis`` (``{"type": "analysis", "on", "sfen": the position analysed (null
when off), "status", "data", "message"?}``: ``status`` ``waiting`` (for an engine; the
``message`` says why), ``running`` (``data``: the latest rows), ``done`` (``data``: the
final rows; ``data.stopped_by`` ``exact`` when every check is decided, ``time`` at the
service's ``analysis_seconds``), ``failed`` (the ``message`` says why) or ``off``; ``data``
is :meth:`~banmen.analysis.Analysis.to_dict` with each row's ``kif``, its KIF name),
``notice`` and ``error`` (one line each; an error changes nothing).

Processes: a solve is a job of the app's :class:`~banmen.worker.EnginePool` — shogi's
``mate`` engine (:class:`~banmen.games.shogi.engine.MateEngine`) thinking on the problem —
so it waits in the same line as the game pages' CPU moves, runs in the same workers (which
load the solver at start-up) and keeps the same promises: a cancel stops it, and a solve
that has not answered :data:`~banmen.worker.STOP_GRACE` seconds after being stopped (or
:data:`~banmen.worker.OVERRUN_GRACE` seconds past its time limit) is killed with its
worker, which is restarted. Closing the socket stops the connection's solve. The table of a
solve is returned to the system when it ends. What is the tsume page's own: one solve
per client address (running or waiting), at most ``max_queued`` solves waiting (beyond
that, and for a second solve from a client address that has one, the ``solve`` gets a
one-line ``error`` and nothing starts), and the longest time limit.

Nothing here runs cshogi on text from a client before
:func:`~banmen.games.shogi.formats.parse_sfen` has checked it (cshogi aborts the process on
some malformed SFEN); the event loop only parses SFEN and names an analysis's checks (one
move each, once per analysis), and the line of a solution is read (KIF, positions) in the
worker.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from banmen.analysis import mate_rank, proved
from banmen.engine import Info, Result
from banmen.games.shogi.errors import ShogiError
from banmen.games.shogi.problem import check_sfen, move_names, summary
from banmen.numbers import Bounded, NumberError
from banmen.search.limits import Limit
from banmen.web.analysis_jobs import analysis_message, submit_run
from banmen.web.client import Client
from banmen.web.engines import waiting_for
from banmen.web.limits import busy_line
from banmen.web.protocol import ProtocolError, decode_object
from banmen.web.replies import NO_STORE_JSON, one_line
from banmen.web.sockets import serve_socket
from banmen.worker import (
    ANALYSIS_SECONDS,
    EngineError,
    EnginePool,
    Job,
    JobCancelled,
    JobKilled,
    PoolBusy,
)

__all__ = [
    "DEFAULT_SECONDS",
    "MAX_SECONDS",
    "MAX_QUEUED",
    "SolverService",
    "SolveJob",
    "TsumeSession",
    "tsume_routes",
]

#: The page's default time limit for a solve, in seconds.
DEFAULT_SECONDS = 30.0
#: The longest time limit a solve may ask for, unless the service says otherwise
#: (:attr:`banmen.web.limits.Limits.max_solve_seconds`).
MAX_SECONDS = 300.0
#: Solves that may wait in line, unless the service says otherwise.
MAX_QUEUED = 32

_EXAMPLE = '{"type": "solve", "sfen": "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "time": 30}'
_TYPES = ("solve", "cancel", "check", "status", "analysis")
_ANALYSIS_EXAMPLE = '{"type": "analysis", "on": true, "sfen": "4k4/9/4P4/9/9/9/9/9/9 b G 1"}'
#: the fields of every ``result`` (what an answer lacks, and a solve that had none)
_RESULT: dict[str, Any] = {"status": "unknown", "pv": [], "length": None, "shortest": False,
                           "reason": None, "nodes": 0, "seconds": 0.0, "steps": []}  # fmt: skip


class SolveJob:
    """One solve requested by a connection: queued, running, then done."""

    def __init__(self, sfen: str, seconds: float, client: str = "") -> None:
        self.sfen = sfen
        self.seconds = seconds
        self.client = client  # the client's address: one solve each
        self.created = time.monotonic()
        #: when it was handed a worker
        self.started: float | None = None
        self.progress: dict[str, Any] | None = None
        self.cancelled = False
        #: the engine pool's job, once submitted
        self.job: Job[Result] | None = None
        self._counted = False  # in the service's count of its client's solves

    @property
    def position(self) -> int:
        """The place in line while waiting for a worker (0: not waiting)."""
        return self.job.position if self.job is not None else 0

    def cancel(self) -> None:
        """Stop the solve: it ends with an ``unknown`` / ``stopped`` result."""
        self.cancelled = True
        if self.job is not None:
            self.job.cancel()

    def stopped(self, reason: str = "stopped", error: str | None = None) -> dict[str, Any]:
        """The result of a solve that ended without the solver's answer."""
        p = self.progress or {}
        spent = time.monotonic() - self.started if self.started is not None else 0.0
        out = {**_RESULT, "sfen": self.sfen, "reason": reason,
               "nodes": int(p.get("nodes") or 0), "seconds": spent}  # fmt: skip
        if error is not None:
            out["error"] = error
        return out


def _progress(info: Info) -> dict[str, Any]:
    """The ``progress`` message's fields from the mate engine's :class:`Info`."""
    phase = info.extra.get("phase")
    return {
        "nodes": info.nodes,
        "seconds": info.seconds,
        "nps": info.nps,
        "pn": info.extra.get("pn"),
        "dn": info.extra.get("dn"),
        "phase": phase if isinstance(phase, str) else None,
    }


def _answer(extra: dict[str, Any], sfen: str) -> dict[str, Any]:
    """The ``result`` message's fields from the mate engine's ``Result.extra``."""
    return {**_RESULT, "sfen": sfen, **extra}


# --------------------------------------------------------------------------- analyses


#: what goes before a problem's analysis in the engine pool's line
_FIRST = "solves and CPU moves"


def _decided(row: dict[str, Any]) -> bool:
    return proved(row["kind"], row.get("extra", {}))


def _better(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """What two analyses of the same check prove together (both are proofs of the same
    position: a no-mate and a mate never meet)."""
    if a["kind"] == "open" or b["kind"] == "no_mate":
        return b
    if b["kind"] == "open" or a["kind"] == "no_mate":
        return a
    if a["value"] != b["value"]:
        return a if a["value"] < b["value"] else b
    return a if _decided(a) else b


def merge_analyses(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """``new`` (an ``Analysis.to_dict()`` of a problem) with what ``old``, an earlier
    analysis of the same problem, proved and ``new`` has not (yet): a mate, a shorter one,
    its proof of being shortest, a no-mate."""
    if old is None:
        return new
    before = {r["move"]: r for r in old["moves"]}
    rows = [_better(before[r["move"]], r) if r["move"] in before else r for r in new["moves"]]
    rows.sort(key=lambda r: mate_rank(r["kind"], r["value"]))  # (the analysis's own order)
    return {
        **new,
        "moves": rows,
        "best": rows[0]["move"] if rows else None,
        "complete": bool(rows) and all(_decided(r) for r in rows),
    }


@dataclass(eq=False)
class _AnalysisRun:
    """The analysis of one problem position for one connection: one pool job at a time
    (another after giving way to a search); stale jobs and updates are recognised by
    identity."""

    sfen: str
    job: Job[dict[str, Any]] | None = None
    status: str = "waiting"
    data: dict[str, Any] | None = None
    message: str | None = None
    kif: dict[str, str] = field(default_factory=dict)

    def update(self, data: dict[str, Any]) -> None:
        """Take an update of the analysis: kept with what earlier jobs proved, each row
        given its KIF name."""
        merged = {**merge_analyses(self.data, data)}  # (not the pool's own record)
        unnamed = [r["move"] for r in merged["moves"] if r["move"] not in self.kif]
        if unnamed:
            self.kif.update(move_names(self.sfen, unnamed))
        merged["moves"] = [{**r, "kif": self.kif[r["move"]]} for r in merged["moves"]]
        self.data = merged


class SolverService:
    """The tsume page's socket (:class:`~banmen.web.sockets.SocketHandler`) and its share
    of the engine pool: one solve per client address (running or waiting), at most
    ``max_queued`` solves waiting, the longest time limit a solve may ask for; and each
    connection's analysis (a background job of the pool, within ``analysis_seconds``).

    ``factory`` (``module:function``) builds the engine instead of shogi's ``mate`` (the
    tests' stand-ins for a solver that will not stop, or crashes)."""

    #: the game whose engine solves (the pool's workers load it at start-up)
    game = "shogi"

    def __init__(
        self,
        *,
        max_queued: int = MAX_QUEUED,
        max_seconds: float = MAX_SECONDS,
        factory: str | None = None,
        analysis_seconds: float = ANALYSIS_SECONDS,
    ) -> None:
        if max_queued < 1 or not max_seconds > 0 or not analysis_seconds > 0:
            raise ValueError("max_queued, max_seconds and analysis_seconds must be positive")
        self.max_queued = max_queued
        self.max_seconds = float(max_seconds)
        self.factory = factory
        #: the longest an analysis runs (each of its jobs) unless it decides every check
        self.analysis_seconds = float(analysis_seconds)
        self.pool: EnginePool | None = None
        #: client addresses with a solve running or waiting
        self._clients: Counter[str] = Counter()
        #: solves in the pool (waiting, or holding a worker)
        self._live: set[SolveJob] = set()
        self._sessions: dict[Client, TsumeSession] = {}
        self._closed = False

    def attach(self, pool: EnginePool) -> None:
        """Solve in ``pool`` (the app's, once its lifespan has started it)."""
        self.pool = pool

    @property
    def max_solves(self) -> int:
        """Solves that can run at once: the pool's workers."""
        return self.pool.size if self.pool is not None else 1

    @property
    def running(self) -> int:
        """Solves holding a worker (until the worker is free again)."""
        return sum(1 for j in self._live if j.started is not None)

    @property
    def waiting(self) -> int:
        """Solves waiting in line for a worker."""
        return len(self._live) - self.running

    # ---- the socket

    def opened(self, client: Client) -> None:
        session = self._sessions[client] = TsumeSession(self, client)
        session.hello()

    async def handle(self, client: Client, raw: str | bytes | None) -> None:
        session = self._sessions.get(client)
        if session is not None:
            session.handle(raw)

    async def closed(self, client: Client) -> None:
        session = self._sessions.pop(client, None)
        if session is not None:
            session.close()

    # ---- solves

    def submit(self, job: SolveJob, session: TsumeSession) -> None:
        """Put ``job`` in the pool's line (it may start at once). Raises
        :class:`ProtocolError` (and takes nothing on) if its client already has a solve,
        the line for solves is full, or the server is shutting down."""
        pool = self.pool
        if self._closed or pool is None:
            raise ProtocolError("the server is shutting down: no new solves")
        if self._clients[job.client] > 0:
            raise ProtocolError(
                "you already have a solve running or waiting (in another tab or window): "
                "one at a time; cancel it there first"
            )
        full = ProtocolError(
            f"the server is busy: the line for a solver is full ({self.waiting} waiting); "
            "try again in a while"
        )
        if not pool.free and self.waiting >= self.max_queued:
            raise full
        try:
            job.job = pool.submit(
                self.game,
                {"sfen": job.sfen},
                "mate",  # (its table: the engine's default, 256 MB)
                Limit(time=job.seconds),
                on_info=lambda info: session.on_info(job, info),
                owner=("tsume", job.client),
                on_queue=lambda position: session.on_queue(job, position),
                on_release=lambda: self._live.discard(job),
                factory=self.factory,
            )
        except PoolBusy:
            raise full from None
        self._clients[job.client] += 1
        job._counted = True
        self._live.add(job)
        if job.job.started:
            session.on_queue(job, 0)

    def finish(self, job: SolveJob) -> None:
        """``job`` has its result: its client may solve again (its worker is freed by the
        pool, in its own time). Safe to call more than once."""
        if job._counted:
            job._counted = False
            self._clients[job.client] -= 1
            if self._clients[job.client] <= 0:
                del self._clients[job.client]

    @property
    def shutting_down(self) -> bool:
        """No new solves or analyses."""
        return self._closed

    def close(self) -> None:
        """No new solves or analyses; the running and waiting ones are stopped."""
        self._closed = True
        for job in list(self._live):
            job.cancel()
        for session in list(self._sessions.values()):
            session.stop_analysis()


def _seconds(value: Any, most: float = MAX_SECONDS) -> float:
    if value is None:
        return min(DEFAULT_SECONDS, most)
    bounded = Bounded("time", 0.001, most, unit="seconds", note="the server's limit")
    if isinstance(value, str):  # JSON's numbers only
        raise ProtocolError(f'"time" must be {bounded.expected()}, got a string')
    try:
        return float(bounded(value))
    except NumberError as e:
        raise ProtocolError(f'"time" must be {str(e).partition(": expected ")[2]}') from None


class TsumeSession:
    """One ``/ws/tsume`` connection: its requests, and at most one solve."""

    def __init__(self, service: SolverService, client: Client) -> None:
        self.service = service
        self.client = client
        self.job: SolveJob | None = None
        #: the analysis asked for (None: off)
        self.analysis: _AnalysisRun | None = None

    def hello(self) -> None:
        self.client.send(
            {
                "type": "hello",
                "default_time": min(DEFAULT_SECONDS, self.service.max_seconds),
                "max_time": self.service.max_seconds,
                "max_solves": self.service.max_solves,
                "analysis_time": self.service.analysis_seconds,
            }
        )

    def handle(self, raw: str | bytes | None) -> None:
        try:
            data = decode_object(raw, _EXAMPLE)
            kind = data.get("type")
            if kind not in _TYPES:
                shown = repr(kind)[:40] if kind is not None else "missing"
                raise ProtocolError(
                    f"unknown message type {shown}: expected one of {', '.join(_TYPES)}"
                )
            if kind == "solve":
                self._solve(data)
            elif kind == "cancel":
                if self.job is None:
                    self.client.send({"type": "notice", "message": "no solve is running"})
                else:
                    self.job.cancel()
            elif kind == "check":
                self.client.send({"type": "position", **_checked(data.get("sfen"))})
            elif kind == "analysis":
                self._analysis_switch(data)
            else:
                self.client.send(self._status())
        except (ProtocolError, ShogiError) as e:
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
            raise ProtocolError("a solve is already running: cancel it first")
        job = SolveJob(sfen, seconds, self.client.address)
        self.job = job
        try:
            self.service.submit(job, self)
        except ProtocolError:
            self.job = None
            raise
        assert job.job is not None
        job.job.future.add_done_callback(lambda _: self._done(job))
        run = self.analysis
        if run is not None and not _same_position(run.sfen, sfen):
            self._analyse(sfen)  # the analysis follows the problem (behind its solve)

    # ---- the pool's callbacks (on the event loop)

    def on_queue(self, job: SolveJob, position: int) -> None:
        pool = self.service.pool
        if 0 < position <= (pool.yielding if pool is not None else 0):
            return  # an analysis is giving its worker up: the solve starts in a moment
        if position > 0:
            message = (
                waiting_for(pool, position, "a solver") if pool else busy_line(position, "a solver")
            )
            self.client.send({"type": "queued", "position": position, "message": message})
        elif job.started is None:
            job.started = time.monotonic()
            self.client.send({"type": "started", "sfen": job.sfen, "time": job.seconds})

    def on_info(self, job: SolveJob, info: Info) -> None:
        job.progress = _progress(info)
        self.client.send({"type": "progress", **job.progress})

    def _done(self, job: SolveJob) -> None:
        """The pool's job is over: send its result (or what ended it)."""
        assert job.job is not None
        try:
            result = job.job.future.result()
            answer = _answer(result.extra, job.sfen)
        except JobCancelled:
            answer = job.stopped()
        except JobKilled as e:
            answer = job.stopped("stopped" if job.cancelled or e.reason == "stop" else "timeout")
        except EngineError as e:
            answer = job.stopped("crashed", f"the solver failed: {one_line(e)}")
        self.service.finish(job)
        if self.job is job:
            self.job = None
        if job.cancelled and answer.get("status") == "unknown":
            answer["reason"] = "stopped"
        answer["summary"] = summary(answer, job.seconds)
        if answer.get("error"):
            self.client.send({"type": "error", "message": answer["error"]})
        self.client.send({"type": "result", "time": job.seconds, **answer})

    def close(self) -> None:
        """The connection is gone: stop its solve and its analysis."""
        if self.job is not None:
            self.job.cancel()
        self.stop_analysis()

    # ---- the analysis

    def _analysis_switch(self, data: dict[str, Any]) -> None:
        on = data.get("on")
        if not isinstance(on, bool):
            got = "it is missing" if "on" not in data else f"got {json.dumps(on)[:40]}"
            raise ProtocolError(
                f"'analysis' needs 'on': true or false, like {_ANALYSIS_EXAMPLE}; {got}"
            )
        if not on:
            self.stop_analysis()
            self.client.send(self._analysis_message(None))
            return
        sfen = _checked(data.get("sfen"))["sfen"]  # (a bad one: an error, nothing changes)
        run = self.analysis
        if run is not None and _same_position(run.sfen, sfen):
            self.client.send(self._analysis_message(run))  # analysed already
            return
        self._analyse(sfen)

    def _analysis_message(self, run: _AnalysisRun | None) -> dict[str, Any]:
        """The ``analysis`` message for ``run`` (``None``: analysis off)."""
        return analysis_message(run, sfen=None if run is None else run.sfen)

    def _tell(self, run: _AnalysisRun) -> None:
        if self.analysis is run:
            self.client.send(self._analysis_message(run))

    def stop_analysis(self) -> None:
        """Drop the analysis: its job leaves the line or is stopped; what it still sends
        is ignored."""
        run, self.analysis = self.analysis, None
        if run is not None and run.job is not None:
            run.job.cancel()

    def _analyse(self, sfen: str) -> None:
        """Stop the analysis of any other position and start ``sfen``'s (checked)."""
        self.stop_analysis()
        run = self.analysis = _AnalysisRun(sfen)
        self._submit_analysis(run)

    def _submit_analysis(self, run: _AnalysisRun) -> None:
        """Put ``run``'s next job in the pool's line (it may start at once)."""
        pool = self.service.pool
        if pool is None or self.service.shutting_down:
            run.status, run.message = "failed", "the server is shutting down: no new analyses"
            self._tell(run)
            return
        try:
            job = submit_run(
                pool,
                self.service.game,
                {"sfen": run.sfen},
                run,
                owner=self,
                current=lambda: self.analysis,
                tell=self._tell,
                first=_FIRST,
                limit=Limit(time=self.service.analysis_seconds),
            )
        except PoolBusy as e:
            run.status, run.message = "failed", one_line(e)
            self._tell(run)
            return
        self._tell(run)
        job.future.add_done_callback(lambda _: self._analysis_done(run, job))

    def _analysis_done(self, run: _AnalysisRun, job: Job[dict[str, Any]]) -> None:
        """``job`` of ``run`` is over: its final rows, or why it ended."""
        if self.analysis is not run or run.job is not job:
            return  # stopped: another position, switched off, or the page left
        run.job = None
        try:
            final = job.future.result()
        except EngineError as e:  # (never JobCancelled: a cancel drops the run first)
            run.status, run.message = "failed", f"the analysis failed: {one_line(e)}"
            self._tell(run)
            return
        run.update(final)
        complete = run.data is not None and run.data["complete"]
        if job.preempted and final.get("stopped_by") == "stop" and not complete:
            # It gave its worker to a search: again behind it, keeping what it proved.
            run.status = "waiting"
            self._submit_analysis(run)
            return
        run.status, run.message = "done", None
        self._tell(run)


def _same_position(a: str, b: str) -> bool:
    """Whether two canonical SFENs are the same position (the move number aside)."""
    return a.split()[:3] == b.split()[:3]


def _checked(text: Any) -> dict[str, Any]:
    if text is None:
        raise ProtocolError('missing "sfen": expected the position as an SFEN string')
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
        st = websocket.app.state
        await serve_socket(websocket, "tsume", service, st.news, st.limits)

    return [
        Route("/api/tsume/sfen", sfen_api),
        WebSocketRoute("/ws/tsume", socket, name="ws-tsume"),
    ]
