"""Go knowledge for Monte-Carlo tree search: playout policy, tree priors, 3x3 patterns.

These are the Go kernels of the generic search in :mod:`banmen.search.mcts`
(:func:`kernels`; the contract is described there). A search state is the kernel position as a tuple
``(board, grp, meta)`` (see :mod:`.kernels`); ``ctx`` is ``(params, patterns, *weights)``:
an int64 array of the constants below, the 3x3 pattern table and the learned move weights'
arrays (:func:`context`).

Playout policy
--------------
After the opponent's move ``L`` the player to move tries, in this order (each step taken
with a probability, so that playouts stay varied; after Gelly, Wang, Munos and Teytaud,
"Modification of UCT with patterns in Monte-Carlo Go", INRIA RR-6062, 2006, the MoGo
paper):

1. **Atari**: capture ``L``'s group if it is in atari; if ``L`` put one of our groups in
   atari, save it by capturing an adjacent enemy group in atari, or by extending on its
   liberty when that leaves at least two liberties.
2. **3x3 patterns** on the empty points around ``L`` (the table below), unless the move
   would be a self-atari.
3. **Captures** of enemy groups in atari next to ``L`` or next to our own previous move.
4. A **random** move, never in the mover's own single-point eye (:func:`.kernels.is_eye`)
   and never a self-atari that joins existing stones (a lone-stone self-atari — a throw-in,
   a nakade — is kept with probability 1/2). With no such move the player passes.

Playouts end after two passes (or a ply limit) and are counted like
:func:`.kernels.playout_score`, komi included: the reward is 1 for a black win, 0 for a
white win, 1/2 for a draw.

Priors
------
A node's children get virtual visits and wins (equivalent experience, as in Gelly and
Silver, "Combining online and offline knowledge in UCT", ICML 2007): every move starts at
``EVEN`` visits with a 1/2 win rate, and each heuristic that holds adds ``w`` visits that
are all wins (good: captures, atari escapes, pattern moves, moves near the last move) or
all losses (bad: self-ataris, first-line moves with no stone near). Own single-point eyes
are never children; the pass always is, with a low prior.

3x3 patterns
------------
Written for banmen from the MoGo paper's pictures (hane, cut and edge shapes). ``X`` is the
player to move, ``O`` the opponent, ``.`` empty, ``#`` off the board, ``*`` anything,
``x`` "not X" (empty or O), ``o`` "not O" (empty or X); the move is the centre, and every
rotation and reflection matches too.
"""

# numba types these functions; mypy sees numba's untyped decorators and int64 scalars.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call"
# mypy: disable-error-code="call-overload, return-value, assignment"

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._bits import copy_into, mix64
from banmen._jit import kernel, njit
from banmen.games.go.features import (
    Weights,
    candidates,
    log_gammas,
    weights_for,
)
from banmen.games.go.kernels import (
    BLACK,
    BORDER,
    EMPTY,
    G_ELIST,
    G_EPOS,
    G_HEAD,
    G_SIZE,
    GOLDEN,
    LEGAL,
    M_LAST,
    M_NEMPTY,
    M_PASSES,
    M_RNG,
    M_SIZE,
    M_STRIDE,
    M_TURN,
    MAX_SIZE,
    PASS,
    WHITE,
    add_ownership,
    drop_candidate,
    is_eye,
    move_code,
    play,
    playout_score,
    rand_below,
    sides,
)
from banmen.games.go.tactics import (
    atari_lib,
    atari_moves,
    capture_moves,
    joins,
    legal,
    libs_after,
    push,
)
from banmen.search.mcts import MctsKernels

__all__ = [
    "PATTERNS",
    "pattern_table",
    "PARAMS",
    "context",
    "pattern_code",
    "policy_playout",
    "playout_ownership",
    "area_score",
    "go_copy",
    "go_to_move",
    "go_expand",
    "go_play",
    "go_playout",
    "go_evaluate",
    "kernels",
]

# --------------------------------------------------------------------------- patterns

