"""Move features and their learned weights: the Go engine's knowledge of good shape.

Every candidate move is described by one *level* in each of a few feature groups, and each
level has a weight ``gamma`` learned from game records (the generalised Bradley-Terry model
of Rémi Coulom, "Computing Elo ratings of move patterns in the game of Go", ICGA Journal
30(4), 2007): the probability that a player chooses move ``m`` among the legal moves is
``gamma(m) / sum(gamma)``, where ``gamma(m)`` is the product of its levels' gammas. The
weights are fitted by ``tools/go_patterns.py`` (minorization-maximization) from GNU Go's
self-play games, and ship as ``data/patterns-9x9.npz`` and ``data/patterns-19x19.npz``
(boards up to 11x11 use the first, larger ones the second).

The groups (:data:`GROUPS`), for the player to move ``X`` against ``O``:

``pat3``
    The 3x3 neighbourhood: each of the 8 neighbours empty, ``X``, ``O`` or off the board,
    and for the four orthogonal neighbours whether the stone there is in atari. Up to
    rotation and reflection (colours are relative to the mover already).
``pat12``
    The same for the 12 points within Manhattan distance 2 (the 3x3 square and the four
    points two steps away), atari marks on the four orthogonal neighbours.
``capture``
    0 none; 1 captures the last move's stones; 2 captures stones next to an ``X`` group
    in atari (saving it); 3 captures one stone; 4 captures more.
``escape``
    0 none; the move is the last liberty of an ``X`` group and extends it to 1 two
    liberties, 2 three or more, 3 two liberties from which ``O`` captures it in a ladder
    (:func:`.tactics.ladder_after`).
``selfatari``
    0 none; the move leaves its own group one liberty (and captures nothing): 1 a lone
    stone (a throw-in), 2 joined to other stones.
``atari``
    0 none; 1 leaves an ``O`` group next to it with one liberty (not a self-atari); 2 and
    such a group cannot escape a ladder.
``dist``
    Distance to the last move, ``dx + dy + max(dx, dy)`` (2 for an adjacent point), one
    level each for 2 .. 16 and one for 17 and beyond; 0 when the last move was a pass.
``line``
    The move's distances to the two nearest edges (1 .. 5, 5 meaning 5 or more, as an
    unordered pair: the 3-4 point, the 4-4 point), and whether any stone is within
    two points in both directions (an empty area).

Patterns are looked up in sorted arrays of codes holding every rotation and reflection
of each learned pattern; a pattern not learned takes the group's level 0.

:func:`move_features` computes the levels of one move (training and play share it);
:func:`log_gammas` the log-weights of all moves of a position for the search's priors.
"""

# numba types these functions; mypy sees numba's untyped decorators and int64 scalars.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call"
# mypy: disable-error-code="call-overload, return-value, assignment"

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._jit import njit
from banmen.games.go.kernels import (
    BORDER,
    EMPTY,
    G_HEAD,
    G_NEXT,
    G_SIZE,
    M_SIZE,
    M_STRIDE,
    M_TURN,
    PASS,
    gen_moves,
    is_eye,
    sides,
)
from banmen.games.go.tactics import (
    count_libs_after,
    in_atari,
    ladder_after,
    new_stacks,
    two_libs_with,
)

__all__ = [
    "GROUPS",
    "LEVELS",
    "Weights",
    "weights_for",
    "move_features",
    "all_features",
    "log_gammas",
    "canonical",
    "symmetric_codes",
    "candidates",
]

#: the feature groups, in the order of a feature vector
GROUPS = ("pat3", "pat12", "capture", "escape", "selfatari", "atari", "dist", "line")
F_PAT3, F_PAT12, F_CAPTURE, F_ESCAPE, F_SELFATARI, F_ATARI, F_DIST, F_LINE = range(8)
NGROUPS = len(GROUPS)
#: levels of the non-pattern groups (patterns have as many as were learned, plus one)
LEVELS = {"capture": 5, "escape": 4, "selfatari": 3, "atari": 3, "dist": 17, "line": 30}

# pattern cells as (row step, column step): the 3x3 ring first, then the four points two
# away; cells 1, 3, 4, 6 are the orthogonal neighbours, which carry atari marks
_CELLS = (
    (-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1),
    (-2, 0), (0, -2), (0, 2), (2, 0),
)  # fmt: skip
# cell states in a code (2 bits a cell): relative to the mover
S_EMPTY, S_MINE, S_THEIRS, S_OFF = 0, 1, 2, 3


