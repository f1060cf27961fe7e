"""Exercise 22-eagle-head: Task 6's bad inputs, each with the function it goes to and the phrase its ValueError names."""

from __future__ import annotations

import torch

from speckata.heads.eagle import EagleHead
from speckata.models.markov import MarkovModel
from tests.reference.ex22_cases import random_head, tiny_gpt


def bad_inputs():
    tiny = tiny_gpt(0)
    head = random_head(16, 0)
    feats, toks = torch.zeros(3, 16), torch.tensor([1, 2, 3])
    pred = torch.zeros(2, 16)
    g = torch.Generator()
    return {
        "hidden-2d": ("eagle_pairs", (torch.zeros(4, 16), torch.tensor([[1, 2, 3, 4]])), ("hidden",)),
        "ids-float": ("eagle_pairs", (torch.zeros(1, 4, 16), torch.zeros(1, 4)), ("ids",)),
        "ids-other-shape": ("eagle_pairs", (torch.zeros(1, 4, 16), torch.tensor([[1, 2, 3]])), ("ids",)),
        "window-of-one": ("eagle_pairs", (torch.zeros(1, 1, 16), torch.tensor([[1]])), ("at least 2",)),
        "features-wrong-width": ("eagle_features", (head, tiny, torch.zeros(3, 8), toks), ("width",)),
        "tokens-wrong-shape": ("eagle_features", (head, tiny, feats, torch.tensor([1, 2])), ("tokens",)),
        "head-of-another-width": ("eagle_features", (EagleHead(8, inner=8, mlp_width=8), tiny, feats, toks), ("width",)),
        "loss-shapes-differ": ("eagle_loss", (tiny, pred, torch.zeros(3, 16)), ("shape",)),
        "loss-wrong-width": ("eagle_loss", (tiny, torch.zeros(2, 8), torch.zeros(2, 8)), ("width",)),
        "cls-weight-negative": ("eagle_loss", (tiny, pred, pred, -0.1), ("cls_weight",)),
        "cls-weight-nan": ("eagle_loss", (tiny, pred, pred, float("nan")), ("cls_weight",)),
        "draft-gamma-zero": ("eagle_draft", (tiny, head, feats, toks, 0, g), ("gamma",)),
        "draft-features-wrong-width": ("eagle_draft", (tiny, head, torch.zeros(3, 8), toks, 2, g), ("width",)),
        "gamma-zero": ("eagle_generate", (tiny, head, [0], 4, 0, g), ("gamma",)),
        "target-without-hidden": ("eagle_generate", (MarkovModel([[0.5, 0.5], [0.5, 0.5]]), head, [0], 4, 2, g),
                                  ("forward_new_hidden",)),
        "generate-head-of-another-width": ("eagle_generate", (tiny, EagleHead(8, inner=8, mlp_width=8), [0], 4, 2, g),
                                           ("width",)),
        "empty-prompt": ("eagle_generate", (tiny, head, [], 4, 2, g), ("prompt",)),
        "negative-max-new-tokens": ("eagle_generate", (tiny, head, [0], -1, 2, g), ("max_new_tokens",)),
        "negative-temperature": ("eagle_generate", (tiny, head, [0], 4, 2, g, -1.0), ("temperature",)),
    }
