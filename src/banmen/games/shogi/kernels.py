"""Compiled shogi rules: move generation, checks, mate in one, and the kernels df-pn calls.

Position layout
---------------
A position is ONE ``np.int64`` array ``st`` of :data:`ST_LEN` words:

``st[0:81]``
    the piece on each square, cshogi's codes (0 empty, ``type + 16 * colour``, types
    PAWN 1 .. ROOK 6, GOLD 7, KING 8, promoted pieces ``type + 8``). Squares are
    ``file * 9 + rank`` (file 0 = USI file '1', rank 0 = 'a'), as in cshogi.
``st[OCC + 2 * colour + w]``
    occupancy bitboards per colour, ``st[PT + 2 * type + w]`` per piece type (both
    colours). A bitboard is two words: squares 0..62 (files 1-7) are bits 0..62 of word
    0, squares 63..80 (files 8-9) bits 0..17 of word 1, so a file never straddles the two
    words and a file mask is one word.
``KSQ + colour``, ``HAND + colour``
    king squares; hands, byte ``i`` = count of hand piece ``i`` (P L N S G B R).
``STM``, ``ATK``
    side to move; the attacker (the side to move when the array was built).
``KEY``, ``HKEY``
    Zobrist key of board + side to move (no hands), and an additive key of both hands.
``PLY``, ``STACK``
    the undo stack: one word per ply, ``move16 | captured_piece << 16``. Undo zeroes the
    word it pops, so play + undo restores ``st`` bit for bit.
``SCRATCH``
    move lists of the kernels that take no buffer (``mate_in_1``, "any legal move?").

A king may be missing (a tsume attacker often has none): then nothing checks it, nothing
is pinned to it and it has no moves.

The read-only ``ctx`` (:data:`CTX`) holds the geometry, ray bitboards and Zobrist tables,
so no kernel bakes a large global array into its code. Sliding attacks find the nearest
piece on a ray as the lowest or highest set bit of ``ray & occupancy``.

Checked against cshogi (tests/test_shogi_kernel.py). Where they differ, on purpose:
``gen_checks`` is exactly the legal moves after which the opponent is in check; cshogi's
``check_moves`` is the same set except that it also yields moves "checking" a king that is
not on the board (tsume positions without an attacker king). ``mate_in_1`` is exact (every
check is tried), where cshogi's ``mate_move_in_1ply`` may miss mates.

Moves are cshogi's 16-bit moves: ``to | from << 7 | promote << 14``; a drop has
``from = 80 + piece type`` (P 81, L 82, N 83, S 84, B 85, R 86, G 87 — cshogi's order,
which is not the hand's byte order P L N S G B R). The generator includes every legal
non-promotion (as cshogi's ``legal_moves`` does) except those leaving a piece that could
never move.
"""

# numba types these functions; mypy sees numba's untyped decorators and int64 scalars.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call, call-overload"
# mypy: disable-error-code="arg-type, return-value, assignment"

from __future__ import annotations

from typing import Any

import cshogi
import numpy as np
import numpy.typing as npt

from banmen._bits import clz64, ctz64
from banmen._jit import kernel, njit

__all__ = [
    "CTX",
    "MAX_MOVES",
    "ST_LEN",
    "and_need",
    "from_board",
    "from_sfen",
    "futile_replies",
    "gen_checks",
    "gen_legal",
    "group",
    "hand",
    "hand_delta",
    "hand_of",
    "in_check",
    "key",
    "mate_in_1",
    "outcome",
    "perft",
    "play",
    "quick_win",
    "side_to_move",
    "to_sfen",
    "undo",
]

MAX_MOVES = 600  # the most legal moves a shogi position has is 593
MAX_PLY = 4096

# --- st layout
OCC = 81  # 2 colours x 2 words
PT = 85  # 15 types x 2 words (type 0 unused)
KSQ = 115
HAND = 117
STM = 119
ATK = 120
KEY = 121
HKEY = 122
PLY = 123
STACK = 128
SCRATCH = STACK + MAX_PLY  # MAX_MOVES words for mate_in_1's checks
SCRATCH2 = SCRATCH + MAX_MOVES  # one piece's moves for "has a legal move"
ST_LEN = SCRATCH2 + 40

# --- piece types (cshogi's)
PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING = 1, 2, 3, 4, 5, 6, 7, 8
PROMOTE = 8

# --- ctx layout
C_NB = 0  # 81 x 8: neighbour in absolute direction d, or -1
C_KN = C_NB + 81 * 8  # 81 x 4: knight targets, black's two then white's two, or -1
C_STEP = C_KN + 81 * 4  # 32: per piece code, the absolute directions it steps in (bits)
C_SLIDE = C_STEP + 32  # 32: per piece code, the absolute directions it slides in (bits)
C_ZP = C_SLIDE + 32  # 32 x 81 Zobrist numbers per piece code and square
C_ZSIDE = C_ZP + 32 * 81  # white to move
C_ZH = C_ZSIDE + 1  # 2 x 8 per hand piece (additive: count x number)
C_DIR = C_ZH + 16  # 81 x 81: direction from square a to square b if on a line, else -1
C_HIDX = C_DIR + 81 * 81  # 16: piece type -> hand index (unpromoted)
C_HTYPE = C_HIDX + 16  # 8: hand index -> piece type
C_RAY = C_HTYPE + 8  # 81 x 8 x 2: bitboard of the squares from sq in direction d (sq excluded)
# 2 x 8, per colour and direction d from the enemy king: the hand pieces (bits by hand
# index) that check when dropped next to it that way (ADJ), or further along (FAR)
C_DADJ = C_RAY + 81 * 8 * 2
C_DFAR = C_DADJ + 16
CTX_LEN = C_DFAR + 16

