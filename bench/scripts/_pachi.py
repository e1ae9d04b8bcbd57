"""Pachi asked for one move, for the bench scripts that set it beside banmen (issue 40)."""

from __future__ import annotations

import resource
import subprocess
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class PachiRun:
    """One Pachi process's ``genmove``: its output and error text, the wall seconds of the
    whole process and its CPU seconds (user and system)."""

    stdout: str
    stderr: str
    wall: float
    cpu: float


def pachi_genmove(pachi: str, moves: list[str], playouts: int, timeout: float) -> PachiRun:
    """Pachi (one thread, ``-t =N`` simulations; N at least 500, or Pachi exits at once)
    after ``moves`` on 9x9 at komi 7.5, asked for the next move."""
    colors = "bw"
    script = ["boardsize 9", "clear_board", "komi 7.5"]
    script += [f"play {colors[i % 2]} {m}" for i, m in enumerate(moves)]
    script += [f"genmove {colors[len(moves) % 2]}", "quit"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([pachi, "-t", f"={playouts}", "threads=1"],
                          input="\n".join(script) + "\n", capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return PachiRun(proc.stdout, proc.stderr, wall, cpu)
