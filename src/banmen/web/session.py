"""Game sessions: the server's authoritative copy of each game being viewed.

A :class:`GameSession` holds a board of one game (Mattix, Othello, Go: what differs between
games is in the session's :class:`~banmen.web.games.WebGame` adapter), the settings of
the view (who plays each side, CPU delay, paused) and the connected clients. Clients only
*ask*: every message is validated here, the rules are applied here, CPU moves are searched
in the engine pool (never on the event loop), the game is saved after every change, and
then every client gets the full state. A CPU move that finds every engine worker busy
waits in the pool's line (one move per game at most, games taking turns); while it waits,
the game's clients are told its place in line (``queue`` messages, and ``thinking.queue``
in the state). A client that switches analysis on (``{"type": "analysis", "on": true}``,
kept per connection) gets the values of every legal move of the position shown, as a
background job of the pool that restarts with every change of position and gives way to
the CPU (see :meth:`GameSession.sync_analysis`). A :class:`Hub` maps game ids to live sessions,
loading saved games on demand and dropping a session (stopping its search) when its last
client leaves — a reconnecting client reloads it, and the CPU resumes thinking. Each
client belongs to one game's socket (``/ws/<game>``) and only ever joins that game's
sessions. The hub keeps at most :attr:`Limits.max_sessions` sessions live, and lets one
client address create saved games only so fast (:attr:`Limits.new_game_burst`,
:attr:`Limits.new_game_interval`).

Everything here runs on the event loop and never blocks it: rules checks are microseconds,
SQLite runs on the store's own thread, searches run in worker processes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.websockets import WebSocket

from banmen.engine import GameBoard, Info, Result
from banmen.web.analysis_jobs import analysis_message, submit_watched, waiting_line
from banmen.web.engines import EngineNews, waiting_for
from banmen.web.games import WebGame
from banmen.web.levels import Level, capped_limit
from banmen.web.limits import Limits, RateLimit, client_address
from banmen.web.protocol import (
    MAX_DELAY_MS,
    Action,
    AnalysisSwitch,
    Join,
    Load,
    Message,
    Move,
    NewGame,
    ProtocolError,
    Settings,
    Stop,
    Undo,
    parse_message,
)
from banmen.web.store import GameStore, is_game_id, new_game_id
from banmen.worker import EngineError, EnginePool, Job, PoolBusy, Progress

__all__ = [
    "Client",
    "GameSession",
    "Hub",
    "Services",
    "SessionBoard",
    "SocketHandler",
    "serve_socket",
]

log = logging.getLogger("banmen.web")

RECORD_VERSION = 1


class SessionBoard(GameBoard, Protocol):
    """What a session needs of a board: the engine contract (the position its move stack
    starts from is the game adapter's to find: :meth:`WebGame.start_of`)."""


@dataclass
class Services:
    """What every session shares: the saved-game store, the engine pool, the games (each
    with its levels), the server's limits, and the clock the rate limits use."""

    store: GameStore
    pool: EnginePool
    games: dict[str, WebGame[Any]]
    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic


class Client:
    """One WebSocket connection, seen from the game.

    Outgoing messages go through a queue drained by the client's own task, so they keep
    their order and a slow or vanished client never holds up the game or other clients.
    """

    #: Live-thinking messages are dropped beyond this backlog; state and errors never are.
    MAX_BACKLOG = 256

    def __init__(
        self,
        send_text: Callable[[str], Awaitable[None]],
        game: str,
        address: str = "",
    ) -> None:
        self.game = game  # the only game this client's socket plays
        self.address = address  # the peer's address, for the per-address limits
        self._send_text = send_text
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._closed = False
        self.session: GameSession | None = None
        #: whether this connection wants the analysis of the position shown
        self.analysis = False
        self._task = asyncio.get_running_loop().create_task(self._pump())

    def send(self, msg: dict[str, Any]) -> None:
        if self._closed:
            return
        if self._queue.qsize() >= self.MAX_BACKLOG and _live(msg):
            return
        self._queue.put_nowait(json.dumps(msg, separators=(",", ":")))

    def error(self, message: str) -> None:
        self.send({"type": "error", "message": message})

    async def _pump(self) -> None:
        while True:
            text = await self._queue.get()
            if text is None:
                return
            try:
                await self._send_text(text)
            except Exception:
                # Any failure here means the connection is gone; the reader side notices
                # the disconnect and detaches the client.
                self._closed = True
                return

    async def close(self) -> None:
        """Flush what is queued (briefly) and stop the sender task."""
        if not self._task.done():
            self._queue.put_nowait(None)
            try:
                await asyncio.wait_for(self._task, timeout=1.0)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        self._closed = True


def _live(msg: dict[str, Any]) -> bool:
    """Whether ``msg`` is one of the live messages a later one supersedes (dropped for a
    client that has fallen far behind)."""
    kind = msg.get("type")
    return kind in ("info", "progress") or (kind == "analysis" and msg.get("status") == "running")


@dataclass
class _CpuTurn:
    """One CPU search in flight; stale results are recognised by identity."""

    job: Job[Result]
    player: int
    level: str
    started: float = field(default_factory=time.monotonic)
    stopping: bool = False
    queue: int = 0  # place in the engine pool's line; 0 once the search runs


#: an analysis waiting for the game's CPU, in words
_AFTER_CPU = "waiting for the CPU's move: the analysis needs its engine"


def _in_line(position: int) -> str:
    return waiting_line(position, "CPU moves")


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


class GameSession:
    """One game and the clients watching it."""

    def __init__(
        self,
        game_id: str,
        game: WebGame[Any],
        board: SessionBoard,
        services: Services,
        *,
        seed: int | None,
        players: dict[int, str],
        delay_ms: int | None = None,
        paused: bool = False,
        cpu: dict[str, Any] | None = None,
    ) -> None:
        self.id = game_id
        self.game = game
        self.board = board
        self.services = services
        self.seed = seed
        self.players = dict(players)
        self.delay_ms = game.defaults.delay_ms if delay_ms is None else delay_ms
        self.paused = paused
        self.cpu = cpu  # the last CPU move's search result, for display
        self.clients: set[Client] = set()
        self._start = game.start_of(board)
        self._turn: _CpuTurn | None = None
        self._info: dict[str, Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._analysis: _AnalysisRun | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        services: Services,
        game: WebGame[Any],
        *,
        board: SessionBoard,
        seed: int | None,
        players: dict[int, str],
        delay_ms: int | None = None,
    ) -> GameSession:
        return cls(
            new_game_id(),
            game,
            board,
            services,
            seed=seed,
            players=players,
            delay_ms=delay_ms,
        )

    @classmethod
    def from_record(
        cls, game_id: str, game: WebGame[Any], record: dict[str, Any], services: Services
    ) -> GameSession:
        """Rebuild a saved session; raises ``ValueError`` if the record is unusable."""
        board = game.board_from_record(record.get("board"))
        levels = game.levels
        defaults = game.defaults
        raw_players = record.get("players")
        players = {1: defaults.players[0], 2: defaults.players[1]}
        if isinstance(raw_players, dict):
            for side in (1, 2):
                lv = raw_players.get(str(side))
                # A level that no longer exists falls back to the default for that side.
                if isinstance(lv, str) and lv in levels:
                    players[side] = lv
        seed = record.get("seed")
        delay = record.get("delay_ms")
        if not (isinstance(delay, int) and 0 <= delay <= MAX_DELAY_MS):
            delay = defaults.delay_ms
        cpu = record.get("cpu")
        if not (isinstance(cpu, dict) and isinstance(cpu.get("ply"), int)):
            cpu = None  # display only: drop it rather than trip over it later
        return cls(
            game_id,
            game,
            board,
            services,
            seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
            players=players,
            delay_ms=delay,
            paused=record.get("paused") is True,
            cpu=cpu,
        )

    def record(self) -> dict[str, Any]:
        """The JSON object saved in the store."""
        return {
            "version": RECORD_VERSION,
            "board": self.board.to_dict(),
            "seed": self.seed,
            "players": {str(k): v for k, v in self.players.items()},
            "delay_ms": self.delay_ms,
            "paused": self.paused,
            "cpu": self.cpu,
        }

    # ------------------------------------------------------------------ queries

    def level(self, side: int) -> Level:
        return self.game.levels[self.players[side]]

    def _turn_at(self, ply: int) -> int:
        """Side to move before move ``ply`` (0-based). Sides alternate: a pass (Othello)
        is a move too."""
        first: int = self._start.turn
        return first if ply % 2 == 0 else 3 - first

    def undo_target(self) -> int | None:
        """How many moves remain after an undo, or None if there is nothing to undo.

        With a human playing, go back to the latest earlier position where a human is to
        move and had a choice — not one where the only move was a pass — so undo against
        the CPU takes back the CPU's reply too; with two CPUs, one move.
        """
        stack = self.board.move_stack
        n = len(stack)
        if n == 0:
            return None
        humans = {side for side in (1, 2) if not self.level(side).is_cpu}
        if not humans:
            return n - 1
        fallback = None
        for k in range(n - 1, -1, -1):
            if self._turn_at(k) in humans:
                if not self.game.is_pass(stack[k]):
                    return k
                if fallback is None:
                    fallback = k
        return fallback

    def view(self) -> dict[str, Any]:
        """The full state message: the fields every game has, plus the game's own (see
        :meth:`WebGame.describe`)."""
        b = self.board
        over = b.is_game_over()
        thinking = None
        if self._turn is not None:
            queue = self._turn.queue
            thinking = {
                "player": self._turn.player,
                "level": self._turn.level,
                "seconds": round(time.monotonic() - self._turn.started, 3),
                "stopping": self._turn.stopping,
                # waiting for an engine: the place in line, and the line to show
                "queue": queue or None,
                "queue_message": waiting_for(self.services.pool, queue, "an engine")
                if queue
                else None,
            }
        return {
            "type": "state",
            "id": self.id,
            "game": self.game.name,
            "seed": None if self.seed is None else str(self.seed),
            "turn": b.turn,
            **self.game.describe(b, self._start),
            "over": over,
            "result": b.result(),
            "winner": b.winner(),
            "players": {str(k): v for k, v in self.players.items()},
            "delay_ms": self.delay_ms,
            "paused": self.paused,
            "thinking": thinking,
            "info": self._info,
            "cpu": self.cpu,
            "can_undo": self.undo_target() is not None or self.game.can_unwind(b),
            "levels": [lv.to_dict() for lv in self.game.levels.values()],
        }

    # ------------------------------------------------------------------ clients

    def attach(self, client: Client) -> None:
        self.clients.add(client)
        client.session = self

    def detach(self, client: Client) -> None:
        self.clients.discard(client)
        if client.session is self:
            client.session = None
        self.sync_analysis()  # nobody else wants it: stopped

    def broadcast(self, msg: dict[str, Any]) -> None:
        for c in self.clients:
            c.send(msg)

    def broadcast_state(self) -> None:
        if self.clients:
            self.broadcast(self.view())

    def close(self) -> None:
        """Stop any search; the session is no longer live (its record stays saved)."""
        self._closed = True
        self._cancel_cpu()
        self._stop_analysis()

    async def save(self) -> None:
        b = self.board
        try:
            await self.services.store.asave(
                self.id,
                self.game.name,
                self.record(),
                moves=len(b.move_stack),
                finished=b.is_game_over(),
            )
        except sqlite3.Error as e:
            log.error("could not save game %s: %s", self.id, e)
            self.broadcast({"type": "error", "message": f"could not save the game: {e}"})

    async def _commit(self) -> None:
        """After every change: stop the analysis of a position left, save, let the CPU
        move if it is its turn, tell everyone, and analyse the position now shown."""
        if self._analysis is not None and self._analysis.key != self.position_key():
            self._stop_analysis()  # at once, not after the save
        await self.save()
        self.kick()
        self.broadcast_state()
        self.sync_analysis()

    # ------------------------------------------------------------------ messages

    async def handle(self, client: Client, msg: Message) -> None:
        """Carry out a validated message; raises :class:`ProtocolError` and changes nothing
        if it cannot be done."""
        if isinstance(msg, Move):
            await self._human_move(msg)
        elif isinstance(msg, Undo):
            await self._undo()
        elif isinstance(msg, Stop):
            self._stop()
        elif isinstance(msg, Settings):
            await self._settings(msg)
        elif isinstance(msg, Action):
            await self._action(msg)
        elif isinstance(msg, AnalysisSwitch):
            client.analysis = msg.on
            if not msg.on:
                client.send(self._analysis_message(None))
            self.show_analysis(client)
        else:  # join / new / load are the hub's business
            raise ProtocolError(f"unexpected {type(msg).__name__} message")

    async def _human_move(self, msg: Move) -> None:
        b = self.board
        if b.is_game_over():
            raise ProtocolError(self.game.over_message(b))
        lv = self.level(b.turn)
        if lv.is_cpu:
            raise ProtocolError(
                f"not a human's turn: {self.game.side_name(b.turn)} is played by {lv.label}; "
                "wait for its move (or press Stop)"
            )
        if msg.cells is not None:  # a game played from cell to cell
            move = self.game.move_between(b, *msg.cells)
        else:
            move = self.game.parse_move(b, msg.square)
        b.push(move)
        await self._commit()

    async def _undo(self) -> None:
        b = self.board
        unwind = self.game.can_unwind(b)
        target = self.undo_target()
        if target is None and not unwind:
            raise ProtocolError(
                "nothing to undo: no moves yet"
                if not b.move_stack
                else "nothing to undo: there is no earlier human turn to go back to"
            )
        self._cancel_cpu()
        humans = any(not self.level(s).is_cpu for s in (1, 2))
        if unwind:
            # A step that is not a move (Go: a recorded result, the counting, a
            # resignation). That is all, unless it was a CPU's resignation against a
            # human (it would resign again): then back to the human's turn as well.
            go_on = self.game.unwind(b)
            target = None
            if go_on and humans and not b.is_game_over() and self.level(b.turn).is_cpu:
                target = self.undo_target()
        if target is not None:
            while len(b.move_stack) > target:
                b.pop()
            if self.cpu is not None and self.cpu.get("ply", 0) > target:
                self.cpu = None
        if not humans:
            # CPU against CPU: without a pause the undone move would be replayed at once.
            self.paused = True
        await self._commit()

    async def _action(self, msg: Action) -> None:
        """One of the game's own messages; the game checks it and changes nothing if it
        cannot be done."""
        self.game.act(self.board, msg.kind, msg.square)
        self._cancel_cpu()  # e.g. Go's 'score' while the CPU thinks: its move is moot
        await self._commit()

    def _stop(self) -> None:
        turn = self._turn
        if turn is None:
            raise ProtocolError("no CPU is thinking: Stop makes a thinking CPU move at once")
        turn.stopping = True
        turn.job.stop()
        self.broadcast_state()

    async def _settings(self, msg: Settings) -> None:
        if msg.players:
            for side, name in msg.players.items():
                if self.players[side] != name:
                    self.players[side] = name
                    if side == self.board.turn:
                        # The side to move changed hands: its search (if any) is moot.
                        self._cancel_cpu()
        if msg.delay_ms is not None:
            self.delay_ms = msg.delay_ms
            self._cancel_timer()  # re-armed with the new delay by kick()
        if msg.paused is not None:
            self.paused = msg.paused
            # Pausing lets a running search finish its move but starts no new one.
            if msg.paused:
                self._cancel_timer()
        await self._commit()

    # ------------------------------------------------------------------ analysis

    def _analysis_message(self, run: _AnalysisRun | None) -> dict[str, Any]:
        """The ``analysis`` message for ``run`` (``None``: analysis off)."""
        position = len(self.board.move_stack) if run is None else run.position
        return analysis_message(run, id=self.id, position=position)

    def _tell_analysis(self, run: _AnalysisRun) -> None:
        """Send ``run``'s state to every client that wants the analysis."""
        if self._analysis is not run:
            return
        msg = self._analysis_message(run)
        for c in self.clients:
            if c.analysis:
                c.send(msg)

    def _stop_analysis(self) -> None:
        """Drop the analysis: its job leaves the line or is stopped; what it still sends
        is ignored."""
        run, self._analysis = self._analysis, None
        if run is not None and run.job is not None:
            run.job.cancel()

    def position_key(self) -> tuple[tuple[int, ...], bool]:
        """What tells the position shown from any other: its moves, and whether the game
        is over — a Go game ends without a move (a resignation, counting asked for) and
        goes on again without one (undo of either)."""
        return tuple(self.board.move_stack), self.board.is_game_over()

    def _cpu_needs_engine(self) -> bool:
        """Whether the CPU's search (running, waiting in line, or about to start after
        its delay) leaves no engine worker for an analysis."""
        if self._turn is None and self._timer is None:
            return False
        # a search not yet submitted will take one of the idle workers
        return self.services.pool.idle <= (1 if self._turn is None else 0)

    def show_analysis(self, client: Client) -> None:
        """After ``client`` joined or switched analysis on: start what it needs, or send it
        the analysis that runs already."""
        before = self._analysis
        self.sync_analysis()
        run = self._analysis
        if client.analysis and run is not None and run is before:
            client.send(self._analysis_message(run))

    def sync_analysis(self) -> None:
        """Make the analysis match what is wanted: none unless a client wants it and the
        game has one; else the position shown, stopped and restarted when it changes —
        not while the CPU needs the engine it would take (it starts after the CPU's
        move), and never of a finished game."""
        wanted = any(c.analysis for c in self.clients)
        if self._closed or not wanted or not self.game.rules.analysis:
            self._stop_analysis()
            return
        key = self.position_key()
        run = self._analysis
        if run is not None and run.key != key:
            self._stop_analysis()
            run = None
        if run is None:
            run = _AnalysisRun(key, len(key[0]))
            self._analysis = run
            if self.board.is_game_over():
                run.status = "over"
                self._tell_analysis(run)
                return
        elif run.job is not None or run.status != "waiting":
            return  # running, done or over: nothing to start
        if self._cpu_needs_engine():
            told, run.message = run.message, _AFTER_CPU
            if told != run.message:
                self._tell_analysis(run)
            return
        self._start_analysis(run)

    def _start_analysis(self, run: _AnalysisRun) -> None:
        def on_data(data: dict[str, Any]) -> None:
            run.data = data
            run.status = "running"
            run.message = None
            self._tell_analysis(run)

        def on_waiting(position: int) -> None:
            run.status, run.message = "waiting", _in_line(position)
            self._tell_analysis(run)

        try:
            job = submit_watched(
                self.services.pool, self.game.name, self.board.to_dict(), owner=self.id,
                wanted=lambda job: self._analysis is run and run.job is job,
                on_data=on_data, on_waiting=on_waiting,
            )  # fmt: skip
        except PoolBusy as e:
            run.status, run.message = "failed", str(e)
            self._tell_analysis(run)
            return
        run.job = job
        run.status = "waiting" if job.position else "running"
        run.message = _in_line(job.position) if job.position else None
        self._tell_analysis(run)
        self._spawn(self._finish_analysis(run, job))

    async def _finish_analysis(self, run: _AnalysisRun, job: Job[dict[str, Any]]) -> None:
        try:
            try:
                final = await job
            except EngineError as e:
                if self._analysis is run and run.job is job:
                    run.job = None
                    run.status, run.message = "failed", f"the analysis failed: {e}"
                    self._tell_analysis(run)
                return
            if self._analysis is not run or run.job is not job:
                return  # stopped: the position changed, or nobody wants it any more
            run.job = None
            run.data = final
            if job.preempted and final.get("stopped_by") == "stop":
                # Stopped for a CPU move: again when an engine is free, behind the CPU.
                run.status, run.message = "waiting", _AFTER_CPU
                self._tell_analysis(run)
                self.sync_analysis()
                return
            run.status, run.message = "done", None
            self._tell_analysis(run)
        except Exception:  # a bug: log it rather than lose it in a dropped task
            log.exception("analysis failed in game %s", self.id)

    # ------------------------------------------------------------------ the CPU

    def _cpu_to_move(self) -> Level | None:
        if self._closed or self.paused or self.board.is_game_over():
            return None
        lv = self.level(self.board.turn)
        return lv if lv.is_cpu else None

    def kick(self) -> None:
        """Start the CPU's move if it is a CPU's turn and nothing is under way."""
        if self._turn is not None or self._timer is not None or self._cpu_to_move() is None:
            return
        watching = self.level(1).is_cpu and self.level(2).is_cpu
        delay = self.delay_ms / 1000 if watching else 0.0
        if delay <= 0:
            self._start_cpu()
        else:
            self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._turn is None and self._cpu_to_move() is not None:
            self._start_cpu()
            self.broadcast_state()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _cancel_cpu(self) -> None:
        """Abandon the CPU's move: its search is stopped and its result will be ignored."""
        self._cancel_timer()
        if self._turn is not None:
            self._turn.job.cancel()  # out of the line if it waits there, else stopped
            self._turn = None
        self._info = None

    def _start_cpu(self) -> None:
        lv = self._cpu_to_move()
        assert lv is not None and lv.spec is not None
        player = self.board.turn
        holder: list[_CpuTurn] = []

        def on_info(info: Info) -> None:
            if holder and self._turn is holder[0]:
                self._info = {**info.to_dict(), "player": player}
                self.broadcast({"type": "info", **self._info})

        def on_progress(p: Progress) -> None:
            if holder and self._turn is holder[0]:
                self.broadcast({"type": "progress", "player": player, **p.to_dict()})

        def on_queue(position: int) -> None:
            if not (holder and self._turn is holder[0]):
                return
            holder[0].queue = position
            if position > 0:
                line = waiting_for(self.services.pool, position, "an engine")
                self.broadcast({"type": "queue", "position": position, "message": line})
            else:  # its search has started: the thinking clock starts now
                holder[0].started = time.monotonic()
                self.broadcast_state()

        try:
            job = self.services.pool.submit(
                self.game.name,
                self.board.to_dict(),
                lv.spec,
                capped_limit(lv.spec),
                on_info=on_info,
                on_progress=on_progress,
                owner=self.id,
                on_queue=on_queue,
            )
        except PoolBusy as e:
            self._spawn(self._cpu_failed(str(e), busy=True))
            return
        turn = _CpuTurn(job, player, lv.name, queue=job.position)
        holder.append(turn)
        self._turn = turn
        self._info = None
        self._spawn(self._finish_cpu(turn))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish_cpu(self, turn: _CpuTurn) -> None:
        try:
            try:
                result = await turn.job
            except EngineError as e:
                if self._turn is turn:
                    await self._cpu_failed(str(e))
                return
            if self._turn is not turn:
                return  # abandoned (undo, new settings, everyone left): drop the result
            self._turn = None
            self._info = None
            try:
                if result.move is None:
                    raise ProtocolError("the engine returned no move")
                sq = self.game.parse_move(self.board, result.move)
            except ProtocolError as e:
                await self._cpu_failed(f"bad engine move {result.move!r}: {e}")
                return
            self.board.push(sq)
            self.cpu = {
                **result.to_dict(),
                "player": turn.player,
                "level": turn.level,
                "ply": len(self.board.move_stack),
                "verdict": self.game.verdict(turn.player, result),
            }
            await self._commit()
        except Exception:  # a bug: log it rather than lose it in a dropped task
            log.exception("CPU move failed in game %s", self.id)

    async def _cpu_failed(self, why: str, busy: bool = False) -> None:
        self._turn = None
        self._info = None
        self.paused = True  # do not retry in a loop; the user can resume
        text = (
            f"{why}; the CPU is paused: press Resume to try again"
            if busy
            else f"the CPU could not move ({why}); paused"
        )
        self.broadcast({"type": "error", "message": text})
        await self._commit()


class Hub:
    """Live sessions by id (of every game), plus the routing of client messages to them."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.sessions: dict[str, GameSession] = {}
        # join / new / load await the store; one at a time, so a game is never loaded twice.
        self._lock = asyncio.Lock()
        limits = services.limits
        self._new_games = RateLimit(limits.new_game_burst, limits.new_game_interval, services.clock)

    def opened(self, client: Client) -> None:
        pass  # a game page asks for its game first ("join")

    async def closed(self, client: Client) -> None:
        self.leave(client)

    def game_of(self, client: Client) -> WebGame[Any]:
        return self.services.games[client.game]

    async def handle(self, client: Client, raw: str | bytes | None) -> None:
        """Validate and carry out one message; any problem becomes an ``error`` reply."""
        try:
            msg = parse_message(raw, self.game_of(client).rules)
            if isinstance(msg, Join):
                await self.join(client, msg.id)
            elif isinstance(msg, NewGame):
                await self.new_game(client, msg)
            elif isinstance(msg, Load):
                await self.load(client, msg)
            elif client.session is None:
                raise ProtocolError('no game yet: send {"type": "join"} first')
            else:
                await client.session.handle(client, msg)
        except ProtocolError as e:
            client.error(str(e))
        except Exception:
            log.exception("error while handling a message")
            client.error("internal server error while handling the message (see the server log)")

    async def join(self, client: Client, game_id: str | None) -> None:
        if game_id is not None and not is_game_id(game_id):
            raise ProtocolError(
                f"bad game id {game_id[:24]!r}: expected up to 64 letters, digits, '-' or '_'"
            )
        game = self.game_of(client)
        async with self._lock:
            current = client.session
            if current is not None and game_id == current.id:
                client.send(current.view())  # a re-join is a request for the state
                return
            notice = None
            session = self.sessions.get(game_id) if game_id else None
            if session is not None and session.game is not game:
                notice = _other_game(game_id, session.game, game)
                session = None
            elif session is None and game_id:
                self._check_room(client)
                session, notice = await self._load(game_id, game)
            if session is None:
                self._check_room(client)
                self._check_rate(client)
                session = self._create(game, None, NewGame(None, None, None))
                await session.save()
            self._enter(client, session)
        if notice:
            client.send({"type": "notice", "message": notice})
        session.kick()  # if the CPU was to move when the game was saved, it resumes
        client.send(session.view())
        session.show_analysis(client)

    async def _load(
        self, game_id: str, game: WebGame[Any]
    ) -> tuple[GameSession | None, str | None]:
        saved = await self.services.store.aload(game_id, touch=True)
        if saved is None:
            return None, f"no saved game {game_id!r}: started a new game"
        if saved.game != game.name:
            other = self.services.games.get(saved.game)
            return None, _other_game(game_id, other, game)
        try:
            session = GameSession.from_record(game_id, game, saved.state, self.services)
        except (ValueError, TypeError, KeyError) as e:
            return None, f"saved game {game_id!r} could not be read ({e}): started a new game"
        self.sessions[game_id] = session
        return session, None

    async def new_game(self, client: Client, msg: NewGame) -> None:
        async with self._lock:
            self._check_room(client)
            self._check_rate(client)
            session = self._create(self.game_of(client), client.session, msg)
            await session.save()
            self._enter(client, session)
        session.kick()
        client.send(session.view())
        session.show_analysis(client)

    async def load(self, client: Client, msg: Load) -> None:
        """A new game from pasted text; bad text changes nothing."""
        game = self.game_of(client)
        board = game.load(msg.text)  # raises ProtocolError with the board's message
        async with self._lock:
            self._check_room(client)
            self._check_rate(client)
            session = self._create(game, client.session, NewGame(None, None, None), board)
            await session.save()
            self._enter(client, session)
        session.kick()
        client.send(session.view())
        session.show_analysis(client)

    def _check_room(self, client: Client) -> None:
        """Refuse (:class:`ProtocolError`) a new live session if the hub is full; the
        session the client leaves for it counts as free if nobody else watches it."""
        current = client.session
        freed = current is not None and current.clients == {client}
        cap = self.services.limits.max_sessions
        if len(self.sessions) - freed >= cap:
            raise ProtocolError(
                f"the server is busy: all its game slots ({cap}) are in use; try again in a while"
            )

    def _check_rate(self, client: Client) -> None:
        """Refuse (:class:`ProtocolError`) a new saved game beyond the client address's
        rate."""
        wait = self._new_games.take(client.address)
        if wait > 0:
            lim = self.services.limits
            raise ProtocolError(
                f"too many new games from your address: at most {lim.new_game_burst} at "
                f"once, then one every {lim.new_game_interval:g} s; try again in "
                f"{math.ceil(wait)} s"
            )

    def _create(
        self,
        game: WebGame[Any],
        current: GameSession | None,
        msg: NewGame,
        board: SessionBoard | None = None,
    ) -> GameSession:
        """A new game (from ``board`` if given); unspecified settings are carried over from
        ``current``."""
        if current is not None:
            players = dict(current.players)
            delay = current.delay_ms
        else:
            players = {1: game.defaults.players[0], 2: game.defaults.players[1]}
            delay = game.defaults.delay_ms
        players.update(msg.players or {})
        seed = None
        if board is None:
            board, seed = game.new_board(msg, current.board if current is not None else None)
        session = GameSession.new(
            self.services, game, board=board, seed=seed, players=players, delay_ms=delay
        )
        self.sessions[session.id] = session
        return session

    def _enter(self, client: Client, session: GameSession) -> None:
        if client.session is not session:
            self.leave(client)
            session.attach(client)

    def leave(self, client: Client) -> None:
        """Detach ``client``; a session nobody watches is closed (it stays saved)."""
        session = client.session
        if session is None:
            return
        session.detach(client)
        if not session.clients:
            session.close()
            self.sessions.pop(session.id, None)

    def close(self) -> None:
        for session in list(self.sessions.values()):
            session.close()
        self.sessions.clear()


def _other_game(game_id: str | None, other: WebGame[Any] | None, game: WebGame[Any]) -> str:
    """The notice for joining another game's id on this game's socket."""
    if other is None:
        return f"game {game_id!r} is not a {game.title} game: started a new game"
    article = "an" if other.title[:1].lower() in "aeiou" else "a"
    return f"game {game_id!r} is {article} {other.title} game, not {game.title}: started a new game"


# --------------------------------------------------------------------------- sockets


class SocketHandler(Protocol):
    """What serves one kind of socket: the game pages' :class:`Hub`, the tsume page's
    service. ``opened`` greets a new client, ``handle`` carries out one of its frames
    (never raising: a problem becomes an ``error`` reply), ``closed`` forgets it."""

    def opened(self, client: Client) -> None: ...

    async def handle(self, client: Client, raw: str | bytes | None) -> None: ...

    async def closed(self, client: Client) -> None: ...


async def serve_socket(
    websocket: WebSocket, name: str, handler: SocketHandler, news: EngineNews | None = None
) -> None:
    """Serve one WebSocket of the app until it closes: every frame (text, or bytes to be
    refused) goes to ``handler`` in order, every reply through the client's own queue;
    ``news`` tells the client how the engines' warm-up goes while it lasts. (The app's
    SocketGuard has already checked the origin and the connection limits.)"""
    await websocket.accept()
    client = Client(websocket.send_text, name, client_address(websocket))
    handler.opened(client)
    if news is not None:
        news.opened(client)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            await handler.handle(client, raw if raw is not None else message.get("bytes"))
    finally:
        if news is not None:
            news.closed(client)
        await handler.closed(client)
        await client.close()
