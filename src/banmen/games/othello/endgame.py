"""The exact Othello endgame solver.

Scores are final disc differences for the side to move with the empty squares given to the
winner, so every final score is even. The search is alpha-beta on null windows (the root
narrows on the exact score with MTD-style tests), with the standard accelerations:

* **the last 1-4 empties** are solved by dedicated code that tries the few empty squares
  directly, without generating move lists, and gives the last square's score arithmetically;
* **parity**: with few empties, squares in quadrants holding an odd number of empties are
  tried first (the player who moves last in a region tends to gain);
* **fastest first**: with more empties, moves are ordered by the opponent's mobility
  afterwards (fewest replies first, a corner reply counting twice), then by their potential
  mobility (our discs next to an empty square), corners first on ties;
* **the learned evaluation** (:mod:`.patterns`) joins the order from ``EVAL_EMPTIES``
  empties up: the value of the position each move leaves, from ``SHALLOW_EMPTIES`` up
  after a two-ply search (it roughly halves the nodes at 24-25 empties);
* **stability cut-offs**: the opponent's stable discs (:func:`stable_full`: edge discs by
  the exact one-edge game, discs on filled lines, and discs held by stable neighbours)
  bound our best final score; a window above that bound is refuted without search;
* **hunting**: a window that asks for nearly all the discs (:data:`HUNT_MARGIN`) is
  searched by mobility alone, the way to find a wipe-out soon;
* **transposition table** of lower and upper bounds with the best move, from
  ``TT_EMPTIES`` empties up; above ``ETC_EMPTIES``, each child is looked up before any is
  searched (enhanced transposition cut-off).

A stop flag and the node limit are checked every 4096 nodes; a stopped search reports
"unknown", never a score.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types

from banmen._bits import ctz64, mix64, popcnt64
from banmen._jit import njit
from banmen.games.othello.board import Board
from banmen.games.othello.formats import PASS
from banmen.games.othello.kernels import U, flips, moves
from banmen.games.othello.patterns import Weights, load_weights, pattern_value
from banmen.games.othello.sets import ENDGAME
from banmen.search.limits import STOP_REQUESTED, STOP_TIME, Deadline, StopFlag
from banmen.warm import ensure

__all__ = ["EndgameSolver", "Solution"]

_CORNERS = U(0x8100000000000081)
# Quadrants, for parity: a1-d4, e1-h4, a5-d8, e5-h8.
_QUAD = (U(0x000000000F0F0F0F), U(0x00000000F0F0F0F0), U(0x0F0F0F0F00000000),
         U(0xF0F0F0F000000000))  # fmt: skip
_EDGE_TOP = U(0x00000000000000FF)
_EDGE_BOTTOM = U(0xFF00000000000000)
_EDGE_LEFT = U(0x0101010101010101)
_EDGE_RIGHT = U(0x8080808080808080)

# ctl slots
_NODES = 0
_ABORT = 1
_TT_SHIFT = 2
_NODE_LIMIT = 3  # the search aborts once it has visited this many nodes (checked with stop)
_EVAL_EMPTIES = 4  # from this many empties up, the evaluation takes part in move ordering
_EVAL_SHIFT = 5  # the evaluation's centi-discs are shifted down this many bits in the key
_SHALLOW_EMPTIES = 6  # from this many empties up, a shallow search's value replaces it
_SHALLOW_DEPTH = 7  # that search's depth
_SMALL = 7  # from here down: parity ordering, no move lists, no table
TT_EMPTIES = 11  # from here up: the transposition table
ETC_EMPTIES = 14  # above this: enhanced transposition cut-offs
_INF = 127
_NO_CUT = -1000  # (_order: no enhanced transposition cut-off)
#: From this many empties up, the learned evaluation of the position a move leaves takes
#: part in ordering the moves; from ``SHALLOW_EMPTIES`` up, a ``SHALLOW_DEPTH``-ply search
#: with it. Chosen by node counts on FFO #41-#47 (docs/BENCHMARKS.md).
EVAL_EMPTIES = 14
SHALLOW_EMPTIES = 18
SHALLOW_DEPTH = 2
EVAL_SHIFT = 4  # 1/16 of a centi-disc per unit of the key: 6.25 units a disc, 16 a reply
#: A node *hunts* a wipe-out-like win when its window asks for more than the opponent
#: keeping all the discs they have now would allow, by this margin: ``alpha >= 64 -
#: 2 * (their discs) + HUNT_MARGIN``. It then orders by mobility alone — the fewer replies
#: the opponent has, the sooner they run out — without the table's move from a lower
#: window first. FFO #59 (+64 in 34 empties): 3.5 M nodes, against an unfinished 120 s
#: without; margins 0 and 8 were quicker there but cost 23% and 9% more nodes on
#: FFO #40-#47 than no hunting, 16 costs 1% (docs/BENCHMARKS.md).
HUNT_MARGIN = 16
_OFF = 99  # an empties threshold never reached
_WIDE = 1 << 20  # beyond any evaluation (centi-discs)


# Numba note: a literal constant passed to a recursive jitted function makes numba compile a
# separate overload for it, and such a set of mutually calling overloads crashes when loaded
# from the on-disk cache. Recursive calls here pass ``np.int64(0)`` / ``np.int64(1)``, which
# numba types as plain int64.

# --------------------------------------------------------------------------- helpers


@njit(cache=True, inline="always")
def _final(P: Any, O: Any) -> int:
    """Final score of a finished game for P (empties to the winner)."""
    p = popcnt64(P)
    o = popcnt64(O)
    d = np.int64(p) - np.int64(o)
    e = 64 - np.int64(p) - np.int64(o)
    if d > 0:
        return d + e
    if d < 0:
        return d - e
    return d


@njit(cache=True, inline="always")
def _corner_run(P: Any, corner: Any, edge: Any, step: Any, up: bool) -> Any:
    """P's unbroken run of discs along ``edge`` from ``corner`` (empty if the corner is
    not P's), stepping ``step`` bits up or down."""
    s = U(0)
    x = corner
    while x & P & edge:
        s |= x
        x = (x << step) if up else (x >> step)
    return s


