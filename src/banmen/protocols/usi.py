"""The USI protocol's mate search, so shogi GUIs can use banmen as a tsume-shogi engine.

A GUI (ShogiGUI, 将棋所, ShogiHome) starts ``banmen usi`` and talks over stdin/stdout, one
command a line. banmen is a mate solver, not a player: it answers ``go mate`` and nothing
else that searches.

==================================================  ==========================================
GUI → engine                                        engine → GUI
==================================================  ==========================================
``usi``                                             ``id name banmen …``, ``id author …``,
                                                    ``option …`` lines, ``usiok``
``isready``                                         ``readyok`` (the solver is loaded first)
``setoption name USI_Hash value 256``               (transposition table, MB)
``setoption name MaxNodes value N``                 (0: no node limit)
``usinewgame``, ``gameover …``, ``ponderhit``       (accepted, nothing to do)
``position sfen <sfen> [moves …]``                  (the problem; ``position startpos`` too)
``go mate <ms>`` / ``go mate infinite``             ``info nodes … nps … time …`` while it
                                                    thinks, then ``checkmate <moves>``,
                                                    ``checkmate nomate`` or
                                                    ``checkmate timeout``
``go`` (a game search)                              ``bestmove resign``
``stop``                                            (the search ends: its ``checkmate``
                                                    line follows)
``quit``                                            (the search is stopped; the engine exits)
==================================================  ==========================================

``checkmate <moves>`` is the composer's main line (the defender's longest resistance, useless
interpositions not counted); ``checkmate nomate`` is sent only when the solver proved that no
mate exists; whatever stops a search before it knows (the time, ``MaxNodes``, memory,
``stop``) is ``checkmate timeout``, so a GUI never reads an unproved answer. (USI's fourth
answer, ``checkmate notimplemented``, would tell the GUI that banmen cannot solve mates at
all, so it is never sent.)

Every ``go mate`` gets exactly one ``checkmate`` line, in the order the ``go`` commands came,
and always for the position the GUI sent:

* A search is over when its ``checkmate`` line is written: the line and the end of the
  search are one step (under the output lock), so a ``go mate`` sent right after it starts
  a new search at once.
* A ``go`` that arrives while a search runs (a GUI should send ``stop`` first) stops that
  search, which answers for its own position (``checkmate timeout`` unless it had just
  finished), and then is carried out.
* A rejected ``position`` leaves the session without a problem (the GUI meant to replace
  the old one): until a ``position`` is accepted, ``go mate`` is answered by an
  ``info string error: …`` line and ``checkmate timeout`` — never the old problem's answer,
  and never ``nomate``, which would claim a proof.

The search runs in a thread while commands go on being read, so ``stop`` and ``quit`` take
effect at once. A command that cannot be carried out (a bad SFEN, an illegal move, an unknown
command or option) is answered by one ``info string error: …`` line and otherwise changes
nothing (but for the problem, as above): nothing a GUI sends ends the session but ``quit``
and the end of the input. At the end of the input a search with a time or node limit is
given up to :data:`EOF_WAIT` seconds to answer (so ``printf '…go mate 5000\\n' | banmen usi``
prints its answer) and then stopped; ``go mate infinite`` is stopped at once. ``go mate``
times beyond :data:`MATE_MS_MAX` milliseconds are taken as ``infinite``: such a search runs
until ``stop``, ``quit`` or the end of the input.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Iterable
from typing import IO, Any

from banmen import __version__
from banmen.clients._lines import one_line, write_line
from banmen.games.shogi import tsume
from banmen.games.shogi.board import Board
from banmen.games.shogi.errors import ShogiError
from banmen.games.shogi.formats import STARTPOS
from banmen.numbers import HASH, Bounded, NumberError
from banmen.search.limits import Limit, StopFlag

__all__ = ["USISession", "main", "NAME", "AUTHOR"]

NAME = "banmen"
AUTHOR = "banmen developers"

#: the solver's signature (:func:`banmen.games.shogi.tsume.solve`); returns a TsumeResult
Solver = Callable[..., Any]

HASH_DEFAULT = 256
#: USI_Hash's range: at most half this machine's memory (banmen.numbers.HASH)
HASH_MIN, HASH_MAX = 1, int(HASH.hi)
#: GUIs keep spin values in 32-bit integers
NODES_MAX = 2**31 - 1
#: ``go mate`` times beyond this many milliseconds (24 days) are taken as ``infinite``
MATE_MS_MAX = 2**31 - 1
#: ``go mate``'s time (banmen.numbers): a whole number of ms, a longer one as the longest
_MATE_MS = Bounded("go mate time", 1, MATE_MS_MAX, integer=True, clamp=True, unit="ms")
#: seconds a bounded search is given to answer after the end of the input
EOF_WAIT = 60.0
#: seconds a stopped search is given to answer before it is given up (its answer is then
#: ``checkmate timeout``, sent for it; a solver polls its stop flag far more often)
STOP_GRACE = 10.0


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


class _Search:
    """One ``go mate``: its problem and bounds, and ``done`` once it has answered."""

    def __init__(self, sfen: str, limit: Limit, hash_mb: int) -> None:
        self.sfen = sfen
        self.limit = limit
        self.hash_mb = hash_mb
        self.stop = StopFlag()
        self.done = threading.Event()


class USISession:
    """One USI conversation: commands in through :meth:`handle`, responses out on ``out``.

    ``solver`` answers ``go mate`` (by default :func:`banmen.games.shogi.tsume.solve`,
    looked up at each search so tests may replace it). :meth:`handle` returns ``False``
    once ``quit`` was received; :meth:`wait` waits for a running search to answer.
    """

    def __init__(
        self,
        out: IO[str],
        *,
        solver: Solver | None = None,
        hash_mb: int = HASH_DEFAULT,
        name: str = NAME,
    ) -> None:
        self.out = out
        self.solver = solver
        self.hash_mb = hash_mb
        self.max_nodes = 0
        self.name = name
        #: the position ``go mate`` solves, as SFEN (after the moves of ``position``);
        #: ``None`` after a rejected ``position``, until one is accepted
        self.sfen: str | None = STARTPOS
        #: guards the output and :attr:`_search`: a search ends as it writes its answer
        self._lock = threading.Lock()
        self._search: _Search | None = None
        #: the solver's compiled code loads from the start, in the background: ``usi``
        #: answers at once, ``isready`` (and a ``go`` before it) waits for it
        self._loading: threading.Thread | None = None
        self._load_error: str | None = None
        if solver is None:
            self._loading = threading.Thread(target=self._load, name="usi-load", daemon=True)
            self._loading.start()
        self.commands: dict[str, Callable[[list[str]], bool | None]] = {
            "usi": self._usi,
            "isready": self._isready,
            "setoption": self._setoption,
            "usinewgame": lambda a: None,
            "position": self._position,
            "go": self._go,
            "stop": self._stop_command,
            "ponderhit": lambda a: None,
            "gameover": lambda a: None,
            "quit": self._quit,
        }

    # ---- output

    def _write(self, line: str) -> None:
        # the caller holds self._lock
        write_line(self.out, line)

    def send(self, line: str) -> None:
        """Write one line (from any thread); a closed output is ignored."""
        with self._lock:
            self._write(line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {one_line(message)}")

    def _send_for(self, search: _Search, line: str) -> None:
        """A line of ``search``'s, unless it was given up (another answered for it)."""
        with self._lock:
            if self._search is search:
                self._write(line)

    def _answer(self, search: _Search, answer: str, note: str = "") -> None:
        """Write ``search``'s ``checkmate`` line and end it, in one step (nothing if it
        already has an answer)."""
        with self._lock:
            if self._search is search:
                if note:
                    self._write(f"info string error: {one_line(note)}")
                self._write(answer)
                self._search = None
        search.done.set()

    # ---- input

    def handle(self, line: str) -> bool:
        """Carry out one command line; ``False`` once the session should end."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        command = self.commands.get(cmd)
        if command is None:
            self.error(
                f"unknown command {one_line(line)[:60]!r}: expected usi, isready, setoption, "
                "usinewgame, position, go mate, stop or quit"
            )
            return True
        try:
            return command(args) is not False
        except Exception as e:  # never let a command end the session
            self.error(f"internal error in {cmd}: {_describe(e)}")
            return True

    @property
    def searching(self) -> bool:
        """A ``go mate`` has not been answered yet."""
        with self._lock:
            return self._search is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a running search to send its ``checkmate`` line; ``True`` when no search
        is running any more."""
        with self._lock:
            search = self._search
        if search is not None:
            search.done.wait(timeout)
        return not self.searching

    def finish(self) -> None:
        """The end of the input: give a bounded search :data:`EOF_WAIT` seconds to answer,
        stop an unbounded one at once."""
        with self._lock:
            search = self._search
        if search is None:
            return
        if search.limit.unbounded:
            self._end(search)
        elif not search.done.wait(EOF_WAIT):
            self._end(search)

    def stop(self) -> None:
        """Ask the running search (if any) to stop; it still sends its answer."""
        with self._lock:
            search = self._search
        if search is not None:
            search.stop.set()

    def _end(self, search: _Search) -> None:
        """Stop ``search`` and wait for its answer; after :data:`STOP_GRACE` seconds without
        one, answer ``checkmate timeout`` for it (its late lines are then dropped)."""
        search.stop.set()
        if not search.done.wait(STOP_GRACE):
            self._answer(search, "checkmate timeout", "the search did not stop: given up")

    # ---- commands

    def _usi(self, args: list[str]) -> None:
        self.send(f"id name {self.name} {__version__}")
        self.send(f"id author {AUTHOR}")
        self.send(
            f"option name USI_Hash type spin default {HASH_DEFAULT} min {HASH_MIN} max {HASH_MAX}"
        )
        self.send(f"option name MaxNodes type spin default 0 min 0 max {NODES_MAX}")
        self.send("usiok")

    def _load(self) -> None:
        try:
            tsume.warm_up()
        except Exception as e:
            self._load_error = _describe(e)

    def _loaded(self) -> None:
        """Wait until the solver's code is loaded (compiled the first time ever): no
        ``readyok`` and no ``go``'s clock before it."""
        if self._loading is not None:
            self._loading.join()
            self._loading = None
            if self._load_error is not None:
                self.error(f"the solver failed to load: {self._load_error}")

    def _isready(self, args: list[str]) -> None:
        self._loaded()
        self.send("readyok")

    def _setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name" or len(args) < 2:
            self.error("setoption needs 'name <id> [value <x>]'")
            return
        if "value" in args:
            at = args.index("value")
            name, value = " ".join(args[1:at]), " ".join(args[at + 1 :])
        else:
            name, value = " ".join(args[1:]), ""
        key = name.lower()
        if key == "usi_hash":
            self.hash_mb = self._spin(name, value, HASH_MIN, HASH_MAX, self.hash_mb)
        elif key == "maxnodes":
            self.max_nodes = self._spin(name, value, 0, NODES_MAX, self.max_nodes)
        elif key == "usi_ponder":
            pass  # GUIs send it to every engine; there is nothing to ponder
        else:
            self.error(f"unknown option {name!r}: expected USI_Hash or MaxNodes")

    def _spin(self, name: str, value: str, low: int, high: int, old: int) -> int:
        try:
            return int(Bounded(name, low, high, integer=True)(value))
        except NumberError as e:
            self.error(str(e))
            return old

    def _position(self, args: list[str]) -> None:
        try:
            board = self._board(args)
        except ValueError as e:  # ShogiError; any other ValueError is bad input as well
            self.sfen = None  # the GUI meant to replace the problem: never solve the old one
            self.error(f"{e} (no problem is set until a position is accepted)")
            return
        self.sfen = board.sfen()

    @staticmethod
    def _board(args: list[str]) -> Board:
        """The board ``position`` describes; :class:`ShogiError` if it is bad."""
        return Board.from_usi(" ".join(args))

    def _go(self, args: list[str]) -> None:
        # a go while a search runs: that search answers first (for its own position)
        with self._lock:
            running = self._search
        if running is not None:
            self._end(running)
        if "mate" not in args:
            self.error("only 'go mate' is supported: banmen solves mate problems")
            self.send("bestmove resign")
            return
        at = args.index("mate")
        value = args[at + 1] if at + 1 < len(args) else "infinite"
        time: float | None = None
        if value != "infinite":
            try:  # (so many digits: as good as infinite)
                long = value.isdigit() and len(value.lstrip("0")) > 18
                ms = MATE_MS_MAX if long else _MATE_MS(value)
            except NumberError:
                self.error(
                    f"go mate needs a time in milliseconds or 'infinite', got {value[:30]!r}"
                )
                self.send("checkmate timeout")
                return
            if ms < MATE_MS_MAX:  # longer is as good as infinite
                time = ms / 1000  # (and a timer cannot wait that long)
        if self.sfen is None:
            self.error("go mate: no problem to solve: the last position was rejected")
            self.send("checkmate timeout")
            return
        self._loaded()  # (a GUI that skipped isready: the solve's clock starts after)
        search = _Search(self.sfen, Limit(time=time, nodes=self.max_nodes or None), self.hash_mb)
        with self._lock:
            self._search = search
        try:
            threading.Thread(
                target=self._run, args=(search,), name="usi-go-mate", daemon=True
            ).start()
        except RuntimeError as e:  # no thread to be had: the go is still answered
            self._answer(search, "checkmate timeout", f"the search could not start: {e}")

    def _stop_command(self, args: list[str]) -> None:
        self.stop()

    def _quit(self, args: list[str]) -> bool:
        with self._lock:
            search = self._search
        if search is not None:
            self._end(search)
        return False

    # ---- the search thread

    def _progress(self, search: _Search, info: dict[str, Any]) -> None:
        try:
            nodes = int(info.get("nodes", 0))
            seconds = float(info.get("seconds", 0.0))
            nps = int(info.get("nps", nodes / seconds if seconds > 0 else 0))
        except (TypeError, ValueError, OverflowError):
            return
        self._send_for(search, f"info nodes {nodes} nps {nps} time {int(seconds * 1000)}")

    def _run(self, search: _Search) -> None:
        answer = "checkmate timeout"
        try:
            solver = self.solver if self.solver is not None else tsume.solve
            r = solver(
                search.sfen,
                search.limit,
                stop=search.stop,
                progress=lambda info: self._progress(search, info),
                hash_mb=search.hash_mb,
            )
            nps = int(r.nodes / r.seconds) if r.seconds > 0 else 0
            self._send_for(search, f"info nodes {r.nodes} nps {nps} time {int(r.seconds * 1000)}")
            if r.status == "mate" and r.pv:
                answer = "checkmate " + " ".join(r.pv)
                shortest = "shortest" if r.shortest else "not proved shortest"
                self._send_for(search, f"info string mate in {r.length} ({shortest})")
            elif r.status == "no_mate":
                answer = "checkmate nomate"
                self._send_for(search, "info string no mate (proved)")
            else:
                self._send_for(search, f"info string unknown: {r.reason or 'stopped'}")
        except ShogiError as e:
            self._send_for(search, f"info string error: {one_line(e)}")
        except Exception as e:  # the GUI still gets its answer
            self._send_for(
                search, f"info string error: the solver failed: {one_line(_describe(e))}"
            )
        finally:
            self._answer(search, answer)


def main(
    stdin: Iterable[str] | None = None,
    stdout: IO[str] | None = None,
    *,
    hash_mb: int = HASH_DEFAULT,
    solver: Solver | None = None,
) -> None:
    """Serve USI on ``stdin``/``stdout`` (the process's by default) until ``quit`` or the
    end of the input."""
    if stdin is None:
        stdin = sys.stdin
        if isinstance(stdin, io.TextIOWrapper):  # a GUI on Windows may send CRLF, or cp932
            stdin.reconfigure(errors="replace")
    if stdout is None:
        stdout = sys.stdout
        if isinstance(stdout, io.TextIOWrapper):  # LF line ends on every system
            stdout.reconfigure(newline="\n")
    session = USISession(stdout, solver=solver, hash_mb=hash_mb)
    for line in stdin:
        if not session.handle(line):
            return
    session.finish()
