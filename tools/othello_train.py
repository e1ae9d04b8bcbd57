"""Train banmen's Othello pattern evaluation from positions banmen labels itself.

    python tools/othello_train.py generate --games 2000 --out data/oth/it0 --workers 2
    python tools/othello_train.py fit data/oth/it0 --out patterns.npz
    python tools/othello_train.py relabel data/oth/it0 --weights patterns.npz --out data/oth/it1
    python tools/othello_train.py testset --positions 100 --out data/oth/test.npz
    python tools/othello_train.py mae data/oth/test.npz --weights patterns.npz

``generate`` plays self-play games: a random opening (0 to 20 random moves), then each
move chosen by a depth-2 search with the current evaluation (the hand-set one, or
``--weights``), one move in seven random. Every position after the opening is labelled
from the side to move's view, in discs: by the **exact solver** at ``--exact`` empties
or fewer (the solver's table is kept along a game, so its later positions cost little),
above that by an alpha-beta search of ``--depth`` plies with the evaluation. No other
program's evaluation is used.

``generate --children F`` also keeps, at a share F of a game's positions (drawn by a
generator of their own, so the game is the same), every legal reply's position, labelled
the same way and marked ``child``; ``fit --parents-only`` leaves them out and
``--max-positions N`` fits a random sample of N.

``relabel`` redoes the search labels of stored positions with a new evaluation (the
exact ones stay): the iteration the issue asks for.

``fit`` fits one weight table per phase by sparse regularised least squares
(``scipy.sparse.linalg.lsqr`` with damping), one game in ten held out, and reports the
held-out mean absolute error per phase beside the hand-set evaluation's.

``probcut`` fits the ProbCut table of a weights file: for sampled positions the values of
every iteration of a search to ``--max-depth`` (ProbCut off) give shallow/deep pairs;
per depth and phase, a linear fit ``deep = a shallow + b`` and its residual's standard
deviation, the cut margin being ``--t`` of those.

``testset`` solves positions at 20-24 empties exactly (from other seeds' games);
``mae`` gives an evaluation's mean absolute error on them, per number of empties.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from banmen.games.othello import PASS, Board
from banmen.games.othello import patterns as T
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.evaluation import (
    _CONTEXT,
    ALPHABETA_KERNELS,
    SCALE,
    alphabeta_state,
    evaluate,
)
from banmen.games.othello.kernels import U
from banmen.search.alphabeta import AlphaBeta
from banmen.search.limits import Limit

FIELDS = ("P", "O", "empties", "label", "exact", "game", "child")


class Labeller:
    """Searches with one evaluation: the hand-set one (``weights=None``) or a pattern
    table."""

    def __init__(self, weights: Path | None, depth: int) -> None:
        from banmen.games.othello.pattern_search import PATTERN_KERNELS, pattern_context

        self.depth = depth
        if weights is None:
            self.kernels, self.ctx = ALPHABETA_KERNELS, _CONTEXT
        else:
            self.kernels = PATTERN_KERNELS
            self.ctx = pattern_context(T.Weights.load(weights))
        self.ab = AlphaBeta(self.kernels, tt_bits=18)
        self.solver = EndgameSolver(tt_bits=20)

    def best(self, board: Board, depth: int) -> int:
        r = self.ab.search(self.ctx, alphabeta_state(board), Limit(depth=depth))
        return PASS if r.move is None else int(r.move)

    def value(self, board: Board) -> float:
        r = self.ab.search(self.ctx, alphabeta_state(board), Limit(depth=self.depth))
        return r.score / SCALE

    def exact(self, board: Board) -> float:
        p, o = board.pieces()
        s = self.solver.solve(p, o)
        assert s.score is not None
        return float(s.score)


def _game(
    lab: Labeller,
    seed: int,
    exact_at: int,
    opening: tuple[int, int] = (0, 20),
    children: float = 0.0,
) -> dict[str, list[Any]]:
    rng = np.random.default_rng(seed)
    pick = np.random.default_rng(seed ^ 0x5EED)  # (the game is the same with or without)
    b = _opening(rng, *opening)
    rows: dict[str, list[Any]] = {k: [] for k in FIELDS}
    lab.ab.clear()
    lab.solver.clear()

    def keep(pos: Board, child: bool) -> None:
        p, o = pos.pieces()
        e = pos.empties()
        if e <= exact_at:
            v, ex = lab.exact(pos), True
        else:
            v, ex = lab.value(pos), False
        for k, x in zip(FIELDS, (p, o, e, v, ex, seed, child), strict=True):
            rows[k].append(x)

    while not b.is_game_over():
        legal = b.legal_moves
        if legal != [PASS]:
            keep(b, False)
            if children > 0 and pick.random() < children:
                for m in legal:  # every reply, good or bad, from its own mover's view
                    c = b.copy()
                    c.push(m)
                    if not c.is_game_over() and c.legal_moves != [PASS]:
                        keep(c, True)
        b.push(_self_play_move(lab, b, rng))
    return rows


def _opening(rng: np.random.Generator, lo: int, hi: int) -> Board:
    """The start followed by ``lo`` to ``hi`` random moves (fewer if the game ends)."""
    b = Board()
    for _ in range(int(rng.integers(lo, hi + 1))):
        if b.is_game_over():
            break
        b.push(int(rng.choice(b.legal_moves)))
    return b


def _self_play_move(lab: Labeller, b: Board, rng: np.random.Generator) -> int:
    """The self-play move: a depth-2 search's, one time in seven a random one."""
    legal = b.legal_moves
    if legal == [PASS]:
        return PASS
    if rng.random() < 1 / 7:
        return int(rng.choice(legal))
    return lab.best(b, 2)


