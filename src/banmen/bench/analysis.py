"""Analysis benchmarks: how long until every legal move has a proved value.

* Mattix 6x6 openings: :func:`banmen.games.mattix.analyse` from the deal until every
  takeable piece's final margin is proved.
* Go: simulations per CPU second of the engine's tree search alone, and of the same search
  inside an analysis that hands the whole table (rows, principal variations, ownership)
  to a callback ten times a second, serialised to JSON as the web app and GTP do.
* Othello at 20, 22 and 24 empties: :func:`banmen.games.othello.analyse` until every legal
  move's exact disc difference is proved, beside Egaroucid's console ``hint N`` at level 60
  (an exact search of the best move, then of the best of the rest, ... : every move's exact
  value), one position at a time, alternated. Egaroucid runs with a zeroed evaluation here
  (its weights are not available; ../shared/anchors/README.md): its exact search is right
  but its move ordering is handicapped.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from typing import Any

import numpy as np

from banmen.bench.othello import _egaroucid, egaroucid_rows
from banmen.games.othello import PASS, Board
from banmen.search.limits import Limit

__all__ = [
    "bench_mattix_analysis",
    "bench_othello_analysis",
    "bench_go_analysis",
    "othello_positions",
]


def bench_mattix_analysis(seeds: list[int], time_limit: float = 300.0) -> dict[str, Any]:
    """Seconds until every move of each 6x6 deal has a proved value (a cold table each)."""
    from banmen.games.mattix import GAME, _analysis_engine, analyse

    engine = _analysis_engine()  # loaded (and compiled) before any clock starts
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        board = GAME.new_board(seed, 6) if GAME.new_board is not None else None
        assert board is not None
        engine.new_game()
        a = analyse(board, Limit(time=time_limit))
        rows.append({
            "seed": seed,
            "moves": len(a.moves),
            "complete": a.complete,
            "stopped_by": a.stopped_by,
            "seconds": a.seconds,
            "nodes": a.nodes,
            "best": a.best,
            "values": {m.move: m.value for m in a.moves},
        })  # fmt: skip
    done = [float(r["seconds"]) for r in rows if r["complete"]]
    return {
        "time_limit": time_limit,
        "positions": rows,
        "complete": len(done),
        "median_seconds": statistics.median(done) if done else None,
    }


def othello_positions(empties: int, n: int, seed: int = 19) -> list[Board]:
    """``n`` positions with ``empties`` empty squares, each from random moves from the
    start with its own seed, with at least two legal moves: the same ones every run."""
    out: list[Board] = []
    k = 0
    while len(out) < n:
        rng = np.random.default_rng(seed * 1000 + empties * 37 + k)
        k += 1
        b = Board()
        while b.empties() > empties and not b.is_game_over():
            b.push(int(rng.choice(b.legal_moves)))
        if b.empties() == empties and not b.is_game_over() and PASS not in b.legal_moves:
            if len(b.legal_moves) >= 2:
                out.append(b)
    return out


def bench_othello_analysis(
    empties: list[int], n: int = 2, time_limit: float = 300.0, anchors: bool = True
) -> dict[str, Any]:
    """Seconds until every legal move's exact value is proved, banmen and (where built)
    Egaroucid's ``hint``, alternated position by position; both must agree."""
    from banmen.games.othello import _analysis_engines, analyse

    engines = _analysis_engines()
    exe = _egaroucid() if anchors else None
    rows: list[dict[str, Any]] = []
    for e in empties:
        for b in othello_positions(e, n):
            for x in engines:
                x.new_game()
            a = analyse(b, Limit(time=time_limit))
            row: dict[str, Any] = {
                "empties": e,
                "board": b.to_string(),
                "moves": len(a.moves),
                "complete": a.complete,
                "stopped_by": a.stopped_by,
                "seconds": a.seconds,
                "nodes": a.nodes,
                "values": {m.move: m.value for m in a.moves},
            }
            if exe is not None:
                theirs = _egaroucid_hint(b, len(a.moves), time_limit)
                row["egaroucid"] = theirs
                if theirs["complete"] and a.complete:
                    row["agree"] = theirs["values"] == row["values"]
                    row["ratio"] = theirs["seconds"] / a.seconds
            rows.append(row)
    out: dict[str, Any] = {"time_limit": time_limit, "positions": rows, "by_empties": {}}
    for e in empties:
        ours = [r for r in rows if r["empties"] == e]
        entry: dict[str, Any] = {
            "positions": len(ours),
            "complete": sum(r["complete"] for r in ours),
            "median_seconds": statistics.median(r["seconds"] for r in ours),
        }
        both = [r for r in ours if "ratio" in r]
        if both:
            entry["egaroucid_median_seconds"] = statistics.median(
                r["egaroucid"]["seconds"] for r in both
            )
            entry["ratio_total"] = sum(r["egaroucid"]["seconds"] for r in both) / sum(
                r["seconds"] for r in both
            )
            entry["all_agree"] = all(r["agree"] for r in both)
        out["by_empties"][str(e)] = entry
    return out


