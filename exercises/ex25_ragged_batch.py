"""Exercise 25-ragged-batch: ragged batched speculative decoding (B sequences at once, torch).

Every decoder so far decoded one sequence. A server decodes many at once, and that changes the
algorithm twice: the rows of a batch hold different lengths (different prompts, different
numbers of accepted drafts), and each row must advance by ITS OWN accepted count. The easy fix,
advancing every row by the batch's smallest count, throws tokens away and, with the shortcut of
resampling from p, biases the output (theory/25-ragged-batch.md). Here you write the ragged
version: one batched draft pass per draft position, ONE batched target pass per round, exercise
08's verifier for the whole batch, and every row cropped to its own length.
Theory: theory/25-ragged-batch.md. Worked example: notebooks/25-ragged-batch.ipynb.

The models' ragged batch (speckata.models.ragged; the grader hands you GPTs or Markov chains,
each wrapped in a recorder: every call, with its mask and positions, is part of the contract)
    model.reset_rows(B)          forget every row; start B empty rows
    model.row_lengths            (L_0, ..., L_{B-1}): the tokens each row's cache holds
    model.forward_rows(ids, attention_mask, position_ids) -> logits (B, n, V)
                                 ONE pass; row b is fed its c_b new tokens, padded with PAD (-1)
                                 to n; logits[b, i]: the logits after real token i of row b
    model.crop_rows(lengths)     row b keeps its first lengths[b] tokens (<= L_b)
The model checks the mask and positions and refuses any other than the contract's (a ValueError
naming the row, the token and the slot): on a real server a wrong mask fails silently.

ragged_inputs(row_lengths, new_tokens) -> (ids, attention_mask, position_ids)   (Task 1)
    row_lengths: L_b for every row; new_tokens: a list of B lists of ids (a list may be empty;
    at least one is not). With n = the longest list and K = max(row_lengths) + n:
    - ids: int64 (B, n), row b's new tokens, then PAD up to n;
    - attention_mask: bool (B, n, K) over key slots 0..K-1 of each row: real token i of row b
      goes to slot L_b + i and sees exactly slots 0 .. L_b + i (its row's cached tokens and its
      own new tokens up to itself), never a slot past them; a padding token sees nothing;
    - position_ids: int64 (B, n), L_b + i for real token i of row b (its place in ITS sequence:
      padding counts for nothing), 0 for padding.

batched_speculative_generate(target, draft, prompts, max_new_tokens, gamma, generator, temperature=1.0)
    -> BatchedSpeculativeResult   (Tasks 2 to 8)
    prompts: a list of B >= 1 non-empty prompts (lists of ids); max_new_tokens (>= 0) for every
    row; gamma >= 1; generator: a torch.Generator; temperature for target and draft (0: greedy).
Returns speckata.decoding.baseline.BatchedSpeculativeResult: tokens (B lists of exactly
max_new_tokens plain ints), accepted_per_row (row b: the verifier's num_accepted in each round
the row took part in), drafted_per_round (each round's k), target_passes, draft_passes (how many
forward_rows calls each model received).

The contract. sequences = check_batched_generation_inputs(...) (given); target.reset_rows(B),
then draft.reset_rows(B). Rounds, numbered from 1, until every row holds max_new_tokens tokens:
    0. The round's rows are the active ones (fewer than max_new_tokens new tokens), in row order:
       A of them. A row that is done leaves the batch for good: in every later pass it is all
       padding (fed []), it draws no random number and its logits are not read.
       k = min(gamma, max over active rows of (max_new_tokens - its new tokens) - 1). This is the
       one place gamma is used.
    1. Draft (k passes; none when k = 0). Pass 1 feeds each active row sequence[L_b:] with L_b
       its draft row length (what its draft cache lacks: 1 or 2 tokens, the whole prompt in round
       1); pass j > 1 feeds each active row its previous draft [x_{j-1}]. Every pass is
       draft.forward_rows(*ragged_inputs(draft.row_lengths, pending)). From each active row's
       LAST real token's logits: q = next_token_probabilities(rows (A, V), temperature), then
       x = sample_rows(q, torch.rand((A,), generator=generator, dtype=torch.float64)).
    2. Verify (one pass). Feed each active row sequence[L_b:] + its k drafts (L_b: the target's
       row length); p: next_token_probabilities of the logits of its LAST k + 1 real tokens:
       (A, k+1, V). Then speculative_step_batched(p, q (A, k, V), drafts (A, k), generator):
       exercise 08, whose draws (u (A, k), then v (A,)) are the round's last draws. When k = 0,
       q is an empty float64 (A, 0, V) and drafts an empty int64 (A, 0): p alone decides.
    3. Each active row b appends its own tokens[b, :num_accepted[b] + 1], keeping only as many as
       it still needs (a prefix of an exact sample is exact).
    4. Roll back, every round: target.crop_rows(...), then draft.crop_rows(...), each with
       min(row_lengths[b], len(sequence_b) - 1) for every row b (done rows too): a row's cache
       never holds its newest token nor a rejected one.
At temperature 0 every row is the target's greedy decoding of its prompt alone.

Bad input: ValueError from check_batched_generation_inputs, naming "vocabulary" (target and draft
differ), "batch" (no prompts), "prompts[b]" (an empty prompt, an id out of range), "context" (a
prompt that, with max_new_tokens and gamma, would not fit the models' context), "max_new_tokens",
"gamma" or "temperature".

Worked example (toy Markov chains, row = previous token):

>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> from speckata.models.recording import RecordingModel
>>> ids, mask, positions = ragged_inputs([3, 1], [[2], [0, 1, 2]])
>>> ids.tolist(), positions.tolist()
([[2, -1, -1], [0, 1, 2]], [[3, 0, 0], [1, 2, 3]])
>>> mask.int().tolist()[0]   # row 0: its real token sees slots 0..3; its padding sees nothing
[[1, 1, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]
>>> target = RecordingModel(MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]))
>>> draft = RecordingModel(MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]))
>>> result = batched_speculative_generate(target, draft, [[0], [1, 2]], 5, 2, torch.Generator().manual_seed(1))
>>> result.tokens, result.accepted_per_row, result.drafted_per_round
([[1, 1, 2, 1, 2], [0, 1, 1, 1, 2]], [[0, 2, 0], [1, 2]], [2, 2, 0])
>>> [(call[1], call[2]) for call in target.calls if call[0] == "rows"]   # (ids, row lengths before)
[(((0, 0, 1, -1), (1, 2, 0, 0)), (0, 0)), (((1, 1, 2), (1, 1, 1)), (1, 3)), (((1,), (-1,)), (4, 6))]
>>> [call[1] for call in target.calls if call[0] == "crop_rows"]   # row 1 is done after round 2
[(1, 3), (4, 6), (5, 6)]

Tasks (the grader reports a failure by its task number):
    Task 1: the padding, the mask, the positions
    Task 2: the worked example
    Task 3: one round: k batched draft passes, one batched target pass, a crop per row
    Task 4: rows that finish
    Task 5: temperature 0 is every row's greedy decoding, alone
    Task 6: exact replay against the reference
    Task 7: every row is distributed as the target's own sampling of its prompt
    Task 8: bad input

Check it with:  kata check 25-ragged-batch   (or: pytest tests/test_25_ragged_batch.py)
"""

import torch  # noqa: F401

from ex08_batched_verifier import speculative_step_batched  # noqa: F401  (your exercise 08: solve it first)
from speckata.decoding.baseline import BatchedSpeculativeResult, check_batched_generation_inputs  # noqa: F401  (given)
from speckata.decoding.sampling import next_token_probabilities  # noqa: F401
from speckata.models.ragged import PAD  # noqa: F401
from speckata.torch_sampling import sample_rows  # noqa: F401


def ragged_inputs(row_lengths, new_tokens):
    # TODO(25-ragged-batch): pad the ids, build the mask and the positions of Task 1.
    raise NotImplementedError("25-ragged-batch: ragged_inputs is not written yet")


def batched_speculative_generate(target, draft, prompts, max_new_tokens, gamma, generator, temperature=1.0):
    # TODO(25-ragged-batch): draft k tokens for every active row, verify the batch in one target pass
    # with speculative_step_batched, advance and crop each row by its own count; repeat.
    raise NotImplementedError("25-ragged-batch: batched_speculative_generate is not written yet")
