"""SplitMix64, the seeded generator behind Mattix deals and Othello openings.

A leaf module (no imports): any game can name a position by a seed with it.
"""

from __future__ import annotations

__all__ = ["SplitMix64", "mix_seed"]

_MASK = 0xFFFFFFFFFFFFFFFF


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea & Flood 2014): tiny, and the same everywhere.

    Deals and openings use it instead of Python's or NumPy's generators so that a seed
    names the same position on every machine and every version, and can be
    re-implemented in any language::

        >>> hex(SplitMix64(0).next())
        '0xe220a8397b1dcdaf'
    """

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def mix_seed(x: int) -> int:
    """SplitMix64's step and finaliser on ``x``, as a signed 64-bit int: a well-spread seed
    for a compiled generator (the tree searches' playouts) from any int."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    x ^= x >> 31
    return x - (1 << 64) if x >= 1 << 63 else x
