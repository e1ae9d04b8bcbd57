"""Shogi, as far as banmen needs it: the rules and records, and tsume-shogi (mate problems).

* :mod:`.board` — :class:`Board` (python-chess style, over cshogi: push / pop, USI moves,
  JSON, sennichite);
* :mod:`.errors` — :class:`ShogiError` and its kinds;
* :mod:`.formats` — SFEN in (checked in Python: cshogi aborts on some bad strings) and out,
  USI moves, KIF and CSA;
* :mod:`.kernels` — the rules as compiled kernels (checks, evasions, keys without the
  hand, mate in one, futile interpositions) for df-pn; cshogi is their oracle in the tests;
* :mod:`.tsume` — the composer's counting (shortest mate, longest resistance, futile
  interpositions not counted) over a df-pn backend: :mod:`.compiled` (the compiled df-pn
  over the kernels) or :mod:`.position` (the pure-Python reference over cshogi);
* :mod:`.problem` — a problem as front ends show it: checking it, the steps of a line, a
  one-line summary of a result;
* :mod:`.engine` — :class:`MateEngine`, the solver behind the engine contract.

:data:`GAME` registers shogi with the engine layer: its players are ``mate`` (the solver)
and ``random``; its text formats are SFEN (a position) and USI's ``position`` arguments
(a game: ``startpos moves 7g7f …``); ``kernel_moves`` are the compiled rules'. It has no
seeded start for the arena (mate problems are not played out),
so the arena and terminal play say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from banmen.engine import Engine, PlayerSpec
from banmen.games._base import EngineKind, GameDef, TextFormat
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.shogi.board import BLACK, WHITE, Board
from banmen.games.shogi.errors import (
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    ShogiError,
)
from banmen.games.shogi.formats import STARTPOS, normalize_sfen, parse_sfen
from banmen.games.shogi.sets import KERNEL_SETS
from banmen.games.shogi.solve import SOLVER

if TYPE_CHECKING:
    from banmen.analysis import Analysis, OnUpdate
    from banmen.search.limits import Limit, StopFlag


def _mate(game: GameDef[Board], spec: PlayerSpec) -> Engine[Board]:
    # numba and the compiled solver load with the first mate player, not with the registry
    from banmen.games.shogi.engine import DEFAULT_HASH_MB, MateEngine

    return MateEngine(spec.limit, spec.options.get("hash", DEFAULT_HASH_MB), name=spec.text)


def analyse(
    board: Board, limit: Limit, on_update: OnUpdate | None = None, stop: StopFlag | None = None
) -> Analysis:
    """What is proved about each check of the side to move (:mod:`.analysis`)."""
    from banmen.games.shogi.analysis import analyse as run  # (numba loads with the first)

    return run(board, limit, on_update, stop)


def _start(size: int | None) -> Board:
    """The standard start (hirate: no handicap), black to move."""
    if size is not None:
        raise InvalidBoardError(f"shogi is played on 9x9 only, got size {size}")
    return Board()


def _kernel_moves(board: Board) -> list[int]:
    """The legal moves as the compiled rules (:func:`.kernels.gen_legal`) find them, as
    cshogi's move integers (the board's encoding: the kernels' 16-bit moves carry no
    piece)."""
    # numpy, numba and the compiled rules load with the first use, not with the registry
    import numpy as np

    from banmen.games.shogi import kernels as K

    position = board.cshogi_board()
    buf = np.empty(K.MAX_MOVES, np.int64)
    n = K.gen_legal(K.CTX, K.from_board(position), buf)
    return [int(position.move_from_move16(int(m))) for m in buf[:n]]


GAME: GameDef[Board] = GameDef(
    name="shogi",
    title="Shogi",
    board_from_dict=Board.from_dict,
    sample=Board,
    start=_start,
    pass_name=None,  # shogi has no pass
    max_plies=1000,
    engines={
        "mate": EngineKind(
            _mate,
            "a mate solver (df-pn with tsume counting); time=SECONDS, nodes=N, hash=MB "
            "(no limit by default)",
            ("time", "nodes", "hash"),
        ),
        "random": STANDARD_ENGINES["random"],
    },
    default_engine="mate",
    proof_engines=("mate",),
    kernel_moves=_kernel_moves,
    sides=("black", "white"),
    diagram=str,
    text_formats={
        "SFEN": TextFormat(Board.sfen, Board),
        "USI position": TextFormat(Board.usi, Board.from_usi, game=True),
    },
    analyse=analyse,
    kernel_sets=KERNEL_SETS,
    ugi=TextFormat(Board.sfen, Board),
    solver=SOLVER,
    board_from_text=Board,
    position_hint="a mate problem as SFEN (the attacker to move)",
)

__all__ = [
    "GAME",
    "Board",
    "BLACK",
    "WHITE",
    "STARTPOS",
    "ShogiError",
    "InvalidBoardError",
    "InvalidMoveError",
    "IllegalMoveError",
    "normalize_sfen",
    "parse_sfen",
]
