"""Exercise 08-batched-verifier: how the suite calls the learner's verifier and checks what comes back.

One batch graded row by row against exercise 01's reference and the generator's state
(check_batch), the result's form, and the per-position statistic of the chi-square test, kept
apart so that tests/test_08_batched_verifier.py reads like the exercise text (and the margin gate
runs the same statistic on the reference and the mutants).
"""

from __future__ import annotations

import numpy as np
import torch

from speckata.grading import GradingFailure, call_learner, learner_function
from tests.reference.ex08_reference import contract_uniforms, expected_rows, make_generator
from tests.reference.ex08_report import describe_batch, row_report
from tests.shared.statistics import chi_square_test

EXERCISE = "08-batched-verifier"


def speculative_step_batched():
    return learner_function(EXERCISE, "speculative_step_batched")


def check_form(result, batch: int, gamma: int, device) -> None:
    """A named tuple (tokens, num_accepted) of int64 tensors of the right shapes and device."""
    if not isinstance(result, tuple) or len(result) != 2 or getattr(result, "_fields", None) != ("tokens", "num_accepted"):
        raise GradingFailure(
            "speculative_step_batched must return VerifiedBatch(tokens, num_accepted), the named tuple the "
            f"exercise gives; it returned {type(result).__name__}: {result!r}"
        )
    for name, value, shape in (("tokens", result.tokens, (batch, gamma + 1)), ("num_accepted", result.num_accepted, (batch,))):
        if not isinstance(value, torch.Tensor):
            raise GradingFailure(f"{name} must be a torch.Tensor; got {type(value).__name__}")
        if value.dtype != torch.int64 or tuple(value.shape) != shape or value.device != torch.device(device):
            raise GradingFailure(
                f"{name} must be an int64 tensor of shape {shape} on {device}; got {value.dtype}, shape "
                f"{tuple(value.shape)}, on {value.device}"
            )


def check_batch(target_probs, draft_probs, draft_tokens, seed: int, what: str, minimum_compared: float = 0.95,
                compare_all: bool = False):
    """Grade one call: every row clear of a decision boundary (or, with compare_all, every row)
    against exercise 01's reference, and the generator's state."""
    batch, gamma = draft_tokens.shape
    device, dtype = target_probs.device, target_probs.dtype
    case = describe_batch(target_probs, draft_probs, draft_tokens, seed)
    originals = [t.clone() for t in (target_probs, draft_probs, draft_tokens)]
    generator = make_generator(seed, device)
    result = call_learner(speculative_step_batched(), target_probs, draft_probs, draft_tokens, generator, case=case)
    check_form(result, batch, gamma, device)
    expected_generator = make_generator(seed, device)
    u, v = contract_uniforms(expected_generator, batch, gamma, dtype, device)
    expected = expected_rows(target_probs, draft_probs, draft_tokens, u, v)
    compared = [b for b, row in enumerate(expected) if row.comparable or compare_all]
    assert len(compared) >= minimum_compared * batch, "too many rows near a decision boundary (a suite bug)"
    learner_tokens, learner_k = result.tokens.tolist(), result.num_accepted.tolist()
    wrong = [b for b in compared if learner_tokens[b] != expected[b].tokens or learner_k[b] != expected[b].num_accepted]
    if wrong:
        raise row_report(f"speculative_step_batched got {what} wrong.", case, wrong[0], target_probs,
                         draft_probs, draft_tokens, expected, learner_tokens, learner_k, len(wrong)).failure()
    if not torch.equal(generator.get_state(), expected_generator.get_state()):
        raise GradingFailure(
            f"speculative_step_batched got the tokens of {what} right, but the generator's state afterwards differs "
            "from the contract's: draw u = torch.rand((B, γ), ...) and then v = torch.rand((B,), ...), both with "
            "dtype=target_probs.dtype, and nothing else from the generator.\n\n" + case
        )
    for before, now, name in zip(originals, (target_probs, draft_probs, draft_tokens), ("target_probs", "draft_probs", "draft_tokens")):
        if not torch.equal(before, now):
            raise GradingFailure(f"speculative_step_batched changed its input {name} in place; work on copies.\n\n{case}")
    return learner_tokens, learner_k


STAT_P = np.array([[0.05, 0.10, 0.15, 0.30, 0.40], [0.2] * 5, [0.1, 0.2, 0.3, 0.2, 0.2], [0.4, 0.3, 0.1, 0.1, 0.1]])
STAT_Q = np.array([[0.40, 0.30, 0.15, 0.10, 0.05], [0.3, 0.3, 0.2, 0.1, 0.1], [0.15, 0.15, 0.3, 0.2, 0.2]])
STAT_ROWS = 30_000
STAT_SEED = 20261130
STAT_ALPHA = 1e-3  # for the whole test; each of the 4 positions is held to STAT_ALPHA / 4


def position_pvalues(verifier, rows: int, seed: int) -> list[tuple[int, float, np.ndarray]]:
    """Per position j: (rows that emitted a token there, the chi-square p-value against p[j], frequencies)."""
    gen = np.random.default_rng(seed)
    gamma, vocab = STAT_Q.shape
    drafts = np.stack([gen.choice(vocab, size=rows, p=q_row) for q_row in STAT_Q], axis=1)
    target = torch.tensor(STAT_P).expand(rows, gamma + 1, vocab).contiguous()
    draft = torch.tensor(STAT_Q).expand(rows, gamma, vocab).contiguous()
    result = call_learner(verifier, target, draft, torch.tensor(drafts), make_generator(seed), case="(statistical test)")
    check_form(result, rows, gamma, "cpu")
    tokens, accepted = result.tokens.numpy(), result.num_accepted.numpy()
    out = []
    for j in range(gamma + 1):
        emitted = tokens[accepted >= j, j]
        emitted = emitted[(emitted >= 0) & (emitted < vocab)]
        counts = np.bincount(emitted, minlength=vocab)
        pvalue = chi_square_test(counts, STAT_P[j])[2] if len(emitted) else 0.0
        out.append((len(emitted), pvalue, counts / max(len(emitted), 1)))
    return out
