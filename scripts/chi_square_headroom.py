"""How far above its power each chi-square test's sample is: the fewest draws, as a fraction of today's.

    .venv/bin/python scripts/chi_square_headroom.py [--exercises 23,27]

For every test registered in tests/maintainer/chi_square_checks.py and every biased wrong version
(tests/mutants/) that must fail it, it runs the suite's own statistic on that version once (as the
margin gate does) and finds the smallest fraction s of the test's draws, in steps of 0.01, at which
the gate would still pass it: power >= 0.99 at the test's threshold (tests/shared/power.py, the
noncentrality scaled by s) and the expected statistic's p-value below the threshold times 1e-3. It
prints each test's largest such fraction over its wrong versions. A fraction far below 1 says the
sample could shrink against the wrong versions written so far, not against a subtler bias.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from speckata.grading import GradingFailure
from speckata.manifest import exercise_by_id
from tests.maintainer.chi_square_checks import CHECKS
from tests.maintainer.reference_solutions import solution
from tests.maintainer.test_margins_chi_square import MIN_POWER, POWER
from tests.maintainer.test_mutants import load_mutants, materialise
from tests.shared.power import estimated_power
from tests.shared.statistics import chi_square_sf, recorded_tests


def fewest_fraction(statistic: float, df: int, alpha: float) -> float:
    for hundredths in range(1, 101):
        fraction = hundredths / 100
        expected_p = chi_square_sf(df + max(statistic - df, 0.0) * fraction, df)
        if estimated_power(statistic, df, alpha, scale=fraction) >= MIN_POWER and expected_p < alpha * POWER:
            return fraction
    return 1.0


def headroom(exercises: set[str] | None) -> dict[str, float]:
    worst: dict[str, float] = {}
    for param in load_mutants():
        exercise_id, mutant = param.values
        if exercises and exercise_id[:2] not in exercises:
            continue
        for check in CHECKS:
            if check.exercise != exercise_id or check.test not in mutant.get("must_fail", []):
                continue
            with tempfile.TemporaryDirectory() as scratch:  # a copy of solutions/ with the one change
                folder = Path(scratch) / "mutant"
                materialise(exercise_id, mutant, folder)
                function = solution(exercise_by_id(exercise_id).file, check.function, folder=folder)
                try:
                    with recorded_tests() as tests:
                        pvalue = check.pvalue(function)
                except GradingFailure:
                    print(f"{check.id} {mutant['name']}: fails before any statistic")
                    continue
            scored = [(statistic, df) for statistic, df, p in tests if p == pvalue]
            if not scored:
                print(f"{check.id} {mutant['name']}: an outcome the target cannot produce (p = {pvalue})")
                continue
            statistic, df = scored[0]
            fraction = fewest_fraction(statistic, df, check.alpha)
            worst[check.id] = max(worst.get(check.id, 0.0), fraction)
            print(f"{check.id} {mutant['name']}: chi-square {statistic:.1f} on {df} df, fewest draws {fraction:.2f}",
                  flush=True)
    return worst


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", default=None, help="comma-separated two-digit numbers (default: all)")
    args = parser.parse_args(argv)
    worst = headroom(set(args.exercises.split(",")) if args.exercises else None)
    print("\nfewest draws, as a fraction of today's, over each test's wrong versions:")
    for name, fraction in worst.items():
        print(f"  {fraction:.2f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
