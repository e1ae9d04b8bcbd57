"""``banmen train go policy`` (issue 38): Go's move weights fitted to the choices of
banmen's own tree search.

The fit (fast tier) recovers the level weights that generated sampled choices, keeps a
pattern only once it was chosen often enough, and predicts held-out choices better than
uniform weights; the candidates' log-gammas it computes are the engine's own; the store
keeps the search's choices and reads a file written before it did; a tiny run trains from
zero and its weights play at once (slow tier).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from banmen.train.selfplay import SelfPlayGame, pack_ctx
from banmen.train.store import TrainStore

GROUPS = 8  # banmen.games.go.features.NGROUPS (the module is compiled: imported late)


def _sampled(rng: np.random.Generator, truth: dict[int, np.ndarray], pat3: dict[int, float],
             decisions: int) -> object:  # fmt: skip
    """Decisions among 5-30 candidates each, chosen by the Bradley-Terry model whose
    level log-gammas are ``truth`` (group -> levels) and 3x3 patterns ``pat3``."""
    from banmen.games.go.training import _Choices

    data = _Choices()
    codes = np.array(sorted(pat3), dtype=np.int64)
    for i in range(decisions):
        n = int(rng.integers(5, 31))
        f = np.zeros((n, GROUPS), dtype=np.int64)
        f[:, 0] = rng.choice(codes, size=n)
        f[:, 1] = rng.integers(1, 1 << 20, size=n)  # 12-point codes too rare to learn
        for g, lv in truth.items():
            f[:, g] = rng.integers(0, len(lv), size=n)
        s = np.array([pat3[int(c)] for c in f[:, 0]])
        for g, lv in truth.items():
            s += lv[f[:, g]]
        p = np.exp(s - s.max())
        data.feats.append(f)
        data.counts.append(n)
        data.chosen.append(int(rng.choice(n, p=p / p.sum())))
        data.phase.append(i % 4)
        data.decisions += 1
        data.candidates += n
    return data


def test_the_choice_fit_recovers_the_levels_that_chose() -> None:
    from banmen.games.go import features as F
    from banmen.games.go.training import fit_choices

    rng = np.random.default_rng(3)
    # capture (group 2, 5 levels) and distance (group 6, 17 levels): log-gammas to find
    truth = {2: np.array([0.0, 1.5, 0.8, 0.4, 2.0]), 6: np.linspace(0.0, -1.6, 17)}
    # three 3x3 patterns, each its own canonical form: a weight each, and one rare one
    canon = sorted({F.canonical(c, 8) for c in (0, 1 << 2, 1 << 4, 5 << 2, 9 << 6)})
    pat3 = {c: w for c, w in zip(canon[:3], (0.0, 1.0, -1.0), strict=True)}
    data = _sampled(rng, truth, pat3, 6000)
    w, figures = fit_choices(data, 3, 5, 300, lambda step, n: None)  # type: ignore[arg-type]
    for g, lv in truth.items():
        got = w.levels[g, : len(lv)]
        # a group's levels are known up to a constant (every move has one of each)
        np.testing.assert_allclose(got - got[0], lv - lv[0], atol=0.15)
    assert figures["patterns3"] == 3 and figures["patterns12"] == 0
    learned = {int(c): float(v) for c, v in zip(w.pat3_codes, w.pat3_lg, strict=True)}
    assert abs((learned[canon[1]] - learned[canon[0]]) - 1.0) < 0.15
    assert abs((learned[canon[2]] - learned[canon[0]]) + 1.0) < 0.15

    held = _sampled(np.random.default_rng(4), truth, pat3, 800)
    zero = F.Weights.from_canonical(np.zeros_like(w.levels), {}, {})
    fitted, top1 = held.figures(w)  # type: ignore[attr-defined]
    uniform, _ = held.figures(zero)  # type: ignore[attr-defined]
    assert all(a < b - 0.1 for a, b in zip(fitted, uniform, strict=True)), (fitted, uniform)
    assert all(0.0 < t < 1.0 for t in top1)


def test_the_store_keeps_the_searchs_choices_and_reads_an_older_file(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    # a file from before the choices were kept: no ``best`` column
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE train_games (name TEXT NOT NULL, iteration INTEGER NOT NULL, "
                  "game INTEGER NOT NULL, seed INTEGER NOT NULL, ctx BLOB NOT NULL, types TEXT "
                  "NOT NULL, states BLOB NOT NULL, search BLOB NOT NULL, outcome BLOB NOT NULL, "
                  "exact BLOB NOT NULL, points REAL NOT NULL, moves TEXT NOT NULL, seconds REAL "
                  "NOT NULL, PRIMARY KEY (name, iteration, game))")  # fmt: skip
        c.execute(
            "INSERT INTO train_games VALUES ('r', 0, 0, 1, ?, '[\"int64\"]', ?, ?, ?, ?, "
            "0.5, 'a b', 0.1)",
            (
                pack_ctx(np.zeros(1, np.int64)),
                np.zeros(2, np.int64).tobytes(),
                np.zeros(2, np.float32).tobytes(),
                np.zeros(2, np.float32).tobytes(),
                np.packbits(np.zeros(2, bool)).tobytes(),
            ),
        )
    one = np.zeros(1, dtype=np.float64)
    g = SelfPlayGame(1, 7, pack_ctx(np.zeros(1, np.int64)), ["int64"], np.zeros((1, 1), np.int64),
                     one, one, np.zeros(1, bool), 1.0, ["C3"], 0.2, ["D4"])  # fmt: skip
    with TrainStore(db) as store:
        store.add_games("r", 0, [g])
        old, new = list(store.games("r", [0]))
    assert old.moves == ["a", "b"] and old.best == []
    assert new.moves == ["C3"] and new.best == ["D4"]


@pytest.mark.slow
def test_the_fit_reads_the_weights_as_the_engine_does() -> None:
    from banmen.games.go import features as F
    from banmen.games.go.board import Board
    from banmen.games.go.training import log_gammas

    w = F.weights_for(9)
    rng = np.random.default_rng(8)
    board = Board(9, "chinese", 7.5)
    moves = np.zeros(82, dtype=np.int64)
    feats = np.zeros((82, GROUPS), dtype=np.int64)
    lg = np.zeros(82)
    checked = 0
    for _ in range(40):
        pos = board.position
        n = F.all_features(pos.board, pos.grp, pos.meta, moves, feats)
        m = F.log_gammas(w.arrays(), pos.board, pos.grp, pos.meta, moves.copy(), lg)
        assert m == n
        np.testing.assert_allclose(log_gammas(w, feats[:n]), lg[:n])
        checked += n
        legal = list(board.legal_moves)
        board.push(legal[int(rng.integers(len(legal)))])
    assert checked > 1000


def _banmen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banmen", *args], capture_output=True,
                          text=True, timeout=900)  # fmt: skip


@pytest.mark.slow
def test_go_policy_trains_from_zero_and_plays_at_once(tmp_path: Path) -> None:
    from banmen.games.go.features import Weights

    db, out = str(tmp_path / "t.sqlite3"), tmp_path / "p.npz"
    p = _banmen("train", "run", "go", "policy", "--out", str(out), "--db", db, "--size", "5",
                "--games", "10", "--iterations", "1", "--playouts", "40", "--gate-games", "4",
                "--workers", "1", "--name", "g5")  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    assert "held-out log-loss a choice" in p.stderr
    with TrainStore(db, readonly=True) as store:
        it = store.iterations("g5", weights=True)[0]
        games = list(store.games("g5", [0]))
    assert it.fit is not None and it.fit["error"] == "log-loss" and it.fit["positions"] > 50
    # the search's choice is kept for every position, and is the move played but for the
    # random ones (about one in ten)
    pairs = [(m, b) for g in games for m, b in zip(g.moves, g.best, strict=False)]
    assert len(pairs) == sum(len(g.moves) for g in games)
    assert 0.6 < sum(m == b for m, b in pairs) / len(pairs) < 1.0
    assert it.candidate is not None
    cand = tmp_path / "cand.npz"
    cand.write_bytes(it.candidate)
    w = Weights.load(cand)  # what the evaluator reads: a header, no pickle
    assert np.any(w.levels != 0) and len(w.pat3_codes) > 0
    Weights.load(out)
    match = _banmen("arena", "run", "go", "--size", "5", "--games", "2", "--workers", "1",
                    "--db", str(tmp_path / "a.sqlite3"), "-p",
                    f"trained=mcts:playouts=40+policy:weights={cand}", "-p",
                    "shipped=mcts:playouts=40")  # fmt: skip
    assert match.returncode == 0, match.stdout + match.stderr


@pytest.mark.slow
def test_a_search_option_the_search_has_no_use_for_is_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite3")
    for args, says in ((("go", "policy", "--depth", "3"), "give --playouts"),
                       (("othello", "patterns", "--playouts", "300"), "give --depth")):  # fmt: skip
        p = _banmen("train", "run", *args, "--out", str(tmp_path / "x.npz"), "--db", db)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert p.returncode == 2 and len(lines) == 1 and says in lines[0], p.stderr
        assert "Traceback" not in p.stderr


def test_no_held_out_choice_gives_no_figure() -> None:
    """A run of fewer than ten games holds none out: its held-out figures are empty."""
    from banmen.games.go import features as F
    from banmen.games.go.training import _Choices

    zero = F.Weights.from_canonical(np.zeros((GROUPS, F.MAX_LEVEL)), {}, {})
    assert _Choices().figures(zero) == ([None] * 4, [None] * 4)