def _perms() -> npt.NDArray[np.int64]:
    """``perm[k, i]``: the cell that cell ``i`` goes to under symmetry ``k`` (8 of them)."""
    index = {c: i for i, c in enumerate(_CELLS)}
    out = np.zeros((8, len(_CELLS)), dtype=np.int64)
    for k in range(8):
        for i, (r, c) in enumerate(_CELLS):
            for _ in range(k % 4):
                r, c = c, -r  # a quarter turn
            if k >= 4:
                c = -c  # mirror
            out[k, i] = index[(r, c)]
    return out


PERMS = _perms()
_DR = np.array([d[0] for d in _CELLS], dtype=np.int64)
_DC = np.array([d[1] for d in _CELLS], dtype=np.int64)
#: the atari bit of each orthogonal neighbour cell (1, 3, 4, 6 -> 0 .. 3)
_ORTH_BIT = {1: 0, 3: 1, 4: 2, 6: 3}
_OBIT = np.array([_ORTH_BIT.get(i, -1) for i in range(len(_CELLS))], dtype=np.int64)


@njit(cache=True)
def _code(board: Any, grp: Any, meta: Any, p: int, color: int, ncells: int) -> int:
    """The pattern code of ``p``: 2 bits a cell (:data:`_CELLS` order, the first
    ``ncells``), then 4 atari bits for the orthogonal neighbours."""
    s = meta[M_STRIDE]
    size = meta[M_SIZE]
    npts = s * s
    r = p // s
    c = p - r * s
    code = 0
    atari = 0
    for i in range(ncells):
        dr = _DR[i]
        dc = _DC[i]
        rr = r + dr
        cc = c + dc
        if rr < 1 or rr > size or cc < 1 or cc > size:
            v = S_OFF
        else:
            q = rr * s + cc
            x = board[q]
            if x == EMPTY:
                v = S_EMPTY
            elif x == BORDER:  # pragma: no cover - inside the board
                v = S_OFF
            else:
                v = S_MINE if x == color else S_THEIRS
                if _OBIT[i] >= 0 and in_atari(grp, npts, q):
                    atari |= 1 << _OBIT[i]
        code |= v << (2 * i)
    return code | (atari << (2 * ncells))


def _transform(code: int, k: int, ncells: int) -> int:
    """``code`` under symmetry ``k``."""
    out = 0
    for i in range(ncells):
        out |= ((code >> (2 * i)) & 3) << (2 * int(PERMS[k, i]))
    atari = code >> (2 * ncells)
    for i, b in _ORTH_BIT.items():
        if atari >> b & 1:
            out |= 1 << (2 * ncells + _ORTH_BIT[int(PERMS[k, i])])
    return out


def symmetric_codes(code: int, ncells: int) -> set[int]:
    """Every rotation and reflection of a pattern code."""
    return {_transform(code, k, ncells) for k in range(8)}


def canonical(code: int, ncells: int) -> int:
    """The least code among a pattern's rotations and reflections."""
    return min(symmetric_codes(code, ncells))


# --------------------------------------------------------------------------- features


