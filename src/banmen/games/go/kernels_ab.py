"""Go's rules as the rules contract every search reads (:class:`~banmen.search.alphabeta.Kernels`):
what the generic ``alphabeta`` and ``perfect`` players (and the generic tree searches)
play Go with. Go's own MCTS keeps its own kernels over a mutable board (:mod:`.kernels`,
:mod:`.policy`): its playouts' fast adapter, untouched by this module.

The state
---------
An immutable tuple of 16 integers, the same for every board size from 5x5 to 19x19 (one
compiled search serves them all)::

    (P0, …, P5, O0, …, O5, ko, passes, turn, hash)

``P0…P5`` are the stones of the side to move and ``O0…O5`` its opponent's, each a
384-bit bitboard in six ``uint64`` words; ``ko`` the bit of the point the side to move
may not play (simple ko), ``-1`` for none; ``passes`` the passes in a row (2: the game is
over); ``turn`` the colour to move (1 black, 2 white); ``hash`` the Zobrist hash of the
stones, updated move by move. The bit of the point in column ``c`` and row ``r`` (both
from 0) is ``r * (N + 1) + c``: each row has a guard bit after it, never set, so a shift
by one never carries a stone from one row's end into the next (the neighbours of a set
are its shifts by ±1 and ±(N + 1), masked with the board). 19x19 needs 379 bits.

``ctx`` (an ``int64`` array, :func:`context`) holds the size, the stride, komi and the
handicap bonus in half points, the scoring and suicide rules, the board's mask, the tables
between bits and the board's point numbers, and the moves the root may not play
(below). Moves are the board's own point numbers (:mod:`.board`: padded, ``PASS`` 0), so
the engines name them with ``Board.move_name``.

The rules
---------
``gen_moves`` gives every empty point the side to move may play by the rules the search
sees — not occupied, not suicide (multi-stone suicide where the rules allow it; a single
stone never), not the simple-ko point — and the pass (always legal); nothing once two
passes in a row have ended the game. ``play`` places the stone, takes the opponent's
chains left without a liberty, then (no capture) the mover's own if it has none (an
allowed suicide), and sets the ko point when one stone took one stone and is left alone
with one liberty — the board's rule (:func:`.kernels.play`); a pass clears the ko point.

**Superko.** The state carries no history, so inside the tree the search sees simple ko
only: under positional or situational superko (Tromp-Taylor, AGA, New Zealand) a line it
reads may repeat a position the rules forbid, and a long cycle (triple ko) is a line
without end (the contract's unbounded length: such a line is cut at the depth limit and
its value is never called exact). At the **root** the rules hold in full:
:func:`search_position` asks the board which of the kernels' moves it refuses (a superko
repetition of the game's history) and puts them in ``ctx`` with the root's key, and
``gen_moves`` leaves them out of that position — so no engine over these kernels plays a
move the board would refuse.

The values
----------
In **half points**, so a komi of 7.5 (15) and a count are exact integers, from the side to
move's view (an engine's score is one: 7 is three and a half points ahead; a komi that is
no multiple of a half is rounded to the nearest). ``final`` is the count of a finished
game with every stone alive, as :meth:`Board.score <.board.Board.score>` counts it
without dead stones: area scoring
(Chinese, AGA, New Zealand, Tromp-Taylor) gives each side its stones plus the empty
regions only its colour reaches; territory scoring (Japanese) those regions alone, the
prisoners being banked by ``gain`` (twice the stones a move captures, less twice its own
stones an allowed suicide loses) and the prisoners before the search by
``GameDef.score_offset``; white adds komi and the rules' handicap bonus. The seki tax of
territory scoring (territory in seki counts for nobody) is not seen: the search counts it
as territory. ``evaluate`` estimates the same count: each colour's stones (area scoring)
and the empty points it reaches first, growing both colours' stones point by point over
the empty points (:data:`REACH` steps; a point reached by both at once belongs to nobody
and stops both).

``key`` is the stones' Zobrist hash with the side to move, the ko point and the passes
mixed in; ``horizon`` is ``-1``: Go has no bound on its length the game knows (captures
free points again), so exactness is counted (no line cut short).

Move order: the pass first, then the moves that capture, the moves next to a stone, the
others, and last the moves that fill an eye of the mover's own (an empty point its own
stones surround, which captures nothing). The pass first is a null move: in a line one
side leads by far (every refutation of a blunder) it is the refutation, and it ends a
settled game at once — so ``perfect`` proves a nearly finished position without reading
the lines where a side destroys its own groups, which otherwise open the board again and
never end; a move the pass ties is not played. Against the pass last it searched 9x9
positions to depth 5 faster, not slower (4.5 s against 5.8 s for four positions).
"""

