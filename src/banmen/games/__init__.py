"""Games: rules and notation, one module (or package) per game.

A game's module is imported the first time it is asked for (:func:`get_game`): each one
loads numpy and numba and compiles or loads its kernels, which a command about another
game (or ``banmen --help``) should not pay for.
"""

from __future__ import annotations

import importlib
from typing import Any

from banmen.engine import ENGINE_KINDS, Engine, PlayerSpec, SpecError, parse_spec
from banmen.games._base import Forfeit, GameBoard, GameDef, Referee

__all__ = [
    "Forfeit",
    "GameBoard",
    "GameDef",
    "Referee",
    "GAMES",
    "GAME_NAMES",
    "get_game",
    "make_engine",
    "UnknownGameError",
]

#: Every registered game's name (its module is ``banmen.games.<name>``), sorted.
GAME_NAMES: tuple[str, ...] = ("go", "mattix", "othello", "shogi")


class UnknownGameError(ValueError):
    """A game name banmen does not know."""


def get_game(name: str) -> GameDef[Any]:
    """The :class:`GameDef` called ``name`` (case-insensitive)."""
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in GAME_NAMES:
        raise UnknownGameError(f"unknown game {name!r}: expected one of {', '.join(GAME_NAMES)}")
    game: GameDef[Any] = importlib.import_module(f"banmen.games.{key}").GAME
    return game


#: how an error names the players of a kind a game does not offer
_KIND_NOUNS = {"nboard": "NBoard engines", "gtp": "GTP engines", "mcts": "mcts players"}


def make_engine(game: str | GameDef[Any], spec: str | PlayerSpec) -> Engine[Any]:
    """Build the engine a spec names, for ``game``: a lookup in ``GameDef.engines``.

    Raises :class:`~banmen.engine.SpecError` / :class:`UnknownGameError` (both
    ``ValueError``) with a one-line message naming what the game offers::

        >>> make_engine("mattix", "alphabeta:depth=3").name
        'alphabeta:depth=3'
    """
    g = get_game(game) if isinstance(game, str) else game
    s = parse_spec(spec) if isinstance(spec, str) else spec
    factory = g.engines.get(s.kind) or _EVERY_GAME.get(s.kind)
    if factory is None:
        raise SpecError(_not_offered(g, s))
    return factory(g, s)


def _python(game: GameDef[Any], spec: PlayerSpec) -> Engine[Any]:
    from banmen.python_player import PythonEngine

    return PythonEngine(game, spec)


def _ugi(game: GameDef[Any], spec: PlayerSpec) -> Engine[Any]:
    from banmen.protocols.ugi_client import UGIEngine

    return UGIEngine(game, spec)


#: the players every game offers: a user's own, in Python or over UGI
_EVERY_GAME = {"python": _python, "ugi": _ugi}


def offered(game: GameDef[Any]) -> list[str]:
    """The player kinds ``game`` offers (its own and every game's), in ENGINE_KINDS' order."""
    return [k for k in ENGINE_KINDS if k in game.engines or k in _EVERY_GAME]


def _not_offered(g: GameDef[Any], s: PlayerSpec) -> str:
    kinds = ", ".join(offered(g))
    others = [o.title for n in GAME_NAMES if s.kind in (o := get_game(n)).engines]
    noun = _KIND_NOUNS.get(s.kind, s.kind + " players")
    where = f"{noun} play {' and '.join(others)} only, not {g.name}" if others else s.kind
    return f"{s.text!r}: {where}: {g.title} offers {kinds}"


def __getattr__(name: str) -> Any:
    # GAMES (name -> GameDef) is built on first use: importing this package must not
    # import every game.
    if name == "GAMES":
        return {n: get_game(n) for n in GAME_NAMES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
