"""How far past a time limit each engine and each front end answers, on a loaded machine.

A time limit is a wall-clock promise: a search given ``S`` seconds answers within ``S`` plus a
small margin (:func:`allowed_overrun`: 5% or 50 ms, whichever is larger) whatever else the
machine is doing. This suite measures the promise where users meet it:

* every search in-process, through its engine's ``think`` (what the arena's workers call):
  alpha-beta (Mattix 8×8, Othello midgame), the Othello endgame solver (a timed player near the
  end), MCTS (Go 9×9 and 19×19), df-pn (a 611-ply tsume problem no solver finishes in time);
* every front end, from the moment the request is sent to the moment the answer is read: an
  engine worker process (the web app's CPU moves), ``banmen gtp`` (``genmove``), ``banmen usi``
  (``go mate <ms>``) and ``banmen nboard`` (``go`` with a time per move).

``load`` busy-loop processes (two by default: both cores of the reference machine) spin for
the whole suite, so the figures are those of a busy machine. Overruns are wall time minus the
limit; negative means early (MCTS stops early when the best move cannot be overtaken).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from banmen.clients._lines import LineProcess
from banmen.games.engines import AlphaBetaEngine
from banmen.games.go.board import BLACK, PASS, vertex_name
from banmen.games.go.board import Board as GoBoard
from banmen.games.go.engine import GoEngine
from banmen.games.mattix import Board as MattixBoard
from banmen.games.othello import Board as OthelloBoard
from banmen.games.othello.engine import OthelloEngine
from banmen.games.registry import get_game
from banmen.games.shogi.tsume import solve, warm_up
from banmen.search.limits import Limit
from banmen.worker import EngineWorker

__all__ = ["allowed_overrun", "busy_loops", "bench_time_limits", "summarise"]

#: the project's promise: within the limit plus this margin
MARGIN_SHARE = 0.05
MARGIN_MIN = 0.05

#: a tsume problem of 611 plies (Kotobuki, zukou-100): no solver here proves it in seconds,
#: so every run ends by the clock
LONG_TSUME = "g3p3+r/3lPG3/1s4ppp/1l1B4P/L2b1kPl1/3+p3+R+p/3+p2+s1S/+NP+p1gS3/1g+p2P3 b 4P3n 1"
#: an 8×8 Mattix board, never solved in a few seconds
MATTIX_8X8 = "/".join(
    ",".join("X" if (r, c) == (3, 4) else str((r * 8 + c) * 37 % 23 - 9) for c in range(8))
    for r in range(8)
)


def allowed_overrun(limit: float) -> float:
    """The most a search given ``limit`` seconds may run over it."""
    return max(MARGIN_SHARE * limit, MARGIN_MIN)


@contextmanager
def busy_loops(n: int) -> Iterator[None]:
    """``n`` processes that do nothing but spin, for as long as the block runs."""
    procs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(n)
    ]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def summarise(
    limit: float, walls: list[float], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    over = sorted(1000 * (w - limit) for w in walls)
    allowed = 1000 * allowed_overrun(limit)
    return {
        "limit_seconds": limit,
        "runs": len(walls),
        "overrun_ms_median": round(statistics.median(over), 1),
        "overrun_ms_p90": round(over[math.ceil(0.9 * len(over)) - 1], 1),  # nearest rank
        "overrun_ms_max": round(over[-1], 1),
        "allowed_ms": round(allowed, 1),
        "over_allowed": sum(1 for o in over if o > allowed),
        **(extra or {}),
    }


# --------------------------------------------------------------------------- positions


def _go_positions(size: int, n: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < n:
        b = GoBoard(size)
        for _ in range(rng.randrange(0, size * size // 3)):
            moves = [m for m in b.legal_moves if m != PASS] or list(b.legal_moves)
            b.push(rng.choice(moves))
            if b.is_game_over():
                break
        if not b.is_game_over():
            out.append(b)
    return out


def _othello_positions(empties: int, n: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < n:
        b = OthelloBoard()
        while b.empties() > empties and not b.is_game_over():
            b.push(rng.choice(b.legal_moves))
        if not b.is_game_over() and b.empties() == empties:
            out.append(b)
    return out


# --------------------------------------------------------------------------- in-process


def _timed(think: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    r = think()
    return time.perf_counter() - t0, r


def _engine_case(
    make: Callable[[], Any],
    boards: list[Any],
    limit: float,
    *,
    new_game: bool = True,
    target: float | None = None,
) -> dict[str, Any]:
    engine = make()
    warm = getattr(engine, "warm_up", None)
    if warm is not None:
        warm()
    walls = []
    stopped: dict[str, int] = {}
    for board in boards:
        if new_game:
            engine.new_game()
        wall, r = _timed(partial(engine.think, board, Limit(time=limit, target=target)))
        walls.append(wall)
        stopped[r.stopped_by] = stopped.get(r.stopped_by, 0) + 1
    return summarise(limit, walls, {"stopped_by": stopped})


def _mattix(limit: float, runs: int) -> dict[str, Any]:
    board = MattixBoard.from_layout(MATTIX_8X8)
    return _engine_case(lambda: AlphaBetaEngine(get_game("mattix")), [board] * runs, limit)


def _othello(limit: float, runs: int, empties: int) -> dict[str, Any]:
    boards = _othello_positions(empties, runs, seed=empties)
    return _engine_case(OthelloEngine, boards, limit)


def _go(limit: float, runs: int, size: int) -> dict[str, Any]:
    return _engine_case(GoEngine, _go_positions(size, runs, seed=size), limit)


def _go_threads(limit: float, runs: int) -> dict[str, Any]:
    return _engine_case(partial(GoEngine, threads=2), _go_positions(9, runs, seed=9), limit)


def _go_target(limit: float, runs: int) -> dict[str, Any]:
    """A clock's target of limit / 2.5 (GTP's): the search may go on to the limit."""
    boards = _go_positions(9, runs, seed=9)
    return _engine_case(GoEngine, boards, limit, target=limit / 2.5)


def _dfpn(limit: float, runs: int) -> dict[str, Any]:
    warm_up()  # the compiled solver loaded first, as every front end does
    walls = []
    statuses: dict[str, int] = {}
    for _ in range(runs):
        wall, r = _timed(lambda: solve(LONG_TSUME, Limit(time=limit)))
        walls.append(wall)
        key = f"{r.status}:{r.reason}" if r.reason else r.status
        statuses[key] = statuses.get(key, 0) + 1
    return summarise(limit, walls, {"status": statuses})


# --------------------------------------------------------------------------- front ends


def _worker(limit: float, runs: int) -> dict[str, Any]:
    boards = _go_positions(9, runs, seed=99)
    walls = []
    with EngineWorker(warm=("go",)) as w:
        w.wait_ready(600)
        for b in boards:
            wall, _ = _timed(partial(w.think, "go", b.to_dict(), "mcts", Limit(time=limit)))
            walls.append(wall)
    return summarise(limit, walls)


#: seconds a front end may stay silent before its case is reported as an error
_SILENCE = 600.0


def _engine(*args: str) -> LineProcess:
    """``banmen ARGS`` as a child process, spoken to in lines."""
    return LineProcess([sys.executable, "-m", "banmen", *args])


def _until(engine: LineProcess, done: Callable[[str], bool]) -> str:
    """Read lines until one satisfies ``done``; that line (stripped)."""
    deadline = time.monotonic() + _SILENCE
    while True:
        line = engine.next_line(deadline)
        if line is None:
            raise RuntimeError(f"the engine exited (code {engine.proc.poll()})")
        if done(line.strip()):
            return line.strip()


def _gtp(limit: float, runs: int) -> dict[str, Any]:
    engine = _engine("gtp", "--engine", f"mcts:time={limit}", "--size", "9")
    walls = []
    try:
        engine.send("name")
        _until(engine, lambda s: s.startswith("="))  # the engine is up (and warm)
        for b in _go_positions(9, runs, seed=7):
            engine.send("clear_board")
            _until(engine, lambda s: s.startswith("="))
            for i, m in enumerate(b.move_stack):
                color = "b" if b.colors[i] == BLACK else "w"
                engine.send(f"play {color} {vertex_name(m, 9)}")
                _until(engine, lambda s: s.startswith(("=", "?")))
            t0 = time.perf_counter()
            engine.send(f"genmove {'b' if b.turn == BLACK else 'w'}")
            _until(engine, lambda s: s.startswith(("=", "?")))
            walls.append(time.perf_counter() - t0)
    finally:
        engine.close()
    return summarise(limit, walls)


def _usi(limit: float, runs: int) -> dict[str, Any]:
    engine = _engine("usi")
    walls = []
    try:
        engine.send("usi")
        _until(engine, lambda s: s == "usiok")
        engine.send("isready")
        _until(engine, lambda s: s == "readyok")
        for _ in range(runs):
            engine.send(f"position sfen {LONG_TSUME}")
            t0 = time.perf_counter()
            engine.send(f"go mate {round(limit * 1000)}")
            _until(engine, lambda s: s.startswith("checkmate"))
            walls.append(time.perf_counter() - t0)
    finally:
        engine.close()
    return summarise(limit, walls)


def _nboard(limit: float, runs: int) -> dict[str, Any]:
    engine = _engine("nboard", "--max-move-time", str(limit))
    walls = []
    try:
        engine.send("nboard 2")
        engine.send("set depth 60")
        engine.send("ping 1")
        _until(engine, lambda s: s == "pong 1")
        for b in _othello_positions(40, runs, seed=3):
            engine.send(f"set game {b.to_ggf()}")
            t0 = time.perf_counter()
            engine.send("go")
            _until(engine, lambda s: s.startswith("==="))
            walls.append(time.perf_counter() - t0)
    finally:
        engine.close()
    return summarise(limit, walls)


# --------------------------------------------------------------------------- the suite

#: case name -> (what it is, runner(limit, runs))
CASES: dict[str, tuple[str, Callable[[float, int], dict[str, Any]]]] = {
    "alphabeta-mattix-8x8": ("AlphaBetaEngine.think, an 8x8 Mattix board", _mattix),
    "alphabeta-othello-40": (
        "OthelloEngine.think at 40 empties (midgame search)",
        lambda t, n: _othello(t, n, 40),
    ),
    "endgame-othello-20": (
        "OthelloEngine.think at 20 empties (exact solver, then the midgame search)",
        lambda t, n: _othello(t, n, 20),
    ),
    "mcts-go-9x9": ("GoEngine.think on 9x9", lambda t, n: _go(t, n, 9)),
    "mcts-go-19x19": ("GoEngine.think on 19x19", lambda t, n: _go(t, n, 19)),
    "mcts-go-9x9-threads": ("GoEngine(threads=2).think on 9x9", _go_threads),
    "mcts-go-9x9-target": ("GoEngine.think on 9x9, a target of 40% of the limit", _go_target),
    "dfpn-tsume": ("tsume.solve of a 611-ply problem", _dfpn),
    "worker-go-9x9": ("EngineWorker.think round trip (the web app's CPU moves)", _worker),
    "gtp-genmove": ("banmen gtp --engine mcts:time=S: genmove round trip", _gtp),
    "usi-go-mate": ("banmen usi: position + go mate <ms> until the checkmate line", _usi),
    "nboard-go": ("banmen nboard --max-move-time S, set depth 60: go until ===", _nboard),
}


def bench_time_limits(
    limits: tuple[float, ...] = (0.5, 2.0),
    runs: int = 6,
    load: int = 2,
    cases: list[str] | None = None,
) -> dict[str, Any]:
    """Every case at every limit, ``runs`` searches each, with ``load`` busy loops running."""
    chosen = cases or list(CASES)
    out: dict[str, Any] = {
        "load_processes": load,
        "cores": os.cpu_count(),
        "margin": f"max({MARGIN_SHARE:.0%} of the limit, {MARGIN_MIN * 1000:.0f} ms)",
        "cases": {},
    }
    with busy_loops(load):
        time.sleep(0.5)  # let the loops start spinning
        for name in chosen:
            what, run = CASES[name]
            rows = []
            for limit in limits:
                try:
                    rows.append(run(limit, runs))
                except Exception as e:  # a front end that cannot run here is reported
                    rows.append({"limit_seconds": limit, "error": f"{type(e).__name__}: {e}"})
            out["cases"][name] = {"what": what, "limits": rows}
        out["loadavg_1min_at_end"] = round(os.getloadavg()[0], 2)
    errors = [r for c in out["cases"].values() for r in c["limits"] if "error" in r]
    out["over_allowed_total"] = sum(
        r.get("over_allowed", 0) for c in out["cases"].values() for r in c["limits"]
    )
    out["cases_with_errors"] = len(errors)
    return out