# numba types these functions; mypy sees numba's untyped decorators and int64 scalars.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call, call-overload"

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from banmen._bits import ctz64, mix64, popcnt64
from banmen._jit import kernel, njit
from banmen.games.go import kernels as K
from banmen.search.alphabeta import Kernels

if TYPE_CHECKING:
    from banmen.games.go.board import Board
    from banmen.games.go.game import Game

__all__ = [
    "KERNELS",
    "WORDS",
    "REACH",
    "context",
    "search_position",
    "score_offset",
    "search_moves",
    "state_of",
    "play_state",
    "final_value",
    "evaluate_value",
]

U = np.uint64
#: words of a bitboard: 6 x 64 = 384 bits, 19 x 20 - 1 = 379 needed
WORDS = 6
BITS = 64 * WORDS
#: steps each colour's stones grow over the empty points in ``evaluate``
REACH = 4
#: the most moves a position can have: every point of 19x19 and the pass
MAX_MOVES = K.MAX_SIZE * K.MAX_SIZE + 1
#: the board's point numbers (moves) are below this: 21 x 21 on 19x19
MOVE_LIMIT = (K.MAX_SIZE + 2) * (K.MAX_SIZE + 2)
NO_KO = -1

# the state's scalar members, after the 12 words
S_KO, S_PASSES, S_TURN, S_HASH = 12, 13, 14, 15

# ctx layout
C_SIZE = 0
C_STRIDE = 1  #: size + 1: a row and its guard bit
C_KOMI2 = 2  #: white's komi and handicap bonus, in half points
C_TERRITORY = 3  #: 1: territory scoring (prisoners banked by gain), 0: area
C_SUICIDE = 4  #: 1: multi-stone suicide is legal
C_BAN = 5  #: 1: some moves of the root position are refused (superko), below
C_BAN_KEY = 6  #: the root's key (the moves below are refused in that position only)
C_MASK = 8  #: the board's bits, six words
C_BANNED = 14  #: the refused moves' bits, six words
C_B2P = 32  #: bit -> the board's point number (-1: none), BITS entries
C_P2B = C_B2P + BITS  #: point number -> bit (-1: none), MOVE_LIMIT entries
CTX_LEN = C_P2B + MOVE_LIMIT

GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
_ZSALT = 0x3C6EF372FE94F82B
_TURN_KEY = 0x1F83D9AB5BE0CD19
_KO_SALT = 0x510E527FADE682D1
_PASS_SALT = 0x6A09E667F3BCC909


# --------------------------------------------------------------------------- bitboards


@njit(cache=True)
def _zero() -> Any:
    z = U(0)
    return (z, z, z, z, z, z)


@njit(cache=True)
def _and(a: Any, b: Any) -> Any:
    return (a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3], a[4] & b[4], a[5] & b[5])


@njit(cache=True)
def _or(a: Any, b: Any) -> Any:
    return (a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3], a[4] | b[4], a[5] | b[5])


@njit(cache=True)
def _andnot(a: Any, b: Any) -> Any:
    """``a`` without ``b``."""
    return (a[0] & ~b[0], a[1] & ~b[1], a[2] & ~b[2], a[3] & ~b[3], a[4] & ~b[4],
            a[5] & ~b[5])  # fmt: skip


@njit(cache=True)
def _any(a: Any) -> bool:
    return (a[0] | a[1] | a[2] | a[3] | a[4] | a[5]) != U(0)


