"""Connect Four compiled with numba: the rules on bitboards, perft, and the kernels of
banmen's shared alpha-beta (:class:`banmen.search.alphabeta.Kernels`).

A position is two ``int64`` bitboards in the board's layout (:mod:`.board`: 7 bits per
column, bit ``7 * col + row``, row 0 the bottom, the seventh bit a sentinel that is never
set): ``cur``, the discs of the side to move, and ``mask``, every disc. A move in column
``c`` is ``(cur ^ mask, mask | (mask + bottom(c)))`` — the disc lands where the carry of
``mask + bottom(c)`` stops, and the opponent becomes the side to move.

The search state is ``(cur, mask)``; ``ctx`` is a one-element array (nothing varies from
one game to the next). The kernels:

* ``gen_moves``: no moves once the side that just moved has four or the board is full;
  a winning drop alone if the side to move has one; else the one drop that stops the
  opponent's winning drop (if the opponent has two, every move loses at once and one
  stands for all); else every column, centre first, the drops just below a cell where
  the opponent would win last. Each cut keeps the exact value: the alpha-beta's exact
  solves stay exact;
* ``play``: the move above; ``gain``: 0 (nothing is banked before the end);
* ``final``: ``-(WIN + empties)`` when the side that just moved has four (the side to move
  lost, with ``empties`` cells left), else 0 (a draw);
* ``evaluate``: a heuristic from the side to move's view, always strictly between
  ``-WIN`` and ``WIN``: discs in the centre column, *threats* (empty cells that would
  complete a four), those on the rows that favour their owner (Allis: odd rows for red,
  even rows for yellow, counted from the bottom), and an immediate win or a double threat;
* ``key``: ``cur + mask`` — unique for a position (each column holds ``2**h - 1`` plus the
  mover's discs, below ``2**(h + 1) - 1``), mixed by an invertible multiply-xorshift;
* ``horizon``: the empty cells;
* ``cell``: what a cell holds for an n-tuple evaluation (banmen's ``+ntuple``): cells row
  by row from the top (the grid view's numbers), 0 empty, 1 the side to move's disc, 2
  the other side's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from banmen.jit import kernel, njit
from banmen.search.alphabeta import Kernels
from numba import types

from banmen_connect_four.board import BOTTOM, CELLS, FULL, STRIDE, WIN
from banmen_connect_four.formats import COLS, ROWS

if TYPE_CHECKING:
    from banmen_connect_four.board import Board

__all__ = [
    "KERNELS",
    "CTX",
    "search_position",
    "kernel_moves",
    "search_moves",
    "perft",
    "count_positions",
    "evaluate_board",
    "legal_moves",
    "play",
    "has_four",
    "winning_cells",
]

COLUMN = (1 << ROWS) - 1  #: the six cells of column 0
#: the search's move order: centre first
ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
CENTER = COLUMN << (3 * STRIDE)
ODD_ROWS = BOTTOM * 0b010101  #: rows 1, 3, 5 counted from 1 at the bottom
EVEN_ROWS = BOTTOM * 0b101010  #: rows 2, 4, 6
#: the heuristic stays within +-EVAL_MAX (< WIN: any proved win or loss means more)
EVAL_MAX = WIN - 10
#: the search's constant context (the table's salt is hashed from it)
CTX = np.zeros(1, dtype=np.int64)


@njit(cache=True, inline="always")
def _popcount(x: Any) -> Any:
    """Set bits of a non-negative int64 (SWAR)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True, inline="always")
def has_four(b: Any) -> bool:
    """Whether the discs ``b`` hold four in a row: vertical (shift 1), horizontal (7) or
    diagonal (6, 8)."""
    for s in (1, STRIDE, STRIDE - 1, STRIDE + 1):
        m = b & (b >> s)
        if m & (m >> (2 * s)):
            return True
    return False


@njit(cache=True, inline="always")
def winning_cells(p: Any, mask: Any) -> Any:
    """The empty cells where a disc would complete four in a row for the discs ``p``
    (each shifted term is a run of ``p`` next to the cell; a run that would cross from
    one column into the next passes the always-empty sentinel, so none does)."""
    r = (p << 1) & (p << 2) & (p << 3)  # three below
    for s in (STRIDE, STRIDE - 1, STRIDE + 1):
        lo = (p << s) & (p << (2 * s))  # two on one side ...
        r |= lo & (p << (3 * s))  # ... and a third beyond them
        r |= lo & (p >> s)  # ... and one on the other side
        hi = (p >> s) & (p >> (2 * s))
        r |= hi & (p >> (3 * s))
        r |= hi & (p << s)
    return r & (FULL ^ mask)


