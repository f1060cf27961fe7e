"""Exercise 10-speculative-generate: a whole speculative decoder, with KV caches that roll back (torch).

Exercise 01 verified one block of drafts. Here you write the loop around it, on models that keep
a KV cache: the draft proposes γ tokens, the target scores them all in ONE pass, the rule of
exercise 01 keeps a prefix and adds one token, and both caches are rolled back past anything that
was rejected, never recomputed from the start. Theory: theory/10-speculative-generate.md.
Worked example with the trained models: notebooks/10-speculative-generate.ipynb.

The models (speckata.models.interface; the grader hands you real GPTs or toy Markov chains)
    model.forward_new(ids) -> logits (n, V)   feed n >= 1 new tokens of the ONE sequence the model
                                              holds; row i: logits of the token after ids[i]
    model.cache_length                        tokens the cache holds
    model.crop(length)                        keep the first `length` tokens, forget the rest
    model.reset()                             forget everything
    Each forward_new call is one pass, however many tokens it is fed. The grader wraps both models
    and records every call: what you feed, and when, is part of the contract.

speculative_generate(target, draft, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0)
    prompt_ids      the prompt: a non-empty list (or 1-D tensor) of token ids.
    max_new_tokens  how many new tokens to return (>= 0).
    gamma           how many tokens the draft proposes per round (>= 1).
    generator       a torch.Generator: every random number comes from it, through the helpers.
    temperature     applied to target and draft alike; 0 means greedy.
Returns a speckata.decoding.baseline.SpeculativeResult: tokens (exactly max_new_tokens plain ints,
the prompt not included), accepted_per_pass and drafted_per_pass (one entry per round),
target_passes and draft_passes (how many forward_new calls each model received).

The contract. Start with sequence = check_generation_inputs(...) (the given checks, below), then
target.reset() and draft.reset(). Repeat rounds until max_new_tokens tokens are out:
    0. k = min(gamma, max_new_tokens - (tokens so far) - 1): no round may overshoot.
    1. Draft (k calls; none when k = 0). Feed the draft sequence[draft.cache_length:], i.e. every
       token its cache lacks, in one call; q_0 = next_token_probabilities(last row, temperature);
       x_0 = sample_token(q_0, generator). Then for i = 1 .. k-1: feed [x_{i-1}], q_i from its row,
       x_i = sample_token(q_i, generator).
    2. Verify (one call). Feed the target sequence[target.cache_length:] + [x_0, ..., x_{k-1}];
       p_0 .. p_k = next_token_probabilities(the last k+1 rows of logits, temperature).
    3. Accept (the rule of exercise 01). For i = 0 .. k-1: u = draw_uniform(generator); keep x_i
       if u < p_i[x_i] / q_i[x_i] (strictly). At the first rejection, draw the replacement with
       sample_token(max(p_i - q_i, 0), generator) and end the round; if the residual has no mass
       (its total is at most 1e-12), draw it from p_i instead. If all k are kept, add a bonus
       token sample_token(p_k, generator).
    4. Append the kept drafts and the replacement or bonus to the sequence.
    5. Roll back: each model whose cache holds more than len(sequence) - 1 tokens is cropped to
       len(sequence) - 1. Invariant: a cache never holds the newest token (its logits are the
       next round's first row), and never a rejected one.
After a round whose drafts were all kept, the draft's cache lacks x_{k-1} (it proposed it but was
never fed it); step 1 of the next round feeds it together with the bonus token: two tokens, one
call. On the first round both models are fed the whole prompt.

Random draws: draw_uniform and sample_token each take exactly one torch.rand from the generator,
in the order above: k samples while drafting, then one uniform per tested draft, then one sample
for the replacement or bonus. At temperature 0 the distributions are one-hot and the same draws
happen; the output is then the target's greedy decoding, token for token.

You may reuse exercise 01 for step 3: speculative_step(p.numpy(), q, drafts, GeneratorRNG(generator))
with q a (k, V) float64 array of the q_i follows exactly this rule and these draws (GeneratorRNG is
in speckata.decoding.sampling; for k = 0 pass q = numpy.empty((0, V))). Import it at the top of
this file with `from ex01_speculative_step import speculative_step`: the grader imports your
exercise files from the folder it grades, so this takes your own exercise 01 (solve 01 first).

Bad input: ValueError from check_generation_inputs, whose messages name "prompt", "max_new_tokens",
"gamma" (must be >= 1), "temperature" or "vocabulary" (target and draft must share one).

Worked example (toy Markov chains: row = previous token; the recorder logs each call; rounds are
counted from 1, here and in the grader's reports):

>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> from speckata.models.recording import RecordingModel
>>> target = RecordingModel(MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]))
>>> draft = RecordingModel(MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]))
>>> result = speculative_generate(target, draft, [0], 6, 2, torch.Generator().manual_seed(2))
>>> result.tokens, result.accepted_per_pass, result.drafted_per_pass
([2, 0, 2, 0, 1, 0], [2, 1, 0], [2, 2, 0])
>>> target.feeds   # round 1: prompt + 2 drafts; round 2: newest + 2 drafts; round 3: k = 0
[(0, 2, 0), (2, 0, 0), (1,)]
>>> draft.feeds    # round 2 starts with two tokens: the last kept draft and the bonus
[(0,), (2,), (0, 2), (0,)]
>>> result.target_passes, result.draft_passes
(3, 4)

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: one round: k draft passes, one target pass
    Task 3: a rejection rolls both caches back
    Task 4: after a bonus token the draft catches up
    Task 5: the last rounds and the budget
    Task 6: temperature 0 is the target's greedy decoding
    Task 7: exact replay against the reference
    Task 8: the output is distributed as the target's
    Task 9: bad input

Check it with:  kata check 10-speculative-generate   (or: pytest tests/test_10_speculative_generate.py)
"""

import torch  # noqa: F401

from speckata.decoding.baseline import SpeculativeResult, check_generation_inputs  # noqa: F401  (given)
from speckata.decoding.sampling import GeneratorRNG, draw_uniform, next_token_probabilities, sample_token  # noqa: F401


def speculative_generate(target, draft, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0):
    # TODO(10-speculative-generate): draft k tokens, verify them in one target pass, keep a prefix
    # plus one token, roll both caches back; repeat until max_new_tokens tokens are out.
    raise NotImplementedError("10-speculative-generate: speculative_generate is not written yet")
