"""The CPU's moves in a game session.

A :class:`CpuTurns` is the CPU's side of one :class:`~banmen.web.session.GameSession`: it
starts the CPU's move when a CPU is to move (at once, or after the session's delay when
two CPUs play each other), searches it in the engine pool (never on the event loop) under
the level's capped limit, tells the session's clients how the search goes (``info``,
``progress``, and ``queue`` with its place while every engine worker is busy), plays the
move it finds, and pauses the game with a one-line error when the search fails. A result
that comes after the move was abandoned (undo, new settings, everyone left) is dropped.

On a game clock (:mod:`banmen.web.clocks`) the search's limit carries the CPU's clock and
its opponent's (:meth:`~banmen.search.limits.Limit.with_clocks`): the engine takes its
move's time from them, and the level's own time bound gives way to the clock (its depth
or node bound stays; :data:`~banmen.web.levels.MOVE_TIME_CAP` still caps a move). The
CPU's clock runs while its search runs — from the moment it has an engine — and the move
is charged to it when it comes (:meth:`GameSession.charge`): a move after the flag loses
the game on time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from banmen.engine import Info, Result
from banmen.search.limits import Limit
from banmen.web.engines import waiting_for
from banmen.web.levels import MOVE_TIME_CAP, Level, capped_limit
from banmen.web.protocol import ProtocolError
from banmen.worker import EngineError, Job, PoolBusy, Progress

if TYPE_CHECKING:
    from banmen.web.session import GameSession

__all__ = ["CpuTurns"]

log = logging.getLogger("banmen.web")


@dataclass
class _CpuTurn:
    """One CPU search in flight; stale results are recognised by identity."""

    job: Job[Result]
    player: int
    level: str
    started: float = field(default_factory=time.monotonic)
    stopping: bool = False
    queue: int = 0  # place in the engine pool's line; 0 once the search runs


class CpuTurns:
    """The CPU of ``session``: at most one move searched at a time, or one timer set."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self._turn: _CpuTurn | None = None
        #: the latest ``info`` of the search under way (``None`` if none), for the state
        self.info: dict[str, Any] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def thinking(self) -> dict[str, Any] | None:
        """The state's ``thinking``: who searches, for how long, and its place in line
        while it waits for an engine (``None``: no search)."""
        turn = self._turn
        if turn is None:
            return None
        queue = turn.queue
        return {
            "player": turn.player,
            "level": turn.level,
            "seconds": round(time.monotonic() - turn.started, 3),
            "stopping": turn.stopping,
            # waiting for an engine: the place in line, and the line to show
            "queue": queue or None,
            "queue_message": waiting_for(self.session.services.pool, queue, "an engine")
            if queue
            else None,
        }

    def searching(self) -> bool:
        """Whether the CPU's search runs (it has an engine: not waiting in line)."""
        turn = self._turn
        return turn is not None and turn.job.started and turn.queue == 0

    def needs_engine(self) -> bool:
        """Whether the CPU's search (running, waiting in line, or about to start after
        its delay) leaves no engine worker for an analysis."""
        if self._turn is None and self._timer is None:
            return False
        # a search not yet submitted will take one of the idle workers
        return self.session.services.pool.idle <= (1 if self._turn is None else 0)

    def _to_move(self) -> Level | None:
        s = self.session
        if s.closed or s.paused or s.over():
            return None
        lv = s.level(s.board.turn)
        return lv if lv.is_cpu else None

    def kick(self) -> None:
        """Start the CPU's move if it is a CPU's turn and nothing is under way."""
        if self._turn is not None or self._timer is not None or self._to_move() is None:
            return
        s = self.session
        watching = s.level(1).is_cpu and s.level(2).is_cpu
        delay = s.delay_ms / 1000 if watching else 0.0
        if delay <= 0:
            self._start()
        else:
            self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._turn is None and self._to_move() is not None:
            self._start()
            self.session.broadcast_state()

    def cancel_timer(self) -> None:
        """Forget a move not yet started (the next :meth:`kick` sets the timer again)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def cancel(self) -> None:
        """Abandon the CPU's move: its search is stopped and its result will be ignored."""
        self.cancel_timer()
        if self._turn is not None:
            self._turn.job.cancel()  # out of the line if it waits there, else stopped
            self._turn = None
        self.info = None

    def stop(self) -> None:
        """Have the search under way move at once; :class:`ProtocolError` if none is."""
        turn = self._turn
        if turn is None:
            raise ProtocolError("no CPU is thinking: Stop makes a thinking CPU move at once")
        turn.stopping = True
        turn.job.stop()
        self.session.broadcast_state()

    def _start(self) -> None:
        s = self.session
        lv = self._to_move()
        assert lv is not None and lv.spec is not None
        player = s.board.turn
        holder: list[_CpuTurn] = []

        def on_info(info: Info) -> None:
            if holder and self._turn is holder[0]:
                self.info = {**info.to_dict(), "player": player}
                s.broadcast({"type": "info", **self.info})

        def on_progress(p: Progress) -> None:
            if holder and self._turn is holder[0]:
                s.broadcast({"type": "progress", "player": player, **p.to_dict()})

        def on_queue(position: int) -> None:
            if not (holder and self._turn is holder[0]):
                return
            holder[0].queue = position
            if position > 0:
                line = waiting_for(s.services.pool, position, "an engine")
                s.broadcast({"type": "queue", "position": position, "message": line})
            else:  # its search has started: the thinking clock starts now
                holder[0].started = time.monotonic()
                s.sync_clock()  # (and the game clock, if any)
                s.broadcast_state()

        try:
            job = s.services.pool.submit(
                s.game.name,
                s.board.to_dict(),
                lv.spec,
                self._limit(lv.spec, player),
                on_info=on_info,
                on_progress=on_progress,
                owner=s.id,
                on_queue=on_queue,
            )
        except PoolBusy as e:
            s.spawn(self._failed(str(e), busy=True))
            return
        turn = _CpuTurn(job, player, lv.name, queue=job.position)
        holder.append(turn)
        self._turn = turn
        self.info = None
        s.sync_clock()  # the CPU's clock runs if its search has started
        s.spawn(self._finish(turn))

    def _limit(self, spec: str, player: int) -> Limit:
        """The search's limit: the level's, capped; on a clock, the clock's instead of
        the level's time (module docstring)."""
        s = self.session
        limit = capped_limit(spec, game=s.game.name)
        c = s.clocks
        if c is None:
            return limit
        own = Limit(time=MOVE_TIME_CAP, depth=limit.depth, nodes=limit.nodes)
        return own.with_clocks(c.clocks[player], c.clocks[3 - player])

    async def _finish(self, turn: _CpuTurn) -> None:
        s = self.session
        try:
            try:
                result = await turn.job
            except EngineError as e:
                if self._turn is turn:
                    await self._failed(str(e))
                return
            if self._turn is not turn:
                return  # abandoned (undo, new settings, everyone left): drop the result
            self._turn = None
            self.info = None
            try:
                if result.move is None:
                    raise ProtocolError("the engine returned no move")
                sq = s.game.parse_move(s.board, result.move)
            except ProtocolError as e:
                await self._failed(f"bad engine move {result.move!r}: {e}")
                return
            if not s.charge(turn.player):
                await s.commit()  # its flag fell before its move came: lost on time
                return
            s.board.push(sq)
            s.cpu = {
                **result.to_dict(),
                "player": turn.player,
                "level": turn.level,
                "ply": len(s.board.move_stack),
                "verdict": s.game.verdict(turn.player, result),
            }
            await s.commit()
        except Exception:  # a bug: log it rather than lose it in a dropped task
            log.exception("CPU move failed in game %s", s.id)

    async def _failed(self, why: str, busy: bool = False) -> None:
        s = self.session
        self._turn = None
        self.info = None
        s.paused = True  # do not retry in a loop; the user can resume
        text = (
            f"{why}; the CPU is paused: press Resume to try again"
            if busy
            else f"the CPU could not move ({why}); paused"
        )
        s.broadcast({"type": "error", "message": text})
        await s.commit()
