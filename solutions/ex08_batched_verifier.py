"""Exercise 08-batched-verifier: reference solution. The exercise text is in exercises/ex08_batched_verifier.py."""

from typing import NamedTuple

import torch

from speckata.torch_sampling import sample_rows
from speckata.torch_validation import check_batched_step_inputs

PAD = -1  # fills each row of tokens after its last token
# A residual with no more mass than this comes from rounding alone (p and q agree there).
RESIDUAL_MASS_EPS = 1e-12


class VerifiedBatch(NamedTuple):
    tokens: torch.Tensor  # (B, γ+1) int64: accepted drafts, the replacement or bonus token, then PAD
    num_accepted: torch.Tensor  # (B,) int64


@torch.no_grad()  # probabilities that require grad are accepted; the result never carries grad
def speculative_step_batched(target_probs, draft_probs, draft_tokens, generator=None) -> VerifiedBatch:
    check_batched_step_inputs(target_probs, draft_probs, draft_tokens)
    batch, gamma = draft_tokens.shape
    device = target_probs.device
    draws = dict(generator=generator, dtype=target_probs.dtype, device=device)
    u = torch.rand((batch, gamma), **draws)
    v = torch.rand((batch,), **draws)

    drafted = draft_tokens.long()
    p_drafted = target_probs[:, :gamma].gather(2, drafted.unsqueeze(-1)).squeeze(-1)
    q_drafted = draft_probs.gather(2, drafted.unsqueeze(-1)).squeeze(-1)
    accepted = u < p_drafted / q_drafted
    # The accepted run ends at the first rejection: later accepts do not count.
    num_accepted = accepted.long().cumprod(dim=1).sum(dim=1)

    last_tokens = sample_rows(last_token_weights(target_probs, draft_probs, num_accepted), v)
    positions = torch.arange(gamma + 1, device=device)
    tokens = torch.where(positions < num_accepted.unsqueeze(1), pad_column(drafted), PAD)
    tokens.scatter_(1, num_accepted.unsqueeze(1), last_tokens.unsqueeze(1))
    return VerifiedBatch(tokens, num_accepted)


def last_token_weights(target_probs, draft_probs, num_accepted):
    """(B, V): row b's residual at its rejection position k, or p[b, γ] when it accepted all γ.

    Only these B rows are gathered, so the work is B·V however large γ is.
    """
    batch, gamma = draft_probs.shape[:2]
    rows = torch.arange(batch, device=target_probs.device)
    # Position k of row b is row b·(γ+1) + k of the (B·(γ+1), V) view; index_select copies just
    # those rows (on the CPU it is faster than target_probs[rows, num_accepted]).
    p_rows = target_probs.flatten(0, 1).index_select(0, rows * (gamma + 1) + num_accepted)
    if gamma == 0:
        return p_rows
    q_rows = draft_probs.flatten(0, 1).index_select(0, rows * gamma + num_accepted.clamp(max=gamma - 1))
    rejected = (num_accepted < gamma).unsqueeze(1).to(q_rows.dtype)
    # p - q where the row rejected, p itself (the bonus row) where it accepted all; in place.
    residual = torch.addcmul(p_rows, q_rows, rejected, value=-1, out=q_rows).clamp_(min=0)
    no_mass = residual.sum(dim=1) <= RESIDUAL_MASS_EPS
    if bool(no_mass.any()):  # rare: p and q agree up to rounding at the rejection
        residual[no_mass] = p_rows[no_mass]
    return residual


def pad_column(drafted):
    """draft_tokens with one more column of PAD: (B, γ+1), the layout of the output."""
    return torch.nn.functional.pad(drafted, (0, 1), value=PAD)
