"""Exercise 08-batched-verifier: verify a whole batch of drafts at once, with no loop.

A server decodes B sequences together: each has γ drafted tokens, and one target pass scores them
all. Exercise 07 walks one sequence position by position; here every row is verified at once with
tensor operations, and each row keeps exactly the tokens it accepted, however many that is.
Theory: theory/08-batched-verifier.md. Worked example, with pictures: notebooks/08-batched-verifier.ipynb.

Inputs (tensors, all on one device)
    target_probs   p, shape (B, γ+1, V), float32 or float64.
    draft_probs    q, shape (B, γ, V), the same dtype; draft_tokens[b, i] was sampled from q[b, i].
    draft_tokens   shape (B, γ), integer token ids.
    generator      a torch.Generator, or None for torch's global generator.
    γ = 0 is allowed: draft_probs then has shape (B, 0, V) and draft_tokens (B, 0).

The rule, for every row b at once:
    1. Draw u = torch.rand((B, γ), generator=generator, dtype=target_probs.dtype,
       device=target_probs.device), then v = torch.rand((B,), same generator, dtype and device).
       Always both, in this order, whatever the rows hold. Both in the inputs' dtype, float32 or
       float64; exercise 07, by contrast, draws each u in float32 whatever the inputs' dtype.
    2. The accept test: accept[b, i] = u[b, i] < p[b, i, x] / q[b, i, x] with x = draft_tokens[b, i].
    3. num_accepted[b] = k, the number of accepts before the row's first rejection (γ if none).
       An accept after a rejection does not count: the accepted run is a prefix.
    4. The row's last token is drawn with v[b] by sample_rows (given; see below) from
         - the residual max(0, p[b, k] - q[b, k]) when k < γ (when its total is at most 1e-12,
           p[b, k] itself), or
         - p[b, γ] when k = γ (all accepted: the bonus token).
    5. Row b of the tokens: draft_tokens[b, :k], then the last token, then -1 up to length γ+1.

Return VerifiedBatch(tokens, num_accepted), the named tuple given below: tokens (B, γ+1) int64 and
num_accepted (B,) int64, on the inputs' device. Every row keeps its own k: cutting every row to
the batch's smallest k wastes tokens and, as theory/08 shows, biases the output.

Given: sample_rows(weights, v) draws, for each row b of a (B, V) tensor of weights (they need not
sum to one), the first index whose normalised cumulative probability exceeds v[b]; it never
returns a zero-probability index. It is exercise 01's sample, for a batch. Row by row, this rule
is exactly exercise 01's speculative_step fed the uniforms u[b, :k+1] (u[b, :γ] when k = γ) and
then v[b]: the grader checks every row against exercise 01's reference that way.

Cost, which the grader checks without a clock:
    - no Python loop over rows or positions: the number of torch operations your code runs must
      not grow with B or γ;
    - nothing of size B·γ·V: only one residual per row is ever needed, at its rejection position,
      so gather one row of p and one row of q per batch element (B·V numbers each) and build it
      there. Every tensor your code creates must hold at most 2·B·V numbers.

Bad input raises ValueError; the grader looks for "shape", "dtype", "integer", "out of range",
"zero probability", "negative", "NaN". The given check_batched_step_inputs(target_probs,
draft_probs, draft_tokens) checks the shapes, dtypes, devices and token ids, and p and q at the
drafted tokens; call it first. It does not check that every row sums to 1: that would read all
B·(2γ+1)·V probabilities, more than the verification itself reads.

Worked example: three rows whose ratios p/q are 1.2 (always accepted) or 0 (always rejected), so
whatever u holds, row 0 accepts both drafts, row 1 rejects at position 1 and row 2 at position 0.
With seed 0, v = [0.1786, 0.3511, 0.5813]: row 0's bonus comes from [0.05, 0.05, 0.9], rows 1 and
2 sample the residual [0.3, 0, 0.2] (normalised: [0.6, 0, 0.4]).

>>> import torch
>>> accepting, rejecting, bonus = [0.2, 0.6, 0.2], [0.5, 0.0, 0.5], [0.05, 0.05, 0.9]
>>> target_probs = torch.tensor([[accepting, accepting, bonus],
...                              [accepting, rejecting, bonus],
...                              [rejecting, accepting, bonus]], dtype=torch.float64)
>>> draft_probs = torch.tensor([0.2, 0.5, 0.3], dtype=torch.float64).expand(3, 2, 3)
>>> draft_tokens = torch.ones(3, 2, dtype=torch.int64)
>>> result = speculative_step_batched(target_probs, draft_probs, draft_tokens, torch.Generator().manual_seed(0))
>>> result.tokens.tolist(), result.num_accepted.tolist()
([[1, 1, 2], [1, 0, -1], [0, -1, -1]], [2, 1, 0])

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: every row keeps its own prefix
    Task 3: the accept test is strict
    Task 4: many random batches against exercise 01's reference
    Task 5: a residual with no mass
    Task 6: the random contract
    Task 7: the cost: no loop, nothing of size B·γ·V
    Task 8: the output is distributed exactly as p, at every position
    Task 9: bad input
    Task 10: any device
    Task 11: probabilities that require grad (a model's softmax, say) are accepted

Check it with:  kata check 08-batched-verifier   (or: pytest tests/test_08_batched_verifier.py)
"""

from typing import NamedTuple

import torch

from speckata.torch_sampling import sample_rows  # noqa: F401  (given helper)
from speckata.torch_validation import check_batched_step_inputs  # noqa: F401  (given helper)

PAD = -1  # fills each row of tokens after its last token


class VerifiedBatch(NamedTuple):
    tokens: torch.Tensor  # (B, γ+1) int64: accepted drafts, the replacement or bonus token, then PAD
    num_accepted: torch.Tensor  # (B,) int64


def speculative_step_batched(target_probs, draft_probs, draft_tokens, generator=None) -> VerifiedBatch:
    # TODO(08-batched-verifier): verify every row at once, as described above (no loop).
    raise NotImplementedError("08-batched-verifier: speculative_step_batched is not written yet")
