"""Exercise 07-torch-step: the verify step in torch, driven by a torch.Generator.

Exercise 01's rule again, written the way a decoder on a GPU runs it: the inputs are tensors, the
randomness comes from a torch.Generator, and a replacement token is drawn with torch.multinomial.
Theory: theory/07-torch-step.md. Worked example, step by step: notebooks/07-torch-step.ipynb.

Inputs (tensors, all on one device)
    draft_probs    q, shape (K, V): draft_probs[i] is what the draft sampled draft_tokens[i] from.
                   With K = 0 it is torch.empty(0, V).
    target_probs   p, shape (K+1, V): the target's distribution at each drafted position, and at
                   the position after the last one.
    draft_tokens   shape (K,): the proposed token ids, an integer tensor. K = 0 is allowed.
    generator      a torch.Generator, or None for torch's global generator.
    The probabilities are float32 or float64, both of one dtype.

The rule, for i = 0, 1, ..., K-1 with x = draft_tokens[i]:
    1. u = torch.rand((), generator=generator). Accept x if u < min(1, p[i, x] / q[i, x]).
       No dtype argument: u is float32 (torch's default) even for float64 inputs. Exercise 08,
       by contrast, draws its uniforms with dtype=target_probs.dtype.
    2. On the first rejection, build the residual torch.clamp(target_probs[i] - draft_probs[i],
       min=0). If its total is at most 1e-12 (p[i] and q[i] agree up to rounding), use
       target_probs[i] in its place. Draw the replacement with
       torch.multinomial(residual / residual.sum(), 1, generator=generator), and stop.
    3. If all K are accepted, draw a bonus token with
       torch.multinomial(target_probs[K], 1, generator=generator).

Return a tuple (tokens, num_accepted):
    tokens         an int64 tensor of 1 to K+1 token ids on the inputs' device: the accepted
                   drafts, then the replacement or the bonus token;
    num_accepted   a plain Python int: how many drafts were accepted (K when all were).

The random contract: exactly those calls on `generator` and in that order, one torch.rand per
accept test, then one torch.multinomial(..., 1, ...). The grader runs your function and an
independent reference on two generators seeded alike, then compares the tokens AND the two
generators' states, so a draw too many or too few is caught even when the tokens agree.
(On a GPU: torch.rand((), generator=generator, device=target_probs.device) with a generator of
that device. On the CPU that is the same call as above.)

Bad input raises ValueError with a message naming the problem; the grader looks for these
phrases: "tensor" (an input that is not one), "shape", "dtype" (not float32/float64, or two
dtypes), "integer" (token ids), "out of range", "zero probability" (q[i, draft_tokens[i]] == 0),
"negative", "NaN", "sum to 1" (off by more than 1e-6 in float64, 1e-4 in float32). The given
check_torch_step_inputs(target_probs, draft_probs, draft_tokens) does all of this (p first, as
everywhere in this kata); calling it first is allowed and recommended.

Worked example: the draft proposes token 1, which the target likes exactly as much (p/q = 1), so
it is accepted; the bonus token comes from target_probs[1].

>>> import torch
>>> draft_probs = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.1]])
>>> target_probs = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.3, 0.1]])
>>> speculative_decode_step(draft_probs, target_probs, torch.tensor([1]), torch.Generator().manual_seed(0))
(tensor([1, 1]), 1)

A rejection: with seed 0 the first uniform is 0.4963, above p/q = 0.1/0.6. The residual
[0.2, 0, 0.1, 0.1, 0.1] (normalised: [0.4, 0, 0.2, 0.2, 0.2]) gives the replacement.

>>> target_probs = torch.tensor([[0.3, 0.1, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.3, 0.1]])
>>> speculative_decode_step(draft_probs, target_probs, torch.tensor([1]), torch.Generator().manual_seed(0))
(tensor([4]), 0)

Tasks (the grader reports a failure by its task number):
    Task 1: the worked examples
    Task 2: the accept test is strict
    Task 3: how many tokens, and from which distribution
    Task 4: a residual with no mass
    Task 5: the random contract
    Task 6: bad input
    Task 7: any device
    Task 8: probabilities that require grad (a model's softmax, say) are accepted

Check it with:  kata check 07-torch-step   (or: pytest tests/test_07_torch_step.py)
"""

import torch

from speckata.torch_validation import check_torch_step_inputs  # noqa: F401  (given helper)


def speculative_decode_step(draft_probs, target_probs, draft_tokens, generator=None) -> tuple[torch.Tensor, int]:
    # TODO(07-torch-step): implement the accept / reject / resample rule described above.
    raise NotImplementedError("07-torch-step: speculative_decode_step is not written yet")
