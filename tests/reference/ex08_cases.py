"""Exercise 08-batched-verifier: the batches the suite grades on.

Forced batches, whose ratios p/q are 7/6 (always accepted) or 0 (always rejected) so each row's
accepted count is known in advance, and random batches shaped like a real draft's and target's
(drawn by tests/shared/cases.py).
"""

from __future__ import annotations

import torch

from tests.shared.cases import random_verify_batch

# Rows built from three kinds of positions: p/q = 7/6 at the drafted token (always accepted),
# p = 0 there (always rejected; the residual is all on token 0), and a bonus row unlike both.

Q_ROW = [0.05, 0.3, 0.05, 0.6]
ACCEPT_ROW = [0.05, 0.35, 0.05, 0.55]
REJECT_ROW = [0.35, 0.0, 0.05, 0.6]
BONUS_ROW = [0.1, 0.05, 0.8, 0.05]


def forced_batch(patterns: list[str], dtype=torch.float64):
    """One row per pattern, one letter per position: 'a' accepts, 'r' rejects."""
    gamma = len(patterns[0])
    target = [[ACCEPT_ROW if c == "a" else REJECT_ROW for c in pattern] + [BONUS_ROW] for pattern in patterns]
    draft = torch.tensor([[Q_ROW] * gamma for _ in patterns], dtype=dtype).reshape(len(patterns), gamma, 4)
    return torch.tensor(target, dtype=dtype), draft, torch.ones(len(patterns), gamma, dtype=torch.int64)


def random_batch(gen, batch: int, gamma: int, vocab: int, dtype, device="cpu"):
    """(target_probs, draft_probs, draft_tokens) of a random batch, as tensors on ``device``."""
    p, q, drafts = random_verify_batch(gen, batch, gamma, vocab, close_share=0.4)
    as_tensor = lambda a: torch.tensor(a, dtype=dtype, device=device)
    return as_tensor(p), as_tensor(q), torch.tensor(drafts, device=device)
