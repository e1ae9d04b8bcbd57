"""Othello benchmarks: perft (every move made, and bulk-counted beside Edax's and
Egaroucid's perft in the same run) and the FFO endgame suite."""

from __future__ import annotations

import csv
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from banmen.games.othello import PASS, Board, square_name
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.kernels import U, perft, perft_bulk

__all__ = ["ffo_positions", "bench_perft", "bench_ffo", "bench_midgame", "ANCHORS"]

#: Where ``../shared/anchors/build.sh`` puts the anchors by default (``BANMEN_ANCHORS``
#: overrides it).
ANCHORS = Path(
    os.environ.get("BANMEN_ANCHORS")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "banmen-anchors"
)

#: The FFO endgame suite (positions #40-#79), shipped with banmen (bench/data/README.md).
FFO_CSV = Path(__file__).resolve().parent / "data" / "othello" / "ffo.csv"


def ffo_positions(path: Path | None = None) -> dict[int, dict[str, Any]]:
    """``{id: {"board": "<64 squares> X", "score": int, "moves": [names]}}`` from ffo.csv."""
    src = path or FFO_CSV
    if not src.is_file():
        raise ValueError(f"FFO suite not found at {src}: expected banmen/bench/data")
    out: dict[int, dict[str, Any]] = {}
    with open(src, newline="") as fh:
        for row in csv.DictReader(fh):
            out[int(row["id"])] = {
                "board": f"{row['board']} {row['to_move']}",
                "score": int(row["best_score"]),
                "moves": row["best_moves"].split(),
            }
    return out


def bench_perft(depth: int = 11, pass_free: bool = False, rounds: int = 1) -> dict[str, Any]:
    """Perft from the start on one thread, ``rounds`` times, alternating: banmen making
    every move of every ply (passes included), banmen counting the last ply from the
    move mask (``bulk``, as the field counts perft), and Edax's and Egaroucid's perft
    where ``../shared/anchors/build.sh`` built them (:data:`ANCHORS`). Medians, and the
    anchors' times over banmen's bulk time."""

    b = Board()
    black, white = U(b.black), U(b.white)
    perft(black, white, 2, False, pass_free)  # load the compiled code
    perft_bulk(black, white, 2, False, pass_free)
    edax = _edax()
    egaroucid = _egaroucid()
    times: dict[str, list[float]] = {"make": [], "bulk": []}
    leaves_of: dict[str, int] = {}
    made = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        count, made_u = perft(black, white, depth, False, pass_free)
        times["make"].append(time.perf_counter() - t0)
        leaves_of["make"], made = int(count), int(made_u)
        t0 = time.perf_counter()
        leaves_of["bulk"] = int(perft_bulk(black, white, depth, False, pass_free))
        times["bulk"].append(time.perf_counter() - t0)
        if edax is not None and not pass_free:
            leaves_of["edax"], t = _edax_perft(edax, depth)
            times.setdefault("edax", []).append(t)
        if egaroucid is not None:
            leaves_of["egaroucid"], t = _egaroucid_perft(egaroucid, depth, pass_free)
            times.setdefault("egaroucid", []).append(t)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "depth": depth,
        "convention": "pass-free" if pass_free else "pass counts as a ply",
        "rounds": rounds,
        "leaves": leaves_of["make"],
        "moves_made": made,
        "seconds": med["make"],
        "moves_per_second": made / med["make"],
        "bulk_seconds": med["bulk"],
        "bulk_leaves_per_second": leaves_of["bulk"] / med["bulk"],
        "anchors": {
            k: {
                "leaves": leaves_of[k],
                "seconds": med[k],
                "times": times[k],
                "ratio_to_banmen_bulk": med[k] / med["bulk"],
            }
            for k in ("edax", "egaroucid")
            if k in med
        },
        "times": {k: times[k] for k in ("make", "bulk")},
        "anchors_missing": [
            name for name, exe in (("edax", edax), ("egaroucid", egaroucid)) if exe is None
        ],
    }


