"""Every chi-square test of the suites has room on both sides: the reference passes it far above
its threshold, and every biased mutant fails it far below.

Margin: a test whose threshold the reference only just clears would flip on any harmless change
of seed or sample size, so the reference's p-value at the suite's own seed must exceed COMFORT
(0.05, fifty times the suites' usual 1e-3). Power: every mutant in tests/mutants/*.toml whose
must_fail names the test must score a p-value below the test's threshold times POWER (1e-3), so
a smaller sample is shown to still reject the bias it is there to catch (a mutant that crashes
during the runs fails the test before any statistic, which passes this gate too). The tests and how each
computes its p-value are registered in chi_square_checks.py.

Power, stated: the mutant's statistic at the suite's seed estimates the noncentrality of its
statistic's law (statistic - df; tests/shared/power.py), and the chance that the test, at the
suite's own sample size and threshold, rejects that mutant on ANY seed must be at least
MIN_POWER (0.99). A realised p-value far below the threshold at one seed is not enough alone: it
could be a lucky draw of a test that usually passes the mutant.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from speckata.grading import GradingFailure
from speckata.manifest import exercise_by_id, load_manifest
from tests.maintainer.chi_square_checks import CHECKS, ChiSquareCheck
from tests.maintainer.reference_solutions import solution
from tests.maintainer.test_mutants import load_mutants, materialise
from tests.shared.power import estimated_power
from tests.shared.statistics import recorded_tests

COMFORT = 0.05
POWER = 1e-3
MIN_POWER = 0.99

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def biased_mutants():
    for param in load_mutants():
        exercise_id, mutant = param.values
        for check in CHECKS:
            if check.exercise == exercise_id and check.test in mutant.get("must_fail", []):
                yield pytest.param(check, mutant, id=f"{check.id}:{mutant['name']}")


@pytest.mark.parametrize("check", CHECKS, ids=[check.id for check in CHECKS])
def test_the_reference_clears_the_threshold_with_room(check: ChiSquareCheck):
    pvalue = check.pvalue(solution(exercise_by_id(check.exercise).file, check.function))
    assert pvalue > COMFORT, f"{check.id}: reference p-value {pvalue:.3g} is too close to the threshold {check.alpha:g}"


@pytest.mark.parametrize("check, mutant", list(biased_mutants()))
def test_every_biased_mutant_fails_far_below_the_threshold(check: ChiSquareCheck, mutant, tmp_path):
    materialise(check.exercise, mutant, tmp_path / "mutant")
    function = solution(exercise_by_id(check.exercise).file, check.function, folder=tmp_path / "mutant")
    try:
        with recorded_tests() as tests:
            pvalue = check.pvalue(function)
    except GradingFailure:  # it crashed or returned the wrong shape during the runs: failed all the same
        return
    assert pvalue < check.alpha * POWER, (
        f"{check.id}: mutant {mutant['name']} ({mutant['why']}) scores p = {pvalue:.3g}, not far below the "
        f"threshold {check.alpha:g}: the sample is too small to reject it with confidence"
    )
    scored = [(statistic, df) for statistic, df, p in tests if p == pvalue]
    if not scored:  # no statistic behind it: an outcome the target cannot produce, which fails outright
        assert pvalue == 0.0, f"{check.id}: p = {pvalue:.3g} was not computed by tests/shared/statistics.py"
        return
    statistic, df = scored[0]
    power = estimated_power(statistic, df, check.alpha)
    assert power >= MIN_POWER, (
        f"{check.id}: against mutant {mutant['name']} ({mutant['why']}) the test's power is only {power:.3f} "
        f"(chi-square {statistic:.1f}, {df} degrees of freedom, threshold {check.alpha:g}): on another seed "
        f"it would pass this mutant {1 - power:.1%} of the time; draw more runs"
    )


def test_every_chi_square_test_of_the_suites_is_registered():
    """A suite's test marked statistical whose docstring states a chi-square belongs in CHECKS."""
    registered = {(check.exercise, check.test.split("[")[0]) for check in CHECKS}
    found = set()
    for exercise in load_manifest():
        suite = importlib.import_module(f"tests.{Path(exercise.tests).stem}")
        for name, test in vars(suite).items():
            if not name.startswith("test_") or not callable(test):  # a suite imported by another is a module
                continue
            marks = getattr(test, "pytestmark", [])
            marks = {mark.name for mark in (marks if isinstance(marks, list) else [marks])}
            if "statistical" in marks and "chi-square" in (test.__doc__ or "").lower():
                found.add((exercise.id, name))
    assert found, "no statistical test found: the marks or this scan are broken"
    assert found <= registered, f"chi-square tests missing from chi_square_checks.CHECKS: {sorted(found - registered)}"
