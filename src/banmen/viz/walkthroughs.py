"""Walkthroughs: bit tricks executed step by step on tracked bits.

Each walkthrough runs real operations twice, side by side: once on :class:`Tracked`
values (bit by bit, keeping every bit's source squares) and once on plain Python ints
(the integer arithmetic the kernels do, masked to 64 bits). Every :class:`Step` keeps both
results, so ``step.value == step.real`` checks the tracking at every step; nothing shown
is hand-written data.

- ``line``: gather a row, column, diagonal or anti-diagonal into one byte with shifts,
  masks and multiplications, then put it back on the board.
- ``moves``: Othello legal moves by directional shift fills, exactly as
  :func:`banmen.games.othello.kernels.moves` computes them.
- ``flips``: the discs one move turns over, by :func:`~banmen.games.othello.kernels.flips`'s
  ray method.
- ``popcount``: counting bits without a popcount instruction (SWAR), whose last
  multiplication adds eight byte counts by letting them collide.

>>> w = walkthrough("line", kind="diagonal", n=3)
>>> [s.label for s in w.steps][:3]
['x', 'x & diagonal 3', '(x & diagonal 3) * 0x0101010101010101']
>>> all(s.value == s.real for s in w.steps)
True
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from banmen.viz.svg import (
    LINE_KINDS,
    RAY_NAMES,
    Colouring,
    board_element,
    strip_svg,
    svg_document,
)
from banmen.viz.tracked import FULL, Tracked, VizError, square_name

# Othello is imported by the walkthroughs that show it: the others (and `banmen viz
# line`) load no numpy or numba.
if TYPE_CHECKING:
    from banmen.games.othello import Board

__all__ = ["Step", "Walkthrough", "WALKTHROUGHS", "walkthrough", "walkthrough_svg"]

FILE_A = 0x0101010101010101
FILE_H = 0x8080808080808080
MAIN_DIAGONAL = 0x8040201008040201  # a1, b2, ..., h8
COLUMN_MAGIC = 0x0102040810204080  # bits 7, 14, ..., 56: file bit r lands on bit 56 + r
SPREAD = 0x0101010101010101  # one copy per row
INNER = 0x7E7E7E7E7E7E7E7E  # files b-g (kernels.INNER)
HIGH = 1 << 63
M1 = 0x5555555555555555
M2 = 0x3333333333333333
M4 = 0x0F0F0F0F0F0F0F0F

N_RANGES = {"row": (0, 7), "column": (0, 7), "diagonal": (-7, 7), "anti-diagonal": (0, 14)}
DEFAULT_OTHELLO = "------------------OX------XXXX---XOOOXO-X-X--OX-------O--------- O"
DEFAULT_MOVE = "e3"
TRIANGLE = 0xFF7F3F1F0F070301  # rank r holds r + 1 bits: 36 in all


@dataclass(frozen=True)
class Step:
    """One operation of a walkthrough: what was done (``label``, ``op``, ``explanation``),
    the tracked value after it and the real integer result computed independently with
    plain int arithmetic. For a step whose result is a number (``popcount``),
    ``number`` is the count taken on the tracked bits and ``tracked`` the board counted."""

    index: int
    label: str
    op: str
    explanation: str
    tracked: Tracked
    real: int
    number: int | None = None

    @property
    def value(self) -> int:
        """The result according to the tracked bits."""
        return self.number if self.number is not None else self.tracked.value

    @property
    def ok(self) -> bool:
        return self.value == self.real

    @property
    def hex(self) -> str:
        return f"0x{self.value:016x}"


@dataclass(frozen=True)
class Walkthrough:
    """A named sequence of steps, with the parameters it was made from (normalised, JSON-able)
    and the colouring of its source squares."""

    name: str
    title: str
    params: dict[str, Any]
    steps: tuple[Step, ...]
    colouring: Colouring = field(default_factory=lambda: Colouring.lines("row"))
    multi_board: bool = False

    def panel(self, i: int) -> ET.Element:
        """The ``<svg>`` element of step ``i`` (an ``xml.etree`` element)."""
        s = self.steps[i]
        foot = f"{s.hex} = {s.value}" if s.number is None else f"= {s.number}"
        return board_element(
            s.tracked,
            self.colouring,
            label=f"{i + 1}. {s.label}",
            multi_board=self.multi_board,
            footer=foot,
        )

    def step_svg(self, i: int) -> str:
        """Step ``i`` as a standalone SVG document."""
        return svg_document(self.panel(i))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: name, title, params and every step with its SVG."""
        return {
            "name": self.name,
            "title": self.title,
            "params": dict(self.params),
            "steps": [
                {
                    "index": s.index,
                    "label": s.label,
                    "op": s.op,
                    "explanation": s.explanation,
                    "hex": s.hex,
                    "value": str(s.value),
                    "svg": self.step_svg(i),
                }
                for i, s in enumerate(self.steps)
            ],
        }


