"""An external Go engine spoken to over the Go Text Protocol (GTP version 2).

``GTPEngine("/usr/games/gnugo --mode gtp --level 1")`` starts the program and plays
through it. Before each ``genmove`` the engine's board is brought to ours:

* the first time, or when the size, komi or start position (handicap and set-up stones)
  differ, or when the history went back further than ``undo`` can take it:
  ``boardsize``, ``clear_board``, ``komi``, the start position's stones
  (``set_free_handicap`` for black handicap stones with white to move, else ``play``
  commands), then every move;
* when the game only went on: just the new moves (``play``); when moves were taken back:
  ``undo`` for each, then the new ones.

The engine's own ``genmove`` answer is played on its board too, so the usual game costs
one ``play`` and one ``genmove`` per move pair. On a game clock (a limit that carries
one, :attr:`Limit.clock <banmen.search.limits.Limit.clock>`), the engine is told the
match's time control once a game (:func:`gtp_time_settings`: ``time_settings`` or
``kgs-time_settings``) and ``time_left COLOR SECONDS STONES`` from the clock before each
``genmove`` (stones: Canadian moves left or byo-yomi periods left in overtime, 0 in main
time). With a time limit and no clock, ``time_settings 0 T 1`` and ``time_left`` tell the
engine it has T seconds a move. Engines without those commands are not asked again.
In a cleanup after a dispute over dead stones (the arena's
:mod:`~banmen.games.go.settle`), :meth:`GTPEngine.think_cleanup` asks with
``kgs-genmove_cleanup`` instead, if ``known_command`` says the engine has it. ``resign``
comes back as the move ``"resign"``, as banmen's own Go engine gives it: not a board
move; a game record reads it and ends the game (:meth:`Game.parse_move
<banmen.games.go.game.Game.parse_move>`, as the arena plays).

Every command carries an id, and a response with another id is a protocol error. The
process failing to start, exiting, not answering in time, answering ``?`` to a command it
must know, or naming a move our rules reject raises :class:`GTPError` with a one-line
message. "In time" is, for a move (the commands that bring the board up to date
included), its allowance (:func:`banmen.engine.allowance`: the spec's ``time=`` plus the
margin, a minute without one), or :data:`~banmen.clients._lines.STOP_GRACE` after the
caller asked the search to stop (GTP has no ``stop``); for any other command,
:attr:`~banmen.clients._lines.EngineClient.timeout`. An engine given up is ended with its
process group. The player spec ``gtp:[time=S ]COMMAND`` builds one for the arena (Go
only).
"""

from __future__ import annotations

import math
import time

from banmen.clients._lines import START_SECONDS, EngineClient, one_line
from banmen.clock import Clock, TimeControl
from banmen.engine import EngineFailure, Request, Result
from banmen.games.go.board import BLACK, PASS, WHITE, Board, parse_vertex, vertex_name
from banmen.games.go.errors import GoError
from banmen.games.go.game import RESIGN_NAME, Game, board_of, is_resignation
from banmen.search.limits import Limit

__all__ = ["GTPEngine", "GTPError", "GTPCommandError", "gtp_time_settings"]


class GTPError(EngineFailure):
    """The engine process failed, timed out or broke the protocol."""


class GTPCommandError(GTPError):
    """The engine answered a command with a failure (``? message``)."""


#: at most this many ``undo`` commands before a full replay is cheaper
MAX_UNDO = 16


