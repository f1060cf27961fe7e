"""What a decoder's replay checks last: the tokens, the counters, the draws (exercises 22, 28, 30 all
three; exercises 21, 23 and 29 the counters).

By then every call on the target and the head matched the contract's, so what is left to differ
is what the decoder returned and how many random numbers it drew.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure

COUNTERS = ("accepted_per_pass", "drafted_per_pass", "target_passes", "draft_passes")


def check_tokens_counters_and_draws(function: str, got, expected, mine: torch.Generator, theirs: torch.Generator,
                                    case: str, draws: str) -> None:
    """``draws``: the contract's draws in words, e.g. "per round k draft samples, the uniforms, one sample"."""
    tokens = list(getattr(got, "tokens", []))
    if tokens != expected.tokens or not all(type(t) is int for t in tokens):
        raise GradingFailure(f"{function} returned tokens {tokens}; expected {expected.tokens} (plain ints).\n{case}\n"
                             "The reference's rounds:\n" + "\n".join("    " + line for line in expected.rounds[:6]))
    check_counters(got, expected, case)
    if not torch.equal(mine.get_state(), theirs.get_state()):
        raise GradingFailure(f"{function} drew another number of random numbers than the contract (the first "
                             f"token's sample; {draws}).\n{case}")


def check_counters(got, expected, case: str) -> None:
    """Each of COUNTERS read from the learner's result ``got`` (missing: None) against the reference's."""
    for name in COUNTERS:
        if getattr(got, name, None) != getattr(expected, name):
            raise GradingFailure(f"{name} is {getattr(got, name, None)}; expected {getattr(expected, name)}.\n{case}")
