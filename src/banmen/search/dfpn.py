"""Depth-first proof-number search (df-pn), written once and compiled for every game.

A game hands the search a bundle of compiled kernels (:class:`Kernels`) over a position held
in one mutable ``int64`` array (moves are played and taken back in place); numba specialises
the search for each bundle, as :mod:`banmen.search.alphabeta` does for alpha-beta. The
attacker (OR node) must prove a win — in tsume-shogi a mate, playing only checks — and the
defender (AND node) tries every reply. ``prove`` answers with a proof (and the length of the
line it found), a disproof, or "unknown" when a limit stopped it; a limit is never reported
as a result. The pure-Python solver it replaced stays as the tests' oracle
(tests/dfpn_reference.py); both answer the same questions the same way.

The kernel contract (all ``@kernel``; ``ctx`` is a read-only int64 array of constants):

``or_moves(ctx, st, buf) -> n`` / ``and_moves(ctx, st, buf) -> n``
    The attacker's candidate moves (tsume-shogi: the legal checks) / the defender's legal
    replies, written to ``buf``. A game with passes generates a pass move; ``n == 0`` means
    the side to move has nothing to play, and ``outcome`` decides.
``play(ctx, st, m)`` / ``undo(ctx, st)``
    Make and take back a move in place (the position keeps its own undo stack).
``key(ctx, st) -> int``
    A hash of the position *without the attacker's hand* (board and side to move).
``hand(ctx, st) -> int``
    The attacker's pieces in hand, one count per byte (bytes 0-6; 0 for games without hands).
``outcome(ctx, st) -> int``
    Called when the side to move has no move: 1 if that is a win for the attacker.
``quick_win(ctx, st, buf, n) -> int``
    One of the attacker's moves ``buf[:n]`` (``or_moves`` has just written them) that wins
    at once (a mate in one), or -1. Optionally -2 instead of -1 when, besides, after every
    one of those moves the defender has a reply without a group (tsume-shogi: a reply that
    is not a drop): then nothing wins within two plies, and the search settles attacker
    nodes with two plies left or fewer, and defender nodes with two or three, without
    expanding them (the horizon of a bounded search: most of its nodes).
``group(ctx, st, m) -> int``
    Moves with the same group (>= 0, < 1024) lead to near-identical subtrees (drops on one
    square): they are counted once in the proof and disproof sums. -1: no group.
``futile_replies(ctx, st, buf) -> n``
    Right after a defender move that has a group: the attacker's answers that would make it
    futile (tsume-shogi: taking the interposed piece with the checking slider, with check).
``hand_delta(ctx, st, m) -> (spent, gained)``
    The hand bytes move ``m`` of the side to move spends (a drop) and gains (a capture).
``and_need(ctx, st) -> int``
    At a defender node: the attacker's pieces a proof here must keep even if the defender
    has no use for them now (tsume-shogi: interpositions the defender could make with pieces
    it would hold if the attacker held fewer). 0 for games without hands.

What the search takes care of (each point has a test, most against the reference solver):

* **Hand dominance with proof and disproof pieces (優越関係).** The table is keyed by the
  position without the attacker's hand; an entry carries a hand. A proof stored with the
  *proof pieces* — the least hand the proof needs, computed back from the children — proves
  every position with the same board and at least that hand; a disproof stored with the
  *disproof pieces* — the most hand it holds for — disproves every position with at most
  that hand. (More pieces for the attacker are fewer for the defender: never a worse mate.)
* **Repetition and graph-history interaction** as in the reference solver: a position
  repeated on the path is a failure for the attacker, handed up with the depth of the
  repeated ancestor and stored only by the node whose subtree holds the whole cycle.
* **Counting once in DAGs**: replies with the same group count once (their largest number).
* **Lengths, bounds and futile replies**: proofs carry the length of the line proved,
  disproofs the bound they hold for, and replies with a group are tested for futility
  (tsume-shogi's 無駄合) when that decides the node, exactly as the reference solver does.
* **Memory**: the table is a preallocated array of 8-entry buckets (one entry = 64 bytes),
  used from its first 4 MB and doubled when 7/8 full (so a short search touches few of its
  pages); a full bucket evicts its cheapest entry, and when the whole table is 7/8 full a
  sweep drops the entries that cost least to recompute — open entries before any proof or
  disproof.
* **Limits**: every 256 nodes the search reads the stop flags and the node budget; a
  :class:`Deadline` timer sets a flag for a time limit. The search runs in its own thread
  (with a stack deep enough for thousand-ply lines) while the caller's thread reports
  progress every 100 ms and joins it: it stops within a millisecond or two of the flag.
"""

from __future__ import annotations

import mmap
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt
from numba import typeof, types
from numba.core.types import FunctionType

from banmen._bits import prefetch
from banmen._fields import IntAt
from banmen._jit import bound, compile_returning, njit
from banmen.search.limits import STOP_TIME, Deadline, Limit, StopFlag
from banmen.search.proof import INF, ProofResult

T = TypeVar("T")

__all__ = [
    "Kernels", "DfPn", "ProofResult", "INF", "HAND_ALL", "MAX_DEPTH", "full_key", "hand_ge",
]  # fmt: skip

#: the length field of an entry with no proof (longer than any bound)
_NO_PROOF = 1 << 50
#: the disproof-depth field of an entry with no disproof
_NO_DISPROOF = -(1 << 50)
#: a disproof that holds at one bound r only is stored as ``_EXACT + r`` (below every
#: disproof that holds at r and every smaller bound, above ``_NO_DISPROOF``; ``d - _EXACT``
#: of any other value is no bound): it rests on a drop counted at r (see ``_mid``)
_EXACT = -(1 << 45)
_EXACT_TOP = _EXACT + (1 << 40)  # (every value below is _EXACT + a bound, or none)
#: a hand with "any number" of every piece (0x40 per byte: above any real count, and sums of
#: two such bytes stay below 0x80, which the byte-parallel comparisons need)
HAND_ALL = 0x0040404040404040
_HIGH = 0x0080808080808080
_ONES = 0x0001010101010101

# table entry fields. A bucket is 8 entries stored field by field: row 8b + f holds field f of
# bucket b's 8 entries, so a probe reads the bucket's 8 keys from one 64-byte line and the
# other fields only of the entries that match (entry by entry, a probe touched 8 lines).
# An empty entry has key 0 (a position whose key is 0 is stored as 1).
_KEY, _HAND, _PN, _DN, _LEN, _DDEPTH, _WORK, _SPARE = range(8)
_FIELDS = 8
_BUCKET = 8

# ctl slots
_NODES = 0
_NODE_LIMIT = 1
_ABORT = 2  # 0 running, 1 stop flag, 2 node limit, 3 memory (stack or depth)
_ROOT_PN = 3
_ROOT_DN = 4
_SP = 5
_TT_MASK = 6
_TT_USED = 7
_TT_GC_AT = 8
_GC_RUNS = 9
_MAX_DEPTH = 10
_FUT_MASK = 11
_PATH_MASK = 12
_MAX_MOVES = 13
_DEEPEST = 14
_TT_MAX_MASK = 15  # the mask of the whole table (_TT_MASK grows to it)
_HIST = 32  # 64 counters for the sweep's histogram
_CTL_SIZE = 96

_ABORT_REASONS = {1: "stopped", 2: "node_limit", 3: "memory"}

# per-child workspace rows (ws[row, sp + i] for child i of the frame starting at sp)
_GRP, _CK, _CH, _CF, _CR, _REP, _FL, _LDD, _LDR, _LDH, _PNR, _DNR, _LENR, _DDR, _RPR, _XHR = range(
    16
)
_WS_ROWS = 16
_F_TESTED = 1
_F_FUTILE = 2
_F_LOCAL = 4  # a path-dependent disproof is remembered for this child

_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64


