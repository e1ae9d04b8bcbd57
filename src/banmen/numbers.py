"""Numbers from outside, bounded: the one parser every front end reads a number with.

A number reaches banmen as text (a command-line option, a GTP/USI/NBoard/UGI argument) or as
a JSON value (a web message). Each is read by a :class:`Bounded`: what the number is, the
range banmen can represent and act on, whole or not. A value outside it — an integer of 400
digits, ``1e400``, ``nan``, ``true`` for a number, a depth no search could reach — is refused
with :class:`NumberError`, one line saying what was expected, before it reaches a
computation that would overflow, allocate or wait for ever; nothing else changes. Where a
larger value means the same as the largest (a time: "as long as you like"), ``clamp=True``
takes it as the largest instead (any value a float holds; ``1e400`` is still refused).

    >>> DEPTH("12")
    12
    >>> try:
    ...     DEPTH(10**400)
    ... except NumberError as e:
    ...     print(e)
    depth: expected a whole number from 1 to 10000, got 1000000000000… (401 digits)
    >>> KOMI("6.5"), KOMI(7)
    (6.5, 7.0)
    >>> KOMI(True)
    Traceback (most recent call last):
    ...
    banmen.numbers.NumberError: komi: expected a number from -1000 to 1000, got True
    >>> Bounded("time", 0, 60, clamp=True)("1e300")
    60.0
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Bounded",
    "NumberError",
    "DEPTH",
    "NODES",
    "SECONDS",
    "KOMI",
    "SEED",
    "SIZE",
    "WORKERS",
    "HASH",
    "hash_mb",
    "shown",
    "machine_mb",
]

#: a whole number as text: optional sign, digits
_INT = re.compile(r"[+-]?[0-9]+")
#: a decimal number as text (no ``inf``, ``nan``, hex or underscores)
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
#: leading zeros of a number's text
_ZEROS = re.compile(r"^([+-]?)0+(?=[0-9])")
#: text longer than this is not read as a number (Python refuses ints of 4,300 digits)
_LONGEST = 400
#: a value this large is not clamped but refused: no float holds it
_FLOAT_MAX = 1.7976931348623157e308


class NumberError(ValueError):
    """A number outside what banmen takes: the message is one line, naming the number,
    the range expected and (shortened) what was given."""


def shown(value: object) -> str:
    """``value`` as a one-line message shows it: short text quoted, a long number cut with
    its count of digits."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= 24:
        return repr(value) if isinstance(value, str) else text
    digits = sum(c.isdigit() for c in text)
    return f"{text[:13]}… ({digits} digits)" if digits > 20 else repr(text[:24] + "…")


@dataclass(frozen=True)
class Bounded:
    """A number called ``what`` from ``lo`` to ``hi`` (both included), whole if ``integer``.

    Called with text or a JSON value, it answers the number (an ``int`` if ``integer``,
    else a ``float``) or raises :class:`NumberError`. ``clamp``: a value above ``hi`` is
    taken as ``hi`` (it means the same), not refused. ``unit`` and ``note`` go into the
    message (``"MB"``, ``"half this machine's memory"``).
    """

    what: str
    lo: float
    hi: float
    integer: bool = False
    clamp: bool = False
    unit: str = ""
    note: str = ""

    def expected(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        lo, hi = (_plain(self.lo), _plain(self.hi))
        unit = f" {self.unit}" if self.unit else ""
        note = f" ({self.note})" if self.note else ""
        return f"{kind} from {lo} to {hi}{unit}{note}"

    def error(self, value: object) -> NumberError:
        return NumberError(f"{self.what}: expected {self.expected()}, got {shown(value)}")

    def __call__(self, value: object) -> Any:
        number = self._read(value)
        if number > self.hi and self.clamp and number < _FLOAT_MAX:
            number = self.hi
        if not self.lo <= number <= self.hi:
            raise self.error(value)
        return int(number) if self.integer else float(number)

    def _read(self, value: object) -> int | float:
        """``value`` as an exact int or a finite float, not yet bounded."""
        if isinstance(value, str):
            text = _ZEROS.sub(r"\1", value.strip())  # leading zeros say nothing
            if len(text) <= _LONGEST:
                if _INT.fullmatch(text):
                    return int(text)
                if not self.integer and _FLOAT.fullmatch(text):
                    number = float(text)  # an exponent too large reads as inf
                    if math.isfinite(number):
                        return number
            raise self.error(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(value)
        if isinstance(value, float) and (
            not math.isfinite(value) or (self.integer and not value.is_integer())
        ):
            raise self.error(value)
        return value


def _plain(x: float) -> str:
    if isinstance(x, int) or (x.is_integer() and abs(x) < 1e15):
        return str(int(x))
    return f"{x:g}"


def machine_mb() -> int:
    """This machine's memory in MB (4096 if it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20)
    except (ValueError, OSError, AttributeError):
        return 4096


def hash_mb(largest: int = 65536, what: str = "hash") -> Bounded:
    """A hash table's size in MB: at most ``largest`` and at most half this machine's memory
    (a table larger than that could not be allocated, or would swap)."""
    half = max(1, machine_mb() // 2)
    if half < largest:
        return Bounded(what, 1, half, integer=True, unit="MB", note="half this machine's memory")
    return Bounded(what, 1, largest, integer=True, unit="MB")


#: a search's depth limit, in plies (the longest mate problems run to 1,525 plies)
DEPTH = Bounded("depth", 1, 10_000, integer=True)
#: a search's node limit (a compiled counter is a signed 64-bit integer)
NODES = Bounded("nodes", 1, 2**62, integer=True)
#: a time limit in seconds, a year at most
SECONDS = Bounded("time", 0.001, 365 * 86400.0, unit="seconds")
#: Go's komi (any half-integer or fraction a rule set names is well inside)
KOMI = Bounded("komi", -1000, 1000)
#: a random seed (numpy takes any non-negative integer; 64 bits keep it a C integer)
SEED = Bounded("seed", 0, 2**63 - 1, integer=True)
#: a board's size (each game checks its own sizes; no board is larger)
SIZE = Bounded("size", 1, 64, integer=True)
#: worker processes on one machine
WORKERS = Bounded("workers", 1, 1024, integer=True)
#: a hash table's size in MB, bounded by this machine's memory
HASH = hash_mb()
