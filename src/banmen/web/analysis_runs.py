"""The analysis a game session runs for the clients that want it.

A client that switches analysis on (``{"type": "analysis", "on": true}``, kept per
connection) gets the values of every legal move of the position shown, as a background
job of the engine pool (:mod:`banmen.web.analysis_jobs`). An :class:`AnalysisRuns` is
that analysis for one :class:`~banmen.web.session.GameSession`: one run at a time, of
the position shown, stopped and started again with every change of position, waiting
while the CPU needs the engine it would take and going on after the CPU's move, never of
a finished game, and stopped when no client wants it any more.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from banmen.web.analysis_jobs import analysis_message, submit_run
from banmen.web.client import Client
from banmen.worker import EngineError, Job, PoolBusy

if TYPE_CHECKING:
    from banmen.web.session import GameSession

__all__ = ["AnalysisRuns"]

log = logging.getLogger("banmen.web")

#: an analysis waiting for the game's CPU, in words
_AFTER_CPU = "waiting for the CPU's move: the analysis needs its engine"

#: what goes before a game's analysis in the engine pool's line
_FIRST = "CPU moves"


@dataclass
class _AnalysisRun:
    """The analysis of one position (``key``: :meth:`GameSession.position_key`;
    ``position``: its plies), for the clients that want it; stale jobs and updates are
    recognised by identity."""

    key: tuple[tuple[int, ...], bool]
    position: int
    job: Job[dict[str, Any]] | None = None
    status: str = "waiting"
    data: dict[str, Any] | None = None
    message: str | None = None

    def update(self, data: dict[str, Any]) -> None:
        self.data = data


class AnalysisRuns:
    """The analysis of ``session``'s position shown, for its clients that want it."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self._run: _AnalysisRun | None = None

    def message(self, run: _AnalysisRun | None) -> dict[str, Any]:
        """The ``analysis`` message for ``run`` (``None``: analysis off)."""
        position = len(self.session.board.move_stack) if run is None else run.position
        return analysis_message(run, id=self.session.id, position=position)

    def _tell(self, run: _AnalysisRun) -> None:
        """Send ``run``'s state to every client that wants the analysis."""
        if self._run is not run:
            return
        msg = self.message(run)
        for c in self.session.clients:
            if c.analysis:
                c.send(msg)

    def stop(self) -> None:
        """Drop the analysis: its job leaves the line or is stopped; what it still sends
        is ignored."""
        run, self._run = self._run, None
        if run is not None and run.job is not None:
            run.job.cancel()

    def stop_if_moved(self) -> None:
        """Stop the analysis of a position no longer shown (at once, before the session
        saves its change)."""
        if self._run is not None and self._run.key != self.session.position_key():
            self.stop()

    def switch(self, client: Client, on: bool) -> None:
        """``client`` switched the analysis on or off."""
        client.analysis = on
        if not on:
            client.send(self.message(None))
        self.show(client)

    def show(self, client: Client) -> None:
        """After ``client`` joined or switched analysis on: start what it needs, or send it
        the analysis that runs already."""
        before = self._run
        self.sync()
        run = self._run
        if client.analysis and run is not None and run is before:
            client.send(self.message(run))

    def sync(self) -> None:
        """Make the analysis match what is wanted: none unless a client wants it and the
        game has one; else the position shown, stopped and restarted when it changes —
        not while the CPU needs the engine it would take (it starts after the CPU's
        move), and never of a finished game."""
        s = self.session
        wanted = any(c.analysis for c in s.clients)
        if s.closed or not wanted or not s.game.rules.analysis:
            self.stop()
            return
        key = s.position_key()
        run = self._run
        if run is not None and run.key != key:
            self.stop()
            run = None
        if run is None:
            run = _AnalysisRun(key, len(key[0]))
            self._run = run
            if s.over():  # (a game lost on time too)
                run.status = "over"
                self._tell(run)
                return
        elif run.job is not None or run.status != "waiting":
            return  # running, done or over: nothing to start
        if s.turns.needs_engine():
            told, run.message = run.message, _AFTER_CPU
            if told != run.message:
                self._tell(run)
            return
        self._start(run)

    def _start(self, run: _AnalysisRun) -> None:
        s = self.session
        try:
            job = submit_run(
                s.services.pool, s.game.name, s.board.to_dict(), run, owner=s.id,
                current=lambda: self._run, tell=self._tell, first=_FIRST,
            )  # fmt: skip
        except PoolBusy as e:
            run.status, run.message = "failed", str(e)
            self._tell(run)
            return
        self._tell(run)
        s.spawn(self._finish(run, job))

    async def _finish(self, run: _AnalysisRun, job: Job[dict[str, Any]]) -> None:
        try:
            try:
                final = await job
            except EngineError as e:
                if self._run is run and run.job is job:
                    run.job = None
                    run.status, run.message = "failed", f"the analysis failed: {e}"
                    self._tell(run)
                return
            if self._run is not run or run.job is not job:
                return  # stopped: the position changed, or nobody wants it any more
            run.job = None
            run.data = final
            if job.preempted and final.get("stopped_by") == "stop":
                # Stopped for a CPU move: again when an engine is free, behind the CPU.
                run.status, run.message = "waiting", _AFTER_CPU
                self._tell(run)
                self.sync()
                return
            run.status, run.message = "done", None
            self._tell(run)
        except Exception:  # a bug: log it rather than lose it in a dropped task
            log.exception("analysis failed in game %s", self.session.id)
