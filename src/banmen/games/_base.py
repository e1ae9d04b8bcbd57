"""What every game tells the rest of banmen about itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: importing a game's definition loads no numpy or numba
    import numpy as np
    import numpy.typing as npt

    from banmen.search.alphabeta import Kernels


class GameBoard(Protocol):
    """The board API front ends rely on (python-chess style ``push`` / ``pop``)."""

    move_stack: list[int]

    @property
    def legal_moves(self) -> Sequence[int]: ...

    @property
    def turn(self) -> int: ...

    def push(self, move: int) -> None: ...

    def pop(self) -> int: ...

    def is_game_over(self) -> bool: ...

    def result(self) -> str: ...

    def move_name(self, move: int) -> str: ...

    def parse_move(self, text: str) -> int: ...

    def to_dict(self) -> dict[str, Any]: ...

    def copy(self) -> Any: ...


@dataclass(frozen=True)
class GameDef:
    """A game as the engine layer and the front ends see it.

    ``search_position(board)`` gives ``(ctx, state)`` for the compiled kernels;
    ``score_offset(board)`` converts a search value (the rest of the game, from the side
    to move's view) into the score users see (Mattix: plus the current score margin).
    """

    name: str
    title: str
    board_from_dict: Callable[[Any], Any]
    kernels: Kernels | None = None
    search_position: Callable[[Any], tuple[npt.NDArray[np.int64], tuple[Any, ...]]] | None = None
    score_offset: Callable[[Any], int] = lambda board: 0
    #: a small position, searched once to load (or compile) the kernels before timing
    sample: Callable[[], Any] | None = None
    tt_bits: int = 20
    #: with at most this many plies left, alpha-beta jumps to an exact solve (see AlphaBeta)
    solve_horizon: int = 0
    #: ``new_board(seed, size)``: the starting position a seed names (a deal, an opening);
    #: ``size`` ``None`` means the game's default size
    new_board: Callable[[int, int | None], Any] | None = None
    #: ``scores(board)``: the two sides' points at the end (Mattix: pieces taken)
    scores: Callable[[Any], tuple[int, int]] = lambda board: (0, 0)
    #: the longest possible game in plies (a guard for the arena)
    max_plies: int = 1000
    #: ``make_engine(spec)`` for a game with its own engine (else the shared alpha-beta)
    make_engine: Callable[[Any], Any] | None = None
    #: the engine kind a worker loads (and compiles) ahead of the first request
    default_engine: str = "alphabeta"


def parse_json(text: str, error: type[ValueError]) -> Any:
    """``json.loads`` with a bad document reported as one line of ``error``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"not valid JSON: {e.msg} at position {e.pos}") from None


def replay_names(board: Any, moves: Any, error: type[ValueError],
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