class Kernels(NamedTuple):
    """The compiled functions through which df-pn sees a game (see the module doc)."""

    or_moves: Any
    and_moves: Any
    play: Any
    undo: Any
    key: Any
    hand: Any
    outcome: Any
    quick_win: Any
    group: Any
    futile_replies: Any
    hand_delta: Any
    and_need: Any
    max_moves: int  #: the most moves any position can have (a buffer's size)
    #: the kernels the node function calls through function pointers (numba's first-class
    #: functions of :data:`KERNEL_SIGNATURES`) instead of linking their code into its own,
    #: by name: it then compiles without them (:meth:`DfPn.compile_node`), beside them. The
    #: big ones (move generation), where a call costs nothing; a small one called at
    #: every node (a key, a move) is faster inlined
    pointers: tuple[str, ...] = ()


_BUF = types.Array(types.int64, 1, "C")
#: each kernel's arguments after ``(ctx, st)`` and its return type, as numba types: the
#: signatures of a bundle's function pointers (:attr:`Kernels.pointers`)
KERNEL_SIGNATURES: dict[str, tuple[tuple[Any, ...], Any]] = {
    "or_moves": ((_BUF,), types.int64),
    "and_moves": ((_BUF,), types.int64),
    "play": ((types.int64,), types.none),
    "undo": ((), types.none),
    "key": ((), types.int64),
    "hand": ((), types.int64),
    "outcome": ((), types.int64),
    "quick_win": ((_BUF, types.int64), types.int64),
    "group": ((types.int64,), types.int64),
    "futile_replies": ((_BUF,), types.int64),
    "hand_delta": ((types.int64,), types.UniTuple(types.int64, 2)),
    "and_need": ((), types.int64),
}


# --------------------------------------------------------------------------- hands
# Hands are seven byte-sized counts (< 0x80) in one int64; comparisons are byte-parallel.


@njit(cache=True, inline="always")
def _ge_mask(a: int, b: int) -> int:
    """0xFF in each byte where a's count >= b's, else 0."""
    m = ((a | _HIGH) - b) & _HIGH
    return (m >> 7) * 255


@njit(cache=True, inline="always")
def hand_ge(a: int, b: int) -> bool:
    """Whether hand ``a`` holds at least as many of every piece as ``b``."""
    return (((a | _HIGH) - b) & _HIGH) == _HIGH


@njit(cache=True, inline="always")
def _hmax(a: int, b: int) -> int:
    m = _ge_mask(a, b)
    return (a & m) | (b & ~m)


@njit(cache=True, inline="always")
def _hmin(a: int, b: int) -> int:
    m = _ge_mask(a, b)
    return (b & m) | (a & ~m)


@njit(cache=True, inline="always")
def _hsub(a: int, b: int) -> int:
    """a - b per byte, floored at 0."""
    return _hmax(a, b) - b


@njit(cache=True, inline="always")
def _zero_bytes(h: int) -> int:
    """0xFF in each of bytes 0-6 where ``h``'s count is 0."""
    nonzero = ((h | _HIGH) - _ONES) & _HIGH
    return ((_HIGH & ~nonzero) >> 7) * 255


@njit(cache=True, inline="always")
def _nonzero_bytes(h: int) -> int:
    """0xFF in each of bytes 0-6 where ``h``'s count is not 0."""
    return ((((h | _HIGH) - _ONES) & _HIGH) >> 7) * 255


@njit(cache=True, inline="always")
def _full_key(k: int, h: int) -> int:
    return k ^ (h * _GOLDEN)


@njit(cache=True, inline="always")
def _mix(k: int) -> int:
    x = np.uint64(k) * np.uint64(_GOLDEN)
    return np.int64(x >> np.uint64(20))


# --------------------------------------------------------------------------- the table


@njit(cache=True)
def _field(tt: npt.NDArray[np.int64], i: int, f: int) -> int:
    """Field ``f`` of entry ``i`` (for tests and tools)."""
    return tt[(i >> 3) * 8 + f, i & 7]


@njit(cache=True)
def _set_field(tt: npt.NDArray[np.int64], i: int, f: int, v: int) -> None:
    tt[(i >> 3) * 8 + f, i & 7] = v


@njit(cache=True, inline="always")
def _weight(tt: npt.NDArray[np.int64], i: int) -> int:
    """What an entry is worth keeping: the nodes spent below it, and 2^32 more for a proof
    or a disproof, so the table lets every open entry go before a solved one (the line
    reader walks proofs back out of the table)."""
    w = tt[(i >> 3) * 8 + _WORK, i & 7]
    solved = tt[(i >> 3) * 8 + _LEN, i & 7] < _NO_PROOF
    if solved or tt[(i >> 3) * 8 + _DDEPTH, i & 7] > _NO_DISPROOF:
        w += 1 << 32
    return w


@njit(cache=True, inline="always")
def _prefetch_bucket(tt: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], k: int) -> None:
    """Ask for the lines a probe of key ``k`` reads: the bucket's keys, hands, lengths,
    disproof depths and numbers (rows 8b + field, a line each)."""
    if k == 0:
        k = 1
    row = (_mix(k) & ctl[_TT_MASK]) * _BUCKET
    for f in range(_WORK):
        prefetch(tt, (row + f) * _BUCKET)


@njit(cache=True, _nrt=False)
def _lookup(
    tt: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], k: int, h: int, r: int
) -> tuple[int, int, int, int, int, int]:
    """(pn, dn, length, disproof depth, hand, found) for position (k, h) seen with ``r``
    plies left: a proof within ``r`` from any entry whose hand ``h`` dominates, a disproof
    within ``r`` from any entry whose hand dominates ``h``, else the open numbers of the
    entry with exactly ``h`` (``found == 0``: none)."""
    if k == 0:
        k = 1
    b = (_mix(k) & ctl[_TT_MASK]) * _BUCKET
    best_len = _NO_PROOF
    ph = 0
    dd = _NO_DISPROOF
    dh = 0
    pn = 1
    dn = 1
    found = 0
    for i in range(b, b + _BUCKET):
        if tt[(i >> 3) * 8 + _KEY, i & 7] != k:
            continue
        eh = tt[(i >> 3) * 8 + _HAND, i & 7]
        ln = tt[(i >> 3) * 8 + _LEN, i & 7]
        if ln <= r and ln < best_len and hand_ge(h, eh):
            best_len = ln
            ph = eh
        d = tt[(i >> 3) * 8 + _DDEPTH, i & 7]
        if d >= r and d > dd and hand_ge(eh, h):
            dd = d
            dh = eh
        elif d - _EXACT == r and dd == _NO_DISPROOF and hand_ge(eh, h):
            dd = d  # a disproof at this very bound (and no better one so far)
            dh = eh
        if eh == h:
            pn = tt[(i >> 3) * 8 + _PN, i & 7]
            dn = tt[(i >> 3) * 8 + _DN, i & 7]
            found = 1
    if best_len < _NO_PROOF:
        return 0, INF, best_len, 0, ph, 1
    if dd > _NO_DISPROOF:
        return INF, 0, 0, dd, dh, 1
    return pn, dn, 0, 0, h, found


@njit(cache=True, _nrt=False)
def _slot(tt: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], k: int, h: int) -> int:
    """The entry of (k, h), made if missing (evicting the bucket's cheapest entry if full)."""
    if k == 0:
        k = 1
    b = (_mix(k) & ctl[_TT_MASK]) * _BUCKET
    free = -1
    weakest = -1
    wv = 1 << 62
    for i in range(b, b + _BUCKET):
        if tt[(i >> 3) * 8 + _KEY, i & 7] == 0:
            if free < 0:
                free = i
            continue
        if tt[(i >> 3) * 8 + _KEY, i & 7] == k and tt[(i >> 3) * 8 + _HAND, i & 7] == h:
            return i
        w = _weight(tt, i)
        if w < wv:
            wv = w
            weakest = i
    if free < 0:
        free = weakest
    else:
        ctl[_TT_USED] += 1
    tt[(free >> 3) * 8 + _KEY, free & 7] = k
    tt[(free >> 3) * 8 + _HAND, free & 7] = h
    tt[(free >> 3) * 8 + _PN, free & 7] = 1
    tt[(free >> 3) * 8 + _DN, free & 7] = 1
    tt[(free >> 3) * 8 + _LEN, free & 7] = _NO_PROOF
    tt[(free >> 3) * 8 + _DDEPTH, free & 7] = _NO_DISPROOF
    tt[(free >> 3) * 8 + _WORK, free & 7] = 0
    return free


