"""Count the Go games of arena runs again with agreed dead stones (issue 17).

Runs recorded before the arena settled dead stones were counted with every stone on the
board alive. This replays each game of RUN in DB, asks both players' engines for the dead
stones of every game that was passed out — the GTP engine as the player's spec starts it
(``final_status_list dead``), banmen's through its estimate — exactly as the arena now does
(:func:`banmen.games.go.settle_dead`), and writes the runs, re-counted, to OUT (a new
arena database: ``banmen arena report RUN --db OUT`` then gives the new tables). It prints
each game whose winner changed.

    python tools/go_rescore.py bench/results/go-vs-gnugo.sqlite3 OUT.sqlite3 RUN [RUN ...]
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from banmen.arena.play import EngineCache, _first_mover_result
from banmen.arena.store import ArenaStore
from banmen.games import get_game
from banmen.games.go import settle_dead


def main() -> None:
    src, out, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    game_def = get_game("go")
    assert game_def.new_board is not None
    old = ArenaStore(src, readonly=True)
    new = ArenaStore(out)
    cache = EngineCache()
    summary: dict[str, Any] = {}
    for run in runs:
        config = old.run_config(run)
        specs = {p["name"]: p["spec"] for p in config.players}
        new.create_run(config, run)
        changed = 0
        records = []
        for g in old.games(run):
            board = game_def.new_board(g.deal_seed, config.size)
            for m in g.moves:
                board.push(board.parse_move(m))
            engines = tuple(cache.get(game_def, specs[name]) for name in (g.first, g.second))
            extra = settle_dead(board, engines, {})  # type: ignore[arg-type]
            s1, s2 = game_def.scores(board)
            result = _first_mover_result(board.result())
            if result != g.result:
                changed += 1
                print(f"{run} pair {g.pair} {g.first} first: {g.result} -> {result} "
                      f"({board.result()}; dead {extra.get('dead')})")  # fmt: skip
            records.append(replace(g, result=result, score1=s1, score2=s2, extra=extra))
        new.add_games(run, records)
        new.set_status(run, "done")
        summary[run] = {"games": len(records), "winner_changed": changed}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
