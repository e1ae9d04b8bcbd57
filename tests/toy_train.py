"""A game to train in seconds (issue 38): ``subtract4``, the ``subtract`` heap game
(tests/toy_unbounded.py: take 1-3 stones, the last to take wins; the side to move loses
exactly on a multiple of 4) whose rules contract declares cells — a 1 × 4 grid, cell
``i`` holding 1 when the heap is ``i`` modulo 4 — so that the n-tuple evaluator reads it
and ``banmen train`` can fit it. A search to depth 1 with the right weights (cell 0
bad for the side to move) plays perfectly; with zero weights it takes 1 stone always.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import toy_unbounded as toy

from banmen._jit import kernel
from banmen.games import GameDef
from banmen.games.engines import STANDARD_ENGINES

HERE = Path(__file__).parent


@kernel
def _cell(ctx: Any, st: Any, i: int) -> int:
    return 1 if st[0] % 4 == i else 0


@kernel
def _grid(ctx: Any) -> Any:
    return np.int64(1), np.int64(4)


@kernel
def _final(ctx: Any, st: Any) -> int:
    return -8  # no stone left: the other side took the last (a win counts 8, as scores)


KERNELS = toy.KERNELS._replace(final=_final, cell=_cell, cell_values=2, grid=_grid,
                               eval_bound=8)  # fmt: skip

GAME: GameDef[toy.Board] = GameDef(
    name="subtract4",
    title="Subtract (cells)",
    board_from_dict=toy.Board.from_dict,
    engines={k: STANDARD_ENGINES[k] for k in ("alphabeta", "perfect", "random")},
    kernels=KERNELS,
    search_position=toy.search_position,
    sample=toy.Board,
    new_board=lambda seed, size: toy.Board(17 + seed % 8),
    # a win counts 8 (the evaluation's bound): labels of +-1 would round to nothing
    scores=lambda board: (8 * int(board.winner() == 1), 8 * int(board.winner() == 2)),
    max_plies=200,
    kernel_moves=lambda board: list(board.legal_moves),
    board_from_text=lambda text: toy.Board(int(text)),
    position_hint="a number of stones",
)


def write_package(where: Path) -> Path:
    """A ``dist-info`` in ``where`` that makes this module the installed game
    ``subtract4`` (put ``where`` and the tests folder on the path)."""
    info = where / "banmen_toy_subtract4-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: banmen-toy-subtract4\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[banmen.games]\nsubtract4 = toy_train:GAME\n")
    return where
