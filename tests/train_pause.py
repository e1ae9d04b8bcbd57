"""``banmen`` with a pause where the kill tests of ``banmen train`` strike (issue 38).

``PAUSE=selfplay:SECONDS``: sleep that long after each stored batch of self-play games;
``PAUSE=fit:FILE``: once a fit is computed, write FILE and sleep before the candidate is
stored; ``PAUSE=full:N``: the disk is full after N stored batches (SQLite says so).
Run as ``python tests/train_pause.py train ...``.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import banmen.train.loop as loop
from banmen.cli import main
from banmen.train.store import TrainStore

what, _, arg = os.environ.get("PAUSE", "").partition(":")
if what == "selfplay":
    add = TrainStore.add_games

    def add_games(self: TrainStore, *a: Any, **k: Any) -> None:
        add(self, *a, **k)
        time.sleep(float(arg))

    TrainStore.add_games = add_games  # type: ignore[method-assign]
elif what == "full":
    add = TrainStore.add_games
    calls = [0]

    def add_games(self: TrainStore, *a: Any, **k: Any) -> None:
        calls[0] += 1
        if calls[0] > int(arg):
            raise sqlite3.OperationalError("database or disk is full")
        add(self, *a, **k)

    TrainStore.add_games = add_games  # type: ignore[method-assign]
elif what == "fit":
    fit = loop.fit_weights

    def fit_weights(*a: Any, **k: Any) -> Any:
        result = fit(*a, **k)
        Path(arg).write_text("fitted")
        time.sleep(600)
        return result

    loop.fit_weights = fit_weights

if __name__ == "__main__":
    sys.exit(main())
