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
  ``go movetime MS`` (or ``go depth N``, ``go nodes N``);
- the engine answers ``bestmove MOVE``; ``info depth … score cp … nodes … pv …`` lines on
  the way feed banmen's thinking display;
- a stop request sends ``stop``; a search that has not answered a grace period past its
  time limit is a :class:`UGIError` (the arena records that player's forfeit);
- at the end: ``quit``.

A move that is not legal, a line that breaks the protocol, an engine that exits or does
not answer: :class:`UGIError`, one line naming the engine and what it did.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from banmen.clients._lines import EngineClient
from banmen.engine import GameBoard, Info, PlayerSpec, Request, Result

if TYPE_CHECKING:
    from banmen.games import GameDef

__all__ = ["UGIEngine", "UGIError", "STOP_GRACE", "START_SECONDS"]

#: seconds a search may run past its time limit before it is told to stop, and then again
#: before it is given up (its player loses the game)
STOP_GRACE = 1.0
#: seconds an engine may take to answer ``ugi`` and ``isready`` (it loads its tables)
START_SECONDS = 60.0


class UGIError(RuntimeError):
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

    def __init__(self, game: GameDef[Any], spec: PlayerSpec, timeout: float = 600.0) -> None:
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
        deadline = time.monotonic() + START_SECONDS
        self._send("ugi")
        while (line := self._next(deadline, START_SECONDS)) != "ugiok":
            if line.startswith("id name "):
                self.engine_name = line[len("id name ") :].strip()
        self._send("isready")
        while self._next(deadline, START_SECONDS) != "readyok":
            pass

    def _forget(self) -> None:
        self._new = True

    def think_cleanup(self, board: GameBoard, limit: Any = None) -> Result:
        """Go's cleanup (the game goes on after two passes because the players named
        different dead stones: :mod:`banmen.games.go.settle`) cannot be put to a UGI
        engine, whose position is a start and the moves the rules replay, over after two
        passes: the player passes, unasked."""
        return Result("pass", stopped_by="game_over")

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
    def _go(request: Request) -> str:
        lim = request.limit
        if lim.time is not None:
            return f"go movetime {max(1, round(lim.time * 1000))}"
        if lim.depth is not None:
            return f"go depth {lim.depth}"
        if lim.nodes is not None:
            return f"go nodes {lim.nodes}"
        return "go infinite"

    def choose(self, board: GameBoard, request: Request) -> Result:
        self._start()
        if self._new:
            self._send("uginewgame")
            self._new = False
        self._send(self._position(board))
        self._send(self._go(request))
        lim = request.limit
        started = time.monotonic()
        # A time limit is the engine's to keep, within a grace: then it is told to stop,
        # and a second grace later given up. Other limits wait for the client's timeout.
        stop_at = started + lim.time + STOP_GRACE if lim.time is not None else None
        give_up = started + self.timeout if stop_at is None else stop_at + STOP_GRACE
        stopped = False
        info: dict[str, Any] = {}
        while True:
            now = time.monotonic()
            if not stopped and ((stop_at is not None and now >= stop_at) or request.stopped()):
                self._send("stop")
                stopped = True
                give_up = min(give_up, now + STOP_GRACE)
            wait = give_up if stopped or stop_at is None else min(stop_at, give_up)
            if request.stop is not None and not stopped:
                wait = min(wait, now + 0.05)  # (to see a stop request soon)
            try:
                line = self._next_until(wait)
            except TimeoutError:
                if time.monotonic() < give_up:
                    continue
                self._abandon()
                over = f"{lim.time:g} s" if lim.time is not None else "its limit"
                raise UGIError(f"{self.name}: no bestmove {over} after go "
                               f"(and {STOP_GRACE:g} s after stop)") from None  # fmt: skip
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
                return self._result(board, words[1], info, request, stopped)
            # anything else (a stray line) is ignored, as UCI GUIs do

    def _next_until(self, deadline: float) -> str:
        """The next line before ``deadline``; ``TimeoutError`` if none (the process kept)."""
        assert self._proc is not None
        line = self._proc.next_line(deadline)
        if line is None:
            raise UGIError(f"{self.name}: the engine process has exited")
        return line

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
