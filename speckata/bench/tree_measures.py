"""What ``python -m speckata.bench tree`` measures besides decoding: the acceptance vectors and pass costs.

Both vectors are exact expectations at each held-out position, averaged over positions (no
sampling noise beyond the choice of positions), one for each children rule of exercise 20:
  "top_k" (exercise 16's rule): the child of rank k is the draft's (k+1)-th most likely token x_k,
    accepted after its elder siblings' rejection with probability p(x_k) / (1 - p(x_0) - ... -
    p(x_(k-1))); so rank k is THE accepted child with chance exactly p(x_k);
  "sampled" (SpecInfer's rule, exercise 15): the k-th child is an i.i.d. sample from q, accepted with
    probability sum_x min(r_k(x), q(x)), where r_0 = p and r_(k+1) = normalised max(r_k - q, 0)
    (the residual does not depend on which token was rejected).
c[k], the chance that rank k is THE accepted child, is averaged over positions, and the vector
returned is the conditional one exercise 24 takes: acceptance[k] = c[k] / (1 - c[0] - ... - c[k-1]).
"""

from __future__ import annotations

import statistics
import time

import torch

from speckata.decoding.sampling import next_token_probabilities


def sampled_chances(p: torch.Tensor, q: torch.Tensor, width: int) -> torch.Tensor:
    """(positions, width): the chance that the k-th i.i.d. sampled child is THE accepted one."""
    chances, target, rejected = [], p, torch.ones(p.shape[0], dtype=torch.float64)
    for _ in range(width):
        accepted = torch.minimum(target, q).sum(-1)
        chances.append(rejected * accepted)
        rejected = rejected * (1.0 - accepted)
        residual = torch.clamp(target - q, min=0.0)
        mass = residual.sum(-1, keepdim=True)
        target = torch.where(mass > 1e-12, residual / mass.clamp(min=1e-300), target)
    return torch.stack(chances, dim=-1)


def acceptance_vector(target, draft, windows: torch.Tensor, temperature: float, width: int, children: str):
    """(acceptance vector, positions): acceptance[k] = P(the rank-k child is accepted | ranks 0..k-1
    rejected) under ``children``, from every position of every window after its first."""
    chances = torch.zeros(width, dtype=torch.float64)
    positions = 0
    for window in windows.tolist():
        target.reset()
        draft.reset()
        p = next_token_probabilities(target.forward_new(window), temperature)[1:]
        logits = draft.forward_new(window)[1:]
        if children == "top_k":
            ranked = torch.argsort(logits, dim=-1, descending=True, stable=True)[:, :width]
            chances += p.gather(1, ranked).sum(0)
        else:
            chances += sampled_chances(p, next_token_probabilities(logits, temperature), width).sum(0)
        positions += p.shape[0]
    chances /= positions
    left = 1.0 - torch.cat([torch.zeros(1, dtype=torch.float64), chances.cumsum(0)[:-1]])
    return [float(c / l) if l > 0 else 0.0 for c, l in zip(chances, left)], positions


def pass_costs(target, draft, context: list[int], widths, repeats: int, chain_mask) -> dict[str, float]:
    """Median seconds of one target pass over w tokens (w in widths: one new token plus w - 1 tree
    nodes, fed as a chain after ``context``), and of one draft pass over one token, each relative to
    one target pass over one token; the passes are interleaved ``repeats`` times."""
    def target_pass(width: int) -> float:
        mask, positions = chain_mask(width, len(context))
        start = time.perf_counter()
        target.forward_tree(context[:width], mask, positions)
        seconds = time.perf_counter() - start
        target.keep_path([])
        return seconds

    def draft_pass() -> float:
        start = time.perf_counter()
        draft.forward_new(context[:1])
        seconds = time.perf_counter() - start
        draft.crop(len(context))
        return seconds

    target.reset()
    draft.reset()
    target.forward_new(context)
    draft.forward_new(context)
    seconds = {width: [] for width in widths}
    seconds["draft"] = []
    for _ in range(repeats):
        for width in widths:
            seconds[width].append(target_pass(width))
        seconds["draft"].append(draft_pass())
    one = statistics.median(seconds[1])
    return {str(key): statistics.median(values) / one for key, values in seconds.items()}


def spread(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values), "min": min(values), "max": max(values)}


def wall_clock(runs: dict, prompts: list[list[int]], repeats: int) -> dict[str, dict[str, float]]:
    """Seconds to decode every prompt once with each run(prompt, generator), the runs interleaved
    ``repeats`` times; per run: the median and, against the first run ("plain"), the speedup of each
    repeat (that repeat's plain time over its own) as mean .. min .. max."""
    seconds = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            for index, prompt in enumerate(prompts):
                run(prompt, torch.Generator().manual_seed(index))
            seconds[name].append(time.perf_counter() - start)
    plain = seconds[next(iter(runs))]
    return {name: {"median_s": statistics.median(times),
                   "speedup": spread([base / mine for base, mine in zip(plain, times)])}
            for name, times in seconds.items()}
