"""``--max-move-time`` bounds every move of a protocol front end, whatever the engine
behind it: ``banmen gtp``, ``banmen nboard`` and ``banmen ugi`` with a user's engine that
never answers (a GTP, NBoard or UGI program, a ``python:`` player) answer with a one-line
engine error within the cap plus the stop grace, keep the session, and leave no engine
process behind when they end (issue 36)."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import paths
import pytest
from procs import Lines, gone

from banmen.clients._lines import STOP_GRACE

FAKE_UGI = paths.TESTS / "ugi_fake.py"
BANMEN = [sys.executable, "-m", "banmen"]

#: a GTP engine that knows the set-up commands and never answers genmove
SILENT_GTP = """
import sys, time
for line in sys.stdin:
    ident, _, rest = line.strip().partition(" ")
    cmd = rest.split()[0] if rest else ""
    if cmd == "genmove":
        time.sleep(10**6)
    if cmd == "quit":
        break
    answer = {"protocol_version": "2", "name": "silent", "version": "1"}.get(cmd, "")
    print(f"={ident} {answer}\\n", flush=True)
"""

#: an NBoard engine that answers pings and never answers go
SILENT_NBOARD = """
import sys, time
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "ping":
        print("pong " + words[1], flush=True)
    elif words and words[0] == "go":
        time.sleep(10**6)
"""

SLEEPER = """
import time


class Sleeper:
    def play(self, board):
        time.sleep(10**6)
"""

CAP = 1.0


def _bound() -> float:
    # the cap, the stop grace, and a busy machine's slack (a process ended, a thread woken)
    return CAP + STOP_GRACE + 3.0


@pytest.fixture()
def sleeper(tmp_path: Path) -> Path:
    path = tmp_path / "sleeper_player.py"
    path.write_text(textwrap.dedent(SLEEPER))
    return path


@pytest.mark.parametrize("kind", ["gtp", "python"])
def test_gtp_answers_within_its_cap_whatever_the_engine(
    kind: str, tmp_path: Path, sleeper: Path
) -> None:
    tag = str(tmp_path / "tag")
    if kind == "gtp":
        fake = tmp_path / "silent_gtp.py"
        fake.write_text(SILENT_GTP)
        spec = f"gtp:{sys.executable} {fake} {tag}"
    else:
        spec, tag = f"python:{sleeper}:Sleeper", str(sleeper)
    s = Lines(
        [sys.executable, "-m", "banmen", "gtp", "--engine", spec, "--max-move-time", str(CAP)]
    )
    try:
        s.send("1 boardsize 9")
        s.until("=1")
        t0 = time.monotonic()
        s.send("2 genmove b")
        (answer,) = [ln for ln in s.until("?2") if ln.strip()]
        took = time.monotonic() - t0
        assert "engine error" in answer and "asked to stop" in answer, answer
        assert took <= _bound(), took
        s.send("3 showboard")  # the session goes on
        s.until("=3")
        s.send("4 quit")
        s.until("=4")
    finally:
        s.end()
    assert gone(tag) == []


def test_nboard_answers_within_its_cap_whatever_the_engine(tmp_path: Path) -> None:
    from banmen.games.othello import Board

    tag = str(tmp_path / "tag")
    fake = tmp_path / "silent_nboard.py"
    fake.write_text(SILENT_NBOARD)
    s = Lines([*BANMEN, "nboard", "--engine", f"nboard:{sys.executable} {fake} {tag}",
               "--max-move-time", str(CAP)])  # fmt: skip
    try:
        s.send("nboard 2")
        s.send("set depth 4")
        s.send(f"set game {Board().to_ggf()}")
        s.send("ping 1")
        s.until("pong 1")
        t0 = time.monotonic()
        s.send("go")
        seen = s.until("status")  # (thinking)
        if not any("engine error" in ln for ln in seen):
            seen = s.until("status")
        took = time.monotonic() - t0
        assert any("engine error" in ln for ln in seen), seen
        assert not any(ln.startswith("===") for ln in seen)
        assert took <= _bound(), took
        s.send("ping 2")  # the session goes on
        s.until("pong 2")
    finally:
        s.end()
    assert gone(tag) == []


def test_ugi_answers_within_its_cap_whatever_the_engine(tmp_path: Path) -> None:
    tag = str(tmp_path / "tag")
    spec = f"ugi:{sys.executable} {FAKE_UGI} mattix silent {tag}"
    s = Lines(
        [
            sys.executable,
            "-m",
            "banmen",
            "ugi",
            "--game",
            "mattix",
            "--engine",
            spec,
            "--max-move-time",
            str(CAP),
        ]
    )
    try:
        s.send("ugi")
        s.until("ugiok")
        s.send("isready")
        s.until("readyok")
        t0 = time.monotonic()
        s.send("go movetime 100000")
        seen = s.until("bestmove")
        took = time.monotonic() - t0
        assert seen[-1] == "bestmove none" and any("error" in ln for ln in seen), seen
        assert took <= _bound(), took
        s.send("isready")  # the session goes on
        s.until("readyok")
        s.send("quit")
    finally:
        s.end()
    assert gone(tag) == []


#: a GTP engine that answers the set-up, then talks without end instead of a genmove
CHATTY_GTP = """
import sys
for line in sys.stdin:
    ident, _, rest = line.strip().partition(" ")
    cmd = rest.split()[0] if rest else ""
    if cmd == "genmove":
        while True:
            print("I am still thinking about it", flush=True)
    answer = {"protocol_version": "2", "name": "chatty", "version": "1"}.get(cmd, "")
    print(f"={ident} {answer}\\n", flush=True)
"""

#: an NBoard engine that answers pings, then talks without end instead of a move
CHATTY_NBOARD = """
import sys
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "ping":
        print("pong " + words[1], flush=True)
    elif words and words[0] == "go":
        while True:
            print("status still thinking", flush=True)
"""


@pytest.mark.parametrize("protocol", ["gtp", "nboard"])
def test_an_engine_that_keeps_talking_is_given_up_at_its_allowance(
    protocol: str, tmp_path: Path
) -> None:
    """Lines that are no answer do not keep a move going: the client gives up at the
    move's allowance as it does for a silent engine."""
    from banmen.engine import allowance
    from banmen.search.limits import Limit

    tag = str(tmp_path / "tag")
    fake = tmp_path / f"chatty_{protocol}.py"
    fake.write_text(CHATTY_GTP if protocol == "gtp" else CHATTY_NBOARD)
    if protocol == "gtp":
        from banmen.games.go import Board as GoBoard
        from banmen.games.go.gtp_client import GTPEngine, GTPError

        engine: Any = GTPEngine([sys.executable, str(fake), tag])
        board: Any = GoBoard(9)
        error: type[Exception] = GTPError
    else:
        from banmen.clients.nboard import NBoardEngine, NBoardError
        from banmen.games.othello import Board as OthelloBoard

        engine, board, error = (
            NBoardEngine([sys.executable, str(fake), tag]),
            OthelloBoard(),
            NBoardError,
        )
    engine.warm_up()
    t0 = time.monotonic()
    with pytest.raises(error) as e:
        engine.think(board, Limit(time=0.5))
    took = time.monotonic() - t0
    assert "in 2.5 s (its limit of 0.5 s plus 2 s)" in str(e.value), str(e.value)
    assert took <= allowance(0.5) + 3.0, took
    engine.close()
    assert gone(tag) == []
