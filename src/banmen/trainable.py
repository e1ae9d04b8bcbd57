"""What an evaluator gives to be trained: a :class:`Trainer` (``EvaluatorKind.trainer``).

Two kinds of model are trained. A :class:`LinearTrainer`'s evaluation is **linear**: a
position's value is the sum of the weights its feature indices pick (an n-tuple network:
one weight per tuple; Othello's patterns: one per pattern instance, its mobility and a
bias, in the table of the position's phase).
A trainer says how to

* ``start`` a run's weights file: zeros, or a copy of the user's (``--from``), checked;
* ``read`` a file's weights as one flat array, and ``write`` fitted ones in the file's
  format (header included: the evaluator reads them at once, ``+ntuple:weights=FILE``);
* give the ``features`` of positions: for one game's ``ctx`` (``GameDef.search_position``)
  and its states, the indices into the flat weights (one row a position, ``-1`` for none);
* name the ``player`` that plays with a file (``alphabeta:depth=4+ntuple:weights=F``), the
  ``baseline`` the run measures itself against, and ``units``: the evaluator's units in
  the game's (a search's score, an outcome's margin, times it, is a label).

A :class:`ChoiceTrainer`'s model is a **choice of move** (a search's priors): each
legal move's weight is the product of its features' weights, and the chance of a move is
its weight over the sum of the position's (Coulom's generalised Bradley-Terry model). It
is fitted to the moves the self-play's search chose, and fits itself
(:meth:`ChoiceTrainer.fit`): its features, replayed from each game's moves, are its own.

A leaf of the contracts' floor: :mod:`banmen.train` runs the loop; the n-tuple trainer
every grid game gets is :class:`banmen.games.training.NTupleTrainer`, Othello's patterns'
:class:`banmen.games.othello.training.PatternsTrainer`, Go's move weights'
:class:`banmen.games.go.training.PolicyTrainer`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from banmen.games._base import GameDef

__all__ = ["Trainer", "LinearTrainer", "ChoiceTrainer", "Features", "Progress"]

#: ``features(ctx, states) -> int64 [len(states), width]``: one game's positions
Features = Callable[[Any, list[tuple[Any, ...]]], npt.NDArray[np.int64]]
#: ``progress(step, count)``: how far a fit is (its step's name and a count)
Progress = Callable[[str, int], None]


class Trainer(ABC):
    """How ``banmen train`` fits one evaluator for one game (module docstring): what
    every kind of trainer says."""

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
        (the game's ``solve_horizon``, at most 28: Connect Four solves a position of 28
        empty cells in about 2 ms, of 32 in about 100)."""
        return min(int(self.game.solve_horizon), 28)

    @abstractmethod
    def start(self, path: Path, source: Path | None, size: int | None) -> None:
        """Write the run's first weights to ``path``: zeros on the grid of ``size``, or
        (checked) a copy of ``source``."""

    @abstractmethod
    def read(self, path: Path) -> npt.NDArray[np.float64]:
        """The weights of the file ``path``, flat (checked: one line if it is not one)."""

    def search(self, depth: int | None, playouts: int | None) -> str:
        """The self-play's and the gate's search, without the evaluator (the run's
        ``--depth``, else the trainer's; a trainer of a playout search reads
        ``--playouts``); one :class:`~banmen.engine.SpecError` line for an option the
        search has no use for."""
        if playouts is not None:
            from banmen.engine import SpecError

            raise SpecError(f"--playouts is for a playout search; {self.evaluator} is trained "
                            "with alpha-beta: give --depth")  # fmt: skip
        return f"alphabeta:depth={depth or self.depth}"

    def player(self, search: str, path: Path) -> str:
        """The spec of ``search`` (``alphabeta:depth=4``) with the weights in ``path``."""
        return f"{search}+{self.evaluator}:weights={path}"

    def baseline(self, search: str) -> str:
        """The fixed baseline of a run: ``search`` with the game's own evaluation."""
        return search


class LinearTrainer(Trainer):
    """A linear evaluation, fitted by least squares to labelled positions by
    :mod:`banmen.train.fit` (module docstring)."""

    #: the fit's damping (lsqr's ``damp``): a weight its positions' labels pull on only
    #: as much as ``damp ** 2`` more positions at zero would (rare features stay small)
    damp: float = 1.0

    @abstractmethod
    def write(self, path: Path, like: Path, weights: npt.NDArray[np.float64],
              meta: Mapping[str, Any]) -> None:  # fmt: skip
        """Write ``weights`` (flat, as :meth:`read` gives) in the format of the file
        ``like`` (its tuples, its tables' shape) to ``path``, with ``meta``."""

    @abstractmethod
    def features(self, path: Path) -> Features:
        """The feature indices of positions, for the model in ``path``."""


class ChoiceTrainer(Trainer):
    """A choice-of-move model, fitted to the moves the self-play's search chose (module
    docstring)."""

    @abstractmethod
    def fit(self, games: Iterable[Any], size: int | None, current: Path, out: Path,
            meta: Mapping[str, Any], progress: Progress) -> dict[str, Any]:  # fmt: skip
        """Fit the model to ``games`` (:class:`banmen.train.selfplay.SelfPlayGame`: the
        deal's ``seed``, the ``moves`` played and the search's own choice, ``best``, at
        every position; one game in ten, ``index % 10 == 9``, held out) and write it to
        ``out`` with ``meta``. Returns the fit's figures, JSON: ``positions`` (the
        choices fitted), ``held_out``, ``error`` (its name), ``held_out_error`` and
        ``held_out_error_before`` (by quarter of the game, the new model's and
        ``current``'s), ``seconds``."""
