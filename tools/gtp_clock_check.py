"""Measure GTP time handling both ways (issue 39):

(a) ``banmen gtp`` on Go 9x9 after ``time_settings 10 0 0``: a whole game of alternating
    ``genmove b`` / ``genmove w``; the total thinking of each colour, measured by this
    controller (command sent to answer read), must be at most 10 s;
(b) after ``kgs-time_settings byoyomi 0 1 3``: no ``genmove`` may take more than 1 s;
(c) Pachi and GNU Go as ``gtp:`` players, each behind a recording wrapper, are sent the
    match's time settings and ``time_left``: the commands and their answers are printed
    (Pachi's own log lines about its time are shown too).

Usage::

    .venv/bin/python tools/gtp_clock_check.py [--engine mcts] [--only a,b,c]

(``--proxy LOG -- COMMAND…`` is the wrapper's own mode: it passes stdin to COMMAND and its
answers back, writing every line to LOG.) Prints one line per figure; exits 1 if (a) or
(b) failed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from banmen.clock import Clock, parse_time_control
from banmen.games.go import Board
from banmen.games.go.gtp_client import GTPEngine
from banmen.search.limits import Limit

BANMEN = [sys.executable, "-m", "banmen"]


def proxy(log_path: str, command: list[str]) -> int:
    """Run ``command``, relaying stdin to it and its stdout back, every line logged."""
    log = open(log_path, "a", buffering=1)  # noqa: SIM115
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, bufsize=1)  # fmt: skip
    assert child.stdin and child.stdout and child.stderr
    lock = threading.Lock()

    def pump(src: IO[str], mark: str, dst: IO[str] | None) -> None:
        for line in src:
            with lock:
                log.write(f"{mark} {line.rstrip()}\n")
            if dst is not None:
                dst.write(line)
                dst.flush()

    threads = [
        threading.Thread(target=pump, args=(child.stdout, "<", sys.stdout), daemon=True),
        threading.Thread(target=pump, args=(child.stderr, "!", None), daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        for line in sys.stdin:
            with lock:
                log.write(f"> {line.rstrip()}\n")
            child.stdin.write(line)
            child.stdin.flush()
    except BrokenPipeError:
        pass
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass
    rc = child.wait()
    for t in threads:
        t.join(timeout=5)
    return rc


def _timed(engine: GTPEngine, command: str) -> tuple[str, float]:
    """One command's answer and the seconds from sending it to reading the answer."""
    t0 = time.perf_counter()
    answer = engine.command(command, timeout=600)
    return answer, time.perf_counter() - t0


def play_game(engine: str, settings: str, max_moves: int = 300) -> dict[str, list[float]]:
    """A 9x9 game of ``banmen gtp --engine ENGINE`` against itself under ``settings``:
    each colour's genmove times."""
    c = GTPEngine([*BANMEN, "gtp", "--engine", engine, "--size", "9"])
    times: dict[str, list[float]] = {"b": [], "w": []}
    try:
        for command in ("boardsize 9", "clear_board", "komi 7", settings):
            c.command(command)
        passes = 0
        for i in range(max_moves):
            color = "bw"[i % 2]
            move, seconds = _timed(c, f"genmove {color}")
            times[color].append(seconds)
            if move.lower() == "resign":
                break
            passes = passes + 1 if move.lower() == "pass" else 0
            if passes >= 2:
                break
    finally:
        c.close()
    return times


def check_a(engine: str) -> bool:
    times = play_game(engine, "time_settings 10 0 0")
    ok = True
    for color in "bw":
        total = sum(times[color])
        ok &= total <= 10.0
        print(f"(a) time_settings 10 0 0, {engine}: {color} {len(times[color])} genmoves, "
              f"total {total:.2f} s (limit 10 s), longest {max(times[color]):.2f} s")  # fmt: skip
    return ok


def check_b(engine: str) -> bool:
    times = play_game(engine, "kgs-time_settings byoyomi 0 1 3")
    every = times["b"] + times["w"]
    over = [t for t in every if t > 1.0]
    print(f"(b) kgs-time_settings byoyomi 0 1 3, {engine}: {len(every)} genmoves, "
          f"longest {max(every):.3f} s, mean {sum(every) / len(every):.3f} s, "
          f"{len(over)} over 1 s")  # fmt: skip
    return not over


def check_c(name: str, command: list[str], log: Path) -> None:
    """``command`` as a ``gtp:`` player through the wrapper: a few moves on two clocks."""
    log.unlink(missing_ok=True)
    for control in ("10", "byoyomi=0+3x1"):
        engine = GTPEngine([sys.executable, __file__, "--proxy", str(log), "--", *command],
                           name=name)  # fmt: skip
        try:
            tc = parse_time_control(control)
            clocks = {1: Clock.start(tc), 2: Clock.start(tc)}
            b = Board(9, komi=7)
            for _ in range(4):
                mine, theirs = clocks[b.turn], clocks[3 - b.turn]
                t0 = time.perf_counter()
                r = engine.think(b, Limit().with_clocks(mine, theirs))
                clocks[b.turn].spend(time.perf_counter() - t0)
                assert r.move is not None
                b.push(b.parse_move(r.move))
        finally:
            engine.close()
    lines = log.read_text().splitlines()
    shown = []
    for i, line in enumerate(lines):
        words = line.split()
        if line.startswith(">") and any(w in ("time_settings", "kgs-time_settings", "time_left")
                                        for w in words[1:3]):  # fmt: skip
            answer = next((x for x in lines[i + 1 :] if x.startswith("< ") and x[2:].strip()),
                          "< (none)")  # fmt: skip
            shown.append(f"    {line[2:]}  ->  {answer[2:].strip()}")
    print(f"(c) {name} ({' '.join(command)}), through the wrapper (log {log}):")
    print("\n".join(shown))
    own = [x for x in lines if x.startswith("!") and "IN:" not in x
           and any(w in x.lower() for w in ("time_settings", "desired"))]  # fmt: skip
    if own:
        print(f"    {name}'s own log about time (first 6 of {len(own)} lines):")
        print("\n".join(f"    {x[2:]}" for x in own[:6]))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--proxy":
        return proxy(sys.argv[2], sys.argv[sys.argv.index("--") + 1 :])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="mcts", help="banmen gtp's --engine (default mcts)")
    ap.add_argument("--only", default="a,b,c")
    ap.add_argument("--logs", default="/tmp", help="where the wrapper logs go")
    args = ap.parse_args()
    parts = set(args.only.split(","))
    ok = True
    if "a" in parts:
        ok &= check_a(args.engine)
    if "b" in parts:
        ok &= check_b(args.engine)
    if "c" in parts:
        pachi = next(iter(sorted(Path.home().glob(".cache/banmen-anchors/pachi"))), None)
        gnugo = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists()
                                          else None)  # fmt: skip
        if pachi is not None:
            check_c("pachi", [str(pachi), "threads=1"], Path(args.logs) / "pachi-gtp.log")
        else:
            print("(c) pachi: not found under ~/.cache/banmen-anchors")
        if gnugo is not None:
            check_c("gnugo", [gnugo, "--mode", "gtp", "--level", "1"],
                    Path(args.logs) / "gnugo-gtp.log")  # fmt: skip
        else:
            print("(c) gnugo: not found")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
