"""The Go Text Protocol (GTP version 2), so Go GUIs and match programs can use banmen.

A controller (Sabaki, GoGui, gogui-twogtp, a KGS client, GNU Go's regression scripts)
starts ``banmen gtp`` and sends one command a line on stdin; every command gets one
response on stdout. Framing follows the GTP v2 specification:

* input is preprocessed: control characters other than HT and LF are removed, text from a
  ``#`` to the end of the line is a comment, HT becomes a space, and empty lines are
  ignored (no response);
* a command is ``[id] name [arguments]``; ``id`` is a number the response repeats;
* a success is ``=[id] result`` and a failure ``?[id] message``, each ended by an empty
  line (``"=12 D4\\n\\n"``; with nothing to say ``"= \\n\\n"``). A multi-line result never
  holds an empty line.

Colours are ``b``/``black``/``w``/``white`` and vertices ``D4`` or ``pass`` (columns A-T
without I), in any case; command names are case-sensitive, as in GNU Go.

Commands (``list_commands`` gives the same list):

=====================================  =================================================
administration                         ``protocol_version`` (2), ``name``, ``version``,
                                       ``known_command NAME``, ``list_commands``, ``quit``
setup                                  ``boardsize N`` (5-19), ``clear_board``,
                                       ``komi K``, ``fixed_handicap N``,
                                       ``place_free_handicap N``,
                                       ``set_free_handicap V V ...``
play                                   ``play COLOR VERTEX``, ``genmove COLOR``, ``undo``
tournament                             ``time_settings MAIN BYO STONES``,
                                       ``time_left COLOR TIME STONES``, ``final_score``,
                                       ``final_status_list alive|dead|seki``
regression                             ``loadsgf FILE [MOVE_NUMBER]``,
                                       ``reg_genmove COLOR``, ``printsgf [FILE]``
GNU Go's test extensions               ``is_legal COLOR VERTEX`` (1/0),
                                       ``all_legal COLOR``, ``captures COLOR``,
                                       ``list_stones COLOR``
KGS                                    ``kgs-genmove_cleanup COLOR``,
                                       ``kgs-time_settings none|absolute|canadian|byoyomi``
analysis (Leela Zero's and KataGo's    ``lz-analyze [COLOR] [INTERVAL]``,
extensions; with banmen's own Go       ``kata-analyze [COLOR] [INTERVAL]
engine only)                           [ownership true]``
debugging                              ``showboard``
=====================================  =================================================

Failures use the specification's messages: ``unknown command``, ``syntax error`` (also
for a bad colour or a vertex that is not on the board, like ``I5`` or ``Z9``),
``illegal move``, ``unacceptable size``, ``invalid number of stones``, ``board not
empty``, ``bad vertex list``, ``cannot undo``, ``cannot load file``, ``cannot score``
(and GNU Go's ``cannot save file`` for ``printsgf``). An engine that fails or names an
illegal move gives ``engine error: ...`` or ``internal error: ...``, on one line. A failed
command leaves the board as it was; nothing a controller sends ends the session except
``quit`` and the end of the input.

Choices where GTP leaves room:

* ``play`` accepts a move of either colour in any order (GTP: "consecutive moves of the
  same color are not considered illegal") and goes on after two passes (the game record's
  tolerant :meth:`~banmen.games.go.game.Game.play`); ``genmove`` and
  ``reg_genmove`` let the engine think for the colour asked, with the game going on (the
  engine sees the position with that colour to move; after two or more passes in a row,
  as if one pass had been played: its own pass would end the game again);
* ``genmove`` answers ``resign`` when the engine resigns (the game is left as it is);
* ``final_score`` and ``final_status_list`` take the dead stones from
  :func:`~banmen.games.go.estimate.estimate_dead` (playouts of the search's policy,
  Benson's pass-alive test, chains next to a seki point kept unless the playouts take
  them nearly always); they count under the session's rules (area or territory).
  ``final_status_list`` gives one chain a line, as GNU Go;
* ``loadsgf`` keeps the session's rules (``--rules``) and takes size, komi, handicap,
  set-up stones and the main line from the file; ``MOVE_NUMBER`` N loads the position
  before the N-th move. Its response is empty, as in the specification (GNU Go answers
  the colour to move);
* ``kgs-genmove_cleanup`` is ``genmove``, except that the engine may not pass while
  stones of the other colour that ``final_status_list dead`` would list remain: a
  liberty of such a chain is played instead;
* ``place_free_handicap`` uses the fixed layout where it is defined and spreads further
  stones over the third and fourth lines
  (:func:`~banmen.games.go.board.free_handicap_points`); it may place fewer stones than
  asked when the board has no good point left (the specification allows it);
* ``time_settings MAIN BYO STONES``, ``kgs-time_settings`` and ``time_left`` set the
  game's clock, a :class:`~banmen.clock.TimeControl` with a :class:`~banmen.clock.Clock`
  for each side: ``time_settings`` is absolute time (``BYO`` 0: sudden death of
  ``MAIN`` seconds) or Canadian overtime (``BYO`` seconds for every ``STONES`` moves
  after the main time); ``BYO > 0`` with ``STONES = 0`` means no time limit (the
  specification's convention). ``kgs-time_settings`` (KGS, GoGui) names the system:
  ``none``; ``absolute MAIN``; ``canadian MAIN BYO STONES`` (as ``time_settings``);
  ``byoyomi MAIN PERIOD PERIODS``, Japanese byo-yomi: after the main time each move must
  be made within one PERIOD, and a move that overruns it uses up periods. Either starts
  both clocks afresh. ``time_left COLOR TIME STONES`` sets that side's clock
  (:meth:`Clock.reported <banmen.clock.Clock.reported>`): ``STONES`` 0 is main time;
  otherwise, in Canadian overtime, ``STONES`` moves to make in ``TIME`` seconds, in
  byo-yomi ``STONES`` periods left with ``TIME`` left in the current one. Without a time
  control ``time_left`` is accepted and changes nothing. The session charges every
  ``genmove`` of its own the time it took (a controller that sends no ``time_left``
  still finds its clock right). A move is searched under
  ``Limit(time=max_move_time, depth, nodes).with_clocks(mine, theirs).on_clock(...)``
  (:meth:`GTPSession.move_limit`): its hard time and target come from the mover's
  clock (:meth:`Clock.budget <banmen.clock.Clock.budget>`, with the board's estimate
  of the moves still to play: a third of the empty points, at least ten), the one
  time-per-move computation every banmen front end uses; the engine's own time bound
  is replaced, its depth and node bounds stay. Without a clock the engine uses its own
  limit. Times must be finite numbers of seconds (``syntax error`` otherwise, and for a
  negative ``time_settings``; a refused command changes nothing); a negative
  ``time_left`` counts as 0 and times beyond :data:`TIME_MAX` (about 31 years) as that;
* no move takes longer than the session's maximum thinking time (``banmen gtp
  --max-move-time S``, by default :data:`MAX_MOVE_TIME`, 60 s), whatever the clock or the
  engine's own spec says: past it the engine is stopped (through its stop flag) and
  answers with the best move it has. GTP is sequential (a command is carried out once
  the one before it is answered), so ``quit`` and the end of the input end the session
  at most that long after they were sent.

Analysis (as Sabaki and Lizzie use it): ``lz-analyze`` and ``kata-analyze`` exist when the
engine is banmen's Go engine (:class:`~banmen.games.go.engine.GoEngine`, ``--engine
mcts``), whose search tree can be read (:func:`banmen.games.go.analysis.analyse`). They
search the position for ``COLOR`` (default: the side to move; another colour as for
``genmove``) with no limit and answer ``=`` and the command's id alone on a line, then,
every ``INTERVAL`` centiseconds (at least 0.1 s apart; 0, the default, writes none, as
Leela Zero), one line with every move the search has visited, most visited first: in
Leela Zero's form ``info move D4 visits 120 winrate 5234 prior 1234 lcb 5000 order 0 pv
D4 Q16 info move ...`` (win rate, prior and lcb in 1/10000); in KataGo's the same with
win rate, prior and lcb from 0 to 1 and, with ``ownership true``, the line ends with
``ownership`` and size * size numbers from -1 to 1, row by row from the top left, from
the side to move's view (estimates from playouts of the search's policy, see
:mod:`banmen.games.go.analysis`). KataGo's per-move ``scoreLead`` is left out: the engine
has no score per move it could stand by. The win rate is the move's share of won
simulations, ``prior`` the search's prior as a probability and ``lcb`` the win rate's
95% lower bound. The next command (or the end of the input) stops the search: the
response ends with its empty line and the command is then carried out. Arguments may
also be given as ``interval N`` and ``maxmoves N`` (the most moves a line shows) pairs;
anything else is a ``syntax error`` and changes nothing. A thread reads the input, so
the next command is seen while the search runs; used without :func:`main`
(:meth:`GTPSession.handle` alone), an analysis runs for the maximum thinking time and
its whole response is returned.
"""

