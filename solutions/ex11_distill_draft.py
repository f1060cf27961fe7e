"""Exercise 11-distill-draft: reference solution. The exercise text is in exercises/ex11_distill_draft.py."""

import torch

from ex09_distillation_loss import distillation_loss, top1_agreement
from speckata.checks.distill import check_contexts, check_distill_inputs, check_pair, check_positive


@torch.no_grad()
def measure_agreement(draft, target, contexts, temperature=1.0):
    check_pair(draft, target)
    contexts = check_contexts(contexts, target.vocab_size)
    check_positive("temperature", temperature)
    draft_logits, target_logits = draft(contexts), target(contexts)
    p = torch.softmax(target_logits.double() / temperature, dim=-1)
    q = torch.softmax(draft_logits.double() / temperature, dim=-1)
    alpha = float(torch.minimum(p, q).sum(dim=-1).mean())
    return alpha, top1_agreement(draft_logits, target_logits)


def distill(draft, target, contexts, steps, generator, learning_rate=3e-3, batch_size=16, temperature=1.0):
    contexts = check_distill_inputs(draft, target, contexts, steps, batch_size, learning_rate, temperature)
    optimizer = torch.optim.Adam(draft.parameters(), lr=learning_rate)
    losses = []
    for _ in range(steps):
        rows = torch.randint(0, contexts.shape[0], (batch_size,), generator=generator)
        batch = contexts[rows]
        with torch.no_grad():  # the teacher is fixed
            teacher_logits = target(batch)
        loss = distillation_loss(draft(batch), teacher_logits, temperature)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
