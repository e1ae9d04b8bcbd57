"""Othello's learned pattern evaluation: weight tables over the classic board patterns.

The value of a position for the side to move is a sum of table weights, one per pattern
instance, plus a few global features, with one set of tables per game phase:

* **Patterns** (:data:`PATTERNS`): the 3x3 and 2x5 corners, the edges with their two
  X-squares, the second to fourth rows and columns, and the diagonals of lengths 4-8 —
  the set the strong programs use since Buro's Logistello ("Experiments with Multi-ProbCut
  and a new high-quality evaluation function for Othello", 1997). Each pattern is looked
  at in all its orientations (:func:`instances`, 46 in all); the orientations of one
  pattern share a table, indexed by the squares read in a fixed order, each square a
  ternary digit (0 empty, 1 the mover's, 2 the opponent's).
* **Mobility**: the mover's and the opponent's number of legal moves (capped at 30),
  each with its own small table.
* **Bias**: one weight (the tempo of being to move at that phase).

The phase is the number of empties over 5 (:data:`PHASES` = 12 sets). Weights are in
centi-discs (:data:`~banmen.games.othello.evaluation.SCALE`); they are fitted by
``tools/othello_train.py`` from positions banmen labels itself (exact solves near the
end, deeper searches above) and ship as ``data/othello-patterns.npz``.
"""

# numba types the compiled functions; mypy sees numba's untyped decorators and int64s.
# mypy: disable-error-code="misc, no-any-return, return-value, operator, untyped-decorator"

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._bits import popcnt64
from banmen._jit import njit
from banmen.games.othello.kernels import U, moves

__all__ = [
    "PATTERNS",
    "PHASES",
    "N_FEATURES",
    "N_INSTANCES",
    "instances",
    "phase_of",
    "feature_indices",
    "batch_indices",
    "pattern_value",
    "Weights",
    "load_weights",
    "canonical_map",
    "no_probcut",
    "PROBCUT_DEPTHS",
    "symmetrize",
    "WEIGHTS_FILE",
    "HEADER",
]

