"""Go tactics: liberties, ataris, captures, ladders and eye shapes, read on the kernel
position (``board``, ``grp``, ``meta``; see :mod:`.kernels`).

What the playout policy (:mod:`.policy`) and the learned move features (:mod:`.features`)
both ask of a position, answered by compiled functions that change nothing (the ladder
reader plays its lines on scratch stacks):

* **liberties after a move** — :func:`libs_after` (none, one, or two and more: what a
  self-atari or an escape test needs, from the groups' liberty sums without walking
  them) and :func:`count_libs_after` (the distinct liberties, up to a cap); a group's
  one liberty besides a point (:func:`lib_besides`, from which its only liberty,
  :func:`atari_lib` and :func:`in_atari`, and whether a move puts it in atari,
  :func:`two_libs_with`);
* **atari reading** — the captures of the last move's group and the escapes of the groups
  it put in atari (:func:`atari_moves`), the captures around a point
  (:func:`capture_moves`);
* **ladders** — :func:`ladder_after`: after a move, is a group caught in a ladder? A
  depth-first AND/OR reading of ataris and escapes with a depth and a node budget;
* **eye shapes** — :func:`vital_point`: the point that decides a killable eye space
  (straight or bent three, pyramid four, bulky or crossed five, rabbity six).
"""

# numba types these functions; mypy sees numba's untyped decorators and int64 scalars.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call"
# mypy: disable-error-code="call-overload, return-value, assignment"

from __future__ import annotations

from typing import Any

import numpy as np

from banmen._bits import copy_into
from banmen._jit import njit
from banmen.games.go.kernels import (
    BORDER,
    EMPTY,
    G_HEAD,
    G_LIBS,
    G_LSUM,
    G_LSUM2,
    G_NEXT,
    LEGAL,
    M_STRIDE,
    M_TURN,
    move_code,
    play,
)

__all__ = [
    "push",
    "lib_besides",
    "in_atari",
    "atari_lib",
    "two_libs_with",
    "libs_after",
    "count_libs_after",
    "joins",
    "legal",
    "atari_moves",
    "capture_moves",
    "LADDER_DEPTH",
    "LADDER_NODES",
    "ladder_after",
    "new_stacks",
    "vital_point",
]

# --------------------------------------------------------------------------- liberties


@njit(cache=True, inline="always")
def push(out: Any, n: int, p: int) -> int:
    """Add ``p`` to the distinct points ``out[:n]`` unless it is there or ``out`` is
    full; returns the new count."""
    for i in range(n):
        if out[i] == p:
            return n
    if n < out.shape[0]:
        out[n] = p
        return n + 1
    return n


@njit(cache=True, inline="always")
def lib_besides(grp: Any, npts: int, g: int, p: int, k: int) -> int:
    """Group ``g``'s one liberty other than ``p`` (which ``k`` of its stones touch: ``k``
    of its pseudo-liberties): 0 if it has none, -1 if it has more than one distinct.
    Read from the group's pseudo-liberty count, sum and sum of squares: the liberties
    left are all one point exactly when ``sum == n y`` and ``squares == n y²``."""
    n = np.int64(grp[G_LIBS * npts + g]) - k
    if n <= 0:
        return 0
    ls = np.int64(grp[G_LSUM * npts + g]) - k * p
    ls2 = np.int64(grp[G_LSUM2 * npts + g]) - k * p * p
    y = ls // n
    return y if ls == n * y and ls2 == n * y * y else -1


@njit(cache=True, inline="always")
def atari_lib(grp: Any, npts: int, g: int) -> int:
    """The only liberty of group ``g``, or 0 if it has more than one."""
    return max(lib_besides(grp, npts, g, 0, 0), 0)


@njit(cache=True, inline="always")
def in_atari(grp: Any, npts: int, q: int) -> bool:
    """Is the chain on ``q`` in atari?"""
    return atari_lib(grp, npts, grp[G_HEAD * npts + q]) != 0


