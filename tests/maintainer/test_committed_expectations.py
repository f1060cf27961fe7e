"""Values a suite writes down instead of computing on every check are still what they stand for."""

from __future__ import annotations

import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.manifest import exercise_by_id
from speckata.models.pretrained import char_tokenizer, load_target
from tests import test_10_speculative_generate as ex10
from tests.maintainer.reference_solutions import solution


def test_ex10_greedy_is_the_float64_targets_greedy_decoding():
    target = load_target(torch.float64)
    prompt = char_tokenizer().encode(ex10.GREEDY_PROMPT)
    greedy = autoregressive_generate(target, prompt, len(ex10.GREEDY), torch.Generator().manual_seed(0), temperature=0.0)
    assert greedy == ex10.GREEDY


def test_ex10_chi_square_docstring_states_the_references_figures():
    """The suite's docstring says what the reference scores; this keeps it true."""
    generate = solution(exercise_by_id(ex10.EXERCISE).file, "speculative_generate")
    _, pvalue, _, df = ex10.sequence_chi_square(generate)
    doc = " ".join(ex10.test_generated_sequences_are_distributed_as_the_target.__doc__.split())
    assert f"{df} degrees of freedom" in doc and f"reference scores p = {pvalue:.2f}" in doc, (df, pvalue)
    assert f"Sample: {ex10.STAT_RUNS} runs" in doc