#: The 3x3 shapes (see the module docstring), top row first, the move in the centre.
PATTERNS: dict[str, tuple[str, str, str]] = {
    # hane: answering a contact play by bending around the opponent's stone
    "hane-enclose": ("XOX", "...", "***"),
    "hane-plain": ("XO.", "...", "*.*"),
    "hane-bend": ("XO*", "X..", "*.*"),
    "hane-thin": ("XOO", "...", "o.o"),
    "diagonal-attach": (".O.", "X..", "..."),
    # cuts: separating two diagonal opponent stones, or peeping into a cut
    "cut-open": ("XO*", "O.o", "*o*"),
    "cut-peeped": ("XO*", "O.X", "***"),
    "cut-between": ("*X*", "O.O", "ooo"),
    # on the first line (the bottom row is off the board)
    "edge-chase": ("X.*", "O.*", "###"),
    "edge-block-cut": ("OX*", "X.O", "###"),
    "edge-block-link": ("*X*", "x.O", "###"),
    "edge-descend": ("*XO", "x.x", "###"),
    "edge-cut": ("*OX", "X.O", "###"),
}

#: the eight neighbours in pattern-code order, as (row step, column step)
_CELLS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _allowed(ch: str, me: int, opp: int) -> tuple[int, ...]:
    return {
        "X": (me,),
        "O": (opp,),
        ".": (EMPTY,),
        "#": (BORDER,),
        "*": (EMPTY, BLACK, WHITE, BORDER),
        "x": (EMPTY, opp),
        "o": (EMPTY, me),
    }[ch]


def _symmetries(rows: tuple[str, str, str]) -> list[tuple[str, ...]]:
    grid = [list(r) for r in rows]
    out = []
    for _ in range(4):
        grid = [list(r) for r in zip(*grid[::-1], strict=True)]  # rotate a quarter turn
        out.append(tuple("".join(r) for r in grid))
        out.append(tuple("".join(r[::-1]) for r in grid))  # and its mirror image
    return out


def pattern_table(patterns: dict[str, tuple[str, str, str]] | None = None) -> npt.NDArray[np.uint8]:
    """The 65536-entry table of 3x3 neighbourhoods (:func:`pattern_code`): bit 0 set if
    some pattern matches for black to play in the centre, bit 1 for white."""
    table = np.zeros(1 << 16, dtype=np.uint8)
    for rows in (patterns or PATTERNS).values():
        if len(rows) != 3 or any(len(r) != 3 for r in rows) or rows[1][1] != ".":
            raise ValueError(f"bad pattern {rows!r}: three rows of three, '.' in the centre")
        for me in (BLACK, WHITE):
            opp = 3 - me
            for sym in _symmetries(rows):
                choices = [_allowed(sym[1 - dr][1 + dc], me, opp) for dr, dc in _CELLS]
                for combo in itertools.product(*choices):
                    code = 0
                    for i, v in enumerate(combo):
                        code |= v << (2 * i)
                    table[code] |= 1 << (me - 1)
    return table


# --------------------------------------------------------------------------- parameters

# params[] slots
P_KOMI2 = 0  #: komi in half points
P_MAXPLY = 1  #: playout ply limit
P_EVEN = 2  #: prior visits every move gets, at a 1/2 win rate
P_CAPTURE = 3
P_ESCAPE = 4
P_PATTERN = 5
P_NEAR = 6
P_SELFATARI = 7
P_EDGE = 8
P_PASS = 9  #: the pass's prior win rate, per mille
P_ATARI_PROB = 10  #: playout step probabilities, per mille
P_PATTERN_PROB = 11
P_CAPTURE_PROB = 12
P_LONE_SA = 13  #: probability of keeping a lone-stone self-atari, per mille
P_LEARNED = 14  #: 1: priors from the learned move weights (:mod:`.features`); 0: hand-set
P_PRIOR_N = 15  #: learned priors: virtual visits a move gets
P_PRIOR_SCALE = 16  #: learned priors: slope of the prior win rate in log-odds, per mille
P_LEN = 17