@njit(cache=True)
def _stable_edges(P: Any) -> Any:
    """P's discs on an edge that are stable by being anchored to a corner of theirs along
    the edge (a run from the corner). An under-estimate of stability, cheap and exact."""
    a1, h1, a8, h8 = U(1), U(0x80), U(0x0100000000000000), U(0x8000000000000000)
    return (
        _corner_run(P, a1, _EDGE_TOP, U(1), True)
        | _corner_run(P, h1, _EDGE_TOP, U(1), False)
        | _corner_run(P, a8, _EDGE_BOTTOM, U(1), True)
        | _corner_run(P, h8, _EDGE_BOTTOM, U(1), False)
        | _corner_run(P, a1, _EDGE_LEFT, U(8), True)
        | _corner_run(P, a8, _EDGE_LEFT, U(8), False)
        | _corner_run(P, h1, _EDGE_RIGHT, U(8), True)
        | _corner_run(P, h8, _EDGE_RIGHT, U(8), False)
    )


@njit(cache=True, inline="always")
def _neighbours(x: Any) -> Any:
    """Squares next to ``x`` in any of the eight directions."""
    h = ((x << U(1)) & U(0xFEFEFEFEFEFEFEFE)) | ((x >> U(1)) & U(0x7F7F7F7F7F7F7F7F))
    row = x | h
    return h | (row << U(8)) | (row >> U(8))


@njit(cache=True, inline="always")
def _parity_first(empties: Any) -> Any:
    """Empties in quadrants with an odd number of empties (tried first)."""
    odd = U(0)
    for q in _QUAD:
        e = empties & q
        if popcnt64(e) & U(1):
            odd |= e
    return odd


# --------------------------------------------------------------------------- last empties


@njit(cache=True)
def _last1(P: Any, O: Any, sq: Any) -> int:
    pp = np.int64(popcnt64(P))
    f = flips(P, O, sq)
    if f:
        return 2 * (pp + np.int64(popcnt64(f)) + 1) - 64
    f = flips(O, P, sq)
    if f:
        return 2 * (pp - np.int64(popcnt64(f))) - 64
    d = 2 * pp - 63  # 63 discs: odd, never a tie; the empty goes to the winner
    return d + 1 if d > 0 else d - 1


_NO_MOVE = -1000  # "the side to move had no move here" (never a score)


@njit(cache=True)
def _side2(P: Any, O: Any, beta: int, s1: Any, s2: Any) -> int:
    """Best of P's moves among the last two empties, or _NO_MOVE."""
    best = _NO_MOVE
    f = flips(P, O, s1)
    if f:
        best = -_last1(O ^ f, P ^ f ^ (U(1) << s1), s2)
        if best >= beta:
            return best
    f = flips(P, O, s2)
    if f:
        v = -_last1(O ^ f, P ^ f ^ (U(1) << s2), s1)
        if v > best:
            best = v
    return best


@njit(cache=True, _nrt=False)
def _last2(P: Any, O: Any, alpha: int, beta: int, s1: Any, s2: Any, ctl: Any) -> int:
    ctl[_NODES] += 1
    v = _side2(P, O, beta, s1, s2)
    if v != _NO_MOVE:
        return v
    v = _side2(O, P, -alpha, s1, s2)
    if v != _NO_MOVE:
        return -v
    return _final(P, O)


