"""Exercise 07-torch-step: reference solution. The exercise text is in exercises/ex07_torch_step.py."""

import torch

from speckata.torch_validation import check_torch_step_inputs

# A residual with no more mass than this comes from rounding alone (p[i] and q[i] agree).
RESIDUAL_MASS_EPS = 1e-12


@torch.no_grad()  # probabilities that require grad are accepted; the result never carries grad
def speculative_decode_step(draft_probs, target_probs, draft_tokens, generator=None) -> tuple[torch.Tensor, int]:
    check_torch_step_inputs(target_probs, draft_probs, draft_tokens)
    device = target_probs.device
    tokens = []
    for i, x in enumerate(draft_tokens.tolist()):
        u = torch.rand((), generator=generator, device=device)
        if u < torch.clamp(target_probs[i, x] / draft_probs[i, x], max=1.0):
            tokens.append(x)
            continue
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0.0)
        if residual.sum() <= RESIDUAL_MASS_EPS:
            residual = target_probs[i]
        replacement = torch.multinomial(residual / residual.sum(), 1, generator=generator)
        tokens.append(int(replacement))
        return torch.tensor(tokens, dtype=torch.int64, device=device), i
    num_accepted = len(tokens)
    bonus = torch.multinomial(target_probs[num_accepted], 1, generator=generator)
    tokens.append(int(bonus))
    return torch.tensor(tokens, dtype=torch.int64, device=device), num_accepted
