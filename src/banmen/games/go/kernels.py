"""Compiled Go kernels: stones, groups, captures, legality, hashing, random playouts.

Board layout
------------
A board of size ``N`` (5..19) is stored in a flat ``int8`` array of ``(N + 2) ** 2``
points: the ``N`` x ``N`` playing area framed by a one-point border. Point
``(row + 1) * (N + 2) + (col + 1)`` is the intersection in column ``col`` (0 = A) and row
``row`` (0 = the first line, row 1 in GTP notation, drawn at the bottom). The four
neighbours of point ``p`` are ``p - 1``, ``p + 1``, ``p - S`` and ``p + S`` with stride
``S = N + 2``; a neighbour off the board is a :data:`BORDER` point, so no kernel tests
coordinates. Values: :data:`EMPTY` 0, :data:`BLACK` 1, :data:`WHITE` 2, :data:`BORDER` 3.
Point 0 is a border corner and never a board point: it stands for the pass
(:data:`PASS`) and for "no ko point".

A position is three arrays, :class:`Position`:

``board`` (int8, ``P = S * S``)
    the colours above.
``grp`` (int32, ``8 * P``), eight sections of ``P``:
    ``head`` (a stone's group representative), ``next`` (the group's stones as a circular
    list), ``libs`` (at the head: pseudo-liberties, the number of (stone, empty
    neighbour) pairs), ``size``, ``lsum`` and ``lsum2`` (sums of the pseudo-liberties'
    points and of their squares), the list of empty points and each point's index in it.
    A group is captured when its pseudo-liberties reach 0, and it is in atari with
    liberty ``p`` exactly when ``lsum == libs * p`` and ``lsum2 == libs * p * p`` (all
    pseudo-liberties are the same point). Merging relabels the smaller group and splices
    the lists; captures walk the list. Everything is incremental: no flood fill per move.
``meta`` (int64, :data:`META_LEN`)
    size, stride, side to move, simple-ko point, stones captured by black and by white,
    Zobrist hash of the stones, number of empty points, consecutive passes, ply count,
    last move, random-number state.

Hashing: the stone at ``p`` of colour ``c`` has the key ``mix64((4 p + c) * G + SALT)``
(SplitMix64's finaliser, ``G`` its golden-ratio increment), so no table is needed and any
language can reproduce it. :data:`TURN_KEY` is XORed in for "white to move" when comparing
situations (situational superko).

Playouts: :func:`random_playout` plays uniformly random legal moves that do not fill the
mover's own single-point eye (all four neighbours the mover's colour or border, and at
most one diagonal the opponent's — none on the edge), never suicide, with simple ko only
(superko is ignored, as usual in playouts), until two passes in a row or a ply limit;
:func:`playout_score` then counts the board Tromp-Taylor style.
"""

# numba types these functions; mypy sees numba's untyped decorators and int64 scalars.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call, call-overload"

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._bits import mix64
from banmen._fields import IntAt
from banmen._jit import njit

__all__ = [
    "EMPTY",
    "BLACK",
    "WHITE",
    "BORDER",
    "PASS",
    "LEGAL",
    "OCCUPIED",
    "SUICIDE",
    "KO",
    "SUPERKO",
    "REASONS",
    "META_LEN",
    "TURN_KEY",
    "Position",
    "stride_of",
    "board_points",
    "point_key",
    "rebuild",
    "play",
    "move_code",
    "move_code_superko",
    "hash_after",
    "legal_codes",
    "gen_moves",
    "is_eye",
    "rand_below",
    "drop_candidate",
    "random_playout",
    "playout_score",
    "run_playouts",
]

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
PASS = 0
MIN_SIZE, MAX_SIZE = 5, 19

# move codes
LEGAL, OCCUPIED, SUICIDE, KO, SUPERKO = 0, 1, 2, 3, 4
REASONS = {OCCUPIED: "occupied", SUICIDE: "suicide", KO: "ko", SUPERKO: "superko"}

# meta layout
M_SIZE, M_STRIDE, M_TURN, M_KO, M_CAPS = 0, 1, 2, 3, 4  # M_CAPS + 0: by black, + 1: by white
M_HASH, M_NEMPTY, M_PASSES, M_PLY, M_LAST, M_RNG = 6, 7, 8, 9, 10, 11
META_LEN = 12