# --------------------------------------------------------------------------- the pair


@dataclass(frozen=True)
class _V:
    """A tracked value and the same value as a plain int, computed independently."""

    t: Tracked
    r: int

    @staticmethod
    def board(value: int, name: str) -> _V:
        return _V(Tracked.board(value, name), value)

    @staticmethod
    def const(value: int) -> _V:
        return _V(Tracked.const(value), value)

    @property
    def s(self) -> _V:
        """The value without the marks of the operations that made it."""
        return _V(self.t.settled(), self.r)

    def _o(self, other: _V | int) -> _V:
        return other if isinstance(other, _V) else _V.const(other)

    def __lshift__(self, s: int) -> _V:
        return _V(self.t << s, (self.r << s) & FULL)

    def __rshift__(self, s: int) -> _V:
        return _V(self.t >> s, self.r >> s)

    def __and__(self, other: _V | int) -> _V:
        o = self._o(other)
        return _V(self.t & o.t, self.r & o.r)

    def __or__(self, other: _V | int) -> _V:
        o = self._o(other)
        return _V(self.t | o.t, self.r | o.r)

    def __invert__(self) -> _V:
        return _V(~self.t, ~self.r & FULL)

    def __mul__(self, c: int) -> _V:
        return _V(self.t * c, (self.r * c) & FULL)

    def __add__(self, other: _V | int) -> _V:
        o = self._o(other)
        return _V(self.t + o.t, (self.r + o.r) & FULL)

    def __sub__(self, other: _V | int) -> _V:
        o = self._o(other)
        return _V(self.t - o.t, (self.r - o.r) & FULL)

    def __neg__(self) -> _V:
        return _V(-self.t, -self.r & FULL)

    def msb(self) -> _V:
        # HIGH >> clz64(x), with clz64 from the int's bit length (x != 0 here).
        return _V(self.t.msb(), HIGH >> (64 - self.r.bit_length()) if self.r else 0)

    def nonzero_mask(self) -> _V:
        return _V(self.t.nonzero_mask(), (0 - (self.r != 0)) & FULL)


class _Builder:
    def __init__(self) -> None:
        self.steps: list[Step] = []

    def record(self, label: str, op: str, explanation: str, v: _V) -> _V:
        """Add a step; return the value without the step's marks, to compute on with."""
        self.steps.append(Step(len(self.steps), label, op, explanation, v.t, v.r))
        return v.s

    def record_count(self, label: str, explanation: str, v: _V) -> None:
        self.steps.append(
            Step(
                len(self.steps),
                label,
                "popcount",
                explanation,
                v.t,
                v.r.bit_count(),
                v.t.popcount(),
            )
        )


# --------------------------------------------------------------------------- parameters


def _int_param(name: str, value: int | str) -> int:
    if isinstance(value, bool):
        raise VizError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip().replace("_", ""), 0)
        except ValueError:
            pass
    raise VizError(f"{name} must be an integer, got {value!r}")


def _bitboard_param(value: int | str) -> int:
    try:
        b = _int_param("board", value)
    except VizError:
        raise VizError(
            f"board must be a 64-bit pattern (decimal, 0x hex or 0b binary), got {value!r}"
        ) from None
    if not 0 <= b <= FULL:
        raise VizError(f"board must be a 64-bit pattern, 0 to 0xffffffffffffffff, got {value!r}")
    return b