@njit(cache=True)
def _same(a: Any, b: Any) -> bool:
    return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4])
            | (a[5] ^ b[5])) == U(0)  # fmt: skip


@njit(cache=True)
def _count(a: Any) -> Any:
    return np.int64(popcnt64(a[0]) + popcnt64(a[1]) + popcnt64(a[2]) + popcnt64(a[3])
                    + popcnt64(a[4]) + popcnt64(a[5]))  # fmt: skip


@njit(cache=True)
def _up(a: Any, k: Any) -> Any:
    """``a`` shifted towards higher bits by ``k`` (1 to 63, a ``uint64``)."""
    r = U(64) - k
    return (
        a[0] << k,
        (a[1] << k) | (a[0] >> r),
        (a[2] << k) | (a[1] >> r),
        (a[3] << k) | (a[2] >> r),
        (a[4] << k) | (a[3] >> r),
        (a[5] << k) | (a[4] >> r),
    )


@njit(cache=True)
def _down(a: Any, k: Any) -> Any:
    """``a`` shifted towards lower bits by ``k`` (1 to 63, a ``uint64``)."""
    r = U(64) - k
    return (
        (a[0] >> k) | (a[1] << r),
        (a[1] >> k) | (a[2] << r),
        (a[2] >> k) | (a[3] << r),
        (a[3] >> k) | (a[4] << r),
        (a[4] >> k) | (a[5] << r),
        a[5] >> k,
    )


@njit(cache=True)
def _next_to(a: Any, s: Any, mask: Any) -> Any:
    """The board points next to a point of ``a`` (``s``: the stride; ``mask``: the
    board). The guard bit after each row catches what a shift by one carries over."""
    one = U(1)
    return _and(_or(_or(_up(a, one), _down(a, one)), _or(_up(a, s), _down(a, s))), mask)


@njit(cache=True)
def _single(i: int) -> Any:
    """The bitboard of bit ``i`` alone."""
    w = i >> 6
    b = U(1) << U(i & 63)
    z = U(0)
    return (b if w == 0 else z, b if w == 1 else z, b if w == 2 else z,
            b if w == 3 else z, b if w == 4 else z, b if w == 5 else z)  # fmt: skip


@njit(cache=True)
def _has(a: Any, i: int) -> bool:
    if i < 0 or i >= BITS:
        return False
    return (a[i >> 6] >> U(i & 63)) & U(1) != U(0)


@njit(cache=True)
def _first(a: Any) -> Any:
    """The lowest bit set in ``a`` (``a`` is not empty)."""
    for w in range(WORDS):
        if a[w] != U(0):
            return w * 64 + np.int64(ctz64(a[w]))
    return np.int64(NO_KO)


@njit(cache=True)
def _mask(ctx: Any) -> Any:
    return (U(ctx[C_MASK]), U(ctx[C_MASK + 1]), U(ctx[C_MASK + 2]), U(ctx[C_MASK + 3]),
            U(ctx[C_MASK + 4]), U(ctx[C_MASK + 5]))  # fmt: skip


@njit(cache=True)
def _banned(ctx: Any) -> Any:
    return (U(ctx[C_BANNED]), U(ctx[C_BANNED + 1]), U(ctx[C_BANNED + 2]),
            U(ctx[C_BANNED + 3]), U(ctx[C_BANNED + 4]), U(ctx[C_BANNED + 5]))  # fmt: skip


@njit(cache=True)
def _chain(stones: Any, i: int, libs: Any, s: Any, mask: Any) -> tuple[Any, bool]:
    """The chain of ``stones`` through bit ``i`` and whether it has a liberty in
    ``libs``: grown a ring at a time, it stops at the first liberty it meets (then the
    chain is only part of it)."""
    g = _single(i)
    while True:
        n = _next_to(g, s, mask)
        if _any(_and(n, libs)):
            return g, True
        g2 = _or(g, _and(n, stones))
        if _same(g2, g):
            return g, False
        g = g2


@njit(cache=True)
def _fill(seed: Any, through: Any, s: Any, mask: Any) -> Any:
    """``seed`` and every point of ``through`` connected to it through ``through``."""
    r = seed
    while True:
        r2 = _or(r, _and(_next_to(r, s, mask), through))
        if _same(r2, r):
            return r
        r = r2


