"""The shogi board front ends touch: a position, the moves played from it, USI notation.

Moves are cshogi's move integers; :meth:`Board.move_name` and :meth:`Board.parse_move`
convert them to and from USI (``7g7f``, ``8h2b+``, ``P*5e``). Everything that comes from
outside is checked here first — a SFEN by :func:`~banmen.games.shogi.formats.parse_sfen`,
a move against the legal moves — because cshogi aborts the process on some malformed
input. Sides are numbered as in the other games: 1 is black (sente, moves first), 2 white.

>>> board = Board()
>>> board.push_name("7g7f")
>>> board.move_name(board.move_stack[-1]), board.turn
('7g7f', 2)
>>> board.push_name("7g7f")
Traceback (most recent call last):
...
banmen.games.shogi.errors.IllegalMoveError: 7g7f is not a legal move here (white/gote to move)
"""

from __future__ import annotations

from typing import Any

import cshogi

from banmen.games._base import parse_json, replay_names
from banmen.games.shogi.errors import IllegalMoveError, InvalidBoardError, ShogiError
from banmen.games.shogi.formats import STARTPOS, normalize_sfen, parse_sfen, parse_usi_move

__all__ = ["Board", "BLACK", "WHITE", "STARTPOS"]

BLACK = 1  # sente, moves first
WHITE = 2  # gote

#: a position seen this many times ends the game (sennichite, 千日手)
REPETITIONS = 4


