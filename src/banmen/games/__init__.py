"""Games: rules and notation, one module (or package) per game."""

from __future__ import annotations

from banmen.games._base import GameBoard, GameDef

__all__ = ["GameBoard", "GameDef", "GAMES", "get_game", "UnknownGameError"]


class UnknownGameError(ValueError):
    """A game name banmen does not know."""


def _registry() -> dict[str, GameDef]:
    from banmen.games import go, mattix, othello

    return {"go": go.GAME, "mattix": mattix.GAME, "othello": othello.GAME}


GAMES: dict[str, GameDef] = _registry()


def get_game(name: str) -> GameDef:
    """The :class:`GameDef` called ``name`` (case-insensitive)."""
    game = GAMES.get(name.strip().lower()) if isinstance(name, str) else None
    if game is None:
        raise UnknownGameError(f"unknown game {name!r}: expected one of {', '.join(sorted(GAMES))}")
    return game
