"""How many tokens prompt lookup should propose: the count that buys the most tokens per millisecond.

transformers' prompt lookup is off unless ``generate`` gets ``prompt_lookup_num_tokens`` (no
default; the benchmark passes 10, the default of ``PromptLookupCandidateGenerator``'s
``num_output_tokens``). Once on, it proposes that fixed count whenever it finds the context's last
2 tokens, or failing that its last token, earlier in the context: from the earliest such place,
cut short at the end of the context (it never copies past it). Every proposal costs the target a
wider pass, right or wrong.

Here the count depends on two measured things:

- **the match length** m: how many of the context's last tokens occur, in that order, earlier in
  it (the longest such suffix; ``match_length``). A long match is strong evidence that the copy
  goes on; a match of one common token ("the", ",") is weak. Each length m (capped) keeps its own
  count of proposed tokens the target accepted and tested in this generation, starting from a
  prior, so the estimate a(m) of the chance that a proposed token survives follows the text;
- **the cost of a pass** over j new tokens, c(j) in milliseconds (``PassCost``), measured once on
  this machine (``measure_pass_ms``; the benchmark prints it). On a CPU a pass over 2 tokens costs
  markedly more than one over 1, and the cost then grows slowly with the width.

With a(m), proposing k tokens yields E(k) = 1 + a + ... + a^k tokens per pass (each proposed
token survives only if those before it did, and the pass adds one token of its own), so the
chosen k maximises E(k) / c(k + 1) over 0 <= k <= the cap; k = 0 is a plain step. Which tokens
come out never depends on this choice: the verification is exact whatever is proposed.
"""

from __future__ import annotations

import itertools
import time

PRIOR_TESTED = 4.0  # how many tokens of evidence the prior is worth
MATCH_CAP = 6  # match lengths from here up share one estimate
# The prior a(m): proposed tokens accepted over tokens tested, for proposals of up to 16 tokens,
# by match length 1..6+, measured once on SmolLM2's greedy replies (128 tokens) to the 8 prompts of
# EQUALITY_PROMPTS that the benchmark does not use. Sampled at temperature 1 the same measurement
# gives 0.19-0.35 at every length: there the generation's own counts bring the estimate down after
# a proposal or two.
PRIOR = (0.0, 0.38, 0.62, 0.77, 0.88, 0.91, 0.95)


def prior_acceptance(match: int) -> float:
    """The acceptance guessed before any evidence: weak for one token, strong for long matches."""
    return PRIOR[max(0, min(match, MATCH_CAP))]


def match_length(context: list[int], cap: int = 32) -> int:
    """The length of the longest suffix of ``context`` (at most ``cap``) that also occurs earlier in it.

    >>> match_length([5, 1, 2, 3, 9, 1, 2, 3]), match_length([1, 2, 3]), match_length([7, 7, 7])
    (3, 0, 2)
    """
    last, best = len(context) - 1, 0
    if last < 1:
        return 0
    token = context[last]
    for end in range(last - 1, -1, -1):  # an earlier occurrence ends at ``end``
        if context[end] != token:
            continue
        length = 1
        while length < cap and length <= end and context[end - length] == context[last - length]:
            length += 1
        best = max(best, length)
        if best >= cap:
            break
    return best

class PassCost:
    """Milliseconds of one target pass over j new tokens, interpolated between measured j.

    >>> cost = PassCost({1: 40.0, 2: 90.0, 9: 80.0})   # the 2-token timing was disturbed
    >>> cost(1), cost(2), cost(5), cost(16)
    (40.0, 80.0, 80.0, 80.0)
    """

    def __init__(self, pass_ms: dict[int, float]):
        if not pass_ms or 1 not in pass_ms or any(ms <= 0 for ms in pass_ms.values()):
            raise ValueError(f"pass_ms needs positive timings including one for 1 token; got {pass_ms!r}")
        points = sorted((int(j), float(ms)) for j, ms in pass_ms.items())
        # A pass over more tokens never costs less: a timing above a later one was disturbed, so each
        # point takes the smallest timing at its width or wider (measured on a busy machine, it matters).
        for i in range(len(points) - 2, -1, -1):
            points[i] = (points[i][0], min(points[i][1], points[i + 1][1]))
        self.points = points

    def __call__(self, tokens: int) -> float:
        points = self.points
        if tokens <= points[0][0]:
            return points[0][1]
        for (j0, c0), (j1, c1) in itertools.pairwise(points):
            if tokens <= j1:
                return c0 + (c1 - c0) * (tokens - j0) / (j1 - j0)
        if len(points) == 1:
            return points[0][1]
        (j0, c0), (j1, c1) = points[-2:]
        return c1 + max(0.0, (c1 - c0) / (j1 - j0)) * (tokens - j1)  # beyond the last: the last slope


# Used when no cost model is given: relative to a one-token pass, rounded from one-thread runs of
# SmolLM2 on this kata's machines (2, 5, 9 tokens: 1.57-1.63, 1.73-2.15, 2.04-2.29 times one
# token); 17 and 33 extrapolated.
TYPICAL_PASS_MS = {1: 1.0, 2: 1.5, 5: 1.75, 9: 2.0, 17: 2.4, 33: 3.4}


def measure_pass_ms(target, sizes=(1, 2, 3, 5, 9, 17, 33), cached: int = 100, calls: int = 7) -> dict[int, float]:
    """The fastest of ``calls`` cached passes over j new tokens (after ``cached``), for each j, interleaved."""
    best = {j: float("inf") for j in sizes}
    target.reset()
    target.forward_new(list(range(1000, 1000 + cached)), last=1)
    for _ in range(calls):
        for j in sizes:
            started = time.perf_counter()
            target.forward_new(list(range(2000, 2000 + j)), last=j)
            best[j] = min(best[j], (time.perf_counter() - started) * 1e3)
            target.crop(cached)
    return best


class ProposalLength:
    """Chooses k, the number of tokens to propose, and learns a(m) from what the target accepts."""

    def __init__(self, pass_ms: dict[int, float] | None = None, most: int = 16):
        self.cost = PassCost(pass_ms or TYPICAL_PASS_MS)
        self.most = most
        self.counts: dict[int, list[float]] = {}  # bucket -> [accepted, tested]

    def acceptance(self, match: int) -> float:
        bucket = min(match, MATCH_CAP)
        accepted, tested = self.counts.get(bucket, (0.0, 0.0))
        return (accepted + PRIOR_TESTED * prior_acceptance(bucket)) / (tested + PRIOR_TESTED)

    def choose(self, match: int, limit: int) -> int:
        """The k in 0..min(limit, most) with the most expected tokens per millisecond."""
        if match <= 0:
            return 0
        a = self.acceptance(match)
        best_k, best_rate, expected, survive = 0, 1.0 / self.cost(1), 1.0, 1.0
        for k in range(1, min(limit, self.most) + 1):
            survive *= a
            expected += survive
            rate = expected / self.cost(k + 1)
            if rate > best_rate:
                best_k, best_rate = k, rate
        return best_k

    def update(self, match: int, proposed: int, accepted: int) -> None:
        if proposed:
            counts = self.counts.setdefault(min(match, MATCH_CAP), [0.0, 0.0])
            counts[0] += accepted
            counts[1] += min(proposed, accepted + 1)  # a rejection ends the tests
