"""The cost model of early exit (exercise 23): one shallow draft step and one verification pass at
each exit layer k, in plain decoding steps (the early exit bench's second table).

At a context of ``context`` tokens of a held-out window, each timed interleaved, ``calls`` calls
per timing, ``repeats`` timings, the median kept:

- a plain step: one token through every layer against the cache (``forward_new``), its
  next-token distribution and one sample (what ``autoregressive_generate`` does per token);
- a shallow draft step at k: one token's embedding through layers 0 .. k-1 (``forward_layers``),
  the exit (``exit_logits``), its distribution and one sample;
- a verification at k of gamma drafts: the last draft through layers 0 .. k-1, then gamma + 1
  rows through layers k .. L-1 in one call, the exit and the gamma + 1 distributions.

A round of m drafts costs about m shallow steps and one verification, and yields tau tokens
(the bench measures tau), so the model predicts a speedup of tau / (m x step + verification);
the acceptance rule's own draws and the crops are left out, so it errs on the generous side.
"""

from __future__ import annotations

import torch

from speckata.bench._timing import in_units_of, interleaved_seconds
from speckata.decoding.sampling import next_token_probabilities, sample_token
from speckata.models.pretrained import text_windows


@torch.no_grad()
def step_costs(model, context: int, gamma: int, temperature: float, repeats: int = 7, calls: int = 30) -> dict:
    ids = text_windows("held_out", context + gamma + 1, limit=1)[0].tolist()
    generator, layers = torch.Generator().manual_seed(0), model.num_layers
    model.reset()
    model.forward_new(ids[:context])

    def plain_step():
        model.crop(context)
        sample_token(next_token_probabilities(model.forward_new(ids[context: context + 1])[-1], temperature), generator)

    def shallow_step(k):
        model.crop(context)
        hidden = model.forward_layers(model.embed_new(ids[context: context + 1]), 0, k)
        sample_token(next_token_probabilities(model.exit_logits(hidden[-1]), temperature), generator)

    def verification(k, states):
        model.crop(context)  # the last draft sits gamma - 1 places early: the same work, an attention shorter by gamma - 1 rows
        last = model.forward_layers(model.embed_new(ids[context + gamma - 1: context + gamma]), 0, k)
        hidden = model.forward_layers(torch.cat([states, last]), k, layers)
        next_token_probabilities(model.exit_logits(hidden), temperature)

    steps = {"plain": plain_step}
    for k in range(1, layers):
        model.crop(context)
        states = model.forward_layers(model.embed_new(ids[context: context + gamma]), 0, k)  # the drafts' rows
        steps[f"shallow {k}"] = lambda k=k: shallow_step(k)
        steps[f"verification {k}"] = lambda k=k, states=states: verification(k, states)
    model.crop(context)
    costs = in_units_of("plain", interleaved_seconds(steps, repeats, calls))
    model.reset()
    table = {}
    for k in range(1, layers):
        shallow, verify = costs[f"shallow {k}"], costs[f"verification {k}"]
        table[k] = {"shallow_step": shallow["passes"], "shallow_spread": shallow["spread"],
                    "verification": verify["passes"], "verification_spread": verify["spread"]}
    return table
