"""The games the web app serves: one adapter module per game (see ``_base.WebGame``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from banmen.web.games._base import STOPPED_BY, Defaults, WebGame
from banmen.web.games.go import GoGame
from banmen.web.games.mattix import MattixGame
from banmen.web.games.othello import OthelloGame

__all__ = [
    "Defaults",
    "WebGame",
    "MattixGame",
    "OthelloGame",
    "GoGame",
    "make_games",
    "STOPPED_BY",
]


def make_games(
    extra_levels: Mapping[str, str] | None = None,
    players: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, WebGame[Any]]:
    """The games the web app serves, by name; ``extra_levels`` (name -> spec) are added to
    every game's levels, ``players`` (game -> name -> spec: ``banmen serve --player``) to
    their game's. Raises ``SpecError`` on a bad spec."""
    own = players or {}
    games: list[WebGame[Any]] = [
        MattixGame(extra_levels, own.get("mattix")),
        OthelloGame(extra_levels, own.get("othello")),
        GoGame(extra_levels, own.get("go")),
    ]
    return {g.name: g for g in games}
