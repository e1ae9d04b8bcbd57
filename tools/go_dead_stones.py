"""Dead stones at the end of Go games: banmen's estimate against GNU Go's.

``generate``: GNU Go plays itself to the end (two passes) from a few random opening moves,
at a level drawn per game, and is asked ``final_status_list dead`` and ``final_score`` on
the final position; each game is one JSON line (size, level, moves, GNU Go's dead stones
and score). ``compare``: replays each game on a banmen board and compares the dead stones
banmen's GTP ``final_status_list dead`` gives (:func:`banmen.games.go.estimate_dead`, less
seki) with GNU Go's, game by game: the share of games where the two sets are equal is the
figure issue 17 asks to be >= 95%.

    python tools/go_dead_stones.py generate --size 9 --games 100 --out bench/data/go-dead-9x9.jsonl
    python tools/go_dead_stones.py compare bench/data/go-dead-9x9.jsonl

GNU Go 3.8 (Debian's ``gnugo``) is the oracle; nothing of its code is used.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from banmen.games.go.board import PASS, Board, parse_vertex, vertex_name
from banmen.games.go.gtp_client import GTPEngine

GNUGO = "/usr/games/gnugo"


def _opening(board: Board, rng: random.Random, plies: int) -> list[str]:
    """``plies`` random legal moves away from the first line (not eyes: the board is
    nearly empty), for variety between games."""
    out = []
    n = board.size
    for _ in range(plies):
        moves = [m for m in board.legal_moves if m != PASS]
        inner = [m for m in moves if vertex_name(m, n)[0] not in ("A", "ABCDEFGHJKLMNOPQRST"[n - 1])
                 and vertex_name(m, n)[1:] not in ("1", str(n))]  # fmt: skip
        m = rng.choice(inner or moves)
        board.push(m)
        out.append(vertex_name(m, n))
    return out


def play_one(size: int, level: int, seed: int, max_plies: int) -> dict[str, Any]:
    rng = random.Random(seed)
    board = Board(size, "chinese", 7.5)
    opening = _opening(board, rng, rng.randint(2, 6))
    eng = GTPEngine([GNUGO, "--mode", "gtp", "--level", str(level), "--chinese-rules",
                     "--seed", str(seed)], timeout=120)  # fmt: skip
    try:
        eng.command(f"boardsize {size}")
        eng.command("clear_board")
        eng.command("komi 7.5")
        colors = "bw"
        for i, v in enumerate(opening):
            eng.command(f"play {colors[i % 2]} {v}")
        moves = list(opening)
        passes = 0
        end = "passes"
        while len(moves) < max_plies:
            color = colors[len(moves) % 2]
            v = eng.command(f"genmove {color}").strip().lower()
            if v == "resign":
                end = f"{color} resigned"
                break
            moves.append(v)
            board.push(parse_vertex(v, size))
            passes = passes + 1 if v == "pass" else 0
            if passes == 2:
                break
        else:
            end = "ply cap"
        dead = eng.command("final_status_list dead").split()
        score = eng.command("final_score").strip()
    finally:
        eng.close()
    return {"size": size, "level": level, "seed": seed, "end": end, "moves": moves,
            "gnugo_dead": sorted(d.upper() for d in dead), "gnugo_score": score}  # fmt: skip


def generate(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = sum(1 for _ in out.open()) if out.exists() else 0
    rng = random.Random(args.seed)
    seeds = [rng.randrange(1 << 30) for _ in range(args.games)]
    with out.open("a") as f:
        for i in range(done, args.games):
            t0 = time.monotonic()
            level = random.Random(seeds[i]).randint(args.min_level, args.max_level)
            game = play_one(args.size, level, seeds[i], args.max_plies)
            if game["end"] != "passes":
                print(f"game {i}: {game['end']}, not kept", file=sys.stderr)
                continue
            f.write(json.dumps(game) + "\n")
            f.flush()
            print(f"game {i}: level {level}, {len(game['moves'])} moves, "
                  f"{len(game['gnugo_dead'])} dead, {game['gnugo_score']}, "
                  f"{time.monotonic() - t0:.1f} s", file=sys.stderr)  # fmt: skip


def banmen_dead(game: dict[str, Any]) -> set[str]:
    """What banmen's GTP ``final_status_list dead`` answers on the game's final position."""
    from banmen.protocols.gtp import GTPSession

    ours = GTPSession(size=game["size"], rules="chinese", komi=7.5)
    size = game["size"]
    for line in (f"boardsize {size}", "clear_board", "komi 7.5"):
        ours.handle(line)
    colors = "bw"
    for i, v in enumerate(game["moves"]):
        ours.handle(f"play {colors[i % 2]} {v}")
    answer = ours.handle("final_status_list dead") or ""
    return {v.upper() for v in answer.lstrip("= ").split()}


def compare(args: argparse.Namespace) -> None:
    games = [json.loads(line) for line in Path(args.file).open()]
    agree = 0
    rows = []
    for i, g in enumerate(games):
        ours = banmen_dead(g)
        theirs = set(g["gnugo_dead"])
        same = ours == theirs
        agree += same
        if not same:
            rows.append((i, sorted(ours - theirs), sorted(theirs - ours)))
    n = len(games)
    print(json.dumps({"file": args.file, "games": n, "same_dead_stones": agree,
                      "share": agree / n if n else None}))  # fmt: skip
    for i, extra, missing in rows[: args.show]:
        print(f"  game {i}: banmen also {extra or '-'}; banmen misses {missing or '-'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--size", type=int, default=9)
    g.add_argument("--games", type=int, default=100)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--min-level", type=int, default=1)
    g.add_argument("--max-level", type=int, default=10)
    g.add_argument("--max-plies", type=int, default=400)
    g.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("file")
    c.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    generate(args) if args.cmd == "generate" else compare(args)


if __name__ == "__main__":
    main()
