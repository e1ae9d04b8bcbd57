"""Arena throughput: games per second with one and with two worker processes."""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig


def games_per_second(games: int, workers: int, db: Path, name: str) -> float:
    """Steady-state rate (worker start-up and warm-up excluded: the clock starts at the
    first finished game) of Mattix 6x6 depth-1 against depth-1."""
    store = ArenaStore(db)
    try:
        config = RunConfig(
            game="mattix",
            players=[
                {"name": "d1a", "spec": "alphabeta:depth=1"},
                {"name": "d1b", "spec": "alphabeta:depth=1"},
            ],  # fmt: skip
            games=games,
            seed=1,
            size=6,
        )
        run_id = store.create_run(config, name)
        return run_arena(store, run_id, workers).rate
    finally:
        store.close()


def scaling(games: int = 6000, repeats: int = 3) -> dict[str, Any]:
    rates: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory(prefix="banmen-arena-bench-") as tmp:
        for r in range(repeats):  # alternate, so drifts in machine speed hit both alike
            for w in (1, 2):
                db = Path(tmp) / f"bench-{r}-{w}.sqlite3"  # a fresh database per run
                rates[w].append(games_per_second(games, w, db, f"w{w}-{r}"))
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    return {
        "games_per_run": games,
        "repeats": repeats,
        "games_per_second_1_worker": one,
        "games_per_second_2_workers": two,
        "scaling": two / one,
        "runs": {str(k): v for k, v in rates.items()},
    }
