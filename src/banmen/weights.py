"""Weights files: what an evaluator reads from the user's disk, checked, and how to write one.

A weights file is an ``.npz`` (numpy's zip of arrays) whose ``meta`` member is its header:
``key=value`` lines naming at least the ``evaluator`` it is for, the ``game`` and the
``shape`` of its tables. It is input, never code: :func:`open_weights` reads it only if it
is a regular file whose members unpack to at most :data:`MAX_MEMBER_BYTES` each, with
``allow_pickle=False``, and only if its header names the evaluator, game and shape
expected; anything else is one :class:`WeightsError` line naming the file and saying
which — missing, not a regular file, not an ``.npz`` (corrupt, truncated), a member too
large, a pickled object inside, another evaluator, game or shape. Othello's ``patterns``
evaluator and the n-tuple evaluator of every grid game (``ntuple:weights=FILE``) read
their files here.

**N-tuple files** (:func:`write_ntuple`, :func:`read_ntuple`): the tables of an n-tuple
evaluation of a grid game's positions (docs/ADDING_A_GAME.md, "Cells"). Its header says
``evaluator=ntuple``, the ``game``, ``shape=ROWSxCOLSxVALUES`` (the grid's rows and
columns, and how many contents a cell may hold) and ``tuples=N``; its members are

* ``tuples``: int64, one row per tuple — the cells it reads, numbered row by row from
  the top, padded with ``-1`` (every tuple has at least one cell);
* ``weights``: float32, every tuple's table one after the other: tuple ``t`` of ``k``
  cells has ``VALUES ** k`` weights, and the contents ``c_1 … c_k`` of its cells (from
  the side to move's view) index its table at ``c_1 VALUES^(k-1) + … + c_k`` (the first
  cell the most significant digit).

The value of a position is the sum over the tuples of their weights so indexed, rounded
to the nearest integer, in the units of the game's ``evaluate``. :func:`grid_tuples`
gives the usual tuples of a grid (every window of ``length`` cells along its rows,
columns and diagonals; its 2×2 and 3×3 squares) and :func:`default_tuples` those of them
whose tables fit a budget; :func:`write_ntuple` with no weights writes zeros — a file that
loads and plays (it values every position 0) and that training fills in::

    >>> import tempfile, pathlib
    >>> tuples = grid_tuples(3, 3, length=3, squares=())
    >>> len(tuples), tuples[0], tuples[-1]
    (8, (0, 1, 2), (2, 4, 6))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npz"
    >>> write_ntuple(path, "tictactoe", 3, 3, 3, tuples)
    >>> nt = read_ntuple(path, "tictactoe", 3)
    >>> nt.shape, nt.weights.shape, float(nt.weights.sum())
    ('3x3x3', (216,), 0.0)
"""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen.engine import SpecError

__all__ = [
    "WeightsError",
    "MAX_MEMBER_BYTES",
    "MAX_WEIGHTS",
    "checked_file",
    "open_weights",
    "header_of",
    "NTuple",
    "read_ntuple",
    "make_ntuple",
    "write_ntuple",
    "save_ntuple",
    "grid_tuples",
    "default_tuples",
    "DEFAULT_BUDGET",
]

#: the most a weights file's member may hold unpacked (Othello's shipped table is 4 MB)
MAX_MEMBER_BYTES = 256 << 20
#: the most weights an n-tuple file's tables may hold in all (float32: 256 MB)
MAX_WEIGHTS = MAX_MEMBER_BYTES // 4
#: :func:`default_tuples`' budget: the most weights one tuple's table may hold
DEFAULT_BUDGET = 1 << 16


class WeightsError(SpecError):
    """A weights file that cannot be used: missing, not a file, corrupt, too large, or made
    for another evaluator, game or shape (one line saying which and what was expected)."""