def _othello_param(value: str) -> tuple[Board, int, int]:
    """``(board, P, O)`` of an Othello board string: P the side to move's discs."""
    from banmen.games.othello import Board, OthelloError

    if not isinstance(value, str):
        raise VizError(f"board must be an Othello board string, got {value!r}")
    try:
        board = Board.from_string(value)
    except OthelloError as e:
        raise VizError(f"bad board: {e}") from None
    return (board, *board.pieces())


def _side(board: Board) -> str:
    from banmen.games.othello import BLACK

    return "black (X)" if board.turn == BLACK else "white (O)"


# --------------------------------------------------------------------------- line


def _line_mask(kind: str, n: int) -> int:
    m = 0
    for sq in range(64):
        r, c = divmod(sq, 8)
        if (
            (kind == "row" and r == n)
            or (kind == "column" and c == n)
            or (kind == "diagonal" and c - r == n)
            or (kind == "anti-diagonal" and r + c == n)
        ):
            m |= 1 << sq
    return m


def _line(kind: str = "diagonal", n: int | str = 0, board: int | str = FULL) -> Walkthrough:
    if not isinstance(kind, str) or kind.strip().lower() not in LINE_KINDS:
        raise VizError(f"unknown line kind {kind!r}: expected one of {', '.join(LINE_KINDS)}")
    kind = kind.strip().lower()
    n = _int_param("n", n)
    lo, hi = N_RANGES[kind]
    if not lo <= n <= hi:
        raise VizError(f"n for a {kind} must be {lo} to {hi}, got {n}")
    b = _bitboard_param(board)
    name = {
        "row": f"rank {n + 1}",
        "column": f"file {'abcdefgh'[n % 8]}",
        "diagonal": f"diagonal {n}",
        "anti-diagonal": f"anti-diagonal {n}",
    }[kind]
    mask = _line_mask(kind, n)
    w = _Builder()
    x = w.record(
        "x",
        "load",
        f"The board, every square coloured by its {kind} (hue) and its place along it "
        f"(shade, darkest at its first square, the lowest bit). We gather {name} into the "
        "low byte and put it back.",
        _V.board(b, "x"),
    )
    if kind == "row":
        y = w.record(
            f"x >> {8 * n}",
            "shr",
            f"Shift right by 8 × {n}: {name} moves up to rank 1, bits 0-7"
            + (
                "."
                if n == 0
                else "; the ranks above it fall off the low end (drawn above the board)."
            ),
            x >> 8 * n,
        )
        g = w.record(
            f"g = (x >> {8 * n}) & 0xff",
            "mask",
            f"Keep the low byte: g holds {name}, file a in bit 0.",
            y & 0xFF,
        )
        w.record(
            f"g << {8 * n}",
            "shl",
            f"Shift back: {name} returns to its squares, equal to x & {name} mask (0x{mask:016x}).",
            g << 8 * n,
        )
    elif kind == "column":
        y = w.record(
            f"x >> {n}",
            "shr",
            f"Shift right by {n}: {name} moves onto file a"
            + (
                "."
                if n == 0
                else f" (the other files move too; the first {n} bits fall off the low end)."
            ),
            x >> n,
        )
        y = w.record(
            f"(x >> {n}) & FILE_A",
            "mask",
            "Keep file a (0x0101010101010101): one bit per rank, 8 apart.",
            y & FILE_A,
        )
        y = w.record(
            f"... * 0x{COLUMN_MAGIC:016x}",
            "mul",
            "Multiply by a magic with bits 7, 14, ..., 56: the bit of rank r+1 (bit 8r) "
            "gets a copy on bit 56 + r, so rank 8 (bits 56-63, the bottom row) collects the "
            "file in order. No two terms collide; the copies past bit 63 are lost.",
            y * COLUMN_MAGIC,
        )
        g = w.record(
            "g = ... >> 56",
            "shr",
            f"Shift rank 8 down to bits 0-7: g holds {name}, rank 1 in bit 0.",
            y >> 56,
        )
        y = w.record(
            f"g * 0x{SPREAD:016x}",
            "mul",
            "Put it back: first copy the byte onto every row (the terms never collide).",
            g * SPREAD,
        )
        y = w.record(
            f"... & 0x{MAIN_DIAGONAL:016x}",
            "mask",
            "Keep the a1-h8 diagonal: bit r of g now sits on row r, column r.",
            y & MAIN_DIAGONAL,
        )
        y = w.record(
            "... * 0xff",
            "mul",
            "Multiply by 0xff: each diagonal bit is copied onto the 7 squares to its right "
            "(and wraps into the next row); the copy on file h is the one we want.",
            y * 0xFF,
        )
        y = w.record(
            "... & FILE_H",
            "mask",
            "Keep file h (0x8080808080808080): bit r of g is on rank r+1.",
            y & FILE_H,
        )
        w.record(
            f"... >> {7 - n}",
            "shr",
            f"Shift file h over to {name}: the file is back, equal to x & 0x{mask:016x}.",
            y >> (7 - n),
        )
    else:
        y = w.record(
            f"x & {name}",
            "mask",
            f"Keep the squares of {name} (0x{mask:016x}): one per column, each on its own row.",
            x & mask,
        )
        y = w.record(
            f"(x & {name}) * 0x{SPREAD:016x}",
            "mul",
            "Multiply by 0x0101010101010101: every square gets a copy on every row below "
            "it, so the bottom row collects one square from each column. The terms never "
            "collide; the copies past bit 63 are lost.",
            y * SPREAD,
        )
        g = w.record(
            "g = ... >> 56",
            "shr",
            f"Shift rank 8 (the bottom row) to bits 0-7: g holds {name}, bit c = its square in "
            "column c.",
            y >> 56,
        )
        y = w.record(
            f"g * 0x{SPREAD:016x}",
            "mul",
            "Put it back: copy the byte onto every row (no collisions).",
            g * SPREAD,
        )
        w.record(
            f"... & {name}",
            "mask",
            f"Keep {name}: each row keeps the copy in the line's column, so the line is "
            f"back, equal to x & 0x{mask:016x}.",
            y & mask,
        )
    params = {"kind": kind, "n": n, "board": f"0x{b:016x}"}
    # The title names the line as it was asked for (kind and n) and, for a row or a
    # column, the rank or file that is: `--kind row --n 5` is row 5, rank 6.
    asked = f"{kind} {n}" + (f" ({name})" if kind in ("row", "column") else "")
    return Walkthrough(
        "line",
        f"Gather {asked} into a byte and put it back",
        params,
        tuple(w.steps),
        Colouring.lines(kind),
    )