def _generate_chunk(
    args: tuple[list[int], str | None, int, int, float],
) -> dict[str, np.ndarray]:
    seeds, weights, depth, exact_at, children = args
    lab = Labeller(Path(weights) if weights else None, depth)
    rows: dict[str, list[Any]] = {k: [] for k in FIELDS}
    for s in seeds:
        g = _game(lab, s, exact_at, children=children)
        for k in FIELDS:
            rows[k].extend(g[k])
    return _arrays(rows)


def _arrays(rows: dict[str, list[Any]]) -> dict[str, np.ndarray]:
    return {
        "P": np.array(rows["P"], dtype=np.uint64),
        "O": np.array(rows["O"], dtype=np.uint64),
        "empties": np.array(rows["empties"], dtype=np.int8),
        "label": np.array(rows["label"], dtype=np.float32),
        "exact": np.array(rows["exact"], dtype=bool),
        "game": np.array(rows["game"], dtype=np.int64),
        "child": np.array(rows["child"], dtype=bool),
    }


def load(paths: list[Path]) -> dict[str, np.ndarray]:
    files: list[Path] = []
    for p in paths:
        files += sorted(p.glob("*.npz")) if p.is_dir() else [p]
    parts = [dict(np.load(f)) for f in files]
    for d in parts:  # (shards written before ``child`` was kept: no children)
        d.setdefault("child", np.zeros(len(d["label"]), dtype=bool))
    return {k: np.concatenate([d[k] for d in parts]) for k in FIELDS}