@njit(cache=True, _nrt=False)
def _side3(P: Any, O: Any, alpha: int, beta: int, a: Any, b: Any, c: Any, ctl: Any) -> int:
    best = _NO_MOVE
    for i in range(3):
        if i == 0:
            sq, x, y = a, b, c
        elif i == 1:
            sq, x, y = b, a, c
        else:
            sq, x, y = c, a, b
        f = flips(P, O, sq)
        if f:
            lo = alpha if best < alpha else best
            v = -_last2(O ^ f, P ^ f ^ (U(1) << sq), -beta, -lo, x, y, ctl)
            if v > best:
                best = v
                if best >= beta:
                    return best
    return best


@njit(cache=True, _nrt=False)
def _last3(P: Any, O: Any, alpha: int, beta: int, a: Any, b: Any, c: Any, ctl: Any) -> int:
    ctl[_NODES] += 1
    v = _side3(P, O, alpha, beta, a, b, c, ctl)
    if v != _NO_MOVE:
        return v
    v = _side3(O, P, -beta, -alpha, a, b, c, ctl)
    if v != _NO_MOVE:
        return -v
    return _final(P, O)


@njit(cache=True, inline="always")
def _try4(P: Any, O: Any, alpha: int, beta: int, best: int, s: Any, x: Any, y: Any, z: Any,
          ctl: Any) -> int:  # fmt: skip
    f = flips(P, O, s)
    if f:
        lo = alpha if best < alpha else best
        v = -_last3(O ^ f, P ^ f ^ (U(1) << s), -beta, -lo, x, y, z, ctl)
        if v > best:
            return v
    return best


@njit(cache=True, _nrt=False)
def _side4(P: Any, O: Any, alpha: int, beta: int, a: Any, b: Any, c: Any, d: Any,
           ctl: Any) -> int:  # fmt: skip
    best = _try4(P, O, alpha, beta, _NO_MOVE, a, b, c, d, ctl)
    if best >= beta:
        return best
    best = _try4(P, O, alpha, beta, best, b, a, c, d, ctl)
    if best >= beta:
        return best
    best = _try4(P, O, alpha, beta, best, c, a, b, d, ctl)
    if best >= beta:
        return best
    return _try4(P, O, alpha, beta, best, d, a, b, c, ctl)


@njit(cache=True, _nrt=False)
def _last4(P: Any, O: Any, alpha: int, beta: int, empties: Any, ctl: Any) -> int:
    ctl[_NODES] += 1
    # The four squares, those in odd quadrants first (parity ordering).
    odd = _parity_first(empties)
    e = (empties & odd) | U(0)
    rest = empties & ~odd
    order = U(0)  # four 8-bit square numbers, first in the low byte
    k = U(0)
    while e:
        order |= ctz64(e) << k
        k += U(8)
        e &= e - U(1)
    while rest:
        order |= ctz64(rest) << k
        k += U(8)
        rest &= rest - U(1)
    a = order & U(255)
    b = (order >> U(8)) & U(255)
    c = (order >> U(16)) & U(255)
    d = (order >> U(24)) & U(255)
    v = _side4(P, O, alpha, beta, a, b, c, d, ctl)
    if v != _NO_MOVE:
        return v
    v = _side4(O, P, -beta, -alpha, a, b, c, d, ctl)
    if v != _NO_MOVE:
        return -v
    return _final(P, O)


# --------------------------------------------------------------------------- stability


def _diagonals() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    diag, anti = [], []
    for k in range(15):
        d = a = 0
        for r in range(8):
            if 0 <= k - r < 8:
                a |= 1 << (8 * r + k - r)  # anti-diagonal: row + col = k
            if 0 <= r - k + 7 < 8:
                d |= 1 << (8 * r + r - k + 7)  # diagonal: col - row = 7 - k
        diag.append(U(d))
        anti.append(U(a))
    return tuple(diag), tuple(anti)


_DIAG, _ANTI = _diagonals()
_COLS = tuple(U(0x0101010101010101 << c) for c in range(8))
_ROWS = tuple(U(0xFF << (8 * r)) for r in range(8))


@njit(cache=True, inline="always")
def _full_of(occ: Any, lines: Any) -> Any:
    """The union of those ``lines`` (masks) that ``occ`` fills completely."""
    full = U(0)
    for m in lines:
        if occ & m == m:
            full |= m
    return full


@njit(cache=True)
def _full_lines(occ: Any) -> Any:
    """Squares whose row, column and both diagonals are all full: nothing can ever be
    played along any of their lines, so a disc there can never flip."""
    return _full_of(occ, _ROWS) & _full_of(occ, _COLS) & _full_of(occ, _DIAG) & _full_of(occ, _ANTI)


