"""Issue 40, "profile first": simulations a second of banmen's Go engine and of Pachi on
the same 9x9 positions, one thread each, a fixed number of playouts, alternated position by
position in one run (the machine is shared: both meet it in the same state).

The positions: plies 10, 30 and 50 of the games of an arena run against Pachi (by default
``clk-pachi60`` in ``bench/results/issue39-clocks.sqlite3``). Pachi gets a fixed number of
playouts from its command line (``-t =N threads=1``), a process per position, and its
"(N games/s, …)" line on stderr is read for the move. banmen's figure is ``Result.nodes /
Result.seconds`` of ``GoEngine.think(game, Limit(nodes=N))`` (its tree cleared first).

Usage::

    .venv/bin/python bench/scripts/go_pachi_playouts.py [--pachi PATH] [--playouts 5000]
        [--db bench/results/issue39-clocks.sqlite3] [--run clk-pachi60] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
from pathlib import Path

from _arena_games import games
from _pachi import pachi_genmove

from banmen.games.go import Board
from banmen.games.go.engine import GoEngine
from banmen.games.go.game import Game
from banmen.search.limits import Limit

ROOT = Path(__file__).resolve().parents[2]
GAMES_S = re.compile(r"\((\d+) games/s")


def positions(db: Path, run: str, plies: tuple[int, ...] = (10, 30, 50)) -> list[list[str]]:
    """The moves up to each of ``plies`` of each game of the run (games long enough)."""
    return [g.moves[:p] for g in games(db, run) for p in plies if p < len(g.moves) - 2]


def pachi_rate(pachi: str, moves: list[str], playouts: int) -> tuple[float, float]:
    """Pachi's games a second on the position after ``moves`` (one thread, ``-t =N``), and
    the wall seconds of its genmove."""
    run = pachi_genmove(pachi, moves, playouts, timeout=120)
    rates = GAMES_S.findall(run.stderr)
    return (float(rates[-1]) if rates else float("nan")), run.wall


def banmen_rate(engine: GoEngine, moves: list[str], playouts: int) -> float:
    board = Board(9)
    game = Game(board)
    for m in moves:
        game.push(game.parse_move(m))
    engine.new_game()
    r = engine.think(game, Limit(nodes=playouts))
    return r.nodes / max(r.seconds, 1e-9)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pachi", default=os.path.expanduser("~/.cache/banmen-anchors/pachi"))
    ap.add_argument("--playouts", type=int, default=5000)
    ap.add_argument("--db", type=Path, default=ROOT / "bench/results/issue39-clocks.sqlite3")
    ap.add_argument("--run", default="clk-pachi60")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    engine = GoEngine(seed=1)
    engine.warm_up()
    rows = []
    for moves in positions(a.db, a.run):
        b = banmen_rate(engine, moves, a.playouts)
        p, _ = pachi_rate(a.pachi, moves, a.playouts)
        rows.append({"ply": len(moves), "banmen": b, "pachi": p})
        print(f"ply {len(moves):3d}  banmen {b:8.0f}/s  pachi {p:8.0f}/s", flush=True)
    by_ply: dict[int, list[dict[str, float]]] = {}
    for r in rows:
        by_ply.setdefault(int(r["ply"]), []).append(r)
    summary = {
        str(ply): {"positions": len(rs),
                   "banmen_median": statistics.median(r["banmen"] for r in rs),
                   "pachi_median": statistics.median(r["pachi"] for r in rs)}
        for ply, rs in sorted(by_ply.items())
    }  # fmt: skip
    for ply, s in summary.items():
        print(
            f"ply {ply}: {s['positions']} positions, median banmen {s['banmen_median']:.0f}/s, "
            f"pachi {s['pachi_median']:.0f}/s, ratio {s['banmen_median'] / s['pachi_median']:.2f}"
        )
    if a.out is not None:
        a.out.write_text(json.dumps({"playouts": a.playouts, "rows": rows, "summary": summary,
                                     "load": os.getloadavg()}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