@njit(cache=True, inline="always")
def _store_proof(tt: Any, ctl: Any, k: int, h: int, length: int, work: int) -> None:
    i = _slot(tt, ctl, k, h)
    if length < tt[(i >> 3) * 8 + _LEN, i & 7]:
        tt[(i >> 3) * 8 + _LEN, i & 7] = length
    tt[(i >> 3) * 8 + _WORK, i & 7] += work


@njit(cache=True, inline="always")
def _store_disproof(tt: Any, ctl: Any, k: int, h: int, ddepth: int, work: int) -> None:
    i = _slot(tt, ctl, k, h)
    if ddepth > tt[(i >> 3) * 8 + _DDEPTH, i & 7]:
        tt[(i >> 3) * 8 + _DDEPTH, i & 7] = ddepth
    tt[(i >> 3) * 8 + _WORK, i & 7] += work


@njit(cache=True, inline="always")
def _store_open(tt: Any, ctl: Any, k: int, h: int, pn: int, dn: int, work: int) -> None:
    i = _slot(tt, ctl, k, h)
    tt[(i >> 3) * 8 + _PN, i & 7] = pn
    tt[(i >> 3) * 8 + _DN, i & 7] = dn
    tt[(i >> 3) * 8 + _WORK, i & 7] += work


@njit(cache=True, inline="always")
def _weight_class(tt: npt.NDArray[np.int64], i: int) -> int:
    """log2 of the weight of entry ``i``, rounded down, at most 63 (a histogram bin)."""
    w = _weight(tt, i)
    b = 0
    while w > 1 and b < 63:
        w >>= 1
        b += 1
    return b


@njit(cache=True, _nrt=False)
def _sweep(tt: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64]) -> None:
    """Drop about half of the entries: those that cost least to recompute.

    A histogram of log2(weight) picks the threshold, so the sweep allocates nothing and
    takes two passes over the table (a few milliseconds at a million entries)."""
    for j in range(64):
        ctl[_HIST + j] = 0
    n = tt.shape[0]  # (rows = entries: 8 fields x 8 entries per bucket)
    used = 0
    for i in range(n):
        if tt[(i >> 3) * 8 + _KEY, i & 7] != 0:
            ctl[_HIST + _weight_class(tt, i)] += 1
            used += 1
    target = used // 2
    acc = 0
    cut = 0
    for j in range(64):
        acc += ctl[_HIST + j]
        cut = j
        if acc >= target:
            break
    kept = 0
    for i in range(n):
        if tt[(i >> 3) * 8 + _KEY, i & 7] != 0:
            if _weight_class(tt, i) <= cut:
                tt[(i >> 3) * 8 + _KEY, i & 7] = 0
            else:
                kept += 1
    ctl[_TT_USED] = kept
    ctl[_GC_RUNS] += 1


@njit(cache=True, _nrt=False)
def _grow(tt: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64]) -> None:
    """Double the buckets in use (the table starts on its first few MB and grows when 7/8
    full, up to its whole size): bucket b splits into b and b + (its old count), the entries
    whose key now picks the new one moved there (it is empty: nothing has used it yet).

    A fresh table's pages are zeroed by the system on their first touch; a search that
    scatters its entries over all of a 256 MB table touches most of its 65,536 pages within
    a few hundred thousand stores, a page fault each (a third of the time of a 0.2 s solve,
    issue 40). Growing touches the pages a search fills, near each other."""
    old = ctl[_TT_MASK] + 1
    mask = 2 * old - 1
    for b in range(old):
        for i in range(b * _BUCKET, (b + 1) * _BUCKET):
            k = tt[(i >> 3) * 8 + _KEY, i & 7]
            if k == 0 or (_mix(k) & mask) == b:
                continue
            j = (b + old) * _BUCKET
            while tt[(j >> 3) * 8 + _KEY, j & 7] != 0:
                j += 1
            for f in range(_FIELDS):
                tt[(j >> 3) * 8 + f, j & 7] = tt[(i >> 3) * 8 + f, i & 7]
            tt[(i >> 3) * 8 + _KEY, i & 7] = 0
    ctl[_TT_MASK] = mask
    ctl[_TT_GC_AT] = (mask + 1) * _BUCKET * 7 // 8


# --------------------------------------------------------------------------- path and futility


@njit(cache=True, inline="always")
def _path_get(path: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], f: int, base: int) -> int:
    """The depth of ``f`` on the current path (only depths >= ``base`` count), or -1.

    Open addressing with linear probing; entries are removed in the reverse order of their
    insertion (the path is a stack), which never breaks a probe chain."""
    mask = ctl[_PATH_MASK]
    i = _mix(f) & mask
    best = -1
    while path[1, i] >= 0:
        if path[0, i] == f and path[1, i] >= base and path[1, i] > best:
            best = path[1, i]
        i = (i + 1) & mask
    return best


@njit(cache=True, inline="always")
def _path_put(path: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], f: int, d: int) -> int:
    mask = ctl[_PATH_MASK]
    i = _mix(f) & mask
    while path[1, i] >= 0:
        i = (i + 1) & mask
    path[0, i] = f
    path[1, i] = d
    return i


@njit(cache=True, inline="always")
def _fut_get(fut: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], f: int, r: int) -> int:
    """A futility verdict cached for (position after the reply, bound): 1, 0, or -1."""
    i = (_mix(f ^ (r * 0x2545F4914F6CDD1D)) & ctl[_FUT_MASK]) * 2
    if fut[i, 0] == f and fut[i, 1] == r:
        return fut[i, 2]
    return -1


@njit(cache=True, inline="always")
def _fut_put(
    fut: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], f: int, r: int, v: int
) -> None:
    i = (_mix(f ^ (r * 0x2545F4914F6CDD1D)) & ctl[_FUT_MASK]) * 2
    fut[i, 0] = f
    fut[i, 1] = r
    fut[i, 2] = v
    if v == 1:
        # the second slot of the pair remembers "found futile within some bound" per position,
        # which the line reader asks about
        j = (_mix(f) & ctl[_FUT_MASK]) * 2 + 1
        fut[j, 0] = f
        fut[j, 1] = -1
        fut[j, 2] = 1


@njit(cache=True, _nrt=False)
def _was_futile(fut: npt.NDArray[np.int64], ctl: npt.NDArray[np.int64], f: int) -> bool:
    j = (_mix(f) & ctl[_FUT_MASK]) * 2 + 1
    return fut[j, 0] == f and fut[j, 1] == -1 and fut[j, 2] == 1


# --------------------------------------------------------------------------- the search


@njit(cache=True, inline="always")
def _gsum(ws: npt.NDArray[np.int64], row: int, sp: int, n: int, gscr: npt.NDArray[np.int64]) -> int:
    """Sum of ws[row] over the frame's children, each group counted once (its largest
    number), capped below INF unless one of them is INF."""
    total = 0
    top = 0
    for i in range(sp, sp + n):
        v = ws[row, i]
        if v > top:
            top = v
        g = ws[_GRP, i]
        if g < 0:
            total += v
        elif gscr[g] < 0 or v > gscr[g]:
            gscr[g] = v
    for i in range(sp, sp + n):
        g = ws[_GRP, i]
        if g >= 0 and gscr[g] >= 0:
            total += gscr[g]
            gscr[g] = -1
    if total >= INF:
        # INF means solved: a large sum of open numbers saturates just below it
        total = INF if top >= INF else INF - 1
    return total


