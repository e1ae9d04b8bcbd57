"""A user's first run, from a cold cache: no limit pays for compiling.

Each test runs a front end in a fresh process whose ``NUMBA_CACHE_DIR`` is empty, as on a
fresh clone that skipped ``banmen warm-up``: the code is compiled in front of the user,
who is told so once on stderr, and only then does the clock start. Before this was
fixed, ``analyse go --time 1`` reported 42-115 s "stopped by time" and 16 playouts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue

import pytest

pytestmark = pytest.mark.cold

#: a wall-clock promise with room for a loaded machine (as tests/test_analysis.py)
SLACK = 2.0
#: a lone king in the open against a rook, a gold and a silver: not decided in a second
#: (tests/test_usi.py's HARD)
HARD = "9/9/9/9/4k4/9/9/9/9 b RGS 1"


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
    env["NUMBA_CACHE_DIR"] = str(cache)
    return env


def test_analyse_go_from_a_cold_cache_thinks_for_its_second(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "banmen", "analyse", "go", "(;SZ[9]KM[7.5];B[ee])",
         "--time", "1", "--json"],
        env=_env(tmp_path), capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["stopped_by"] == "time"
    assert 0.9 <= rec["seconds"] < 1.0 + SLACK  # its own second, not the compiling
    assert rec["nodes"] > 200  # and it searched in it (16 playouts when it compiled)
    notices = [line for line in out.stderr.splitlines() if line.startswith("banmen: compiling")]
    assert "banmen: compiling the Go search, first run only…" in notices
    # (compiled by a helper process beside the search's, on two cores: told all the same)
    assert "banmen: compiling the Go dead-stone estimate, first run only…" in notices
    assert len(notices) == len(set(notices))  # each once
    assert "Warning" not in out.stderr and "Traceback" not in out.stderr


def _reader(stream: object, lines: Queue[tuple[float, str]]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.put((time.monotonic(), line.rstrip("\n")))


def _wait_for(lines: Queue[tuple[float, str]], prefix: str, timeout: float) -> tuple[float, str]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            at, line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except Empty:
            raise AssertionError(f"no line starting {prefix!r} in {timeout} s") from None
        if line.startswith(prefix):
            return at, line


def test_usi_from_a_cold_cache_is_ready_only_when_loaded(tmp_path: Path) -> None:
    """``usi`` is answered at once while the solver compiles in the background;
    ``readyok`` comes once it is loaded, and ``go mate 1000`` then searches for its own
    second (an undecided problem: the answer is ``checkmate timeout``, not a result)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "banmen", "usi"], env=_env(tmp_path), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stderr is not None
    lines: Queue[tuple[float, str]] = Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    try:
        sent = time.monotonic()
        proc.stdin.write("usi\n")
        at, _ = _wait_for(lines, "usiok", 120)
        usiok = at - sent
        proc.stdin.write("isready\n")
        ready_at, _ = _wait_for(lines, "readyok", 1800)
        proc.stdin.write(f"position sfen {HARD}\n")
        sent = time.monotonic()
        proc.stdin.write("go mate 1000\n")
        at, answer = _wait_for(lines, "checkmate", 120)
        assert answer == "checkmate timeout"
        assert at - sent < 1.0 + SLACK  # the second was the search's
        assert usiok < ready_at - sent + 60  # (usiok did not wait for the compiling)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read()
    assert err.count("banmen: compiling the shogi mate solver, first run only…") == 1
    assert "Warning" not in err and "Traceback" not in err
