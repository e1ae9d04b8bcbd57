"""Shogi rules kernels (games/shogi/kernels.py) beside cshogi, in the same run.

* perft from the start position: leaves (bulk-counted: the last ply's moves are counted,
  not played) and moves made per second. cshogi has no perft of its own; its figure is a
  Python loop over ``legal_moves`` / ``push`` / ``pop`` with the same bulk counting, so it
  includes Python's overhead and is a scale figure only.
* per-node calls on df-pn's positions: every problem of the shared tsume suite (attacker
  to move: ``gen_checks``, ``mate_in_1``) and every position after one of its checks
  (defender to move: ``gen_legal``, i.e. the evasions). Ours are timed both in a compiled
  loop (what a compiled search sees) and called one by one from Python; cshogi's are
  ``check_moves`` / ``legal_moves`` (lists built) and ``mate_move_in_1ply`` from Python.
  (cshogi's mate_move_in_1ply is a fast test that may miss mates; ours is exact.)
"""

from __future__ import annotations

import time
from typing import Any

import cshogi
import numpy as np
import numpy.typing as npt

from banmen._jit import njit
from banmen.bench.tsume import tsume_rows
from banmen.games.shogi import kernels as K

__all__ = ["bench_kernel"]


def _positions() -> tuple[list[str], list[str]]:
    """(attacker-to-move SFENs, defender-to-move SFENs) from the shared tsume suite."""
    attack, defend = [], []
    for row in tsume_rows():
        b = cshogi.Board(row["sfen"])
        attack.append(b.sfen())
        for m in b.check_moves:
            b.push(m)
            defend.append(b.sfen())
            b.pop()
    return attack, defend


def _cshogi_perft(board: cshogi.Board, depth: int) -> tuple[int, int]:
    if depth == 1:
        return len(board.legal_moves), 0
    leaves = made = 0
    for m in board.legal_moves:
        board.push(m)
        a, b = _cshogi_perft(board, depth - 1)
        board.pop()
        leaves += a
        made += b + 1
    return leaves, made


def _timed(fn: Any, min_seconds: float) -> tuple[int, float]:
    """Run ``fn()`` (one pass over the positions, returns calls made) until ``min_seconds``."""
    calls = 0
    t0 = time.perf_counter()
    while True:
        calls += fn()
        dt = time.perf_counter() - t0
        if dt >= min_seconds:
            return calls, dt


def bench_kernel(quick: bool = False) -> dict[str, Any]:
    """Perft and per-node call rates, ours and cshogi's, on one thread."""
    ctx = K.CTX
    out: dict[str, Any] = {}

    # --- perft
    depth = 4 if quick else 5
    st = K.from_sfen(cshogi.STARTING_SFEN)
    buf = np.zeros(depth * K.MAX_MOVES, np.int64)
    K.perft(ctx, st, 2, buf)  # load the compiled code
    t0 = time.perf_counter()
    leaves = int(K.perft(ctx, st, depth, buf))
    dt = time.perf_counter() - t0
    made = sum(int(K.perft(ctx, st, d, buf)) for d in range(1, depth))  # the plies played
    cdepth = 4
    t1 = time.perf_counter()
    cleaves, cmade = _cshogi_perft(cshogi.Board(), cdepth)
    cdt = time.perf_counter() - t1
    out["perft"] = {
        "ours": {
            "depth": depth,
            "leaves": leaves,
            "moves_made": made,
            "seconds": dt,
            "leaves_per_second": leaves / dt,
            "moves_made_per_second": made / dt,
        },
        "cshogi_python_loop": {
            "depth": cdepth,
            "leaves": cleaves,
            "moves_made": cmade,
            "seconds": cdt,
            "leaves_per_second": cleaves / cdt,
            "moves_made_per_second": cmade / cdt,
        },
    }

    # --- per-node calls on tsume positions
    attack, defend = _positions()
    secs = 0.3 if quick else 1.5
    sts_a = np.stack([K.from_sfen(s) for s in attack])
    sts_d = np.stack([K.from_sfen(s) for s in defend])
    boards_a = [cshogi.Board(s) for s in attack]
    boards_d = [cshogi.Board(s) for s in defend]
    mbuf = np.zeros(K.MAX_MOVES, np.int64)
    gen_checks, gen_legal, mate_in_1 = K.gen_checks, K.gen_legal, K.mate_in_1

    @njit(cache=False)
    def loop(ctx: Any, sts: npt.NDArray[np.int64], buf: npt.NDArray[np.int64], w: int) -> int:
        total = 0
        for i in range(sts.shape[0]):
            st = sts[i]
            if w == 0:
                total += gen_checks(ctx, st, buf)
            elif w == 1:
                total += gen_legal(ctx, st, buf)
            else:
                total += mate_in_1(ctx, st) >= 0
        return total

    rows: dict[str, Any] = {}
    cases = (
        ("gen_checks", sts_a, boards_a, 0, lambda b: len(b.check_moves)),
        ("gen_legal_evasions", sts_d, boards_d, 1, lambda b: len(b.legal_moves)),
        ("mate_in_1", sts_a, boards_a, 2, lambda b: b.mate_move_in_1ply() != 0),
    )
    for name, sts, boards, w, cfn in cases:
        loop(ctx, sts, mbuf, w)
        n = sts.shape[0]
        calls, t = _timed(lambda sts=sts, w=w, n=n: (loop(ctx, sts, mbuf, w), n)[1], secs)
        compiled = calls / t
        fns = (gen_checks, gen_legal, mate_in_1)

        def one_by_one(sts: Any = sts, f: Any = fns[w], w: int = w) -> int:
            for i in range(sts.shape[0]):
                if w == 2:
                    f(ctx, sts[i])
                else:
                    f(ctx, sts[i], mbuf)
            return int(sts.shape[0])

        calls, t = _timed(one_by_one, secs)
        from_python = calls / t

        def theirs(boards: list[cshogi.Board] = boards, cfn: Any = cfn) -> int:
            for b in boards:
                cfn(b)
            return len(boards)

        calls, t = _timed(theirs, secs)
        rows[name] = {
            "positions": n,
            "ours_compiled_loop_per_second": compiled,
            "ours_from_python_per_second": from_python,
            "cshogi_from_python_per_second": calls / t,
        }
    out["calls"] = rows
    return out


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(bench_kernel(), indent=1))
