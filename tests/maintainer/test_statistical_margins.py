"""The statistical tests pass the reference with room to spare, so their fixed seeds are not lucky.

A test whose threshold the reference only just clears would flip on any harmless change of the
seed; requiring the reference's p-value to be far above the threshold guards against that.
Each test's power against a biased implementation is shown by the mutant gate (must_fail).
"""

from __future__ import annotations


from tests.maintainer.reference_solutions import solution
from tests import test_01_speculative_step as ex01

COMFORT = 0.05  # the reference's p-value must exceed this (the suites reject below 1e-3)



def test_01_first_token_chi_square_margin():
    counts = ex01.first_token_counts(solution("ex01_speculative_step.py", "speculative_step"), ex01.STAT_RUNS, ex01.STAT_SEED)
    expected = ex01.STAT_RUNS * ex01.STAT_P[0]
    pvalue = ex01.chi_square_df4_pvalue(float(((counts - expected) ** 2 / expected).sum()))
    assert pvalue > COMFORT, f"reference p-value {pvalue:.3g} is too close to the threshold {ex01.STAT_ALPHA}"
