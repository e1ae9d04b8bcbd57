"""Connect Four for banmen: a game package outside banmen's tree.

Installed (``pip install ./examples/connect-four``), it registers :data:`GAME` under the
entry point ``banmen.games`` as ``connect-four``; every front end of banmen then plays,
analyses and solves it.

**Rules.** Two players, red (``x``, side 1, moves first) and yellow (``o``, side 2), drop
discs in turn into a board of 7 columns and 6 rows standing upright: a disc falls to the
lowest empty cell of its column, and a full column cannot be played. The first to line
up four discs of their colour — across, up and down, or diagonally — wins at once; a full
board without four in a row is a draw (42 plies at most).

**Moves** are the columns, named ``"1"`` to ``"7"`` from the left (ints 0-6 inside: the
board's ``legal_moves``); a game is written as its column digits, as usual: ``"4453"`` is
red 4, yellow 4, red 5, yellow 3::

    >>> board = Board.from_moves("4453")
    >>> [board.move_name(m) for m in board.legal_moves]
    ['1', '2', '3', '4', '5', '6', '7']
    >>> board.fen()
    '......./......./......./......./...o.../..oxx.. x'

**Scores.** Values are from the side to move's view, in one unit everywhere (the engines'
scores, analysis values, the solver's value, the arena's ``scores``): a won game is worth
``WIN + e`` — ``WIN`` is 100 and ``e`` the cells still empty when the four is made, so a
quicker win is worth more (100 to 135) — a lost game ``-(WIN + e)``, a draw 0. The
heuristic a depth-limited search stops on stays strictly between -100 and 100, so a value
of 100 or more proves a forced win (within the depth searched, perhaps not the quickest),
and ``exact`` (a search that reached every end of the game) proves the value itself: who
wins, and after how many plies. At the end, ``scores(board)`` gives the winner ``WIN + e``
and the loser 0 (0 : 0 for a draw).

**Formats** (:mod:`.formats`): the move sequence (``text_formats["moves"]``, a game record
from the empty board); a FEN (``text_formats["FEN"]``, and what UGI players are sent as
``position fen``): the six rows **top first** separated by ``/``, each seven cells ``.``
(empty), ``x`` (red), ``o`` (yellow) — a digit may stand for that many empty cells — then a
space and the side to move, ``x`` or ``o``; a diagram (``text_formats["diagram"]``, what
:func:`str` draws for the terminal). ``board_from_text`` reads all three. A position read
from a FEN or a diagram is checked to be one a game reaches: no floating disc, red has as
many discs as yellow or one more (the side to move follows), and only the side that moved
last may have four in a row, made by its last disc. JSON records (``to_dict`` /
``from_dict``) hold the start position's FEN and the moves.

**Starts.** A game starts from the empty board (:func:`start`: UGI's ``position
startpos``, the web page's New game); the arena's paired games start from a seeded
opening of two random moves instead (:func:`new_board`), both games of a pair from the
same one.

**Engines**: banmen's standard ones (``alphabeta``, ``perfect``, ``random``) over the
compiled kernels of :mod:`.kernels`; :data:`SOLVER` solves positions exactly
(``banmen solve``), within a time or node limit or honestly not (:mod:`.solver`).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from banmen.games import GameDef, GridView, TextFormat
from banmen.games.engines import STANDARD_ENGINES

from banmen_connect_four.board import CELLS, WIN, Board, has_four
from banmen_connect_four.errors import (
    ConnectFourError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
)
from banmen_connect_four.formats import COLS, ROWS, column_name, parse_column
from banmen_connect_four.kernels import KERNELS, kernel_moves, perft, search_position
from banmen_connect_four.sets import KERNEL_SETS
from banmen_connect_four.solver import SOLVER

if TYPE_CHECKING:
    from banmen.analysis import Analysis, OnUpdate
    from banmen.games.engines import AlphaBetaEngine
    from banmen.search.limits import Limit, StopFlag

__all__ = [
    "GAME",
    "GRID",
    "SOLVER",
    "Board",
    "ConnectFourError",
    "InvalidPositionError",
    "InvalidMoveError",
    "IllegalMoveError",
    "KERNELS",
    "WIN",
    "COLS",
    "ROWS",
    "CELLS",
    "has_four",
    "perft",
    "analyse",
    "new_board",
    "start",
]

#: random plies of a seeded opening (see :func:`new_board`)
OPENING_PLIES = 2
#: With at most this many empty cells, the alpha-beta deepens to 8 plies and then jumps
#: to an exact solve (``GameDef.solve_horizon``): such a solve takes well under a second
#: from a position of balanced play, and finds more than deepening ply by ply would.
SOLVE_HORIZON = 30
#: With at most this many empty cells, an analysis solves every move exactly after two
#: plies of deepening; above it, it deepens ply by ply.
ANALYSIS_EXACT_EMPTIES = 28
_MASK64 = (1 << 64) - 1


def _splitmix64(seed: int) -> list[int]:
    """``OPENING_PLIES`` outputs of SplitMix64 (Steele, Lea and Flood, 2014) from ``seed``."""
    out = []
    state = seed
    for _ in range(OPENING_PLIES):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        out.append(z ^ (z >> 31))
    return out


def start(size: int | None = None) -> Board:
    """The standard start: the empty board, red to move (UGI's ``position startpos``,
    the web page's New game). Connect Four has one size: ``size`` must be ``None``.

    >>> start() == Board() and start().moves() == ""
    True
    """
    if size is not None:
        raise InvalidPositionError(
            f"Connect Four is played on {COLS} columns and {ROWS} rows only, got size {size}"
        )
    return Board()


def new_board(seed: int, size: int | None = None) -> Board:
    """The position after ``OPENING_PLIES`` random moves from the empty board, chosen by
    ``seed`` (the arena's seeded openings: both games of a pair start from the same one),
    as a fresh start: no moves on the stack, the opening kept (:meth:`Board.fresh`).
    Connect Four has one size: ``size`` must be ``None``.

    >>> new_board(7).to_dict()["opening"]
    '34'
    """
    if size is not None:
        raise InvalidPositionError(
            f"Connect Four is played on {COLS} columns and {ROWS} rows only, got size {size}"
        )
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= _MASK64:
        raise InvalidPositionError(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    b = Board()
    for r in _splitmix64(seed):
        legal = b.legal_moves
        b.push(legal[r % len(legal)])
    return b.fresh()


@cache
def _analysis_engine() -> AlphaBetaEngine:
    from banmen.games.engines import AlphaBetaEngine

    engine = AlphaBetaEngine(GAME, name="analysis")
    engine.warm_up()  # (before any analysis's clock starts)
    return engine


def analyse(
    board: Board, limit: Limit, on_update: OnUpdate | None = None, stop: StopFlag | None = None
) -> Analysis:
    """Every playable column's value for the side to move, in the game's unit
    (:func:`banmen.analysis.analyse_children`): exact once proved; with at most
    :data:`ANALYSIS_EXACT_EMPTIES` empty cells each move is solved after two plies of deepening."""
    from banmen.analysis import analyse_children

    exact_after = 2 if board.empties() <= ANALYSIS_EXACT_EMPTIES else None
    return analyse_children("connect-four", _analysis_engine(), board, limit, on_update, stop,
                            max_depth=CELLS, exact_after=exact_after)  # fmt: skip


def _sample() -> Board:
    return Board.from_moves("4453")


def _load_search() -> None:
    from banmen.games.engines import AlphaBetaEngine
    from banmen.search.limits import Limit

    engine = AlphaBetaEngine(GAME, tt_bits=10)
    engine.think(_sample(), Limit(depth=2))


def _load_mcts() -> None:
    from banmen.games.mcts_engines import load_tree

    load_tree(GAME)


def _load_dfpn() -> None:
    from banmen.games.dfpn_engines import load_dfpn

    load_dfpn(GAME)


def _load_rules() -> None:
    board = _sample()
    kernel_moves(board)
    perft(board, 2)


# --------------------------------------------------------------------------- the web grid


def _move_at(board: Board, cell: int) -> str | None:
    """A click on any cell of a column plays that column, if it can be played."""
    if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < CELLS:
        return None
    col = cell % COLS
    return column_name(col) if col in board.legal_moves else None


def _cell_of(board: Board, move: str) -> int | None:
    """The cell a disc dropped by ``move`` lands on (``None``: not a column, or full)."""
    try:
        col = parse_column(move)
    except ConnectFourError:
        return None
    row = board.landing_row(col)
    return None if row is None else (ROWS - 1 - row) * COLS + col


GRID: GridView[Board] = GridView(
    rows=lambda board: ROWS,
    cols=lambda board: COLS,
    cells=lambda board: [c if c != "." else "" for c in board.cells()],
    pieces={"x": ("#d33", ""), "o": ("#ec3", "")},
    move_at=_move_at,
    cell_of=_cell_of,
    side_pieces=("x", "o"),  # red moves first: the page's sides in red and yellow from the start
)


GAME: GameDef[Board] = GameDef(
    name="connect-four",
    title="Connect Four",
    board_from_dict=Board.from_dict,
    engines=STANDARD_ENGINES,
    kernels=KERNELS,
    search_position=search_position,
    sample=_sample,
    new_board=new_board,
    start=start,
    scores=Board.scores,
    # (the outcome: banmen's default, from the board's is_game_over / winner and scores)
    pass_name=None,  # a player always has a column to play: there is no pass
    max_plies=CELLS,
    tt_bits=20,
    solve_horizon=SOLVE_HORIZON,
    kernel_moves=kernel_moves,
    sides=("red", "yellow"),
    diagram=str,
    board_from_text=Board.from_text,
    text_formats={
        # (a position format: a game's record holds its start apart from its moves)
        "moves": TextFormat(Board.moves, Board.from_moves),
        "FEN": TextFormat(Board.fen, Board.from_fen),
        "diagram": TextFormat(str, Board.from_diagram),
    },
    analyse=analyse,
    kernel_sets=KERNEL_SETS,
    ugi=TextFormat(Board.fen, Board.from_fen),
    position_hint=(
        "a Connect Four move sequence from the empty board (column digits, e.g. 4453) or a "
        "FEN: six rows top first of . x o separated by /, a space, the side to move x or o"
    ),
    solver=SOLVER,
    summary=(
        "The classic gravity game on 7 columns × 6 rows: drop discs in turn, first to line "
        "up four wins. Play the CPU, watch two CPUs, or solve an ending exactly."
    ),
    grid=GRID,
)
