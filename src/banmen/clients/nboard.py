"""An external Othello engine spoken to over the NBoard protocol (version 2).

``NBoardEngine("edax -nboard", depth=8)`` starts the program and plays through it: for each
move the whole game is sent as GGF (``set game``), a ``ping``/``pong`` makes sure the
engine has read it, and ``go`` is answered by ``=== MOVE[/EVAL[/SECONDS]]`` (the form the
protocol's text gives; its example session, and Edax, separate the fields by spaces:
``=== f6 0.00 0.0``, which is read too). The player spec
``nboard:COMMAND`` (optionally ``nboard:depth=N COMMAND``) builds one for the arena.

NBoard has no time control and no ``stop``: the engine searches to its depth. A move is
given up, and the process ended with its group, at its allowance
(:func:`banmen.engine.allowance`: a minute with no time limit), or
:data:`~banmen.clients._lines.STOP_GRACE` after the caller asked the search to stop
(``banmen nboard --max-move-time``, a web page's stop).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from banmen.clients._lines import START_SECONDS, EngineClient, one_line
from banmen.engine import EngineFailure, Request, Result

if TYPE_CHECKING:  # the Othello package offers this engine: it imports this module
    from banmen.games.othello.board import Board

__all__ = ["NBoardEngine", "NBoardError"]


class NBoardError(EngineFailure):
    """The engine process failed, timed out or broke the protocol."""


class NBoardEngine(EngineClient["Board"]):
    """An NBoard engine as a banmen :class:`~banmen.engine.Engine` for Othello boards."""

    error = NBoardError
    ends_at_game_over = True

    def __init__(self, command: str | list[str], depth: int = 8, name: str = "",
                 timeout: float = START_SECONDS) -> None:  # fmt: skip
        super().__init__(command, name, timeout)
        if not self.argv:
            raise ValueError("nboard needs a command, like 'nboard:edax -nboard'")
        self.name = one_line(name or f"nboard:{' '.join(self.argv)}")
        self.depth = depth
        self._ping = 0
        #: the name the engine gives itself (``set myname``), once started
        self.engine_name = ""

    def _handshake(self) -> None:
        self._send("nboard 2")
        self._send(f"set depth {self.depth}")
        self._sync()

    def _answer(self, wanted: Callable[[str], bool], what: str) -> str:
        """The first line ``wanted`` (others are skipped) within the move's allowance, or
        :attr:`timeout` outside a move."""
        while not wanted(line := self._line(what=what)):
            if line.startswith("set myname "):
                self.engine_name = line[len("set myname ") :].strip()
        return line

    def _sync(self) -> None:
        self._ping += 1
        self._send(f"ping {self._ping}")
        self._answer(lambda line: line.split()[:2] == ["pong", str(self._ping)],
                     f"no pong {self._ping}")  # fmt: skip

    def choose(self, board: Board, request: Request) -> Result:
        """Send the game, ask for a move (``limit`` is not sent: the engine searches to
        its depth)."""
        self._begin(request)
        try:
            self._start()
            self._send(f"set game {board.to_ggf()}")
            self._sync()
            self._send("go")
            answer = self._answer(lambda line: line.startswith("==="), "no move")[3:].strip()
        finally:
            self._end()
        move_text, rest = _fields(answer)
        try:
            move = board.parse_move("pass" if move_text.upper() == "PA" else move_text)
        except ValueError as e:
            raise NBoardError(f"{self.name} answered {answer!r}: {e}") from None
        score = None
        if rest:
            try:
                score = round(float(rest[0]))
            except ValueError:
                score = None
        return Result(board.move_name(move), score=score, depth=self.depth,
                      seconds=request.elapsed(), stopped_by="depth")  # fmt: skip


def _fields(answer: str) -> tuple[str, list[str]]:
    """The move and the other fields of a ``===`` answer, whether they are separated by
    ``/`` or by spaces (``f6/0.00/0.0``, ``f6 0.00 0.0``, ``f6``)."""
    parts = answer.replace("/", " ").split()
    return (parts[0], parts[1:]) if parts else ("", [])