@njit(cache=True)
def stable_discs(P: Any, O: Any) -> Any:
    """A subset of P's discs that can never be flipped."""
    return (_stable_edges(P) | _full_lines(P | O)) & P


def _edge_table() -> Any:
    """``[p * 256 + o]``: which of P's discs on one edge (8 bits; ``p``, ``o`` disjoint)
    stay P's whatever is played on that edge. An edge disc can only be flipped along its
    edge, so the one-line game decides it; any empty square may be taken by either side
    (in the whole board a move there may flip along another line), which can only shrink
    the answer: it is exact for the line, and safe for the board."""
    memo: dict[tuple[int, int], int] = {}

    def place(me: int, you: int, sq: int) -> tuple[int, int]:
        flip = 0
        for step in (1, -1):
            run, x = 0, sq + step
            while 0 <= x < 8 and (you >> x) & 1:
                run |= 1 << x
                x += step
            if run and 0 <= x < 8 and (me >> x) & 1:
                flip |= run
        return me | flip | (1 << sq), you & ~flip

    def stable(p: int, o: int) -> int:
        key = (p, o)
        if key in memo:
            return memo[key]
        out = p
        for sq in range(8):
            if ((p | o) >> sq) & 1:
                continue
            np_, no = place(p, o, sq)  # P plays there
            out &= stable(np_, no)
            no, np_ = place(o, p, sq)  # O plays there
            out &= stable(np_, no)
            if not out:
                break
        memo[key] = out
        return out

    table = np.zeros(1 << 16, dtype=np.uint8)
    for p in range(256):
        rest = 255 & ~p
        o = rest
        while True:  # every subset of the squares P leaves
            table[p * 256 + o] = stable(p, o)
            if o == 0:
                break
            o = (o - 1) & rest
    return table


_EDGE_STABLE = _edge_table()
_RANKS_1_8 = _EDGE_TOP | _EDGE_BOTTOM
_BORDER = _RANKS_1_8 | _EDGE_LEFT | _EDGE_RIGHT
# a byte spread down file A (bit r of the byte to row r)
_SPREAD_A = np.array([sum(((b >> r) & 1) << (8 * r) for r in range(8)) for b in range(256)],
                     dtype=np.uint64)  # fmt: skip


@njit(cache=True, inline="always")
def _file_byte(x: Any) -> Any:
    """File A of ``x`` as a byte (row r to bit r)."""
    return ((x & _EDGE_LEFT) * U(0x0102040810204080)) >> U(56)


@njit(cache=True)
def _edge_stable(P: Any, O: Any) -> Any:
    """P's discs on the four edges that no sequence of moves can flip (:func:`_edge_table`)."""
    t = _EDGE_STABLE
    s = U(t[(P & U(0xFF)) * U(256) + (O & U(0xFF))])
    s |= U(t[(P >> U(56)) * U(256) + (O >> U(56))]) << U(56)
    s |= U(_SPREAD_A[t[_file_byte(P) * U(256) + _file_byte(O)]])
    s |= U(_SPREAD_A[t[_file_byte(P >> U(7)) * U(256) + _file_byte(O >> U(7))]]) << U(7)
    return s


@njit(cache=True)
def stable_full(P: Any, O: Any) -> Any:
    """A larger subset of P's discs that can never be flipped than :func:`stable_discs`:
    edge discs by the exact one-edge game (:func:`_edge_table`), discs on four full lines,
    and, grown until nothing changes, any disc that along each of its four lines is on a
    full line, at the border, or next to a stable disc of P's (a run of P's through it
    cannot be flanked without flipping that disc too). What the endgame's stability
    cut-off uses; the hand-set evaluation keeps :func:`stable_discs`."""
    occ = P | O
    h = _full_of(occ, _ROWS) | _EDGE_LEFT | _EDGE_RIGHT
    v = _full_of(occ, _COLS) | _RANKS_1_8
    d = _full_of(occ, _DIAG) | _BORDER
    a = _full_of(occ, _ANTI) | _BORDER
    st = (_edge_stable(P, O) | (h & v & d & a)) & P
    while True:
        nh = h | ((st << U(1)) & ~_EDGE_LEFT) | ((st >> U(1)) & ~_EDGE_RIGHT)
        nv = v | (st << U(8)) | (st >> U(8))
        nd = d | ((st << U(9)) & ~_EDGE_LEFT) | ((st >> U(9)) & ~_EDGE_RIGHT)
        na = a | ((st << U(7)) & ~_EDGE_RIGHT) | ((st >> U(7)) & ~_EDGE_LEFT)
        grown = st | (P & nh & nv & nd & na)
        if grown == st:
            return st
        st = grown


