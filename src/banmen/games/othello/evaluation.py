"""Othello's evaluation, and :data:`ALPHABETA_KERNELS`: the compiled rules
(:mod:`.kernels`) and this evaluation in the shape the shared alpha-beta searches.

Values are in centi-discs (1/100 of a disc) from the side to move's view; finished games
score ``100 x`` the final disc difference (empties to the winner), so the search compares
heuristic and exact values on one scale.

The evaluation is linear in classic features, with weights for each game phase:

* **mobility**: our legal moves minus the opponent's;
* **potential mobility** (frontier): empty squares next to opponent discs minus those next
  to ours — room to move later;
* **corners**, and the **X- and C-squares** next to an *empty* corner (they give it away);
* **stable discs** (edges anchored in a corner, discs on filled lines);
* **parity**: who is due the last move (odd number of empties for the side to move);
* **discs**, weighted only near the end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from banmen._bits import mix64, popcnt64
from banmen._jit import kernel
from banmen.games.othello.board import Board
from banmen.games.othello.endgame import _final, stable_discs
from banmen.games.othello.formats import PASS
from banmen.games.othello.kernels import U, flips, moves
from banmen.search.alphabeta import Kernels

__all__ = [
    "ALPHABETA_KERNELS",
    "alphabeta_state",
    "search_position",
    "kernel_moves",
    "evaluate",
    "features",
    "context",
    "N_FEATURES",
    "PHASES",
    "SCALE",
]

SCALE = 100  #: centi-discs per disc
N_FEATURES = 8
PHASES = 4  #: weight sets by empties: 60-45, 44-30, 29-15, 14-0

_CORNERS = U(0x8100000000000081)
# X-squares (diagonal to a corner) and C-squares (beside it), each with its corner.
_XC = (
    (U(0x0000000000000001), U(0x0000000000000200), U(0x0000000000000102)),  # a1: b2 | b1, a2
    (U(0x0000000000000080), U(0x0000000000004000), U(0x0000000000008040)),  # h1: g2 | g1, h2
    (U(0x0100000000000000), U(0x0002000000000000), U(0x0201000000000000)),  # a8: b7 | b8, a7
    (U(0x8000000000000000), U(0x0040000000000000), U(0x4080000000000000)),  # h8: g7 | g8, h7
)
# Hand-set weights (centi-discs per unit) for each phase; see context() to replace them.
# features: mobility, potential mobility, corners, x-squares, c-squares, stable, parity, discs
_DEFAULT_WEIGHTS = np.array(
    [
        [90, 40, 800, -250, -60, 120, 0, -10],
        [80, 30, 700, -220, -50, 130, 30, 0],
        [60, 15, 600, -150, -40, 150, 80, 20],
        [30, 5, 400, -80, -20, 180, 150, 60],
    ],
    dtype=np.int64,
)
# Static move order: corners, then edges and inner squares, X-squares last.
_ORDER_PRIORITY = np.array(
    [
        0, 6, 2, 3, 3, 2, 6, 0,
        6, 7, 5, 4, 4, 5, 7, 6,
        2, 5, 1, 3, 3, 1, 5, 2,
        3, 4, 3, 9, 9, 3, 4, 3,
        3, 4, 3, 9, 9, 3, 4, 3,
        2, 5, 1, 3, 3, 1, 5, 2,
        6, 7, 5, 4, 4, 5, 7, 6,
        0, 6, 2, 3, 3, 2, 6, 0,
    ]
)  # fmt: skip
ORDER = np.array(sorted(range(64), key=lambda s: (_ORDER_PRIORITY[s], s)), dtype=np.int64)


def context(weights: np.ndarray | None = None) -> np.ndarray:
    """The ``ctx`` array: the move order, then the weights (``PHASES x N_FEATURES``)."""
    w = _DEFAULT_WEIGHTS if weights is None else np.asarray(weights, dtype=np.int64)
    if w.shape != (PHASES, N_FEATURES):
        raise ValueError(f"weights must be {PHASES}x{N_FEATURES}, got {w.shape}")
    return np.concatenate([ORDER, w.reshape(-1)]).astype(np.int64)


_CONTEXT = context()


@kernel(inline="always")
def _adjacent(x: Any) -> Any:
    """Squares next to any square of ``x`` (8 directions, no wrap-around)."""
    notA = U(0xFEFEFEFEFEFEFEFE)
    notH = U(0x7F7F7F7F7F7F7F7F)
    e = (x << U(1)) & notA
    w = (x >> U(1)) & notH
    h = x | e | w
    return e | w | (h << U(8)) | (h >> U(8))


@kernel(inline="always")
def _feature_tuple(P: Any, O: Any) -> Any:
    empty = ~(P | O)
    mob = np.int64(popcnt64(moves(P, O))) - np.int64(popcnt64(moves(O, P)))
    pot = np.int64(popcnt64(_adjacent(O) & empty)) - np.int64(popcnt64(_adjacent(P) & empty))
    cor = np.int64(popcnt64(P & _CORNERS)) - np.int64(popcnt64(O & _CORNERS))
    x = np.int64(0)
    c = np.int64(0)
    for corner, xsq, csq in _XC:
        if (P | O) & corner == U(0):
            x += np.int64(popcnt64(P & xsq)) - np.int64(popcnt64(O & xsq))
            c += np.int64(popcnt64(P & csq)) - np.int64(popcnt64(O & csq))
    stab = np.int64(popcnt64(stable_discs(P, O))) - np.int64(popcnt64(stable_discs(O, P)))
    par = np.int64(popcnt64(empty) & U(1)) * 2 - 1
    discs = np.int64(popcnt64(P)) - np.int64(popcnt64(O))
    return (mob, pot, cor, x, c, stab, par, discs)


@kernel
def features(P: Any, O: Any, out: Any) -> None:
    """The feature vector of a position, side to move first (see module doc)."""
    f = _feature_tuple(P, O)
    for i in range(N_FEATURES):
        out[i] = f[i]


@kernel
def evaluate(ctx: Any, st: Any) -> int:
    P, O, passed = st
    empties = np.int64(popcnt64(~(P | O)))
    phase = 0 if empties >= 45 else (1 if empties >= 30 else (2 if empties >= 15 else 3))
    base = 64 + phase * N_FEATURES
    f = _feature_tuple(P, O)
    v = np.int64(0)
    for i in range(N_FEATURES):
        v += ctx[base + i] * f[i]
    return heuristic(v)


@kernel(inline="always")
def heuristic(v: Any) -> Any:
    """An evaluation kept strictly inside the range of exact results (|value| < 6400),
    which always mean more."""
    if v > 6300:
        return np.int64(6300)
    if v < -6300:
        return np.int64(-6300)
    return np.int64(v)


@kernel(inline="always")
def moves_in_order(st: Any, order: Any, buf: Any) -> int:
    """:attr:`Kernels.gen_moves` for ``(P, O, passed)`` with the squares tried in
    ``order`` (its first 64 entries): the pass alone when the mover has no move, nothing
    when the game is over."""
    P, O, passed = st
    mv = moves(P, O)
    if mv == U(0):
        if passed != 0 or moves(O, P) == U(0):
            return 0
        buf[0] = PASS
        return 1
    n = 0
    for i in range(64):
        sq = order[i]
        if (mv >> U(sq)) & U(1):
            buf[n] = sq
            n += 1
    return n


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> int:
    return moves_in_order(st, ctx, buf)


@kernel
def _play(ctx: Any, st: Any, mv: int) -> Any:
    P, O, passed = st
    if mv == PASS:
        return (O, P, np.int64(1))
    f = flips(P, O, U(mv))
    return (O ^ f, P ^ f ^ (U(1) << U(mv)), np.int64(0))


@kernel
def _gain(ctx: Any, st: Any, mv: int) -> int:
    return 0


@kernel
def _final_value(ctx: Any, st: Any) -> int:
    P, O, passed = st
    return _final(P, O) * SCALE


@kernel
def _key(ctx: Any, st: Any) -> int:
    P, O, passed = st
    return mix64(np.int64(P) ^ mix64(np.int64(O) + 0x632BE59BD9B4E019))


@kernel
def _horizon(ctx: Any, st: Any) -> int:
    # Each move fills a square; a pass fills none but two passes in a row end the game,
    # so 2 per empty plus one for a pending pass bounds the plies left, and drops by at
    # least one with every ply (a pass consumes the "+1").
    P, O, passed = st
    return 2 * np.int64(popcnt64(~(P | O))) + 1 - passed


@kernel
def _cell(ctx: Any, st: Any, i: int) -> int:
    P, O, passed = st
    s = U(i)
    return np.int64((P >> s) & U(1)) + 2 * np.int64((O >> s) & U(1))


@kernel
def _grid(ctx: Any) -> tuple[int, int]:
    return np.int64(8), np.int64(8)


ALPHABETA_KERNELS = Kernels(
    gen_moves=_gen_moves,
    play=_play,
    gain=_gain,
    evaluate=evaluate,
    final=_final_value,
    key=_key,
    horizon=_horizon,
    max_moves=34,
    max_plies=128,
    move_limit=PASS + 1,
    pass_move=PASS,
    # fitted to MCTS self-play outcomes (docs/BENCHMARKS.md, issue 37): 13 discs of this
    # evaluation are one logistic unit of win probability
    value_scale=1300.0,
    eval_bound=6300,  # (heuristic())
    # the cells an n-tuple evaluation reads (``+ntuple``): square i (a1 = 0, b1 = 1, …,
    # rank 1 on top), 0 empty, 1 the mover's disc, 2 the opponent's
    cell=_cell,
    cell_values=3,
    grid=_grid,
)


def alphabeta_state(board: Board) -> tuple[np.uint64, np.uint64, np.int64]:
    """``(P, O, passed)`` of ``board`` for :data:`ALPHABETA_KERNELS` (no pass pending)."""
    p, o = board.pieces()
    return (np.uint64(p), np.uint64(o), np.int64(0))


def search_position(board: Board) -> tuple[np.ndarray, tuple[np.uint64, np.uint64, np.int64]]:
    """``(ctx, state)`` of ``board`` for :data:`ALPHABETA_KERNELS` (the hand-set
    evaluation's context): ``GameDef.search_position``."""
    return _CONTEXT, alphabeta_state(board)


def kernel_moves(board: Board) -> list[int]:
    """The moves the compiled move generator finds in ``board`` (in its search order):
    ``[PASS]`` when the side to move must pass, none once the game is over."""
    buf = np.empty(ALPHABETA_KERNELS.max_moves, dtype=np.int64)
    n = ALPHABETA_KERNELS.gen_moves(_CONTEXT, alphabeta_state(board), buf)
    return [int(m) for m in buf[:n]]