@njit(cache=True)
def move_features(board: Any, grp: Any, meta: Any, p: int, out: Any, stacks: Any) -> None:
    """The levels of the move ``p`` (an empty point) for the side to move, written to
    ``out[2:]``; ``out[0]`` and ``out[1]`` get the raw 3x3 and 12-point pattern codes
    (module docstring)."""
    s, size, npts, color, opp, last = sides(meta)
    out[F_PAT3] = _code(board, grp, meta, p, color, 8)
    out[F_PAT12] = _code(board, grp, meta, p, color, 12)
    # captures, escapes, ataris
    capture = 0
    escape = False
    atari = False
    preys = np.zeros(4, dtype=np.int64)
    npreys = 0
    for o in (-1, 1, -s, s):
        q = p + o
        v = board[q]
        if v == opp:
            g = grp[G_HEAD * npts + q]
            if in_atari(grp, npts, q):
                level = 3 if grp[G_SIZE * npts + g] == 1 else 4
                if last != PASS and board[last] == opp and grp[G_HEAD * npts + last] == g:
                    level = 1
                else:
                    # an X group in atari touching the captured stones is saved
                    st = g
                    while True:
                        for o2 in (-1, 1, -s, s):
                            t = st + o2
                            if board[t] == color and in_atari(grp, npts, t):
                                level = 2
                        st = grp[G_NEXT * npts + st]
                        if st == g:
                            break
                if capture == 0 or level < capture:
                    capture = level
            else:
                k = 0
                for o2 in (-1, 1, -s, s):
                    if board[p + o2] == opp and grp[G_HEAD * npts + p + o2] == g:
                        k += 1
                if two_libs_with(grp, npts, g, p, k):
                    atari = True
                    preys[npreys] = q
                    npreys += 1
        elif v == color and in_atari(grp, npts, q):
            escape = True
    libs = count_libs_after(board, grp, meta, p, color, 3)
    out[F_CAPTURE] = capture
    out[F_ESCAPE] = 0 if not escape or libs < 2 else (1 if libs == 2 else 2)
    if out[F_ESCAPE] == 1 and ladder_after(board, grp, meta, p, p, stacks):
        out[F_ESCAPE] = 3
    if capture == 0 and libs <= 1:
        joins = False
        for o in (-1, 1, -s, s):
            if board[p + o] == color:
                joins = True
        out[F_SELFATARI] = 2 if joins else 1
        atari = False
    else:
        out[F_SELFATARI] = 0
    out[F_ATARI] = 0
    if atari:
        out[F_ATARI] = 1
        for i in range(npreys):
            if ladder_after(board, grp, meta, p, preys[i], stacks):
                out[F_ATARI] = 2
                break
    # distance to the last move
    r = p // s
    c = p - r * s
    if last == PASS:
        out[F_DIST] = 0
    else:
        lr = last // s
        lc = last - lr * s
        dx = abs(r - lr)
        dy = abs(c - lc)
        d = dx + dy + max(dx, dy)
        out[F_DIST] = min(d, 17) - 1
    # edges and the empty area
    a = min(min(r, size + 1 - r), 5)
    b = min(min(c, size + 1 - c), 5)
    lo = min(a, b)
    hi = max(a, b)
    pair = (lo - 1) * 5 - (lo - 1) * (lo - 2) // 2 + (hi - lo)  # 0 .. 14
    empty = 1
    for r2 in range(max(1, r - 2), min(size, r + 2) + 1):
        for c2 in range(max(1, c - 2), min(size, c + 2) + 1):
            if board[r2 * s + c2] != EMPTY:
                empty = 0
    out[F_LINE] = 2 * pair + empty


@njit(cache=True)
def candidates(board: Any, grp: Any, meta: Any, moves: Any) -> int:
    """The moves the engine considers (legal, not the mover's own single-point eye; no
    pass), in point order, into ``moves``; returns how many."""
    s = meta[M_STRIDE]
    color = meta[M_TURN]
    n = 0
    for i in range(gen_moves(board, grp, meta, color, False, moves)):
        p = moves[i]
        if not is_eye(board, p, color, s):
            moves[n] = p
            n += 1
    return n


@njit(cache=True)
def all_features(board: Any, grp: Any, meta: Any, moves: Any, feats: Any) -> int:
    """The :func:`candidates` into ``moves`` and their features into ``feats`` (one row
    each); returns how many."""
    stacks = new_stacks(meta[M_STRIDE])
    n = candidates(board, grp, meta, moves)
    for i in range(n):
        move_features(board, grp, meta, moves[i], feats[i], stacks)
    return n


# --------------------------------------------------------------------------- weights


