"""Mattix's compiled search kernels (numba) for the shared alpha-beta.

State: ``(mask, chip, side)`` — ``mask`` has bit ``sq`` set where a piece remains (an int64
bit pattern), ``chip`` is the chip's square, ``side`` is 0 for player 1 (row) and 1 for
player 2 (column). ``ctx`` (int64): ``[0, NN)`` the piece values; ``[NN, 2NN)`` for each
row its squares by value, highest first; ``[2NN, 3NN)`` the same for each column;
``ctx[3NN] = N``. Precomputing the order per line gives "biggest piece first" move
ordering for free.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._bits import mix64, popcount64
from banmen._jit import kernel
from banmen.games.mattix.board import Board
from banmen.games.mattix.formats import MAX_SIZE
from banmen.search.alphabeta import Kernels

__all__ = ["KERNELS", "kernel_position", "kernel_moves"]

#: order moves by net gain instead of by value (off: measured slower)
ORDER = False


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> int:
    mask, chip, side = st
    size = ctx[ctx.shape[0] - 1]
    nn = size * size
    if side == 0:
        base = nn + (chip // size) * size
    else:
        base = 2 * nn + (chip % size) * size
    n = 0
    for i in range(size):
        sq = ctx[base + i]
        if (mask >> sq) & 1:
            buf[n] = sq
            n += 1
    if n > 1 and ORDER:
        # Order by net gain: the piece's value minus the best piece the opponent can then
        # take from the line through it (the line is sorted, so the first hit is the best).
        scores = np.empty(8, np.int64)
        obase = 2 * nn if side == 0 else nn
        for i in range(n):
            sq = buf[i]
            m2 = mask & ~(np.int64(1) << sq)
            ob = obase + ((sq % size) if side == 0 else (sq // size)) * size
            best = 0
            for j in range(size):
                s2 = ctx[ob + j]
                if (m2 >> s2) & 1:
                    best = ctx[s2]
                    break
            scores[i] = ctx[sq] - best
        for i in range(1, n):
            sq = buf[i]
            sc = scores[i]
            j = i - 1
            while j >= 0 and scores[j] < sc:
                buf[j + 1] = buf[j]
                scores[j + 1] = scores[j]
                j -= 1
            buf[j + 1] = sq
            scores[j + 1] = sc
    return n


@kernel
def _play(ctx: Any, st: Any, mv: int) -> Any:
    mask, chip, side = st
    return (mask & ~(np.int64(1) << mv), np.int64(mv), np.int64(1) - side)


@kernel
def _gain(ctx: Any, st: Any, mv: int) -> int:
    return ctx[mv]


@kernel
def _zero(ctx: Any, st: Any) -> int:
    # Scores are banked as gains, so both the heuristic (the write-up's "score difference")
    # and the value of a finished game are zero from here on.
    return 0


@kernel
def _key(ctx: Any, st: Any) -> int:
    mask, chip, side = st
    return mix64(mask ^ mix64((chip << 1 | side) + 1))


@kernel
def _horizon(ctx: Any, st: Any) -> int:
    return popcount64(st[0])


#: the piece values a cell tells apart (beyond them, the nearest): -10 to 10
CELL_VALUE_CAP = 10
#: cell contents: 0 empty, 1 the chip, 2 + (value + 10) a piece
CELL_VALUES = 2 * CELL_VALUE_CAP + 3


@kernel
def _cell(ctx: Any, st: Any, i: int) -> int:
    # From the side to move's view: the mover takes from the chip's row, so player 2's
    # board is read transposed (its columns as rows).
    mask, chip, side = st
    size = ctx[ctx.shape[0] - 1]
    sq = i if side == 0 else (i % size) * size + i // size
    if sq == chip:
        return np.int64(1)
    if (mask >> sq) & 1 == 0:
        return np.int64(0)
    v = min(max(ctx[sq], -CELL_VALUE_CAP), CELL_VALUE_CAP)
    return np.int64(2 + CELL_VALUE_CAP + v)


@kernel
def _grid(ctx: Any) -> tuple[int, int]:
    size = ctx[ctx.shape[0] - 1]
    return size, size


KERNELS = Kernels(
    gen_moves=_gen_moves,
    play=_play,
    gain=_gain,
    evaluate=_zero,
    final=_zero,
    key=_key,
    horizon=_horizon,
    max_moves=MAX_SIZE,
    max_plies=MAX_SIZE * MAX_SIZE,
    move_limit=MAX_SIZE * MAX_SIZE,
    # points of margin to one logistic unit of win probability, fitted to MCTS self-play
    # outcomes: about 10 on 6x6, 2.5 on 4x4 (docs/BENCHMARKS.md, issue 37)
    value_scale=6.0,
    # the cells an n-tuple evaluation reads (``+ntuple``): the board from the side to
    # move's view (player 2's transposed: the mover's line is a row), 0 empty, 1 the chip,
    # 2 + 10 + v a piece of value v (values beyond +-10 count as +-10)
    cell=_cell,
    cell_values=CELL_VALUES,
    grid=_grid,
)


def kernel_context(board: Board) -> npt.NDArray[np.int64]:
    n = board.size
    nn = n * n
    values = [0 if v is None else v for v in board.cells]
    ctx = np.zeros(3 * nn + 1, dtype=np.int64)
    ctx[:nn] = values
    for r in range(n):
        line = sorted(range(r * n, r * n + n), key=lambda s: (-values[s], s))
        ctx[nn + r * n : nn + r * n + n] = line
    for c in range(n):
        line = sorted(range(c, nn, n), key=lambda s: (-values[s], s))
        ctx[2 * nn + c * n : 2 * nn + c * n + n] = line
    ctx[3 * nn] = n
    return ctx


def kernel_state(board: Board) -> tuple[np.int64, np.int64, np.int64]:
    mask = 0
    for sq, v in enumerate(board.cells):
        if v is not None:
            mask |= 1 << sq
    if mask >= 1 << 63:
        mask -= 1 << 64
    return (np.int64(mask), np.int64(board.chip), np.int64(board.turn - 1))


def kernel_position(board: Board) -> tuple[npt.NDArray[np.int64], tuple[Any, ...]]:
    """``(ctx, state)`` of ``board`` for the search kernels.

    The context depends only on the piece values of the start position, so it is the same
    for all positions of one game (a search salts its table with a hash of it); it is built
    once per game and kept on the board.
    """
    ctx = board._kernel_ctx
    if ctx is None:
        ctx = board._kernel_ctx = kernel_context(board.start_board())
    return ctx, kernel_state(board)


def kernel_moves(board: Board) -> list[int]:
    """The moves the compiled move generator finds in ``board`` (in its search order)."""
    ctx, state = kernel_position(board)
    buf = np.empty(KERNELS.max_moves, dtype=np.int64)
    n = KERNELS.gen_moves(ctx, state, buf)
    return [int(m) for m in buf[:n]]