def _egaroucid_hint(board: Board, n: int, time_limit: float) -> dict[str, Any]:
    """Egaroucid's console ``hint n`` at level 60, one thread, no book: the exact value
    of every move; the time is the sum of its own per-move times."""
    exe = _egaroucid()
    assert exe is not None
    text = board.to_string().replace(" ", "")
    script = f"setboard {text}\nhint {n}\nquit\n"
    t0 = time.perf_counter()
    try:
        out = subprocess.run(
            [str(exe), "-l", "60", "-t", "1", "-nobook", "-noboard", "-eval",
             "resources/eval_zero.egev2"],
            input=script, capture_output=True, text=True, cwd=exe.parent, check=True,
            timeout=time_limit + 10,
        ).stdout  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"complete": False, "seconds": time_limit, "values": {}}
    exact = [r for r in egaroucid_rows(out) if r["exact"]]
    values: dict[str, int] = {r["move"]: r["score"] for r in exact}
    seconds = sum(r["seconds"] for r in exact)
    return {
        "complete": len(values) == n,
        "seconds": seconds,
        "wall_seconds": time.perf_counter() - t0,
        "values": values,
    }


def bench_go_analysis(size: int = 19, seconds: float = 2.0, rounds: int = 3) -> dict[str, Any]:
    """The Go search from an empty ``size`` board for ``seconds``, alternated ``rounds``
    times: alone (:meth:`GoEngine.search_position`), and as an analysis streaming its
    table to a callback that serialises it. Root simulations per CPU second of the process
    (the search is compiled and single-threaded; the streaming runs on another thread and
    is counted in the CPU time), medians."""
    import json

    from banmen.games.go.analysis import analyse
    from banmen.games.go.board import Board as GoBoard
    from banmen.games.go.engine import GoEngine
    from banmen.games.go.game import Game

    engine = GoEngine()
    engine.warm_up()
    game = Game(GoBoard(size))
    per: dict[str, list[float]] = {"search": [], "analysis": []}
    updates: list[int] = []
    for _ in range(rounds):
        for kind in ("search", "analysis"):
            engine.new_game()
            sent: list[int] = []
            t0 = time.process_time()
            if kind == "search":
                r = engine.search_position(game, Limit(time=seconds))
                sims = r.root_visits
            else:

                def stream(x: Any, sent: list[int] = sent) -> None:
                    sent.append(len(json.dumps(x.to_dict())))

                a = analyse(game, Limit(time=seconds), stream, None, engine)
                sims = int(a.extra["root_visits"])
                updates.append(len(sent))
            per[kind].append(sims / (time.process_time() - t0))
    med = {k: statistics.median(v) for k, v in per.items()}
    return {
        "size": size,
        "seconds": seconds,
        "rounds": rounds,
        "simulations_per_cpu_second": med,
        "ratio": med["analysis"] / med["search"],
        "updates_per_analysis": statistics.median(updates),
        "all": per,
    }