@dataclass(frozen=True)
class Weights:
    """Learned log-gammas: ``levels[g, k]`` for level ``k`` of non-pattern group ``g``
    (row per :data:`GROUPS` entry; pattern rows hold the unlearned pattern's weight at
    0), and per pattern size the sorted codes of every symmetric form of the learned
    patterns with their log-gammas."""

    levels: npt.NDArray[np.float64]
    pat3_codes: npt.NDArray[np.int64]
    pat3_lg: npt.NDArray[np.float64]
    pat12_codes: npt.NDArray[np.int64]
    pat12_lg: npt.NDArray[np.float64]
    info: str = ""

    def save(self, path: Any) -> None:
        """Write the weights to ``path``, their header first (:data:`HEADER`: the Go
        ``policy`` evaluator's file, :mod:`banmen.weights`)."""
        meta = np.array([f"{k}={v}" for k, v in {**HEADER, "shape": _shape_of(self)}.items()])
        with open(path, "wb") as f:  # (np.savez would add ".npz" to a name without it)
            np.savez_compressed(
                f, meta=meta, levels=self.levels, pat3_codes=self.pat3_codes,
                pat3_lg=self.pat3_lg, pat12_codes=self.pat12_codes, pat12_lg=self.pat12_lg,
                info=np.array(self.info),
            )  # fmt: skip

    @classmethod
    def load(cls, path: Any) -> Weights:
        """The weights of the file ``path``, checked (:func:`banmen.weights.open_weights`:
        a regular file, no pickles, its header naming the Go ``policy`` evaluator and the
        levels' shape); :class:`~banmen.weights.WeightsError`, one line, if not."""
        from pathlib import Path

        from banmen.weights import open_weights

        expect = {**HEADER, "shape": f"{NGROUPS}x{MAX_LEVEL}"}
        with open_weights(Path(path), expect, "Go's move weights (the policy evaluator)") as z:
            w = cls(
                z["levels"].astype(np.float64), z["pat3_codes"].astype(np.int64),
                z["pat3_lg"].astype(np.float64), z["pat12_codes"].astype(np.int64),
                z["pat12_lg"].astype(np.float64), str(z["info"]),
            )  # fmt: skip
            if w.levels.shape != (NGROUPS, MAX_LEVEL):
                raise ValueError(f"its levels are {w.levels.shape}, not {(NGROUPS, MAX_LEVEL)}")
            if w.pat3_codes.shape != w.pat3_lg.shape or w.pat12_codes.shape != w.pat12_lg.shape:
                raise ValueError("its pattern codes and weights differ in length")
        return w

    @classmethod
    def from_canonical(
        cls,
        levels: npt.NDArray[np.float64],
        pat3: dict[int, float],
        pat12: dict[int, float],
        info: str = "",
    ) -> Weights:
        """Weights from canonical pattern codes (each expanded to its symmetric forms)."""

        def expand(pats: dict[int, float], ncells: int) -> tuple[Any, Any]:
            table: dict[int, float] = {}
            for code, lg in pats.items():
                for sym in symmetric_codes(code, ncells):
                    table[sym] = lg
            keys = np.array(sorted(table), dtype=np.int64)
            return keys, np.array([table[int(k)] for k in keys], dtype=np.float64)

        c3, l3 = expand(pat3, 8)
        c12, l12 = expand(pat12, 12)
        return cls(np.asarray(levels, dtype=np.float64), c3, l3, c12, l12, info)

    def arrays(self) -> tuple[Any, Any, Any, Any, Any]:
        return self.levels, self.pat3_codes, self.pat3_lg, self.pat12_codes, self.pat12_lg


#: the columns of :attr:`Weights.levels` (the most levels a feature group has)
MAX_LEVEL = max(LEVELS.values())
#: what a Go weights file's header says (with its ``shape``, the levels' rows x columns)
HEADER = {"evaluator": "policy", "game": "go"}


def _shape_of(w: Weights) -> str:
    return "x".join(str(n) for n in w.levels.shape)


def _data_name(size: int) -> str:
    return "patterns-9x9.npz" if size <= 11 else "patterns-19x19.npz"


@cache
def _load(name: str) -> Weights:
    with resources.as_file(resources.files("banmen.games.go") / "data" / name) as path:
        return Weights.load(path)


def weights_for(size: int) -> Weights:
    """The shipped weights for a board of ``size`` (module docstring)."""
    return _load(_data_name(size))


@njit(cache=True, inline="always")
def _lookup(codes: Any, lg: Any, code: int, other: float) -> float:
    i = np.searchsorted(codes, code)
    if i < codes.shape[0] and codes[i] == code:
        return lg[i]
    return other


@njit(cache=True)
def move_log_gamma(w: Any, f: Any) -> float:
    """The log-gamma of a move with features ``f`` under weights ``w``
    (:meth:`Weights.arrays`)."""
    levels = w[0]
    t = _lookup(w[1], w[2], f[F_PAT3], levels[F_PAT3, 0])
    t += _lookup(w[3], w[4], f[F_PAT12], levels[F_PAT12, 0])
    for g in range(2, NGROUPS):
        t += levels[g, f[g]]
    return t


@njit(cache=True)
def log_gammas(w: Any, board: Any, grp: Any, meta: Any, moves: Any, lg: Any) -> int:
    """The :func:`candidates` into ``moves`` and their log-gammas under weights ``w``
    into ``lg``; returns how many."""
    f = np.zeros(NGROUPS, dtype=np.int64)
    stacks = new_stacks(meta[M_STRIDE])
    n = candidates(board, grp, meta, moves)
    for i in range(n):
        move_features(board, grp, meta, moves[i], f, stacks)
        lg[i] = move_log_gamma(w, f)
    return n