#: The base patterns, their squares in reading order (the first digit is the most
#: significant).
PATTERNS: dict[str, tuple[str, ...]] = {
    "corner3x3": ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"),
    "corner2x5": ("a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"),
    "edge2x": ("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "b2", "g2"),
    "line2": ("a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"),
    "line3": ("a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3"),
    "line4": ("a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"),
    "diag8": ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"),
    "diag7": ("b1", "c2", "d3", "e4", "f5", "g6", "h7"),
    "diag6": ("c1", "d2", "e3", "f4", "g5", "h6"),
    "diag5": ("d1", "e2", "f3", "g4", "h5"),
    "diag4": ("e1", "f2", "g3", "h4"),
}
PHASES = 12  #: weight sets: empties 0-4, 5-9, ..., 55-60
MOBILITY_CAP = 30
WEIGHTS_FILE = "othello-patterns.npz"


def _square(name: str) -> int:
    return (int(name[1]) - 1) * 8 + ord(name[0]) - ord("a")


def _symmetries(sq: int) -> list[int]:
    """The images of ``sq`` under the board's eight symmetries."""
    r, c = divmod(sq, 8)
    pts = [(r, c), (r, 7 - c), (7 - r, c), (7 - r, 7 - c),
           (c, r), (c, 7 - r), (7 - c, r), (7 - c, 7 - r)]  # fmt: skip
    return [a * 8 + b for a, b in pts]


def instances() -> list[tuple[str, tuple[int, ...]]]:
    """Every distinct orientation of every pattern: ``(pattern name, squares in reading
    order)``; orientations that cover the same squares are counted once."""
    out = []
    for name, squares in PATTERNS.items():
        seen: set[frozenset[int]] = set()
        base = [_symmetries(_square(s)) for s in squares]
        for k in range(8):
            sqs: tuple[int, ...] = tuple(b[k] for b in base)
            if frozenset(sqs) not in seen:
                seen.add(frozenset(sqs))
                out.append((name, sqs))
    return out


def _layout() -> tuple[npt.NDArray[np.int64], ...]:
    inst = instances()
    offsets: dict[str, int] = {}
    total = 0
    for name, squares in PATTERNS.items():
        offsets[name] = total
        total += 3 ** len(squares)
    sq = np.full((len(inst), 10), -1, dtype=np.int64)
    length = np.zeros(len(inst), dtype=np.int64)
    off = np.zeros(len(inst), dtype=np.int64)
    for k, (name, points) in enumerate(inst):
        sq[k, : len(points)] = points
        length[k] = len(points)
        off[k] = offsets[name]
    extra = np.array([total, total + MOBILITY_CAP + 1, total + 2 * (MOBILITY_CAP + 1)])
    return sq, length, off, extra


_SQ, _LEN, _OFF, _EXTRA = _layout()


def canonical_map() -> npt.NDArray[np.int64]:
    """For every weight, the one that stands for it: a pattern whose squares some board
    symmetry maps onto themselves in another order (a line read backwards, the 3x3
    corner mirrored in its diagonal, the edge mirrored) gives the same configuration two
    indices; both map to the smaller. Fitting over the representatives and copying them
    back (:func:`symmetrize`) makes the evaluation the same on all eight symmetric images
    of a position."""
    out = np.arange(N_FEATURES, dtype=np.int64)
    offset = 0
    for squares in PATTERNS.values():
        base = [_square(x) for x in squares]
        n = len(base)
        perms = []
        for k in range(1, 8):
            img = [_symmetries(q)[k] for q in base]
            if set(img) == set(base) and img != base:
                perms.append([base.index(q) for q in img])  # digit j goes to perms[j]
        digits = np.zeros((3**n, n), dtype=np.int64)
        idx = np.arange(3**n)
        for j in range(n):  # digit j of index i (j = 0 the most significant)
            digits[:, j] = (idx // 3 ** (n - 1 - j)) % 3
        best = idx.copy()
        for perm in perms:
            moved = np.zeros(3**n, dtype=np.int64)
            for j in range(n):
                moved += digits[:, j] * 3 ** (n - 1 - perm[j])
            best = np.minimum(best, moved)
        out[offset : offset + 3**n] = offset + best
        offset += 3**n
    return out


def symmetrize(table: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``table`` with every weight replaced by its representative's
    (:func:`canonical_map`)."""
    return np.ascontiguousarray(table[..., canonical_map()])


N_INSTANCES = int(_SQ.shape[0])  #: pattern instances (46)
N_INDICES = N_INSTANCES + 3  #: weights summed for one position
N_FEATURES = int(_EXTRA[2]) + 1  #: weights in one phase's table
#: what a weights file says of itself: whose weights they are, and their shape
HEADER = {"evaluator": "patterns", "game": "othello", "shape": f"{PHASES}x{N_FEATURES}"}
_MOB = int(_EXTRA[0])
_OMOB = int(_EXTRA[1])
_BIAS = int(_EXTRA[2])


@njit(cache=True, inline="always")
def phase_of(empties: int) -> int:
    return min(np.int64(empties), np.int64(59)) // 5


@njit(cache=True, inline="always")
def _instance_index(P: Any, O: Any, k: int) -> Any:
    """The weight index of pattern instance ``k``: its squares as ternary digits (0
    empty, 1 the mover's, 2 the opponent's), after its pattern's offset."""
    idx = np.int64(0)
    for j in range(_LEN[k]):
        s = U(_SQ[k, j])
        idx = idx * 3 + np.int64((P >> s) & U(1)) + 2 * np.int64((O >> s) & U(1))
    return _OFF[k] + idx


@njit(cache=True)
def feature_indices(P: Any, O: Any, out: Any) -> int:
    """The weight indices of a position (``P`` to move) into ``out[:N_INDICES]``;
    returns its phase."""
    for k in range(N_INSTANCES):
        out[k] = _instance_index(P, O, k)
    out[N_INSTANCES] = _MOB + min(np.int64(popcnt64(moves(P, O))), MOBILITY_CAP)
    out[N_INSTANCES + 1] = _OMOB + min(np.int64(popcnt64(moves(O, P))), MOBILITY_CAP)
    out[N_INSTANCES + 2] = _BIAS
    return phase_of(popcnt64(~(P | O)))


@njit(cache=True)
def batch_indices(Ps: Any, Os: Any, idx: Any, phases: Any) -> None:
    """:func:`feature_indices` for many positions: ``idx[i]`` and ``phases[i]``."""
    for i in range(Ps.shape[0]):
        phases[i] = feature_indices(Ps[i], Os[i], idx[i])


@njit(cache=True)
def pattern_value(W: Any, P: Any, O: Any) -> int:
    """The evaluation of a position (``P`` to move) in centi-discs under weights ``W``
    (``PHASES x N_FEATURES``)."""
    ph = phase_of(popcnt64(~(P | O)))
    row = W[ph]
    v = np.int64(0)
    for k in range(N_INSTANCES):
        v += row[_instance_index(P, O, k)]
    v += row[_MOB + min(np.int64(popcnt64(moves(P, O))), MOBILITY_CAP)]
    v += row[_OMOB + min(np.int64(popcnt64(moves(O, P))), MOBILITY_CAP)]
    v += row[_BIAS]
    return v


PROBCUT_DEPTHS = 21  #: ProbCut rows: depths 0-20


def no_probcut() -> npt.NDArray[np.int64]:
    """A ProbCut table that never cuts (shallow depth -1 everywhere)."""
    t = np.zeros((PROBCUT_DEPTHS, PHASES, 4), dtype=np.int64)
    t[:, :, 0] = -1
    t[:, :, 1] = 1024
    return t


class Weights:
    """A fitted evaluation: ``table`` (``PHASES x N_FEATURES``, int32 centi-discs), its
    ProbCut table (``probcut[depth, phase] = (shallow depth, a * 1024, b, margin)``, see
    :attr:`banmen.search.alphabeta.Kernels.probcut`; none fitted: never cuts) and what
    they were fitted from (``meta``, a dict of strings)."""

    def __init__(
        self,
        table: npt.NDArray[np.int32],
        meta: dict[str, Any] | None = None,
        probcut: npt.NDArray[np.int64] | None = None,
    ):
        table = np.ascontiguousarray(table, dtype=np.int32)
        if table.shape != (PHASES, N_FEATURES):
            raise ValueError(f"weights must be {PHASES}x{N_FEATURES}, got {table.shape}")
        self.table = table
        self.meta = {k: str(v) for k, v in (meta or {}).items()}
        pc = no_probcut() if probcut is None else np.ascontiguousarray(probcut, dtype=np.int64)
        if pc.shape != (PROBCUT_DEPTHS, PHASES, 4):
            raise ValueError(f"a ProbCut table must be {PROBCUT_DEPTHS}x{PHASES}x4")
        self.probcut = pc

    def save(self, path: Path) -> None:
        """Compressed, as int16 (every weight fits: values are clipped to +-32767), with
        the header (:data:`HEADER`) that says what the file is."""
        t16 = np.clip(self.table, -32767, 32767).astype(np.int16)
        meta = {**self.meta, **HEADER}
        text = np.array([f"{k}={v}" for k, v in sorted(meta.items())])
        np.savez_compressed(path, table=t16, meta=text, probcut=self.probcut)

    @classmethod
    def load(cls, path: Path | Any) -> Weights:
        """The weights in ``path`` (an ``.npz`` :meth:`save` wrote). ``ValueError`` (one
        line) for a file that is not one, or whose header (:data:`HEADER`) names another
        evaluator, game or shape. Nothing in the file runs: it is read without pickles."""
        with np.load(path, allow_pickle=False) as z:
            if "table" not in z.files or "meta" not in z.files:
                raise ValueError(f"holds {sorted(z.files)}, not a table and its header")
            meta = dict(str(x).split("=", 1) for x in z["meta"] if "=" in str(x))
            for key, want in HEADER.items():
                got = meta.get(key)
                if got != want:
                    said = "names none" if got is None else f"says {key}={got}"
                    raise ValueError(f"its header {said}: expected {key}={want} (the weights "
                                     "of Othello's patterns evaluator)")  # fmt: skip
            pc = z["probcut"] if "probcut" in z.files else None
            return cls(z["table"].astype(np.int32), meta, pc)

    def value(self, P: int, O: int) -> int:
        return int(pattern_value(self.table, U(P), U(O)))


@cache
def load_weights() -> Weights:
    """The shipped weights (``banmen/games/othello/data/othello-patterns.npz``)."""
    ref = resources.files("banmen.games.othello") / "data" / WEIGHTS_FILE
    with resources.as_file(ref) as path:
        return Weights.load(path)
