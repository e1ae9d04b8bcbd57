"""Games: rules and notation, one module (or package) per game.

A game's module is imported the first time it is asked for (:func:`get_game`): each one
loads numpy and numba and compiles or loads its kernels, which a command about another
game (or ``banmen --help``) should not pay for.
"""

from __future__ import annotations

import importlib
from typing import Any

from banmen.engine import Engine, PlayerSpec, SpecError, parse_spec
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
    "Forfeit",
    "GameBoard",
    "GameDef",
    "Referee",
    "GridView",
    "SolveLimits",
    "Solver",
    "TextFormat",
    "GAMES",
    "GAME_NAMES",
    "get_game",
    "make_engine",
    "kinds",
    "kinds_help",
    "offered",
    "EngineKind",
    "EVERY_GAME",
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
    """Build the engine a spec names, for ``game``: a lookup in ``GameDef.engines``
    (and the kinds every game offers, :data:`EVERY_GAME`).

    Raises :class:`~banmen.engine.SpecError` / :class:`UnknownGameError` (both
    ``ValueError``) with a one-line message naming what the game offers::

        >>> make_engine("mattix", "alphabeta:depth=3").name
        'alphabeta:depth=3'
        >>> try:
        ...     make_engine("mattix", "alphabeta:learned=0")
        ... except SpecError as e:
        ...     print(e)
        'alphabeta:learned=0': Mattix's alphabeta takes no learned=: it takes depth=, time=, nodes=
    """
    g = get_game(game) if isinstance(game, str) else game
    s = parse_spec(spec) if isinstance(spec, str) else spec
    kind = kinds(g).get(s.kind)
    if kind is None:
        raise SpecError(_not_offered(g, s))
    return kind(g, s)


def _python(game: GameDef[Any], spec: PlayerSpec) -> Engine[Any]:
    from banmen.python_player import PythonEngine

    return PythonEngine(game, spec)


def _ugi(game: GameDef[Any], spec: PlayerSpec) -> Engine[Any]:
    from banmen.protocols.ugi_client import UGIEngine

    return UGIEngine(game, spec)


#: the players every game offers: a user's own, in Python or over UGI
EVERY_GAME: dict[str, EngineKind] = {
    "python": EngineKind(
        _python,
        "your own player in Python: python:FILE.py:NAME or python:package.module:NAME, "
        "then ,key=value options for NAME (docs/YOUR_AI.md)",
    ),
    "ugi": EngineKind(
        _ugi,
        "an external engine over UGI: ugi:[time=SECONDS ][depth=N ][nodes=N ]COMMAND "
        "(default 1 s a move, sent as go movetime; docs/YOUR_AI.md)",
        ("time", "depth", "nodes"),
    ),
}


def kinds(game: GameDef[Any]) -> dict[str, EngineKind]:
    """Every player kind ``game`` offers, its own first, then :data:`EVERY_GAME`'s."""
    return {**game.engines, **{k: v for k, v in EVERY_GAME.items() if k not in game.engines}}


def offered(game: GameDef[Any]) -> list[str]:
    """The names of the player kinds ``game`` offers (:func:`kinds`)."""
    return list(kinds(game))


def kinds_help(game: GameDef[Any]) -> str:
    """One line per kind ``game`` offers: ``kind: what it is; its options``."""
    return "\n".join(f"{k}: {v.help}" for k, v in kinds(game).items())


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
