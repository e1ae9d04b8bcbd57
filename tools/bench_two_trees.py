"""Fixed workloads of one source tree, in CPU seconds, as JSON: the side-by-side check that a
refactor lost no speed. Run once per tree, alternating the trees, e.g.

    for t in OLD NEW OLD NEW OLD NEW; do PYTHONPATH=$t/src python tools/bench_two_trees.py; done

Each figure is the best of three CPU times (``time.process_time``) and comes with its node
count: equal counts mean both trees' searches did the same work. Module names are looked up
under their present names and the earlier ones (issue 15, issue 31), so a tree from before
a move runs too.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import cshogi
import numpy as np


def _module(*names: str) -> ModuleType:
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    raise ImportError(f"none of {names}")


def _cpu(work: Callable[[], int]) -> tuple[float, int]:
    best = float("inf")
    count = 0
    for _ in range(3):
        t = time.process_time()
        count = work()
        best = min(best, time.process_time() - t)
    return best, count


def main() -> dict[str, tuple[float, int]]:
    from banmen.bench.othello import ffo_positions
    from banmen.bench.tsume import tsume_rows
    from banmen.games.othello.endgame import EndgameSolver
    from banmen.search.limits import Limit

    engines = _module("banmen.games.engines", "banmen.engine")
    # the registry: games/registry.py since issue 31, games/__init__.py before, engine.py
    # before issue 15
    registry = _module("banmen.games.registry", "banmen.games")
    if not hasattr(registry, "make_engine"):
        registry = _module("banmen.engine")
    get_game = _module("banmen.games.registry", "banmen.games").get_game
    out: dict[str, tuple[float, int]] = {}

    mattix = get_game("mattix")
    solver: Any = engines.AlphaBetaEngine(mattix, Limit(), tt_bits=mattix.tt_bits)
    solver.warm_up()

    def mattix_solves() -> int:
        nodes = 0
        for seed in range(5):
            solver.new_game()
            nodes += solver.think(mattix.new_board(seed, 6)).nodes
        return nodes

    out["mattix_solve_5"] = _cpu(mattix_solves)

    rules = _module("banmen.games.othello.kernels", "banmen.games.othello.bitboard")
    othello = importlib.import_module("banmen.games.othello")
    start = othello.Board()
    black, white = np.uint64(start.black), np.uint64(start.white)
    rules.perft(black, white, 2, False, False)
    out["othello_perft_10"] = _cpu(lambda: int(rules.perft(black, white, 10, False, False)[0]))

    suite = ffo_positions()
    endgame = EndgameSolver()

    def ffo() -> int:
        nodes = 0
        for i in (40, 41):
            b = othello.Board.from_string(suite[i]["board"])
            p, o = (b.black, b.white) if b.turn == othello.BLACK else (b.white, b.black)
            endgame.clear()
            nodes += endgame.solve(p, o).nodes
        return nodes

    ffo()
    out["othello_ffo_40_41"] = _cpu(ffo)

    go = get_game("go")
    mcts = registry.make_engine("go", "mcts:playouts=20000,seed=1")
    mcts.warm_up()

    def go_playouts() -> int:
        mcts.new_game()
        return int(mcts.think(go.new_board(0, 9)).nodes)

    out["go_mcts_20k"] = _cpu(go_playouts)

    shogi = _module("banmen.games.shogi.kernels", "banmen.games.shogi.kernel")
    state = shogi.from_sfen(cshogi.STARTING_SFEN)
    buf = np.zeros(5 * shogi.MAX_MOVES, np.int64)
    shogi.perft(shogi.CTX, state, 2, buf)
    out["shogi_perft_5"] = _cpu(lambda: int(shogi.perft(shogi.CTX, state, 5, buf)))

    tsume = importlib.import_module("banmen.games.shogi.tsume")
    tsume.warm_up()
    problems = tsume_rows()[:60]

    def tsume_solves() -> int:
        return sum(tsume.solve(r["sfen"], Limit(time=30)).nodes for r in problems)

    out["tsume_60"] = _cpu(tsume_solves)
    return out


if __name__ == "__main__":
    print(json.dumps(main()))
