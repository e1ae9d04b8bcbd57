"""Mattix's input errors: each message names the bad input and what was expected."""

from __future__ import annotations

__all__ = ["MattixError", "InvalidLayoutError", "InvalidMoveError", "IllegalMoveError"]


class MattixError(ValueError):
    """Base class of Mattix input errors; the message names the bad input."""


class InvalidLayoutError(MattixError):
    """A layout string, JSON record or deal request that cannot describe a board."""


class InvalidMoveError(MattixError):
    """A move that is not a square name on this board."""


class IllegalMoveError(MattixError):
    """A square the side to move may not take."""
