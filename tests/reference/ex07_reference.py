"""Exercise 07-torch-step: an independent reference that records its reasoning.

It lives in tests/ and imports neither solutions/ nor speckata's checks. It makes exactly the
calls the contract fixes, on its own generator seeded like the learner's, so the two generators'
states agree afterwards exactly when the learner drew what the contract says. Besides the tokens
it records every decision as trace events (speckata.grading.trace), for the report a learner sees
on a mismatch.
"""

from __future__ import annotations

import torch

from speckata.grading.trace import BONUS, FALLBACK, RESIDUAL, StepTrace

RESIDUAL_MASS_EPS = 1e-12


class TorchStepTrace(StepTrace):
    def margin(self) -> float:
        """How close any uniform came to min(1, p/q) (a learner may round the ratio differently).
        torch.multinomial's own draws are hidden, so a sample has no boundary to report."""
        gaps = [abs(e.u - min(1.0, e.ratio)) for e in self.events if e.ratio is not None and e.ratio < 1.0]
        return min(gaps, default=float("inf"))


def make_generator(seed: int, device: str | torch.device = "cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)


def reference_step(draft_probs, target_probs, draft_tokens, generator, uniform_dtype=None) -> TorchStepTrace:
    """The contract's step. ``uniform_dtype`` is for the report only: it replays a learner who drew
    each u in another dtype (the contract draws them in torch's default, float32)."""
    trace = TorchStepTrace()
    device = target_probs.device
    for position, token in enumerate(int(t) for t in draft_tokens.tolist()):
        u = float(torch.rand((), generator=generator, device=device, dtype=uniform_dtype))
        ratio = float(target_probs[position, token] / draft_probs[position, token])
        if not u < min(1.0, ratio):
            trace.reject(position, token, u, ratio)
            weights = (target_probs[position] - draft_probs[position]).clamp(min=0)
            kind, source = RESIDUAL, "residual max(0, p[i] - q[i])"
            if float(weights.sum()) <= RESIDUAL_MASS_EPS:
                weights, kind, source = target_probs[position], FALLBACK, "p[i] (the residual had no mass)"
            draw_sample(trace, weights, generator, kind, position, source)
            return trace
        trace.accept(position, token, u, ratio)
    gamma = draft_tokens.shape[0]
    draw_sample(trace, target_probs[gamma], generator, BONUS, gamma, f"p[{gamma}] (all accepted)", normalise=False)
    return trace


def draw_sample(trace: StepTrace, weights, generator, kind: str, position: int, source: str, normalise: bool = True) -> None:
    distribution = weights / weights.sum()
    # The contract normalises a replacement's weights but hands the bonus row over as it is.
    token = int(torch.multinomial(distribution if normalise else weights, 1, generator=generator))
    trace.sample(kind, position, token, distribution, source)
