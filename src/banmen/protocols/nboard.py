"""The NBoard protocol (version 2), so Othello GUIs can use banmen as their engine.

The GUI starts ``banmen nboard`` and talks over stdin/stdout, one command a line:

=========================  ==========================================================
GUI → engine               engine → GUI
=========================  ==========================================================
``nboard 2``               ``set myname banmen``
``set depth N``            (midgame depth, 1-60; more counts as 60; the endgame is
                           solved exactly near the end)
``set game <GGF>``         (the position is the end of that game)
``set contempt N``         (accepted, not used)
``move f5[/eval/time]``    (a move was played)
``go``                     ``status …``, ``nodestats N S``, ``=== f5/eval/time``
``hint N``                 ``search f5 eval 0 depth`` for the N best moves, ``status``
``ping N``                 ``pong N`` (any search is stopped first, see below)
``learn``                  ``learned``
``quit``                   (any search is stopped; the engine exits)
=========================  ==========================================================

Evaluations are in discs from the side to move's view. A command that cannot be carried
out (bad GGF, illegal move, a depth that is not a positive number) changes nothing and is
answered by one ``status error: …`` line, which GUIs show to the user.

Searches are bounded and interruptible, as the protocol asks:

* Every ``go`` and ``hint`` thinks for at most the session's maximum time
  (``banmen nboard --max-move-time S``, by default :data:`MAX_MOVE_TIME`, 60 s), whatever
  the depth: then the search stops and answers with what it has (``===`` with the best move
  found, or the moves ``hint`` scored so far). NBoard's GGF clock is not used.
* Commands are read by their own thread while the engine thinks. The specification says
  of ``ping n``: stop thinking, then answer ``pong n`` — the GUI sends it before it changes
  the position and takes anything the engine sends before the ``pong`` as being about the
  old one. So a ``ping`` stops the running search at once; a search stopped by a ``ping``
  (or a ``go``/``hint`` still waiting behind one) sends nothing more — no stale ``===`` —
  and the ``pong`` follows. ``quit`` stops a running search as well.
* Other commands are carried out in order, after the search before them has answered. At
  the end of the input the commands already read are carried out (each search within the
  maximum time), then the engine exits.

Specification: Chris Welty's "NBoard Protocol" (``instructions/Protocol.htm`` in the
``weltyc/ntest`` repository).
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO

from banmen.clients._lines import one_line, write_line
from banmen.engine import Engine, EngineFailure, Result
from banmen.games.othello import PASS, Board, OthelloEngine, OthelloError
from banmen.numbers import Bounded, NumberError
from banmen.protocols._cap import capped, check_cap
from banmen.search.limits import Limit, StopFlag

__all__ = ["NBoardSession", "main", "MAX_MOVE_TIME", "DEPTH_MAX"]

NAME = "banmen"
#: the longest a ``go`` or ``hint`` may think by default, in seconds
MAX_MOVE_TIME = 60.0
#: ``set depth`` beyond this (the most empty squares a game has) counts as this
DEPTH_MAX = 60


#: ``set depth`` and ``hint``'s counts (banmen.numbers): a larger one is the most there is
_DEPTH = Bounded("depth", 1, DEPTH_MAX, integer=True, clamp=True)
_HINTS = Bounded("hint", 1, 64, integer=True, clamp=True)


class NBoardSession:
    """One NBoard conversation: commands in through :meth:`handle`, responses out on ``out``.

    :meth:`handle` carries out one command (a search included) and returns ``False`` once
    the session should end. The thread reading the input calls :meth:`notice` on each line
    as soon as it is read, before queueing it for :meth:`handle`: a ``ping`` or ``quit``
    stops the search that is running (see the module docstring).
    """

    def __init__(
        self,
        out: IO[str],
        depth: int = 8,
        max_move_time: float = MAX_MOVE_TIME,
        engine: Engine[Board] | None = None,
    ) -> None:
        self.out = out
        self.board = Board()
        self.depth = depth
        self.max_move_time = check_cap(max_move_time)
        #: the player behind ``go`` (banmen's own by default; ``--engine`` a user's)
        self.engine: Engine[Board] = engine or OthelloEngine(Limit(depth=depth))
        #: the search behind ``hint`` (banmen's own: a user's player may give no values)
        self.hints = self.engine if isinstance(self.engine, OthelloEngine) else None
        self.engine.warm_up()  # the compiled code loaded before the first command
        self._out_lock = threading.Lock()
        self._lock = threading.Lock()  # the counters and the running search's flag
        #: pings read (by :meth:`notice`) and answered (by :meth:`handle`): while more were
        #: read than answered, a search is obsolete
        self._pings_read = 0
        self._pings_answered = 0
        self._quitting = False
        self._stop: StopFlag | None = None

    # ---- output

    def send(self, line: str) -> None:
        with self._out_lock:
            write_line(self.out, line)

    def error(self, message: str) -> None:
        self.send(f"status error: {one_line(message)}")

    # ---- input

    def notice(self, line: str) -> None:
        """A line was just read (it is carried out later, in order): a ``ping`` or ``quit``
        stops the running search now."""
        words = line.split()
        if not words or words[0] not in ("ping", "quit", "exit"):
            return
        with self._lock:
            if words[0] == "ping":
                self._pings_read += 1
            else:
                self._quitting = True
            stop = self._stop
        if stop is not None:
            stop.set()

    def _obsolete(self) -> bool:
        """A ``ping`` or ``quit`` was read after the command being carried out."""
        with self._lock:
            return self._quitting or self._pings_read > self._pings_answered

    def handle(self, line: str) -> bool:
        """Carry out one command; False once the session should end."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        try:
            if cmd == "nboard":
                if args and args[0] != "2":
                    self.error(f"protocol version {args[0][:20]!r} is not supported: expected 2")
                self.send(f"set myname {NAME}")
            elif cmd == "set":
                self._set(args, line)
            elif cmd == "move":
                self._move(args)
            elif cmd == "go":
                self._go()
            elif cmd == "hint":
                self._hint(args)
            elif cmd == "ping":
                with self._lock:
                    self._pings_answered += 1
                self.send(f"pong {args[0] if args else ''}".rstrip())
            elif cmd == "learn":
                self.send("learned")
            elif cmd in ("quit", "exit"):
                return False
            elif cmd == "analyze":
                self.error("analyze is not supported")
            else:
                self.error(
                    f"unknown command {cmd[:40]!r}: expected nboard, set, move, go, hint, ping"
                )
        except OthelloError as e:
            self.error(str(e))
        except EngineFailure as e:  # the engine behind the session: one line, and on
            self.error(f"engine error: {e}")
        except Exception as e:  # never let a command end the session
            self.error(f"internal error in {cmd[:40]}: {type(e).__name__}: {e}")
        return True

    def _set(self, args: list[str], line: str) -> None:
        if not args:
            self.error("set needs a name: depth, game or contempt")
            return
        what = args[0]
        if what == "depth":
            value = args[1] if len(args) == 2 else " ".join(args[1:])
            try:
                self.depth = _DEPTH(value if not value.isdigit() or len(value) < 400 else "99")
            except NumberError:
                self.error(f"set depth needs a positive number, got {value[:30]!r}")
                return
        elif what == "game":
            text = line.split("game", 1)[1].strip()
            self.board = Board.from_ggf(text)  # raises, and leaves the old board, if bad
        elif what == "contempt":
            pass
        else:
            self.error(f"unknown setting {what[:40]!r}: expected depth, game or contempt")

    def _move(self, args: list[str]) -> None:
        if not args:
            self.error("move needs a square, like 'move f5'")
            return
        text = args[0].split("/")[0]
        self.board.push_name(text)

    def _limit(self) -> Limit:
        return Limit(depth=self.depth)

    # ---- searches

    def _think(self, stop: StopFlag, board: Board, limit: Limit) -> Result:
        return self.engine.think(board, limit, None, stop)

    def _hint_think(self, stop: StopFlag, board: Board, limit: Limit) -> Result:
        if self.hints is None:
            self.hints = OthelloEngine(Limit(depth=self.depth))
        return self.hints.think(board, limit, None, stop)

    @contextmanager
    def _searching(self) -> Iterator[StopFlag | None]:
        """The stop flag of a new search, capped at the maximum time, or ``None`` if the
        search is obsolete already (a ping read from now on sets the flag)."""
        stop = StopFlag()
        with self._lock:
            self._stop = stop
        try:
            if self._obsolete():
                yield None
                return
            self.send(f"status {NAME} is thinking")
            with capped(stop, self.max_move_time):
                yield stop
        finally:
            with self._lock:
                self._stop = None

    def _go(self) -> None:
        if self.board.is_game_over():
            self.error("the game is over: there is no move to make")
            return
        with self._searching() as stop:
            if stop is None:
                return
            t0 = time.perf_counter()
            r = self._think(stop, self.board, self._limit())
            seconds = time.perf_counter() - t0
        if self._obsolete():  # a ping came: the GUI no longer wants this move
            return
        self.send(f"nodestats {r.nodes} {seconds:.2f}")
        move = "PA" if r.move in (None, "pass") else r.move
        ev = 0.0 if r.score is None else float(r.score)
        self.send(f"=== {move}/{ev:.2f}/{seconds:.1f}")
        self.send("status")

    def _hint(self, args: list[str]) -> None:
        text = args[0] if args else "1"
        try:
            n = _HINTS(text if not text.isdigit() or len(text) < 400 else "64")
        except NumberError:
            self.error(f"hint needs a positive number of moves, got {text[:30]!r}")
            return
        if self.board.is_game_over():
            self.send("status")
            return
        scored: list[tuple[float, str, int]] = []
        with self._searching() as stop:
            if stop is None:
                return
            for mv in self.board.legal_moves:
                if mv == PASS:
                    scored.append((0.0, "PA", 0))
                    continue
                child = self.board.copy()
                child.push(mv)
                r = self._hint_think(stop, child, Limit(depth=max(1, self.depth - 1)))
                value = 0.0 if r.score is None else -float(r.score)
                if r.move is None:  # the move ended the game
                    value = float(child.final_margin(self.board.turn))
                scored.append((value, self.board.move_name(mv), r.depth + 1))
                if stop.is_set() or self._obsolete():  # time is up, or a ping came
                    break
        if self._obsolete():
            return
        scored.sort(key=lambda x: -x[0])
        for value, name, depth in scored[:n]:
            self.send(f"search {name} {value:.2f} 0 {depth}")
        self.send("status")


def main(
    stdin: Iterable[str] | None = None,
    stdout: IO[str] | None = None,
    *,
    max_move_time: float = MAX_MOVE_TIME,
    engine: Engine[Board] | None = None,
) -> None:
    """Serve NBoard on ``stdin``/``stdout`` (the process's by default) until ``quit`` or
    the end of the input, with ``engine`` behind ``go`` (default: banmen's own). A thread
    reads the input, so a ``ping`` or ``quit`` stops a search as soon as it arrives."""
    session = NBoardSession(stdout or sys.stdout, max_move_time=max_move_time, engine=engine)
    lines: queue.Queue[str | None] = queue.Queue()
    source = sys.stdin if stdin is None else stdin

    def read() -> None:
        try:
            for line in source:
                session.notice(line)
                lines.put(line)
        except (OSError, ValueError):  # the input broke: as its end
            pass
        finally:
            lines.put(None)

    threading.Thread(target=read, name="nboard-reader", daemon=True).start()
    while (line := lines.get()) is not None:
        if not session.handle(line.strip()):
            break
