"""The fit: a linear evaluation by damped sparse least squares, streamed from disk.

The positions' feature indices (:meth:`~banmen.trainable.Trainer.features`) are
written once to a file of int32 rows (``numpy.memmap``); scipy's ``lsqr`` then solves
``min |X w - y|^2 + damp^2 |w - w0|^2`` (``w0``: the ``center``, the weights the
iteration started from, or zero) through a ``LinearOperator`` that reads that file a
block of rows at a time (``X w``: the sum of the weights each row picks; ``X^T r``: its
transpose; both compiled loops over a block). The memory a fit holds is the weights (a
few vectors of them, lsqr's), the labels and one block — not the matrix: a million
positions of Connect Four's 99 tuples are 400 MB on disk, and a block of them 26 MB.

One game in ten is held out (its index ends in 9): the fit never sees it, and the
held-out error — root mean square and mean absolute error, in the evaluator's
units, by phase (the quarter of its game a position is in) — is given for the new
weights and for the weights they would replace.
"""

# numba types the compiled loops; mypy sees numba's untyped decorator.
# mypy: disable-error-code="untyped-decorator"

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._jit import njit
from banmen.train.selfplay import SelfPlayGame, state_of, unpack_ctx
from banmen.trainable import Features

__all__ = ["Labels", "FitResult", "fit_weights", "label_of", "PHASES", "BLOCK", "fit_set"]

#: the phases of the held-out error: the quarters of a game's plies
PHASES = 4
#: rows of features read at a time
BLOCK = 1 << 16


@dataclass(frozen=True)
class Labels:
    """How a position is labelled: ``mode`` ``"mix"`` (the mean of the search's value and
    the outcome, the outcome alone when the search had zero weights), ``"search"`` or
    ``"outcome"``; an exactly solved position keeps its proved value whatever the mode."""

    mode: str = "mix"


def label_of(g: SelfPlayGame, zero: bool, labels: Labels) -> npt.NDArray[np.float64]:
    """The labels of game ``g``'s positions (``zero``: its search's weights were zeros)."""
    if labels.mode == "search":
        y = g.search.copy()
    elif labels.mode == "outcome" or zero:
        y = g.outcome.copy()
    else:
        y = 0.5 * (g.search + g.outcome)
    y[g.exact] = g.search[g.exact]
    return y


@dataclass
class FitResult:
    weights: npt.NDArray[np.float64]
    positions: int
    held_out: int
    #: held-out root mean square error by phase, new weights and the previous ones (what
    #: the fit minimises), and the mean absolute error
    rmse: list[float]
    rmse_before: list[float]
    mae: list[float]
    mae_before: list[float]
    exact_share: float
    iterations: int
    seconds: float
    peak_rss_mb: float

    def to_dict(self) -> dict[str, Any]:
        return {"positions": self.positions, "held_out": self.held_out, "rmse": self.rmse,
                "rmse_before": self.rmse_before, "mae": self.mae,
                "mae_before": self.mae_before, "exact_share": self.exact_share,
                "lsqr_iterations": self.iterations, "seconds": round(self.seconds, 3),
                "peak_rss_mb": round(self.peak_rss_mb, 1)}  # fmt: skip


def _peak_rss_mb() -> float:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    except Exception:  # pragma: no cover - not on this system
        return 0.0