def _edax() -> Path | None:
    found = sorted((ANCHORS / "edax" / "bin").glob("lEdax-*"))
    return found[0] if found else None


def _egaroucid() -> Path | None:
    exe = ANCHORS / "egaroucid" / "Egaroucid_for_Console.out"
    return exe if exe.is_file() else None


def _clock(text: str) -> float:
    """Edax's ``[H:]M:SS.mmm`` time."""
    parts = [float(x) for x in text.split(":")]
    seconds = 0.0
    for x in parts:
        seconds = seconds * 60 + x
    return seconds


def _edax_perft(exe: Path, depth: int) -> tuple[int, float]:
    """Edax's ``perft`` (its shell; it counts ply by ply, the last ply from the move
    mask): the leaves and time of ply ``depth``. Its shell quits at the end of the input
    without waiting for a running command, so ``quit`` is sent after the table."""
    proc = subprocess.Popen(
        [str(exe), "-n", "1", "-eval-file", "data/eval.dat"], cwd=exe.parent.parent,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    found: tuple[int, float] | None = None
    tail: list[str] = []
    try:
        proc.stdin.write(f"perft {depth}\n")
        proc.stdin.flush()
        pattern = re.compile(rf"\s*{depth},\s*(\d+),.*?(\d+:\d+\.\d+),")
        for line in proc.stdout:
            tail = (tail + [line])[-5:]
            m = pattern.match(line)
            if m:
                found = int(m.group(1)), _clock(m.group(2))
            if line.startswith("Total"):
                break
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if found is None:
        raise RuntimeError(f"no ply-{depth} line in Edax's perft output: {''.join(tail)!r}")
    return found


def _egaroucid_perft(exe: Path, depth: int, pass_free: bool) -> tuple[int, float]:
    """Egaroucid's ``-perft DEPTH MODE`` (mode 2: a pass uses no ply)."""
    out = subprocess.run(
        [str(exe), "-perft", str(depth), "2" if pass_free else "1"],
        capture_output=True, text=True, cwd=exe.parent, timeout=600, check=True,
    ).stdout  # fmt: skip
    m = re.search(r"depth \d+ (\d+) leaves found in (\d+) ms", out)
    if not m:
        raise RuntimeError(f"no result in Egaroucid's perft output: {out[-300:]!r}")
    return int(m.group(1)), int(m.group(2)) / 1000


def bench_ffo(ids: list[int], time_limit: float | None = None,
              path: Path | None = None, anchors: bool = True) -> dict[str, Any]:  # fmt: skip
    """Solve FFO positions exactly, one thread, a cleared table for each; check the score
    and the move against the suite. A position stopped by ``time_limit`` is reported as
    unsolved ("unknown"), never with a score.

    With ``anchors``, Edax's and Egaroucid's exact solves of each position (one thread,
    where ``../shared/anchors/build.sh`` built them: :data:`ANCHORS`) run right after
    banmen's, position by position, so the three share the machine's state; their times
    are their own reports, and ``ratio`` is an anchor's time over banmen's."""

    suite = ffo_positions(path)
    solver = EndgameSolver()
    runners = {
        name: fn
        for name, exe, fn in (
            ("edax", _edax(), _edax_solve),
            ("egaroucid", _egaroucid(), _egaroucid_solve),
        )
        if anchors and exe is not None
    }
    rows = []
    for i in ids:
        pos = suite[i]
        b = Board.from_string(pos["board"])
        p, o = b.pieces()
        solver.clear()
        sol = solver.solve(p, o, time_limit=time_limit)
        moves = [square_name(m) for m in sol.best_moves]
        solved = sol.status == "solved"
        row: dict[str, Any] = {
            "id": i,
            "empties": b.empties(),
            "status": sol.status,
            "stopped_by": sol.stopped_by or None,
            "score": sol.score,
            "best_move": moves[0] if moves else None,
            "expected_score": pos["score"],
            "expected_moves": pos["moves"],
            "correct": solved and sol.score == pos["score"] and moves[0] in pos["moves"],
            "seconds": sol.seconds,
            "nodes": sol.nodes,
            "nodes_per_second": sol.nodes / sol.seconds if sol.seconds > 0 else None,
            "anchors": {},
        }
        for name, run in runners.items():
            a = run(pos["board"], time_limit)
            a["correct"] = a["status"] == "solved" and a["score"] == pos["score"]
            if a["status"] == "solved" and solved and sol.seconds > 0:
                a["ratio"] = a["seconds"] / sol.seconds
            row["anchors"][name] = a
        rows.append(row)
    solved_rows = [r for r in rows if r["status"] == "solved"]
    out: dict[str, Any] = {
        "time_limit": time_limit,
        "positions": rows,
        "solved": len(solved_rows),
        "correct": sum(r["correct"] for r in rows),
        "total_seconds_solved": sum(r["seconds"] for r in solved_rows),
        "total_nodes_solved": sum(r["nodes"] for r in solved_rows),
        "anchors": {},
        "anchors_missing": [] if not anchors else [
            name for name, exe in (("edax", _edax()), ("egaroucid", _egaroucid())) if exe is None
        ],
    }  # fmt: skip
    for name in runners:
        both = [r for r in solved_rows if r["anchors"][name]["status"] == "solved"]
        theirs = sum(r["anchors"][name]["seconds"] for r in both)
        ours = sum(r["seconds"] for r in both)
        out["anchors"][name] = {
            "solved": sum(r["anchors"][name]["status"] == "solved" for r in rows),
            "correct": sum(r["anchors"][name]["correct"] for r in rows),
            "positions_both_solved": len(both),
            "seconds_both_solved": theirs,
            "banmen_seconds_both_solved": ours,
            "ratio": theirs / ours if ours > 0 else None,
        }
    return out


def _anchor_row(score: int | None, move: str | None, seconds: float, nodes: int) -> dict[str, Any]:
    return {
        "status": "solved" if score is not None else "unknown",
        "score": score,
        "best_move": move,
        "seconds": seconds,
        "nodes": nodes,
    }


def _edax_solve(board: str, time_limit: float | None) -> dict[str, Any]:
    """Edax's ``-solve`` on a one-position problem file, level 60 (exact), one thread. A
    run past ``time_limit`` is killed and reported as unsolved."""
    exe = _edax()
    assert exe is not None
    with tempfile.TemporaryDirectory() as tmp:
        obf = Path(tmp) / "p.obf"
        obf.write_text(f"{board};\n")
        try:
            out = subprocess.run(
                [str(exe), "-n", "1", "-l", "60", "-eval-file", "data/eval.dat",
                 "-solve", str(obf)],
                capture_output=True, text=True, cwd=exe.parent.parent, check=True,
                timeout=None if time_limit is None else time_limit + 5,
            ).stdout  # fmt: skip
        except subprocess.TimeoutExpired:
            return _anchor_row(None, None, float(time_limit or 0), 0)
    # "  1|   20   +38        0:00.545      21000788   38533556 a2 B1 c1 ..."
    m = re.search(r"^\s*1\|\s*(\S+)\s+([+-]\d+)\s+([\d:.]+)\s+(\d+)\s+\d+\s+(\w\d)", out, re.M)
    if not m:
        raise RuntimeError(f"no result in Edax's output: {out[-300:]!r}")
    if "@" in m.group(1):  # a selective (not exact) search
        raise RuntimeError(f"Edax searched selectively: depth {m.group(1)}")
    return _anchor_row(int(m.group(2)), m.group(5).lower(), _clock(m.group(3)), int(m.group(4)))


def _egaroucid_solve(board: str, time_limit: float | None) -> dict[str, Any]:
    """Egaroucid's ``-solve`` at level 60 (exact), one thread, no book."""
    exe = _egaroucid()
    assert exe is not None
    with tempfile.TemporaryDirectory() as tmp:
        problem = Path(tmp) / "p.txt"
        problem.write_text(board.replace(" ", "") + "\n")
        try:
            out = subprocess.run(
                [str(exe), "-l", "60", "-t", "1", "-nobook", "-eval",
                 "resources/eval_zero.egev2", "-solve", str(problem)],
                capture_output=True, text=True, cwd=exe.parent, check=True,
                timeout=None if time_limit is None else time_limit + 10,
            ).stdout  # fmt: skip
        except subprocess.TimeoutExpired:
            return _anchor_row(None, None, float(time_limit or 0), 0)
    for r in egaroucid_rows(out):
        if not r["exact"]:
            raise RuntimeError(f"Egaroucid searched selectively: depth {r['depth']}")
        return _anchor_row(r["score"], r["move"], r["seconds"], r["nodes"])
    raise RuntimeError(f"no result in Egaroucid's output: {out[-300:]!r}")


def egaroucid_rows(out: str) -> list[dict[str, Any]]:
    """The level-60 result rows of Egaroucid's console (``-solve`` and ``hint`` print
    ``| 60 | 20@100% | a2 | +38 | 000:00:00.434 | 22087127 | ... |``, the shell's prompt
    ``>`` possibly before): move, score, its own seconds and nodes, and whether the search
    was exact (``@100%``)."""
    rows = []
    for line in out.splitlines():
        f = [c.strip() for c in line.strip().lstrip(">").strip().strip("|").split("|")]
        if len(f) >= 6 and f[0] == "60":
            rows.append({
                "depth": f[1],
                "exact": f[1].endswith("@100%"),
                "move": f[2].lower(),
                "score": int(f[3]),
                "seconds": _clock(f[4]),
                "nodes": int(f[5]),
            })  # fmt: skip
    return rows


def midgame_positions(n: int = 20, seed: int = 2026) -> list[Board]:
    """``n`` middle-game positions (24-44 empties), each reached by random moves from the
    start with its own seed: the same ones every run."""
    out: list[Board] = []
    k = 0
    while len(out) < n:
        rng = np.random.default_rng(seed + k)
        k += 1
        b = Board()
        target = int(rng.integers(24, 45))
        while b.empties() > target and not b.is_game_over():
            b.push(int(rng.choice(b.legal_moves)))
        if not b.is_game_over() and b.legal_moves != [PASS]:
            out.append(b)
    return out


def bench_midgame(depth: int = 8, n: int = 20, rounds: int = 3) -> dict[str, Any]:
    """The midgame search to a fixed depth on :func:`midgame_positions`, one thread, each
    position from a cleared table, three players alternated position by position: the
    hand-set evaluation, the learned patterns without ProbCut, and with it. CPU seconds,
    nodes, nodes per CPU second (medians over ``rounds``), and how often the learned
    players' moves agree with each other."""
    from banmen.games.othello.engine import OthelloEngine
    from banmen.games.othello.evaluators import handset
    from banmen.search.limits import Limit

    players = {
        "hand-set": OthelloEngine(evaluator=handset()),
        "patterns": OthelloEngine(probcut=False),
        "patterns+probcut": OthelloEngine(),
    }
    positions = midgame_positions(n)
    for e in players.values():
        e.warm_up()
    per: dict[str, list[tuple[float, int]]] = {k: [] for k in players}
    moves: dict[str, list[str | None]] = {k: [] for k in players}
    for r in range(rounds):
        for b in positions:
            for name, e in players.items():
                e.new_game()
                t0 = time.process_time()
                res = e.think(b, Limit(depth=depth))
                per[name].append((time.process_time() - t0, res.nodes))
                if r == 0:
                    moves[name].append(res.move)
    rows = {}
    for name, xs in per.items():
        cpu = [sum(t for t, _ in xs[i * n : (i + 1) * n]) for i in range(rounds)]
        nodes = sum(k for _, k in xs[:n])
        med = statistics.median(cpu)
        rows[name] = {"cpu_seconds": med, "nodes": nodes, "nodes_per_cpu_second": nodes / med}
    same = sum(a == b for a, b in zip(moves["patterns"], moves["patterns+probcut"], strict=True))
    return {"depth": depth, "positions": n, "rounds": rounds, "players": rows,
            "probcut_same_move": same}  # fmt: skip