def checked_file(path: Path, what: str = "an .npz of weights banmen wrote") -> None:
    """Refuse (one :class:`WeightsError` line) what is not a regular file of bounded
    members: missing, unreadable, a folder or a device, not a zip (corrupt, truncated), a
    member that unpacks to more than :data:`MAX_MEMBER_BYTES`. ``what``: what was expected,
    for the line."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise WeightsError(f"weights file {path}: no such file") from None
    except OSError as e:
        raise WeightsError(f"weights file {path}: cannot read it ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise WeightsError(f"weights file {path}: not a regular file")
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.file_size > MAX_MEMBER_BYTES:
                    raise WeightsError(
                        f"weights file {path}: its member {info.filename!r} unpacks to "
                        f"{info.file_size:,} bytes, more than a weights table holds"
                    )
    except zipfile.BadZipFile as e:
        raise WeightsError(
            f"weights file {path}: not a weights file banmen can read ({e}); expected {what}"
        ) from None
    except OSError as e:
        raise WeightsError(f"weights file {path}: cannot read it ({e.strerror or e})") from None


def header_of(meta: npt.NDArray[Any]) -> dict[str, str]:
    """A ``meta`` member's ``key=value`` lines as a dict."""
    return dict(str(x).split("=", 1) for x in np.asarray(meta).reshape(-1) if "=" in str(x))


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    if "allow_pickle" in text or "pickle" in text.lower():
        return "it holds a pickled object; a weights file holds arrays of numbers only"
    return text


@contextmanager
def open_weights(
    path: Path, expect: Mapping[str, str], describe: str, what: str | None = None
) -> Iterator[Any]:
    """The arrays of the weights file ``path`` (numpy's ``NpzFile``: members by name),
    after :func:`checked_file` and its header checked against ``expect`` (``evaluator``,
    ``game``, ``shape``: each key must be there and equal). ``describe`` says whose
    weights were expected (``"the weights of Othello's patterns evaluator"``). Every
    failure while the file is open — a header that differs, a corrupt or pickled member,
    a ``ValueError`` of the caller's reading it — is one :class:`WeightsError` line
    naming the file."""
    checked_file(path, what or f"an .npz of {describe}")
    try:
        with np.load(path, allow_pickle=False) as z:
            if "meta" not in z.files:
                raise ValueError(f"holds {sorted(z.files)}, not weights and their header")
            header = header_of(z["meta"])
            for key, want in expect.items():
                got = header.get(key)
                if got != want:
                    said = "names none" if got is None else f"says {key}={got}"
                    raise ValueError(f"its header {said}: expected {key}={want} ({describe})")
            yield z
    except WeightsError:
        raise
    except Exception as e:  # a corrupt member, a bad header, a pickle: one line
        raise WeightsError(f"weights file {path}: {_one_line(e)}") from None


# --------------------------------------------------------------------------- n-tuples


@dataclass(frozen=True)
class NTuple:
    """An n-tuple evaluation's tables, as :func:`read_ntuple` reads them: the grid
    (``rows``, ``cols``), the contents a cell may hold (``values``), ``tuples`` (int64,
    one row per tuple, padded with -1), ``offsets`` (where each tuple's table starts in
    ``weights``) and ``weights`` (float32), with the file's header (``meta``)."""

    game: str
    rows: int
    cols: int
    values: int
    tuples: npt.NDArray[np.int64]
    offsets: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float32]
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def shape(self) -> str:
        """``ROWSxCOLSxVALUES``, as the header says it."""
        return f"{self.rows}x{self.cols}x{self.values}"

    def lengths(self) -> list[int]:
        """How many cells each tuple reads."""
        return [int((row >= 0).sum()) for row in self.tuples]


