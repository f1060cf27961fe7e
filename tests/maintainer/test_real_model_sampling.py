"""SmolLM2-135M as the target, sampling: the verify step's first token is distributed exactly as SmolLM2's p.

The sampling half of test_real_model.py (same extra, same skip and fail rules, the same model,
loaded once by the ``real`` fixture of tests/maintainer/conftest.py). The decoders come from the
graded folder (``--target solutions``): exercise 13's ``verify_proposal`` and exercise 01's
``speculative_step``.
"""

from __future__ import annotations

import math

import numpy as np

from tests.maintainer.real_model_support import (
    ALPHA,
    RUNS,
    SEED,
    chi_square,
    likeliest,
    next_token_rows,
    prompt_ids,
    restricted,
)

# Sampling: the verify step's first token is distributed exactly as SmolLM2's p -------------------



def test_a_deterministic_proposal_is_exact_by_computation(real):
    """Exact: for SmolLM2's p at a real position and proposals x of every kind (its likeliest
    token, a middling one, a rare one), accept-with-p(x) plus the residual 'p without x,
    renormalised' gives back p to 1e-12; and that residual is exercise 01's max(0, p - q) for the
    one-hot q, so the rule is exercise 01's, proven there."""
    p = next_token_rows(real, prompt_ids(real), [])[0].numpy()
    order = np.argsort(-p, kind="stable")
    for x in (int(order[0]), int(order[10]), int(order[5000])):
        q = np.zeros_like(p)
        q[x] = 1.0
        residual = p.copy()
        residual[x] = 0.0
        assert np.array_equal(residual, np.maximum(p - q, 0.0))
        distribution = (1 - p[x]) * residual / residual.sum()
        distribution[x] += p[x]
        assert np.abs(distribution - p).max() < 1e-12


def test_prompt_lookup_verification_samples_exactly_p(real):
    """Monte Carlo: 20,000 runs of verify_proposal (torch generator seeded 20261213) on SmolLM2's
    p after a copy prompt (each row's 256 likeliest tokens and the proposal, renormalised), with
    the lookup's real proposal of 4 tokens. Statistic: Pearson's chi-square of the first emitted
    token over p's 20 likeliest tokens plus 'all others' (20 degrees of freedom); fail below
    p-value 1e-3. The proposed token must be accepted with probability p(x) (a binomial z-score
    under 4.5), and a biased rule (a rejection resampled from p itself, x included) must fail the
    same chi-square, showing the test has power here."""
    from speckata.decoding.sampling import draw_uniform, sample_token
    from speckata.grading import learner_function
    from speckata.real.lookup import lookup_generate

    torch = real["torch"]
    ngram_draft = learner_function("13-ngram-draft", "ngram_draft")
    verify_proposal = learner_function("12-cross-tokenizer", "verify_proposal")  # the rule the lookup decoder uses
    prompt = prompt_ids(real, 0)  # the copy prompt: after its first words, the lookup proposes the rest
    opening = lookup_generate(real["target"], prompt, 3, 8, torch.Generator().manual_seed(0), 0, 3, drafter=ngram_draft)
    context = prompt + opening.tokens
    proposal = ngram_draft(context, 3, 4)
    assert len(proposal) == 4, "the copy prompt should offer a proposal after its first words"
    full = next_token_rows(real, context, proposal)
    columns = torch.unique(torch.cat([likeliest(full), torch.tensor(proposal)]))
    p = restricted(full, columns)
    index = {int(token): i for i, token in enumerate(columns)}
    proposal = [index[token] for token in proposal]
    generator = torch.Generator().manual_seed(SEED)
    first = np.array([verify_proposal(p, proposal, generator)[0] for _ in range(RUNS)])
    statistic, pvalue = chi_square(p[0].numpy(), first)
    assert pvalue > ALPHA, f"chi-square {statistic:.1f} (20 df), p-value {pvalue:.2e}"
    accepted = float((first == proposal[0]).mean())
    z = (accepted - float(p[0, proposal[0]])) / math.sqrt(float(p[0, proposal[0]] * (1 - p[0, proposal[0]])) / RUNS + 1e-300)
    assert abs(z) < 4.5, f"accepted {accepted:.4f} of the time, p(x) = {float(p[0, proposal[0]]):.4f}"

    def biased_first_token(p, x, generator):
        if draw_uniform(generator) < float(p[0, x]):
            return x
        return sample_token(p[0], generator)  # should be p without x

    generator = torch.Generator().manual_seed(SEED)
    biased = np.array([biased_first_token(p, proposal[0], generator) for _ in range(RUNS)])
    _, biased_pvalue = chi_square(p[0].numpy(), biased)
    assert biased_pvalue < ALPHA, "a rule resampling from p itself passes: the test has no power at this position"


def test_model_draft_verification_samples_exactly_p(real):
    """Monte Carlo: 20,000 verify steps of exercise 01's rule (speculative_step with the torch
    generator seeded 20261213 through GeneratorRNG, as exercise 10 draws) on SmolLM2's p and the
    tiny draft's q at the same position (one drafted token x ~ q, sampled with the same
    generator). Statistic: Pearson's chi-square of the first emitted token over p's 20 likeliest
    tokens plus 'all others' (20 degrees of freedom); fail below p-value 1e-3. The draft's own
    tokens (x ~ q) must fail the same test, showing it has power here."""
    from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities
    from speckata.grading import learner_function

    torch = real["torch"]
    prompt = prompt_ids(real, 3)
    real["draft"].reset()
    q = next_token_probabilities(real["draft"].forward_new(prompt)[-1:], 1.0)
    p = next_token_rows(real, prompt, [])
    columns = likeliest([p[0], q[0]])
    p_small, q_small = restricted(p, columns), restricted(q, columns)
    p2 = torch.cat([p_small, p_small])  # γ = 1: the bonus row is not looked at by the first token
    speculative_step = learner_function("01-speculative-step", "speculative_step")
    generator = torch.Generator().manual_seed(SEED)
    drafts = torch.multinomial(q_small[0], RUNS, replacement=True, generator=generator).tolist()
    rng = GeneratorRNG(generator)
    p_np, q_np = p2.numpy(), q_small.numpy()
    first = np.array([speculative_step(p_np, q_np, [x], rng)[0] for x in drafts])
    statistic, pvalue = chi_square(p_small[0].numpy(), first)
    assert pvalue > ALPHA, f"chi-square {statistic:.1f} (20 df), p-value {pvalue:.2e}"
    _, draft_pvalue = chi_square(p_small[0].numpy(), np.array(drafts))
    assert draft_pvalue < ALPHA, "the draft's own samples pass as p: the test has no power at this position"
