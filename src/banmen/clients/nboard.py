"""An external Othello engine spoken to over the NBoard protocol (version 2).

``NBoardEngine("edax -nboard", depth=8)`` starts the program and plays through it: for each
move the whole game is sent as GGF (``set game``), a ``ping``/``pong`` makes sure the
engine has read it, and ``go`` is answered by ``=== MOVE[/EVAL[/SECONDS]]`` (the form the
protocol's text gives; its example session, and Edax, separate the fields by spaces:
``=== f6 0.00 0.0``, which is read too). The player spec
``nboard:COMMAND`` (optionally ``nboard:depth=N COMMAND``) builds one for the arena.

NBoard has no time command and no ``stop``: the engine searches to its depth. On a game
clock the GGF of ``set game`` carries both clocks (``TB``/``TW``, :func:`ggf_with_clocks`),
the only place the protocol has for them; an engine that reads them (NBoard's own GGF
reader does) may keep to them, one that does not still searches to its depth. A move is
given up, and the process ended with its group, at its allowance
(:func:`banmen.engine.move_allowance`: on a clock, past its flag and the referee's margin;
a minute with no time limit), or
:data:`~banmen.clients._lines.STOP_GRACE` after the caller asked the search to stop
(``banmen nboard --max-move-time``, a web page's stop).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from banmen.clients._lines import START_SECONDS, EngineClient, one_line
from banmen.clock import Clock
from banmen.engine import EngineFailure, Request, Result
from banmen.search.limits import Limit

if TYPE_CHECKING:  # the Othello package offers this engine: it imports this module
    from banmen.games.othello.board import Board

__all__ = ["NBoardEngine", "NBoardError"]


class NBoardError(EngineFailure):
    """The engine process failed, timed out or broke the protocol."""


class NBoardEngine(EngineClient["Board"]):
    """An NBoard engine as a banmen :class:`~banmen.engine.Engine` for Othello boards."""

    error = NBoardError
    ends_at_game_over = True

    def __init__(self, command: str | list[str], depth: int = 8, name: str = "",
                 timeout: float = START_SECONDS) -> None:  # fmt: skip
        super().__init__(command, name, timeout)
        if not self.argv:
            raise ValueError("nboard needs a command, like 'nboard:edax -nboard'")
        self.name = one_line(name or f"nboard:{' '.join(self.argv)}")
        self.depth = depth
        self._ping = 0
        #: the name the engine gives itself (``set myname``), once started
        self.engine_name = ""

    def _handshake(self) -> None:
        self._send("nboard 2")
        self._send(f"set depth {self.depth}")
        self._sync()

    def _answer(self, wanted: Callable[[str], bool], what: str) -> str:
        """The first line ``wanted`` (others are skipped) within the move's allowance, or
        :attr:`timeout` outside a move."""
        while not wanted(line := self._line(what=what)):
            if line.startswith("set myname "):
                self.engine_name = line[len("set myname ") :].strip()
        return line

    def _sync(self) -> None:
        self._ping += 1
        self._send(f"ping {self._ping}")
        self._answer(lambda line: line.split()[:2] == ["pong", str(self._ping)],
                     f"no pong {self._ping}")  # fmt: skip

    def choose(self, board: Board, request: Request) -> Result:
        """Send the game, ask for a move (``limit`` is not sent: the engine searches to
        its depth)."""
        self._begin(request)
        try:
            self._start()
            self._send(f"set game {ggf_with_clocks(board, request.limit)}")
            self._sync()
            self._send("go")
            answer = self._answer(lambda line: line.startswith("==="), "no move")[3:].strip()
        finally:
            self._end()
        move_text, rest = _fields(answer)
        try:
            move = board.parse_move("pass" if move_text.upper() == "PA" else move_text)
        except ValueError as e:
            raise NBoardError(f"{self.name} answered {answer!r}: {e}") from None
        score = None
        if rest:
            try:
                score = round(float(rest[0]))
            except ValueError:
                score = None
        return Result(board.move_name(move), score=score, depth=self.depth,
                      seconds=request.elapsed(), stopped_by="depth")  # fmt: skip


def _ggf_clock(clock: Clock) -> tuple[int, int]:
    """A clock as a GGF clock can hold it: whole seconds left (rounded down: NBoard's
    ``OsClock`` reads whole seconds) and the increment. Sudden death and Fischer are
    themselves; what GGF cannot name is told as what is safe: moves per period its time
    left, byo-yomi and Canadian the main time left or, in overtime, the current period's
    (one byo-yomi period), a fixed time a move that time."""
    c = clock.control
    if clock.flagged:
        return 0, 0
    if c.kind == "fixed":
        return max(1, math.floor(c.period)), 0
    left = clock.left
    if c.kind == "byoyomi" and clock.overtime:
        left = min(left, c.period)
    inc = math.floor(c.increment) if c.kind in ("fischer", "moves") else 0
    return max(0, math.floor(left)), inc


def ggf_with_clocks(board: Board, limit: Limit) -> str:
    """``board``'s game as the GGF of ``set game``, with both clocks when ``limit`` is on
    one (``TB`` and ``TW``, ``SECONDS[/INCREMENT]``: the clocks as they stand now; black
    is turn 1). The
    board keeps no time a move, so with an increment each move is written as having
    taken exactly its increment (``B[F5//2]``): a reader that counts the moves' times
    and increments, as NBoard's ``COsGame`` does, arrives at the clocks as they stand."""
    if not limit.timed:
        return board.to_ggf()
    assert limit.clock is not None
    mine = limit.clock
    theirs = limit.opponent if limit.opponent is not None else Clock.start(mine.control)
    black, white = (mine, theirs) if board.turn == 1 else (theirs, mine)
    tb, tw = _ggf_clock(black), _ggf_clock(white)
    tags = {"TB": f"{tb[0]}/{tb[1]}" if tb[1] else str(tb[0]),
            "TW": f"{tw[0]}/{tw[1]}" if tw[1] else str(tw[0])}  # fmt: skip
    text = board.to_ggf(tags)
    if not (tb[1] or tw[1]):
        return text
    at = text.index("BO[")
    head, body = text[:at], text[at:]

    def timed(m: re.Match[str]) -> str:
        inc = tb[1] if m.group(1) == "B" else tw[1]
        return f"{m.group(1)}[{m.group(2)}//{inc}]"

    return head + re.sub(r"(?<![A-Z])([BW])\[([A-Z0-9]{2})\]", timed, body)


def _fields(answer: str) -> tuple[str, list[str]]:
    """The move and the other fields of a ``===`` answer, whether they are separated by
    ``/`` or by spaces (``f6/0.00/0.0``, ``f6 0.00 0.0``, ``f6``)."""
    parts = answer.replace("/", " ").split()
    return (parts[0], parts[1:]) if parts else ("", [])