@njit(cache=True)
def _point_key(i: int, color: int) -> int:
    return mix64((i * 4 + color) * GOLDEN + _ZSALT)


@njit(cache=True)
def _xor_keys(a: Any, color: int) -> int:
    """The Zobrist keys of the stones ``a`` of ``color``, XORed."""
    h = 0
    for w in range(WORDS):
        x = a[w]
        while x != U(0):
            b = np.int64(ctz64(x))
            h ^= _point_key(w * 64 + b, color)
            x &= x - U(1)
    return h


@njit(cache=True)
def _pack(p: Any, o: Any, ko: int, passes: int, turn: int, h: int) -> Any:
    return (p[0], p[1], p[2], p[3], p[4], p[5], o[0], o[1], o[2], o[3], o[4], o[5],
            np.int64(ko), np.int64(passes), np.int64(turn), np.int64(h))  # fmt: skip


@njit(cache=True)
def _sides(st: Any) -> tuple[Any, Any]:
    return (st[0], st[1], st[2], st[3], st[4], st[5]), (st[6], st[7], st[8], st[9], st[10],
                                                         st[11])  # fmt: skip


# --------------------------------------------------------------------------- moves


@njit(cache=True)
def _take(o: Any, i: int, empty: Any, seen: Any, taken: Any, s: Any,
          mask: Any) -> tuple[Any, Any]:  # fmt: skip
    """(``seen``, ``taken``) with the opponent's chain through bit ``i`` looked at, and
    taken if it has no liberty in ``empty``."""
    if not _has(o, i) or _has(seen, i):
        return seen, taken
    g, free = _chain(o, i, empty, s, mask)
    if free:
        return _or(seen, g), taken
    return _or(seen, g), _or(taken, g)


@njit(cache=True)
def _captures(p: Any, o: Any, b: int, s: Any, si: int, mask: Any) -> Any:
    """The opponent's stones a stone of the mover on bit ``b`` takes off the board."""
    stone = _single(b)
    empty = _andnot(mask, _or(_or(p, o), stone))
    seen = _zero()
    taken = _zero()
    seen, taken = _take(o, b - 1, empty, seen, taken, s, mask)
    seen, taken = _take(o, b + 1, empty, seen, taken, s, mask)
    seen, taken = _take(o, b - si, empty, seen, taken, s, mask)
    seen, taken = _take(o, b + si, empty, seen, taken, s, mask)
    return taken


@kernel
def _play(ctx: Any, st: Any, m: int) -> Any:
    p, o = _sides(st)
    turn = st[S_TURN]
    h = st[S_HASH]
    if m == K.PASS:
        return _pack(o, p, NO_KO, st[S_PASSES] + 1, 3 - turn, h)
    si = ctx[C_STRIDE]
    s = U(si)
    mask = _mask(ctx)
    b = ctx[C_P2B + m]
    stone = _single(b)
    taken = _captures(p, o, b, s, si, mask)
    p2 = _or(p, stone)
    o2 = _andnot(o, taken)
    h ^= _point_key(b, turn)
    ko = NO_KO
    if _any(taken):
        h ^= _xor_keys(taken, 3 - turn)
        empty = _andnot(mask, _or(p2, o2))
        around = _next_to(stone, s, mask)
        if (_count(taken) == 1 and not _any(_and(around, p))
                and _count(_and(around, empty)) == 1):  # fmt: skip
            ko = _first(taken)
    else:
        empty = _andnot(mask, _or(p2, o))
        g, free = _chain(p2, b, empty, s, mask)
        if not free:  # an allowed suicide: the mover's chain leaves the board
            g = _fill(stone, p2, s, mask)
            h ^= _xor_keys(g, turn)
            p2 = _andnot(p2, g)
    return _pack(o2, p2, ko, 0, 3 - turn, h)


