"""The alpha-beta kernels of Othello with the learned pattern evaluation
(:mod:`.patterns`): :data:`PATTERN_KERNELS` over the same state as
:data:`~banmen.games.othello.evaluation.ALPHABETA_KERNELS`, with ``ctx`` a pair
``(head, table)`` (:func:`pattern_context`): ``head`` the static move order and a digest
of the weights (the search salts its table with it), ``table`` the weights.
"""

# mypy: disable-error-code="assignment, arg-type, no-any-return"

from __future__ import annotations

import zlib
from functools import cache
from typing import Any

import numpy as np

from banmen._bits import popcnt64
from banmen._jit import kernel
from banmen.games.othello.evaluation import (
    ALPHABETA_KERNELS,
    ORDER,
    heuristic,
    moves_in_order,
)
from banmen.games.othello.formats import PASS
from banmen.games.othello.kernels import U, flips
from banmen.games.othello.patterns import (
    PROBCUT_DEPTHS,
    Weights,
    load_weights,
    no_probcut,
    pattern_value,
    phase_of,
)

__all__ = ["PATTERN_KERNELS", "pattern_context", "default_context"]


def pattern_context(
    weights: Weights, probcut: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ctx`` for :data:`PATTERN_KERNELS`: the move order and a digest of ``weights``,
    the weight table and the ProbCut table (one that never cuts if not ``probcut``)."""
    pc = weights.probcut if probcut else no_probcut()
    digest = zlib.crc32(weights.table.tobytes()) ^ zlib.crc32(pc.tobytes())
    head = np.concatenate([ORDER, [digest, int(weights.table.sum())]])
    return head.astype(np.int64), weights.table, pc


@cache
def default_context() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ctx`` with the shipped weights (:func:`.patterns.load_weights`)."""
    return pattern_context(load_weights())


@kernel
def _evaluate(ctx: Any, st: Any) -> int:
    P, O, passed = st
    return heuristic(pattern_value(ctx[1], P, O))


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> int:
    return moves_in_order(st, ctx[0], buf)


ORDER_MIN_DEPTH = 3  #: the evaluation orders the moves of nodes this deep or deeper


@kernel
def _order(ctx: Any, st: Any, buf: Any, start: int, n: int, depth: int) -> None:
    """Moves best first by the evaluation of the position each leaves (the opponent's
    view, so lowest first); shallow nodes keep the static order."""
    if depth < ORDER_MIN_DEPTH or n - start < 2 or buf[start] == PASS:
        return
    P, O, passed = st
    W = ctx[1]
    # each move with its key in one number (the key above the square's six bits), sorted
    # in place: the kernel may not allocate
    for i in range(start, n):
        mv = buf[i]
        f = flips(P, O, U(mv))
        key = pattern_value(W, O ^ f, P ^ f ^ (U(1) << U(mv)))
        buf[i] = ((key + (1 << 30)) << 6) | mv
    for i in range(start + 1, n):  # insertion sort: a dozen moves
        x = buf[i]
        j = i - 1
        while j >= start and buf[j] > x:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = x
    for i in range(start, n):
        buf[i] &= 63


@kernel
def _probcut(ctx: Any, st: Any, depth: int) -> Any:
    if depth >= PROBCUT_DEPTHS:
        depth = PROBCUT_DEPTHS - 1
    P, O, passed = st
    row = ctx[2][depth, phase_of(np.int64(popcnt64(~(P | O))))]
    return row[0], row[1], row[2], row[3]


#: the alpha-beta kernels with the patterns' move generator (in their order), evaluation,
#: ordering and ProbCut: the rules' play, gain, final value, key and horizon are the same
PATTERN_KERNELS = ALPHABETA_KERNELS._replace(
    gen_moves=_gen_moves, evaluate=_evaluate, order=_order, probcut=_probcut
)
