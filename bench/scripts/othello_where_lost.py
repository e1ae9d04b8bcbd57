"""Issue 40: where banmen gives its games against Egaroucid-web away — each move's loss of
value, by phase, for both players.

Every position of the games of an arena run (by default the runs of
:data:`othello_move_choice.SOURCES` against Egaroucid-web level 10) is valued by
Egaroucid-web from the mover's view (its search, exact at ``2 * level`` empties or fewer):
a move's loss is the position's value at ``--level`` less the value of the position the
move leaves at ``level - 1`` (negated: the opponent's view), in discs — 0 for the judge's
own choice, as one search sees both (a position whose mover must pass takes its
successor's value; the end, its final margin, the empties to the winner). Reported per player (the
run's player names) and per band of empties: moves,
mean loss, and the share of moves that lose 4 discs or more.

An analysis with Egaroucid as the judge: exact at ``2 * (level - 1)`` empties or fewer (at
level 14, the bands up to 28 empties are the truth); above that a deeper search than either
player's (14 plies against 10) with Egaroucid's own evaluation, which favours Egaroucid's
moves.

Usage::

    .venv/bin/python bench/scripts/othello_where_lost.py [--source FILE:RUN ...]
        [--level 14] [--games 40] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

from _arena_games import games as arena_games
from othello_eval_error import egaroucid_text
from othello_move_choice import ROOT

from banmen.arena.play import start_board
from banmen.games.othello import PASS, Board
from banmen.games.registry import get_game

BANDS = ((41, 60), (29, 40), (21, 28), (0, 20))


def band(empties: int) -> str:
    return next(f"{lo}-{hi}" for lo, hi in BANDS if lo <= empties <= hi)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--driver", default=os.path.expanduser("~/.cache/banmen-anchors/egaroucid-web-driver")
    )
    ap.add_argument("--source", action="append", help="FILE:RUN under bench/results")
    ap.add_argument("--level", type=int, default=14)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    sources = a.source or ["issue40-othello-scaling.sqlite3:tscale"]
    game = get_game("othello")
    eg = subprocess.Popen([a.driver], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert eg.stdin is not None and eg.stdout is not None
    cache: dict[tuple[int, int, int, int], int] = {}

    def value(b: Board, level: int) -> int:
        """The value for the mover: Egaroucid's at ``level``, the final margin (empties to
        the winner) at the end, the opponent's negated where the mover must pass."""
        key = (*b.pieces(), int(b.turn), level)
        if key not in cache:
            if b.is_game_over():
                cache[key] = b.final_margin()
            elif b.legal_moves == [PASS]:
                c = b.copy()
                c.push(PASS)
                cache[key] = -value(c, level)
            else:
                eg.stdin.write(f"{level} {egaroucid_text(b)}\n")  # type: ignore[union-attr]
                eg.stdin.flush()  # type: ignore[union-attr]
                cache[key] = int(eg.stdout.readline().split()[1])  # type: ignore[union-attr]
        return cache[key]

    rows = []
    t0 = time.time()
    n = 0
    for source in sources:
        db, run = source.rsplit(":", 1)
        for g in arena_games(ROOT / "bench/results" / db, run):
            if n >= a.games:
                break
            n += 1
            board = start_board(game, None, g.deal_seed)
            names = {1: g.first, 2: g.second}
            for m in g.moves:
                mv = board.parse_move(m)
                b, who = board.copy(), names[int(board.turn)]
                board.push(mv)
                if mv == PASS:
                    continue
                before, after = value(b, a.level), -value(board, a.level - 1)
                rows.append({"run": run, "player": who, "empties": b.empties(), "move": m,
                             "before": before, "after": after,
                             "loss": before - after})  # fmt: skip
            print(f"{n} games, {len(rows)} moves, {time.time() - t0:.0f} s", flush=True)
    eg.stdin.close()
    eg.wait()
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for r in rows:
        who = str(r["player"])
        fresh = {"moves": 0.0, "loss": 0.0, "big": 0.0}
        s = summary.setdefault(who, {}).setdefault(band(int(r["empties"])), fresh)
        s["moves"] += 1
        s["loss"] += float(r["loss"])
        s["big"] += float(r["loss"]) >= 4
    for who, bands in summary.items():
        for b_, s in bands.items():
            s["mean_loss"] = round(s["loss"] / s["moves"], 2)
            s["share_4_or_more"] = round(s["big"] / s["moves"], 3)
            print(
                f"{who:9s} {b_:>6s} empties: {int(s['moves']):4d} moves, mean loss "
                f"{s['mean_loss']:.2f} discs, {100 * s['share_4_or_more']:.1f}% lose 4+"
            )
    if a.out:
        when = time.strftime("%Y-%m-%d %H:%M")
        a.out.write_text(json.dumps({"sources": sources, "level": a.level, "rows": rows,
                                     "summary": summary, "load": os.getloadavg(),
                                     "date": when}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
