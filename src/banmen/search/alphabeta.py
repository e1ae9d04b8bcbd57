"""Negamax alpha-beta, written once and compiled for every game.

A game hands the search a bundle of compiled *kernels* (:class:`Kernels`) over a compact
state — a tuple of integers — plus a read-only ``ctx`` array of per-game constants (a Mattix
deal's piece values, for example; or a tuple of arrays, the first of which identifies the
rest). Numba specialises :func:`_negamax` for each bundle, so
the generic code runs as fast as a hand-written one (DESIGN.md, "Fast and generic at once").

The kernel contract (all ``@njit``):

``gen_moves(ctx, state, buf) -> n``
    Write the legal moves (non-negative ints) into ``buf[:n]`` in the game's preferred search
    order. ``n == 0`` means the game is over (a game with passes generates a pass move).
``play(ctx, state, move) -> state``
    The state after ``move`` (copy-make; states are immutable tuples).
``gain(ctx, state, move) -> int``
    Points the mover banks by ``move`` (Mattix: the piece's value; 0 for most games).
``evaluate(ctx, state) -> int``
    Heuristic value of the rest of the game for the side to move, used at the depth horizon.
``final(ctx, state) -> int``
    Exact value of a finished game for the side to move (after the gains already banked).
``key(ctx, state) -> int``
    64-bit hash of everything the value depends on, except ``ctx`` (the driver salts the key
    with a hash of ``ctx`` so tables survive from one deal to the next).
``horizon(ctx, state) -> int``
    An upper bound on the plies left in the game that drops by at least one per move. A
    search whose depth reaches it never calls ``evaluate``: its value is exact. ``-1``: the
    game's length has no bound the game knows (it must still end: every line is finite).
    Then a value is exact when no line below it was cut short — no ``evaluate`` at the
    depth limit, no table entry or ProbCut that stands for one — which the search counts;
    a depth-limited search of a short position, and ``perfect`` (deepening until a whole
    iteration ended every line), give exact values too. What a bound buys: the search
    knows in advance at which depth a value will be exact (it can jump there: see
    :attr:`AlphaBeta.solve_horizon`), and ProbCut is never tried where the end is in
    reach.

Every move, a pass included, hands the turn to the other side. These rules serve other
searches too: :mod:`banmen.search.mcts_rules` turns them into MCTS and PUCT kernels, with
what a bundle says besides (:attr:`Kernels.move_limit`, :attr:`~Kernels.amaf`,
:attr:`~Kernels.pass_move`, :attr:`~Kernels.value_scale`). An *evaluator*
(:mod:`banmen.search.evaluators`) gives any search these rules with another ``evaluate``;
what it may read besides: :attr:`~Kernels.eval_bound` and, for a grid game, its cells
(:attr:`~Kernels.cell`, :attr:`~Kernels.cell_values`, :attr:`~Kernels.grid`).

The value of a node is ``max over moves (gain - value(child))`` — negamax with the gains
banked along the way, so the value depends only on the state and transposes cleanly.

The search is fail-soft principal-variation search with iterative deepening, aspiration
windows, a two-slot-per-bucket transposition table (depth-preferred slot + always-replace
slot, with aging), the TT move tried first, and a triangular PV table. Cancellation is
cooperative: every 1024 nodes the search reads a stop flag (set by a timer thread for time
limits, or by anyone else) and its node limit; once either trips, every frame unwinds and
the iteration is discarded, so the reported move is that of the last completed iteration.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import types

from banmen._bits import mix64, prefetch
from banmen._fields import PerSecond
from banmen._jit import bound, kernel, njit
from banmen.search.limits import STOP_REQUESTED, STOP_TIME, Deadline, Limit, StopFlag

__all__ = ["Kernels", "AlphaBeta", "SearchInfo", "SearchResult", "INF"]

INF = 1 << 30  #: larger than any game value
#: the deepest iteration of a game with no known length (a limit or an exact value comes
#: first in any game one could play)
MAX_DEPTH = 4096

# ctl[] slots: counters and switches shared between the driver and the compiled search.
_NODES = 0
_NODE_LIMIT = 1
_ABORTED = 2
_SALT = 3
_GEN = 4
_NO_ABORT = 5
_SELDEPTH = 6
_TT_SHIFT = 7
_TT_MIN_DEPTH = 8
_ETC_MIN_DEPTH = 9
_PREFETCH = 10
_PROBCUT = 11
_ORDER = 12
_HEUR = 13  #: lines cut short (a heuristic value stood for a subtree) in this iteration
_CTL_SIZE = 14

# TT flags
_LOWER = 1
_UPPER = 2
_EXACT = 3

_PROBCUT_RANGE = 1 << 20  #: ProbCut bounds beyond this are no test (|values| stay below)
_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64 (Fibonacci hashing)


class Kernels(NamedTuple):
    """The compiled functions through which the search sees a game (see module doc)."""

    gen_moves: Any
    play: Any
    gain: Any
    evaluate: Any
    final: Any
    key: Any
    horizon: Any
    max_moves: int  #: size of a move buffer: the most legal moves any position can have
    #: the longest game, in plies (sizes the PV and the search stack at first; they grow
    #: with the depth searched, so a game of no known length may give any number)
    max_plies: int
    #: optional ``order(ctx, state, buf, start, n, depth)``: sort ``buf[start:n]`` best
    #: first (the move the table remembers, if any, stays at ``buf[0]``)
    order: Any = None
    #: optional ``probcut(ctx, state, depth) -> (shallow, a1024, b, margin)``: a shallow
    #: search of ``shallow`` plies predicts this depth's value as
    #: ``v * a1024 / 1024 + b``, wrong by more than ``margin`` rarely enough to cut on it
    #: (``shallow < 0``: no ProbCut here)
    probcut: Any = None
    # What other searches over these rules read (the MCTS adapter, :mod:`.mcts_rules`):
    #: every move is below this (0: not said; AMAF statistics need it)
    move_limit: int = 0
    #: a move means the same thing wherever it is played, so MCTS may share its
    #: statistics between positions (AMAF/RAVE); only with :attr:`move_limit`
    amaf: bool = False
    #: the move that passes (AMAF leaves it out); -1: none
    pass_move: int = -1
    #: ``evaluate``'s units (and ``gain``'s) to one logistic unit of win probability:
    #: PUCT values a leaf at ``1 / (1 + exp(-v / value_scale))``; 0: the game says none,
    #: and PUCT values a leaf by one random playout
    value_scale: float = 0.0
    # What an evaluator reads (:mod:`banmen.search.evaluators`):
    #: ``evaluate`` stays within ``+-eval_bound`` (inclusive), inside the values of
    #: finished games; an evaluator's values are clamped to it (0: the game says none)
    eval_bound: int = 0
    #: optional ``cell(ctx, state, i) -> c``: the content of cell ``i`` of the position's
    #: grid (cells numbered row by row from the top, as :class:`banmen.games.GridView`
    #: numbers them) from the side to move's view: ``0`` empty, ``1`` the mover's, ``2``
    #: the opponent's, or a piece code, always ``0 <= c < cell_values``. What an n-tuple
    #: evaluation reads (``+ntuple``); one cell at a time, so it needs no buffer
    cell: Any = None
    #: how many contents a cell may hold (the codes ``cell`` gives are below it)
    cell_values: int = 0
    #: optional ``grid(ctx) -> (rows, cols)``: the grid of the positions of a ``ctx`` (a
    #: game of several sizes reads it from ``ctx``), ``rows * cols`` cells for ``cell``
    grid: Any = None


@dataclass(frozen=True)
class SearchInfo:
    """Progress after a completed iteration."""

    depth: int
    score: int
    nodes: int
    seconds: float
    pv: list[int]
    exact: bool

    nps = PerSecond("nodes")


@dataclass
class SearchResult:
    """What a search established. ``move`` is ``None`` only when the game is over.

    ``exact`` is true only if the score is the game-theoretic value (the completed
    iteration reached every terminal position). ``stopped_by`` says why the search ended:
    ``"exact"`` (solved), ``"depth"``, ``"time"``, ``"nodes"``, ``"stop"`` (stop flag) or
    ``"game_over"``.
    """

    move: int | None
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[int] = field(default_factory=list)
    exact: bool = False
    stopped_by: str = "depth"

    nps = PerSecond("nodes")


# --------------------------------------------------------------------------- compiled core


@njit(cache=True, inline="always")
def _tt_index(ctl: npt.NDArray[np.int64], k: int) -> int:
    h = np.uint64(k) * np.uint64(_GOLDEN)
    return np.int64(h >> np.uint64(ctl[_TT_SHIFT])) * 4


@njit(cache=True, inline="always")
def _pack(value: int, move: int, depth: int, flag: int, gen: int, solved: bool) -> int:
    # value: bits 0-31 (offset by 2**31); move + 1: bits 32-47; depth: 48-55; flag: 56-57;
    # generation: 58-61; solved (searched to the end of the game): bit 62.
    return (
        (value + 2147483648)
        | ((move + 1) << 32)
        | (min(depth, 255) << 48)
        | (flag << 56)
        | ((gen & 15) << 58)
        | (np.int64(solved) << 62)
    )


@njit(cache=True)
def _tt_store(
    tt: npt.NDArray[np.int64],
    ctl: npt.NDArray[np.int64],
    k: int,
    value: int,
    move: int,
    depth: int,
    flag: int,
    solved: bool,
) -> None:
    i = _tt_index(ctl, k)
    gen = ctl[_GEN]
    d0 = tt[i + 1]
    # Slot 0 keeps the deepest entry of the current search; slot 1 always takes the newcomer,
    # or the entry slot 0 loses.
    if tt[i] == k or d0 == 0 or ((d0 >> 48) & 255) <= depth or ((d0 >> 58) & 15) != (gen & 15):
        if tt[i] != k and d0 != 0:
            tt[i + 2] = tt[i]
            tt[i + 3] = d0
        tt[i] = k
        tt[i + 1] = _pack(value, move, depth, flag, gen, solved)
    else:
        tt[i + 2] = k
        tt[i + 3] = _pack(value, move, depth, flag, gen, solved)


@njit(cache=True, inline="always")
def _tt_probe(tt: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], k: int) -> int:
    """Packed entry for key ``k`` or 0. A bucket's two slots share one cache line."""
    i = _tt_index(ctl, k)
    if tt[i] == k and tt[i + 1] != 0:
        return tt[i + 1]
    if tt[i + 2] == k and tt[i + 3] != 0:
        return tt[i + 3]
    return 0