# --------------------------------------------------------------------------- table


@njit(cache=True, inline="always")
def _tt_index(ctl: Any, k: Any) -> int:
    # A bucket of two entries (key, packed data): four int64, 32 bytes.
    return np.int64((k * U(0x9E3779B97F4A7C15)) >> U(ctl[_TT_SHIFT])) * 4


@njit(cache=True, inline="always")
def _key(P: Any, O: Any) -> Any:
    return U(mix64(np.int64(P) ^ mix64(np.int64(O) + 0x5851F42D4C957F2D)))


@njit(cache=True)
def _tt_get(tt: Any, ctl: Any, k: Any) -> int:
    """Packed entry (lower + 128 | upper + 128 << 8 | move + 1 << 16 | empties << 24) or 0."""
    i = _tt_index(ctl, k)
    if tt[i] == np.int64(k):
        return tt[i + 1]
    if tt[i + 2] == np.int64(k):
        return tt[i + 3]
    return 0


@njit(cache=True)
def _tt_put(tt: Any, ctl: Any, k: Any, lower: int, upper: int, move: int, empties: int) -> None:
    """Two slots per bucket: the first keeps the deepest entry (most empties), the second
    takes whatever the first does not; a position's own entry is always refreshed."""
    i = _tt_index(ctl, k)
    data = (lower + 128) | ((upper + 128) << 8) | ((move + 1) << 16) | (empties << 24)
    kk = np.int64(k)
    if tt[i] == kk:
        tt[i + 1] = data
    elif tt[i + 2] == kk:
        tt[i + 3] = data
    elif tt[i + 1] == 0 or ((tt[i + 1] >> 24) & 255) <= empties:
        tt[i + 2] = tt[i]  # the deep slot's entry moves to the second slot
        tt[i + 3] = tt[i + 1]
        tt[i] = kk
        tt[i + 1] = data
    else:
        tt[i + 2] = kk
        tt[i + 3] = data


# --------------------------------------------------------------------------- search


@njit(cache=True, returns=types.int64)
def _shallow(P: Any, O: Any, depth: int, alpha: int, beta: int, W: Any) -> int:
    """Alpha-beta to ``depth`` plies with the pattern evaluation (centi-discs for P)."""
    if depth <= 0:
        return pattern_value(W, P, O)
    mv = moves(P, O)
    if mv == 0:
        if moves(O, P) == 0:
            return _final(P, O) * 100
        return -_shallow(O, P, depth, -beta, -alpha, W)
    best = -_WIDE
    while mv:
        sq = ctz64(mv)
        mv &= mv - U(1)
        f = flips(P, O, sq)
        v = -_shallow(O ^ f, P ^ f ^ (U(1) << sq), depth - 1, -beta, -alpha, W)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


@njit(cache=True, _nrt=False, returns=types.int64)
def _solve_small(P: Any, O: Any, alpha: int, beta: int, n: int, passed: int, ctl: Any) -> int:
    """5 to _SMALL empties: squares tried straight from the empties, odd quadrants first."""
    empties = ~(P | O)
    if n == 4:
        return _last4(P, O, alpha, beta, empties, ctl)
    ctl[_NODES] += 1
    best = _NO_MOVE
    odd = _parity_first(empties)
    for phase in range(2):
        e = empties & odd if phase == 0 else empties & ~odd
        while e:
            sq = ctz64(e)
            e &= e - U(1)
            f = flips(P, O, sq)
            if f:
                lo = alpha if best < alpha else best
                v = -_solve_small(O ^ f, P ^ f ^ (U(1) << sq), -beta, -lo, n - 1, np.int64(0), ctl)
                if v > best:
                    best = v
                    if best >= beta:
                        return best
    if best != _NO_MOVE:
        return best
    if passed:
        return _final(P, O)
    return -_solve_small(O, P, -beta, -alpha, n, np.int64(1), ctl)


@njit(cache=True, inline="always")
def _kept_all(O: Any) -> Any:
    """The side to move's best final score if the opponent keeps every disc of ``O``."""
    return 64 - 2 * np.int64(popcnt64(O))


