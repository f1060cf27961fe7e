"""tests/shared/adam.py takes the steps torch.optim.Adam takes (its default single-tensor update on the CPU)."""

from __future__ import annotations

import torch

from tests.shared.adam import Adam


def train(optimizer_class, steps: int = 12) -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    unused = torch.nn.Parameter(torch.ones(2))  # never in the loss: no grad, never moved
    optimizer = optimizer_class([*model.parameters(), unused], lr=3e-3)
    generator = torch.Generator().manual_seed(1)
    for _ in range(steps):
        inputs = torch.randn(8, 6, generator=generator)
        loss = model(inputs).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return {**{name: value.detach().clone() for name, value in model.state_dict().items()}, "unused": unused.detach()}


def test_the_written_out_adam_takes_torchs_steps():
    ours, theirs = train(Adam), train(torch.optim.Adam)
    for name in theirs:
        torch.testing.assert_close(ours[name], theirs[name], rtol=1e-6, atol=1e-7, msg=lambda m, n=name: f"{n}: {m}")
    assert torch.equal(ours["unused"], torch.ones(2))
