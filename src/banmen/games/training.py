"""The n-tuple evaluation's trainer (``banmen train GAME ntuple``), for every game whose
rules contract declares cells (``Kernels.cell``): the game package writes no training
code. Its weights are the tables of :mod:`banmen.weights`; a position's features are,
for each tuple, where its cells' contents index its table
(:func:`banmen.search.evaluators.ntuple_features`).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from banmen.trainable import Features, LinearTrainer

if TYPE_CHECKING:
    from banmen.games._base import GameDef

__all__ = ["NTupleTrainer", "TRAIN_BUDGET"]

#: the most weights one tuple's table holds in a run trained from zero: windows of 4 and
#: 2x2 squares of a three-content grid (81 each), no 3x3 square (19,683 each, which a
#: few thousand games leave mostly unseen: the fit then learns the games by heart)
TRAIN_BUDGET = 1 << 12


class NTupleTrainer(LinearTrainer):
    """The n-tuple evaluation of any grid game (``+ntuple``): tables over the cells the
    rules contract reads (``Kernels.cell``), one weight a tuple; the labels are in the
    game's units, within its ``eval_bound``."""

    evaluator = "ntuple"

    def __init__(self, game: GameDef[Any]) -> None:
        assert game.kernels is not None
        self.game = game
        self.bound = float(game.kernels.eval_bound)

    def start(self, path: Path, source: Path | None, size: int | None) -> None:
        from banmen.games.evaluators import new_ntuple_file

        if source is not None:
            self.read(source)  # checked: another game's, another shape's, is one line
            shutil.copyfile(source, path)
        else:
            from banmen.games.evaluators import game_grid
            from banmen.weights import default_tuples

            assert self.game.kernels is not None and self.game.search_position is not None
            ctx, _ = self.game.search_position(self.game.start_position(size))
            rows, cols = game_grid(self.game, ctx)
            tuples = default_tuples(rows, cols, self.game.kernels.cell_values, TRAIN_BUDGET)
            new_ntuple_file(self.game, path, tuples, size, {"trained": "from zero"})

    def _model(self, path: Path) -> Any:
        from banmen.weights import read_ntuple

        assert self.game.kernels is not None
        return read_ntuple(path, self.game.name, self.game.kernels.cell_values, self.game.title)

    def read(self, path: Path) -> npt.NDArray[np.float64]:
        w: npt.NDArray[np.float64] = self._model(path).weights.astype(np.float64)
        return w

    def write(self, path: Path, like: Path, weights: npt.NDArray[np.float64],
              meta: Mapping[str, Any]) -> None:  # fmt: skip
        from banmen.weights import make_ntuple, save_ntuple

        nt = self._model(like)
        tuples = [[int(c) for c in row if c >= 0] for row in nt.tuples]
        kept = {
            k: v for k, v in nt.meta.items() if k not in ("evaluator", "game", "shape", "tuples")
        }
        save_ntuple(path, make_ntuple(self.game.name, nt.rows, nt.cols, nt.values, tuples,
                                      weights, {**kept, **meta}))  # fmt: skip

    def features(self, path: Path) -> Features:
        from banmen._jit import bound
        from banmen.games.evaluators import ntuple_from
        from banmen.search.evaluators import ntuple_features

        ev = ntuple_from(self.game, self._model(path), str(path))
        width = int(ev.data[0][2])  # (the tuples' count: ntuple_value's NT_COUNT)

        def features(ctx: Any, states: list[tuple[Any, ...]]) -> npt.NDArray[np.int64]:
            out = np.zeros((len(states), width), dtype=np.int64)
            if not states:
                return out
            c = ev.context(ctx)
            fn = bound(ntuple_features, c, states[0], out[0])
            for i, st in enumerate(states):
                fn(c, st, out[i])
            return out

        return features
