"""The pieces of ``banmen train`` that need no game (issue 38): the fit recovers known
weights, the held-out games are one in ten, labels follow their rule, a ``ctx`` and a
state survive the database, and the SPRT does not decide on two pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from banmen.stats import sprt_bounds, sprt_llr
from banmen.train.fit import Labels, fit_weights, label_of
from banmen.train.selfplay import SelfPlayGame, pack_ctx, state_of, state_row, unpack_ctx

N_WEIGHTS = 40
WIDTH = 5


def _game(index: int, rng: np.random.Generator, truth: np.ndarray) -> SelfPlayGame:
    """A 'game' of 30 positions whose state is its feature row; its labels are the true
    linear values (search) and their sign times 10 (outcome)."""
    rows = rng.integers(0, N_WEIGHTS, size=(30, WIDTH))
    rows[:, -1] = np.where(rng.random(30) < 0.3, -1, rows[:, -1])  # some padding
    value = np.where(rows >= 0, truth[rows], 0.0).sum(axis=1)
    return SelfPlayGame(index, index, pack_ctx(np.zeros(1, np.int64)), ["int64"] * WIDTH,
                        rows.astype(np.int64), value, np.sign(value) * 10.0,
                        np.zeros(30, dtype=bool), 0.5)  # fmt: skip


def _features(ctx: Any, states: list[tuple[Any, ...]]) -> np.ndarray:
    return np.array([[int(x) for x in st] for st in states], dtype=np.int64)


def test_the_fit_recovers_known_weights_and_holds_one_game_in_ten_out(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    truth = rng.normal(0, 5, N_WEIGHTS)
    games = [_game(i, rng, truth) for i in range(60)]
    r = fit_weights(((g, False) for g in games), _features, N_WEIGHTS, np.zeros(N_WEIGHTS),
                    tmp_path, Labels("search"), damp=0.01, iter_lim=500)  # fmt: skip
    np.testing.assert_allclose(r.weights, truth, atol=0.05)
    assert r.positions == 60 * 30 and r.held_out == 6 * 30  # games 9, 19, ... 59
    assert max(r.rmse) < 0.2 < min(r.rmse_before)  # held out, the new weights predict it
    assert list(tmp_path.iterdir()) == []  # the feature rows are removed


def test_the_damping_pulls_toward_the_weights_the_iteration_starts_from(tmp_path: Path) -> None:
    """A weight no position picks keeps the ``center``'s value (zero without one); the
    weights the positions pick are fitted as before."""
    rng = np.random.default_rng(5)
    truth = rng.normal(0, 5, N_WEIGHTS)
    truth[0] = 0.0
    games = [_game(i, rng, truth) for i in range(40)]
    for g in games:  # no position picks weight 0 (it was worth nothing: the labels hold)
        g.states[g.states == 0] = -1
    center = rng.normal(0, 5, N_WEIGHTS)
    fits = {}
    for name, c in (("zero", None), ("center", center)):
        fits[name] = fit_weights(((g, False) for g in games), _features, N_WEIGHTS,
                                 np.zeros(N_WEIGHTS), tmp_path, Labels("search"), damp=1.0,
                                 iter_lim=500, center=c).weights  # fmt: skip
    assert abs(fits["zero"][0]) < 1e-9
    assert fits["center"][0] == pytest.approx(center[0])
    # the labels are made with the true weight 0 nowhere: the others are found either way
    np.testing.assert_allclose(fits["center"][1:], truth[1:], atol=0.3)
    np.testing.assert_allclose(fits["zero"][1:], truth[1:], atol=0.3)


def test_labels_follow_their_rule() -> None:
    g = SelfPlayGame(0, 0, b"", ["int64"], np.zeros((3, 1), np.int64),
                     np.array([4.0, -2.0, 8.0]), np.array([10.0, 10.0, -10.0]),
                     np.array([False, False, True]), 1.0)  # fmt: skip
    assert label_of(g, False, Labels("mix")).tolist() == [7.0, 4.0, 8.0]  # exact kept
    assert label_of(g, True, Labels("mix")).tolist() == [10.0, 10.0, 8.0]  # zero: outcome
    assert label_of(g, False, Labels("search")).tolist() == [4.0, -2.0, 8.0]
    assert label_of(g, False, Labels("outcome")).tolist() == [10.0, 10.0, 8.0]


@pytest.mark.parametrize(
    "ctx", [np.arange(3, dtype=np.int64), (np.ones(2, np.int32), np.int64(7)), np.int64(5)]
)
def test_a_ctx_survives_the_database(ctx: Any) -> None:
    back = unpack_ctx(pack_ctx(ctx))
    if isinstance(ctx, tuple):
        assert isinstance(back, tuple) and len(back) == len(ctx)
        for a, b in zip(ctx, back, strict=True):
            np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_array_equal(back, ctx)


def test_an_unsigned_state_survives_the_database() -> None:
    st = (np.uint64(2**63 + 5), np.uint64(3), np.int64(-1))
    row = np.array(state_row(st), dtype=np.int64)
    back = state_of(row, ["uint64", "uint64", "int64"])
    assert back == st and [type(x) for x in back] == [np.uint64, np.uint64, np.int64]


def test_two_lost_pairs_decide_nothing_a_hundred_do() -> None:
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo < sprt_llr([0.0, 0.0], 0, 40) < hi
    assert sprt_llr([0.0] * 100, 0, 40) < lo


def test_banmen_players_says_which_evaluators_train() -> None:
    from typer.testing import CliRunner

    from banmen.cli import app

    out = CliRunner().invoke(app, ["players", "othello"]).output
    lines = {line.strip().split(":")[0]: line for line in out.splitlines()}
    assert "[banmen train othello patterns]" in lines["patterns"]
    assert "[banmen train othello ntuple]" in lines["ntuple"]
    assert "banmen train" not in lines["handset"] and "banmen train" not in lines["rollout"]
    go = CliRunner().invoke(app, ["players", "go"]).output
    policy = [line for line in go.splitlines() if line.strip().startswith("policy:")]
    assert len(policy) == 1 and "[banmen train go policy]" in policy[0]
