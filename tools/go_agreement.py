"""How often the Go engine at a fixed playout budget picks the move a stronger player
chose: a quick measure of a search change (progressive widening, priors) on 19x19,
where a match long enough to tell is hours of play.

    python tools/go_agreement.py bench/data/gnugo-19x19-l10.jsonl \
        --config widen=0 --config widen=4 --playouts 3000 --every 7 --out FILE.json

Positions are taken from the records every ``--every`` moves between move 10 and 200;
the configurations (``GoEngine`` keyword arguments) are alternated position by
position. Reported per configuration: agreement with the record's move (with a 95%
Wilson interval), and the search's CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from banmen.games.go import Board
from banmen.games.go.engine import GoEngine
from banmen.search.limits import Limit
from banmen.stats import wilson


def positions(
    files: list[Path], every: int, first: int = 10, last: int = 200
) -> list[tuple[Board, str]]:
    out = []
    for f in files:
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            b = Board(rec["size"], "chinese", 7.5)
            for k, mv in enumerate(rec["moves"]):
                if first <= k <= last and k % every == 0 and mv.lower() != "pass":
                    out.append((b.copy(), mv.upper()))
                b.push_name(mv)
    return out


def parse_config(text: str) -> dict[str, int]:
    out = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        out[key.strip()] = int(value)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--config", action="append", required=True, help="e.g. widen=4")
    ap.add_argument("--playouts", type=int, default=3000)
    ap.add_argument("--every", type=int, default=7)
    ap.add_argument("--limit", type=int, default=0, help="at most this many positions")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    pos = positions(args.files, args.every)
    if args.limit:
        pos = pos[: args.limit]
    configs = [parse_config(c) for c in args.config]
    engines = [GoEngine(Limit(nodes=args.playouts), seed=1, **c) for c in configs]
    for e in engines:
        e.warm_up()
    hits = [0] * len(configs)
    cpu = [0.0] * len(configs)
    for i, (board, want) in enumerate(pos):
        for k, e in enumerate(engines):
            e.new_game()
            t0 = time.process_time()
            r = e.think(board)
            cpu[k] += time.process_time() - t0
            hits[k] += (r.move or "").upper() == want
        if (i + 1) % 20 == 0:
            print(
                f"{i + 1}/{len(pos)}: "
                + ", ".join(f"{args.config[k]} {hits[k]}" for k in range(len(configs))),
                flush=True,
            )
    n = len(pos)
    rows: list[dict[str, Any]] = []
    for k, c in enumerate(args.config):
        lo, hi = wilson(hits[k], n)
        rows.append(
            {
                "config": c,
                "agree": hits[k],
                "positions": n,
                "rate": hits[k] / n,
                "wilson95": [lo, hi],
                "cpu_seconds_per_search": cpu[k] / n,
            }
        )
    rec = {
        "files": [str(f) for f in args.files],
        "playouts": args.playouts,
        "every": args.every,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "rows": rows,
    }
    print(json.dumps(rec, indent=1))
    if args.out:
        args.out.write_text(json.dumps(rec, indent=1) + "\n")


if __name__ == "__main__":
    main()
