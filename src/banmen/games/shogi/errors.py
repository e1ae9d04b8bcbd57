"""Shogi's errors: one ``ValueError`` subclass per kind of bad input, each message one line
naming what was wrong and what was expected (python-chess style)."""

from __future__ import annotations

__all__ = ["ShogiError", "InvalidBoardError", "InvalidMoveError", "IllegalMoveError"]


class ShogiError(ValueError):
    """A move, SFEN or position that is not valid, with what was expected."""


class InvalidBoardError(ShogiError):
    """An SFEN that cannot be read, or a position that could not arise (two kings of a
    side, 19 pawns, the side not to move in check), or a game record that cannot be
    replayed."""


class InvalidMoveError(ShogiError):
    """Text that is not a USI move (``7g7f``, ``8h2b+``, ``P*5e``)."""


class IllegalMoveError(ShogiError):
    """A USI move that is not legal in the position."""
