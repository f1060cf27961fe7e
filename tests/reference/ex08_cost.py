"""Exercise 08-batched-verifier: measure a verifier's cost without a clock.

A clock is a poor judge on a shared machine, so the suite counts instead. While the learner's
function runs, a TorchFunctionMode sees every torch function and tensor method it calls: how many
there are (a Python loop over rows or positions makes the count grow with B or γ) and how many
numbers each newly allocated tensor holds (building a residual for every position needs B·γ·V of
them). Views and in-place results share their input's storage and are not allocations. (A
TorchDispatchMode would see the same at the level of aten operations, but its first use makes
torch import its compiler, torch._dynamo: about 2 s, longer than the rest of the suite.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten


@dataclass
class Cost:
    operations: int = 0
    largest: int = 0  # numbers in the largest tensor allocated
    largest_by: str = ""  # the operation that allocated it
    names: list[str] = field(default_factory=list)


class CostCounter(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.cost = Cost()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        name = getattr(func, "__qualname__", None) or getattr(func, "__name__", str(func))
        self.cost.operations += 1
        self.cost.names.append(name)
        inputs = {storage_of(t) for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)}
        for tensor in tree_flatten(result)[0]:
            if isinstance(tensor, torch.Tensor) and storage_of(tensor) not in inputs:
                if tensor.numel() > self.cost.largest:
                    self.cost.largest, self.cost.largest_by = tensor.numel(), f"{name} -> shape {tuple(tensor.shape)}"
        return result


def storage_of(tensor: torch.Tensor) -> int:
    try:
        return tensor.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):  # tensors without storage
        return id(tensor)


def measure(function, *args) -> tuple[object, Cost]:
    counter = CostCounter()
    with counter:
        result = function(*args)
    return result, counter.cost