# --------------------------------------------------------------------------- moves

_DIRECTIONS = {  # shift amount: (direction of <<, direction of >>)
    1: ("east", "west"),
    8: ("south", "north"),
    7: ("south-west", "north-east"),
    9: ("south-east", "north-west"),
}


def _run(w: _Builder, P: _V, m: _V, s: int, left: bool, mname: str, res: _V) -> _V:
    """``kernels._run_left`` / ``_run_right`` on tracked bits; returns ``res | run``."""
    op = "<<" if left else ">>"
    d = _DIRECTIONS[s][0 if left else 1]

    def sh(v: _V, k: int) -> _V:
        return v << k if left else v >> k

    t = w.record(
        f"t = {mname} & (P {op} {s})",
        "and",
        f"{d}: shift our discs one step {d} and keep those landing on an opponent disc "
        f"({mname}): the runs of opponent discs start there.",
        m & sh(P, s),
    )
    t = w.record(
        f"t |= {mname} & (t {op} {s})",
        "or",
        f"Grow each run by one more opponent disc {d}.",
        t | (m & sh(t, s)),
    )
    pre = w.record(
        f"pre = {mname} & ({mname} {op} {s})",
        "and",
        f"Opponent discs whose neighbour one step back (against {d}) is also an opponent "
        f"disc: where a run may jump two squares at once.",
        m & sh(m, s),
    )
    for why in (
        "Doubling: grow the runs by two squares at once (as in a Kogge-Stone adder).",
        "Two more: a run of up to 6 opponent discs is now complete.",
    ):
        t = w.record(f"t |= pre & (t {op} {2 * s})", "or", why, t | (pre & sh(t, 2 * s)))
    return w.record(
        f"res |= t {op} {s}",
        "or",
        f"One more step {d} past each run: the squares just beyond a run of opponent "
        "discs that starts next to ours are move candidates (if empty).",
        res | sh(t, s),
    )


