"""Exercise 27-adaptive-draft-length: a draft length that adapts, round by round and batch by batch (torch).

Exercise 25 drafts gamma tokens every round, whatever happens. Two things say it should not: a
draft that is unsure of its own tokens will see them rejected (EAGLE-2 grows its tree where the
draft's path confidence is high; SpecDec++ stops when a trained head predicts a rejection is
likely; rule (a) is the untrained version: stop when the draft's own path confidence falls), and a
large batch makes the target's pass compute-bound, so drafts cost real time (exercise 26; SGLang
and vLLM draft less under load). You write both rules and plug them into exercise 25's decoder.
The output stays exactly the target's, position by position: whether to draft position j + 1 is
decided from what is already drawn (rule (a): the drafts <= j; rule (b) and the probe: earlier
rounds), never from the verifier's verdict or uniforms. Then either position j + 1 gets a fresh
draft from q that the verifier accepts or replaces from the residual, or (no draft) the bonus
token is drawn from p; either way its token is distributed as p given everything before it.
(Conditioning on the drafts themselves is not the argument: given the drafts, a kept token is
not p-distributed.) Theory: theory/27-adaptive-draft-length.md. Worked example:
notebooks/27-adaptive-draft-length.ipynb.

keep_drafting(confidence, threshold) -> bool                                   (Task 1: rule (a))
    confidence: the active rows' path confidences (a 1-D list, array or tensor, one per row, not
    empty); threshold: a real number in [0, 1]. True when SOME row's confidence is >= threshold;
    False (stop) only when EVERY row's confidence is < threshold. (Rows share k: exercise 08's
    verifier takes (A, k) drafts.) threshold 0 never stops.
update_acceptance(ema, accepted, k, beta) -> float                             (Task 2: rule (b), the estimate)
    ema: the current acceptance-rate estimate in [0, 1]; accepted: the round's num_accepted, one
    per active row (each in 0..k); k: the round's draft length; beta in (0, 1]: the newest round's
    weight. A row tested min(accepted + 1, k) drafts (up to and including its first rejection) and
    kept `accepted` of them; the round's rate is sum(accepted) / sum(min(accepted + 1, k)) (the
    maximum-likelihood rate of exercise 03's i.i.d. model), and the result is
        beta * rate + (1 - beta) * ema.
    k = 0 tests nothing: the result is ema, unchanged.
next_gamma(alpha, active_rows, target_cost, draft_cost, batch_sizes) -> int    (Task 3: rule (b), the length)
    The cost table at ONE context length: target_cost (num_B, N), target_cost[b, n - 1] the time of
    a target pass of n new tokens per row over batch_sizes[b] rows; draft_cost (num_B,); batch
    sizes strictly increasing. The row b used is the one of the largest batch_sizes[b] <=
    active_rows (the first row when active_rows < batch_sizes[0]). The result is exercise 26's
    best_gamma at that row, with acceptance rate alpha (a table of one context length:
    target_cost[:, :, None] and draft_cost[:, None]), as a plain int in 0 .. N - 1.
adaptive_speculative_generate(target, draft, prompts, max_new_tokens, max_gamma, generator,
                              temperature=1.0, threshold=0.0, costs=None, beta=0.5, initial_alpha=0.5,
                              probe_every=None)
    -> BatchedSpeculativeResult                                                 (Tasks 4 to 9)
    Exercise 25's batched_speculative_generate with the round's k chosen by the two rules; costs:
    None (no rule (b)) or a triple (target_cost, draft_cost, batch_sizes) as next_gamma takes it.
    Everything else (the passes, their feeds, masks and positions, the order of the draws, the
    verifier, the crops, the result's fields) is exercise 25's contract, word for word. The state:
    ema, starting at initial_alpha, and idle, starting at 0. Each round, with A active rows:
    0. gamma = max_gamma if costs is None, else min(max_gamma, next_gamma(ema, A, *costs)).
       The probe (Task 9; probe_every None: never): if gamma is 0, probe_every is an integer N and
       idle == N (the N rounds just before this one all had gamma 0), this round is a probe:
       gamma = 1. Then idle = idle + 1 if gamma is 0, else 0 (a probe, or any round whose gamma
       is 1 or more, ends the run, even if the cap below makes its k 0). Without probes a k = 0 round tests nothing, the estimate never moves
       again, and rule (b) stays at 0 until the active rows change the table's row.
       most = min(gamma, max over active rows of (max_new_tokens - its new tokens) - 1).
    1. Draft, at most `most` passes. Every active row starts the round with confidence 1.0 (float64); after
       draft pass j (its draws done), each row's confidence is multiplied by q_j[row, x_j[row]],
       the draft's probability of the token it just drew (a path confidence, as EAGLE-2's). If
       j < most and keep_drafting(confidence, threshold) is False, drafting stops: k = j. Else
       drafting goes on until k = most. (No pass when most = 0: k = 0.)
    2. Verify the k drafts as exercise 25 does (one target pass, speculative_step_batched; with
       k = 0 it samples every row's next token from p).
    3. Append, as exercise 25. Then ema = update_acceptance(ema, num_accepted of the active rows,
       k, beta) (every round, whether costs is given or not).
    4. Crop the target, then the draft, as exercise 25.
    result.drafted_per_round holds each round's k (after the stop), draft_passes their sum.
With threshold = 0 and costs = None this is exactly exercise 25's decoder with gamma = max_gamma.
At temperature 0 every row is the target's greedy decoding of its prompt alone.

Bad input raises ValueError: the phrases of exercise 25 (check_batched_generation_inputs(target,
draft, prompts, max_new_tokens, max_gamma, temperature), given: "gamma" for max_gamma), then
"threshold" (not a real number in [0, 1]), "beta" (not in (0, 1]), "initial_alpha" and "ema" (not
in [0, 1]), "costs" (not None nor a triple; bad tables: exercise 26's own errors), "accepted" (a
count outside 0..k, or none), "active_rows" (not an integer >= 1), "confidence" (empty),
"probe_every" (not None nor an integer >= 1). The decoder checks everything (the tables with one
next_gamma(initial_alpha, 1, *costs)) before it calls a model. speckata.checks.adaptive (given)
has check_unit_interval(name, value), check_beta(beta), check_costs(costs) and
check_probe_every(probe_every).

Worked example (toy Markov chains, row = previous token):

>>> keep_drafting([0.2, 0.6], 0.5), keep_drafting([0.2, 0.4], 0.5), keep_drafting([0.5], 0.5)
(True, False, True)
>>> update_acceptance(0.5, [2, 0, 1], 2, 0.5)   # 3 kept of 2 + 1 + 2 tested: 0.5 * 0.6 + 0.5 * 0.5
0.55
>>> costs = ([[10, 10, 10, 10], [10, 12, 14, 16]], [1, 1], [1, 2])   # B = 1: n is free; B = 2: it is not
>>> [next_gamma(alpha, 2, *costs) for alpha in (0.2, 0.5, 0.9)], next_gamma(0.5, 1, *costs)
([0, 1, 3], 2)
>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> from speckata.models.recording import RecordingModel
>>> def chains():
...     return (RecordingModel(MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]])),
...             RecordingModel(MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]])))
>>> fixed = adaptive_speculative_generate(*chains(), [[0], [1, 2]], 8, 3, torch.Generator().manual_seed(6))
>>> fixed.drafted_per_round, fixed.accepted_per_row          # exercise 25 with gamma = 3
([3, 3, 2], [[2, 1, 2], [3, 2, 0]])
>>> stopped = adaptive_speculative_generate(*chains(), [[0], [1, 2]], 8, 3, torch.Generator().manual_seed(6),
...                                         threshold=0.27)
>>> stopped.drafted_per_round, stopped.tokens                # rule (a): both rows unsure after 2 drafts
([2, 2, 2, 1], [[1, 2, 2, 1, 1, 0, 2, 1], [2, 1, 0, 1, 0, 2, 0, 1]])
>>> both = adaptive_speculative_generate(*chains(), [[0], [1, 2]], 8, 3, torch.Generator().manual_seed(6),
...                                      threshold=0.27, costs=costs)
>>> both.drafted_per_round, both.accepted_per_row            # rule (b): gamma 1 at alpha 0.5 and 2 rows
([1, 2, 2, 1], [[1, 2, 2], [1, 0, 2, 1]])
>>> dear = ([[10, 14, 18, 22], [10, 16, 22, 28]], [1, 1], [1, 2])   # drafting pays above alpha 0.5 (B = 1), 0.7 (B = 2)
>>> adaptive_speculative_generate(*chains(), [[0], [1, 2]], 10, 3, torch.Generator().manual_seed(6), costs=dear,
...                               initial_alpha=0.4).drafted_per_round      # gamma 0 from the start, locked
[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
>>> adaptive_speculative_generate(*chains(), [[0], [1, 2]], 10, 3, torch.Generator().manual_seed(6), costs=dear,
...                               initial_alpha=0.4, probe_every=2).drafted_per_round  # a probe after 2 rounds at 0
[0, 0, 1, 0, 0, 1, 1, 0]

Tasks (the grader reports a failure by its task number):
    Task 1: keep_drafting, rule (a)'s stop test
    Task 2: update_acceptance, the moving average of the acceptance rate
    Task 3: next_gamma, the table's row and exercise 26's best gamma
    Task 4: the worked example, and no rules is exercise 25
    Task 5: exact replay against the reference, with the rules
    Task 6: temperature 0 is every row's greedy decoding, alone
    Task 7: every row is distributed as the target's own sampling of its prompt
    Task 8: bad input
    Task 9: probe_every, a probe round of gamma 1 out of the gamma-0 lock

Check it with:  kata check 27-adaptive-draft-length   (or: pytest tests/test_27_adaptive_draft_length.py)
"""

