"""Every chi-square test of the grading suites, in one registry for the margin gate.

Each entry names the suite's test (as tests/mutants/*.toml's must_fail names it), the learner
function it grades, the suite's threshold, and how to compute the suite's own p-value for any
implementation of that function (the smallest one, where a test takes several). The gate in
test_margins_chi_square.py runs each entry on the reference and on every mutant that must fail it.
A new statistical test adds one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests import test_01_speculative_step as ex01
from tests import test_06_exactness_proof as ex06
from tests import test_10_speculative_generate as ex10
from tests import test_12_cross_tokenizer as ex12
from tests import test_14_block_verification as ex14
from tests import test_16_top_k_drafts as ex16
from tests import test_20_tree_verification as ex20
from tests import test_22_eagle_head as ex22
from tests import test_23_early_exit as ex23
from tests import test_25_ragged_batch as ex25
from tests import test_28_eagle_head_cache as ex28
from tests import test_30_eagle2_tree as ex30
from tests.reference import ex05_cases as ex05
from tests.reference import ex08_checks as ex08
from tests.reference import ex15_cases as ex15
from tests.reference import ex27_statistics as ex27
from tests.reference import ex29_cases as ex29
from tests.reference.ex05_reference import reference_warp
from tests.reference.ex06_reference import simulate_first_tokens
from tests.shared.statistics import chi_square_test


@dataclass(frozen=True)
class ChiSquareCheck:
    exercise: str  # the exercise id, e.g. "01-speculative-step"
    test: str  # the suite's test, e.g. "test_first_token_is_distributed_as_p"
    function: str  # the learner function that test grades
    alpha: float  # the suite fails an implementation whose p-value is below this
    pvalue: Callable[[Callable], float]  # the suite's statistic, run on one implementation

    @property
    def id(self) -> str:
        return f"{self.exercise[:2]}:{self.test}"


def ex05_pvalue(step) -> float:
    counts = ex05.first_token_counts(step, ex05.STAT_RUNS, ex05.STAT_SEED)
    return chi_square_test(counts, reference_warp(ex05.STAT_TARGET, **ex05.STAT_SETTINGS)[0][0])[2]


def ex06_pvalue(rule: str) -> Callable[[Callable], float]:
    def pvalue(output_distribution) -> float:
        counts = simulate_first_tokens(ex06.STAT_P, ex06.STAT_Q, rule, ex06.STAT_RUNS, ex06.STAT_SEEDS[rule])
        return chi_square_test(counts, output_distribution(ex06.STAT_P, ex06.STAT_Q, rule))[2]
    return pvalue


def ex08_pvalue(verifier) -> float:
    return min(pvalue for _, pvalue, _ in ex08.position_pvalues(verifier, ex08.STAT_ROWS, ex08.STAT_SEED))


CHECKS = [
    ChiSquareCheck("01-speculative-step", "test_first_token_is_distributed_as_p", "speculative_step",
                   ex01.STAT_ALPHA, lambda step: ex01.first_token_chi_square(step)[1]),
    ChiSquareCheck("05-sampling-settings", "test_first_token_follows_the_warped_target", "speculative_step_from_logits",
                   ex05.STAT_ALPHA, ex05_pvalue),
    *[ChiSquareCheck("06-exactness-proof", f"test_distribution_matches_a_simulation_of_the_rule[{rule}]",
                     "output_distribution", ex06.STAT_ALPHA, ex06_pvalue(rule)) for rule in ex06.RULES],
    ChiSquareCheck("08-batched-verifier", "test_the_token_at_every_position_is_distributed_as_p",
                   "speculative_step_batched", ex08.STAT_ALPHA / len(ex08.STAT_P), ex08_pvalue),
    ChiSquareCheck("10-speculative-generate", "test_generated_sequences_are_distributed_as_the_target",
                   "speculative_generate", ex10.STAT_ALPHA, lambda generate: ex10.sequence_chi_square(generate)[1]),
    ChiSquareCheck("12-cross-tokenizer", "test_verify_emits_tokens_distributed_as_p", "verify_proposal",
                   ex12.STAT_ALPHA, lambda verify: ex12.first_token_chi_square(verify)[1]),
    ChiSquareCheck("12-cross-tokenizer", "test_generated_text_is_distributed_as_the_target", "cross_tokenizer_generate",
                   ex12.STAT_ALPHA, lambda generate: ex12.sequence_chi_square(generate)[1]),
    ChiSquareCheck("16-top-k-drafts", "test_token_is_distributed_as_p_for_top_3_candidates", "verify_top_k",
                   ex16.STAT_ALPHA, lambda verify: ex16.token_chi_square(verify)[1]),
    ChiSquareCheck("15-multi-candidate", "test_iid_emitted_token_is_distributed_as_p", "verify_candidates",
                   ex15.STAT_ALPHA, lambda verify: ex15.emitted_chi_square(verify, ex15.IID)[1]),
    ChiSquareCheck("15-multi-candidate", "test_without_replacement_emitted_token_is_distributed_as_p",
                   "verify_candidates_without_replacement",
                   ex15.STAT_ALPHA, lambda verify: ex15.emitted_chi_square(verify, ex15.WITHOUT)[1]),
    ChiSquareCheck("14-block-verification", "test_emitted_blocks_follow_the_exact_law", "block_verify",
                   ex14.STAT_ALPHA, lambda verify: ex14.sim.joint_chi_square(verify)[2]),
    *[ChiSquareCheck("20-tree-verification", f"test_generated_sequences_are_distributed_as_the_target[{children}]",
                     "tree_speculative_generate", ex20.STAT_ALPHA,
                     lambda generate, children=children: ex20.sequence_chi_square(generate, children)[1])
      for children in ("top_k", "sampled")],
    ChiSquareCheck("22-eagle-head", "test_sampled_output_is_distributed_as_the_target", "eagle_generate",
                   ex22.STAT_ALPHA, lambda generate: ex22.sequence_chi_square(generate)[1]),
    ChiSquareCheck("23-early-exit", "test_generated_sequences_are_distributed_as_the_target", "early_exit_generate",
                   ex23.STAT_ALPHA, lambda generate: ex23.sequence_chi_square(generate)[1]),
    ChiSquareCheck("25-ragged-batch", "test_every_row_is_distributed_as_the_target", "batched_speculative_generate",
                   ex25.STAT_ALPHA, ex25.smallest_pvalue),
    ChiSquareCheck("27-adaptive-draft-length", "test_every_row_is_distributed_as_the_target", "adaptive_speculative_generate",
                   ex27.STAT_ALPHA, ex27.smallest_pvalue),
    ChiSquareCheck("27-adaptive-draft-length", "test_every_row_is_distributed_as_the_target_with_probes",
                   "adaptive_speculative_generate", ex27.STAT_ALPHA,
                   lambda generate: ex27.smallest_pvalue(generate, ex27.PROBE_STAT_RULES, ex27.PROBE_STAT_RUNS)),
    ChiSquareCheck("28-eagle-head-cache", "test_sampled_output_is_distributed_as_the_target", "eagle_cached_generate",
                   ex22.STAT_ALPHA, lambda generate: ex22.sequence_chi_square(generate, seed=ex28.STAT_SEED)[1]),
    ChiSquareCheck("29-medusa-tree", "test_sampled_output_is_distributed_as_the_target", "medusa_tree_generate",
                   ex29.STAT_ALPHA, lambda generate: ex29.sequence_chi_square(generate)[1]),
    ChiSquareCheck("30-eagle2-tree", "test_sampled_output_is_distributed_as_the_target", "eagle2_generate",
                   ex30.STAT_ALPHA, lambda generate: ex30.sequence_chi_square(generate)[1]),
]
