"""Exercise 22-eagle-head: an independent reference, written from the exercise text.

It imports neither solutions/ nor exercise 01: the pairs are built position by position, the
fusion from the raw weights of head.fc and the target's embedding table (the decoder layer is the
given module), the loss's smooth L1 and soft cross-entropy by hand, the verify rule in numpy, and
the decoder keeps its own record of the calls and draws the contract makes. It uses the given
helpers that define the random draws: next_token_probabilities, draw_uniform and sample_token.
"""

from __future__ import annotations

import numpy as np
import torch

from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from speckata.heads.eagle import RecordingEagleModel

RESIDUAL_MASS_EPS = 1e-12


def reference_pairs(hidden: torch.Tensor, ids: torch.Tensor):
    T = ids.shape[1]
    features = torch.stack([hidden[:, t] for t in range(T - 1)], dim=1)
    tokens = torch.stack([ids[:, t + 1] for t in range(T - 1)], dim=1)
    following = torch.stack([hidden[:, t + 1] for t in range(T - 1)], dim=1)
    return features, tokens, following


def reference_features(head, target, features: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    embedded = target.token_embedding.weight[tokens]
    fused = torch.cat([embedded, features], dim=-1) @ head.fc.weight.T + head.fc.bias
    return head.layer(fused)


def reference_loss(target, predicted: torch.Tensor, following: torch.Tensor, cls_weight: float = 0.1) -> torch.Tensor:
    gap = (predicted - following).abs()
    regression = torch.where(gap < 1.0, 0.5 * gap**2, gap - 0.5).mean()
    W = target.head.weight.detach()
    labels = torch.softmax(following.detach() @ W.T, dim=-1)
    logits = predicted @ W.T
    log_q = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    classification = -(labels * log_q).sum(dim=-1).mean()
    return regression + cls_weight * classification


def reference_loss_terms(target, predicted, following) -> tuple[float, float]:
    """The two terms apart (cls_weight 0 gives the regression; 1 minus 0 the classification)."""
    regression = float(reference_loss(target, predicted, following, 0.0))
    return regression, float(reference_loss(target, predicted, following, 1.0)) - regression


@torch.no_grad()
def reference_draft(target, head, features, tokens, gamma, generator, temperature=1.0):
    features, tokens = features.clone(), [int(t) for t in tokens]
    drafts, q = [], []
    for _ in range(gamma):
        row = reference_features(head, target, features, torch.tensor(tokens, dtype=torch.int64))[-1]
        probs = next_token_probabilities(row @ target.head.weight.T, temperature)
        token = sample_token(probs, generator)
        drafts.append(token)
        q.append(probs)
        features = torch.cat([features, row[None]])
        tokens.append(token)
    return drafts, torch.stack(q)


def verify(p: np.ndarray, q: np.ndarray, drafts: list[int], generator) -> tuple[list[int], list[str]]:
    """Exercise 01's rule on float64 rows, with the reasons for the failure messages."""
    out, why = [], []
    for i, x in enumerate(drafts):
        u = draw_uniform(generator)
        ratio = p[i, x] / q[i, x]
        if u < ratio:
            out.append(x)
            why.append(f"draft {x}: u {u:.4f} < p/q {ratio:.4f}, kept")
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        source = "max(p - q, 0)"
        if residual.sum() <= RESIDUAL_MASS_EPS:
            residual, source = p[i], "p (the residual has no mass)"
        token = sample_token(torch.from_numpy(residual), generator)
        out.append(token)
        why.append(f"draft {x}: u {u:.4f} >= p/q {ratio:.4f}, rejected; {token} sampled from {source}")
        return out, why
    token = sample_token(torch.from_numpy(p[len(drafts)]), generator)
    out.append(token)
    why.append(f"bonus {token} sampled from p_{len(drafts)}")
    return out, why


class ReferenceRun:
    """What the contract's decoder does on one case: tokens, statistics, calls and rounds."""

    def __init__(self):
        self.tokens, self.accepted_per_pass, self.drafted_per_pass, self.rounds = [], [], [], []
        self.target_passes = self.draft_passes = 0
        self.calls = []
        self.recorder = self.generator_state = None  # the target's recorder (generator states too), the final state


@torch.no_grad()
def reference_generate(target, head, prompt, max_new_tokens, gamma, generator, temperature=1.0) -> ReferenceRun:
    model = RecordingEagleModel(target, generator)  # with the generator: the draws between its calls are counted
    model.reset()
    run = ReferenceRun()
    sequence = [int(t) for t in prompt]
    if max_new_tokens > 0:
        features, logits = model.forward_new_hidden(list(sequence))
        run.target_passes = 1
        first = sample_token(next_token_probabilities(logits[-1], temperature), generator)
        sequence.append(first)
        run.tokens.append(first)
        while len(run.tokens) < max_new_tokens:
            k = min(gamma, max_new_tokens - len(run.tokens) - 1)
            drafts, q = reference_draft(target, head, features, sequence[1:], k, generator, temperature) if k else \
                ([], torch.empty((0, target.vocab_size), dtype=torch.float64))
            fed = [sequence[-1]] + drafts
            hidden, logits = model.forward_new_hidden(fed)
            p = next_token_probabilities(logits, temperature).numpy()
            kept, why = verify(p, q.numpy(), drafts, generator)
            a = len(kept) - 1
            sequence += kept
            run.tokens += kept
            features = torch.cat([features, hidden[: a + 1]])
            if model.cache_length > len(sequence) - 1:
                model.crop(len(sequence) - 1)
            run.rounds.append(f"round {len(run.rounds) + 1}: fed {fed}, drafted {drafts}; " + "; ".join(why))
            run.accepted_per_pass.append(a)
            run.drafted_per_pass.append(k)
            run.target_passes += 1
            run.draft_passes += k
    run.calls, run.recorder, run.generator_state = model.calls, model, generator.get_state()
    return run
