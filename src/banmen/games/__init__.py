"""Games: rules and notation, one package per game; the contract every game keeps.

A game is a :class:`GameDef` (:mod:`banmen.games._base`): its board, formats, engines and
hooks. banmen's own games live in ``banmen.games.<name>``; a game package installed with
pip registers under the entry-point group ``banmen.games`` (docs/ADDING_A_GAME.md).
:mod:`banmen.games.registry` finds them all by name (``get_game``, ``make_engine``,
``load_games``…); this package holds only the contract, so that importing any game's
module (which runs this file first) loads no other game and nothing above the games.

What a game package imports from banmen is here: the :class:`GameDef` and its parts
(:class:`EngineKind`, :class:`GridView`, :class:`TextFormat`, :class:`Solver` and
:class:`SolveLimits`, :class:`Referee` and :class:`Forfeit` for a ``settle`` hook), how a
game ends (:class:`Outcome`, :class:`Termination`, :func:`board_outcome`), and the helpers
banmen's own boards are built on (:class:`StackBoard`, :func:`read_record`,
:func:`replay_names`, :func:`parse_json`) — besides :mod:`banmen.games.engines`
(``STANDARD_ENGINES``), :mod:`banmen.jit` and :class:`banmen.warm.KernelSet`.
``banmen.games._base`` is where they are written; importing them from there still works,
but is not the contract.
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
    StackBoard,
    TextFormat,
    board_outcome,
    parse_json,
    read_record,
    replay_names,
)
from banmen.games.outcome import Outcome, Termination

__all__ = [
    "EngineKind",
    "Forfeit",
    "GameBoard",
    "GameDef",
    "GridView",
    "Outcome",
    "Referee",
    "SolveLimits",
    "Solver",
    "StackBoard",
    "Termination",
    "TextFormat",
    "board_outcome",
    "parse_json",
    "read_record",
    "replay_names",
]
