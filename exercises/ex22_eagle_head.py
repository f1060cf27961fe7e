"""Exercise 22-eagle-head: EAGLE's head drafts on the target's own features, one step ahead (torch).

Medusa's heads (exercise 21) each guess a token from one hidden state, blind to the tokens in
between. EAGLE (Li et al., 2024) drafts autoregressively instead, at the level of features: a
small head reads the target's last hidden state f_t together with the embedding of the token one
step ahead, x_{t+1}, and predicts the next feature f_{t+1}; the target's own (frozen) head turns
that into a next-token distribution. The sampled token x_{t+1} is EAGLE's point: f_t alone cannot
know which of its likely continuations was drawn, the token tells it. The head then drafts on its
own predicted features, and exercise 01's rule verifies the drafts exactly.
Theory: theory/22-eagle-head.md. Notebook: notebooks/22-eagle-head.ipynb.

Given (speckata.models.gpt, speckata.heads.eagle):
    target.hidden_states(ids) -> (B, T, width)   the last hidden state (after the final norm) of
        ids (B, T). target.forward_new_hidden(ids) -> (hidden (n, width), logits (n, V)): exercise
        10's forward_new with the hidden states too (one pass; the cache grows by n; crop rolls
        back). target.token_embedding (nn.Embedding) and target.head (nn.Linear(width, V)) are the
        target's own input embedding and output head: the head below shares them, frozen.
    EagleHead(width): head.fc, an nn.Linear(2 * width, width) (EAGLE's fusion), and head.layer, one
        causal decoder layer (attention and MLP): head.layer(x) for x (..., T, width) returns
        (..., T, width), row t reading rows 0..t only. head.width. load_eagle_head(): the head
        trained on the committed target (python -m trainers.train_eagle).
    check_features and check_eagle_inputs (speckata.heads.eagle) raise the ValueErrors below.

Task 1: the training pairs (the shift)
    eagle_pairs(hidden, ids) -> (features, tokens, following)
    hidden: the target's hidden states (B, T, width) of ids, an int64 tensor (B, T), T >= 2. Row t
    of a pair (t = 0 .. T-2) reads the feature f_t and the token one step ahead, x_{t+1}, and
    learns the next feature, f_{t+1}. Shapes: features (B, T-1, width), tokens (B, T-1),
    following (B, T-1, width); the values are the inputs' own (no copy needed). Pairing f_t with
    x_t, the token it has already read, is the classic bug: the head never learns which token
    was drawn.

Task 2: the head's predicted features
    eagle_features(head, target, features, tokens) -> tensor (..., T, width)
    features (..., T, width) and tokens (..., T) as Task 1 makes them (or one sequence's: (T, width)
    and (T,)). EAGLE's fusion: each row's token embedding (the target's own, frozen) and its
    feature, concatenated along the last axis with the embedding FIRST (head.fc's weights expect
    that order), go through head.fc (2 * width -> width), then through head.layer, once over all
    rows. Row t is the head's f_{t+1}. Keep autograd on: training backpropagates through it.

Task 3: the loss
    EAGLE's: a regression of the feature plus a weighted classification through the target's head.
    eagle_loss(target, predicted, following, cls_weight=0.1) -> a scalar tensor
    predicted (what Task 2 returns) and following (the target's true f_{t+1}) of one shape (..., width),
    width the target's (target.width): check both yourself, no given helper does (Task 6's "shape"
    and "width").
        regression: the smooth L1 loss (beta 1) between predicted and following, averaged
            over every element.
        classification: the cross-entropy -sum_v P(v) log Q(v) averaged over positions, with P
            the target's next-token distribution read by its own head from the true feature
            (following; a label: no gradient flows into it) and Q the one read from predicted.
        loss = regression + cls_weight * classification   (the paper's w_cls = 0.1)
    The target stays frozen: only the head's parameters are trained.

Task 4: drafting gamma tokens on the head's own features
    eagle_draft(target, head, features, tokens, gamma, generator, temperature=1.0) -> (drafts, q)
    features (n, width), n >= 1: the target's features f_0 .. f_{n-1} of one sequence; tokens (n,)
    int64: the token one step ahead of each, x_1 .. x_n (x_n, the newest token, is not fed to the
    target yet). Under torch.no_grad(), for i = 0 .. gamma-1:
        predicted = eagle_features(head, target, features, tokens)[-1]    (the whole sequence again:
                    no head cache; the causal layer gives the same rows a cache would)
        q_i = next_token_probabilities(target.head(predicted), temperature)
        x = sample_token(q_i, generator)                                   (one draw)
        append predicted to features and x to tokens: the head's OWN feature, not the target's.
    Return drafts, a list of gamma plain ints, and q, a float64 tensor (gamma, V) of the q_i.

Task 5: the decoder, verified with exercise 01's rule
    eagle_generate(target, head, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0)
        -> SpeculativeResult
    sequence = check_eagle_inputs(target, head, prompt_ids, max_new_tokens, gamma, temperature);
    target.reset(). With max_new_tokens 0 return an empty result with no pass. Otherwise:
      0. ONE pass on the whole prompt: features, logits = target.forward_new_hidden(sequence); the
         first new token is sample_token(next_token_probabilities(logits[-1], temperature), generator).
         Invariant from here on: the target's cache holds every token but the newest, and
         features holds the target's hidden state of each of them (len(features) = cache_length).
    Then rounds until max_new_tokens tokens are out:
      1. k = min(gamma, max_new_tokens - tokens so far - 1). If k >= 1: drafts, q = eagle_draft(
         target, head, features, torch.tensor(sequence[1:]), k, generator, temperature); if k = 0
         no drafts and q of shape (0, V).
      2. ONE pass: hidden, logits = target.forward_new_hidden(sequence[target.cache_length:] +
         drafts) (the newest token and the drafts); p = next_token_probabilities(logits, temperature).
      3. Exercise 01's rule, exactly: speculative_step(p.numpy(), q.numpy(), drafts,
         GeneratorRNG(generator)) (one uniform per tested draft, then one sample for the
         replacement or the bonus token); it returns the a kept drafts and one more token.
      4. Append them; features += hidden[:a + 1] (the target's features of the newest token and
         the kept drafts); if the cache holds more than len(sequence) - 1 tokens, crop it to that.
    Result: tokens (plain ints), accepted_per_pass (a) and drafted_per_pass (k) per round,
    target_passes (every forward_new_hidden call, the prompt's included), draft_passes (the head's
    runs: the sum of k). Draws, in order: the first token's sample, then per round k draft samples,
    the uniforms, one sample. At temperature 0 the output is the target's greedy decoding; at any
    temperature it is distributed as the target's own sampling.
    You may use exercise 01: put `from ex01_speculative_step import speculative_step` at the top of
    this file (the grader imports it from the folder it grades: solve 01 first).

Task 6: bad input
    A ValueError naming the problem: "hidden" (not a float tensor (B, T, width)), "ids" (not an
    int64 tensor of hidden's (B, T)), "at least 2" (T < 2), "width" (hidden states or a head
    whose width is not the target's: check_features, check_eagle_inputs; and in eagle_loss,
    predicted and following whose last axis is not target.width), "tokens" (not an int64 tensor of
    features.shape[:-1]), "shape" (eagle_loss's predicted and following differ in shape), "cls_weight" (not a
    finite number >= 0), "gamma" (< 1), "forward_new_hidden" (a target without the interface
    above, e.g. a Markov chain), and from check_eagle_inputs "prompt", "max_new_tokens",
    "temperature".

Worked example (the committed target and head):

>>> import torch
>>> from speckata.decoding.baseline import autoregressive_generate
>>> from speckata.heads.eagle import load_eagle_head
>>> from speckata.models.pretrained import char_tokenizer, load_target
>>> target, head = load_target(), load_eagle_head()
>>> ids = torch.tensor([[10, 11, 12, 13]])
>>> features, tokens, following = eagle_pairs(target.hidden_states(ids), ids)
>>> tokens.tolist(), tuple(features.shape), torch.equal(following[0, 0], target.hidden_states(ids)[0, 1])
([[11, 12, 13]], (1, 3, 128), True)
>>> predicted = eagle_features(head, target, features, tokens)
>>> tuple(predicted.shape), round(eagle_loss(target, predicted, following).item(), 4)
((1, 3, 128), 0.2802)
>>> prompt = char_tokenizer().encode("The class definition ")
>>> result = eagle_generate(target, head, prompt, 24, 3, torch.Generator().manual_seed(0), temperature=0)
>>> result.tokens == autoregressive_generate(target, prompt, 24, torch.Generator(), temperature=0)
True
>>> result.accepted_per_pass, result.target_passes
([3, 3, 2, 3, 3, 3], 7)

Check it with:  kata check 22-eagle-head   (or: pytest tests/test_22_eagle_head.py)
"""