# grp sections, in units of P
G_HEAD, G_NEXT, G_LIBS, G_SIZE, G_LSUM, G_LSUM2, G_ELIST, G_EPOS = range(8)

GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
ZSALT = 0x5A0B1C2D3E4F6071
TURN_SALT = 0x7E57ED70BE5A1717


@njit(cache=True, inline="always")
def sides(meta: Any) -> tuple[int, int, int, int, int, int]:
    """``(stride, size, points in the padded array, colour to move, the other colour,
    the last move)`` of a position's ``meta``: what a move's reader needs first."""
    s = meta[M_STRIDE]
    color = meta[M_TURN]
    return s, meta[M_SIZE], s * s, color, 3 - color, meta[M_LAST]


@njit(cache=True, inline="always")
def point_key(p: int, c: int) -> int:
    """Zobrist key of a stone of colour ``c`` on point ``p``."""
    return mix64((p * 4 + c) * GOLDEN + ZSALT)


@njit(cache=True)
def _turn_key() -> int:
    return mix64(TURN_SALT * GOLDEN + ZSALT)


#: XORed into a position's hash when white is to move (situational superko)
TURN_KEY = int(_turn_key())


def stride_of(size: int) -> int:
    return size + 2


def board_points(size: int) -> npt.NDArray[np.int64]:
    """The ``size * size`` board points in order A1, B1, ..., (row by row from the
    bottom)."""
    s = size + 2
    return np.array([(r + 1) * s + c + 1 for r in range(size) for c in range(size)], dtype=np.int64)


class Position:
    """The kernel state: ``board`` (int8), ``grp`` (int32), ``meta`` (int64); see the
    module docstring. Kernels take the three arrays."""

    __slots__ = ("board", "grp", "meta")

    def __init__(
        self,
        board: npt.NDArray[np.int8],
        grp: npt.NDArray[np.int32],
        meta: npt.NDArray[np.int64],
    ) -> None:
        self.board = board
        self.grp = grp
        self.meta = meta

    @classmethod
    def empty(cls, size: int) -> Position:
        """The empty board, black to move."""
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size {size} is not supported: expected 5 to 19")
        s = size + 2
        board = np.full(s * s, BORDER, dtype=np.int8)
        board[board_points(size)] = EMPTY
        meta = np.zeros(META_LEN, dtype=np.int64)
        meta[M_SIZE] = size
        meta[M_STRIDE] = s
        meta[M_TURN] = BLACK
        pos = cls(board, np.zeros(8 * s * s, dtype=np.int32), meta)
        rebuild(pos.board, pos.grp, pos.meta)
        return pos

    def arrays(self) -> tuple[Any, Any, Any]:
        return self.board, self.grp, self.meta

    def copy(self) -> Position:
        return Position(self.board.copy(), self.grp.copy(), self.meta.copy())

    def copy_into(self, other: Position) -> None:
        other.board[:] = self.board
        other.grp[:] = self.grp
        other.meta[:] = self.meta

    size = IntAt("meta", M_SIZE)
    turn = IntAt("meta", M_TURN)
    ko = IntAt("meta", M_KO)
    hash = IntAt("meta", M_HASH)

    def captures(self, color: int) -> int:
        """Stones captured *by* ``color``."""
        return int(self.meta[M_CAPS + color - 1])


# --------------------------------------------------------------------------- groups