# Directions as (file delta, rank delta); black moves towards rank 0. Opposite of d is 7 - d,
# and the board turned for white maps d to 7 - d too.
_DIRS = ((0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1), (0, 1))
_ALL = 0xFF
_ORTH = (1 << 0) | (1 << 3) | (1 << 4) | (1 << 7)
_DIAG = (1 << 1) | (1 << 2) | (1 << 5) | (1 << 6)
_GOLDS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 7)
_SILVERS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5) | (1 << 6)
# black's step and slide directions per piece type
_STEP_B = {1: 1, 4: _SILVERS, 7: _GOLDS, 8: _ALL, 9: _GOLDS, 10: _GOLDS, 11: _GOLDS}
_STEP_B |= {12: _GOLDS, 13: _ORTH, 14: _DIAG}
_SLIDE_B = {2: 1, 5: _DIAG, 6: _ORTH, 13: _DIAG, 14: _ORTH}
_HIDX = {1: 0, 2: 1, 3: 2, 4: 3, 7: 4, 5: 5, 6: 6}
_ZOBRIST_SEED = 20261124


def _flip(mask: int) -> int:
    return sum(1 << (7 - d) for d in range(8) if mask >> d & 1)


def _make_ctx() -> npt.NDArray[np.int64]:
    ctx = np.zeros(CTX_LEN, np.int64)
    for sq in range(81):
        f, r = divmod(sq, 9)
        for d, (df, dr) in enumerate(_DIRS):
            g, s = f + df, r + dr
            ctx[C_NB + sq * 8 + d] = g * 9 + s if 0 <= g < 9 and 0 <= s < 9 else -1
        for i, (df, dr) in enumerate(((-1, -2), (1, -2), (-1, 2), (1, 2))):
            g, s = f + df, r + dr
            ctx[C_KN + sq * 4 + i] = g * 9 + s if 0 <= g < 9 and 0 <= s < 9 else -1
        for sq2 in range(81):
            g, s = divmod(sq2, 9)
            df, dr = g - f, s - r
            d = -1
            if sq2 != sq and (df == 0 or dr == 0 or abs(df) == abs(dr)):
                d = _DIRS.index(((df > 0) - (df < 0), (dr > 0) - (dr < 0)))
            ctx[C_DIR + sq * 81 + sq2] = d
    for t in range(1, 15):
        ctx[C_STEP + t] = _STEP_B.get(t, 0)
        ctx[C_SLIDE + t] = _SLIDE_B.get(t, 0)
        ctx[C_STEP + 16 + t] = _flip(_STEP_B.get(t, 0))
        ctx[C_SLIDE + 16 + t] = _flip(_SLIDE_B.get(t, 0))
    for sq in range(81):
        for d in range(8):
            t = int(ctx[C_NB + sq * 8 + d])
            while t >= 0:
                ctx[C_RAY + (sq * 8 + d) * 2 + (t >= 63)] |= 1 << (t - 63 if t >= 63 else t)
                t = int(ctx[C_NB + t * 8 + d])
    for c in range(2):
        for d in range(8):
            back = 1 << (7 - d)
            for t, i in _HIDX.items():
                pc = t + 16 * c
                if (ctx[C_STEP + pc] | ctx[C_SLIDE + pc]) & back:
                    ctx[C_DADJ + 8 * c + d] |= 1 << i
                if ctx[C_SLIDE + pc] & back:
                    ctx[C_DFAR + 8 * c + d] |= 1 << i
    rng = np.random.default_rng(_ZOBRIST_SEED)
    z = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 32 * 81 + 1 + 16, np.int64)
    ctx[C_ZP : C_ZP + 32 * 81 + 1 + 16] = z
    for t in range(16):
        ctx[C_HIDX + t] = _HIDX.get(t if t <= 8 else t - 8, -1) if t else -1
    for t, i in _HIDX.items():
        ctx[C_HTYPE + i] = t
    return ctx


#: The constant tables every kernel reads (geometry, Zobrist numbers).
CTX: npt.NDArray[np.int64] = _make_ctx()


# ----------------------------------------------------------------------------- helpers


@njit(cache=True)
def _bb_xor(st: Any, off: int, sq: int) -> None:
    if sq < 63:
        st[off] ^= np.int64(1) << sq
    else:
        st[off + 1] ^= np.int64(1) << (sq - 63)


@njit(cache=True)
def _bit(lo: int, hi: int, sq: int) -> bool:
    if sq < 63:
        return (lo >> sq) & 1 != 0
    return (hi >> (sq - 63)) & 1 != 0


@njit(cache=True)
def _put(ctx: Any, st: Any, sq: int, p: int) -> None:
    """Put piece ``p`` on the empty square ``sq`` (or take it off: the same XORs)."""
    _bb_xor(st, OCC + 2 * (p >> 4), sq)
    _bb_xor(st, PT + 2 * (p & 15), sq)
    st[KEY] ^= ctx[C_ZP + p * 81 + sq]


# Directions 2, 4, 6, 7 increase the square number (its nearest square on a ray is the
# lowest bit, word 0 first); directions 0, 1, 3, 5 decrease it (highest bit, word 1 first).
_UP = (1 << 2) | (1 << 4) | (1 << 6) | (1 << 7)


@njit(cache=True)
def _nearest(ctx: Any, d: int, sq: int, olo: int, ohi: int) -> int:
    """The first occupied square from ``sq`` in direction ``d`` (occupancy olo/ohi), or -1."""
    base = C_RAY + (sq * 8 + d) * 2
    lo = ctx[base] & olo
    hi = ctx[base + 1] & ohi
    if (_UP >> d) & 1:
        if lo != 0:
            return np.int64(ctz64(np.uint64(lo)))
        if hi != 0:
            return np.int64(ctz64(np.uint64(hi))) + 63
        return -1
    if hi != 0:
        return 126 - np.int64(clz64(np.uint64(hi)))
    if lo != 0:
        return 63 - np.int64(clz64(np.uint64(lo)))
    return -1