@njit(cache=True, nogil=True, _nrt=False, returns=types.int64)
def _negamax(
    gen_moves: Any,
    play: Any,
    gain: Any,
    evaluate: Any,
    final: Any,
    key: Any,
    horizon: Any,
    order: Any,
    probcut: Any,
    ctx: Any,
    st: Any,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    pv_node: bool,
    tt: npt.NDArray[np.int64],
    moves: npt.NDArray[np.int64],
    pv: npt.NDArray[np.int64],
    pvlen: npt.NDArray[np.int64],
    ctl: npt.NDArray[np.int64],
    stop: npt.NDArray[np.int64],
) -> int:
    ctl[_NODES] += 1
    if (ctl[_NODES] & 1023) == 0 and ctl[_NO_ABORT] == 0:
        if stop[0] != 0 or ctl[_NODES] >= ctl[_NODE_LIMIT]:
            ctl[_ABORTED] = 1
    if ctl[_ABORTED] != 0:
        return 0
    pvlen[ply] = ply
    if ply > ctl[_SELDEPTH]:
        ctl[_SELDEPTH] = ply

    buf = moves[ply]
    n = gen_moves(ctx, st, buf)
    if n == 0:
        return final(ctx, st)
    if depth <= 0:
        ctl[_HEUR] += 1
        return evaluate(ctx, st)
    heur0 = ctl[_HEUR]

    use_tt = depth >= ctl[_TT_MIN_DEPTH]
    k = key(ctx, st) ^ ctl[_SALT]
    e = _tt_probe(tt, ctl, k) if use_tt else 0
    tt_move = -1
    if e != 0:
        tt_move = ((e >> 32) & 0xFFFF) - 1
        if (((e >> 48) & 255) >= depth or (e >> 62) & 1) and not pv_node:
            v = (e & 0xFFFFFFFF) - 2147483648
            f = (e >> 56) & 3
            if f == _EXACT or (f == _LOWER and v >= beta) or (f == _UPPER and v <= alpha):
                if not (e >> 62) & 1:
                    ctl[_HEUR] += 1
                return v

    no = ply < 0
    if ctl[_PROBCUT] != 0 and not pv_node and depth >= 2:
        # ProbCut (Buro 1995): if a shallow search says, with the margin the game fitted,
        # that this node fails high (or low), believe it. Never where the search could
        # reach the end of the game: a value it calls exact must be.
        d2, a1024, b, margin = probcut(ctx, st, depth)
        hz = horizon(ctx, st)
        if d2 >= 0 and (hz < 0 or depth < hz):
            hi = -((-(beta + margin - b) * 1024) // a1024)  # ceiling
            if hi < _PROBCUT_RANGE:
                v = _negamax(
                    gen_moves, play, gain, evaluate, final, key, horizon, order, probcut,
                    ctx, st, d2, hi - 1, hi, ply, no, tt, moves, pv, pvlen, ctl, stop,
                )  # fmt: skip
                if ctl[_ABORTED] != 0:
                    return 0
                if v >= hi:
                    ctl[_HEUR] += 1
                    return beta
            lo = ((alpha - margin - b) * 1024) // a1024
            if lo > -_PROBCUT_RANGE:
                v = _negamax(
                    gen_moves, play, gain, evaluate, final, key, horizon, order, probcut,
                    ctx, st, d2, lo, lo + 1, ply, no, tt, moves, pv, pvlen, ctl, stop,
                )  # fmt: skip
                if ctl[_ABORTED] != 0:
                    return 0
                if v <= lo:
                    ctl[_HEUR] += 1
                    return alpha
            n = gen_moves(ctx, st, buf)  # the shallow searches used this ply's buffer
            pvlen[ply] = ply

    start = 0
    if tt_move >= 0:
        # Bring the TT move to the front, keeping the game's order for the rest.
        for i in range(n):
            if buf[i] == tt_move:
                for j in range(i, 0, -1):
                    buf[j] = buf[j - 1]
                buf[0] = tt_move
                start = 1
                break
    if ctl[_ORDER] != 0:
        order(ctx, st, buf, start, n, depth)

    if use_tt and not pv_node and depth >= ctl[_ETC_MIN_DEPTH]:
        # Enhanced transposition cutoff: a child whose stored value already refutes this
        # node's window ends the node without searching anything.
        for i in range(n):
            mv = buf[i]
            ce = _tt_probe(tt, ctl, key(ctx, play(ctx, st, mv)) ^ ctl[_SALT])
            if ce != 0 and (((ce >> 48) & 255) >= depth - 1 or (ce >> 62) & 1):
                cf = (ce >> 56) & 3
                if cf == _EXACT or cf == _UPPER:
                    v = gain(ctx, st, mv) - ((ce & 0xFFFFFFFF) - 2147483648)
                    if v >= beta:
                        if not (ce >> 62) & 1:
                            ctl[_HEUR] += 1
                        return v

    if ctl[_PREFETCH] != 0 and depth - 1 >= ctl[_TT_MIN_DEPTH]:
        # The search is memory-bound: ask for every child's bucket now, so the cache misses
        # overlap instead of coming one child at a time.
        for i in range(n):
            ck = key(ctx, play(ctx, st, buf[i])) ^ ctl[_SALT]
            prefetch(tt, _tt_index(ctl, ck))

    # Literal True/False arguments in the recursive calls would make numba compile extra
    # overloads of this function that call each other, and such a set crashes when loaded
    # from the on-disk cache; these flags are plain (non-literal) bools.
    yes = ply >= 0
    alpha0 = alpha
    best = -INF
    best_move = buf[0]
    for i in range(n):
        mv = buf[i]
        g = gain(ctx, st, mv)
        child = play(ctx, st, mv)
        # value = g - child_value, so the child's window is (g - beta, g - alpha). PVS:
        # the first move gets the whole window, each other one a null window (its upper
        # bound alpha + 1), searched again with the whole one if it lands inside it.
        first = i == 0
        v = g - _negamax(
            gen_moves, play, gain, evaluate, final, key, horizon, order, probcut,
            ctx, child, depth - 1,
            g - (beta if first else alpha + 1), g - alpha, ply + 1, pv_node if first else no,
            tt, moves, pv, pvlen, ctl, stop,
        )  # fmt: skip
        if not first and pv_node and alpha < v < beta and ctl[_ABORTED] == 0:
            v = g - _negamax(
                gen_moves, play, gain, evaluate, final, key, horizon, order, probcut,
                ctx, child, depth - 1,
                g - beta, g - alpha, ply + 1, yes,
                tt, moves, pv, pvlen, ctl, stop,
            )  # fmt: skip
        if ctl[_ABORTED] != 0:
            return 0
        if v > best:
            best = v
            best_move = mv
            if v > alpha:
                alpha = v
                pv[ply, ply] = mv
                for j in range(ply + 1, pvlen[ply + 1]):
                    pv[ply, j] = pv[ply + 1, j]
                pvlen[ply] = max(pvlen[ply + 1], ply + 1)
                if alpha >= beta:
                    break

    if best >= beta:
        flag = _LOWER
    elif best <= alpha0:
        flag = _UPPER
    else:
        flag = _EXACT
    if use_tt:
        # A subtree searched to the end of the game holds its game-theoretic value (or a
        # true bound on it): mark it solved so that deeper iterations reuse it too. Its
        # depth for replacement is its real size, the plies left.
        h = horizon(ctx, st)
        if h >= 0:
            _tt_store(tt, ctl, k, best, best_move, min(depth, h), flag, depth >= h)
        else:  # no known end: solved if no line below was cut short
            _tt_store(tt, ctl, k, best, best_move, depth, flag, ctl[_HEUR] == heur0)
    return best


@kernel
def _no_order(ctx: Any, st: Any, buf: Any, start: int, n: int, depth: int) -> None:
    """The default :attr:`Kernels.order`: the game's own move order."""


@kernel
def _no_probcut(ctx: Any, st: Any, depth: int) -> tuple[int, int, int, int]:
    """The default :attr:`Kernels.probcut`: none. (Its values are computed, not constants:
    numba would type constants as literals, and the search would be compiled again for a
    shallow depth of literally -1.)"""
    zero = depth - depth
    return zero - 1, zero + 1024, zero, zero


@njit(cache=True)
def _horizon(horizon: Any, ctx: Any, st: Any) -> int:
    return horizon(ctx, st)


@njit(cache=True)
def _root_moves(gen_moves: Any, ctx: Any, st: Any, buf: npt.NDArray[np.int64]) -> int:
    return gen_moves(ctx, st, buf)


@njit(cache=True)
def _ctx_salt(ctx: npt.NDArray[np.int64]) -> int:
    h = 0x2545F4914F6CDD1D
    for i in range(ctx.shape[0]):
        h = mix64(h ^ ctx[i])
    return h


def _salt_source(ctx: Any) -> Any:
    """The int64 array the table's salt is hashed from: ``ctx`` itself, or the first of a
    tuple (a game whose ``ctx`` carries large tables puts a digest of them there), and so
    on down (an evaluator's context holds the game's first)."""
    while isinstance(ctx, tuple):
        ctx = ctx[0]
    return ctx


# --------------------------------------------------------------------------- driver


class AlphaBeta:
    """Iterative-deepening PVS over a game's :class:`Kernels`, with a persistent TT.

    One instance per game kind; reuse it between moves so the table carries over.

    ``tt_bits`` sets the table to ``2 ** tt_bits`` buckets of two entries (16 bytes each).
    """

    def __init__(self, kernels: Kernels, tt_bits: int = 20) -> None:
        if not 4 <= tt_bits <= 30:
            raise ValueError("tt_bits must be between 4 and 30")
        self.kernels = kernels
        self._order = kernels.order if kernels.order is not None else _no_order
        self._probcut = kernels.probcut if kernels.probcut is not None else _no_probcut
        self.tt_bits = tt_bits
        # 64-byte aligned, so that each 32-byte bucket sits in one cache line.
        raw = np.zeros((4 << tt_bits) + 8, dtype=np.int64)
        off = (-raw.ctypes.data % 64) // 8
        self.tt = raw[off : off + (4 << tt_bits)]
        self._size(max(kernels.max_plies, 1) + 2)
        self.ctl = np.zeros(_CTL_SIZE, dtype=np.int64)
        self.ctl[_TT_SHIFT] = 64 - tt_bits
        self._generation = 0
        # Tunables (defaults chosen by the Mattix benchmark, docs/BENCHMARKS.md).
        self.aspiration = 1  #: half-width of the aspiration window around the last score
        #: With at most ``solve_horizon`` plies left, deepen one ply at a time only up to
        #: ``exact_jump`` and then search to the end of the game (an exact solve); otherwise
        #: deepen one ply at a time all the way.
        self.solve_horizon = 0
        self.exact_jump = 8
        self.tt_min_depth = 1  #: no table probes or stores below this remaining depth
        self.etc_min_depth = 99  #: enhanced transposition cutoffs from this remaining depth
        self.prefetch = True  #: prefetch the children's table buckets
        #: ProbCut where the kernels offer it (:attr:`Kernels.probcut`)
        self.probcut = True
        self.method = "pvs"  #: "pvs" (aspiration windows) or "mtdf" for each iteration
        self._bound = False

    def _size(self, plies: int) -> None:
        """The PV and the search stack for ``plies`` plies (kept, and grown as deeper
        searches need: a game of no known length has no size to give them)."""
        self.moves = np.zeros((plies, self.kernels.max_moves), dtype=np.int64)
        self.pv = np.zeros((plies, plies), dtype=np.int64)
        self.pvlen = np.zeros(plies, dtype=np.int64)

    def clear(self) -> None:
        """Forget everything in the transposition table."""
        self.tt[:] = 0

    def _bind(self, ctx: Any, state: Any, stop: Any) -> None:
        """Resolve the compiled functions for this game's types once (see ``_jit.bound``):
        a shallow search is then a few microseconds of Python, not a hundred."""
        k = self.kernels
        self._salt = bound(_ctx_salt, _salt_source(ctx))
        self._root = bound(_root_moves, k.gen_moves, ctx, state, self.moves[0])
        self._hor = bound(_horizon, k.horizon, ctx, state)
        self._fin = bound(_call2, k.final, ctx, state)
        self._neg = bound(
            _negamax, k.gen_moves, k.play, k.gain, k.evaluate, k.final, k.key, k.horizon,
            self._order, self._probcut, ctx, state, 0, -INF, INF, 0, True, self.tt,
            self.moves, self.pv, self.pvlen, self.ctl, stop,
        )  # fmt: skip
        self._bound = True

    def horizon(self, ctx: Any, state: Any) -> int:
        if not self._bound:
            self._bind(ctx, state, np.zeros(1, dtype=np.int64))
        return int(self._hor(self.kernels.horizon, ctx, state))

    def _run(
        self, ctx: Any, state: Any, depth: int, lo: int, hi: int, pv_node: bool, stop: Any
    ) -> int:
        k = self.kernels
        return int(
            self._neg(
                k.gen_moves,
                k.play,
                k.gain,
                k.evaluate,
                k.final,
                k.key,
                k.horizon,
                self._order,
                self._probcut,
                ctx,
                state,
                depth,
                lo,
                hi,
                0,
                pv_node,
                self.tt,
                self.moves,
                self.pv,
                self.pvlen,
                self.ctl,
                stop,
            )  # fmt: skip
        )

    def _iteration(self, ctx: Any, state: Any, depth: int, guess: int, stop: Any) -> int:
        """Value at ``depth`` (PV left in ``self.pv[0]``); meaningless if aborted."""
        ctl = self.ctl
        if depth > 1 and self.method == "mtdf":
            # MTD(f): null-window tests converge on the value; a final narrow PV search
            # (cheap: the table is warm) fills in the principal variation.
            lo, hi, g = -INF, INF, guess
            while lo < hi:
                beta = g + 1 if g == lo else g
                g = self._run(ctx, state, depth, beta - 1, beta, False, stop)
                if ctl[_ABORTED]:
                    return 0
                if g < beta:
                    hi = g
                else:
                    lo = g
            return self._run(ctx, state, depth, g - 1, g + 1, True, stop)
        if depth == 1 or self.aspiration <= 0:
            lo, hi = -INF, INF
        else:
            lo, hi = guess - self.aspiration, guess + self.aspiration
        delta = max(self.aspiration, 1)
        while True:
            v = self._run(ctx, state, depth, lo, hi, True, stop)
            if ctl[_ABORTED]:
                return 0
            if v <= lo and lo > -INF:
                lo = max(-INF, v - delta)
                delta *= 4
            elif v >= hi and hi < INF:
                hi = min(INF, v + delta)
                delta *= 4
            else:
                return v

    def search(
        self,
        ctx: npt.NDArray[np.int64],
        state: tuple[Any, ...],
        limit: Limit | None = None,
        *,
        stop: StopFlag | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Search ``state`` within ``limit`` (unbounded: solve exactly).

        Iterations deepen one ply at a time, or — when the game is short enough to solve
        (``solve_horizon``) — a few plies at a time and then straight to the game's horizon,
        where the value is exact; a depth limit comes first if it is lower. The first
        iteration always completes, so a position with legal moves always gets a move, even
        if ``stop`` was already set when the search began.
        """
        limit = limit or Limit()
        k = self.kernels
        t0 = time.perf_counter()
        flag = stop if stop is not None else StopFlag()
        if not self._bound:
            self._bind(ctx, state, flag.array)
        ctl = self.ctl
        ctl[_NODES] = 0
        ctl[_ABORTED] = 0
        ctl[_SELDEPTH] = 0
        ctl[_NODE_LIMIT] = limit.nodes if limit.nodes is not None else (1 << 62)
        ctl[_SALT] = self._salt(_salt_source(ctx))
        ctl[_TT_MIN_DEPTH] = self.tt_min_depth
        ctl[_ETC_MIN_DEPTH] = self.etc_min_depth
        ctl[_PREFETCH] = int(self.prefetch)
        ctl[_PROBCUT] = int(self.probcut and self.kernels.probcut is not None)
        ctl[_ORDER] = int(self.kernels.order is not None)
        self._generation += 1
        ctl[_GEN] = self._generation

        n_root = int(self._root(k.gen_moves, ctx, state, self.moves[0]))
        horizon = self.horizon(ctx, state)
        if n_root == 0:
            v = int(self._fin(k.final, ctx, state))
            return SearchResult(None, v, 0, 0, time.perf_counter() - t0, [], True, "game_over")

        bounded = horizon >= 0
        max_depth = max(1, horizon) if bounded else MAX_DEPTH
        if limit.depth is not None:
            max_depth = min(max_depth, limit.depth)
        if bounded and horizon <= self.solve_horizon:
            depths = list(range(1, min(max_depth, self.exact_jump) + 1))
            if depths[-1] < max_depth:
                depths.append(max_depth)
        else:
            depths = list(range(1, max_depth + 1))

        best: SearchResult | None = None
        stopped_by = "depth"
        score = 0
        took: list[float] = []  # seconds from the start to each iteration's end
        with Deadline(flag, limit.time):
            for depth in depths:
                if depth + 2 > self.pvlen.shape[0]:
                    self._size(max(depth + 2, 2 * self.pvlen.shape[0]))
                ctl[_NO_ABORT] = 1 if depth == 1 else 0
                ctl[_HEUR] = 0
                v = self._iteration(ctx, state, depth, score, flag.array)
                if ctl[_ABORTED]:
                    reason = flag.reason
                    stopped_by = {STOP_TIME: "time", STOP_REQUESTED: "stop"}.get(reason, "nodes")
                    break
                score = v
                pv = [int(m) for m in self.pv[0, : int(self.pvlen[0])]]
                # bounded: the depth reached the end; unbounded: no line was cut short
                exact = depth >= horizon if bounded else ctl[_HEUR] == 0
                elapsed = time.perf_counter() - t0
                nodes = int(ctl[_NODES])
                best = SearchResult(pv[0], score, depth, nodes, elapsed, pv, exact, "depth")
                if on_info is not None:
                    on_info(SearchInfo(depth, score, nodes, elapsed, pv, exact))
                if exact:
                    stopped_by = "exact"
                    break
                if limit.nodes is not None and nodes >= limit.nodes:
                    stopped_by = "nodes"
                    break
                if flag.is_set():
                    stopped_by = "time" if flag.reason == STOP_TIME else "stop"
                    break
                took.append(elapsed)
                if limit.target is not None and not _next_fits(took, limit):
                    stopped_by = "time"  # the next iteration would not finish in time
                    break
        if flag.reason == STOP_TIME:
            flag.clear()  # our own deadline's mark; a caller's stop request is left alone
        assert best is not None  # the first iteration cannot be aborted
        best.nodes = int(ctl[_NODES])
        best.seconds = time.perf_counter() - t0
        best.stopped_by = stopped_by
        return best


def _next_fits(took: list[float], limit: Limit) -> bool:
    """After iterations ending at ``took`` seconds: is the next one worth starting under
    ``limit``'s soft ``target`` (a clock's recommended time; ``time`` is the hard one)?
    Its cost is foreseen from the last two (an iteration costs a few times the one
    before: the growth seen, between 1.5 and 8 times, 4 before two are seen). Not if the
    target is spent, if it would end past the hard time (it would be thrown away), nor if
    it would end past twice the target."""
    assert limit.target is not None
    now = took[-1]
    if now >= limit.target:
        return False
    last = now - (took[-2] if len(took) > 1 else 0.0)
    before = (took[-2] - (took[-3] if len(took) > 2 else 0.0)) if len(took) > 1 else 0.0
    growth = min(8.0, max(1.5, last / before)) if before > 1e-4 else 4.0
    end = now + last * growth
    hard = limit.time if limit.time is not None else math.inf
    return end <= hard and end <= 2 * limit.target


@njit(cache=True)
def _call2(fn: Any, ctx: Any, st: Any) -> int:
    return fn(ctx, st)
