"""Exercise 21-medusa-heads: an independent reference, written from the exercise text.

It imports neither solutions/ nor the exercise's checks: the labels are built position by
position, the heads' logits with torch.nn.functional on the heads' raw weights, the loss from
log-softmax by hand, and the decoder keeps its own record of the calls the contract makes.
"""

from __future__ import annotations

import torch

from speckata.heads.medusa import RecordingHiddenModel

IGNORE = -100


def reference_labels(ids: torch.Tensor, num_heads: int) -> torch.Tensor:
    B, T = ids.shape
    rows = [[[int(ids[b, t + k + 2]) if t + k + 2 < T else IGNORE for t in range(T)] for b in range(B)]
            for k in range(num_heads)]
    return torch.tensor(rows, dtype=torch.int64).reshape(num_heads, B, T)


def reference_logits(heads, hidden: torch.Tensor) -> torch.Tensor:
    out = []
    for k in range(heads.num_heads):
        W, b = heads.blocks[k].weight, heads.blocks[k].bias
        inner = hidden @ W.T + b
        residual = hidden + inner * torch.sigmoid(inner)  # SiLU(x) = x * sigmoid(x)
        out.append(residual @ heads.projections[k].weight.T)
    return torch.stack(out)


def reference_loss(logits: torch.Tensor, labels: torch.Tensor, decay: float = 0.8) -> torch.Tensor:
    total = torch.zeros((), dtype=logits.dtype)
    for k in range(logits.shape[0]):
        flat_logits = logits[k].reshape(-1, logits.shape[-1])
        flat_labels = labels[k].reshape(-1)
        keep = flat_labels != IGNORE
        if int(keep.sum()) == 0:
            continue
        log_probs = flat_logits[keep] - torch.logsumexp(flat_logits[keep], dim=-1, keepdim=True)
        nll = -log_probs.gather(1, flat_labels[keep][:, None]).mean()
        total = total + (decay ** k) * nll
    return total


class ReferenceRun:
    """What the contract's decoder does on one case: tokens, statistics and the recorded calls."""

    def __init__(self, tokens, accepted, drafted, passes, calls, rounds, recorder=None):
        self.tokens, self.accepted_per_pass, self.drafted_per_pass = tokens, accepted, drafted
        self.target_passes, self.draft_passes, self.calls, self.rounds = passes, 0, calls, rounds
        self.recorder, self.generator_state = recorder, None  # its calls' order; greedy: no generator


@torch.no_grad()
def reference_generate(target, heads, prompt: list[int], max_new_tokens: int) -> ReferenceRun:
    """The contract's greedy Medusa decoder, on a recorder of its own around ``target``.

    ``rounds`` holds one line per verifying pass: the target's token, the guesses, the target's
    choices at each row and how many guesses were accepted (the failure messages show them).
    """
    model = RecordingHiddenModel(target)
    model.reset()
    tokens, accepted_per_pass, drafted_per_pass, rounds, passes = [], [], [], [], 0
    if max_new_tokens > 0:
        hidden, logits = model.forward_new_hidden(list(prompt))
        passes = 1
        h, z = hidden[-1], logits[-1]
        while True:
            token = int(torch.argmax(z))
            tokens.append(token)
            left = max_new_tokens - len(tokens)
            if left <= 0:
                break
            guesses = [int(torch.argmax(row)) for row in reference_logits(heads, h)][:left]
            hidden, logits = model.forward_new_hidden([token] + guesses)
            passes += 1
            choices = [int(torch.argmax(row)) for row in logits]
            a = 0
            for guess, choice in zip(guesses, choices):
                if guess != choice:
                    break
                a += 1
            tokens.extend(guesses[:a])
            model.crop(len(prompt) + len(tokens))
            rounds.append(f"round {len(rounds) + 1}: token {token}, guesses {guesses}, the target's choices "
                          f"{choices}, accepted {a}, crop to {len(prompt) + len(tokens)}")
            accepted_per_pass.append(a)
            drafted_per_pass.append(len(guesses))
            h, z = hidden[a], logits[a]
            if len(tokens) >= max_new_tokens:
                break
    return ReferenceRun(tokens, accepted_per_pass, drafted_per_pass, passes, model.calls, rounds, model)
