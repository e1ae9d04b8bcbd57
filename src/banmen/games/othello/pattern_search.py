"""The alpha-beta kernels of Othello with the learned pattern evaluation
(:mod:`.patterns`): :data:`PATTERN_KERNELS` over the same state as
:data:`~banmen.games.othello.evaluation.ALPHABETA_KERNELS`, with ``ctx`` a pair
``(head, table)`` (:func:`pattern_context`): ``head`` the static move order and a digest
of the weights (the search salts its table with it), ``table`` the weights.
"""

# mypy: disable-error-code="assignment"

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from banmen._jit import kernel
from banmen.games.othello.evaluation import (
    ALPHABETA_KERNELS,
    ORDER,
    _final_value,
    _gain,
    _horizon,
    _key,
    _play,
)
from banmen.games.othello.formats import PASS
from banmen.games.othello.kernels import U, moves
from banmen.games.othello.patterns import Weights, load_weights, pattern_value
from banmen.search.alphabeta import Kernels

__all__ = ["PATTERN_KERNELS", "pattern_context", "default_context"]


def pattern_context(weights: Weights) -> tuple[np.ndarray, np.ndarray]:
    """``ctx`` for :data:`PATTERN_KERNELS`: the move order and a digest of ``weights``,
    and the weight table."""
    digest = zlib.crc32(weights.table.tobytes())
    head = np.concatenate([ORDER, [digest, int(weights.table.sum())]])
    return head.astype(np.int64), weights.table


_DEFAULT: tuple[np.ndarray, np.ndarray] | None = None


def default_context() -> tuple[np.ndarray, np.ndarray]:
    """``ctx`` with the shipped weights (:func:`.patterns.load_weights`)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = pattern_context(load_weights())
    return _DEFAULT


@kernel
def _evaluate(ctx: Any, st: Any) -> int:
    P, O, passed = st
    v = pattern_value(ctx[1], P, O)
    # Stay strictly inside the range of exact results, which always mean more.
    if v > 6300:
        v = np.int64(6300)
    elif v < -6300:
        v = np.int64(-6300)
    return v


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> int:
    P, O, passed = st
    mv = moves(P, O)
    if mv == U(0):
        if passed != 0 or moves(O, P) == U(0):
            return 0
        buf[0] = PASS
        return 1
    order = ctx[0]
    n = 0
    for i in range(64):
        sq = order[i]
        if (mv >> U(sq)) & U(1):
            buf[n] = sq
            n += 1
    return n


PATTERN_KERNELS = Kernels(
    gen_moves=_gen_moves,
    play=_play,
    gain=_gain,
    evaluate=_evaluate,
    final=_final_value,
    key=_key,
    horizon=_horizon,
    max_moves=ALPHABETA_KERNELS.max_moves,
    max_plies=ALPHABETA_KERNELS.max_plies,
)