def _moves(board: str = DEFAULT_OTHELLO) -> Walkthrough:
    pos, p, o = _othello_param(board)
    w = _Builder()
    side = _side(pos)
    P = w.record(
        "P",
        "load",
        f"Our discs: {side}, the side to move, coloured by rank (hue) and file (shade).",
        _V.board(p, "P"),
    )
    O = w.record("O", "load", "The opponent's discs.", _V.board(o, "O"))  # noqa: E741
    empty = w.record(
        "empty = ~(P | O)",
        "not",
        "The empty squares (their bits have no source square: ~ made them).",
        ~(P | O),
    )
    m = w.record(
        "m = O & INNER",
        "mask",
        "Opponent discs on files b-g (0x7e7e7e7e7e7e7e7e): a run along a row or diagonal "
        "lies there, and the mask stops runs wrapping from file h to file a.",
        O & INNER,
    )
    res = _V.const(0)
    for s in (1, 8, 7, 9):
        mask, mname = (O, "O") if s == 8 else (m, "m")
        res = _run(w, P, mask, s, True, mname, res)
        res = _run(w, P, mask, s, False, mname, res)
    res = w.record(
        "moves = res & empty",
        "and",
        "Keep the candidates on empty squares: every legal move at once.",
        res & empty,
    )
    names = [square_name(sq) for sq in range(64) if res.r >> sq & 1]
    w.record_count(
        "popcount(moves)",
        f"Mobility: {len(names)} legal move{'s' if len(names) != 1 else ''}"
        f"{': ' + ' '.join(names) if names else ''}.",
        res,
    )
    return Walkthrough(
        "moves",
        f"Legal moves for {side} by shift fills",
        {"board": pos.to_string()},
        tuple(w.steps),
        Colouring.lines("row"),
        multi_board=True,
    )


# --------------------------------------------------------------------------- flips


def _flips(board: str = DEFAULT_OTHELLO, move: str = DEFAULT_MOVE) -> Walkthrough:
    from banmen.games.othello import PASS, OthelloError
    from banmen.games.othello.kernels import RAYS

    pos, p, o = _othello_param(board)
    if not isinstance(move, str):
        raise VizError(f"move must be a square name like d3, got {move!r}")
    try:
        sq = pos.parse_move(move)
    except OthelloError as e:
        raise VizError(str(e)) from None
    if sq == PASS:
        raise VizError("a pass turns nothing over: give a square a1-h8 (like d3)")
    name = square_name(sq)
    w = _Builder()
    P = w.record(
        "P",
        "load",
        f"Our discs ({_side(pos)} to move), coloured by the rays from "
        f"{name}: a hue per direction, darker nearer {name}.",
        _V.board(p, "P"),
    )
    O = w.record("O", "load", "The opponent's discs.", _V.board(o, "O"))  # noqa: E741
    flips = _V.const(0)
    for d in range(8):
        dname = RAY_NAMES[d]
        up = d < 4
        ray_int = int(RAYS[8 * sq + d])
        ray = _V.board(ray_int, "ray")
        # Each intermediate is shown as its own step, so later steps compute on it
        # without its marks (.s): a step shows only what its own operations did.
        if up:
            x = ray & ~O
            neg = -x.s
            first = x.s & neg.s
            dec = first.s - 1
            ok = (first.s & P).nonzero_mask()
            f = dec.s & ray & ok
        else:
            x = (ray & ~O) | 1
            first = x.s.msb()
            dec = first.s | (first.s - 1)
            ok = (first.s & P & ray).nonzero_mask()
            f = ray & ~dec.s & ok
        if ray_int == 0:
            flips = w.record(
                f"flips |= f ({dname})",
                "or",
                f"No squares {dname} of {name} (the edge): nothing to turn over.",
                flips | f,
            )
            continue
        w.record(
            f"ray = RAYS[{name}, {dname}]",
            "load",
            f"The squares {dname} of {name}, out to the edge.",
            ray,
        )
        if up:
            w.record(
                "x = ray & ~O",
                "and",
                "Ray squares that are not the opponent's: the nearest one, the lowest "
                "bit, ends the run of opponent discs.",
                x,
            )
            w.record(
                "-x",
                "neg",
                "0 - x: the borrow from x's lowest set bit sets every bit above it that "
                "x lacks, and clears the others.",
                neg,
            )
            w.record(
                "first = x & -x",
                "lsb",
                "Only the lowest set bit survives both: the nearest square "
                f"{dname} that is not the opponent's.",
                first,
            )
            w.record(
                "first - 1",
                "sub",
                "Every bit below first (the borrow runs up to it): the squares before "
                "it, among them the opponent run.",
                dec,
            )
            expl = (
                f"Keep the ray squares before first; ok = 0 - (first & P != 0) is all "
                f"ones only if first is our disc: {'yes' if ok.r else 'no'}."
            )
            w.record("f = (first - 1) & ray & ok", "and", expl, f)
        else:
            w.record(
                "x = (ray & ~O) | 1",
                "or",
                "Ray squares that are not the opponent's; towards lower bits the nearest "
                "is the highest bit (| 1 keeps clz defined).",
                x,
            )
            w.record(
                "first = HIGH >> clz64(x)",
                "msb",
                f"Isolate the highest set bit: the nearest square {dname} that is not "
                "the opponent's (or bit 0).",
                first,
            )
            w.record(
                "first | (first - 1)",
                "or",
                "first and every bit below it: the squares at or beyond the end of the run.",
                dec,
            )
            expl = (
                f"Keep the ray squares above first; ok = 0 - (first & P & ray != 0) is "
                f"all ones only if first is our disc: {'yes' if ok.r else 'no'}."
            )
            w.record("f = ray & ~(first | (first - 1)) & ok", "and", expl, f)
        flips = w.record(
            f"flips |= f ({dname})", "or", f"Add the discs turned over {dname}.", flips | f
        )
    w.record_count("popcount(flips)", f"{name} turns over {flips.r.bit_count()} discs.", flips)
    return Walkthrough(
        "flips",
        f"The discs {name} turns over, ray by ray",
        {"board": pos.to_string(), "move": name},
        tuple(w.steps),
        Colouring.rays(sq),
        multi_board=True,
    )


