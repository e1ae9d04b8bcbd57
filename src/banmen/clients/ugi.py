"""An external engine spoken to over UGI (the Universal Game Interface), for any game.

UGI is UCI made game-neutral (kz04px/cutegames, ``ugi.md``). ``UGIEngine`` starts the
program and plays through it; the spec ``ugi:[time=S ][depth=N ][nodes=N ]COMMAND`` builds
one for any game (default: one second a move). What is sent, and when:

- at start: ``ugi`` (the engine answers ``id …`` lines and ``ugiok``), then ``isready``
  (``readyok``; the engine may take its time to load here);
- before the first move of a game: ``uginewgame``;
- for every move: ``position fen START moves M1 M2 …`` — the game's start position in the
  game's own text (``GameDef.ugi``: Mattix's layout string, Othello's board string, Go's
  one-line position, shogi's SFEN) and every move since, in the game's notation — then
  ``go movetime MS`` (or ``go depth N``, ``go nodes N``); on a game clock (a limit that
  carries one) ``go p1time MS p2time MS p1inc MS p2inc MS`` from both sides' clocks, as
  cutegames sends it, with ``movestogo N`` for moves per period
  (:func:`go_clock_words`), and the spec's ``depth``/``nodes`` after it;
- the engine answers ``bestmove MOVE``; ``info depth … score cp … nodes … pv …`` lines on
  the way feed banmen's thinking display;
- a search still running :data:`STOP_GRACE` past its time limit, or one the caller asks to
  stop, is sent ``stop``; one that has not answered within its allowance
  (:func:`banmen.engine.allowance`: its limit plus the margin, with the ``info`` lines it
  sent counted in), or :data:`STOP_GRACE` after a stop request, is given up: a
  :class:`UGIError` (the arena records that player's forfeit) and the process is ended
  with its group;
- at the end: ``quit``.

A move that is not legal, a line that breaks the protocol, an engine that exits or does
not answer: :class:`UGIError`, one line naming the engine and what it did.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from banmen.clients._lines import START_SECONDS, STOP_GRACE, EngineClient
from banmen.clock import Clock
from banmen.engine import EngineFailure, GameBoard, Info, PlayerSpec, Request, Result

if TYPE_CHECKING:
    from banmen.games import GameDef

__all__ = ["UGIEngine", "UGIError", "STOP_GRACE", "START_SECONDS", "ugi_engine"]


class UGIError(EngineFailure):
    """The engine process failed, timed out, broke the protocol or played an illegal move."""


def parse_info(words: list[str]) -> dict[str, Any]:
    """The fields of an ``info`` line (its words after ``info``): ``depth``, ``score``
    (``cp N``: N; ``mate N``: kept as ``mate``), ``nodes``, ``time`` (ms), ``pv`` (the
    rest of the line)."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(words):
        key = words[i]
        if key == "pv":
            out["pv"] = words[i + 1 :]
            break
        if key == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            if kind in ("cp", "mate") and value.lstrip("-").isdigit():
                out["mate" if kind == "mate" else "score"] = int(value)
            i += 3
            continue
        if key in ("depth", "nodes", "time", "seldepth") and i + 1 < len(words):
            if words[i + 1].isdigit():
                out[key] = int(words[i + 1])
            i += 2
            continue
        i += 1
    return out


