"""The cost of one draft step of each heads-track draft against one target pass (the heads bench's second table).

At a context of ``context`` tokens (a held-out window), each timed interleaved, ``calls`` calls per
timing, ``repeats`` timings, the median kept:

- a target pass over one new token (``forward_new_hidden``), and over gamma + 1 (a round's pass);
- exercise 22's EAGLE step: the head's layer over all ``context`` rows (no cache), then q and one
  sample through the target's head (``next_token_probabilities``, ``sample_token``);
- exercise 28's EAGLE step: one row against the head's cache (``eagle_head_step``), then q and one
  sample; the q and sample alone, to show what the layer itself costs;
- a step of exercise 10's distilled draft (one token against its cache, q and one sample);
- Medusa's three heads on one hidden state (their one call per round, greedy: no q, no sample).

Every figure is in target passes of one token, so the ratios carry across machines better than times.
"""

from __future__ import annotations

import torch

from speckata.bench._timing import in_units_of, interleaved_seconds
from speckata.decoding.sampling import next_token_probabilities, sample_token
from speckata.models.pretrained import text_windows
from speckata.real.graded import graded_function


def filled_caches(target, head, distilled, eagle_head_step, ids: list[int], context: int):
    """The target's cache over ``ids[:context]``, the EAGLE head's over all its rows but the last, the
    distilled draft's over ``context - 1`` tokens; (the target's features, the token after each)."""
    target.reset()
    features, _ = target.forward_new_hidden(ids[:context])
    tokens = torch.tensor(ids[1: context + 1])
    head.reset()
    eagle_head_step(head, target, features[:-1], tokens[:-1])
    distilled.reset()
    distilled.forward_new(ids[: context - 1])
    return features, tokens


@torch.no_grad()
def step_costs(target, head, heads, distilled, context: int, gamma: int, folder: str, repeats: int = 7,
               calls: int = 30) -> dict:
    eagle_features = graded_function("ex22_eagle_head", "eagle_features", folder)
    eagle_head_step = graded_function("ex28_eagle_head_cache", "eagle_head_step", folder)
    medusa_logits = graded_function("ex21_medusa_heads", "medusa_logits", folder)
    ids = text_windows("held_out", context + gamma + 1, limit=1)[0].tolist()
    generator = torch.Generator().manual_seed(0)
    features, tokens = filled_caches(target, head, distilled, eagle_head_step, ids, context)

    def target_pass(n):
        target.crop(context)
        target.forward_new_hidden(ids[context: context + n])

    def q_and_sample(feature):
        return sample_token(next_token_probabilities(target.head(feature), 1.0), generator)

    def cached_step():
        head.crop(context - 1)
        q_and_sample(eagle_head_step(head, target, features[-1:], tokens[-1:])[-1])

    def distilled_step():
        distilled.crop(context - 1)
        sample_token(next_token_probabilities(distilled.forward_new(ids[context - 1: context])[-1], 1.0), generator)

    steps = {
        "target pass, 1 token": lambda: target_pass(1),
        f"target pass, {gamma + 1} tokens": lambda: target_pass(gamma + 1),
        "eagle step, no cache (ex22)": lambda: q_and_sample(eagle_features(head, target, features, tokens)[-1]),
        "eagle step, cached (ex28)": cached_step,
        "q and one sample alone": lambda: q_and_sample(features[-1]),
        "distilled draft step (ex10)": distilled_step,
        "medusa heads, one call (ex21)": lambda: medusa_logits(heads, features[-1]),
    }
    return in_units_of("target pass, 1 token", interleaved_seconds(steps, repeats, calls))
