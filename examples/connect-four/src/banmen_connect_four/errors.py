"""Connect Four's input errors: each message is one line naming the bad input and what was
expected. All are ``ValueError``, so a front end reports them without a traceback."""

from __future__ import annotations

__all__ = ["ConnectFourError", "InvalidPositionError", "InvalidMoveError", "IllegalMoveError"]


class ConnectFourError(ValueError):
    """Base class of Connect Four input errors."""


class InvalidPositionError(ConnectFourError):
    """A FEN, diagram, move sequence or JSON record that describes no position reachable
    in a game of Connect Four."""


class InvalidMoveError(ConnectFourError):
    """A move that is not a column of the board."""


class IllegalMoveError(ConnectFourError):
    """A column that cannot be played now: it is full, or the game is over."""
