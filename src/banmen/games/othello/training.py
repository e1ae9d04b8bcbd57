"""How ``banmen train`` fits Othello's pattern evaluation (``+patterns``): its
:class:`~banmen.trainable.Trainer`.

The features of a position are its pattern instances, its two mobilities and the bias
(:func:`~.patterns.feature_indices`), in the table of its phase: index ``phase *
N_FEATURES + i`` of the flat ``PHASES x N_FEATURES`` table. Weights are centi-discs (the
Othello engine's scores are discs: a label is a score times :data:`~.evaluation.SCALE`),
rounded to whole centi-discs when written. Positions within 14 empties of the end are
labelled by the exact solver. A file trained from zero has no ProbCut table (it never
cuts: the margins are fitted to an evaluation, ``tools/othello_train.py probcut``); one
trained from another keeps that one's.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen.trainable import Features, LinearTrainer

__all__ = ["PatternsTrainer"]


class PatternsTrainer(LinearTrainer):
    """Othello's patterns (module docstring)."""

    evaluator = "patterns"
    depth = 4
    # (2 million weights: 12 phases of tables that a few thousand games leave sparse;
    # tools/othello_train.py's damping)
    damp = 3.0

    def __init__(self, game: Any) -> None:
        from banmen.games.othello.evaluation import SCALE

        self.game = game
        self.units = float(SCALE)
        self.bound = 64.0 * SCALE

    @property
    def exact_plies(self) -> int:
        return 14

    def start(self, path: Path, source: Path | None, size: int | None) -> None:
        from banmen.games.othello.evaluators import load_patterns
        from banmen.games.othello.patterns import N_FEATURES, PHASES, Weights

        if source is not None:
            load_patterns(source)  # checked: one line for a file that is not one
            shutil.copyfile(source, path)
            return
        zeros = np.zeros((PHASES, N_FEATURES), dtype=np.int32)
        with open(path, "wb") as f:  # (np.savez adds ".npz" to a name without it)
            Weights(zeros, {"trained": "from zero"}).save(f)  # type: ignore[arg-type]

    def read(self, path: Path) -> npt.NDArray[np.float64]:
        from banmen.games.othello.evaluators import load_patterns

        w: npt.NDArray[np.float64] = load_patterns(path).table.astype(np.float64).ravel()
        return w

    def write(self, path: Path, like: Path, weights: npt.NDArray[np.float64],
              meta: Mapping[str, Any]) -> None:  # fmt: skip
        from banmen.games.othello.evaluators import load_patterns
        from banmen.games.othello.patterns import HEADER, N_FEATURES, PHASES, Weights

        before = load_patterns(like)
        table = np.clip(np.rint(weights), -32767, 32767).astype(np.int32)
        kept = {k: v for k, v in before.meta.items() if k not in HEADER}
        w = Weights(table.reshape(PHASES, N_FEATURES), {**kept, **meta}, before.probcut)
        with open(path, "wb") as f:
            w.save(f)  # type: ignore[arg-type]

    def features(self, path: Path) -> Features:
        from banmen.games.othello.patterns import N_FEATURES, N_INDICES, batch_indices

        def features(ctx: Any, states: list[tuple[Any, ...]]) -> npt.NDArray[np.int64]:
            n = len(states)
            Ps = np.array([s[0] for s in states], dtype=np.uint64)
            Os = np.array([s[1] for s in states], dtype=np.uint64)
            idx = np.zeros((n, N_INDICES), dtype=np.int64)
            phases = np.zeros(n, dtype=np.int64)
            if n:
                batch_indices(Ps, Os, idx, phases)
            return idx + phases[:, None] * N_FEATURES

        return features

    def baseline(self, search: str) -> str:
        return f"{search}+handset"
