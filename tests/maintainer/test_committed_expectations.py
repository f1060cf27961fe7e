"""Values a suite writes down instead of computing on every check are still what they stand for."""

from __future__ import annotations

import torch

from speckata.models.decoding import autoregressive_generate
from speckata.models.pretrained import char_tokenizer, load_target
from tests import test_10_speculative_generate as ex10


def test_ex10_greedy_is_the_float64_targets_greedy_decoding():
    target = load_target(torch.float64)
    prompt = char_tokenizer().encode(ex10.GREEDY_PROMPT)
    greedy = autoregressive_generate(target, prompt, len(ex10.GREEDY), torch.Generator().manual_seed(0), temperature=0.0)
    assert greedy == ex10.GREEDY
