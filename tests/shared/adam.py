"""Adam written out, for the few training steps a suite takes itself (exercises 21 and 22).

Those suites train a head for 15-20 steps to see that the learner's labels, features and loss teach
it. torch.optim.Adam would do, but its constructor imports torch._dynamo (about 2 s on a 2-core
machine: most of what the learner waits for beyond start-up). This is the same update as
torch.optim.Adam's default single-tensor one (Kingma and Ba 2015: betas 0.9 and 0.999, eps 1e-8, no
weight decay), in the same order of operations; tests/support/test_shared_adam.py holds the two
side by side.
"""

from __future__ import annotations

import math

import torch


class Adam:
    def __init__(self, parameters, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        self.parameters = list(parameters)
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.steps = 0
        self.first = [torch.zeros_like(p) for p in self.parameters]
        self.second = [torch.zeros_like(p) for p in self.parameters]

    def zero_grad(self) -> None:
        for parameter in self.parameters:
            parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.steps += 1
        first_correction = 1 - self.beta1 ** self.steps
        second_correction_root = math.sqrt(1 - self.beta2 ** self.steps)
        for parameter, first, second in zip(self.parameters, self.first, self.second):
            if parameter.grad is None:  # a parameter the loss never reached: left alone, as torch's Adam does
                continue
            grad = parameter.grad
            first.lerp_(grad, 1 - self.beta1)
            second.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
            denominator = (second.sqrt() / second_correction_root).add_(self.eps)
            parameter.addcdiv_(first, denominator, value=-self.lr / first_correction)
