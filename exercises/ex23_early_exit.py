"""Exercise 23-early-exit: self-speculation: the target's own first layers draft, the rest verify (torch).

LayerSkip (Elhoushi et al., 2024) needs no draft model at all: the draft is the target's first k
layers, read through the target's own final norm and head ("exiting early"). Verification runs
the remaining layers only: the drafted tokens already went through layers 0 .. k-1 while they
were drafted, and their states and keys/values are reused, not recomputed. The rule that keeps a
prefix is exercise 01's, so the output is exactly the target's. LayerSkip trains the model so
that early exits predict well; the committed target was NOT trained that way, and what its early
exits accept is what this exercise measures. Its twin trained with LayerSkip's recipe
(speckata.models.pretrained.load_layerskip_target) is the second model the grader runs your
decoder on. Theory: theory/23-early-exit.md. Notebook: notebooks/23-early-exit.ipynb.

Given (speckata.models.gpt.GPT; speckata.models.early_exit). Layers are counted from 0; "the
first k layers" are layers 0 .. k-1. The model holds ONE sequence; each layer keeps its own cache.
    model.num_layers, model.width, model.vocab_size
    model.embed_new(ids) -> (n, width)   layer 0's input for n new token ids (their embeddings at
        the positions after what layer 0 holds). Runs no layer, caches nothing.
    model.forward_layers(hidden, start_layer, end_layer) -> (n, width)   layers start_layer ..
        end_layer - 1 over n new positions whose input to start_layer is hidden (n, width); returns
        their output after layer end_layer - 1 (before the final norm). Those layers' caches must
        hold the same length, and each grows by n. ONE pass through those layers.
    model.exit_logits(hidden) -> (..., V)   the final norm and head on any layer's output: after
        the last layer these are the target's logits, after layer k-1 the draft's.
    model.layer_cache_lengths   tokens each layer holds; model.cache_length: the fewest of them.
    model.crop(length)   every layer keeps at most `length` tokens (crop_layers(length, start_layer,
        end_layer) does it for some layers only: this decoder never needs that). model.reset().
    model.layer_computations   grows by n per layer for every n positions a layer runs: the
        grader reads it. A plain forward_new of n tokens adds n * num_layers.
    speckata.models.early_exit.check_early_exit_inputs raises the ValueErrors below.
Random draws: next_token_probabilities, sample_token and draw_uniform (speckata.decoding.sampling,
as in exercise 10), each sample_token and draw_uniform one torch.rand from the generator.

Task 1: drafting with the first k layers
    early_exit_draft(model, sequence, exit_layer, gamma, generator, temperature=1.0)
        -> (drafts, q, states)
    sequence: the whole text so far (prompt and new tokens, plain ints); at a round's start every
    layer holds sequence[:model.cache_length]; the tokens after that are pending. The contract the
    grader checks, call by call: exactly gamma calls of model.forward_layers, each through layers
    0 .. exit_layer - 1 only, each on the embeddings (model.embed_new) of the tokens those layers
    have not read yet (the first call: the pending tokens; every later call: the one draft just
    sampled). Draft i is one sample_token from q_i, the next-token distribution
    (next_token_probabilities at `temperature`) of the draft's exit read at the LAST position the
    call ran. Return drafts [x_0 .. x_{gamma-1}] (ints), q (gamma, V), the q_i stacked, and
    states (rows, width): every row every call returned, in order (layer exit_layer's input for
    every position the draft ran; verification continues from them). gamma = 0: no call, ([], an
    empty (0, V) float64 tensor, an empty (0, width) tensor).

Task 2: verification that reuses the draft's work
    early_exit_verify(model, sequence, drafts, states, exit_layer, temperature=1.0) -> p
    The first exit_layer layers have read everything but the last draft (with no draft: the
    pending tokens); the later layers have read only sequence[:model.cache_length]. The contract:
    exactly two calls of model.forward_layers, no more. The first runs layers 0 .. exit_layer - 1
    on what they have not read yet, and nothing else; the second runs layers exit_layer ..
    num_layers - 1, once, over every position they lack, starting from the states the draft
    handed over and the first call's rows. p (len(drafts) + 1, V): row i the target's
    distribution (next_token_probabilities of the final exit at `temperature`) after drafts[:i].
    Afterwards every layer holds sequence + drafts. Recomputing layers 0 .. exit_layer - 1 for
    tokens the draft already ran gives the same p and costs layer computations the grader counts.

Task 3: the decoder: accept, then crop every layer
    early_exit_generate(model, prompt_ids, max_new_tokens, exit_layer, gamma, generator,
                        temperature=1.0) -> SpeculativeResult
    sequence = check_early_exit_inputs(model, prompt_ids, max_new_tokens, exit_layer, gamma,
    temperature); model.reset(). Until max_new_tokens tokens are out:
      0. m = min(gamma, max_new_tokens - (tokens so far) - 1), this round's number of drafts
         (k names the exit depth, exit_layer, everywhere in this text).
      1. drafts, q, states = early_exit_draft(model, sequence, exit_layer, m, generator, temperature).
      2. p = early_exit_verify(model, sequence, drafts, states, exit_layer, temperature).
      3. Exercise 01's rule, draws as in exercise 10: for i = 0 .. m-1, u = draw_uniform(generator);
         keep x_i if u < p_i[x_i] / q_i[x_i]; at the first rejection sample_token(max(p_i - q_i, 0))
         (from p_i if that has total mass <= 1e-12) ends the round; all kept: a bonus sample_token(p_m).
      4. Append the kept drafts and the last token; if model.cache_length > len(sequence) - 1,
         model.crop(len(sequence) - 1): every layer forgets the rejected drafts, and no layer
         holds the newest token (the next round's first pending token).
    Result: tokens, accepted_per_pass and drafted_per_pass (m) per round, target_passes (rounds:
    one verification each), draft_passes (m per round).

Task 4: temperature 0 is the target's greedy decoding
    At temperature 0 the output equals autoregressive_generate(model, prompt, n, generator,
    temperature=0) token for token, for every exit_layer.

Task 5: the output is distributed as the target's
    Sampled, whole sequences follow the target (all num_layers layers), whatever exit_layer.

Task 6: bad input
    A ValueError from check_early_exit_inputs naming "forward_layers" (a model without the layer
    interface, e.g. a Markov chain), "exit_layer" (not an integer from 1 to num_layers - 1),
    "prompt", "max_new_tokens", "gamma" (>= 1) or "temperature".

Worked example (the committed 6-layer target; its first 3 layers draft):

>>> import torch
>>> from speckata.decoding.baseline import autoregressive_generate
>>> from speckata.models.pretrained import char_tokenizer, load_target
>>> target = load_target()
>>> prompt = char_tokenizer().encode("The class definition ")
>>> drafts, q, states = early_exit_draft(target, prompt, 3, 2, torch.Generator().manual_seed(0), 0)
>>> drafts, tuple(q.shape), tuple(states.shape), target.layer_cache_lengths
([1, 1], (2, 96), (22, 128), (22, 22, 22, 0, 0, 0))
>>> p = early_exit_verify(target, prompt, drafts, states, 3, 0)
>>> p.argmax(dim=-1).tolist(), target.layer_cache_lengths
([85, 1, 1], (23, 23, 23, 23, 23, 23))
>>> before = target.layer_computations
>>> result = early_exit_generate(target, prompt, 16, 3, 4, torch.Generator().manual_seed(0), 0)
>>> early_exit_work = target.layer_computations - before
>>> before = target.layer_computations
>>> result.tokens == autoregressive_generate(target, prompt, 16, torch.Generator(), temperature=0)
True
>>> plain_work = target.layer_computations - before
>>> result.accepted_per_pass, early_exit_work, plain_work
([0, 1, 1, 2, 3, 3], 294, 216)

Both counts include the prompt (21 tokens through 6 layers: 126). Early exit spends more layer
computations than plain decoding, as every speculative decoder does: each drafted position climbs
every layer once, and the rejected ones are paid for too. Its gain, when the exit is trained, is
in layers climbed one after the other (theory/23-early-exit.md, section 4).

Check it with:  kata check 23-early-exit   (or: pytest tests/test_23_early_exit.py)
"""

import torch  # noqa: F401

from speckata.decoding.baseline import SpeculativeResult  # noqa: F401  (given)
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token  # noqa: F401
from speckata.models.early_exit import check_early_exit_inputs  # noqa: F401


def early_exit_draft(model, sequence, exit_layer, gamma, generator, temperature=1.0):
    # TODO(23-early-exit): gamma drafts from the exit after layer exit_layer - 1; keep what the
    # first layers computed (Task 1 lists the calls the grader expects).
    raise NotImplementedError("23-early-exit: early_exit_draft is not written yet")


def early_exit_verify(model, sequence, drafts, states, exit_layer, temperature=1.0):
    # TODO(23-early-exit): finish the climb without redoing the draft's work (Task 2: two calls).
    raise NotImplementedError("23-early-exit: early_exit_verify is not written yet")


def early_exit_generate(model, prompt_ids, max_new_tokens, exit_layer, gamma, generator, temperature=1.0):
    # TODO(23-early-exit): draft, verify, exercise 01's rule, then crop every layer to len(sequence) - 1.
    raise NotImplementedError("23-early-exit: early_exit_generate is not written yet")