from __future__ import annotations

import io
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from banmen import __version__
from banmen._files import FileRefused, read_small_text
from banmen.analysis import Analysis, MoveValue
from banmen.clock import Clock, TimeControl
from banmen.engine import Engine, EngineFailure, moves_ahead
from banmen.games.go import (
    BLACK,
    EMPTY,
    MAX_SIZE,
    MIN_SIZE,
    PASS,
    RESIGN,
    WHITE,
    Board,
    Game,
    GoEngine,
    GoError,
    HandicapError,
    IllegalMoveError,
    Rules,
    estimate_dead,
    free_handicap_points,
    handicap_points,
    is_resignation,
    parse_color,
    parse_rules,
    parse_vertex,
    read_sgf,
    write_sgf,
)
from banmen.games.go.analysis import OWNERSHIP_PLAYOUTS, PERIOD, analyse
from banmen.games.go.rules import komi_value
from banmen.games.go.scoring import capturing_move, chains, seki_stones
from banmen.numbers import KOMI, Bounded, NumberError
from banmen.protocols._cap import capped, check_cap
from banmen.search.limits import Limit, StopFlag

__all__ = ["GTPSession", "GTPFailure", "preprocess", "main", "NAME"]

NAME = "banmen"
#: the longest a move may take by default, in seconds, whatever the clock says
MAX_MOVE_TIME = 60.0
#: time values beyond this many seconds (about 31 years) are taken as this
TIME_MAX = 1e9

