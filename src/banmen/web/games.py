"""What the web sessions need to know about each game: one small adapter per game.

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
- optionally, ``load``: a new game from pasted text (Othello transcripts and board strings).

:func:`make_games` builds one adapter per game the app serves.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from banmen.engine import Result
from banmen.games import mattix, othello
from banmen.web.levels import DEFAULT_LEVELS, HUMAN, OTHELLO_LEVELS, Level, make_levels
from banmen.web.protocol import GameRules, NewGame, ProtocolError

__all__ = ["Defaults", "WebGame", "MattixGame", "OthelloGame", "make_games", "STOPPED_BY"]


@dataclass(frozen=True)
class Defaults:
    """Settings of a game nobody has configured yet."""

    players: tuple[str, str] = (HUMAN, "normal")
    delay_ms: int = 700


#: Why a non-exact search ended, in words.
STOPPED_BY = {
    "depth": "depth-limited search",
    "time": "time limit",
    "nodes": "node limit",
    "stop": "Stop pressed",
}


class WebGame(ABC):
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
    def new_board(self, msg: NewGame, current: Any | None) -> tuple[Any, int | None]:
        """The board of a new game asked for by ``msg`` (``current``: the board of the
        client's present game, whose options carry over) and its seed, if it has one."""

    @abstractmethod
    def board_from_record(self, data: Any) -> Any:
        """The board saved as ``data`` (``board.to_dict()``); raises ``ValueError``."""

    @abstractmethod
    def parse_move(self, board: Any, text: str) -> int:
        """The legal move ``text`` names; raises :class:`ProtocolError` (the board's one-line
        message) if it is not one."""

    def is_pass(self, move: int) -> bool:
        """Whether ``move`` is a pass (legal only when the mover has nothing else)."""
        return False

    def load(self, text: str) -> Any:
        """A board from pasted text; raises :class:`ProtocolError` if it cannot be read."""
        raise ProtocolError(f"{self.title} games cannot be loaded from text")

    @abstractmethod
    def describe(self, board: Any, start: Any) -> dict[str, Any]:
        """The game's own fields of the ``state`` message (``start``: the position the move
        stack starts from). Must include ``size``, ``legal``, ``history`` and ``last``."""

    @abstractmethod
    def verdict(self, player: int, result: Result) -> str:
        """One line on what a CPU result by ``player`` says about the game's outcome."""


# --------------------------------------------------------------------------- Mattix


class MattixGame(WebGame):
    name = "mattix"
    title = "Mattix"
    sides = ("player 1", "player 2")
    default_size = 6

    def __init__(self, extra_levels: Mapping[str, str] | None = None) -> None:
        levels = make_levels(extra_levels, DEFAULT_LEVELS)
        super().__init__(levels, GameRules(levels, sizes=mattix.SIZES, seeds=True, example="c2"))

    def new_board(self, msg: NewGame, current: Any | None) -> tuple[Any, int | None]:
        size = msg.size or (current.size if current is not None else self.default_size)
        # Short random seeds are easy to read out and type in again to replay a deal.
        seed = msg.seed if msg.seed is not None else secrets.randbelow(10**9)
        return mattix.Board.from_seed(seed, size), seed

    def board_from_record(self, data: Any) -> Any:
        return mattix.Board.from_dict(data)

    def parse_move(self, board: Any, text: str) -> int:
        try:
            sq: int = board.parse_move(text)
        except mattix.MattixError as e:
            raise ProtocolError(str(e)) from None
        return sq

    def describe(self, board: Any, start: Any) -> dict[str, Any]:
        history = []
        chip = start.chip
        turn = start.turn
        for k, sq in enumerate(board.move_stack):
            history.append(
                {
                    "ply": k + 1,
                    "player": turn,
                    "square": board.move_name(sq),
                    "sq": sq,
                    "from": chip,
                    "value": start.cells[sq],
                }
            )
            chip, turn = sq, 3 - turn
        return {
            "size": board.size,
            "cells": list(board.cells),
            "chip": board.chip,
            "scores": list(board.scores),
            "line": board.line(),
            "legal": [] if board.is_game_over() else board.legal_moves,
            "history": history,
            "last": history[-1] if history else None,
        }

    def verdict(self, player: int, result: Result) -> str:
        if result.score is None:
            return ""
        s = result.score
        what = "0 (a draw)" if s == 0 else f"+{abs(s)} for player {player if s > 0 else 3 - player}"
        if result.exact:
            return f"proven final margin: {what}"
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return f"estimated final margin: {what} (not proven: {why})"


# --------------------------------------------------------------------------- Othello


def _is_board_string(text: str) -> bool:
    """Board strings are squares (X, O, -, ...) and a side; transcripts have digits."""
    return not any(ch.isdigit() for ch in text)


class OthelloGame(WebGame):
    name = "othello"
    title = "Othello"
    sides = ("Black", "White")

    def __init__(self, extra_levels: Mapping[str, str] | None = None) -> None:
        levels = make_levels(extra_levels, OTHELLO_LEVELS)
        super().__init__(levels, GameRules(levels, load=True, example="f5"))

    def new_board(self, msg: NewGame, current: Any | None) -> tuple[Any, int | None]:
        return othello.Board(), None

    def board_from_record(self, data: Any) -> Any:
        return othello.Board.from_dict(data)

    def parse_move(self, board: Any, text: str) -> int:
        try:
            sq: int = board.parse_move(text)
        except othello.OthelloError as e:
            raise ProtocolError(str(e)) from None
        return sq

    def is_pass(self, move: int) -> bool:
        return move == othello.PASS

    def load(self, text: str) -> Any:
        if not text.strip():
            raise ProtocolError(
                "nothing to load: paste a transcript like f5d6c3 or a board string "
                "(64 squares X, O or - and the side to move, X or O)"
            )
        try:
            if _is_board_string(text):
                return othello.Board.from_string(text)
            return othello.Board.from_transcript(text)
        except othello.OthelloError as e:
            raise ProtocolError(str(e)) from None

    def describe(self, board: Any, start: Any) -> dict[str, Any]:
        black, white = board.black, board.white
        cells = [1 if black >> i & 1 else 2 if white >> i & 1 else 0 for i in range(64)]
        history = []
        # Replay the moves on bare bitboards (no legality checks: they were checked when
        # played) to learn how many discs each one turned.
        b, w, turn = start.black, start.white, start.turn
        flipped = 0
        for k, mv in enumerate(board.move_stack):
            flipped = 0 if mv == othello.PASS else othello.Board(b, w, turn).flips(mv)
            history.append(
                {
                    "ply": k + 1,
                    "player": turn,
                    "square": othello.square_name(mv),
                    "sq": mv,
                    "flips": flipped.bit_count(),
                }
            )
            if mv != othello.PASS:
                if turn == othello.BLACK:
                    b, w = b | flipped | 1 << mv, w & ~flipped
                else:
                    w, b = w | flipped | 1 << mv, b & ~flipped
            turn = 3 - turn
        last = None
        if history:
            last = {**history[-1], "flipped": [i for i in range(64) if flipped >> i & 1]}
        legal = board.legal_moves
        standard = start == othello.Board()
        return {
            "size": 8,
            "cells": cells,
            "discs": list(board.discs()),
            "empties": board.empties(),
            "legal": [m for m in legal if m != othello.PASS],
            "must_pass": legal == [othello.PASS],
            "flips": {str(sq): n for sq, n in board.flip_counts().items()},
            "history": history,
            "last": last,
            "transcript": board.transcript(),
            "position": board.to_string(),
            "start": None if standard else start.to_string(),
        }

    def verdict(self, player: int, result: Result) -> str:
        if result.score is None:
            return ""
        s = result.score
        if result.exact:
            if s == 0:
                return "proved: a draw"
            winner = self.side_name(player if s > 0 else 3 - player)
            n = abs(int(s))
            return f"proved: {winner} wins by {n} disc{'s' if n != 1 else ''}"
        if s == 0:
            what = "even"
        else:
            lead = self.side_name(player if s > 0 else 3 - player)
            what = f"{lead} ahead by about {abs(s):g} discs"
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return f"estimate: {what} (not proved: {why})"


def make_games(extra_levels: Mapping[str, str] | None = None) -> dict[str, WebGame]:
    """The games the web app serves, by name; ``extra_levels`` (name -> spec) are added to
    every game's levels. Raises ``SpecError`` on a bad spec."""
    games: list[WebGame] = [MattixGame(extra_levels), OthelloGame(extra_levels)]
    return {g.name: g for g in games}
