"""The given torch sampler: one inverse-CDF draw per row, from one uniform per row.

The torch twin of :func:`speckata.sample`, for a whole batch at once: row b of ``probs`` is
sampled with the uniform ``u[b]``, so a grader that knows the uniforms knows every token. It is
vectorised (no loop over rows) and reads each row once, for one cumulative sum.

Importing this module imports torch; ``speckata/__init__.py`` deliberately does not, so import it
by name: ``from speckata.torch_sampling import sample_rows``.
"""

from __future__ import annotations

import torch


def sample_rows(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Draw one index from each row of ``probs`` (B, V), row b with the uniform ``u[b]``.

    Returns a (B,) int64 tensor on ``probs``'s device: for each row, the first index whose
    normalised cumulative probability exceeds u[b] (computed as the first cumulative sum above
    u[b] times the row's total, which is the same up to rounding). Rows need not sum to one, but
    they must be finite, non-negative and have a positive total. A zero-probability index is
    never returned: when rounding leaves the last cumulative sum at or below u[b] times the
    total, the last index with positive probability is returned, as :func:`speckata.sample` does.

    >>> probs = torch.tensor([[0.25, 0.25, 0.5], [0.0, 2.0, 1.0], [0.3, 0.7, 0.0]])
    >>> sample_rows(probs, torch.tensor([0.3, 0.7, 0.9999999]))
    tensor([1, 2, 1])
    """
    if not isinstance(probs, torch.Tensor) or not isinstance(u, torch.Tensor):
        raise ValueError("sample_rows needs torch tensors: probs (B, V) and u (B,)")
    if probs.ndim != 2 or probs.shape[1] == 0:
        raise ValueError(f"sample_rows needs probs of shape (B, V) with V >= 1; got shape {tuple(probs.shape)}")
    if u.shape != (probs.shape[0],):
        raise ValueError(f"sample_rows needs one uniform per row: u of shape ({probs.shape[0]},); got {tuple(u.shape)}")
    if not probs.is_floating_point():
        raise ValueError(f"sample_rows needs floating-point probabilities; got dtype {probs.dtype}")
    vocab = probs.shape[1]
    cumulative = torch.cumsum(probs, dim=-1)
    totals = cumulative[:, -1:]
    u = u.to(dtype=cumulative.dtype, device=cumulative.device)
    check_sampling_inputs(probs, totals, u)
    index = torch.searchsorted(cumulative, u.unsqueeze(-1) * totals, right=True).squeeze(-1)
    # Past the end (rounding left the last cumulative sum at or below u * total), or, with a
    # cumulative sum that is not exactly monotone (a parallel scan), on a zero: take the last
    # index with positive probability. Rare, so only those rows are searched.
    in_range = index.clamp(max=vocab - 1)
    chosen = probs.gather(1, in_range.unsqueeze(-1)).squeeze(-1)
    needs_fallback = (index >= vocab) | (chosen <= 0)
    if bool(needs_fallback.any()):
        rows = needs_fallback.nonzero().squeeze(-1)
        positive = probs.index_select(0, rows) > 0
        in_range[rows] = vocab - 1 - positive.flip(-1).int().argmax(dim=-1)
    return in_range


def check_sampling_inputs(probs: torch.Tensor, totals: torch.Tensor, u: torch.Tensor) -> None:
    """ValueErrors for rows sample_rows cannot sample (one host round trip when all is well)."""
    flags = torch.stack(
        [
            torch.isnan(totals).any(),
            torch.isinf(totals).any(),
            (probs.amin(dim=-1) < 0).any(),
            (totals <= 0).any(),
            ~((u >= 0) & (u < 1)).all(),  # written so that a NaN u fails too
        ]
    ).tolist()
    nan, infinite, negative, no_mass, bad_u = flags
    if nan:
        raise ValueError("sample_rows: the probabilities contain NaN")
    if negative:
        raise ValueError("sample_rows: the probabilities contain a negative entry")
    if infinite:
        raise ValueError("sample_rows: the probabilities contain an infinite entry (or overflow their sum)")
    if no_mass:
        raise ValueError("sample_rows: a row sums to zero; there is nothing to sample")
    if bad_u:
        raise ValueError("sample_rows: every uniform u must lie in [0, 1) (and not be NaN)")
