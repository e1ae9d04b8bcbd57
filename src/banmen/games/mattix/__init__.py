"""Mattix (マティックス), Gakken's edition: take pieces from the chip's row or column.

``board`` holds the rules (pure Python), ``formats`` the square names and layout strings,
``kernels`` the compiled kernels the shared alpha-beta searches (Mattix has no player of
its own: :data:`GAME` offers the standard engines)::

    >>> board = Board.from_seed(0, 4)
    >>> board.size, len(board.legal_moves) > 0
    (4, True)
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from banmen.games._base import GameDef, Solver, TextFormat
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.mattix import solve as _solve
from banmen.games.mattix.board import PIECES, SIZES, Board, deal
from banmen.games.mattix.errors import (
    IllegalMoveError,
    InvalidLayoutError,
    InvalidMoveError,
    MattixError,
)
from banmen.games.mattix.formats import CHIP, parse_layout, parse_square, square_name, write_layout
from banmen.games.mattix.kernels import KERNELS, kernel_moves, kernel_position
from banmen.games.mattix.sets import KERNEL_SETS

if TYPE_CHECKING:
    from banmen.analysis import Analysis, OnUpdate
    from banmen.games.engines import AlphaBetaEngine
    from banmen.search.limits import Limit, StopFlag

__all__ = [
    "GAME",
    "Board",
    "MattixError",
    "InvalidLayoutError",
    "InvalidMoveError",
    "IllegalMoveError",
    "PIECES",
    "SIZES",
    "CHIP",
    "deal",
    "square_name",
    "parse_square",
    "parse_layout",
    "write_layout",
    "KERNELS",
    "kernel_position",
]


@cache
def _analysis_engine() -> AlphaBetaEngine:
    from banmen.games.engines import AlphaBetaEngine

    engine = AlphaBetaEngine(GAME, name="analysis")
    engine.warm_up()  # (before any analysis's clock starts)
    return engine


def analyse(
    board: Board, limit: Limit, on_update: OnUpdate | None = None, stop: StopFlag | None = None
) -> Analysis:
    """Every takeable piece's value for the mover: the final margin after taking it
    (:func:`banmen.analysis.analyse_children`). Up to 6x6 the values are proved by a
    whole solve of each move after two plies of deepening; larger boards deepen."""
    from banmen.analysis import analyse_children

    exact_after = 2 if board.size <= 6 else None
    return analyse_children(
        "mattix",
        _analysis_engine(),
        board,
        limit,
        on_update,
        stop,
        exact_after=exact_after,
        pass_name=GAME.pass_name,
    )


def _load_search() -> None:
    from banmen.games.engines import AlphaBetaEngine
    from banmen.search.limits import Limit

    engine = AlphaBetaEngine(GAME, tt_bits=10)
    engine.think(Board.from_seed(0, 4), Limit(depth=2))  # deepening
    engine.think(Board.from_seed(1, 4), Limit())  # the jump to an exact solve


def _load_mcts() -> None:
    from banmen.games.mcts_engines import load_tree

    load_tree(GAME)


def _load_dfpn() -> None:
    from banmen.games.dfpn_engines import load_dfpn

    load_dfpn(GAME)


GAME: GameDef[Board] = GameDef(
    name="mattix",
    title="Mattix",
    board_from_dict=Board.from_dict,
    engines=STANDARD_ENGINES,
    kernels=KERNELS,
    search_position=kernel_position,
    score_offset=lambda board: board.margin(),
    sample=lambda: Board.from_seed(0, 4),
    new_board=lambda seed, size: Board.from_seed(seed, 6 if size is None else size),
    # Mattix has no standard position: every game is a deal. Its start (UGI's
    # startpos) is the deal of seed 0, 6x6 unless a size is given; the web page and the
    # arena deal each game from a seed.
    start=lambda size: Board.from_seed(0, 6 if size is None else size),
    pass_name=None,  # no pass: a side with no piece in its line ends the game
    scores=lambda board: board.scores,
    max_plies=KERNELS.max_plies,
    # 2**18 buckets (8 MiB): the exact 6x6 solve is memory-bound, and this size solves
    # fastest on the benchmark (docs/BENCHMARKS.md).
    tt_bits=18,
    # A whole 6x6 game (35 plies) solves in well under a second, so solve whenever
    # a 6x6 game or less is left; 8x8 games deepen ply by ply until then.
    solve_horizon=36,
    kernel_moves=kernel_moves,
    diagram=str,
    board_from_text=Board.from_layout,
    text_formats={"layout": TextFormat(Board.layout, Board.from_layout)},
    analyse=analyse,
    kernel_sets=KERNEL_SETS,
    ugi=TextFormat(Board.layout, Board.from_layout),
    # the solver searches with this GameDef (GAME, read when a solve runs)
    solver=Solver(lambda board, limits: _solve.solve(GAME, board, limits), _solve.lines),
    position_hint="a Mattix layout string",
    summary=(
        "Gakken's number-taking game on a 4×4 or 6×6 board: player 1 takes from the chip's "
        "row, player 2 from its column. Play the CPU, or watch two CPUs."
    ),
    web="banmen.web.games.mattix:MattixGame",
)
