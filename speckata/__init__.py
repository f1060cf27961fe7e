"""speckata: learn speculative decoding by implementing it, graded exactly.

The given helpers a learner may import:

- ``sample(probs, rng)``: inverse-CDF sampling with one ``rng.random()`` call.
- ``ReplayRNG(values)``: a generator that replays fixed uniforms, for exact grading.
- ``check_step_inputs(p, q, draft)``: the input checks every verify rule shares.
"""

from speckata.replay import ReplayError, ReplayRNG
from speckata.sampling import sample
from speckata.validation import check_step_inputs

__all__ = ["ReplayError", "ReplayRNG", "check_step_inputs", "sample"]
