"""Othello's evaluations, as evaluators a spec names (:mod:`banmen.kinds`):
``alphabeta+handset`` and ``alphabeta+patterns[:weights=FILE]``.

* ``handset``: the hand-set features of :mod:`.evaluation` (mobility, potential mobility,
  corners, X- and C-squares, stability, parity), in the search of
  :data:`~.evaluation.ALPHABETA_KERNELS`;
* ``patterns``: the learned pattern tables of :mod:`.patterns` in the search of
  :data:`~.pattern_search.PATTERN_KERNELS` (its move order and ProbCut), read from a
  weights file: ``weights=FILE``, or the file banmen ships (a file like any other).

An evaluator is data for the search: its kernels (the rules' own with its evaluation,
order and ProbCut) and its ``ctx`` (its weights). The Othello engine takes whichever it is
given; nothing chooses kernels by a flag.

A weights file is input, never code: it is read with ``allow_pickle=False``, only if it is a
regular file whose members are no larger than :data:`MAX_MEMBER_BYTES` unpacked, and only
if its header names this evaluator, this game and the shape of the tables; anything else is
one :class:`WeightsError` line saying which and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from banmen.kinds import EvaluatorKind, Option
from banmen.search.alphabeta import Kernels
from banmen.warm import KernelSet
from banmen.weights import MAX_MEMBER_BYTES, WeightsError, header_of, open_weights

__all__ = [
    "HANDSET",
    "PATTERNS",
    "OthelloEvaluator",
    "WeightsError",
    "handset",
    "patterns",
    "MAX_MEMBER_BYTES",
]


@dataclass(frozen=True)
class OthelloEvaluator:
    """What the Othello engine's midgame search runs: ``kernels`` (the rules with this
    evaluation's ``evaluate``, ``order`` and ``probcut``), their ``ctx`` and the compiled
    set they load from (``kernel_set``)."""

    name: str
    kernels: Kernels
    ctx: Any
    kernel_set: KernelSet
    #: the weights file read (``None``: none, or the shipped one)
    source: str | None = None
    #: (:class:`banmen.kinds.Evaluator`: a tree search values a leaf by ``evaluate``)
    leaf_playouts: int = 0

    def context(self, game_ctx: Any = None) -> Any:
        """The ``ctx`` of :attr:`kernels`: its own, whatever the position's."""
        return self.ctx

    def warm_set(self, purpose: str) -> KernelSet | None:
        """Its compiled code: the midgame search's (``"search"``)."""
        return self.kernel_set if purpose == "search" else None

    def reset(self) -> None:
        """(No random numbers to restart.)"""


def _othello(game: Any) -> str | None:
    return None if game.name == "othello" else "an evaluation of Othello positions"


@cache
def _handset() -> OthelloEvaluator:
    from banmen.games.othello.evaluation import ALPHABETA_KERNELS, context
    from banmen.games.othello.sets import HANDSET as HANDSET_SET

    return OthelloEvaluator("handset", ALPHABETA_KERNELS, context(), HANDSET_SET)


def handset(game: Any = None, options: dict[str, Any] | None = None) -> OthelloEvaluator:
    """The hand-set evaluation."""
    return _handset()


def load_patterns(path: Path) -> Any:
    """The :class:`~.patterns.Weights` in ``path``, checked (:mod:`banmen.weights`: one
    :class:`WeightsError` line for a file that is missing, corrupt or another's)."""
    import numpy as np

    from banmen.games.othello.patterns import HEADER, Weights

    whose = "the weights of Othello's patterns evaluator"
    expected = "an .npz written by banmen's patterns evaluator for Othello"
    with open_weights(path, HEADER, whose, expected) as z:
        if "table" not in z.files:
            raise ValueError(f"holds {sorted(z.files)}, not a table and its header")
        pc = z["probcut"] if "probcut" in z.files else None
        return Weights(z["table"].astype(np.int32), header_of(z["meta"]), pc)


@cache
def _patterns(path: str | None) -> OthelloEvaluator:
    from banmen.games.othello.pattern_search import PATTERN_KERNELS, pattern_context
    from banmen.games.othello.patterns import load_weights
    from banmen.games.othello.sets import SEARCH

    weights = load_weights() if path is None else load_patterns(Path(path))
    return OthelloEvaluator("patterns", PATTERN_KERNELS, pattern_context(weights), SEARCH, path)


def patterns(game: Any = None, options: dict[str, Any] | None = None) -> OthelloEvaluator:
    """The learned pattern evaluation, from ``options["weights"]`` (a file) or the shipped
    weights. (Loaded once per file and process.)"""
    path = (options or {}).get("weights")
    return _patterns(None if path is None else str(Path(path).expanduser().resolve()))


HANDSET = EvaluatorKind(
    "handset",
    "Othello's hand-set evaluation (mobility, potential mobility, corners, X/C squares, "
    "stability, parity)",
    build=handset,
    applies=_othello,
    searches=("alphabeta", "perfect"),
)
PATTERNS = EvaluatorKind(
    "patterns",
    "Othello's learned pattern evaluation (Logistello's patterns, with its ProbCut); "
    "weights=FILE (default: the weights banmen ships)",
    build=patterns,
    options=(
        Option("weights", Path, "a weights file (.npz: tools/othello_train.py, banmen train)"),
    ),
    applies=_othello,
    searches=("alphabeta", "perfect"),
    trainer="banmen.games.othello.training:PatternsTrainer",
)