@njit(cache=True)
def rebuild(board: Any, grp: Any, meta: Any) -> None:
    """Recompute groups, the empty-point list and the hash from ``board`` alone."""
    s = meta[M_STRIDE]
    npts = s * s
    grp[:] = 0
    ne = 0
    h = 0
    for p in range(npts):
        v = board[p]
        if v == EMPTY:
            grp[G_ELIST * npts + ne] = p
            grp[G_EPOS * npts + p] = ne
            ne += 1
        else:
            grp[G_EPOS * npts + p] = -1
            if v != BORDER:
                h ^= point_key(p, v)
    meta[M_NEMPTY] = ne
    meta[M_HASH] = h
    stack = np.empty(npts, dtype=np.int64)
    offs = (-1, 1, -s, s)
    for p in range(npts):
        v = board[p]
        if (v != BLACK and v != WHITE) or grp[G_HEAD * npts + p] != 0:
            continue
        # flood fill the group of p, linking stones as they are found
        grp[G_HEAD * npts + p] = p
        grp[G_NEXT * npts + p] = p
        size = 1
        top = 0
        stack[top] = p
        top += 1
        while top > 0:
            top -= 1
            q = stack[top]
            for o in offs:
                r = q + o
                if board[r] == v and grp[G_HEAD * npts + r] == 0:
                    grp[G_HEAD * npts + r] = p
                    grp[G_NEXT * npts + r] = grp[G_NEXT * npts + p]
                    grp[G_NEXT * npts + p] = r
                    size += 1
                    stack[top] = r
                    top += 1
        grp[G_SIZE * npts + p] = size
    # pseudo-liberties: one per (stone, empty neighbour) pair, summed on the group's head
    for e in range(npts):
        if board[e] != EMPTY:
            continue
        for o in offs:
            w = board[e + o]
            if w == BLACK or w == WHITE:
                g = grp[G_HEAD * npts + e + o]
                grp[G_LIBS * npts + g] += 1
                grp[G_LSUM * npts + g] += e
                grp[G_LSUM2 * npts + g] += e * e


@njit(cache=True, inline="always")
def _atari_at(grp: Any, npts: int, g: int, p: int) -> bool:
    """Is group ``g``'s only liberty ``p``?"""
    n = np.int64(grp[G_LIBS * npts + g])
    return grp[G_LSUM * npts + g] == n * p and grp[G_LSUM2 * npts + g] == n * p * p


@njit(cache=True, inline="always")
def _add_empty(grp: Any, meta: Any, npts: int, p: int) -> None:
    n = meta[M_NEMPTY]
    grp[G_ELIST * npts + n] = p
    grp[G_EPOS * npts + p] = n
    meta[M_NEMPTY] = n + 1


@njit(cache=True, inline="always")
def _remove_empty(grp: Any, meta: Any, npts: int, p: int) -> None:
    i = grp[G_EPOS * npts + p]
    n = meta[M_NEMPTY] - 1
    last = grp[G_ELIST * npts + n]
    grp[G_ELIST * npts + i] = last
    grp[G_EPOS * npts + last] = i
    grp[G_EPOS * npts + p] = -1
    meta[M_NEMPTY] = n


@njit(cache=True, _nrt=False)
def _merge(grp: Any, npts: int, a: int, b: int) -> None:
    if grp[G_SIZE * npts + a] < grp[G_SIZE * npts + b]:
        a, b = b, a
    s = b
    while True:
        grp[G_HEAD * npts + s] = a
        s = grp[G_NEXT * npts + s]
        if s == b:
            break
    na = grp[G_NEXT * npts + a]
    grp[G_NEXT * npts + a] = grp[G_NEXT * npts + b]
    grp[G_NEXT * npts + b] = na
    for sec in (G_LIBS, G_SIZE, G_LSUM, G_LSUM2):
        grp[sec * npts + a] += grp[sec * npts + b]


@njit(cache=True, _nrt=False)
def _remove_group(board: Any, grp: Any, meta: Any, npts: int, s: int, g: int) -> None:
    col = board[g]
    h = meta[M_HASH]
    p = g
    while True:
        board[p] = EMPTY
        _add_empty(grp, meta, npts, p)
        h ^= point_key(p, col)
        p = grp[G_NEXT * npts + p]
        if p == g:
            break
    meta[M_HASH] = h
    offs = (-1, 1, -s, s)
    p = g
    while True:
        for o in offs:
            q = p + o
            v = board[q]
            if v == BLACK or v == WHITE:
                k = grp[G_HEAD * npts + q]
                grp[G_LIBS * npts + k] += 1
                grp[G_LSUM * npts + k] += p
                grp[G_LSUM2 * npts + k] += p * p
        nxt = grp[G_NEXT * npts + p]
        grp[G_HEAD * npts + p] = 0
        p = nxt
        if p == g:
            break


# --------------------------------------------------------------------------- moves


