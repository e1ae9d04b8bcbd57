"""Small statistics used by benchmarks and the arena (textbook formulas, no SciPy)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

__all__ = ["z_value", "wilson", "mean_ci", "elo_from_score", "score_from_elo"]


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
    return (max(0.0, centre - half), min(1.0, centre + half))


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
