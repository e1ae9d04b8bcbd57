"""The NBoard protocol (version 2), so Othello GUIs can use banmen as their engine.

The GUI starts ``banmen nboard`` and talks over stdin/stdout, one command a line:

=========================  ==========================================================
GUI → engine               engine → GUI
=========================  ==========================================================
``nboard 2``               ``set myname banmen``
``set depth N``            (midgame depth; the endgame is solved exactly near the end)
``set game <GGF>``         (the position is the end of that game)
``set contempt N``         (accepted, not used)
``move f5[/eval/time]``    (a move was played)
``go``                     ``status …``, ``nodestats N S``, ``=== f5/eval/time``
``hint N``                 ``search f5 eval 0 depth`` for the N best moves, ``status``
``ping N``                 ``pong N`` (once everything before it is done)
``learn``                  ``learned``
=========================  ==========================================================

Evaluations are in discs from the side to move's view. A command that cannot be carried
out (bad GGF, illegal move) changes nothing and is answered by one ``status error: …``
line, which GUIs show to the user.
"""

from __future__ import annotations

import sys
import time
from typing import IO

from banmen.games.othello.board import PASS, Board, OthelloError
from banmen.games.othello.ggf import parse as parse_ggf
from banmen.search.limits import Limit

__all__ = ["NBoardSession", "main"]

NAME = "banmen"


class NBoardSession:
    def __init__(self, out: IO[str], depth: int = 8) -> None:
        from banmen.games.othello.engine import OthelloEngine

        self.out = out
        self.board = Board()
        self.depth = depth
        self.engine = OthelloEngine(Limit(depth=depth))

    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def error(self, message: str) -> None:
        self.send(f"status error: {message}")

    def handle(self, line: str) -> bool:
        """Carry out one command; False once the session should end."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        try:
            if cmd == "nboard":
                if args and args[0] != "2":
                    self.error(f"protocol version {args[0]} is not supported: expected 2")
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
                self.send(f"pong {args[0] if args else ''}".rstrip())
            elif cmd == "learn":
                self.send("learned")
            elif cmd in ("quit", "exit"):
                return False
            elif cmd == "analyze":
                self.error("analyze is not supported")
            else:
                self.error(f"unknown command {cmd!r}: expected nboard, set, move, go, hint, ping")
        except OthelloError as e:
            self.error(str(e))
        return True

    def _set(self, args: list[str], line: str) -> None:
        if not args:
            self.error("set needs a name: depth, game or contempt")
            return
        what = args[0]
        if what == "depth":
            if len(args) < 2 or not args[1].isdigit() or not 1 <= int(args[1]) <= 60:
                self.error(f"set depth needs a number from 1 to 60, got {' '.join(args[1:])!r}")
                return
            self.depth = int(args[1])
        elif what == "game":
            text = line.split("game", 1)[1].strip()
            self.board = parse_ggf(text).board()  # raises, and leaves the old board, if bad
        elif what == "contempt":
            pass
        else:
            self.error(f"unknown setting {what!r}: expected depth, game or contempt")

    def _move(self, args: list[str]) -> None:
        if not args:
            self.error("move needs a square, like 'move f5'")
            return
        text = args[0].split("/")[0]
        self.board.push_name(text)

    def _limit(self) -> Limit:
        return Limit(depth=self.depth)

    def _go(self) -> None:
        if self.board.is_game_over():
            self.error("the game is over: there is no move to make")
            return
        self.send(f"status {NAME} is thinking")
        t0 = time.perf_counter()
        r = self.engine.think(self.board, self._limit())
        seconds = time.perf_counter() - t0
        self.send(f"nodestats {r.nodes} {seconds:.2f}")
        move = "PA" if r.move in (None, "pass") else r.move
        ev = 0.0 if r.score is None else float(r.score)
        self.send(f"=== {move}/{ev:.2f}/{seconds:.1f}")
        self.send("status")

    def _hint(self, args: list[str]) -> None:
        n = int(args[0]) if args and args[0].isdigit() and int(args[0]) > 0 else 1
        if self.board.is_game_over():
            self.send("status")
            return
        self.send(f"status {NAME} is thinking")
        scored = []
        for mv in self.board.legal_moves:
            if mv == PASS:
                scored.append((0.0, "PA", 0))
                continue
            child = self.board.copy()
            child.push(mv)
            r = self.engine.think(child, Limit(depth=max(1, self.depth - 1)))
            value = 0.0 if r.score is None else -float(r.score)
            if r.move is None:  # the move ended the game
                value = float(child.final_margin(self.board.turn))
            scored.append((value, self.board.move_name(mv), r.depth + 1))
        scored.sort(key=lambda x: -x[0])
        for value, name, depth in scored[:n]:
            self.send(f"search {name} {value:.2f} 0 {depth}")
        self.send("status")


def main(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    session = NBoardSession(stdout or sys.stdout)
    for line in stdin or sys.stdin:
        if not session.handle(line.strip()):
            break