@njit(cache=True)
def _hard_move(p: Any, o: Any, b: int, s: Any, si: int, mask: Any, suicide: bool) -> int:
    """What a stone of the mover does on bit ``b``, an empty point with no empty
    neighbour: 2 it captures, 1 it is legal and captures nothing, 0 it is illegal
    (suicide)."""
    if _any(_captures(p, o, b, s, si, mask)):
        return 2
    stone = _single(b)
    friends = _and(_next_to(stone, s, mask), p)
    if not _any(friends):
        return 0  # a lone stone without a liberty: never legal
    p2 = _or(p, stone)
    empty = _andnot(mask, _or(p2, o))
    g, free = _chain(p2, b, empty, s, mask)
    if free or suicide:
        return 1
    return 0


@njit(cache=True)
def _write(ctx: Any, a: Any, buf: Any, n: int) -> int:
    """Append the point numbers of the bits of ``a`` to ``buf[n:]``; the new count."""
    for w in range(WORDS):
        x = a[w]
        while x != U(0):
            b = w * 64 + np.int64(ctz64(x))
            buf[n] = ctx[C_B2P + b]
            n += 1
            x &= x - U(1)
    return n


@kernel
def _key(ctx: Any, st: Any) -> int:
    k = st[S_HASH]
    if st[S_TURN] == K.WHITE:
        k ^= _TURN_KEY
    if st[S_KO] >= 0:
        k ^= mix64(st[S_KO] * GOLDEN + _KO_SALT)
    if st[S_PASSES] > 0:
        k ^= mix64(st[S_PASSES] * GOLDEN + _PASS_SALT)
    return k


@kernel
def _gen_moves(ctx: Any, st: Any, buf: Any) -> int:
    if st[S_PASSES] >= 2:
        return 0
    p, o = _sides(st)
    si = ctx[C_STRIDE]
    s = U(si)
    mask = _mask(ctx)
    empty = _andnot(mask, _or(p, o))
    open_ = _and(empty, _next_to(empty, s, mask))  # a liberty of its own: always legal
    hard = _andnot(empty, open_)
    if st[S_KO] >= 0:
        ko = _single(st[S_KO])
        open_ = _andnot(open_, ko)
        hard = _andnot(hard, ko)
    if ctx[C_BAN] != 0 and _key(ctx, st) == ctx[C_BAN_KEY]:
        banned = _banned(ctx)
        open_ = _andnot(open_, banned)
        hard = _andnot(hard, banned)
    buf[0] = K.PASS  # first: see the module's note on the order
    n = 1
    capture = _zero()
    legal = _zero()  # the other legal points with no empty neighbour
    suicide = ctx[C_SUICIDE] != 0
    for w in range(WORDS):
        x = hard[w]
        while x != U(0):
            b = w * 64 + np.int64(ctz64(x))
            code = _hard_move(p, o, b, s, si, mask, suicide)
            if code == 2:
                capture = _or(capture, _single(b))
            elif code == 1:
                legal = _or(legal, _single(b))
            x &= x - U(1)
    n = _write(ctx, capture, buf, n)
    eyes = _andnot(legal, _next_to(o, s, mask))  # the mover's own stones all round
    near = _next_to(_or(p, o), s, mask)
    n = _write(ctx, _or(_and(open_, near), _andnot(legal, eyes)), buf, n)
    n = _write(ctx, _andnot(open_, near), buf, n)
    return _write(ctx, eyes, buf, n)


@kernel
def _gain(ctx: Any, st: Any, m: int) -> Any:
    if ctx[C_TERRITORY] == 0 or m == K.PASS:
        return np.int64(0)
    after = _play(ctx, st, m)
    p, o = _sides(st)
    p2, o2 = _sides(after)  # (the opponent is to move after the move)
    taken = _count(o) - _count(p2)
    lost = _count(p) + 1 - _count(o2)
    return 2 * (taken - lost)


# --------------------------------------------------------------------------- values


@njit(cache=True)
def _komi_for(ctx: Any, turn: int) -> int:
    """Komi and the handicap bonus for the side to move, in half points (white's are
    positive)."""
    return ctx[C_KOMI2] if turn == K.WHITE else -ctx[C_KOMI2]


