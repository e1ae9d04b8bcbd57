"""Othello's rules compiled with numba: legal moves, flips and perft on bitboards.

These are the rules every compiled search builds on (the alpha-beta kernels and the
evaluation in :mod:`.evaluation`, the exact endgame solver in :mod:`.endgame`, df-pn in
:mod:`.wld`); the pure-Python board (:mod:`.board`) calls them too.

A position is two ``uint64``: the discs of the side to move (``P``) and of its opponent
(``O``). Bit ``8 * row + col`` is the square in row ``row`` (0 = rank 1, the top) and column
``col`` (0 = file a, the left): bit 0 is a1, bit 7 is h1, bit 63 is h8. Shifting left by 1
moves a disc one file right (east), by 8 one rank down (south), by 9 south-east, by 7
south-west; the masks stop discs wrapping from one edge of the board to the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types

from banmen._bits import clz64, ctz64, popcnt64
from banmen._jit import njit

__all__ = ["moves", "flips", "perft", "perft_bulk", "popcount", "U", "RAYS"]

U = np.uint64
FULL = U(0xFFFFFFFFFFFFFFFF)
NOT_A = U(0xFEFEFEFEFEFEFEFE)  # every square but file a
NOT_H = U(0x7F7F7F7F7F7F7F7F)  # every square but file h
INNER = U(0x7E7E7E7E7E7E7E7E)  # files b-g: a run of discs along a row or diagonal lies here


@njit(cache=True, inline="always")
def _run_left(P: Any, m: Any, s: Any) -> Any:
    # Runs of ``m`` squares that start next to a disc of ``P``, grown by doubling: after
    # two single steps, each step adds two more squares (an opponent run is at most 6).
    t = m & (P << s)
    t |= m & (t << s)
    pre = m & (m << s)
    s2 = s + s
    t |= pre & (t << s2)
    t |= pre & (t << s2)
    return t << s


@njit(cache=True, inline="always")
def _run_right(P: Any, m: Any, s: Any) -> Any:
    t = m & (P >> s)
    t |= m & (t >> s)
    pre = m & (m >> s)
    s2 = s + s
    t |= pre & (t >> s2)
    t |= pre & (t >> s2)
    return t >> s


@njit(cache=True)
def moves(P: Any, O: Any) -> Any:
    """Every legal move at once: for each direction, the runs of opponent discs that start
    next to one of ours, one step further, on an empty square (a shift fill that doubles
    its step, as in Kogge-Stone adders)."""
    empty = ~(P | O)
    m = O & INNER
    res = _run_left(P, m, U(1)) | _run_right(P, m, U(1))
    res |= _run_left(P, O, U(8)) | _run_right(P, O, U(8))
    res |= _run_left(P, m, U(7)) | _run_right(P, m, U(7))
    res |= _run_left(P, m, U(9)) | _run_right(P, m, U(9))
    return res & empty


def _ray_table() -> Any:
    """``RAYS[8 * sq + d]``: the squares from ``sq`` (excluded) to the edge in direction
    ``d``; directions 0-3 go towards higher bits (E, S, SE, SW), 4-7 towards lower bits
    (W, N, NW, NE)."""
    steps = [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)]
    rays = np.zeros(64 * 8, dtype=np.uint64)
    for sq in range(64):
        row, col = divmod(sq, 8)
        for d, (dr, dc) in enumerate(steps):
            r, c, m = row + dr, col + dc, 0
            while 0 <= r < 8 and 0 <= c < 8:
                m |= 1 << (8 * r + c)
                r, c = r + dr, c + dc
            rays[8 * sq + d] = m
    return rays


RAYS = _ray_table()
HIGH = U(0x8000000000000000)


@njit(cache=True, inline="always")
def _flips_up(P: Any, O: Any, ray: Any) -> Any:
    # The nearest square along the ray that is not the opponent's is its lowest set bit;
    # if it is ours, every ray square below it (all the opponent's) turns over.
    x = ray & ~O
    first = x & (U(0) - x)
    ok = U(0) - U((first & P) != U(0))
    return (first - U(1)) & ray & ok


@njit(cache=True, inline="always")
def _flips_down(P: Any, O: Any, ray: Any) -> Any:
    # Towards lower bits the nearest square is the highest set bit (| 1 keeps clz defined;
    # bit 0 then only counts if it is on the ray and ours).
    first = HIGH >> clz64((ray & ~O) | U(1))
    ok = U(0) - U((first & P & ray) != U(0))
    return ray & ~(first | (first - U(1))) & ok


@njit(cache=True)
def flips(P: Any, O: Any, sq: Any) -> Any:
    """The opponent discs a move on ``sq`` turns over (0 if the move is illegal): for each
    of the eight rays from ``sq``, the opponent discs up to the first of ours, found
    without a loop by isolating the nearest non-opponent square."""
    b = np.int64(sq) * 8
    return (
        _flips_up(P, O, RAYS[b])
        | _flips_up(P, O, RAYS[b + 1])
        | _flips_up(P, O, RAYS[b + 2])
        | _flips_up(P, O, RAYS[b + 3])
        | _flips_down(P, O, RAYS[b + 4])
        | _flips_down(P, O, RAYS[b + 5])
        | _flips_down(P, O, RAYS[b + 6])
        | _flips_down(P, O, RAYS[b + 7])
    )


@njit(cache=True)
def popcount(x: Any) -> int:
    return popcnt64(x)


@njit(cache=True, returns=types.UniTuple(types.uint64, 2))
def perft(P: Any, O: Any, depth: int, passed: bool, pass_free: bool) -> Any:
    """``(leaves, made)``: the leaves of the game tree ``depth`` plies deep and the number
    of moves made to reach them all (passes included; every move of the last ply is
    made, none is bulk-counted). A finished game is one leaf at any remaining depth. By
    default a pass uses a ply (Bik's convention); with ``pass_free`` it does not."""
    if depth == 0:
        return U(1), U(0)
    mv = moves(P, O)
    if mv == 0:
        if passed or moves(O, P) == 0:
            return U(1), U(0)  # neither side can move: the game is over
        leaves, made = perft(O, P, depth if pass_free else depth - 1, passed | True, pass_free)
        return leaves, made + U(1)
    total = U(0)
    made = U(0)
    while mv:
        low = mv & (~mv + U(1))
        f = flips(P, O, ctz64(mv))
        leaves, m = perft(O ^ f, P ^ f ^ low, depth - 1, passed & False, pass_free)
        total += leaves
        made += m + U(1)
        mv ^= low
    return total, made


@njit(cache=True, returns=types.uint64)
def perft_bulk(P: Any, O: Any, depth: int, passed: bool, pass_free: bool) -> Any:
    """The leaves of :func:`perft`, counted the way Edax and Egaroucid count them: the
    last ply's moves are counted from the legal-move mask (a popcount), not made."""
    if depth == 0:
        return U(1)
    mv = moves(P, O)
    if mv == 0:
        if passed or moves(O, P) == 0:
            return U(1)
        return perft_bulk(O, P, depth if pass_free else depth - 1, passed | True, pass_free)
    if depth == 1:
        return U(popcnt64(mv))
    total = U(0)
    while mv:
        low = mv & (~mv + U(1))
        f = flips(P, O, ctz64(mv))
        total += perft_bulk(O ^ f, P ^ f ^ low, depth - 1, passed & False, pass_free)
        mv ^= low
    return total
