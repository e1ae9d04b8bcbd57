"""Hostile engines, as real processes: each loses its game with its reason within its
allowance (its time limit plus the margin), the run completes, memory stays bounded, and
no process an engine started is left — after the run, and after a ``kill -9`` or a
Ctrl-C of the arena during a hostile engine's move (issue 36)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import paths
import pytest
from procs import gone, tagged

from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig
from banmen.clients._lines import MAX_LINE
from banmen.engine import allowance

FAKE = paths.TESTS / "ugi_fake.py"

PLAYERS = """
import os
import time


class _Hostile:
    def __init__(self):
        self.moves = 0

    def new_game(self):
        self.moves = 0

    def play(self, board):
        self.moves += 1
        if self.moves >= 2:
            self.misbehave()
        return board.move_name(board.legal_moves[0])


class OsExit(_Hostile):
    def misbehave(self):
        os._exit(3)


class SysExit(_Hostile):
    def misbehave(self):
        raise SystemExit(0)


class Interrupt(_Hostile):
    def misbehave(self):
        raise KeyboardInterrupt


class Sleeper(_Hostile):
    def misbehave(self):
        time.sleep(10**6)


class Printer(_Hostile):
    def misbehave(self):
        while True:
            print("thinking " * 20)
"""


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "hostile_players.py"
    path.write_text(textwrap.dedent(PLAYERS))
    return path


def _ugi(mode: str, tag: Path, seconds: float = 0.5) -> str:
    return f"ugi:time={seconds} {sys.executable} {FAKE} mattix {mode} {tag}"


CASES = {
    # name: (spec, its time limit, what the forfeit says)
    "endless line": (lambda p, t: _ugi("longline", t), 0.5, f"a line of more than {MAX_LINE:,}"),
    "endless info": (lambda p, t: _ugi("chatter", t), 0.5, "no bestmove in 2.5 s"),
    "silence": (lambda p, t: _ugi("hang", t), 0.5, "no bestmove in 2.5 s"),
    "fork and exit": (lambda p, t: _ugi("forkexit", t), 0.5, "exited (exit status 4)"),
    "os._exit": (lambda p, t: f"python:{p}:OsExit,time=1", 1.0, "exited (exit status 3)"),
    "SystemExit": (lambda p, t: f"python:{p}:SysExit,time=1", 1.0, "raised SystemExit: 0"),
    "KeyboardInterrupt": (lambda p, t: f"python:{p}:Interrupt,time=1", 1.0,
                          "raised KeyboardInterrupt"),
    "sleep forever": (lambda p, t: f"python:{p}:Sleeper,time=0.5", 0.5, "no move in 2.5 s"),
    "endless print": (lambda p, t: f"python:{p}:Printer,time=0.5", 0.5, "no move in 2.5 s"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_engine_loses_its_games_in_time_and_leaves_nothing(
    case: str, players: Path, tmp_path: Path
) -> None:
    make, seconds, says = CASES[case]
    spec = make(players, tmp_path / "tag")
    tag = str(tmp_path / "tag") if spec.startswith("ugi:") else str(players)
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=2, seed=5, size=4, players=[
        {"name": "bad", "spec": spec}, {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    progress = run_arena(store, run, workers=1)  # the run completes
    assert progress.done == 2 and store.status(run) == "done"
    for g in store.games(run):
        f = g.extra["forfeit"]
        assert f["player"] == "bad" and says in f["reason"], f["reason"]
        assert g.result == ("0-1" if g.first == "bad" else "1-0")
        # the forfeited move was given up at its allowance (the slack: a kill and a
        # busy machine's scheduling, not the engine's time)
        assert g.times[-1] <= allowance(seconds) + 3.0, (g.times, f["reason"])
    store.close()
    assert gone(tag) == [], f"processes left behind by {case}"


def test_what_an_engine_forks_goes_with_it(tmp_path: Path) -> None:
    """An engine that starts a child at every game and plays well: the children end
    with the engine, when the run ends."""
    tag = tmp_path / "tag"
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=4, seed=5, size=4, players=[
        {"name": "forker", "spec": _ugi("forker", tag)},
        {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    run_arena(store, run, workers=1)
    assert not any("forfeit" in g.extra for g in store.games(run))
    store.close()
    assert gone(str(tag)) == []


MEASURE = """
import resource, sys
from banmen.clients.ugi import UGIEngine, UGIError
from banmen.games.registry import get_game, parse_spec
from banmen.games.mattix import Board
g = get_game("mattix")
e = UGIEngine(g, parse_spec(sys.argv[1]))
b = Board.from_seed(3, 4)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
said = ""
for _ in range(3):  # (it misbehaves from its third move)
    try:
        b.push_name(e.think(b).move)
    except UGIError as err:
        said = str(err)
        break
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, said)
"""


def test_an_endless_line_holds_memory_to_its_bound(tmp_path: Path) -> None:
    """An engine writing without a line end, at the pipe's speed, for its whole allowance:
    the client's peak memory grows by a few MiB, not by what the engine wrote."""
    spec = _ugi("longline", tmp_path / "tag")
    out = subprocess.run([sys.executable, "-c", MEASURE, spec], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split(maxsplit=2)  # fmt: skip
    before, after, said = int(out[0]), int(out[1]), out[2]
    assert f"a line of more than {MAX_LINE:,} bytes" in said
    assert (after - before) * 1024 < 16 * MAX_LINE, (before, after)  # KiB on Linux
    assert gone(str(tmp_path / "tag")) == []


def _arena(tmp_path: Path, spec: str) -> subprocess.Popen[bytes]:
    with (tmp_path / "arena.err").open("wb") as err:  # (tracebacks, if it hangs: below)
        return subprocess.Popen(
            [sys.executable, "-m", "banmen", "arena", "run", "mattix", "--size", "4",
             "--games", "2", "--seed", "5", "--workers", "1", "--db", str(tmp_path / "a.db"),
             "-p", f"bad={spec}", "-p", "d1=alphabeta:depth=1"],
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )  # fmt: skip


def _wait_for(path: Path, proc: subprocess.Popen[bytes], within: float = 120.0) -> None:
    end = time.monotonic() + within
    while not path.exists():
        assert proc.poll() is None, "the arena ended before the engine's move"
        assert time.monotonic() < end, "the engine never began its move"
        time.sleep(0.05)


@pytest.mark.parametrize("how", ["kill -9", "Ctrl-C"])
def test_no_engine_outlives_a_killed_arena(how: str, tmp_path: Path) -> None:
    """The arena killed (or interrupted as a terminal's Ctrl-C does: SIGINT to its whole
    process group) while an engine computes in a move with a long limit: within a few
    seconds no engine process is left."""
    tag = tmp_path / "tag"
    arena = _arena(tmp_path, _ugi("busy", tag, seconds=600))
    try:
        _wait_for(Path(f"{tag}.busy"), arena)
        assert tagged(str(tag)), "the busy engine is not in the process table"
        if how == "kill -9":
            arena.kill()
        else:
            os.killpg(arena.pid, signal.SIGINT)
        try:
            arena.wait(30)
        except subprocess.TimeoutExpired:  # where it hangs: faulthandler's dump on SIGABRT
            arena.send_signal(signal.SIGABRT)
            arena.wait(10)
            text = (tmp_path / "arena.err").read_text(errors="replace")
            raise AssertionError(f"the arena did not end after {how}:\n{text[-6000:]}") from None
        assert gone(str(tag)) == [], f"an engine outlived the arena ({how})"
    finally:
        if arena.poll() is None:
            arena.kill()
        for pid in tagged(str(tag)):
            os.kill(pid, signal.SIGKILL)
