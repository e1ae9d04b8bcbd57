"""64-bit values whose bits remember where they came from.

A :class:`Tracked` is a 64-bit board (bit ``8 * row + col``, as in
:mod:`banmen.games.othello.kernels`) in which every set bit carries the set of
:class:`Source` squares it was made from. The operations are those of the bitboard kernels
(shifts, rotations, ``& | ^ ~``, masks, multiplication by a constant, addition,
subtraction, negation, lowest / highest bit isolation, popcount), each computed **bit by
bit on the tracked cells** — never by doing the integer operation and colouring the answer
afterwards — so the tracked bits can be checked against the real integer result.

What an operation reports besides the bits:

- ``overflow``: bits pushed past bit 63 (by ``<<``, or the high half of a product, or a
  carry / borrow out of bit 63); index ``i`` is bit ``64 + i``.
- ``underflow``: bits pushed below bit 0 by ``>>``; index ``i`` is bit ``-1 - i``.
- ``collisions``: positions where two or more terms of a product or sum landed (``1 + 1``).
- ``carries``: positions where a carry (or borrow) landed.
- ``terms``: for a product, the ``(source bit, constant bit)`` pairs adding up to each
  position.

Shifts, rotations, ``~`` and the arithmetic operations report only what they produced
themselves; ``&``, ``|`` and ``^`` keep the marks of their operands, so a one-line step
such as ``m & (P << 9)`` still shows what its shift pushed off the board.

>>> x = Tracked.board(0b11, "x")
>>> y = x * 0b11          # 3 * 3: two terms collide at bit 1, the carry ripples up
>>> y.value, sorted(y.collisions), sorted(y.carries)
(9, [1], [2, 3])
>>> [str(s) for s in sorted(y.bits[3] or ())]
['a1 (x)', 'b1 (x)']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

__all__ = ["Cell", "FULL", "Source", "Term", "Tracked", "VizError", "square_name"]

FULL = (1 << 64) - 1


class VizError(ValueError):
    """A bad walkthrough name, parameter or operand; the message says what was expected."""


def square_name(sq: int) -> str:
    """``a1`` .. ``h8`` for bits 0..63 (row 0 = rank 1 at the top, col 0 = file a)."""
    return f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}"


@dataclass(frozen=True, order=True)
class Source:
    """An original square (bit 0..63) of a named operand (``"x"``, ``"P"``, ``"O"``...)."""

    square: int
    board: str

    def __str__(self) -> str:
        return f"{square_name(self.square)} ({self.board})"


#: One bit of a tracked value: ``None`` for a 0 bit; for a 1 bit the set of squares it was
#: made from (empty for a bit with no source square: from a constant, ``~`` or a carry of
#: such bits).
Cell: TypeAlias = frozenset[Source] | None

_NO_SOURCES: frozenset[Source] = frozenset()


class Term(NamedTuple):
    """One partial product: bit ``bit`` of the multiplicand (with its sources) times bit
    ``k`` of the constant, landing on bit ``bit + k``."""

    sources: frozenset[Source]
    bit: int
    k: int


def _union(cells: Iterable[Cell]) -> frozenset[Source]:
    out: set[Source] = set()
    for c in cells:
        if c:
            out |= c
    return frozenset(out)


def _trim(cells: list[Cell]) -> tuple[Cell, ...]:
    while cells and cells[-1] is None:
        cells.pop()
    return tuple(cells)


def _merge_extra(a: tuple[Cell, ...], b: tuple[Cell, ...]) -> tuple[Cell, ...]:
    n = max(len(a), len(b))
    out: list[Cell] = []
    for i in range(n):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        out.append(None if x is None and y is None else _union((x, y)))
    return tuple(out)


def _check_shift(s: int) -> int:
    if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 64:
        raise VizError(f"shift amount must be an integer 0-63, got {s!r}")
    return s


def _check_const(c: int) -> int:
    if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= FULL:
        raise VizError(f"constant must be an integer 0 to 2**64 - 1, got {c!r}")
    return c


@dataclass(frozen=True)
class Tracked:
    """A 64-bit value whose set bits carry their source squares (see the module doc)."""

    bits: tuple[Cell, ...]
    overflow: tuple[Cell, ...] = ()
    underflow: tuple[Cell, ...] = ()
    collisions: frozenset[int] = frozenset()
    carries: frozenset[int] = frozenset()
    terms: Mapping[int, tuple[Term, ...]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if len(self.bits) != 64:
            raise VizError(f"a tracked value has 64 bits, got {len(self.bits)}")

    # ---- construction

    @classmethod
    def board(cls, value: int, name: str = "x") -> Tracked:
        """Every set bit of ``value`` is its own source: square ``i`` of board ``name``."""
        value = _check_const(value)
        return cls(
            tuple(frozenset({Source(i, name)}) if value >> i & 1 else None for i in range(64))
        )

    @classmethod
    def const(cls, value: int) -> Tracked:
        """A constant (a mask, a magic multiplier): set bits without source squares."""
        value = _check_const(value)
        return cls(tuple(_NO_SOURCES if value >> i & 1 else None for i in range(64)))

    # ---- reading

    @property
    def value(self) -> int:
        """The 64-bit integer the tracked bits spell (0 <= value < 2**64)."""
        v = 0
        for i, c in enumerate(self.bits):
            if c is not None:
                v |= 1 << i
        return v

    def sources(self) -> frozenset[Source]:
        """Every source square of every set bit."""
        return _union(self.bits)

    def popcount(self) -> int:
        """The number of set bits, counted on the tracked cells."""
        return sum(c is not None for c in self.bits)

    def settled(self) -> Tracked:
        """The same bits without the marks of the operations that made them."""
        if not (self.overflow or self.underflow or self.collisions or self.carries):
            return self
        return Tracked(self.bits)

    def __repr__(self) -> str:
        return f"Tracked(0x{self.value:016x})"

    # ---- shifts and rotations

    def _shifted(self, s: int) -> tuple[tuple[Cell, ...], list[Cell]]:
        """The bits moved ``s`` places up (down if negative), and the bits pushed past
        the end, nearest first."""
        bits: list[Cell] = [None] * 64
        off: list[Cell] = [None] * abs(s)
        for i, c in enumerate(self.bits):
            if c is None:
                continue
            j = i + s
            if 0 <= j < 64:
                bits[j] = c
            else:
                off[j - 64 if j >= 64 else -1 - j] = c
        return tuple(bits), off

    def __lshift__(self, s: int) -> Tracked:
        bits, over = self._shifted(_check_shift(s))
        return Tracked(bits, overflow=_trim(over))

    def __rshift__(self, s: int) -> Tracked:
        bits, under = self._shifted(-_check_shift(s))
        return Tracked(bits, underflow=_trim(under))

    def rotl(self, s: int) -> Tracked:
        """Rotate left: bits pushed past bit 63 come back in at bit 0."""
        s = _check_shift(s)
        return Tracked(tuple(self.bits[(i - s) % 64] for i in range(64)))

    def rotr(self, s: int) -> Tracked:
        """Rotate right: bits pushed below bit 0 come back in at bit 63."""
        s = _check_shift(s)
        return Tracked(tuple(self.bits[(i + s) % 64] for i in range(64)))

    # ---- bitwise

    def _other(self, other: Tracked | int) -> Tracked:
        if isinstance(other, Tracked):
            return other
        return Tracked.const(_check_const(other))

    def _bitwise(self, o: Tracked, bits: tuple[Cell, ...]) -> Tracked:
        terms = {**self.terms, **o.terms}
        return Tracked(
            bits,
            overflow=_merge_extra(self.overflow, o.overflow),
            underflow=_merge_extra(self.underflow, o.underflow),
            collisions=self.collisions | o.collisions,
            carries=self.carries | o.carries,
            terms=terms,
        )

    def __and__(self, other: Tracked | int) -> Tracked:
        o = self._other(other)
        bits = tuple(
            _union((a, b)) if a is not None and b is not None else None
            for a, b in zip(self.bits, o.bits, strict=True)
        )
        return self._bitwise(o, bits)

    def __or__(self, other: Tracked | int) -> Tracked:
        o = self._other(other)
        bits = tuple(
            None if a is None and b is None else _union((a, b))
            for a, b in zip(self.bits, o.bits, strict=True)
        )
        return self._bitwise(o, bits)

    def __xor__(self, other: Tracked | int) -> Tracked:
        o = self._other(other)
        bits = tuple(
            (a if b is None else b) if (a is None) != (b is None) else None
            for a, b in zip(self.bits, o.bits, strict=True)
        )
        return self._bitwise(o, bits)

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __invert__(self) -> Tracked:
        # A bit set by ~ was a 0: it has no source square.
        return Tracked(tuple(_NO_SOURCES if c is None else None for c in self.bits))

    def mask(self, c: int) -> Tracked:
        """``self & c`` for a constant ``c``: keeps the bits (and sources) under the mask."""
        return self & Tracked.const(_check_const(c))

    # ---- arithmetic (mod 2**64), with carries and collisions tracked

    def __mul__(self, c: int) -> Tracked:
        """Multiply by a constant, mod 2**64, as schoolbook long multiplication: every set
        bit ``i`` of ``self`` and bit ``k`` of ``c`` add a term at ``i + k``; the terms of
        each column are added with the carry from the column below. A result bit's sources
        are those of the terms and of the carry that made it; the product's bits past 63
        are the overflow."""
        c = _check_const(c)
        by_pos: dict[int, list[Term]] = {}
        ks = [k for k in range(64) if c >> k & 1]
        for i, cell in enumerate(self.bits):
            if cell is None:
                continue
            for k in ks:
                by_pos.setdefault(i + k, []).append(Term(cell, i, k))
        cells: list[Cell] = []
        collisions: set[int] = set()
        carries: set[int] = set()
        carry, carry_src = 0, _NO_SOURCES
        p = 0
        while p < 128 or carry:
            here = by_pos.get(p, [])
            total = len(here) + carry
            src = _union([t.sources for t in here] + ([carry_src] if carry else []))
            if len(here) >= 2:
                collisions.add(p)
            if carry:
                carries.add(p)
            cells.append(src if total & 1 else None)
            carry = total >> 1
            carry_src = src if carry else _NO_SOURCES
            p += 1
        return Tracked(
            tuple(cells[:64]),
            overflow=_trim(cells[64:]),
            collisions=frozenset(collisions),
            carries=frozenset(carries),
            terms={p: tuple(ts) for p, ts in by_pos.items()},
        )

    __rmul__ = __mul__

    def __add__(self, other: Tracked | int) -> Tracked:
        """Ripple-carry addition mod 2**64; a carry out of bit 63 is the overflow."""
        return self._ripple(self._other(other), 1)

    __radd__ = __add__

    def __sub__(self, other: Tracked | int) -> Tracked:
        """Ripple-borrow subtraction mod 2**64; a borrow out of bit 63 (the result wrapped
        round) is shown as the overflow bit."""
        return self._ripple(self._other(other), -1)

    def __rsub__(self, other: int) -> Tracked:
        return self._other(other)._ripple(self, -1)

    def _ripple(self, o: Tracked, sign: int) -> Tracked:
        """``self + sign * o`` bit by bit (``sign`` 1: carries, -1: borrows); every bit a
        carry or borrow enters is marked, one out of bit 63 is the overflow."""
        bits: list[Cell] = []
        collisions: set[int] = set()
        carries: set[int] = set()
        carry, carry_src = 0, _NO_SOURCES
        for p in range(64):
            a, b = self.bits[p], o.bits[p]
            if a is not None and b is not None:
                collisions.add(p)
            if carry:
                carries.add(p)
            src = _union((a, b, carry_src if carry else None))
            d = (a is not None) + sign * ((b is not None) + carry)
            bits.append(src if d & 1 else None)
            carry = 1 if not 0 <= d <= 1 else 0
            carry_src = src if carry else _NO_SOURCES
        over: tuple[Cell, ...] = ()
        if carry:
            carries.add(64)
            over = (carry_src,)
        return Tracked(
            tuple(bits), overflow=over, collisions=frozenset(collisions), carries=frozenset(carries)
        )

    def __neg__(self) -> Tracked:
        """``0 - self``: the borrow from the lowest set bit sets every bit above it that was
        0 (so ``x & -x`` keeps just the lowest bit)."""
        return Tracked.const(0)._ripple(self, -1)

    # ---- single bits

    def lsb(self) -> Tracked:
        """The lowest set bit alone (``x & -x``); 0 stays 0."""
        bits: list[Cell] = [None] * 64
        for i, c in enumerate(self.bits):
            if c is not None:
                bits[i] = c
                break
        return Tracked(tuple(bits))

    def msb(self) -> Tracked:
        """The highest set bit alone (``HIGH >> clz64(x)``); 0 stays 0."""
        bits: list[Cell] = [None] * 64
        for i in range(63, -1, -1):
            c = self.bits[i]
            if c is not None:
                bits[i] = c
                break
        return Tracked(tuple(bits))

    def nonzero_mask(self) -> Tracked:
        """``0 - (x != 0)``: all 64 bits set if any bit is, else 0. The bits are a broadcast
        yes/no, not squares moved, so they carry no sources."""
        on = any(c is not None for c in self.bits)
        return Tracked(tuple(_NO_SOURCES if on else None for _ in range(64)))