class _Rows:
    """Feature rows on disk (int32, ``-1`` for none) and their labels and phases."""

    def __init__(self, folder: Path, tag: str, pad: int) -> None:
        self.pad = pad
        fd, name = tempfile.mkstemp(prefix=f"{tag}-", suffix=".idx", dir=folder)
        self.file = os.fdopen(fd, "wb")
        self.path = Path(name)
        self.labels: list[npt.NDArray[np.float64]] = []
        self.phases: list[npt.NDArray[np.int8]] = []
        self.exact = 0
        self.n = 0
        self.width = 0

    def add(self, feats: npt.NDArray[np.int64], y: npt.NDArray[np.float64],
            exact: npt.NDArray[np.bool_]) -> None:  # fmt: skip
        if len(y) == 0:
            return
        self.width = feats.shape[1]
        rows = np.where(feats < 0, self.pad, feats).astype(np.int32)
        self.file.write(rows.tobytes())
        self.labels.append(y)
        n = len(y)
        self.phases.append((np.arange(n) * PHASES // n).astype(np.int8))
        self.exact += int(exact.sum())
        self.n += n

    def close(self) -> tuple[Any, npt.NDArray[np.float64], npt.NDArray[np.int8]]:
        self.file.close()
        y = np.concatenate(self.labels) if self.labels else np.zeros(0)
        ph = np.concatenate(self.phases) if self.phases else np.zeros(0, np.int8)
        if self.n == 0:
            return np.zeros((0, max(self.width, 1)), np.int32), y, ph
        x = np.memmap(self.path, dtype=np.int32, mode="r", shape=(self.n, self.width))
        return x, y, ph

    def remove(self) -> None:
        try:
            self.path.unlink()
        except OSError:  # pragma: no cover - gone already
            pass


@njit(cache=True)
def _gather(rows: Any, w: Any, out: Any) -> None:
    """``out[i] = sum(w[rows[i]])``: ``X w`` for a block of feature rows."""
    for i in range(rows.shape[0]):
        total = 0.0
        for j in range(rows.shape[1]):
            total += w[rows[i, j]]
        out[i] = total


@njit(cache=True)
def _scatter(rows: Any, r: Any, acc: Any) -> None:
    """``acc[rows[i]] += r[i]``: ``X^T r`` for a block of feature rows."""
    for i in range(rows.shape[0]):
        v = r[i]
        for j in range(rows.shape[1]):
            acc[rows[i, j]] += v


def predict(x: Any, w: npt.NDArray[np.float64], bound: float) -> npt.NDArray[np.float64]:
    """The linear evaluation of feature rows ``x`` (the padding reads ``len(w)``) with
    weights ``w``, rows streamed."""
    ext = np.append(w, 0.0)
    out = np.empty(x.shape[0])
    for a in range(0, x.shape[0], BLOCK):
        _gather(np.asarray(x[a : a + BLOCK]), ext, out[a : a + BLOCK])
    if bound > 0:
        np.clip(out, -bound, bound, out=out)
    return out


Errors = tuple[list[float], list[float]]


def _errors(x: Any, y: npt.NDArray[np.float64], ph: npt.NDArray[np.int8],
            w: npt.NDArray[np.float64], bound: float) -> Errors:  # fmt: skip
    """Root mean square and mean absolute error by phase."""
    if len(y) == 0:
        return [float("nan")] * PHASES, [float("nan")] * PHASES
    err = predict(x, w, bound) - y
    rms, mae = [], []
    for p in range(PHASES):
        e = err[ph == p]
        rms.append(float(np.sqrt((e * e).mean())) if len(e) else float("nan"))
        mae.append(float(np.abs(e).mean()) if len(e) else float("nan"))
    return rms, mae


def fit_weights(
    games: Iterable[tuple[SelfPlayGame, bool]],
    features: Features,
    n_weights: int,
    before: npt.NDArray[np.float64],
    folder: Path,
    labels: Labels = Labels(),
    damp: float = 1.0,
    iter_lim: int = 300,
    bound: float = 0.0,
    on_progress: Callable[[str, int], None] | None = None,
    center: npt.NDArray[np.float64] | None = None,
) -> FitResult:
    """Fit weights to ``games`` (each with whether its search's weights were zeros): the
    module docstring. ``before``: the weights they would replace (for the held-out error
    beside the new one); ``folder``: where the feature rows are written (and removed);
    ``center``: the weights the damping pulls toward (``None``: zero) — a weight that
    the positions say little about stays near it."""
    from scipy.sparse.linalg import LinearOperator, lsqr

    t0 = time.perf_counter()
    train, held = _Rows(folder, "train", n_weights), _Rows(folder, "held", n_weights)
    try:
        count = 0
        for g, zero in games:
            if g.states.shape[0] == 0:
                continue
            ctx = unpack_ctx(g.ctx)
            states = [state_of(row, g.types) for row in g.states]
            feats = features(ctx, states)
            y = label_of(g, zero, labels)
            (held if g.index % 10 == 9 else train).add(feats, y, g.exact)
            count += 1
            if on_progress is not None:
                on_progress("features", count)
        x, y, ph = train.close()
        hx, hy, hph = held.close()
        if train.n == 0:
            raise ValueError("no positions to fit: the self-play stored none")
        ext = n_weights + 1  # the last column is the padding's (-1), always zero

        def matvec(w: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            we = np.append(np.ravel(w)[:n_weights], 0.0)
            out = np.empty(x.shape[0])
            for a in range(0, x.shape[0], BLOCK):
                _gather(np.asarray(x[a : a + BLOCK]), we, out[a : a + BLOCK])
            return out

        def rmatvec(r: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            r = np.ascontiguousarray(np.ravel(r), dtype=np.float64)
            acc = np.zeros(ext)
            for a in range(0, x.shape[0], BLOCK):
                _scatter(np.asarray(x[a : a + BLOCK]), r[a : a + BLOCK], acc)
            return acc[:n_weights]

        done = {"n": 0}

        def counted(w: Any) -> Any:
            done["n"] += 1
            if on_progress is not None:
                on_progress("lsqr", done["n"])
            return matvec(w)

        op = LinearOperator((train.n, n_weights), matvec=counted, rmatvec=rmatvec, dtype=np.float64)
        if center is not None:  # solve for the change from the center
            center = np.asarray(center, dtype=np.float64)
            y = y - predict(x, center, 0.0)
        sol = lsqr(op, y, damp=damp, atol=1e-5, btol=1e-5, iter_lim=iter_lim)
        w = np.asarray(sol[0], dtype=np.float64)
        if center is not None:
            w = w + center
        rmse, mae = _errors(hx, hy, hph, w, bound)
        rmse0, mae0 = _errors(hx, hy, hph, before, bound)
        result = FitResult(
            w, train.n + held.n, held.n, rmse, rmse0, mae, mae0,
            (train.exact + held.exact) / max(train.n + held.n, 1),
            int(sol[2]), time.perf_counter() - t0, _peak_rss_mb(),
        )  # fmt: skip
        return result
    finally:
        for rows in (train, held):
            if not rows.file.closed:
                rows.file.close()
            rows.remove()


def fit_set(game: str, evaluator: str) -> Any:
    """The compiled code a fit of ``evaluator`` for ``game`` runs — the fit's loops and the
    trainer's features — as a kernel set (:mod:`banmen.warm`): the loop ensures it before
    the fit, so a first fit says it compiles, and a later one loads it."""
    from banmen.warm import KernelSet

    return KernelSet("train", f"fit-{game}-{evaluator}", f"the {game} {evaluator} training fit",
                     f"banmen.train.fit:_load_fit:{game}:{evaluator}", estimate=5,
                     default=False)  # fmt: skip


def _load_fit(game_name: str, evaluator: str) -> None:
    """Compile (or load) :func:`fit_set`: the fit's loops, and the trainer's features on
    the game's start (a choice trainer's on a game of one move)."""
    from banmen.games.registry import get_game
    from banmen.train.trainers import ChoiceTrainer, LinearTrainer, trainer_for

    rows = np.zeros((2, 2), dtype=np.int32)
    w, out = np.zeros(3), np.zeros(2)
    _gather(rows, w, out)
    _scatter(rows, out, w)
    game = get_game(game_name)
    trainer = trainer_for(game, evaluator)
    with tempfile.TemporaryDirectory(prefix="banmen-fit-") as tmp:
        path = Path(tmp) / "w.npz"
        trainer.start(path, None, None)
        board = game.start_position(None)
        if isinstance(trainer, LinearTrainer) and game.search_position is not None:
            ctx, st = game.search_position(board)
            trainer.features(path)(ctx, [st])
        elif isinstance(trainer, ChoiceTrainer):
            move = next(iter(board.legal_moves))
            name = board.move_name(move)
            g = SelfPlayGame(0, 0, b"", [], np.zeros((1, 0), np.int64), np.zeros(1),
                             np.zeros(1), np.zeros(1, bool), 0.5, [name], 0.0, [name])  # fmt: skip
            trainer.fit([g], None, path, Path(tmp) / "x.npz", {}, lambda step, n: None)