@njit(cache=True, inline="always")
def _column_of(cells: Any) -> Any:
    """The leftmost column with a cell in ``cells`` (not empty)."""
    for c in range(COLS):
        if (cells >> (c * STRIDE)) & COLUMN:
            return c
    return -1


@njit(cache=True)
def legal_moves(cur: Any, mask: Any, buf: Any) -> int:
    """The playable columns, left to right, into ``buf``; 0 once the game is over."""
    if mask == FULL or has_four(cur ^ mask):
        return 0
    n = 0
    for c in range(COLS):
        if (mask >> (c * STRIDE + ROWS - 1)) & 1 == 0:
            buf[n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def play(cur: Any, mask: Any, col: Any) -> Any:
    """``(cur, mask)`` after a disc in ``col`` (the opponent to move)."""
    return cur ^ mask, mask | (mask + (np.int64(1) << (col * STRIDE)))


@njit(cache=True, returns=types.int64)
def _perft(cur: Any, mask: Any, depth: Any, bufs: Any) -> Any:
    if depth == 0:
        return 1
    buf = bufs[depth]
    n = legal_moves(cur, mask, buf)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        c2, m2 = play(cur, mask, buf[i])
        total += _perft(c2, m2, depth - 1, bufs)
    return total


@njit(cache=True)
def _positions(depth: Any, counts: Any) -> None:
    """``counts[n]``: the distinct positions after ``n`` plies from the empty board (a
    finished game is counted, and not played on), level by level, deduplicated by key."""
    cur = np.zeros(1, dtype=np.int64)
    mask = np.zeros(1, dtype=np.int64)
    buf = np.zeros(COLS, dtype=np.int64)
    counts[0] = 1
    for ply in range(1, depth + 1):
        n = cur.shape[0]
        nc = np.empty(n * COLS, dtype=np.int64)
        nm = np.empty(n * COLS, dtype=np.int64)
        k = 0
        for i in range(n):
            m = legal_moves(cur[i], mask[i], buf)
            for j in range(m):
                nc[k], nm[k] = play(cur[i], mask[i], buf[j])
                k += 1
        keys = nc[:k] + nm[:k]  # unique per position (see the module's doc)
        order = np.argsort(keys)
        uc = np.empty(k, dtype=np.int64)
        um = np.empty(k, dtype=np.int64)
        u = 0
        last = -1
        for idx in order:
            if keys[idx] != last:
                last = keys[idx]
                uc[u] = nc[idx]
                um[u] = nm[idx]
                u += 1
        counts[ply] = u
        cur = uc[:u].copy()
        mask = um[:u].copy()


# --------------------------------------------------------------------------- search


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> Any:
    cur, mask = st
    opp = cur ^ mask
    if mask == FULL or has_four(opp):
        return 0
    free = (mask + BOTTOM) & FULL  # where a disc lands in each column not full
    win = winning_cells(cur, mask) & free
    if win:
        buf[0] = _column_of(win)
        return 1
    threats = winning_cells(opp, mask)
    must = threats & free
    if must:
        buf[0] = _column_of(must)
        return 1
    below = threats >> 1  # a disc here lets the opponent win on top of it
    n = 0
    for late in range(2):
        for i in range(COLS):
            cell = free & (COLUMN << (ORDER[i] * STRIDE))
            if cell and ((cell & below) != 0) == (late == 1):
                buf[n] = ORDER[i]
                n += 1
    return n


@kernel
def _play(ctx: Any, st: Any, mv: Any) -> Any:
    cur, mask = st
    return play(cur, mask, mv)


@kernel
def _gain(ctx: Any, st: Any, mv: Any) -> Any:
    return 0


@kernel
def _final(ctx: Any, st: Any) -> Any:
    cur, mask = st
    if has_four(cur ^ mask):
        return _popcount(mask) - (WIN + CELLS)  # -(WIN + empty cells)
    return 0


@kernel
def _evaluate(ctx: Any, st: Any) -> Any:
    cur, mask = st
    opp = cur ^ mask
    free = (mask + BOTTOM) & FULL
    mine = winning_cells(cur, mask)
    theirs = winning_cells(opp, mask)
    if mine & free:
        return np.int64(EVAL_MAX)  # the side to move wins with its next disc
    if _popcount(theirs & free) >= 2:
        return np.int64(-EVAL_MAX)  # two wins to stop: one will be left
    red = (_popcount(mask) & 1) == 0  # red is to move
    my_rows = ODD_ROWS if red else EVEN_ROWS
    their_rows = EVEN_ROWS if red else ODD_ROWS
    v = 4 * (_popcount(cur & CENTER) - _popcount(opp & CENTER))
    v += 6 * (_popcount(mine) - _popcount(theirs))
    v += 6 * (_popcount(mine & my_rows) - _popcount(theirs & their_rows))
    return max(-EVAL_MAX + 1, min(EVAL_MAX - 1, v))


@kernel
def _key(ctx: Any, st: Any) -> Any:
    cur, mask = st
    x = (cur + mask) * -7046029254386353131  # odd: invertible mod 2**64
    return x ^ ((x >> 29) & 0x7FFFFFFFF)  # xor with the logical shift: invertible


@kernel
def _horizon(ctx: Any, st: Any) -> Any:
    return CELLS - _popcount(st[1])


@kernel
def _cell(ctx: Any, st: Any, i: Any) -> Any:
    cur, mask = st
    b = (i % COLS) * STRIDE + (ROWS - 1 - i // COLS)  # cell i counts rows from the top
    return ((cur >> b) & 1) + 2 * (((cur ^ mask) >> b) & 1)


@kernel
def _grid(ctx: Any) -> Any:
    return np.int64(ROWS), np.int64(COLS)


KERNELS = Kernels(
    gen_moves=_gen_moves,
    play=_play,
    gain=_gain,
    evaluate=_evaluate,
    final=_final,
    key=_key,
    horizon=_horizon,
    max_moves=COLS,
    max_plies=CELLS,
    move_limit=COLS,
    # the heuristic's units to one logistic unit of win probability, fitted to MCTS
    # self-play outcomes (banmen's docs/BENCHMARKS.md, issue 37)
    value_scale=70.0,
    eval_bound=EVAL_MAX,
    # the cells an n-tuple evaluation reads (``+ntuple``): row by row from the top, as
    # the grid view numbers them; 0 empty, 1 the side to move's disc, 2 the other's
    cell=_cell,
    cell_values=3,
    grid=_grid,
)


# --------------------------------------------------------------------------- from Python


def _state(board: Board) -> tuple[np.int64, np.int64]:
    cur, mask = board.position()
    return np.int64(cur), np.int64(mask)


def search_position(board: Board) -> tuple[npt.NDArray[np.int64], tuple[Any, ...]]:
    """``(ctx, state)`` of ``board`` for the search kernels."""
    return CTX, _state(board)


def kernel_moves(board: Board) -> list[int]:
    """The moves the compiled rules find in ``board`` (left to right)."""
    buf = np.zeros(COLS, dtype=np.int64)
    n = legal_moves(*_state(board), buf)
    return [int(m) for m in buf[:n]]


def search_moves(board: Board) -> list[int]:
    """The moves the search's generator tries in ``board``, in its order (a subset of
    the legal moves: see the module's doc)."""
    buf = np.zeros(COLS, dtype=np.int64)
    n = _gen_moves(CTX, _state(board), buf)
    return [int(m) for m in buf[:n]]


def evaluate_board(board: Board) -> int:
    """The heuristic value of ``board`` for the side to move (``evaluate``)."""
    return int(_evaluate(CTX, _state(board)))


def perft(board: Board, depth: int) -> int:
    """The number of move sequences of ``depth`` plies from ``board`` (a finished game
    has none), counted by the compiled rules."""
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"perft depth must be a whole number 0 or more, got {depth!r}")
    bufs = np.zeros((depth + 1, COLS), dtype=np.int64)
    cur, mask = _state(board)
    return int(_perft(cur, mask, np.int64(depth), bufs))


def count_positions(depth: int) -> list[int]:
    """The number of distinct positions after 0, 1, …, ``depth`` plies from the empty
    board (OEIS A212693), by the compiled rules."""
    if not isinstance(depth, int) or not 0 <= depth <= 12:
        raise ValueError(f"depth must be a whole number from 0 to 12, got {depth!r}")
    counts = np.zeros(depth + 1, dtype=np.int64)
    _positions(np.int64(depth), counts)
    return [int(c) for c in counts]