@njit(cache=True, inline="always")
def _order(
    P: Any,
    O: Any,
    mv: Any,
    n: int,
    beta: int,
    tt_move: int,
    etc: bool,
    hunt: bool,
    sqs: Any,
    keys: Any,
    fl: Any,
    ctl: Any,
    tt: Any,
    W: Any,
) -> tuple[int, int]:
    """Put the moves ``mv`` in ``sqs`` (their flips in ``fl``), best first: the table's
    move, then fewest opponent replies (a corner counting twice), then fewest of our discs
    next to an empty square, corners first on ties, and from ``_EVAL_EMPTIES`` up the
    learned evaluation (a shallow search with it from ``_SHALLOW_EMPTIES``). When the node
    ``hunt``s (:data:`HUNT_MARGIN`), mobility alone, and the table's move no longer leads.
    Gives (the number of moves, ``_NO_CUT``) — or, with ``etc``, (0, a value >= ``beta``)
    as soon as the table shows a child that refutes the window (enhanced transposition
    cut-off)."""
    m = 0
    x = mv
    while x:
        sq = np.int64(ctz64(x))
        x &= x - U(1)
        f = flips(P, O, U(sq))
        nP = O ^ f
        nO = P ^ f ^ (U(1) << U(sq))
        if etc:
            # A child the table already shows to be at most -beta for the opponent
            # refutes the window before any search.
            ce = _tt_get(tt, ctl, _key(nP, nO))
            if ce != 0:
                cu = ((ce >> 8) & 255) - 128
                if -cu >= beta:
                    return 0, -cu
        om = moves(nP, nO)
        # The opponent's replies (a corner counts twice), then our discs next to an empty
        # square (the opponent's potential mobility: where their later moves can come).
        score = (np.int64(popcnt64(om)) + np.int64(popcnt64(om & _CORNERS))) * 16
        empt = ~(nP | nO)
        score += np.int64(popcnt64(_neighbours(empt) & nO))
        if (U(1) << U(sq)) & _CORNERS:
            score -= 8
        # The learned evaluation of the position for the opponent (lower first): the
        # position itself, or a shallow search from it. Not when hunting: it rates how
        # good a position is, not how soon the opponent runs out of discs and moves.
        if not hunt:
            if n >= ctl[_SHALLOW_EMPTIES]:
                d = ctl[_SHALLOW_DEPTH]
                score += (
                    _shallow(nP, nO, d, np.int64(-_WIDE), np.int64(_WIDE), W) >> ctl[_EVAL_SHIFT]
                )
            elif n >= ctl[_EVAL_EMPTIES]:
                score += pattern_value(W, nP, nO) >> ctl[_EVAL_SHIFT]
        if sq == tt_move and not hunt:  # (found by a test of a lower window: often not
            score = -1000  # the move that wins everything)
        j = m
        while j > 0 and keys[j - 1] > score:
            keys[j] = keys[j - 1]
            sqs[j] = sqs[j - 1]
            fl[j] = fl[j - 1]
            j -= 1
        keys[j] = score
        sqs[j] = sq
        fl[j] = np.int64(f)
        m += 1
    return m, _NO_CUT


@njit(cache=True, inline="always")
def _children(
    P: Any,
    O: Any,
    alpha: int,
    beta: int,
    n: int,
    sqs: Any,
    fl: Any,
    m: int,
    ctl: Any,
    tt: Any,
    stop: Any,
    buf: Any,
    W: Any,
) -> tuple[int, int]:
    """Fail-soft negamax over the ``m`` moves ``sqs`` (their flips: ``fl``) in that order:
    (the best value, its move). Stops at a cut-off, or on an abort (``ctl[_ABORT]``, the
    caller's to check)."""
    best = -_INF
    best_move = np.int64(-1)
    a = alpha
    for i in range(m):
        sq = U(sqs[i])
        f = U(fl[i])
        v = -_solve(
            O ^ f, P ^ f ^ (U(1) << sq), -beta, -a, n - 1, np.int64(0), ctl, tt, stop, buf, W
        )
        if ctl[_ABORT]:
            break
        if v > best:
            best = v
            best_move = sqs[i]
            if v > a:
                a = v
                if a >= beta:
                    break
    return best, best_move


