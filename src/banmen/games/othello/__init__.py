"""Othello / Reversi: bitboard rules (compiled), notation, formats, AI and solver."""

from banmen.games.othello.board import (
    BLACK,
    PASS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    OthelloError,
    parse_square,
    square_name,
)

__all__ = [
    "Board",
    "OthelloError",
    "InvalidBoardError",
    "InvalidMoveError",
    "IllegalMoveError",
    "BLACK",
    "WHITE",
    "PASS",
    "square_name",
    "parse_square",
]