import torch  # noqa: F401
import torch.nn.functional as F  # noqa: F401

from speckata.decoding.baseline import SpeculativeResult, check_count  # noqa: F401  (given)
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token  # noqa: F401
from speckata.heads.eagle import check_eagle_inputs, check_features  # noqa: F401


def eagle_pairs(hidden, ids):
    # TODO(22-eagle-head): the shifted triples of Task 1: f_t with the token one step ahead.
    raise NotImplementedError("22-eagle-head: eagle_pairs is not written yet")


def eagle_features(head, target, features, tokens):
    # TODO(22-eagle-head): EAGLE's fusion, then the head's one decoder layer (Task 2).
    raise NotImplementedError("22-eagle-head: eagle_features is not written yet")


def eagle_loss(target, predicted, following, cls_weight=0.1):
    # TODO(22-eagle-head): smooth L1 on the features plus cls_weight times the cross-entropy against
    # the target's own distribution at the true feature.
    raise NotImplementedError("22-eagle-head: eagle_loss is not written yet")


def eagle_draft(target, head, features, tokens, gamma, generator, temperature=1.0):
    # TODO(22-eagle-head): gamma times: the head's last row, q from target.head of it, one sample,
    # then feed the head its own feature and the sampled token.
    raise NotImplementedError("22-eagle-head: eagle_draft is not written yet")


def eagle_generate(target, head, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0):
    # TODO(22-eagle-head): a pass on the prompt and its first token; then rounds: draft k tokens on
    # the head's features, verify them in one target pass with exercise 01's rule, keep the
    # target's features of what was kept, crop the cache.
    raise NotImplementedError("22-eagle-head: eagle_generate is not written yet")
