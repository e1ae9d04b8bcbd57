"""banmen's engines behind UGI (the Universal Game Interface), for any game:
``banmen ugi --game GAME [--engine SPEC]``, so UGI tournament managers and GUIs can run
them. UGI is UCI made game-neutral (kz04px/cutegames, ``ugi.md``).

==========================================  ===============================================
manager → engine                            engine → manager
==========================================  ===============================================
``ugi``                                     ``id name banmen …``, ``id author …``, ``ugiok``
``isready``                                 ``readyok`` (the engine loaded first)
``uginewgame``                              (the engine forgets the last game)
``position startpos [moves …]``             (the game's standard start, ``GameDef.start``:
``position fen FEN [moves …]``              Othello's and shogi's, an empty 9×9 Go board,
                                            Connect Four's empty board; Mattix, which has
                                            none, the seed-0 6×6 deal; FEN in the game's
                                            own position text, ``GameDef.ugi``; moves in
                                            its notation)
``go movetime MS`` / ``go depth N`` /       ``info depth … score cp … nodes … nps … time …
``go nodes N`` / ``go infinite`` /          pv …`` as it deepens, then ``bestmove MOVE``
``go p1time MS p2time MS [p1inc MS p2inc    (``bestmove none`` for a finished game)
MS] [movestogo N]``
``stop``                                    (the search answers at once)
``query p1turn`` / ``gameover`` /           ``response true|false``, ``response p1win|
``result``                                  p2win|draw|none`` — from banmen's rules
``setoption name N value V``                (no options: ``info string`` says so)
``quit``                                    (the search is stopped; the engine exits)
==========================================  ===============================================

With a clock (``p1time``/``p2time`` and ``p1inc``/``p2inc`` in milliseconds, as
cutegames sends them, and ``movestogo`` for moves per period) both sides' clocks become
:class:`~banmen.clock.Clock` s (:func:`go_clock`: sudden death, Fischer, or moves per
period) and the move's time and target come from the mover's, through
:meth:`Limit.on_clock <banmen.search.limits.Limit.on_clock>` — the one time-per-move
computation of every banmen front end (with the game's estimate of the moves still to
play). ``depth`` and ``nodes`` may come with a clock or ``movetime`` and bound the search
too. A bad ``go`` (an unknown word, a missing or negative number) is one ``info string
error: …`` line and nothing is searched. A command that cannot be carried out (a bad
position or move, an unknown command) is answered by one ``info string error: …`` line and
changes nothing; nothing a manager sends ends the session but ``quit`` and the end of the
input. A ``go`` while a search runs stops that one first (its ``bestmove`` comes first).

Every bounded ``go`` is capped at the session's maximum thinking time (``banmen ugi
--max-move-time S``, by default :data:`MAX_MOVE_TIME`, 60 s), whatever the engine behind
it: banmen's own search stops there, a user's engine is asked to stop and given up
:data:`~banmen.clients._lines.STOP_GRACE` later (``info string error: …`` and ``bestmove
none``). ``go infinite`` runs until ``stop``, which bounds it the same way.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from contextlib import nullcontext
from typing import IO, Any

from banmen import __version__
from banmen.clients._lines import one_line, write_line
from banmen.clock import Clock, TimeControl
from banmen.engine import Engine, GameBoard, Info, moves_ahead
from banmen.numbers import DEPTH, NODES, Bounded, NumberError
from banmen.protocols._cap import capped, check_cap
from banmen.search.limits import Limit, StopFlag

__all__ = ["UGISession", "main", "go_limit", "go_clock", "MAX_MOVE_TIME"]

#: the longest a bounded ``go`` may think by default, in seconds
MAX_MOVE_TIME = 60.0

AUTHOR = "banmen developers"
#: ``go`` times beyond this many milliseconds are taken as ``infinite``
MS_MAX = 2**31 - 1


#: go's numbers (banmen.numbers): times in ms, longer ones taken as the longest; depths
#: and node counts beyond what any search reaches taken as the most
_MS = Bounded("time", 0, MS_MAX, integer=True, clamp=True, unit="ms")
_DEPTH = Bounded("depth", 0, DEPTH.hi, integer=True, clamp=True)
_NODES = Bounded("nodes", 0, NODES.hi, integer=True, clamp=True)


_GO_KEYS = ("movetime", "depth", "nodes", "p1time", "p2time", "p1inc", "p2inc", "movestogo")


def go_clock(left_ms: int, inc_ms: int = 0, movestogo: int | None = None) -> Clock:
    """One side's clock as ``go`` tells it: ``left_ms`` milliseconds left, ``inc_ms`` a
    move, and (``movestogo``) so many moves to make in them before the next period (a
    ``moves`` control); otherwise sudden death or Fischer on what is left."""
    left, inc = min(left_ms, MS_MAX) / 1000, min(inc_ms, MS_MAX) / 1000
    if movestogo:
        control = TimeControl("moves", main=left, increment=inc, moves=movestogo)
        return Clock(control, left=left, moves_left=movestogo)
    return Clock.start(TimeControl("fischer" if inc else "sudden", main=left, increment=inc))


def go_limit(args: list[str], p1_to_move: bool, moves_ahead: int | None = None,
             cap: float | None = None) -> Limit:  # fmt: skip
    """The search's limit for ``go ARGS`` (``ValueError`` naming a bad argument):
    ``movetime`` as the move's time; else, with the mover's ``p1time``/``p2time``, both
    sides' clocks (:func:`go_clock`) and the move's time and target from them
    (:meth:`Limit.on_clock`, over ``moves_ahead``, the board's estimate, and within
    ``cap`` seconds); ``depth`` and ``nodes`` bound the search as well."""
    values: dict[str, int] = {}
    i = 0
    while i < len(args):
        key = args[i]
        if key == "infinite":
            i += 1
            continue
        if key not in _GO_KEYS:
            raise ValueError(f"go: unknown argument {key!r}: expected one of "
                             f"{', '.join(_GO_KEYS)}, infinite")  # fmt: skip
        if i + 1 >= len(args):
            raise ValueError(f"go {key} needs a whole number, got nothing")
        bounded = _DEPTH if key == "depth" else _NODES if key in ("nodes", "movestogo") else _MS
        try:
            values[key] = bounded(args[i + 1])
        except NumberError as e:
            raise ValueError(f"go {e}") from None
        i += 2
    depth = max(1, values["depth"]) if "depth" in values else None
    nodes = max(1, values["nodes"]) if "nodes" in values else None
    if "movetime" in values:
        return Limit(time=max(1, min(values["movetime"], MS_MAX)) / 1000, depth=depth,
                     nodes=nodes)  # fmt: skip
    me, them = ("p1", "p2") if p1_to_move else ("p2", "p1")
    if f"{me}time" in values:
        togo = values.get("movestogo") or None
        mine = go_clock(values[f"{me}time"], values.get(f"{me}inc", 0), togo)
        theirs = None
        if f"{them}time" in values:
            theirs = go_clock(values[f"{them}time"], values.get(f"{them}inc", 0), togo)
        base = Limit(time=cap, depth=depth, nodes=nodes)
        return base.with_clocks(mine, theirs).on_clock(moves_ahead)
    return Limit(depth=depth, nodes=nodes)  # (neither: infinite, until stop)


class UGISession:
    """One UGI session over ``engine`` for ``game`` (module docstring)."""

    def __init__(self, out: IO[str], game: Any, engine: Engine[Any],
                 max_move_time: float = MAX_MOVE_TIME) -> None:  # fmt: skip
        self.max_move_time = check_cap(max_move_time)
        self.out = out
        self.game = game
        self.engine = engine
        self.board: GameBoard = self._startpos()
        self._lock = threading.Lock()
        self._search: tuple[threading.Thread, StopFlag, Limit] | None = None
        self._warm = False

    def _startpos(self) -> GameBoard:
        """The game's standard start (:meth:`~banmen.games.GameDef.start_position`)."""
        board: GameBoard = self.game.start_position(None)
        return board

    # ---- output

    def send(self, line: str) -> None:
        with self._lock:
            write_line(self.out, line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {one_line(message)}")

    # ---- input

    def handle(self, line: str) -> bool:
        """Carry out one command; ``False`` once the session should end (``quit``)."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        handlers = {
            "ugi": self._ugi, "isready": self._isready, "uginewgame": self._new_game,
            "position": self._position, "go": self._go, "stop": self._stop,
            "query": self._query, "setoption": self._setoption,
        }  # fmt: skip
        if cmd == "quit":
            self._stop([])
            return False
        handler = handlers.get(cmd)
        if handler is None:
            self.error(f"unknown command {cmd[:30]!r}: expected one of {', '.join(handlers)}, quit")
            return True
        try:
            handler(args)
        except Exception as e:  # a command that cannot be carried out changes nothing
            self.error(str(e) or type(e).__name__)
        return True

    def _ugi(self, args: list[str]) -> None:
        self.send(f"id name banmen {__version__} ({self.game.name}, {self.engine.name})")
        self.send(f"id author {AUTHOR}")
        self.send("ugiok")

    def _isready(self, args: list[str]) -> None:
        if not self._warm:
            self.engine.warm_up()  # loaded (compiled, the first time ever) before readyok
            self._warm = True
        self.send("readyok")

    def _new_game(self, args: list[str]) -> None:
        self._stop([])
        self.engine.new_game()
        self.board = self._startpos()

    def _position(self, args: list[str]) -> None:
        if not args or args[0] not in ("startpos", "fen"):
            raise ValueError("position needs startpos or fen FEN, then optionally moves …")
        moves_at = args.index("moves") if "moves" in args else len(args)
        if args[0] == "startpos":
            board = self._startpos()
        else:
            fen = " ".join(args[1:moves_at])
            if not fen:
                raise ValueError("position fen needs a position")
            board = self.game.ugi.read(fen)
        for i, name in enumerate(args[moves_at + 1 :]):
            try:
                board.push_name(name)
            except ValueError as e:
                raise ValueError(f"move {i + 1} ({name!r}): {e}") from None
        self._stop([])
        self.board = board  # (only a whole position replaces the last one)

    def _query(self, args: list[str]) -> None:
        board = self.board
        what = args[0] if args else ""
        if what == "p1turn":
            self.send(f"response {'true' if board.turn == 1 else 'false'}")
        elif what == "gameover":
            self.send(f"response {'true' if board.is_game_over() else 'false'}")
        elif what == "result":
            if not board.is_game_over():
                self.send("response none")
            else:
                w = board.winner()
                self.send(f"response {'draw' if w is None else 'p1win' if w == 1 else 'p2win'}")
        else:
            raise ValueError(f"query {what[:20]!r}: expected p1turn, gameover or result")

    def _setoption(self, args: list[str]) -> None:
        self.send(f"info string banmen's {self.engine.name} has no options: ignored")

    def _go(self, args: list[str]) -> None:
        board = self.board
        limit = go_limit(args, board.turn == 1, moves_ahead(board), self.max_move_time)
        self._stop([])
        if board.is_game_over():
            self.send("bestmove none")
            return
        if not self._warm:
            self._isready_quietly()
        stop = StopFlag()
        thread = threading.Thread(target=self._think, args=(board, limit, stop), daemon=True)
        self._search = (thread, stop, limit)
        thread.start()

    def _isready_quietly(self) -> None:
        self.engine.warm_up()
        self._warm = True

    def _think(self, board: GameBoard, limit: Limit, stop: StopFlag) -> None:
        mine = board.copy() if hasattr(board, "copy") else board
        cap = nullcontext() if limit.unbounded else capped(stop, self.max_move_time)
        try:
            with cap:
                r = self.engine.think(mine, limit, self._info, stop)
            move = r.move
        except Exception as e:
            self.error(f"the engine failed: {e}")
            move = None
        self.send(f"bestmove {move if move is not None else 'none'}")

    def _info(self, i: Info) -> None:
        pv = f" pv {' '.join(i.pv)}" if i.pv else ""
        self.send(f"info depth {i.depth} score cp {int(i.score)} nodes {i.nodes} "
                  f"nps {int(i.nps)} time {int(i.seconds * 1000)}{pv}")  # fmt: skip

    def _stop(self, args: list[str]) -> None:
        search, self._search = self._search, None
        if search is not None:
            thread, stop, _ = search
            stop.set()
            thread.join()

    def finish(self) -> None:
        """The input ended: a bounded search is let finish, an infinite one stopped."""
        search = self._search
        if search is not None:
            thread, stop, limit = search
            if limit.time is None and limit.depth is None and limit.nodes is None:
                stop.set()
            thread.join()


def main(game: Any, engine: Engine[Any], stdin: Iterable[str] | None = None,
         stdout: IO[str] | None = None, max_move_time: float = MAX_MOVE_TIME) -> None:  # fmt: skip
    """Serve UGI on ``stdin``/``stdout`` until ``quit`` or the end of the input."""
    session = UGISession(stdout or sys.stdout, game, engine, max_move_time)
    for line in sys.stdin if stdin is None else stdin:
        if not session.handle(line):
            return
    session.finish()
