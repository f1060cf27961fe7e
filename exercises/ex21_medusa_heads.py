"""Exercise 21-medusa-heads: drafts that live in the target: Medusa's heads (torch).

Every decoder so far drafted with a second model. Medusa (Cai et al., 2024) keeps ONE model: K
small heads sit on the frozen target's last hidden state and guess the tokens after the one the
target's own head predicts. One target pass then verifies the target's token and the heads'
guesses together, and the hidden state at the last accepted position feeds the heads again.
Theory: theory/21-medusa-heads.md. Notebook: notebooks/21-medusa-heads.ipynb.

The convention (the classic off-by-one). At position t the target has read ids[0..t]; its own
head predicts ids[t + 1]. Head k (k = 0, 1, .., K-1) predicts the token after that one and k more:
ids[t + k + 2]. For ids = [10, 11, 12, 13, 14], at t = 0 (having read 10) the target predicts 11,
head 0 predicts 12 and head 1 predicts 13.

Given (speckata.models.gpt, speckata.heads.medusa):
    target.hidden_states(ids) -> (B, T, width)   the last hidden state (after the final norm) of
        ids (B, T); target(ids) is target.head of it. target.width is the width.
    target.forward_new_hidden(ids) -> (hidden (n, width), logits (n, V))   forward_new of exercise
        10 with the hidden states too: one pass, the cache grows by n. target.crop(length) rolls back.
    MedusaHeads(width, vocab_size, num_heads): the heads' parameters only. heads.blocks[k] is an
        nn.Linear(width, width) (W and b), heads.projections[k] an nn.Linear(width, V, bias=False);
        heads.num_heads, heads.width, heads.vocab_size. MedusaHeads.from_target(target, K) starts
        each head as the target's own head (blocks all zero, projections copied from target.head).
    load_medusa_heads(): the 3 heads trained on the committed target (python -m trainers.train_medusa).
    IGNORE_INDEX = -100: the label of a position a head has nothing to learn from.
    check_head_count, check_hidden and check_medusa_inputs raise the ValueErrors below.

Task 1: the labels each head learns
    medusa_labels(ids, num_heads) -> int64 tensor (num_heads, B, T)
    ids: an int64 tensor (B, T) of token ids. labels[k, b, t] = ids[b, t + k + 2] when
    t + k + 2 < T, else IGNORE_INDEX (past the end of the window: nothing to learn there).

Task 2: the heads' logits
    medusa_logits(heads, hidden) -> tensor (num_heads, *hidden.shape[:-1], V)
    hidden: a float tensor (..., width). Head k, Medusa-1's residual block then its projection:
        logits[k] = heads.projections[k](hidden + SiLU(heads.blocks[k](hidden)))
    (torch.nn.functional.silu). Keep autograd on: training backpropagates through it.

Task 3: the weighted loss
    medusa_loss(logits, labels, decay=0.8) -> a scalar tensor
    logits (K, ..., V) and labels (K, ...) as Tasks 1 and 2 make them. Head k's loss is the mean
    cross-entropy over its positions whose label is not IGNORE_INDEX
    (F.cross_entropy(..., ignore_index=IGNORE_INDEX)); the total is
        sum over k of decay**k * loss_k                 (Medusa's code: 0.8**k)
    A head with no labelled position at all adds 0 (not NaN). Far heads guess worse and learn less
    reliably; the decay keeps their gradients from swamping the near heads'.

Task 4: greedy decoding, the heads verified in one target pass
    medusa_generate(target, heads, prompt_ids, max_new_tokens) -> SpeculativeResult
    prompt = check_medusa_inputs(target, heads, prompt_ids, max_new_tokens); target.reset(). With
    max_new_tokens 0 return an empty result with no pass. Otherwise one pass on the whole prompt,
    hidden, logits = target.forward_new_hidden(prompt), and h, z = hidden[-1], logits[-1]. Then,
    until max_new_tokens tokens are out:
      1. token = z.argmax(): the target's own greedy choice, always right. Append it; stop if
         max_new_tokens tokens are out now.
      2. guesses = the top-1 token of each head at h (medusa_logits(heads, h).argmax(-1)), the
         first min(K, tokens still to come) of them.
      3. ONE pass: hidden, logits = target.forward_new_hidden([token] + guesses). Row i predicts
         the token after [token] + guesses[:i]; accept the longest run of guesses with
         guesses[i] == logits[i].argmax(); call it a. Append guesses[:a].
      4. target.crop(len(prompt) + tokens so far): the rejected guesses leave the cache (every
         round, even when nothing is dropped). h, z = hidden[a], logits[a]: the last accepted
         position's state drafts the next round.
    Result: tokens (plain ints), accepted_per_pass (a) and drafted_per_pass (len(guesses)) per
    verifying pass, target_passes (every forward_new_hidden call, the prompt's included),
    draft_passes 0 (the heads ride on the target's pass). The output is the target's greedy
    decoding, token for token.

Task 5: bad input
    A ValueError naming the problem: "num_heads" (medusa_labels with a head count that is not an
    integer >= 1: check_head_count), "ids" (not an int64 tensor (B, T)), "width" (hidden states
    whose last axis is not heads.width: check_hidden), "shape" (labels not of logits.shape[:-1]),
    "decay" (not a finite number > 0), "forward_new_hidden" (a target without the interface above,
    e.g. a Markov chain: check_medusa_inputs), and from check_medusa_inputs "prompt",
    "max_new_tokens", "vocabulary".

Worked example (the committed target; fresh heads copy its head, the trained ones guess ahead):

>>> import torch
>>> from speckata.decoding.baseline import autoregressive_generate
>>> from speckata.heads.medusa import MedusaHeads, load_medusa_heads
>>> from speckata.models.pretrained import char_tokenizer, load_target
>>> ids = torch.tensor([[10, 11, 12, 13, 14]])
>>> medusa_labels(ids, 2).tolist()
[[[12, 13, 14, -100, -100]], [[13, 14, -100, -100, -100]]]
>>> target = load_target()
>>> fresh = MedusaHeads.from_target(target, 2)
>>> logits = medusa_logits(fresh, target.hidden_states(ids))
>>> tuple(logits.shape), torch.allclose(logits[1], target(ids), atol=1e-5)
((2, 1, 5, 96), True)
>>> round(medusa_loss(logits, medusa_labels(ids, 2)).item(), 4)
8.9395
>>> prompt = char_tokenizer().encode("The class definition ")
>>> result = medusa_generate(target, load_medusa_heads(), prompt, 16)
>>> result.tokens == autoregressive_generate(target, prompt, 16, torch.Generator(), temperature=0)
True
>>> result.accepted_per_pass, result.target_passes
([1, 1, 0, 2, 2, 0, 2], 8)

Check it with:  kata check 21-medusa-heads   (or: pytest tests/test_21_medusa_heads.py)
"""