@kernel
def _final(ctx: Any, st: Any) -> int:
    p, o = _sides(st)
    s = U(ctx[C_STRIDE])
    mask = _mask(ctx)
    empty = _andnot(mask, _or(p, o))
    reach_p = _fill(p, empty, s, mask)
    reach_o = _fill(o, empty, s, mask)
    mine = _count(_andnot(reach_p, reach_o)) - _count(p)  # the empty points only p reaches
    theirs = _count(_andnot(reach_o, reach_p)) - _count(o)
    v = mine - theirs
    if ctx[C_TERRITORY] == 0:
        v += _count(p) - _count(o)
    return 2 * v + _komi_for(ctx, st[S_TURN])


@kernel
def _evaluate(ctx: Any, st: Any) -> int:
    p, o = _sides(st)
    s = U(ctx[C_STRIDE])
    mask = _mask(ctx)
    free = _andnot(mask, _or(p, o))
    mine = p
    theirs = o
    for _ in range(REACH):
        a = _and(_next_to(mine, s, mask), free)
        b = _and(_next_to(theirs, s, mask), free)
        if not _any(_or(a, b)):
            break
        both = _and(a, b)
        mine = _or(mine, _andnot(a, both))
        theirs = _or(theirs, _andnot(b, both))
        free = _andnot(free, _or(a, b))
    v = _count(mine) - _count(theirs)
    if ctx[C_TERRITORY] != 0:
        v -= _count(p) - _count(o)
    return 2 * v + _komi_for(ctx, st[S_TURN])


@kernel
def _horizon(ctx: Any, st: Any) -> int:
    return st[S_PASSES] - st[S_PASSES] - 1  # no bound (computed: no literal -1)


KERNELS = Kernels(
    gen_moves=_gen_moves,
    play=_play,
    gain=_gain,
    evaluate=_evaluate,
    final=_final,
    key=_key,
    horizon=_horizon,
    max_moves=MAX_MOVES,
    max_plies=3 * MAX_MOVES,
    move_limit=MOVE_LIMIT,
    amaf=True,
    pass_move=K.PASS,
)


# --------------------------------------------------------------------------- from Python


@functools.cache
def _base_context(size: int, komi2: int, territory: bool, suicide: bool) -> npt.NDArray[np.int64]:
    if not K.MIN_SIZE <= size <= K.MAX_SIZE:
        raise ValueError(f"board size {size} is not supported: expected 5 to 19")
    ctx = np.zeros(CTX_LEN, dtype=np.int64)
    ctx[C_SIZE] = size
    ctx[C_STRIDE] = size + 1
    ctx[C_KOMI2] = komi2
    ctx[C_TERRITORY] = int(territory)
    ctx[C_SUICIDE] = int(suicide)
    ctx[C_B2P : C_B2P + BITS] = -1
    ctx[C_P2B : C_P2B + MOVE_LIMIT] = -1
    words = [0] * WORDS
    for r in range(size):
        for c in range(size):
            b = r * (size + 1) + c
            p = (r + 1) * (size + 2) + c + 1
            words[b >> 6] |= 1 << (b & 63)
            ctx[C_B2P + b] = p
            ctx[C_P2B + p] = b
    for w in range(WORDS):
        ctx[C_MASK + w] = np.array(words[w], dtype=np.uint64).view(np.int64)
    return ctx  # (writable: numba types a read-only array apart, and would compile twice)


def context(board: Board) -> npt.NDArray[np.int64]:
    """The ``ctx`` of ``board``'s rules (the same array for the same size and rules, so
    a search's table carries over from one move to the next), before any root ban."""
    rules = board.rules
    komi2 = round(2 * (rules.komi + rules.handicap_bonus(board.handicap)))
    return _base_context(board.size, komi2, rules.scoring == "territory", rules.suicide)


