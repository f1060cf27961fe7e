"""The power of a chi-square test: how surely it rejects a given wrong implementation.

Under an alternative, Pearson's statistic over n runs is approximately noncentral chi-square with
the test's degrees of freedom and noncentrality lambda = n * sum_i (p_i - pi_i)^2 / pi_i (Cochran
1952), which grows linearly with n; its mean is df + lambda. A wrong implementation's statistic at
the suite's own seed therefore estimates lambda as statistic - df, and the power of the test at level
alpha is P(chi2'(df, lambda) >= the central chi-square's critical value at alpha). The survival
function is the Poisson mixture of central ones (Johnson, Kotz and Balakrishnan, ch. 29):

    P(chi2'(df, lambda) >= x) = sum_j e^(-lambda/2) (lambda/2)^j / j! * Q(df/2 + j, x/2).

tests/support/test_shared_power.py checks it against the closed form at 1 degree of freedom
((Z + sqrt(lambda))^2) and against simulation.
"""

from __future__ import annotations

import math

from tests.shared.statistics import chi_square_sf, regularized_upper_gamma

_NEGLIGIBLE = 1e-17  # a Poisson weight below this, past the mode, changes no digit of the sum


def critical_value(alpha: float, df: int) -> float:
    """The x at which a central chi-square with ``df`` degrees of freedom has P(X >= x) = alpha.

    >>> round(critical_value(0.05, 1), 4), round(critical_value(1e-3, 20), 3)
    (3.8415, 45.315)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"a level must lie in (0, 1); got {alpha}")
    low, high = 0.0, float(df) + 10.0
    while chi_square_sf(high, df) > alpha:
        low, high = high, 2.0 * high
    for _ in range(200):  # bisection to double precision
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        low, high = (middle, high) if chi_square_sf(middle, df) > alpha else (low, middle)
    return 0.5 * (low + high)


def noncentral_chi_square_sf(x: float, df: int, noncentrality: float) -> float:
    """P(X >= x) for X noncentral chi-square with ``df`` degrees of freedom and the given noncentrality."""
    if noncentrality < 0 or not math.isfinite(noncentrality):
        raise ValueError(f"a noncentrality must be finite and >= 0; got {noncentrality}")
    if noncentrality == 0:
        return chi_square_sf(x, df)
    half, x = noncentrality / 2.0, max(float(x), 0.0)
    if x == 0:
        return 1.0

    def term(j: int) -> tuple[float, float]:
        weight = math.exp(-half + j * math.log(half) - math.lgamma(j + 1))
        return weight, weight * regularized_upper_gamma(df / 2.0 + j, x / 2.0)

    mode, total = int(half), 0.0
    for steps in (range(mode, -1, -1), range(mode + 1, mode + 100_000)):  # from the mode outwards, both ways
        for j in steps:
            weight, value = term(j)
            total += value
            if weight < _NEGLIGIBLE:
                break
    return min(1.0, total)


def estimated_power(statistic: float, df: int, alpha: float, scale: float = 1.0) -> float:
    """The plug-in power at level alpha against the implementation that scored ``statistic``:
    noncentrality estimated as max(statistic - df, 0), times ``scale`` (runs wanted / runs made).

    >>> round(estimated_power(104.0, 24, 1e-3), 3), round(estimated_power(104.0, 24, 1e-3, scale=0.5), 2)
    (0.999, 0.81)
    """
    return noncentral_chi_square_sf(critical_value(alpha, df), df, max(statistic - df, 0.0) * scale)