import torch  # noqa: F401
import torch.nn.functional as F  # noqa: F401

from speckata.decoding.baseline import SpeculativeResult  # noqa: F401  (given)
from speckata.heads.medusa import IGNORE_INDEX, check_head_count, check_hidden, check_medusa_inputs  # noqa: F401


def medusa_labels(ids, num_heads):
    # TODO(21-medusa-heads): labels[k, b, t] = ids[b, t + k + 2], IGNORE_INDEX past the window's end.
    raise NotImplementedError("21-medusa-heads: medusa_labels is not written yet")


def medusa_logits(heads, hidden):
    # TODO(21-medusa-heads): per head, projection(hidden + SiLU(block(hidden))), stacked on a new first axis.
    raise NotImplementedError("21-medusa-heads: medusa_logits is not written yet")


def medusa_loss(logits, labels, decay=0.8):
    # TODO(21-medusa-heads): sum over heads of decay**k times the cross-entropy over labelled positions.
    raise NotImplementedError("21-medusa-heads: medusa_loss is not written yet")


def medusa_generate(target, heads, prompt_ids, max_new_tokens):
    # TODO(21-medusa-heads): the target's token plus the heads' top-1 guesses, verified in one pass;
    # keep the accepted run, crop the cache, draft again from the last accepted position.
    raise NotImplementedError("21-medusa-heads: medusa_generate is not written yet")