@njit(cache=True, _nrt=False)
def _seed(
    or_moves: Any,
    and_moves: Any,
    outcome: Any,
    group: Any,
    and_need: Any,
    ctx: Any,
    st: Any,
    tt: Any,
    ctl: Any,
    mv: Any,
    gscr: Any,
    k: int,
    h: int,
    child_is_or: bool,
) -> tuple[int, int, int, int, int]:
    """Initial numbers of a new child (df-pn+ style, one cheap look ahead: the number of
    its moves), stored in the table: (pn, dn, length, ddepth, hand)."""
    if child_is_or:
        # No mate-in-one test here: it is made when the child is expanded, and most
        # children never are (measured on 13-31-ply problems: 25-35% fewer nodes and about
        # 30% less time per node without it).
        n = or_moves(ctx, st, mv)
        if n == 0:
            if outcome(ctx, st) == 1:
                _store_proof(tt, ctl, k, 0, 0, 1)
                return 0, INF, 0, 0, 0
            dh = HAND_ALL & ~_zero_bytes(h)
            _store_disproof(tt, ctl, k, dh, INF, 1)
            return INF, 0, 0, INF, dh
        _store_open(tt, ctl, k, h, 1, n, 1)
        return 1, n, 0, 0, h
    n = and_moves(ctx, st, mv)
    if n == 0:
        if outcome(ctx, st) == 1:
            ph = and_need(ctx, st)
            _store_proof(tt, ctl, k, ph, 0, 1)
            return 0, INF, 0, 0, ph
        _store_disproof(tt, ctl, k, HAND_ALL, INF, 1)
        return INF, 0, 0, INF, HAND_ALL
    # replies on one square count once, as in the sums
    total = 0
    for i in range(n):
        g = group(ctx, st, mv[i])
        if g < 0:
            total += 1
        elif gscr[g] < 0:
            gscr[g] = 1
            total += 1
    for i in range(n):
        g = group(ctx, st, mv[i])
        if g >= 0:
            gscr[g] = -1
    _store_open(tt, ctl, k, h, total, 1, 1)
    return total, 1, 0, 0, h


@njit(cache=True, inline="always")
def _counted_drop(ws: npt.NDArray[np.int64], j: int, finite: bool) -> bool:
    """Is the reply in workspace column ``j`` a drop counted in a bounded search (tested
    not futile at this bound)? A disproof resting on it holds at this bound only."""
    return finite and ws[_GRP, j] >= 0


@njit(cache=True, inline="always")
def _weak_disproof(ws: npt.NDArray[np.int64], j: int, finite: bool) -> bool:
    """Does the disproved reply in column ``j`` hold on this path only, or at this bound
    only (a counted drop, or a disproof stored as ``_EXACT + r``)?"""
    return ws[_RPR, j] < INF or _counted_drop(ws, j, finite) or ws[_DDR, j] < _EXACT_TOP


