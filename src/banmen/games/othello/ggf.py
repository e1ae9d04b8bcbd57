"""GGF, the Generic Game Format of GGS (Michael Buro's Generic Game Server), for Othello.

A game is ``(;`` … ``;)`` with properties ``TAG[value]``: ``GM[Othello]``, ``PB``/``PW``
(players), ``DT`` (date), ``TY[8]`` (board type), ``RE[+4.00]`` (result for black, with
an optional ``:r`` / ``:t`` / ``:s`` flag), ``BO[8 <64 squares> <colour>]`` (the start
position: ``-`` empty, ``*`` black, ``O`` white, then ``*`` or ``O`` to move) and the moves
``B[f5]`` / ``W[d6//1.23]`` (``/evaluation/time`` optional; ``PA`` is a pass).

    >>> game = parse("(;GM[Othello]PB[a]PW[b]TY[8]BO[8 " + "-" * 27 + "O*------*O"
    ...              + "-" * 27 + " *]B[f5]W[d6];)")
    >>> game.board().transcript()
    'f5d6'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from banmen.games.othello.board import (
    BLACK,
    PASS,
    Board,
    InvalidBoardError,
    OthelloError,
    parse_square,
    square_name,
)

__all__ = ["GgfGame", "parse", "parse_all", "write"]

_PROP = re.compile(r"([A-Z]{1,2})\[([^\]]*)\]")


@dataclass
class GgfGame:
    tags: dict[str, str] = field(default_factory=dict)
    start: Board = field(default_factory=Board)
    moves: list[tuple[int, int]] = field(default_factory=list)  # (colour, square)

    def board(self) -> Board:
        """The start position with every move replayed (checked for legality)."""
        b = self.start.copy()
        for i, (colour, move) in enumerate(self.moves):
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


def _parse_board(value: str) -> Board:
    parts = value.split()
    if not parts or parts[0] != "8":
        raise InvalidBoardError(f"GGF BO[{value[:20]}...]: expected an 8x8 board ('8 ...')")
    body = "".join(parts[1:])
    if len(body) != 65:
        raise InvalidBoardError(
            f"GGF BO has {len(body)} squares and colour: expected 64 squares and * or O"
        )
    return Board.from_string(body.replace("*", "X"))


def parse(text: str) -> GgfGame:
    """The first game in ``text``."""
    games = parse_all(text)
    if not games:
        raise InvalidBoardError("no GGF game found: expected '(;GM[Othello]...;)'")
    return games[0]


def parse_all(text: str) -> list[GgfGame]:
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
                game.moves.append((BLACK if tag == "B" else 3 - BLACK, sq))
            elif tag == "BO":
                game.start = _parse_board(value)
            else:
                game.tags[tag] = value
        gm = game.tags.get("GM", "Othello")
        if gm.lower() != "othello":
            raise InvalidBoardError(f"GGF game is GM[{gm}], not Othello")
        out.append(game)
    return out


def write(board: Board, tags: dict[str, str] | None = None) -> str:
    """``board``'s game (start position and moves) as one GGF line."""
    t = {"GM": "Othello", "PC": "banmen", "TY": "8"}
    t.update(tags or {})
    if board.is_game_over() and "RE" not in t:
        t["RE"] = f"{board.final_margin(BLACK):+.2f}"
    start = board.start_board().to_string()
    squares = start[:64].replace("X", "*")
    to_move = "*" if start[65] == "X" else "O"
    rows = " ".join(squares[i : i + 8] for i in range(0, 64, 8))
    head = "".join(f"{k}[{v}]" for k, v in t.items())
    replay = board.start_board()
    moves = []
    for m in board.move_stack:
        tag = "B" if replay.turn == BLACK else "W"
        moves.append(f"{tag}[{'PA' if m == PASS else square_name(m).upper()}]")
        replay.push(m)
    return f"(;{head}BO[8 {rows} {to_move}]{''.join(moves)};)"