@njit(cache=True)
def two_libs_with(grp: Any, npts: int, g: int, p: int, k: int) -> bool:
    """Has group ``g`` exactly two distinct liberties, one of them ``p`` (touched by
    ``k`` of its stones)? Then a stone on ``p`` puts it in atari."""
    y = lib_besides(grp, npts, g, p, k)
    return y > 0 and y != p


@njit(cache=True)
def count_libs_after(board: Any, grp: Any, meta: Any, p: int, color: int, cap: int) -> int:
    """Distinct liberties (up to ``cap``) of the ``color`` group a stone on ``p`` makes:
    its empty neighbours, the other liberties of the groups it joins, and the points of
    adjacent enemy stones it captures."""
    s = meta[M_STRIDE]
    npts = s * s
    opp = 3 - color
    libs = np.zeros(8, dtype=np.int64)
    n = 0
    for o in (-1, 1, -s, s):
        q = p + o
        v = board[q]
        # an empty neighbour, or a captured stone's point, is a liberty
        if v == EMPTY or (v == opp and in_atari(grp, npts, q)):
            n = push(libs, n, q)
            if n >= cap:
                return n
    for o in (-1, 1, -s, s):
        q = p + o
        if board[q] == color:
            n = _collect_libs(board, grp, s, q, p, libs, n, cap)
            if n >= cap:
                return n
    return n


@njit(cache=True)
def _collect_libs(board: Any, grp: Any, s: int, q: int, skip: int, out: Any, n: int,
                  cap: int) -> int:  # fmt: skip
    """Add the liberties of the group on ``q`` other than ``skip`` to the distinct points
    ``out[:n]``, stopping at ``cap`` of them; returns the new count."""
    npts = s * s
    g = grp[G_HEAD * npts + q]
    st = g
    while True:
        for o in (-1, 1, -s, s):
            t = st + o
            if t != skip and board[t] == EMPTY:
                n = push(out, n, t)
                if n >= cap:
                    return n
        st = grp[G_NEXT * npts + st]
        if st == g:
            break
    return n


@njit(cache=True)
def _group_libs(board: Any, grp: Any, meta: Any, q: int, out: Any, cap: int) -> int:
    """The distinct liberties (up to ``cap``) of the group on ``q`` into ``out``."""
    return _collect_libs(board, grp, meta[M_STRIDE], q, -1, out, 0, cap)


@njit(cache=True, inline="always")
def _note_lib(l1: int, y: int) -> int:
    """The liberty found so far (``l1``, 0 for none) after finding ``y``: ``y`` if it is
    the first or the same again, -1 if it is a second, distinct one (or -1 itself)."""
    return y if l1 == 0 or l1 == y else -1


@njit(cache=True, _nrt=False)
def libs_after(board: Any, grp: Any, meta: Any, p: int, color: int) -> int:
    """Liberties (0, 1, or 2 meaning "two or more") of the ``color`` group a stone on empty
    point ``p`` would make, captures counted: every stone of a captured neighbour that
    touches the new group (``p`` or a stone of a group it joins) becomes a liberty."""
    s = meta[M_STRIDE]
    free = 0
    for o in (-1, 1, -s, s):
        if board[p + o] == EMPTY:
            free += 1
    if free >= 2:
        return 2
    npts = s * s
    opp = 3 - color
    # The friendly groups the stone joins (at most four heads; -1 matches none).
    f0 = -1
    f1 = -1
    f2 = -1
    f3 = -1
    nf = 0
    for o in (-1, 1, -s, s):
        q = p + o
        if board[q] == color:
            h = grp[G_HEAD * npts + q]
            if h != f0 and h != f1 and h != f2 and h != f3:
                if nf == 0:
                    f0 = h
                elif nf == 1:
                    f1 = h
                elif nf == 2:
                    f2 = h
                else:
                    f3 = h
                nf += 1
    l1 = 0
    for o in (-1, 1, -s, s):
        q = p + o
        v = board[q]
        if v == EMPTY:
            l1 = _note_lib(l1, q)
        elif v == color:
            g = grp[G_HEAD * npts + q]
            k = 0  # stones of g next to p: each is one pseudo-liberty at p
            for o2 in (-1, 1, -s, s):
                r = p + o2
                if board[r] == color and grp[G_HEAD * npts + r] == g:
                    k += 1
            y = lib_besides(grp, npts, g, p, k)
            if y == 0:
                continue
            l1 = _note_lib(l1, y)  # (y -1: two distinct other liberties)
        elif v == opp:
            c = grp[G_HEAD * npts + q]
            if atari_lib(grp, npts, c) != p:
                continue
            r = c  # walk the captured group's stones
            while True:
                touches = False
                for o2 in (-1, 1, -s, s):
                    t = r + o2
                    if t == p:
                        touches = True
                    elif board[t] == color:
                        h = grp[G_HEAD * npts + t]
                        if h == f0 or h == f1 or h == f2 or h == f3:
                            touches = True
                if touches:
                    l1 = _note_lib(l1, r)
                    if l1 < 0:
                        return 2
                r = grp[G_NEXT * npts + r]
                if r == c:
                    break
        if l1 < 0:
            return 2
    return 0 if l1 == 0 else 1


