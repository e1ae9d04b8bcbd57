"""Go's evaluation as an evaluator a spec names (:mod:`banmen.kinds`): ``+policy``.

Go's tree search (``mcts``, ``puct``: :class:`~banmen.games.go.engine.GoEngine`) reads its
priors and its playouts' 3x3 patterns from learned move weights (:mod:`.features`:
``tools/go_patterns.py`` fits them). ``mcts:time=1+policy:weights=my.npz`` plays with a
user's own file; without ``weights=`` (or without ``+policy``) the weights banmen ships for
the board's size, themselves a file like any other (``data/patterns-*.npz``). A weights
file is input, never code: read by :meth:`.features.Weights.load` through
:func:`banmen.weights.open_weights` (no pickles; its header names the ``policy`` evaluator,
the game ``go`` and the levels' shape), anything else one line saying which. ``learned=0``
(hand-set priors) stays an option of the search. ``banmen train go policy`` fits a file from
banmen's own self-play (:mod:`.training`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from banmen.games.go.features import Weights
from banmen.kinds import EvaluatorKind, Option

__all__ = ["GoPolicy", "POLICY", "policy"]


@dataclass(frozen=True)
class GoPolicy:
    """The move weights Go's search runs with (``None``: those banmen ships for the board's
    size) and the file they came from."""

    weights: Weights | None
    path: str | None = None


@cache
def _policy(path: str | None) -> GoPolicy:
    return GoPolicy(None if path is None else Weights.load(Path(path)), path)


def policy(game: Any = None, options: dict[str, Any] | None = None) -> GoPolicy:
    """The ``policy`` evaluator of ``options`` (``weights``: a file; loaded once per file
    and process)."""
    path = (options or {}).get("weights")
    return _policy(None if path is None else str(Path(path).expanduser().resolve()))


def _go(game: Any) -> str | None:
    return None if getattr(game, "name", None) == "go" else "it is Go's"


POLICY = EvaluatorKind(
    "policy",
    "Go's learned move weights: the tree's priors and the playouts' 3x3 patterns; "
    "weights=FILE (default: the weights banmen ships for the board's size)",
    build=policy,
    options=(Option("weights", Path, "a weights file (.npz: tools/go_patterns.py)"),),
    applies=_go,
    searches=("mcts", "puct"),
    trainer="banmen.games.go.training:PolicyTrainer",
)
