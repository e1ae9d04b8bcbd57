"""The NBoard protocol (version 2), so Othello GUIs can use banmen as their engine.

The GUI starts ``banmen nboard`` and talks over stdin/stdout, one command a line:

=========================  ==========================================================
GUI → engine               engine → GUI
=========================  ==========================================================
``nboard 2``               ``set myname banmen``
``set depth N``            (midgame depth, 1-60; more counts as 60; the endgame is
                           solved exactly near the end)
``set game <GGF>``         (the position is the end of that game; its clock, below)
``set contempt N``         (accepted, not used)
``move f5[/eval/time]``    (a move was played, in ``time`` seconds of its clock)
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
  found, or the moves ``hint`` scored so far).
* The protocol has no clock command; the game's clock travels in the GGF of ``set game``
  (the specification: "NBoard 1.1 does not use the clock but it is planned"): ``TI[MAIN
  [/INCREMENT[/GRACE]]]`` for both sides, or ``TB[…]`` and ``TW[…]`` each, times as
  NBoard's ``OsClock`` writes them (``300``, ``5:00``, ``1:00:00``), and each move's time
  as its third field (``B[F5/0.5/2.25]``). The session counts each side's clock as NBoard
  does (:func:`ggf_clocks`: the main time less every move's time, the increments added;
  GGS's grace after a timeout is not counted), charges each later ``move f5/eval/time``
  to its player, and a ``go`` on a clock searches under ``Limit(time=max-move-time,
  depth).with_clocks(mine, theirs).on_clock(...)``: its time and target from the mover's
  clock (the one time-per-move computation of every banmen front end), the ``set
  depth`` still a bound. A main time of 0 (NBoard's ``TI[0]``) or no ``TI`` is no clock:
  ``go`` searches to the depth, within the maximum time. A malformed clock or move time
  is one ``status error: …`` line and changes nothing.
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

import math
import queue
import re
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO

from banmen.clients._lines import one_line, write_line
from banmen.clock import Clock, TimeControl
from banmen.engine import Engine, EngineFailure, Result, moves_ahead
from banmen.games.othello import BLACK, PASS, WHITE, Board, OthelloEngine, OthelloError
from banmen.games.othello.formats import parse_ggf
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
        #: each side's clock (BLACK, WHITE), when ``set game`` names one (else empty)
        self.clocks: dict[int, Clock] = {}
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
            board = Board.from_ggf(text)  # raises, and leaves the old board, if bad
            try:
                clocks = ggf_clocks(text)
            except ValueError as e:  # a bad clock: the old game is kept as well
                self.error(f"set game: {e}")
                return
            self.board, self.clocks = board, clocks
        elif what == "contempt":
            pass
        else:
            self.error(f"unknown setting {what[:40]!r}: expected depth, game or contempt")

    def _move(self, args: list[str]) -> None:
        if not args:
            self.error("move needs a square, like 'move f5'")
            return
        fields = args[0].split("/")
        try:
            seconds = _move_seconds(fields[2] if len(fields) > 2 else "")
        except ValueError as e:
            self.error(str(e))
            return
        mover = self.board.turn
        self.board.push_name(fields[0])
        clock = self.clocks.get(mover)
        if clock is not None:
            clock.spend(seconds)

    def _limit(self) -> Limit:
        """``go``'s limit: the depth (``set depth``) and, when the game is on a clock
        (``set game``'s ``TI``/``TB``/``TW``), the mover's: its time and target from
        :meth:`Limit.on_clock` (the one time-per-move computation), within the session's
        maximum time."""
        base = Limit(depth=self.depth)
        mine = self.clocks.get(self.board.turn)
        if mine is None:
            return base
        theirs = self.clocks.get(WHITE if self.board.turn == BLACK else BLACK)
        timed = Limit(time=self.max_move_time, depth=self.depth).with_clocks(mine, theirs)
        return timed.on_clock(moves_ahead(self.board))

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


#: a GGF move with its optional eval and time: ``B[F5/1.5/2.25]`` (not ``PB[``, ``TB[``…)
_GGF_MOVE = re.compile(r"(?<![A-Z])([BW])\[([^\]]*)\]")


def ggf_seconds(text: str) -> float:
    """A GGF time, ``[[[D.]H:]M:]S`` (NBoard's ``OsClock``: ``300``, ``5:00``,
    ``1:00:00``, ``1.12:00:00`` for a day and twelve hours), in seconds; a
    ``ValueError`` line if it is none."""
    t = text.strip()
    parts = t.split(":")
    days = 0.0
    try:
        if len(parts) > 1 and "." in parts[0]:  # D.H:M:S (a lone "2.5" is seconds)
            d, parts[0] = parts[0].split(".", 1)
            days = float(d)
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"GGF time {t[:20]!r}: expected [[[D.]H:]M:]S") from None
    if len(values) > 3 or any(not (math.isfinite(v) and v >= 0) for v in [days, *values]):
        raise ValueError(f"GGF time {t[:20]!r}: expected [[[D.]H:]M:]S, at least 0")
    values[0] += days * 24
    total = 0.0
    for v in values:
        total = total * 60 + v
    if not (math.isfinite(total) and total >= 0):
        raise ValueError(f"GGF time {t[:20]!r}: expected a number of seconds, at least 0")
    return total


def ggf_control(text: str) -> TimeControl:
    """A GGF clock, ``MAIN[/INCREMENT[/GRACE]]`` (``5:00``, ``15:00/10``, ``5:00//2:00``),
    as a :class:`TimeControl`: sudden death or Fischer; none for a main time of 0 (what
    NBoard writes for no clock). GGS's grace (time given once after a timeout) is not
    counted: banmen plans to finish within the main time."""
    fields = text.split("/")
    main = ggf_seconds(fields[0]) if fields[0].strip() else 0.0
    inc = ggf_seconds(fields[1]) if len(fields) > 1 and fields[1].strip() else 0.0
    if len(fields) > 2 and fields[2].strip():
        ggf_seconds(fields[2])  # (checked, not used)
    if main <= 0:
        return TimeControl()
    return TimeControl("fischer" if inc else "sudden", main=main, increment=inc)


def _move_seconds(text: str) -> float:
    """A move's time as a GGF move or NBoard's ``move`` gives it (missing: 0)."""
    if not text.strip():
        return 0.0
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"move time {text[:20]!r}: expected a number of seconds") from None
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"move time {text[:20]!r}: expected a number of seconds, at least 0")
    return seconds


def ggf_clocks(text: str) -> dict[int, Clock]:
    """Each side's clock at the end of a GGF game (as NBoard's ``COsGame`` counts it):
    ``TI`` for both sides (or ``TB`` and ``TW`` each), then every move's time
    (``B[F5/EVAL/TIME]``) charged to its player, increments added. Empty when the game
    names no clock (or a main time of 0). A ``ValueError`` line for a malformed one."""
    tags = parse_ggf(text).tags
    controls = {c: ggf_control(tags.get(k, tags.get("TI", "0"))) for c, k in
                ((BLACK, "TB"), (WHITE, "TW"))}  # fmt: skip
    if all(c.unlimited for c in controls.values()):
        return {}
    clocks = {c: Clock.start(tc) for c, tc in controls.items()}
    body = text[text.index("BO[") :] if "BO[" in text else text
    for colour, value in _GGF_MOVE.findall(body.split(";)", 1)[0]):
        fields = value.split("/")
        clocks[BLACK if colour == "B" else WHITE].spend(
            _move_seconds(fields[2] if len(fields) > 2 else "")
        )
    return clocks


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
