"""The suites' thresholds that are not a chi-square p-value have room to spare as well.

Like test_margins_chi_square.py, for the rest: a training run's rise in α (exercise 11), the
number of rows that reach exercise 08's last position (the chi-square there needs them), each
rule's simulation of exercise 06 against the other rule's distribution (power), and a z-test that
ties exercises 01, 02 and 03 together: the mean number of tokens exercise 01's reference emits per
step sits on exercise 03's formula with exercise 02's α.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests import test_06_exactness_proof as ex06
from tests import test_11_distill_draft as ex11
from tests.maintainer.reference_solutions import solution
from tests.reference import ex08_checks as ex08
from tests.reference.ex06_reference import simulate_first_tokens
from tests.shared.statistics import chi_square_test

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_06_simulation_rejects_the_other_rule():
    """Power: each rule's simulation is far from the OTHER rule's distribution at the same seed."""
    output_distribution = solution("ex06_exactness_proof.py", "output_distribution")
    for simulated, claimed in (("exact", "resample_from_target"), ("resample_from_target", "exact")):
        counts = simulate_first_tokens(ex06.STAT_P, ex06.STAT_Q, simulated, ex06.STAT_RUNS, ex06.STAT_SEEDS[simulated])
        _, _, pvalue, _ = chi_square_test(counts, output_distribution(ex06.STAT_P, ex06.STAT_Q, claimed))
        assert pvalue < 1e-12, f"{simulated!r} simulated vs {claimed!r} claimed: p-value {pvalue:.3g}"


def test_08_enough_rows_reach_the_last_position():
    verifier = solution("ex08_batched_verifier.py", "speculative_step_batched")
    emitted = [count for count, _, _ in ex08.position_pvalues(verifier, ex08.STAT_ROWS, ex08.STAT_SEED)]
    assert min(emitted) > 5_000, f"too few rows reach the last position for the test to have power: {emitted}"


def test_11_small_run_margin():
    windows = {"train64": ex11.text_windows("train", 64), "held64": ex11.text_windows("held_out", 64, limit=16)}
    before, after, losses = ex11.small_run(solution("ex11_distill_draft.py", "distill"), ex11.load_target(), windows)
    assert after - before > 2 * ex11.SMALL_RISE, f"the reference raises α by only {after - before:.4f} (threshold {ex11.SMALL_RISE})"
    assert sum(losses[-10:]) < 0.9 * sum(losses[:10]), f"the reference's loss barely falls: {losses[:3]} ... {losses[-3:]}"


MC_P = np.array([0.35, 0.25, 0.2, 0.1, 0.1])  # one (p, q) pair repeated at every position,
MC_Q = np.array([0.1, 0.3, 0.3, 0.2, 0.1])  # so α is the same at each: the formula's assumption
MC_GAMMA, MC_RUNS, MC_SEED, MC_Z = 4, 20_000, 3003, 4.0


def test_01_mean_tokens_per_step_sits_on_the_03_formula():
    """Statistic: z = (mean tokens per step − E(α, γ)) / (σ / √N), with σ² the exact variance of
    the token count (P(count = k + 1) = α^k (1 − α) for k < γ, P(count = γ + 1) = α^γ).
    N = 20,000 steps of exercise 01's reference with γ = 4 and drafts sampled from q, seed 3003.
    Threshold: |z| < 4."""
    speculative_step = solution("ex01_speculative_step.py", "speculative_step")
    alpha = solution("ex02_acceptance_rate.py", "acceptance_rate")(MC_P, MC_Q)
    expected = solution("ex03_speedup.py", "expected_tokens_per_pass")(alpha, MC_GAMMA)
    p, q = np.tile(MC_P, (MC_GAMMA + 1, 1)), np.tile(MC_Q, (MC_GAMMA, 1))
    gen = np.random.default_rng(MC_SEED)
    drafts = gen.choice(len(MC_Q), size=(MC_RUNS, MC_GAMMA), p=MC_Q)
    counts = np.array([len(speculative_step(p, q, draft.tolist(), gen)) for draft in drafts])
    probabilities = [alpha**k * (1 - alpha) for k in range(MC_GAMMA)] + [alpha**MC_GAMMA]
    values = np.arange(1, MC_GAMMA + 2)
    assert math.isclose(float(np.dot(probabilities, values)), expected, rel_tol=1e-12)
    sigma = math.sqrt(float(np.dot(probabilities, (values - expected) ** 2)))
    z = (counts.mean() - expected) / (sigma / math.sqrt(MC_RUNS))
    assert abs(z) < MC_Z, f"mean {counts.mean():.4f} tokens per step vs E = {expected:.4f}: z = {z:.2f}"