class Board:
    """A shogi position and the moves played from it (python-chess style).

    ``Board(sfen)`` starts from ``sfen`` (default: the initial position); a position
    without the attacker's king (a tsume problem) is a position like any other. The game
    is over when the side to move has no legal move (it is mated: shogi has no stalemate
    draw) or a position appears for the fourth time: a draw, unless one side gave check
    with every move since the first time, which loses (perpetual check). Entering-king
    declarations (入玉) are not modelled.
    """

    def __init__(self, sfen: str = STARTPOS) -> None:
        self._board = parse_sfen(sfen)
        self.start_sfen = normalize_sfen(sfen)
        self._stack: list[int] = []
        #: the key of each position so far (the start's first), and whether it is check
        self._keys: list[int] = [self._board.zobrist_hash()]
        self._checks: list[bool] = [bool(self._board.is_check())]
        self._first = self.turn

    # ------------------------------------------------------------------ state

    @property
    def turn(self) -> int:
        """The side to move: :data:`BLACK` (1) or :data:`WHITE` (2)."""
        return BLACK if self._board.turn == cshogi.BLACK else WHITE

    @property
    def move_stack(self) -> list[int]:
        """The moves played from the start position (a copy)."""
        return list(self._stack)

    @property
    def legal_moves(self) -> list[int]:
        return [int(m) for m in self._board.legal_moves]

    def sfen(self) -> str:
        """The position as SFEN (its move number counts from the start position's)."""
        return str(self._board.sfen())

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return bool(self._board.is_check())

    def cshogi_board(self) -> cshogi.Board:
        """A cshogi board of the present position (a copy: changing it changes nothing
        here)."""
        return parse_sfen(self.sfen())

    def start_board(self) -> Board:
        """The position the move stack starts from."""
        return Board(self.start_sfen)

    def copy(self) -> Board:
        board = self.start_board()
        for move in self._stack:
            board.push(move)
        return board

    # ------------------------------------------------------------------ moves

    def push(self, move: int) -> None:
        """Play ``move``; :class:`IllegalMoveError` if it is not a legal move here."""
        if move not in self._board.legal_moves:
            raise IllegalMoveError(f"move {move!r} is not a legal move here ({self._side()})")
        self._board.push(move)
        self._stack.append(move)
        self._keys.append(self._board.zobrist_hash())
        self._checks.append(bool(self._board.is_check()))

    def pop(self) -> int:
        """Take back the last move and return it."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        self._board.pop()
        self._keys.pop()
        self._checks.pop()
        return self._stack.pop()

    def move_name(self, move: int) -> str:
        """``move`` in USI: ``7g7f``, ``8h2b+``, ``P*5e``."""
        return str(cshogi.move_to_usi(move))

    def parse_move(self, text: str) -> int:
        """The legal move the USI text names; :class:`InvalidMoveError` if it is not a USI
        move, :class:`IllegalMoveError` if it is not legal here."""
        return parse_usi_move(self._board, text)

    def push_name(self, text: str) -> None:
        """Play the move the USI text names (see :meth:`parse_move`)."""
        self.push(self.parse_move(text))

    def _side(self) -> str:
        return "black/sente to move" if self.turn == BLACK else "white/gote to move"

    # ------------------------------------------------------------------ the end

    def _repetition(self) -> int | None:
        """For a position seen :data:`REPETITIONS` times: the side that loses by perpetual
        check, or 0 for a draw; ``None`` if it has not been seen that often."""
        key = self._keys[-1]
        seen = [i for i, k in enumerate(self._keys) if k == key]
        if len(seen) < REPETITIONS:
            return None
        first, last = seen[0], len(self._keys) - 1
        # position i + 1 follows move i; the side that made move i checked if it is check
        for side in (BLACK, WHITE):
            made = [i for i in range(first, last) if self._mover(i) == side]
            if made and all(self._checks[i + 1] for i in made):
                return side
        return 0

    def _mover(self, ply: int) -> int:
        """The side that made move ``ply`` (0-based) of the stack."""
        return self._first if ply % 2 == 0 else 3 - self._first

    def is_game_over(self) -> bool:
        return self._repetition() is not None or not any(True for _ in self._board.legal_moves)

    def winner(self) -> int | None:
        """The side that has won, or ``None`` (a draw, or the game goes on)."""
        loser = self._repetition()
        if loser is not None:
            return 3 - loser if loser else None
        if any(True for _ in self._board.legal_moves):
            return None
        return 3 - self.turn  # mated

    def result(self) -> str:
        """``1-0`` (black won), ``0-1``, ``1/2-1/2`` or ``*`` (not over)."""
        if not self.is_game_over():
            return "*"
        w = self.winner()
        return "1/2-1/2" if w is None else ("1-0" if w == BLACK else "0-1")

    # ------------------------------------------------------------------ records

    def to_dict(self) -> dict[str, Any]:
        return {"sfen": self.start_sfen, "moves": [self.move_name(m) for m in self._stack]}

    @classmethod
    def from_dict(cls, data: Any) -> Board:
        """The board :meth:`to_dict` wrote; :class:`InvalidBoardError` if it is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("sfen"), str):
            raise InvalidBoardError('a shogi board is an object {"sfen": ..., "moves": [...]}')
        board = cls(data["sfen"])
        replay_names(board, data.get("moves", []), InvalidBoardError, ShogiError)
        return board

    @classmethod
    def from_json(cls, text: str) -> Board:
        return cls.from_dict(parse_json(text, InvalidBoardError))

    def usi(self) -> str:
        """The game as USI's ``position`` command gives it (without the word
        ``position``): ``startpos moves 7g7f 3c3d``, ``sfen <sfen> moves …``; no
        ``moves`` when none were played."""
        start = "startpos" if self.start_sfen == STARTPOS else f"sfen {self.start_sfen}"
        moves = [self.move_name(m) for m in self._stack]
        return " ".join([start, "moves", *moves]) if moves else start

    @classmethod
    def from_usi(cls, text: str) -> Board:
        """The board the arguments of a USI ``position`` command describe (:meth:`usi`);
        :class:`ShogiError` naming the bad part or move."""
        args = text.split()
        if not args or args[0] not in ("sfen", "startpos"):
            raise ShogiError("position needs 'sfen <sfen> [moves ...]' or 'startpos [moves ...]'")
        at = args.index("moves") if "moves" in args else len(args)
        if args[0] == "startpos":
            if at != 1:
                raise ShogiError(f"unexpected {' '.join(args[1:at])[:40]!r} after startpos")
            sfen = STARTPOS
        else:
            sfen = " ".join(args[1:at])
        board = cls(sfen)
        for ply, name in enumerate(args[at + 1 :], start=1):
            try:
                board.push_name(name)
            except ShogiError as e:
                raise type(e)(f"move {ply}: {e}") from None
        return board

    def __str__(self) -> str:
        """The position as a CSA board diagram (cshogi's): ``+`` black's pieces, ``-``
        white's, the hands (``P+00KA``) and the side to move."""
        return str(self._board)

    def __repr__(self) -> str:
        return f"Board({self.sfen()!r})"
