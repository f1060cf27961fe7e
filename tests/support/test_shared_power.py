"""tests/shared/power.py, which states the power of every chi-square test, against known values.

At 1 degree of freedom a noncentral chi-square is (Z + sqrt(lambda))^2, so its tail is
Phi(-sqrt(x) - sqrt(lambda)) + Phi(sqrt(lambda) - sqrt(x)) exactly. At other degrees of freedom
it is the sum of squares of independent normals with means whose squares add to lambda: a
simulation of 200,000 draws (fixed seed) must agree within 5 of its standard errors.
"""

from __future__ import annotations

import doctest
import math
from statistics import NormalDist

import numpy as np
import pytest

from tests.shared import power
from tests.shared.power import critical_value, estimated_power, noncentral_chi_square_sf
from tests.shared.statistics import chi_square_sf

NORMAL = NormalDist()


@pytest.mark.parametrize("noncentrality", [0.5, 4.0, 30.0, 120.0])
def test_one_degree_of_freedom_matches_the_closed_form(noncentrality):
    for x in (0.2, 1.0, 5.0, 20.0, 60.0):
        root, shift = math.sqrt(x), math.sqrt(noncentrality)
        exact = NORMAL.cdf(-root - shift) + NORMAL.cdf(shift - root)
        assert noncentral_chi_square_sf(x, 1, noncentrality) == pytest.approx(exact, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("df, noncentrality, x", [(5, 10.0, 20.0), (24, 80.0, 51.18), (19, 300.0, 360.0)])
def test_other_degrees_of_freedom_match_a_simulation(df, noncentrality, x):
    means = np.zeros(df)
    means[0] = math.sqrt(noncentrality)
    draws = ((np.random.default_rng(20261204).standard_normal((200_000, df)) + means) ** 2).sum(axis=1)
    simulated = float((draws >= x).mean())
    error = math.sqrt(simulated * (1 - simulated) / len(draws))
    assert abs(noncentral_chi_square_sf(x, df, noncentrality) - simulated) < 5 * error + 1e-12


def test_zero_noncentrality_is_the_central_law_and_the_critical_value_inverts_it():
    for df in (1, 4, 24):
        assert noncentral_chi_square_sf(9.0, df, 0.0) == chi_square_sf(9.0, df)
        for alpha in (0.05, 1e-3, 1e-6):
            assert chi_square_sf(critical_value(alpha, df), df) == pytest.approx(alpha, rel=1e-9)


def test_power_grows_with_the_noncentrality_and_with_the_runs():
    powers = [estimated_power(24 + shift, 24, 1e-3) for shift in (0, 20, 40, 80, 160)]
    assert powers == sorted(powers) and powers[0] < 0.01 and powers[-1] > 0.9999
    assert estimated_power(104.0, 24, 1e-3, scale=0.5) < estimated_power(104.0, 24, 1e-3) < estimated_power(104.0, 24, 1e-3, scale=2)
    assert estimated_power(10.0, 24, 1e-3) == estimated_power(24.0, 24, 1e-3)  # a statistic below df: no evidence of bias


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="level"):
        critical_value(0.0, 3)
    with pytest.raises(ValueError, match="noncentrality"):
        noncentral_chi_square_sf(1.0, 3, -1.0)


def test_the_power_doctests_pass():
    result = doctest.testmod(power)
    assert result.attempted >= 2 and result.failed == 0
