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

A leaf of the contracts' floor: :mod:`banmen.train` runs the loop; the n-tuple trainer
every grid game gets is :class:`banmen.games.training.NTupleTrainer`, Othello's patterns'
:class:`banmen.games.othello.training.PatternsTrainer`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from banmen.games._base import GameDef

__all__ = ["Trainer", "Features"]

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
    #: the fit's damping (lsqr's ``damp``): a weight its positions' labels pull on only
    #: as much as ``damp ** 2`` more positions at zero would (rare features stay small)
    damp: float = 1.0

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