#: default prior weights (virtual visits) and playout probabilities
PARAMS: dict[str, int] = {
    "even": 10,
    "capture": 30,
    "escape": 30,
    "pattern": 15,
    "near": 8,
    "selfatari": 30,
    "edge": 15,
    "pass": 100,
    "atari_prob": 950,
    "pattern_prob": 900,
    "capture_prob": 900,
    "lone_selfatari": 500,
    "learned": 1,
    "prior_visits": 30,
    "prior_scale": 700,
}
_SLOTS = {
    "even": P_EVEN,
    "capture": P_CAPTURE,
    "escape": P_ESCAPE,
    "pattern": P_PATTERN,
    "near": P_NEAR,
    "selfatari": P_SELFATARI,
    "edge": P_EDGE,
    "pass": P_PASS,
    "atari_prob": P_ATARI_PROB,
    "pattern_prob": P_PATTERN_PROB,
    "capture_prob": P_CAPTURE_PROB,
    "lone_selfatari": P_LONE_SA,
    "learned": P_LEARNED,
    "prior_visits": P_PRIOR_N,
    "prior_scale": P_PRIOR_SCALE,
}

_TABLE: npt.NDArray[np.uint8] | None = None


def context(
    size: int, komi: float, weights: Weights | None = None, /, **params: int
) -> tuple[Any, ...]:
    """``ctx`` for the Go kernels: komi, the playout length for ``size``, the prior and
    playout parameters (:data:`PARAMS`, overridable by name), the pattern table and the
    learned move weights (:meth:`.features.Weights.arrays`): ``weights`` (a user's file,
    the ``policy`` evaluator), else those banmen ships for ``size``."""
    global _TABLE
    if _TABLE is None:
        _TABLE = pattern_table()
    p = np.zeros(P_LEN, dtype=np.int64)
    k2 = komi * 2
    if k2 != int(k2):
        raise ValueError(f"komi {komi} is not a whole number of half points")
    p[P_KOMI2] = int(k2)
    p[P_MAXPLY] = 3 * size * size + 20
    for name, value in {**PARAMS, **params}.items():
        if name not in _SLOTS:
            raise ValueError(f"unknown Go search parameter {name!r}")
        p[_SLOTS[name]] = int(value)
    if weights is None:
        return (p, _TABLE, *weights_for(size).arrays())
    return (p, _TABLE, *weights.arrays())


# --------------------------------------------------------------------------- playout policy


@njit(cache=True, inline="always")
def pattern_code(board: Any, p: int, s: int) -> int:
    """The 16-bit code of ``p``'s eight neighbours (two bits each, :data:`_CELLS`
    order)."""
    return (
        np.int64(board[p - s - 1])
        | (np.int64(board[p - s]) << 2)
        | (np.int64(board[p - s + 1]) << 4)
        | (np.int64(board[p - 1]) << 6)
        | (np.int64(board[p + 1]) << 8)
        | (np.int64(board[p + s - 1]) << 10)
        | (np.int64(board[p + s]) << 12)
        | (np.int64(board[p + s + 1]) << 14)
    )


@njit(cache=True, _nrt=False)
def _pattern_moves(
    board: Any, grp: Any, meta: Any, pat: Any, last: int, color: int, cand: Any
) -> int:
    s = meta[M_STRIDE]
    bit = 1 << (color - 1)
    n = 0
    for o in (-s - 1, -s, -s + 1, -1, 1, s - 1, s, s + 1):
        q = last + o
        if board[q] != EMPTY:
            continue
        if (pat[pattern_code(board, q, s)] & bit) == 0:
            continue
        if legal(board, grp, meta, q, color) and libs_after(board, grp, meta, q, color) >= 2:
            n = push(cand, n, q)
    return n


@njit(cache=True, inline="always")
def _chance(meta: Any, per_mille: int) -> bool:
    return per_mille >= 1000 or rand_below(meta, 1000) < per_mille


