"""What an evaluator gives to be trained: a :class:`Trainer` (``EvaluatorKind.trainer``).

A trainable evaluation is **linear**: a position's value is the sum of the weights its
feature indices pick (an n-tuple network: one weight per tuple; Othello's patterns: one
per pattern instance, its mobility and a bias, in the table of the position's phase).
A trainer says how to

* ``start`` a run's weights file: zeros, or a copy of the user's (``--from``), checked;
* ``read`` a file's weights as one flat array, and ``write`` fitted ones in the file's
  format (header included: the evaluator reads them at once, ``+ntuple:weights=FILE``);
* give the ``features`` of positions: for one game's ``ctx`` (``GameDef.search_position``)
  and its states, the indices into the flat weights (one row a position, ``-1`` for none);
* name the ``player`` that plays with a file (``alphabeta:depth=4+ntuple:weights=F``), the
  ``baseline`` the run measures itself against, and ``units``: the evaluator's units in
  the game's (a search's score, an outcome's margin, times it, is a label).

:func:`trainer_for` finds a game's trainer of an evaluator, or says in one line why there
is none. The game package writes no training code: the n-tuple trainer reads the rules
contract's cells, as the evaluator does.
"""

from __future__ import annotations

import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from banmen.engine import SpecError

if TYPE_CHECKING:
    from banmen.games._base import GameDef

__all__ = [
    "Trainer",
    "NTupleTrainer",
    "Features",
    "trainer_for",
    "trainable",
]

#: the most weights one tuple's table holds in a run trained from zero: windows of 4 and
#: 2x2 squares of a three-content grid (81 each), no 3x3 square (19,683 each, which a
#: few thousand games leave mostly unseen: the fit then learns the games by heart)
TRAIN_BUDGET = 1 << 12

#: ``features(ctx, states) -> int64 [len(states), width]``: one game's positions
Features = Callable[[Any, list[tuple[Any, ...]]], npt.NDArray[np.int64]]


class Trainer(ABC):
    """How ``banmen train`` fits one evaluator for one game (module docstring)."""

    #: the evaluator's name (``+NAME`` in a spec)
    evaluator: str
    game: GameDef[Any]
    #: the self-play and gate search's depth when the run names none
    depth: int = 4
    #: the evaluator's units per unit of the game's (a search's score times it)
    units: float = 1.0
    #: the largest label, in the evaluator's units (0: none)
    bound: float = 0.0

    @property
    def exact_plies(self) -> int:
        """Positions within this many plies of the end are labelled by the exact solver
        (the game's ``solve_horizon``, at most 20)."""
        return min(int(self.game.solve_horizon), 20)

    @abstractmethod
    def start(self, path: Path, source: Path | None, size: int | None) -> None:
        """Write the run's first weights to ``path``: zeros on the grid of ``size``, or
        (checked) a copy of ``source``."""

    @abstractmethod
    def read(self, path: Path) -> npt.NDArray[np.float64]:
        """The weights of the file ``path``, flat (checked: one line if it is not one)."""

    @abstractmethod
    def write(self, path: Path, like: Path, weights: npt.NDArray[np.float64],
              meta: Mapping[str, Any]) -> None:  # fmt: skip
        """Write ``weights`` (flat, as :meth:`read` gives) in the format of the file
        ``like`` (its tuples, its tables' shape) to ``path``, with ``meta``."""

    @abstractmethod
    def features(self, path: Path) -> Features:
        """The feature indices of positions, for the model in ``path``."""

    def player(self, search: str, path: Path) -> str:
        """The spec of ``search`` (``alphabeta:depth=4``) with the weights in ``path``."""
        return f"{search}+{self.evaluator}:weights={path}"

    def baseline(self, search: str) -> str:
        """The fixed baseline of a run: ``search`` with the game's own evaluation."""
        return search


class NTupleTrainer(Trainer):
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


def trainable(game: GameDef[Any], evaluator: str) -> str | None:
    """Why ``evaluator`` cannot be trained for ``game`` (``None``: it can)."""
    try:
        trainer_for(game, evaluator)
    except SpecError as e:
        return str(e)
    return None


def trainer_for(game: GameDef[Any], evaluator: str) -> Trainer:
    """The trainer of ``evaluator`` for ``game``; one :class:`SpecError` line if the game
    offers no such evaluator or it cannot be trained."""
    from banmen.games.registry import _load_ref, evaluator_kinds

    kinds = evaluator_kinds()
    trainable_here = []
    for name, k in kinds.items():
        if k.trainer is not None and k.applies(game) is None:
            trainable_here.append(name)
    listed = ", ".join(trainable_here) or "none"
    kind = kinds.get(evaluator)
    if kind is None:
        raise SpecError(f"unknown evaluator {evaluator!r}: {game.title} can train {listed}")
    why = kind.applies(game)
    if why is not None:
        raise SpecError(f"{game.title} has no {evaluator} evaluator: {why}")
    if kind.trainer is None:
        raise SpecError(f"the {evaluator} evaluator cannot be trained (it has no weights to "
                        f"fit); {game.title} can train {listed}")  # fmt: skip
    make = _load_ref(kind.trainer) if isinstance(kind.trainer, str) else kind.trainer
    trainer = make(game)
    if not isinstance(trainer, Trainer):
        raise SpecError(f"the {evaluator} evaluator's trainer is not a banmen.train Trainer")
    return trainer