_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GTPFailure(Exception):
    """A command that fails: its message is the text after ``?``."""


def preprocess(line: str) -> str:
    """A raw input line after GTP preprocessing: control characters but HT and LF
    removed, the ``#`` comment cut off, HT turned into a space, ends stripped. An empty
    result means the line is to be ignored."""
    line = _CONTROL.sub("", line)
    line = line.split("#", 1)[0]
    return line.replace("\t", " ").strip()


def _number(bounded: Bounded, text: str) -> Any:
    """An argument read by ``bounded`` (:mod:`banmen.numbers`); a failure names it."""
    try:
        return bounded(text)
    except NumberError as e:
        raise GTPFailure(f"syntax error: {e}") from None


def _int(text: str, low: int | None = None, what: str = "argument") -> int:
    """A whole-number argument, at least ``low``: none of GTP's counts (sizes, stones, move
    numbers) is anywhere near a billion."""
    low = -(10**9) if low is None else low
    return int(_number(Bounded(what, low, 10**9, integer=True), text))


#: a time argument: a finite number, one larger than :data:`TIME_MAX` taken as it
_TIME = Bounded("time", -TIME_MAX, TIME_MAX, clamp=True, unit="seconds")


def _seconds(text: str) -> float:
    """A time argument: a finite number, clamped to at most :data:`TIME_MAX`."""
    return float(_number(_TIME, text))


def _color(text: str) -> int:
    try:
        return parse_color(text)
    except GoError:
        raise GTPFailure("syntax error") from None


#: how many arguments each command takes: (fewest, most), ``None`` for no most. A command
#: given another number fails (``undo undo`` undoes nothing; ``boardsize 9 9`` clears nothing)
ARITY: dict[str, tuple[int, int | None]] = {
    "protocol_version": (0, 0), "name": (0, 0), "version": (0, 0), "known_command": (1, 1),
    "list_commands": (0, 0), "quit": (0, 0), "boardsize": (1, 1), "clear_board": (0, 0),
    "komi": (1, 1), "fixed_handicap": (1, 1), "place_free_handicap": (1, 1),
    "set_free_handicap": (0, None), "play": (2, 2), "genmove": (1, 1), "undo": (0, 0),
    "time_settings": (3, 3), "time_left": (3, 3), "kgs-time_settings": (1, 4),
    "final_score": (0, 0), "final_status_list": (1, 1), "loadsgf": (1, 2),
    "reg_genmove": (1, 1), "printsgf": (0, 1), "is_legal": (2, 2), "all_legal": (1, 1),
    "captures": (1, 1), "list_stones": (1, 1), "kgs-genmove_cleanup": (1, 1),
    "showboard": (0, 0), "lz-analyze": (0, None), "kata-analyze": (0, None),
}  # fmt: skip


def _arity_error(name: str, given: int) -> str | None:
    """Why ``name`` cannot take ``given`` arguments, or ``None`` if it can."""
    low, high = ARITY.get(name, (0, None))
    if low <= given and (high is None or given <= high):
        return None
    if low == high:
        takes = "no arguments" if low == 0 else f"{low} argument{'s' * (low > 1)}"
    else:
        takes = f"at least {low}" if high is None else f"{low} to {high} arguments"
    return f"syntax error: {name} takes {takes}, got {given}"


def _args(args: list[str], n: int) -> list[str]:
    if len(args) < n:
        raise GTPFailure("syntax error")
    return args