import numpy as np  # noqa: F401
import torch  # noqa: F401

from ex08_batched_verifier import speculative_step_batched  # noqa: F401  (your exercise 08)
from ex25_ragged_batch import ragged_inputs  # noqa: F401  (your exercise 25: solve it first)
from ex26_serving_crossover import best_gamma  # noqa: F401  (your exercise 26)
from speckata.checks.adaptive import check_beta, check_costs, check_probe_every, check_unit_interval  # noqa: F401  (given)
from speckata.decoding.baseline import BatchedSpeculativeResult, check_batched_generation_inputs  # noqa: F401  (given)
from speckata.decoding.sampling import next_token_probabilities  # noqa: F401
from speckata.torch_sampling import sample_rows  # noqa: F401


def keep_drafting(confidence, threshold) -> bool:
    # TODO(27-adaptive-draft-length): check the threshold; True unless every row's confidence is below it.
    raise NotImplementedError("27-adaptive-draft-length: keep_drafting is not written yet")


def update_acceptance(ema, accepted, k, beta) -> float:
    # TODO(27-adaptive-draft-length): the round's kept / tested drafts, blended into ema with weight beta.
    raise NotImplementedError("27-adaptive-draft-length: update_acceptance is not written yet")


def next_gamma(alpha, active_rows, target_cost, draft_cost, batch_sizes) -> int:
    # TODO(27-adaptive-draft-length): the table's row for active_rows, then exercise 26's best_gamma there.
    raise NotImplementedError("27-adaptive-draft-length: next_gamma is not written yet")


def adaptive_speculative_generate(target, draft, prompts, max_new_tokens, max_gamma, generator, temperature=1.0,
                                  threshold=0.0, costs=None, beta=0.5, initial_alpha=0.5, probe_every=None):
    # TODO(27-adaptive-draft-length): exercise 25's decoder, k chosen by next_gamma (before the round, with the
    # probe rule) and keep_drafting (after each draft pass); update the estimate with update_acceptance after each round.
    raise NotImplementedError("27-adaptive-draft-length: adaptive_speculative_generate is not written yet")
