"""Exercise 27-adaptive-draft-length: the bad inputs of Task 8, each with the words its ValueError must name."""

from __future__ import annotations

import torch

from tests.reference.ex25_cases import chains
from tests.reference.ex27_cases import TOY_COSTS

# name -> (the decoder's keyword arguments, the words the error must contain); the decoder must refuse them
# before it calls a model.
BAD_DECODER_SETTINGS = {
    "threshold-below-0": ({"threshold": -0.1}, ("threshold",)), "threshold-above-1": ({"threshold": 1.5}, ("threshold",)),
    "threshold-nan": ({"threshold": float("nan")}, ("threshold",)), "beta-0": ({"beta": 0.0}, ("beta",)),
    "initial-alpha-2": ({"initial_alpha": 2.0}, ("initial_alpha",)), "costs-not-a-triple": ({"costs": "fast"}, ("costs",)),
    "costs-decreasing-batch-sizes": ({"costs": (TOY_COSTS[0], TOY_COSTS[1], [4, 2, 1])}, ("batch_sizes",)),
    "probe-every-0": ({"probe_every": 0}, ("probe_every",)), "probe-every-1.5": ({"probe_every": 1.5}, ("probe_every",)),
    "probe-every-true": ({"probe_every": True}, ("probe_every",)), "probe-every-text": ({"probe_every": "2"}, ("probe_every",)),
}

# name -> (the learner function, its arguments, the words the error must contain). Arguments that hold
# models are built when the test runs (a function here): nothing runs torch while this module is
# imported, so the mutant gate's warm server can fork after importing it.
BAD_RULE_CALLS = {
    "keep_drafting-threshold": ("keep_drafting", ([0.5], 1.01), ("threshold",)),
    "keep_drafting-negative-threshold": ("keep_drafting", ([0.5], -0.01), ("threshold",)),
    "keep_drafting-no-rows": ("keep_drafting", ([], 0.5), ("confidence",)),
    "update_acceptance-count-above-k": ("update_acceptance", (0.5, [3], 2, 0.5), ("accepted",)),
    "update_acceptance-beta": ("update_acceptance", (0.5, [1], 2, 1.5), ("beta",)),
    "update_acceptance-ema": ("update_acceptance", (-0.5, [1], 2, 0.5), ("ema",)),
    "next_gamma-no-rows": ("next_gamma", (0.5, 0, *TOY_COSTS), ("active_rows",)),
    "next_gamma-alpha": ("next_gamma", (1.5, 2, *TOY_COSTS), ("alpha",)),
    "max_gamma-0": ("adaptive_speculative_generate", lambda: (*chains("far"), [[0]], 5, 0, torch.Generator()),
                    ("gamma",)),
}