@njit(cache=True)
def _attacked(ctx: Any, st: Any, sq: int, c: int, ignore: int) -> bool:
    """Is ``sq`` attacked by colour ``c``, with square ``ignore`` seen as empty?"""
    olo = st[OCC] | st[OCC + 2]
    ohi = st[OCC + 1] | st[OCC + 3]
    if ignore >= 0:
        if ignore < 63:
            olo &= ~(np.int64(1) << ignore)
        else:
            ohi &= ~(np.int64(1) << (ignore - 63))
    for d in range(8):
        s = _nearest(ctx, d, sq, olo, ohi)
        if s < 0:
            continue
        p = st[s]
        if (p >> 4) != c:
            continue
        back = 1 << (7 - d)
        if ctx[C_NB + sq * 8 + d] == s:
            if ((ctx[C_STEP + p] | ctx[C_SLIDE + p]) & back) != 0:
                return True
        elif (ctx[C_SLIDE + p] & back) != 0:
            return True
    kn = KNIGHT + 16 * c
    base = C_KN + sq * 4 + 2 * (1 - c)
    s = ctx[base]
    if s >= 0 and st[s] == kn:
        return True
    s = ctx[base + 1]
    return s >= 0 and st[s] == kn


@njit(cache=True)
def _file_has_pawn(st: Any, c: int, f: int) -> bool:
    """Has colour ``c`` an unpromoted pawn on file ``f`` (a file is 9 bits of one word)?"""
    w = 0 if f < 7 else 1
    mask = np.int64(0x1FF) << (9 * (f - 7 * w))
    return (st[PT + 2 * PAWN + w] & st[OCC + 2 * c + w] & mask) != 0


@njit(cache=True)
def _has_reply_to_pawn_check(ctx: Any, st: Any, ps: int) -> bool:
    """The side to move is in check by the pawn just dropped on ``ps`` (a drop gives no
    discovered check, so that is the only check): has it a legal reply? Replies are king
    moves and captures of the pawn; no drop or interposition can answer an adjacent check.
    """
    us = st[STM]
    them = 1 - us
    k = st[KSQ + us]
    for d in range(8):
        t = ctx[C_NB + k * 8 + d]
        if t < 0:
            continue
        p = st[t]
        if p != 0 and (p >> 4) == us:
            continue
        if not _attacked(ctx, st, t, them, k):
            return True
    # captures of the pawn by a piece other than the king: legal unless that exposes the king
    for d in range(8):
        back = 1 << (7 - d)
        s = ctx[C_NB + ps * 8 + d]
        first = True
        while s >= 0:
            p = st[s]
            if p != 0:
                if (p >> 4) == us and (p & 15) != KING:
                    m = (ps | (s << 7)) & 0xFFFF
                    if first:
                        ok = ((ctx[C_STEP + p] | ctx[C_SLIDE + p]) & back) != 0
                    else:
                        ok = (ctx[C_SLIDE + p] & back) != 0
                    if ok:
                        _play(ctx, st, m)
                        safe = not _attacked(ctx, st, k, them, -1)
                        _undo(ctx, st)
                        if safe:
                            return True
                break
            first = False
            s = ctx[C_NB + s * 8 + d]
    kn = KNIGHT + 16 * us
    for j in range(2):
        s = ctx[C_KN + ps * 4 + 2 * (1 - us) + j]
        if s >= 0 and st[s] == kn:
            _play(ctx, st, (ps | (s << 7)) & 0xFFFF)
            safe = not _attacked(ctx, st, k, them, -1)
            _undo(ctx, st)
            if safe:
                return True
    return False


# ----------------------------------------------------------------------------- play / undo


@njit(cache=True)
def _play(ctx: Any, st: Any, m: int) -> None:
    us = st[STM]
    to = m & 127
    fr = (m >> 7) & 127
    cap = 0
    if fr >= 81:
        p = fr - 80 + 16 * us
        hi = ctx[C_HIDX + fr - 80]
        st[to] = p
        _put(ctx, st, to, p)
        st[HAND + us] -= np.int64(1) << (8 * hi)
        st[HKEY] -= ctx[C_ZH + 8 * us + hi]
    else:
        p = st[fr]
        cap = st[to]
        if cap != 0:
            _put(ctx, st, to, cap)
            hi = ctx[C_HIDX + (cap & 15)]
            st[HAND + us] += np.int64(1) << (8 * hi)
            st[HKEY] += ctx[C_ZH + 8 * us + hi]
        _put(ctx, st, fr, p)
        st[fr] = 0
        if (m >> 14) & 1:
            p += PROMOTE
        st[to] = p
        _put(ctx, st, to, p)
        if (p & 15) == KING:
            st[KSQ + us] = to
    st[STM] = 1 - us
    st[KEY] ^= ctx[C_ZSIDE]
    ply = st[PLY]
    st[STACK + ply] = (m & 0xFFFF) | (cap << 16)
    st[PLY] = ply + 1


@njit(cache=True)
def _undo(ctx: Any, st: Any) -> None:
    ply = st[PLY] - 1
    st[PLY] = ply
    e = st[STACK + ply]
    st[STACK + ply] = 0
    st[KEY] ^= ctx[C_ZSIDE]
    us = 1 - st[STM]
    st[STM] = us
    m = e & 0xFFFF
    cap = e >> 16
    to = m & 127
    fr = (m >> 7) & 127
    p = st[to]
    _put(ctx, st, to, p)
    if fr >= 81:
        hi = ctx[C_HIDX + fr - 80]
        st[to] = 0
        st[HAND + us] += np.int64(1) << (8 * hi)
        st[HKEY] += ctx[C_ZH + 8 * us + hi]
        return
    st[to] = cap
    if cap != 0:
        _put(ctx, st, to, cap)
        hi = ctx[C_HIDX + (cap & 15)]
        st[HAND + us] -= np.int64(1) << (8 * hi)
        st[HKEY] -= ctx[C_ZH + 8 * us + hi]
    if (m >> 14) & 1:
        p -= PROMOTE
    st[fr] = p
    _put(ctx, st, fr, p)
    if (p & 15) == KING:
        st[KSQ + us] = fr


