"""Input checks for the torch verify rules (exercises 07 and 08), the torch twins of
:func:`speckata.check_step_inputs`.

A bad input fails with a ``ValueError`` whose message holds a fixed phrase the grading suites
look for: "tensor", "shape", "dtype", "integer", "device", "out of range", "zero probability",
"negative", "NaN", "infinite", "sum to 1". Every check runs on the inputs' own device and costs
one round trip to the host.

Two depths of checking, because they cost different amounts:

- :func:`check_torch_step_inputs` (one sequence, exercise 07) reads every probability.
- :func:`check_batched_step_inputs` (a batch, exercise 08) reads only what a verifier reads
  before drawing: the shapes and the probabilities at the drafted tokens, O(B·γ) numbers. Reading
  all B·(2γ+1)·V of them would cost more than the verification itself.

Importing this module imports torch: ``from speckata.torch_validation import ...``.
"""

from __future__ import annotations

import torch

from speckata.tolerance import row_sum_tolerance

PROBABILITY_DTYPES = (torch.float32, torch.float64)


def check_torch_step_inputs(target_probs, draft_probs, draft_tokens) -> None:
    """One verify step: target (K+1, V), draft (K, V), draft_tokens (K,); every row is checked.

    >>> check_torch_step_inputs(torch.tensor([[0.5, 0.5]]), torch.empty(0, 2), torch.tensor([], dtype=torch.long))
    >>> check_torch_step_inputs(torch.tensor([[0.5, 0.5], [1.0, 0.0]]), torch.tensor([[0.0, 1.0]]), torch.tensor([0]))
    Traceback (most recent call last):
    ...
    ValueError: draft_probs[0, 0] = 0: the draft gave drafted token 0 zero probability at position 0, so it could not have proposed it
    """
    check_tensors(target_probs=target_probs, draft_probs=draft_probs, draft_tokens=draft_tokens)
    if draft_tokens.ndim != 1:
        raise ValueError(f"draft_tokens must have shape (K,); got shape {tuple(draft_tokens.shape)}")
    gamma = draft_tokens.shape[0]
    if target_probs.ndim != 2 or target_probs.shape[0] != gamma + 1 or target_probs.shape[1] == 0:
        raise ValueError(
            f"target_probs must have shape (K+1, V) = ({gamma + 1}, V) for {gamma} draft tokens; "
            f"got shape {tuple(target_probs.shape)}"
        )
    vocab = target_probs.shape[1]
    if tuple(draft_probs.shape) != (gamma, vocab):
        raise ValueError(
            f"draft_probs must have shape (K, V) = ({gamma}, {vocab}) to match draft_tokens and "
            f"target_probs; got shape {tuple(draft_probs.shape)}"
        )
    check_dtypes_and_devices(target_probs, draft_probs, draft_tokens)
    check_rows("target_probs", target_probs)
    check_rows("draft_probs", draft_probs)
    check_drafted_probabilities(target_probs[:gamma], draft_probs, draft_tokens)


def check_batched_step_inputs(target_probs, draft_probs, draft_tokens) -> None:
    """A batch of verify steps: target (B, γ+1, V), draft (B, γ, V), draft_tokens (B, γ).

    Checks the shapes, dtypes and devices, that every drafted token id lies in [0, V), and the
    probabilities at the drafted tokens (no NaN, none negative, none infinite, q > 0). The rows
    are not checked to sum to 1: that would read every probability (see the module docstring).

    >>> target = torch.full((2, 2, 3), 1 / 3)
    >>> check_batched_step_inputs(target, torch.full((2, 1, 3), 1 / 3), torch.tensor([[0], [3]]))
    Traceback (most recent call last):
    ...
    ValueError: draft_tokens[1, 0] = 3 is out of range for a vocabulary of 3 tokens
    """
    check_tensors(target_probs=target_probs, draft_probs=draft_probs, draft_tokens=draft_tokens)
    if draft_tokens.ndim != 2:
        raise ValueError(f"draft_tokens must have shape (B, γ); got shape {tuple(draft_tokens.shape)}")
    batch, gamma = draft_tokens.shape
    if target_probs.ndim != 3 or tuple(target_probs.shape[:2]) != (batch, gamma + 1) or target_probs.shape[2] == 0:
        raise ValueError(
            f"target_probs must have shape (B, γ+1, V) = ({batch}, {gamma + 1}, V) for draft_tokens of shape "
            f"({batch}, {gamma}); got shape {tuple(target_probs.shape)}"
        )
    vocab = target_probs.shape[2]
    if tuple(draft_probs.shape) != (batch, gamma, vocab):
        raise ValueError(
            f"draft_probs must have shape (B, γ, V) = ({batch}, {gamma}, {vocab}) to match draft_tokens and "
            f"target_probs; got shape {tuple(draft_probs.shape)}"
        )
    check_dtypes_and_devices(target_probs, draft_probs, draft_tokens)
    check_drafted_probabilities(target_probs[:, :gamma], draft_probs, draft_tokens)


