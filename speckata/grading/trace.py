"""A verify step's trace: what a per-position reference decided, one event at a time.

Every per-position reference in tests/reference (exercises 01, 05, 07, 08) records its reasoning
as StepEvents; speckata.grading.position_table renders them as the "reference's reasoning" table a
learner sees beside their own tokens. A new exercise writes only its reference's events.

Kinds, in the order a step can meet them: an accept test keeps (ACCEPT) or drops (REJECT) the
drafted token; a rejection is followed by one sample from the residual (RESIDUAL) or, when the
residual has no mass, from p[i] itself (FALLBACK); a step that accepts every draft ends with one
sample from p[γ] (BONUS). Every kind but REJECT emits a token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import accumulate

ACCEPT = "accept"
REJECT = "reject"
RESIDUAL = "residual sample"
FALLBACK = "fallback to p"
BONUS = "bonus"
KINDS = (ACCEPT, REJECT, RESIDUAL, FALLBACK, BONUS)
SAMPLES = (RESIDUAL, FALLBACK, BONUS)


@dataclass(frozen=True)
class StepEvent:
    kind: str  # one of KINDS
    position: int  # the draft position i (γ for the bonus)
    token: int  # the drafted token (accept, reject) or the sampled one
    u: float | None = None  # the uniform that decided it; None where the sampler's draw is hidden (torch.multinomial)
    ratio: float | None = None  # p/q at the drafted token (accept, reject)
    distribution: tuple[float, ...] | None = None  # what a sample was drawn from, normalised
    source: str = ""  # that distribution in words, e.g. "residual max(0, p[i] - q[i])"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown step event kind {self.kind!r}; expected one of {KINDS}")

    @property
    def emits(self) -> bool:
        return self.kind != REJECT


@dataclass
class StepTrace:
    """The events of one verify step, in the order they happened."""

    events: list[StepEvent] = field(default_factory=list)

    def accept(self, position: int, token: int, u: float, ratio: float) -> None:
        self.events.append(StepEvent(ACCEPT, position, int(token), float(u), float(ratio)))

    def reject(self, position: int, token: int, u: float, ratio: float) -> None:
        self.events.append(StepEvent(REJECT, position, int(token), float(u), float(ratio)))

    def sample(self, kind: str, position: int, token: int, distribution, source: str, u: float | None = None) -> None:
        if kind not in SAMPLES:
            raise ValueError(f"{kind!r} is not a sample; expected one of {SAMPLES}")
        values = tuple(distribution.tolist() if hasattr(distribution, "tolist") else map(float, distribution))
        self.events.append(StepEvent(kind, position, int(token), None if u is None else float(u), None, values, source))

    @property
    def tokens(self) -> list[int]:
        return [event.token for event in self.events if event.emits]

    @property
    def num_accepted(self) -> int:
        return sum(1 for event in self.events if event.kind == ACCEPT)

    @property
    def draws(self) -> int:
        return len(self.events)  # one random draw per accept test and one per sample

    def margin(self) -> float:
        """How close any uniform came to a decision boundary: its ratio p/q, or a step of the
        cumulative distribution it was sampled from (a learner may round either differently)."""
        closest = math.inf
        for event in self.events:
            if event.u is None:
                continue
            if event.ratio is not None:
                closest = min(closest, abs(event.u - event.ratio))
            if event.distribution is not None and len(event.distribution) > 1:
                steps = list(accumulate(event.distribution))[:-1]
                closest = min(closest, min(abs(step - event.u) for step in steps))
        return closest
