"""Games: rules and notation, one package per game; the contract every game keeps.

A game is a :class:`GameDef` (:mod:`banmen.games._base`): its board, formats, engines and
hooks. banmen's own games live in ``banmen.games.<name>``; a game package installed with
pip registers under the entry-point group ``banmen.games`` (docs/ADDING_A_GAME.md).
:mod:`banmen.games.registry` finds them all by name (``get_game``, ``make_engine``,
``load_games``…); this package holds only the contract, so that importing any game's
module (which runs this file first) loads no other game and nothing above the games.
"""

from __future__ import annotations

from banmen.games._base import (
    EngineKind,
    Forfeit,
    GameBoard,
    GameDef,
    GridView,
    Referee,
    SolveLimits,
    Solver,
    TextFormat,
)

__all__ = [
    "EngineKind",
    "Forfeit",
    "GameBoard",
    "GameDef",
    "GridView",
    "Referee",
    "SolveLimits",
    "Solver",
    "TextFormat",
]