@njit(cache=True, _nrt=False)
def _random_move(board: Any, grp: Any, meta: Any, color: int, lone_sa: int) -> int:
    """A random legal move that fills no own eye and is no bad self-atari, or PASS."""
    s = meta[M_STRIDE]
    npts = s * s
    base = G_ELIST * npts
    pos = G_EPOS * npts
    remaining = meta[M_NEMPTY]
    while remaining > 0:
        k = rand_below(meta, remaining)
        p = grp[base + k]
        ok = (
            not is_eye(board, p, color, s) and move_code(board, grp, meta, p, color, False) == LEGAL
        )
        if ok and libs_after(board, grp, meta, p, color) <= 1:
            if joins(board, p, color, s) or not _chance(meta, lone_sa):
                ok = False
        if ok:
            return p
        remaining = drop_candidate(grp, base, pos, k, remaining)
    return PASS


@njit(cache=True, _nrt=False)
def policy_move(
    params: Any, pat: Any, board: Any, grp: Any, meta: Any, prev: int, cand: Any
) -> int:
    """The playout policy's move for the side to move (module docstring); ``prev`` is the
    mover's own previous move (or PASS), ``pat`` the 3x3 pattern table
    (:func:`pattern_table`), ``cand`` room for 32 candidate moves."""
    color = meta[M_TURN]
    last = meta[M_LAST]
    if last != PASS:
        if _chance(meta, params[P_ATARI_PROB]):
            n = atari_moves(board, grp, meta, last, color, cand)
            if n > 0:
                return cand[rand_below(meta, n)]
        if _chance(meta, params[P_PATTERN_PROB]):
            n = _pattern_moves(board, grp, meta, pat, last, color, cand)
            if n > 0:
                return cand[rand_below(meta, n)]
    if _chance(meta, params[P_CAPTURE_PROB]):
        n = 0
        if last != PASS:
            n = capture_moves(board, grp, meta, last, color, cand)
        if n == 0 and prev != PASS:
            n = capture_moves(board, grp, meta, prev, color, cand)
        if n > 0:
            return cand[rand_below(meta, n)]
    return _random_move(board, grp, meta, color, params[P_LONE_SA])


@njit(cache=True, nogil=True)
def policy_playout(
    params: Any, pat: Any, board: Any, grp: Any, meta: Any, seq: Any, seqc: Any
) -> int:
    """Play the policy to the end (two passes, or ``params[P_MAXPLY]`` plies or the length
    of ``seq``); the moves go to ``seq`` and their colours to ``seqc``. Returns the number
    of moves played."""
    cand = np.empty(32, dtype=np.int64)
    limit = min(params[P_MAXPLY], seq.shape[0])
    n = 0
    prev = PASS
    last = meta[M_LAST]
    while meta[M_PASSES] < 2 and n < limit:
        color = meta[M_TURN]
        p = policy_move(params, pat, board, grp, meta, prev, cand)
        play(board, grp, meta, p, color)
        seq[n] = p
        seqc[n] = color
        n += 1
        prev = last
        last = p
    return n


@njit(cache=True, nogil=True)
def policy_ownership(
    params: Any, pat: Any, board: Any, grp: Any, meta: Any, n: int, seed: int, own: Any
) -> None:
    """``n`` playouts of the policy from the position (left unchanged), every other one
    with the other side to move first (a final position's tempo is nobody's); ``own[p]``
    (int64, one per point) adds +1 for each playout black owns ``p`` at the end and -1
    for white (:func:`.kernels.playout_score`'s owner of a point)."""
    b2 = board.copy()
    g2 = grp.copy()
    m2 = meta.copy()
    seq = np.empty(params[P_MAXPLY], dtype=np.int64)
    seqc = np.empty(params[P_MAXPLY], dtype=np.int64)
    rng = mix64(seed * GOLDEN + 1)
    for i in range(n):
        copy_into(b2, board)
        copy_into(g2, grp)
        copy_into(m2, meta)
        m2[M_PASSES] = 0
        m2[M_LAST] = PASS
        if i % 2 == 1:
            m2[M_TURN] = 3 - meta[M_TURN]
        m2[M_RNG] = rng
        policy_playout(params, pat, b2, g2, m2, seq, seqc)
        rng = m2[M_RNG]
        add_ownership(b2, m2, own)