@njit(cache=True, nogil=True, _nrt=False, returns=types.int64)
def _solve(
    P: Any,
    O: Any,
    alpha: int,
    beta: int,
    n: int,
    passed: int,
    ctl: Any,
    tt: Any,
    stop: Any,
    buf: Any,
    W: Any,
) -> int:
    """Fail-soft alpha-beta for more than _SMALL empties."""
    if n <= _SMALL:
        return _solve_small(P, O, alpha, beta, n, passed, ctl)
    ctl[_NODES] += 1
    if (ctl[_NODES] & 4095) == 0 and (stop[0] != 0 or ctl[_NODES] >= ctl[_NODE_LIMIT]):
        ctl[_ABORT] = 1
    if ctl[_ABORT]:
        return 0
    # Stability cut-off: the opponent's stable discs stay theirs to the end. Only worth
    # computing when even all of the opponent's discs being stable would cut.
    keep = _kept_all(O)
    hunt = alpha >= keep + HUNT_MARGIN
    if alpha >= keep:
        bound = 64 - 2 * np.int64(popcnt64(stable_full(O, P)))
        if bound <= alpha:
            return bound
    mv = moves(P, O)
    if mv == 0:
        if passed:
            return _final(P, O)
        return -_solve(O, P, -beta, -alpha, n, np.int64(1), ctl, tt, stop, buf, W)

    k = U(0)
    tt_move = -1
    if n >= TT_EMPTIES:
        k = _key(P, O)
        e = _tt_get(tt, ctl, k)
        if e != 0:
            lower = (e & 255) - 128
            upper = ((e >> 8) & 255) - 128
            tt_move = ((e >> 16) & 255) - 1
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower == upper:
                return lower
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper

    # Fastest first (:func:`_order`); one row of ``buf`` per number of empties, so each
    # level of the path has its own move list.
    sqs = buf[n, :32]
    keys = buf[n, 32:64]
    fl = buf[n, 64:]  # each move's flips, kept for playing it
    m, cut = _order(P, O, mv, n, beta, tt_move, n > ETC_EMPTIES, hunt, sqs, keys, fl, ctl, tt, W)
    if cut != _NO_CUT:
        return cut

    best, best_move = _children(P, O, alpha, beta, n, sqs, fl, m, ctl, tt, stop, buf, W)
    if ctl[_ABORT]:
        return 0
    if n >= TT_EMPTIES:
        lower = best if best > alpha else -64
        upper = best if best < beta else 64
        # Merge with what the table knew (bounds only ever narrow).
        e = _tt_get(tt, ctl, k)
        if e != 0:
            ol = (e & 255) - 128
            ou = ((e >> 8) & 255) - 128
            if ol > lower:
                lower = ol
            if ou < upper:
                upper = ou
        _tt_put(tt, ctl, k, lower, upper, best_move, n)
    return best


@njit(cache=True, nogil=True)
def _root_test(
    P: Any, O: Any, alpha: int, beta: int, n: int, ctl: Any, tt: Any, stop: Any, buf: Any, W: Any
) -> Any:
    """Value of the root within (alpha, beta) and the move that reached it."""
    # Ordered as at every other node (:func:`_order`): a win found by a move tried late
    # costs a whole refutation of each move before it (on FFO #59, a wipe-out, the square
    # order made the root try eight moves that keep the opponent alive first).
    first = -1
    e = _tt_get(tt, ctl, _key(P, O))
    if e != 0:
        first = ((e >> 16) & 255) - 1
    sqs = buf[n, :32]  # (the children use the rows below)
    keys = buf[n, 32:64]
    fl = buf[n, 64:]
    hunt = alpha >= _kept_all(O) + HUNT_MARGIN
    m, _ = _order(P, O, moves(P, O), n, beta, first, False, hunt, sqs, keys, fl, ctl, tt, W)
    best, best_move = _children(P, O, alpha, beta, n, sqs, fl, m, ctl, tt, stop, buf, W)
    if ctl[_ABORT]:
        return 0, -1
    if best_move >= 0:
        lower = best if best > alpha else -64
        upper = best if best < beta else 64
        _tt_put(tt, ctl, _key(P, O), lower, upper, best_move, n)
    return best, best_move


# --------------------------------------------------------------------------- driver


@dataclass(eq=False, repr=False)
class Solution:
    """What an exact solve established.

    ``status`` is ``"solved"`` (``score`` is the exact final disc difference for the side to
    move under perfect play, ``best_moves`` reach it) or ``"unknown"`` (a limit stopped the
    solve first: ``stopped_by`` says which; no score is claimed)."""

    status: str
    score: int | None
    best_moves: list[int]
    nodes: int
    seconds: float
    stopped_by: str = ""

    def __repr__(self) -> str:
        return (
            f"Solution({self.status!r}, score={self.score}, best_moves={self.best_moves}, "
            f"nodes={self.nodes}, seconds={self.seconds:.3f})"
        )