class GTPEngine(EngineClient[Board | Game]):
    """A GTP engine as a banmen :class:`~banmen.engine.Engine` for Go boards."""

    error = GTPError
    ends_at_game_over = True

    def __init__(self, command: str | list[str], name: str = "", timeout: float = START_SECONDS,
                 limit: Limit | None = None) -> None:  # fmt: skip
        super().__init__(command, name, timeout)
        if limit is not None:
            self.limit = limit
        if not self.argv:
            raise ValueError("gtp needs a command, like 'gtp:gnugo --mode gtp'")
        self.name = one_line(name or f"gtp:{' '.join(self.argv)}")
        self._id = 0
        #: the engine's own name and version (``name``, ``version``), once started
        self.engine_name = ""
        self.engine_version = ""
        #: commands the engine answered ``?`` to (optional ones are not sent again)
        self._unsupported: set[str] = set()
        # what the engine's board holds: size, komi, start stones, moves as (colour, point)
        self._size: int | None = None
        self._komi: float | None = None
        self._setup: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self._moves: list[tuple[int, int]] = []
        self._time_sent: int | None = None
        #: the time control sent this game (``time_settings``), if any
        self._control_sent: TimeControl | None = None
        self._byoyomi_as_canadian = False
        #: what ``known_command`` answered, by command (asked once per engine)
        self._known: dict[str, bool] = {}
        #: the command that asks for a move (``kgs-genmove_cleanup`` in a cleanup)
        self._genmove = "genmove"

    # -- process

    def _handshake(self) -> None:
        version = self.command("protocol_version")
        if version.strip() != "2":
            raise GTPError(f"{self.name} speaks GTP version {version.strip()!r}, not 2")
        self.engine_name = self._optional("name") or ""
        self.engine_version = self._optional("version") or ""

    def _forget(self) -> None:
        """The engine's board is unknown: the next move replays the game."""
        self._size = self._komi = self._setup = None
        self._moves = []
        self._time_sent = None
        self._control_sent = None

    def command(self, text: str, timeout: float | None = None) -> str:
        """Send one command; return the response's text (lines joined by newlines).
        Raises :class:`GTPCommandError` for a ``?`` answer, :class:`GTPError` for
        anything else that goes wrong. The answer must come within ``timeout`` seconds
        (default: by the move's deadline during a move, else :attr:`timeout`)."""
        if self._proc is None:
            self._start()  # (think restarts an engine that died; a command does not)
        self._id += 1
        ident = str(self._id)
        self._send(f"{ident} {text}")
        until = None if timeout is None else time.monotonic() + timeout
        what = f"no answer to {text.split()[0]!r}"
        line = self._line(until, what, timeout)
        while not line.startswith(("=", "?")):  # not a response: skip it
            line = self._line(until, what, timeout)
        mark, rest = line[0], line[1:]
        digits = len(rest) - len(rest.lstrip("0123456789"))
        got, rest = rest[:digits], rest[digits:].strip()
        if got and got != ident:
            self._abandon()
            raise GTPError(f"{self.name} answered id {got} to command {ident} ({text!r})")
        body = [rest]
        while True:
            line = self._line(until, what, timeout)
            if not line.strip():
                break
            body.append(line)
        answer = "\n".join(body).strip()
        if mark == "?":
            shown = " ".join(answer.split()) or "(no message)"
            raise GTPCommandError(f"{self.name} failed {text!r}: {shown}")
        return answer

    def _optional(self, text: str) -> str | None:
        """A command the engine need not know: ``None`` if it fails (and it is not sent
        again)."""
        word = text.split()[0]
        if word in self._unsupported:
            return None
        try:
            return self.command(text)
        except GTPCommandError:
            self._unsupported.add(word)
            return None

    # -- the engine's board

    def _sync(self, board: Board) -> None:
        """Bring the engine's board to ``board``'s game (module docstring)."""
        start = board.start_board()
        setup = (tuple(start.stones(BLACK)), tuple(start.stones(WHITE)))
        moves = list(zip(board.colors, board.move_stack, strict=True))
        same = (self._size, self._komi, self._setup) == (board.size, board.komi, setup)
        try:
            if same:
                keep = 0
                for ours, theirs in zip(moves, self._moves, strict=False):
                    if ours != theirs:
                        break
                    keep += 1
                back = len(self._moves) - keep
                if back > MAX_UNDO:
                    same = False
                for _ in range(back if same else 0):
                    try:
                        self.command("undo")
                    except GTPCommandError:
                        same = False
                        break
                    self._moves.pop()
            if not same:
                self._replay_start(board, start, setup)
            for color, move in moves[len(self._moves) :]:
                self.command(f"play {_color(color)} {board.move_name(move)}")
                self._moves.append((color, move))
        except GTPError:
            self._forget()
            raise

    def _replay_start(
        self, board: Board, start: Board, setup: tuple[tuple[int, ...], tuple[int, ...]]
    ) -> None:
        self._forget()
        self.command(f"boardsize {board.size}")
        self.command("clear_board")
        self.command(f"komi {board.komi:g}")
        black, white = setup
        placed = False
        if len(black) >= 2 and not white and start.turn == WHITE:
            names = " ".join(board.move_name(p) for p in black)
            placed = self._optional(f"set_free_handicap {names}") is not None
        if not placed:
            for color, points in ((BLACK, black), (WHITE, white)):
                for p in points:
                    self.command(f"play {_color(color)} {board.move_name(p)}")
        self._size, self._komi, self._setup = board.size, board.komi, setup

    def _send_time(self, color: int, seconds: float) -> None:
        """A limit of ``seconds`` a move and no clock: one move in a Canadian period of
        that many seconds (whole ones, rounded up), every move."""
        t = max(1, math.ceil(seconds))
        if self._time_sent != t:
            if self._optional(f"time_settings 0 {t} 1") is None:
                return
            self._time_sent = t
        self._optional(f"time_left {_color(color)} {t} 1")

    def _send_clock(self, color: int, clock: Clock) -> None:
        """The match's clock: its control once a game (:func:`gtp_time_settings`), then
        ``time_left`` for the mover from ``clock`` (:meth:`Clock.report
        <banmen.clock.Clock.report>`, whole seconds rounded down: GTP's times are
        integers)."""
        control = clock.control
        if self._control_sent != control:
            sent = None
            for command in gtp_time_settings(control):
                if self._optional(command) is not None:
                    sent = command
                    break
            if sent is None:
                return  # the engine keeps its own time (it knows no time_settings)
            self._control_sent = control
            #: byo-yomi told as one-move Canadian periods (no kgs-time_settings)
            self._byoyomi_as_canadian = control.kind == "byoyomi" and sent.startswith("time_")
        left, stones = clock.report()
        if stones and self._byoyomi_as_canadian:
            stones = 1  # (one move in the period, as time_settings said)
        self._optional(f"time_left {_color(color)} {max(0, math.floor(left))} {stones}")

    # -- the end of a game

    def final_dead(self, board: Board | Game) -> list[str] | None:
        """The stones the engine calls dead in ``board``'s position (``final_status_list
        dead``), as sorted vertices; ``None`` if it cannot say (no such command, an
        answer that is not a list of vertices, an engine that failed)."""
        b = board_of(board)
        try:
            self._sync(b)
            answer = self._optional("final_status_list dead")
            if answer is None:
                return None
            return sorted({vertex_name(parse_vertex(w, b.size), b.size) for w in answer.split()})
        except (GTPError, GoError):
            return None

    def knows(self, command: str) -> bool:
        """Whether the engine knows ``command`` (``known_command``; asked once per
        engine). ``False`` if it cannot say: no ``known_command``, an engine that
        failed."""
        if command not in self._known:
            try:
                answer = self._optional(f"known_command {command}")
            except GTPError:
                return False
            self._known[command] = (answer or "").strip().lower() == "true"
        return self._known[command]

    def think_cleanup(self, board: Board | Game, limit: Limit | None = None) -> Result:
        """The engine's move in a cleanup (the game goes on after two passes because the
        players named different dead stones, then is counted with every stone alive:
        the arena's :mod:`~banmen.games.go.settle`): ``kgs-genmove_cleanup`` if the
        engine knows it (GNU Go, Pachi, KataGo: a move that takes dead stones off the
        board rather than a pass), else ``genmove``."""
        self._genmove = "kgs-genmove_cleanup" if self.knows("kgs-genmove_cleanup") else "genmove"
        try:
            return self.think(board, limit)
        finally:
            self._genmove = "genmove"

    # -- Engine

    def choose(self, board: Board | Game, request: Request) -> Result:
        """The engine's ``genmove`` for the side to move of a board or a game record."""
        board = board_of(board)
        self._begin(request)
        try:
            self._start()
            self._sync(board)
            color = board.turn
            limit = request.limit
            if limit.timed:
                assert limit.clock is not None
                self._send_clock(color, limit.clock)
            elif limit.time is not None:
                self._send_time(color, limit.time)
            answer = self.command(f"{self._genmove} {_color(color)}")
        finally:
            self._end()
        seconds = request.elapsed()
        stopped_by = "time" if limit.time is not None else "depth"
        word = answer.split()[0] if answer.split() else ""
        if is_resignation(word):
            return Result(RESIGN_NAME, stopped_by=stopped_by, seconds=seconds)
        try:
            move = PASS if word.lower() == "pass" else board.parse_move(word)
        except GoError as e:
            self._forget()  # the engine's board holds a move ours does not
            raise GTPError(f"{self.name} answered genmove with {answer!r}: {e}") from None
        self._moves.append((color, move))
        return Result(board.move_name(move), seconds=seconds, stopped_by=stopped_by)