@njit(cache=True, _nrt=False)
def play(board: Any, grp: Any, meta: Any, p: int, color: int) -> int:
    """Play ``p`` (or :data:`PASS`) for ``color`` and hand the turn to the other side.

    The move must not be occupied or a simple-ko retake; a suicide removes the mover's
    group (check :func:`move_code` first if suicide is not allowed). Returns the number
    of stones captured, negative for a suicide.
    """
    s = meta[M_STRIDE]
    npts = s * s
    opp = 3 - color
    meta[M_TURN] = opp
    meta[M_PLY] += 1
    meta[M_LAST] = p
    if p == PASS:
        meta[M_KO] = 0
        meta[M_PASSES] += 1
        return 0
    meta[M_PASSES] = 0
    board[p] = color
    _remove_empty(grp, meta, npts, p)
    meta[M_HASH] ^= point_key(p, color)
    offs = (-1, 1, -s, s)
    libs = 0
    ls = 0
    ls2 = 0
    for o in offs:
        q = p + o
        v = board[q]
        if v == EMPTY:
            libs += 1
            ls += q
            ls2 += q * q
        elif v != BORDER:
            g = grp[G_HEAD * npts + q]
            grp[G_LIBS * npts + g] -= 1
            grp[G_LSUM * npts + g] -= p
            grp[G_LSUM2 * npts + g] -= p * p
    grp[G_HEAD * npts + p] = p
    grp[G_NEXT * npts + p] = p
    grp[G_SIZE * npts + p] = 1
    grp[G_LIBS * npts + p] = libs
    grp[G_LSUM * npts + p] = ls
    grp[G_LSUM2 * npts + p] = ls2
    for o in offs:
        q = p + o
        if board[q] == color:
            g = grp[G_HEAD * npts + q]
            h = grp[G_HEAD * npts + p]
            if g != h:
                _merge(grp, npts, g, h)
    captured = 0
    ko = 0
    for o in offs:
        q = p + o
        if board[q] == opp:
            g = grp[G_HEAD * npts + q]
            if grp[G_LIBS * npts + g] == 0:
                n = grp[G_SIZE * npts + g]
                captured += n
                ko = q
                _remove_group(board, grp, meta, npts, s, g)
    h = grp[G_HEAD * npts + p]
    if captured == 0 and grp[G_LIBS * npts + h] == 0:
        n = grp[G_SIZE * npts + h]
        _remove_group(board, grp, meta, npts, s, h)
        meta[M_CAPS + opp - 1] += n
        meta[M_KO] = 0
        return -n
    meta[M_CAPS + color - 1] += captured
    if captured == 1 and grp[G_SIZE * npts + h] == 1 and grp[G_LIBS * npts + h] == 1:
        meta[M_KO] = ko
    else:
        meta[M_KO] = 0
    return captured


@njit(cache=True, _nrt=False)
def move_code(board: Any, grp: Any, meta: Any, p: int, color: int, suicide_ok: bool) -> int:
    """:data:`LEGAL`, :data:`OCCUPIED`, :data:`SUICIDE` or :data:`KO` for a stone of
    ``color`` on board point ``p`` (superko not checked; the ko point binds only the side
    to move). Single-stone suicide is never legal."""
    if board[p] != EMPTY:
        return OCCUPIED
    if p == meta[M_KO] and color == meta[M_TURN]:
        return KO
    s = meta[M_STRIDE]
    npts = s * s
    opp = 3 - color
    friend = False
    for o in (-1, 1, -s, s):
        q = p + o
        v = board[q]
        if v == EMPTY:
            return LEGAL
        if v == color:
            friend = True
            if not _atari_at(grp, npts, grp[G_HEAD * npts + q], p):
                return LEGAL
        elif v == opp:
            if _atari_at(grp, npts, grp[G_HEAD * npts + q], p):
                return LEGAL
    if friend and suicide_ok:
        return LEGAL
    return SUICIDE


@njit(cache=True)
def _xor_group(grp: Any, npts: int, g: int, col: int) -> int:
    h = 0
    p = g
    while True:
        h ^= point_key(p, col)
        p = grp[G_NEXT * npts + p]
        if p == g:
            break
    return h


@njit(cache=True, inline="always")
def _remember(g: int, g1: int, g2: int, g3: int) -> tuple[int, int, int]:
    """(g1, g2, g3) with ``g`` put in the first free (-1) of them."""
    if g1 < 0:
        return g, g2, g3
    if g2 < 0:
        return g1, g, g3
    return g1, g2, g