@njit(cache=True)
def _state(ctx: Any, grid: Any, turn: int, ko_point: int, passes: int) -> Any:
    """The search state of a padded colour grid (:mod:`.kernels`' layout)."""
    words = np.zeros(2 * WORDS, dtype=np.uint64)
    h = 0
    n = ctx[C_SIZE]
    for r in range(n):
        for c in range(n):
            pt = (r + 1) * (n + 2) + c + 1
            v = grid[pt]
            if v == K.BLACK or v == K.WHITE:
                b = ctx[C_P2B + pt]
                side = 0 if v == turn else WORDS
                words[side + (b >> 6)] |= U(1) << U(b & 63)
                h ^= _point_key(b, v)
    ko = NO_KO if ko_point <= 0 else ctx[C_P2B + ko_point]
    p = (words[0], words[1], words[2], words[3], words[4], words[5])
    o = (words[6], words[7], words[8], words[9], words[10], words[11])
    return _pack(p, o, ko, min(passes, 2), turn, h)


def state_of(board: Board | Game) -> tuple[Any, ...]:
    """The search state of a board (or a game record's board), without the root's ban."""
    from banmen.games.go.game import board_of

    b = board_of(board)
    meta = b.position.meta
    ctx = context(b)
    return _typed(_state(ctx, b.position.board, b.turn, int(meta[K.M_KO]), int(meta[K.M_PASSES])))


def _typed(st: Any) -> tuple[Any, ...]:
    """A state as numba hands it back (Python ints), typed again: twelve ``uint64``
    words and four ``int64`` (the one tuple type the search is compiled for)."""
    words = tuple(np.uint64(x) for x in st[:S_KO])
    return words + tuple(np.int64(x) for x in st[S_KO:])


@njit(cache=True)
def _moves(ctx: Any, st: Any, buf: Any) -> int:
    return _gen_moves(ctx, st, buf)


def _kernel_moves(ctx: npt.NDArray[np.int64], st: tuple[Any, ...]) -> list[int]:
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    n = _moves(ctx, st, buf)
    return [int(m) for m in buf[:n]]


def search_position(board: Board | Game) -> tuple[npt.NDArray[np.int64], tuple[Any, ...]]:
    """``(ctx, state)`` of a board or game record for the search (module docstring):
    the moves of the kernels that the board refuses here (superko) are banned at this
    root, so the search never plays one."""
    from banmen.games.go.game import board_of

    b = board_of(board)
    ctx = context(b)
    st = state_of(b)
    if b.rules.superko and not b.is_game_over():
        refused = set(_kernel_moves(ctx, st)) - set(b.legal_moves)
        if refused:
            ctx = ctx.copy()
            ctx[C_BAN] = 1
            ctx[C_BAN_KEY] = int(_key(ctx, st))
            words = [0] * WORDS
            for m in refused:
                bit = int(ctx[C_P2B + m])
                words[bit >> 6] |= 1 << (bit & 63)
            for w in range(WORDS):
                ctx[C_BANNED + w] = np.array(words[w], dtype=np.uint64).view(np.int64)
    return ctx, st


def search_moves(board: Board | Game) -> list[int]:
    """The moves the search generates at ``board`` (its root), in its order."""
    return _kernel_moves(*search_position(board))


def score_offset(board: Board | Game) -> int:
    """What the search's values leave out, from the side to move's view, in half points:
    under territory scoring the prisoners taken so far (twice the mover's less twice
    the opponent's); under area scoring nothing."""
    from banmen.games.go.game import board_of

    b = board_of(board)
    if b.rules.scoring != "territory":
        return 0
    mine, theirs = b.captures(b.turn), b.captures(3 - b.turn)
    return 2 * (mine - theirs)


def play_state(ctx: npt.NDArray[np.int64], st: tuple[Any, ...], move: int) -> tuple[Any, ...]:
    """The state after ``move`` (the compiled ``play``)."""
    return _typed(_play(ctx, st, np.int64(move)))


def final_value(board: Board | Game) -> int:
    """The compiled ``final`` of ``board``'s position (meaningful once the game is
    over): the count with every stone alive, in half points, for the side to move."""
    ctx, st = search_position(board)
    return int(_final(ctx, st))


def evaluate_value(board: Board | Game) -> int:
    """The compiled ``evaluate`` of ``board``'s position, in half points."""
    ctx, st = search_position(board)
    return int(_evaluate(ctx, st))
