"""Pachi self-play games as move-weight training records (``tools/go_patterns.py fit``).

Each game opens with two random moves in the centre (C3-G7, skipped as decisions: the
record's ``skip``), then one Pachi process plays both colours at a fixed number of
simulations (``-t =N threads=1``, Chinese rules, komi 7.5) until two passes, a
resignation or 200 plies. One JSON object a line: size, seed, skip, source, moves — the
format of ``tools/go_dead_stones.py generate``'s records plus ``skip``.

    python tools/go_pachi_games.py --pachi ~/.cache/banmen-anchors/pachi --games 100 \
        --playouts 3000 --seed 1 --out pachi-9x9.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from banmen.games.go.gtp_client import GTPEngine

COLUMNS = "ABCDEFGHJ"


def game(engine: GTPEngine, rng: random.Random) -> list[str]:
    """One game: two random centre moves, then Pachi for both colours."""
    engine.command("clear_board")
    moves: list[str] = []
    while len(moves) < 2:
        v = f"{COLUMNS[rng.randint(2, 6)]}{rng.randint(3, 7)}"
        if v not in moves:
            engine.command(f"play {'bw'[len(moves) % 2]} {v}")
            moves.append(v)
    while len(moves) < 200:
        mv = engine.command(f"genmove {'bw'[len(moves) % 2]}", timeout=600).upper()
        if mv == "RESIGN":
            break
        moves.append(mv)
        if len(moves) >= 2 and moves[-1] == moves[-2] == "PASS":
            break
    return moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pachi", default=os.path.expanduser("~/.cache/banmen-anchors/pachi"))
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--playouts", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # (Pachi refuses fewer than 500 simulations a move: "-t =300" exits at once)
    engine = GTPEngine([a.pachi, "-t", f"={a.playouts}", "threads=1"])
    engine.command("boardsize 9")
    engine.command("komi 7.5")
    with a.out.open("a") as f:
        for i in range(a.games):
            t0 = time.monotonic()
            seed = rng.getrandbits(31)
            moves = game(engine, rng)
            record = {"size": 9, "seed": seed, "skip": 2, "source": f"pachi ={a.playouts}",
                      "moves": moves}  # fmt: skip
            f.write(json.dumps(record) + "\n")
            f.flush()
            print(f"game {i + 1}: {len(moves)} moves, {time.monotonic() - t0:.0f} s",
                  file=sys.stderr, flush=True)  # fmt: skip
    engine.close()


if __name__ == "__main__":
    main()
