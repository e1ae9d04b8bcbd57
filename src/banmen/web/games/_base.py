"""The web adapter contract: what the web sessions need to know about each game.

A :class:`GameSession` (see :mod:`banmen.web.session`) is the same for every game: it
holds a board with python-chess style ``push`` / ``pop`` / ``move_stack`` / ``turn``,
validates and applies moves, runs the CPU in the engine pool, saves and broadcasts. What
differs between games is small and lives in a :class:`WebGame`:

- how a new game starts (``new_board``: Mattix deals from a seed and a size, Othello
  has the standard start) and how a saved board is read back (``board_from_record``);
- how a move is read (``parse_move``, with the board's one-line error on bad input),
  and which moves are passes (``is_pass``: undo never stops at a forced pass);
- how the position is described to the page (``describe``: the game's own part of the
  ``state`` message, see :meth:`banmen.web.session.GameSession.view`);
- how a CPU result reads (``verdict``), what the sides are called, which levels exist and
  which messages the socket takes (``rules``);
- optionally, ``load``: a new game from pasted text (Othello transcripts and board strings,
  Go SGF records), ``sgf``: the game as an SGF record (Go), ``act``: the game's own
  messages (Go's scoring: ``score``, ``toggle``, ``done``), and ``unwind``: undo steps
  that are not moves (a resignation, the counting of a Go game).

:func:`banmen.web.games.make_games` builds one adapter per game the app serves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from banmen.engine import GameBoard, Result
from banmen.web.levels import HUMAN, Level
from banmen.web.protocol import GameRules, NewGame, ProtocolError

__all__ = ["Defaults", "WebGame", "STOPPED_BY"]

#: the game's board type (its own ``Board``; Go: the game record ``Game``)
B = TypeVar("B", bound=GameBoard)


@dataclass(frozen=True)
class Defaults:
    """Settings of a game nobody has configured yet."""

    players: tuple[str, str] = (HUMAN, "normal")
    delay_ms: int = 700


#: Why a search ended (``Result.stopped_by``), in words: in the verdicts, and on the game
#: pages, which get it rendered into the page (:mod:`banmen.web.pages`).
STOPPED_BY = {
    "exact": "solved",
    "depth": "depth-limited search",
    "time": "time limit",
    "nodes": "node limit",
    "stop": "Stop pressed",
    "game_over": "game over",
    "forced": "forced",
    "random": "random",
}


class WebGame(ABC, Generic[B]):
    """One game as the web sessions see it. Boards are the game's own ``Board`` class."""

    #: the game's registry name (``banmen.games.GAMES``), store column and socket path
    name: str
    title: str
    #: how the page and error messages name side 1 and side 2
    sides: tuple[str, str]
    defaults: Defaults = Defaults()

    def __init__(self, levels: dict[str, Level], rules: GameRules) -> None:
        self.levels = levels
        self.rules = rules

    def side_name(self, side: int) -> str:
        return self.sides[side - 1]

    @abstractmethod
    def new_board(self, msg: NewGame, current: B | None) -> tuple[B, int | None]:
        """The board of a new game asked for by ``msg`` (``current``: the board of the
        client's present game, whose options carry over) and its seed, if it has one."""

    @abstractmethod
    def board_from_record(self, data: Any) -> B:
        """The board saved as ``data`` (``board.to_dict()``); raises ``ValueError``."""

    #: the game's own error class: what a board raises for a bad or illegal move
    errors: type[Exception] = ValueError

    def parse_move(self, board: B, text: str) -> int:
        """The legal move ``text`` names; raises :class:`ProtocolError` (the board's one-line
        message) if it is not one."""
        try:
            move: int = board.parse_move(text)
        except self.errors as e:
            raise ProtocolError(str(e)) from None
        return move

    def is_pass(self, move: int) -> bool:
        """Whether ``move`` is a pass (legal only when the mover has nothing else)."""
        return False

    #: what to paste for :meth:`load`, for its message when nothing was (None: this game
    #: loads nothing from text)
    load_hint: str | None = None

    def load(self, text: str) -> B:
        """A board from pasted text; raises :class:`ProtocolError` (the board's one-line
        message) if it cannot be read."""
        if self.load_hint is None:
            raise ProtocolError(f"{self.title} games cannot be loaded from text")
        if not text.strip():
            raise ProtocolError(f"nothing to load: {self.load_hint}")
        try:
            return self.read(text)
        except self.errors as e:
            raise ProtocolError(str(e)) from None

    def read(self, text: str) -> B:
        """The board in pasted text (not blank) for :meth:`load`, in a game with a
        :attr:`load_hint`; raises the game's :attr:`errors` if it cannot be read."""
        raise NotImplementedError

    def act(self, board: B, kind: str, square: str | None) -> None:
        """Carry out one of the game's own messages (:attr:`GameRules.actions`) on
        ``board``; raises :class:`ProtocolError` and changes nothing if it cannot."""
        raise ProtocolError(f"{self.title} has no {kind!r} message")

    def over_message(self, board: B) -> str:
        """Why a move is refused once ``board.is_game_over()``."""
        return "the game is over: start a new game or undo"

    def can_unwind(self, board: B) -> bool:
        """Whether undo has a step to take back that is not a move (see :meth:`unwind`)."""
        return False

    def unwind(self, board: B) -> bool:
        """Take back the latest step that is not a move (Go: the recorded result, the
        counting, a resignation); only called if :meth:`can_unwind`. Returns whether the
        undo goes on to the last human turn if that leaves a CPU to move against a human
        (after a CPU's resignation: it would only resign again)."""
        raise ProtocolError("nothing to undo")

    def sgf(self, record: Mapping[str, Any], date: str | None = None) -> str | None:
        """The saved game ``record`` (a session record) as an SGF file, or ``None`` if the
        game has no SGF; raises ``ValueError`` if the record cannot be read."""
        return None

    @abstractmethod
    def describe(self, board: B, start: B) -> dict[str, Any]:
        """The game's own fields of the ``state`` message (``start``: the position the move
        stack starts from). Must include ``size``, ``legal``, ``history`` and ``last``."""

    @abstractmethod
    def verdict(self, player: int, result: Result) -> str:
        """One line on what a CPU result by ``player`` says about the game's outcome."""
