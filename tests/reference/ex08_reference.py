"""Exercise 08-batched-verifier: the expected rows, from exercise 01's independent reference.

The batched rule is, row by row, exercise 01's rule fed a particular stream: the accept tests of
row b use u[b, 0], u[b, 1], ... up to the first rejection (at most γ of them), and the last
token uses v[b]. This module draws u and v exactly as the contract says, on a generator seeded
like the learner's, and runs tests/reference/ex01_reference.py on every row with that stream.
It imports neither solutions/ nor speckata's samplers.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from speckata.grading.trace import StepTrace
from tests.reference.ex01_reference import reference_trace

PAD = -1
# Below these distances from a decision boundary, float rounding may legitimately decide a row
# either way (the learner computes p/q and the cumulative sums in the inputs' dtype, the
# reference in float64), so such rows are not compared.
MARGIN = {torch.float32: 1e-5, torch.float64: 1e-9}


@dataclass
class ExpectedRow:
    tokens: list[int]  # padded to γ+1 with PAD
    num_accepted: int
    trace: StepTrace  # exercise 01's reasoning for this row
    stream: list[float]  # the uniforms exercise 01's rule consumed: u[b, :k+1] (or u[b, :γ]), v[b]
    comparable: bool  # every uniform clear of its decision boundary by MARGIN
    accepts: list[bool]  # u[b, j] < p/q at every draft position j, also after the first rejection


def make_generator(seed: int, device: str | torch.device = "cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)


def contract_uniforms(generator, batch: int, gamma: int, dtype, device):
    """The draws the contract fixes, in its order: u (B, γ) first, then v (B,)."""
    u = torch.rand((batch, gamma), generator=generator, dtype=dtype, device=device)
    v = torch.rand((batch,), generator=generator, dtype=dtype, device=device)
    return u, v


def expected_rows(target_probs, draft_probs, draft_tokens, u, v) -> list[ExpectedRow]:
    p_all = target_probs.detach().cpu().double().numpy()
    q_all = draft_probs.detach().cpu().double().numpy()
    drafts = draft_tokens.detach().cpu().long().numpy()
    u_all, v_all = u.cpu().double().numpy(), v.cpu().double().numpy()
    gamma = drafts.shape[1]
    margin = MARGIN[target_probs.dtype]
    rows = []
    for b in range(drafts.shape[0]):
        p, q, draft = p_all[b], q_all[b].reshape(gamma, p_all.shape[2]), drafts[b].tolist()
        # A first pass finds where exercise 01's rule rejects; then feed it v[b] right after.
        probe = reference_trace(p, q, draft, list(u_all[b]) + [v_all[b]])
        accepted = probe.num_accepted
        stream = list(u_all[b, : min(accepted + 1, gamma)]) + [v_all[b]]
        trace = reference_trace(p, q, draft, stream)
        assert trace.draws == len(stream), "the row consumed its stream unexpectedly (a bug in this reference)"
        tokens = trace.tokens + [PAD] * (gamma + 1 - len(trace.tokens))
        accepts = [bool(u_all[b, j] < p[j, x] / q[j, x]) for j, x in enumerate(draft)]
        rows.append(ExpectedRow(tokens, accepted, trace, [float(x) for x in stream], trace.margin() > margin, accepts))
    return rows


def unpadded(row: list[int]) -> list[int]:
    """A learner's row without its trailing padding (what exercise 01 would have returned)."""
    end = len(row)
    while end > 0 and row[end - 1] == PAD:
        end -= 1
    return row[:end]
