"""What every game tells the rest of banmen about itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from banmen.engine import Engine, GameBoard, PlayerSpec

if TYPE_CHECKING:  # annotations only: importing a game's definition loads no numpy or numba
    import numpy as np
    import numpy.typing as npt

    from banmen.search.alphabeta import Kernels

__all__ = ["GameBoard", "GameDef", "EngineFactory", "parse_json", "replay_names"]

B = TypeVar("B", bound=GameBoard)

#: builds an engine for a game from a parsed player spec
EngineFactory = Callable[["GameDef[Any]", PlayerSpec], Engine[Any]]


@dataclass(frozen=True)
class GameDef(Generic[B]):
    """A game as the engine layer and the front ends see it.

    ``engines`` maps each player kind the game offers (``alphabeta``, ``mcts``, ``gtp``,
    …) to the factory that builds it; the registry's ``make_engine`` is a lookup there.

    ``search_position(board)`` gives ``(ctx, state)`` for the compiled kernels;
    ``score_offset(board)`` converts a search value (the rest of the game, from the side
    to move's view) into the score users see (Mattix: plus the current score margin).
    """

    name: str
    title: str
    board_from_dict: Callable[[Any], B]
    #: the players this game offers: spec kind -> factory (see banmen.games.engines)
    engines: Mapping[str, EngineFactory] = field(default_factory=dict)
    kernels: Kernels | None = None
    search_position: Callable[[B], tuple[npt.NDArray[np.int64], tuple[Any, ...]]] | None = None
    score_offset: Callable[[B], int] = lambda board: 0
    #: a small position, searched once to load (or compile) the kernels before timing
    sample: Callable[[], B] | None = None
    tt_bits: int = 20
    #: with at most this many plies left, alpha-beta jumps to an exact solve (see AlphaBeta)
    solve_horizon: int = 0
    #: ``new_board(seed, size)``: the starting position a seed names (a deal, an opening);
    #: ``size`` ``None`` means the game's default size
    new_board: Callable[[int, int | None], B] | None = None
    #: ``scores(board)``: the two sides' points at the end (Mattix: pieces taken)
    scores: Callable[[B], tuple[int, int]] = lambda board: (0, 0)
    #: the longest possible game in plies (a guard for the arena)
    max_plies: int = 1000
    #: the engine kind a worker loads (and compiles) ahead of the first request
    default_engine: str = "alphabeta"
    #: ``write_record(board, first, second)``: the game on ``board`` as a file of the
    #: game's own record format (Go: SGF), naming the players of sides 1 and 2 (the
    #: arena writes one per game); ``None``: the game has no record format
    write_record: Callable[[B, str, str], str] | None = None
    #: the file name suffix of those records (Go: ``".sgf"``)
    record_suffix: str = ""


def parse_json(text: str, error: type[ValueError]) -> Any:
    """``json.loads`` with a bad document reported as one line of ``error``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"not valid JSON: {e.msg} at position {e.pos}") from None


class _PushesNames(Protocol):
    def push_name(self, name: str) -> Any: ...


def replay_names(board: _PushesNames, moves: Any, error: type[ValueError],
                 catch: type[Exception]) -> None:  # fmt: skip
    """Play ``moves`` (a list of move names) on ``board`` with ``push_name``; a bad list
    or move raises ``error`` naming the move's number (``catch``: the game's errors)."""
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise error("'moves' must be a list of square names")
    for i, m in enumerate(moves):
        try:
            board.push_name(m)
        except catch as e:
            raise error(f"move {i + 1} ({m!r}): {e}") from None