class UGIEngine(EngineClient[GameBoard]):
    """A UGI engine as a banmen :class:`~banmen.engine.Engine` for ``game``'s boards."""

    error = UGIError
    ends_at_game_over = True

    def __init__(
        self, game: GameDef[Any], spec: PlayerSpec, timeout: float = START_SECONDS
    ) -> None:
        super().__init__(spec.options["command"], spec.text, timeout)
        if game.ugi is None:
            raise ValueError(f"{game.title} is not played over UGI (no position format)")
        self.game = game
        self.limit = spec.limit
        #: the name the engine gives itself (``id name``), once started
        self.engine_name = ""
        self._new = True

    # -- process

    def _handshake(self) -> None:
        self._send("ugi")
        while (line := self._line(what="no ugiok")) != "ugiok":
            if line.startswith("id name "):
                self.engine_name = line[len("id name ") :].strip()
        self._send("isready")
        while self._line(what="no readyok") != "readyok":
            pass

    def _forget(self) -> None:
        self._new = True

    def _on_stop(self) -> None:
        self._send("stop")

    def think_cleanup(self, board: GameBoard, limit: Any = None) -> Result:
        """Go's cleanup (the game goes on after two passes because the players named
        different dead stones: :mod:`banmen.games.go.settle`) cannot be put to a UGI
        engine, whose position is a start and the moves the rules replay, over after two
        passes: the player passes (the game's ``pass_name``), unasked."""
        return Result(self.game.pass_name, stopped_by="game_over")

    # -- a move

    def _position(self, board: GameBoard) -> str:
        assert self.game.ugi is not None
        start: Any = board.start_board()  # type: ignore[attr-defined]
        fen = self.game.ugi.write(start)
        names = []
        for m in board.move_stack:
            names.append(start.move_name(m))
            start.push(m)
        return f"position fen {fen}" + (f" moves {' '.join(names)}" if names else "")

    @staticmethod
    def _go(request: Request, p1_to_move: bool = True) -> str:
        """The ``go`` command for ``request``'s limit (module docstring); ``p1_to_move``:
        the mover is the first player (its clock is ``p1time``)."""
        lim = request.limit
        if lim.timed:
            assert lim.clock is not None
            go = go_clock_words(lim.clock, lim.opponent, p1_to_move)
            if lim.depth is not None:
                go += f" depth {lim.depth}"
            if lim.nodes is not None:
                go += f" nodes {lim.nodes}"
            return go
        if lim.time is not None:
            return f"go movetime {max(1, round(lim.time * 1000))}"
        if lim.depth is not None:
            return f"go depth {lim.depth}"
        if lim.nodes is not None:
            return f"go nodes {lim.nodes}"
        return "go infinite"

    def choose(self, board: GameBoard, request: Request) -> Result:
        self._begin(request)
        try:
            self._start()
            return self._search(board, request)
        finally:
            self._end()

    def _search(self, board: GameBoard, request: Request) -> Result:
        if self._new:
            self._send("uginewgame")
            self._new = False
        self._send(self._position(board))
        self._send(self._go(request, board.turn == 1))
        lim = request.limit
        started = time.monotonic()
        # A time limit is the engine's to keep: STOP_GRACE past it, it is told to stop;
        # it is given up at its allowance, whatever it says on the way (_line).
        stop_at = started + lim.time + STOP_GRACE if lim.time is not None else None
        if lim.timed:  # on a clock, the engine keeps its own time: a stop at its flag
            assert lim.clock is not None
            stop_at = started + lim.clock.until_flag()
        info: dict[str, Any] = {}
        while True:
            line = self._line(what="no bestmove", soft=stop_at)
            words = line.split()
            if not words:
                continue
            if words[0] == "info":
                info.update(parse_info(words[1:]))
                if request.on_info is not None and "depth" in info:
                    request.on_info(Info(info.get("depth", 0), info.get("score", 0),
                                         info.get("nodes", 0), 0.0, list(info.get("pv", [])),
                                         time.monotonic() - started))  # fmt: skip
                continue
            if words[0] == "bestmove":
                if len(words) < 2:
                    self._abandon()
                    raise UGIError(f"{self.name} answered {line!r}: bestmove names no move")
                return self._result(board, words[1], info, request, self._told)
            # anything else (a stray line) is ignored, as UCI GUIs do

    def _result(self, board: GameBoard, text: str, info: dict[str, Any], request: Request,
                stopped: bool) -> Result:  # fmt: skip
        try:
            move = board.move_name(board.parse_move(text))
        except ValueError as e:
            raise UGIError(f"{self.name} played {text!r}: {e}") from None
        lim = request.limit
        by = "stop" if stopped else "time" if lim.time else "depth" if lim.depth else "nodes"
        return Result(move, info.get("score"), info.get("depth", 0), info.get("nodes", 0),
                      0.0, list(info.get("pv", [])), False, by,
                      request.elapsed())  # fmt: skip


def _ms(seconds: float) -> int:
    """Seconds as UGI's whole milliseconds, rounded down."""
    return max(0, math.floor(seconds * 1000))


def go_clock_words(mine: Clock, theirs: Clock | None, p1_to_move: bool) -> str:
    """``go p1time MS p2time MS p1inc MS p2inc MS [movestogo N]`` for the mover's clock
    ``mine`` and the other side's (the mover's control, fresh, if none is known):
    milliseconds left (rounded down) and each side's increment. Moves per period add
    the mover's moves to go; a byo-yomi or Canadian clock, which UGI cannot name, is
    told as what is safe: in main time the main time left, in overtime the current
    period's time (byo-yomi: one move to make in it; Canadian: its moves left). A fixed
    time a move is ``go movetime``."""
    if mine.control.kind == "fixed":
        return f"go movetime {max(1, _ms(mine.control.period))}"
    other = theirs if theirs is not None else Clock.start(mine.control)

    def side(clock: Clock) -> tuple[int, int, int]:
        c = clock.control
        togo = 0
        if c.kind == "moves":
            togo = clock.moves_left
        elif c.kind in ("byoyomi", "canadian") and clock.overtime:
            togo = 1 if c.kind == "byoyomi" else clock.moves_left
        left = 0.0 if clock.flagged else clock.left
        return _ms(left), _ms(c.increment), togo

    (t1, i1, g1), (t2, i2, g2) = (side(mine), side(other))
    if not p1_to_move:
        (t1, i1, g1), (t2, i2, g2) = (t2, i2, g2), (t1, i1, g1)
    words = f"go p1time {t1} p2time {t2} p1inc {i1} p2inc {i2}"
    togo = g1 if p1_to_move else g2
    return words + (f" movestogo {togo}" if togo else "")


def ugi_engine(game: GameDef[Any], spec: PlayerSpec) -> UGIEngine:
    """The ``ugi:`` kind's engine for ``game`` (:data:`banmen.clients.kinds.UGI`)."""
    return UGIEngine(game, spec)
