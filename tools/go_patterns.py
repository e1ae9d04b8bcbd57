"""Learn the Go engine's move weights from game records (:mod:`banmen.games.go.features`).

The records are GNU Go self-play games, one JSON object a line (``tools/go_dead_stones.py
generate`` writes them: size, seed, moves; the first 2-6 moves of each game were random
and are skipped), or Pachi's (``tools/go_pachi_games.py``: a ``skip`` field says how many
opening moves were random). Every other move is a *decision*: the move GNU Go chose among the legal
moves that fill no own eye. The model is Coulom's generalised Bradley-Terry model: each
move's strength is the product of its feature levels' gammas, and the chance of choosing a
move is its strength over the sum of all candidates'. The gammas are fitted by
minorization-maximization (Coulom, "Computing Elo ratings of move patterns in the game of
Go", ICGA Journal 30(4), 2007), one feature group at a time, with one virtual win and one
virtual loss against a gamma of 1 for every level as the prior.

Games are split by a hash of their seed: one in ten is held out. The fit reports the
held-out log-likelihood per move and how often the move with the largest gamma is the one
played (top-1) or among the first five.

    python tools/go_patterns.py fit tests/data/go-dead-9x9.jsonl bench/data/gnugo-9x9.jsonl \
        --size 9 --out src/banmen/games/go/data/patterns-9x9.npz
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from banmen.games.go import features as F
from banmen.games.go.board import PASS, Board, parse_vertex
from banmen.games.go.training import pattern_levels, pattern_vocab

#: candidate moves of one position, at most
_MAX = 19 * 19


def _opening_plies(seed: int) -> int:
    """How many random moves opened the game (as ``go_dead_stones._opening`` drew them)."""
    return random.Random(seed).randint(2, 6)


def extract(files: list[Path], size: int) -> dict[str, Any]:
    """Every decision of the games of ``size`` in ``files``: candidate features, the
    decision each candidate belongs to, which one was played, the game it comes from."""
    feats: list[np.ndarray] = []
    dec: list[np.ndarray] = []
    chosen: list[int] = []
    game_of: list[int] = []
    moves = np.zeros(_MAX, dtype=np.int64)
    buf = np.zeros((_MAX, F.NGROUPS), dtype=np.int64)
    ndec = 0
    ncand = 0
    games = 0
    for path in files:
        for line in path.open():
            g = json.loads(line)
            if g["size"] != size:
                continue
            games += 1
            board = Board(size, "chinese", 7.5)
            skip = g["skip"] if "skip" in g else _opening_plies(g["seed"])
            for i, text in enumerate(g["moves"]):
                mv = parse_vertex(text, size)
                if i >= skip and mv != PASS:
                    pos = board.position
                    n = F.all_features(pos.board, pos.grp, pos.meta, moves, buf)
                    hit = np.nonzero(moves[:n] == mv)[0]
                    if len(hit):
                        feats.append(buf[:n].copy())
                        dec.append(np.full(n, ndec, dtype=np.int64))
                        chosen.append(ncand + int(hit[0]))
                        game_of.append(g["seed"])
                        ndec += 1
                        ncand += n
                board.push(mv)
    return {
        "feats": np.concatenate(feats),
        "dec": np.concatenate(dec),
        "chosen": np.array(chosen, dtype=np.int64),
        "game": np.array(game_of, dtype=np.int64),
        "games": games,
    }


def _held_out(seed: int) -> bool:
    return zlib.crc32(str(seed).encode()) % 10 == 0


def _design(data: dict[str, Any], v3: dict[int, int], v12: dict[int, int]) -> tuple[Any, Any]:
    """Global feature ids (one column per group) and the offsets of each group."""
    sizes = [len(v3) + 1, len(v12) + 1] + [F.LEVELS[g] for g in F.GROUPS[2:]]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    f = data["feats"]
    cols = [pattern_levels(f[:, 0], v3, 8), pattern_levels(f[:, 1], v12, 12)]
    cols += [f[:, g] for g in range(2, F.NGROUPS)]
    ids = np.stack([c + offsets[g] for g, c in enumerate(cols)], axis=1)
    return ids, offsets


def _loglik(lg: np.ndarray, ids: np.ndarray, dec: np.ndarray, chosen: np.ndarray,
            ndec: int) -> tuple[float, float, float]:  # fmt: skip
    """Mean log-likelihood per decision, top-1 and top-5 rates (a tie with the played
    move counts against it)."""
    s = lg[ids].sum(axis=1)
    m = np.full(ndec, -np.inf)
    np.maximum.at(m, dec, s)
    z = np.bincount(dec, weights=np.exp(s - m[dec]), minlength=ndec)
    ll = float(np.mean(s[chosen] - m - np.log(z)))
    better = np.bincount(dec, weights=(s >= s[chosen][dec]).astype(float), minlength=ndec) - 1
    return ll, float(np.mean(better == 0)), float(np.mean(better < 5))


def mm_fit(ids: np.ndarray, dec: np.ndarray, chosen: np.ndarray, offsets: np.ndarray,
           ndec: int, iters: int, log: Any) -> np.ndarray:  # fmt: skip
    """Log-gammas by minorization-maximization (module docstring)."""
    nf = int(offsets[-1])
    lg = np.zeros(nf)
    wins = np.bincount(ids[chosen].ravel(), minlength=nf).astype(float)
    for it in range(iters):
        for g in range(ids.shape[1]):
            s = np.exp(lg[ids].sum(axis=1))
            e = np.bincount(dec, weights=s, minlength=ndec)
            col = ids[:, g]
            c = np.bincount(col, weights=s / np.exp(lg[col]) / e[dec], minlength=nf)
            lo, hi = offsets[g], offsets[g + 1]
            gam = np.exp(lg[lo:hi])
            # prior: one win and one loss against a gamma of 1
            new = (wins[lo:hi] + 1.0) / (c[lo:hi] + 2.0 / (1.0 + gam))
            lg[lo:hi] = np.log(new)
        if log is not None and (it % 5 == 4 or it == iters - 1):
            ll, top1, _ = _loglik(lg, ids, dec, chosen, ndec)
            log(f"  iteration {it + 1}: log-likelihood {ll:.4f} a move, top-1 {top1:.3f}")
    return lg


def fit(args: argparse.Namespace) -> None:
    t0 = time.monotonic()
    data = extract([Path(f) for f in args.files], args.size)
    t_extract = time.monotonic() - t0
    held = np.array([_held_out(int(s)) for s in data["game"]])
    train_dec = np.nonzero(~held)[0]
    print(f"{data['games']} games, {len(data['chosen'])} decisions "
          f"({int(held.sum())} held out), {len(data['feats'])} candidates; "
          f"extracted in {t_extract:.1f} s", file=sys.stderr)  # fmt: skip
    dec_all = data["dec"]
    chosen_all = data["chosen"]
    train_mask = ~held[dec_all]
    # vocabularies from the training games only
    v3 = pattern_vocab(data["feats"][chosen_all[~held], 0], 8, args.min3)
    v12 = pattern_vocab(data["feats"][chosen_all[~held], 1], 12, args.min12)
    print(f"patterns: {len(v3)} 3x3, {len(v12)} 12-point", file=sys.stderr)
    ids, offsets = _design(data, v3, v12)

    def subset(mask: np.ndarray, decs: np.ndarray) -> tuple[Any, Any, Any, int]:
        idx = np.nonzero(mask)[0]
        remap = -np.ones(len(held), dtype=np.int64)
        remap[decs] = np.arange(len(decs))
        pos = -np.ones(len(mask), dtype=np.int64)
        pos[idx] = np.arange(len(idx))
        return ids[idx], remap[dec_all[idx]], pos[chosen_all[decs]], len(decs)

    tr = subset(train_mask, train_dec)
    te = subset(~train_mask, np.nonzero(held)[0])
    t1 = time.monotonic()
    lg = mm_fit(*tr[:3], offsets, tr[3], args.iters, lambda s: print(s, file=sys.stderr))
    t_fit = time.monotonic() - t1
    zero = np.zeros_like(lg)
    report = {
        "size": args.size,
        "games": data["games"],
        "decisions": len(chosen_all),
        "candidates": len(data["feats"]),
        "held_out_decisions": int(held.sum()),
        "patterns3": len(v3),
        "patterns12": len(v12),
        "extract_seconds": round(t_extract, 1),
        "fit_seconds": round(t_fit, 1),
        "train": dict(zip(("loglik", "top1", "top5"), _loglik(lg, *tr), strict=True)),
        "held_out": dict(zip(("loglik", "top1", "top5"), _loglik(lg, *te), strict=True)),
        "uniform_held_out": dict(
            zip(("loglik", "top1", "top5"), _loglik(zero, *te), strict=True)
        ),  # fmt: skip
    }
    print(json.dumps(report, indent=1))
    levels = np.zeros((F.NGROUPS, max(F.LEVELS.values())))
    levels[0, 0] = lg[offsets[0]]
    levels[1, 0] = lg[offsets[1]]
    for g in range(2, F.NGROUPS):
        n = F.LEVELS[F.GROUPS[g]]
        levels[g, :n] = lg[offsets[g] : offsets[g] + n]
    pat3 = {c: float(lg[offsets[0] + i]) for c, i in v3.items()}
    pat12 = {c: float(lg[offsets[1] + i]) for c, i in v12.items()}
    info = json.dumps({**report, "files": [Path(f).name for f in args.files]})
    w = F.Weights.from_canonical(levels, pat3, pat12, info)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        w.save(args.out)
        print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes)", file=sys.stderr)
    if args.show:
        for g in range(2, F.NGROUPS):
            n = F.LEVELS[F.GROUPS[g]]
            vals = " ".join(f"{np.exp(x):.2f}" for x in levels[g, :n])
            print(f"{F.GROUPS[g]:>10}: {vals}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit the weights of one board size")
    f.add_argument("files", nargs="+")
    f.add_argument("--size", type=int, required=True)
    f.add_argument("--iters", type=int, default=30)
    f.add_argument("--min3", type=int, default=3, help="plays to keep a 3x3 pattern")
    f.add_argument("--min12", type=int, default=5, help="plays to keep a 12-point pattern")
    f.add_argument("--out")
    f.add_argument("--show", action="store_true")
    args = ap.parse_args()
    if args.cmd == "fit":
        fit(args)


if __name__ == "__main__":
    main()
