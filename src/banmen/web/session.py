"""Game sessions: the server's authoritative copy of each game being viewed.

A :class:`GameSession` holds a board of one game (Mattix, Othello, Go: what differs between
games is in the session's :class:`~banmen.web.games.WebGame` adapter), the settings of
the view (who plays each side, CPU delay, paused) and the connected clients. Clients only
*ask*: every message is validated here, the rules are applied here, the game is saved
after every change, and then every client gets the full state. Two collaborators do the
rest: the CPU's moves (:class:`~banmen.web.cpu_turns.CpuTurns`: searched in the engine
pool, never on the event loop, a place in the pool's line told while every worker is
busy) and the analysis of the position shown for the clients that switch it on
(:class:`~banmen.web.analysis_runs.AnalysisRuns`: a background job of the pool that
restarts with every change of position and gives way to the CPU). The
:class:`~banmen.web.hub.Hub` maps game ids to live sessions.

Everything here runs on the event loop and never blocks it: rules checks are microseconds,
SQLite runs on the store's own thread, searches run in worker processes, and records are
read and replayed on a thread of their own (:class:`~banmen.web.offload.OffLoop`: the
hub's loads and joins).

A game may be played on a clock (:mod:`banmen.web.clocks`; the ``new`` message's
``clock``): the session is the referee. It runs the clock of the side to move, charges
each move's real time to the mover's clock (:data:`~banmen.clock.EXPIRY_MARGIN` given),
sets a timer for the running clock's flag and ends the game on time when it falls
(:class:`~banmen.games.outcome.Termination` ``TIME``: the state's ``outcome``); the CPU
searches with both clocks in its limit (:meth:`~banmen.search.limits.Limit.with_clocks`).
Undo gives the undone moves' time back.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Coroutine
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Protocol

from banmen.clock import TimeControl
from banmen.engine import GameBoard
from banmen.games.outcome import Outcome, Termination
from banmen.web.analysis_runs import AnalysisRuns
from banmen.web.client import Client
from banmen.web.clocks import GameClocks
from banmen.web.cpu_turns import CpuTurns
from banmen.web.games import WebGame
from banmen.web.levels import Level
from banmen.web.limits import Limits
from banmen.web.offload import OffLoop
from banmen.web.protocol import (
    MAX_DELAY_MS,
    Action,
    AnalysisSwitch,
    Message,
    Move,
    ProtocolError,
    Settings,
    Stop,
    Undo,
)
from banmen.web.store import GameStore, new_game_id
from banmen.worker import EnginePool

__all__ = [
    "GameSession",
    "Services",
    "SessionBoard",
]

log = logging.getLogger("banmen.web")

RECORD_VERSION = 1


class SessionBoard(GameBoard, Protocol):
    """What a session needs of a board: the engine contract (the position its move stack
    starts from is the game adapter's to find: :meth:`WebGame.start_of`)."""


@dataclass
class Services:
    """What every session shares: the saved-game store, the engine pool, the games (each
    with its levels), the server's limits, the clock the rate limits use, the wall clock
    the game clocks run on (saved with a game: a reload finds them where they were), and
    the thread that reads and replays game records off the event loop."""

    store: GameStore
    pool: EnginePool
    games: dict[str, WebGame[Any]]
    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    reader: OffLoop = field(default_factory=OffLoop)


@dataclass(eq=False, repr=False)
class GameSession:
    """One game and the clients watching it."""

    id: str
    game: WebGame[Any]
    board: SessionBoard
    services: Services
    _: KW_ONLY
    seed: int | None
    players: dict[int, str]
    delay_ms: int
    paused: bool = False
    cpu: dict[str, Any] | None = None  # the last CPU move's search result, for display
    #: the game clocks (``None``: no clock)
    clocks: GameClocks | None = None
    clients: set[Client] = field(default_factory=set, init=False)
    #: the CPU's moves
    turns: CpuTurns = field(init=False)
    #: the analysis of the position shown
    analysis: AnalysisRuns = field(init=False)

    def __post_init__(self) -> None:
        self._start = self.game.start_of(self.board)
        self.turns = CpuTurns(self)
        self.analysis = AnalysisRuns(self)
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._flag_timer: asyncio.TimerHandle | None = None

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
        clock: TimeControl | None = None,
    ) -> GameSession:
        """A new game; ``clock``: its time control (``None`` or unlimited: no clock)."""
        return cls(
            new_game_id(),
            game,
            board,
            services,
            seed=seed,
            players=dict(players),
            delay_ms=game.defaults.delay_ms if delay_ms is None else delay_ms,
            clocks=None if clock is None or clock.unlimited else GameClocks.start(clock),
        )

    @classmethod
    def from_record(
        cls,
        game_id: str,
        game: WebGame[Any],
        record: dict[str, Any],
        services: Services,
        board: SessionBoard | None = None,
    ) -> GameSession:
        """Rebuild a saved session (``board``: its board, read already from the record's
        — off the event loop: a long game's moves are replayed); raises ``ValueError`` if
        the record is unusable."""
        if board is None:
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
        clocks = None
        if record.get("clocks") is not None:
            try:
                clocks = GameClocks.from_dict(record["clocks"])
            except ValueError as e:
                log.warning("game %s: its clocks could not be read (%s): no clock", game_id, e)
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
            clocks=clocks,
        )._resumed()

    def _resumed(self) -> GameSession:
        """A saved session read back: a CPU's search was abandoned when it was saved (its
        clock runs again when its search does; the time since is not its), a human's
        clock has gone on running."""
        c = self.clocks
        if c is not None and c.since is not None and c.side is not None:
            if c.side != self.board.turn or self.level(c.side).is_cpu:
                c.since = None
        return self

    def record(self) -> dict[str, Any]:
        """The JSON object saved in the store."""
        flagged = self.lost_on_time()
        return {
            "version": RECORD_VERSION,
            "board": self.board.to_dict(),
            "seed": self.seed,
            "players": {str(k): v for k, v in self.players.items()},
            "delay_ms": self.delay_ms,
            "paused": self.paused,
            "cpu": self.cpu,
            "clocks": None if self.clocks is None else self.clocks.to_dict(),
            # a loss on time, which the board cannot tell (read from the clocks)
            "outcome": None
            if flagged is None
            else Outcome(Termination.TIME, 3 - flagged).to_dict(),
        }

    # ------------------------------------------------------------------ queries

    def over(self) -> bool:
        """Whether the game is over: by its rules, or on time."""
        return self.board.is_game_over() or self.lost_on_time() is not None

    def lost_on_time(self) -> int | None:
        """The side whose flag fell, if one did."""
        return None if self.clocks is None else self.clocks.flagged

    def outcome(self) -> Outcome | None:
        """How the game ended (``None``: it goes on): on time, or as its game says
        (:meth:`banmen.games.GameDef.outcome_of`)."""
        flagged = self.lost_on_time()
        if flagged is not None:
            return Outcome(Termination.TIME, 3 - flagged)
        if not self.board.is_game_over():
            return None
        return self.game.definition.outcome_of(self.board)

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
        over = self.over()
        thinking = self.turns.thinking()
        # how the game ended (on time, or GameDef.outcome_of), with the line that tells it
        try:
            ended = self.outcome()
        except Exception:  # a game package's hook that fails: the page says less
            ended = None
        outcome = None
        if ended is not None:
            outcome = {**ended.to_dict(), "words": ended.words(self.game.sides)}
        on_time = ended is not None and ended.termination is Termination.TIME
        return {
            "type": "state",
            "id": self.id,
            "game": self.game.name,
            "seed": None if self.seed is None else str(self.seed),
            "turn": b.turn,
            **self.game.describe(b, self._start),
            "over": over,
            "result": ended.result() if on_time and ended is not None else b.result(),
            "winner": ended.winner if on_time and ended is not None else b.winner(),
            "outcome": outcome,
            "clocks": None if self.clocks is None else self.clocks.view(self.services.wall()),
            "players": {str(k): v for k, v in self.players.items()},
            "delay_ms": self.delay_ms,
            "paused": self.paused,
            "thinking": thinking,
            "info": self.turns.info,
            "cpu": self.cpu,
            "can_undo": self.undo_target() is not None or self.game.can_unwind(b),
            "levels": [lv.to_dict() for lv in self.game.levels.values()],
        }

    def position_key(self) -> tuple[tuple[int, ...], bool]:
        """What tells the position shown from any other: its moves, and whether the game
        is over — a Go game ends without a move (a resignation, counting asked for) and
        goes on again without one (undo of either)."""
        return tuple(self.board.move_stack), self.over()

    @property
    def closed(self) -> bool:
        """Whether the session is no longer live (:meth:`close`)."""
        return self._closed

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

    def kick(self) -> None:
        """Start the CPU's move if it is a CPU's turn and nothing is under way (the
        clocks follow)."""
        self.sync_clock()
        self.turns.kick()

    # ------------------------------------------------------------------ clocks

    def sync_clock(self) -> None:
        """Run the clock of the side to move if it should run — a human's whenever it is
        to move, a CPU's while its search runs — and stop it otherwise (a pause, a CPU
        waiting for an engine or for its delay, a finished game); set the timer of its
        flag."""
        c = self.clocks
        if c is None:
            return
        now = self.services.wall()
        side = self.board.turn
        if self._closed or self.over():
            c.halt(now)
        elif self.level(side).is_cpu and not self.turns.searching():
            c.halt(now)
        else:
            c.resume(side, now)
        self._arm_flag_timer(now)

    def _arm_flag_timer(self, now: float) -> None:
        if self._flag_timer is not None:
            self._flag_timer.cancel()
            self._flag_timer = None
        wait = None if self.clocks is None or self._closed else self.clocks.until_expiry(now)
        if wait is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test of the session alone): check_flag is called
            return
        # a hair after the flag: the check finds it fallen (else it sets the timer again)
        self._flag_timer = loop.call_later(wait + 0.02, self._on_flag_timer)

    def _on_flag_timer(self) -> None:
        self._flag_timer = None
        self.spawn(self._timer_check())

    async def _timer_check(self) -> None:
        await self.check_flag()

    async def check_flag(self) -> bool:
        """End the game on time if the running clock's flag has fallen (the referee's
        timer calls it); whether it did."""
        c = self.clocks
        if c is None or self._closed:
            return False
        if not c.expired(self.services.wall()):
            self.sync_clock()  # not yet (a timer early): set again
            return False
        c.flag(self.services.wall())
        self._flag_fell()
        await self.commit()
        return True

    def charge(self, side: int) -> bool:
        """Charge the move ``side`` is about to play to its clock (no clock: nothing);
        ``False`` if its flag fell first: the game is lost on time, no move is played."""
        c = self.clocks
        if c is None:
            return True
        ok = c.charge(side, len(self.board.move_stack), self.services.wall())
        if not ok:
            self._flag_fell()
        return ok

    def _flag_fell(self) -> None:
        self.turns.cancel()  # a CPU's search, if it was its flag (or its move is moot)
        if self._flag_timer is not None:
            self._flag_timer.cancel()
            self._flag_timer = None

    def show_analysis(self, client: Client) -> None:
        """After ``client`` joined or switched analysis on: start what it needs, or send it
        the analysis that runs already."""
        self.analysis.show(client)

    def sync_analysis(self) -> None:
        """Make the analysis match what the clients want (:meth:`AnalysisRuns.sync`)."""
        self.analysis.sync()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task of the session's (a search's end, an analysis's)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        """Stop any search; the session is no longer live (its record stays saved)."""
        self._closed = True
        self.turns.cancel()
        self.analysis.stop()
        if self._flag_timer is not None:
            self._flag_timer.cancel()
            self._flag_timer = None

    async def save(self) -> None:
        """Save the game (its clocks as they run: :meth:`sync_clock` first)."""
        self.sync_clock()
        try:
            await self.services.store.asave(
                self.id,
                self.game.name,
                self.record(),
                moves=len(self.board.move_stack),
                finished=self.over(),
            )
        except sqlite3.Error as e:
            log.error("could not save game %s: %s", self.id, e)
            self.broadcast({"type": "error", "message": f"could not save the game: {e}"})

    async def commit(self) -> None:
        """After every change: stop the analysis of a position left, save, let the CPU
        move if it is its turn, tell everyone, and analyse the position now shown."""
        self.analysis.stop_if_moved()  # at once, not after the save
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
            self.turns.stop()
        elif isinstance(msg, Settings):
            await self._settings(msg)
        elif isinstance(msg, Action):
            await self._action(msg)
        elif isinstance(msg, AnalysisSwitch):
            self.analysis.switch(client, msg.on)
        else:  # join / new / load are the hub's business
            raise ProtocolError(f"unexpected {type(msg).__name__} message")

    async def _human_move(self, msg: Move) -> None:
        b = self.board
        flagged = self.lost_on_time()
        if flagged is not None:
            raise ProtocolError(
                f"the game is over: {self.game.side_name(flagged)} lost on time "
                "(start a new game or undo)"
            )
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
        side = b.turn
        if not self.charge(side):
            await self.commit()
            raise ProtocolError(
                f"{self.game.side_name(side)}'s flag fell before the move came: "
                "the game is lost on time"
            )
        b.push(move)
        await self.commit()

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
        self.turns.cancel()
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
            if self.clocks is not None:  # the undone moves' time given back
                self.clocks.undo_to(target, self._turn_at)
            if self.cpu is not None and self.cpu.get("ply", 0) > target:
                self.cpu = None
        if not humans:
            # CPU against CPU: without a pause the undone move would be replayed at once.
            self.paused = True
        await self.commit()

    async def _action(self, msg: Action) -> None:
        """One of the game's own messages; the game checks it and changes nothing if it
        cannot be done."""
        self.game.act(self.board, msg.kind, msg.square)
        self.turns.cancel()  # e.g. Go's 'score' while the CPU thinks: its move is moot
        await self.commit()

    async def _settings(self, msg: Settings) -> None:
        if msg.players:
            for side, name in msg.players.items():
                if self.players[side] != name:
                    self.players[side] = name
                    if side == self.board.turn:
                        # The side to move changed hands: its search (if any) is moot.
                        self.turns.cancel()
        if msg.delay_ms is not None:
            self.delay_ms = msg.delay_ms
            self.turns.cancel_timer()  # re-armed with the new delay by kick()
        if msg.paused is not None:
            self.paused = msg.paused
            # Pausing lets a running search finish its move but starts no new one.
            if msg.paused:
                self.turns.cancel_timer()
        await self.commit()
