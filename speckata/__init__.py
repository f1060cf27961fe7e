"""speckata: learn speculative decoding by implementing it, graded exactly.

The given helpers a learner may import:

- ``sample(probs, rng)``: inverse-CDF sampling with one ``rng.random()`` call.
- ``ReplayRNG(values)``: a generator that replays fixed uniforms, for exact grading.
- ``check_step_inputs(p, q, draft)``: the input checks every verify rule shares.

They are imported on first use (``from speckata import sample`` works as usual), so that the
``kata`` command, which needs none of them, starts without importing numpy.
"""

from __future__ import annotations

import importlib

from speckata import moved

moved.install()  # old import paths (speckata.models.medusa, ...) answer with the moved modules

_HOMES = {"ReplayError": "speckata.replay", "ReplayRNG": "speckata.replay", "sample": "speckata.sampling",
          "check_step_inputs": "speckata.validation"}

__all__ = ["ReplayError", "ReplayRNG", "check_step_inputs", "sample"]


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'speckata' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