def cmd_generate(a: argparse.Namespace) -> None:
    a.out.mkdir(parents=True, exist_ok=True)
    seeds = list(range(a.seed, a.seed + a.games))
    chunk = max(1, min(50, a.games // (4 * a.workers) or 1))
    jobs = [(seeds[i : i + chunk], str(a.weights) if a.weights else None, a.depth, a.exact,
             a.children) for i in range(0, len(seeds), chunk)]  # fmt: skip
    t0 = time.time()
    done = 0
    with ProcessPoolExecutor(a.workers) as pool:
        for k, arrays in enumerate(pool.map(_generate_chunk, jobs)):
            np.savez_compressed(a.out / f"shard-{a.seed}-{k:05d}.npz", **arrays)
            done += len(jobs[k][0])
            n = len(arrays["label"])
            print(f"{done}/{a.games} games, {n} positions in the shard, "
                  f"{time.time() - t0:.0f} s", flush=True)  # fmt: skip
    (a.out / f"generate-{a.seed}.json").write_text(json.dumps({
        "games": a.games, "seed": a.seed, "depth": a.depth, "exact": a.exact,
        "children": a.children,
        "weights": str(a.weights) if a.weights else "hand-set", "workers": a.workers,
        "seconds": round(time.time() - t0, 1), "date": time.strftime("%Y-%m-%d %H:%M"),
    }, indent=1))  # fmt: skip


def _relabel_chunk(args: tuple[dict[str, np.ndarray], str, int]) -> np.ndarray:
    d, weights, depth = args
    lab = Labeller(Path(weights), depth)
    out = d["label"].copy()
    last_game = -1
    for i in range(len(out)):
        if d["exact"][i]:
            continue
        if d["game"][i] != last_game:
            lab.ab.clear()
            last_game = int(d["game"][i])
        b = _board(int(d["P"][i]), int(d["O"][i]))
        out[i] = lab.value(b)
    return out


def _board(p: int, o: int) -> Board:
    """A board with ``p`` to move (as black: the evaluation sees only the mover)."""
    return Board(black=p, white=o)


def cmd_relabel(a: argparse.Namespace) -> None:
    a.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    files = sorted(a.data.glob("shard-*.npz"))
    jobs = [(dict(np.load(f)), str(a.weights), a.depth) for f in files]
    with ProcessPoolExecutor(a.workers) as pool:
        for f, job, labels in zip(files, jobs, pool.map(_relabel_chunk, jobs), strict=True):
            d = dict(job[0])
            d["label"] = labels
            np.savez_compressed(a.out / f.name, **d)
            print(f"{f.name}: {int((~d['exact']).sum())} relabelled, {time.time() - t0:.0f} s",
                  flush=True)  # fmt: skip


def _held_out(game: np.ndarray) -> np.ndarray:
    return (game * 0x9E3779B1 % 2**32) % 10 == 0


def _hand_values(P: np.ndarray, O: np.ndarray) -> np.ndarray:
    v = [evaluate(_CONTEXT, (U(p), U(o), np.int64(0))) for p, o in zip(P, O, strict=True)]
    return np.array(v, dtype=np.float64) / SCALE


def fit(
    d: dict[str, np.ndarray], damp: float, iters: int, hand: bool = True, use_all: bool = False
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """One weight table per phase (in discs) from positions ``d`` (:data:`FIELDS`), and
    the held-out report per phase (with the hand-set evaluation's error if ``hand``).
    With ``use_all`` the held-out games are fitted too (for the weights that ship, once
    the held-out figures have chosen the settings), and the report says it is in-sample."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import lsqr

    n = len(d["label"])
    idx = np.empty((n, T.N_INDICES), dtype=np.int64)
    ph = np.empty(n, dtype=np.int64)
    T.batch_indices(d["P"], d["O"], idx, ph)
    test = _held_out(d["game"])
    canon = T.canonical_map()
    cidx = canon[idx]  # symmetric configurations share one weight
    table = np.zeros((T.PHASES, T.N_FEATURES), dtype=np.float64)
    report = []
    fitted = ~test | use_all
    for k in range(T.PHASES):
        # a phase learns from its own positions and, at half weight, its neighbours'
        sel = (np.abs(ph - k) <= 1) & fitted
        m = int(sel.sum())
        if m == 0:
            continue
        w = np.where(ph[sel] == k, 1.0, 0.5)
        rows = np.repeat(np.arange(m), T.N_INDICES)
        A = sp.csr_matrix((np.repeat(w, T.N_INDICES), (rows, cidx[sel].ravel())),
                          shape=(m, T.N_FEATURES))  # fmt: skip
        y = d["label"][sel].astype(np.float64) * w
        sol = lsqr(A, y, damp=damp, atol=1e-6, btol=1e-6, iter_lim=iters)
        table[k] = sol[0][canon]
        held = (ph == k) & test & ~d["child"]  # (the game's own positions: comparable)
        row: dict[str, Any] = {
            "phase": k,
            "empties": f"{5 * k}-{5 * k + 4 if k < T.PHASES - 1 else 60}",
            "train": int((ph[fitted] == k).sum()),
            "held_out": int(held.sum()),
        }
        if use_all:
            row["in_sample"] = True
        if held.any():
            truth = d["label"][held]
            row["mae_new"] = float(np.abs(table[k][idx[held]].sum(axis=1) - truth).mean())
            if hand:
                hv = _hand_values(d["P"][held], d["O"][held])
                row["mae_hand"] = float(np.abs(hv - truth).mean())
            row["exact_share"] = float(d["exact"][held].mean())
        report.append(row)
    return table, report


def cmd_fit(a: argparse.Namespace) -> None:
    d = load(a.data)
    if a.parents_only:
        d = {k: v[~d["child"]] for k, v in d.items()}
    if a.max_positions and len(d["label"]) > a.max_positions:
        pick = np.sort(np.random.default_rng(a.seed).choice(
            len(d["label"]), a.max_positions, replace=False))  # fmt: skip
        d = {k: v[pick] for k, v in d.items()}
    t0 = time.time()
    table, report = fit(d, a.damp, a.iters, use_all=a.all)
    for row in report:
        print(json.dumps(row))
    meta = {
        "positions": len(d["label"]),
        "games": len(np.unique(d["game"])),
        "damp": a.damp,
        "all_games": a.all,
        "children": int(d["child"].sum()),
        "fit_seconds": round(time.time() - t0, 1),
        "date": time.strftime("%Y-%m-%d"),
    }
    T.Weights(np.round(table * SCALE).astype(np.int32), meta).save(a.out)
    a.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "phases": report}, indent=1))
    print(f"wrote {a.out} ({a.out.stat().st_size:,} bytes)")


def shallow_depth(d: int) -> int:
    """The shallow search that stands for a depth-``d`` one in ProbCut: about half as
    deep, with the same parity (an odd and an even search disagree by the tempo)."""
    if d < 3:
        return -1
    half = d // 2
    return half + ((d - half) & 1)


def _pairs_chunk(args: tuple[list[tuple[int, int]], str, int]) -> list[list[int]]:
    from banmen.games.othello.pattern_search import PATTERN_KERNELS, pattern_context

    positions, weights, max_depth = args
    ab = AlphaBeta(PATTERN_KERNELS, tt_bits=20)
    ab.probcut = False
    ctx = pattern_context(T.Weights.load(Path(weights)), probcut=False)
    out = []
    for p, o in positions:
        ab.clear()
        scores = [0] * (max_depth + 1)
        got = [False] * (max_depth + 1)

        def seen(si: Any, scores: list[int] = scores, got: list[bool] = got) -> None:
            if si.depth <= max_depth and not si.exact:
                scores[si.depth] = si.score
                got[si.depth] = True

        ab.search(ctx, (U(p), U(o), np.int64(0)), Limit(depth=max_depth), on_info=seen)
        if all(got[1:]):
            out.append([64 - (p | o).bit_count()] + scores[1:])
    return out


def cmd_probcut(a: argparse.Namespace) -> None:
    d = load(a.data)
    rng = np.random.default_rng(a.seed)
    mid = np.flatnonzero(d["empties"] >= 21)
    pick = rng.choice(mid, size=min(a.positions, len(mid)), replace=False)
    positions = [(int(d["P"][i]), int(d["O"][i])) for i in pick]
    chunks = [positions[i : i + 20] for i in range(0, len(positions), 20)]
    t0 = time.time()
    rows: list[list[int]] = []
    with ProcessPoolExecutor(a.workers) as pool:
        for part in pool.map(_pairs_chunk, [(c, str(a.weights), a.max_depth) for c in chunks]):
            rows += part
            print(f"{len(rows)} positions searched, {time.time() - t0:.0f} s", flush=True)
    arr = np.array(rows, dtype=np.int64)  # empties, v1 .. v_max
    w = T.Weights.load(a.weights)
    pc = T.no_probcut()
    report = []
    phases = np.minimum(arr[:, 0], 59) // 5
    for depth in range(3, T.PROBCUT_DEPTHS):
        fit_d = min(depth, a.max_depth)
        d2 = shallow_depth(fit_d)
        for ph in range(T.PHASES):
            sel = np.abs(phases - ph) <= 1  # pool the neighbouring phases
            if sel.sum() < 20:
                continue
            x = arr[sel, d2].astype(np.float64)
            y = arr[sel, fit_d].astype(np.float64)
            slope, icpt = np.polyfit(x, y, 1)
            sigma = float(np.std(y - (slope * x + icpt)))
            pc[depth, ph] = (shallow_depth(depth), round(slope * 1024), round(icpt),
                             round(a.t * sigma))  # fmt: skip
            if depth == fit_d:
                report.append({"depth": depth, "shallow": d2, "phase": ph, "n": int(sel.sum()),
                               "a": round(slope, 3), "b": round(icpt, 1),
                               "sigma": round(sigma, 1)})  # fmt: skip
    meta = dict(w.meta)
    meta.update({"probcut_positions": len(arr), "probcut_t": a.t,
                 "probcut_max_depth": a.max_depth})  # fmt: skip
    T.Weights(w.table, meta, pc).save(a.out)
    a.out.with_suffix(".probcut.json").write_text(json.dumps(report, indent=1))
    for r in report:
        print(json.dumps(r))
    print(f"wrote {a.out}, {time.time() - t0:.0f} s")


def _test_chunk(args: tuple[list[int], int, int]) -> dict[str, np.ndarray]:
    seeds, lo, hi = args
    lab = Labeller(None, 2)
    rows: dict[str, list[Any]] = {k: [] for k in FIELDS}
    for s in seeds:
        rng = np.random.default_rng(s)
        target = int(rng.integers(lo, hi + 1))
        b = _opening(rng, 8, 20)
        while b.empties() > target and not b.is_game_over():
            b.push(_self_play_move(lab, b, rng))
        if b.is_game_over() or b.legal_moves == [PASS]:
            continue
        p, o = b.pieces()
        lab.solver.clear()
        for k, x in zip(FIELDS, (p, o, b.empties(), lab.exact(b), True, s, False), strict=True):
            rows[k].append(x)
    return _arrays(rows)


def cmd_testset(a: argparse.Namespace) -> None:
    seeds = list(range(a.seed, a.seed + a.positions))
    jobs = [(seeds[i : i + 5], a.min_empties, a.max_empties) for i in range(0, len(seeds), 5)]
    parts = []
    t0 = time.time()
    with ProcessPoolExecutor(a.workers) as pool:
        for arrays in pool.map(_test_chunk, jobs):
            parts.append(arrays)
            print(f"{sum(len(p['label']) for p in parts)} solved, {time.time() - t0:.0f} s",
                  flush=True)  # fmt: skip
    np.savez_compressed(a.out, **{k: np.concatenate([p[k] for p in parts]) for k in FIELDS})


def cmd_mae(a: argparse.Namespace) -> None:
    d = load([a.data])
    hand = _hand_values(d["P"], d["O"])
    rows = []
    evals = {"hand-set": hand}
    for w in a.weights:
        wt = T.Weights.load(w)
        evals[str(w)] = (
            np.array([wt.value(int(p), int(o)) for p, o in zip(d["P"], d["O"], strict=True)])
            / SCALE
        )
    for e in sorted(set(d["empties"].tolist())):
        sel = d["empties"] == e
        row = {"empties": int(e), "positions": int(sel.sum())}
        for name, v in evals.items():
            row[name] = round(float(np.abs(v[sel] - d["label"][sel]).mean()), 2)
        rows.append(row)
    total = {"empties": "all", "positions": len(d["label"])}
    for name, v in evals.items():
        total[name] = round(float(np.abs(v - d["label"]).mean()), 2)
    rows.append(total)
    print(json.dumps(rows, indent=1))
    if a.out:
        a.out.write_text(json.dumps(rows, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--games", type=int, default=1000)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--weights", type=Path)
    g.add_argument("--depth", type=int, default=6, help="search labels: plies")
    g.add_argument(
        "--exact", type=int, default=18, help="exact labels at this many empties or fewer"
    )
    g.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    g.add_argument(
        "--children", type=float, default=0.0,
        help="share of positions whose every child position is labelled and kept too",
    )  # fmt: skip
    r = sub.add_parser("relabel")
    r.add_argument("data", type=Path)
    r.add_argument("--weights", type=Path, required=True)
    r.add_argument("--depth", type=int, default=6)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    f = sub.add_parser("fit")
    f.add_argument("data", type=Path, nargs="+")
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--damp", type=float, default=3.0)
    f.add_argument("--iters", type=int, default=300)
    f.add_argument("--parents-only", action="store_true", help="leave the children out")
    f.add_argument("--max-positions", type=int, default=0, help="a random sample of this many")
    f.add_argument("--seed", type=int, default=1, help="the sample's seed")
    f.add_argument(
        "--all",
        action="store_true",
        help="fit the held-out games too (their figures then in-sample)",
    )
    c = sub.add_parser("probcut")
    c.add_argument("data", type=Path, nargs="+")
    c.add_argument("--weights", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--positions", type=int, default=400)
    c.add_argument("--max-depth", type=int, default=10)
    c.add_argument("--t", type=float, default=1.5)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    t = sub.add_parser("testset")
    t.add_argument("--positions", type=int, default=100)
    t.add_argument("--seed", type=int, default=10_000_000)
    t.add_argument("--min-empties", type=int, default=20)
    t.add_argument("--max-empties", type=int, default=24)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    m = sub.add_parser("mae")
    m.add_argument("data", type=Path)
    m.add_argument("--weights", type=Path, nargs="*", default=[])
    m.add_argument("--out", type=Path)
    a = ap.parse_args()
    {"generate": cmd_generate, "relabel": cmd_relabel, "fit": cmd_fit, "probcut": cmd_probcut,
     "testset": cmd_testset, "mae": cmd_mae}[a.cmd](a)  # fmt: skip


if __name__ == "__main__":
    main()