# --------------------------------------------------------------------------- popcount


def _popcount(board: int | str = TRIANGLE) -> Walkthrough:
    b = _bitboard_param(board)
    w = _Builder()
    x = w.record(
        "x",
        "load",
        "The board, coloured by rank (hue) and file (shade): each rank is one byte.",
        _V.board(b, "x"),
    )
    y = w.record(
        "x >> 1", "shr", "Shift right by one: each bit moves onto its left neighbour.", x >> 1
    )
    y = w.record(
        f"(x >> 1) & 0x{M1:016x}",
        "mask",
        "Keep the odd bits of each pair, now in the pair's low bit.",
        y & M1,
    )
    a = w.record(
        "a = x - ((x >> 1) & 0x55…)",
        "sub",
        "Each 2-bit pair now holds its own bit count (0, 1 or 2): 11 - 01 = 10.",
        x - y,
    )
    lo = w.record(f"a & 0x{M2:016x}", "mask", "The low pair of every nibble.", a & M2)
    hi = w.record(
        f"(a >> 2) & 0x{M2:016x}",
        "mask",
        "The high pair of every nibble, moved down beside it.",
        (a >> 2) & M2,
    )
    c = w.record(
        "b = (a & 0x33…) + ((a >> 2) & 0x33…)",
        "add",
        "Add the pairs: each nibble holds its count, 0-4. Carries stay inside the nibble.",
        lo + hi,
    )
    c = w.record(
        "b + (b >> 4)",
        "add",
        "Add each nibble to its neighbour: the low nibble of every byte holds the byte's count.",
        c + (c >> 4),
    )
    c = w.record(
        f"c = (b + (b >> 4)) & 0x{M4:016x}",
        "mask",
        "Keep the low nibbles: each byte holds its own bit count, 0-8.",
        c & M4,
    )
    prod = w.record(
        f"c * 0x{SPREAD:016x}",
        "mul",
        "Multiply by 0x0101010101010101: the top byte receives every byte's count. Here the "
        "terms collide on purpose, and their carries add the counts up.",
        c * SPREAD,
    )
    cnt = w.record("... >> 56", "shr", "The top byte: the number of set bits.", prod >> 56)
    w.record_count("popcount(x)", f"The count checked on the tracked bits: {cnt.r}.", x)
    return Walkthrough(
        "popcount",
        "Counting bits with shifts, masks and one multiply",
        {"board": f"0x{b:016x}"},
        tuple(w.steps),
        Colouring.lines("row"),
    )


