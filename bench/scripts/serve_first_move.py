"""``banmen serve``'s first CPU move per game, before and after, from an empty numba cache
(a first run) and then warm: the server is started, the time until it answers ``/`` and
until its engines are ready is noted; as soon as ``/`` answers, each game page opens a new
game whose first move is the CPU's, and the time from the server's start to that move is
recorded. Trees are taken in turn, item by item; one JSON line
per run.

    .venv/bin/python bench/scripts/serve_first_move.py \\
        --tree before=/tmp/orig/src --tree after=src [--warm-up] \\
        --out bench/results/compile28/serve-first-move.jsonl

``--warm-up`` runs ``banmen warm-up`` first for the trees that have it (what ``make serve``
does), and records its time apart.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from _rows import record
from websockets.sync.client import connect

#: a new game whose first move is the CPU's, per game page, and how its move shows
GAMES: dict[str, dict[str, Any]] = {
    "mattix": {"type": "new", "size": 6, "players": {"1": "normal", "2": "human"}},
    "othello": {"type": "new", "players": {"1": "easy", "2": "human"}},
    "go": {"type": "new", "size": 9, "players": {"1": "quick", "2": "human"}},
}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _first_move(port: int, game: str) -> float:
    t0 = time.monotonic()
    with connect(f"ws://127.0.0.1:{port}/ws/{game}", origin=f"http://127.0.0.1:{port}",
                 open_timeout=60) as ws:  # fmt: skip
        ws.send(json.dumps({"type": "join"}))
        ws.send(json.dumps(GAMES[game]))
        fresh = False
        while True:
            msg = json.loads(ws.recv(timeout=900))
            if msg["type"] == "state" and msg.get("thinking"):
                fresh = True
            if fresh and msg["type"] == "state" and len(msg["history"]) >= 1:
                return time.monotonic() - t0


def run(src: str, cache: str, port: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
    env["NUMBA_CACHE_DIR"] = cache
    env["PYTHONPATH"] = str(Path(src).resolve())
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "banmen", "serve", "--port", str(port), "--workers", "2",
         "--db", f"{cache}/games.sqlite3"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    row: dict[str, Any] = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
            while True:
                try:
                    http.get("/")
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            row["page_seconds"] = round(time.monotonic() - t0, 2)
            # every game asks for its first CPU move at once, as pages opened at start would
            with ThreadPoolExecutor(len(GAMES)) as pool:
                asked = time.monotonic()
                done = {g: pool.submit(_first_move, port, g) for g in GAMES}
                for game, fut in done.items():
                    fut.result()
                    row[f"{game}_first_move_seconds"] = round(fut.result() + asked - t0, 2)
            while not http.get("/api/health").json()["engines_ready"]:
                time.sleep(0.1)
            row["engines_ready_at"] = round(time.monotonic() - t0, 2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--warm-up", action="store_true")
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes beside")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for s in spinners:
        s.start()
    try:
        _runs(args)
    finally:
        for s in spinners:
            s.kill()


def _spin() -> None:
    while True:
        pass


def _runs(args: argparse.Namespace) -> None:
    for name, src in (t.split("=", 1) for t in args.tree):
        with tempfile.TemporaryDirectory(prefix="banmen-serve-") as cache:
            warm_up = None
            if args.warm_up and (Path(src) / "banmen" / "warmup.py").exists():
                env = {**os.environ, "NUMBA_CACHE_DIR": cache,
                       "PYTHONPATH": str(Path(src).resolve())}  # fmt: skip
                t0 = time.monotonic()
                subprocess.run([sys.executable, "-m", "banmen", "warm-up"], env=env,
                               check=True, capture_output=True)  # fmt: skip
                warm_up = round(time.monotonic() - t0, 2)
            for phase in ("first", "again"):
                row = {"tree": name, "phase": phase, "busy": args.busy,
                       "warm_up_seconds": warm_up, **run(src, cache, _port())}  # fmt: skip
                record(row, args.out)


if __name__ == "__main__":
    main()
