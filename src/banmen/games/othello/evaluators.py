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

import os
import stat
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from banmen.engine import SpecError
from banmen.kinds import EvaluatorKind, Option
from banmen.search.alphabeta import Kernels
from banmen.warm import KernelSet

__all__ = [
    "HANDSET",
    "PATTERNS",
    "OthelloEvaluator",
    "WeightsError",
    "handset",
    "patterns",
    "MAX_MEMBER_BYTES",
]

#: the most a weights file's member may hold unpacked (the shipped table is 4 MB)
MAX_MEMBER_BYTES = 256 << 20


class WeightsError(SpecError):
    """A weights file that cannot be used: missing, not a file, corrupt, too large, or made
    for another evaluator, game or shape (one line saying which and what was expected)."""


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


def _checked_file(path: Path) -> None:
    """Refuse (one line) what is not a regular file of bounded members."""
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
            f"weights file {path}: not a weights file banmen can read ({e}); expected an "
            ".npz written by banmen's patterns evaluator for Othello"
        ) from None


def load_patterns(path: Path) -> Any:
    """The :class:`~.patterns.Weights` in ``path``, checked (:class:`WeightsError`)."""
    from banmen.games.othello.patterns import Weights

    _checked_file(path)
    try:
        return Weights.load(path)
    except WeightsError:
        raise
    except Exception as e:  # a corrupt member, a bad header: one line
        text = " ".join(str(e).split()) or type(e).__name__
        raise WeightsError(f"weights file {path}: {text}") from None


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
)
