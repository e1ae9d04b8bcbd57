"""Games: rules and notation, one module (or package) per game.

A game's module is imported the first time it is asked for (:func:`get_game`): each one
loads numpy and numba and compiles or loads its kernels, which a command about another
game (or ``banmen --help``) should not pay for.
"""

from __future__ import annotations

import importlib
from typing import Any

from banmen.games._base import GameBoard, GameDef

__all__ = ["GameBoard", "GameDef", "GAMES", "GAME_NAMES", "get_game", "UnknownGameError"]

#: Every registered game's name (its module is ``banmen.games.<name>``), sorted.
GAME_NAMES: tuple[str, ...] = ("go", "mattix", "othello")


class UnknownGameError(ValueError):
    """A game name banmen does not know."""


def get_game(name: str) -> GameDef:
    """The :class:`GameDef` called ``name`` (case-insensitive)."""
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in GAME_NAMES:
        raise UnknownGameError(f"unknown game {name!r}: expected one of {', '.join(GAME_NAMES)}")
    game: GameDef = importlib.import_module(f"banmen.games.{key}").GAME
    return game


def __getattr__(name: str) -> Any:
    # GAMES (name -> GameDef) is built on first use: importing this package must not
    # import every game.
    if name == "GAMES":
        return {n: get_game(n) for n in GAME_NAMES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
