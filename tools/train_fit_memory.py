"""The fit's memory for a million positions (issue 38): the stored self-play games of a
training run, read again until there are ``--positions`` of them, fitted as ``banmen
train`` fits them; prints the positions, the fit's seconds and the process's peak
resident memory (``ru_maxrss``: everything this process held, the interpreter and
numba included).

    python tools/train_fit_memory.py --db RUN_DB --run NAME [--positions 1000000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import tempfile
from collections.abc import Iterator
from pathlib import Path

from banmen.games.registry import get_game
from banmen.train.fit import Labels, fit_weights
from banmen.train.loop import run_folder
from banmen.train.selfplay import SelfPlayGame
from banmen.train.store import TrainStore
from banmen.train.trainers import trainer_for


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--positions", type=int, default=1_000_000)
    a = ap.parse_args()
    store = TrainStore(a.db)
    run = store.run(a.run)
    trainer = trainer_for(get_game(run.game), run.evaluator)
    weights = run_folder(a.db, a.run) / "start.npz"
    before = trainer.read(weights)
    iterations = [i.iteration for i in store.iterations(a.run)]

    def games() -> Iterator[tuple[SelfPlayGame, bool]]:
        n = 0
        copy = 0
        while True:
            for g in store.games(a.run, iterations):
                yield dataclasses.replace(g, index=g.index + 100_000 * copy), False
                n += g.states.shape[0]
                if n >= a.positions:
                    return
            copy += 1

    with tempfile.TemporaryDirectory() as tmp:
        r = fit_weights(games(), trainer.features(weights), len(before), before, Path(tmp),
                        Labels(), 1.0, 300, trainer.bound)  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"game": run.game, "evaluator": run.evaluator, "positions": r.positions,
                      "weights": len(before), "fit_seconds": round(r.seconds, 1),
                      "lsqr_iterations": r.iterations, "peak_rss_mb": round(peak, 1)}))  # fmt: skip


if __name__ == "__main__":
    main()