def _whole(seconds: float) -> int:
    """Seconds as GTP's integer: rounded down (GNU Go reads ``%d``)."""
    return max(0, math.floor(seconds))


def gtp_time_settings(control: TimeControl) -> list[str]:
    """The commands that tell a GTP engine ``control``, the first it knows to be used:

    * byo-yomi: ``kgs-time_settings byoyomi MAIN PERIOD PERIODS``, else
      ``time_settings MAIN PERIOD 1`` (a Canadian period of one move: the same limit a
      move, the periods not counted; ``time_left`` then says 1 stone in overtime);
    * Canadian: ``time_settings MAIN PERIOD MOVES``;
    * sudden death and Fischer: ``time_settings MAIN 0 0`` — GTP has no increment: the
      engine is told the main time, and the increments it earns show in each move's
      ``time_left`` (the clock counts them);
    * moves per period (``40/60``): ``time_settings 0 SECONDS MOVES``, a Canadian period
      (the time a period leaves over shows in ``time_left``);
    * a fixed time a move (``st=S``): ``time_settings 0 S 1``;
    * no clock: ``time_settings 0 1 0`` (the specification's "no time limit").

    Times are whole seconds, rounded down (at least 1 for a period)."""
    c = control
    main, period = _whole(c.main), max(1, _whole(c.period))
    if c.kind == "byoyomi":
        return [f"kgs-time_settings byoyomi {main} {period} {c.periods}",
                f"time_settings {main} {period} 1"]  # fmt: skip
    if c.kind == "canadian":
        return [f"time_settings {main} {period} {c.moves}"]
    if c.kind in ("sudden", "fischer"):
        return [f"time_settings {main} 0 0"]
    if c.kind == "moves":
        return [f"time_settings 0 {max(1, _whole(c.main))} {c.moves}"]
    if c.kind == "fixed":
        return [f"time_settings 0 {period} 1"]
    return ["time_settings 0 1 0"]


def _color(color: int) -> str:
    return "b" if color == BLACK else "w"
