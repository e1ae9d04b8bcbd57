"""Statistics against textbook values."""

from __future__ import annotations

import math

import pytest

from banmen.stats import elo_from_score, mean_ci, score_from_elo, wilson, z_value


def test_z_value() -> None:
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)


def test_wilson_textbook_values() -> None:
    # Newcombe (1998), Table I: 81 successes of 263 -> 0.2553 to 0.3662.
    lo, hi = wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    # 15 of 148 -> 0.0624 to 0.1605 (same table).
    lo, hi = wilson(15, 148)
    assert (round(lo, 4), round(hi, 4)) == (0.0624, 0.1605)
    # Extremes stay inside [0, 1]; 0 of 10 gives upper bound 0.2775.
    lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and round(hi, 4) == 0.2775
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_elo_from_score() -> None:
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(10 / 11) == pytest.approx(400, abs=1e-9)  # 10:1 odds = 400 Elo
    for elo in (-300, -50, 0, 120, 700):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    with pytest.raises(ValueError):
        elo_from_score(1.0)


def test_mean_ci() -> None:
    m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    sd = math.sqrt(5 / 3)
    assert m == 2.5
    assert hi - m == pytest.approx(1.959964 * sd / 2, abs=1e-6)
    assert m - lo == pytest.approx(hi - m)
    with pytest.raises(ValueError):
        mean_ci([])


@pytest.mark.parametrize("n", [1, 2, 3, 10, 40, 100, 1000, 12345])
def test_wilson_bounds_are_exact_at_no_and_all_successes(n: int) -> None:
    # Computed, 0/40 gave a lower bound of 7e-18 (an Elo of -6863 instead of -infinity).
    lo, hi = wilson(0, n)
    assert lo == 0.0 and 0 < hi < 1
    lo, hi = wilson(n, n)
    assert hi == 1.0 and 0 < lo < 1
    # Half-points and the other bounds are untouched.
    lo, hi = wilson(0.5, n)
    assert 0 < lo < 0.5 / n < hi < 1
