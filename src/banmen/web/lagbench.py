"""Does the web server stay responsive while the CPU thinks? A measurement.

:func:`measure` starts the server as a subprocess (free port, temporary database, one engine
worker), waits until the engines are warm, opens a game WebSocket and has the CPU search
for ``duration`` seconds (``alphabeta:time=<duration>``). While it thinks, the client polls
``GET /api/health`` about every 10 ms and times each round trip. If the search ran on the
event loop, or anything else blocked it, the round trips would stall for the length of the
search; with searches in worker processes they stay at a few milliseconds.

The game is an 8x8 board from a layout string, saved in the database before the server
starts: a 6x6 deal is solved exactly in well under a second, which would end the search
early, while an 8x8 game keeps the engine busy for the whole ``duration``.

Run it with ``python -m banmen.web.lagbench [DURATION]``; it prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from banmen.web.lag import percentile
from banmen.web.launch import free_port, stop, wait_ready

__all__ = ["measure"]

BENCH_LEVEL = "bench"
BENCH_GAME_ID = "lagbench-8x8"
#: A fixed 8x8 layout (values -9..13, chip on e4), so runs compare like with like.
BENCH_LAYOUT = "/".join(
    ",".join("X" if (r, c) == (3, 4) else str((r * 8 + c) * 37 % 23 - 9) for c in range(8))
    for r in range(8)
)
STARTUP_TIMEOUT = 120.0


def _save_bench_game(db: Path) -> None:
    from banmen.games.mattix import Board
    from banmen.web.store import GameStore

    store = GameStore(db)
    try:
        record = {
            "version": 1,
            "board": Board.from_layout(BENCH_LAYOUT).to_dict(),
            "seed": None,
            "players": {"1": "human", "2": "human"},
            "delay_ms": 0,
            "paused": False,
        }
        store.save(BENCH_GAME_ID, "mattix", record)
    finally:
        store.close()


async def _next_state(ws: ClientConnection, pred: Any = lambda s: True) -> dict[str, Any]:
    while True:
        msg = json.loads(await ws.recv())
        if msg.get("type") == "error":
            raise RuntimeError(f"server error: {msg['message']}")
        if msg.get("type") == "state" and pred(msg):
            return dict(msg)


async def _drive(base: str, ws_url: str, poll_interval: float) -> dict[str, Any]:
    async with (
        httpx.AsyncClient(base_url=base, timeout=10.0) as http,
        connect(ws_url) as ws,
    ):
        await ws.send(json.dumps({"type": "join", "id": BENCH_GAME_ID}))
        await _next_state(ws, lambda s: s["id"] == BENCH_GAME_ID and not s["history"])
        await http.get("/api/health")  # open the keep-alive connection before timing

        # Hand side 1 to the CPU: the server starts the search at once.
        t0 = time.perf_counter()
        await ws.send(json.dumps({"type": "settings", "players": {"1": BENCH_LEVEL}}))
        moved = asyncio.ensure_future(_next_state(ws, lambda s: len(s["history"]) == 1))

        rtts: list[float] = []
        busy_seen = 0
        while not moved.done():
            t = time.perf_counter()
            health = (await http.get("/api/health")).json()
            rtts.append(time.perf_counter() - t)
            busy_seen += health["running"] > 0
            await asyncio.sleep(max(0.0, poll_interval - (time.perf_counter() - t)))
        wall = time.perf_counter() - t0
        state = await moved
        final = (await http.get("/api/health")).json()

    rtts.sort()
    ms = [r * 1000 for r in rtts]
    cpu = state["cpu"]
    lag = final["loop_lag_ms"]
    return {
        "search_seconds": round(cpu["seconds"], 3),
        "search_stopped_by": cpu["stopped_by"],
        "search_nodes": cpu["nodes"],
        "move_wall_seconds": round(wall, 3),
        "polls": len(ms),
        "polls_while_searching": busy_seen,
        "rtt_ms": {
            "median": round(statistics.median(ms), 3) if ms else 0.0,
            "p99": round(percentile(ms, 99), 3),
            "max": round(ms[-1], 3) if ms else 0.0,
        },
        "server_loop_lag_ms": {"max": lag["max_ms"], "p99": lag["p99_ms"]},
    }


def measure(
    duration: float = 1.0, *, workers: int = 1, poll_interval: float = 0.01
) -> dict[str, Any]:
    """Time ``/api/health`` round trips while the CPU runs a ``duration``-second search."""
    if not duration > 0:
        raise ValueError(f"duration must be a positive number of seconds, got {duration!r}")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="banmen-lagbench-") as tmp:
        log = Path(tmp) / "server.log"
        _save_bench_game(Path(tmp) / "bench.sqlite3")
        cmd = [
            sys.executable, "-m", "banmen.web.lagbench", "--serve",
            "--port", str(port), "--db", str(Path(tmp) / "bench.sqlite3"),
            "--workers", str(workers), "--duration", repr(float(duration)),
        ]  # fmt: skip
        with log.open("wb") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_ready(base, proc, log, STARTUP_TIMEOUT)
            figures = asyncio.run(_drive(base, f"ws://127.0.0.1:{port}/ws/mattix", poll_interval))
        finally:
            stop(proc)
    return {
        "duration": duration,
        "spec": f"alphabeta:time={duration:g}",
        "board": f"8x8 layout {BENCH_LAYOUT}",
        "workers": workers,
        "cores": os.cpu_count(),
        **figures,
    }


def _serve(port: int, db: str, workers: int, duration: float) -> None:
    from banmen.web.server import create_app, run_uvicorn

    app = create_app(db, workers, extra_levels={BENCH_LEVEL: f"alphabeta:time={duration:g}"})
    run_uvicorn(app, "127.0.0.1", port)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("duration", nargs="?", type=float, default=1.0)
    parser.add_argument("--duration", dest="duration_opt", type=float)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    duration = args.duration_opt if args.duration_opt is not None else args.duration
    if args.serve:
        _serve(args.port, args.db, args.workers, duration)
    else:
        print(json.dumps(measure(duration, workers=args.workers), indent=2))


if __name__ == "__main__":
    main()