class EndgameSolver:
    """Exact solver; one instance keeps its table between solves (positions are keyed by
    their discs, so entries stay valid from one position to the next)."""

    def __init__(
        self, tt_bits: int = 22, weights: Weights | None = None, eval_order: bool = True,
        load: bool = True,
    ) -> None:  # fmt: skip
        """``weights``: the evaluation that orders moves (the shipped one by default);
        ``eval_order=False`` orders by mobility alone, as before the learned evaluation;
        ``load=False``: the compiled solver is not loaded now — its owner ensures
        :data:`~.sets.ENDGAME` before it solves (the engine's ``warm_up``, which may have
        it compiled in a second process meanwhile)."""
        self.tt = np.zeros(2 << tt_bits, dtype=np.int64)  # 2**tt_bits entries, 16 bytes each
        self.W = (weights or load_weights()).table
        self.ctl = np.zeros(8, dtype=np.int64)
        self.ctl[_EVAL_EMPTIES] = EVAL_EMPTIES if eval_order else _OFF
        self.ctl[_SHALLOW_EMPTIES] = SHALLOW_EMPTIES if eval_order else _OFF
        self.ctl[_SHALLOW_DEPTH] = SHALLOW_DEPTH
        self.ctl[_EVAL_SHIFT] = EVAL_SHIFT
        self.ctl[_TT_SHIFT] = 64 - (tt_bits - 1)  # buckets of two entries
        self.buf = np.zeros((65, 96), dtype=np.int64)  # move lists, a row per empties count
        if load:
            ensure(ENDGAME)  # every solver function loaded (or compiled) before anything is timed

    def clear(self) -> None:
        self.tt[:] = 0

    def solve(
        self,
        player: int,
        opponent: int,
        time_limit: float | None = None,
        node_limit: int | None = None,
        stop: StopFlag | None = None,
        all_best: bool = False,
    ) -> Solution:
        """Solve the position with ``player`` (side to move) and ``opponent`` bitboards."""
        t0 = time.perf_counter()
        flag = stop if stop is not None else StopFlag()
        P, O = U(player), U(opponent)
        n = 64 - int(popcnt64_py(player | opponent))
        self.ctl[_NODES] = 0
        self.ctl[_ABORT] = 0
        self.ctl[_NODE_LIMIT] = node_limit if node_limit is not None else 1 << 62
        ctl, tt, W = self.ctl, self.tt, self.W
        if int(moves(P, O)) == 0:
            if int(moves(O, P)) == 0:
                return Solution("solved", int(_final(P, O)), [], 0, time.perf_counter() - t0)
            sub = self.solve(opponent, player, time_limit, node_limit, stop)
            if sub.status != "solved" or sub.score is None:
                return Solution("unknown", None, [], sub.nodes, sub.seconds, sub.stopped_by)
            return Solution("solved", -sub.score, [PASS], sub.nodes, time.perf_counter() - t0)

        def aborted() -> str | None:
            if ctl[_ABORT]:
                r = flag.reason
                return {STOP_TIME: "time", STOP_REQUESTED: "stop"}.get(r, "nodes")
            return None

        with Deadline(flag, time_limit):
            lo, hi, g = -64, 64, 0
            best_move = -1
            while lo < hi:
                beta = g + 1 if g == lo else g
                v, mv = _root_test(P, O, beta - 1, beta, n, ctl, tt, flag.array, self.buf, W)
                why = aborted()
                if why:
                    return self._unknown(why, t0, flag)
                v = int(v)
                if v >= beta:
                    lo = v
                    best_move = int(mv)
                else:
                    hi = v
                g = v
            score = lo
            if best_move < 0:  # every move loses by 64: any of them is "best"
                _, mv = _root_test(P, O, -_INF, _INF, n, ctl, tt, flag.array, self.buf, W)
                best_move = int(mv)
            best = [best_move]
            if all_best:
                best = []
                for sq in range(64):
                    if not (int(moves(P, O)) >> sq) & 1:
                        continue
                    f = flips(P, O, U(sq))
                    child_p, child_o = O ^ f, P ^ f ^ (U(1) << U(sq))
                    # Is this move's value >= score? (It cannot be more: score is the max.)
                    v = -_solve(child_p, child_o, -score, -score + 1, n - 1, np.int64(0), ctl,
                                tt, flag.array, self.buf, W)  # fmt: skip
                    why = aborted()
                    if why:
                        return self._unknown(why, t0, flag)
                    if v >= score:
                        best.append(sq)
        if flag.reason == STOP_TIME:
            flag.clear()
        return Solution("solved", score, best, int(ctl[_NODES]), time.perf_counter() - t0)

    def _unknown(self, why: str, t0: float, flag: StopFlag) -> Solution:
        if flag.reason == STOP_TIME:
            flag.clear()
        return Solution("unknown", None, [], int(self.ctl[_NODES]), time.perf_counter() - t0, why)


def popcnt64_py(x: int) -> int:
    return int(x).bit_count()


def _load_endgame() -> None:
    """Solve a 14-empties position from a real game: it reaches the table, the
    small-empties code and the last-four routines."""
    b = Board()
    while b.empties() > 14 and not b.is_game_over():
        b.push(b.legal_moves[-1])
    p, o = (b.black, b.white) if b.turn == 1 else (b.white, b.black)
    EndgameSolver(tt_bits=10).solve(p, o)