def check_tensors(**tensors) -> None:
    for name, value in tensors.items():
        if not isinstance(value, torch.Tensor):
            raise ValueError(f"{name} must be a torch.Tensor; got {type(value).__name__}")


def check_dtypes_and_devices(target_probs, draft_probs, draft_tokens) -> None:
    if target_probs.dtype not in PROBABILITY_DTYPES:
        raise ValueError(f"target_probs must have dtype float32 or float64; got dtype {target_probs.dtype}")
    if draft_probs.dtype != target_probs.dtype:
        raise ValueError(
            f"draft_probs and target_probs must share one dtype; got dtype {draft_probs.dtype} and {target_probs.dtype}"
        )
    if draft_tokens.dtype == torch.bool or draft_tokens.is_floating_point() or draft_tokens.is_complex():
        raise ValueError(f"draft_tokens must hold integer token ids; got dtype {draft_tokens.dtype}")
    devices = {target_probs.device, draft_probs.device, draft_tokens.device}
    if len(devices) > 1:
        raise ValueError(f"all inputs must be on one device; got device {sorted(str(d) for d in devices)}")


def check_drafted_probabilities(target_probs, draft_probs, draft_tokens) -> None:
    """Token ids in range, and p, q at the drafted tokens usable for p / q (one host round trip).

    ``target_probs`` and ``draft_probs`` have the drafted positions only: (..., γ, V) each.
    """
    vocab = draft_probs.shape[-1]
    tokens = draft_tokens.long()
    index = tokens.clamp(0, vocab - 1).unsqueeze(-1)
    p_drafted = target_probs.gather(-1, index).squeeze(-1)
    q_drafted = draft_probs.gather(-1, index).squeeze(-1)
    out_of_range = (tokens < 0) | (tokens >= vocab)
    problems = torch.stack([out_of_range, p_drafted.isnan() | q_drafted.isnan(), (p_drafted < 0) | (q_drafted < 0),
                            p_drafted.isinf() | q_drafted.isinf(), q_drafted == 0])
    if not bool(problems.any()):
        return
    kind, *where = (int(i) for i in problems.nonzero()[0])
    at = format_index(where)
    token = int(tokens[tuple(where)])
    if kind == 0:
        raise ValueError(f"draft_tokens[{at}] = {token} is out of range for a vocabulary of {vocab} tokens")
    p, q = float(p_drafted[tuple(where)]), float(q_drafted[tuple(where)])
    values = f"target_probs[{at}, {token}] = {p}, draft_probs[{at}, {token}] = {q}"
    if kind == 1:
        raise ValueError(f"NaN probability at a drafted token: {values}")
    if kind == 2:
        raise ValueError(f"negative probability at a drafted token: {values}; probabilities must be >= 0")
    if kind == 3:
        raise ValueError(f"infinite probability at a drafted token: {values}")
    raise ValueError(
        f"draft_probs[{at}, {token}] = 0: the draft gave drafted token {token} zero probability at "
        f"position {where[-1]}, so it could not have proposed it"
    )


def check_rows(name: str, rows: torch.Tensor) -> None:
    """Every row finite, non-negative and summing to 1 within the dtype's tolerance."""
    if rows.numel() == 0:
        return
    sums = rows.sum(dim=-1, dtype=torch.float64)
    tolerance = row_sum_tolerance(rows.dtype)
    # Two passes over the rows when all is well: a NaN or an infinity makes its row's sum
    # non-finite, and the smallest entry tells whether any is negative.
    if bool(torch.isfinite(sums).all() & (rows.amin() >= 0) & ((sums - 1).abs() <= tolerance).all()):
        return
    flags = torch.stack([rows.isnan().any(), rows.isinf().any(), (rows < 0).any(), ((sums - 1).abs() > tolerance).any()])
    nan, infinite, negative, off = flags.tolist()
    if nan:
        raise ValueError(f"{name} contains NaN")
    if infinite:
        raise ValueError(f"{name} contains an infinite entry")
    if negative:
        raise ValueError(f"{name}[{format_index((rows < 0).nonzero()[0])}] is negative: probabilities must be >= 0")
    if off:
        row = tuple(int(i) for i in ((sums - 1).abs() > tolerance).nonzero()[0])
        raise ValueError(
            f"{name} row {format_index(row)} sums to {float(sums[row])!r}; "
            f"every row must sum to 1 (within {tolerance} for {rows.dtype})"
        )


def format_index(index) -> str:
    return ", ".join(str(int(i)) for i in index)
