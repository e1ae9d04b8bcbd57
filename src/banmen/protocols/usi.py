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
``stop``) is ``checkmate timeout``, so a GUI never reads an unproved answer.

The search runs in a thread while commands go on being read, so ``stop`` and ``quit`` take
effect at once. A command that cannot be carried out (a bad SFEN, an illegal move, an unknown
command or option) changes nothing and is answered by one ``info string error: …`` line:
nothing a GUI sends ends the session but ``quit`` and the end of the input. At the end of the
input a search with a time or node limit is let finish (so ``printf '…go mate 5000\\n' |
banmen usi`` prints its answer) and an unbounded one is stopped.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Iterable
from typing import IO, Any

from banmen import __version__
from banmen.games.shogi.notation import parse_usi_move
from banmen.games.shogi.sfen import STARTPOS, ShogiError, parse_sfen
from banmen.search.limits import Limit, StopFlag

__all__ = ["USISession", "main", "NAME", "AUTHOR"]

NAME = "banmen"
AUTHOR = "banmen developers"

#: the solver's signature (:func:`banmen.games.shogi.tsume.solve`); returns a TsumeResult
Solver = Callable[..., Any]

HASH_DEFAULT = 256
HASH_MIN, HASH_MAX = 1, 65536
#: GUIs keep spin values in 32-bit integers
NODES_MAX = 2**31 - 1
#: ``go mate`` times beyond this many milliseconds (24 days) are taken as ``infinite``
MATE_MS_MAX = 2**31 - 1


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


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
        #: the position ``go mate`` solves, as SFEN (after the moves of ``position``)
        self.sfen = STARTPOS
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop: StopFlag | None = None
        self._limit: Limit | None = None
        self._warm = False
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

    def send(self, line: str) -> None:
        """Write one line (from any thread); a closed output is ignored."""
        with self._lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):  # the GUI went away
                pass

    def error(self, message: str) -> None:
        self.send(f"info string error: {_one_line(message)}")

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
                f"unknown command {_one_line(line)[:60]!r}: expected usi, isready, setoption, "
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
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a running search to send its ``checkmate`` line; ``True`` when no search
        is running any more."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.searching

    def finish(self) -> None:
        """The end of the input: let a bounded search answer, stop an unbounded one."""
        limit = self._limit
        if self.searching and (limit is None or limit.unbounded):
            self.stop()
        self.wait()

    def stop(self) -> None:
        """Ask the running search (if any) to stop; it still sends its answer."""
        if self._stop is not None:
            self._stop.set()

    # ---- commands

    def _usi(self, args: list[str]) -> None:
        self.send(f"id name {self.name} {__version__}")
        self.send(f"id author {AUTHOR}")
        self.send(
            f"option name USI_Hash type spin default {HASH_DEFAULT} min {HASH_MIN} max {HASH_MAX}"
        )
        self.send(f"option name MaxNodes type spin default 0 min 0 max {NODES_MAX}")
        self.send("usiok")

    def _isready(self, args: list[str]) -> None:
        if not self._warm and self.solver is None:
            # a solver with compiled code compiles (or loads) it now, not in the first go
            from banmen.games.shogi import tsume

            warm_up = getattr(tsume, "warm_up", None)
            if callable(warm_up):
                try:
                    warm_up()
                except Exception as e:
                    self.error(f"the solver failed to load: {_describe(e)}")
        self._warm = True
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
        if not (value.isascii() and value.isdigit()) or not low <= int(value) <= high:
            self.error(f"{name} must be an integer from {low} to {high}, got {value[:30]!r}")
            return old
        return int(value)

    def _position(self, args: list[str]) -> None:
        try:
            board = self._board(args)
        except ValueError as e:  # ShogiError; any other ValueError is bad input as well
            self.error(f"{e} (the position is unchanged)")
            return
        self.sfen = str(board.sfen())

    @staticmethod
    def _board(args: list[str]) -> Any:
        """The cshogi board ``position`` describes; :class:`ShogiError` if it is bad."""
        if not args or args[0] not in ("sfen", "startpos"):
            raise ShogiError("position needs 'sfen <sfen> [moves ...]' or 'startpos [moves ...]'")
        at = args.index("moves") if "moves" in args else len(args)
        if args[0] == "startpos":
            if at != 1:
                raise ShogiError(f"unexpected {' '.join(args[1:at])[:40]!r} after startpos")
            sfen = STARTPOS
        else:
            sfen = " ".join(args[1:at])
        board = parse_sfen(sfen)
        for ply, text in enumerate(args[at + 1 :], start=1):
            try:
                board.push(parse_usi_move(board, text))
            except ShogiError as e:
                raise ShogiError(f"move {ply}: {e}") from None
        return board

    def _go(self, args: list[str]) -> None:
        if "mate" not in args:
            self.error("only 'go mate' is supported: banmen solves mate problems")
            self.send("bestmove resign")
            return
        if self.searching:
            self.error("a search is running: send stop first")
            return
        at = args.index("mate")
        value = args[at + 1] if at + 1 < len(args) else "infinite"
        time: float | None = None
        if value != "infinite":
            if not (value.isascii() and value.isdigit()) or int(value) < 1:
                self.error(
                    f"go mate needs a time in milliseconds or 'infinite', got {value[:30]!r}"
                )
                self.send("checkmate timeout")
                return
            if int(value) <= MATE_MS_MAX:  # longer is as good as infinite (and a timer
                time = int(value) / 1000  # cannot wait that long)
        limit = Limit(time=time, nodes=self.max_nodes or None)
        self._limit = limit
        self._stop = StopFlag()
        self._thread = threading.Thread(
            target=self._search,
            args=(self.sfen, limit, self._stop, self.hash_mb),
            name="usi-go-mate",
            daemon=True,
        )
        self._thread.start()

    def _stop_command(self, args: list[str]) -> None:
        self.stop()

    def _quit(self, args: list[str]) -> bool:
        self.stop()
        self.wait(5.0)
        return False

    # ---- the search thread

    def _progress(self, info: dict[str, Any]) -> None:
        try:
            nodes = int(info.get("nodes", 0))
            seconds = float(info.get("seconds", 0.0))
            nps = int(info.get("nps", nodes / seconds if seconds > 0 else 0))
        except (TypeError, ValueError):
            return
        self.send(f"info nodes {nodes} nps {nps} time {int(seconds * 1000)}")

    def _search(self, sfen: str, limit: Limit, stop: StopFlag, hash_mb: int) -> None:
        answer = "checkmate timeout"
        try:
            solver = self.solver
            if solver is None:
                from banmen.games.shogi import tsume

                solver = tsume.solve
            r = solver(sfen, limit, stop=stop, progress=self._progress, hash_mb=hash_mb)
            nps = int(r.nodes / r.seconds) if r.seconds > 0 else 0
            self.send(f"info nodes {r.nodes} nps {nps} time {int(r.seconds * 1000)}")
            if r.status == "mate" and r.pv:
                answer = "checkmate " + " ".join(r.pv)
                shortest = "shortest" if r.shortest else "not proved shortest"
                self.send(f"info string mate in {len(r.pv)} ({shortest})")
            elif r.status == "no_mate":
                answer = "checkmate nomate"
                self.send("info string no mate (proved)")
            else:
                self.send(f"info string unknown: {r.reason or 'stopped'}")
        except ShogiError as e:
            self.error(str(e))
        except Exception as e:  # the GUI still gets its answer
            self.error(f"the solver failed: {_describe(e)}")
        finally:
            self.send(answer)


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