# --------------------------------------------------------------------------- registry

_BITBOARD_PARAM = {
    "name": "board",
    "type": "bitboard",
    "help": "a 64-bit pattern: decimal, 0x hex or 0b binary",
}
_OTHELLO_PARAM = {
    "name": "board",
    "type": "othello",
    "default": DEFAULT_OTHELLO,
    "help": "64 squares a1..h8 (X black, O white, - empty), a space and the side to move",
}

#: Every walkthrough: a title, what it shows and its parameters (for menus and forms).
WALKTHROUGHS: dict[str, dict[str, Any]] = {
    "line": {
        "title": "Gather a line into a byte and put it back",
        "description": "Shifts, masks and magic multiplications move a row, column, "
        "diagonal or anti-diagonal into bits 0-7, then back onto the board.",
        "params": [
            {
                "name": "kind",
                "type": "choice",
                "choices": list(LINE_KINDS),
                "default": "diagonal",
                "help": "which kind of line",
            },
            {
                "name": "n",
                "type": "int",
                "default": 0,
                "range_by_kind": {k: list(v) for k, v in N_RANGES.items()},
                "help": "row n = rank n+1 (0-7); column n = file a+n (0-7); diagonal n: "
                "col - row = n (-7..7); anti-diagonal n: row + col = n (0..14)",
            },
            {**_BITBOARD_PARAM, "default": f"0x{FULL:016x}"},
        ],
    },
    "moves": {
        "title": "Othello legal moves by shift fills",
        "description": "banmen's move generator: in each of 8 directions, runs of opponent "
        "discs next to ours are grown by shifts (doubling the step), one square beyond is "
        "a move if empty.",
        "params": [_OTHELLO_PARAM],
    },
    "flips": {
        "title": "The discs a move turns over",
        "description": "For each of the 8 rays from the move, the nearest square that is "
        "not the opponent's is isolated (x & -x, or the highest bit); if it is ours, the "
        "opponent discs before it turn over.",
        "params": [
            _OTHELLO_PARAM,
            {
                "name": "move",
                "type": "square",
                "default": DEFAULT_MOVE,
                "help": "a legal move for the side to move, like d3",
            },
        ],
    },
    "popcount": {
        "title": "Counting bits without a popcount instruction",
        "description": "SWAR popcount: pair, nibble and byte counts by shifts, masks, "
        "subtraction and addition; one multiplication adds the byte counts by making them "
        "collide in the top byte.",
        "params": [{**_BITBOARD_PARAM, "default": f"0x{TRIANGLE:016x}"}],
    },
}

_BUILDERS: dict[str, Callable[..., Walkthrough]] = {
    "line": _line,
    "moves": _moves,
    "flips": _flips,
    "popcount": _popcount,
}


def walkthrough(name: str, **params: Any) -> Walkthrough:
    """Run walkthrough ``name`` (see :data:`WALKTHROUGHS`) with its parameters; a bad name
    or parameter raises :class:`VizError`. Numbers may be given as ints or strings."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in _BUILDERS:
        raise VizError(f"unknown walkthrough {name!r}: expected one of {', '.join(_BUILDERS)}")
    allowed = [p["name"] for p in WALKTHROUGHS[key]["params"]]
    for k in params:
        if k not in allowed:
            raise VizError(
                f"unknown parameter {k!r} for walkthrough {key!r}: expected {', '.join(allowed)}"
            )
    given = {k: v for k, v in params.items() if v is not None}
    return _BUILDERS[key](**given)


def walkthrough_svg(w: Walkthrough, *, columns: int = 4) -> str:
    """Every step of ``w`` in one SVG: a grid of boards under the title and a legend."""
    return strip_svg([w.panel(i) for i in range(len(w.steps))], w.title, columns=columns)