@njit(cache=True, nogil=True, _nrt=False, returns=types.UniTuple(types.int64, 6))
def _mid(
    or_moves: Any,
    and_moves: Any,
    play: Any,
    undo: Any,
    key: Any,
    hand: Any,
    outcome: Any,
    quick_win: Any,
    group: Any,
    futile_replies: Any,
    hand_delta: Any,
    and_need: Any,
    ctx: Any,
    st: Any,
    tt: Any,
    ws: Any,
    mvs: Any,
    path: Any,
    fut: Any,
    ctl: Any,
    stop: Any,
    tflag: Any,
    gscr: Any,
    is_or: bool,
    th_pn: int,
    th_dn: int,
    r: int,
    depth: int,
    base: int,
    at_root: bool,
    mode: int,
    fm: int,
    fcf: int,
) -> tuple[int, int, int, int, int, int]:
    """One df-pn node: (pn, dn, length, disproof depth, repetition depth, hand).

    ``hand`` is the proof pieces of a proof or the disproof pieces of a disproof;
    ``repetition depth`` the shallowest path depth a disproof relied on being repeated (INF
    if none). ``base``: repetitions of positions above this depth do not count (a nested
    proof asks about a position on its own). On an abort every frame returns (1, 1, ...)
    at once and stores nothing.

    ``mode == 1`` asks instead whether the defender's reply ``fm`` (to this AND node,
    searched within ``r`` plies; ``fcf`` the full key after it) is futile: one of the game's
    answers to it leaves a position already won, or won within ``r`` while one of the
    replies that always count holds out beyond ``r - 2`` — the reply gains nothing but its
    own two plies. The verdict (first field, 1 or 0) is cached by (position after the
    reply, bound). It is a mode of this function, not a function of its own, because
    mutually recursive functions crashed numba's cache on load; self-recursion is fine.
    Arguments of the recursive calls are never literals: numba would compile an overload
    per literal value, and loading such a set from the cache crashes (DESIGN.md, numba 2)."""
    no = depth < -1
    yes = depth >= -1
    zero = depth - depth
    big = zero + INF
    if mode == 1:
        v = _fut_get(fut, ctl, fcf, r)
        if v >= 0:
            return v, 0, 0, 0, 0, 0
        verdict = False
        need_hold = False
        sp = ctl[_SP]
        play(ctx, st, fm)
        nf = futile_replies(ctx, st, mvs[sp:])
        ctl[_SP] = sp + nf
        for i in range(nf):
            play(ctx, st, mvs[sp + i])
            a = _mid(
                or_moves, and_moves, play, undo, key, hand, outcome, quick_win, group,
                futile_replies, hand_delta, and_need, ctx, st, tt, ws, mvs, path, fut, ctl,
                stop, tflag, gscr, no, big, big, zero, depth + 2, depth + 2, no, zero, zero, zero,
            )[0]  # fmt: skip
            if a != 0 and r >= 2 and ctl[_ABORT] == 0:
                b = _mid(
                    or_moves, and_moves, play, undo, key, hand, outcome, quick_win, group,
                    futile_replies, hand_delta, and_need, ctx, st, tt, ws, mvs, path, fut, ctl,
                    stop, tflag, gscr, no, big, big, r, depth + 2, depth + 2, no, zero, zero, zero,
                )[0]  # fmt: skip
                if b == 0:
                    need_hold = True
            undo(ctx, st)
            if ctl[_ABORT] != 0:
                break
            if a == 0:
                verdict = True
                break
        undo(ctx, st)
        ctl[_SP] = sp
        if ctl[_ABORT] != 0:
            return 0, 0, 0, 0, 0, 0
        if not verdict and need_hold:
            # does one of the replies that always count hold out beyond r - 3?
            n = and_moves(ctx, st, mvs[sp:])
            ctl[_SP] = sp + n
            for i in range(n):
                c = mvs[sp + i]
                if group(ctx, st, c) >= 0:
                    continue
                if r - 3 < 1:
                    verdict = True
                    break
                play(ctx, st, c)
                res = _mid(
                    or_moves, and_moves, play, undo, key, hand, outcome, quick_win, group,
                    futile_replies, hand_delta, and_need, ctx, st, tt, ws, mvs, path, fut, ctl,
                    stop, tflag, gscr, yes, big, big, r - 3, depth + 1, depth + 1, no, zero, zero,
                    zero,
                )  # fmt: skip
                undo(ctx, st)
                if ctl[_ABORT] != 0:
                    break
                if res[1] == 0:
                    verdict = True
                    break
            ctl[_SP] = sp
            if ctl[_ABORT] != 0:
                return 0, 0, 0, 0, 0, 0
        _fut_put(fut, ctl, fcf, r, 1 if verdict else 0)
        return 1 if verdict else 0, 0, 0, 0, 0, 0

    ctl[_NODES] += 1
    if (ctl[_NODES] & 255) == 0:
        if stop[0] != 0 or tflag[0] != 0:
            ctl[_ABORT] = 1
        elif ctl[_NODES] >= ctl[_NODE_LIMIT]:
            ctl[_ABORT] = 2
        elif ctl[_TT_USED] > ctl[_TT_GC_AT]:
            if ctl[_TT_MASK] < ctl[_TT_MAX_MASK]:
                _grow(tt, ctl)
            else:
                _sweep(tt, ctl)
    if ctl[_ABORT] != 0:
        return 1, 1, 0, 0, INF, 0
    if depth >= ctl[_MAX_DEPTH] or ctl[_SP] + 2 * ctl[_MAX_MOVES] > mvs.shape[0]:
        ctl[_ABORT] = 3
        return 1, 1, 0, 0, INF, 0
    if depth > ctl[_DEEPEST]:
        ctl[_DEEPEST] = depth
    k = key(ctx, st)
    h = hand(ctx, st)
    work0 = ctl[_NODES]
    sp = ctl[_SP]
    mv = mvs[sp:]

    if is_or:
        if r < 1:
            return INF, 0, 0, r, INF, HAND_ALL
        n = or_moves(ctx, st, mv)
        if n == 0:
            if outcome(ctx, st) == 1:
                _store_proof(tt, ctl, k, 0, 0, 1)
                return 0, INF, 0, 0, INF, 0
            dh = HAND_ALL & ~_zero_bytes(h)
            _store_disproof(tt, ctl, k, dh, INF, 1)
            return INF, 0, 0, INF, INF, dh
        w = quick_win(ctx, st, mv, n)
        if w >= 0:
            spent, gained = hand_delta(ctx, st, w)
            play(ctx, st, w)
            need = and_need(ctx, st)
            undo(ctx, st)
            ph = _hsub(need + spent, gained)
            _store_proof(tt, ctl, k, ph, 1, 1)
            return 0, INF, 1, 0, INF, ph
        if w == -2 and r <= 2:
            # no win at once, and every move leaves the defender a reply that counts: no
            # win within two plies, told without expanding the children
            dh = HAND_ALL & ~_zero_bytes(h)
            _store_disproof(tt, ctl, k, dh, r, 1)
            return INF, 0, 0, r, INF, dh
    else:
        n = and_moves(ctx, st, mv)
        if n == 0:
            if outcome(ctx, st) == 1:
                ph = and_need(ctx, st)
                _store_proof(tt, ctl, k, ph, 0, 1)
                return 0, INF, 0, 0, INF, ph
            _store_disproof(tt, ctl, k, HAND_ALL, INF, 1)
            return INF, 0, 0, INF, INF, HAND_ALL
        if r == 2 or r == 3:
            # the attacker's replies are at the horizon: a reply that counts (no group)
            # after which the attacker has no move that wins at once nor one that leaves
            # only moves with a group holds out, and so does this node. Tried in move
            # order before any child is expanded (in a bounded search most such nodes
            # are settled by their first or second reply).
            scratch = mvs[sp + n :]
            for i in range(n):
                m = mv[i]
                if group(ctx, st, m) >= 0:
                    continue
                play(ctx, st, m)
                n2 = or_moves(ctx, st, scratch)
                if n2 == 0:
                    holds = outcome(ctx, st) != 1
                else:
                    holds = quick_win(ctx, st, scratch, n2) == -2
                undo(ctx, st)
                if holds:
                    dh = HAND_ALL & ~_zero_bytes(h)
                    _store_disproof(tt, ctl, k, dh, r, 1)
                    return INF, 0, 0, r, INF, dh

    # expand: the children's keys, hands, groups, repetitions and first numbers
    ctl[_SP] = sp + n
    scratch = mvs[sp + n :]
    finite = r < INF
    cr = r - 1 if finite else INF
    # first every child's key, its table bucket asked from memory at once (a probe is a
    # cache miss: asked together, they wait for memory together), then the probes. An
    # attacker child with no plies left is not probed nor seeded: the rounds below count it
    # a failure whatever the table says (in a shortening's last search 5-15% of the nodes
    # are such defender nodes at its horizon, each once seeding every reply's checks).
    probe = is_or or cr >= 1
    for i in range(n):
        j = sp + i
        m = mv[i]
        g = group(ctx, st, m)
        ws[_GRP, j] = g
        play(ctx, st, m)
        ck = key(ctx, st)
        ch = hand(ctx, st)
        undo(ctx, st)
        if probe:
            _prefetch_bucket(tt, ctl, ck)
        ws[_CK, j] = ck
        ws[_CH, j] = ch
        ws[_CF, j] = _full_key(ck, ch)
        ws[_CR, j] = cr
        ws[_FL, j] = _F_TESTED if (is_or or not finite or g < 0) else 0
    for i in range(n):
        j = sp + i
        ck = ws[_CK, j]
        ch = ws[_CH, j]
        d = _path_get(path, ctl, ws[_CF, j], base)
        ws[_REP, j] = d if d >= 0 else INF
        if d < 0 and probe:
            cpn, cdn, cln, cdd, cxh, found = _lookup(tt, ctl, ck, ch, cr)
            # A defender child new to a bounded search (the shortening's, the main line's)
            # starts at (1, 1), with no look ahead. There the search mostly disproves, and
            # the count of replies steers a proof, not a disproof (measured on the 13-31-ply
            # problems, issue 40: 15-30% fewer nodes, 15% less time in those searches; in
            # the first, unbounded search the same made finding a mate 2-4x slower). A
            # mated child (no reply) then shows as open until it is searched; in tsume
            # there is none: the mate-in-one test has just found no check that mates. (The
            # entry is stored all the same: leaving it out cost up to 11% more nodes.)
            if found == 0 and is_or and finite:
                _store_open(tt, ctl, ck, ch, 1, 1, 1)
            elif found == 0:
                play(ctx, st, mv[i])
                cpn, cdn, cln, cdd, cxh = _seed(
                    or_moves, and_moves, outcome, group, and_need, ctx, st, tt, ctl, scratch,
                    gscr, ck, ch, not is_or,
                )  # fmt: skip
                undo(ctx, st)
            ws[_PNR, j] = cpn
            ws[_DNR, j] = cdn
            ws[_LENR, j] = cln
            ws[_DDR, j] = cdd
            ws[_XHR, j] = cxh
    f = _full_key(k, h)
    pslot = _path_put(path, ctl, f, depth)

    pn = 1
    dn = 1
    while True:
        # gather the children's numbers
        for j in range(sp, sp + n):
            ws[_RPR, j] = INF
            fl = ws[_FL, j]
            if ws[_REP, j] < INF:
                # a repeated position: the attacker fails on this path (with this hand)
                ws[_PNR, j] = INF
                ws[_DNR, j] = 0
                ws[_DDR, j] = INF
                ws[_RPR, j] = ws[_REP, j]
                ws[_XHR, j] = ws[_CH, j]
            elif fl & _F_FUTILE:
                ws[_PNR, j] = 0
                ws[_DNR, j] = INF
                ws[_LENR, j] = 0
            elif fl & _F_LOCAL:
                ws[_PNR, j] = INF
                ws[_DNR, j] = 0
                ws[_DDR, j] = ws[_LDD, j]
                ws[_RPR, j] = ws[_LDR, j]
                ws[_XHR, j] = ws[_LDH, j]
            elif not is_or and ws[_CR, j] < 1:
                # an attacker with no plies left cannot win
                ws[_PNR, j] = INF
                ws[_DNR, j] = 0
                ws[_DDR, j] = ws[_CR, j]
                ws[_XHR, j] = HAND_ALL
            # else: the numbers the expansion read (or the child's own last answer). The
            # table is not read again each round: a sibling's entry changed meanwhile by a
            # transposition is seen when that sibling is searched (it answers at once). Re-
            # reading every child each round was 70% of the table probes (issue 40).
        if not is_or and finite:
            # a reply that counts and is disproved settles the node: test nothing
            settled = False
            first = -1
            for j in range(sp, sp + n):
                if ws[_DNR, j] == 0:
                    if ws[_FL, j] & _F_TESTED:
                        settled = True
                        break
                    if first < 0:
                        first = j
            if not settled and first >= 0:
                ws[_FL, first] |= _F_TESTED
                v = _mid(
                    or_moves, and_moves, play, undo, key, hand, outcome, quick_win, group,
                    futile_replies, hand_delta, and_need, ctx, st, tt, ws, mvs, path, fut,
                    ctl, stop, tflag, gscr, no, big, big, r, depth, base, no, zero + 1,
                    mv[first - sp], ws[_CF, first],
                )[0]  # fmt: skip
                if ctl[_ABORT] != 0:
                    break
                if v:
                    ws[_FL, first] |= _F_FUTILE
                continue
        if is_or:
            pn = INF + 1
            for j in range(sp, sp + n):
                if ws[_PNR, j] < pn:
                    pn = ws[_PNR, j]
            dn = _gsum(ws, _DNR, sp, n, gscr)
        else:
            dn = INF + 1
            for j in range(sp, sp + n):
                if ws[_DNR, j] < dn:
                    dn = ws[_DNR, j]
            pn = _gsum(ws, _PNR, sp, n, gscr)
        if at_root and depth == 0:
            ctl[_ROOT_PN] = pn
            ctl[_ROOT_DN] = dn
        if pn == 0 or dn == 0 or pn >= th_pn or dn >= th_dn:
            break
        # the most proving child and the runner-up
        sel = _PNR if is_or else _DNR
        best = -1
        best_v = INF + 1
        second_v = INF + 1
        for j in range(sp, sp + n):
            v = ws[sel, j]
            if v < best_v:
                second_v = best_v
                best_v = v
                best = j
            elif v < second_v:
                second_v = v
        limit_second = second_v + 1 if second_v >= INF else second_v + (second_v >> 2) + 1
        if is_or:
            c_th_pn = min(th_pn, limit_second)
            c_th_dn = min(INF, th_dn - dn + ws[_DNR, best])
        else:
            c_th_dn = min(th_dn, limit_second)
            c_th_pn = min(INF, th_pn - pn + ws[_PNR, best])
        play(ctx, st, mv[best - sp])
        cpn, cdn, cln, cdd, crep, cxh = _mid(
            or_moves, and_moves, play, undo, key, hand, outcome, quick_win, group,
            futile_replies, hand_delta, and_need, ctx, st, tt, ws, mvs, path, fut, ctl,
            stop, tflag, gscr, not is_or, c_th_pn, c_th_dn, ws[_CR, best], depth + 1, base,
            at_root, zero, zero, zero,
        )  # fmt: skip
        undo(ctx, st)
        if ctl[_ABORT] != 0:
            break
        # the child's own answer, in case the table has already let its entry go
        ws[_PNR, best] = cpn
        ws[_DNR, best] = cdn
        ws[_LENR, best] = cln
        ws[_DDR, best] = cdd
        ws[_XHR, best] = cxh
        if cdn == 0 and crep <= depth:
            # disproved only because of this path: remember it here, not in the table
            ws[_FL, best] |= _F_LOCAL
            ws[_LDD, best] = cdd
            ws[_LDR, best] = crep
            ws[_LDH, best] = cxh
    path[1, pslot] = -1
    ctl[_SP] = sp
    if ctl[_ABORT] != 0:
        return 1, 1, 0, 0, INF, 0

    work = ctl[_NODES] - work0 + 1
    if pn == 0:
        if is_or:
            bl = _NO_PROOF
            bj = -1
            for j in range(sp, sp + n):
                if ws[_PNR, j] == 0 and ws[_LENR, j] < bl:
                    bl = ws[_LENR, j]
                    bj = j
            length = 1 + bl
            spent, gained = hand_delta(ctx, st, mv[bj - sp])
            ph = _hsub(ws[_XHR, bj] + spent, gained)
        else:
            longest = -1
            ph = and_need(ctx, st)
            for j in range(sp, sp + n):
                if ws[_FL, j] & _F_FUTILE:
                    ph = h  # proved by a separate argument: keep the whole hand
                elif ws[_LENR, j] > longest:
                    longest = ws[_LENR, j]
                if not ws[_FL, j] & _F_FUTILE:
                    ph = _hmax(ph, ws[_XHR, j])
            length = 1 + longest if longest >= 0 else 0
        _store_proof(tt, ctl, k, ph, length, work)
        return 0, INF, length, 0, INF, ph
    if dn == 0:
        if is_or:
            ddepth = INF
            rdep = INF
            dh = HAND_ALL
            for j in range(sp, sp + n):
                if ws[_DDR, j] < ddepth:
                    ddepth = ws[_DDR, j]
                if ws[_RPR, j] < rdep:
                    rdep = ws[_RPR, j]
                spent, gained = hand_delta(ctx, st, mv[j - sp])
                dh = _hmin(dh, _hsub(ws[_XHR, j] + spent, gained))
            ddepth = min(1 + ddepth, INF)
            # more pieces of a kind the attacker has none of would give it new drops
            dh &= ~_zero_bytes(h)
        else:
            # prefer a disproof that holds on any path and at any bound, then the deepest.
            # A drop counted in a bounded search (tested not futile) holds out at this
            # bound only: whether it is futile depends on the bound (won within r while a
            # reply that always counts holds out beyond r - 3), not monotonically, so a
            # disproof resting on it holds at this bound only: stored as such (_EXACT + r),
            # and so is every disproof above that rests on it (an OR node's bound is the
            # least of its children's plus one, an AND node's its reply's plus one). Stored
            # as a disproof of every bound up to r, it was reused at smaller bounds, where
            # the drop may be futile: a false "no mate within r" (issue 40;
            # tests/search/test_dfpn_compiled.py, bounds in any order).
            bj = -1
            for j in range(sp, sp + n):
                if ws[_DNR, j] != 0:
                    continue
                if bj < 0:
                    bj = j
                    continue
                a_weak = _weak_disproof(ws, j, finite)
                b_weak = _weak_disproof(ws, bj, finite)
                if (b_weak and not a_weak) or (a_weak == b_weak and ws[_DDR, j] > ws[_DDR, bj]):
                    bj = j
            ddepth = min(1 + ws[_DDR, bj], INF)
            if _counted_drop(ws, bj, finite):
                ddepth = _EXACT + r
            rdep = ws[_RPR, bj]
            dh = ws[_XHR, bj]
            spent, gained = hand_delta(ctx, st, mv[bj - sp])
            if spent != 0:
                # the reply was a drop: with more of that piece the attacker would leave
                # the defender without it
                m = _nonzero_bytes(spent)
                dh = (dh & ~m) | (h & m)
        if rdep >= depth:
            # the cycle lies inside this node's subtree: the disproof is path-free
            _store_disproof(tt, ctl, k, dh, ddepth, work)
            rdep = INF
        return INF, 0, 0, ddepth, rdep, dh
    _store_open(tt, ctl, k, h, pn, dn, work)
    return pn, dn, 0, 0, INF, 0


