"""Exercise 07-torch-step: an independent reference that records its reasoning.

It lives in tests/ and imports neither solutions/ nor speckata's checks. It makes exactly the
calls the contract fixes, on its own generator seeded like the learner's, so the two generators'
states agree afterwards exactly when the learner drew what the contract says. Besides the tokens
it records every decision, for the report a learner sees on a mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

RESIDUAL_MASS_EPS = 1e-12


@dataclass
class Decision:
    position: int
    token: int
    u: float
    ratio: float  # p/q at the drafted token, in the inputs' dtype
    accepted: bool


@dataclass
class StepTrace:
    tokens: list[int] = field(default_factory=list)
    num_accepted: int = 0
    decisions: list[Decision] = field(default_factory=list)
    sample_kind: str = ""  # "replacement" or "bonus"
    sample_source: str = ""  # which distribution the last token was drawn from
    sample_distribution: list[float] = field(default_factory=list)  # normalised

    def margin(self) -> float:
        """How close any uniform came to its ratio (a learner may round the ratio differently)."""
        gaps = [abs(d.u - min(1.0, d.ratio)) for d in self.decisions if d.ratio < 1.0]
        return min(gaps, default=float("inf"))


def make_generator(seed: int, device: str | torch.device = "cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)


def reference_step(draft_probs, target_probs, draft_tokens, generator) -> StepTrace:
    trace = StepTrace()
    device = target_probs.device
    for position, token in enumerate(int(t) for t in draft_tokens.tolist()):
        u = float(torch.rand((), generator=generator, device=device))
        ratio = float(target_probs[position, token] / draft_probs[position, token])
        accepted = u < min(1.0, ratio)
        trace.decisions.append(Decision(position, token, u, ratio, accepted))
        if not accepted:
            weights = (target_probs[position] - draft_probs[position]).clamp(min=0)
            source = "residual max(0, p[i] - q[i])"
            if float(weights.sum()) <= RESIDUAL_MASS_EPS:
                weights, source = target_probs[position], "p[i] (the residual had no mass)"
            draw_sample(trace, weights, generator, "replacement", source)
            return trace
        trace.tokens.append(token)
        trace.num_accepted += 1
    gamma = draft_tokens.shape[0]
    draw_sample(trace, target_probs[gamma], generator, "bonus", f"p[{gamma}] (all accepted)", normalise=False)
    return trace


def draw_sample(trace: StepTrace, weights, generator, kind: str, source: str, normalise: bool = True) -> None:
    distribution = weights / weights.sum()
    # The contract normalises a replacement's weights but hands the bonus row over as it is.
    trace.tokens.append(int(torch.multinomial(distribution if normalise else weights, 1, generator=generator)))
    trace.sample_kind, trace.sample_source = kind, source
    trace.sample_distribution = distribution.tolist()