# ----------------------------------------------------------------------------- generation


@njit(cache=True)
def _emit(out: Any, n: int, p: int, fr: int, to: int, us: int) -> int:
    """Append the moves of piece ``p`` from ``fr`` to ``to``: promoting where it may, not
    promoting unless the piece could never move again."""
    t = p & 15
    m = to | (fr << 7)
    if t > 6 or t == GOLD:
        out[n] = m
        return n + 1
    rt = to % 9 if us == 0 else 8 - to % 9  # rank seen from the mover
    rf = fr % 9 if us == 0 else 8 - fr % 9
    if rt <= 2 or rf <= 2:
        out[n] = m | (1 << 14)
        n += 1
        if (t == PAWN or t == LANCE) and rt == 0:
            return n
        if t == KNIGHT and rt <= 1:
            return n
    out[n] = m
    return n + 1


@njit(cache=True)
def _gen(ctx: Any, st: Any, out: Any, base: int, limit: int, checks: int) -> int:
    """Legal moves of the side to move into ``out[base:]`` (only those giving check if
    ``checks``); stops once ``limit`` are in (it may write up to one piece's moves past).
    Returns how many."""
    us = st[STM]
    them = 1 - us
    k = st[KSQ + us]
    n = base
    end = base + limit
    # checkers, the squares that answer a single check (mask), pinned pieces
    nchk = 0
    mlo = np.int64(0)
    mhi = np.int64(0)
    plo = np.int64(0)
    phi = np.int64(0)
    if k >= 0:  # a tsume attacker may have no king
        olo = st[OCC] | st[OCC + 2]
        ohi = st[OCC + 1] | st[OCC + 3]
        for d in range(8):
            s = _nearest(ctx, d, k, olo, ohi)
            if s < 0:
                continue
            back = 1 << (7 - d)
            p = st[s]
            if (p >> 4) == them:
                if ctx[C_NB + k * 8 + d] == s:
                    hit = ((ctx[C_STEP + p] | ctx[C_SLIDE + p]) & back) != 0
                else:
                    hit = (ctx[C_SLIDE + p] & back) != 0
                if hit:
                    nchk += 1
                    # the checker and the squares between: the ray from k minus the ray past s
                    rk = C_RAY + (k * 8 + d) * 2
                    rs = C_RAY + (s * 8 + d) * 2
                    mlo |= ctx[rk] & ~ctx[rs]
                    mhi |= ctx[rk + 1] & ~ctx[rs + 1]
            else:
                # own piece: pinned if the next piece along is an enemy slider this way
                s2 = _nearest(ctx, d, s, olo, ohi)
                if s2 >= 0:
                    q = st[s2]
                    if (q >> 4) == them and (ctx[C_SLIDE + q] & back) != 0:
                        if s < 63:
                            plo |= np.int64(1) << s
                        else:
                            phi |= np.int64(1) << (s - 63)
        kn = KNIGHT + 16 * them
        for j in range(2):
            s = ctx[C_KN + k * 4 + 2 * us + j]
            if s >= 0 and st[s] == kn:
                nchk += 1
                if s < 63:
                    mlo |= np.int64(1) << s
                else:
                    mhi |= np.int64(1) << (s - 63)
    if nchk == 0:
        mlo = np.int64(-1)
        mhi = np.int64(-1)

    # with checks only: our pieces whose leaving the line to the enemy king uncovers
    # a slider of ours (discoverers); any other piece must land on a checking square
    ek = st[KSQ + them]
    xlo = np.int64(0)
    xhi = np.int64(0)
    ekf = 0
    ekr = 0
    if checks != 0:
        if ek < 0:
            return 0
        olo = st[OCC] | st[OCC + 2]
        ohi = st[OCC + 1] | st[OCC + 3]
        for d in range(8):
            s = _nearest(ctx, d, ek, olo, ohi)
            if s < 0 or (st[s] >> 4) != us:
                continue
            s2 = _nearest(ctx, d, s, olo, ohi)
            if s2 >= 0:
                q = st[s2]
                if (q >> 4) == us and (ctx[C_SLIDE + q] & (1 << (7 - d))) != 0:
                    if s < 63:
                        xlo |= np.int64(1) << s
                    else:
                        xhi |= np.int64(1) << (s - 63)
        ekf = ek // 9
        ekr = ek % 9

    # king moves (with checks only, just a discovering king's)
    if k >= 0 and (checks == 0 or _bit(xlo, xhi, k)):
        for d in range(8):
            t = ctx[C_NB + k * 8 + d]
            if t < 0:
                continue
            p = st[t]
            if p != 0 and (p >> 4) == us:
                continue
            if not _attacked(ctx, st, t, them, k):
                m = t | (k << 7)
                if checks == 0 or _gives_check(ctx, st, m):
                    out[n] = m
                    n += 1
                    if n >= end:
                        return n - base
    if nchk >= 2:
        return n - base

    if nchk == 1:
        # evasions: for each square that answers the check (the checker's, those between),
        # the pieces that reach it, found by looking back from it
        for w in range(2):
            bb = mlo if w == 0 else mhi
            if w == 0:
                bb &= np.int64(0x7FFFFFFFFFFFFFFF)
            else:
                bb &= np.int64(0x3FFFF)
            while bb != 0:
                t = np.int64(ctz64(np.uint64(bb))) + 63 * w
                bb &= bb - 1
                n0 = n
                n = _to_square(ctx, st, out, n, t, us, k, plo, phi)
                if checks != 0:
                    n = _keep_checks(ctx, st, out, n0, n)
                if n >= end:
                    return n - base
    else:
        for w in range(2):
            bb = st[OCC + 2 * us + w]
            while bb != 0:
                fr = np.int64(ctz64(np.uint64(bb))) + 63 * w
                bb &= bb - 1
                p = st[fr]
                t = p & 15
                if t == KING:
                    continue
                if checks != 0 and not _bit(xlo, xhi, fr):
                    # a stepping piece (promoted or not) checks from next to the king (a
                    # knight from two away), so it must start within 4 of it; a lance
                    # stays on its file, where only its promoted form steps sideways
                    df = abs(fr // 9 - ekf)
                    if t == LANCE:
                        if df > 1:
                            continue
                    elif t != BISHOP and t != ROOK and t < 13:
                        if df > 4 or abs(fr % 9 - ekr) > 4:
                            continue
                pinned = _bit(plo, phi, fr)
                pdir = ctx[C_DIR + k * 81 + fr] if pinned else -1
                steps = ctx[C_STEP + p]
                slides = ctx[C_SLIDE + p]
                direct = 1 if checks != 0 and not _bit(xlo, xhi, fr) else 0
                n0 = n
                for d in range(8):
                    bitd = 1 << d
                    if (steps | slides) & bitd == 0:
                        continue
                    if pinned and ctx[C_DIR + k * 81 + ctx[C_NB + fr * 8 + d]] != pdir:
                        continue
                    t = ctx[C_NB + fr * 8 + d]
                    while t >= 0:
                        q = st[t]
                        if q != 0 and (q >> 4) == us:
                            break
                        # with checks only, a piece that uncovers nothing must check
                        # directly: from a square on a line with the king
                        if direct == 0 or ctx[C_DIR + t * 81 + ek] >= 0:
                            n = _emit(out, n, p, fr, t, us)
                        if q != 0 or (slides & bitd) == 0:
                            break
                        t = ctx[C_NB + t * 8 + d]
                if (p & 15) == KNIGHT and not pinned:  # a pinned knight never stays on line
                    for j in range(2):
                        t = ctx[C_KN + fr * 4 + 2 * us + j]
                        if t < 0:
                            continue
                        q = st[t]
                        if q != 0 and (q >> 4) == us:
                            continue
                        n = _emit(out, n, p, fr, t, us)
                if checks != 0:
                    n = _keep_checks(ctx, st, out, n0, n)
                if n >= end:
                    return n - base

    # drops
    h = st[HAND + us]
    if h == 0:
        return n - base
    if checks != 0:
        # only on the squares from which the dropped piece attacks the enemy king
        if ek < 0:
            return n - base
        held = 0
        for hi in range(7):
            if (h >> (8 * hi)) & 0xFF != 0:
                held |= 1 << hi
        for d in range(8):
            adj = held & ctx[C_DADJ + 8 * us + d]
            far = held & ctx[C_DFAR + 8 * us + d]
            t = ctx[C_NB + ek * 8 + d]
            kinds = adj
            while t >= 0 and st[t] == 0:
                if _bit(mlo, mhi, t):
                    b = kinds
                    while b != 0:
                        hi = np.int64(ctz64(np.uint64(b)))
                        b &= b - 1
                        n = _drop(ctx, st, out, n, t, hi, us, ek)
                if far == 0:
                    break
                kinds = far
                t = ctx[C_NB + t * 8 + d]
        if (h >> 16) & 0xFF != 0:
            for j in range(2):
                t = ctx[C_KN + ek * 4 + 2 * them + j]
                if t >= 0 and st[t] == 0 and _bit(mlo, mhi, t):
                    n = _drop(ctx, st, out, n, t, 2, us, ek)
        return n - base
    for w in range(2):
        # empty squares; in check, only those between the king and a distant checker
        bb = ~(st[OCC + w] | st[OCC + 2 + w]) & (mlo if w == 0 else mhi)
        bb &= np.int64(0x7FFFFFFFFFFFFFFF) if w == 0 else np.int64(0x3FFFF)
        while bb != 0:
            t = np.int64(ctz64(np.uint64(bb))) + 63 * w
            bb &= bb - 1
            for hi in range(7):
                if (h >> (8 * hi)) & 0xFF != 0:
                    n = _drop(ctx, st, out, n, t, hi, us, ek)
            if n >= end:
                return n - base
    return n - base


@njit(cache=True)
def _drop(ctx: Any, st: Any, out: Any, n: int, to: int, hi: int, us: int, ek: int) -> int:
    """Append the drop of hand piece ``hi`` on the empty ``to`` if the rules allow it."""
    r = to % 9 if us == 0 else 8 - to % 9
    if hi <= 1 and r == 0:  # pawn, lance on the last rank
        return n
    if hi == 2 and r <= 1:  # knight on the last two ranks
        return n
    m = to | ((80 + ctx[C_HTYPE + hi]) << 7)
    if hi == 0:
        if _file_has_pawn(st, us, to // 9):
            return n
        if ek >= 0 and ctx[C_NB + to * 8 + (0 if us == 0 else 7)] == ek:
            # a pawn drop that checks must leave a reply (no mate by pawn drop)
            _play(ctx, st, m)
            ok = _has_reply_to_pawn_check(ctx, st, to)
            _undo(ctx, st)
            if not ok:
                return n
    out[n] = m
    return n + 1


@njit(cache=True)
def _to_square(
    ctx: Any, st: Any, out: Any, n: int, t: int, us: int, k: int, plo: int, phi: int
) -> int:
    """Append the legal moves of our pieces other than the king onto square ``t``
    (pinned pieces only along their pin)."""
    olo = st[OCC] | st[OCC + 2]
    ohi = st[OCC + 1] | st[OCC + 3]
    for d in range(8):
        s = _nearest(ctx, d, t, olo, ohi)
        if s < 0:
            continue
        p = st[s]
        if (p >> 4) != us or (p & 15) == KING:
            continue
        back = 1 << (7 - d)
        if ctx[C_NB + t * 8 + d] == s:
            ok = ((ctx[C_STEP + p] | ctx[C_SLIDE + p]) & back) != 0
        else:
            ok = (ctx[C_SLIDE + p] & back) != 0
        if ok and (not _bit(plo, phi, s) or ctx[C_DIR + k * 81 + t] == ctx[C_DIR + k * 81 + s]):
            n = _emit(out, n, p, s, t, us)
    kn = KNIGHT + 16 * us
    for j in range(2):
        s = ctx[C_KN + t * 4 + 2 * (1 - us) + j]
        if s >= 0 and st[s] == kn and not _bit(plo, phi, s):
            n = _emit(out, n, kn, s, t, us)
    return n


@njit(cache=True)
def _keep_checks(ctx: Any, st: Any, out: Any, n0: int, n: int) -> int:
    """Keep the moves of ``out[n0:n]`` that give check; returns the new end."""
    j = n0
    for i in range(n0, n):
        m = out[i]
        if _gives_check(ctx, st, m):
            out[j] = m
            j += 1
    return j


@njit(cache=True)
def _gives_check(ctx: Any, st: Any, m: int) -> bool:
    """Does the legal move ``m`` of the side to move give check (direct or discovered)?"""
    us = st[STM]
    ek = st[KSQ + 1 - us]
    if ek < 0:
        return False
    to = m & 127
    fr = (m >> 7) & 127
    if fr >= 81:
        p = fr - 80 + 16 * us
        fr = -1
    else:
        p = st[fr]
        if (m >> 14) & 1:
            p += PROMOTE
    olo = st[OCC] | st[OCC + 2]
    ohi = st[OCC + 1] | st[OCC + 3]
    if fr >= 0:  # the mover's square is empty afterwards
        if fr < 63:
            olo &= ~(np.int64(1) << fr)
        else:
            ohi &= ~(np.int64(1) << (fr - 63))
    # direct
    if (p & 15) == KNIGHT:
        base = C_KN + to * 4 + 2 * us
        if ctx[base] == ek or ctx[base + 1] == ek:
            return True
    else:
        d = ctx[C_DIR + to * 81 + ek]
        if d >= 0:
            bitd = 1 << d
            if ctx[C_NB + to * 8 + d] == ek:
                if ((ctx[C_STEP + p] | ctx[C_SLIDE + p]) & bitd) != 0:
                    return True
            elif (ctx[C_SLIDE + p] & bitd) != 0 and _nearest(ctx, d, to, olo, ohi) == ek:
                return True
    # discovered: the mover left a line between the enemy king and one of our sliders
    if fr < 0:
        return False
    d = ctx[C_DIR + ek * 81 + fr]
    if d < 0 or ctx[C_DIR + ek * 81 + to] == d:
        return False
    # with fr emptied, the first piece from the king that way must be our slider, and fr
    # must have been the only thing between
    s = _nearest(ctx, d, ek, olo, ohi)
    if s < 0 or ctx[C_DIR + ek * 81 + s] != d or ctx[C_DIR + s * 81 + fr] != 7 - d:
        return False
    q = st[s]
    return (q >> 4) == us and (ctx[C_SLIDE + q] & (1 << (7 - d))) != 0


@njit(cache=True)
def _gen_checks(ctx: Any, st: Any, out: Any, base: int) -> int:
    return _gen(ctx, st, out, base, MAX_MOVES, 1)


@njit(cache=True)
def _in_check(ctx: Any, st: Any) -> bool:
    us = st[STM]
    k = st[KSQ + us]
    return k >= 0 and _attacked(ctx, st, k, 1 - us, -1)


@njit(cache=True)
def _reply_kind(ctx: Any, st: Any) -> int:
    """The side to move's legal replies: 0 none, 1 drops only, 2 a move of a piece on the
    board (which ``_gen`` writes before any drop)."""
    # a king step is legal whenever its square is not attacked, pins or not: trying those
    # first answers most checks without the checker and pin scan of a full generation
    us = st[STM]
    k = st[KSQ + us]
    if k >= 0:
        for d in range(8):
            t = ctx[C_NB + k * 8 + d]
            if t < 0:
                continue
            p = st[t]
            if p != 0 and (p >> 4) == us:
                continue
            if not _attacked(ctx, st, t, 1 - us, k):
                return 2
    if _gen(ctx, st, st, SCRATCH2, 1, 0) == 0:
        return 0
    return 1 if ((st[SCRATCH2] >> 7) & 127) >= 81 else 2


@njit(cache=True)
def _first_mate(ctx: Any, st: Any, buf: Any, lo: int, hi: int) -> int:
    """The first of the checks ``buf[lo:hi]`` after which the opponent has no legal move,
    or -1."""
    for i in range(lo, hi):
        m = buf[i]
        _play(ctx, st, m)
        mate = _reply_kind(ctx, st) == 0
        _undo(ctx, st)
        if mate:
            return m
    return -1


@njit(cache=True)
def _first_mate_or_hope(ctx: Any, st: Any, buf: Any, n: int) -> int:
    """The first of the checks ``buf[:n]`` after which the opponent has no legal move; else
    -1 if after one of them the opponent can only drop (an interposition that may be
    futile: a mate within two plies is still possible), -2 if not."""
    hope = False
    for i in range(n):
        m = buf[i]
        _play(ctx, st, m)
        kind = _reply_kind(ctx, st)
        _undo(ctx, st)
        if kind == 0:
            return m
        if kind == 1:
            hope = True
    return -1 if hope else -2


@njit(cache=True)
def _mate_in_1(ctx: Any, st: Any) -> int:
    n = _gen_checks(ctx, st, st, SCRATCH)
    return _first_mate(ctx, st, st, SCRATCH, SCRATCH + n)


# ----------------------------------------------------------------------------- the contract


@kernel(_nrt=False)
def gen_legal(ctx: Any, st: Any, buf: Any) -> int:
    """Every legal move of the side to move (evasions when in check) into ``buf``."""
    return _gen(ctx, st, buf, 0, MAX_MOVES, 0)


@kernel(_nrt=False)
def gen_checks(ctx: Any, st: Any, buf: Any) -> int:
    """The legal moves of the side to move that give check."""
    return _gen_checks(ctx, st, buf, 0)


@kernel(_nrt=False)
def play(ctx: Any, st: Any, m: int) -> None:
    """Play the legal move ``m`` in place (pushed on ``st``'s undo stack)."""
    _play(ctx, st, m)


@kernel(_nrt=False)
def undo(ctx: Any, st: Any) -> None:
    """Take back the last :func:`play`."""
    _undo(ctx, st)


@kernel(_nrt=False)
def key(ctx: Any, st: Any) -> int:
    """Zobrist key of board and side to move (hands not included)."""
    return st[KEY]


@kernel(_nrt=False)
def hand(ctx: Any, st: Any) -> int:
    """The attacker's hand (the side to move when ``st`` was built)."""
    return st[HAND + st[ATK]]


@kernel(_nrt=False)
def hand_of(ctx: Any, st: Any, color: int) -> int:
    return st[HAND + color]


@kernel(_nrt=False)
def side_to_move(ctx: Any, st: Any) -> int:
    return st[STM]


@kernel(_nrt=False)
def in_check(ctx: Any, st: Any) -> bool:
    return _in_check(ctx, st)


@kernel(_nrt=False)
def mate_in_1(ctx: Any, st: Any) -> int:
    """A legal check of the side to move after which the opponent has no legal move, or -1."""
    return _mate_in_1(ctx, st)


@kernel(_nrt=False)
def quick_win(ctx: Any, st: Any, buf: Any, n: int) -> int:
    """Mate in one among the attacker's checks ``buf[:n]`` (``gen_checks`` has just written
    them: df-pn generates them anyway, so they are not generated twice); -1 if none, or if
    the attacker is not to move; -2 if none and after every check the defender has a reply
    that is not a drop (no mate within two plies: an interposed drop may be futile, a
    move of a piece on the board always counts)."""
    if st[STM] != st[ATK]:
        return -1
    return _first_mate_or_hope(ctx, st, buf, n)


@kernel(_nrt=False)
def outcome(ctx: Any, st: Any) -> int:
    """The side to move has no candidate move: the attacker wins iff that side is the
    defender (no legal move: mated); an attacker without a check has failed."""
    return 1 if st[STM] != st[ATK] else 0


@kernel(_nrt=False)
def group(ctx: Any, st: Any, m: int) -> int:
    """A defender's drop groups by its square; anything else is its own group (-1)."""
    if st[STM] != st[ATK] and ((m >> 7) & 127) >= 81:
        return m & 127
    return -1


@kernel(_nrt=False)
def hand_delta(ctx: Any, st: Any, m: int) -> tuple[int, int]:
    """(spent, gained) hand bytes of move ``m`` of the side to move, in its own hand."""
    to = m & 127
    fr = (m >> 7) & 127
    if fr >= 81:
        return np.int64(1) << (8 * ctx[C_HIDX + fr - 80]), np.int64(0)
    cap = st[to]
    if cap == 0:
        return np.int64(0), np.int64(0)
    return np.int64(0), np.int64(1) << (8 * ctx[C_HIDX + (cap & 15)])


@kernel(_nrt=False)
def futile_replies(ctx: Any, st: Any, buf: Any) -> int:
    """Right after the defender dropped a piece between a sliding checker and its king:
    the attacker's legal checks taking the dropped piece with that slider."""
    ply = st[PLY]
    if ply == 0:
        return 0
    m = st[STACK + ply - 1] & 0xFFFF
    s = m & 127
    if ((m >> 7) & 127) < 81:
        return 0
    us = st[STM]
    k = st[KSQ + 1 - us]
    if k < 0:
        return 0
    d = ctx[C_DIR + k * 81 + s]
    if d < 0:
        return 0
    t = ctx[C_NB + k * 8 + d]
    while t != s:
        if st[t] != 0:
            return 0
        t = ctx[C_NB + t * 8 + d]
    cs = ctx[C_NB + s * 8 + d]
    while cs >= 0 and st[cs] == 0:
        cs = ctx[C_NB + cs * 8 + d]
    if cs < 0:
        return 0
    p = st[cs]
    if (p >> 4) != us or (ctx[C_SLIDE + p] & (1 << (7 - d))) == 0:
        return 0
    # the slider's own moves onto s (promoting or not, as the rules allow); keep the legal
    # checks: legal = not exposing our king, since the capture itself is a pseudo-legal move
    n0 = _emit(st, SCRATCH2, p, cs, s, us) - SCRATCH2
    n = 0
    ok = True
    for i in range(n0):
        mv = st[SCRATCH2 + i]
        if i == 0:
            _play(ctx, st, mv)
            ok = st[KSQ + us] < 0 or not _attacked(ctx, st, st[KSQ + us], 1 - us, -1)
            _undo(ctx, st)
        if ok and _gives_check(ctx, st, mv):
            buf[n] = mv
            n += 1
    return n


@kernel(_nrt=False)
def and_need(ctx: Any, st: Any) -> int:
    """At a defender node in check by one distant slider (an empty square between it and
    the king): the attacker's counts of the hand pieces the defender does not hold — with
    fewer of them the defender could interpose more. 0 otherwise (also in double check,
    where no interposition helps)."""
    us = st[STM]
    if us == st[ATK]:
        return 0
    them = 1 - us
    k = st[KSQ + us]
    if k < 0:
        return 0
    nchk = 0
    distant = False
    for d in range(8):
        back = 1 << (7 - d)
        s = ctx[C_NB + k * 8 + d]
        far = False
        while s >= 0:
            p = st[s]
            if p != 0:
                if (p >> 4) == them:
                    if far:
                        if (ctx[C_SLIDE + p] & back) != 0:
                            nchk += 1
                            distant = True
                    elif ((ctx[C_STEP + p] | ctx[C_SLIDE + p]) & back) != 0:
                        nchk += 1
                break
            far = True
            s = ctx[C_NB + s * 8 + d]
    kn = KNIGHT + 16 * them
    for j in range(2):
        s = ctx[C_KN + k * 4 + 2 * us + j]
        if s >= 0 and st[s] == kn:
            nchk += 1
    if nchk != 1 or not distant:
        return 0
    mine = st[HAND + us]
    theirs = st[HAND + them]
    need = np.int64(0)
    for i in range(7):
        if (mine >> (8 * i)) & 0xFF == 0:
            need |= theirs & (np.int64(0xFF) << (8 * i))
    return need


@njit(cache=True)
def _perft(ctx: Any, st: Any, depth: int, buf: Any) -> int:
    if depth <= 0:
        return 1
    idx = np.zeros(depth, np.int64)
    cnt = np.zeros(depth, np.int64)
    total = 0
    lvl = 0
    cnt[0] = _gen(ctx, st, buf, 0, MAX_MOVES, 0)
    idx[0] = 0
    if depth == 1:
        return cnt[0]
    while lvl >= 0:
        if idx[lvl] >= cnt[lvl]:
            lvl -= 1
            if lvl >= 0:
                _undo(ctx, st)
            continue
        m = buf[lvl * MAX_MOVES + idx[lvl]]
        idx[lvl] += 1
        _play(ctx, st, m)
        if lvl + 2 == depth:
            total += _gen(ctx, st, buf, (lvl + 1) * MAX_MOVES, MAX_MOVES, 0)
            _undo(ctx, st)
        else:
            lvl += 1
            cnt[lvl] = _gen(ctx, st, buf, lvl * MAX_MOVES, MAX_MOVES, 0)
            idx[lvl] = 0
    return total


@kernel
def perft(ctx: Any, st: Any, depth: int, buf: Any) -> int:
    """Leaf count of the legal move tree ``depth`` plies deep (``buf``: depth x MAX_MOVES)."""
    return _perft(ctx, st, depth, buf)


# ----------------------------------------------------------------------------- Python side


@njit(cache=True)
def _rebuild(ctx: Any, st: Any) -> None:
    """Bitboards, king squares and keys from the board, hands and side to move."""
    st[OCC : OCC + 4] = 0
    st[PT : PT + 30] = 0
    st[KEY] = 0
    st[KSQ] = -1
    st[KSQ + 1] = -1
    for sq in range(81):
        p = st[sq]
        if p != 0:
            _put(ctx, st, sq, p)
            if (p & 15) == KING:
                st[KSQ + (p >> 4)] = sq
    if st[STM] == 1:
        st[KEY] ^= ctx[C_ZSIDE]
    hk = np.int64(0)
    for c in range(2):
        for i in range(7):
            hk += ((st[HAND + c] >> (8 * i)) & 0xFF) * ctx[C_ZH + 8 * c + i]
    st[HKEY] = hk


def from_board(board: cshogi.Board) -> npt.NDArray[np.int64]:
    """A position array from a ``cshogi.Board``; its side to move becomes the attacker."""
    st = np.zeros(ST_LEN, np.int64)
    st[:81] = np.asarray(board.pieces, np.int64)
    for c, counts in enumerate(board.pieces_in_hand):
        st[HAND + c] = sum(int(n) << (8 * i) for i, n in enumerate(counts))
    st[STM] = st[ATK] = int(board.turn)
    _rebuild(CTX, st)
    return st


def from_sfen(sfen: str) -> npt.NDArray[np.int64]:
    """A position array from an SFEN; its side to move becomes the attacker."""
    return from_board(cshogi.Board(sfen))


_LETTERS = " PLNSBRGK"
_HAND_ORDER = (6, 5, 4, 3, 2, 1, 0)  # R B G S N L P, as SFEN writes hands


def to_sfen(st: npt.NDArray[np.int64]) -> str:
    """The position as an SFEN (move number 1)."""
    rows = []
    for r in range(9):
        row, empty = "", 0
        for f in range(8, -1, -1):
            p = int(st[f * 9 + r])
            if p == 0:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            t = p & 15
            s = ("+" if t > KING else "") + _LETTERS[t - PROMOTE if t > KING else t]
            row += s.lower() if p >> 4 else s
        rows.append(row + (str(empty) if empty else ""))
    hands = ""
    for c in range(2):
        h = int(st[HAND + c])
        for i in _HAND_ORDER:
            n = (h >> (8 * i)) & 0xFF
            if n:
                letter = "PLNSGBR"[i]
                hands += (str(n) if n > 1 else "") + (letter.lower() if c else letter)
    side = "w" if st[STM] else "b"
    return f"{'/'.join(rows)} {side} {hands or '-'} 1"
