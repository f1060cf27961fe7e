"""Exercise 11-distill-draft: an independent reference for measure_agreement and distill.

It imports nothing from solutions/ (not even exercise 09's loss): the KL divergence is written out
as Σ p (log p − log q), the overlap Σ min(p, q) as 1 − TV(p, q) = 1 − ½ Σ |p − q|, and the argmax
comparison goes through numpy. The training loop follows the exercise's contract step by step.
"""

from __future__ import annotations

import numpy as np
import torch


@torch.no_grad()
def reference_agreement(draft, target, contexts, temperature: float = 1.0) -> tuple[float, float]:
    target_logits, draft_logits = target(contexts), draft(contexts)
    p = torch.softmax(target_logits.double() / temperature, dim=-1)
    q = torch.softmax(draft_logits.double() / temperature, dim=-1)
    alpha = float((1.0 - 0.5 * (p - q).abs().sum(dim=-1)).mean())
    top1 = float(np.mean(target_logits.argmax(dim=-1).numpy() == draft_logits.argmax(dim=-1).numpy()))
    return alpha, top1


def kl_teacher_student(student_logits, teacher_logits, temperature: float) -> torch.Tensor:
    vocab = student_logits.shape[-1]
    log_q = torch.log_softmax(student_logits.reshape(-1, vocab) / temperature, dim=-1)
    log_p = torch.log_softmax(teacher_logits.reshape(-1, vocab) / temperature, dim=-1)
    return (log_p.exp() * (log_p - log_q)).sum(dim=-1).mean() * temperature**2


def reference_distill(draft, target, contexts, steps: int, generator, learning_rate: float = 3e-3,
                      batch_size: int = 16, temperature: float = 1.0) -> list[float]:
    optimizer = torch.optim.Adam(draft.parameters(), lr=learning_rate)
    losses = []
    for _ in range(steps):
        batch = contexts[torch.randint(0, contexts.shape[0], (batch_size,), generator=generator)]
        with torch.no_grad():
            teacher_logits = target(batch)
        loss = kl_teacher_student(draft(batch), teacher_logits, temperature)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses
