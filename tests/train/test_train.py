"""``banmen train`` (issue 38): a tiny game trains in seconds and its weights beat random
ones; a run killed with -9 during self-play or during the fit resumes to the same final
weights as a run never stopped; every bad input is one line and loses nothing stored.

The game is ``subtract4`` (tests/toy_train.py): the heap game whose cells say the heap
modulo 4; the truth is that the side to move loses on a multiple of 4 (cell 0).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import paths
import pytest
import toy_train

from banmen.weights import read_ntuple, write_ntuple

RUN = ["--games", "24", "--iterations", "2", "--gate-games", "12", "--depth", "4",
       "--workers", "1", "--seed", "5"]  # fmt: skip


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    where = toy_train.write_package(tmp_path_factory.mktemp("site"))
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(where), str(paths.TESTS), e.get("PYTHONPATH", "")])
    return e


def banmen(env: dict[str, str], *args: str, pause: str | None = None,
           timeout: float = 600) -> subprocess.CompletedProcess[str]:  # fmt: skip
    e = dict(env)
    if pause:
        e["PAUSE"] = pause
    cmd = [sys.executable, str(paths.TESTS / "train_pause.py"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)


def _weights(path: Path) -> np.ndarray:
    return read_ntuple(path, "subtract4", 2).weights


@pytest.mark.slow
def test_a_tiny_game_trains_in_seconds_and_beats_random_weights(
    env: dict[str, str], tmp_path: Path
) -> None:
    db = str(tmp_path / "t.db")
    out = tmp_path / "w.npz"
    p = banmen(env, "train", "subtract4", "ntuple", "--out", str(out), "--db", db,
               "--name", "tiny", *RUN)  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    assert "iteration 0:" in p.stderr and "iteration 1:" in p.stderr
    w = _weights(out)
    # one tuple of the 4 cells; a one-hot cell i indexes 2 ** (3 - i): a multiple of 4
    # (cell 0) is the worst heap for the side to move
    assert w[8] < 0 and w[8] < min(w[4], w[2], w[1]), w
    players = ["-p", f"trained=alphabeta:depth=2+ntuple:weights={out}"]
    for seed in (1, 2, 3):  # three draws of random weights (a draw may happen to be right)
        noise = tmp_path / f"random{seed}.npz"
        rng = np.random.default_rng(seed)
        write_ntuple(noise, "subtract4", 1, 4, 2, [(0, 1, 2, 3)], rng.normal(0, 4, 16))
        players += ["-p", f"random{seed}=alphabeta:depth=2+ntuple:weights={noise}"]
    match = subprocess.run(
        [sys.executable, "-m", "banmen", "arena", "run", "subtract4", "--games", "24",
         "--seed", "9", "--workers", "1", "--db", str(tmp_path / "a.db"), "--json",
         "--gauntlet", "trained", *players],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert match.returncode == 0, match.stdout + match.stderr
    from banmen.arena.store import ArenaStore

    with ArenaStore(tmp_path / "a.db", readonly=True) as store:
        (run,) = store.run_ids()
        games = store.games(run)
    scores = []
    for pairing in range(3):
        mine = [g for g in games if g.pairing == pairing]
        points = sum(g.points_first() if g.first == "trained" else 1 - g.points_first()
                     for g in mine)  # fmt: skip
        scores.append(points / len(mine))
    assert min(scores) >= 0.5 and sum(scores) / 3 > 0.6, scores
    report = banmen(env, "train", "report", "tiny", "--db", db, "--json")
    assert report.returncode == 0, report.stderr
    assert '"iterations"' in report.stdout and '"held_out_rmse"' in report.stdout


def _count(db: Path, name: str) -> int:
    try:
        with sqlite3.connect(db) as c:
            row = c.execute("SELECT COUNT(*) FROM train_games WHERE name = ?", (name,)).fetchone()
            return int(row[0])
    except sqlite3.Error:
        return 0


def _kill_when(proc: subprocess.Popen[str], ready: callable, what: str) -> None:  # type: ignore[valid-type]
    deadline = time.monotonic() + 300
    while not ready():
        assert proc.poll() is None, f"ended before {what}: {proc.communicate()}"
        assert time.monotonic() < deadline, f"never reached {what}"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)


@pytest.mark.slow
def test_killed_in_self_play_or_in_the_fit_it_resumes_to_the_same_weights(
    env: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    whole = tmp_path / "whole.npz"
    p = banmen(env, "train", "subtract4", "ntuple", "--out", str(whole), "--db", str(db),
               "--name", "whole", *RUN)  # fmt: skip
    assert p.returncode == 0, p.stderr

    cmd = [sys.executable, str(paths.TESTS / "train_pause.py"), "train", "subtract4", "ntuple",
           "--db", str(db)]  # fmt: skip
    # killed while its self-play games are being stored
    e = {**env, "PAUSE": "selfplay:0.3"}
    out1 = tmp_path / "one.npz"
    proc = subprocess.Popen([*cmd, "--out", str(out1), "--name", "one", *RUN], env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    _kill_when(proc, lambda: 4 <= _count(db, "one") < 24, "self-play")
    stored = _count(db, "one")
    r = banmen(env, "train", "--resume", "one", "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert _count(db, "one") >= stored  # nothing stored was lost
    # killed once its first fit is computed, before the candidate is stored
    marker = tmp_path / "fitted"
    e = {**env, "PAUSE": f"fit:{marker}"}
    out2 = tmp_path / "two.npz"
    proc = subprocess.Popen([*cmd, "--out", str(out2), "--name", "two", *RUN], env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    _kill_when(proc, marker.exists, "the fit")
    r = banmen(env, "train", "--resume", "two", "--db", str(db))
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(_weights(out1), _weights(whole))
    np.testing.assert_array_equal(_weights(out2), _weights(whole))
    # the same gate games too, and no worker left behind
    with sqlite3.connect(db) as c:
        rows = dict(c.execute("SELECT name, COUNT(*) FROM train_games GROUP BY name").fetchall())
    assert rows["one"] == rows["two"] == rows["whole"] == 48


def _one_line(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


@pytest.mark.slow
def test_bad_input_is_one_line_and_loses_nothing(env: dict[str, str], tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    base = ["train", "--db", db]
    assert "unknown evaluator 'nope'" in _one_line(
        banmen(env, *base, "subtract4", "nope", "--out", str(tmp_path / "x.npz"))
    )
    assert "cannot be trained" in _one_line(
        banmen(env, *base, "subtract4", "rollout", "--out", str(tmp_path / "x.npz"))
    )
    assert (
        "shogi"
        in _one_line(
            banmen(env, *base, "shogi", "ntuple", "--out", str(tmp_path / "x.npz"))
        ).lower()
    )
    other = tmp_path / "other.npz"  # a weights file of another game
    write_ntuple(other, "connect-four", 6, 7, 3, [(0, 1, 2, 3)])
    line = _one_line(banmen(env, *base, "subtract4", "ntuple", "--from", str(other), "--out",
                            str(tmp_path / "x.npz")))  # fmt: skip
    assert "game=connect-four" in line and "game=subtract4" in line
    shape = tmp_path / "shape.npz"  # this game's, but cells of 3 contents
    write_ntuple(shape, "subtract4", 1, 4, 3, [(0, 1, 2, 3)])
    assert "shape" in _one_line(banmen(env, *base, "subtract4", "ntuple", "--from", str(shape),
                                       "--out", str(tmp_path / "x.npz")))  # fmt: skip
    assert "needs --out" in _one_line(banmen(env, *base, "subtract4", "ntuple"))
    assert "expected mix, search or outcome" in _one_line(
        banmen(
            env, *base, "subtract4", "ntuple", "--out", str(tmp_path / "x.npz"), "--labels", "truth"
        )  # fmt: skip
    )
    assert "expected previous or zero" in _one_line(
        banmen(
            env,
            *base,
            "subtract4",
            "ntuple",
            "--out",
            str(tmp_path / "x.npz"),
            "--damp-toward",
            "up",
        )  # fmt: skip
    )
    assert "a folder" in _one_line(
        banmen(env, *base, "subtract4", "ntuple", "--out", str(tmp_path))
    )
    assert "no training run 'ghost'" in _one_line(banmen(env, *base, "--resume", "ghost"))
    assert "unknown game" in _one_line(banmen(env, *base, "nogame", "ntuple", "--out", "x"))
    # a run, then its name again: refused, and the run stays as it was
    p = banmen(env, *base, "subtract4", "ntuple", "--out", str(tmp_path / "w.npz"), "--name",
               "mine", "--games", "4", "--iterations", "1", "--gate-games", "2", "--workers",
               "1", "--depth", "2")  # fmt: skip
    assert p.returncode == 0, p.stderr
    before = _count(Path(db), "mine")
    assert "exists already" in _one_line(
        banmen(
            env, *base, "subtract4", "ntuple", "--out", str(tmp_path / "w2.npz"), "--name", "mine"
        )  # fmt: skip
    )
    assert _count(Path(db), "mine") == before == 4
    # the disk fills up during self-play: one line, and the games stored stay
    full = banmen(env, *base, "subtract4", "ntuple", "--out", str(tmp_path / "f.npz"),
                  "--name", "full", "--games", "12", "--iterations", "1", "--workers", "1",
                  "--depth", "2", pause="full:2")  # fmt: skip
    assert full.returncode == 2 and "Traceback" not in full.stderr
    errors = [line for line in full.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and "disk is full" in errors[0] and "--resume full" in errors[0]
    stored = _count(Path(db), "full")
    assert 2 <= stored < 12  # the first two batches
    again = banmen(env, *base, "--resume", "full")
    assert again.returncode == 0, again.stderr
    assert _count(Path(db), "full") == 12  # the rest, none twice
    listed = banmen(env, "train", "list", "--db", db)
    assert "mine" in listed.stdout and "subtract4 ntuple" in listed.stdout


@pytest.mark.slow
def test_a_run_on_a_local_dask_cluster_stores_the_same_games(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``--cluster local:2`` plays the self-play on Dask: the games stored are the ones
    local workers store (each a function of its seed), and the run closes its cluster."""
    pytest.importorskip("distributed")
    rows = {}
    for where in (["--workers", "1"], ["--cluster", "local:2"]):
        db = tmp_path / f"{where[0][2:]}.db"
        p = banmen(env, "train", "subtract4", "ntuple", "--out", str(tmp_path / "w.npz"),
                   "--db", str(db), "--name", "c", "--games", "8", "--iterations", "1",
                   "--gate-games", "4", "--depth", "2", "--seed", "3", *where)  # fmt: skip
        assert p.returncode == 0, p.stdout + p.stderr
        with sqlite3.connect(db) as c:
            rows[where[0]] = c.execute("SELECT game, seed, states, moves, best FROM train_games "
                                       "ORDER BY game").fetchall()  # fmt: skip
    assert len(rows["--workers"]) == 8
    assert rows["--workers"] == rows["--cluster"]