@njit(cache=True, inline="always")
def joins(board: Any, p: int, color: int, s: int) -> bool:
    for o in (-1, 1, -s, s):
        if board[p + o] == color:
            return True
    return False


@njit(cache=True, inline="always")
def legal(board: Any, grp: Any, meta: Any, p: int, color: int) -> bool:
    return board[p] == EMPTY and move_code(board, grp, meta, p, color, False) == LEGAL


@njit(cache=True, inline="always")
def _push_capture(board: Any, grp: Any, meta: Any, npts: int, q: int, color: int, cand: Any,
                  n: int) -> int:  # fmt: skip
    """Add the capture of the chain on ``q`` if it is the opponent's (of ``color``), in
    atari, and the capture is legal."""
    if board[q] != 3 - color:
        return n
    lib = atari_lib(grp, npts, grp[G_HEAD * npts + q])
    if lib != 0 and legal(board, grp, meta, lib, color):
        return push(cand, n, lib)
    return n


@njit(cache=True, _nrt=False)
def atari_moves(board: Any, grp: Any, meta: Any, last: int, color: int, cand: Any) -> int:
    """Captures of the last move's group, and escapes of our groups it put in atari."""
    s = meta[M_STRIDE]
    npts = s * s
    n = _push_capture(board, grp, meta, npts, last, color, cand, 0)
    for o in (-1, 1, -s, s):
        q = last + o
        if board[q] != color:
            continue
        g = grp[G_HEAD * npts + q]
        lib = atari_lib(grp, npts, g)
        if lib == 0:
            continue
        # capture an attacker in atari next to the group
        st = g
        while True:
            for o2 in (-1, 1, -s, s):
                n = _push_capture(board, grp, meta, npts, st + o2, color, cand, n)
            st = grp[G_NEXT * npts + st]
            if st == g:
                break
        # or run out
        if libs_after(board, grp, meta, lib, color) >= 2 and legal(board, grp, meta, lib, color):
            n = push(cand, n, lib)
    return n


@njit(cache=True, _nrt=False)
def capture_moves(board: Any, grp: Any, meta: Any, around: int, color: int, cand: Any) -> int:
    """Captures of enemy groups in atari among the eight neighbours of ``around``."""
    s = meta[M_STRIDE]
    npts = s * s
    n = 0
    for o in (-s - 1, -s, -s + 1, -1, 1, s - 1, s, s + 1):
        n = _push_capture(board, grp, meta, npts, around + o, color, cand, n)
    return n


# --------------------------------------------------------------------------- ladders


#: ladder reading: the deepest line read (plies) and the most positions visited
LADDER_DEPTH = 60
LADDER_NODES = 1000


