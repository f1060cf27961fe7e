"""The two models the model interface's own tests run on (test_tree_pass.py, test_ragged_batch.py):
the shipped GPT target (built once per session; each test resets it) and an order-2 Markov toy."""

from __future__ import annotations

from functools import lru_cache

from speckata.models.markov import random_markov_model
from speckata.models.pretrained import load_target


@lru_cache(maxsize=1)
def shipped_target():
    return load_target()


def models():
    """(name, model) pairs: the shipped GPT target, then a fresh order-2 Markov chain."""
    return [("the shipped GPT target", shipped_target()), ("an order-2 Markov chain", random_markov_model(6, 2, 3))]
