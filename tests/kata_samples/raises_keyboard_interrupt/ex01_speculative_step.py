"""Sample learner file for the kata command's tests (01-speculative-step): raises KeyboardInterrupt itself.

Nobody pressed Ctrl-C: the grader must fail the test and say so, not stop the whole run as if the
person at the keyboard had.
"""


def speculative_step(p, q, draft, rng) -> list[int]:
    raise KeyboardInterrupt  # a debugging leftover: "stop here"