@njit(cache=True, _nrt=False)
def _key_after(play: Any, undo: Any, key: Any, hand: Any, ctx: Any, st: Any, m: int) -> int:
    """The full key of the position after the move ``m`` (``st`` is left as it was)."""
    play(ctx, st, m)
    cf = _full_key(key(ctx, st), hand(ctx, st))
    undo(ctx, st)
    return cf


# --------------------------------------------------------------------------- the driver

#: stack for the search thread: a frame per ply of the line under search
_STACK_BYTES = 512 * 1024 * 1024
#: Python's recursion limit while a session runs (in the search thread's big stack)
_PY_RECURSION = 200_000
_DEPTH_CAP = 20_000
#: the deepest line a solver searches (deeper: a ``memory`` stop, never an answer)
MAX_DEPTH = min(_DEPTH_CAP, (1 << 16) // 2)
_ENTRY_BYTES = _FIELDS * 8
#: the buckets a table starts with (4 MB); it doubles when 7/8 full up to its whole size
_FIRST_BUCKETS = 1 << 13


class DfPn:
    """One solver for one game: a transposition table, counters and limits shared by its
    proofs (``limit`` bounds all of them together, from the solver's creation).
    ``max_depth`` caps the lines it searches (at most :data:`MAX_DEPTH`; a position that
    keeps a stack of its plies has room for so many): deeper is a ``memory`` stop.

    >>> # see banmen.games.shogi.tsume (mates) and banmen.games.othello.wld (win/loss/draw)
    """

    def __init__(
        self,
        kernels: Kernels,
        ctx: npt.NDArray[np.int64],
        *,
        limit: Limit | None = None,
        stop: StopFlag | None = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        hash_mb: int = 256,
        workspace: int = 1 << 20,
        tt_buckets: int | None = None,
        max_depth: int = MAX_DEPTH,
    ) -> None:
        self.kernels = kernels
        self.ctx = ctx
        self.limit = limit
        self.stop = stop
        self.progress = progress
        self.phase = "proof"
        self.start = time.monotonic()
        buckets = 1
        while (buckets * 2) * _BUCKET * _ENTRY_BYTES <= max(1, hash_mb) * 1024 * 1024:
            buckets *= 2
        if tt_buckets is not None:  # (tests: a table of a few buckets)
            buckets = 1 << max(0, tt_buckets.bit_length() - 1)
        self.tt = _zeros(buckets * _BUCKET, _FIELDS)
        self.ws = _zeros(_WS_ROWS, workspace)
        self.mvs = _zeros(workspace, 1).reshape(-1)
        self.path = np.zeros((2, 1 << 16), dtype=np.int64)
        self.path[1, :] = -1
        self.fut = np.full((2 << 16, 3), -2, dtype=np.int64)
        self.gscr = np.full(1024, -1, dtype=np.int64)
        self.ctl = np.zeros(_CTL_SIZE, dtype=np.int64)
        self.ctl[_TT_MAX_MASK] = buckets - 1
        first = min(buckets, _FIRST_BUCKETS)  # (then it grows: _grow)
        self.ctl[_TT_MASK] = first - 1
        self.ctl[_TT_GC_AT] = first * _BUCKET * 7 // 8
        # (a state that keeps a stack of positions has room for this many plies only)
        self._max_depth = max(1, min(MAX_DEPTH, max_depth))
        self.ctl[_MAX_DEPTH] = self._max_depth
        self.ctl[_FUT_MASK] = (1 << 16) - 1
        self.ctl[_PATH_MASK] = (1 << 16) - 1
        self.ctl[_MAX_MOVES] = kernels.max_moves
        self.ctl[_NODE_LIMIT] = limit.nodes if limit and limit.nodes else 1 << 62
        self._tflag = StopFlag()
        self._nostop = np.zeros(1, dtype=np.int64)
        self._out = np.zeros(3, dtype=np.int64)
        self._fns: dict[str, Callable[..., Any]] = {}
        self._inside = threading.local()
        #: why the last compiled call stopped early (None: it finished)
        self.last_reason: str | None = None

    # ------------------------------------------------------------------ bookkeeping
    nodes = IntAt("ctl", _NODES)
    gc_runs = IntAt("ctl", _GC_RUNS)
    entries = IntAt("ctl", _TT_USED)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def info(self) -> dict[str, Any]:
        seconds = self.elapsed()
        pn, dn = int(self.ctl[_ROOT_PN]), int(self.ctl[_ROOT_DN])
        return {
            "nodes": self.nodes,
            "seconds": round(seconds, 3),
            "nps": int(self.nodes / seconds) if seconds > 0 else 0,
            "pn": pn if pn < INF else "inf",
            "dn": dn if dn < INF else "inf",
            "phase": self.phase,
            "entries": self.entries,
        }

    def _args(self, st: npt.NDArray[np.int64]) -> tuple[Any, ...]:
        k = self.kernels
        stop = self.stop.array if self.stop is not None else self._nostop
        return (
            k.or_moves, k.and_moves, k.play, k.undo, k.key, k.hand, k.outcome, k.quick_win,
            k.group, k.futile_replies, k.hand_delta, k.and_need, self.ctx, st, self.tt,
            self.ws, self.mvs, self.path, self.fut, self.ctl, stop, self._tflag.array,
            self.gscr,
        )  # fmt: skip

    def _mid(self, st: npt.NDArray[np.int64], *node: int | bool) -> str | None:
        """``_mid`` for the position ``st`` and the node arguments ``node`` (from ``is_or``
        on), run under the limits; its result goes to ``self._out``. The reason it was
        stopped, or None."""
        args = (*self._args(st), *node)
        fn = self._fn("mid", _mid, args)

        def call() -> None:
            self._out[:] = fn(*args)[:3]

        self.last_reason = self._run(call)
        return self.last_reason

    def _fn(self, name: str, dispatcher: Any, args: tuple[Any, ...]) -> Callable[..., Any]:
        fn = self._fns.get(name)
        if fn is None:
            if dispatcher is _mid and self.kernels.pointers:
                self.compile_kernels(args[13])
                sig = self._node_signature(args)
                _mid.compile(sig)
                fn = self._fns[name] = _mid.overloads[sig].entry_point
            else:
                fn = self._fns[name] = bound(dispatcher, *args)
        return fn

    def _node_signature(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``_mid``'s argument types for ``args`` with the kernels as function pointers."""
        c, s = typeof(args[12]), typeof(args[13])
        kernels = tuple(
            FunctionType(ret(c, s, *more)) if name in self.kernels.pointers else typeof(fn)
            for (name, (more, ret)), fn in zip(KERNEL_SIGNATURES.items(), args[:12], strict=True)
        )
        return (*kernels, *(typeof(a) for a in args[12:]))

    def compile_kernels(self, st: npt.NDArray[np.int64]) -> None:
        """Compile (or load) the kernels a bundle calls through pointers
        (:attr:`Kernels.pointers`) for this state's type, each checked against its
        contract's return type (a pointer of another type would be called wrongly)."""
        c, s = typeof(self.ctx), typeof(st)
        for name in self.kernels.pointers:
            more, ret = KERNEL_SIGNATURES[name]
            compile_returning(getattr(self.kernels, name), (c, s, *more), ret,
                              f"the {name} kernel", "df-pn")  # fmt: skip

    def compile_node(self, st: npt.NDArray[np.int64]) -> None:
        """Compile (or load) the node function for this state's type without compiling the
        kernels it calls through pointers (:attr:`Kernels.pointers`): a helper process can
        do it while another compiles them."""
        args = (*self._args(st), False, INF, INF, 0, 0, 0, False, 0, 0, 0)
        _mid.compile(self._node_signature(args))

    def session(self, fn: Callable[[], T]) -> T:
        """``fn()`` — which proves, looks up, reads lines — run in one search thread with a
        stack deep enough for thousand-ply lines, under one deadline for the whole of it,
        while this thread reports progress every 100 ms. Proofs made outside a session get
        a session of their own."""

        remaining = None
        if self.limit is not None and self.limit.time:
            remaining = max(0.0, self.limit.time - self.elapsed())
        # ``fn`` may recurse a few Python frames per ply of a thousand-ply line (the tsume
        # composer does); the search thread's stack holds them, Python's limit must too
        old_limit = sys.getrecursionlimit()
        if old_limit < _PY_RECURSION:
            sys.setrecursionlimit(_PY_RECURSION)
        try:
            return self._session(fn, remaining)
        finally:
            if old_limit < _PY_RECURSION:
                sys.setrecursionlimit(old_limit)

    def _session(self, fn: Callable[[], T], remaining: float | None) -> T:
        result: list[T] = []
        failure: list[BaseException] = []

        def target() -> None:
            self._inside.active = True
            try:
                result.append(fn())
            except BaseException as e:  # re-raised in the caller's thread
                failure.append(e)

        with Deadline(self._tflag, remaining):
            old = threading.stack_size()
            try:
                threading.stack_size(_STACK_BYTES)
                t = threading.Thread(target=target, name="dfpn", daemon=True)
                t.start()
            finally:
                threading.stack_size(old)
            next_report = time.monotonic() + 0.1
            while True:
                t.join(max(0.0, next_report - time.monotonic()))
                if not t.is_alive():
                    break
                if self.progress is not None:
                    self.progress(self.info())
                next_report = time.monotonic() + 0.1
        if failure:
            raise failure[0]
        return result[0]

    def _run(self, call: Callable[[], None]) -> str | None:
        """Run a compiled call under the limits (in a session); the reason it was stopped,
        or None."""
        if self.stop is not None and self.stop.is_set():
            return "timeout" if self.stop.reason == STOP_TIME else "stopped"
        if self._tflag.is_set():
            return "timeout"
        if self.limit is not None and self.limit.time and self.elapsed() >= self.limit.time:
            return "timeout"
        if self.ctl[_NODES] >= self.ctl[_NODE_LIMIT]:
            return "node_limit"
        self.ctl[_ABORT] = 0
        if getattr(self._inside, "active", False):
            call()
        else:
            self.session(call)
        abort = int(self.ctl[_ABORT])
        if abort == 0:
            return None
        if abort == 1:
            if self._tflag.is_set():
                return "timeout"
            if self.stop is not None and self.stop.reason == STOP_TIME:
                return "timeout"
            return "stopped"
        return _ABORT_REASONS[abort]

    # ------------------------------------------------------------------ proving
    def prove(
        self,
        st: npt.NDArray[np.int64],
        r: int = INF,
        *,
        or_node: bool = True,
        nodes: int | None = None,
    ) -> ProofResult:
        """Prove or disprove an attacker win from ``st`` within ``r`` plies (``INF``: at any
        length), sharing this solver's table and limits. ``or_node=False``: the defender is
        to move. ``nodes``: a budget for this call alone — spent, the answer is unknown with
        the reason ``budget`` (what it learnt stays in the table). ``st`` is left as it
        was."""
        limit = int(self.ctl[_NODE_LIMIT])
        if nodes is not None:
            self.ctl[_NODE_LIMIT] = min(limit, self.nodes + max(1, nodes))
        try:
            # the root call: no thresholds (INF), path depth 0, mode 0 (a proof)
            reason = self._mid(st, or_node, INF, INF, r, 0, 0, r >= -1, 0, 0, 0)
        finally:
            self.ctl[_NODE_LIMIT] = limit
        if reason == "node_limit" and nodes is not None and self.nodes < limit:
            reason = self.last_reason = "budget"
        if reason is not None:
            return ProofResult("unknown", reason=reason)
        pn, dn, length = (int(x) for x in self._out)
        if pn == 0:
            return ProofResult("proved", length=length)
        if dn == 0:
            return ProofResult("disproved")
        raise AssertionError("df-pn returned with both numbers open at infinite thresholds")

    def set_room(self, plies: int) -> None:
        """From now on search lines of at most ``plies`` plies below the root (and at most
        ``max_depth``): for a position array whose stack of moves has only that much room
        left (a position reached by moves already played on it). Deeper: a ``memory``
        stop, never an answer."""
        self.ctl[_MAX_DEPTH] = max(1, min(self._max_depth, plies))

    def is_futile(self, st: npt.NDArray[np.int64], move: int, r: int) -> bool | None:
        """Whether the defender's reply ``move`` in ``st`` is futile within bound ``r``
        (None: a limit stopped the test)."""
        k = self.kernels
        args = (k.play, k.undo, k.key, k.hand, self.ctx, st, move)
        cf = self._fn("key_after", _key_after, args)(*args)
        # ``_mid``'s mode 1 at an AND node: is the reply ``move`` (full key after: cf) futile
        reason = self._mid(st, False, INF, INF, r, 0, 0, False, 1, move, cf)
        if reason is not None:
            return None
        return bool(self._out[0])

    def lookup(self, k: int, h: int, r: int) -> tuple[int, int, int, int]:
        """(pn, dn, length, disproof depth) of the position with key ``k`` and attacker hand
        ``h`` as seen with ``r`` plies left."""
        fn = self._fns.get("lookup")
        if fn is None:
            fn = self._fns["lookup"] = bound(_lookup, self.tt, self.ctl, 0, 0, 0)
        pn, dn, length, dd, _, _ = fn(self.tt, self.ctl, k, h, r)
        if dn == 0 and dd < _EXACT_TOP:
            dd = r  # a disproof that holds at this bound only (see _EXACT)
        return int(pn), int(dn), int(length), int(dd)

    def was_futile(self, k: int, h: int) -> bool:
        """Whether the position (key, hand) was found to follow a futile reply."""
        return bool(_was_futile(self.fut, self.ctl, full_key(k, h)))

    def release(self) -> None:
        """Give the table's memory back — in a thread of its own: unmapping a table whose
        pages a search has touched takes tens of milliseconds (60 ms for 256 MB after 2 s),
        which the caller of a timed solve should not wait for. The solver is done after."""
        big = (self.tt, self.ws, self.mvs)
        self.tt = _zeros(_BUCKET, _FIELDS)
        self.ws = _zeros(_WS_ROWS, 1)
        self.mvs = _zeros(1, 1).reshape(-1)
        self.ctl[_TT_MASK] = 0
        self.ctl[_TT_MAX_MASK] = 0
        self._fns.clear()
        madvise = _libc_madvise()
        threading.Thread(
            target=_drop, args=(madvise, big), name="dfpn-release", daemon=True
        ).start()

    def clear(self) -> None:
        self.tt[:] = 0
        self.ctl[_TT_USED] = 0
        self.fut[:] = -2


def _zeros(rows: int, cols: int) -> npt.NDArray[np.int64]:
    """A zeroed int64 array in small pages.

    With transparent huge pages on "always" (this machine's setting), each first touch of a
    fresh table zeroes a 2 MB page: the few hundred entries a mate in three touches in a
    256 MB table cost half a second. In 4 KB pages they cost a millisecond."""
    size = rows * cols * 8
    try:
        buf = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        buf.madvise(mmap.MADV_NOHUGEPAGE)
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no madvise here
        return np.zeros((rows, cols), dtype=np.int64)
    return np.frombuffer(buf, dtype=np.int64).reshape(rows, cols)


def _drop(madvise: Callable[..., int] | None, arrays: tuple[Any, ...]) -> None:
    """Return the pages of ``arrays`` (our own anonymous maps) to the system with
    ``madvise(MADV_DONTNEED)`` through ctypes, which releases the GIL (unmapping from Python
    holds it for the whole time); the thread's last references then unmap empty maps."""
    if madvise is None:
        return
    for a in arrays:
        base = a
        while isinstance(base, np.ndarray):
            base = base.base
        if isinstance(base, memoryview):
            base = base.obj
        if isinstance(base, mmap.mmap) and a.nbytes:
            madvise(a.ctypes.data, a.nbytes, 4)


_madvise: list[Callable[..., int] | None] = []


def _libc_madvise() -> Callable[..., int] | None:
    """libc's madvise through ctypes (looked up once, in the caller's thread), or None."""
    if not _madvise:
        try:
            import ctypes

            fn = ctypes.CDLL(None, use_errno=True).madvise
            fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
            fn.restype = ctypes.c_int
            _madvise.append(fn)
        except (OSError, AttributeError):  # pragma: no cover - no libc madvise here
            _madvise.append(None)
    return _madvise[0]


def full_key(k: int, h: int) -> int:
    """The key of a position with everything in it: ``key`` and the attacker's hand."""
    return int(_full_key(np.int64(k), np.int64(h)))
