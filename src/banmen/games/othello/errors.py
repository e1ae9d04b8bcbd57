"""Othello's input errors: each message names the bad input and what was expected."""

from __future__ import annotations

__all__ = ["OthelloError", "InvalidBoardError", "InvalidMoveError", "IllegalMoveError"]


class OthelloError(ValueError):
    """Base class of Othello input errors; the message names the bad input."""


class InvalidBoardError(OthelloError):
    """A board string, transcript or record that does not describe a position or game."""


class InvalidMoveError(OthelloError):
    """Text that is not a square name (or ``pass``)."""


class IllegalMoveError(OthelloError):
    """A move the side to move may not make."""
