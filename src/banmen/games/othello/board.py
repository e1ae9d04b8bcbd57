"""The Othello board: rules and notation in Python, over the compiled bitboards.

Squares are named ``a1`` (top-left) to ``h8`` (bottom-right); square ``8 * row + col``
is bit ``8 * row + col`` of a bitboard (see :mod:`.kernels`, whose compiled ``moves`` and
``flips`` the board calls; :mod:`.formats` reads and writes its text). Black moves first
from the standard start: white on d4 and e5, black on d5 and e4.

    >>> board = Board()
    >>> [square_name(m) for m in board.legal_moves]
    ['d3', 'c4', 'f5', 'e6']
    >>> board.push_name("f5")
    >>> board.discs()
    (4, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from banmen.games._base import StackBoard, read_record, replay_names
from banmen.games.othello.errors import (
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    OthelloError,
)
from banmen.games.othello.formats import (
    BLACK,
    PASS,
    START,
    WHITE,
    GgfGame,
    Position,
    parse_board_string,
    parse_ggf,
    parse_square,
    square_name,
    transcript_tokens,
    write_board_string,
    write_ggf,
    write_transcript,
)
from banmen.games.othello.kernels import U, flips, moves
from banmen.games.othello.sets import RULES
from banmen.warm import ensure

__all__ = ["Board"]

_FULL = (1 << 64) - 1


def _u(x: int) -> np.uint64:
    return U(x & _FULL)


@dataclass(frozen=True)
class _Undo:
    move: int
    flipped: int


class Board(StackBoard[_Undo]):
    """An Othello position with its move history (``push`` / ``pop``).

    ``black`` and ``white`` are the two bitboards (Python ints); ``turn`` is
    :data:`BLACK` or :data:`WHITE`. A pass is a move (:data:`PASS`) and is legal exactly
    when the side to move has no other move and the game is not over.
    """

    _record_error = InvalidBoardError

    def __init__(
        self, black: int = START.black, white: int = START.white, turn: int = BLACK
    ) -> None:
        ensure(RULES)  # (the first board of a process loads the compiled rules: banmen.warm)
        if black & white:
            raise InvalidBoardError("a square holds both a black and a white disc")
        if turn not in (BLACK, WHITE):
            raise InvalidBoardError(f"side to move must be black or white, got {turn!r}")
        self.black = black & _FULL
        self.white = white & _FULL
        self.turn = turn
        self.move_stack: list[int] = []
        self._undo: list[_Undo] = []
        self._start = (self.black, self.white, turn)

    # ---- state

    def pieces(self) -> tuple[int, int]:
        """The bitboards ``(side to move, opponent)``."""
        return (self.black, self.white) if self.turn == BLACK else (self.white, self.black)

    def move_mask(self) -> int:
        p, o = self.pieces()
        return int(moves(_u(p), _u(o)))

    def _opponent_can_move(self) -> bool:
        p, o = self.pieces()
        return int(moves(_u(o), _u(p))) != 0

    @property
    def legal_moves(self) -> list[int]:
        """Squares the side to move may play, in square order; ``[PASS]`` if it must pass;
        ``[]`` once the game is over."""
        mask = self.move_mask()
        if mask:
            return [sq for sq in range(64) if mask >> sq & 1]
        return [PASS] if self._opponent_can_move() else []

    def is_game_over(self) -> bool:
        return not self.move_mask() and not self._opponent_can_move()

    def discs(self) -> tuple[int, int]:
        """(black discs, white discs)."""
        return (self.black.bit_count(), self.white.bit_count())

    def empties(self) -> int:
        return 64 - (self.black | self.white).bit_count()

    def moves_ahead(self) -> int:
        """The side to move's moves still to come, about (a game clock shares its time
        among them): half the empty squares."""
        return max(1, (self.empties() + 1) // 2)

    def final_margin(self, color: int | None = None) -> int:
        """Disc difference for ``color`` (default: side to move) with the empty squares
        given to the winner, the usual rule for a finished game (and for endgame solvers)."""
        b, w = self.discs()
        diff = b - w
        e = self.empties()
        if diff > 0:
            diff += e
        elif diff < 0:
            diff -= e
        c = self.turn if color is None else color
        return diff if c == BLACK else -diff

    def winner(self) -> int | None:
        if not self.is_game_over():
            return None
        b, w = self.discs()
        return None if b == w else (BLACK if b > w else WHITE)

    def result(self) -> str:
        if not self.is_game_over():
            return "*"
        w = self.winner()
        return "1/2-1/2" if w is None else ("1-0" if w == BLACK else "0-1")

    def flips(self, sq: int) -> int:
        """Bitboard of the discs a move on ``sq`` would turn over (0 if illegal)."""
        if sq == PASS or not 0 <= sq < 64:
            return 0
        p, o = self.pieces()
        if (p | o) >> sq & 1:
            return 0
        return int(flips(_u(p), _u(o), _u(sq)))

    def flip_counts(self) -> dict[int, int]:
        """For each legal move (not a pass), how many discs it turns over."""
        return {sq: self.flips(sq).bit_count() for sq in self.legal_moves if sq != PASS}

    # ---- moves

    def move_name(self, move: int) -> str:
        return square_name(move)

    def parse_move(self, text: str) -> int:
        """Square of a move name, checked for legality."""
        sq = parse_square(text)
        self._check_legal(sq)
        return sq

    def _check_legal(self, sq: int) -> None:
        if not isinstance(sq, int) or not (0 <= sq < 64 or sq == PASS):
            raise InvalidMoveError(f"move {sq!r} is not a square 0-63 or a pass")
        legal = self.legal_moves
        if sq in legal:
            return
        side = "black" if self.turn == BLACK else "white"
        if not legal:
            raise IllegalMoveError("the game is over")
        if legal == [PASS]:
            raise IllegalMoveError(
                f"{square_name(sq)} is not legal: {side} has no move and must pass"
            )
        names = ", ".join(square_name(s) for s in legal)
        if sq == PASS:
            raise IllegalMoveError(f"{side} cannot pass with a move to play: legal moves {names}")
        why = "occupied" if (self.black | self.white) >> sq & 1 else "it turns no disc over"
        raise IllegalMoveError(
            f"{square_name(sq)} is not legal for {side} ({why}): legal moves {names}"
        )

    def push(self, move: int) -> None:
        self._check_legal(move)
        if move == PASS:
            flipped = 0
        else:
            p, o = self.pieces()
            flipped = int(flips(_u(p), _u(o), _u(move)))
            bit = 1 << move
            if self.turn == BLACK:
                self.black |= bit | flipped
                self.white &= ~flipped
            else:
                self.white |= bit | flipped
                self.black &= ~flipped
        self._pushed(move, _Undo(move, flipped))

    def pop(self) -> int:
        """Undo the last move and return it."""
        u = self._popped()
        if u.move != PASS:
            bit = 1 << u.move
            if self.turn == BLACK:
                self.black &= ~(bit | u.flipped)
                self.white |= u.flipped
            else:
                self.white &= ~(bit | u.flipped)
                self.black |= u.flipped
        return u.move

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.black, b.white, b.turn = self.black, self.white, self.turn
        b.move_stack = list(self.move_stack)
        b._undo = list(self._undo)
        b._start = self._start
        return b

    def start_board(self) -> Board:
        return Board(*self._start)

    # ---- notation: board strings (OBF), transcripts, JSON

    @classmethod
    def from_string(cls, text: str) -> Board:
        """A 64-character board (a1..h8 row by row: ``X`` or ``*`` black, ``O`` white,
        ``-`` or ``.`` empty) and the side to move (``X``/``B``/``*`` or ``O``/``W``), as in
        OBF: ``"--XX...O X"`` (spaces, newlines and a trailing ``;`` are ignored)."""
        return cls(*parse_board_string(text))

    def to_string(self) -> str:
        """64 characters plus the side to move: ``"...X O"`` style, OBF-compatible."""
        return write_board_string(self.black, self.white, self.turn)

    def position(self) -> Position:
        """``(black, white, turn)``."""
        return Position(self.black, self.white, self.turn)

    @classmethod
    def from_transcript(cls, text: str, start: Board | None = None) -> Board:
        """Replay a transcript like ``f5d6c3d3c4`` (passes implicit; ``pass``/``PA``
        accepted) from the standard start (or ``start``). Passes are played wherever they
        are forced, including after the last move, so the side to move can move (or the
        game is over)."""
        tokens = transcript_tokens(text)
        board = start.copy() if start is not None else cls()
        for n, token in enumerate(tokens, 1):
            if board.legal_moves == [PASS] and token != "pass":
                board.push(PASS)  # an implicit pass
            try:
                board.push(board.parse_move(token))
            except OthelloError as e:
                raise InvalidBoardError(f"move {n} ({token!r}) of the transcript: {e}") from None
        if board.legal_moves == [PASS]:
            board.push(PASS)
        return board

    @classmethod
    def from_text(cls, text: str) -> Board:
        """A position typed or pasted: a board string (squares and a side, no digits) or
        else a transcript (an empty one is the standard start)."""
        if not text.strip() or any(ch.isdigit() for ch in text):
            return cls.from_transcript(text)
        return cls.from_string(text)

    def transcript(self) -> str:
        """The moves played, without passes: ``f5d6c3...``."""
        return write_transcript(self.move_stack)

    @classmethod
    def from_ggf(cls, game: str | GgfGame) -> Board:
        """The end of a GGF game (the first in ``game``, if text): its start position with
        every move replayed, checked for legality (a pass the record left out is played)."""
        g = parse_ggf(game) if isinstance(game, str) else game
        b = cls(*g.start)
        for i, (colour, move) in enumerate(g.moves):
            if colour != b.turn:
                if b.legal_moves == [PASS]:
                    b.push(PASS)  # a pass the record left out
                else:
                    who = "black" if colour == BLACK else "white"
                    raise InvalidBoardError(
                        f"GGF move {i + 1} is {who}'s, but it is not {who}'s turn"
                    )
            try:
                b.push(move)
            except OthelloError as e:
                raise InvalidBoardError(f"GGF move {i + 1} ({square_name(move)}): {e}") from None
        return b

    def to_ggf(self, tags: dict[str, str] | None = None) -> str:
        """This board's game (start position and moves) as one GGF line; a finished game
        gets its result (``RE``) unless ``tags`` gives one."""
        start = self.start_board()
        replay = start.copy()
        moves = []
        for m in self.move_stack:
            moves.append((replay.turn, m))
            replay.push(m)
        result = self.final_margin(BLACK) if self.is_game_over() else None
        return write_ggf(start.position(), moves, result, tags)

    def to_dict(self) -> dict[str, Any]:
        start = self.start_board()
        return {
            "game": "othello",
            "start": start.to_string(),
            "moves": [square_name(m) for m in self.move_stack],
            "board": self.to_string(),
            "turn": "black" if self.turn == BLACK else "white",
            "discs": list(self.discs()),
            "result": self.result(),
        }

    @classmethod
    def from_dict(cls, d: Any) -> Board:
        rec = read_record(d, "othello", "an Othello record", InvalidBoardError)
        start = rec.get("start")
        board = cls.from_string(start) if isinstance(start, str) else cls()
        replay_names(board, rec.get("moves", []), InvalidBoardError, OthelloError)
        return board

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.black, self.white, self.turn) == (other.black, other.white, other.turn)

    def __repr__(self) -> str:
        return f"Board.from_string({self.to_string()!r})"

    def __str__(self) -> str:
        lines = ["  a b c d e f g h"]
        legal = set(self.legal_moves)
        for r in range(8):
            row = []
            for c in range(8):
                sq = r * 8 + c
                row.append(
                    "X" if self.black >> sq & 1 else "O" if self.white >> sq & 1
                    else "*" if sq in legal else "-"
                )  # fmt: skip
            lines.append(f"{r + 1} " + " ".join(row))
        b, w = self.discs()
        status = (
            f"game over: {self.result()}"
            if self.is_game_over()
            else f"{'black (X)' if self.turn == BLACK else 'white (O)'} to move"
        )
        lines.append(f"black {b}, white {w}; {status}")
        return "\n".join(lines)


def _load_rules() -> None:
    from banmen.games.othello.kernels import perft, perft_bulk

    b = Board.from_transcript("f5d6c3d3c4")
    b.flip_counts()
    b.pop()
    start = Board()
    perft(_u(start.black), _u(start.white), 2, False, False)  # `banmen perft` and its bulk
    perft_bulk(_u(start.black), _u(start.white), 2, False, False)  # count