def playout_ownership(ctx: tuple[Any, ...], pos: Any, n: int, seed: int, own: Any) -> None:
    """:func:`policy_ownership` of the kernel position ``pos`` (a
    :class:`.kernels.Position`) under ``ctx``'s parameters: ``n`` playouts' final owners
    added to ``own``."""
    policy_ownership(ctx[0], ctx[1], pos.board, pos.grp, pos.meta, n, seed, own)


@njit(cache=True)
def _reward(margin2: int) -> float:
    """1, 0 or 1/2 for a black margin in half points."""
    if margin2 > 0:
        return 1.0
    if margin2 < 0:
        return 0.0
    return 0.5


@njit(cache=True)
def area_score(board: Any, meta: Any) -> int:
    """Black's area minus white's (Tromp-Taylor: stones, and empty regions reaching one
    colour only; every stone counts as alive), no komi."""
    s = meta[M_STRIDE]
    n = meta[M_SIZE]
    npts = s * s
    seen = np.zeros(npts, dtype=np.int8)
    stack = np.empty(npts, dtype=np.int64)
    score = 0
    for r in range(1, n + 1):
        for c in range(1, n + 1):
            p = r * s + c
            v = board[p]
            if v == BLACK:
                score += 1
            elif v == WHITE:
                score -= 1
            elif seen[p] == 0:
                seen[p] = 1
                top = 0
                stack[top] = p
                top += 1
                size = 0
                reach = 0
                while top > 0:
                    top -= 1
                    q = stack[top]
                    size += 1
                    for o in (-1, 1, -s, s):
                        u = q + o
                        w = board[u]
                        if w == EMPTY:
                            if seen[u] == 0:
                                seen[u] = 1
                                stack[top] = u
                                top += 1
                        elif w == BLACK or w == WHITE:
                            reach |= w
                if reach == BLACK:
                    score += size
                elif reach == WHITE:
                    score -= size
    return score


# --------------------------------------------------------------------------- MCTS kernels


@kernel
def go_copy(ctx: Any, src: Any, dst: Any) -> None:
    """``dst := src``, keeping ``dst``'s random state (the playouts' generator)."""
    rng = dst[2][M_RNG]
    copy_into(dst[0], src[0])
    copy_into(dst[1], src[1])
    copy_into(dst[2], src[2])
    dst[2][M_RNG] = rng


@kernel
def go_to_move(ctx: Any, st: Any) -> int:
    return st[2][M_TURN]


@kernel
def go_play(ctx: Any, st: Any, move: int) -> None:
    play(st[0], st[1], st[2], move, st[2][M_TURN])