@njit(cache=True)
def _ladder_options(bs: Any, gs: Any, ms: Any, d: int, prey: int, prey_moves: bool,
                    opts: Any) -> int:  # fmt: skip
    """The moves read at level ``d``: for the prey (its group in atari), its liberty and
    the captures of attacker stones in atari next to it; for the attacker (the prey has
    two liberties), the two ataris. -1: the prey is not in atari (it escaped) or, on the
    attacker's turn, has not two liberties (-2: one, it is lost)."""
    board = bs[d]
    grp = gs[d]
    meta = ms[d]
    s = meta[M_STRIDE]
    npts = s * s
    libs = np.empty(3, dtype=np.int64)
    if prey_moves:
        if _group_libs(board, grp, meta, prey, libs, 2) != 1:
            return -1
        opts[d, 0] = libs[0]
        k = 1
        color = board[prey]
        g = grp[G_HEAD * npts + prey]
        st = g
        while True:
            for o in (-1, 1, -s, s):
                t = st + o
                if board[t] == 3 - color and in_atari(grp, npts, t) and k < opts.shape[1]:
                    _group_libs(board, grp, meta, t, libs, 1)
                    opts[d, k] = libs[0]
                    k += 1
            st = grp[G_NEXT * npts + st]
            if st == g:
                break
        return k
    n = _group_libs(board, grp, meta, prey, libs, 3)
    if n != 2:
        return -2 if n <= 1 else -1
    # the ataris that are no self-atari, the one leaving the prey fewer empty points
    # to run to first (the ladder's direction): a wrong one is read to its end before
    # the right one otherwise, and may use up the budget
    attacker = 3 - board[prey]
    k = 0
    for i in range(2):
        a = libs[i]
        if count_libs_after(board, grp, meta, a, attacker, 2) >= 2:
            opts[d, k] = a
            k += 1
    if k == 2:
        room0 = 0
        room1 = 0
        for o in (-1, 1, -s, s):
            room0 += board[libs[1] + o] == EMPTY and libs[1] + o != libs[0]
            room1 += board[libs[0] + o] == EMPTY and libs[0] + o != libs[1]
        if room1 < room0:
            opts[d, 0] = libs[1]
            opts[d, 1] = libs[0]
    return k


@njit(cache=True)
def _ladder(bs: Any, gs: Any, ms: Any, prey: int, prey_moves: bool) -> bool:
    """Ladder reading from the state at level 0 of the stacks (``bs``, ``gs``, ``ms``):
    with ``prey_moves`` the prey's group (the stone on ``prey``) is in atari and its
    owner moves — True if it escapes (extending, or capturing an attacker in atari,
    reaches three liberties, or two from which the attacker cannot capture it); else
    the attacker moves against two liberties — True if one of its two ataris captures
    the prey whatever it does. A depth-first AND/OR search with an explicit stack (level
    ``d + 1`` holds the position after a move at level ``d``); beyond
    :data:`LADDER_DEPTH` plies or :data:`LADDER_NODES` positions the prey is taken to
    escape (nothing proved)."""
    depth = bs.shape[0]
    opts = np.empty((depth, 8), dtype=np.int64)
    count = np.zeros(depth, dtype=np.int64)
    idx = np.zeros(depth, dtype=np.int64)
    kind = np.zeros(depth, dtype=np.bool_)  # True: the prey moves at that level
    kind[0] = prey_moves
    c = _ladder_options(bs, gs, ms, 0, prey, prey_moves, opts)
    if c < 0:
        return (c == -1) if prey_moves else (c == -2)
    count[0] = c
    d = 0
    nodes = 0
    done = False  # the node at level d is decided, its mover winning if ``value``
    value = False
    while True:
        if done:
            if d == 0:
                return value
            d -= 1
            if not value:
                value = True  # the child's mover lost: this level's mover wins
                continue
            done = False
        if idx[d] >= count[d]:
            done = True
            value = False
            continue
        m = opts[d, idx[d]]
        idx[d] += 1
        board = bs[d]
        color = board[prey] if kind[d] else 3 - board[prey]
        if move_code(board, gs[d], ms[d], m, color, False) != LEGAL:
            continue
        copy_into(bs[d + 1], board)
        copy_into(gs[d + 1], gs[d])
        copy_into(ms[d + 1], ms[d])
        play(bs[d + 1], gs[d + 1], ms[d + 1], m, color)
        nodes += 1
        if bs[d + 1][prey] == EMPTY:  # captured
            if not kind[d]:
                done = True
                value = True
            continue
        beyond = d + 2 >= depth or nodes > LADDER_NODES
        c = _ladder_options(bs, gs, ms, d + 1, prey, not kind[d], opts)
        if kind[d]:
            if c == -1:  # three or more liberties
                done = True
                value = True
                continue
            if c == -2:  # still in atari after its own move
                continue
            if beyond:
                done = True
                value = True  # taken to escape
                continue
        else:
            if c < 0 or beyond:  # not in atari after all, or read too far: no capture
                continue
        kind[d + 1] = not kind[d]
        count[d + 1] = c
        idx[d + 1] = 0
        d += 1


