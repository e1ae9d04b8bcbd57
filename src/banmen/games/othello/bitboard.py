"""Othello bitboards, compiled with numba.

A position is two ``uint64``: the discs of the side to move (``P``) and of its opponent
(``O``). Bit ``8 * row + col`` is the square in row ``row`` (0 = rank 1, the top) and column
``col`` (0 = file a, the left): bit 0 is a1, bit 7 is h1, bit 63 is h8. Shifting left by 1
moves a disc one file right (east), by 8 one rank down (south), by 9 south-east, by 7
south-west; the masks stop discs wrapping from one edge of the board to the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from banmen._bits import ctz64, popcnt64

__all__ = ["moves", "flips", "perft", "popcount", "PASS", "U"]

U = np.uint64
PASS = 64  #: the move number of a pass
FULL = U(0xFFFFFFFFFFFFFFFF)
NOT_A = U(0xFEFEFEFEFEFEFEFE)  # every square but file a
NOT_H = U(0x7F7F7F7F7F7F7F7F)  # every square but file h
INNER = U(0x7E7E7E7E7E7E7E7E)  # files b-g: a run of discs along a row or diagonal lies here


@njit(cache=True, inline="always")
def _run_left(P: Any, m: Any, s: Any) -> Any:
    t = m & (P << s)
    t |= m & (t << s)
    t |= m & (t << s)
    t |= m & (t << s)
    t |= m & (t << s)
    t |= m & (t << s)
    return t << s


@njit(cache=True, inline="always")
def _run_right(P: Any, m: Any, s: Any) -> Any:
    t = m & (P >> s)
    t |= m & (t >> s)
    t |= m & (t >> s)
    t |= m & (t >> s)
    t |= m & (t >> s)
    t |= m & (t >> s)
    return t >> s


@njit(cache=True)
def moves(P: Any, O: Any) -> Any:
    """Every legal move at once: for each direction, the runs of opponent discs that start
    next to one of ours, one step further, on an empty square (a "dumb7fill")."""
    empty = ~(P | O)
    m = O & INNER
    res = _run_left(P, m, U(1)) | _run_right(P, m, U(1))
    res |= _run_left(P, O, U(8)) | _run_right(P, O, U(8))
    res |= _run_left(P, m, U(7)) | _run_right(P, m, U(7))
    res |= _run_left(P, m, U(9)) | _run_right(P, m, U(9))
    return res & empty


@njit(cache=True, inline="always")
def _flip_left(P: Any, O: Any, x: Any, s: Any, mask: Any) -> Any:
    f = U(0)
    t = (x << s) & mask
    while t & O:
        f |= t
        t = (t << s) & mask
    return f if t & P else U(0)


@njit(cache=True, inline="always")
def _flip_right(P: Any, O: Any, x: Any, s: Any, mask: Any) -> Any:
    f = U(0)
    t = (x >> s) & mask
    while t & O:
        f |= t
        t = (t >> s) & mask
    return f if t & P else U(0)


@njit(cache=True)
def flips(P: Any, O: Any, sq: Any) -> Any:
    """The opponent discs a move on ``sq`` turns over (0 if the move is illegal)."""
    x = U(1) << U(sq)
    f = _flip_left(P, O, x, U(1), NOT_A) | _flip_right(P, O, x, U(1), NOT_H)
    f |= _flip_left(P, O, x, U(8), FULL) | _flip_right(P, O, x, U(8), FULL)
    f |= _flip_left(P, O, x, U(7), NOT_H) | _flip_right(P, O, x, U(7), NOT_A)
    f |= _flip_left(P, O, x, U(9), NOT_A) | _flip_right(P, O, x, U(9), NOT_H)
    return f


@njit(cache=True)
def popcount(x: Any) -> int:
    return popcnt64(x)


@njit(cache=True)
def perft(P: Any, O: Any, depth: int, passed: bool, pass_free: bool, made: Any) -> Any:
    """Leaves of the game tree ``depth`` plies deep; ``made[0]`` counts every move made
    (passes included). A finished game is one leaf at any remaining depth. By default a
    pass uses a ply (Bik's convention); with ``pass_free`` it does not."""
    if depth == 0:
        return U(1)
    mv = moves(P, O)
    if mv == 0:
        if passed or moves(O, P) == 0:
            return U(1)  # neither side can move: the game is over
        made[0] += U(1)
        return perft(O, P, depth if pass_free else depth - 1, passed | True, pass_free, made)
    total = U(0)
    while mv:
        low = mv & (~mv + U(1))
        f = flips(P, O, ctz64(mv))
        made[0] += U(1)
        total += perft(O ^ f, P ^ f ^ low, depth - 1, passed & False, pass_free, made)
        mv ^= low
    return total
