"""Which trainer trains an evaluator for a game (:func:`trainer_for`), or why none does.

The trainers themselves are the evaluators' (:class:`banmen.trainable.Trainer`,
``EvaluatorKind.trainer``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from banmen.engine import SpecError
from banmen.trainable import ChoiceTrainer, LinearTrainer, Trainer

if TYPE_CHECKING:
    from banmen.games._base import GameDef

__all__ = ["trainer_for", "trainable", "Trainer", "LinearTrainer", "ChoiceTrainer"]


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
        raise SpecError(f"the {evaluator} evaluator cannot be trained: it names no trainer "
                        f"(EvaluatorKind.trainer); {game.title} can train {listed}")  # fmt: skip
    make = _load_ref(kind.trainer) if isinstance(kind.trainer, str) else kind.trainer
    trainer = make(game)
    if not isinstance(trainer, LinearTrainer | ChoiceTrainer):
        raise SpecError(f"the {evaluator} evaluator's trainer is neither a LinearTrainer nor a "
                        "ChoiceTrainer (banmen.trainable)")  # fmt: skip
    return trainer
