"""Exercises 10-12: the reference clears every statistical or budgeted check with room to spare.

Like tests/maintainer/test_statistical_margins.py: a test whose threshold the reference only just
clears would flip on a harmless change of seed or machine. The power of each check against a
biased implementation is shown by the mutant gate (must_fail in tests/mutants/ex1[0-2]_*.toml).
"""

from __future__ import annotations

import pytest

from tests.maintainer.reference_solutions import solution
from tests import test_10_speculative_generate as ex10
from tests import test_11_distill_draft as ex11
from tests import test_12_cross_tokenizer as ex12

COMFORT = 0.05  # the reference's p-value must exceed this (the suites reject below 1e-3)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_10_sequence_chi_square_margin():
    statistic, pvalue, _ = ex10.sequence_chi_square(solution("ex10_speculative_generate.py", "speculative_generate"))
    assert pvalue > COMFORT, f"reference chi-square {statistic:.1f}, p-value {pvalue:.3g}: too close to {ex10.STAT_ALPHA}"


def test_11_small_run_margin():
    windows = {"train64": ex11.text_windows("train", 64), "held64": ex11.text_windows("held_out", 64, limit=16)}
    before, after, losses = ex11.small_run(solution("ex11_distill_draft.py", "distill"), ex11.load_target(), windows)
    assert after - before > 2 * ex11.SMALL_RISE, f"the reference raises α by only {after - before:.4f} (threshold {ex11.SMALL_RISE})"
    assert sum(losses[-10:]) < 0.9 * sum(losses[:10]), f"the reference's loss barely falls: {losses[:3]} ... {losses[-3:]}"


def test_12_first_token_chi_square_margin():
    statistic, pvalue, _ = ex12.first_token_chi_square(solution("ex12_cross_tokenizer.py", "verify_proposal"))
    assert pvalue > COMFORT, f"reference chi-square {statistic:.1f}, p-value {pvalue:.3g}: too close to {ex12.STAT_ALPHA}"


def test_12_sequence_chi_square_margin():
    statistic, pvalue, _ = ex12.sequence_chi_square(solution("ex12_cross_tokenizer.py", "cross_tokenizer_generate"))
    assert pvalue > COMFORT, f"reference chi-square {statistic:.1f}, p-value {pvalue:.3g}: too close to {ex12.STAT_ALPHA}"
