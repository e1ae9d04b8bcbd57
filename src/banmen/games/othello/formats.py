"""Othello's text, read and written as plain data: square names, board strings,
transcripts and GGF. The board (:mod:`.board`) builds and replays positions from them.

* **Squares** are named ``a1`` (top-left) to ``h8`` (bottom-right); square ``8 * row + col``
  is bit ``8 * row + col`` of a bitboard. A pass is :data:`PASS`, written ``pass``.
* **Board strings** (as in OBF): 64 squares a1..h8 row by row (``X`` or ``*`` black, ``O``
  white, ``-`` or ``.`` empty) and the side to move (``X``/``B``/``*`` or ``O``/``W``);
  spaces, newlines and a trailing ``;`` are ignored.
* **Transcripts**: the moves without passes, ``f5d6c3...`` (``pass``/``PA``/``--`` accepted).
* **GGF**, the Generic Game Format of GGS (Michael Buro's Generic Game Server): a game is
  ``(;`` … ``;)`` with properties ``TAG[value]``: ``GM[Othello]``, ``PB``/``PW``
  (players), ``DT`` (date), ``TY[8]`` (board type), ``RE[+4.00]`` (result for black, with
  an optional ``:r`` / ``:t`` / ``:s`` flag), ``BO[8 <64 squares> <colour>]`` (the start
  position: ``-`` empty, ``*`` black, ``O`` white, then ``*`` or ``O`` to move) and the
  moves ``B[f5]`` / ``W[d6//1.23]`` (``/evaluation/time`` optional; ``PA`` is a pass).

    >>> game = parse_ggf("(;GM[Othello]PB[a]PW[b]TY[8]BO[8 " + "-" * 27 + "O*------*O"
    ...                  + "-" * 27 + " *]B[f5]W[d6];)")
    >>> game.start == START, [square_name(sq) for _, sq in game.moves]
    (True, ['f5', 'd6'])
    >>> write_board_string(*START)[24:40]
    '---OX------XO---'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from banmen.games.othello.errors import InvalidBoardError, InvalidMoveError, OthelloError

__all__ = [
    "BLACK",
    "WHITE",
    "PASS",
    "Position",
    "START",
    "square_name",
    "parse_square",
    "parse_board_string",
    "write_board_string",
    "transcript_tokens",
    "write_transcript",
    "GgfGame",
    "parse_ggf",
    "parse_ggf_all",
    "write_ggf",
]

BLACK = 1
WHITE = 2
PASS = 64  #: the move number of a pass


class Position(NamedTuple):
    """A position as bitboards: ``black``, ``white`` and the side to move."""

    black: int
    white: int
    turn: int


#: the standard start: white on d4 and e5, black on d5 and e4, black to move
START = Position((1 << 28) | (1 << 35), (1 << 27) | (1 << 36), BLACK)


# --------------------------------------------------------------------------- squares


def square_name(sq: int) -> str:
    """``a1``..``h8``; the pass is ``pass``."""
    if sq == PASS:
        return "pass"
    return f"{chr(ord('a') + sq % 8)}{sq // 8 + 1}"


def parse_square(text: str) -> int:
    """Square number of a name like ``f5`` (case-insensitive); ``pass``/``pa``/``--`` is
    :data:`PASS`."""
    t = text.strip().lower()
    if t in ("pass", "pa", "--", "ps"):
        return PASS
    if len(t) != 2 or not ("a" <= t[0] <= "h") or not ("1" <= t[1] <= "8"):
        raise InvalidMoveError(
            f"bad move {text.strip()!r}: expected a square a1-h8 (like f5) or 'pass'"
        )
    return (int(t[1]) - 1) * 8 + ord(t[0]) - ord("a")


# --------------------------------------------------------------------------- board strings

_BLACK_CHARS = ("X", "*", "B")
_WHITE_CHARS = ("O", "W")


def parse_board_string(text: str) -> Position:
    """The position a board string describes (see the module's doc)."""
    if not isinstance(text, str):
        raise InvalidBoardError("a board string must be text")
    s = "".join(text.split()).rstrip(";")
    if len(s) != 65:
        raise InvalidBoardError(
            f"board string has {len(s)} characters without spaces: expected 64 squares "
            "(X black, O white, - empty) and the side to move (X or O)"
        )
    black = white = 0
    for i, ch in enumerate(s[:64]):
        c = ch.upper()
        if c in _BLACK_CHARS:
            black |= 1 << i
        elif c in _WHITE_CHARS:
            white |= 1 << i
        elif c not in ("-", ".", "E"):
            raise InvalidBoardError(
                f"bad square {ch!r} at {square_name(i)}: expected X (black), O (white) or -"
            )
    side = s[64].upper()
    if side in _BLACK_CHARS:
        turn = BLACK
    elif side in _WHITE_CHARS:
        turn = WHITE
    else:
        raise InvalidBoardError(f"side to move must be X (black) or O (white), got {s[64]!r}")
    return Position(black, white, turn)


def write_board_string(black: int, white: int, turn: int) -> str:
    """64 characters plus the side to move: ``"...X O"`` style, OBF-compatible."""
    cells = "".join("X" if black >> i & 1 else "O" if white >> i & 1 else "-" for i in range(64))
    return cells + " " + ("X" if turn == BLACK else "O")


# --------------------------------------------------------------------------- transcripts


def transcript_tokens(text: str) -> list[str]:
    """A transcript cut into moves: two-character squares and ``"pass"`` (not yet checked
    as squares: the board's replay reports a bad one with its number)."""
    if not isinstance(text, str):
        raise InvalidBoardError("a transcript must be text")
    s = "".join(text.split()).lower()
    tokens = []
    i = 0
    while i < len(s):
        if s.startswith("pass", i):
            token, i = "pass", i + 4
        elif s.startswith("pa", i) or s.startswith("--", i):
            token, i = "pass", i + 2
        else:
            token, i = s[i : i + 2], i + 2
        tokens.append(token)
    return tokens


def write_transcript(moves: Iterable[int]) -> str:
    """The moves without passes: ``f5d6c3...``."""
    return "".join(square_name(m) for m in moves if m != PASS)


# --------------------------------------------------------------------------- GGF

_PROP = re.compile(r"([A-Z]{1,2})\[([^\]]*)\]")


@dataclass
class GgfGame:
    """One GGF game: its tags, start position and ``(colour, square)`` moves, as written
    (``Board.from_ggf`` replays them, checked for legality)."""

    tags: dict[str, str] = field(default_factory=dict)
    start: Position = START
    moves: list[tuple[int, int]] = field(default_factory=list)


def _parse_ggf_board(value: str) -> Position:
    parts = value.split()
    if not parts or parts[0] != "8":
        raise InvalidBoardError(f"GGF BO[{value[:20]}...]: expected an 8x8 board ('8 ...')")
    body = "".join(parts[1:])
    if len(body) != 65:
        raise InvalidBoardError(
            f"GGF BO has {len(body)} squares and colour: expected 64 squares and * or O"
        )
    return parse_board_string(body.replace("*", "X"))


def parse_ggf(text: str) -> GgfGame:
    """The first game in ``text``."""
    games = parse_ggf_all(text)
    if not games:
        raise InvalidBoardError("no GGF game found: expected '(;GM[Othello]...;)'")
    return games[0]


def parse_ggf_all(text: str) -> list[GgfGame]:
    """Every ``(; … ;)`` game in ``text`` (a GGS file holds one per line)."""
    if not isinstance(text, str):
        raise InvalidBoardError("GGF must be text")
    out = []
    for chunk in re.findall(r"\(;(.*?);\)", text, flags=re.S):
        game = GgfGame()
        for tag, value in _PROP.findall(chunk):
            if tag in ("B", "W"):
                move_text = value.split("/")[0].strip()
                try:
                    sq = parse_square(move_text)
                except OthelloError:
                    raise InvalidBoardError(
                        f"GGF move {tag}[{value}]: not a square or PA"
                    ) from None
                game.moves.append((BLACK if tag == "B" else WHITE, sq))
            elif tag == "BO":
                game.start = _parse_ggf_board(value)
            else:
                game.tags[tag] = value
        gm = game.tags.get("GM", "Othello")
        if gm.lower() != "othello":
            raise InvalidBoardError(f"GGF game is GM[{gm}], not Othello")
        out.append(game)
    return out


def write_ggf(
    start: Position,
    moves: Sequence[tuple[int, int]],
    result: int | None = None,
    tags: dict[str, str] | None = None,
) -> str:
    """A game as one GGF line: the start position, the ``(colour, square)`` moves and,
    for a finished game, ``result`` (black's final disc difference) unless ``tags`` has
    ``RE``."""
    t = {"GM": "Othello", "PC": "banmen", "TY": "8"}
    t.update(tags or {})
    if result is not None and "RE" not in t:
        t["RE"] = f"{result:+.2f}"
    squares = write_board_string(*start)[:64].replace("X", "*")
    to_move = "*" if start.turn == BLACK else "O"
    rows = " ".join(squares[i : i + 8] for i in range(0, 64, 8))
    head = "".join(f"{k}[{v}]" for k, v in t.items())
    body = "".join(
        f"{'B' if colour == BLACK else 'W'}[{'PA' if m == PASS else square_name(m).upper()}]"
        for colour, m in moves
    )
    return f"(;{head}BO[8 {rows} {to_move}]{body};)"