@njit(cache=True)
def hash_after(board: Any, grp: Any, meta: Any, p: int, color: int) -> int:
    """The stones' hash after ``color`` plays ``p`` (a legal move; captures and an
    allowed suicide included), without playing it."""
    s = meta[M_STRIDE]
    npts = s * s
    opp = 3 - color
    h = meta[M_HASH] ^ point_key(p, color)
    g1 = -1
    g2 = -1
    g3 = -1
    captured = False
    liberty = False
    for o in (-1, 1, -s, s):
        q = p + o
        v = board[q]
        if v == EMPTY:
            liberty = True
        elif v == opp:
            g = grp[G_HEAD * npts + q]
            if g != g1 and g != g2 and g != g3 and _atari_at(grp, npts, g, p):
                h ^= _xor_group(grp, npts, g, opp)
                captured = True
                g1, g2, g3 = _remember(g, g1, g2, g3)
        elif v == color:
            if not _atari_at(grp, npts, grp[G_HEAD * npts + q], p):
                liberty = True
    if captured or liberty:
        return h
    # a (multi-stone) suicide: the new stone and the groups it joins disappear
    h ^= point_key(p, color)
    g1 = -1
    g2 = -1
    g3 = -1
    for o in (-1, 1, -s, s):
        q = p + o
        if board[q] == color:
            g = grp[G_HEAD * npts + q]
            if g != g1 and g != g2 and g != g3:
                h ^= _xor_group(grp, npts, g, color)
                g1, g2, g3 = _remember(g, g1, g2, g3)
    return h


@njit(cache=True)
def _seen(history: Any, key: int) -> bool:
    i = np.searchsorted(history, key)
    return i < history.shape[0] and history[i] == key


@njit(cache=True)
def move_code_superko(
    board: Any,
    grp: Any,
    meta: Any,
    p: int,
    color: int,
    suicide_ok: bool,
    superko: int,
    history: Any,
) -> int:
    """:func:`move_code` plus :data:`SUPERKO`: with ``superko`` 1 (positional) the board
    after the move must not be in ``history`` (sorted int64 stone hashes), with 2
    (situational) the hash XOR :data:`TURN_KEY` when white is to move next."""
    code = move_code(board, grp, meta, p, color, suicide_ok)
    if code != LEGAL or superko == 0:
        return code
    h = hash_after(board, grp, meta, p, color)
    if superko == 2 and color == BLACK:
        h ^= TURN_KEY
    if _seen(history, h):
        return SUPERKO
    return LEGAL


@njit(cache=True)
def legal_codes(
    board: Any,
    grp: Any,
    meta: Any,
    color: int,
    suicide_ok: bool,
    superko: int,
    history: Any,
    out: Any,
) -> int:
    """Fill ``out[p]`` (int8, one per point) with the code of every board point for
    ``color`` (border points get :data:`OCCUPIED`); returns the number of legal points."""
    s = meta[M_STRIDE]
    n = meta[M_SIZE]
    out[:] = OCCUPIED
    count = 0
    for r in range(1, n + 1):
        for c in range(1, n + 1):
            p = r * s + c
            code = move_code_superko(board, grp, meta, p, color, suicide_ok, superko, history)
            out[p] = code
            if code == LEGAL:
                count += 1
    return count


@njit(cache=True)
def gen_moves(board: Any, grp: Any, meta: Any, color: int, suicide_ok: bool, out: Any) -> int:
    """Write ``color``'s legal points (simple ko, no superko, no pass) to ``out`` in point
    order; returns how many."""
    s = meta[M_STRIDE]
    n = meta[M_SIZE]
    count = 0
    for r in range(1, n + 1):
        for c in range(1, n + 1):
            p = r * s + c
            if board[p] == EMPTY and move_code(board, grp, meta, p, color, suicide_ok) == LEGAL:
                out[count] = p
                count += 1
    return count


# --------------------------------------------------------------------------- playouts


@njit(cache=True, inline="always")
def is_eye(board: Any, p: int, color: int, s: int) -> bool:
    """Is empty point ``p`` a single-point eye of ``color``: all four neighbours
    ``color`` or border, and at most one diagonal the opponent's (none on the edge)?"""
    for o in (-1, 1, -s, s):
        v = board[p + o]
        if v != color and v != BORDER:
            return False
    opp = 3 - color
    edge = 0
    bad = 0
    for o in (-s - 1, -s + 1, s - 1, s + 1):
        v = board[p + o]
        if v == BORDER:
            edge = 1
        elif v == opp:
            bad += 1
    return bad + edge < 2