def _layout(
    tuples: Sequence[Sequence[int]], cells: int, values: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """``tuples`` as a padded array, their tables' offsets and the weights they need;
    ``ValueError`` (one line) for tuples that do not fit the grid."""
    if not tuples:
        raise ValueError("no tuples: an n-tuple evaluation reads at least one")
    width = max(len(t) for t in tuples)
    out = np.full((len(tuples), width), -1, dtype=np.int64)
    offsets = np.zeros(len(tuples), dtype=np.int64)
    total = 0
    for k, t in enumerate(tuples):
        if not t:
            raise ValueError(f"tuple {k} reads no cell")
        for c in t:
            if not 0 <= int(c) < cells:
                raise ValueError(f"tuple {k} reads cell {c}: the grid's cells are 0 to {cells - 1}")
        if len(set(t)) != len(t):
            raise ValueError(f"tuple {k} reads a cell twice: {list(t)}")
        out[k, : len(t)] = t
        offsets[k] = total
        total += values ** len(t)
        if total > MAX_WEIGHTS:
            raise ValueError(f"its tables need more than {MAX_WEIGHTS:,} weights")
    return out, offsets, total


def make_ntuple(
    game: str,
    rows: int,
    cols: int,
    values: int,
    tuples: Sequence[Sequence[int]],
    weights: npt.ArrayLike | None = None,
    meta: Mapping[str, Any] | None = None,
) -> NTuple:
    """An n-tuple evaluation's tables in memory (what :func:`read_ntuple` gives) for
    ``game``'s grid of ``rows`` × ``cols`` cells of ``values`` contents: ``tuples`` (lists
    of cell indices) and their ``weights`` (one flat array, every tuple's table in turn;
    ``None``: zeros, which value every position 0), with ``meta`` (strings: what they
    were fitted from). ``ValueError`` for tuples or weights that do not fit."""
    if rows < 1 or cols < 1 or values < 2:
        raise ValueError(f"a grid of {rows}x{cols} cells of {values} contents has no tables")
    table, offsets, total = _layout(tuples, rows * cols, values)
    w = np.zeros(total, dtype=np.float32) if weights is None else np.asarray(weights, np.float32)
    if w.shape != (total,):
        raise ValueError(f"the tuples need {total:,} weights, got an array of shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError("the weights must be finite numbers")
    header = {**{k: str(v) for k, v in (meta or {}).items()},
              "evaluator": "ntuple", "game": game, "shape": f"{rows}x{cols}x{values}",
              "tuples": str(len(tuples))}  # fmt: skip
    return NTuple(game, rows, cols, values, table, offsets, np.ascontiguousarray(w), header)


def write_ntuple(
    path: Path | str,
    game: str,
    rows: int,
    cols: int,
    values: int,
    tuples: Sequence[Sequence[int]],
    weights: npt.ArrayLike | None = None,
    meta: Mapping[str, Any] | None = None,
) -> None:
    """Write an n-tuple weights file (module docstring): the tables
    :func:`make_ntuple` makes of the same arguments (``weights`` ``None``: zeros, a file
    that plays and values every position 0)."""
    save_ntuple(path, make_ntuple(game, rows, cols, values, tuples, weights, meta))


def save_ntuple(path: Path | str, nt: NTuple) -> None:
    """Write ``nt``'s tables (a fitted evaluation: :func:`make_ntuple` with its weights)
    to ``path``, header first."""
    text = np.array([f"{k}={v}" for k, v in sorted(nt.meta.items())])
    with open(path, "wb") as f:  # (np.savez would add ".npz" to a name without it)
        np.savez_compressed(f, meta=text, tuples=nt.tuples, weights=nt.weights)


def _shape(text: str) -> tuple[int, int, int]:
    parts = text.split("x")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"its header says shape={text}: expected ROWSxCOLSxVALUES")
    r, c, v = (int(p) for p in parts)
    return r, c, v


def read_ntuple(path: Path | str, game: str, values: int, title: str | None = None) -> NTuple:
    """The n-tuple tables in ``path`` for ``game``, whose cells hold ``values`` contents:
    :func:`open_weights`' checks, then the tables' (its header's shape, the tuples inside
    the grid, as many weights as they index, all finite). Every failure is one
    :class:`WeightsError` line."""
    p = Path(path)
    whose = f"the weights of the ntuple evaluator for {title or game}"
    with open_weights(p, {"evaluator": "ntuple", "game": game}, whose) as z:
        header = header_of(z["meta"])
        shape = header.get("shape")
        if shape is None:
            raise ValueError(f"its header names no shape: expected shape=ROWSxCOLSx{values}")
        rows, cols, vals = _shape(shape)
        if vals != values:
            raise ValueError(f"its header says shape={shape}: expected a shape ...x{values} "
                             f"({title or game}'s cells hold {values} contents)")  # fmt: skip
        if rows < 1 or cols < 1 or rows * cols > 1 << 16:
            raise ValueError(f"its header says shape={shape}: not a grid")
        for name in ("tuples", "weights"):
            if name not in z.files:
                raise ValueError(f"holds {sorted(z.files)}: no {name}")
        raw = z["tuples"]
        if raw.ndim != 2 or raw.dtype.kind not in "iu" or raw.shape[0] < 1:
            raise ValueError(f"its tuples are an array of shape {raw.shape} ({raw.dtype}): "
                             "expected integers, one row per tuple")  # fmt: skip
        tuples = [[int(c) for c in row if c >= 0] for row in raw]
        if any(int(c) < -1 for row in raw for c in row):
            raise ValueError("its tuples pad with a number below -1")
        table, offsets, total = _layout(tuples, rows * cols, values)
        w = z["weights"]
        if w.ndim != 1 or w.dtype.kind != "f":
            raise ValueError(f"its weights are an array of shape {w.shape} ({w.dtype}): "
                             "expected one row of numbers")  # fmt: skip
        if w.shape[0] != total:
            raise ValueError(f"its weights hold {w.shape[0]:,} numbers: its {len(tuples)} "
                             f"tuples index {total:,}")  # fmt: skip
        weights = np.ascontiguousarray(w, dtype=np.float32)
        if not np.isfinite(weights).all():
            raise ValueError("its weights are not all finite numbers")
        return NTuple(game, rows, cols, values, table, offsets, weights, header)


def grid_tuples(
    rows: int, cols: int, length: int = 4, squares: Sequence[int] = (2, 3)
) -> list[tuple[int, ...]]:
    """The usual tuples of a grid of ``rows`` × ``cols`` cells (numbered row by row from
    the top): every window of ``length`` cells along a row, a column and both diagonals
    (none if ``length`` is 0), then every square of each size in ``squares``, its cells
    row by row."""
    out: list[tuple[int, ...]] = []
    if length > 0:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for r in range(rows):
                for c in range(cols):
                    cells = [(r + k * dr, c + k * dc) for k in range(length)]
                    if all(0 <= a < rows and 0 <= b < cols for a, b in cells):
                        out.append(tuple(a * cols + b for a, b in cells))
    for s in squares:
        for r in range(rows - s + 1):
            for c in range(cols - s + 1):
                out.append(tuple((r + a) * cols + c + b for a in range(s) for b in range(s)))
    return out


def default_tuples(
    rows: int, cols: int, values: int, budget: int = DEFAULT_BUDGET
) -> list[tuple[int, ...]]:
    """:func:`grid_tuples` whose tables hold at most ``budget`` weights each: windows of
    the longest length up to 4 that fits (at least 2), squares of 2×2 and 3×3 that fit
    (Connect Four and Othello, 3 contents: windows of 4, both squares; Mattix, 23: windows
    of 3, no square)."""
    length = max((n for n in (2, 3, 4) if values**n <= budget), default=2)
    length = min(length, max(rows, cols))
    squares = tuple(s for s in (2, 3) if values ** (s * s) <= budget and s <= min(rows, cols))
    return grid_tuples(rows, cols, length, squares) or [tuple(range(min(rows * cols, 2)))]
