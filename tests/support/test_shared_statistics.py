"""tests/shared/statistics.py, which every statistical test and margin gate uses, against known values.

Closed forms: df = 2 gives exp(-x/2); even df the Poisson sum exp(-x/2) Σ_{i<df/2} (x/2)^i / i!;
df = 1 gives erfc(√(x/2)); df = 3 adds √(2x/π)·exp(-x/2). Tabulated quantiles: the chi-square
critical values every statistics table prints. Across the switch from the series to the continued
fraction the recurrence Q(a+1, x) = Q(a, x) + x^a e^-x / Γ(a+1) must hold.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.shared import statistics
from tests.shared.statistics import chi_square_sf, chi_square_test, pooled_chi_square, regularized_upper_gamma

POINTS = (1e-6, 0.01, 0.5, 1.0, 2.0, 3.0, 10.0, 25.0, 30.0, 50.0, 80.0, 150.0, 400.0)


def poisson_tail(x: float, df: int) -> float:
    return math.exp(-x / 2) * sum((x / 2) ** i / math.factorial(i) for i in range(df // 2))


@pytest.mark.parametrize("df", [2, 4, 6, 20, 26, 40])
def test_even_degrees_of_freedom_match_the_closed_form(df):
    for x in POINTS:
        assert chi_square_sf(x, df) == pytest.approx(poisson_tail(x, df), rel=1e-12, abs=1e-300)


def test_one_and_three_degrees_of_freedom_match_the_closed_forms():
    for x in POINTS:
        tail = math.erfc(math.sqrt(x / 2))
        assert chi_square_sf(x, 1) == pytest.approx(tail, rel=1e-12, abs=1e-300)
        assert chi_square_sf(x, 3) == pytest.approx(tail + math.sqrt(2 * x / math.pi) * math.exp(-x / 2), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("statistic, df, pvalue", [
    (3.841458820694124, 1, 0.05), (5.991464547107979, 2, 0.05), (9.487729036781154, 4, 0.05),
    (18.46682695290317, 4, 0.001), (23.209251158954356, 10, 0.01), (45.31474661, 20, 0.001),
])
def test_tabulated_critical_values(statistic, df, pvalue):
    assert chi_square_sf(statistic, df) == pytest.approx(pvalue, rel=1e-8)


@pytest.mark.parametrize("a", [0.3, 1.7, 4.5, 12.25, 60.5])
def test_the_recurrence_holds_on_both_sides_of_the_switch(a):
    for x in (0.1, 1.0, a, a + 0.9, a + 1.1, 2 * a, 5 * a + 3):
        step = math.exp(a * math.log(x) - x - math.lgamma(a + 1))
        assert regularized_upper_gamma(a + 1, x) == pytest.approx(regularized_upper_gamma(a, x) + step, rel=1e-12)


def test_edges_and_bad_arguments():
    assert chi_square_sf(0.0, 4) == 1.0 and chi_square_sf(-1.0, 4) == 1.0
    assert chi_square_sf(5000.0, 4) == 0.0 and chi_square_sf(math.inf, 26) == 0.0
    values = [chi_square_sf(x, 7) for x in POINTS]
    assert values == sorted(values, reverse=True) and all(0.0 <= v <= 1.0 for v in values)
    with pytest.raises(ValueError, match="degree of freedom"):
        chi_square_sf(1.0, 0)
    with pytest.raises(ValueError, match="a > 0"):
        regularized_upper_gamma(0.0, 1.0)


def test_chi_square_test_uses_the_support_and_fails_impossible_tokens():
    statistic, df, pvalue, impossible = chi_square_test([30, 70, 0], [0.3, 0.7, 0.0])
    assert (statistic, df, impossible) == (0.0, 1, []) and pvalue == 1.0
    statistic, df, pvalue, impossible = chi_square_test(np.array([20, 60, 20]), np.array([0.3, 0.7, 0.0]))
    assert impossible == [2] and pvalue == 0.0
    statistic, df, pvalue, _ = chi_square_test([10, 20, 30, 40], [0.25] * 4)
    assert (statistic, df) == (20.0, 3) and pvalue == pytest.approx(chi_square_sf(20.0, 3))


def test_pooled_chi_square_pools_the_rare_outcomes_into_one_bin():
    law = {"a": 0.5, "b": 0.47, "c": 0.02, "d": 0.01}  # over 100 runs c and d are expected 2 and 1 times
    assert pooled_chi_square({"a": 50, "b": 47, "c": 3}, law, 100)[:2] == (0.0, 2)  # c + d: 3 observed, 3 expected
    statistic, df, pvalue = pooled_chi_square({"a": 50, "b": 44, "d": 6}, law, 100)
    assert (statistic, df) == (pytest.approx(9 / 47 + 9 / 3), 2) and pvalue == pytest.approx(chi_square_sf(statistic, 2))
    assert pooled_chi_square({"a": 60, "b": 40}, {"a": 0.5, "b": 0.5}, 100)[:2] == (4.0, 1)  # nothing rare: plain Pearson
    assert pooled_chi_square({"a": 50, "b": 49, "e": 1}, law, 100)[2] == 0.0  # an outcome the law does not hold


def test_the_statistics_doctests_pass():
    import doctest
    result = doctest.testmod(statistics)
    assert result.attempted >= 2 and result.failed == 0