class GTPSession:
    """One GTP conversation over a Go board.

    ``engine`` answers ``genmove`` (anything with the :class:`~banmen.engine.Engine`
    ``think`` method, over a :class:`~banmen.games.go.board.Board`); without one,
    ``genmove`` fails. ``size``, ``rules`` and ``komi`` set the board ``clear_board``
    and ``boardsize`` make (``komi`` and ``boardsize`` change them for the session).
    :attr:`game` is the game record the commands play on (:attr:`board`: its board).
    ``max_move_time`` (seconds) bounds every move's thinking, clock or not.

    :meth:`handle` takes one raw input line and returns the full response text (or
    ``None`` for a line GTP ignores; an empty string when an analysis has written its
    response through :attr:`write` already); :attr:`done` turns true after ``quit``.
    """

    def __init__(
        self,
        engine: Engine[Board] | None = None,
        size: int = 19,
        rules: Rules | str = "chinese",
        komi: float | None = None,
        name: str = NAME,
        max_move_time: float = MAX_MOVE_TIME,
    ) -> None:
        self.max_move_time = check_cap(max_move_time)
        self.engine = engine
        self.rules = parse_rules(rules)
        self.komi = self.rules.komi if komi is None else komi_value(komi)
        self.size = size
        self.game = self._new_game(size)
        self.name = name
        self.done = False
        #: the game's time control (``time_settings``, ``kgs-time_settings``)
        self.control = TimeControl()
        #: each side's clock on it (none without a time control), set by ``time_left``
        #: and charged with the engine's own moves in between
        self.clocks: dict[int, Clock] = {}
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: self.name,
            "version": lambda a: __version__,
            "known_command": self._known_command,
            "list_commands": lambda a: "\n".join(self.commands),
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "fixed_handicap": self._fixed_handicap,
            "place_free_handicap": self._place_free_handicap,
            "set_free_handicap": self._set_free_handicap,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "kgs-time_settings": self._kgs_time_settings,
            "final_score": self._final_score,
            "final_status_list": self._final_status_list,
            "loadsgf": self._loadsgf,
            "reg_genmove": self._reg_genmove,
            "printsgf": self._printsgf,
            "is_legal": self._is_legal,
            "all_legal": self._all_legal,
            "captures": self._captures,
            "list_stones": self._list_stones,
            "kgs-genmove_cleanup": self._genmove_cleanup,
            "showboard": self._showboard,
        }
        if isinstance(engine, GoEngine):  # an engine whose search tree can be read
            self.commands["lz-analyze"] = lambda a: self._analyze("lz", a)
            self.commands["kata-analyze"] = lambda a: self._analyze("kata", a)
        #: writes text at once (set by :func:`main`): an analysis streams its lines
        #: through it; without it, its whole response is returned at its end
        self.write: Callable[[str], None] | None = None
        #: waits up to the given seconds for the next command (set by :func:`main`):
        #: true once one has arrived or the input has ended. It ends an analysis;
        #: without it, an analysis runs for :attr:`max_move_time`
        self.wait_input: Callable[[float], bool] | None = None
        self._ident = ""
        self._raw: str | None = None

    # ---- framing

    def handle(self, line: str) -> str | None:
        """The response to one raw input line, ``None`` if GTP ignores the line."""
        text = preprocess(line)
        if not text:
            return None
        words = text.split()
        ident = ""
        if words[0].isascii() and words[0].isdigit():
            ident = words.pop(0)
        if not words:
            return self._frame("?", ident, "syntax error")
        name, args = words[0], words[1:]
        command = self.commands.get(name)
        if command is None:
            return self._frame("?", ident, "unknown command")
        self._ident = ident
        wrong = _arity_error(name, len(args))
        if wrong is not None:
            return self._frame("?", ident, wrong)
        try:
            result = command(args)
        except GTPFailure as e:
            return self._frame("?", ident, str(e))
        except EngineFailure as e:  # the engine behind the session failed, or overran
            return self._frame("?", ident, f"engine error: {e}")
        except Exception as e:  # never let a command end the session
            return self._frame("?", ident, f"internal error: {type(e).__name__}: {e}")
        if self._raw is not None:  # a streamed response (an analysis), framed already
            raw, self._raw = self._raw, None
            return raw
        return self._frame("=", ident, result)

    @staticmethod
    def _frame(mark: str, ident: str, body: str) -> str:
        lines = body.rstrip().split("\n")
        if mark == "?":  # a message is one line
            lines = [" ".join(" ".join(lines).split())]
        # an empty line would end the response early
        lines = [lines[0]] + [ln.rstrip() or " " for ln in lines[1:]]
        return f"{mark}{ident} " + "\n".join(lines) + "\n\n"

    # ---- helpers

    @property
    def board(self) -> Board:
        """The board of the game record."""
        return self.game.board

    def _new_game(self, size: int) -> Game:
        return Game(Board(size, self.rules, self.komi))

    def _reset(self, size: int) -> None:
        self.game = self._new_game(size)
        self.size = size
        self._engine_new_game()

    def _engine_new_game(self) -> None:
        new_game = getattr(self.engine, "new_game", None)
        if callable(new_game):
            new_game()

    def _vertex(self, text: str) -> int:
        try:
            return parse_vertex(text, self.board.size)
        except GoError:
            raise GTPFailure("syntax error") from None

    def _name(self, p: int) -> str:
        return self.game.move_name(p)

    def _names(self, points: Iterable[int]) -> str:
        return " ".join(self._name(p) for p in points)

    def _is_empty(self) -> bool:
        b = self.board
        return not (b.move_stack or b.stones(BLACK) or b.stones(WHITE))

    # ---- administration

    def _known_command(self, args: list[str]) -> str:
        return "true" if args and args[0] in self.commands else "false"

    def _quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    # ---- setup

    def _boardsize(self, args: list[str]) -> str:
        n = _int(args[0], what="size")
        if not MIN_SIZE <= n <= MAX_SIZE:
            raise GTPFailure("unacceptable size")
        self._reset(n)
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._reset(self.board.size)
        return ""

    def _komi(self, args: list[str]) -> str:
        try:
            k = komi_value(_number(KOMI, args[0]))
        except GoError:
            raise GTPFailure("syntax error") from None
        self.komi = k
        self.board.rules = self.board.rules.with_komi(k)
        return ""

    def _handicap_count(self, args: list[str]) -> int:
        n = _int(args[0], what="stones")
        if not self._is_empty():
            raise GTPFailure("board not empty")
        if n < 2:
            raise GTPFailure("invalid number of stones")
        return n

    def _fixed_handicap(self, args: list[str]) -> str:
        n = self._handicap_count(args)
        try:
            points = handicap_points(n, self.board.size)
        except HandicapError:
            raise GTPFailure("invalid number of stones") from None
        self.board.fixed_handicap(n)
        return self._names(points)

    def _place_free_handicap(self, args: list[str]) -> str:
        n = self._handicap_count(args)
        if n >= self.board.size**2:
            raise GTPFailure("invalid number of stones")
        points = free_handicap_points(n, self.board.size)
        if len(points) < 2:
            raise GTPFailure("invalid number of stones")
        self.board.set_free_handicap(points)
        return self._names(points)

    def _set_free_handicap(self, args: list[str]) -> str:
        try:
            points = [parse_vertex(a, self.board.size) for a in args]
        except GoError:
            raise GTPFailure("bad vertex list") from None
        if not self._is_empty():
            raise GTPFailure("board not empty")
        if PASS in points or len(set(points)) != len(points) or len(points) < 2:
            raise GTPFailure("bad vertex list")
        try:
            self.board.set_free_handicap(points)
        except GoError:
            raise GTPFailure("bad vertex list") from None
        return ""

    # ---- play

    def _move_args(self, args: list[str]) -> tuple[int, int]:
        """(colour, point) of the arguments ``COLOR VERTEX``."""
        a = _args(args, 2)
        return _color(a[0]), self._vertex(a[1])

    def _play(self, args: list[str]) -> str:
        color, move = self._move_args(args)
        try:
            self.game.play(move, color)  # as recorded: after two passes, or a resignation
        except IllegalMoveError:
            raise GTPFailure("illegal move") from None
        return ""

    def _undo(self, args: list[str]) -> str:
        if not self.board.move_stack:
            raise GTPFailure("cannot undo")
        self.game.pop()
        return ""

    def _think(self, color: int, cleanup: bool = False) -> int:
        """The engine's move for ``color``: a point, PASS, or RESIGN."""
        if self.engine is None:
            raise GTPFailure("no engine: start banmen gtp with --engine")
        view = self.game.position_for(color)
        limit = self.move_limit(color)
        stop = StopFlag()
        t0 = time.monotonic()
        # the cap holds even for an engine with no time bound of its own (or a deaf one)
        with capped(stop, self.max_move_time):
            result = self.engine.think(view, limit, None, stop)
        self._spend(color, time.monotonic() - t0)
        text = result.move
        if text is None:  # no move: a pass, unless the engine says it resigned
            if is_resignation(result.stopped_by):
                return RESIGN
            move = PASS
        elif is_resignation(text):
            return RESIGN
        else:
            try:
                move = parse_vertex(text, self.board.size)
            except GoError:
                raise GTPFailure(f"engine error: {self.engine_name} answered {text!r}") from None
        if move != PASS and self.board.why_illegal(move, color) is not None:
            raise GTPFailure(
                f"engine error: {self.engine_name} chose {text}, illegal for "
                f"{'black' if color == BLACK else 'white'}"
            )
        if cleanup and move == PASS:
            move = self._cleanup_move(color)
        return move

    @property
    def engine_name(self) -> str:
        return str(getattr(self.engine, "name", "the engine"))

    def _genmove(self, args: list[str], cleanup: bool = False) -> str:
        color = _color(_args(args, 1)[0])
        move = self._think(color, cleanup)
        if move != RESIGN:
            self.game.play(move, color)
        return self._name(move)

    def _genmove_cleanup(self, args: list[str]) -> str:
        return self._genmove(args, cleanup=True)

    def _reg_genmove(self, args: list[str]) -> str:
        color = _color(_args(args, 1)[0])
        return self._name(self._think(color))

    def _cleanup_move(self, color: int) -> int:
        """A legal liberty of an opponent chain estimated dead (fewest liberties first),
        or PASS when none is left (:func:`~banmen.games.go.scoring.capturing_move`)."""
        return capturing_move(self.board, self._dead(), color)

    # ---- time

    def _set_control(self, control: TimeControl) -> None:
        """Both sides start the game's clock afresh on ``control``."""
        self.control = control
        self.clocks = {} if control.unlimited else {c: Clock.start(control) for c in (BLACK, WHITE)}

    def _time_settings(self, args: list[str]) -> str:
        a = _args(args, 3)
        main, byo, stones = _seconds(a[0]), _seconds(a[1]), _int(a[2], 0, "stones")
        if main < 0 or byo < 0:
            raise GTPFailure("syntax error")
        if byo > 0 and stones == 0:
            self._set_control(TimeControl())  # the specification's "no time limit"
        elif byo == 0 or stones == 0:
            self._set_control(TimeControl("sudden", main=main))  # absolute
        else:
            self._set_control(TimeControl("canadian", main=main, moves=stones, period=byo))
        return ""

    def _kgs_time_settings(self, args: list[str]) -> str:
        kind = _args(args, 1)[0].lower()
        rest = args[1:]
        if kind == "none" and not rest:
            self._set_control(TimeControl())
            return ""
        wanted = {"absolute": 1, "canadian": 3, "byoyomi": 3}.get(kind)
        if wanted is None or len(rest) != wanted:
            raise GTPFailure("syntax error")
        main = _seconds(rest[0])
        byo, stones = (_seconds(rest[1]), _int(rest[2], 0, "stones")) if wanted == 3 else (0.0, 0)
        if main < 0 or byo < 0 or (wanted == 3 and (byo == 0 or stones == 0)):
            raise GTPFailure("syntax error")
        if kind == "absolute":
            control = TimeControl("sudden", main=main)
        elif kind == "canadian":
            control = TimeControl("canadian", main=main, moves=stones, period=byo)
        else:
            control = TimeControl("byoyomi", main=main, period=byo, periods=stones)
        self._set_control(control)
        return ""

    def _time_left(self, args: list[str]) -> str:
        a = _args(args, 3)
        color, left, stones = _color(a[0]), _seconds(a[1]), _int(a[2], 0, "stones")
        clock = self.clocks.get(color)
        if clock is not None:  # (without a time control: accepted, nothing to set)
            self.clocks[color] = Clock.reported(self.control, left, stones)
        return ""

    def move_limit(self, color: int) -> Limit | None:
        """The :class:`Limit` for ``color``'s next move: ``None`` (the engine's own)
        without a clock; else the engine's depth and node bounds (from its ``limit``
        attribute, if it has one) and at most :attr:`max_move_time`, on both sides'
        clocks, with the move's time and target from :meth:`Limit.on_clock` (the one
        time-per-move computation, :meth:`banmen.clock.Clock.budget`)."""
        mine = self.clocks.get(color)
        if mine is None:
            return None
        own = getattr(self.engine, "limit", None)
        depth, nodes = (own.depth, own.nodes) if isinstance(own, Limit) else (None, None)
        base = Limit(time=self.max_move_time, depth=depth, nodes=nodes)
        theirs = self.clocks.get(WHITE if color == BLACK else BLACK)
        view = self.game.position_for(color)
        return base.with_clocks(mine, theirs).on_clock(moves_ahead(view))

    def move_time(self, color: int) -> float | None:
        """The time ``color``'s next move aims at (:meth:`move_limit`'s target), or
        ``None`` without a clock."""
        limit = self.move_limit(color)
        return None if limit is None else limit.target

    def _spend(self, color: int, seconds: float) -> None:
        """Charge ``color``'s move of ``seconds`` to its clock, if it has one (the clock
        counts on between ``time_left`` commands)."""
        clock = self.clocks.get(color)
        if clock is not None:
            clock.spend(seconds)

    # ---- analysis (Leela Zero's and KataGo's extensions)

    def _analysis_args(self, kind: str, args: list[str]) -> _AnalysisRequest:
        """``[COLOR] [INTERVAL] [KEY VALUE ...]`` of ``lz-analyze`` (``kind`` ``"lz"``)
        or ``kata-analyze`` (``"kata"``); keys ``interval``, ``maxmoves`` and, for
        ``kata-analyze``, ``ownership true|false``."""
        req = _AnalysisRequest()
        i = 0
        if i < len(args):
            try:
                req.color = parse_color(args[i])
                i += 1
            except GoError:
                pass
        if i < len(args) and _FLOAT.fullmatch(args[i]):
            req.interval = _interval(args[i])
            i += 1
        while i < len(args):
            if i + 1 >= len(args):
                raise GTPFailure("syntax error")
            key, value = args[i], args[i + 1]
            if key == "interval":
                req.interval = _interval(value)
            elif key == "maxmoves":
                req.max_moves = _int(value, 1, "maxmoves")
            elif key == "ownership" and kind == "kata" and value in ("true", "false"):
                req.ownership = value == "true"
            else:
                raise GTPFailure("syntax error")
            i += 2
        return req

    def _analyze(self, kind: str, args: list[str]) -> str:
        """``lz-analyze`` / ``kata-analyze`` (module docstring): ``=`` and the command's
        id on a line of its own, then a line of every candidate move each interval until
        the next command arrives (or the input ends), then an empty line."""
        req = self._analysis_args(kind, args)
        engine = self.engine
        assert isinstance(engine, GoEngine)  # the commands exist only for it
        color = self.board.turn if req.color is None else req.color
        view = self.game.position_for(color)
        size = view.size
        write = self.write
        parts: list[str] = []

        def emit(text: str) -> None:
            if write is not None:
                write(text)
            else:
                parts.append(text)

        def show(a: Analysis) -> None:
            if not a.stopped_by and req.interval > 0:  # the updates while it runs
                emit(_analysis_line(kind, a, size) + "\n")

        stop = StopFlag()
        finished = threading.Event()
        wait = self.wait_input

        def watch() -> None:
            assert wait is not None
            while not finished.is_set():
                if wait(0.05):
                    stop.set()
                    return

        emit(f"={self._ident}\n")
        watcher = None
        if wait is not None:
            watcher = threading.Thread(target=watch, name="gtp-analysis-stop", daemon=True)
            watcher.start()
        try:
            with _maybe_capped(stop, None if wait is not None else self.max_move_time):
                analyse(
                    view,
                    Limit(),  # until stopped
                    show,
                    stop,
                    engine,
                    period=max(req.interval / 100, PERIOD),
                    ownership_playouts=OWNERSHIP_PLAYOUTS if req.ownership else 0,
                    max_moves=req.max_moves,
                )
        except Exception as e:  # the response has begun: it still ends as it should
            print(f"{kind}-analyze: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            finished.set()
            if watcher is not None:
                watcher.join()
        emit("\n")
        self._raw = "".join(parts)
        return ""

    # ---- scoring

    def _dead(self) -> frozenset[int]:
        """:func:`estimate_dead` (which keeps chains in seki alive)."""
        return estimate_dead(self.board)

    def _final_score(self, args: list[str]) -> str:
        try:
            return self.board.score(self._dead()).result
        except GoError:
            raise GTPFailure("cannot score") from None

    def _final_status_list(self, args: list[str]) -> str:
        status = _args(args, 1)[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise GTPFailure("syntax error")
        b = self.board
        dead = self._dead()
        grid = b.grid().tolist()
        for p in dead:
            grid[p] = EMPTY
        seki = seki_stones(grid, b.size)
        out = []
        for _, stones, _ in chains(b.grid().tolist(), b.size):
            if stones <= dead:
                kind = "dead"
            elif stones <= seki:
                kind = "seki"
            else:
                kind = "alive"
            if kind == status:
                out.append(sorted(stones))
        out.sort()
        return "\n".join(self._names(stones) for stones in out)

    # ---- regression and files

    def _loadsgf(self, args: list[str]) -> str:
        a = _args(args, 1)
        number = _int(a[1], 1, "move number") if len(a) > 1 else None
        try:
            record = read_sgf(read_small_text(a[0]), rules=self.rules)
        except FileRefused as e:
            raise GTPFailure(f"cannot load file: {e}") from None
        except GoError as e:
            raise GTPFailure(f"cannot load file: {e}") from None
        game, board = record.game, record.board
        if record.info("KM") is None:
            board.rules = board.rules.with_komi(self.komi)
        if number is not None:
            while len(board.move_stack) > number - 1:
                game.pop()
        self.game = game
        self.size = board.size
        self.komi = board.komi
        self._engine_new_game()
        return ""

    def _printsgf(self, args: list[str]) -> str:
        text = write_sgf(self.game)
        if not args:
            return text
        try:
            Path(args[0]).write_text(text, encoding="utf-8")
        except OSError:
            raise GTPFailure("cannot save file") from None
        return ""

    # ---- GNU Go's test commands

    def _is_legal(self, args: list[str]) -> str:
        color, move = self._move_args(args)
        return "1" if self.board.why_illegal(move, color) is None else "0"

    def _all_legal(self, args: list[str]) -> str:
        color = _color(_args(args, 1)[0])
        b = self.board
        return self._names(p for p in b.points if b.why_illegal(p, color) is None)

    def _captures(self, args: list[str]) -> str:
        return str(self.board.captures(_color(_args(args, 1)[0])))

    def _list_stones(self, args: list[str]) -> str:
        return self._names(self.board.stones(_color(_args(args, 1)[0])))

    def _showboard(self, args: list[str]) -> str:
        return "\n" + str(self.game)


@dataclass
class _AnalysisRequest:
    """An analysis command's arguments: the colour to move (``None``: the game's), the
    interval between lines in centiseconds (0: none), the most moves a line shows, and
    whether ``kata-analyze`` adds the ownership."""

    color: int | None = None
    interval: float = 0.0
    max_moves: int | None = None
    ownership: bool = False


def _interval(text: str) -> float:
    """An analysis interval: a number of centiseconds, 0 or more."""
    return float(_number(Bounded("interval", 0, 100 * TIME_MAX, clamp=True), text))


def _maybe_capped(stop: StopFlag, seconds: float | None) -> AbstractContextManager[Any]:
    """:func:`capped` after ``seconds``, or nothing with ``None``."""
    return capped(stop, seconds) if seconds is not None else nullcontext()


def _analysis_line(kind: str, a: Analysis, size: int) -> str:
    """One line of every candidate move of ``a``: Leela Zero's ``lz-analyze`` chunks
    (``kind`` ``"lz"``: win rate, prior and lcb as integers in 1/10000) or KataGo's
    ``kata-analyze`` ones (from 0 to 1), then for ``kata-analyze`` the position's
    ``ownership`` if the analysis has it."""
    chunks = [_analysis_chunk(kind, k, m) for k, m in enumerate(a.moves)]
    own = a.extra.get("ownership")
    if kind == "kata" and own is not None:
        chunks.append("ownership " + " ".join(f"{x:.3f}" for x in own))
    return " ".join(chunks)


def _analysis_chunk(kind: str, order: int, m: MoveValue) -> str:
    wr = m.value if m.value is not None else 0.0
    prior = m.extra.get("prior")
    lcb = m.extra.get("lcb")
    words = [f"info move {m.move} visits {m.visits}"]
    if kind == "lz":
        words.append(f"winrate {_per10k(wr)}")
        if prior is not None:
            words.append(f"prior {_per10k(prior)}")
        if lcb is not None:
            words.append(f"lcb {_per10k(lcb)}")
    else:
        words.append(f"winrate {wr:.4f}")
        if prior is not None:
            words.append(f"prior {prior:.4f}")
        if lcb is not None:
            words.append(f"lcb {lcb:.4f}")
    words.append(f"order {order} pv {' '.join(m.pv or [m.move])}")
    return " ".join(words)


def _per10k(x: float) -> int:
    return min(10000, max(0, round(10000 * x)))


class _Input:
    """The commands read and not yet handled: the reader thread adds them, the session
    takes them one by one, and an analysis waits for the next one to arrive."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._lines: deque[str] = deque()
        self._ended = False

    def put(self, line: str) -> None:
        with self._cond:
            self._lines.append(line)
            self._cond.notify_all()

    def end(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def get(self) -> str | None:
        """The next command (waiting for it); ``None`` once the input has ended."""
        with self._cond:
            self._cond.wait_for(lambda: self._lines or self._ended)
            return self._lines.popleft() if self._lines else None

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for a command: has one arrived (or the input ended)?"""
        with self._cond:
            return self._cond.wait_for(lambda: bool(self._lines) or self._ended, seconds)


def main(
    engine: Engine[Board] | None = None,
    size: int = 19,
    rules: Rules | str = "chinese",
    komi: float | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    max_move_time: float = MAX_MOVE_TIME,
) -> None:
    """Serve GTP on ``stdin``/``stdout`` (the process's by default) until ``quit`` or the
    end of the input."""
    session = GTPSession(engine, size=size, rules=rules, komi=komi, max_move_time=max_move_time)
    if stdin is None:
        stdin = sys.stdin
        if isinstance(stdin, io.TextIOWrapper):  # a lone CR is removed, not a line end
            stdin.reconfigure(errors="replace", newline="\n")
    if stdout is None:
        stdout = sys.stdout
        if isinstance(stdout, io.TextIOWrapper):  # LF line ends on every system
            stdout.reconfigure(newline="\n")
    out = stdout
    commands = _Input()
    source = stdin

    def read() -> None:
        try:
            for line in source:
                if preprocess(line):  # a line GTP ignores does not end an analysis
                    commands.put(line)
        except (OSError, ValueError):  # the input broke: as its end
            pass
        finally:
            commands.end()

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    session.write = write
    session.wait_input = commands.wait
    threading.Thread(target=read, name="gtp-reader", daemon=True).start()
    while (line := commands.get()) is not None:
        response = session.handle(line)
        if response:
            write(response)
        if session.done:
            break