@kernel
def go_expand(ctx: Any, st: Any, moves: Any, prior_n: Any, prior_w: Any) -> int:
    """The children of a position with their priors (module docstring); 0 after two
    passes."""
    params = ctx[0]
    pat = ctx[1]
    board = st[0]
    grp = st[1]
    meta = st[2]
    if meta[M_PASSES] >= 2:
        return 0
    s, size, npts, color, opp, last = sides(meta)
    lr = last // s
    lc = last - lr * s
    bit = 1 << (color - 1)
    even = float(params[P_EVEN])
    moves[0] = PASS
    prior_n[0] = even
    prior_w[0] = even * params[P_PASS] / 1000.0
    if params[P_LEARNED] != 0:
        return _learned_priors(ctx, st, moves, prior_n, prior_w)
    count = 1 + candidates(board, grp, meta, moves[1:])
    for k in range(1, count):
        p = moves[k]
        r = p // s
        c = p - r * s
        n = even
        w = even * 0.5
        cap = 0
        esc = 0
        for o in (-1, 1, -s, s):
            v = board[p + o]
            if v == opp or v == color:
                g = grp[G_HEAD * npts + p + o]
                if atari_lib(grp, npts, g) == p:
                    if v == opp:
                        cap += grp[G_SIZE * npts + g]
                    else:
                        esc += grp[G_SIZE * npts + g]
        libs = libs_after(board, grp, meta, p, color)
        if cap > 0:
            n += params[P_CAPTURE]
            w += params[P_CAPTURE]
        elif libs <= 1:
            n += params[P_SELFATARI]
        if esc > 0 and libs >= 2:
            n += params[P_ESCAPE]
            w += params[P_ESCAPE]
        if (pat[pattern_code(board, p, s)] & bit) != 0:
            n += params[P_PATTERN]
            w += params[P_PATTERN]
        if last != PASS and abs(r - lr) <= 2 and abs(c - lc) <= 2:
            n += params[P_NEAR]
            w += params[P_NEAR]
        line = min(min(r, c), min(size + 1 - r, size + 1 - c))
        if line == 1 and size >= 9:
            near = 0
            for r2 in range(max(1, r - 2), min(size, r + 2) + 1):
                for c2 in range(max(1, c - 2), min(size, c + 2) + 1):
                    if board[r2 * s + c2] != EMPTY:
                        near += 1
            if near == 0:
                n += params[P_EDGE]
        prior_n[k] = n
        prior_w[k] = w
    return count


@njit(cache=True)
def _learned_priors(ctx: Any, st: Any, moves: Any, prior_n: Any, prior_w: Any) -> int:
    """Priors from the learned move weights: a move whose weight is the share ``pi`` of
    all candidates' gets ``prior_visits`` virtual visits at the win rate
    ``sigmoid(scale * log(pi * n))`` (``n`` candidates: an average move starts at 1/2)."""
    params = ctx[0]
    w = (ctx[2], ctx[3], ctx[4], ctx[5], ctx[6])
    lg = np.empty(moves.shape[0], dtype=np.float64)
    n = log_gammas(w, st[0], st[1], st[2], moves[1:], lg)
    if n == 0:
        return 1
    top = lg[:n].max()
    z = 0.0
    for i in range(n):
        z += math.exp(lg[i] - top)
    base = top + math.log(z) - math.log(n)  # log of the mean gamma
    pn = float(params[P_PRIOR_N])
    scale = params[P_PRIOR_SCALE] / 1000.0
    for i in range(n):
        q = 1.0 / (1.0 + math.exp(-scale * (lg[i] - base)))
        prior_n[i + 1] = pn
        prior_w[i + 1] = pn * q
    return n + 1


@kernel
def go_playout(ctx: Any, st: Any, seq: Any, seqc: Any) -> tuple[float, int]:
    """Play the policy to the end: (reward for black, moves played)."""
    params = ctx[0]
    n = policy_playout(params, ctx[1], st[0], st[1], st[2], seq, seqc)
    return _reward(2 * playout_score(st[0], st[2]) - params[P_KOMI2]), n


@kernel
def go_evaluate(ctx: Any, st: Any) -> float:
    """Reward for black of a finished game (two passes): Tromp-Taylor area counting."""
    return _reward(2 * area_score(st[0], st[2]) - ctx[0][P_KOMI2])


def kernels() -> MctsKernels:
    """The Go :class:`~banmen.search.mcts.MctsKernels` (any size up to 19x19)."""
    s = MAX_SIZE + 2
    return MctsKernels(
        go_copy, go_to_move, go_expand, go_play, go_playout, go_evaluate,
        max_moves=s * s, max_playout=3 * MAX_SIZE * MAX_SIZE + 20, amaf_skip=PASS,
        keep_first=1,  # the pass, which go_expand puts first
        pointers=True,  # the loop's compile links none of Go's code (compiled beside it)
    )  # fmt: skip
