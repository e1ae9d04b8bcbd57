"""Bit helpers shared by the compiled kernels of several games."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def popcount64(x: int) -> int:
    """Number of set bits of a 64-bit integer (SWAR; works on int64 bit patterns)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True, inline="always")
def mix64(x: int) -> int:
    """SplitMix64 finaliser: a cheap, well-distributed 64-bit mixing of ``x``."""
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * -4658895280553007687  # 0xBF58476D1CE4E5B9
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * -7723592293110705685  # 0x94D049BB133111EB
    return x ^ ((x >> 31) & 0x1FFFFFFFF)
