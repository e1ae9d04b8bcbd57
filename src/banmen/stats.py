"""Small statistics used by benchmarks and the arena (textbook formulas, no SciPy)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

__all__ = [
    "z_value",
    "wilson",
    "mean_ci",
    "elo_from_score",
    "score_from_elo",
    "bradley_terry",
    "sprt_llr",
    "sprt_bounds",
]

ELO_PER_NAT = 400 / math.log(10)  #: Elo points per unit of logistic strength


def z_value(confidence: float = 0.95) -> float:
    """Two-sided normal quantile: 1.959963... for 95%."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion (Wilson 1927).

    ``successes`` may be fractional (draws counted as half a win).

    >>> lo, hi = wilson(8, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.4902, 0.9433)
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {successes}")
    z = z_value(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 (or 1) the bound is exactly 0 (or 1); computed, it is off by a rounding
    # error, which an Elo conversion turns into a finite -6863 instead of -infinity.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and its normal-approximation confidence interval ``(mean, lo, hi)``."""
    n = len(values)
    if n == 0:
        raise ValueError("mean of no values")
    m = math.fsum(values) / n
    if n == 1:
        return (m, m, m)
    var = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    half = z_value(confidence) * math.sqrt(var / n)
    return (m, m - half, m + half)


def elo_from_score(score: float) -> float:
    """Elo difference implied by an expected score in (0, 1) (logistic model).

    >>> round(elo_from_score(0.75), 1)
    190.8
    """
    if not 0 < score < 1:
        raise ValueError(f"score must be strictly between 0 and 1, got {score}")
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def bradley_terry(
    n: int,
    results: Sequence[tuple[int, int, float, float]],
    prior_draws: float = 1.0,
    iterations: int = 100,
) -> tuple[list[float], list[list[float]]]:
    """Elo ratings of ``n`` players fitted to all pairwise results at once.

    ``results`` holds ``(i, j, points_i, games)`` rows (draws count half a point). The
    model is Bradley–Terry / logistic Elo, fitted by maximum likelihood with Newton's method;
    player 0 is the anchor (rating 0). ``prior_draws`` virtual draws per pairing (as in
    BayesElo's prior) keep ratings finite when one side won every game.

    Returns the ratings and their covariance matrix (Elo², from the inverse Fisher
    information), so ``var(r_i - r_j) = C_ii + C_jj - 2 C_ij``.
    """
    import numpy as np  # only this fit needs it: the arena's light commands load stats

    games = np.zeros((n, n))
    points = np.zeros((n, n))
    for i, j, p, g in results:
        if i == j:
            continue
        games[i, j] += g
        games[j, i] += g
        points[i, j] += p
        points[j, i] += g - p
    met = games > 0
    games[met] += prior_draws
    points[met] += prior_draws / 2
    theta = np.zeros(n)
    free = np.arange(1, n)
    cov = np.zeros((n, n))
    for _ in range(iterations):
        diff = theta[:, None] - theta[None, :]
        prob = 1 / (1 + np.exp(-diff))
        grad = (points - games * prob).sum(axis=1)
        w = games * prob * (1 - prob)
        hess = w.copy()
        np.fill_diagonal(hess, -w.sum(axis=1))
        h = hess[np.ix_(free, free)]
        try:
            step = np.linalg.solve(h, grad[free])
        except np.linalg.LinAlgError:
            break
        theta[free] -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    diff = theta[:, None] - theta[None, :]
    prob = 1 / (1 + np.exp(-diff))
    w = games * prob * (1 - prob)
    info = -w.copy()
    np.fill_diagonal(info, w.sum(axis=1))
    try:
        cov[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)])
    except np.linalg.LinAlgError:
        cov[:] = float("inf")
    ratings = [float(t * ELO_PER_NAT) for t in theta]
    cov_elo = (cov * ELO_PER_NAT**2).tolist()
    return ratings, cov_elo


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Log-likelihood-ratio bounds (Wald): accept H0 at or below the first, H1 at or above
    the second."""
    return (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def sprt_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalised SPRT log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``).

    ``scores`` are independent score samples in [0, 1] — here the mean score of each
    *pair* of games (the pentanomial model, right for paired openings). Uses the normal
    approximation of the GSPRT (Van den Bergh): ``N (s1 - s0)(2 m - s0 - s1) / (2 v)`` with
    ``m``, ``v`` the sample mean and variance and ``s0``, ``s1`` the expected scores.
    The variance is taken as at least ``1 / (8 N)``: a few pairs that all scored alike
    (two lost pairs) are a small sample, not proof — with a floor that does not shrink,
    their zero variance made the ratio pass any bound after two pairs.

    >>> round(sprt_llr([0.0, 0.0], 0, 20), 2)   # two lost pairs: no decision yet
    -0.47
    """
    n = len(scores)
    if n == 0:
        return 0.0
    m = math.fsum(scores) / n
    v = math.fsum((x - m) ** 2 for x in scores) / n
    v = max(v, 1 / (8 * n))  # all-equal samples: evidence as strong as the sample is large
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)
