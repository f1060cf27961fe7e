"""Statistics for the grading suites and their margin gates: Pearson's chi-square and its p-value.

One exact survival function of the chi-square distribution for any degrees of freedom, with no
scipy: P(X >= x) for X ~ chi-square(df) is the regularised upper incomplete gamma function
Q(df/2, x/2), computed from math.lgamma with the power series of the lower function where it
converges fast (x < a + 1) and Lentz's continued fraction of the upper one elsewhere (as in
Numerical Recipes, section 6.2). tests/support/test_shared_statistics.py checks it against the
closed forms and tabulated quantiles.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

_EPS = 1e-16  # relative size of the last term or step: past double precision
_TINY = 1e-300  # keeps the continued fraction's denominators off zero
_MAX_TERMS = 10_000
_RECORDS: list[list[tuple[float, int, float]]] = []  # open recorded_tests() blocks, innermost last


def _prefactor(a: float, x: float) -> float:
    """x^a e^-x / Γ(a), in logs so that large a or x neither overflows nor loses digits."""
    return math.exp(a * math.log(x) - x - math.lgamma(a))


def _lower_series(a: float, x: float) -> float:
    """P(a, x) = x^a e^-x / Γ(a + 1) · Σ_n x^n / ((a + 1) ... (a + n))."""
    term = total = 1.0 / a
    for n in range(1, _MAX_TERMS):
        term *= x / (a + n)
        total += term
        if abs(term) < abs(total) * _EPS:
            return total * _prefactor(a, x)
    raise ArithmeticError(f"the series of P({a}, {x}) did not converge")


def _upper_continued_fraction(a: float, x: float) -> float:
    """Q(a, x) = x^a e^-x / Γ(a) · 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))), by Lentz."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    fraction = d
    for n in range(1, _MAX_TERMS):
        an = -n * (n - a)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = b + an / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        fraction *= step
        if abs(step - 1.0) < _EPS:
            return fraction * _prefactor(a, x)
    raise ArithmeticError(f"the continued fraction of Q({a}, {x}) did not converge")


def regularized_upper_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a) for a > 0, x >= 0."""
    if not a > 0 or not x >= 0:
        raise ValueError(f"Q(a, x) needs a > 0 and x >= 0; got a = {a}, x = {x}")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_continued_fraction(a, x))


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``df`` degrees of freedom: the p-value."""
    if df < 1:
        raise ValueError(f"a chi-square test needs at least 1 degree of freedom; got {df}")
    pvalue = regularized_upper_gamma(df / 2.0, max(float(statistic), 0.0) / 2.0)
    for record in _RECORDS:
        record.append((float(statistic), df, pvalue))
    return pvalue


@contextmanager
def recorded_tests() -> Iterator[list[tuple[float, int, float]]]:
    """Every (statistic, degrees of freedom, p-value) that chi_square_sf computes inside the block, in
    order: how the margin gate reads a test's statistic behind the p-value it returns (its power)."""
    record: list[tuple[float, int, float]] = []
    _RECORDS.append(record)
    try:
        yield record
    finally:
        assert _RECORDS.pop() is record, "recorded_tests() blocks must nest"


def pearson_statistic(counts, expected) -> float:
    """Σ (observed − expected)² / expected over the bins (every expected count must be positive)."""
    counts, expected = np.asarray(counts, dtype=float), np.asarray(expected, dtype=float)
    return float(((counts - expected) ** 2 / expected).sum())


def chi_square_test(counts, probs) -> tuple[float, int, float, list[int]]:
    """Pearson's goodness of fit of ``counts`` to ``probs``: the statistic over the tokens probs
    allows, its degrees of freedom, the p-value, and the tokens observed where probs is 0 (any
    such token fails outright: p-value 0)."""
    counts, probs = np.asarray(counts, dtype=float), np.asarray(probs, dtype=float)
    impossible = [int(t) for t in np.flatnonzero((probs == 0) & (counts > 0))]
    support = probs > 0
    statistic = pearson_statistic(counts[support], counts.sum() * probs[support])
    df = int(support.sum()) - 1
    pvalue = 0.0 if impossible else chi_square_sf(statistic, df)
    return statistic, df, pvalue, impossible


RARE_COUNT = 5.0  # Cochran's rule: the chi-square approximation wants every expected count at about 5 or more


def pooled_chi_square(counts, law: dict, runs: int, rare: float = RARE_COUNT) -> tuple[float, int, float]:
    """Pearson's goodness of fit of the outcomes counted in ``counts`` (a mapping outcome -> count)
    to ``law`` (outcome -> exact probability, every one positive), over ``runs`` draws: the
    statistic, its degrees of freedom and the p-value. Outcomes expected fewer than ``rare`` times
    are pooled into one bin, so that no cell of a few tenths of a count decides the verdict alone.
    An outcome counted that the law does not hold fails outright (statistic infinity, p-value 0).

    >>> round(pooled_chi_square({"a": 60, "b": 40}, {"a": 0.5, "b": 0.5}, 100)[2], 4)   # chi2 = 4, 1 df
    0.0455
    >>> pooled_chi_square({"a": 50, "b": 47, "c": 1, "d": 2}, {"a": 0.5, "b": 0.47, "c": 0.02, "d": 0.01}, 100)[:2]
    (0.0, 2)
    """
    if any(outcome not in law for outcome in counts):
        return math.inf, max(len(law) - 1, 1), 0.0
    common = [outcome for outcome, chance in law.items() if chance * runs >= rare]
    rare_outcomes = [outcome for outcome in law if outcome not in common]
    observed = [counts.get(outcome, 0) for outcome in common]
    expected = [runs * law[outcome] for outcome in common]
    if rare_outcomes:
        observed.append(sum(counts.get(outcome, 0) for outcome in rare_outcomes))
        expected.append(runs * sum(law[outcome] for outcome in rare_outcomes))
    statistic = pearson_statistic(observed, expected)
    df = len(observed) - 1
    return statistic, df, chi_square_sf(statistic, df)
