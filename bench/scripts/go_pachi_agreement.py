"""Issue 40, Go: banmen's moves beside Pachi's, position by position — how often a search
at a fixed budget picks the move Pachi picks with many more simulations (the "teacher").

A measure of what a simulation is worth that needs no match: positions from the games of
arena runs against Pachi (every ``--every`` plies from ply 4 to 60, at most
``--limit``), the teacher's move (Pachi ``-t =N threads=1``, a fresh process per
position) written once to ``--labels`` (JSON lines, reused when the file exists), then
each student's move: banmen configurations (``--config``, :class:`GoEngine` keyword
arguments, e.g. ``prior_visits=60``, the tree's ``rave_equiv=500``, or
``weights=FILE.npz``; ``-`` for the defaults) at ``--playouts`` and, with ``--pachi-
student N``, Pachi itself at ``N`` simulations. The students are alternated position by
position (the machine is shared: all meet it in the same state). Reported: agreement
with the teacher (95% Wilson) and the mean CPU seconds a move (Pachi's: its process's).

Usage::

    .venv/bin/python bench/scripts/go_pachi_agreement.py --labels FILE.jsonl \\
        [--db bench/results/issue40-go-budget.sqlite3 --run p5000 --run p5000-x4] \\
        [--teacher 40000] [--playouts 5000] [--pachi-student 5000] \\
        [--config - --config prior_visits=60] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from _arena_games import games
from _pachi import pachi_genmove

from banmen.games.go import Board
from banmen.games.go.engine import GoEngine
from banmen.games.go.features import Weights
from banmen.games.go.game import Game
from banmen.search.limits import Limit
from banmen.stats import wilson

ROOT = Path(__file__).resolve().parents[2]
MOVE = re.compile(r"^= (\S+)", re.M)


def positions(db: Path, runs: list[str], every: int, limit: int) -> list[list[str]]:
    """The moves before every ``every``-th ply from 4 to 60 of the runs' games (no
    position twice, none whose next move was a pass or resign), at most ``limit``, spread
    over the games."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for run in runs:
        for g in games(db, run):
            for p in range(4, min(61, len(g.moves) - 2), every):
                key = tuple(g.moves[:p])
                if key not in seen and g.moves[p].lower() not in ("pass", "resign"):
                    seen.add(key)
                    out.append(list(key))
    if limit and len(out) > limit:
        step = len(out) / limit
        out = [out[int(i * step)] for i in range(limit)]
    return out


def pachi_move(pachi: str, moves: list[str], playouts: int) -> tuple[str, float]:
    """Pachi's move after ``moves`` at ``playouts`` simulations (one thread), and the CPU
    seconds of its process."""
    run = pachi_genmove(pachi, moves, playouts, timeout=600)
    found = MOVE.findall(run.stdout)
    return (found[-1].upper() if found else "?"), run.cpu


def banmen_move(engine: GoEngine, moves: list[str], playouts: int) -> tuple[str, float]:
    game = Game(Board(9))
    for m in moves:
        game.push(game.parse_move(m))
    engine.new_game()
    t0 = time.process_time()
    r = engine.think(game, Limit(nodes=playouts))
    return str(r.move).upper(), time.process_time() - t0


#: configuration keys that are the tree search's (:class:`~banmen.search.mcts.MCTS`)
SEARCH_KEYS = ("rave_equiv", "explore", "expand_threshold")


def make_engine(text: str) -> GoEngine:
    """A :class:`GoEngine` from ``KEY=V,...`` (``-``: the defaults): the policy's
    parameters, or the tree search's (:data:`SEARCH_KEYS`)."""
    params: dict[str, int] = {}
    search: dict[str, float] = {}
    weights = None
    for item in text.split(",") if text != "-" else []:
        key, _, value = item.partition("=")
        key = key.strip()
        if key == "weights":
            weights = Weights.load(value)
        elif key in SEARCH_KEYS:
            search[key] = float(value)
        else:
            params[key] = int(value)
    e = GoEngine(seed=1, weights=weights, **params)
    for key, value in search.items():
        setattr(e.search, key, int(value) if key == "expand_threshold" else value)
    return e


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pachi", default=os.path.expanduser("~/.cache/banmen-anchors/pachi"))
    ap.add_argument("--db", type=Path, default=ROOT / "bench/results/issue40-go-budget.sqlite3")
    ap.add_argument("--run", action="append", default=None)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--limit", type=int, default=240)
    ap.add_argument("--teacher", type=int, default=40000)
    ap.add_argument("--labels", type=Path, required=True)
    ap.add_argument("--playouts", type=int, default=5000)
    ap.add_argument("--pachi-student", type=int, default=0)
    ap.add_argument("--config", action="append", default=[])
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    runs = a.run or ["p5000", "p5000-x4"]
    if not a.labels.exists():
        pos = positions(a.db, runs, a.every, a.limit)
        with a.labels.open("w") as f:
            for i, moves in enumerate(pos):
                mv, cpu = pachi_move(a.pachi, moves, a.teacher)
                f.write(json.dumps({"moves": moves, "teacher": mv, "cpu": cpu}) + "\n")
                f.flush()
                print(f"{i + 1}/{len(pos)} ply {len(moves)}: teacher {mv} ({cpu:.1f} s)",
                      flush=True)  # fmt: skip
    labels = [json.loads(line) for line in a.labels.read_text().splitlines()]
    # a position the teacher resigns or passes in tells nothing about a move
    labels = [lab for lab in labels if lab["teacher"] not in ("RESIGN", "PASS", "?")]
    students: list[tuple[str, Any]] = []
    for text in a.config:
        e = make_engine(text)
        e.warm_up()
        students.append((f"banmen {text}", e))
    if a.pachi_student:
        students.append((f"pachi ={a.pachi_student}", None))
    tally: dict[str, dict[str, float]] = {n: {"agree": 0, "cpu": 0.0} for n, _ in students}
    rows = []
    for i, lab in enumerate(labels):
        row: dict[str, Any] = {"ply": len(lab["moves"]), "teacher": lab["teacher"]}
        for name, e in students:
            if e is None:
                mv, cpu = pachi_move(a.pachi, lab["moves"], a.pachi_student)
            else:
                mv, cpu = banmen_move(e, lab["moves"], a.playouts)
            row[name] = mv
            tally[name]["agree"] += mv == lab["teacher"]
            tally[name]["cpu"] += cpu
        rows.append(row)
        print(i + 1, row, flush=True)
    n = len(labels)
    summary = {}
    for name, t in tally.items():
        lo, hi = wilson(int(t["agree"]), n)
        summary[name] = {"agree": int(t["agree"]), "positions": n, "rate": t["agree"] / n,
                         "wilson": [lo, hi], "cpu_a_move": t["cpu"] / n}  # fmt: skip
        print(f"{name}: {int(t['agree'])}/{n} = {100 * t['agree'] / n:.1f}% "
              f"[{100 * lo:.1f}, {100 * hi:.1f}], {t['cpu'] / n:.3f} CPU s a move")  # fmt: skip
    if a.out is not None:
        a.out.write_text(json.dumps({"teacher": a.teacher, "playouts": a.playouts,
                                     "runs": runs, "summary": summary, "rows": rows,
                                     "load": os.getloadavg()}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
