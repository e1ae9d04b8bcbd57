"""Go input errors: one family under :class:`GoError` (a ``ValueError``); every message is
one line and names the bad input."""

from __future__ import annotations

__all__ = [
    "GoError",
    "RulesError",
    "InvalidBoardError",
    "InvalidMoveError",
    "IllegalMoveError",
    "HandicapError",
    "ScoringError",
    "SgfError",
]


class GoError(ValueError):
    """Base class of Go input errors."""


class RulesError(GoError):
    """An unknown rules preset or a bad rules field (komi included)."""


class InvalidBoardError(GoError):
    """A board size, setup or JSON record that does not describe a position or game."""


class InvalidMoveError(GoError):
    """Text that is not a vertex (or ``pass``), or a number that is not a point."""


class IllegalMoveError(GoError):
    """A move the rules forbid; ``reason`` is ``"occupied"``, ``"suicide"``, ``"ko"``,
    ``"superko"`` or ``"game over"``."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


class HandicapError(GoError):
    """A handicap the board cannot take (count, size, or a board that is not empty)."""


class ScoringError(GoError):
    """Bad dead-stone input for scoring."""


class SgfError(GoError):
    """An SGF text that cannot be read, or a recorded move our rules reject."""
