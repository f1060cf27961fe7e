"""The numpy track's statistical tests (exercises 02 to 06) pass the reference with room to spare.

As in test_statistical_margins.py: the reference's p-value at each suite's fixed seed must be far
above the suite's threshold of 1e-3, so no seed was picked for luck. The last test ties exercises
01, 02 and 03 together: the mean number of tokens exercise 01's reference emits per step sits on
exercise 03's formula with exercise 02's α.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.maintainer.reference_solutions import solution
from tests import test_05_sampling_settings as ex05
from tests import test_06_exactness_proof as ex06
from tests.reference.ex05_reference import chi_square_test, reference_warp
from tests.reference.ex06_reference import simulate_first_tokens

COMFORT = 0.05  # the reference's p-value must exceed this (the suites reject below 1e-3)



def test_05_first_token_chi_square_margin():
    step = solution("ex05_sampling_settings.py", "speculative_step_from_logits")
    counts = ex05.first_token_counts(step, ex05.STAT_RUNS, ex05.STAT_SEED)
    p, _ = reference_warp(ex05.STAT_TARGET, **ex05.STAT_SETTINGS)
    _, _, pvalue, impossible = chi_square_test(counts, p[0])
    assert not impossible and pvalue > COMFORT, f"reference p-value {pvalue:.3g} is too close to the threshold {ex05.STAT_ALPHA}"


@pytest.mark.parametrize("rule", ex06.RULES)
def test_06_simulation_chi_square_margin(rule):
    distribution = solution("ex06_exactness_proof.py", "output_distribution")(ex06.STAT_P, ex06.STAT_Q, rule)
    counts = simulate_first_tokens(ex06.STAT_P, ex06.STAT_Q, rule, ex06.STAT_RUNS, ex06.STAT_SEEDS[rule])
    _, _, pvalue, impossible = chi_square_test(counts, distribution)
    assert not impossible and pvalue > COMFORT, f"reference p-value {pvalue:.3g} for {rule!r} is too close to the threshold"


def test_06_simulation_rejects_the_other_rule():
    """Power: each rule's simulation is far from the OTHER rule's distribution at the same seed."""
    output_distribution = solution("ex06_exactness_proof.py", "output_distribution")
    for simulated, claimed in (("exact", "resample_from_target"), ("resample_from_target", "exact")):
        counts = simulate_first_tokens(ex06.STAT_P, ex06.STAT_Q, simulated, ex06.STAT_RUNS, ex06.STAT_SEEDS[simulated])
        _, _, pvalue, _ = chi_square_test(counts, output_distribution(ex06.STAT_P, ex06.STAT_Q, claimed))
        assert pvalue < 1e-12, f"{simulated!r} simulated vs {claimed!r} claimed: p-value {pvalue:.3g}"


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