@njit(cache=True)
def ladder_after(board: Any, grp: Any, meta: Any, p: int, prey: int, stacks: Any) -> bool:
    """After the side to move plays ``p``: is the group on ``prey`` caught in a ladder?
    (``prey`` the mover's own group with two liberties left: can the opponent capture
    it by ataris; or an opponent group ``p`` put in atari: can it not escape.)"""
    bs, gs, ms = stacks
    copy_into(bs[0], board)
    copy_into(gs[0], grp)
    copy_into(ms[0], meta)
    color = meta[M_TURN]
    play(bs[0], gs[0], ms[0], p, color)
    if bs[0][prey] == color:
        return _ladder(bs, gs, ms, prey, False)
    return not _ladder(bs, gs, ms, prey, True)


@njit(cache=True)
def new_stacks(stride: int) -> tuple[Any, Any, Any]:
    """Scratch states for :func:`ladder_after` on a board of that stride (rows are
    only touched as deep as a ladder goes)."""
    npts = stride * stride
    return (np.empty((LADDER_DEPTH, npts), dtype=np.int8),
            np.empty((LADDER_DEPTH, 8 * npts), dtype=np.int32),
            np.empty((LADDER_DEPTH, 12), dtype=np.int64))  # fmt: skip


# --------------------------------------------------------------------------- eye shapes


@njit(cache=True, _nrt=False)
def _region(board: Any, q: int, s: int, reg: Any) -> tuple[int, int]:
    """The empty region of ``q`` in ``reg`` when it has at most ``len(reg) - 1``
    points and every stone around it has one colour: (its size, that colour); (0, 0)
    otherwise."""
    reg[0] = q
    n = 1
    around = 0
    i = 0
    while i < n:
        p = reg[i]
        i += 1
        for o in (-1, 1, -s, s):
            r = p + o
            v = board[r]
            if v == EMPTY:
                seen = False
                for j in range(n):
                    if reg[j] == r:
                        seen = True
                        break
                if not seen:
                    if n == reg.shape[0] - 1:
                        return 0, 0
                    reg[n] = r
                    n += 1
            elif v != BORDER:
                if around == 0:
                    around = v
                elif v != around:
                    return 0, 0
    return n, around


@njit(cache=True, _nrt=False)
def vital_point(board: Any, q: int, s: int, reg: Any, owner: int = 0) -> int:
    """The vital point of the empty region of ``q`` if it is a killable eye shape
    enclosed by one colour (``owner``'s, unless 0; straight or bent three, pyramid four,
    bulky five, crossed five, rabbity six): whoever plays there first decides whether the
    group gets two eyes. 0 otherwise. ``reg`` is scratch room for seven points."""
    n, around = _region(board, q, s, reg)
    if n < 3 or around == 0 or (owner != 0 and around != owner):
        return 0
    best = 0
    best_deg = 0
    ties = 0
    square = False
    for i in range(n):
        p = reg[i]
        deg = 0
        right = False
        down = False
        diag = False
        for j in range(n):
            d = reg[j] - p
            if d == 1 or d == -1 or d == s or d == -s:
                deg += 1
            if d == 1:
                right = True
            elif d == s:
                down = True
            elif d == s + 1:
                diag = True
        if right and down and diag:
            square = True
        if deg > best_deg:
            best_deg = deg
            best = p
            ties = 1
        elif deg == best_deg:
            ties += 1
    if ties != 1:
        return 0
    if n == 3 or (n == 4 and best_deg == 3):
        return best
    if n == 5 and (square or best_deg == 4):
        return best
    if n == 6 and square and best_deg == 4:
        return best
    return 0