@njit(cache=True, inline="always")
def rand_below(meta: Any, n: int) -> int:
    x = meta[M_RNG] + GOLDEN
    meta[M_RNG] = x
    r = mix64(x)
    return (((r >> 32) & 0xFFFFFFFF) * n) >> 32


@njit(cache=True, inline="always")
def drop_candidate(grp: Any, base: int, pos: int, k: int, remaining: int) -> int:
    """Move the rejected candidate at index ``k`` of the empty-point list (``base``: the
    list's section of ``grp``, ``pos``: each point's index in it) behind the
    ``remaining`` candidates, so a random draw from the first ``remaining - 1`` never
    meets it again (the list is a set: its order does not matter); returns
    ``remaining - 1``."""
    remaining -= 1
    p = grp[base + k]
    last = grp[base + remaining]
    grp[base + k] = last
    grp[pos + last] = k
    grp[base + remaining] = p
    grp[pos + p] = remaining
    return remaining


@njit(cache=True, nogil=True)
def random_playout(board: Any, grp: Any, meta: Any, max_plies: int) -> int:
    """Play random moves (see the module docstring) until two passes in a row or
    ``max_plies`` more plies; returns :func:`playout_score`. The random state is
    ``meta[M_RNG]``."""
    s = meta[M_STRIDE]
    npts = s * s
    base = G_ELIST * npts
    pos = G_EPOS * npts
    plies = 0
    while meta[M_PASSES] < 2 and plies < max_plies:
        color = meta[M_TURN]
        remaining = meta[M_NEMPTY]
        chosen = PASS
        while remaining > 0:
            k = rand_below(meta, remaining)
            p = grp[base + k]
            if (
                not is_eye(board, p, color, s)
                and move_code(board, grp, meta, p, color, False) == LEGAL
            ):
                chosen = p
                break
            remaining = drop_candidate(grp, base, pos, k, remaining)
        play(board, grp, meta, chosen, color)
        plies += 1
    return playout_score(board, meta)


@njit(cache=True, inline="always")
def _owner(board: Any, p: int, s: int) -> int:
    """+1 if black owns point ``p`` at the end of a playout, -1 for white, else 0: its
    stone, or for an empty point the one colour among its neighbours (0 if both)."""
    v = board[p]
    if v == BLACK:
        return 1
    if v == WHITE:
        return -1
    b = 0
    w = 0
    for o in (-1, 1, -s, s):
        u = board[p + o]
        if u == BLACK:
            b = 1
        elif u == WHITE:
            w = 1
    return b - w


@njit(cache=True)
def playout_score(board: Any, meta: Any) -> int:
    """Black's area minus white's, no komi: stones, and empty points whose neighbours
    include one colour only (exact after a playout, where empty regions are small)."""
    s = meta[M_STRIDE]
    n = meta[M_SIZE]
    score = 0
    for r in range(1, n + 1):
        for c in range(1, n + 1):
            score += _owner(board, r * s + c, s)
    return score


@njit(cache=True)
def add_ownership(board: Any, meta: Any, own: Any) -> None:
    """Add each point's owner at the end of a playout (+1 black, -1 white, 0 neither:
    :func:`_owner`) to ``own``."""
    s = meta[M_STRIDE]
    n = meta[M_SIZE]
    for r in range(1, n + 1):
        for c in range(1, n + 1):
            p = r * s + c
            own[p] += _owner(board, p, s)


@njit(cache=True, nogil=True)
def run_playouts(
    board: Any, grp: Any, meta: Any, n: int, seed: int, max_plies: int, scores: Any, own: Any
) -> None:
    """``n`` random playouts from the position (left unchanged): ``scores[i]`` gets the
    i-th playout's :func:`playout_score`, ``own[p]`` (int64, one per point) adds +1 for
    each playout black owns ``p`` at the end and -1 for white."""
    b2 = board.copy()
    g2 = grp.copy()
    m2 = meta.copy()
    rng = mix64(seed * GOLDEN + 1)
    for i in range(n):
        b2[:] = board
        g2[:] = grp
        m2[:] = meta
        m2[M_PASSES] = 0
        m2[M_RNG] = rng
        scores[i] = random_playout(b2, g2, m2, max_plies)
        rng = m2[M_RNG]
        add_ownership(b2, m2, own)
